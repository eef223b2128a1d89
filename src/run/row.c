/* One row: its workspace, the engine (simulator or recipe), the client, the
 * processing step, and what is left in the store. */
#include "cluster/multinode.h"
#include "results/results.h"
#include "run/plan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

/* The process environment with the row's variables (lines "K=V\n" in vars)
 * put first and any same-named inherited ones left out. */
static char **make_envp(ib_arena *a, const char *vars)
{
	size_t nv = 0, ne = 0;
	for (const char *s = vars; *s; s++)
		nv += *s == '\n';
	while (environ[ne])
		ne++;
	char **env = ib_arena_alloc(a, (nv + ne + 1) * sizeof *env);
	if (!env)
		return NULL;
	size_t k = 0;
	for (const char *s = vars; *s;) {
		size_t l = strcspn(s, "\n");
		env[k++] = ib_arena_strndup(a, s, l);
		s += l + (s[l] == '\n');
	}
	for (size_t i = 0; i < ne; i++) {
		size_t kl = strcspn(environ[i], "=");
		bool over = false;
		for (size_t j = 0; j < nv && !over; j++)
			over = !strncmp(env[j], environ[i], kl + 1);
		if (!over)
			env[k++] = environ[i];
	}
	env[k] = NULL;
	return env;
}

static int write_text(const char *dir, const char *name, const char *text, ib_error *e)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	return ib_write_file_atomic(p, text, strlen(text), e);
}

void row_note_command(const char *ws, const char *const *argv)
{
	ib_buf b = {0};
	cl_sh_words(&b, argv);
	ib_buf_putc(&b, '\n');
	char p[4200];
	snprintf(p, sizeof p, "%s/commands.txt", ws);
	FILE *f = fopen(p, "a");
	if (f && b.data && !ib_buf_error(&b)) /* a log line: one that did not fit is left out */
		fputs(b.data, f);
	if (f)
		fclose(f);
	ib_buf_free(&b);
}

static void add(ib_arena *a, const char **v, size_t *n, const char *s)
{
	v[(*n)++] = s ? s : ib_arena_strdup(a, "");
}

/* InferenceX's --random-range-ratio: output lengths uniform in
 * [0.8 OSL, OSL], so a row generates about 0.9 OSL per request */
#define CLIENT_RANGE_RATIO "0.8"

/* The client's command line: InferenceX's run_benchmark_serving flags. */
static const char **client_argv(row_ctx *rc)
{
	const run_opts *o = rc->o;
	ib_arena *a = rc->a;
	const ib_val *row = rc->it->row;
	const char **v = ib_arena_alloc(a, 48 * sizeof *v);
	size_t n = 0;
	int64_t conc = rc->conc;
	add(a, v, &n, o->self_exe);
	add(a, v, &n, "bench");
	add(a, v, &n, "--model");
	add(a, v, &n, run_fieldz(a, row, "model", ""));
	if (o->tokenizer) {
		add(a, v, &n, "--tokenizer");
		add(a, v, &n, o->tokenizer);
	}
	add(a, v, &n, "--backend");
	add(a, v, &n, "vllm");
	add(a, v, &n, "--base-url");
	add(a, v, &n, ib_arena_printf(a, "http://127.0.0.1:%d", rc->port));
	add(a, v, &n, "--dataset-name");
	add(a, v, &n, "random");
	add(a, v, &n, "--random-input-len");
	add(a, v, &n, run_fieldz(a, row, "isl", ""));
	add(a, v, &n, "--random-output-len");
	add(a, v, &n, run_fieldz(a, row, "osl", ""));
	add(a, v, &n, "--random-range-ratio");
	add(a, v, &n, CLIENT_RANGE_RATIO);
	add(a, v, &n, "--num-prompts");
	add(a, v, &n, ib_arena_printf(a, "%lld", (long long)(conc * rc->x->prompts_per_conc)));
	add(a, v, &n, "--max-concurrency");
	add(a, v, &n, ib_arena_printf(a, "%lld", (long long)conc));
	add(a, v, &n, "--request-rate");
	add(a, v, &n, "inf");
	add(a, v, &n, "--ignore-eos");
	add(a, v, &n, "--save-result");
	add(a, v, &n, "--num-warmups");
	add(a, v, &n, ib_arena_printf(a, "%lld", (long long)(conc * rc->x->warmups_per_conc)));
	add(a, v, &n, "--percentile-metrics");
	add(a, v, &n, "ttft,tpot,itl,e2el");
	add(a, v, &n, "--result-dir");
	add(a, v, &n, rc->ws);
	add(a, v, &n, "--result-filename");
	add(a, v, &n, ib_arena_printf(a, "%s.json", rc->it->name));
	if (rc->it->spec)
		add(a, v, &n, "--use-chat-template");
	/* rows with the same workload (ISL/OSL, concurrency, tokenizer, seed)
	 * share one generated prompt set: the same prompts, generated once */
	add(a, v, &n, "--prompt-cache");
	add(a, v, &n, rc->prompt_cache);
	if (rc->x->prompt_threads > 0) {
		add(a, v, &n, "--prompt-threads");
		add(a, v, &n, ib_arena_printf(a, "%d", rc->x->prompt_threads));
	}
	add(a, v, &n, "--disable-tqdm");
	v[n] = NULL;
	return v;
}

