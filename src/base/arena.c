#include "base/base.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A chain of blocks; big requests get a block of their own. */
typedef struct block {
	struct block *next;
	size_t used, cap;
	max_align_t data[];
} block;

struct ib_arena {
	block *head;
	size_t total;
};

enum { BLOCK_SIZE = 64 * 1024 };

ib_arena *ib_arena_new(void)
{
	return calloc(1, sizeof(ib_arena));
}

void ib_arena_free(ib_arena *a)
{
	if (!a)
		return;
	block *b = a->head;
	while (b) {
		block *n = b->next;
		free(b);
		b = n;
	}
	free(a);
}

void *ib_arena_alloc(ib_arena *a, size_t n)
{
	const size_t align = 8; /* enough for every type stored here */
	if (n > SIZE_MAX - sizeof(block) - align)
		return NULL; /* rounding up or the block header would wrap around */
	n = (n + align - 1) & ~(align - 1);
	if (n == 0)
		n = align;
	block *b = a->head;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > BLOCK_SIZE / 4 ? n : BLOCK_SIZE;
		/* calloc: a block's memory is zeroed once, as it comes (fresh
		 * pages from the kernel need no clearing at all), so no
		 * allocation clears its bytes again: nothing in a block is
		 * ever handed out twice */
		block *nb = calloc(1, sizeof(block) + cap);
		if (!nb)
			return NULL;
		nb->used = 0;
		nb->cap = cap;
		if (b && cap == n) {
			/* keep the current block in front: it still has room */
			nb->next = b->next;
			b->next = nb;
		} else {
			nb->next = b;
			a->head = nb;
		}
		b = nb;
	}
	void *p = (char *)b->data + b->used;
	b->used += n;
	a->total += n;
	return p;
}

char *ib_arena_strndup(ib_arena *a, const char *s, size_t n)
{
	char *p = ib_arena_alloc(a, n + 1);
	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *ib_arena_strdup(ib_arena *a, const char *s)
{
	return ib_arena_strndup(a, s, strlen(s));
}

char *ib_arena_printf(ib_arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	char *p = ib_arena_alloc(a, (size_t)n + 1);
	if (!p)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

size_t ib_arena_used(const ib_arena *a)
{
	return a->total;
}
