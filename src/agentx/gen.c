/* The stand-in corpus: a deterministic generator of Weka-format traces
 * (infbench agentx make-traces; docs/agentx.md). Every trace is drawn from
 * its own MT19937 stream seeded with (seed, index), so trace i does not
 * depend on how many traces are made. */
#include "agentx/agentx.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define OOM(e) ib_fail((e), IB_ENOMEM, "", 0, 0, "out of memory")

void ax_gen_defaults(ax_gen_opts *o)
{
	*o = (ax_gen_opts){
	    .traces = 393,
	    .seed = 42,
	    .turns = {4, 40},
	    .first_in = {16384, 32768},
	    .context = {16384, 131072},
	    .long_tail = 0.05,
	    .max_context = 262144,
	    .out = {32, 4096},
	    .think = {0.5, 8.0},
	    .subagent_rate = 0.1,
	    .subagents = {1, 3},
	    .subagent_turns = {2, 12},
	    .background_rate = 0.1,
	    .compact_rate = 0.01,
	    .block_size = 64,
	    .system_tokens = 3072,
	    .tool_tokens = 12288,
	    .ttft_s = 0.4,
	    .prefill_s_per_1k = 0.02,
	    .tpot_s = 0.02,
	    .model = "claude-sonnet-4-5",
	    .subagent_model = "claude-haiku-4-5",
	};
}

static int bad_range(ib_error *e, const char *name, ax_range r, int64_t min)
{
	if (r.lo < min || r.hi < r.lo)
		return ib_fail(e, IB_EINVAL, "", 0, 0,
		               "%s: the range %lld:%lld must have %lld <= MIN <= MAX", name,
		               (long long)r.lo, (long long)r.hi, (long long)min);
	return 0;
}

static int bad_rate(ib_error *e, const char *name, double x)
{
	if (!(x >= 0 && x <= 1))
		return ib_fail(e, IB_EINVAL, "", 0, 0, "%s: %g is not a fraction in [0, 1]", name,
		               x);
	return 0;
}

int ax_gen_check(const ax_gen_opts *o, ib_error *e)
{
	int rc;
	if ((rc = bad_range(e, "--turns", o->turns, 1)) ||
	    (rc = bad_range(e, "--first-in", o->first_in, 1)) ||
	    (rc = bad_range(e, "--context", o->context, 1)) ||
	    (rc = bad_range(e, "--out", o->out, 1)) ||
	    (rc = bad_range(e, "--subagents", o->subagents, 1)) ||
	    (rc = bad_range(e, "--subagent-turns", o->subagent_turns, 1)) ||
	    (rc = bad_rate(e, "--long-tail", o->long_tail)) ||
	    (rc = bad_rate(e, "--subagent-rate", o->subagent_rate)) ||
	    (rc = bad_rate(e, "--background-rate", o->background_rate)) ||
	    (rc = bad_rate(e, "--compact-rate", o->compact_rate)))
		return rc;
	if (o->block_size <= 0 || o->block_size > 1 << 20)
		return ib_fail(e, IB_EINVAL, "", 0, 0, "--block-size must be in [1, 1048576]");
	if (!(o->think.lo >= 0 && o->think.hi >= o->think.lo && isfinite(o->think.hi)))
		return ib_fail(e, IB_EINVAL, "", 0, 0, "--think: need 0 <= MIN <= MAX");
	if (o->max_context < o->first_in.hi + o->out.hi || o->max_context < o->context.hi)
		return ib_fail(
		    e, IB_EINVAL, "", 0, 0,
		    "--max-context %lld is below --first-in MAX + --out MAX or --context "
		    "MAX",
		    (long long)o->max_context);
	if (o->system_tokens < 0 || o->tool_tokens < 0 ||
	    o->system_tokens + o->tool_tokens > o->first_in.lo)
		return ib_fail(e, IB_EINVAL, "", 0, 0,
		               "--system-tokens + --tool-tokens must fit in --first-in MIN");
	if (!(o->ttft_s >= 0 && o->prefill_s_per_1k >= 0 && o->tpot_s >= 0))
		return ib_fail(e, IB_EINVAL, "", 0, 0, "timing parameters must be >= 0");
	if (!o->traces)
		return ib_fail(e, IB_EINVAL, "", 0, 0, "--traces must be at least 1");
	return 0;
}

static int64_t uni(ib_mt *m, ax_range r)
{
	return r.lo == r.hi ? r.lo : ib_mt_randint(m, r.lo, r.hi + 1);
}

static double unif(ib_mt *m, double lo, double hi)
{
	return lo + (hi - lo) * ib_mt_double(m);
}

/* log-uniform integer in r */
static int64_t loguni(ib_mt *m, ax_range r)
{
	double x = exp(unif(m, log((double)r.lo), log((double)r.hi + 1)));
	int64_t v = (int64_t)x;
	return v < r.lo ? r.lo : v > r.hi ? r.hi : v;
}

/* seconds rounded to milliseconds, as the published traces carry them */
static double ms(double s)
{
	return round(s * 1000) / 1000;
}

