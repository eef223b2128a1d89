/* Encoding: added tokens, normalizers, pre-tokenizers, the model and the
 * post-processor, in HuggingFace's order (Tokenizer::encode_single_sequence,
 * AddedVocabulary::extract_and_normalize, PreTokenizedString::split).
 *
 * Pieces of text live in t->pool and are referred to by offset, because the
 * pool moves when it grows. A piece is an added token (id >= 0) or text still
 * to tokenize; empty pieces are dropped at every step, as in HuggingFace. */
#include "tok/private.h"

#include <stdlib.h>
#include <string.h>

/* ---- spans ---- */

int tok_span_push(tok_spans *s, size_t start, size_t end, bool match)
{
	if (s->n == s->cap && ib_grow(&s->v, &s->cap, s->n + 1))
		return IB_ENOMEM;
	s->v[s->n++] = (tok_span){start, end, match};
	return 0;
}

/* A literal pattern: its occurrences left to right, without overlap. The
 * empty literal matches at every character boundary, as the empty regex does
 * under Oniguruma's iteration. */
static int literal_find(const tok_re *re, const char *s, size_t len, tok_spans *out)
{
	size_t prev = 0, n = re->src_len;
	if (!n) {
		for (size_t i = 0;; i += tok_utf8_len((unsigned char)s[i])) {
			if ((i > prev && tok_span_push(out, prev, i, false)) ||
			    tok_span_push(out, i, i, true))
				return IB_ENOMEM;
			prev = i;
			if (i >= len)
				return 0;
		}
	}
	for (size_t i = 0; i + n <= len;) {
		const char *m = memchr(s + i, re->src[0], len - i - n + 1);
		if (!m)
			break;
		if (memcmp(m, re->src, n)) {
			i = (size_t)(m - s) + 1;
			continue;
		}
		size_t ms = (size_t)(m - s);
		if ((ms > prev && tok_span_push(out, prev, ms, false)) ||
		    tok_span_push(out, ms, ms + n, true))
			return IB_ENOMEM;
		prev = i = ms + n;
	}
	return prev < len ? tok_span_push(out, prev, len, false) : 0;
}

int tok_re_find(const tok_re *re, pcre2_match_data *md, pcre2_match_context *mctx, const char *s,
                size_t len, tok_spans *out, ib_error *e)
{
	out->n = 0;
	if (!len)
		return tok_span_push(out, 0, 0, false);
	if (!re->code)
		return literal_find(re, s, len, out);
	size_t prev = 0, last_end = 0, last_match_end = 0;
	bool have_match = false;
	while (last_end <= len) {
		/* the JIT's own entry skips pcre2_match's checks of its arguments
		 * (and of the text's UTF-8, which is valid here) on every piece */
		int rc = re->jit
		             ? pcre2_jit_match(re->code, (PCRE2_SPTR)s, len, last_end, 0, md, mctx)
		             : pcre2_match(re->code, (PCRE2_SPTR)s, len, last_end,
		                           PCRE2_NO_UTF_CHECK, md, mctx);
		if (rc == PCRE2_ERROR_NOMATCH)
			break;
		if (rc < 0) {
			PCRE2_UCHAR msg[256];
			pcre2_get_error_message(rc, msg, sizeof msg);
			return ib_fail(e, IB_ERANGE, NULL, 0, 0, "regex /%s/ failed: %s", re->src,
			               (const char *)msg);
		}
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		size_t ms = ov[0], me = ov[1];
		if (me < ms || ms < prev) /* \K tricks: not produced by tokenizer regexes */
			return ib_fail(e, IB_ERANGE, NULL, 0, 0,
			               "regex /%s/ reported a match that ends before it starts",
			               re->src);
		if (ms == me && have_match && last_match_end == me) {
			if (last_end >= len)
				break;
			last_end += tok_utf8_len((unsigned char)s[last_end]);
			continue;
		}
		last_end = last_match_end = me;
		have_match = true;
		if ((prev != ms && tok_span_push(out, prev, ms, false)) ||
		    tok_span_push(out, ms, me, true))
			return IB_ENOMEM;
		prev = me;
	}
	if (prev != len)
		return tok_span_push(out, prev, len, false);
	return 0;
}

enum { PRED_NUMERIC, PRED_PUNCT, PRED_SPACE, PRED_CHAR };

