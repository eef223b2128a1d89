/* eval/run: the InferenceX gsm8k protocol against a chat-completions
 * endpoint (spec/evals-report-agentx.md A.2, A.3, A.6): few-shot messages
 * drawn as lm-eval draws them, the request body lm-eval's
 * local-chat-completions sends, scoring, and lm-eval's output files. */
#define _POSIX_C_SOURCE 200809L
#include "chat/chat.h"
#include "eval/eval.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#define MAXF 8

/* ---- CPython random.sample ---- */

void ev_py_sample(ib_mt *m, size_t n, size_t k, size_t *out)
{
	size_t setsize = 21;
	if (k > 5) { /* 4 ** ceil(log(3k, 4)); 3k is never a power of 4 */
		size_t p = 1;
		while (p < 3 * k)
			p *= 4;
		setsize += p;
	}
	if (n <= setsize) {
		size_t pool[64 + 21];
		size_t *heap = n > sizeof pool / sizeof pool[0] ? malloc(n * sizeof *heap) : NULL;
		size_t *pl = heap ? heap : pool;
		for (size_t i = 0; i < n; i++)
			pl[i] = i;
		for (size_t i = 0; i < k; i++) {
			size_t j = (size_t)ib_mt_py_randbelow(m, n - i);
			out[i] = pl[j];
			pl[j] = pl[n - i - 1];
		}
		free(heap);
		return;
	}
	for (size_t i = 0; i < k; i++) {
		size_t j;
		bool seen;
		do {
			j = (size_t)ib_mt_py_randbelow(m, n);
			seen = false;
			for (size_t x = 0; x < i && !seen; x++)
				seen = out[x] == j;
		} while (seen);
		out[i] = j;
	}
}

/* ---- prompts ---- */

typedef struct {
	chat_tmpl *text, *target;
	const char *text_field, *target_field; /* a template that names a field */
	size_t nshot;
} prompts;

static int compile_field(const ib_val *task, const char *key, chat_tmpl **t, const char **field,
                         ib_error *e)
{
	const ib_val *v = ib_map_get(task, key);
	if (!v || v->type != IB_V_STR)
		return ib_fail(e, IB_EINVAL, "", 0, 0, "task: '%s' must be a string template", key);
	if (!strcmp(v->str.s, "question") || !strcmp(v->str.s, "answer")) {
		*field = v->str.s;
		return 0;
	}
	return chat_tmpl_parse(v->str.s, v->str.len, key, t, e);
}

static int render(const prompts *p, bool target, const ev_doc *d, ib_arena *a, ib_buf *out,
                  ib_error *e)
{
	out->len = 0;
	const char *field = target ? p->target_field : p->text_field;
	if (field) {
		bool q = !strcmp(field, "question");
		return ib_buf_append(out, q ? d->question : d->answer, q ? d->qlen : d->alen)
		           ? ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory")
		           : 0;
	}
	ib_val *vars = ib_v_map(a);
	if (!vars || ib_map_set(a, vars, "question", ib_v_strn(a, d->question, d->qlen)) ||
	    ib_map_set(a, vars, "answer", ib_v_strn(a, d->answer, d->alen)))
		return ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
	int rc = chat_tmpl_render(target ? p->target : p->text, vars, out, e);
	if (!rc && !out->data)
		rc = ib_buf_append(out, "", 0);
	return rc;
}

static ib_val *msg(ib_arena *a, const char *role, const ib_buf *content)
{
	ib_val *m = ib_v_map(a);
	if (!m || ib_map_set(a, m, "role", ib_v_str(a, role)) ||
	    ib_map_set(a, m, "content", ib_v_strn(a, content->data, content->len)))
		return NULL;
	return m;
}

static const ib_val *gen_kwargs(const ib_val *task)
{
	const ib_val *g = ib_map_get(task, "generation_kwargs");
	return g && g->type == IB_V_MAP ? g : NULL;
}