/* The simulator's command line, configured from the row. */
const char **row_sim_argv(row_ctx *rc)
{
	const run_opts *o = rc->o;
	ib_arena *a = rc->a;
	const run_item *it = rc->it;
	const ib_val *row = it->row;
	const char **v = ib_arena_alloc(a, (80 + o->nsim_extra) * sizeof *v);
	size_t n = 0;
	add(a, v, &n, o->self_exe);
	add(a, v, &n, "sim");
	add(a, v, &n, "--host");
	add(a, v, &n, "127.0.0.1");
	add(a, v, &n, "--port");
	add(a, v, &n, ib_arena_printf(a, "%d", rc->port));
	add(a, v, &n, "--model");
	add(a, v, &n, it->sim_model);
	add(a, v, &n, "--hardware");
	add(a, v, &n, it->sim_hw);
	add(a, v, &n, "--precision");
	add(a, v, &n, run_fieldz(a, row, "precision", ""));
	run_sim_shape sh;
	run_sim_shape_of(a, row, &sh);
	add(a, v, &n, "--framework");
	add(a, v, &n, sh.framework);
	if (sh.version) {
		add(a, v, &n, "--framework-version");
		add(a, v, &n, sh.version);
	}
	if (rc->x->sim_calibration) {
		add(a, v, &n, "--calibration");
		add(a, v, &n, rc->x->sim_calibration);
	}
	if (rc->x->sim_intervals) {
		add(a, v, &n, "--intervals");
		add(a, v, &n, rc->x->sim_intervals);
	}
	add(a, v, &n, "--tp");
	add(a, v, &n, ib_arena_printf(a, "%d", sh.tp));
	add(a, v, &n, "--ep");
	add(a, v, &n, ib_arena_printf(a, "%d", sh.ep));
	add(a, v, &n, "--pp");
	add(a, v, &n, ib_arena_printf(a, "%d", sh.pp));
	if (sh.dp_attn)
		add(a, v, &n, "--dp-attention");
	/* the DRAM KV offload budget (agentic rows with kv-offloading) */
	const ib_val *kvo = ib_map_get(row, "kv-offloading"),
	             *dram = ib_map_get(row, "total-cpu-dram-gb");
	if (kvo && kvo->type == IB_V_STR && strcmp(kvo->str.s, "none") && dram &&
	    (dram->type == IB_V_INT || dram->type == IB_V_FLOAT) &&
	    (dram->type == IB_V_INT ? dram->i > 0 : dram->f > 0)) {
		add(a, v, &n, "--kv-offload-gb");
		add(a, v, &n, run_fieldz(a, row, "total-cpu-dram-gb", "0"));
	}
	if (sh.decode_workers > 1) { /* workers behind one endpoint */
		add(a, v, &n, "--replicas");
		add(a, v, &n, ib_arena_printf(a, "%d", sh.decode_workers));
	}
	if (sh.prefill_workers > 0) { /* disaggregated: the prefill pool */
		add(a, v, &n, "--prefill-workers");
		add(a, v, &n, ib_arena_printf(a, "%d", sh.prefill_workers));
		add(a, v, &n, "--prefill-tp");
		add(a, v, &n, ib_arena_printf(a, "%d", sh.prefill_tp));
		add(a, v, &n, "--prefill-ep");
		add(a, v, &n, ib_arena_printf(a, "%d", sh.prefill_ep));
		if (sh.prefill_dp_attn)
			add(a, v, &n, "--prefill-dp-attention");
	}
	if (sh.fp8_kv) {
		add(a, v, &n, "--kv-cache-dtype");
		add(a, v, &n, "fp8");
	}
	if (ib_map_has(row, "max-model-len")) {
		add(a, v, &n, "--max-model-len");
		add(a, v, &n, run_fieldz(a, row, "max-model-len", ""));
	}
	add(a, v, &n, "--served-model-name");
	add(a, v, &n, run_fieldz(a, row, "model", ""));
	add(a, v, &n, "--max-num-seqs");
	add(a, v, &n, ib_arena_printf(a, "%lld", (long long)(rc->conc > 256 ? rc->conc : 256)));
	if (it->spec) {
		add(a, v, &n, "--spec-method");
		add(a, v, &n, it->sim_spec_method);
		add(a, v, &n, "--num-spec-tokens");
		add(a, v, &n, ib_arena_printf(a, "%d", rc->x->num_spec_tokens));
	}
	if (o->time_scale > 0) {
		add(a, v, &n, "--time-scale");
		add(a, v, &n, ib_arena_printf(a, "%g", o->time_scale));
	}
	if (o->tokenizer) {
		add(a, v, &n, "--tokenizer");
		add(a, v, &n, o->tokenizer);
	}
	if (o->sim_profile) {
		add(a, v, &n, "--profile");
		add(a, v, &n, o->sim_profile);
	}
	if (it->eval) { /* the simulator grades the eval's questions */
		add(a, v, &n, "--eval-dataset");
		add(a, v, &n, rc->x->eval_dataset);
		add(a, v, &n, "--eval-accuracy");
		add(a, v, &n, ib_arena_printf(a, "%g", rc->x->eval_accuracy));
	}
	/* a bound for a simulator whose runner was killed (SIGKILL) */
	add(a, v, &n, "--duration");
	add(a, v, &n,
	    ib_arena_printf(a, "%.0f",
	                    rc->x->ready_timeout_s +
	                        (o->row_timeout_s > 0 ? o->row_timeout_s : 21600)));
	for (size_t i = 0; i < o->nsim_extra; i++)
		add(a, v, &n, o->sim_extra[i]);
	/* an infbench row key: simulator flags for this row only (fault tests) */
	const ib_val *ra = ib_map_get(row, "sim-args");
	const char *s = ra && ra->type == IB_V_STR ? ra->str.s : "";
	while (*s && n < 78 + o->nsim_extra) {
		s += strspn(s, " \t");
		size_t l = strcspn(s, " \t");
		if (l)
			add(a, v, &n, ib_arena_strndup(a, s, l));
		s += l;
	}
	v[n] = NULL;
	return v;
}

