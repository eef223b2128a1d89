/* The continuous-batching engine: a waiting queue, admission by max-num-seqs
 * and KV blocks, a token budget per step with chunked prefill (decode
 * first, as vLLM's scheduler does), preemption by recomputation, and a step
 * timer whose duration comes from the performance model. */
#include "sim/private.h"

#include <stdlib.h>
#include <string.h>

void seq_list_push(seq_list *l, seq *s)
{
	s->next = NULL;
	s->prev = l->tail;
	if (l->tail)
		l->tail->next = s;
	else
		l->head = s;
	l->tail = s;
	l->n++;
}

void seq_list_push_front(seq_list *l, seq *s)
{
	s->prev = NULL;
	s->next = l->head;
	if (l->head)
		l->head->prev = s;
	else
		l->tail = s;
	l->head = s;
	l->n++;
}

void seq_list_remove(seq_list *l, seq *s)
{
	if (s->prev)
		s->prev->next = s->next;
	else
		l->head = s->next;
	if (s->next)
		s->next->prev = s->prev;
	else
		l->tail = s->prev;
	s->prev = s->next = NULL;
	l->n--;
}

static int64_t blocks_for(const sim_server *s, int64_t tokens)
{
	return (tokens + s->cfg.block_size - 1) / s->cfg.block_size;
}

static int spec_k(const sim_server *s)
{
	const sim_config *c = &s->cfg;
	return c->spec_method && strcmp(c->spec_method, "none") ? c->num_spec_tokens : 0;
}

static int64_t replicas_of(const sim_config *c)
{
	return c->replicas > 1 ? c->replicas : 1;
}

/* One replica's share of a step over `replicas` identical instances: the
 * router spreads sequences evenly (a sequence is never split) and the
 * instances step together, so the step lasts what the busiest instance's
 * share takes. */
static const sim_step *replica_share(const sim_config *c, const sim_step *st, sim_step *one)
{
	int64_t r = replicas_of(c);
	if (r == 1)
		return st;
	*one = *st;
	int64_t dw = st->decode_seqs < r ? st->decode_seqs : r;
	int64_t pw = st->prefill_seqs < r ? st->prefill_seqs : r;
	if (dw > 1) {
		one->decode_seqs = (int)((st->decode_seqs + dw - 1) / dw);
		one->decode_ctx_sum = st->decode_ctx_sum / (double)dw;
	}
	if (pw > 1) {
		one->prefill_tokens = (int)((st->prefill_tokens + pw - 1) / pw);
		one->prefill_ctx_sum = st->prefill_ctx_sum / (double)pw;
		one->host_load_bytes = st->host_load_bytes / (double)pw;
	}
	return one;
}

/* Tokens to (re)compute before decoding: the prompt, plus what was already
 * generated when the sequence was preempted. */
static int prefill_len(const seq *q)
{
	return q->prompt_tokens + q->recompute;
}

/* q's private blocks go back to the pool; the cached ones it used stay
 * cached, free once no one else uses them (prefix_cache.c). */
static void release(sim_server *s, seq *q)
{
	s->free_blocks += q->blocks - q->nshared;
	sim_pc_release(s, q);
	q->blocks = 0;
}

/* Grows q's KV allocation to cover `tokens`; false when blocks ran out. */
static bool reserve(sim_server *s, seq *q, int64_t tokens)
{
	int64_t need = blocks_for(s, tokens) - q->blocks;
	if (need <= 0)
		return true;
	if (!sim_pc_take(s, need))
		return false;
	q->blocks += need;
	return true;
}

static void preempt(sim_server *s, seq *victim)
{
	seq_list_remove(&s->running, victim);
	release(s, victim);
	victim->recompute = victim->generated;
	victim->prefilled = 0;
	victim->state = SEQ_WAITING;
	victim->plan_prefill = 0;
	victim->plan_decode = false;
	seq_list_push_front(&s->waiting, victim);
	s->m.preemptions++;
}

static void on_step(net_loop *l, net_timer *t);

/* The engine's clock and timer: the event loop's, or (in-process runs,
 * sim_run_load) a virtual clock the driver advances to each deadline. */
static int64_t eng_now(const sim_server *s)
{
	return s->virt ? s->vnow : net_now(s->loop);
}

static void eng_arm(sim_server *s, int64_t at)
{
	if (s->virt)
		s->vdue = at;
	else
		net_timer_arm(s->loop, &s->step_timer, at);
}