static int64_t blocks(int64_t tokens, int64_t bs)
{
	return (tokens + bs - 1) / bs;
}

typedef struct {
	ib_arena *a;
	const ax_gen_opts *o;
	ib_mt m;
	int64_t next_id; /* the trace's hash-id counter (local scope) */
	int64_t *ctx;    /* the parent's current context, in blocks */
	size_t nctx, cap;
	ax_entry *ent;
	size_t n, ecap;
	ib_error *e;
} gen;

static int ctx_push(gen *g, int64_t nblocks)
{
	if (ib_grow(&g->ctx, &g->cap, g->nctx + (size_t)nblocks))
		return OOM(g->e);
	for (int64_t i = 0; i < nblocks; i++)
		g->ctx[g->nctx++] = g->next_id++;
	return 0;
}

static double api_time(const ax_gen_opts *o, int64_t in, int64_t out)
{
	return ms(o->ttft_s + (double)in / 1000.0 * o->prefill_s_per_1k + (double)out * o->tpot_s);
}

static int request(gen *g, const int64_t *ids, size_t n, double t, const char *model, ax_request *r)
{
	const ax_gen_opts *o = g->o;
	memset(r, 0, sizeof *r);
	int64_t *copy = ib_arena_alloc(g->a, (n + 1) * sizeof *copy);
	if (!copy)
		return OOM(g->e);
	memcpy(copy, ids, n * sizeof *ids);
	r->t = ms(t), r->type = ib_mt_double(&g->m) < 0.25 ? 's' : 'n', r->model = model;
	r->in = (int64_t)n * o->block_size;
	r->out = loguni(&g->m, o->out);
	if (r->in + r->out > o->max_context)
		r->out = o->max_context - r->in;
	if (r->out < 1)
		r->out = 1;
	r->hash_ids = copy, r->nhash = n;
	r->api_time = api_time(o, r->in, r->out);
	r->think_time = ms(unif(&g->m, o->think.lo, o->think.hi));
	return 0;
}

static int add_entry(gen *g, ax_entry **en)
{
	if (ib_grow(&g->ent, &g->ecap, g->n + 1))
		return OOM(g->e);
	*en = &g->ent[g->n++];
	memset(*en, 0, sizeof **en);
	return 0;
}

/* A subagent spawned at t: its own prompt after the parent's system
 * blocks (shared), growing by each turn's output and a small delta.
 * *dur gets its duration (s). */
static int subagent(gen *g, double t, int k, int64_t sys_blocks, double *dur)
{
	const ax_gen_opts *o = g->o;
	ax_entry *en;
	int rc = add_entry(g, &en);
	if (rc)
		return rc;
	ax_subagent *s = &en->s;
	en->is_subagent = true;
	s->t = ms(t);
	s->agent_id = ib_arena_printf(g->a, "agent-%d", k);
	static const char *const kinds[] = {"Explore", "general-purpose", "Plan"};
	s->subagent_type = kinds[ib_mt_randint(&g->m, 0, 3)];
	s->status = "completed";
	s->models = ib_arena_alloc(g->a, sizeof *s->models);
	size_t nreq = (size_t)uni(&g->m, o->subagent_turns);
	s->req = ib_arena_alloc(g->a, nreq * sizeof *s->req);
	int64_t *ids = NULL;
	size_t n = 0, cap = 0;
	if (!s->agent_id || !s->models || !s->req || ib_grow(&ids, &cap, (size_t)sys_blocks + 1)) {
		free(ids);
		return OOM(g->e);
	}
	s->models[0] = o->subagent_model, s->nmodels = 1;
	memcpy(ids, g->ctx, (size_t)sys_blocks * sizeof *ids);
	n = (size_t)sys_blocks;
	double rt = 0;
	int64_t total = 0, prev_out = 0;
	for (size_t i = 0; i < nreq; i++) {
		int64_t add = blocks(prev_out, o->block_size) + 1 + ib_mt_randint(&g->m, 0, 16);
		if ((int64_t)n + add > (o->max_context - o->out.lo) / o->block_size)
			add = 0;
		if (ib_grow(&ids, &cap, n + (size_t)add + 1)) {
			free(ids);
			return OOM(g->e);
		}
		for (int64_t b = 0; b < add; b++)
			ids[n++] = g->next_id++;
		if ((rc = request(g, ids, n, rt, o->subagent_model, &s->req[i]))) {
			free(ids);
			return rc;
		}
		s->req[i].type = 'n';
		prev_out = s->req[i].out;
		total += s->req[i].in + s->req[i].out;
		rt += s->req[i].api_time + (i + 1 < nreq ? s->req[i].think_time : 0);
	}
	free(ids);
	s->nreq = nreq;
	s->duration_ms = (int64_t)llround(rt * 1000);
	s->total_tokens = total;
	*dur = rt;
	return 0;
}