/* The eval's command line: the recipes' run_eval (setup_eval_context's
 * context length ISL + OSL + 256), with infbench's gsm8k client. */
static const char **eval_argv(row_ctx *rc)
{
	ib_arena *a = rc->a;
	const ib_val *row = rc->it->row, *isl = ib_map_get(row, "isl"),
	             *osl = ib_map_get(row, "osl");
	const char **v = ib_arena_alloc(a, 24 * sizeof *v);
	size_t n = 0;
	add(a, v, &n, rc->o->self_exe);
	add(a, v, &n, "eval");
	add(a, v, &n, "run");
	add(a, v, &n, "--base-url");
	add(a, v, &n, ib_arena_printf(a, "http://127.0.0.1:%d", rc->port));
	add(a, v, &n, "--model");
	add(a, v, &n, run_fieldz(a, row, "model", ""));
	add(a, v, &n, "--dataset");
	add(a, v, &n, rc->x->eval_dataset);
	add(a, v, &n, "--output-path");
	add(a, v, &n, rc->ws);
	if (isl && osl && isl->type == IB_V_INT && osl->type == IB_V_INT) {
		add(a, v, &n, "--max-model-len");
		add(a, v, &n, ib_arena_printf(a, "%lld", (long long)(isl->i + osl->i + 256)));
	}
	if (rc->o->eval_limit > 0) {
		add(a, v, &n, "--limit");
		add(a, v, &n, ib_arena_printf(a, "%d", rc->o->eval_limit));
	}
	v[n] = NULL;
	return v;
}