static void eng_cancel(sim_server *s)
{
	if (!s->virt)
		net_timer_cancel(s->loop, &s->step_timer);
}

static void eng_emit(sim_server *s, seq *q, int n, bool last)
{
	if (s->parent)
		sim_disagg_prefilled(s, q);
	else if (s->virt)
		s->vemit(s, q, n, last);
	else
		sim_emit(s, q, n, last);
}

int64_t sim_model_now(const sim_server *s, int64_t wall)
{
	if (s->parent) /* a prefill pool keeps its server's clock */
		return sim_model_now(s->parent, wall);
	int64_t dt = wall - s->m_anchor_wall;
	int64_t m = s->m_anchor + (dt > 0 ? (int64_t)((double)dt * s->cfg.time_scale) : 0);
	/* the step in flight has not ended in model time until its timer fired */
	if (s->step_armed && !s->stall_wait && m > s->m_step_end)
		m = s->m_step_end;
	return m;
}

void sim_model_pause(sim_server *s, int64_t from, int64_t to)
{
	if (to <= from || (s->step_armed && !s->stall_wait))
		return; /* a step in flight: its timer's lateness says it */
	if (from < s->m_anchor_wall)
		from = s->m_anchor_wall;
	if (to <= from)
		return;
	s->m_anchor = sim_model_now(s, from);
	s->m_anchor_wall = to;
	s->m.paused_sum += (double)(to - from) * 1e-9;
}