/* Pattern for Fn(char) -> bool: every matching character is a span of its own. */
static int char_spans(tok_spans *out, const char *s, size_t len, int pred, uint32_t ch)
{
	out->n = 0;
	if (!len)
		return tok_span_push(out, 0, 0, false);
	size_t last = 0;
	for (size_t i = 0; i < len;) {
		size_t b = i;
		uint32_t c = tok_utf8_next(s, &i);
		bool m = pred == PRED_NUMERIC ? tok_uc_numeric(c)
		         : pred == PRED_PUNCT ? tok_uc_punct(c)
		         : pred == PRED_SPACE ? tok_uc_space(c)
		                              : c == ch;
		if (!m)
			continue;
		if ((last < b && tok_span_push(out, last, b, false)) ||
		    tok_span_push(out, b, i, true))
			return IB_ENOMEM;
		last = i;
	}
	if (len > last)
		return tok_span_push(out, last, len, false);
	return 0;
}

/* ---- pieces ---- */

/* inlined: a piece passed by value to a call went through the stack in parts
 * that the call then read whole (a store-forwarding stall) */
static inline __attribute__((always_inline)) int piece_push(tok_pieces *l, tok_piece p)
{
	if (l->n == l->cap && ib_grow(&l->v, &l->cap, l->n + 1))
		return IB_ENOMEM;
	l->v[l->n++] = p;
	return 0;
}

/* Text piece [start, end) of p, unless it is empty. */
static int sub_push(tok_pieces *out, const tok_piece *p, size_t start, size_t end)
{
	if (end <= start)
		return 0;
	return piece_push(out, (tok_piece){.off = p->off + start,
	                                   .len = end - start,
	                                   .id = -1,
	                                   .first = p->first && start == 0});
}

/* NormalizedString::split: cuts p along t->spans with a delimiter behavior. */
static int split_piece(tok *t, const tok_piece *p, int behavior, bool invert, tok_pieces *out)
{
	tok_span *v = t->spans.v;
	size_t n = t->spans.n, w = 0;
	bool prev = false;
	if (invert)
		for (size_t k = 0; k < n; k++)
			v[k].match = !v[k].match;
	switch (behavior) {
	case TB_REMOVED:
		for (size_t k = 0; k < n; k++)
			if (!v[k].match && sub_push(out, p, v[k].start, v[k].end))
				return IB_ENOMEM;
		return 0;
	case TB_ISOLATED:
		w = n;
		break;
	case TB_CONTIGUOUS:
		for (size_t k = 0; k < n; k++) {
			if (v[k].match == prev && w > 0)
				v[w - 1].end = v[k].end;
			else
				v[w++] = v[k];
			prev = v[k].match;
		}
		break;
	case TB_PREVIOUS:
		for (size_t k = 0; k < n; k++) {
			bool m = v[k].match;
			if (m && !prev && w > 0)
				v[w - 1].end = v[k].end;
			else
				v[w++] = v[k];
			prev = m;
		}
		break;
	default: { /* TB_NEXT: folded from the end */
		w = n;
		for (size_t k = n; k-- > 0;) {
			bool m = v[k].match;
			if (m && !prev && w < n)
				v[w].start = v[k].start;
			else
				v[--w] = v[k];
			prev = m;
		}
		for (size_t k = w; k < n; k++)
			if (sub_push(out, p, v[k].start, v[k].end))
				return IB_ENOMEM;
		return 0;
	}
	}
	for (size_t k = 0; k < w; k++)
		if (sub_push(out, p, v[k].start, v[k].end))
			return IB_ENOMEM;
	return 0;
}

/* Commits `len` bytes the caller wrote at the end of the pool (room already
 * reserved) as a text piece. */
static tok_piece commit_text(tok *t, size_t len, bool first)
{
	size_t off = t->pool.len;
	t->pool.len += len;
	t->pool.data[t->pool.len] = '\0';
	return (tok_piece){.off = off, .len = len, .id = -1, .first = first};
}

/* ---- added tokens (AddedVocabulary::find_matches) ---- */

static bool ends_with_word(const char *s, size_t end)
{
	if (!end)
		return false;
	size_t b = end - 1;
	while (b > 0 && ((unsigned char)s[b] & 0xC0) == 0x80)
		b--;
	return tok_uc_word(tok_utf8_next(s, &b));
}

static bool starts_with_word(const char *s, size_t len)
{
	size_t i = 0;
	return len && tok_uc_word(tok_utf8_next(s, &i));
}

