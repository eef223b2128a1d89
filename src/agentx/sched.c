/* The AgentX lane scheduler (AX4) in the caller's time: lanes, parent turns
 * with think times, subagents spawned and joined, background subagents,
 * recycling, t* warmup and the idle caps (agentx.h, docs/agentx.md). */
#include "agentx/agentx.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define OOM(e) ib_fail((e), IB_ENOMEM, "", 0, 0, "out of memory")

/* a running subagent of a lane */
typedef struct {
	size_t entry, next; /* the subagent's entry, its next request */
	double due;         /* INFINITY while one is in flight */
	uint64_t id;        /* the request in flight (0: none) */
	bool join;          /* the next parent turn waits for it */
} sub_run;

typedef enum { W_TURN, W_EXTRA, W_WAIT, W_DONE } wstage;

typedef struct {
	size_t trace;
	uint64_t replay;
	size_t k;         /* the next parent turn (index into par) */
	double due;       /* of parent turn k; INFINITY while blocked */
	uint64_t par_id;  /* the parent request in flight (0: none) */
	size_t join_left; /* joined subagents still running */
	double think;     /* think_time of the last completed parent turn */
	sub_run *subs;
	size_t nsubs, cap;
	/* warmup */
	wstage w;
	size_t wturn, wleft, tstar;
	double wdue;
	uint64_t w_id;
} lane;

typedef struct {
	size_t *par; /* entry indices of the parent requests */
	size_t np;
} tinfo;

struct ax_sched {
	ax_sched_opts o;
	tinfo *ti;     /* per corpus trace */
	size_t *order; /* the kept traces, in the seeded order */
	size_t norder, cursor, dropped;
	lane *lanes;
	uint64_t next_id, next_replay;
	bool profiling;
	ib_mt m;
};

static const ax_request *parent_req(const ax_sched *s, const lane *l, size_t k)
{
	const ax_trace *t = &s->o.corpus->t[l->trace];
	return &t->entries[s->ti[l->trace].par[k]].r;
}

static bool fits(const ax_trace *t, int64_t max)
{
	if (max <= 0)
		return true;
	for (size_t i = 0; i < t->n; i++) {
		const ax_entry *en = &t->entries[i];
		if (!en->is_subagent && en->r.in + en->r.out > max)
			return false;
		for (size_t k = 0; en->is_subagent && k < en->s.nreq; k++)
			if (en->s.req[k].in + en->s.req[k].out > max)
				return false;
	}
	return true;
}

/* Starts the next trace of the order on lane l at now, from turn 0. */
static void recycle(ax_sched *s, lane *l, double now)
{
	l->trace = s->order[s->cursor++ % s->norder];
	l->replay = s->next_replay++;
	l->k = 0, l->due = now, l->par_id = 0, l->join_left = 0, l->think = 0;
	l->nsubs = 0;
}

int ax_sched_new(const ax_sched_opts *o, double now, ax_sched **out, ib_error *e)
{
	*out = NULL;
	if (!o->lanes || !o->corpus)
		return ib_fail(e, IB_EINVAL, "", 0, 0, "the scheduler needs a corpus and lanes");
	if (!(o->tstar_lo >= 0 && o->tstar_hi <= 1 && o->tstar_lo <= o->tstar_hi))
		return ib_fail(e, IB_EINVAL, "", 0, 0, "t* bounds must satisfy 0 <= lo <= hi <= 1");
	ax_sched *s = calloc(1, sizeof *s);
	if (!s)
		return OOM(e);
	s->o = *o;
	const ax_corpus *c = o->corpus;
	s->ti = calloc(c->n + 1, sizeof *s->ti);
	s->order = calloc(c->n + 1, sizeof *s->order);
	s->lanes = calloc(o->lanes, sizeof *s->lanes);
	if (!s->ti || !s->order || !s->lanes)
		goto oom;
	for (size_t i = 0; i < c->n; i++) {
		const ax_trace *t = &c->t[i];
		if (!(s->ti[i].par = calloc(t->n + 1, sizeof *s->ti[i].par)))
			goto oom;
		for (size_t k = 0; k < t->n; k++)
			if (!t->entries[k].is_subagent)
				s->ti[i].par[s->ti[i].np++] = k;
		if (s->ti[i].np && fits(t, o->max_context))
			s->order[s->norder++] = i;
		else
			s->dropped++;
	}
	if (!s->norder) {
		ax_sched_free(s);
		return ib_fail(
		    e, IB_EINVAL, "", 0, 0,
		    "no trace to replay: %zu dropped (a request above the maximum context "
		    "of %lld tokens, or no parent turn)",
		    c->n, (long long)o->max_context);
	}
	ib_mt_seed(&s->m, o->seed);
	for (size_t i = s->norder; i > 1; i--) { /* Fisher-Yates */
		size_t j = (size_t)ib_mt_randint(&s->m, 0, (int64_t)i);
		size_t x = s->order[i - 1];
		s->order[i - 1] = s->order[j], s->order[j] = x;
	}
	s->next_id = 1, s->next_replay = 1;
	for (size_t i = 0; i < o->lanes; i++) {
		lane *l = &s->lanes[i];
		recycle(s, l, now);
		size_t np = s->ti[l->trace].np;
		double u = o->tstar_lo + (o->tstar_hi - o->tstar_lo) * ib_mt_double(&s->m);
		l->tstar = (size_t)(u * (double)np);
		if (l->tstar >= np)
			l->tstar = np - 1;
		l->due = INFINITY;
		l->w = l->tstar ? W_TURN : W_EXTRA;
		l->wturn = l->tstar ? l->tstar - 1 : 0;
		l->wleft = o->warmup_per_lane;
		l->wdue = now;
		if (l->w == W_EXTRA && !l->wleft)
			l->w = W_WAIT;
	}
	*out = s;
	/* with no warmup at all, profiling starts at once */
	ax_sched_done(s, 0, now);
	return 0;
oom:
	ax_sched_free(s);
	return OOM(e);
}

