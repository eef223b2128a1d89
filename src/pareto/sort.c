/* pareto/sort.c — V8's Array.prototype.sort (TimSort, as in CPython's
 * listsort) over index arrays: run detection, binary insertion up to the
 * minimum run, the run-stack invariants, and merges with galloping.
 * Following it step by step keeps even an inconsistent comparator (NaN
 * differences, which JS turns into 0) ordering elements as the browser does;
 * which of two equal points lands on a frontier depends on it. */
#include "pareto/pareto.h"

#include <stdlib.h>
#include <string.h>

enum { MIN_GALLOP = 7, MAX_RUNS = 85 };

typedef struct {
	size_t *a;      /* the array being sorted */
	size_t *tmp;    /* merge scratch, room for n */
	par_cmp_fn cmp; /* < 0: first argument sorts first */
	const void *ctx;
	size_t base[MAX_RUNS], len[MAX_RUNS];
	size_t nruns;
	size_t min_gallop;
} ts;

static double cmp(const ts *s, size_t x, size_t y)
{
	return s->cmp(x, y, s->ctx);
}

static size_t min_run(size_t n)
{
	size_t r = 0;
	while (n >= 64) {
		r |= n & 1;
		n >>= 1;
	}
	return n + r;
}

/* CountAndMakeRun: a non-descending or strictly descending prefix of
 * [lo, hi), the latter reversed in place. */
static size_t make_run(ts *s, size_t lo, size_t hi)
{
	if (lo + 1 == hi)
		return 1;
	size_t len = 2;
	bool desc = cmp(s, s->a[lo + 1], s->a[lo]) < 0;
	size_t prev = s->a[lo + 1];
	for (size_t i = lo + 2; i < hi; i++) {
		double o = cmp(s, s->a[i], prev);
		if (desc ? o >= 0 : o < 0)
			break;
		prev = s->a[i];
		len++;
	}
	if (desc)
		for (size_t i = lo, j = lo + len - 1; i < j; i++, j--) {
			size_t t = s->a[i];
			s->a[i] = s->a[j];
			s->a[j] = t;
		}
	return len;
}

static void binary_insertion(ts *s, size_t lo, size_t start, size_t hi)
{
	if (start == lo)
		start++;
	for (; start < hi; start++) {
		size_t left = lo, right = start, pivot = s->a[start];
		while (left < right) {
			size_t mid = left + ((right - left) >> 1);
			if (cmp(s, pivot, s->a[mid]) < 0)
				right = mid;
			else
				left = mid + 1;
		}
		memmove(s->a + left + 1, s->a + left, (start - left) * sizeof *s->a);
		s->a[left] = pivot;
	}
}

/* Leftmost position in arr[base..base+len) where key belongs (arr[k-1] <
 * key <= arr[k]), searched from hint. */
static size_t gallop_left(const ts *s, const size_t *arr, size_t key, size_t base, size_t len,
                          size_t hint)
{
	size_t last = 0, ofs = 1;
	if (cmp(s, arr[base + hint], key) < 0) {
		size_t max = len - hint;
		while (ofs < max) {
			if (cmp(s, arr[base + hint + ofs], key) >= 0)
				break;
			last = ofs;
			ofs = (ofs << 1) + 1;
		}
		if (ofs > max)
			ofs = max;
		last += hint;
		ofs += hint;
	} else {
		size_t max = hint + 1;
		while (ofs < max) {
			if (cmp(s, arr[base + hint - ofs], key) < 0)
				break;
			last = ofs;
			ofs = (ofs << 1) + 1;
		}
		if (ofs > max)
			ofs = max;
		size_t t = last;
		/* lastOfs = hint - ofs may be -1: kept as hint + 1 - ofs, shifted below */
		last = hint + 1 - ofs;
		ofs = hint - t;
		goto search; /* last is already incremented */
	}
	last++;
search:
	while (last < ofs) {
		size_t m = last + ((ofs - last) >> 1);
		if (cmp(s, arr[base + m], key) < 0)
			last = m + 1;
		else
			ofs = m;
	}
	return ofs;
}

/* Rightmost position in arr[base..base+len) where key belongs (arr[k-1] <=
 * key < arr[k]), searched from hint. */