int row_fail(row_ctx *rc, int state, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rc->reason.len = 0;
	ib_buf_vprintf(&rc->reason, fmt, ap);
	va_end(ap);
	/* log tails quote what recipes print: no terminal escapes */
	if (rc->reason.data)
		rc->reason.len = ib_str_strip_ctl(rc->reason.data);
	rc->state = state;
	return state;
}

/* Waits for the simulator's /health (§3.2): the log file, the PID's
 * liveness, the deadline. Returns RUN_RUNNING when ready. */
static int wait_ready(row_ctx *rc)
{
	int64_t deadline = ib_now_ns() + (int64_t)(rc->x->ready_timeout_s * 1e9);
	int pause = 10, st;
	for (;;) {
		if (atomic_load(rc->stop))
			return row_fail(rc, RUN_INTERRUPTED,
			                "stopped by signal %d while the server started",
			                atomic_load(rc->stop));
		if (ib_proc_reap(rc->server, &st, false)) {
			rc->server = 0;
			ib_buf tail = {0};
			run_tail(&tail, rc->server_log, 15);
			row_fail(rc, RUN_FAILED,
			         "server exited with status %d before it was ready; %s:%s", st,
			         rc->shown_server_log, tail.data ? tail.data : " (empty)");
			ib_buf_free(&tail);
			return RUN_FAILED;
		}
		if (access(rc->server_log, F_OK) == 0 && run_health(rc->port, 1000))
			return RUN_RUNNING;
		if (ib_now_ns() > deadline) {
			ib_buf tail = {0};
			run_tail(&tail, rc->server_log, 15);
			row_fail(rc, RUN_FAILED,
			         "server not ready after %.0f s (no answer on /health); %s:%s",
			         rc->x->ready_timeout_s, rc->shown_server_log,
			         tail.data ? tail.data : " (empty)");
			ib_buf_free(&tail);
			return RUN_FAILED;
		}
		run_sleep_ms(pause);
		if (pause < 200)
			pause *= 2;
	}
}

/* The client's failure in words: the failure-gate line of its log, or its
 * status and the last lines. */
static void client_failure(row_ctx *rc, int st)
{
	ib_buf log = {0};
	ib_error e = {0};
	const char *gate = NULL;
	if (ib_read_file(rc->client_log, &log, &e) == 0 && log.data)
		gate = strstr(log.data, "FAIL: request failure rate");
	if (gate)
		row_fail(rc, RUN_FAILED, "client: %.*s", (int)strcspn(gate, "\n"), gate);
	else {
		ib_buf tail = {0};
		run_tail(&tail, rc->client_log, 8);
		row_fail(rc, RUN_FAILED, "client exited with status %d; %s:%s", st,
		         rc->shown_client_log, tail.data ? tail.data : " (empty)");
		ib_buf_free(&tail);
	}
	ib_buf_free(&log);
}

/* The output tokens the row's simulator has generated so far (its
 * "*:generation_tokens_total" counter), or -1 when /metrics does not answer
 * within 300 ms or has no such counter. */
static double generated_tokens(row_ctx *rc, ib_buf *b)
{
	net_target t = {.host = "127.0.0.1", .port = rc->port};
	int status = 0;
	b->len = 0;
	if (net_http_call(&t, "GET", "/metrics", NULL, 0, 300, &status, b, NULL) || status != 200 ||
	    !b->data)
		return -1;
	static const char name[] = ":generation_tokens_total";
	for (const char *l = b->data; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (*l == '#')
			continue;
		size_t k = strcspn(l, "{ \n");
		if (k < sizeof name - 1 || memcmp(l + k - (sizeof name - 1), name, sizeof name - 1))
			continue;
		const char *v = l + k;
		if (*v == '{')
			v = strchr(v, '}') ? strchr(v, '}') + 1 : v;
		char *end;
		double x = strtod(v, &end);
		return end != v && x >= 0 ? x : -1;
	}
	return -1;
}

/* About how many output tokens the row's client asks for, warmups included. */
static double expected_tokens(const row_ctx *rc)
{
	double osl = atof(run_fieldz(rc->a, rc->it->row, "osl", "0"));
	double reqs = (double)rc->conc * (rc->x->prompts_per_conc + rc->x->warmups_per_conc);
	return reqs * osl * (1 + atof(CLIENT_RANGE_RATIO)) / 2;
}

/* The row fails because its server (reaped with status sst) exited during
 * `what`; the reason quotes the server log's tail. */
