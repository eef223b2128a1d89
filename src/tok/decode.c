/* Decoding: ids to token texts, then the decoder chain (HuggingFace
 * decoders: each decoder maps a list of strings to a list of strings, and
 * the final list is joined). */
#include "tok/private.h"

#include <stdlib.h>
#include <string.h>

/* A list of strings: spans of one buffer. */
typedef struct {
	ib_buf b;
	tok_spans s;
} strlist;

static int sl_add(strlist *l, const char *p, size_t n)
{
	size_t start = l->b.len;
	if (ib_buf_append(&l->b, p, n))
		return IB_ENOMEM;
	if (l->s.n == l->s.cap && ib_grow(&l->s.v, &l->s.cap, l->s.n + 1))
		return IB_ENOMEM;
	l->s.v[l->s.n++] = (tok_span){start, start + n, false};
	return 0;
}

/* Appends to the last string of l. */
static int sl_extend(strlist *l, const char *p, size_t n)
{
	if (ib_buf_append(&l->b, p, n))
		return IB_ENOMEM;
	l->s.v[l->s.n - 1].end += n;
	return 0;
}

static void sl_free(strlist *l)
{
	ib_buf_free(&l->b);
	free(l->s.v);
}

#define STR(l, k) ((l)->b.data + (l)->s.v[k].start)
#define LEN(l, k) ((l)->s.v[k].end - (l)->s.v[k].start)

static const char REPLACEMENT[] = "\xEF\xBF\xBD";

static int hexval(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
	                              : -1;
}

/* "<0xNN>" as ByteFallback reads it (Rust u8::from_str_radix, which also
 * takes a leading '+'), or -1. */
static int byte_token(const char *s, size_t n)
{
	if (n != 6 || memcmp(s, "<0x", 3) || s[5] != '>')
		return -1;
	int hi = hexval(s[3]), lo = hexval(s[4]);
	if (s[3] == '+' && lo >= 0)
		return lo;
	return hi >= 0 && lo >= 0 ? hi * 16 + lo : -1;
}

static int flush_bytes(strlist *out, ib_buf *bytes)
{
	int rc = 0;
	if (!bytes->len)
		return 0;
	if (tok_utf8_check(bytes->data, bytes->len) == bytes->len)
		rc = sl_add(out, bytes->data, bytes->len);
	else
		for (size_t k = 0; k < bytes->len && !rc; k++)
			rc = sl_add(out, REPLACEMENT, 3);
	bytes->len = 0;
	return rc;
}

static int dec_step(const tok_dec *d, pcre2_match_data **md, strlist *in, strlist *out,
                    ib_error *e);

static int dec_byte_level(strlist *in, strlist *out)
{
	ib_buf bytes = {0};
	int rc = 0;
	for (size_t k = 0; k < in->s.n && !rc; k++) {
		const char *s = STR(in, k);
		size_t n = LEN(in, k), i = 0, mark = bytes.len;
		bool all = true;
		while (i < n && all) {
			int b = tok_cp_to_byte(tok_utf8_next(s, &i));
			if (b < 0) {
				all = false;
			} else {
				char c = (char)b;
				rc = ib_buf_append(&bytes, &c, 1);
			}
		}
		if (!all) { /* not byte-level text: its own UTF-8 bytes */
			bytes.len = mark;
			rc = ib_buf_append(&bytes, s, n);
		}
	}
	ib_buf text = {0};
	if (!rc)
		rc = tok_utf8_lossy(&text, bytes.data ? bytes.data : "", bytes.len);
	if (!rc)
		rc = sl_add(out, text.data ? text.data : "", text.len);
	ib_buf_free(&bytes);
	ib_buf_free(&text);
	return rc;
}

