/* The gsm8k data: loading DIR/{train,test}.jsonl and generating a
 * deterministic stand-in set of arithmetic word problems for tests. */
#define _POSIX_C_SOURCE 200809L
#include "eval/eval.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int ev_docs_load(ib_arena *a, const char *path, ev_docs *docs, ib_error *e)
{
	ib_buf b = {0};
	int rc = ib_read_file(path, &b, e);
	if (rc) {
		ib_buf_free(&b);
		return rc;
	}
	size_t cap = 0, n = 0;
	ev_doc *v = NULL;
	const char *p = b.data ? b.data : "", *end = p + b.len;
	int line = 0;
	while (p < end && !rc) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		line++;
		size_t k = 0;
		while (k < len && strchr(" \t\r", p[k]))
			k++;
		if (k < len) {
			ib_val *o;
			ib_error je;
			rc = ib_json_parse(a, path, p, len, &o, &je);
			if (rc) {
				rc = ib_fail(e, rc, path, line, je.col, "not a JSON line: %s",
				             je.msg);
				break;
			}
			const ib_val *q = ib_map_get(o, "question"), *ans = ib_map_get(o, "answer");
			if (!q || q->type != IB_V_STR || !ans || ans->type != IB_V_STR) {
				rc = ib_fail(e, IB_EINVAL, path, line, 0,
				             "a gsm8k line needs string fields \"question\" and "
				             "\"answer\"");
				break;
			}
			if (ib_grow(&v, &cap, n + 1)) {
				rc = ib_fail(e, IB_ENOMEM, path, 0, 0, "out of memory");
				break;
			}
			v[n++] = (ev_doc){q->str.s, ans->str.s, q->str.len, ans->str.len};
		}
		p += len + 1;
	}
	ib_buf_free(&b);
	if (!rc && n == 0)
		rc = ib_fail(e, IB_EINVAL, path, 0, 0, "no questions in the file");
	if (!rc) {
		ev_doc *keep = ib_arena_alloc(a, n * sizeof *keep);
		if (!keep)
			rc = ib_fail(e, IB_ENOMEM, path, 0, 0, "out of memory");
		else
			memcpy(keep, v, n * sizeof *keep);
		docs->v = keep;
		docs->n = n;
	}
	free(v);
	return rc;
}

int ev_dataset_load(const char *dir, ev_dataset *d, ib_error *e)
{
	*d = (ev_dataset){0};
	if (!(d->a = ib_arena_new()))
		return ib_fail(e, IB_ENOMEM, dir, 0, 0, "out of memory");
	char path[4096];
	snprintf(path, sizeof path, "%s/train.jsonl", dir);
	int rc = ev_docs_load(d->a, path, &d->train, e);
	if (!rc) {
		snprintf(path, sizeof path, "%s/test.jsonl", dir);
		rc = ev_docs_load(d->a, path, &d->test, e);
	}
	return rc;
}

void ev_dataset_free(ev_dataset *d)
{
	ib_arena_free(d->a);
	*d = (ev_dataset){0};
}

bool ev_answer_number(const char *answer, size_t n, size_t *off, size_t *len)
{
	size_t at = n + 1;
	for (size_t i = 0; i + 5 <= n; i++)
		if (!memcmp(answer + i, "#### ", 5))
			at = i + 5;
	if (at > n)
		return false;
	size_t s = at, t = at;
	while (t < n && answer[t] != '\n')
		t++;
	while (s < t && strchr(" \t\r", answer[s]))
		s++;
	while (t > s && strchr(" \t\r", answer[t - 1]))
		t--;
	if (t == s)
		return false;
	*off = s;
	*len = t - s;
	return true;
}

/* ---- the generator ---- */

static uint64_t next(uint64_t *s) /* splitmix64 */
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static long pick(uint64_t *s, long lo, long hi) /* [lo, hi] */
{
	return lo + (long)(next(s) % (uint64_t)(hi - lo + 1));
}

static const char *const names[] = {"Ava",   "Ben",  "Chloe", "Diego", "Emma",  "Farid",
                                    "Grace", "Hiro", "Iris",  "Jamal", "Kofi",  "Lena",
                                    "Mateo", "Nora", "Omar",  "Priya", "Quinn", "Rosa"};
static const char *const items[] = {"apples",  "marbles", "stickers", "books", "pencils",
                                    "cookies", "stamps",  "shells",   "cards", "balloons"};
#define PICK(s, arr) arr[next(s) % (sizeof arr / sizeof arr[0])]