static int server_exited(row_ctx *rc, int sst, const char *what)
{
	rc->server = 0;
	ib_buf tail = {0};
	run_tail(&tail, rc->server_log, 15);
	row_fail(rc, RUN_FAILED, "server exited with status %d during the %s; %s:%s", sst, what,
	         rc->shown_server_log, tail.data ? tail.data : " (empty)");
	ib_buf_free(&tail);
	return RUN_FAILED;
}

/* supervise's loop; total > 0: report the tokens generated out of total
 * at *next_scrape (then a second later), reading /metrics into metrics. */
static int supervise_loop(row_ctx *rc, pid_t child, const char *what, int *st, double total,
                          int64_t *next_scrape, ib_buf *metrics)
{
	int64_t deadline = rc->o->row_timeout_s > 0
	                       ? ib_now_ns() + (int64_t)(rc->o->row_timeout_s * 1e9)
	                       : INT64_MAX;
	int pause = 10, sst;
	for (;;) {
		if (ib_proc_reap(child, st, false)) {
			/* a client that failed because the server died: the server's
			 * exit is the reason (it may be reaped a moment later) */
			for (int i = 0; *st != 0 && rc->server && i < 25; i++) {
				if (ib_proc_reap(rc->server, &sst, false))
					return server_exited(rc, sst, what);
				run_sleep_ms(20);
			}
			return RUN_RUNNING;
		}
		if (atomic_load(rc->stop)) {
			run_stop_group(child, 3000);
			return row_fail(rc, RUN_INTERRUPTED, "stopped by signal %d during the %s",
			                atomic_load(rc->stop), what);
		}
		if (rc->server && ib_proc_reap(rc->server, &sst, false)) {
			run_stop_group(child, 3000);
			return server_exited(rc, sst, what);
		}
		if (ib_now_ns() > deadline) {
			run_stop_group(child, 3000);
			return row_fail(rc, RUN_FAILED,
			                "the %s took longer than --row-timeout %.0f s", what,
			                rc->o->row_timeout_s);
		}
		if (total > 0 && ib_now_ns() >= *next_scrape) {
			double done = generated_tokens(rc, metrics);
			if (done >= 0)
				run_row_progress(rc, done, total);
			*next_scrape = ib_now_ns() + 1000000000LL;
		}
		run_sleep_ms(pause);
		if (pause < 100)
			pause *= 2;
	}
}

/* Runs a child to its end while watching the stop flag, the deadline and
 * (when watch != 0) the server's liveness. Returns RUN_RUNNING with *st.
 * During the simulator's benchmark it reports the tokens generated so far
 * about once a second (run_row_progress). */
static int supervise(row_ctx *rc, pid_t child, const char *what, int *st)
{
	bool watch_tokens =
	    rc->o->on_event && rc->o->engine == RUN_ENGINE_SIM && !strcmp(what, "benchmark");
	double total = watch_tokens ? expected_tokens(rc) : 0;
	int64_t next_scrape = ib_now_ns() + 1000000000LL;
	ib_buf metrics = {0};
	int r = supervise_loop(rc, child, what, st, watch_tokens && total > 0 ? total : 0,
	                       &next_scrape, &metrics);
	ib_buf_free(&metrics);
	return r;
}

/* The simulator engine, and a per-node recipe: the server (a simulator, or
 * the roles' steps), wait-for-ready, then the runner's client and eval. */