/* Plans and arms the next step, if there is work. */
static void schedule(sim_server *s)
{
	const sim_config *c = &s->cfg;
	int64_t now = eng_now(s);
	bool replan = false;
	if (s->step_armed) {
		if (s->stall_wait) {
			/* only waiting for a stall to end: plan again, new work may run now */
			eng_cancel(s);
			s->step_armed = false;
			s->stall_wait = false;
		} else if (c->pace <= 0 && s->waiting.head &&
		           now - s->step_start < SIM_JOIN_GRACE_NS) {
			/* a request that arrives just after a step began joins it
			 * (docs/sim.md "Time"): the step is planned again from the
			 * same start, so a client's turnaround, however the time is
			 * scaled, does not cost a whole step */
			eng_cancel(s);
			s->step_armed = false;
			replan = true;
			for (seq *q = s->running.head; q; q = q->next) {
				q->plan_prefill = 0;
				q->plan_decode = false;
			}
		} else {
			return;
		}
	}
	int k = spec_k(s);
	int budget = c->max_num_batched_tokens * replicas_of(c);
	sim_step st = {0};
	int64_t next_wake = 0;
	/* decode first */
	for (seq *q = s->running.head; q;) {
		seq *nx = q->next;
		q->plan_prefill = 0;
		q->plan_decode = false;
		if (q->prefilled < prefill_len(q)) {
			q = nx;
			continue;
		}
		if (q->stall_until > now) {
			if (!next_wake || q->stall_until < next_wake)
				next_wake = q->stall_until;
			q = nx;
			continue;
		}
		if (budget < k + 1)
			break;
		int64_t ctx = (int64_t)q->prompt_tokens + q->generated;
		while (!reserve(s, q, ctx + k + 1)) {
			seq *victim = s->running.tail;
			if (victim == q) {
				preempt(s, q);
				q = NULL;
				break;
			}
			if (victim == nx)
				nx = NULL;
			preempt(s, victim);
		}
		if (!q) {
			q = nx;
			continue;
		}
		q->plan_decode = true;
		st.decode_seqs++;
		st.decode_ctx_sum += (double)ctx;
		budget -= k + 1;
		q = nx;
	}
	/* continue prefills that are under way */
	for (seq *q = s->running.head; q && budget > 0; q = q->next) {
		int left = prefill_len(q) - q->prefilled;
		if (left <= 0)
			continue;
		int chunk = left < budget ? left : budget;
		q->plan_prefill = chunk;
		st.prefill_tokens += chunk;
		st.prefill_seqs++;
		st.prefill_ctx_sum += (double)chunk * (q->prefilled + chunk / 2.0);
		budget -= chunk;
	}
	/* admit waiting requests */
	while (s->waiting.head && budget > 0 &&
	       (int64_t)s->running.n < (int64_t)c->max_num_seqs * replicas_of(c)) {
		seq *q = s->waiting.head;
		/* the prompt's leading blocks already in the cache are not computed
		 * again (at least its last token is, for the first output) */
		int hit = 0, host = 0;
		bool lookup = q->bh && q->prefilled == 0;
		if (lookup) {
			hit = sim_pc_acquire(s, q, (q->prompt_tokens - 1) / c->block_size, &host);
			q->prefilled = hit * c->block_size;
		}
		if (!reserve(s, q, (int64_t)prefill_len(q) + 1)) {
			if (lookup) {
				release(s, q);
				q->prefilled = 0;
			}
			break;
		}
		if (lookup) {
			uint64_t dev = (uint64_t)(hit - host) * (uint64_t)c->block_size;
			uint64_t ext = (uint64_t)host * (uint64_t)c->block_size;
			s->m.pc_queries += (uint64_t)q->prompt_tokens;
			s->m.pc_hits += dev;
			s->m.pc_computed += (uint64_t)q->prompt_tokens - dev - ext;
			if (s->pc.host_blocks > 0) {
				s->m.ext_queries += (uint64_t)q->prompt_tokens - dev;
				s->m.ext_hits += ext;
			}
			if (host > 0) { /* copied back over the host link in this step */
				double b = (double)host * s->cap.kv_bytes_per_token * c->block_size;
				st.host_load_bytes += b;
				s->m.offload_bytes_to_gpu += b;
				s->m.offload_s_to_gpu += b / c->hw.host_bw;
			}
		}
		seq_list_remove(&s->waiting, q);
		q->state = SEQ_RUNNING;
		seq_list_push(&s->running, q);
		if (q->prefilled >= prefill_len(q)) {
			/* prefilled elsewhere (disaggregated prefill): decodes at once */
			int64_t ctx = (int64_t)q->prompt_tokens + q->generated;
			if (budget < k + 1 || !reserve(s, q, ctx + k + 1)) {
				q->plan_prefill = 0;
				q->plan_decode = false;
				break;
			}
			q->plan_prefill = 0;
			q->plan_decode = true;
			st.decode_seqs++;
			st.decode_ctx_sum += (double)ctx;
			budget -= k + 1;
			continue;
		}
		int left = prefill_len(q) - q->prefilled;
		int chunk = left < budget ? left : budget;
		q->plan_prefill = chunk;
		q->plan_decode = false;
		st.prefill_tokens += chunk;
		st.prefill_seqs++;
		st.prefill_ctx_sum += (double)chunk * (q->prefilled + chunk / 2.0);
		budget -= chunk;
	}
	if (st.decode_seqs == 0 && st.prefill_tokens == 0) {
		if (next_wake) { /* only stalled streams: wake when the first stall ends */
			s->step = st;
			s->step_armed = true;
			s->stall_wait = true;
			eng_arm(s, next_wake);
		}
		return;
	}
	sim_step one;
	int64_t at;
	if (c->pace > 0) { /* on a fixed grid, so that late wake-ups do not add up */
		int64_t every = (int64_t)(1e9 / c->pace);
		at = s->step_at + every;
		if (at < now)
			at = now + every;
	} else {
		/* absolute deadlines: a step that follows another starts when that
		 * one was due, not when its timer woke us up, so the host's timer
		 * latency never accumulates (nor is multiplied by the time scale);
		 * a step after an idle spell starts now */
		double t = sim_step_time(c, replica_share(c, &st, &one));
		int64_t start = replan ? s->step_start : s->chain && !s->rebase ? s->step_at : now;
		/* model time: a step that follows another starts when that one
		 * ended, a step after an idle spell at the model clock's now */
		int64_t mstart = replan     ? s->m_step_start
		                 : s->chain ? s->m_step_end
		                            : sim_model_now(s, now);
		s->step_start = start;
		s->m_step_start = mstart;
		s->m_step_end = mstart + (int64_t)(t * 1e9);
		at = start + (int64_t)(t / c->time_scale * 1e9);
		/* busy wall time; a replanned step replaces the one in flight */
		s->m.busy_s += (double)(at - start - (replan ? s->step_at - start : 0)) * 1e-9;
	}
	s->step = st;
	s->step_at = at;
	s->step_armed = true;
	eng_arm(s, at);
}

