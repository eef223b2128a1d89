/* Hash tables of the tokenizer: strings to ids, merge pairs to ranks, and the
 * byte trie of added tokens. */
#include "tok/private.h"

#include <stdlib.h>
#include <string.h>

uint64_t tok_hash(const char *s, size_t len)
{
	uint64_t h = 0x9E3779B97F4A7C15ull ^ (len * 0xFF51AFD7ED558CCDull);
	while (len >= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
		h ^= h >> 31;
		s += 8;
		len -= 8;
	}
	/* the last len < 8 bytes as a little-endian number (what memcpy into
	 * a zeroed word gives), read without a variable-length copy, whose
	 * byte stores then stall the word's load */
	uint64_t w = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const unsigned char *u = (const unsigned char *)s;
	if (len >= 4) {
		uint32_t lo, hi;
		memcpy(&lo, s, 4);
		memcpy(&hi, s + len - 4, 4);
		w = (uint64_t)lo | (uint64_t)hi << (8 * (len - 4)); /* overlap: equal bytes */
	} else if (len) {
		w = (uint64_t)u[0] | (uint64_t)u[len / 2] << (8 * (len / 2)) |
		    (uint64_t)u[len - 1] << (8 * (len - 1));
	}
#else
	memcpy(&w, s, len);
#endif
	h = (h ^ w) * 0x94D049BB133111EBull;
	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9ull;
	h ^= h >> 32;
	return h;
}

/* A slot holds the entry index + 1 in its low 32 bits and the high half of
 * the key's hash above, so that probes rarely touch entries of other keys. */
static inline uint64_t slot_of(size_t idx, uint64_t h)
{
	return (h & 0xFFFFFFFF00000000ull) | (uint64_t)(idx + 1);
}

static int smap_grow(tok_smap *m)
{
	size_t nslots = m->mask ? (m->mask + 1) * 2 : 64;
	uint64_t *slot = calloc(nslots, sizeof *slot);
	if (!slot)
		return IB_ENOMEM;
	for (size_t k = 0; k < m->n; k++) {
		uint64_t h = tok_hash(m->e[k].k, m->e[k].len);
		size_t i = h & (nslots - 1);
		while (slot[i])
			i = (i + 1) & (nslots - 1);
		slot[i] = slot_of(k, h);
	}
	free(m->slot);
	m->slot = slot;
	m->mask = nslots - 1;
	return 0;
}

int tok_smap_put(tok_smap *m, const char *k, size_t len, uint32_t val)
{
	if ((m->n + 1) * 2 > (m->mask ? m->mask + 1 : 0) && smap_grow(m))
		return IB_ENOMEM;
	uint64_t h = tok_hash(k, len);
	size_t i = h & m->mask;
	while (m->slot[i]) {
		tok_sent *x = &m->e[(uint32_t)m->slot[i] - 1];
		if ((m->slot[i] >> 32) == (h >> 32) && x->len == len && !memcmp(x->k, k, len)) {
			x->val = val;
			return 0;
		}
		i = (i + 1) & m->mask;
	}
	if (m->n == m->cap && ib_grow(&m->e, &m->cap, m->n + 1))
		return IB_ENOMEM;
	m->e[m->n] = (tok_sent){.k = k, .len = (uint32_t)len, .val = val};
	m->slot[i] = slot_of(m->n++, h);
	return 0;
}

bool tok_smap_get_h(const tok_smap *m, const char *k, size_t len, uint64_t h, uint32_t *val)
{
	if (!m->n)
		return false;
	size_t i = h & m->mask;
	uint64_t x;
	while ((x = m->slot[i])) {
		if ((x >> 32) == (h >> 32)) {
			const tok_sent *en = &m->e[(uint32_t)x - 1];
			if (en->len == len && !memcmp(en->k, k, len)) {
				*val = en->val;
				return true;
			}
		}
		i = (i + 1) & m->mask;
	}
	return false;
}

