/* In-process runs of the engine model (docs/sim.md "Validation"): the same
 * scheduler and step model the server uses, driven by a virtual clock
 * instead of timers and sockets, under InferenceX's client load (a closed
 * loop at a concurrency, input and output lengths drawn from [ratio x len,
 * len], ignore_eos). Nothing waits: a run of thousands of requests takes
 * milliseconds. */
#include "sim/private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	int64_t at; /* when its KV has arrived (disaggregated prefill) */
	int idx;
} pending;

typedef struct {
	const sim_load *ld;
	/* disaggregated prefill: each worker's next free moment, and requests
	 * prefilled elsewhere waiting to enter the decode engine, by time */
	sim_config pcfg;
	int64_t *pfree;
	pending *pend;
	int npend;
	seq *seqs;
	int n, next, done;
	int64_t *first_ns, *last_ns;
	int64_t out_tokens, in_tokens;
	int64_t end_ns;
} load_run;

/* Disaggregated prefill: the request goes to the first free prefill worker;
 * its first token comes when the prefill ends, and it enters the decode
 * engine when its KV has crossed the link. */
static void prefill_elsewhere(sim_server *s, load_run *r, seq *q, int64_t now)
{
	const sim_config *pc = &r->pcfg;
	int w = 0;
	for (int i = 1; i < s->cfg.prefill_workers; i++)
		if (r->pfree[i] < r->pfree[w])
			w = i;
	int64_t start = r->pfree[w] > now ? r->pfree[w] : now;
	sim_step st = {.prefill_tokens = q->prompt_tokens,
	               .prefill_ctx_sum = (double)q->prompt_tokens * q->prompt_tokens / 2.0};
	int64_t done = start + (int64_t)(sim_step_time(pc, &st) * 1e9);
	r->pfree[w] = done;
	int64_t xfer = (int64_t)(sim_kv_transfer_s(&s->cfg, q->prompt_tokens) * 1e9);
	r->first_ns[q->id] = done;
	q->generated = 1;
	q->prefilled = q->prompt_tokens;
	pending p = {done + xfer, (int)q->id};
	int i = r->npend++;
	while (i > 0 && r->pend[i - 1].at > p.at) {
		r->pend[i] = r->pend[i - 1];
		i--;
	}
	r->pend[i] = p;
}

/* A new request at `now`: to the engine, or to a prefill worker. */
static void arrive(sim_server *s, load_run *r, seq *q, int64_t now)
{
	q->arrival_ns = now;
	if (s->cfg.prefill_workers > 0)
		prefill_elsewhere(s, r, q, now);
	else
		sim_engine_submit(s, q);
}