static int engine_served(row_ctx *rc)
{
	ib_error e = {0};
	pid_t pid;
	/* an agentic row's client is the AgentX replay, run in this process; a
	 * multi-node row inside its job: one srun step per role (roles.c) */
	bool replay = rc->it->agentic && !rc->it->eval_only;
	const char **sv = row_roles_wanted(rc) ? row_roles_argv(rc)
	                                       : row_in_container(rc, "server", row_sim_argv(rc)),
	           **cv = replay ? NULL : row_in_container(rc, "client", client_argv(rc));
	if (!sv || (!cv && !replay))
		return rc->state;
	row_note_command(rc->ws, sv);
	if (cv && !rc->it->eval_only)
		row_note_command(rc->ws, cv);
	if (run_spawn(sv, rc->envp, rc->ws, rc->server_log, &pid, &e))
		return row_fail(rc, RUN_FAILED, "%s", e.msg);
	rc->server = pid;
	run_note_pid(rc, pid);
	int64_t t0 = ib_now_ns();
	int s = wait_ready(rc);
	rc->server_start_s = (double)(ib_now_ns() - t0) / 1e9;
	if (s != RUN_RUNNING)
		return s;
	int st;
	if (replay && (s = row_agentic_replay(rc)) != RUN_RUNNING)
		return s;
	if (!rc->it->eval_only && !replay) {
		t0 = ib_now_ns();
		if (run_spawn(cv, rc->envp, rc->ws, rc->client_log, &pid, &e))
			return row_fail(rc, RUN_FAILED, "%s", e.msg);
		run_note_pid(rc, pid);
		s = supervise(rc, pid, "benchmark", &st);
		rc->client_s = (double)(ib_now_ns() - t0) / 1e9;
		if (s != RUN_RUNNING)
			return s;
		if (st != 0) {
			client_failure(rc, st);
			return RUN_FAILED;
		}
	}
	if (!rc->it->eval)
		return RUN_RUNNING;
	const char **ev = row_in_container(rc, "eval", eval_argv(rc));
	if (!ev)
		return rc->state;
	row_note_command(rc->ws, ev);
	if (run_spawn(ev, rc->envp, rc->ws, rc->eval_log, &pid, &e))
		return row_fail(rc, RUN_FAILED, "%s", e.msg);
	run_note_pid(rc, pid);
	s = supervise(rc, pid, "eval", &st);
	if (s != RUN_RUNNING)
		return s;
	if (st != 0) {
		ib_buf tail = {0};
		run_tail(&tail, rc->eval_log, 8);
		row_fail(rc, RUN_FAILED, "eval exited with status %d; %s:%s", st,
		         rc->shown_eval_log, tail.data ? tail.data : " (empty)");
		ib_buf_free(&tail);
		return RUN_FAILED;
	}
	return RUN_RUNNING;
}

static int engine_recipe(row_ctx *rc)
{
	ib_error e = {0};
	pid_t pid;
	const char *host[] = {"bash", rc->it->recipe, NULL};
	/* in a container the image's PATH stands, with the client shim first */
	const char *inner[] = {
	    "bash",          "-c",           "export PATH=\"$0:$PATH\"; exec bash \"$1\"",
	    rc->x->shim_dir, rc->it->recipe, NULL};
	const char **argv = rc->o->container ? row_in_container(rc, "recipe", inner) : host;
	if (!argv)
		return rc->state;
	row_note_command(rc->ws, argv);
	if (run_spawn(argv, rc->envp, rc->ws, rc->client_log, &pid, &e))
		return row_fail(rc, RUN_FAILED, "%s", e.msg);
	run_note_pid(rc, pid);
	int st;
	int s = supervise(rc, pid, "recipe", &st);
	if (s != RUN_RUNNING)
		return s;
	kill(-pid, SIGKILL); /* a server the recipe left running */
	char p[4096];
	snprintf(p, sizeof p, "%s/.aiperf", rc->ws); /* the shims' venv links */
	run_rmtree(p);
	snprintf(p, sizeof p, "%s/%s.json", rc->ws, rc->it->name);
	if (!rc->it->eval_only && access(p, F_OK) != 0) {
		ib_buf tail = {0};
		run_tail(&tail, rc->client_log, 15);
		row_fail(rc, RUN_FAILED,
		         "recipe %s exited with status %d and left no %s.json; %s:%s",
		         rc->it->recipe, st, rc->it->name, rc->shown_client_log,
		         tail.data ? tail.data : " (empty)");
		ib_buf_free(&tail);
		return RUN_FAILED;
	}
	return RUN_RUNNING;
}

static void proc_log(void *ud, int stream, const char *line)
{
	FILE *f = ud;
	(void)stream;
	fprintf(f, "%s\n", line);
}

/* process_result.py: agg_<RESULT_FILENAME>.json in the workspace. */
static int process(row_ctx *rc)
{
	size_t n = 0;
	while (rc->envp[n])
		n++;
	char p[4096];
	snprintf(p, sizeof p, "%s/process.log", rc->ws);
	FILE *f = fopen(p, "w");
	res_process_opts po = {.dir = rc->ws,
	                       .env = (const char *const *)rc->envp,
	                       .log = f ? proc_log : NULL,
	                       .log_ud = f};
	ib_error e = {0};
	int power = 0;
	int r = res_process(&po, NULL, &power, &e);
	if (f)
		fclose(f);
	if (r) {
		char msg[2600];
		ib_error_format(&e, msg, sizeof msg);
		return row_fail(rc, RUN_FAILED, "processing the result: %s", msg);
	}
	if (power)
		return row_fail(rc, RUN_FAILED,
		                "REQUIRE_POWER is set and the power measurement is invalid");
	return RUN_RUNNING;
}

