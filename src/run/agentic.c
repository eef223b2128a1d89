/* Agentic-coding rows (docs/run.md "Agentic rows"): the agentic variables
 * of the workflow's environment, the AgentX replay run in process against
 * the row's simulator (the library call `infbench agentx replay` makes),
 * then process_agentic_result, the power adapter and the validity gate of
 * run_agentic_replay_and_write_outputs, and the row's agg file. */
#include "agentx/agentx.h"
#include "results/results.h"
#include "run/plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* A component's metadata as the workflow passes it (toJson of the matrix
 * field), compact so that the env file stays one word per line. */
static void env_json(ib_buf *b, const char *k, const ib_val *v)
{
	ib_buf_printf(b, "%s=", k);
	if (v && v->type != IB_V_NULL) {
		ib_json_opts jo = {.indent = -1, .compact = true, .ensure_ascii = true};
		ib_error e = {0};
		ib_json_write(b, v, &jo, &e);
	}
	ib_buf_putc(b, '\n');
}

int run_agentic_env(ib_buf *b, const ib_val *row, int64_t duration, const char *result_dir,
                    const char *output_dir)
{
	ib_buf_printf(b, "DURATION=%lld\n", (long long)duration);
	ib_buf_puts(b, "KV_OFFLOADING=");
	run_field(b, row, "kv-offloading", "none");
	/* kv-offload-backend: its name, and the whole mapping as metadata */
	const ib_val *kb = ib_map_get(row, "kv-offload-backend");
	const ib_val *kn = kb && kb->type == IB_V_MAP ? ib_map_get(kb, "name") : kb;
	ib_buf_puts(b, "\nKV_OFFLOAD_BACKEND=");
	if (kn && kn->type == IB_V_STR)
		ib_buf_puts(b, kn->str.s);
	ib_buf_putc(b, '\n');
	env_json(b, "KV_OFFLOAD_BACKEND_METADATA", kb && kb->type == IB_V_MAP ? kb : NULL);
	ib_buf_puts(b, "TOTAL_CPU_DRAM_GB=");
	run_field(b, row, "total-cpu-dram-gb", "0");
	ib_buf_putc(b, '\n');
	env_json(b, "ROUTER_METADATA", ib_map_get(row, "router"));
	const ib_val *pre = ib_map_get(row, "prefill"), *dec = ib_map_get(row, "decode");
	if (!(pre && dec && pre->type == IB_V_MAP && dec->type == IB_V_MAP)) {
		/* multi-node rows have it from run_row_env */
		ib_buf_puts(b, "KV_P2P_TRANSFER=");
		run_field(b, row, "kv-p2p-transfer", "");
		ib_buf_putc(b, '\n');
	}
	const char *wl = getenv("WEKA_LOADER_OVERRIDE");
	if (wl && *wl && !strchr(wl, '\n'))
		ib_buf_printf(b, "WEKA_LOADER_OVERRIDE=%s\n", wl);
	ib_buf_printf(b,
	              "AIPERF_FAILED_REQUEST_THRESHOLD=0.10\nAIPERF_EXPERIMENTAL_FAST=0\n"
	              "RESULT_DIR=%s\nAGENTIC_OUTPUT_DIR=%s\n",
	              result_dir, output_dir);
	return ib_buf_error(b) ? IB_ENOMEM : 0;
}

/* ---- the replay ---- */

typedef struct {
	row_ctx *rc;
	int64_t deadline;
	int why; /* 1 the run is stopping, 2 the server exited (sst), 3 --row-timeout */
	int sst;
	FILE *log; /* benchmark.log */
} replay_watch;

static bool watch(void *arg)
{
	replay_watch *w = arg;
	row_ctx *rc = w->rc;
	if (atomic_load(rc->stop))
		w->why = 1;
	else if (rc->server && ib_proc_reap(rc->server, &w->sst, false)) {
		rc->server = 0;
		w->why = 2;
	} else if (ib_now_ns() > w->deadline)
		w->why = 3;
	return w->why != 0;
}

static void file_log(void *arg, int stream, const char *line)
{
	(void)stream;
	if (arg)
		fprintf(arg, "%s\n", line);
}

/* The offset of local time that the power adapter attaches to aiperf's
 * naive timestamps (the reference writes `date +%z` before the replay). */