/* One problem: question and worked answer appended to q and ans. */
static void problem(uint64_t *s, size_t idx, ib_buf *q, ib_buf *ans)
{
	const char *who = PICK(s, names), *what = PICK(s, items);
	long a, b, c, p, r;
	switch (next(s) % 4) {
	case 0:
		a = pick(s, 5, 90), b = pick(s, 2, 60), c = pick(s, 1, a + b - 1);
		p = a + b, r = p - c;
		ib_buf_printf(q,
		              "%s has %ld %s. %s gets %ld more %s and then gives %ld away "
		              "(puzzle %zu). How many %s does %s have now?",
		              who, a, what, who, b, what, c, idx + 1, what, who);
		ib_buf_printf(ans,
		              "After getting more, %s has %ld + %ld = <<%ld+%ld=%ld>>%ld %s.\n"
		              "After giving some away, %ld - %ld = <<%ld-%ld=%ld>>%ld %s are "
		              "left.\n#### %ld",
		              who, a, b, a, b, p, p, what, p, c, p, c, r, r, what, r);
		break;
	case 1:
		a = pick(s, 3, 40), b = pick(s, 2, 30), p = a * b;
		ib_buf_printf(q,
		              "A box holds %ld %s. %s fills %ld boxes for puzzle %zu. How many "
		              "%s is that in total?",
		              a, what, who, b, idx + 1, what);
		ib_buf_printf(ans, "%s has %ld * %ld = <<%ld*%ld=%ld>>%ld %s.\n#### %ld", who, b, a,
		              b, a, p, p, what, p);
		break;
	case 2:
		a = pick(s, 2, 12), b = pick(s, 2, 25), p = a * b, c = p + pick(s, 1, 80);
		ib_buf_printf(q,
		              "%s buys %ld %s at $%ld each for puzzle %zu and pays with $%ld. "
		              "How many dollars of change does %s get?",
		              who, a, what, b, idx + 1, c, who);
		ib_buf_printf(ans,
		              "The %s cost %ld * %ld = <<%ld*%ld=%ld>>%ld dollars.\nThe change "
		              "is %ld - %ld = <<%ld-%ld=%ld>>%ld dollars.\n#### %ld",
		              what, a, b, a, b, p, p, c, p, c, p, c - p, c - p, c - p);
		break;
	default:
		a = pick(s, 2, 50), b = pick(s, 2, 12), p = a * b;
		ib_buf_printf(q,
		              "%s shares %ld %s equally among %ld friends in puzzle %zu. How "
		              "many %s does each friend get?",
		              who, p, what, b, idx + 1, what);
		ib_buf_printf(ans, "Each friend gets %ld / %ld = <<%ld/%ld=%ld>>%ld %s.\n#### %ld",
		              p, b, p, b, a, a, what, a);
		break;
	}
}

static int write_split(const char *path, size_t n, uint64_t *s, size_t base, ib_error *e)
{
	ib_buf out = {0}, q = {0}, ans = {0};
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		q.len = ans.len = 0;
		problem(s, base + i, &q, &ans);
		rc = ib_buf_error(&q) ? ib_buf_error(&q) : ib_buf_error(&ans);
		rc = rc ? rc : ib_buf_puts(&out, "{\"question\": ");
		rc = rc ? rc : ib_json_write_str(&out, q.data, q.len, true);
		rc = rc ? rc : ib_buf_puts(&out, ", \"answer\": ");
		rc = rc ? rc : ib_json_write_str(&out, ans.data, ans.len, true);
		rc = rc ? rc : ib_buf_puts(&out, "}\n");
	}
	if (rc && !ib_buf_error(&out))
		rc = ib_fail(e, rc, path, 0, 0, "out of memory");
	else
		rc = ib_buf_write_file(path, &out, e);
	ib_buf_free(&out);
	ib_buf_free(&q);
	ib_buf_free(&ans);
	return rc;
}

int ev_dataset_generate(const char *dir, size_t ntrain, size_t ntest, uint64_t seed, ib_error *e)
{
	if (ntrain < 5 || ntest < 1)
		return ib_fail(e, IB_EINVAL, dir, 0, 0,
		               "need at least 5 train questions (5-shot) and 1 test question");
	int rc = ib_mkdirs(dir, 0777, e);
	char path[4096];
	uint64_t s = seed;
	if (!rc) {
		snprintf(path, sizeof path, "%s/train.jsonl", dir);
		rc = write_split(path, ntrain, &s, 0, e);
	}
	if (!rc) {
		snprintf(path, sizeof path, "%s/test.jsonl", dir);
		rc = write_split(path, ntest, &s, ntrain, e);
	}
	return rc;
}