static int split_added(tok *t, const tok_trie *trie, const tok_piece *p, tok_pieces *out)
{
	size_t len = p->len, start_offset = 0;
	const char *s = t->pool.data + p->off;
	for (size_t i = 0; i < len;) {
		int32_t ai;
		if (trie->nroots == 1) { /* e.g. every added token starts with '<' */
			const char *c = memchr(s + i, trie->only_root, len - i);
			if (!c)
				break;
			i = (size_t)(c - s);
		} else if (!trie->root[(unsigned char)s[i]]) {
			i++;
			continue;
		}
		size_t ml = tok_trie_longest(trie, s + i, len - i, &ai);
		if (!ml) {
			i++;
			continue;
		}
		const tok_added *a = &t->added[ai];
		size_t start = i, stop = i + ml;
		i = stop; /* the search goes on after the match, whatever happens to it */
		if (a->single_word && ((start > 0 && ends_with_word(s, start)) ||
		                       (stop < len && starts_with_word(s + stop, len - stop))))
			continue;
		if (a->lstrip) {
			size_t ns = start;
			while (ns > 0) {
				size_t b = ns - 1;
				while (b > 0 && ((unsigned char)s[b] & 0xC0) == 0x80)
					b--;
				size_t q = b;
				if (!tok_uc_space(tok_utf8_next(s, &q)))
					break;
				ns = b;
			}
			start = ns > start_offset ? ns : start_offset;
		}
		if (a->rstrip) {
			while (stop < len) {
				size_t q = stop;
				if (!tok_uc_space(tok_utf8_next(s, &q)))
					break;
				stop = q;
			}
		}
		if (start_offset < start && sub_push(out, p, start_offset, start))
			return IB_ENOMEM;
		if (piece_push(out, (tok_piece){.off = p->off + start,
		                                .len = stop - start,
		                                .id = a->id,
		                                .first = p->first && start == 0}))
			return IB_ENOMEM;
		start_offset = stop;
	}
	if (start_offset != len)
		return sub_push(out, p, start_offset, len);
	return 0;
}

/* ---- normalizers ---- */

int tok_normalize(tok *t, const tok_norm *n, const char *s, size_t len, ib_buf *out, ib_error *e)
{
	int rc = 0;
	out->len = 0;
	if (ib_buf_reserve(out, len + 8))
		return IB_ENOMEM;
	out->data[0] = '\0';
	switch (n->kind) {
	case TN_SEQ: {
		ib_buf tmp = {0};
		if ((rc = ib_buf_append(out, s, len)))
			return rc;
		for (size_t k = 0; k < n->nsub && !rc; k++) {
			ib_buf x = tmp;
			tmp = *out;
			*out = x;
			rc = tok_normalize(t, n->sub[k], tmp.data, tmp.len, out, e);
		}
		ib_buf_free(&tmp);
		return rc;
	}
	case TN_NFC:
		return tok_uc_normalize(out, s, len, TOK_NFC);
	case TN_NFD:
		return tok_uc_normalize(out, s, len, TOK_NFD);
	case TN_NFKC:
		return tok_uc_normalize(out, s, len, TOK_NFKC);
	case TN_NFKD:
		return tok_uc_normalize(out, s, len, TOK_NFKD);
	case TN_LOWER:
		return tok_uc_lower(out, s, len);
	case TN_REPLACE: {
		tok_spans sp = {0};
		rc = tok_re_find(&n->re, t->md, t->mctx, s, len, &sp, e);
		for (size_t k = 0; k < sp.n && !rc; k++)
			rc = sp.v[k].match ? ib_buf_append(out, n->str, n->slen)
			                   : ib_buf_append(out, s + sp.v[k].start,
			                                   sp.v[k].end - sp.v[k].start);
		free(sp.v);
		return rc;
	}
	case TN_PREPEND:
		if (len && (rc = ib_buf_append(out, n->str, n->slen)))
			return rc;
		return ib_buf_append(out, s, len);
	case TN_STRIP: {
		size_t a = 0, b = len;
		while (n->left && a < len) {
			size_t q = a;
			if (!tok_uc_space(tok_utf8_next(s, &q)))
				break;
			a = q;
		}
		while (n->right && b > a) {
			size_t q = b - 1;
			while (q > a && ((unsigned char)s[q] & 0xC0) == 0x80)
				q--;
			size_t r = q;
			if (!tok_uc_space(tok_utf8_next(s, &r)))
				break;
			b = q;
		}
		return ib_buf_append(out, s + a, b - a);
	}
	default: /* TN_BYTELEVEL */
		if (ib_buf_reserve(out, 2 * len))
			return IB_ENOMEM;
		for (size_t k = 0; k < len; k++)
			out->len +=
			    tok_utf8_put(out->data + out->len, tok_byte_to_cp((unsigned char)s[k]));
		out->data[out->len] = '\0';
		return 0;
	}
}