static void vemit(sim_server *s, seq *q, int n, bool last)
{
	load_run *r = s->vctx;
	int i = (int)q->id;
	if (q->generated == 0)
		r->first_ns[i] = s->step_at;
	q->generated += n;
	r->last_ns[i] = s->step_at;
	if (!last)
		return;
	r->done++;
	r->out_tokens += q->generated;
	r->in_tokens += q->prompt_tokens;
	if (s->step_at > r->end_ns)
		r->end_ns = s->step_at;
	if (r->next < r->n) /* closed loop: the next request takes the slot at once */
		arrive(s, r, &r->seqs[r->next++], s->step_at);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double sim_median(double *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A length drawn uniformly from [floor(ratio * len), len]. */
static int draw_len(sim_rng *g, int len, double ratio)
{
	int lo = (int)floor(ratio * len);
	if (lo < 1)
		lo = 1;
	if (lo > len)
		lo = len;
	return lo + (int)(sim_rng_uniform(g) * (len - lo + 1));
}

int sim_run_load(const sim_config *c, const sim_load *ld, sim_load_result *out, ib_error *e)
{
	memset(out, 0, sizeof *out);
	if (ld->concurrency < 1 || ld->num_prompts < 1 || ld->isl < 1 || ld->osl < 1)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0,
		               "a load needs a concurrency, prompts and lengths");
	sim_server *s = calloc(1, sizeof *s);
	load_run r = {.ld = ld, .n = ld->num_prompts};
	r.seqs = calloc((size_t)r.n, sizeof *r.seqs);
	r.first_ns = calloc((size_t)r.n, sizeof *r.first_ns);
	r.last_ns = calloc((size_t)r.n, sizeof *r.last_ns);
	double *tpot = calloc((size_t)r.n, sizeof *tpot), *ttft = calloc((size_t)r.n, sizeof *ttft);
	int pw = c->prefill_workers > 0 ? c->prefill_workers : 0;
	r.pfree = calloc((size_t)pw + 1, sizeof *r.pfree);
	r.pend = calloc((size_t)r.n, sizeof *r.pend);
	sim_prefill_config(c, &r.pcfg);
	int rc = 0;
	if (!s || !r.seqs || !r.first_ns || !r.last_ns || !tpot || !ttft || !r.pfree || !r.pend) {
		rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
		goto out;
	}
	s->cfg = *c;
	s->cfg.time_scale = 1;
	s->cfg.max_speed = false;
	s->cfg.pace = 0;
	s->virt = true;
	s->vemit = vemit;
	s->vctx = &r;
	if ((rc = sim_capacity_of(&s->cfg, &s->cap, e)))
		goto out;
	sim_engine_start(s);
	sim_rng g;
	sim_rng_seed(&g, ld->seed);
	for (int i = 0; i < r.n; i++) {
		seq *q = &r.seqs[i];
		q->id = (uint64_t)i;
		q->prompt_tokens = draw_len(&g, ld->isl, ld->range_ratio);
		q->target = q->max_tokens = draw_len(&g, ld->osl, ld->range_ratio);
		q->drop_at = q->stall_at = q->malformed_at = -1;
		sim_rng_seed(&q->rng, ld->seed * 1000003u + (uint64_t)i + 1);
		q->srv = s;
		if ((int64_t)q->prompt_tokens + q->target > s->cap.kv_blocks * s->cfg.block_size) {
			rc = ib_fail(
			    e, IB_EINVAL, NULL, 0, 0,
			    "a request of %d + %d tokens does not fit the KV cache (%lld tokens)",
			    q->prompt_tokens, q->target,
			    (long long)(s->cap.kv_blocks * s->cfg.block_size));
			goto out;
		}
	}
	int first = ld->concurrency < r.n ? ld->concurrency : r.n;
	for (; r.next < first; r.next++)
		arrive(s, &r, &r.seqs[r.next], 0);
	sim_engine_schedule(s);
	for (;;) {
		/* prefilled requests whose KV has arrived enter before the next step ends */
		if (r.npend > 0 && (!s->step_armed || r.pend[0].at <= s->vdue)) {
			if (r.pend[0].at > s->vnow)
				s->vnow = r.pend[0].at;
			sim_engine_submit(s, &r.seqs[r.pend[0].idx]);
			memmove(r.pend, r.pend + 1, (size_t)--r.npend * sizeof *r.pend);
			if (!s->step_armed)
				sim_engine_schedule(s);
			continue;
		}
		if (!s->step_armed)
			break;
		if (s->vdue > s->vnow)
			s->vnow = s->vdue;
		sim_engine_step_done(s);
		out->steps++;
	}
	if (r.done < r.n) {
		rc = ib_fail(e, IB_EINVAL, NULL, 0, 0,
		             "the engine stopped with %d of %d requests done", r.done, r.n);
		goto out;
	}
	int k = 0;
	for (int i = 0; i < r.n; i++) {
		const seq *q = &r.seqs[i];
		ttft[i] = (double)(r.first_ns[i] - q->arrival_ns) * 1e-9;
		if (q->generated > 1)
			tpot[k++] =
			    (double)(r.last_ns[i] - r.first_ns[i]) * 1e-9 / (q->generated - 1);
	}
	double sum = 0;
	for (int i = 0; i < k; i++)
		sum += tpot[i];
	out->completed = r.done;
	out->duration = (double)r.end_ns * 1e-9;
	out->mean_tpot = k ? sum / k : 0;
	out->median_tpot = sim_median(tpot, (size_t)(k > 0 ? k : 0));
	out->median_ttft = sim_median(ttft, (size_t)(r.n > 0 ? r.n : 0));
	out->total_tok_s =
	    out->duration > 0 ? (double)(r.in_tokens + r.out_tokens) / out->duration : 0;
	out->output_tok_s = out->duration > 0 ? (double)r.out_tokens / out->duration : 0;
	out->preemptions = (int64_t)s->m.preemptions;
out:
	if (s)
		sim_pc_free(&s->pc);
	free(s);
	free(r.pfree);
	free(r.pend);
	free(r.seqs);
	free(r.first_ns);
	free(r.last_ns);
	free(tpot);
	free(ttft);
	return rc;
}
