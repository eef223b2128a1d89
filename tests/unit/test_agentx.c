/* Unit tests of src/agentx: the Weka trace parser and writer, the corpus in
 * the Hugging Face cache, and the stand-in corpus generator. */
#include "agentx/agentx.h"
#include "agentx/replay_priv.h"
#include "fmt/fmt.h"
#include "tok/tok.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

static const char *sample =
    "{\"id\": \"trace-0001\", \"models\": [\"m\"], \"block_size\": 64, \"hash_id_scope\": "
    "\"local\", \"system_tokens\": 10, \"requests\": [\n"
    "  {\"t\": 0.0, \"type\": \"n\", \"model\": \"m\", \"in\": 128, \"hash_ids\": [5, 6], "
    "\"api_time\": 1.5, \"think_time\": 2, \"out\": 7},\n"
    "  {\"t\": 3.5, \"type\": \"subagent\", \"agent_id\": \"agent-1\", \"subagent_type\": "
    "\"Explore\", \"duration_ms\": 900, \"total_tokens\": 70, \"status\": \"completed\", "
    "\"models\": [\"h\"], \"requests\": [{\"t\": 0.0, \"type\": \"n\", \"in\": 64, \"out\": 6, "
    "\"hash_ids\": [5]}]},\n"
    "  {\"t\": 4.4, \"type\": \"s\", \"in\": 192, \"hash_ids\": [5, 6, 9], \"output_length\": "
    "11, \"ttft\": 0.25, \"stop\": \"end_turn\"}]}\n";

static char *one_line(const char *s)
{
	char *o = strdup(s);
	for (char *p = o; *p; p++)
		if (*p == '\n')
			*p = ' ';
	size_t n = strlen(o);
	o[n - 1] = '\n';
	return o;
}

Test(agentx, parse_fields)
{
	ib_arena *a = ib_arena_new();
	ax_corpus c = {0};
	ib_error e = {0};
	char *line = one_line(sample);
	cr_assert_eq(ax_parse(a, "t.jsonl", line, strlen(line), &c, &e), 0, "%s", e.msg);
	cr_assert_eq(c.n, 1);
	const ax_trace *t = &c.t[0];
	cr_assert_str_eq(t->id, "trace-0001");
	cr_assert_eq(t->block_size, 64);
	cr_assert_eq(t->system_tokens, 10);
	cr_assert_eq(t->n, 3);
	cr_assert_not(t->entries[0].is_subagent);
	cr_assert_eq(t->entries[0].r.in, 128);
	cr_assert_eq(t->entries[0].r.out, 7);
	cr_assert_eq(t->entries[0].r.nhash, 2);
	cr_assert_eq(t->entries[0].r.hash_ids[1], 6);
	cr_assert_eq(t->entries[0].r.think_time, 2.0);
	cr_assert(t->entries[1].is_subagent);
	cr_assert_str_eq(t->entries[1].s.agent_id, "agent-1");
	cr_assert_eq(t->entries[1].s.duration_ms, 900);
	cr_assert_eq(t->entries[1].s.nreq, 1);
	cr_assert_eq(t->entries[1].s.req[0].out, 6);
	cr_assert_eq(t->entries[2].r.type, 's');
	cr_assert_eq(t->entries[2].r.out, 11); /* output_length */
	cr_assert(t->entries[2].r.has_ttft);
	cr_assert_eq(t->entries[2].r.ttft, 0.25);
	/* written and read back: the same bytes */
	ib_buf w1 = {0}, w2 = {0};
	cr_assert_eq(ax_trace_write(&w1, t), 0);
	ax_corpus c2 = {0};
	cr_assert_eq(ax_parse(a, "w", w1.data, w1.len, &c2, &e), 0, "%s", e.msg);
	cr_assert_eq(ax_trace_write(&w2, &c2.t[0]), 0);
	cr_assert_str_eq(w1.data, w2.data);
	cr_assert(strstr(w1.data, "\"out\": 11, \"hash_ids\": [5, 6, 9]"), "%s", w1.data);
	ib_buf_free(&w1);
	ib_buf_free(&w2);
	/* a JSON list of traces */
	ax_corpus c3 = {0};
	ib_buf l = {0};
	ib_buf_printf(&l, "\n [%s, %s]", sample, sample);
	cr_assert_eq(ax_parse(a, "t.json", l.data, l.len, &c3, &e), 0, "%s", e.msg);
	cr_assert_eq(c3.n, 2);
	ib_buf_free(&l);
	free(line);
	ib_arena_free(a);
}

/* Parses text and expects rc, with line and a substring of the message. */
static void expect_error(const char *text, int rc, int line, const char *msg)
{
	ib_arena *a = ib_arena_new();
	ax_corpus c = {0};
	ib_error e = {0};
	cr_assert_eq(ax_parse(a, "bad.jsonl", text, strlen(text), &c, &e), rc, "%s", text);
	cr_assert_str_eq(e.file, "bad.jsonl");
	cr_assert_eq(e.line, line, "line %d: %s", e.line, e.msg);
	cr_assert(strstr(e.msg, msg), "%s", e.msg);
	ib_arena_free(a);
}