/* ---- pre-tokenizers ---- */

/* The byte-level mapping of piece p, written at the pool's end as *q. */
static inline __attribute__((always_inline)) int map_text(tok *t, const tok_piece *p, tok_piece *q)
{
	if (ib_buf_reserve(&t->pool, 2 * p->len + 1))
		return IB_ENOMEM;
	const unsigned char *s = (const unsigned char *)t->pool.data + p->off;
	char *d = t->pool.data + t->pool.len;
	size_t o = 0;
	for (size_t k = 0; k < p->len; k++) {
		/* both bytes loaded before the store, which may alias the table */
		unsigned char m[2];
		memcpy(m, t->byte_utf8[s[k]], 2);
		memcpy(d + o, m, 2);
		o += 1 + (m[1] != 0);
	}
	*q = commit_text(t, o, p->first);
	return 0;
}

/* The byte-level mapping of piece p, as a new piece. */
static int byte_map(tok *t, const tok_piece *p, tok_pieces *out)
{
	tok_piece q;
	if (map_text(t, p, &q))
		return IB_ENOMEM;
	return q.len ? piece_push(out, q) : 0;
}

static int pre_byte_level(tok *t, const tok_pre *pt, const tok_piece *in, tok_pieces *out,
                          ib_error *e)
{
	tok_piece p = *in;
	int rc;
	if (pt->add_prefix_space && t->pool.data[p.off] != ' ') {
		if (ib_buf_reserve(&t->pool, p.len + 2))
			return IB_ENOMEM;
		char *d = t->pool.data + t->pool.len;
		d[0] = ' ';
		memcpy(d + 1, t->pool.data + p.off, p.len);
		p.off = t->pool.len;
		p.len += 1;
		t->pool.len += p.len;
		t->pool.data[t->pool.len] = '\0';
	}
	if (!pt->use_regex)
		return byte_map(t, &p, out);
	if ((rc = tok_re_find(&pt->re, t->md, t->mctx, t->pool.data + p.off, p.len, &t->spans, e)))
		return rc;
	tok_pieces *subs = &t->lists[3];
	subs->n = 0;
	rc = split_piece(t, &p, TB_ISOLATED, false, subs);
	for (size_t k = 0; k < subs->n && !rc; k++)
		rc = byte_map(t, &subs->v[k], out);
	return rc;
}

static int pre_metaspace(tok *t, const tok_pre *pt, const tok_piece *p, tok_pieces *out)
{
	size_t nsp = 0;
	for (size_t k = 0; k < p->len; k++)
		nsp += t->pool.data[p->off + k] == ' ';
	size_t need = p->len + nsp * pt->repl_len + pt->repl_len + 1;
	if (ib_buf_reserve(&t->pool, need))
		return IB_ENOMEM;
	const char *s = t->pool.data + p->off;
	char *d = t->pool.data + t->pool.len;
	size_t o = 0;
	/* after the replacement, the string starts with the replacement when it
	 * started with a space or with the replacement itself */
	bool starts = (p->len && s[0] == ' ') ||
	              (p->len >= pt->repl_len && !memcmp(s, pt->repl, pt->repl_len));
	if ((pt->prepend_scheme == TM_ALWAYS || (pt->prepend_scheme == TM_FIRST && p->first)) &&
	    !starts) {
		memcpy(d, pt->repl, pt->repl_len);
		o = pt->repl_len;
	}
	for (size_t k = 0; k < p->len; k++) {
		if (s[k] == ' ') {
			memcpy(d + o, pt->repl, pt->repl_len);
			o += pt->repl_len;
		} else {
			d[o++] = s[k];
		}
	}
	tok_piece q = commit_text(t, o, p->first);
	if (!o)
		return 0;
	if (!pt->split)
		return piece_push(out, q);
	size_t i = 0;
	uint32_t ch = tok_utf8_next(pt->repl, &i);
	int rc = char_spans(&t->spans, t->pool.data + q.off, q.len, PRED_CHAR, ch);
	return rc ? rc : split_piece(t, &q, TB_NEXT, false, out);
}