/* The stop list: the task's `until` plus the eos string, at most 4. */
static ib_val *stop_list(ib_arena *a, const ib_val *task)
{
	ib_val *l = ib_v_list(a);
	if (!l)
		return NULL;
	const ib_val *u = ib_map_get(gen_kwargs(task), "until");
	if (u && u->type == IB_V_STR && ib_list_push(a, l, (ib_val *)u))
		return NULL;
	for (size_t i = 0; u && u->type == IB_V_LIST && i < u->list.n; i++)
		if (ib_list_push(a, l, u->list.v[i]))
			return NULL;
	bool has_eos = false;
	for (size_t i = 0; i < l->list.n; i++)
		has_eos = has_eos ||
		          (l->list.v[i]->type == IB_V_STR && !strcmp(l->list.v[i]->str.s, "</s>"));
	if (!has_eos && ib_list_push(a, l, ib_v_str(a, "</s>")))
		return NULL;
	if (l->list.n > 4)
		l->list.n = 4;
	return l;
}

/* messages of one question: nshots user/assistant pairs, then the question */
static int messages(const prompts *p, const ev_run_opts *o, size_t doc, const size_t *shots,
                    size_t nshots, ib_arena *a, ib_val **out, ib_error *e)
{
	ib_val *l = ib_v_list(a);
	ib_buf t = {0};
	int rc = l ? 0 : IB_ENOMEM;
	for (size_t i = 0; i < nshots && !rc; i++) {
		const ev_doc *d = &o->data->train.v[shots[i]];
		rc = render(p, false, d, a, &t, e);
		ib_val *m = rc ? NULL : msg(a, "user", &t);
		rc = rc ? rc : (!m || ib_list_push(a, l, m)) ? IB_ENOMEM : 0;
		rc = rc ? rc : render(p, true, d, a, &t, e);
		m = rc ? NULL : msg(a, "assistant", &t);
		rc = rc ? rc : (!m || ib_list_push(a, l, m)) ? IB_ENOMEM : 0;
	}
	if (!rc) {
		rc = render(p, false, &o->data->test.v[doc], a, &t, e);
		ib_val *m = rc ? NULL : msg(a, "user", &t);
		rc = rc ? rc : (!m || ib_list_push(a, l, m)) ? IB_ENOMEM : 0;
	}
	ib_buf_free(&t);
	if (rc == IB_ENOMEM)
		return ib_fail(e, rc, "", 0, 0, "out of memory");
	*out = l;
	return rc;
}

/* lm-eval's _create_payload: messages, model, max_tokens, temperature, stop,
 * seed, then the other generation kwargs (top_p). */
static int body_json(ib_arena *a, const ev_run_opts *o, ib_val *msgs, ib_buf *out, ib_error *e)
{
	ib_val *b = ib_v_map(a);
	ib_val *stop = stop_list(a, o->task);
	if (!b || !stop || ib_map_set(a, b, "messages", msgs) ||
	    ib_map_set(a, b, "model", ib_v_str(a, o->model)) ||
	    ib_map_set(a, b, "max_tokens", ib_v_int(a, o->max_tokens)) ||
	    ib_map_set(a, b, "temperature", ib_v_int(a, 0)) || ib_map_set(a, b, "stop", stop) ||
	    ib_map_set(a, b, "seed", ib_v_int(a, o->seed)))
		return ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
	const ib_val *g = gen_kwargs(o->task);
	static const char *const popped[] = {"until",      "do_sample",    "temperature",
	                                     "max_tokens", "max_gen_toks", "top_p"};
	for (size_t i = 0; g && i < g->map.n; i++) {
		const ib_val *k = g->map.kv[i].key;
		bool skip = k->type != IB_V_STR;
		for (size_t j = 0; j < 6 && !skip; j++)
			skip = !strcmp(k->str.s, popped[j]);
		if (!skip && ib_map_set(a, b, k->str.s, g->map.kv[i].val))
			return ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
	}
	if (ib_map_set(a, b, "top_p", ib_v_int(a, 1)))
		return ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
	out->len = 0;
	return ib_json_write(out, b, &IB_JSON_PYTHON, e);
}

static int prompts_new(const ib_val *task, prompts *p, ib_error *e)
{
	*p = (prompts){0};
	int rc = compile_field(task, "doc_to_text", &p->text, &p->text_field, e);
	if (!rc)
		rc = compile_field(task, "doc_to_target", &p->target, &p->target_field, e);
	const ib_val *nf = ib_map_get(task, "num_fewshot");
	p->nshot = nf && nf->type == IB_V_INT && nf->i > 0 ? (size_t)nf->i : 0;
	return rc;
}

static void prompts_free(prompts *p)
{
	chat_tmpl_free(p->text);
	chat_tmpl_free(p->target);
}