static size_t gallop_right(const ts *s, const size_t *arr, size_t key, size_t base, size_t len,
                           size_t hint)
{
	size_t last = 0, ofs = 1;
	if (cmp(s, key, arr[base + hint]) < 0) {
		size_t max = hint + 1;
		while (ofs < max) {
			if (cmp(s, key, arr[base + hint - ofs]) >= 0)
				break;
			last = ofs;
			ofs = (ofs << 1) + 1;
		}
		if (ofs > max)
			ofs = max;
		size_t t = last;
		last = hint + 1 - ofs; /* hint - ofs, plus the increment below */
		ofs = hint - t;
	} else {
		size_t max = len - hint;
		while (ofs < max) {
			if (cmp(s, key, arr[base + hint + ofs]) < 0)
				break;
			last = ofs;
			ofs = (ofs << 1) + 1;
		}
		if (ofs > max)
			ofs = max;
		last += hint + 1;
		ofs += hint;
	}
	while (last < ofs) {
		size_t m = last + ((ofs - last) >> 1);
		if (cmp(s, key, arr[base + m]) < 0)
			ofs = m;
		else
			last = m + 1;
	}
	return ofs;
}

static void merge_low(ts *s, size_t base_a, size_t len_a, size_t base_b, size_t len_b)
{
	size_t *a = s->a, *t = s->tmp;
	memcpy(t, a + base_a, len_a * sizeof *a);
	size_t dest = base_a, ct = 0, cb = base_b;
	a[dest++] = a[cb++];
	if (--len_b == 0)
		goto succeed;
	if (len_a == 1)
		goto copy_b;
	size_t mg = s->min_gallop;
	for (;;) {
		size_t wins_a = 0, wins_b = 0;
		for (;;) {
			if (cmp(s, a[cb], t[ct]) < 0) {
				a[dest++] = a[cb++];
				wins_b++;
				wins_a = 0;
				if (--len_b == 0)
					goto succeed;
				if (wins_b >= mg)
					break;
			} else {
				a[dest++] = t[ct++];
				wins_a++;
				wins_b = 0;
				if (--len_a == 1)
					goto copy_b;
				if (wins_a >= mg)
					break;
			}
		}
		mg++;
		bool first = true;
		while (wins_a >= MIN_GALLOP || wins_b >= MIN_GALLOP || first) {
			first = false;
			mg = mg > 1 ? mg - 1 : 1;
			s->min_gallop = mg;
			wins_a = gallop_right(s, t, a[cb], ct, len_a, 0);
			if (wins_a > 0) {
				memcpy(a + dest, t + ct, wins_a * sizeof *a);
				dest += wins_a;
				ct += wins_a;
				len_a -= wins_a;
				if (len_a == 1)
					goto copy_b;
				if (len_a == 0)
					goto succeed;
			}
			a[dest++] = a[cb++];
			if (--len_b == 0)
				goto succeed;
			wins_b = gallop_left(s, a, t[ct], cb, len_b, 0);
			if (wins_b > 0) {
				memmove(a + dest, a + cb, wins_b * sizeof *a);
				dest += wins_b;
				cb += wins_b;
				len_b -= wins_b;
				if (len_b == 0)
					goto succeed;
			}
			a[dest++] = t[ct++];
			if (--len_a == 1)
				goto copy_b;
		}
		mg++;
		s->min_gallop = mg;
	}
succeed:
	if (len_a > 0)
		memcpy(a + dest, t + ct, len_a * sizeof *a);
	return;
copy_b:
	memmove(a + dest, a + cb, len_b * sizeof *a);
	a[dest + len_b] = t[ct];
}