static int pre_step(tok *t, const tok_pre *pt, tok_pieces *io, ib_error *e)
{
	int rc = 0;
	if (pt->kind == TP_SEQ) {
		for (size_t k = 0; k < pt->nsub && !rc; k++)
			rc = pre_step(t, pt->sub[k], io, e);
		return rc;
	}
	/* the output goes to the spare list, which then trades places with io */
	tok_pieces out = t->lists[2];
	out.n = 0;
	for (size_t i = 0; i < io->n && !rc; i++) {
		const tok_piece *p = &io->v[i];
		const char *s = t->pool.data + p->off;
		if (p->id >= 0) {
			rc = piece_push(&out, *p);
			continue;
		}
		switch (pt->kind) {
		case TP_BYTELEVEL:
			if (pt == t->defer_map) { /* mapped by the model loop */
				if (p->len)
					rc = piece_push(&out, *p);
				break;
			}
			rc = pre_byte_level(t, pt, p, &out, e);
			break;
		case TP_METASPACE:
			rc = pre_metaspace(t, pt, p, &out);
			break;
		case TP_SPLIT:
			rc = pt->re.llama3
			         ? tok_split_llama3(t, s, p->len, &t->spans)
			         : tok_re_find(&pt->re, t->md, t->mctx, s, p->len, &t->spans, e);
			if (!rc)
				rc = split_piece(t, p, pt->behavior, pt->invert, &out);
			break;
		case TP_WHITESPACE:
			rc = tok_re_find(&pt->re, t->md, t->mctx, s, p->len, &t->spans, e);
			if (!rc)
				rc = split_piece(t, p, TB_REMOVED, true, &out);
			break;
		case TP_DIGITS:
			rc = char_spans(&t->spans, s, p->len, PRED_NUMERIC, 0);
			if (!rc)
				rc = split_piece(
				    t, p, pt->individual_digits ? TB_ISOLATED : TB_CONTIGUOUS,
				    false, &out);
			break;
		case TP_WSSPLIT:
			rc = char_spans(&t->spans, s, p->len, PRED_SPACE, 0);
			if (!rc)
				rc = split_piece(t, p, TB_REMOVED, false, &out);
			break;
		default: /* TP_PUNCT */
			rc = char_spans(&t->spans, s, p->len, PRED_PUNCT, 0);
			if (!rc)
				rc = split_piece(t, p, pt->behavior, false, &out);
			break;
		}
	}
	t->lists[2] = *io;
	*io = out;
	return rc;
}

/* ---- post-processors (ids only) ---- */

static int post_apply(const tok_post *pp, bool add_special, tok_ids *out, size_t before)
{
	if (pp->kind == TPP_BYTELEVEL)
		return 0;
	if (pp->kind == TPP_SEQ) {
		for (size_t k = 0; k < pp->nsub; k++) {
			int rc = post_apply(pp->sub[k], add_special, out, before);
			if (rc)
				return rc;
		}
		return 0;
	}
	/* TEMPLATE: rebuild [before, n) as the template says */
	size_t nseq = out->n - before, total = 0;
	for (size_t k = 0; k < pp->ntpl; k++)
		total += pp->tpl[k].seq ? nseq : add_special ? pp->tpl[k].n : 0;
	uint32_t *seq = NULL;
	if (nseq) {
		seq = malloc(nseq * sizeof *seq);
		if (!seq)
			return IB_ENOMEM;
		memcpy(seq, out->v + before, nseq * sizeof *seq);
	}
	if (ib_grow(&out->v, &out->cap, before + total)) {
		free(seq);
		return IB_ENOMEM;
	}
	size_t o = before;
	for (size_t k = 0; k < pp->ntpl; k++) {
		const struct tok_tpl *x = &pp->tpl[k];
		if (x->seq) {
			if (nseq)
				memcpy(out->v + o, seq, nseq * sizeof *seq);
			o += nseq;
		} else if (add_special && x->n) {
			memcpy(out->v + o, x->ids, x->n * sizeof *x->ids);
			o += x->n;
		}
	}
	out->n = o;
	free(seq);
	return 0;
}

/* ---- the piece memo ---- */