Test(agentx, errors_name_file_line_and_field)
{
	char *line = one_line(sample);
	ib_buf b = {0};
	ib_buf_printf(&b, "%s\n%s{\"id\": \"t\", \"requests\": [}\n", line, line);
	expect_error(b.data, IB_EPARSE, 4, "");
	expect_error("{\"id\": \"x\", \"requests\": [{\"t\": 0, \"type\": \"n\", \"out\": 1, "
	             "\"hash_ids\": []}]}",
	             IB_EINVAL, 1, "trace 'x': requests[0]: missing field 'in'");
	expect_error("\n{\"id\": \"x\", \"requests\": [{\"t\": 0, \"type\": \"n\", \"in\": 1, "
	             "\"out\": 1, \"hash_ids\": [1, \"2\"]}]}",
	             IB_EINVAL, 2, "requests[0].hash_ids[1]: must be an integer, not str");
	expect_error("{\"id\": \"x\", \"requests\": [{\"t\": 0, \"type\": \"q\", \"in\": 1, "
	             "\"out\": 1, \"hash_ids\": []}]}",
	             IB_EINVAL, 1, "requests[0].type: must be \"n\", \"s\" or \"subagent\"");
	expect_error("{\"id\": \"x\", \"requests\": [{\"t\": 0, \"type\": \"subagent\", "
	             "\"agent_id\": \"a\", \"requests\": [{\"type\": \"subagent\"}]}]}",
	             IB_EINVAL, 1, "requests[0].requests[0]: a subagent cannot spawn subagents");
	expect_error("{\"id\": \"x\", \"requests\": [{\"t\": -1, \"type\": \"n\", \"in\": 1, "
	             "\"out\": 1, \"hash_ids\": []}]}",
	             IB_EINVAL, 1, "requests[0].t: must be a non-negative number");
	expect_error("{\"requests\": []}", IB_EINVAL, 1, "trace: missing field 'id'");
	expect_error("{\"id\": \"x\", \"requests\": []}", IB_EINVAL, 1, "must not be empty");
	expect_error("[1]", IB_EINVAL, 1, "a trace must be a JSON object");
	ib_buf_free(&b);
	free(line);
}

static char cache[256];

static void cache_setup(void)
{
	snprintf(cache, sizeof cache, "/tmp/ib_test_agentx_XXXXXX");
	cr_assert(mkdtemp(cache));
	setenv("HF_HUB_CACHE", cache, 1);
}

static void cache_teardown(void)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache);
	cr_assert_eq(system(cmd), 0);
}

static void snapshot(const char *ds, const char *rev, const char *text, time_t mtime)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", cache, ds);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/%s/snapshots", cache, ds);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/%s/snapshots/%s", cache, ds, rev);
	cr_assert_eq(mkdir(p, 0755), 0);
	char f[600];
	snprintf(f, sizeof f, "%s/traces.jsonl", p);
	FILE *fp = text ? fopen(f, "w") : NULL;
	if (text) {
		cr_assert(fp);
		fputs(text, fp);
		fclose(fp);
	}
	struct timeval tv[2] = {{mtime, 0}, {mtime, 0}};
	cr_assert_eq(utimes(p, tv), 0);
}

Test(agentx, hf_cache_newest_snapshot, .init = cache_setup, .fini = cache_teardown)
{
	char *line = one_line(sample);
	snapshot("datasets--semianalysisai--cc-traces-weka-062126", "aaa", line, 1000);
	snapshot("datasets--semianalysisai--cc-traces-weka-062126-256k", "bbb", NULL, 3000);
	snapshot("datasets--semianalysisai--cc-traces-weka-062126-256k", "ccc", line, 2000);
	char *dir;
	cr_assert_eq(ax_hf_snapshot(NULL, &dir, NULL), 1);
	/* bbb is newer but holds no trace file */
	cr_assert(strstr(dir, "-256k/snapshots/ccc"), "%s", dir);
	free(dir);
	ib_arena *a = ib_arena_new();
	ax_corpus c = {0};
	ib_error e = {0};
	cr_assert_eq(ax_corpus_load(a, "semianalysisai/cc-traces-weka-062126", &c, &e), 0, "%s",
	             e.msg);
	cr_assert_eq(c.n, 1);
	cr_assert_str_eq(c.t[0].id, "trace-0001");
	cr_assert_eq(ax_corpus_load(a, "semianalysisai/other", &c, &e), IB_ENOENT);
	cr_assert(strstr(e.msg, "never downloaded"), "%s", e.msg);
	cr_assert_eq(ax_corpus_load(a, "/no/such/file.jsonl", &c, &e), IB_ENOENT);
	cr_assert(strstr(e.file, "/no/such/file.jsonl"), "%s", e.file);
	ib_arena_free(a);
	free(line);
}

Test(agentx, reference_corpus_per_model_prefix)
{
	const char *ds, *ld;
	ib_error e = {0};
	/* the 1M-context families replay the full corpus, the others its -256k cut */
	const char *full[] = {"dsv4", "dsv4dspark", "glm5.2", "minimaxm3", "kimik3"};
	for (size_t i = 0; i < sizeof full / sizeof *full; i++) {
		cr_assert_eq(ax_reference_corpus(full[i], NULL, &ld, &ds, &e), 0);
		cr_assert_str_eq(ds, "semianalysisai/cc-traces-weka-062126", "%s", full[i]);
		cr_assert_str_eq(ld, "semianalysis_cc_traces_weka_062126");
	}
	const char *cut[] = {"dsr1", "qwen3.5", "gptoss", "glm5", "minimaxm2.5", "kimik2.5", ""};
	for (size_t i = 0; i < sizeof cut / sizeof *cut; i++) {
		cr_assert_eq(ax_reference_corpus(cut[i], "", NULL, &ds, &e), 0);
		cr_assert_str_eq(ds, "semianalysisai/cc-traces-weka-062126-256k", "%s", cut[i]);
	}
	/* WEKA_LOADER_OVERRIDE names the loader, whatever the model */
	cr_assert_eq(ax_reference_corpus("dsv4", "semianalysis_cc_traces_weka_with_subagents_256k",
	                                 NULL, &ds, &e),
	             0);
	cr_assert_str_eq(ds, "semianalysisai/cc-traces-weka-061526-256k");
	cr_assert_eq(ax_reference_corpus("gptoss",
	                                 "semianalysis_cc_traces_weka_with_subagents_060226", NULL,
	                                 &ds, &e),
	             0);
	cr_assert_str_eq(ds, "semianalysisai/cc-traces-weka-with-subagents-060226");
	cr_assert_eq(ax_reference_corpus("gptoss", "cc_traces", NULL, &ds, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "unknown WEKA_LOADER_OVERRIDE='cc_traces'. Allowed: "
	                        "semianalysis_cc_traces_weka_with_subagents, "),
	          "%s", e.msg);
	cr_assert(strstr(e.msg, "semianalysis_cc_traces_weka_062126_256k"), "%s", e.msg);
}