static void write_tz_offset(const char *ws)
{
	char z[16] = "+0000\n", p[4200];
	time_t now = time(NULL);
	struct tm tm;
	if (localtime_r(&now, &tm))
		strftime(z, sizeof z, "%z\n", &tm);
	snprintf(p, sizeof p, "%s/agentic_power_timezone_offset.txt", ws);
	ib_error e = {0};
	ib_write_file_atomic(p, z, strlen(z), &e);
}

/* The replay's settings: aiperf's flags of build_replay_cmd. */
static void replay_opts(row_ctx *rc, ax_replay_opts *ro, const char *const *env, size_t nenv)
{
	const run_item *it = rc->it;
	ax_replay_defaults(ro);
	ro->corpus = it->corpus;
	ro->dataset = it->dataset;
	ro->base_url = ib_arena_printf(rc->a, "http://127.0.0.1:%d", rc->port);
	ro->model = run_fieldz(rc->a, it->row, "model", "");
	ro->tokenizer = rc->o->tokenizer;
	ro->concurrency = (size_t)(rc->conc > 0 ? rc->conc : 1);
	ro->duration = (double)it->duration;
	ro->out_dir = rc->ws;
	ro->metrics_interval = 1; /* gauge samples, as the recipes' --slice-duration 1.0 */
	/* build_replay_cmd's live threshold and warmup grace */
	const char *const *ev = (const char *const *)rc->envp;
	const char *th = ib_env_get(ev, "AIPERF_LIVE_FAILED_REQUEST_THRESHOLD");
	if (!th)
		th = ib_env_get(ev, "AIPERF_FAILED_REQUEST_THRESHOLD");
	char *end = NULL;
	double v = th ? strtod(th, &end) : -1;
	ro->live_fail_threshold = th && end != th && !*end && v >= 0 ? v : 0.10;
	const char *wg = ib_env_get(ev, "AGENTIC_WARMUP_GRACE_PERIOD");
	v = wg ? strtod(wg, &end) : -1;
	ro->warmup_grace = wg && end != wg && !*end && v >= 0 ? v : 1800;
	ro->dynamo_session =
	    ib_env_true(ib_env_get(ev, "AIPERF_HTTP_X_DYNAMO_SESSION_ID_FROM_CORRELATION_ID"));
	ro->env = env;
	ro->nenv = nenv;
}

/* `infbench agentx replay` with the same settings, for commands.txt */
static void note_replay(row_ctx *rc, const ax_replay_opts *ro)
{
	ib_arena *a = rc->a;
	const char *v[24];
	size_t n = 0;
	v[n++] = rc->o->self_exe;
	v[n++] = "agentx";
	v[n++] = "replay";
	v[n++] = "--corpus";
	v[n++] = ro->corpus;
	v[n++] = "--base-url";
	v[n++] = ro->base_url;
	v[n++] = "--model";
	v[n++] = ro->model;
	if (ro->tokenizer) {
		v[n++] = "--tokenizer";
		v[n++] = ro->tokenizer;
	}
	v[n++] = "--concurrency";
	v[n++] = ib_arena_printf(a, "%zu", ro->concurrency);
	v[n++] = "--benchmark-duration";
	v[n++] = ib_arena_printf(a, "%g", ro->duration);
	v[n++] = "--output-dir";
	v[n++] = ro->out_dir;
	if (ro->dataset) {
		v[n++] = "--dataset-name";
		v[n++] = ro->dataset;
	}
	if (ro->dynamo_session)
		v[n++] = "--dynamo-session-header";
	v[n] = NULL;
	for (size_t i = 0; i < n; i++)
		if (!v[i])
			return;
	row_note_command(rc->ws, v);
}

static void agentic_progress(void *arg, const ax_replay_progress *p)
{
	run_row_agentic_progress(arg, p);
}