static void merge_high(ts *s, size_t base_a, size_t len_a, size_t base_b, size_t len_b)
{
	size_t *a = s->a, *t = s->tmp;
	memcpy(t, a + base_b, len_b * sizeof *a);
	/* cursors one past their element, so that they never go below zero */
	size_t dest = base_b + len_b, ct = len_b, ca = base_a + len_a;
	a[--dest] = a[--ca];
	if (--len_a == 0)
		goto succeed;
	if (len_b == 1)
		goto copy_a;
	size_t mg = s->min_gallop;
	for (;;) {
		size_t wins_a = 0, wins_b = 0;
		for (;;) {
			if (cmp(s, t[ct - 1], a[ca - 1]) < 0) {
				a[--dest] = a[--ca];
				wins_a++;
				wins_b = 0;
				if (--len_a == 0)
					goto succeed;
				if (wins_a >= mg)
					break;
			} else {
				a[--dest] = t[--ct];
				wins_b++;
				wins_a = 0;
				if (--len_b == 1)
					goto copy_a;
				if (wins_b >= mg)
					break;
			}
		}
		mg++;
		bool first = true;
		while (wins_a >= MIN_GALLOP || wins_b >= MIN_GALLOP || first) {
			first = false;
			mg = mg > 1 ? mg - 1 : 1;
			s->min_gallop = mg;
			size_t k = gallop_right(s, a, t[ct - 1], base_a, len_a, len_a - 1);
			wins_a = len_a - k;
			if (wins_a > 0) {
				dest -= wins_a;
				ca -= wins_a;
				memmove(a + dest, a + ca, wins_a * sizeof *a);
				len_a -= wins_a;
				if (len_a == 0)
					goto succeed;
			}
			a[--dest] = t[--ct];
			if (--len_b == 1)
				goto copy_a;
			k = gallop_left(s, t, a[ca - 1], 0, len_b, len_b - 1);
			wins_b = len_b - k;
			if (wins_b > 0) {
				dest -= wins_b;
				ct -= wins_b;
				memcpy(a + dest, t + ct, wins_b * sizeof *a);
				len_b -= wins_b;
				if (len_b == 1)
					goto copy_a;
				if (len_b == 0)
					goto succeed;
			}
			a[--dest] = a[--ca];
			if (--len_a == 0)
				goto succeed;
		}
		mg++;
		s->min_gallop = mg;
	}
succeed:
	if (len_b > 0)
		memcpy(a + dest - len_b, t, len_b * sizeof *a);
	return;
copy_a:
	dest -= len_a;
	ca -= len_a;
	memmove(a + dest, a + ca, len_a * sizeof *a);
	a[dest - 1] = t[ct - 1];
}

static void merge_at(ts *s, size_t i)
{
	size_t base_a = s->base[i], len_a = s->len[i];
	size_t base_b = s->base[i + 1], len_b = s->len[i + 1];
	s->len[i] = len_a + len_b;
	if (i + 3 == s->nruns) {
		s->base[i + 1] = s->base[i + 2];
		s->len[i + 1] = s->len[i + 2];
	}
	s->nruns--;
	size_t k = gallop_right(s, s->a, s->a[base_b], base_a, len_a, 0);
	base_a += k;
	len_a -= k;
	if (len_a == 0)
		return;
	len_b = gallop_left(s, s->a, s->a[base_a + len_a - 1], base_b, len_b, len_b - 1);
	if (len_b == 0)
		return;
	if (len_a <= len_b)
		merge_low(s, base_a, len_a, base_b, len_b);
	else
		merge_high(s, base_a, len_a, base_b, len_b);
}

static bool invariant_ok(const ts *s, size_t n)
{
	if (n < 2)
		return true;
	return s->len[n - 2] > s->len[n - 1] + s->len[n];
}

static void merge_collapse(ts *s)
{
	while (s->nruns > 1) {
		size_t n = s->nruns - 2;
		if (!invariant_ok(s, n + 1) || !invariant_ok(s, n)) {
			if (n > 0 && s->len[n - 1] < s->len[n + 1])
				n--;
			merge_at(s, n);
		} else if (s->len[n] <= s->len[n + 1]) {
			merge_at(s, n);
		} else {
			break;
		}
	}
}

static void merge_force_collapse(ts *s)
{
	while (s->nruns > 1) {
		size_t n = s->nruns - 2;
		if (n > 0 && s->len[n - 1] < s->len[n + 1])
			n--;
		merge_at(s, n);
	}
}

int par_stable_sort(size_t *idx, size_t n, par_cmp_fn fn, const void *ctx)
{
	if (n < 2)
		return 0;
	ts s = {.a = idx, .cmp = fn, .ctx = ctx, .min_gallop = MIN_GALLOP};
	size_t minrun = min_run(n);
	if (n > minrun && !(s.tmp = malloc(n * sizeof *s.tmp)))
		return IB_ENOMEM;
	size_t lo = 0, remaining = n;
	while (remaining) {
		size_t run = make_run(&s, lo, lo + remaining);
		if (run < minrun) {
			size_t forced = minrun < remaining ? minrun : remaining;
			binary_insertion(&s, lo, lo + run, lo + forced);
			run = forced;
		}
		s.base[s.nruns] = lo;
		s.len[s.nruns] = run;
		s.nruns++;
		merge_collapse(&s);
		lo += run;
		remaining -= run;
	}
	merge_force_collapse(&s);
	free(s.tmp);
	return 0;
}
