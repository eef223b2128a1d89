/* The prefix cache (docs/sim.md "Prefix cache" and "KV offload"): KV
 * blocks named by a chained hash of their content (each block's hash covers
 * the hash of the block before it, as vLLM's block hashes do), shared by
 * every request whose prompt starts with the same blocks, kept after their
 * requests finish while the KV memory is not needed, and evicted least
 * recently used first. With a host tier (--kv-offload-gb) an evicted block
 * moves to host memory instead of vanishing, and a hit there is copied
 * back over the host link.
 *
 * Accounting: s->free_blocks counts every block no running sequence holds,
 * cached ones included; cached_free of them hold a cached block (reference
 * count 0, in the GPU LRU list). A sequence's q->blocks is its whole block
 * table, q->nshared of which are cache entries it references. */
#include "sim/private.h"

#include <stdlib.h>
#include <string.h>

enum { NONE = -1 };

static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t sim_pc_hash(uint64_t parent, const void *data, size_t len)
{
	uint64_t h = ib_fnv1a(IB_FNV1A_BASIS ^ mix(parent + 0x9e3779b97f4a7c15ULL), data, len);
	h = mix(h);
	return h ? h : 1; /* 0 is no hash */
}

/* ---- the table: chained buckets over an entry array with a free list ---- */

static size_t bucket_of(const sim_pcache *c, uint64_t h)
{
	return (size_t)(h & (c->nbuckets - 1));
}

static int32_t find(const sim_pcache *c, uint64_t h)
{
	if (!c->nbuckets)
		return NONE;
	for (int32_t i = c->buckets[bucket_of(c, h)]; i != NONE; i = c->e[i].chain)
		if (c->e[i].hash == h)
			return i;
	return NONE;
}

static int rehash(sim_pcache *c, size_t nb)
{
	int32_t *b = malloc(nb * sizeof *b);
	if (!b)
		return IB_ENOMEM;
	for (size_t i = 0; i < nb; i++)
		b[i] = NONE;
	free(c->buckets);
	c->buckets = b;
	c->nbuckets = nb;
	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].hash) {
			size_t k = bucket_of(c, c->e[i].hash);
			c->e[i].chain = b[k];
			b[k] = (int32_t)i;
		}
	return 0;
}

/* A new entry for h (not present), or NONE when out of memory. */
static int32_t insert(sim_pcache *c, uint64_t h)
{
	int32_t i = c->free_head;
	if (i != NONE) {
		c->free_head = c->e[i].chain;
	} else {
		if (c->n >= INT32_MAX - 1 || ib_grow(&c->e, &c->cap, c->n + 1))
			return NONE;
		i = (int32_t)c->n++;
		c->e[i].hash = 0; /* not in use yet: a rehash below skips it */
	}
	if (c->live + 1 > c->nbuckets / 2 && rehash(c, c->nbuckets ? c->nbuckets * 2 : 1024)) {
		c->e[i].chain = c->free_head; /* back to the free list */
		c->e[i].hash = 0;
		c->free_head = i;
		return NONE;
	}
	sim_pc_entry *x = &c->e[i];
	*x = (sim_pc_entry){.hash = h, .ref = 0, .tier = SIM_TIER_GPU, .prev = NONE, .next = NONE};
	size_t k = bucket_of(c, h);
	x->chain = c->buckets[k];
	c->buckets[k] = i;
	c->live++;
	return i;
}

static void erase(sim_pcache *c, int32_t i)
{
	int32_t *p = &c->buckets[bucket_of(c, c->e[i].hash)];
	while (*p != i)
		p = &c->e[*p].chain;
	*p = c->e[i].chain;
	c->e[i].hash = 0;
	c->e[i].chain = c->free_head;
	c->free_head = i;
	c->live--;
}

/* ---- LRU lists (head: least recently used), one per tier ---- */

static void lru_push(sim_pcache *c, int32_t i)
{
	int t = c->e[i].tier;
	c->e[i].next = NONE;
	c->e[i].prev = c->tail[t];
	if (c->tail[t] != NONE)
		c->e[c->tail[t]].next = i;
	else
		c->head[t] = i;
	c->tail[t] = i;
}

static void lru_remove(sim_pcache *c, int32_t i)
{
	int t = c->e[i].tier;
	sim_pc_entry *x = &c->e[i];
	if (x->prev != NONE)
		c->e[x->prev].next = x->next;
	else
		c->head[t] = x->next;
	if (x->next != NONE)
		c->e[x->next].prev = x->prev;
	else
		c->tail[t] = x->prev;
	x->prev = x->next = NONE;
}

