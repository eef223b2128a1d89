/* The tokenizer object: loading (the BPE model, added tokens with
 * HuggingFace's id assignment, tokenizer_config.json), lookups, freeing. */
#include "tok/private.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

enum { MAX_ID = TOK_MAX_ID };

static int inval(tok *t, ib_error *e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int inval(tok *t, ib_error *e, const char *fmt, ...)
{
	char m[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	return ib_fail(e, IB_EINVAL, t->name, 0, 0, "%s", m);
}

static int nomem(tok *t, ib_error *e)
{
	return ib_fail(e, IB_ENOMEM, t->name, 0, 0, "out of memory loading the tokenizer");
}

static bool is(const tj *v, const char *s)
{
	return v && v->type == TJ_STR && v->n == strlen(s) && !memcmp(v->s, s, v->n);
}

static bool absent(const tj *v)
{
	return !v || v->type == TJ_NULL;
}

static int opt_bool(tok *t, const tj *o, const char *key, const char *where, bool def, bool *out,
                    ib_error *e)
{
	const tj *v = tj_get(o, key);
	*out = def;
	if (absent(v))
		return 0;
	if (v->type != TJ_TRUE && v->type != TJ_FALSE)
		return inval(t, e, "%s: '%s' must be a boolean (got %s)", where, key,
		             tj_type_name(v));
	*out = v->type == TJ_TRUE;
	return 0;
}

/* A string option kept in the arena; NULL when absent or null. */
static int opt_str(tok *t, const tj *o, const char *key, const char *where, const char **out,
                   size_t *len, ib_error *e)
{
	const tj *v = tj_get(o, key);
	*out = NULL;
	*len = 0;
	if (absent(v))
		return 0;
	if (v->type != TJ_STR)
		return inval(t, e, "%s: '%s' must be a string (got %s)", where, key,
		             tj_type_name(v));
	if (!(*out = ib_arena_strndup(t->arena, v->s, v->n)))
		return nomem(t, e);
	*len = v->n;
	return 0;
}

/* ---- the BPE model ---- */

static int load_vocab(tok *t, const tj *vocab, ib_error *e)
{
	tok_bpe *m = &t->bpe;
	size_t total = 0;
	for (size_t k = 0; k < vocab->n; k++)
		total += vocab->items[2 * k].n + 1;
	char *blk = ib_arena_alloc(t->arena, total ? total : 1);
	if (!blk)
		return nomem(t, e);
	for (size_t k = 0, o = 0; k < vocab->n; k++) {
		const tj *key = &vocab->items[2 * k], *val = &vocab->items[2 * k + 1];
		if (val->type != TJ_INT || val->i < 0 || val->i >= MAX_ID)
			return inval(t, e,
			             "model.vocab: the id of '%s' must be an integer in [0, %d)",
			             key->s, MAX_ID);
		memcpy(blk + o, key->s, key->n);
		blk[o + key->n] = '\0';
		if (tok_smap_put(&m->vocab, blk + o, key->n, (uint32_t)val->i))
			return nomem(t, e);
		o += key->n + 1;
	}
	return 0;
}

static int load_merges(tok *t, const tj *merges, size_t prefix_len, ib_error *e)
{
	tok_bpe *m = &t->bpe;
	ib_buf nb = {0};
	int rc = 0;
	uint32_t rank = 0;
	bool joins_meta = false;
	if (tok_pmap_init(&m->merges, merges->n))
		return nomem(t, e);
	for (size_t k = 0; k < merges->n && !rc; k++) {
		const tj *x = &merges->items[k];
		const char *a, *b;
		size_t al, bl;
		if (x->type == TJ_STR) {
			if (ib_str_has_prefix(x->s, "#version"))
				continue;
			const char *sp = memchr(x->s, ' ', x->n);
			if (!sp || memchr(sp + 1, ' ', x->n - (size_t)(sp + 1 - x->s)))
				return inval(
				    t, e,
				    "model.merges[%zu]: a merge must be two tokens separated "
				    "by one space (got \"%s\")",
				    k, x->s);
			a = x->s;
			al = (size_t)(sp - x->s);
			b = sp + 1;
			bl = x->n - al - 1;
		} else if (x->type == TJ_ARR && x->n == 2 && x->items[0].type == TJ_STR &&
		           x->items[1].type == TJ_STR) {
			a = x->items[0].s;
			al = x->items[0].n;
			b = x->items[1].s;
			bl = x->items[1].n;
		} else {
			return inval(t, e,
			             "model.merges[%zu]: a merge must be \"a b\" or [\"a\", \"b\"] "
			             "(got %s)",
			             k, tj_type_name(x));
		}
		uint32_t ia, ib, inew;
		if (!tok_smap_get(&m->vocab, a, al, &ia) || !tok_smap_get(&m->vocab, b, bl, &ib)) {
			bool first = !tok_smap_get(&m->vocab, a, al, &ia);
			rc = inval(t, e, "model.merges[%zu]: token '%.*s' is not in the vocabulary",
			           k, (int)(first ? al : bl), first ? a : b);
			break;
		}
		if (bl < prefix_len) {
			rc = inval(t, e,
			           "model.merges[%zu]: '%.*s' is shorter than the subword prefix",
			           k, (int)bl, b);
			break;
		}
		nb.len = 0;
		if (ib_buf_append(&nb, a, al) ||
		    ib_buf_append(&nb, b + prefix_len, bl - prefix_len)) {
			rc = nomem(t, e);
			break;
		}
		if (!tok_smap_get(&m->vocab, nb.data, nb.len, &inew)) {
			rc = inval(t, e,
			           "model.merges[%zu]: merged token '%s' is not in the vocabulary",
			           k, nb.data);
			break;
		}
		tok_pmap_put(&m->merges, ia, ib, rank++, inew);
		joins_meta = joins_meta || tok_bpe_merge_joins_meta(nb.data, nb.len);
	}
	ib_buf_free(&nb);
	m->joins_meta = joins_meta;
	return rc;
}

/* The model's options (type, dropout, unk_token, prefix and suffix, flags):
 * everything but the vocabulary and the merges. */
static int load_model_opts(tok *t, const tj *mj, ib_error *e)
{
	tok_bpe *m = &t->bpe;
	int rc;
	if (!mj || mj->type != TJ_OBJ)
		return inval(t, e, "model: missing, or not an object");
	const tj *ty = tj_get(mj, "type");
	if (ty && !is(ty, "BPE"))
		return inval(t, e, "model: unsupported model type '%s' (supported: BPE)",
		             ty->type == TJ_STR ? ty->s : tj_type_name(ty));
	const tj *dropout = tj_get(mj, "dropout");
	if (!absent(dropout)) {
		double d = dropout->type == TJ_INT   ? (double)dropout->i
		           : dropout->type == TJ_NUM ? dropout->f
		                                     : -1;
		if (d != 0)
			return inval(t, e, "model.dropout: BPE dropout is not supported (got %s)",
			             d < 0 ? tj_type_name(dropout) : "a non-zero value");
	}
	const char *cont, *eow;
	size_t cont_len, eow_len;
	if ((rc = opt_str(t, mj, "unk_token", "model", &m->unk, &cont_len, e)) ||
	    (rc = opt_str(t, mj, "continuing_subword_prefix", "model", &cont, &cont_len, e)) ||
	    (rc = opt_str(t, mj, "end_of_word_suffix", "model", &eow, &eow_len, e)) ||
	    (rc = opt_bool(t, mj, "fuse_unk", "model", false, &m->fuse_unk, e)) ||
	    (rc = opt_bool(t, mj, "byte_fallback", "model", false, &m->byte_fallback, e)) ||
	    (rc = opt_bool(t, mj, "ignore_merges", "model", false, &m->ignore_merges, e)))
		return rc;
	/* an empty prefix or suffix changes nothing */
	m->cont = cont_len ? cont : NULL;
	m->cont_len = cont_len;
	m->eow = eow_len ? eow : NULL;
	m->eow_len = eow_len;
	return 0;
}

static int load_model_tables(tok *t, const tj *mj, ib_error *e)
{
	const tj *vocab = tj_get(mj, "vocab"), *merges = tj_get(mj, "merges");
	int rc;
	if (!vocab || vocab->type != TJ_OBJ)
		return inval(t, e, "model.vocab: missing, or not an object");
	if (!merges || merges->type != TJ_ARR)
		return inval(t, e, "model.merges: missing, or not a list");
	if ((rc = load_vocab(t, vocab, e)) || (rc = load_merges(t, merges, t->bpe.cont_len, e)))
		return rc;
	return 0;
}

/* What follows from the vocabulary, the merges and the options: the byte
 * fallback ids, the id of each BMP character, and whether words may be cut
 * before U+2581. Shared by both ways of loading (JSON, cache.c). */
static int finish_model(tok *t, ib_error *e)
{
	tok_bpe *m = &t->bpe;
	for (int b = 0; b < 256; b++) {
		char k[8];
		uint32_t id;
		snprintf(k, sizeof k, "<0x%02X>", b);
		m->byte_id[b] = tok_smap_get(&m->vocab, k, 6, &id) ? (int64_t)id : -1;
	}
	if (!(m->bmp_id = malloc(0x10000 * sizeof *m->bmp_id)))
		return nomem(t, e);
	memset(m->bmp_id, 0xFF, 0x10000 * sizeof *m->bmp_id);
	/* the entries whose text is one BMP character, written as tok_utf8_put
	 * writes it: the same as looking up each of the 65,536 characters, in
	 * one pass over the vocabulary */
	for (size_t k = 0; k < m->vocab.n; k++) {
		const tok_sent *x = &m->vocab.e[k];
		char u[4];
		uint32_t cp;
		if (!x->len || x->len > 3 || ib_utf8_decode(x->k, x->len, &cp) != (int)x->len)
			continue;
		if (cp < 0x10000 && tok_utf8_put(u, cp) == x->len && !memcmp(u, x->k, x->len))
			m->bmp_id[cp] = (int32_t)x->val;
	}
	/* see tok_bpe_tokenize; with ignore_merges the whole word is looked up
	 * first, so it must not be cut. Cutting before U+2581 also needs U+2581
	 * to be a symbol of its own, and every character to leave a symbol (an
	 * unknown character that vanishes would make its neighbours adjacent) */
	bool all_bytes = m->byte_fallback;
	for (int b = 0; b < 256; b++)
		all_bytes = all_bytes && m->byte_id[b] >= 0;
	uint32_t unk_id;
	bool has_unk = m->unk && tok_smap_get(&m->vocab, m->unk, strlen(m->unk), &unk_id);
	m->split_meta = !m->joins_meta && !m->ignore_merges && !m->cont && !m->eow &&
	                m->bmp_id[0x2581] >= 0 && (has_unk || all_bytes);
	return 0;
}

/* ---- added tokens (AddedVocabulary::add_tokens and refresh_added_tokens) ---- */

static bool same_token(const tok_added *a, const tok_added *b)
{
	return a->len == b->len && !memcmp(a->content, b->content, a->len) &&
	       a->special == b->special && a->lstrip == b->lstrip && a->rstrip == b->rstrip &&
	       a->normalized == b->normalized && a->single_word == b->single_word;
}

static int parse_added(tok *t, const tj *list, tok_added *raw, ib_error *e)
{
	for (size_t k = 0; k < list->n; k++) {
		const tj *x = &list->items[k], *c = tj_get(x, "content"), *id = tj_get(x, "id");
		char w[64];
		snprintf(w, sizeof w, "added_tokens[%zu]", k);
		if (x->type != TJ_OBJ || !c || c->type != TJ_STR)
			return inval(t, e, "%s: an added token needs a string 'content'", w);
		if (!id || id->type != TJ_INT || id->i < 0 || id->i >= MAX_ID)
			return inval(t, e, "%s: an added token needs an integer 'id' in [0, %d)", w,
			             MAX_ID);
		tok_added *a = &raw[k];
		int rc;
		if ((rc = opt_bool(t, x, "special", w, false, &a->special, e)) ||
		    (rc = opt_bool(t, x, "lstrip", w, false, &a->lstrip, e)) ||
		    (rc = opt_bool(t, x, "rstrip", w, false, &a->rstrip, e)) ||
		    (rc = opt_bool(t, x, "single_word", w, false, &a->single_word, e)) ||
		    (rc = opt_bool(t, x, "normalized", w, !a->special, &a->normalized, e)))
			return rc;
		if (!(a->content = ib_arena_strndup(t->arena, c->s, c->n)))
			return nomem(t, e);
		a->len = c->n;
		a->id = (uint32_t)id->i; /* HF assigns its own ids; see load_added */
	}
	return 0;
}

static int add_to_trie(tok *t, const tok_added *a, tok_pmap *idx_of, ib_error *e)
{
	uint32_t id = 0, idx = 0, unused;
	tok_smap_get(&t->added_map, a->content, a->len, &id);
	tok_pmap_get(idx_of, id, 0, &idx, &unused);
	if (!a->normalized) {
		t->have_raw_trie = true;
		return tok_trie_add(&t->raw_trie, a->content, a->len, (int32_t)idx) ? nomem(t, e)
		                                                                    : 0;
	}
	ib_buf nb = {0};
	int rc = 0;
	if (t->norm)
		rc = tok_normalize(t, t->norm, a->content, a->len, &nb, e);
	else
		rc = ib_buf_append(&nb, a->content, a->len);
	if (!rc && nb.len) {
		t->have_norm_trie = true;
		if (tok_trie_add(&t->norm_trie, nb.data, nb.len, (int32_t)idx))
			rc = nomem(t, e);
	}
	ib_buf_free(&nb);
	return rc;
}

static int load_added(tok *t, const tj *list, ib_error *e)
{
	if (absent(list))
		return 0;
	if (list->type != TJ_ARR)
		return inval(t, e, "added_tokens: must be a list");
	size_t n = list->n;
	int rc = 0;
	if (!n)
		return 0;
	tok_added *raw = calloc(n, sizeof *raw);
	bool *done = calloc(n, sizeof *done);
	size_t *order = calloc(2 * n, sizeof *order), norder = 0;
	tok_smap *specials = &t->special_set;
	tok_pmap idx_of = {0};
	t->added = ib_arena_alloc(t->arena, n * sizeof *t->added);
	if (!raw || !done || !order || !t->added || tok_pmap_init(&idx_of, n)) {
		rc = nomem(t, e);
		goto out;
	}
	if ((rc = parse_added(t, list, raw, e)))
		goto out;
	/* the special tokens first, each text once */
	for (size_t k = 0; k < n; k++) {
		uint32_t one;
		if (raw[k].special && raw[k].len &&
		    !tok_smap_get(specials, raw[k].content, raw[k].len, &one)) {
			if (tok_smap_put(specials, raw[k].content, raw[k].len, 1)) {
				rc = nomem(t, e);
				goto out;
			}
			order[norder++] = k;
		}
	}
	uint32_t next_id = (uint32_t)t->bpe.vocab.n;
	for (size_t k = 0; k < n; k++) {
		tok_added *a = &raw[k];
		uint32_t id, idx, unused;
		if (!a->len)
			continue;
		if (tok_smap_get(&t->added_map, a->content, a->len, &id)) {
			bool dup = false;
			for (size_t j = 0; j < k && !dup; j++)
				dup = done[j] && same_token(&raw[j], a);
			if (dup)
				continue;
		} else if (!tok_smap_get(&t->bpe.vocab, a->content, a->len, &id)) {
			if (next_id >= MAX_ID) {
				rc = inval(t, e, "added_tokens: too many tokens");
				goto out;
			}
			id = next_id++;
		}
		if (tok_smap_put(&t->added_map, a->content, a->len, id)) {
			rc = nomem(t, e);
			goto out;
		}
		if (!tok_pmap_get(&idx_of, id, 0, &idx, &unused)) {
			idx = (uint32_t)t->nadded++;
			tok_pmap_put(&idx_of, id, 0, idx, 0);
		}
		t->added[idx] = *a;
		t->added[idx].id = id;
		if (!tok_smap_get(specials, a->content, a->len, &unused))
			order[norder++] = k;
		done[k] = true;
	}
	for (size_t k = 0; k < norder && !rc; k++)
		rc = add_to_trie(t, &raw[order[k]], &idx_of, e);
out:
	free(raw);
	free(done);
	free(order);
	tok_pmap_free(&idx_of);
	return rc;
}

/* ---- id tables ---- */

static int build_ids(tok *t, ib_error *e)
{
	size_t nids = 0;
	for (size_t k = 0; k < t->bpe.vocab.n; k++)
		if (t->bpe.vocab.e[k].val + (size_t)1 > nids)
			nids = t->bpe.vocab.e[k].val + (size_t)1;
	for (size_t k = 0; k < t->nadded; k++)
		if (t->added[k].id + (size_t)1 > nids)
			nids = t->added[k].id + (size_t)1;
	t->nids = nids;
	t->id_str = calloc(nids ? nids : 1, sizeof *t->id_str);
	t->id_len = calloc(nids ? nids : 1, sizeof *t->id_len);
	t->id_special = calloc(nids ? nids : 1, 1);
	if (!t->id_str || !t->id_len || !t->id_special)
		return nomem(t, e);
	for (size_t k = 0; k < t->bpe.vocab.n; k++) {
		const tok_sent *x = &t->bpe.vocab.e[k];
		if (!t->id_str[x->val]) {
			t->id_str[x->val] = x->k;
			t->id_len[x->val] = x->len;
		}
	}
	size_t extra = 0;
	for (size_t k = 0; k < t->added_map.n; k++) {
		const tok_sent *x = &t->added_map.e[k];
		uint32_t unused;
		t->id_str[x->val] = x->k;
		t->id_len[x->val] = x->len;
		extra += !tok_smap_get(&t->bpe.vocab, x->k, x->len, &unused);
	}
	/* skip_special_tokens drops every id whose text is a special token */
	for (size_t k = 0; k < t->special_set.n; k++) {
		const tok_sent *a = &t->special_set.e[k];
		uint32_t ids[2], nid = 0, id;
		if (tok_smap_get(&t->added_map, a->k, a->len, &id))
			ids[nid++] = id;
		if (tok_smap_get(&t->bpe.vocab, a->k, a->len, &id))
			ids[nid++] = id;
		for (uint32_t j = 0; j < nid; j++)
			if (t->id_len[ids[j]] == a->len && !memcmp(t->id_str[ids[j]], a->k, a->len))
				t->id_special[ids[j]] = 1;
	}
	t->vocab_size = t->bpe.vocab.n;
	t->vocab_size_added = t->bpe.vocab.n + extra;
	return 0;
}

/* ---- loading ---- */

tok *tok_new(const char *name)
{
	tok *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	if (!(t->name = strdup(name)) || !(t->arena = ib_arena_new()) ||
	    !(t->md = pcre2_match_data_create(16, NULL)) ||
	    !(t->mctx = pcre2_match_context_create(NULL)) ||
	    !(t->jit = pcre2_jit_stack_create(32 * 1024, 16 * 1024 * 1024, NULL))) {
		tok_free(t);
		return NULL;
	}
	pcre2_jit_stack_assign(t->mctx, NULL, t->jit);
	for (int b = 0; b < 256; b++) {
		char u[4] = {0};
		tok_utf8_put(u, tok_byte_to_cp((unsigned char)b)); /* 1 or 2 bytes */
		memcpy(t->byte_utf8[b], u, 2);
	}
	return t;
}

/* The root object's checks, then (the model's tables being loaded) the rest:
 * what follows from the model, the components, the added tokens, the ids. */
static int load_root(tok *t, const tj *root, bool tables, ib_error *e)
{
	int rc;
	if (root->type != TJ_OBJ)
		return inval(t, e, "a tokenizer.json must hold an object (got %s)",
		             tj_type_name(root));
	const tj *version = tj_get(root, "version");
	if (!absent(version) && !is(version, "1.0"))
		return inval(t, e, "unknown tokenizer.json version (expected \"1.0\")");
	const tj *mj = tj_get(root, "model");
	if ((rc = load_model_opts(t, mj, e)) || (tables && (rc = load_model_tables(t, mj, e))) ||
	    (rc = finish_model(t, e)) || (rc = tok_load_components(t, root, e)) ||
	    (rc = load_added(t, tj_get(root, "added_tokens"), e)) || (rc = build_ids(t, e)))
		return rc;
	return 0;
}

int tok_build_json(tok *t, char *text, size_t len, ib_buf *slim, ib_error *e)
{
	tj *root = NULL;
	ib_arena *pa = ib_arena_new();
	int rc = pa ? tj_parse(pa, t->name, text, len, &root, e) : nomem(t, e);
	if (!rc)
		rc = load_root(t, root, true, e);
	if (!rc && slim && tok_cache_slim(root, slim))
		ib_buf_free(slim); /* empty: this one is not cached */
	ib_arena_free(pa);
	return rc;
}

int tok_build_slim(tok *t, char *json, size_t len, ib_error *e)
{
	tj *root = NULL;
	ib_arena *pa = ib_arena_new();
	int rc = pa ? tj_parse(pa, t->name, json, len, &root, e) : nomem(t, e);
	if (!rc)
		rc = load_root(t, root, false, e);
	ib_arena_free(pa);
	return rc;
}

static int build(const char *name, char *text, size_t len, tok **out, ib_error *e)
{
	tok *t = tok_new(name);
	if (!t)
		return ib_fail(e, IB_ENOMEM, name, 0, 0, "out of memory loading the tokenizer");
	int rc = tok_build_json(t, text, len, NULL, e);
	if (rc) {
		tok_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

static const char *const CONFIG_TOKENS[] = {"bos_token", "eos_token", "unk_token", "sep_token",
                                            "pad_token", "cls_token", "mask_token"};

static int load_config(tok *t, const char *path, ib_error *e)
{
	ib_buf b = {0};
	ib_arena *pa = ib_arena_new();
	tj *root;
	int rc = pa ? ib_read_file(path, &b, e) : IB_ENOMEM;
	if (!rc)
		rc = tj_parse(pa, path, b.data ? b.data : (char *)"", b.len, &root, e);
	if (!rc && root->type != TJ_OBJ)
		rc = ib_fail(e, IB_EINVAL, path, 0, 0, "expected an object");
	for (size_t k = 0; !rc && k < sizeof CONFIG_TOKENS / sizeof *CONFIG_TOKENS; k++) {
		const tj *v = tj_get(root, CONFIG_TOKENS[k]);
		if (v && v->type == TJ_OBJ)
			v = tj_get(v, "content");
		if (!v || v->type != TJ_STR)
			continue;
		const char *s = ib_arena_strndup(t->arena, v->s, v->n);
		if (!s) {
			rc = nomem(t, e);
			break;
		}
		t->cfg_name[t->ncfg] = CONFIG_TOKENS[k];
		t->cfg_val[t->ncfg++] = s;
	}
	if (rc == IB_ENOMEM && e && !e->msg[0])
		nomem(t, e);
	ib_buf_free(&b);
	ib_arena_free(pa);
	return rc;
}

int tok_load(const char *path, tok **out, ib_error *e)
{
	struct stat st;
	ib_buf jp = {0}, cp = {0};
	bool dir = !stat(path, &st) && S_ISDIR(st.st_mode);
	int rc;
	if (dir) {
		if (ib_buf_printf(&jp, "%s/tokenizer.json", path) ||
		    ib_buf_printf(&cp, "%s/tokenizer_config.json", path)) {
			rc = ib_fail(e, IB_ENOMEM, path, 0, 0, "out of memory");
			goto out;
		}
	} else if (ib_buf_puts(&jp, path)) {
		rc = ib_fail(e, IB_ENOMEM, path, 0, 0, "out of memory");
		goto out;
	}
	if ((rc = tok_load_file(jp.data, out, e)))
		goto out;
	if (dir && !stat(cp.data, &st) && (rc = load_config(*out, cp.data, e))) {
		tok_free(*out);
		*out = NULL;
	}
out:
	ib_buf_free(&jp);
	ib_buf_free(&cp);
	return rc;
}

int tok_load_json(const char *name, const char *json, size_t len, tok **out, ib_error *e)
{
	ib_buf b = {0};
	if (ib_buf_append(&b, json, len))
		return ib_fail(e, IB_ENOMEM, name, 0, 0, "out of memory");
	int rc = build(name, b.data, b.len, out, e);
	ib_buf_free(&b);
	return rc;
}

void tok_free(tok *t)
{
	if (!t)
		return;
	free(t->name);
	ib_arena_free(t->arena);
	if (t->blob) { /* these tables are parts of the cache file (cache.c) */
		t->bpe.vocab.slot = NULL;
		t->bpe.merges.slot = NULL;
		if (t->blob_map)
			munmap(t->blob, t->blob_map);
		else
			free(t->blob);
	}
	tok_bpe_free(&t->bpe);
	tok_smap_free(&t->added_map);
	tok_smap_free(&t->special_set);
	tok_trie_free(&t->raw_trie);
	tok_trie_free(&t->norm_trie);
	free(t->id_str);
	free(t->id_len);
	free(t->id_special);
	tok_dec_table_free(t);
	for (size_t k = 0; k < 4; k++)
		free(t->lists[k].v);
	for (size_t k = 0; k < t->ncodes; k++)
		pcre2_code_free(t->codes[k]);
	free(t->codes);
	pcre2_match_data_free(t->md);
	pcre2_match_context_free(t->mctx);
	pcre2_jit_stack_free(t->jit);
	ib_buf_free(&t->pool);
	ib_buf_free(&t->nbuf[0]);
	ib_buf_free(&t->nbuf[1]);
	free(t->spans.v);
	free(t->cls);
	for (int k = 0; k < 3; k++)
		pcre2_code_free(t->cls_re[k]);
	free(t->memo.slot);
	free(t->memo.e);
	ib_buf_free(&t->memo.keys);
	tok_ids_free(&t->memo.ids);
	free(t);
}

/* ---- lookups ---- */

bool tok_from_cache(const tok *t)
{
	return t->blob != NULL;
}

int tok_source_sha256(tok *t, char hex[65], ib_error *e)
{
	if (!t->have_sha) {
		ib_buf b = {0};
		int rc = t->from_file ? ib_read_file(t->name, &b, e)
		                      : ib_fail(e, IB_EINVAL, t->name, 0, 0,
		                                "loaded from memory: no tokenizer.json to hash");
		if (rc)
			return rc;
		ib_sha256 sh;
		ib_sha256_init(&sh);
		ib_sha256_update(&sh, b.data ? b.data : "", b.len);
		ib_sha256_final(&sh, t->sha);
		ib_buf_free(&b);
		t->have_sha = true;
	}
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", t->sha[i]);
	return 0;
}

size_t tok_vocab_size(const tok *t, bool with_added)
{
	return with_added ? t->vocab_size_added : t->vocab_size;
}

const char *tok_id_to_token(const tok *t, uint32_t id, size_t *len)
{
	if (id >= t->nids || !t->id_str[id])
		return NULL;
	if (len)
		*len = t->id_len[id];
	return t->id_str[id];
}

int64_t tok_token_to_id(const tok *t, const char *s, size_t len)
{
	uint32_t id;
	if (tok_smap_get(&t->added_map, s, len, &id) || tok_smap_get(&t->bpe.vocab, s, len, &id))
		return id;
	return -1;
}

bool tok_id_is_special(const tok *t, uint32_t id)
{
	return id < t->nids && t->id_special[id];
}

const char *tok_config_token(const tok *t, const char *name)
{
	for (size_t k = 0; k < t->ncfg; k++)
		if (!strcmp(t->cfg_name[k], name))
			return t->cfg_val[k];
	return NULL;
}
