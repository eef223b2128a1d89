/* Block -> text synthesis for the trace replay (AX2) and the cache-bust
 * marker (AX5): deterministic words of the served model's vocabulary. */
#include "agentx/agentx.h"
#include "tok/tok.h"

#include <stdlib.h>
#include <string.h>

#define OOM(e) ib_fail((e), IB_ENOMEM, "", 0, 0, "out of memory")

enum { POOL_MAX = 8192, POOL_MIN = 256, CHECK_WORDS = 512 };

struct ax_blocks {
	char **word; /* " word" texts */
	size_t *len;
	size_t n;
};

/* ' ' followed by 2..12 of [a-z] */
static bool word_text(const char *s, size_t n)
{
	if (n < 3 || n > 13 || s[0] != ' ')
		return false;
	for (size_t i = 1; i < n; i++)
		if (s[i] < 'a' || s[i] > 'z')
			return false;
	return true;
}

void ax_blocks_free(ax_blocks *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++)
		free(b->word[i]);
	free(b->word);
	free(b->len);
	free(b);
}

size_t ax_blocks_pool(const ax_blocks *b)
{
	return b->n;
}

int ax_blocks_new(struct tok *t, const char *name, ax_blocks **out, ib_error *e)
{
	*out = NULL;
	ax_blocks *b = calloc(1, sizeof *b);
	if (!b || !(b->word = calloc(POOL_MAX, sizeof *b->word)) ||
	    !(b->len = calloc(POOL_MAX, sizeof *b->len))) {
		ax_blocks_free(b);
		return OOM(e);
	}
	size_t vocab = tok_vocab_size(t, false);
	ib_buf text = {0};
	tok_ids ids = {0};
	int rc = 0;
	for (uint32_t id = 0; id < vocab && b->n < POOL_MAX && !rc; id++) {
		if (tok_id_is_special(t, id))
			continue;
		text.len = 0;
		ib_error ig;
		if (tok_decode(t, &id, 1, false, &text, &ig) || !text.data ||
		    !word_text(text.data, text.len))
			continue;
		ids.n = 0;
		if (tok_encode(t, text.data, text.len, false, &ids, &ig) || ids.n != 1 ||
		    ids.v[0] != id)
			continue;
		if (!(b->word[b->n] = strdup(text.data))) {
			rc = OOM(e);
			break;
		}
		b->len[b->n++] = text.len;
	}
	if (!rc && b->n < POOL_MIN)
		rc = ib_fail(e, IB_EINVAL, "", 0, 0,
		             "tokenizer %s: only %zu words re-encode to themselves (need %d) to "
		             "synthesise trace blocks",
		             name, b->n, POOL_MIN);
	if (!rc) {
		/* concatenations must re-encode one token per word */
		text.len = 0;
		if (ax_words(b, "pool-check", 0, CHECK_WORDS, &text))
			rc = OOM(e);
		ids.n = 0;
		ib_error ee = {0};
		if (!rc && tok_encode(t, text.data, text.len, false, &ids, &ee))
			rc = ib_fail(e, ee.code, "", 0, 0, "tokenizer %s: %s", name, ee.msg);
		else if (!rc && ids.n != CHECK_WORDS)
			rc = ib_fail(
			    e, IB_EINVAL, "", 0, 0,
			    "tokenizer %s: %d synthesised words re-encode to %zu tokens, not "
			    "one each",
			    name, CHECK_WORDS, ids.n);
	}
	ib_buf_free(&text);
	tok_ids_free(&ids);
	if (rc) {
		ax_blocks_free(b);
		return rc;
	}
	*out = b;
	return 0;
}

int ax_words(const ax_blocks *b, const char *scope, int64_t key, size_t n, ib_buf *out)
{
	uint8_t h[32];
	size_t used = 16; /* 16 two-byte draws per digest */
	uint64_t block = 0;
	for (size_t i = 0; i < n; i++) {
		if (used == 16) {
			ib_sha256 s;
			ib_sha256_init(&s);
			ib_sha256_update(&s, scope, strlen(scope) + 1);
			ib_sha256_update(&s, &key, sizeof key);
			ib_sha256_update(&s, &block, sizeof block);
			ib_sha256_final(&s, h);
			block++, used = 0;
		}
		uint32_t r = (uint32_t)h[2 * used] << 8 | h[2 * used + 1];
		used++;
		size_t w = r % b->n;
		if (ib_buf_append(out, b->word[w], b->len[w]))
			return IB_ENOMEM;
	}
	return 0;
}