int ax_gen_trace(ib_arena *a, const ax_gen_opts *o, size_t idx, ax_trace *t, ib_error *e)
{
	gen g = {.a = a, .o = o, .e = e};
	uint32_t key[2] = {o->seed, (uint32_t)idx};
	ib_mt_seed_array(&g.m, key, 2);
	memset(t, 0, sizeof *t);
	int rc = 0;
	t->id = ib_arena_printf(a, "trace-%04zu", idx);
	t->models = ib_arena_alloc(a, 2 * sizeof *t->models);
	if (!t->id || !t->models)
		return OOM(e);
	t->models[0] = o->model, t->nmodels = 1;
	if (strcmp(o->subagent_model, o->model))
		t->models[t->nmodels++] = o->subagent_model;
	t->block_size = o->block_size, t->hash_id_scope = "local";
	t->system_tokens = o->system_tokens, t->tool_tokens = o->tool_tokens;
	const int64_t bs = o->block_size;
	g.next_id = ib_mt_randint(&g.m, 1, 1000000);
	/* the shape of this trace */
	int64_t turns = uni(&g.m, o->turns);
	bool tail = ib_mt_double(&g.m) < o->long_tail;
	int64_t target = tail ? uni(&g.m, (ax_range){o->context.hi, o->max_context - o->out.lo})
	                      : uni(&g.m, o->context);
	int64_t first = uni(&g.m, o->first_in);
	int64_t sys_blocks = blocks(o->system_tokens + o->tool_tokens, bs);
	int64_t max_blocks = (o->max_context - o->out.lo) / bs;
	double growth =
	    turns > 1 && target > first ? (double)(target - first) / (double)(turns - 1) : 0;
	if ((rc = ctx_push(&g, blocks(first, bs))))
		goto done;
	double now = 0;
	int64_t prev_out = 0;
	int agents = 0;
	for (int64_t k = 0; k < turns; k++) {
		if (k) {
			/* compaction: the context restarts from the system blocks and a
			 * summary, so the LCP with the previous turn is short */
			if (ib_mt_double(&g.m) < o->compact_rate &&
			    (int64_t)g.nctx > sys_blocks + 1) {
				g.nctx = (size_t)sys_blocks;
				if ((rc = ctx_push(&g, blocks(first / 2, bs))))
					goto done;
			}
			int64_t delta = (int64_t)(growth * unif(&g.m, 0.5, 1.5));
			int64_t add = blocks(prev_out, bs) + blocks(delta, bs);
			if ((int64_t)g.nctx + add > max_blocks)
				break; /* the trace ends where the context would not fit */
			if ((rc = ctx_push(&g, add)))
				goto done;
		}
		ax_entry *en;
		if ((rc = add_entry(&g, &en)) ||
		    (rc = request(&g, g.ctx, g.nctx, now, o->model, &en->r)))
			goto done;
		prev_out = en->r.out;
		now = en->r.t + en->r.api_time + en->r.think_time;
		/* subagents spawned off this turn, joined by the next */
		if (k + 1 < turns && ib_mt_double(&g.m) < o->subagent_rate) {
			int64_t ns = uni(&g.m, o->subagents);
			double longest = 0, d;
			for (int64_t i = 0; i < ns; i++) {
				if ((rc = subagent(&g, now, ++agents, sys_blocks, &d)))
					goto done;
				longest = d > longest ? d : longest;
			}
			now = ms(now + longest + unif(&g.m, o->think.lo, o->think.hi));
		}
	}
	/* background subagents: no parent turn follows them */
	if (ib_mt_double(&g.m) < o->background_rate) {
		int64_t ns = uni(&g.m, o->subagents);
		double d;
		for (int64_t i = 0; i < ns; i++)
			if ((rc = subagent(&g, now, ++agents, sys_blocks, &d)))
				goto done;
	}
	t->entries = ib_arena_alloc(a, g.n * sizeof *t->entries);
	if (!t->entries) {
		rc = OOM(e);
		goto done;
	}
	memcpy(t->entries, g.ent, g.n * sizeof *t->entries);
	t->n = g.n;
done:
	free(g.ctx);
	free(g.ent);
	return rc;
}

int ax_gen_write(const ax_gen_opts *o, const char *path, FILE *f, ib_error *e)
{
	int rc = ax_gen_check(o, e);
	if (rc)
		return rc;
	ib_atomic w = {0};
	if (path) {
		if ((rc = ib_atomic_open(&w, path, e)))
			return rc;
		f = w.f;
	}
	ib_buf b = {0};
	for (size_t i = 0; i < o->traces && !rc; i++) {
		ib_arena *a = ib_arena_new();
		ax_trace t;
		if (!a) {
			rc = OOM(e);
			break;
		}
		b.len = 0;
		if (!(rc = ax_gen_trace(a, o, i, &t, e)) && !(rc = ax_trace_write(&b, &t)) &&
		    (ib_buf_putc(&b, '\n') || fwrite(b.data, 1, b.len, f) != b.len))
			rc = ib_fail(e, IB_EIO, path ? path : "<stdout>", 0, 0, "write failed");
		if (rc == IB_ENOMEM)
			OOM(e);
		ib_arena_free(a);
	}
	ib_buf_free(&b);
	if (path) {
		if (rc)
			ib_atomic_abort(&w);
		else
			rc = ib_atomic_commit(&w, e);
	}
	return rc;
}