static int dec_metaspace(const tok_dec *d, strlist *in, strlist *out)
{
	int rc = 0;
	for (size_t k = 0; k < in->s.n && !rc; k++) {
		const char *s = STR(in, k);
		size_t n = LEN(in, k);
		if ((rc = sl_add(out, "", 0)))
			break;
		for (size_t i = 0; i < n && !rc;) {
			if (n - i >= d->ch_len && !memcmp(s + i, d->ch, d->ch_len)) {
				if (k > 0 || d->prepend_never)
					rc = sl_extend(out, " ", 1);
				i += d->ch_len;
			} else {
				size_t l = tok_utf8_len((unsigned char)s[i]);
				rc = sl_extend(out, s + i, l);
				i += l;
			}
		}
	}
	return rc;
}

static int dec_byte_fallback(strlist *in, strlist *out)
{
	ib_buf bytes = {0};
	int rc = 0;
	for (size_t k = 0; k < in->s.n && !rc; k++) {
		int b = byte_token(STR(in, k), LEN(in, k));
		if (b >= 0) {
			char c = (char)b;
			rc = ib_buf_append(&bytes, &c, 1);
			continue;
		}
		if (!(rc = flush_bytes(out, &bytes)))
			rc = sl_add(out, STR(in, k), LEN(in, k));
	}
	if (!rc)
		rc = flush_bytes(out, &bytes);
	ib_buf_free(&bytes);
	return rc;
}

static int dec_strip(const tok_dec *d, strlist *in, strlist *out)
{
	int rc = 0;
	for (size_t k = 0; k < in->s.n && !rc; k++) {
		const char *s = STR(in, k);
		size_t n = LEN(in, k), a = 0, b = n;
		for (size_t c = 0; c < d->start && a < n; c++) {
			if (n - a < d->ch_len || memcmp(s + a, d->ch, d->ch_len))
				break;
			a += d->ch_len;
		}
		for (size_t c = 0; c < d->stop && b > a; c++) {
			if (b - a < d->ch_len || memcmp(s + b - d->ch_len, d->ch, d->ch_len))
				break;
			b -= d->ch_len;
		}
		rc = sl_add(out, s + a, b - a);
	}
	return rc;
}

static int dec_replace(const tok_dec *d, pcre2_match_data **md, strlist *in, strlist *out,
                       ib_error *e)
{
	int rc = 0;
	tok_spans sp = {0};
	if (!*md && !(*md = pcre2_match_data_create(16, NULL)))
		return IB_ENOMEM;
	for (size_t k = 0; k < in->s.n && !rc; k++) {
		const char *s = STR(in, k);
		if ((rc = tok_re_find(&d->re, *md, NULL, s, LEN(in, k), &sp, e)) ||
		    (rc = sl_add(out, "", 0)))
			break;
		for (size_t j = 0; j < sp.n && !rc; j++)
			rc = sp.v[j].match
			         ? sl_extend(out, d->str, d->slen)
			         : sl_extend(out, s + sp.v[j].start, sp.v[j].end - sp.v[j].start);
	}
	free(sp.v);
	return rc;
}

static int dec_step(const tok_dec *d, pcre2_match_data **md, strlist *in, strlist *out, ib_error *e)
{
	int rc = 0;
	switch (d->kind) {
	case TD_SEQ:
		for (size_t k = 0; k < d->nsub && !rc; k++) {
			strlist nx = {0};
			rc = dec_step(d->sub[k], md, in, &nx, e);
			sl_free(in);
			*in = nx;
		}
		/* the result is in `in`: hand it over */
		*out = *in;
		memset(in, 0, sizeof *in);
		return rc;
	case TD_BYTELEVEL:
		return dec_byte_level(in, out);
	case TD_METASPACE:
		return dec_metaspace(d, in, out);
	case TD_BYTEFALLBACK:
		return dec_byte_fallback(in, out);
	case TD_FUSE:
		if ((rc = sl_add(out, "", 0)))
			return rc;
		for (size_t k = 0; k < in->s.n && !rc; k++)
			rc = sl_extend(out, STR(in, k), LEN(in, k));
		return rc;
	case TD_STRIP:
		return dec_strip(d, in, out);
	default:
		return dec_replace(d, md, in, out, e);
	}
}