Test(agentx, generator_is_deterministic_and_per_trace)
{
	ax_gen_opts o;
	ax_gen_defaults(&o);
	o.traces = 5;
	ib_arena *a = ib_arena_new();
	ax_trace t1, t2;
	ib_error e = {0};
	cr_assert_eq(ax_gen_trace(a, &o, 3, &t1, &e), 0, "%s", e.msg);
	o.traces = 50; /* trace 3 does not depend on the count */
	cr_assert_eq(ax_gen_trace(a, &o, 3, &t2, &e), 0, "%s", e.msg);
	ib_buf b1 = {0}, b2 = {0};
	ax_trace_write(&b1, &t1);
	ax_trace_write(&b2, &t2);
	cr_assert_str_eq(b1.data, b2.data);
	o.seed = 43;
	cr_assert_eq(ax_gen_trace(a, &o, 3, &t2, &e), 0);
	b2.len = 0;
	ax_trace_write(&b2, &t2);
	cr_assert_str_neq(b1.data, b2.data);
	ib_buf_free(&b1);
	ib_buf_free(&b2);
	ib_arena_free(a);
}

Test(agentx, generator_shape)
{
	ax_gen_opts o;
	ax_gen_defaults(&o);
	o.compact_rate = 0;
	o.subagent_rate = 0.5;
	o.background_rate = 1;
	o.long_tail = 0.5;
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	int64_t biggest = 0;
	size_t subagents = 0;
	for (size_t i = 0; i < 40; i++) {
		ax_trace t;
		cr_assert_eq(ax_gen_trace(a, &o, i, &t, &e), 0, "%s", e.msg);
		const ax_request *prev = NULL;
		double join_after = 0;
		size_t last_parent = 0;
		for (size_t k = 0; k < t.n; k++)
			if (!t.entries[k].is_subagent)
				last_parent = k;
		for (size_t k = 0; k < t.n; k++) {
			const ax_entry *en = &t.entries[k];
			if (en->is_subagent) {
				subagents++;
				/* the subagent shares the parent's system blocks */
				int64_t sys = (o.system_tokens + o.tool_tokens + 63) / 64;
				cr_assert(memcmp(en->s.req[0].hash_ids, t.entries[0].r.hash_ids,
				                 (size_t)sys * sizeof(int64_t)) == 0);
				double end = en->s.t + en->s.duration_ms / 1000.0;
				join_after = end > join_after ? end : join_after;
				continue;
			}
			const ax_request *r = &en->r;
			cr_assert_eq(r->in, (int64_t)r->nhash * 64);
			cr_assert_leq(r->in + r->out, o.max_context);
			cr_assert_geq(r->out, 1);
			if (prev) {
				/* the previous context is a prefix (no compaction) and grew by
				 * at least the previous output's blocks */
				cr_assert(r->nhash >=
				          prev->nhash + (size_t)((prev->out + 63) / 64));
				cr_assert(!memcmp(r->hash_ids, prev->hash_ids,
				                  prev->nhash * sizeof(int64_t)));
				cr_assert_geq(r->t + 1e-9,
				              prev->t + prev->api_time + prev->think_time);
				cr_assert_geq(r->t + 0.002, join_after,
				              "a parent turn before its join");
			}
			prev = r;
			biggest = r->in > biggest ? r->in : biggest;
		}
		cr_assert(t.entries[t.n - 1].is_subagent && last_parent < t.n - 1,
		          "background subagents come last");
	}
	cr_assert_gt(subagents, 40);
	cr_assert_gt(biggest, o.context.hi, "no trace in the long-context tail");
	ib_arena_free(a);
}

Test(agentx, generator_options_checked)
{
	ax_gen_opts o;
	ax_gen_defaults(&o);
	ib_error e = {0};
	cr_assert_eq(ax_gen_check(&o, &e), 0, "%s", e.msg);
	o.turns = (ax_range){5, 2};
	cr_assert_eq(ax_gen_check(&o, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "--turns"), "%s", e.msg);
	ax_gen_defaults(&o);
	o.long_tail = 1.5;
	cr_assert_eq(ax_gen_check(&o, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "--long-tail"), "%s", e.msg);
	ax_gen_defaults(&o);
	o.max_context = 1000;
	cr_assert_eq(ax_gen_check(&o, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "--max-context"), "%s", e.msg);
}

/* ---- the lane scheduler, driven in model time ---- */

static const char *sched_trace =
    "{\"id\": \"a\", \"requests\": ["
    "{\"t\": 0, \"type\": \"n\", \"in\": 64, \"out\": 5, \"hash_ids\": [1], \"think_time\": 5},"
    "{\"t\": 1, \"type\": \"subagent\", \"agent_id\": \"agent-1\", \"requests\": ["
    "{\"t\": 0, \"type\": \"n\", \"in\": 64, \"out\": 3, \"hash_ids\": [1], \"think_time\": 1},"
    "{\"t\": 1, \"type\": \"n\", \"in\": 128, \"out\": 3, \"hash_ids\": [1, 2], \"think_time\": "
    "1}]},"
    "{\"t\": 9, \"type\": \"n\", \"in\": 128, \"out\": 6, \"hash_ids\": [1, 3], \"think_time\": 7},"
    "{\"t\": 20, \"type\": \"n\", \"in\": 192, \"out\": 7, \"hash_ids\": [1, 3, 4], "
    "\"think_time\": 0},"
    "{\"t\": 30, \"type\": \"subagent\", \"agent_id\": \"agent-2\", \"requests\": ["
    "{\"t\": 0, \"type\": \"n\", \"in\": 64, \"out\": 2, \"hash_ids\": [1]}]}]}\n";