int row_execute(row_ctx *rc)
{
	ib_error e = {0};
	const run_item *it = rc->it;
	run_rmtree(rc->ws);
	if (ib_mkdirs(rc->ws, 0755, &e))
		return row_fail(rc, RUN_FAILED, "%s", e.msg);
	ib_buf env = {0};
	run_row_env(&env, it->row, it->runner_name, it->name, rc->port);
	bool recipe = rc->o->engine == RUN_ENGINE_RECIPE;
	/* a per-node recipe serves; the runner runs the client, as for the simulator */
	bool recipe_client = recipe && !it->node_recipe;
	if (it->node_recipe && !row_roles_wanted(rc))
		return row_fail(rc, RUN_FAILED,
		                "%s is a multi-node row's per-node recipe: it runs inside the "
		                "row's Slurm job only (infbench run --slurm)",
		                it->recipe);
	if (it->agentic) {
		/* processing runs in the row's folder (simulator engine: the
		 * artifacts right there, as `agentx replay --output-dir`); a recipe
		 * gets the workspace's results/, as the workflow's /workspace/results */
		const char *rd = recipe_client ? ib_arena_printf(rc->a, "%s/results", rc->ws) : ".";
		run_agentic_env(&env, it->row, it->duration, rd ? rd : ".",
		                recipe_client ? rc->ws : ".");
		if (recipe_client && it->corpus)
			ib_buf_printf(&env, "INFBENCH_AGENTX_CORPUS=%s\n", it->corpus);
		/* InferenceX's agentic helpers cd into the workspace and make
		 * their aiperf venv under the runtime folder (the uv shim) */
		if (recipe)
			ib_buf_printf(
			    &env, "INFMAX_CONTAINER_WORKSPACE=%s\nAIPERF_RUNTIME_DIR=%s/.aiperf\n",
			    rc->ws, rc->ws);
	}
	if (rc->devices[0])
		ib_buf_printf(&env, "%s=%s\n",
		              it->amd ? "ROCR_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES",
		              rc->devices);
	if (recipe)
		run_recipe_env(rc, &env);
	row_roles_env(rc, &env);
	if (!env.data)
		return row_fail(rc, RUN_FAILED, "out of memory");
	rc->envp = make_envp(rc->a, env.data);
	rc->env_text = ib_arena_strdup(rc->a, env.data);
	int s = write_text(rc->ws, "env", env.data, &e);
	ib_buf_free(&env);
	if (!s)
		s = write_text(rc->ws, "identity.json", it->identity_json, &e);
	if (s || !rc->envp || !rc->env_text)
		return row_fail(rc, RUN_FAILED, "writing the workspace: %s", e.msg);
	if (rc->o->container && (s = row_container_begin(rc)) != RUN_RUNNING)
		return s;
	s = recipe_client ? engine_recipe(rc) : engine_served(rc);
	if (rc->server && s == RUN_RUNNING && row_roles_wanted(rc))
		row_roles_settle(rc);
	if (rc->server) {
		run_stop_group(rc->server, 5000);
		rc->server = 0;
	}
	row_container_end(rc);
	if (s != RUN_RUNNING)
		return s;
	if (!it->agentic && !it->eval_only && row_roles_wanted(rc))
		row_roles_power(rc); /* the roles' telemetry, now that they stopped */
	if (it->eval_only) {         /* no benchmark, nothing to process */
		rc->state = RUN_DONE;
		return RUN_DONE;
	}
	char p[4096];
	snprintf(p, sizeof p, "%s/%s.json", rc->ws, it->name);
	if (!it->agentic && access(p, F_OK) != 0)
		return row_fail(rc, RUN_FAILED, "the client left no %s.json", it->name);
	int64_t t0 = ib_now_ns();
	s = it->agentic ? row_agentic_finish(rc) : process(rc);
	rc->process_s = (double)(ib_now_ns() - t0) / 1e9;
	if (s != RUN_RUNNING)
		return s;
	rc->state = RUN_DONE;
	return RUN_DONE;
}
