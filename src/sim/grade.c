#define _GNU_SOURCE /* memmem */
/* Grading evals: the simulator answers gsm8k questions from a dataset with
 * worked answers that are right with a chosen probability, deterministically
 * per (seed, question) (docs/sim.md "Grading evals"). */
#include "sim/private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct sim_grader {
	ib_arena *a;
	ev_docs docs;
	uint32_t *slot; /* doc index + 1, 0 empty; open addressing */
	size_t mask;
	size_t n;
	double accuracy;
	uint64_t seed;
};

/* ---- the verdict ---- */

static uint64_t mix(uint64_t z) /* splitmix64's finaliser */
{
	z += 0x9E3779B97F4A7C15ULL;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static uint64_t text_hash(const char *s, size_t n)
{
	return ib_fnv1a(IB_FNV1A_BASIS, s, n);
}

static double unit(uint64_t h)
{
	return (double)(h >> 11) * 0x1p-53;
}

static uint64_t question_key(uint64_t seed, const char *q, size_t n)
{
	return mix(text_hash(q, n) ^ mix(seed));
}

double sim_eval_draw(uint64_t seed, const char *q, size_t n)
{
	return unit(question_key(seed, q, n));
}

sim_eval_verdict sim_eval_judge(uint64_t seed, double accuracy, const char *q, size_t n)
{
	uint64_t h0 = question_key(seed, q, n), h1 = mix(h0), h2 = mix(h1);
	sim_eval_verdict v = {SIM_EVAL_RIGHT, 0};
	double w = unit(h1);
	if (unit(h0) < accuracy) {
		/* right: a tenth of them only in reasoning_content (docs/sim.md) */
		if (w < 0.1)
			v.kind = SIM_EVAL_REASONING_RIGHT;
	} else {
		/* the mixture of failures, documented in docs/sim.md */
		v.kind = w < 0.5   ? SIM_EVAL_WRONG_NUMBER
		         : w < 0.7 ? SIM_EVAL_REASONING_WRONG
		                   : SIM_EVAL_NO_MARKER;
	}
	v.delta = (int)(1 + (h2 >> 1) % 9);
	if (h2 & 1)
		v.delta = -v.delta;
	return v;
}

bool sim_eval_in_reasoning(sim_eval_kind k)
{
	return k == SIM_EVAL_REASONING_RIGHT || k == SIM_EVAL_REASONING_WRONG;
}

/* ---- the answer text ---- */

/* The wrong number: the right one (commas dropped) plus delta when it is an
 * integer, else the right one with a digit appended. */
static int wrong_number(const char *num, size_t n, int delta, ib_buf *out)
{
	char digits[64];
	size_t k = 0;
	bool integer = n > 0 && n < sizeof digits;
	for (size_t i = 0; integer && i < n; i++) {
		char c = num[i];
		if (c == ',')
			continue;
		if (!((c >= '0' && c <= '9') || (c == '-' && k == 0)))
			integer = false;
		digits[k++] = c;
	}
	if (integer && k > 0 && k < 19 && !(k == 1 && digits[0] == '-')) {
		digits[k] = '\0';
		long long v = strtoll(digits, NULL, 10);
		return ib_buf_printf(out, "%lld", v + delta);
	}
	int rc = ib_buf_append(out, num, n);
	return rc ? rc : ib_buf_putc(out, '1');
}

int sim_eval_answer(const ev_doc *d, const sim_eval_verdict *v, ib_buf *out)
{
	size_t off, len;
	if (!ev_answer_number(d->answer, d->alen, &off, &len))
		return IB_EINVAL;
	/* the worked lines: everything before the last "#### ", without the
	 * <<...>> annotations and trailing blanks */
	size_t body = off;
	while (body >= 5 && memcmp(d->answer + body - 5, "#### ", 5))
		body--;
	body = body >= 5 ? body - 5 : 0;
	size_t start = out->len;
	int rc = 0;
	for (size_t i = 0; i < body && !rc;) {
		const char *close;
		if (d->answer[i] == '<' && i + 1 < body && d->answer[i + 1] == '<' &&
		    (close = memmem(d->answer + i + 2, body - i - 2, ">>", 2))) {
			i = (size_t)(close - d->answer) + 2;
			continue;
		}
		rc = ib_buf_putc(out, d->answer[i++]);
	}
	while (!rc && out->len > start && strchr(" \t\r\n", out->data[out->len - 1]))
		out->data[--out->len] = '\0';
	if (!rc && out->len > start)
		rc = ib_buf_putc(out, '\n');
	const char *num = d->answer + off;
	switch (v->kind) {
	case SIM_EVAL_RIGHT:
	case SIM_EVAL_REASONING_RIGHT:
		rc = rc ? rc : ib_buf_puts(out, "#### ");
		rc = rc ? rc : ib_buf_append(out, num, len);
		break;
	case SIM_EVAL_WRONG_NUMBER:
	case SIM_EVAL_REASONING_WRONG:
		rc = rc ? rc : ib_buf_puts(out, "#### ");
		rc = rc ? rc : wrong_number(num, len, v->delta, out);
		break;
	case SIM_EVAL_NO_MARKER:
		rc = rc ? rc : ib_buf_puts(out, "The answer is ");
		rc = rc ? rc : ib_buf_append(out, num, len);
		rc = rc ? rc : ib_buf_putc(out, '.');
		break;
	}
	return rc ? IB_ENOMEM : 0;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void trim(const char *s, size_t *off, size_t *len)
{
	while (*len && blank(s[*off])) {
		(*off)++;
		(*len)--;
	}
	while (*len && blank(s[*off + *len - 1]))
		(*len)--;
}

bool sim_eval_question(const char *s, size_t n, size_t *off, size_t *len)
{
	static const char head[] = "Question: ";
	const char *q = memmem(s, n, head, sizeof head - 1);
	size_t a = 0, b = n;
	if (q) {
		a = (size_t)(q - s) + sizeof head - 1;
		const char *end = memmem(s + a, n - a, "\nEnd your response", 18);
		if (!end)
			end = memmem(s + a, n - a, "\nAnswer:", 8);
		if (end)
			b = (size_t)(end - s);
	}
	*off = a;
	*len = b - a;
	trim(s, off, len);
	return *len > 0;
}

/* ---- the table ---- */

static size_t slot_of(const sim_grader *g, const char *q, size_t n)
{
	size_t i = (size_t)mix(text_hash(q, n)) & g->mask;
	for (;;) {
		uint32_t v = g->slot[i];
		if (!v)
			return i;
		const ev_doc *d = &g->docs.v[v - 1];
		size_t o = 0, l = d->qlen;
		trim(d->question, &o, &l);
		if (l == n && !memcmp(d->question + o, q, n))
			return i;
		i = (i + 1) & g->mask;
	}
}

int sim_grader_load(const char *dir, double accuracy, uint64_t seed, sim_grader **out, ib_error *e)
{
	*out = NULL;
	if (!(accuracy >= 0 && accuracy <= 1))
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "the accuracy must be in [0, 1]");
	struct stat st;
	if (stat(dir, &st) != 0)
		return ib_fail(e, IB_ENOENT, dir, 0, 0, "cannot read the dataset folder: %s",
		               strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return ib_fail(e, IB_EINVAL, dir, 0, 0,
		               "the dataset must be a folder holding test.jsonl");
	sim_grader *g = calloc(1, sizeof *g);
	if (!g || !(g->a = ib_arena_new())) {
		free(g);
		return ib_fail(e, IB_ENOMEM, dir, 0, 0, "out of memory");
	}
	g->accuracy = accuracy;
	g->seed = seed;
	char *path = ib_arena_printf(g->a, "%s/test.jsonl", dir);
	int rc = path ? ev_docs_load(g->a, path, &g->docs, e) : IB_ENOMEM;
	if (rc == IB_ENOMEM && !path)
		ib_fail(e, rc, dir, 0, 0, "out of memory");
	if (!rc && g->docs.n > UINT32_MAX / 4)
		rc = ib_fail(e, IB_EINVAL, path, 0, 0, "too many questions");
	size_t cap = 16;
	while (!rc && cap < 2 * g->docs.n)
		cap *= 2;
	if (!rc && !(g->slot = calloc(cap, sizeof *g->slot)))
		rc = ib_fail(e, IB_ENOMEM, path, 0, 0, "out of memory");
	g->mask = cap - 1;
	for (size_t i = 0; !rc && i < g->docs.n; i++) {
		const ev_doc *d = &g->docs.v[i];
		size_t o = 0, l = d->qlen, no, nl;
		trim(d->question, &o, &l);
		if (!l || !ev_answer_number(d->answer, d->alen, &no, &nl))
			continue; /* not gradable */
		size_t at = slot_of(g, d->question + o, l);
		if (!g->slot[at]) { /* a repeated question keeps its first answer */
			g->slot[at] = (uint32_t)(i + 1);
			g->n++;
		}
	}
	if (!rc && !g->n)
		rc = ib_fail(e, IB_EINVAL, path, 0, 0, "no question with a \"#### N\" answer");
	if (rc) {
		sim_grader_free(g);
		return rc;
	}
	*out = g;
	return 0;
}

void sim_grader_free(sim_grader *g)
{
	if (!g)
		return;
	free(g->slot);
	ib_arena_free(g->a);
	free(g);
}

size_t sim_grader_count(const sim_grader *g)
{
	return g->n;
}

double sim_grader_accuracy(const sim_grader *g)
{
	return g->accuracy;
}

uint64_t sim_grader_seed(const sim_grader *g)
{
	return g->seed;
}

const ev_doc *sim_grader_find(const sim_grader *g, const char *q, size_t n)
{
	uint32_t v = g->slot[slot_of(g, q, n)];
	return v ? &g->docs.v[v - 1] : NULL;
}

/* ---- a request's answer ---- */

/* The last user turn's text: a string content, or its text parts joined. */
static bool last_user_turn(const ib_val *msgs, ib_buf *tmp, const char **s, size_t *n)
{
	if (!msgs || msgs->type != IB_V_LIST)
		return false;
	for (size_t i = msgs->list.n; i-- > 0;) {
		const ib_val *m = msgs->list.v[i], *role = ib_map_get(m, "role");
		if (!role || role->type != IB_V_STR || strcmp(role->str.s, "user"))
			continue;
		const ib_val *c = ib_map_get(m, "content");
		if (c && c->type == IB_V_STR) {
			*s = c->str.s;
			*n = c->str.len;
			return true;
		}
		if (c && c->type == IB_V_LIST) {
			for (size_t j = 0; j < c->list.n; j++) {
				const ib_val *t = ib_map_get(c->list.v[j], "text");
				if (t && t->type == IB_V_STR &&
				    ib_buf_append(tmp, t->str.s, t->str.len))
					return false;
			}
			*s = tmp->data ? tmp->data : "";
			*n = tmp->len;
			return true;
		}
		return false;
	}
	return false;
}

/* Where the text is cut by the request's `stop` (a string or a list of
 * strings): the earliest occurrence of any; n when none occurs. */
static size_t stop_at(const ib_val *stop, const char *text, size_t n)
{
	size_t cut = n;
	const ib_val *one = stop;
	size_t count = stop && stop->type == IB_V_LIST ? stop->list.n : 1;
	for (size_t i = 0; stop && i < count; i++) {
		if (stop->type == IB_V_LIST)
			one = stop->list.v[i];
		if (one->type != IB_V_STR || one->str.len == 0)
			continue;
		const char *at = memmem(text, n, one->str.s, one->str.len);
		if (at && (size_t)(at - text) < cut)
			cut = (size_t)(at - text);
	}
	return cut;
}

/* Appends s[0..n) JSON-escaped, without the quotes. */
static int put_escaped(ib_buf *b, const char *s, size_t n)
{
	size_t at = b->len;
	if (ib_json_write_str(b, s, n, false))
		return IB_ENOMEM;
	memmove(b->data + at, b->data + at + 1, b->len - at - 2);
	b->len -= 2;
	b->data[b->len] = '\0';
	return 0;
}

int sim_eval_plan(const sim_grader *g, const ib_val *req, seq *q)
{
	ib_buf tmp = {0}, raw = {0};
	const char *turn;
	size_t tn, off, len;
	int rc = 0;
	if (!last_user_turn(ib_map_get(req, "messages"), &tmp, &turn, &tn) ||
	    !sim_eval_question(turn, tn, &off, &len))
		goto done;
	const ev_doc *d = sim_grader_find(g, turn + off, len);
	if (!d)
		goto done;
	sim_eval_verdict v = sim_eval_judge(g->seed, g->accuracy, turn + off, len);
	if ((rc = sim_eval_answer(d, &v, &raw)))
		goto done;
	size_t n = stop_at(ib_map_get(req, "stop"), raw.data, raw.len);
	q->ans_cut = n < raw.len;
	/* tokens: a run of blanks and the word after it (trailing blanks join
	 * the last word), as the simulator counts a word a token */
	size_t ntok = 0;
	for (size_t i = 0; i < n;) {
		while (i < n && blank(raw.data[i]))
			i++;
		if (i == n && ntok)
			break; /* trailing blanks join the last word */
		while (i < n && !blank(raw.data[i]))
			i++;
		ntok++;
	}
	if (ntok == 0)
		ntok = 1; /* an empty answer is still one (empty) token */
	if (ntok > 100000000 || !(q->ans_end = malloc(ntok * sizeof *q->ans_end))) {
		rc = IB_ENOMEM;
		goto done;
	}
	if (ib_buf_reserve(&q->ans, n + n / 8 + 16)) {
		rc = IB_ENOMEM;
		goto done;
	}
	size_t k = 0;
	for (size_t i = 0; i < n && !rc;) {
		size_t j = i;
		while (j < n && blank(raw.data[j]))
			j++;
		while (j < n && !blank(raw.data[j]))
			j++;
		if (k + 1 == ntok)
			j = n;
		rc = put_escaped(&q->ans, raw.data + i, j - i);
		q->ans_end[k++] = (int)q->ans.len;
		i = j;
	}
	if (k == 0)
		q->ans_end[k++] = 0;
	q->ans_ntok = (int)ntok;
	q->ans_reasoning = sim_eval_in_reasoning(v.kind);
	rc = rc ? rc : 1;
done:
	if (rc < 0) {
		free(q->ans_end);
		q->ans_end = NULL;
		ib_buf_free(&q->ans);
	}
	ib_buf_free(&tmp);
	ib_buf_free(&raw);
	return rc;
}