enum { MEMO_SLOTS = 1 << 15, MEMO_MAX = MEMO_SLOTS / 2, MEMO_MAX_LEN = 256 };

void tok_encode_forget(tok *t)
{
	struct tok_memo *m = &t->memo;
	if (m->slot && m->n)
		memset(m->slot, 0, (m->mask + 1) * sizeof *m->slot);
	m->n = 0;
	m->gen++;
	m->keys.len = 0;
	m->ids.n = 0;
}

/* Allocates the memo's tables; false when out of memory (then there is no
 * memo). */
static bool memo_ready(struct tok_memo *m)
{
	if (m->slot)
		return true;
	m->slot = calloc(MEMO_SLOTS, sizeof *m->slot);
	m->e = malloc(MEMO_MAX * sizeof *m->e);
	if (!m->slot || !m->e) {
		free(m->slot);
		free(m->e);
		m->slot = NULL;
		m->e = NULL;
		return false;
	}
	m->mask = MEMO_SLOTS - 1;
	return true;
}

/* The memo's entry for key s[0..len), whose tok_hash is h, or -1. */
static inline __attribute__((always_inline)) long memo_find(const struct tok_memo *m, const char *s,
                                                            size_t len, uint64_t h)
{
	size_t i = (size_t)h & m->mask;
	uint64_t x;
	while ((x = m->slot[i])) {
		if ((x >> 32) == (h >> 32)) {
			const struct tok_memo_e *en = &m->e[(uint32_t)x - 1];
			if (en->klen == len && !memcmp(m->keys.data + en->koff, s, len))
				return (long)((uint32_t)x - 1);
		}
		i = (i + 1) & m->mask;
	}
	return -1;
}

/* Appends the ids of memo entry k. */
static inline __attribute__((always_inline)) int memo_put(const struct tok_memo *m, long k,
                                                          tok_ids *out)
{
	const struct tok_memo_e *en = &m->e[k];
	if (en->n == 1)
		return tok_ids_push(out, en->val);
	if (out->n + en->n > out->cap && ib_grow(&out->v, &out->cap, out->n + en->n))
		return IB_ENOMEM;
	memcpy(out->v + out->n, m->ids.v + en->val, en->n * sizeof *out->v);
	out->n += en->n;
	return 0;
}

/* Remembers out->v[before ..] as the ids of key s[0..len) (tok_hash h),
 * which memo_find did not find. Out of memory it forgets instead. */
static void memo_add(tok *t, const char *s, size_t len, uint64_t h, const tok_ids *out,
                     size_t before)
{
	struct tok_memo *m = &t->memo;
	size_t n = out->n - before;
	if (!n)
		return;
	if (m->n == MEMO_MAX)
		tok_encode_forget(t);
	size_t i = (size_t)h & m->mask;
	while (m->slot[i])
		i = (i + 1) & m->mask;
	size_t koff = m->keys.len, ioff = m->ids.n;
	if (ib_buf_append(&m->keys, s, len)) { /* no memory: start over, nothing lost */
		ib_buf_free(&m->keys);
		tok_encode_forget(t);
		return;
	}
	if (n > 1) {
		if (ib_grow(&m->ids.v, &m->ids.cap, ioff + n)) {
			tok_encode_forget(t);
			return;
		}
		memcpy(m->ids.v + ioff, out->v + before, n * sizeof *out->v);
		m->ids.n += n;
	}
	m->e[m->n] = (struct tok_memo_e){.koff = (uint32_t)koff,
	                                 .klen = (uint32_t)len,
	                                 .val = n > 1 ? (uint32_t)ioff : out->v[before],
	                                 .n = (uint32_t)n};
	m->slot[i] = (h & 0xFFFFFFFF00000000ull) | (uint64_t)(m->n + 1);
	m->n++;
}

/* The ids of model piece s[0..len), whose tok_hash is h, from the memo or
 * from the model (and then remembered). */
static int model_piece(tok *t, const char *s, size_t len, uint64_t h, tok_ids *out, ib_error *e)
{
	struct tok_memo *m = &t->memo;
	if (len > MEMO_MAX_LEN || !memo_ready(m))
		return tok_bpe_tokenize_h(&t->bpe, s, len, h, out, e);
	long k = memo_find(m, s, len, h);
	if (k >= 0)
		return memo_put(m, k, out);
	size_t before = out->n;
	int rc = tok_bpe_tokenize_h(&t->bpe, s, len, h, out, e);
	if (!rc)
		memo_add(t, s, len, h, out, before);
	return rc;
}