typedef struct {
	ax_dispatch d[64];
	double at[64];
	size_t n;
} sched_log;

/* Runs s with every request taking `lat` seconds until n dispatches. */
static void drive(ax_sched *s, double lat, size_t n, sched_log *log)
{
	double now = 0;
	uint64_t fly[64];
	double end[64];
	size_t nf = 0;
	log->n = 0;
	while (log->n < n) {
		ax_dispatch d;
		while (log->n < n && ax_sched_next(s, now, &d)) {
			log->d[log->n] = d, log->at[log->n++] = now;
			fly[nf] = d.id, end[nf++] = now + lat;
		}
		if (log->n >= n)
			break;
		double t = ax_sched_next_due(s);
		size_t first = nf;
		for (size_t i = 0; i < nf; i++)
			if (end[i] <= t && (first == nf || end[i] < end[first]))
				first = i;
		cr_assert(first < nf || isfinite(t), "the scheduler stalled");
		if (first < nf) {
			now = end[first];
			cr_assert_eq(ax_sched_done(s, fly[first], now), 0);
			fly[first] = fly[nf - 1], end[first] = end[--nf];
		} else
			now = t;
	}
}

static ax_sched *sched_of(ib_arena *a, const char *text, ax_sched_opts *o, ax_corpus *c)
{
	ib_error e = {0};
	cr_assert_eq(ax_parse(a, "s.jsonl", text, strlen(text), c, &e), 0, "%s", e.msg);
	o->corpus = c;
	ax_sched *s;
	cr_assert_eq(ax_sched_new(o, 0, &s, &e), 0, "%s", e.msg);
	return s;
}

Test(agentx, sched_think_join_background_recycle)
{
	ib_arena *a = ib_arena_new();
	ax_corpus c = {0};
	ax_sched_opts o = {.lanes = 1, .global_idle_cap = 10, .tree_idle_cap = 300};
	ax_sched *s = sched_of(a, sched_trace, &o, &c);
	cr_assert(ax_sched_profiling(s));
	sched_log log;
	drive(s, 2.0, 8, &log);
	/* turn 0 at 0, done 2; agent-1 at 2 (done 4) and 5 (done 7); the join:
	 * turn 1 at 7 + 5; turn 2 at 14 + 7; agent-2 in the background at 23;
	 * drained at 25: the lane replays from turn 0 */
	static const double at[] = {0, 2, 5, 12, 21, 23, 25};
	static const bool sub[] = {false, true, true, false, false, true, false};
	for (size_t i = 0; i < 7; i++) {
		cr_assert_eq(log.at[i], at[i], "dispatch %zu at %g, expected %g", i, log.at[i],
		             at[i]);
		cr_assert_eq(log.d[i].subagent, sub[i], "dispatch %zu", i);
		cr_assert_not(log.d[i].warmup);
	}
	cr_assert_eq(log.d[2].sub_req, 1);
	cr_assert_eq(log.d[3].req->out, 6);
	cr_assert_eq(log.d[6].entry, 0);
	cr_assert_neq(log.d[6].replay, log.d[0].replay, "a recycled replay has a new number");
	cr_assert_eq(log.d[5].replay, log.d[0].replay);
	ax_sched_free(s);
	ib_arena_free(a);
}

Test(agentx, sched_idle_caps)
{
	const char *t =
	    "{\"id\": \"x\", \"requests\": ["
	    "{\"t\": 0, \"type\": \"n\", \"in\": 64, \"out\": 1, \"hash_ids\": [1], "
	    "\"think_time\": 1000},"
	    "{\"t\": 1001, \"type\": \"n\", \"in\": 64, \"out\": 1, \"hash_ids\": [1]}]}\n";
	ib_arena *a = ib_arena_new();
	ax_corpus c = {0};
	/* the per-tree cap alone */
	ax_sched_opts o = {.lanes = 1, .global_idle_cap = 1e9, .tree_idle_cap = 300};
	ax_sched *s = sched_of(a, t, &o, &c);
	sched_log log;
	drive(s, 2.0, 2, &log);
	cr_assert_eq(log.at[1], 302.0, "%g", log.at[1]);
	ax_sched_free(s);
	/* the global cap, tighter */
	o.global_idle_cap = 10;
	s = sched_of(a, t, &o, &c);
	drive(s, 2.0, 2, &log);
	cr_assert_eq(log.at[1], 12.0, "%g", log.at[1]);
	ax_sched_free(s);
	ib_arena_free(a);
}

Test(agentx, sched_warmup_then_profiling_at_tstar)
{
	ib_arena *a = ib_arena_new();
	ax_corpus c = {0};
	ax_sched_opts o = {.lanes = 1,
	                   .tstar_lo = 0.5,
	                   .tstar_hi = 0.5,
	                   .warmup_per_lane = 3,
	                   .global_idle_cap = 10,
	                   .tree_idle_cap = 300};
	ax_sched *s = sched_of(a, sched_trace, &o, &c); /* 3 parent turns: t* = turn 1 */
	cr_assert_not(ax_sched_profiling(s));
	sched_log log;
	drive(s, 1.0, 6, &log);
	/* the turn before t* with its recorded output, then 3 one-token requests */
	cr_assert(log.d[0].warmup && log.d[0].entry == 0 && log.d[0].max_tokens == 5);
	for (size_t i = 1; i < 4; i++)
		cr_assert(log.d[i].warmup && log.d[i].entry == 0 && log.d[i].max_tokens == 1);
	cr_assert(ax_sched_profiling(s));
	cr_assert_not(log.d[4].warmup);
	cr_assert_eq(log.d[4].entry, 2, "profiling starts at t* (turn 1, entry 2)");
	cr_assert_eq(log.at[4], 4.0);
	ax_sched_free(s);
	ib_arena_free(a);
}

