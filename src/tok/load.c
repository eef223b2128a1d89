/* Loading tokenizer.json: the components, the BPE vocabulary and merges, and
 * the added tokens with HuggingFace's id assignment (AddedVocabulary::
 * add_tokens); optionally tokenizer_config.json for its special tokens. */
#include "tok/private.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { WHERE = 256 };

typedef struct {
	tok *t;
	ib_error *e;
} ld;

static int bad(ld *L, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad(ld *L, const char *where, const char *fmt, ...)
{
	char m[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	return ib_fail(L->e, IB_EINVAL, L->t->name, 0, 0, "%s: %s", where, m);
}

static int nomem(ld *L)
{
	return ib_fail(L->e, IB_ENOMEM, L->t->name, 0, 0, "out of memory loading the tokenizer");
}

static void *alloc(ld *L, size_t n)
{
	return ib_arena_alloc(L->t->arena, n);
}

static const char *keep(ld *L, const char *s, size_t n)
{
	return ib_arena_strndup(L->t->arena, s, n);
}

static bool is(const tj *v, const char *s)
{
	return v && v->type == TJ_STR && v->n == strlen(s) && !memcmp(v->s, s, v->n);
}

static bool absent(const tj *v)
{
	return !v || v->type == TJ_NULL;
}

static int get_bool(ld *L, const tj *o, const char *key, bool def, const char *where, bool *out)
{
	const tj *v = tj_get(o, key);
	*out = def;
	if (absent(v))
		return 0;
	if (v->type != TJ_TRUE && v->type != TJ_FALSE)
		return bad(L, where, "'%s' must be a boolean (got %s)", key, tj_type_name(v));
	*out = v->type == TJ_TRUE;
	return 0;
}

/* A string option; *s = NULL when absent or null. */
static int get_str(ld *L, const tj *o, const char *key, const char *where, const char **s,
                   size_t *n)
{
	const tj *v = tj_get(o, key);
	*s = NULL;
	*n = 0;
	if (absent(v))
		return 0;
	if (v->type != TJ_STR)
		return bad(L, where, "'%s' must be a string (got %s)", key, tj_type_name(v));
	if (!(*s = keep(L, v->s, v->n)))
		return nomem(L);
	*n = v->n;
	return 0;
}

static int get_uint(ld *L, const tj *o, const char *key, size_t def, const char *where, size_t *out)
{
	const tj *v = tj_get(o, key);
	*out = def;
	if (absent(v))
		return 0;
	if (v->type != TJ_INT || v->i < 0)
		return bad(L, where, "'%s' must be a non-negative integer", key);
	*out = (size_t)v->i;
	return 0;
}

/* One character, as Rust's `char` fields are (Metaspace replacement, Strip
 * content): UTF-8 into out (5 bytes). */
static int get_char(ld *L, const tj *o, const char *key, const char *def, const char *where,
                    char *out, size_t *len)
{
	const tj *v = tj_get(o, key);
	const char *s = def;
	size_t n = def ? strlen(def) : 0;
	if (!absent(v)) {
		if (v->type != TJ_STR)
			return bad(L, where, "'%s' must be a string (got %s)", key,
			           tj_type_name(v));
		s = v->s;
		n = v->n;
	} else if (!def) {
		return bad(L, where, "'%s' is missing", key);
	}
	if (!n || tok_utf8_len((unsigned char)s[0]) != n)
		return bad(L, where, "'%s' must be one character (got \"%.*s\")", key, (int)n, s);
	memcpy(out, s, n);
	out[n] = '\0';
	*len = n;
	return 0;
}

static int get_type(ld *L, const tj *o, const char *what, const char *where, const tj **ty)
{
	if (o->type != TJ_OBJ)
		return bad(L, where, "a %s must be an object (got %s)", what, tj_type_name(o));
	*ty = tj_get(o, "type");
	if (!*ty || (*ty)->type != TJ_STR)
		return bad(L, where, "%s without a \"type\"", what);
	return 0;
}

/* {"String": s} or {"Regex": s} */
static int get_pattern(ld *L, const tj *o, const char *where, tok_re *re)
{
	const tj *p = tj_get(o, "pattern"), *s;
	if (!p || p->type != TJ_OBJ)
		return bad(L, where,
		           "'pattern' must be an object {\"String\": ...} or {\"Regex\": ...}");
	if ((s = tj_get(p, "String")) && s->type == TJ_STR)
		return tok_re_compile(L->t, re, s->s, s->n, true, where, L->e);
	if ((s = tj_get(p, "Regex")) && s->type == TJ_STR)
		return tok_re_compile(L->t, re, s->s, s->n, false, where, L->e);
	return bad(L, where, "'pattern' must be {\"String\": str} or {\"Regex\": str}");
}

static int get_behavior(ld *L, const tj *o, const char *where, int def, int *out)
{
	static const char *const names[] = {"Removed", "Isolated", "MergedWithPrevious",
	                                    "MergedWithNext", "Contiguous"};
	const tj *v = tj_get(o, "behavior");
	*out = def;
	if (absent(v) && def >= 0)
		return 0;
	for (int k = 0; k < 5; k++)
		if (is(v, names[k])) {
			*out = k; /* same order as TB_* */
			return 0;
		}
	return bad(
	    L, where,
	    "'behavior' must be one of Removed, Isolated, MergedWithPrevious, MergedWithNext, "
	    "Contiguous");
}

/* A list member `key` of o for a Sequence; *n items. */
static int get_list(ld *L, const tj *o, const char *key, const char *where, const tj **items,
                    size_t *n)
{
	const tj *v = tj_get(o, key);
	if (!v || v->type != TJ_ARR)
		return bad(L, where, "a Sequence needs a list '%s'", key);
	*items = v->items;
	*n = v->n;
	return 0;
}

/* ---- normalizers ---- */

static int load_norm(ld *L, const tj *v, const char *where, tok_norm **out)
{
	const tj *ty;
	int rc;
	*out = NULL;
	if (absent(v))
		return 0;
	if ((rc = get_type(L, v, "normalizer", where, &ty)))
		return rc;
	tok_norm *n = alloc(L, sizeof *n);
	if (!n)
		return nomem(L);
	if (is(ty, "Sequence")) {
		const tj *items = NULL;
		n->kind = TN_SEQ;
		if ((rc = get_list(L, v, "normalizers", where, &items, &n->nsub)))
			return rc;
		if (n->nsub && !(n->sub = alloc(L, n->nsub * sizeof *n->sub)))
			return nomem(L);
		for (size_t k = 0; k < n->nsub; k++) {
			char w[WHERE];
			snprintf(w, sizeof w, "%s.normalizers[%zu]", where, k);
			if (absent(&items[k]))
				return bad(L, w, "a normalizer must be an object (got null)");
			if ((rc = load_norm(L, &items[k], w, &n->sub[k])))
				return rc;
		}
	} else if (is(ty, "NFC")) {
		n->kind = TN_NFC;
	} else if (is(ty, "NFD")) {
		n->kind = TN_NFD;
	} else if (is(ty, "NFKC")) {
		n->kind = TN_NFKC;
	} else if (is(ty, "NFKD")) {
		n->kind = TN_NFKD;
	} else if (is(ty, "Lowercase")) {
		n->kind = TN_LOWER;
	} else if (is(ty, "ByteLevel")) {
		n->kind = TN_BYTELEVEL;
	} else if (is(ty, "Replace")) {
		n->kind = TN_REPLACE;
		if ((rc = get_pattern(L, v, where, &n->re)) ||
		    (rc = get_str(L, v, "content", where, &n->str, &n->slen)))
			return rc;
		if (!n->str)
			return bad(L, where, "Replace needs a string 'content'");
	} else if (is(ty, "Prepend")) {
		n->kind = TN_PREPEND;
		if ((rc = get_str(L, v, "prepend", where, &n->str, &n->slen)))
			return rc;
		if (!n->str)
			return bad(L, where, "Prepend needs a string 'prepend'");
	} else if (is(ty, "Strip")) {
		n->kind = TN_STRIP;
		if ((rc = get_bool(L, v, "strip_left", false, where, &n->left)) ||
		    (rc = get_bool(L, v, "strip_right", false, where, &n->right)))
			return rc;
	} else {
		return bad(L, where,
		           "unsupported normalizer type '%s' (supported: Sequence, NFC, NFD, NFKC, "
		           "NFKD, Lowercase, Replace, Prepend, Strip, ByteLevel)",
		           ty->s);
	}
	*out = n;
	return 0;
}

/* ---- pre-tokenizers ---- */

/* Rust regex \w and \s as PCRE2 classes (the Whitespace pre-tokenizer). */
#define W_CLASS                                                                                    \
	"\\p{L}\\p{Nl}\\p{M}\\p{Nd}\\p{Pc}\\x{200C}\\x{200D}\\x{24B6}-\\x{24E9}"                   \
	"\\x{1F130}-\\x{1F149}\\x{1F150}-\\x{1F169}\\x{1F170}-\\x{1F189}"
#define S_CLASS                                                                                    \
	"\\t-\\r "                                                                                 \
	"\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}"

static const char GPT2_RE[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
static const char WHITESPACE_RE[] = "[" W_CLASS "]+|[^" W_CLASS S_CLASS "]+";

static int load_metaspace_opts(ld *L, const tj *v, const char *where, char *repl, size_t *rlen,
                               int *scheme, bool *split)
{
	int rc;
	bool aps;
	const tj *ps = tj_get(v, "prepend_scheme");
	if ((rc = get_char(L, v, "replacement", NULL, where, repl, rlen)))
		return rc;
	*scheme = TM_ALWAYS;
	if (is(ps, "first"))
		*scheme = TM_FIRST;
	else if (is(ps, "never"))
		*scheme = TM_NEVER;
	else if (!absent(ps) && !is(ps, "always"))
		return bad(L, where, "'prepend_scheme' must be \"always\", \"first\" or \"never\"");
	if ((rc = get_bool(L, v, "add_prefix_space", true, where, &aps)))
		return rc;
	if (!aps) {
		if (*scheme != TM_NEVER)
			return bad(L, where,
			           "add_prefix_space does not match declared prepend_scheme");
		*scheme = TM_NEVER;
	}
	return split ? get_bool(L, v, "split", true, where, split) : 0;
}

static int load_pre(ld *L, const tj *v, const char *where, tok_pre **out)
{
	const tj *ty;
	int rc;
	*out = NULL;
	if (absent(v))
		return 0;
	if ((rc = get_type(L, v, "pre-tokenizer", where, &ty)))
		return rc;
	tok_pre *p = alloc(L, sizeof *p);
	if (!p)
		return nomem(L);
	if (is(ty, "Sequence")) {
		const tj *items = NULL;
		p->kind = TP_SEQ;
		if ((rc = get_list(L, v, "pretokenizers", where, &items, &p->nsub)))
			return rc;
		if (p->nsub && !(p->sub = alloc(L, p->nsub * sizeof *p->sub)))
			return nomem(L);
		for (size_t k = 0; k < p->nsub; k++) {
			char w[WHERE];
			snprintf(w, sizeof w, "%s.pretokenizers[%zu]", where, k);
			if (absent(&items[k]))
				return bad(L, w, "a pre-tokenizer must be an object (got null)");
			if ((rc = load_pre(L, &items[k], w, &p->sub[k])))
				return rc;
		}
	} else if (is(ty, "ByteLevel")) {
		p->kind = TP_BYTELEVEL;
		if ((rc = get_bool(L, v, "add_prefix_space", true, where, &p->add_prefix_space)) ||
		    (rc = get_bool(L, v, "use_regex", true, where, &p->use_regex)))
			return rc;
		if (p->use_regex && (rc = tok_re_compile(L->t, &p->re, GPT2_RE, strlen(GPT2_RE),
		                                         false, where, L->e)))
			return rc;
	} else if (is(ty, "Split")) {
		p->kind = TP_SPLIT;
		if ((rc = get_pattern(L, v, where, &p->re)) ||
		    (rc = get_behavior(L, v, where, -1, &p->behavior)) ||
		    (rc = get_bool(L, v, "invert", false, where, &p->invert)))
			return rc;
	} else if (is(ty, "Digits")) {
		p->kind = TP_DIGITS;
		if ((rc = get_bool(L, v, "individual_digits", false, where, &p->individual_digits)))
			return rc;
	} else if (is(ty, "Metaspace")) {
		p->kind = TP_METASPACE;
		if ((rc = load_metaspace_opts(L, v, where, p->repl, &p->repl_len,
		                              &p->prepend_scheme, &p->split)))
			return rc;
	} else if (is(ty, "Whitespace")) {
		p->kind = TP_WHITESPACE;
		if ((rc = tok_re_compile(L->t, &p->re, WHITESPACE_RE, strlen(WHITESPACE_RE), false,
		                         where, L->e)))
			return rc;
	} else if (is(ty, "WhitespaceSplit")) {
		p->kind = TP_WSSPLIT;
	} else if (is(ty, "Punctuation")) {
		p->kind = TP_PUNCT;
		if ((rc = get_behavior(L, v, where, TB_ISOLATED, &p->behavior)))
			return rc;
	} else {
		return bad(L, where,
		           "unsupported pre-tokenizer type '%s' (supported: Sequence, ByteLevel, "
		           "Split, Digits, Metaspace, Whitespace, WhitespaceSplit, Punctuation)",
		           ty->s);
	}
	*out = p;
	return 0;
}

/* ---- decoders ---- */

static int load_dec(ld *L, const tj *v, const char *where, tok_dec **out)
{
	const tj *ty;
	int rc;
	*out = NULL;
	if (absent(v))
		return 0;
	if ((rc = get_type(L, v, "decoder", where, &ty)))
		return rc;
	tok_dec *d = alloc(L, sizeof *d);
	if (!d)
		return nomem(L);
	if (is(ty, "Sequence")) {
		const tj *items = NULL;
		d->kind = TD_SEQ;
		if ((rc = get_list(L, v, "decoders", where, &items, &d->nsub)))
			return rc;
		if (d->nsub && !(d->sub = alloc(L, d->nsub * sizeof *d->sub)))
			return nomem(L);
		for (size_t k = 0; k < d->nsub; k++) {
			char w[WHERE];
			snprintf(w, sizeof w, "%s.decoders[%zu]", where, k);
			if (absent(&items[k]))
				return bad(L, w, "a decoder must be an object (got null)");
			if ((rc = load_dec(L, &items[k], w, &d->sub[k])))
				return rc;
		}
	} else if (is(ty, "ByteLevel")) {
		d->kind = TD_BYTELEVEL;
	} else if (is(ty, "Metaspace")) {
		int scheme;
		d->kind = TD_METASPACE;
		if ((rc = load_metaspace_opts(L, v, where, d->ch, &d->ch_len, &scheme, NULL)))
			return rc;
		d->prepend_never = scheme == TM_NEVER;
	} else if (is(ty, "ByteFallback")) {
		d->kind = TD_BYTEFALLBACK;
	} else if (is(ty, "Fuse")) {
		d->kind = TD_FUSE;
	} else if (is(ty, "Strip")) {
		d->kind = TD_STRIP;
		if ((rc = get_char(L, v, "content", NULL, where, d->ch, &d->ch_len)) ||
		    (rc = get_uint(L, v, "start", 0, where, &d->start)) ||
		    (rc = get_uint(L, v, "stop", 0, where, &d->stop)))
			return rc;
	} else if (is(ty, "Replace")) {
		d->kind = TD_REPLACE;
		if ((rc = get_pattern(L, v, where, &d->re)) ||
		    (rc = get_str(L, v, "content", where, &d->str, &d->slen)))
			return rc;
		if (!d->str)
			return bad(L, where, "Replace needs a string 'content'");
	} else {
		return bad(L, where,
		           "unsupported decoder type '%s' (supported: Sequence, ByteLevel, "
		           "Metaspace, ByteFallback, Fuse, Strip, Replace)",
		           ty->s);
	}
	*out = d;
	return 0;
}

/* ---- post-processors ---- */

static int load_template(ld *L, const tj *v, const char *where, tok_post *p)
{
	const tj *single = tj_get(v, "single"), *sp = tj_get(v, "special_tokens");
	if (!single || single->type != TJ_ARR)
		return bad(L, where, "TemplateProcessing needs a list 'single'");
	if (!sp || sp->type != TJ_OBJ)
		return bad(L, where, "TemplateProcessing needs an object 'special_tokens'");
	p->ntpl = single->n;
	if (p->ntpl && !(p->tpl = alloc(L, p->ntpl * sizeof *p->tpl)))
		return nomem(L);
	for (size_t k = 0; k < single->n; k++) {
		const tj *piece = &single->items[k], *x;
		char w[WHERE];
		snprintf(w, sizeof w, "%s.single[%zu]", where, k);
		if ((x = tj_get(piece, "Sequence"))) {
			const tj *id = tj_get(x, "id");
			if (!is(id, "A"))
				return bad(L, w, "the single template can only use sequence A");
			p->tpl[k].seq = true;
			continue;
		}
		const tj *id = tj_get(tj_get(piece, "SpecialToken"), "id");
		if (!id || id->type != TJ_STR)
			return bad(
			    L, w,
			    "expected {\"Sequence\": ...} or {\"SpecialToken\": {\"id\": ...}}");
		const tj *st = NULL;
		for (size_t j = 0; j < sp->n; j++)
			if (sp->items[2 * j].n == id->n &&
			    !memcmp(sp->items[2 * j].s, id->s, id->n))
				st = &sp->items[2 * j + 1];
		const tj *ids = tj_get(st, "ids");
		if (!ids || ids->type != TJ_ARR)
			return bad(L, w, "special token '%s' is not in special_tokens (with 'ids')",
			           id->s);
		uint32_t *v32 = ids->n ? alloc(L, ids->n * sizeof *v32) : NULL;
		if (ids->n && !v32)
			return nomem(L);
		for (size_t j = 0; j < ids->n; j++) {
			if (ids->items[j].type != TJ_INT || ids->items[j].i < 0 ||
			    ids->items[j].i > UINT32_MAX)
				return bad(L, w, "special token '%s': ids must be token ids",
				           id->s);
			v32[j] = (uint32_t)ids->items[j].i;
		}
		p->tpl[k].ids = v32;
		p->tpl[k].n = ids->n;
	}
	return 0;
}

static int load_post(ld *L, const tj *v, const char *where, int *ntemplates, tok_post **out)
{
	const tj *ty;
	int rc;
	*out = NULL;
	if (absent(v))
		return 0;
	if ((rc = get_type(L, v, "post-processor", where, &ty)))
		return rc;
	tok_post *p = alloc(L, sizeof *p);
	if (!p)
		return nomem(L);
	if (is(ty, "Sequence")) {
		const tj *items = NULL;
		p->kind = TPP_SEQ;
		if ((rc = get_list(L, v, "processors", where, &items, &p->nsub)))
			return rc;
		if (p->nsub && !(p->sub = alloc(L, p->nsub * sizeof *p->sub)))
			return nomem(L);
		for (size_t k = 0; k < p->nsub; k++) {
			char w[WHERE];
			snprintf(w, sizeof w, "%s.processors[%zu]", where, k);
			if (absent(&items[k]))
				return bad(L, w, "a post-processor must be an object (got null)");
			if ((rc = load_post(L, &items[k], w, ntemplates, &p->sub[k])))
				return rc;
		}
	} else if (is(ty, "ByteLevel")) {
		p->kind = TPP_BYTELEVEL;
	} else if (is(ty, "TemplateProcessing")) {
		p->kind = TPP_TEMPLATE;
		if (++*ntemplates > 1)
			return bad(L, where, "more than one TemplateProcessing is not supported");
		if ((rc = load_template(L, v, where, p)))
			return rc;
	} else {
		return bad(L, where,
		           "unsupported post-processor type '%s' (supported: Sequence, ByteLevel, "
		           "TemplateProcessing)",
		           ty->s);
	}
	*out = p;
	return 0;
}

/* ---- regexes ---- */

int tok_re_compile(tok *t, tok_re *re, const char *pat, size_t len, bool literal, const char *where,
                   ib_error *e)
{
	int err;
	PCRE2_SIZE off;
	re->code = NULL;
	re->jit = re->llama3 = false;
	re->src = ib_arena_strndup(t->arena, pat, len);
	re->src_len = len;
	if (!re->src)
		return ib_fail(e, IB_ENOMEM, t->name, 0, 0, "out of memory");
	if (literal)
		return 0;
	if (ib_grow(&t->codes, &t->capcodes, t->ncodes + 1))
		return ib_fail(e, IB_ENOMEM, t->name, 0, 0, "out of memory");
	pcre2_code *code =
	    pcre2_compile((PCRE2_SPTR)pat, len, PCRE2_UTF | PCRE2_UCP, &err, &off, NULL);
	if (!code) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(err, msg, sizeof msg);
		return ib_fail(e, IB_EINVAL, t->name, 0, 0,
		               "%s: cannot compile the regex /%.*s/: %s (at offset %zu)", where,
		               (int)len, pat, (const char *)msg, (size_t)off);
	}
	t->codes[t->ncodes++] = code;
	/* without JIT (e.g. no executable memory) the interpreter gives the same
	 * answers, only slower */
	re->jit = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
	re->code = code;
	re->llama3 = len == strlen(TOK_LLAMA3_RE) && !memcmp(pat, TOK_LLAMA3_RE, len) &&
	             tok_split_prepare(t);
	return 0;
}

int tok_load_components(tok *t, const tj *root, ib_error *e)
{
	ld L = {.t = t, .e = e};
	int ntemplates = 0, rc;
	if ((rc = load_norm(&L, tj_get(root, "normalizer"), "normalizer", &t->norm)) ||
	    (rc = load_pre(&L, tj_get(root, "pre_tokenizer"), "pre_tokenizer", &t->pre)) ||
	    (rc = load_post(&L, tj_get(root, "post_processor"), "post_processor", &ntemplates,
	                    &t->post)) ||
	    (rc = load_dec(&L, tj_get(root, "decoder"), "decoder", &t->dec)))
		return rc;
	return 0;
}