int row_agentic_replay(row_ctx *rc)
{
	/* the env file the replay writes is the row's own: its variables */
	size_t nenv = 0;
	for (const char *s = rc->env_text; *s; s++)
		nenv += *s == '\n';
	const char **env = ib_arena_alloc(rc->a, (nenv + 1) * sizeof *env);
	if (!env)
		return row_fail(rc, RUN_FAILED, "out of memory");
	nenv = 0;
	for (const char *s = rc->env_text; *s;) {
		size_t l = strcspn(s, "\n");
		if (l && !(env[nenv++] = ib_arena_strndup(rc->a, s, l)))
			return row_fail(rc, RUN_FAILED, "out of memory");
		s += l + (s[l] == '\n');
	}
	ax_replay_opts ro;
	replay_opts(rc, &ro, env, nenv);
	if (!ro.base_url || !ro.model)
		return row_fail(rc, RUN_FAILED, "out of memory");
	note_replay(rc, &ro);
	write_tz_offset(rc->ws);
	replay_watch w = {.rc = rc,
	                  .deadline = rc->o->row_timeout_s > 0
	                                  ? ib_now_ns() + (int64_t)(rc->o->row_timeout_s * 1e9)
	                                  : INT64_MAX,
	                  .log = fopen(rc->client_log, "a")};
	ro.cancel = watch;
	ro.cancel_arg = &w;
	if (rc->o->on_event) { /* the row's progress line, once a second */
		ro.progress = agentic_progress;
		ro.progress_arg = rc;
		ro.progress_every = 1;
	}
	ax_replay_outcome out;
	ib_error e = {0};
	int64_t t0 = ib_now_ns();
	int r = ax_replay(&ro, file_log, w.log, &out, &e);
	rc->client_s = (double)(ib_now_ns() - t0) / 1e9;
	if (r && !w.why) {
		char msg[2600];
		ib_error_format(&e, msg, sizeof msg);
		file_log(w.log, IB_LOG_ERR, msg);
	}
	if (w.log)
		fclose(w.log);
	if (w.why == 1)
		return row_fail(rc, RUN_INTERRUPTED,
		                "stopped by signal %d during the agentic replay",
		                atomic_load(rc->stop));
	if (w.why == 2) {
		ib_buf tail = {0};
		run_tail(&tail, rc->server_log, 15);
		row_fail(rc, RUN_FAILED,
		         "server exited with status %d during the agentic replay; %s:%s", w.sst,
		         rc->shown_server_log, tail.data ? tail.data : " (empty)");
		ib_buf_free(&tail);
		return RUN_FAILED;
	}
	if (w.why == 3)
		return row_fail(rc, RUN_FAILED,
		                "the agentic replay took longer than --row-timeout %.0f s",
		                rc->o->row_timeout_s);
	if (r) {
		char msg[2600];
		ib_error_format(&e, msg, sizeof msg);
		return row_fail(rc, RUN_FAILED, "agentx replay: %s", msg);
	}
	/* a replay the live threshold stopped is processed and gated like any
	 * (its failed share fails the gate, which names it), as the recipes
	 * write their outputs before returning the replay's status */
	return RUN_RUNNING;
}

/* ---- processing, power, the gate ---- */

typedef struct {
	FILE *f;
	ib_buf err; /* the gate's ERROR line */
} gate_log;

static void gate_line(void *arg, int stream, const char *line)
{
	gate_log *g = arg;
	file_log(g->f, stream, line);
	if (stream == 2 && !g->err.len)
		ib_buf_puts(&g->err, line);
}

/* agg_<name>.json: the same bytes as <name>.json, which the reference's
 * processing writes (a hard link, else a copy) */
static int agg_file(row_ctx *rc, const char *out, ib_error *e)
{
	char p[4200];
	snprintf(p, sizeof p, "%s/agg_%s.json", rc->ws, rc->it->name);
	unlink(p);
	if (link(out, p) == 0)
		return 0;
	ib_buf b = {0};
	int r = ib_read_file(out, &b, e);
	if (!r)
		r = ib_buf_write_file(p, &b, e);
	ib_buf_free(&b);
	return r;
}

/* A recipe row's env file for re-running the processing in the published
 * folder: RESULT_DIR=results and AGENTIC_OUTPUT_DIR=. (the recipe ran with
 * the workspace's absolute paths); the runner's own lines dropped. */
static void recipe_env_file(row_ctx *rc)
{
	ib_buf b = {0};
	size_t wl = strlen(rc->ws);
	for (const char *s = rc->env_text; *s;) {
		size_t l = strcspn(s, "\n");
		if (!strncmp(s, "RESULT_DIR=", 11) && !strncmp(s + 11, rc->ws, wl) &&
		    s[11 + wl] == '/')
			ib_buf_printf(&b, "RESULT_DIR=%.*s\n", (int)(l - 12 - wl), s + 12 + wl);
		else if (!strncmp(s, "AGENTIC_OUTPUT_DIR=", 19))
			ib_buf_puts(&b, "AGENTIC_OUTPUT_DIR=.\n");
		else if (strncmp(s, "INFMAX_CONTAINER_WORKSPACE=", 27) &&
		         strncmp(s, "AIPERF_RUNTIME_DIR=", 19))
			ib_buf_printf(&b, "%.*s\n", (int)l, s);
		s += l + (s[l] == '\n');
	}
	char p[4200];
	snprintf(p, sizeof p, "%s/env", rc->ws);
	ib_error e = {0};
	if (!ib_buf_error(&b))
		ib_buf_write_file(p, &b, &e);
	ib_buf_free(&b);
}