void ax_cache_bust(uint32_t seed, uint64_t replay, char out[20])
{
	char in[48];
	int n = snprintf(in, sizeof in, "cache-bust:%u:%llu", seed, (unsigned long long)replay);
	char hex[65];
	ib_sha256_hex(in, (size_t)n, hex);
	snprintf(out, 20, "[rid:%.12s]", hex);
}

void ax_session_id(uint32_t seed, uint64_t replay, bool subagent, size_t entry, char out[48])
{
	char m[20];
	ax_cache_bust(seed, replay, m);
	if (subagent)
		snprintf(out, 48, "ax-%.12s-sa%zu", m + 5, entry);
	else
		snprintf(out, 48, "ax-%.12s", m + 5);
}

/* ---- a trace's table of block texts ---- */

typedef struct {
	int64_t id;
	size_t off, len;
	bool used;
} text_slot;

struct ax_texts {
	const ax_blocks *b;
	const char *scope;
	size_t bs;
	text_slot *slot;
	size_t cap, n; /* cap: a power of two */
	ib_buf text;
};

/* The blocks request r adds to its chain: those beyond its longest common
 * prefix with the request before it (prev; NULL: all of them). */
static size_t added_blocks(const ax_request *prev, const ax_request *r)
{
	size_t l = 0;
	while (prev && l < prev->nhash && l < r->nhash && prev->hash_ids[l] == r->hash_ids[l])
		l++;
	return r->nhash - l;
}

/* At most how many distinct blocks trace t names: what each chain (the
 * parent's turns, each subagent's requests) adds, summed. */
static size_t blocks_bound(const ax_trace *t)
{
	size_t total = 0;
	const ax_request *prev = NULL;
	for (size_t i = 0; i < t->n; i++) {
		const ax_entry *en = &t->entries[i];
		if (!en->is_subagent) {
			total += added_blocks(prev, &en->r);
			prev = &en->r;
			continue;
		}
		for (size_t q = 0; q < en->s.nreq; q++)
			total += added_blocks(q ? &en->s.req[q - 1] : NULL, &en->s.req[q]);
	}
	return total;
}

int ax_texts_new(const ax_blocks *b, const ax_trace *t, ax_texts **out)
{
	/* sized once for the whole trace: the text buffer is reserved (its
	 * pages are touched only as blocks are made, and it never moves while
	 * the trace is replayed), the slot table is never rehashed */
	size_t nb = blocks_bound(t), cap = 64;
	while (cap < 2 * nb)
		cap *= 2;
	ax_texts *x = calloc(1, sizeof *x);
	if (!x || !(x->slot = calloc(cap, sizeof *x->slot)) ||
	    ib_buf_reserve(&x->text, nb * (size_t)t->block_size * 13 + 1)) {
		if (x)
			free(x->slot);
		free(x);
		return IB_ENOMEM;
	}
	x->b = b, x->scope = t->id, x->bs = (size_t)t->block_size, x->cap = cap;
	*out = x;
	return 0;
}

void ax_texts_free(ax_texts *x)
{
	if (!x)
		return;
	free(x->slot);
	ib_buf_free(&x->text);
	free(x);
}

size_t ax_texts_bytes(const ax_texts *x)
{
	return x->text.len + x->cap * sizeof *x->slot;
}

static size_t slot_of(const text_slot *s, size_t cap, int64_t id)
{
	uint64_t h = (uint64_t)id * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(h >> 17) & (cap - 1);
	while (s[i].used && s[i].id != id)
		i = (i + 1) & (cap - 1);
	return i;
}

int ax_texts_get(ax_texts *x, int64_t id, const char **s, size_t *n)
{
	size_t i = slot_of(x->slot, x->cap, id);
	if (!x->slot[i].used) {
		if (2 * (x->n + 1) > x->cap) { /* rehash at half full */
			size_t cap = x->cap * 2;
			text_slot *ns = calloc(cap, sizeof *ns);
			if (!ns)
				return IB_ENOMEM;
			for (size_t k = 0; k < x->cap; k++)
				if (x->slot[k].used)
					ns[slot_of(ns, cap, x->slot[k].id)] = x->slot[k];
			free(x->slot);
			x->slot = ns, x->cap = cap;
			i = slot_of(x->slot, x->cap, id);
		}
		size_t off = x->text.len;
		if (ax_words(x->b, x->scope, id, x->bs, &x->text))
			return IB_ENOMEM;
		x->slot[i] = (text_slot){id, off, x->text.len - off, true};
		x->n++;
	}
	*s = x->text.data + x->slot[i].off;
	*n = x->slot[i].len;
	return 0;
}
