/* The BPE model (HuggingFace models/bpe): characters to initial symbols (with
 * continuing-subword prefix, end-of-word suffix, byte fallback and unk fusion),
 * then merges in rank order through a min-heap over a linked list of symbols,
 * so a word of n characters costs O(n log n). Results of words shorter than
 * 256 bytes are cached. */
#include "tok/private.h"

#include <stdlib.h>
#include <string.h>

enum { CACHE_MAX_LEN = 256, CACHE_SLOTS = 1 << 16 };

static int add_sym(tok_bpe *m, size_t *n, uint32_t id, size_t len)
{
	if (*n == m->sym_cap && ib_grow(&m->sym, &m->sym_cap, *n + 1))
		return IB_ENOMEM;
	m->sym[*n] =
	    (struct tok_sym){.id = id, .prev = (int32_t)*n - 1, .next = -1, .len = (uint32_t)len};
	if (*n)
		m->sym[*n - 1].next = (int32_t)*n;
	(*n)++;
	return 0;
}

/* A 4-ary min-heap of merges keyed by (rank, pos), the order HuggingFace
 * pops them in: four children share a cache line, and the initial pairs are
 * heapified in O(n). */
static inline uint64_t mkey(uint32_t rank, uint32_t pos)
{
	return (uint64_t)rank << 32 | pos;
}

static void sift_down(struct tok_merge *h, size_t n, size_t i, struct tok_merge x)
{
	for (;;) {
		size_t c = 4 * i + 1, best = c;
		if (c >= n)
			break;
		size_t end = c + 4 < n ? c + 4 : n;
		for (size_t k = c + 1; k < end; k++)
			if (h[k].key < h[best].key)
				best = k;
		if (h[best].key >= x.key)
			break;
		h[i] = h[best];
		i = best;
	}
	h[i] = x;
}

static int heap_reserve(tok_bpe *m, size_t n)
{
	return ib_grow(&m->heap, &m->heap_cap, n) ? IB_ENOMEM : 0;
}

static int heap_push(tok_bpe *m, size_t *n, struct tok_merge x)
{
	if (heap_reserve(m, *n + 1))
		return IB_ENOMEM;
	size_t i = (*n)++;
	while (i > 0) {
		size_t p = (i - 1) / 4;
		if (m->heap[p].key <= x.key)
			break;
		m->heap[i] = m->heap[p];
		i = p;
	}
	m->heap[i] = x;
	return 0;
}

static struct tok_merge heap_pop(tok_bpe *m, size_t *n)
{
	struct tok_merge top = m->heap[0];
	if (--(*n))
		sift_down(m->heap, *n, 0, m->heap[*n]);
	return top;
}

/* Word::merge_all without dropout. */
static int merge_all(tok_bpe *m, size_t nsym)
{
	size_t nh = 0;
	uint32_t rank, id;
	if (nsym > 1 && heap_reserve(m, nsym - 1))
		return IB_ENOMEM;
	/* the merges table is megabytes: fetch every initial pair's slot first,
	 * so that the lookups below overlap */
	for (size_t i = 0; i + 1 < nsym; i++)
		tok_pmap_prefetch(&m->merges, m->sym[i].id, m->sym[i + 1].id);
	for (size_t i = 0; i + 1 < nsym; i++)
		if (tok_pmap_get(&m->merges, m->sym[i].id, m->sym[i + 1].id, &rank, &id))
			m->heap[nh++] = (struct tok_merge){mkey(rank, (uint32_t)i), id};
	for (size_t i = nh / 4 + 1; i-- > 0;)
		if (i < nh)
			sift_down(m->heap, nh, i, m->heap[i]);
	while (nh) {
		struct tok_merge top = heap_pop(m, &nh);
		uint32_t pos = (uint32_t)top.key;
		struct tok_sym *cur = &m->sym[pos];
		if (cur->len == 0 || cur->next < 0)
			continue;
		struct tok_sym right = m->sym[cur->next];
		/* an expired entry: the pair changed since it was queued */
		if (!tok_pmap_get(&m->merges, cur->id, right.id, &rank, &id) || id != top.id)
			continue;
		m->sym[cur->next].len = 0;
		cur->id = top.id;
		cur->len += right.len;
		cur->next = right.next;
		if (right.next >= 0)
			m->sym[right.next].prev = (int32_t)pos;
		if (cur->prev >= 0) {
			const struct tok_sym *p = &m->sym[cur->prev];
			if (tok_pmap_get(&m->merges, p->id, cur->id, &rank, &id) &&
			    heap_push(m, &nh,
			              (struct tok_merge){mkey(rank, (uint32_t)cur->prev), id}))
				return IB_ENOMEM;
		}
		if (cur->next >= 0) {
			const struct tok_sym *q = &m->sym[cur->next];
			if (tok_pmap_get(&m->merges, cur->id, q->id, &rank, &id) &&
			    heap_push(m, &nh, (struct tok_merge){mkey(rank, pos), id}))
				return IB_ENOMEM;
		}
	}
	return 0;
}