Test(agentx, sched_drops_and_lanes)
{
	ib_arena *a = ib_arena_new();
	ax_corpus c = {0};
	const char *big = "{\"id\": \"big\", \"requests\": [{\"t\": 0, \"type\": \"n\", \"in\": "
	                  "100000, \"out\": 1, \"hash_ids\": []}]}\n";
	ib_buf b = {0};
	ib_buf_printf(&b, "%s%s", sched_trace, big);
	ax_sched_opts o = {
	    .lanes = 3, .max_context = 1000, .global_idle_cap = 10, .tree_idle_cap = 300};
	ax_sched *s = sched_of(a, b.data, &o, &c);
	cr_assert_eq(ax_sched_dropped(s), 1);
	sched_log log;
	drive(s, 1.0, 3, &log);
	/* three lanes start at once on the one trace left, each its own replay */
	for (size_t i = 0; i < 3; i++) {
		cr_assert_eq(log.at[i], 0.0);
		cr_assert_eq(log.d[i].lane, i);
		cr_assert_str_eq(c.t[log.d[i].trace].id, "a");
	}
	cr_assert(log.d[0].replay != log.d[1].replay && log.d[1].replay != log.d[2].replay);
	ax_sched_free(s);
	ax_corpus c2 = {0};
	ib_error e = {0};
	cr_assert_eq(ax_parse(a, "b.jsonl", big, strlen(big), &c2, &e), 0);
	o.corpus = &c2;
	cr_assert_eq(ax_sched_new(&o, 0, &s, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "maximum context"), "%s", e.msg);
	ib_buf_free(&b);
	ib_arena_free(a);
}

/* ---- block synthesis (needs the tokenizer fixtures: make fixtures) ---- */

static void check_blocks(const char *model)
{
	char dir[256];
	snprintf(dir, sizeof dir, "fixtures/tokenizers/%s", model);
	char tj[300];
	snprintf(tj, sizeof tj, "%s/tokenizer.json", dir);
	cr_assert_eq(access(tj, R_OK), 0, "fixtures missing: %s (run make fixtures)", tj);
	struct tok *t;
	ib_error e = {0};
	cr_assert_eq(tok_load(dir, &t, &e), 0, "%s", e.msg);
	ax_blocks *b;
	cr_assert_eq(ax_blocks_new(t, model, &b, &e), 0, "%s", e.msg);
	cr_assert_geq(ax_blocks_pool(b), 256);
	ib_buf x = {0}, y = {0}, all = {0};
	cr_assert_eq(ax_words(b, "trace-0001", 42, 64, &x), 0);
	cr_assert_eq(ax_words(b, "trace-0001", 42, 64, &y), 0);
	cr_assert_str_eq(x.data, y.data, "identical ids give identical text");
	y.len = 0;
	cr_assert_eq(ax_words(b, "trace-0002", 42, 64, &y), 0);
	cr_assert_str_neq(x.data, y.data, "another trace's block 42 differs");
	/* blocks, then a 17-token tail, re-encode to exactly their counts */
	ib_buf_printf(&all, "%s%s", x.data, y.data);
	cr_assert_eq(ax_words(b, "trace-0001:tail", 3, 17, &all), 0);
	tok_ids ids = {0};
	cr_assert_eq(tok_encode(t, all.data, all.len, false, &ids, &e), 0, "%s", e.msg);
	cr_assert_eq(ids.n, 64 + 64 + 17, "%s: %zu tokens", model, ids.n);
	tok_ids_free(&ids);
	ib_buf_free(&x);
	ib_buf_free(&y);
	ib_buf_free(&all);
	ax_blocks_free(b);
	tok_free(t);
}

Test(agentx, blocks_llama3)
{
	check_blocks("llama3");
}

Test(agentx, blocks_qwen3)
{
	check_blocks("qwen3");
}

Test(agentx, cache_bust_marker)
{
	char a[20], b[20], c[20];
	ax_cache_bust(42, 1, a);
	ax_cache_bust(42, 1, b);
	ax_cache_bust(42, 2, c);
	cr_assert_str_eq(a, b);
	cr_assert_str_neq(a, c);
	cr_assert_eq(strlen(a), 18);
	cr_assert(!strncmp(a, "[rid:", 5) && a[17] == ']', "%s", a);
}

Test(agentx, session_id)
{
	char m[20], p1[48], p2[48], s3[48], s3b[48], s5[48], q[48], o[48], want[48];
	ax_cache_bust(42, 1, m);
	ax_session_id(42, 1, false, 0, p1);
	ax_session_id(42, 1, false, 4, p2); /* parent turns: one conversation */
	ax_session_id(42, 1, true, 3, s3);
	ax_session_id(42, 1, true, 3, s3b);
	ax_session_id(42, 1, true, 5, s5);
	ax_session_id(42, 2, false, 0, q);
	ax_session_id(7, 1, false, 0, o);
	snprintf(want, sizeof want, "ax-%.12s", m + 5);
	cr_assert_str_eq(p1, want);
	cr_assert_str_eq(p1, p2);
	snprintf(want, sizeof want, "ax-%.12s-sa3", m + 5);
	cr_assert_str_eq(s3, want);
	cr_assert_str_eq(s3, s3b);
	cr_assert_str_neq(s3, s5);
	cr_assert_str_neq(p1, s3);
	cr_assert_str_neq(p1, q); /* another tree replay */
	cr_assert_str_neq(p1, o); /* another seed */
	cr_assert(ib_env_true("true") && ib_env_true("TRUE") && ib_env_true("1") &&
	          ib_env_true("yes") && ib_env_true("On"));
	cr_assert(!ib_env_true(NULL) && !ib_env_true("") && !ib_env_true("false") &&
	          !ib_env_true("0") && !ib_env_true("truee"));
}