int ev_request_body(const ev_run_opts *o, size_t doc, const size_t *shots, size_t nshots,
                    ib_buf *out, ib_error *e)
{
	prompts p;
	ib_arena *a = ib_arena_new();
	if (!a)
		return ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
	int rc = prompts_new(o->task, &p, e);
	ib_val *m;
	if (!rc)
		rc = messages(&p, o, doc, shots, nshots, a, &m, e);
	if (!rc)
		rc = body_json(a, o, m, out, e);
	prompts_free(&p);
	ib_arena_free(a);
	return rc;
}

/* ---- answers ---- */

/* choices[0].message.content, or reasoning_content when that is null, empty
 * or [] (the reference's runtime patch); "" on any error. */
static void answer_text(ib_arena *a, const ib_buf *body, const char **s, size_t *n)
{
	*s = "";
	*n = 0;
	ib_val *j;
	if (!body->data || ib_json_parse(a, "response", body->data, body->len, &j, NULL))
		return;
	const ib_val *ch = ib_map_get(j, "choices");
	if (!ch || ch->type != IB_V_LIST || !ch->list.n)
		return;
	const ib_val *m = ib_map_get(ch->list.v[0], "message");
	const ib_val *c = ib_map_get(m, "content");
	bool empty = !c || c->type == IB_V_NULL || (c->type == IB_V_STR && !c->str.len) ||
	             (c->type == IB_V_LIST && !c->list.n);
	if (empty)
		c = ib_map_get(m, "reasoning_content");
	if (c && c->type == IB_V_STR) {
		*s = c->str.s;
		*n = c->str.len;
	}
}

/* ---- outputs ---- */