/* ---- encode ---- */

int tok_pretokenize(tok *t, const char *text, size_t len, const tok_pieces **out, ib_error *e)
{
	int rc;
	tok_pieces *io = &t->lists[0], *res = &t->lists[1];
	io->n = res->n = 0;
	*out = res;
	t->pool.len = 0;
	if ((rc = ib_buf_append(&t->pool, text, len)))
		goto done;
	tok_piece whole = {.off = 0, .len = len, .id = -1, .first = true};
	/* 1. added tokens matched on the raw text */
	if (t->have_raw_trie)
		rc = split_added(t, &t->raw_trie, &whole, io);
	else if (len)
		rc = piece_push(io, whole);
	/* 2. each remaining piece normalized, then the normalized added tokens */
	for (size_t i = 0; i < io->n && !rc; i++) {
		tok_piece p = io->v[i];
		if (p.id >= 0) {
			rc = piece_push(res, p);
			continue;
		}
		if (t->norm) {
			ib_buf *nb = &t->nbuf[0];
			if ((rc = tok_normalize(t, t->norm, t->pool.data + p.off, p.len, nb, e)) ||
			    (rc = ib_buf_reserve(&t->pool, nb->len + 1)))
				break;
			memcpy(t->pool.data + t->pool.len, nb->data, nb->len);
			p = commit_text(t, nb->len, p.first);
			if (!p.len)
				continue;
		}
		if (t->have_norm_trie)
			rc = split_added(t, &t->norm_trie, &p, res);
		else
			rc = piece_push(res, p);
	}
	/* 3. pre-tokenizers */
	if (!rc && t->pre)
		rc = pre_step(t, t->pre, res, e);
done:
	if (rc == IB_ENOMEM)
		ib_fail(e, IB_ENOMEM, t->name, 0, 0, "out of memory while encoding");
	return rc;
}

/* The last step of pre-tokenizer pt when it is a plain ByteLevel mapping
 * (no regex, no prefix space), else NULL. */
static const tok_pre *plain_byte_level_last(const tok_pre *pt)
{
	while (pt && pt->kind == TP_SEQ)
		pt = pt->nsub ? pt->sub[pt->nsub - 1] : NULL;
	return pt && pt->kind == TP_BYTELEVEL && !pt->use_regex && !pt->add_prefix_space ? pt
	                                                                                 : NULL;
}

/* The model over pieces whose last pre-tokenizer step, a plain ByteLevel
 * mapping, was left undone (t->defer_map): the memo is keyed by a piece's
 * raw bytes (the mapping is one to one), so a piece met before costs one
 * hash of its raw bytes and one lookup. Three stages, AHEAD pieces apart in
 * all: piece i is hashed and its memo slot fetched; piece i - MID is looked
 * up, and when missing, mapped and hashed again, and its vocabulary or word
 * cache slot fetched; piece i - AHEAD is tokenized. */