/* BPE::merge_word: the initial symbols of one word. */
static int initial_symbols(tok_bpe *m, const char *s, size_t len, size_t *nsym, ib_error *e)
{
	bool unk = false;
	uint32_t unk_id = 0;
	size_t unk_len = 0, n = 0;
	char kb[64];
	for (size_t i = 0; i < len;) {
		size_t j = i;
		uint32_t cp = tok_utf8_next(s, &j);
		size_t blen = j - i;
		bool pre = m->cont && i > 0, suf = m->eow && j == len;
		const char *key = s + i;
		size_t klen = blen;
		char *heap_key = NULL;
		if (pre || suf) {
			klen = (pre ? m->cont_len : 0) + blen + (suf ? m->eow_len : 0);
			char *d = klen <= sizeof kb ? kb : (heap_key = malloc(klen));
			if (!d)
				return IB_ENOMEM;
			size_t o = 0;
			if (pre) {
				memcpy(d, m->cont, m->cont_len);
				o = m->cont_len;
			}
			memcpy(d + o, s + i, blen);
			if (suf)
				memcpy(d + o + blen, m->eow, m->eow_len);
			key = d;
		}
		uint32_t id;
		bool found;
		if (!pre && !suf && cp < 0x10000) {
			found = m->bmp_id[cp] >= 0;
			id = (uint32_t)m->bmp_id[cp];
		} else {
			found = tok_smap_get(&m->vocab, key, klen, &id);
		}
		int rc = 0;
		if (found) {
			if (unk) {
				rc = add_sym(m, &n, unk_id, unk_len);
				unk = false;
			}
			if (!rc)
				rc = add_sym(m, &n, id, blen);
			free(heap_key);
			if (rc)
				return rc;
			i = j;
			continue;
		}
		if (m->byte_fallback) {
			bool all = true;
			for (size_t k = 0; k < klen && all; k++)
				all = m->byte_id[(unsigned char)key[k]] >= 0;
			if (all) {
				for (size_t k = 0; k < klen && !rc; k++)
					rc = add_sym(
					    m, &n, (uint32_t)m->byte_id[(unsigned char)key[k]], 1);
				free(heap_key);
				if (rc)
					return rc;
				i = j;
				continue;
			}
		}
		free(heap_key);
		if (m->unk) {
			uint32_t uid;
			if (!tok_smap_get(&m->vocab, m->unk, strlen(m->unk), &uid))
				return ib_fail(e, IB_EINVAL, NULL, 0, 0,
				               "BPE: unk_token '%s' is not in the vocabulary",
				               m->unk);
			if (unk && m->fuse_unk) {
				unk_len += blen;
			} else {
				if (unk && (rc = add_sym(m, &n, unk_id, unk_len)))
					return rc;
				unk = true;
				unk_id = uid;
				unk_len = blen;
			}
		}
		i = j;
	}
	if (unk) {
		int rc = add_sym(m, &n, unk_id, unk_len);
		if (rc)
			return rc;
	}
	*nsym = n;
	return 0;
}

static struct tok_centry *cache_slot(tok_bpe *m, const char *s, size_t len, uint64_t h)
{
	size_t i = (size_t)h & m->cache_mask;
	for (;;) {
		struct tok_centry *c = &m->cache[i];
		if (!c->klen)
			return c;
		if (c->hash == h && c->klen == len && !memcmp(m->cache_pool.data + c->koff, s, len))
			return c;
		i = (i + 1) & m->cache_mask;
	}
}

static void cache_store(tok_bpe *m, struct tok_centry *c, const char *s, size_t len, uint64_t h,
                        const uint32_t *ids, size_t n)
{
	if (m->cache_n * 2 >= m->cache_mask + 1) { /* full: start over */
		memset(m->cache, 0, (m->cache_mask + 1) * sizeof *m->cache);
		m->cache_n = 0;
		m->cache_pool.len = 0;
		c = cache_slot(m, s, len, h);
	}
	size_t koff = m->cache_pool.len;
	size_t ioff = (koff + len + 3) & ~(size_t)3;
	if (ib_buf_reserve(&m->cache_pool, ioff - koff + n * sizeof *ids))
		return; /* no memory: simply do not cache */
	memcpy(m->cache_pool.data + koff, s, len);
	memcpy(m->cache_pool.data + ioff, ids, n * sizeof *ids);
	m->cache_pool.len = ioff + n * sizeof *ids;
	*c = (struct tok_centry){.hash = h,
	                         .koff = (uint32_t)koff,
	                         .klen = (uint32_t)len,
	                         .ioff = (uint32_t)ioff,
	                         .n = (uint32_t)n};
	m->cache_n++;
}