bool tok_smap_get(const tok_smap *m, const char *k, size_t len, uint32_t *val)
{
	return m->n && tok_smap_get_h(m, k, len, tok_hash(k, len), val);
}

void tok_smap_free(tok_smap *m)
{
	free(m->e);
	free(m->slot);
	memset(m, 0, sizeof *m);
}

int tok_pmap_init(tok_pmap *m, size_t expect)
{
	size_t n = 64;
	while (n * 5 < expect * 8) /* load factor at most 0.625 */
		n *= 2;
	m->slot = malloc(n * sizeof *m->slot);
	if (!m->slot)
		return IB_ENOMEM;
	memset(m->slot, 0xFF, n * sizeof *m->slot);
	m->mask = n - 1;
	m->n = 0;
	return 0;
}

void tok_pmap_put(tok_pmap *m, uint32_t a, uint32_t b, uint32_t rank, uint32_t id)
{
	uint64_t k = (uint64_t)a << 32 | b;
	uint64_t h = k * 0x9E3779B97F4A7C15ull;
	size_t i = (size_t)(h >> 20) & m->mask;
	while (m->slot[i].key != UINT64_MAX && m->slot[i].key != k)
		i = (i + 1) & m->mask;
	if (m->slot[i].key == UINT64_MAX)
		m->n++;
	m->slot[i] = (struct tok_pslot){k, rank, id};
}

void tok_pmap_free(tok_pmap *m)
{
	free(m->slot);
	memset(m, 0, sizeof *m);
}

static int32_t trie_node(tok_trie *t, uint8_t byte)
{
	if (t->n == t->cap && ib_grow(&t->node, &t->cap, t->n + 1))
		return -1;
	t->node[t->n] = (struct tok_tnode){.added = -1, .byte = byte};
	return (int32_t)t->n++;
}

int tok_trie_add(tok_trie *t, const char *s, size_t len, int32_t added)
{
	if (!len)
		return 0;
	const uint8_t *u = (const uint8_t *)s;
	if (!t->root[u[0]]) {
		int32_t x = trie_node(t, u[0]);
		if (x < 0)
			return IB_ENOMEM;
		t->root[u[0]] = (uint32_t)x + 1;
		t->nroots++;
		t->only_root = u[0];
	}
	uint32_t cur = t->root[u[0]] - 1;
	for (size_t k = 1; k < len; k++) {
		uint32_t c = t->node[cur].child;
		while (c && t->node[c - 1].byte != u[k])
			c = t->node[c - 1].sibling;
		if (!c) {
			int32_t x = trie_node(t, u[k]);
			if (x < 0)
				return IB_ENOMEM;
			t->node[x].sibling = t->node[cur].child;
			t->node[cur].child = (uint32_t)x + 1;
			c = (uint32_t)x + 1;
		}
		cur = c - 1;
	}
	/* the first token registered with a text keeps the trie entry; every
	 * registration of one text gives the same id (see load.c) */
	if (t->node[cur].added < 0)
		t->node[cur].added = added;
	return 0;
}

size_t tok_trie_longest(const tok_trie *t, const char *s, size_t len, int32_t *added)
{
	const uint8_t *u = (const uint8_t *)s;
	if (!len || !t->root[u[0]])
		return 0;
	uint32_t cur = t->root[u[0]] - 1;
	size_t best = 0;
	for (size_t k = 1;; k++) {
		if (t->node[cur].added >= 0) {
			best = k;
			*added = t->node[cur].added;
		}
		if (k == len)
			break;
		uint32_t c = t->node[cur].child;
		while (c && t->node[c - 1].byte != u[k])
			c = t->node[c - 1].sibling;
		if (!c)
			break;
		cur = c - 1;
	}
	return best;
}

void tok_trie_free(tok_trie *t)
{
	free(t->node);
	memset(t, 0, sizeof *t);
}
