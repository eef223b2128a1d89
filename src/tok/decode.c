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

int tok_decode(const tok *t, const uint32_t *ids, size_t n, bool skip_special, ib_buf *out,
               ib_error *e)
{
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