void sim_pc_init(sim_pcache *c)
{
	memset(c, 0, sizeof *c);
	c->free_head = NONE;
	c->head[0] = c->head[1] = c->tail[0] = c->tail[1] = NONE;
}

void sim_pc_free(sim_pcache *c)
{
	free(c->e);
	free(c->buckets);
	sim_pc_init(c);
}

/* KV bytes of one block per GPU: what crosses each GPU's host link. */
static double block_bytes(const sim_server *s)
{
	return s->cap.kv_bytes_per_token * s->cfg.block_size;
}

/* The least recently used free GPU block leaves the GPU: to the host tier
 * when there is one (its least recently used block dropped when full),
 * else out of the cache. */
static void evict_one(sim_server *s)
{
	sim_pcache *c = &s->pc;
	int32_t i = c->head[SIM_TIER_GPU];
	lru_remove(c, i);
	c->cached_free--;
	s->m.pc_evicted++;
	if (c->host_blocks <= 0) {
		erase(c, i);
		return;
	}
	if (c->host_used >= c->host_blocks) {
		int32_t h = c->head[SIM_TIER_HOST];
		lru_remove(c, h);
		erase(c, h);
		c->host_used--;
	}
	c->e[i].tier = SIM_TIER_HOST;
	lru_push(c, i);
	c->host_used++;
	double b = block_bytes(s);
	s->m.offload_bytes_to_host += b;
	s->m.offload_s_to_host += b / s->cfg.hw.host_bw;
}

bool sim_pc_take(sim_server *s, int64_t n)
{
	sim_pcache *c = &s->pc;
	if (n <= 0)
		return true;
	if (n > s->free_blocks)
		return false;
	while (s->free_blocks - c->cached_free < n)
		evict_one(s);
	s->free_blocks -= n;
	return true;
}

int sim_pc_acquire(sim_server *s, seq *q, int max_blocks, int *host_hits)
{
	sim_pcache *c = &s->pc;
	*host_hits = 0;
	if (!q->bh || !c->live)
		return 0;
	int n = 0, revive = 0, host = 0;
	while (n < max_blocks && n < q->nbh) {
		int32_t i = find(c, q->bh[n]);
		if (i == NONE)
			break;
		if (c->e[i].ref == 0)
			c->e[i].tier == SIM_TIER_HOST ? host++ : revive++;
		n++;
	}
	/* each revived GPU block leaves the free pool; each host block needs a
	 * fresh GPU block (taken after pinning, so no eviction hits the chain) */
	if (revive + host > s->free_blocks)
		return 0;
	for (int k = 0; k < n; k++) {
		int32_t i = find(c, q->bh[k]);
		sim_pc_entry *x = &c->e[i];
		if (x->ref++ == 0) {
			lru_remove(c, i);
			if (x->tier == SIM_TIER_GPU) {
				c->cached_free--;
				s->free_blocks--;
			} else {
				c->host_used--;
				x->tier = SIM_TIER_GPU;
			}
		}
		q->bent[k] = i;
	}
	if (!sim_pc_take(s, host)) { /* cannot happen: checked above */
		q->nshared = n;
		q->blocks += n;
		sim_pc_release(s, q);
		return 0;
	}
	q->nshared = n;
	q->nreg = n;
	q->blocks += n;
	*host_hits = host;
	return n;
}

void sim_pc_register(sim_server *s, seq *q)
{
	sim_pcache *c = &s->pc;
	if (!q->bh)
		return;
	int full = q->prefilled < q->prompt_tokens ? q->prefilled : q->prompt_tokens;
	int upto = full / s->cfg.block_size;
	if (upto > q->nbh)
		upto = q->nbh;
	for (; q->nreg < upto; q->nreg++) {
		int k = q->nreg;
		if (q->bent[k] != NONE || find(c, q->bh[k]) != NONE)
			continue; /* another sequence computed it too: this copy stays private */
		int32_t i = insert(c, q->bh[k]);
		if (i == NONE)
			return; /* out of memory: the block stays private */
		c->e[i].ref = 1;
		q->bent[k] = i;
		q->nshared++;
	}
}

void sim_pc_release(sim_server *s, seq *q)
{
	sim_pcache *c = &s->pc;
	for (int k = 0; q->bent && k < q->nbh; k++) {
		int32_t i = q->bent[k];
		if (i == NONE)
			continue;
		q->bent[k] = NONE;
		if (--c->e[i].ref == 0) {
			lru_push(c, i);
			c->cached_free++;
			s->free_blocks++;
		}
	}
	q->nshared = 0;
	q->nreg = 0;
}