void ax_sched_free(ax_sched *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->ti && i < s->o.corpus->n; i++)
		free(s->ti[i].par);
	for (size_t i = 0; s->lanes && i < s->o.lanes; i++)
		free(s->lanes[i].subs);
	free(s->ti);
	free(s->order);
	free(s->lanes);
	free(s);
}

static double lane_due(const lane *l)
{
	double d = l->due;
	if ((l->w == W_TURN || l->w == W_EXTRA) && !l->w_id && l->wdue < d)
		d = l->wdue;
	for (size_t i = 0; i < l->nsubs; i++)
		if (l->subs[i].due < d)
			d = l->subs[i].due;
	return d;
}

double ax_sched_next_due(const ax_sched *s)
{
	double d = INFINITY;
	for (size_t i = 0; i < s->o.lanes; i++) {
		double x = lane_due(&s->lanes[i]);
		d = x < d ? x : d;
	}
	return d;
}

bool ax_sched_next(ax_sched *s, double now, ax_dispatch *d)
{
	/* the earliest due item, lanes in order on ties */
	lane *best = NULL;
	int kind = 0; /* 1 warmup, 2 parent, 3 subagent */
	size_t sub = 0;
	double bd = INFINITY;
	for (size_t i = 0; i < s->o.lanes; i++) {
		lane *l = &s->lanes[i];
		if ((l->w == W_TURN || l->w == W_EXTRA) && !l->w_id && l->wdue <= now &&
		    l->wdue < bd)
			best = l, kind = 1, bd = l->wdue;
		if (l->due <= now && l->due < bd)
			best = l, kind = 2, bd = l->due;
		for (size_t k = 0; k < l->nsubs; k++)
			if (l->subs[k].due <= now && l->subs[k].due < bd)
				best = l, kind = 3, sub = k, bd = l->subs[k].due;
	}
	if (!best)
		return false;
	lane *l = best;
	memset(d, 0, sizeof *d);
	d->id = s->next_id++;
	d->lane = (size_t)(l - s->lanes), d->trace = l->trace, d->replay = l->replay, d->due = bd;
	const ax_trace *t = &s->o.corpus->t[l->trace];
	if (kind == 1) {
		d->warmup = true;
		d->entry = s->ti[l->trace].par[l->wturn];
		d->req = &t->entries[d->entry].r;
		d->max_tokens = l->w == W_TURN ? d->req->out : 1;
		l->w_id = d->id;
	} else if (kind == 2) {
		d->entry = s->ti[l->trace].par[l->k];
		d->req = &t->entries[d->entry].r;
		d->max_tokens = d->req->out;
		l->par_id = d->id, l->due = INFINITY;
	} else {
		sub_run *r = &l->subs[sub];
		d->subagent = true, d->entry = r->entry, d->sub_req = r->next;
		d->req = &t->entries[r->entry].s.req[r->next];
		d->max_tokens = d->req->out;
		r->id = d->id, r->due = INFINITY;
	}
	return true;
}