static void date_id(char *out, size_t cap, double *unix_s)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	struct tm tm;
	localtime_r(&tv.tv_sec, &tm);
	char b[64];
	strftime(b, sizeof b, "%Y-%m-%dT%H-%M-%S", &tm);
	snprintf(out, cap, "%.32s.%06ld", b, (long)(tv.tv_usec % 1000000));
	*unix_s = (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static const char *task_name(const ib_val *task)
{
	const ib_val *t = ib_map_get(task, "task");
	return t && t->type == IB_V_STR ? t->str.s : "task";
}

#define SET(m, k, v)                                                                               \
	do {                                                                                       \
		ib_val *v_ = (v);                                                                  \
		if (!v_ || ib_map_set(a, (m), (k), v_))                                            \
			return NULL;                                                               \
	} while (0)

static ib_val *results_doc(ib_arena *a, const ev_run_opts *o, const ev_summary *s, double start,
                           double end)
{
	const char *tn = task_name(o->task);
	ib_val *r = ib_v_map(a), *res = ib_v_map(a), *t = ib_v_map(a);
	if (!r || !res || !t)
		return NULL;
	SET(t, "alias", ib_v_str(a, tn));
	for (size_t i = 0; i < s->nfilters; i++) {
		char k[160];
		snprintf(k, sizeof k, "exact_match,%s", s->filters[i]);
		SET(t, k, s->n ? ib_v_float(a, s->mean[i]) : ib_v_str(a, "N/A"));
		snprintf(k, sizeof k, "exact_match_stderr,%s", s->filters[i]);
		SET(t, k, s->n > 1 ? ib_v_float(a, s->se[i]) : ib_v_str(a, "N/A"));
	}
	SET(res, tn, t);
	SET(r, "results", res);
	ib_val *gs = ib_v_map(a);
	SET(gs, tn, ib_v_list(a));
	SET(r, "group_subtasks", gs);
	ib_val *cf = ib_v_map(a);
	SET(cf, tn, (ib_val *)o->task);
	SET(r, "configs", cf);
	const ib_val *md = ib_map_get(ib_map_get(o->task, "metadata"), "version");
	ib_val *ver = ib_v_map(a);
	SET(ver, tn, md ? (ib_val *)md : ib_v_null(a));
	SET(r, "versions", ver);
	const ib_val *nf = ib_map_get(o->task, "num_fewshot");
	ib_val *ns = ib_v_map(a);
	SET(ns, tn, nf ? (ib_val *)nf : ib_v_int(a, 0));
	SET(r, "n-shot", ns);
	ib_val *hib = ib_v_map(a), *hm = ib_v_map(a);
	SET(hm, "exact_match", ib_v_bool(a, true));
	SET(hib, tn, hm);
	SET(r, "higher_is_better", hib);
	ib_val *nsm = ib_v_map(a), *nst = ib_v_map(a);
	SET(nst, "original", ib_v_int(a, (int64_t)o->data->test.n));
	SET(nst, "effective", ib_v_int(a, (int64_t)s->n));
	SET(nsm, tn, nst);
	SET(r, "n-samples", nsm);
	ib_val *c = ib_v_map(a);
	SET(c, "model", ib_v_str(a, "local-chat-completions"));
	SET(c, "model_args",
	    ib_v_str(a, ib_arena_printf(a,
	                                "model=%s,base_url=%s,api_key=EMPTY,eos_string=</s>,"
	                                "max_retries=%d,num_concurrent=%zu,timeout=%g,"
	                                "tokenized_requests=False,max_length=%lld",
	                                o->model, o->base_url, o->http.max_attempts,
	                                o->http.concurrency, o->http.timeout_s,
	                                (long long)o->max_length)));
	SET(c, "batch_size", ib_v_int(a, 1));
	SET(c, "limit", o->limit ? ib_v_int(a, (int64_t)o->limit) : ib_v_null(a));
	ib_val *gk = ib_v_map(a);
	SET(gk, "max_tokens", ib_v_int(a, o->max_tokens));
	SET(gk, "temperature", ib_v_int(a, 0));
	SET(gk, "top_p", ib_v_int(a, 1));
	SET(c, "gen_kwargs", gk);
	SET(c, "random_seed", ib_v_int(a, 0));
	SET(c, "fewshot_seed", ib_v_int(a, o->fewshot_seed));
	SET(r, "config", c);
	SET(r, "date", ib_v_float(a, start));
	SET(r, "lm_eval_version", ib_v_str(a, "0.4.9.2"));
	SET(r, "model_source", ib_v_str(a, "local-chat-completions"));
	SET(r, "model_name", ib_v_str(a, o->model));
	SET(r, "fewshot_as_multiturn", ib_v_bool(a, true));
	SET(r, "chat_template", ib_v_str(a, ""));
	SET(r, "start_time", ib_v_float(a, start));
	SET(r, "end_time", ib_v_float(a, end));
	char secs[64];
	snprintf(secs, sizeof secs, "%.6f", end - start);
	SET(r, "total_evaluation_time_seconds", ib_v_str(a, secs));
	ib_val *ib = ib_v_map(a);
	SET(ib, "producer", ib_v_str(a, "infbench eval (the lm-eval 0.4.9.2 gsm8k protocol)"));
	SET(ib, "failed_requests", ib_v_int(a, (int64_t)s->failed));
	SET(ib, "retried_requests", ib_v_int(a, (int64_t)s->retried));
	SET(r, "infbench", ib);
	return r;
}

static void hash_hex(const char *s, size_t n, char out[65])
{
	ib_sha256_hex(s, n, out);
}

int ev_run(const ev_run_opts *o, const char *dir, const char *suffix, ev_summary *s, ib_error *e)
{
	*s = (ev_summary){0};
	size_t n = o->limit && o->limit < o->data->test.n ? o->limit : o->data->test.n;
	ib_arena *a = ib_arena_new();
	prompts p;
	ev_task *task = NULL;
	ib_buf *bodies = calloc(n + 1, sizeof *bodies);
	ib_buf *ctx = calloc(n + 1, sizeof *ctx); /* the messages JSON, lm-eval's arg_0 */
	ev_http_result *res = calloc(n + 1, sizeof *res);
	double *sc[MAXF] = {0};
	ib_buf ans[MAXF] = {{0}};
	const char **texts = calloc(n + 1, sizeof *texts);
	size_t *tlens = calloc(n + 1, sizeof *tlens);
	int rc = prompts_new(o->task, &p, e);
	if (!a || !bodies || !ctx || !res || !texts || !tlens)
		rc = rc ? rc : ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
	if (!rc && p.nshot > o->data->train.n)
		rc = ib_fail(e, IB_EINVAL, "", 0, 0,
		             "%zu-shot needs %zu train questions, the dataset has %zu", p.nshot,
		             p.nshot, o->data->train.n);
	if (!rc)
		rc = ev_task_new(o->task, &task, e);
	size_t nf = task ? ev_task_nfilters(task) : 0;
	for (size_t i = 0; i < nf && !rc; i++)
		if (!(sc[i] = calloc(n + 1, sizeof *sc[i])))
			rc = ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
	/* requests, in document order: the few-shot generator advances per doc */
	ib_mt m;
	ib_mt_py_seed(&m, o->fewshot_seed);
	size_t shots[64];
	for (size_t d = 0; d < n && !rc; d++) {
		ib_arena *tmp = ib_arena_new();
		ib_val *msgs;
		if (!tmp) {
			rc = ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
			break;
		}
		size_t k = p.nshot < 64 ? p.nshot : 64;
		ev_py_sample(&m, o->data->train.n, k, shots);
		rc = messages(&p, o, d, shots, k, tmp, &msgs, e);
		if (!rc)
			rc = ib_json_write(&ctx[d], msgs, &IB_JSON_PYTHON, e);
		if (!rc)
			rc = body_json(tmp, o, msgs, &bodies[d], e);
		ib_arena_free(tmp);
	}
	double start, end;
	char ts[64];
	date_id(ts, sizeof ts, &start);
	int64_t t0 = ib_now_ns();
	if (!rc)
		rc = ev_http_run(&o->http, bodies, n, res, e);
	s->seconds = (double)(ib_now_ns() - t0) / 1e9;
	end = start + s->seconds;
	/* scores */
	for (size_t d = 0; d < n && !rc; d++) {
		if (!res[d].ok)
			s->failed++;
		if (res[d].attempts > 1)
			s->retried++;
		answer_text(a, &res[d].body, &texts[d], &tlens[d]);
		const ev_doc *doc = &o->data->test.v[d];
		double x[MAXF];
		rc = ev_task_score(task, texts[d], tlens[d], doc->answer, doc->alen, ans, x, e);
		for (size_t i = 0; i < nf && !rc; i++)
			sc[i][d] = x[i];
	}
	s->n = n;
	s->nfilters = nf < 8 ? nf : 8;
	for (size_t i = 0; i < s->nfilters && !rc; i++) {
		s->filters[i] = ev_task_filter(task, i);
		ev_mean_stderr(sc[i], n, &s->mean[i], &s->se[i]);
	}
	/* samples: one line per filter and document, filter by filter */
	ib_buf out = {0};
	const char *tn = task_name(o->task);
	for (size_t i = 0; i < nf && !rc; i++) {
		for (size_t d = 0; d < n && !rc; d++) {
			const ev_doc *doc = &o->data->test.v[d];
			double x[MAXF];
			rc = ev_task_score(task, texts[d], tlens[d], doc->answer, doc->alen, ans, x,
			                   e);
			if (rc)
				break;
			ib_arena *tmp = ib_arena_new();
			ib_val *l = tmp ? ib_v_map(tmp) : NULL, *dv = tmp ? ib_v_map(tmp) : NULL;
			char h[65];
			if (!l || !dv) {
				ib_arena_free(tmp);
				rc = ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
				break;
			}
			ib_arena *keep = a;
			a = tmp;
#define L(k, v)                                                                                    \
	do {                                                                                       \
		ib_val *v_ = (v);                                                                  \
		if (!rc && (!v_ || ib_map_set(a, l, (k), v_)))                                     \
			rc = IB_ENOMEM;                                                            \
	} while (0)
			ib_val *q = ib_v_strn(a, doc->question, doc->qlen),
			       *tg = ib_v_strn(a, doc->answer, doc->alen);
			if (!q || !tg || ib_map_set(a, dv, "question", q) ||
			    ib_map_set(a, dv, "answer", tg))
				rc = IB_ENOMEM;
			L("doc_id", ib_v_int(a, (int64_t)d));
			L("doc", dv);
			L("target", tg);
			ib_val *args = ib_v_map(a), *g0 = ib_v_map(a), *gk = ib_v_map(a);
			if (!args || !g0 || !gk ||
			    ib_map_set(a, gk, "until", stop_list(a, o->task)) ||
			    ib_map_set(a, gk, "do_sample", ib_v_bool(a, false)) ||
			    ib_map_set(a, gk, "temperature", ib_v_int(a, 0)) ||
			    ib_map_set(a, gk, "max_tokens", ib_v_int(a, o->max_tokens)) ||
			    ib_map_set(a, gk, "top_p", ib_v_int(a, 1)) ||
			    ib_map_set(a, g0, "arg_0", ib_v_strn(a, ctx[d].data, ctx[d].len)) ||
			    ib_map_set(a, g0, "arg_1", gk) || ib_map_set(a, args, "gen_args_0", g0))
				rc = IB_ENOMEM;
			L("arguments", args);
			ib_val *r1 = ib_v_list(a), *r0 = ib_v_list(a), *fr = ib_v_list(a);
			ib_val *tx = ib_v_strn(a, texts[d], tlens[d]);
			if (!r1 || !r0 || !fr || !tx || ib_list_push(a, r1, tx) ||
			    ib_list_push(a, r0, r1) ||
			    ib_list_push(a, fr, ib_v_strn(a, ans[i].data, ans[i].len)))
				rc = IB_ENOMEM;
			L("resps", r0);
			L("filtered_resps", fr);
			L("filter", ib_v_str(a, ev_task_filter(task, i)));
			ib_val *ml = ib_v_list(a);
			if (!ml || ib_list_push(a, ml, ib_v_str(a, "exact_match")))
				rc = IB_ENOMEM;
			L("metrics", ml);
			ib_buf dj = {0};
			ib_json_opts jo = {.indent = 2};
			if (!rc && !ib_json_write(&dj, dv, &jo, NULL)) {
				hash_hex(dj.data, dj.len, h);
				L("doc_hash", ib_v_str(a, h));
			}
			ib_buf_free(&dj);
			hash_hex(ctx[d].data ? ctx[d].data : "", ctx[d].len, h);
			L("prompt_hash", ib_v_str(a, h));
			hash_hex(doc->answer, doc->alen, h);
			L("target_hash", ib_v_str(a, h));
			L("exact_match", ib_v_float(a, x[i]));
			if (!res[d].ok)
				L("infbench_error", ib_v_str(a, res[d].error));
#undef L
			a = keep;
			if (rc == IB_ENOMEM)
				rc = ib_fail(e, rc, "", 0, 0, "out of memory");
			ib_json_opts lo = {.indent = -1};
			rc = rc ? rc : ib_json_write(&out, l, &lo, e);
			rc = rc ? rc : ib_buf_putc(&out, '\n');
			ib_arena_free(tmp);
		}
	}
	if (!rc || ib_buf_error(&out)) { /* a buffer error is reported naming the file */
		snprintf(s->samples_path, sizeof s->samples_path, "%s/samples_%s_%s%s.jsonl", dir,
		         tn, ts, suffix ? suffix : "");
		rc = ib_buf_write_file(s->samples_path, &out, e);
	}
	if (!rc) {
		ib_val *doc = results_doc(a, o, s, start, end);
		ib_json_opts jo = {.indent = 2};
		snprintf(s->results_path, sizeof s->results_path, "%s/results_%s%s.json", dir, ts,
		         suffix ? suffix : "");
		rc = doc ? ib_json_write_path(s->results_path, doc, &jo, e)
		         : ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
	}
	ib_buf_free(&out);
	for (size_t d = 0; d < n; d++) {
		if (bodies)
			ib_buf_free(&bodies[d]);
		if (ctx)
			ib_buf_free(&ctx[d]);
		if (res)
			ib_buf_free(&res[d].body);
	}
	for (size_t i = 0; i < MAXF; i++) {
		free(sc[i]);
		ib_buf_free(&ans[i]);
	}
	free(bodies);
	free(ctx);
	free(res);
	free(texts);
	free(tlens);
	ev_task_free(task);
	prompts_free(&p);
	ib_arena_free(a);
	return rc;
}

/* ---- meta_env.json ---- */

static const char *env(const char *name, const char *def)
{
	const char *v = getenv(name);
	return v && *v ? v : def;
}

static const char *env2(const char *a, const char *b, const char *def)
{
	return env(a, env(b, def));
}

static bool truthy(const char *v)
{
	char l[8] = {0};
	for (size_t i = 0; v[i] && i < 7; i++)
		l[i] = (char)(v[i] >= 'A' && v[i] <= 'Z' ? v[i] + 32 : v[i]);
	return strlen(v) < 7 &&
	       (!strcmp(l, "1") || !strcmp(l, "true") || !strcmp(l, "yes") || !strcmp(l, "on"));
}

/* _resolve_disagg_ep: ep 1 with the enable flag means the TP size */
static const char *disagg_ep(const char *ep, const char *flag, const char *tp)
{
	return !strcmp(ep, "1") && truthy(flag) ? tp : ep;
}

/* a JSON number from an env value: kept as written when it is an integer
 * (the reference pastes it into the JSON text), else a string */
static int num(ib_buf *b, const char *key, const char *v)
{
	bool digits = *v != '\0';
	for (const char *p = v; *p && digits; p++)
		digits = (*p >= '0' && *p <= '9') || (p == v && *p == '-' && p[1]);
	if (digits)
		return ib_buf_printf(b, "  \"%s\": %s,\n", key, v);
	int rc = ib_buf_printf(b, "  \"%s\": ", key);
	rc = rc ? rc : ib_json_write_str(b, v, strlen(v), false);
	return rc ? rc : ib_buf_puts(b, ",\n");
}

static int str(ib_buf *b, const char *key, const char *v, bool last)
{
	int rc = ib_buf_printf(b, "  \"%s\": ", key);
	rc = rc ? rc : ib_json_write_str(b, v, strlen(v), false);
	return rc ? rc : ib_buf_puts(b, last ? "\n" : ",\n");
}

int ev_write_meta_env(const char *dir, const int64_t *concs, const bool *failed, size_t nconcs,
                      ib_error *e)
{
	/* bridge_disagg_eval_metadata */
	const char *tp = env("PREFILL_TP", env("PREFILL_TP_SIZE", env("TP", "1")));
	const char *ptp = tp;
	/* Beyond the reference (docs/deviations.md): its bridge overwrites
	 * EP_SIZE and DP_ATTENTION with the prefill values (1, false) when no
	 * PREFILL_* variable is set, so a single-node run's EP and DP attention
	 * were lost; here they are the fallbacks of the prefill/decode ones. */
	const char *ep1 = env("EP_SIZE", "1"), *dp1 = env("DP_ATTENTION", "false");
	const char *pep = disagg_ep(env("PREFILL_EP", ep1), env("PREFILL_ENABLE_EP", "false"),
	                            env("PREFILL_TP_SIZE", env("PREFILL_TP", "1")));
	const char *pnw = env("PREFILL_NUM_WORKERS", env("xP", "1"));
	const char *dtp = env("DECODE_TP", env("DECODE_TP_SIZE", tp));
	const char *dep = disagg_ep(env("DECODE_EP", ep1), env("DECODE_ENABLE_EP", "false"),
	                            env("DECODE_TP_SIZE", env("DECODE_TP", "1")));
	const char *dnw = env("DECODE_NUM_WORKERS", env("yD", "1"));
	bool pdp = truthy(
	    env("PREFILL_DP_ATTN", env("PREFILL_DP_ATTENTION", env("PREFILL_ENABLE_DP", dp1))));
	bool ddp =
	    truthy(env("DECODE_DP_ATTN", env("DECODE_DP_ATTENTION", env("DECODE_ENABLE_DP", dp1))));
	const char *fw = env("FRAMEWORK", ""), *prec = env("PRECISION", "");
	char pfw[128] = "", pprec[128] = "";
	const char *rf = env("RESULT_FILENAME", "");
	if ((!*fw || !*prec) && *rf) {
		/* .*_<prec>_<fw>_tp.* (greedy: the last such pair) */
		const char *tpat = NULL;
		for (const char *p = strstr(rf, "_tp"); p; p = strstr(p + 1, "_tp"))
			tpat = p;
		if (tpat) {
			const char *f1 = tpat, *s1 = f1;
			while (s1 > rf && s1[-1] != '_')
				s1--;
			const char *p1e = s1 > rf ? s1 - 1 : NULL, *p1s = p1e;
			while (p1s && p1s > rf && p1s[-1] != '_')
				p1s--;
			if (p1e && p1s > rf && f1 > s1 && p1e > p1s) {
				snprintf(pprec, sizeof pprec, "%.*s", (int)(p1e - p1s), p1s);
				snprintf(pfw, sizeof pfw, "%.*s", (int)(f1 - s1), s1);
			}
		}
		if (!*prec && *pprec)
			prec = pprec;
		if (!*fw && *pfw)
			fw = pfw;
	}
	const char *conc = nconcs ? NULL : env("CONC", "1");
	char cbuf[32];
	if (nconcs) {
		snprintf(cbuf, sizeof cbuf, "%lld", (long long)concs[0]);
		conc = cbuf;
	}
	ib_buf b = {0};
	int rc = ib_buf_printf(&b, "{\n  \"is_multinode\": %s,\n",
	                       !strcmp(env("IS_MULTINODE", "false"), "true") ? "true" : "false");
	rc = rc ? rc : str(&b, "framework", *fw ? fw : "unknown", false);
	rc = rc ? rc : str(&b, "precision", *prec ? prec : "unknown", false);
	rc = rc ? rc : str(&b, "spec_decoding", env("SPEC_DECODING", ""), false);
	rc = rc ? rc : str(&b, "recipe_fingerprint", env("RECIPE_FINGERPRINT", ""), false);
	rc = rc ? rc : num(&b, "tp", tp);
	rc = rc ? rc : num(&b, "pp", env("PP_SIZE", "1"));
	rc = rc ? rc : num(&b, "dcp_size", env("DCP_SIZE", "1"));
	rc = rc ? rc : num(&b, "pcp_size", env("PCP_SIZE", "1"));
	rc = rc ? rc : num(&b, "conc", conc);
	if (nconcs) {
		const char *keys[] = {"eval_concs", "completed_eval_concs", "failed_eval_concs"};
		for (int k = 0; k < 3 && !rc; k++) {
			rc = ib_buf_printf(&b, "  \"%s\": [", keys[k]);
			bool first = true;
			for (size_t i = 0; i < nconcs && !rc; i++) {
				if ((k == 1 && failed[i]) || (k == 2 && !failed[i]))
					continue;
				rc = ib_buf_printf(&b, "%s%lld", first ? "" : ", ",
				                   (long long)concs[i]);
				first = false;
			}
			rc = rc ? rc : ib_buf_puts(&b, "],\n");
		}
	}
	rc = rc ? rc : num(&b, "ep", pep);
	rc = rc ? rc : ib_buf_printf(&b, "  \"dp_attention\": %s,\n", pdp ? "true" : "false");
	rc = rc ? rc : num(&b, "prefill_tp", ptp);
	rc = rc ? rc : num(&b, "prefill_pp", env2("PREFILL_PP_SIZE", "PP_SIZE", "1"));
	rc = rc ? rc : num(&b, "prefill_dcp_size", env2("PREFILL_DCP_SIZE", "DCP_SIZE", "1"));
	rc = rc ? rc : num(&b, "prefill_pcp_size", env2("PREFILL_PCP_SIZE", "PCP_SIZE", "1"));
	rc = rc ? rc : num(&b, "prefill_ep", pep);
	rc = rc ? rc
	        : ib_buf_printf(&b, "  \"prefill_dp_attention\": %s,\n", pdp ? "true" : "false");
	rc = rc ? rc : num(&b, "prefill_num_workers", pnw);
	rc = rc ? rc : num(&b, "decode_tp", dtp);
	rc = rc ? rc : num(&b, "decode_pp", env2("DECODE_PP_SIZE", "PP_SIZE", "1"));
	rc = rc ? rc : num(&b, "decode_dcp_size", env2("DECODE_DCP_SIZE", "DCP_SIZE", "1"));
	rc = rc ? rc : num(&b, "decode_pcp_size", env2("DECODE_PCP_SIZE", "PCP_SIZE", "1"));
	rc = rc ? rc : num(&b, "decode_ep", dep);
	rc =
	    rc ? rc : ib_buf_printf(&b, "  \"decode_dp_attention\": %s,\n", ddp ? "true" : "false");
	rc = rc ? rc : num(&b, "decode_num_workers", dnw);
	rc = rc ? rc : str(&b, "model", env("MODEL_NAME", env("MODEL", "")), false);
	rc = rc ? rc : str(&b, "infmax_model_prefix", env("MODEL_PREFIX", "unknown"), false);
	rc = rc ? rc : str(&b, "hw", env("RUNNER_TYPE", "unknown"), false);
	rc = rc ? rc : str(&b, "isl", env("ISL", "0"), false);
	rc = rc ? rc : str(&b, "osl", env("OSL", "0"), true);
	rc = rc ? rc : ib_buf_puts(&b, "}\n");
	char path[4096];
	snprintf(path, sizeof path, "%s/meta_env.json", dir);
	rc = ib_buf_write_file(path, &b, e); /* only buffer errors above: named with path */
	ib_buf_free(&b);
	return rc;
}