/* ---- the ByteLevel decode table ---- */

/* The byte that the byte-level character at s[*i] stands for (advancing *i
 * past it), or -1 when the character is not of that alphabet. s is valid
 * UTF-8. */
static int bl_byte(const unsigned char *s, size_t n, size_t *i)
{
	unsigned char c = s[*i];
	if (c < 0x80) {
		(*i)++;
		return c >= 0x21 && c <= 0x7E ? c : -1;
	}
	if ((c & 0xE0) != 0xC0 || *i + 1 >= n) /* 3- and 4-byte characters are above U+0143 */
		return -1;
	uint32_t cp = (uint32_t)(c & 0x1F) << 6 | (s[*i + 1] & 0x3Fu);
	*i += 2;
	return tok_cp_to_byte(cp);
}

/* The table of t, built by the first caller (threads that race each build
 * one; the first published wins, the others free theirs); NULL when out of
 * memory or when t's ids are sparse (a token at id 16M beside a few
 * thousand: the table is one entry per id up to the largest, and would cost
 * hundreds of megabytes), and the caller decodes without it. */
static const struct tok_dectab *dec_table(const tok *ct)
{
	tok *t = (tok *)ct; /* the table is a cache: t's contents do not change */
	struct tok_dectab *dt = atomic_load_explicit(&t->dectab, memory_order_acquire);
	if (dt)
		return dt;
	if (t->nids > 2 * (t->bpe.vocab.n + t->nadded) + 4096)
		return NULL;
	dt = calloc(1, sizeof *dt);
	struct tok_decent *tab = calloc(t->nids + 1, sizeof *tab);
	ib_buf lng = {0};
	char tmp[256];
	int rc = dt && tab ? 0 : IB_ENOMEM;
	for (size_t id = 0; id < t->nids && !rc; id++) {
		const unsigned char *s = (const unsigned char *)t->id_str[id];
		size_t n = t->id_len[id], o = 0, i = 0;
		if (!s)
			continue;
		char *heap = NULL, *d = n <= sizeof tmp ? tmp : (heap = malloc(n));
		if (!d) {
			rc = IB_ENOMEM;
			break;
		}
		while (i < n) {
			int b = bl_byte(s, n, &i);
			if (b < 0)
				break;
			d[o++] = (char)b;
		}
		const char *src = d;
		if (i < n) { /* not byte-level text: its own UTF-8 bytes */
			src = (const char *)s;
			o = n;
		}
		if (o <= TOK_DEC_INLINE) {
			tab[id].len = (uint8_t)o;
			memcpy(tab[id].b, src, o);
		} else {
			uint32_t at[2] = {(uint32_t)lng.len, (uint32_t)o};
			rc = ib_buf_append(&lng, src, o);
			tab[id].len = TOK_DEC_LONG;
			memcpy(tab[id].b, at, sizeof at);
		}
		free(heap);
	}
	if (rc) {
		free(dt);
		free(tab);
		ib_buf_free(&lng);
		return NULL;
	}
	dt->e = tab;
	dt->lng = lng.data;
	struct tok_dectab *none = NULL;
	if (atomic_compare_exchange_strong_explicit(&t->dectab, &none, dt, memory_order_acq_rel,
	                                            memory_order_acquire))
		return dt;
	free(dt->e); /* another thread's table is in place */
	free(dt->lng);
	free(dt);
	return none;
}

void tok_dec_table_free(tok *t)
{
	struct tok_dectab *dt = atomic_load(&t->dectab);
	if (dt) {
		free(dt->e);
		free(dt->lng);
		free(dt);
	}
	atomic_store(&t->dectab, NULL);
}