int row_agentic_finish(row_ctx *rc)
{
	const char *const *env = (const char *const *)rc->envp;
	char p[4200];
	snprintf(p, sizeof p, "%s/process.log", rc->ws);
	gate_log g = {.f = fopen(p, "a")};
	ib_error e = {0};
	char msg[2600];
	char *out = NULL;
	int state = RUN_RUNNING;
	/* a recipe processed it (a per-node recipe serves only: not this) */
	if (rc->o->engine == RUN_ENGINE_RECIPE && !rc->it->node_recipe) {
		out = ib_arena_printf(rc->a, "%s/%s.json", rc->ws, rc->it->name);
		out = out ? strdup(out) : NULL;
		recipe_env_file(rc);
	} else {
		res_agentic_opts ao = {.log = file_log, .log_ud = g.f, .env = env, .dir = rc->ws};
		if (res_agentic_process(&ao, &out, &e)) {
			ib_error_format(&e, msg, sizeof msg);
			state = row_fail(rc, RUN_FAILED, "processing the agentic result: %s", msg);
			goto done;
		}
		/* the power adapter of single-node replays (the simulator has no GPU
		 * telemetry: the row says its power is not valid) */
		const char *mn = ib_env_get(env, "IS_MULTINODE"),
		           *req = ib_env_get(env, "REQUIRE_POWER");
		int pst = 0;
		res_agentic_power_opts po = {.result_dir = rc->ws,
		                             .agg_path = out,
		                             .has_expected = true,
		                             .expected_num_gpus = rc->it->gpus,
		                             .require_power = req && (!strcmp(req, "1") ||
		                                                      !strcasecmp(req, "true") ||
		                                                      !strcasecmp(req, "yes")),
		                             .log = file_log,
		                             .log_ud = g.f};
		if (!(mn && !strcmp(mn, "true")) && res_agentic_power(&po, &pst, &e)) {
			ib_error_format(&e, msg, sizeof msg);
			state = row_fail(rc, RUN_FAILED, "the agentic power adapter: %s", msg);
			goto done;
		}
		if (pst) {
			state =
			    row_fail(rc, RUN_FAILED,
			             "REQUIRE_POWER is set and the power measurement is invalid");
			goto done;
		}
	}
	if (!out) {
		state = row_fail(rc, RUN_FAILED, "out of memory");
		goto done;
	}
	/* validate_agentic_result: the error gate */
	const char *rd = ib_env_get(env, "RESULT_DIR"),
	           *th = ib_env_get(env, "AIPERF_FAILED_REQUEST_THRESHOLD");
	char *end = NULL;
	double thr = th ? strtod(th, &end) : 0.10;
	if (!th || end == th || *end || !(thr >= 0 && thr <= 1))
		thr = 0.10;
	snprintf(p, sizeof p, "%s%s%s/aiperf_artifacts", rd && rd[0] == '/' ? "" : rc->ws,
	         rd && rd[0] == '/' ? "" : "/", rd ? rd : ".");
	res_agentic_opts vo = {.log = gate_line, .log_ud = &g};
	int st = 0;
	if (res_agentic_validate(p, thr, &vo, &st, &e)) {
		state = row_fail(rc, RUN_FAILED, "out of memory");
		goto done;
	}
	if (st) {
		state = row_fail(rc, RUN_FAILED, "validate_agentic_result: %s",
		                 g.err.data ? g.err.data : "the gate failed");
		goto done;
	}
	if (agg_file(rc, out, &e)) {
		ib_error_format(&e, msg, sizeof msg);
		state = row_fail(rc, RUN_FAILED, "writing the agg file: %s", msg);
	}
done:
	free(out);
	ib_buf_free(&g.err);
	if (g.f)
		fclose(g.f);
	return state;
}