static void shift(lane *l, double by)
{
	if (isfinite(l->due))
		l->due -= by;
	if (l->w == W_TURN || l->w == W_EXTRA)
		l->wdue -= by;
	for (size_t i = 0; i < l->nsubs; i++)
		if (isfinite(l->subs[i].due))
			l->subs[i].due -= by;
}

static bool idle(const lane *l)
{
	if (l->par_id || l->w_id)
		return false;
	for (size_t i = 0; i < l->nsubs; i++)
		if (l->subs[i].id)
			return false;
	return true;
}

/* A parent turn completed: spawn its subagents, set the next turn's due. */
static int parent_done(ax_sched *s, lane *l, double now)
{
	const tinfo *ti = &s->ti[l->trace];
	const ax_trace *t = &s->o.corpus->t[l->trace];
	l->par_id = 0;
	l->think = parent_req(s, l, l->k)->think_time;
	size_t from = ti->par[l->k] + 1, to = l->k + 1 < ti->np ? ti->par[l->k + 1] : t->n;
	bool last = l->k + 1 >= ti->np;
	l->k++;
	for (size_t i = from; i < to; i++) {
		if (!t->entries[i].s.nreq)
			continue;
		if (ib_grow(&l->subs, &l->cap, l->nsubs + 1))
			return IB_ENOMEM;
		l->subs[l->nsubs++] = (sub_run){.entry = i, .due = now, .join = !last};
		l->join_left += !last;
	}
	l->due = last ? INFINITY : l->join_left ? INFINITY : now + l->think;
	return 0;
}

static int sub_done(ax_sched *s, lane *l, size_t i, double now)
{
	sub_run *r = &l->subs[i];
	const ax_subagent *sa = &s->o.corpus->t[l->trace].entries[r->entry].s;
	double think = sa->req[r->next].think_time;
	r->id = 0;
	if (++r->next < sa->nreq) {
		r->due = now + think;
		return 0;
	}
	bool join = r->join;
	l->subs[i] = l->subs[--l->nsubs];
	if (join && !--l->join_left && l->k < s->ti[l->trace].np)
		l->due = now + l->think;
	return 0;
}

int ax_sched_done(ax_sched *s, uint64_t id, double now)
{
	lane *hit = NULL;
	for (size_t i = 0; id && i < s->o.lanes && !hit; i++) {
		lane *l = &s->lanes[i];
		if (l->par_id == id) {
			if (parent_done(s, l, now))
				return IB_ENOMEM;
			hit = l;
		} else if (l->w_id == id) {
			l->w_id = 0, l->wdue = now;
			if (l->w == W_TURN)
				l->w = l->wleft ? W_EXTRA : W_WAIT;
			else if (!--l->wleft)
				l->w = W_WAIT;
			hit = l;
		} else
			for (size_t k = 0; k < l->nsubs && !hit; k++)
				if (l->subs[k].id == id) {
					sub_done(s, l, k, now);
					hit = l;
				}
	}
	if (id && !hit)
		return IB_EINVAL;
	/* a drained tree recycles its lane */
	if (hit && s->profiling && hit->k >= s->ti[hit->trace].np && idle(hit) && !hit->nsubs)
		recycle(s, hit, now);
	/* every lane's warmup drained: profiling starts at t* */
	if (!s->profiling) {
		bool all = true;
		for (size_t i = 0; i < s->o.lanes; i++)
			all &= s->lanes[i].w == W_WAIT && !s->lanes[i].w_id;
		if (all) {
			s->profiling = true;
			for (size_t i = 0; i < s->o.lanes; i++) {
				lane *l = &s->lanes[i];
				l->w = W_DONE, l->k = l->tstar, l->due = now;
			}
		}
	}
	/* the idle caps: the tree's, then the whole system's */
	if (hit && idle(hit)) {
		double d = lane_due(hit);
		if (isfinite(d) && d > now + s->o.tree_idle_cap)
			shift(hit, d - (now + s->o.tree_idle_cap));
	}
	bool all_idle = true;
	for (size_t i = 0; i < s->o.lanes; i++)
		all_idle &= idle(&s->lanes[i]);
	double d = ax_sched_next_due(s);
	if (all_idle && isfinite(d) && d > now + s->o.global_idle_cap)
		for (size_t i = 0; i < s->o.lanes; i++)
			shift(&s->lanes[i], d - (now + s->o.global_idle_cap));
	return 0;
}

bool ax_sched_profiling(const ax_sched *s)
{
	return s->profiling;
}

size_t ax_sched_dropped(const ax_sched *s)
{
	return s->dropped;
}