/* The contents of a chat body's messages, concatenated (marker removed),
 * and its roles as letters. */
static void body_parts(ib_arena *a, const ib_buf *body, const char *marker, ib_buf *text,
                       char *roles, int64_t *max_tokens)
{
	ib_val *v;
	ib_error e = {0};
	cr_assert_eq(ib_json_parse(a, "body", body->data, body->len, &v, &e), 0, "%s", e.msg);
	const ib_val *m = ib_map_get(v, "messages");
	*max_tokens = ib_map_get(v, "max_tokens")->i;
	cr_assert(ib_map_get(v, "ignore_eos")->b && ib_map_get(v, "stream")->b);
	size_t k = 0;
	for (size_t i = 0; i < m->list.n; i++) {
		const char *role = ib_map_get(m->list.v[i], "role")->str.s;
		const ib_val *c = ib_map_get(m->list.v[i], "content");
		roles[k++] = role[0];
		const char *s = c->str.s;
		size_t n = c->str.len;
		if (marker && !strncmp(s, marker, strlen(marker))) {
			cr_assert_eq(role[0], 'u');
			s += strlen(marker) + 2, n -= strlen(marker) + 2;
		}
		ib_buf_append(text, s, n);
	}
	roles[k] = 0;
}

/* The one trace of a JSON line, with the llama3 tokenizer and its block
 * pool (needs the fixtures: make fixtures). */
typedef struct {
	ib_arena *a;
	ax_corpus c;
	struct tok *tk;
	ax_blocks *b;
	const ax_trace *t;
} llama3_fx;

static void llama3_open(llama3_fx *f, const char *tr)
{
	ib_error e = {0};
	memset(f, 0, sizeof *f);
	f->a = ib_arena_new();
	cr_assert_eq(ax_parse(f->a, "c.jsonl", tr, strlen(tr), &f->c, &e), 0, "%s", e.msg);
	f->t = &f->c.t[0];
	cr_assert_eq(access("fixtures/tokenizers/llama3/tokenizer.json", R_OK), 0,
	             "fixtures missing (run make fixtures)");
	cr_assert_eq(tok_load("fixtures/tokenizers/llama3", &f->tk, &e), 0, "%s", e.msg);
	cr_assert_eq(ax_blocks_new(f->tk, "llama3", &f->b, &e), 0, "%s", e.msg);
}

static void llama3_close(llama3_fx *f)
{
	ax_blocks_free(f->b);
	tok_free(f->tk);
	ib_arena_free(f->a);
}

Test(agentx, conversation_turns)
{
	const char *tr =
	    "{\"id\": \"trace-7\", \"system_tokens\": 64, \"tool_tokens\": 60, \"requests\": ["
	    "{\"t\": 0, \"type\": \"n\", \"in\": 330, \"out\": 100, \"hash_ids\": [1, 2, 3, 4, 5]},"
	    "{\"t\": 1, \"type\": \"n\", \"in\": 522, \"out\": 64, \"hash_ids\": [1, 2, 3, 4, 5, "
	    "6, 7, "
	    "8]},"
	    "{\"t\": 2, \"type\": \"n\", \"in\": 256, \"out\": 9, \"hash_ids\": [1, 2, 9, 10]}]}\n";
	llama3_fx f;
	llama3_open(&f, tr);
	ib_arena *a = f.a;
	struct tok *tk = f.tk;
	ax_blocks *b = f.b;
	const ax_trace *t = f.t;
	ib_error e = {0};
	char marker[20];
	ax_cache_bust(42, 7, marker);
	ax_conv cv = {0};
	const ax_request *prev = NULL;
	static const char *const want_roles[] = {"su", "suau", "sau"};
	ib_buf last = {0};
	for (size_t i = 0; i < 3; i++) {
		const ax_request *r = &t->entries[i].r;
		cr_assert_eq(ax_conv_turn(&cv, t, prev, r), 0);
		ib_buf body = {0}, text = {0};
		cr_assert_eq(
		    ax_chat_body(&body, b, NULL, t, &cv, r, (int64_t)i, "m", r->out, marker), 0);
		/* the table of block texts gives the same bytes */
		ax_texts *tx;
		ib_buf body2 = {0};
		cr_assert_eq(ax_texts_new(b, t, &tx), 0);
		for (int twice = 0; twice < 2; twice++) {
			body2.len = 0;
			cr_assert_eq(
			    ax_chat_body(&body2, b, tx, t, &cv, r, (int64_t)i, "m", r->out, marker),
			    0);
			cr_assert_eq(body2.len, body.len);
			cr_assert(!memcmp(body2.data, body.data, body.len));
		}
		ax_texts_free(tx);
		ib_buf_free(&body2);
		char roles[16];
		int64_t mt;
		body_parts(a, &body, marker, &text, roles, &mt);
		/* the messages grow by an answer and a user turn, and end with the user */
		cr_assert_str_eq(roles, want_roles[i], "turn %zu: %s", i, roles);
		cr_assert_eq(mt, r->out);
		tok_ids ids = {0};
		cr_assert_eq(tok_encode(tk, text.data, text.len, false, &ids, &e), 0, "%s", e.msg);
		cr_assert_eq((int64_t)ids.n, r->in, "turn %zu: %zu tokens, in %lld", i, ids.n,
		             (long long)r->in);
		tok_ids_free(&ids);
		if (i == 1) {
			/* turn 1 keeps turn 0's blocks (without its tail): 5 * 64 tokens */
			ib_buf blocks = {0};
			for (size_t k = 0; k < 5; k++)
				ax_words(b, "trace-7", (int64_t)k + 1, 64, &blocks);
			cr_assert(!strncmp(text.data, blocks.data, blocks.len),
			          "the LCP bytes differ");
			cr_assert(strncmp(text.data, last.data, last.len), "turn 0's tail leaked");
			ib_buf_free(&blocks);
		}
		ib_buf_free(&last);
		last = text;
		ib_buf_free(&body);
		prev = r;
	}
	/* after the compaction (LCP 2 blocks): system [1,2] only, then a
	 * 1-block answer and a 1-block user message */
	cr_assert_eq(cv.n, 3);
	cr_assert_eq(cv.seg[0].to, 2);
	cr_assert_eq(cv.seg[1].role, 'a');
	cr_assert_eq(cv.seg[1].to - cv.seg[1].from, 1);
	ib_buf_free(&last);
	ax_conv_free(&cv);
	llama3_close(&f);
}