static void on_step(net_loop *l, net_timer *t)
{
	(void)l;
	sim_server *s = t->arg;
	int64_t late_ns = net_now(s->loop) - t->when;
	double late = (double)late_ns * 1e-9;
	s->m.late_sum += late > 0 ? late : 0;
	s->m.late_count++;
	if (late > s->m.late_max)
		s->m.late_max = late;
	/* held up: the late span is not model time (the model clock stops at
	 * the step's end until now), and the next step starts now instead of
	 * catching up from the missed deadline in a burst */
	s->rebase = late_ns > SIM_REBASE_NS && s->cfg.pace <= 0;
	if (s->rebase && !s->stall_wait) {
		s->m.paused_sum += late;
		s->m.paused_count++;
	}
	sim_engine_step_done(s);
	s->rebase = false;
}

void sim_engine_step_done(sim_server *s)
{
	s->step_armed = false;
	/* the next step follows this one back to back, from its deadline; a
	 * wake-up that only ended a stall wait follows nothing */
	s->chain = !s->stall_wait;
	if (!s->stall_wait) { /* the model clock stands at the step's end, now */
		s->m_anchor = s->m_step_end;
		s->m_anchor_wall = eng_now(s);
	}
	s->stall_wait = false;
	int k = spec_k(s);
	for (seq *q = s->running.head; q;) {
		seq *nx = q->next;
		int n = 0;
		if (q->plan_prefill) {
			q->prefilled += q->plan_prefill;
			q->plan_prefill = 0;
			sim_pc_register(s, q);
			if (q->prefilled >= prefill_len(q) && q->generated == 0)
				n = 1; /* the prefill step yields the first token */
		} else if (q->plan_decode) {
			q->plan_decode = false;
			n = sim_tokens_per_step(&s->cfg, sim_rng_uniform(&q->rng));
			if (k > 0) {
				s->m.num_drafts++;
				s->m.num_draft_tokens += (uint64_t)k;
				s->m.num_accepted += (uint64_t)(n - 1);
				for (int i = 0; i < n - 1 && i < 8; i++)
					s->m.accepted_per_pos[i]++;
			}
		}
		if (n > q->target - q->generated)
			n = q->target - q->generated;
		if (n > 0) {
			/* a prefill worker's sequence leaves with its first token */
			bool last = q->generated + n >= q->target || s->parent;
			if (last) {
				seq_list_remove(&s->running, q);
				release(s, q);
				q->state = SEQ_DONE;
			}
			eng_emit(s, q, n, last); /* may free q */
		}
		q = nx;
	}
	schedule(s);
	s->chain = false;
}

static void kick(net_loop *l, net_defer *d)
{
	(void)l;
	schedule(d->arg);
}

void sim_engine_start(sim_server *s)
{
	s->step_timer = (net_timer){.fn = on_step, .arg = s};
	s->kick = (net_defer){.fn = kick, .arg = s};
	s->total_blocks = s->cap.kv_blocks * replicas_of(&s->cfg);
	s->free_blocks = s->total_blocks;
	sim_pc_init(&s->pc);
	/* the host tier: --kv-offload-gb over the KV bytes of a block on every GPU */
	double gpus = (double)(s->cfg.tp > 0 ? s->cfg.tp : 1) * (s->cfg.pp > 1 ? s->cfg.pp : 1);
	double per_block = s->cap.kv_bytes_per_token * s->cfg.block_size * gpus;
	if (s->cfg.kv_offload_gb > 0 && per_block > 0)
		s->pc.host_blocks = (int64_t)(s->cfg.kv_offload_gb * 1e9 / per_block);
	s->m_anchor = 0;
	s->m_anchor_wall = s->virt ? s->vnow : ib_now_ns();
}

void sim_engine_submit(sim_server *s, seq *q)
{
	q->state = SEQ_WAITING;
	seq_list_push(&s->waiting, q);
	if (!s->virt) /* in-process runs plan when the driver says so */
		net_defer_queue(s->loop, &s->kick);
}

void sim_engine_schedule(sim_server *s)
{
	schedule(s);
}

void sim_engine_abort(sim_server *s, seq *q)
{
	if (q->state == SEQ_XFER) {
		net_timer_cancel(s->loop, &q->xfer);
		q->state = SEQ_DONE;
		return;
	}
	if (q->eng) /* in the prefill pool */
		s = q->eng;
	if (q->state == SEQ_WAITING) {
		seq_list_remove(&s->waiting, q);
	} else if (q->state == SEQ_RUNNING) {
		seq_list_remove(&s->running, q);
		release(s, q);
	}
	q->state = SEQ_DONE;
}

/* Called when a stall ends or anything else changes outside a step. */
void sim_engine_kick(sim_server *s)
{
	net_defer_queue(s->loop, &s->kick);
}