/* tok_decode with the table: the ids' bytes, then (only when they are not
 * valid UTF-8) String::from_utf8_lossy, as dec_byte_level does. */
static int decode_table(const tok *t, const struct tok_dectab *dt, const uint32_t *ids, size_t n,
                        bool skip_special, ib_buf *out)
{
	const struct tok_decent *tab = dt->e;
	size_t from = out->len, total = 0;
	for (size_t k = 0; k < n; k++) {
		uint32_t id = ids[k];
		if (id >= t->nids || (skip_special && t->id_special[id]))
			continue;
		if (tab[id].len != TOK_DEC_LONG) {
			total += tab[id].len;
		} else {
			uint32_t at[2];
			memcpy(at, tab[id].b, sizeof at);
			total += at[1];
		}
	}
	/* room for 16-byte copies of the inline entries */
	if (ib_buf_reserve(out, total + sizeof *tab))
		return IB_ENOMEM;
	char *d = out->data + from;
	for (size_t k = 0; k < n; k++) {
		uint32_t id = ids[k];
		if (id >= t->nids || (skip_special && t->id_special[id]))
			continue;
		const struct tok_decent *x = &tab[id];
		if (x->len != TOK_DEC_LONG) {
			memcpy(d, x->b, TOK_DEC_INLINE);
			d += x->len;
		} else {
			uint32_t at[2];
			memcpy(at, x->b, sizeof at);
			memcpy(d, dt->lng + at[0], at[1]);
			d += at[1];
		}
	}
	out->len = from + total;
	out->data[out->len] = '\0';
	size_t bad = tok_utf8_check(out->data + from, total);
	if (bad == total)
		return 0;
	/* the valid characters before the first bad byte stay as they are; the
	 * lossy conversion starts there (at a character's start, so with the
	 * same result as from the beginning) */
	size_t rest = total - bad;
	char *raw = malloc(rest);
	if (!raw)
		return IB_ENOMEM;
	memcpy(raw, out->data + from + bad, rest);
	out->len = from + bad;
	int rc = tok_utf8_lossy(out, raw, rest);
	free(raw);
	return rc;
}

int tok_decode(const tok *t, const uint32_t *ids, size_t n, bool skip_special, ib_buf *out,
               ib_error *e)
{
	const struct tok_dectab *dt = t->dec && t->dec->kind == TD_BYTELEVEL ? dec_table(t) : NULL;
	if (dt) {
		int rc = decode_table(t, dt, ids, n, skip_special, out);
		if (rc)
			return ib_fail(e, IB_ENOMEM, t->name, 0, 0, "out of memory while decoding");
		return 0;
	}
	strlist in = {0}, res = {0};
	pcre2_match_data *md = NULL;
	int rc = 0;
	for (size_t k = 0; k < n && !rc; k++) {
		uint32_t id = ids[k];
		if (id >= t->nids || !t->id_str[id] || (skip_special && t->id_special[id]))
			continue;
		rc = sl_add(&in, t->id_str[id], t->id_len[id]);
	}
	if (!rc && t->dec) {
		rc = dec_step(t->dec, &md, &in, &res, e);
		for (size_t k = 0; k < res.s.n && !rc; k++)
			rc = ib_buf_append(out, STR(&res, k), LEN(&res, k));
	} else if (!rc) { /* no decoder: the tokens joined by spaces */
		for (size_t k = 0; k < in.s.n && !rc; k++)
			if ((k && (rc = ib_buf_putc(out, ' '))) ||
			    (rc = ib_buf_append(out, STR(&in, k), LEN(&in, k))))
				break;
	}
	if (!out->data && !rc)
		rc = ib_buf_append(out, "", 0);
	sl_free(&in);
	sl_free(&res);
	pcre2_match_data_free(md);
	if (rc == IB_ENOMEM)
		ib_fail(e, IB_ENOMEM, t->name, 0, 0, "out of memory while decoding");
	return rc;
}