static int model_deferred(tok *t, const tok_pieces *nx, tok_ids *out, ib_error *e)
{
	enum { AHEAD = 12, MID = 6, RING = 16 };
	struct {
		uint64_t h, mh; /* tok_hash of the raw bytes, of the mapped ones */
		long k;         /* the memo entry, or -1 */
		size_t gen;     /* the memo's gen when k was found */
		tok_piece q;    /* when k < 0: the mapped piece */
	} r[RING];
	struct tok_memo *m = &t->memo;
	int rc = 0;
	for (size_t i = 0; i < nx->n + AHEAD && !rc; i++) {
		if (i < nx->n) { /* hash piece i, fetch its memo slot */
			const tok_piece *p = &nx->v[i];
			if (p->id < 0) {
				uint64_t h = tok_hash(t->pool.data + p->off, p->len);
				r[i % RING].h = h;
				__builtin_prefetch(&m->slot[h & m->mask]);
			}
		}
		if (i >= MID && i - MID < nx->n) { /* look piece i - MID up */
			size_t j = i - MID;
			const tok_piece *p = &nx->v[j];
			if (p->id < 0) {
				long k =
				    p->len <= MEMO_MAX_LEN
				        ? memo_find(m, t->pool.data + p->off, p->len, r[j % RING].h)
				        : -1;
				r[j % RING].k = k;
				r[j % RING].gen = m->gen;
				if (k < 0) {
					tok_piece q;
					if ((rc = map_text(t, p, &q)))
						break;
					uint64_t mh = tok_hash(t->pool.data + q.off, q.len);
					r[j % RING].q = q;
					r[j % RING].mh = mh;
					tok_bpe_prefetch(&t->bpe, mh);
				}
			}
		}
		if (i < AHEAD)
			continue;
		size_t j = i - AHEAD; /* tokenize piece i - AHEAD */
		const tok_piece *p = &nx->v[j];
		if (p->id >= 0) {
			rc = tok_ids_push(out, (uint32_t)p->id);
			continue;
		}
		long k = r[j % RING].k;
		tok_piece q = r[j % RING].q;
		uint64_t mh = r[j % RING].mh;
		if (k >= 0 && r[j % RING].gen != m->gen) { /* the memo was emptied since */
			if ((rc = map_text(t, p, &q)))
				break;
			mh = tok_hash(t->pool.data + q.off, q.len);
			k = -1;
		}
		if (k >= 0) {
			rc = memo_put(m, k, out);
			continue;
		}
		size_t before = out->n;
		rc = tok_bpe_tokenize_h(&t->bpe, t->pool.data + q.off, q.len, mh, out, e);
		if (!rc && p->len <= MEMO_MAX_LEN)
			memo_add(t, t->pool.data + p->off, p->len, r[j % RING].h, out, before);
	}
	return rc;
}

static int encode(tok *t, const char *text, size_t len, bool add_special, tok_ids *out, ib_error *e)
{
	size_t before = out->n;
	const tok_pieces *nx = NULL;
	bool memo = memo_ready(&t->memo);
	t->defer_map = memo ? plain_byte_level_last(t->pre) : NULL;
	int rc = tok_pretokenize(t, text, len, &nx, e);
	bool deferred = t->defer_map != NULL;
	t->defer_map = NULL;
	/* 4. the model. Its lookups miss the CPU's caches (the vocabulary is
	 * megabytes), so each piece's hash is taken AHEAD pieces early and its
	 * slots (memo, then vocabulary or word cache) fetched meanwhile. */
	enum { AHEAD = 8 };
	uint64_t hs[2 * AHEAD]; /* the hashes of pieces i - AHEAD .. i */
	if (!rc && deferred)
		rc = model_deferred(t, nx, out, e);
	for (size_t i = 0; !deferred && i < nx->n + AHEAD && !rc; i++) {
		if (i < nx->n) { /* hash and prefetch piece i */
			const tok_piece *p = &nx->v[i];
			if (p->id < 0) {
				uint64_t h = tok_hash(t->pool.data + p->off, p->len);
				hs[i % (2 * AHEAD)] = h;
				if (memo)
					__builtin_prefetch(&t->memo.slot[h & t->memo.mask]);
				tok_bpe_prefetch(&t->bpe, h);
			}
		}
		if (i < AHEAD)
			continue;
		const tok_piece *p = &nx->v[i - AHEAD]; /* tokenize piece i - AHEAD */
		if (p->id >= 0)
			rc = tok_ids_push(out, (uint32_t)p->id);
		else
			rc = model_piece(t, t->pool.data + p->off, p->len,
			                 hs[(i - AHEAD) % (2 * AHEAD)], out, e);
	}
	/* 5. the post-processor */
	if (!rc && t->post)
		rc = post_apply(t->post, add_special, out, before);
	if (rc) {
		out->n = before;
		if (rc == IB_ENOMEM)
			ib_fail(e, IB_ENOMEM, t->name, 0, 0, "out of memory while encoding");
	}
	return rc;
}

int tok_encode(tok *t, const char *text, size_t len, bool add_special, tok_ids *out, ib_error *e)
{
	size_t bad = tok_utf8_check(text, len);
	if (bad < len)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0,
		               "text is not valid UTF-8 (invalid byte 0x%02X at byte offset %zu)",
		               (unsigned char)text[bad], bad);
	return encode(t, text, len, add_special, out, e);
}

int tok_encode_valid(tok *t, const char *text, size_t len, bool add_special, tok_ids *out,
                     ib_error *e)
{
	return encode(t, text, len, add_special, out, e);
}

void tok_ids_free(tok_ids *ids)
{
	free(ids->v);
	memset(ids, 0, sizeof *ids);
}
