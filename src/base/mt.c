/* numpy's legacy RandomState, bit for bit: MT19937 with init_genrand /
 * init_by_array seeding, masked-rejection randint, and the legacy double,
 * exponential, Gaussian (polar, cached) and gamma samplers (spec/bench.md
 * Appendix A). */
#include "base/base.h"

#include <math.h>

enum { N = 624, M = 397 };

void ib_mt_seed(ib_mt *m, uint32_t s)
{
	m->mt[0] = s;
	for (int i = 1; i < N; i++)
		m->mt[i] = 1812433253u * (m->mt[i - 1] ^ (m->mt[i - 1] >> 30)) + (uint32_t)i;
	m->pos = N;
	m->has_gauss = false;
	m->gauss = 0;
}

void ib_mt_seed_array(ib_mt *m, const uint32_t *key, size_t n)
{
	ib_mt_seed(m, 19650218u);
	uint32_t *mt = m->mt;
	size_t i = 1, j = 0;
	for (size_t k = N > n ? N : n; k; k--) {
		mt[i] =
		    (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525u)) + key[j] + (uint32_t)j;
		i++;
		j++;
		if (i >= N) {
			mt[0] = mt[N - 1];
			i = 1;
		}
		if (j >= n)
			j = 0;
	}
	for (size_t k = N - 1; k; k--) {
		mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941u)) - (uint32_t)i;
		i++;
		if (i >= N) {
			mt[0] = mt[N - 1];
			i = 1;
		}
	}
	mt[0] = 0x80000000u;
	m->pos = N;
	m->has_gauss = false;
	m->gauss = 0;
}

static void twist(ib_mt *m)
{
	uint32_t *mt = m->mt;
	for (int i = 0; i < N; i++) {
		uint32_t y = (mt[i] & 0x80000000u) | (mt[(i + 1) % N] & 0x7fffffffu);
		mt[i] = mt[(i + M) % N] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
	}
	m->pos = 0;
}

uint32_t ib_mt_next(ib_mt *m)
{
	if (m->pos >= N)
		twist(m);
	uint32_t y = m->mt[m->pos++];
	y ^= y >> 11;
	y ^= (y << 7) & 0x9d2c5680u;
	y ^= (y << 15) & 0xefc60000u;
	y ^= y >> 18;
	return y;
}

int64_t ib_mt_randint(ib_mt *m, int64_t low, int64_t high)
{
	uint64_t r = (uint64_t)(high - 1 - low);
	if (r == 0)
		return low;
	if (r == 0xffffffffu)
		return low + (int64_t)ib_mt_next(m);
	if (r < 0xffffffffu) {
		uint32_t mask = (uint32_t)r;
		mask |= mask >> 1;
		mask |= mask >> 2;
		mask |= mask >> 4;
		mask |= mask >> 8;
		mask |= mask >> 16;
		uint32_t v;
		while ((v = ib_mt_next(m) & mask) > r)
			;
		return low + (int64_t)v;
	}
	/* wide ranges: 64-bit draws from two outputs, high word first */
	uint64_t mask = r;
	mask |= mask >> 1;
	mask |= mask >> 2;
	mask |= mask >> 4;
	mask |= mask >> 8;
	mask |= mask >> 16;
	mask |= mask >> 32;
	uint64_t v;
	do {
		uint64_t hi = ib_mt_next(m);
		v = ((hi << 32) | ib_mt_next(m)) & mask;
	} while (v > r);
	return low + (int64_t)v;
}

double ib_mt_double(ib_mt *m)
{
	uint32_t a = ib_mt_next(m) >> 5, b = ib_mt_next(m) >> 6;
	return (a * 67108864.0 + b) / 9007199254740992.0;
}

double ib_mt_exponential(ib_mt *m)
{
	return -log(1.0 - ib_mt_double(m));
}

double ib_mt_gauss(ib_mt *m)
{
	if (m->has_gauss) {
		m->has_gauss = false;
		double g = m->gauss;
		m->gauss = 0;
		return g;
	}
	double x1, x2, r2;
	do {
		x1 = 2.0 * ib_mt_double(m) - 1.0;
		x2 = 2.0 * ib_mt_double(m) - 1.0;
		r2 = x1 * x1 + x2 * x2;
	} while (r2 >= 1.0 || r2 == 0.0);
	double f = sqrt(-2.0 * log(r2) / r2);
	m->gauss = f * x1;
	m->has_gauss = true;
	return f * x2;
}

double ib_mt_standard_gamma(ib_mt *m, double shape)
{
	if (shape == 1.0)
		return ib_mt_exponential(m);
	if (shape == 0.0)
		return 0.0;
	if (shape < 1.0) {
		for (;;) {
			double u = ib_mt_double(m), v = ib_mt_exponential(m);
			if (u <= 1.0 - shape) {
				double x = pow(u, 1.0 / shape);
				if (x <= v)
					return x;
			} else {
				double y = -log((1 - u) / shape);
				double x = pow(1.0 - shape + shape * y, 1.0 / shape);
				if (x <= v + y)
					return x;
			}
		}
	}
	double b = shape - 1.0 / 3.0, c = 1.0 / sqrt(9 * b);
	for (;;) {
		double x, v;
		do {
			x = ib_mt_gauss(m);
			v = 1.0 + c * x;
		} while (v <= 0.0);
		v = v * v * v;
		double u = ib_mt_double(m);
		if (u < 1.0 - 0.0331 * (x * x) * (x * x))
			return b * v;
		if (log(u) < 0.5 * x * x + b * (1.0 - v + log(v)))
			return b * v;
	}
}

double ib_mt_gamma(ib_mt *m, double shape, double scale)
{
	return scale * ib_mt_standard_gamma(m, shape);
}

void ib_mt_py_seed(ib_mt *m, int64_t s)
{
	uint64_t a = s < 0 ? (uint64_t)0 - (uint64_t)s : (uint64_t)s;
	uint32_t key[2] = {(uint32_t)a, (uint32_t)(a >> 32)};
	ib_mt_seed_array(m, key, key[1] ? 2 : 1);
}

/* getrandbits(k), 1 <= k <= 64: whole words low first, the last one's
 * top bits */
static uint64_t py_getrandbits(ib_mt *m, int k)
{
	if (k <= 32)
		return ib_mt_next(m) >> (32 - k);
	uint64_t lo = ib_mt_next(m);
	uint64_t hi = ib_mt_next(m) >> (64 - k);
	return lo | hi << 32;
}

uint64_t ib_mt_py_randbelow(ib_mt *m, uint64_t n)
{
	int k = 64 - __builtin_clzll(n); /* n.bit_length() */
	uint64_t r = py_getrandbits(m, k);
	while (r >= n)
		r = py_getrandbits(m, k);
	return r;
}