/* A trace's table of block texts is sized once: every block of every chain
 * (parent turns across a compaction, subagents) is made without the text
 * moving, each id once. */
Test(agentx, texts_table_sized_once)
{
	const char *tr =
	    "{\"id\": \"trace-9\", \"requests\": ["
	    "{\"t\": 0, \"type\": \"n\", \"in\": 256, \"out\": 9, \"hash_ids\": [1, 2, 3, 4]},"
	    "{\"t\": 1, \"type\": \"subagent\", \"agent_id\": \"a\", \"requests\": ["
	    "{\"t\": 0, \"type\": \"n\", \"in\": 192, \"out\": 9, \"hash_ids\": [1, 20, 21]},"
	    "{\"t\": 1, \"type\": \"n\", \"in\": 256, \"out\": 9, \"hash_ids\": [1, 20, 21, 22]}]},"
	    "{\"t\": 2, \"type\": \"n\", \"in\": 384, \"out\": 9, \"hash_ids\": [1, 2, 3, 4, 5, "
	    "6]},"
	    "{\"t\": 3, \"type\": \"n\", \"in\": 320, \"out\": 9, \"hash_ids\": [1, 30, 31, 32, "
	    "33]}]}\n";
	llama3_fx f;
	llama3_open(&f, tr);
	ax_blocks *b = f.b;
	const ax_trace *t = f.t;
	ax_texts *tx;
	cr_assert_eq(ax_texts_new(b, t, &tx), 0);
	const char *first, *s;
	size_t n0, n;
	cr_assert_eq(ax_texts_get(tx, 1, &first, &n0), 0);
	ib_buf want = {0};
	cr_assert_eq(ax_words(b, "trace-9", 1, 64, &want), 0);
	cr_assert(n0 == want.len && !memcmp(first, want.data, n0));
	size_t made = ax_texts_bytes(tx);
	/* every block of every request: 14 distinct ids */
	size_t gets = 0;
	for (size_t i = 0; i < t->n; i++) {
		const ax_entry *en = &t->entries[i];
		size_t nr = en->is_subagent ? en->s.nreq : 1;
		for (size_t q = 0; q < nr; q++) {
			const ax_request *r = en->is_subagent ? &en->s.req[q] : &en->r;
			for (size_t k = 0; k < r->nhash; k++, gets++)
				cr_assert_eq(ax_texts_get(tx, r->hash_ids[k], &s, &n), 0);
		}
	}
	cr_assert_eq(gets, 4 + 3 + 4 + 6 + 5);
	/* block 1's text did not move, and it was made once */
	cr_assert_eq(ax_texts_get(tx, 1, &s, &n), 0);
	cr_assert(s == first && n == n0, "the table's text moved");
	size_t per = made - want.len; /* the slots */
	cr_assert_geq(ax_texts_bytes(tx), per + 14 * 64 * 3);
	cr_assert_leq(ax_texts_bytes(tx), per + 14 * 64 * 13);
	size_t after = ax_texts_bytes(tx);
	cr_assert_eq(ax_texts_get(tx, 33, &s, &n), 0);
	cr_assert_eq(ax_texts_bytes(tx), after, "a block already made was made again");
	ib_buf_free(&want);
	ax_texts_free(tx);
	llama3_close(&f);
}

/* The server metrics export: prometheus_client's counters (family x, sample
 * x_total, x_created dropped) and the simulator's (family x_total), gauges
 * sampled three times, labels kept per series, histograms left out, a
 * series first seen at the end counted from 0, two endpoints apart. */
static const char prom_start[] = "# HELP atom_prompt_tokens prompt tokens\n"
                                 "# TYPE atom_prompt_tokens counter\n"
                                 "atom_prompt_tokens_total{engine=\"0\"} 100\n"
                                 "atom_prompt_tokens_created{engine=\"0\"} 1.7e9\n"
                                 "# TYPE sglang:cached_tokens_total counter\n"
                                 "sglang:cached_tokens_total{cache_source=\"device\"} 10\n"
                                 "# TYPE sglang:token_usage gauge\n"
                                 "sglang:token_usage 0.25\n"
                                 "# TYPE dynamo_frontend_cached_tokens counter\n"
                                 "dynamo_frontend_cached_tokens_total{model=\"m \\\"q\\\"\"} 5\n"
                                 "# TYPE vllm:e2e_request_latency_seconds histogram\n"
                                 "vllm:e2e_request_latency_seconds_bucket{le=\"1.0\"} 3\n";
static const char prom_mid[] = "# TYPE sglang:token_usage gauge\nsglang:token_usage 0.75\n";
static const char prom_end[] = "# TYPE atom_prompt_tokens counter\n"
                               "atom_prompt_tokens_total{engine=\"0\"} 400\n"
                               "# TYPE sglang:cached_tokens_total counter\n"
                               "sglang:cached_tokens_total{cache_source=\"device\"} 70\n"
                               "sglang:cached_tokens_total{cache_source=\"host\"} 8\n"
                               "# TYPE sglang:token_usage gauge\n"
                               "sglang:token_usage 0.5\n"
                               "# TYPE dynamo_frontend_cached_tokens counter\n"
                               "dynamo_frontend_cached_tokens_total{model=\"m \\\"q\\\"\"} 25\n";