/* One word whose tok_hash is h. */
static int word_h(tok_bpe *m, const char *s, size_t len, uint64_t h, tok_ids *out, ib_error *e)
{
	uint32_t id;
	int rc = 0;
	if (!len)
		return 0;
	struct tok_centry *slot = NULL;
	/* ignore_merges: a word in the vocabulary is its own token, found with
	 * one probe; caching it too would only cost a copy (and, on text of
	 * many distinct words, cache resets) */
	if (m->ignore_merges && tok_smap_get_h(&m->vocab, s, len, h, &id))
		return tok_ids_push(out, id);
	/* the cache holds merge results */
	if (len < CACHE_MAX_LEN) {
		if (!m->cache) {
			m->cache = calloc(CACHE_SLOTS, sizeof *m->cache);
			if (!m->cache)
				return IB_ENOMEM;
			m->cache_mask = CACHE_SLOTS - 1;
		}
		slot = cache_slot(m, s, len, h);
		if (slot->klen) {
			const uint32_t *ids = (const uint32_t *)(m->cache_pool.data + slot->ioff);
			for (size_t k = 0; k < slot->n && !rc; k++)
				rc = tok_ids_push(out, ids[k]);
			return rc;
		}
	}
	size_t nsym = 0, before = out->n;
	if (!(rc = initial_symbols(m, s, len, &nsym, e)) && !(rc = merge_all(m, nsym))) {
		for (size_t k = 0; k < nsym && !rc; k++)
			if (m->sym[k].len)
				rc = tok_ids_push(out, m->sym[k].id);
	}
	if (!rc && slot && out->n > before)
		cache_store(m, slot, s, len, h, out->v + before, out->n - before);
	return rc;
}

static int word(tok_bpe *m, const char *s, size_t len, tok_ids *out, ib_error *e)
{
	return len ? word_h(m, s, len, tok_hash(s, len), out, e) : 0;
}

static const char META[] = "\xE2\x96\x81"; /* U+2581 */

/* Whether p (> 0) starts a U+2581 that follows another character. */
static bool meta_boundary(const char *s, size_t p)
{
	return !memcmp(s + p, META, 3) && (p < 3 || memcmp(s + p - 3, META, 3));
}

int tok_bpe_tokenize(tok_bpe *m, const char *s, size_t len, tok_ids *out, ib_error *e)
{
	if (!m->split_meta || len < 6)
		return word(m, s, len, out, e);
	/* SentencePiece-style words: no merge can cross "x\u2581" (see
	 * tok_bpe_prepare), so the parts between such boundaries are tokenized
	 * (and cached) on their own, with the same result */
	size_t start = 0;
	for (size_t p = 1; p + 3 <= len; p++) {
		if (s[p] != META[0] || !meta_boundary(s, p))
			continue;
		int rc = word(m, s + start, p - start, out, e);
		if (rc)
			return rc;
		start = p;
		p += 2;
	}
	return word(m, s + start, len - start, out, e);
}

int tok_bpe_tokenize_h(tok_bpe *m, const char *s, size_t len, uint64_t h, tok_ids *out, ib_error *e)
{
	if (!m->split_meta || len < 6)
		return len ? word_h(m, s, len, h, out, e) : 0;
	return tok_bpe_tokenize(m, s, len, out, e);
}

void tok_bpe_prefetch(const tok_bpe *m, uint64_t h)
{
	if (m->ignore_merges && m->vocab.n)
		__builtin_prefetch(&m->vocab.slot[h & m->vocab.mask]);
	if (m->cache) /* after a vocabulary miss, or without ignore_merges */
		__builtin_prefetch(&m->cache[h & m->cache_mask]);
}

bool tok_bpe_merge_joins_meta(const char *r, size_t n)
{
	for (size_t p = 1; p + 3 <= n; p++)
		if (meta_boundary(r, p))
			return true;
	return false;
}

void tok_bpe_free(tok_bpe *m)
{
	tok_smap_free(&m->vocab);
	tok_pmap_free(&m->merges);
	free(m->bmp_id);
	free(m->cache);
	ib_buf_free(&m->cache_pool);
	free(m->sym);
	free(m->heap);
}
