/* Disaggregated prefill/decode in the server (docs/sim.md "Disaggregated
 * prefill/decode"): one OpenAI endpoint in front of a prefill pool and a
 * decode pool. The pool of prefill workers is a second engine on the same
 * event loop (its configuration: sim_prefill_config, its replicas the
 * workers); a request is prefilled there, its first token leaves when its
 * prefill step ends (on the prefill engine's model clock), then its KV
 * crosses to the decode side (sim_kv_transfer_s, a timer), and it enters
 * this server's engine, which only decodes. */
#include "sim/private.h"

#include <stdlib.h>

int sim_disagg_start(sim_server *s, ib_error *e)
{
	sim_server *p = calloc(1, sizeof *p);
	if (!p)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	sim_prefill_config(&s->cfg, &p->cfg);
	p->loop = s->loop;
	p->parent = s;
	sim_metrics_init(&p->m);
	int rc = sim_capacity_of(&p->cfg, &p->cap, e);
	if (rc) {
		char m[sizeof e->msg];
		snprintf(m, sizeof m, "%s", e->msg);
		free(p);
		return ib_fail(e, rc, NULL, 0, 0, "the prefill workers: %s", m);
	}
	sim_engine_start(p);
	s->prefill = p;
	return 0;
}

void sim_disagg_free(sim_server *s)
{
	sim_server *p = s->prefill;
	if (!p)
		return;
	seq_list *lists[] = {&p->waiting, &p->running};
	for (int i = 0; i < 2; i++)
		while (lists[i]->head) {
			seq *q = lists[i]->head;
			seq_list_remove(lists[i], q);
			sim_seq_free(s, q);
		}
	net_timer_cancel(p->loop, &p->step_timer);
	net_defer_cancel(p->loop, &p->kick);
	sim_pc_free(&p->pc);
	free(p);
	s->prefill = NULL;
}

void sim_disagg_submit(sim_server *s, seq *q)
{
	q->eng = s->prefill;
	sim_engine_submit(s->prefill, q);
}

/* Something the pool did was due at model time m and happens now: an
 * idle server's clock, which ran with the wall clock meanwhile, is set to
 * m — a timer's lateness is not model time (docs/sim.md "The model
 * clock"), and the request's handling, left out of the server's clock, was
 * not left out of the pool's step that started before it ended; a busy
 * server is held at its step's end already. */
static void catch_up(sim_server *s, int64_t m)
{
	if (s->step_armed && !s->stall_wait)
		return;
	int64_t now = net_now(s->loop), cur = sim_model_now(s, now);
	if (cur > m)
		s->m.paused_sum += (double)(cur - m) * 1e-9 / s->cfg.time_scale;
	s->m_anchor = m;
	s->m_anchor_wall = now;
}

/* The KV arrived: the request joins the decode engine, prefilled. */
static void on_arrived(net_loop *l, net_timer *t)
{
	(void)l;
	seq *q = t->arg;
	q->prefilled = q->prompt_tokens;
	catch_up(q->srv, q->xfer_due_m);
	sim_engine_submit(q->srv, q);
}

/* q's first token leaves at model time m (its prefill's end) and, unless
 * it was the last, its KV crosses to s's decode engine. */
static void hand_over(sim_server *s, seq *q, int64_t m)
{
	q->eng = NULL;
	bool last = q->generated + 1 >= q->target;
	if (!last) { /* armed first: a client that goes away in sim_emit cancels it */
		q->state = SEQ_XFER;
		double x = sim_kv_transfer_s(&s->cfg, q->prompt_tokens);
		q->xfer = (net_timer){.fn = on_arrived, .arg = q};
		q->xfer_due_m = m + (int64_t)(x * 1e9);
		net_timer_arm(s->loop, &q->xfer,
		              net_now(s->loop) + (int64_t)(x / s->cfg.time_scale * 1e9));
		s->m.kv_transfers++;
		s->m.kv_transfer_s += x;
	}
	/* the first token, stamped with the prefill's end */
	int64_t keep = s->m_step_end;
	s->m_step_end = m;
	sim_emit(s, q, 1, last); /* may free q */
	s->m_step_end = keep;
}

void sim_disagg_prefilled(sim_server *p, seq *q)
{
	catch_up(p->parent, p->m_step_end);
	hand_over(p->parent, q, p->m_step_end);
}

void sim_disagg_arrived(sim_server *s, seq *q)
{
	hand_over(s, q, q->arrival_m);
}