static double stat_of(const ib_val *ms, const char *name, size_t series, const char *k)
{
	const ib_val *x = ib_map_get(ms, name);
	cr_assert(x, "%s exported", name);
	const ib_val *s = ib_map_get(x, "series");
	cr_assert(s && s->list.n > series, "%s: series %zu", name, series);
	const ib_val *v = ib_map_get(ib_map_get(s->list.v[series], "stats"), k);
	cr_assert(v && (v->type == IB_V_FLOAT || v->type == IB_V_INT), "%s.%s", name, k);
	return v->type == IB_V_FLOAT ? v->f : (double)v->i;
}

Test(agentx, server_metrics_export)
{
	ax_smx m[2];
	ib_error e = {0};
	cr_assert_eq(ax_smx_init(&m[0], "http://127.0.0.1:1/metrics", NULL, &e), 0, "%s", e.msg);
	cr_assert_eq(ax_smx_init(&m[1], "http://127.0.0.1:2/other", NULL, &e), 0, "%s", e.msg);
	cr_assert_str_eq(m[1].path, "/other");
	cr_assert_eq(ax_smx_feed(&m[0], prom_start, strlen(prom_start), 0), 0);
	cr_assert_eq(ax_smx_feed(&m[0], prom_mid, strlen(prom_mid), 1), 0);
	cr_assert_eq(ax_smx_feed(&m[0], prom_end, strlen(prom_end), 2), 0);
	cr_assert_eq(ax_smx_feed(&m[1], prom_start, strlen(prom_start), 0), 0);
	cr_assert_eq(ax_smx_feed(&m[1], prom_end, strlen(prom_end), 2), 0);
	ib_arena *a = ib_arena_new();
	ib_val *j = NULL;
	ib_buf csv = {0};
	cr_assert_eq(ax_smx_export(a, m, 2, 10, &j, &csv, &e), 0, "%s", e.msg);
	const ib_val *ms = ib_map_get(j, "metrics");
	cr_assert_str_eq(ib_map_get(ib_map_get(ms, "atom_prompt_tokens"), "type")->str.s,
	                 "counter");
	cr_assert_float_eq(stat_of(ms, "atom_prompt_tokens", 0, "total"), 300, 1e-9);
	cr_assert_float_eq(stat_of(ms, "atom_prompt_tokens", 0, "rate"), 30, 1e-9);
	cr_assert_null(ib_map_get(ms, "atom_prompt_tokens_created"));
	cr_assert_null(ib_map_get(ms, "vllm:e2e_request_latency_seconds_bucket"));
	cr_assert_null(ib_map_get(ms, "vllm:e2e_request_latency_seconds"));
	/* device 10 -> 70; host first seen at the end: from 0 */
	cr_assert_float_eq(stat_of(ms, "sglang:cached_tokens", 0, "total"), 60, 1e-9);
	cr_assert_float_eq(stat_of(ms, "sglang:cached_tokens", 1, "total"), 8, 1e-9);
	const ib_val *s1 = ib_map_get(ib_map_get(ms, "sglang:cached_tokens"), "series");
	cr_assert_eq(s1->list.n, 4); /* two series on each of two endpoints */
	cr_assert_str_eq(ib_map_get(ib_map_get(s1->list.v[1], "labels"), "cache_source")->str.s,
	                 "host");
	cr_assert_str_eq(ib_map_get(s1->list.v[2], "endpoint_url")->str.s,
	                 "http://127.0.0.1:2/other");
	/* the gauge: 0.25, 0.75, 0.5 on the first endpoint; 0.25, 0.5 on the other */
	cr_assert_float_eq(stat_of(ms, "sglang:token_usage", 0, "avg"), 0.5, 1e-9);
	cr_assert_float_eq(stat_of(ms, "sglang:token_usage", 0, "max"), 0.75, 1e-9);
	cr_assert_float_eq(stat_of(ms, "sglang:token_usage", 0, "min"), 0.25, 1e-9);
	cr_assert_float_eq(stat_of(ms, "sglang:token_usage", 1, "max"), 0.5, 1e-9);
	cr_assert_float_eq(stat_of(ms, "dynamo_frontend_cached_tokens", 0, "total"), 20, 1e-9);
	const ib_val *dl = ib_map_get(
	    ib_map_get(
	        ib_map_get(ib_map_get(ms, "dynamo_frontend_cached_tokens"), "series")->list.v[0],
	        "labels"),
	    "model");
	cr_assert_str_eq(dl->str.s, "m \"q\"");
	cr_assert(strstr(csv.data, "metric,type,endpoint_url,labels,stat,value\n") == csv.data);
	cr_assert(strstr(csv.data, "sglang:cached_tokens,counter,http://127.0.0.1:1/metrics,"
	                           "\"cache_source=host\",total,8\n"));
	ib_buf_free(&csv);
	ib_arena_free(a);
	ax_smx_free(&m[0]);
	ax_smx_free(&m[1]);
}

Test(agentx, server_metrics_nothing_scraped)
{
	ax_smx m;
	ib_error e = {0};
	cr_assert_eq(ax_smx_init(&m, "http://127.0.0.1:1", NULL, &e), 0);
	cr_assert_str_eq(m.path, "/metrics");
	ax_smx_free(&m);
	cr_assert_neq(ax_smx_init(&m, "https://127.0.0.1:1/metrics", NULL, &e), 0);
	cr_assert(strstr(e.msg, "https"));
	cr_assert_eq(ax_smx_init(&m, "http://127.0.0.1:1", NULL, &e), 0);
	ib_arena *a = ib_arena_new();
	ib_val *j = (ib_val *)1;
	ib_buf csv = {0};
	cr_assert_eq(ax_smx_export(a, &m, 1, 10, &j, &csv, &e), 0);
	cr_assert_null(j);
	ib_buf_free(&csv);
	ib_arena_free(a);
	ax_smx_free(&m);
}
