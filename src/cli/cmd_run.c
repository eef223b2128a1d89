/* infbench run: the sweep runner (docs/run.md). Parses flags, builds the
 * matrix (a file, stdin, or master configs), calls the run library, prints
 * progress and maps the outcome to an exit status. */
#include "cli/args.h"
#include "cli/cli.h"
#include "cluster/cluster.h"
#include "matrix/matrix.h"
#include "run/run.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef IB_VERSION
#define IB_VERSION "0.1.0"
#endif

static const char *const engines[] = {"sim", "recipe", NULL};
static const char *const runtimes[] = {"none", "docker", "podman", "enroot", "apptainer", NULL};

static arg_opt run_opts_tbl[] = {
    {.name = "--results",
     .kind = ARG_ONE,
     .metavar = "DIR",
     .help = "results store (created; default results)"},
    {.name = "--config-files",
     .kind = ARG_MANY,
     .metavar = "FILE",
     .help = "master configs: build the matrix here (with --config-keys)"},
    {.name = "--config-keys",
     .kind = ARG_MANY,
     .metavar = "KEY",
     .help = "config keys or globs (matrix test-config)"},
    {.name = "--runner-config",
     .kind = ARG_ONE,
     .metavar = "FILE",
     .help = "runners file (default configs/runners.yaml)"},
    {.name = "--rows",
     .kind = ARG_ONE,
     .metavar = "LIST",
     .help = "only these row indexes: '0,3-5'"},
    {.name = "--filter",
     .kind = ARG_MANY,
     .metavar = "KEY=GLOB",
     .help = "only rows whose field matches (all must match)"},
    {.name = "--row-index",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "I",
     .help = "only the I-th selected row (a Slurm array task)"},
    {.name = "--engine",
     .kind = ARG_ONE,
     .choices = engines,
     .metavar = "E",
     .help = "sim (default) or recipe"},
    {.name = "--recipes",
     .kind = ARG_ONE,
     .metavar = "DIR",
     .help = "recipe folder for --engine recipe (default recipes)"},
    {.name = "--container",
     .kind = ARG_ONE,
     .choices = runtimes,
     .metavar = "RT",
     .help = "run each row inside its image: docker, podman, enroot or apptainer (default "
             "$INFBENCH_CONTAINER, else on the host)"},
    {.name = "--container-images",
     .kind = ARG_ONE,
     .metavar = "DIR",
     .help = "enroot/apptainer: the images as files, DIR/<image>.sqsh|.sif"},
    {.name = "--container-opts",
     .kind = ARG_ONE,
     .metavar = "'ARGS'",
     .help = "more runtime options before the image, space-separated (default "
             "$INFBENCH_CONTAINER_OPTS)"},
    {.name = "--shm-size",
     .kind = ARG_ONE,
     .metavar = "S",
     .help = "docker/podman --shm-size (default 16g)"},
    {.name = "--jobs",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "rows at once (default 1)"},
    {.name = "--gpus",
     .kind = ARG_ONE,
     .metavar = "IDS",
     .help = "device ids to pack rows on: '0-7' (default: nvidia-smi)"},
    {.name = "--gpus-per-node",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "recipe engine, multi-node rows: GPUs per node (--gres=gpu:N, GPUS_PER_NODE; "
             "default 8, 0: no --gres)"},
    {.name = "--cpus",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "simulator rows at once at most (default: online CPUs)"},
    {.name = "--runner-name",
     .kind = ARG_ONE,
     .metavar = "NAME",
     .help = "RUNNER_NAME (default <runner label>_0)"},
    {.name = "--tokenizer",
     .kind = ARG_ONE,
     .metavar = "DIR",
     .help = "tokenizer folder for the client and simulator"},
    CLI_TOK_CACHE_OPT,
    {.name = "--time-scale",
     .kind = ARG_ONE,
     .metavar = "S",
     .help = "simulator runs S times faster than real time"},
    {.name = "--num-spec-tokens",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "K",
     .help = "simulator draft tokens of spec-decoding rows (default 3)"},
    {.name = "--sim-profile",
     .kind = ARG_ONE,
     .metavar = "FILE",
     .help = "simulator --profile YAML"},
    {.name = "--sim-args",
     .kind = ARG_ONE,
     .metavar = "'ARGS'",
     .help = "more simulator flags, space-separated (fault injection)"},
    {.name = "--ready-timeout",
     .kind = ARG_ONE,
     .metavar = "S",
     .help = "server wait-for-ready limit (default 600)"},
    {.name = "--row-timeout",
     .kind = ARG_ONE,
     .metavar = "S",
     .help = "client/recipe limit per row (default none)"},
    {.name = "--prompts-per-conc",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "num-prompts = N x CONC (default 10, the reference)"},
    {.name = "--warmups-per-conc",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "num-warmups = N x CONC (default 2)"},
    {.name = "--prompt-threads",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "client prompt-generation threads"},
    {.name = "--collect",
     .kind = ARG_ONE,
     .metavar = "NAME",
     .help = "write STORE/agg_NAME.json of the done rows (default bmk); their evals: "
             "STORE/agg_eval_NAME.json"},
    {.name = "--eval-dataset",
     .kind = ARG_ONE,
     .metavar = "DIR",
     .help = "gsm8k folder (train.jsonl, test.jsonl) for rows with run-eval (default: a "
             "stand-in set made in STORE/eval-dataset)"},
    {.name = "--eval-accuracy",
     .kind = ARG_ONE,
     .metavar = "P",
     .help = "simulator: fraction of eval questions answered right (default 0.93)"},
    {.name = "--eval-limit",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "evals ask only the first N questions (default all)"},
    {.name = "--agentx-corpus",
     .kind = ARG_ONE,
     .metavar = "FILE",
     .help = "agentic rows: the Weka trace corpus to replay (default: the reference's for the "
             "model in the HF cache, else a stand-in made in STORE/agentx-corpus.jsonl)"},
    {.name = "--agentic-duration",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "S",
     .help = "agentic rows: profiling seconds, model time on the simulator (default: the "
             "row's duration)"},
    {.name = "--no-evals", .kind = ARG_FLAG, .help = "skip the evals of run-eval rows"},
    {.name = "--force", .kind = ARG_FLAG, .help = "rerun rows that are done"},
    {.name = "--retry-failed", .kind = ARG_FLAG, .help = "rerun rows whose last attempt failed"},
    {.name = "--dry-run", .kind = ARG_FLAG, .help = "plan and record, run nothing"},
    {.name = "--status",
     .kind = ARG_FLAG,
     .help = "show the store's manifest (and squeue states) and exit"},
    {.name = "--slurm",
     .kind = ARG_FLAG,
     .help = "submit the rows as a Slurm job array (one task per row)"},
    {.name = "--partition", .kind = ARG_ONE, .metavar = "P", .help = "Slurm partition"},
    {.name = "--account", .kind = ARG_ONE, .metavar = "A", .help = "Slurm account"},
    {.name = "--time", .kind = ARG_ONE, .metavar = "T", .help = "Slurm time limit per task"},
    {.name = "--wait", .kind = ARG_FLAG, .help = "with --slurm: follow the tasks until all end"},
    {.name = "--quiet", .kind = ARG_FLAG, .help = "no progress lines"},
    {.name = "--help", .alias = "-h", .kind = ARG_FLAG, .help = "show this help and exit"},
};

typedef struct {
	bool tty, quiet;
	size_t last_len;
	char cur[512];
	double eta; /* the last row event's ETA (< 0: unknown) */
} progress;

static void on_log(void *arg, int stream, const char *line)
{
	(void)arg;
	(void)stream;
	fprintf(stderr, "infbench run: %s\n", line);
}

static void on_event(void *arg, const run_event *ev)
{
	progress *pg = arg;
	if (ev->state == RUN_PENDING)
		return;
	if (ev->agentic && !ev->profiling) { /* within a running agentic row */
		snprintf(pg->cur, sizeof pg->cur, "%.48s: warmup, %zu requests, %zu in flight",
		         ev->name, ev->warmup_requests, ev->inflight);
	} else if (ev->agentic) {
		double pct = ev->duration > 0 ? 100 * ev->elapsed / ev->duration : 0;
		snprintf(pg->cur, sizeof pg->cur,
		         "%.48s: %.0f of %.0f s (%.0f%%), %zu requests, %zu failed", ev->name,
		         ev->elapsed, ev->duration, pct > 99 ? 99 : pct, ev->requests, ev->failed);
	} else if (ev->tokens_total > 0) { /* within the running row */
		double pct = 100 * ev->tokens_done / ev->tokens_total;
		snprintf(pg->cur, sizeof pg->cur, "%.48s: %.0f of ~%.0f tokens (%.0f%%)", ev->name,
		         ev->tokens_done, ev->tokens_total, pct > 99 ? 99 : pct);
	} else {
		if (ev->state == RUN_RUNNING)
			snprintf(pg->cur, sizeof pg->cur, "%s", ev->name);
		pg->eta = ev->eta_seconds;
	}
	bool end = ev->state != RUN_RUNNING;
	if (pg->tty && pg->last_len)
		fputs("\r\033[K", stderr);
	pg->last_len = 0;
	if (end && (!pg->quiet || ev->state == RUN_FAILED || ev->state == RUN_INTERRUPTED)) {
		const char *what = ev->reused ? "reused" : run_state_name(ev->state);
		if (ev->state == RUN_DONE && !ev->reused)
			fprintf(stderr, "[%zu/%zu] done %s (%.1f s)\n", ev->done, ev->total,
			        ev->name, ev->seconds);
		else
			fprintf(stderr, "[%zu/%zu] %s %s%s%s\n", ev->done, ev->total, what,
			        ev->name, ev->reason ? ": " : "", ev->reason ? ev->reason : "");
	}
	if (pg->tty && !pg->quiet && ev->done < ev->total) {
		char eta[32] = "?";
		if (pg->eta >= 0)
			snprintf(eta, sizeof eta, "%dm%02ds", (int)pg->eta / 60, (int)pg->eta % 60);
		int n = fprintf(stderr, "rows %zu/%zu, ETA %s, running %.100s", ev->done, ev->total,
		                eta, pg->cur);
		pg->last_len = n > 0 ? (size_t)n : 0;
	}
	fflush(stderr);
}

/* The matrix: a JSON file / stdin, or master configs expanded here. */
static int load_matrix(arg_parser *p, const char *path, ib_arena *a, ib_val **rows)
{
	ib_error e = {0};
	arg_opt *cf = args_get(p, "--config-files");
	if (cf->seen) {
		arg_opt *keys = args_get(p, "--config-keys"), *rc = args_get(p, "--runner-config");
		if (!keys->seen)
			return args_error(p, NULL, "--config-files needs --config-keys");
		ib_diags d = {.a = a};
		ib_val *master = NULL, *runners = NULL;
		int r = cfg_load_master(a, cf->vals, cf->nvals, &master, &d);
		if (!r)
			r = cfg_load_runners(a, rc->seen ? rc->vals[0] : "configs/runners.yaml",
			                     &runners, &d);
		if (r) {
			cli_print_diags(&d);
			return CLI_FAIL;
		}
		mx_opts o;
		mx_opts_init(&o, false);
		o.config_keys.v = keys->vals;
		o.config_keys.n = keys->nvals;
		if (mx_generate(a, &o, master, runners, rows, &e)) {
			cli_error("infbench run", NULL, &e);
			return CLI_FAIL;
		}
		return CLI_OK;
	}
	if (!path)
		return args_error(p, NULL,
		                  "a matrix JSON file (or '-') or --config-files is required");
	ib_buf b = {0};
	int r = 0;
	if (!strcmp(path, "-")) {
		r = cli_read_input(NULL, &b, &e);
		r = r ? r : ib_json_parse(a, "<stdin>", b.data ? b.data : "", b.len, rows, &e);
	} else {
		r = ib_json_parse_file(a, path, rows, &e);
	}
	ib_buf_free(&b);
	/* changelog process's output is accepted too */
	const ib_val *list = NULL;
	if (!r && !(r = run_matrix_rows(a, *rows, &list, &e)))
		*rows = (ib_val *)list;
	if (r) {
		cli_error("infbench run", NULL, &e);
		return CLI_FAIL;
	}
	return CLI_OK;
}

static double num(arg_parser *p, const char *name, double dflt, int *bad)
{
	arg_opt *o = args_get(p, name);
	if (!o->seen)
		return dflt;
	char *end;
	double v = strtod(o->vals[0], &end);
	if (*end || end == o->vals[0] || v < 0)
		*bad = args_error(p, NULL, "argument %s: expected a number >= 0, got '%s'", name,
		                  o->vals[0]);
	return v;
}

static int ival(arg_parser *p, const char *name, int dflt)
{
	arg_opt *o = args_get(p, name);
	return o->seen ? (int)o->ivals[0] : dflt;
}

static const char *sval(arg_parser *p, const char *name, const char *dflt)
{
	arg_opt *o = args_get(p, name);
	return o->seen ? o->vals[0] : dflt;
}

/* Splits the --sim-args string on blanks into a NULL-free list (arena). */
static const char **split_args(ib_arena *a, const char *s, size_t *n)
{
	*n = 0;
	if (!s)
		return NULL;
	const char **v = ib_arena_alloc(a, (strlen(s) / 2 + 2) * sizeof *v);
	while (v && *s) {
		s += strspn(s, " \t");
		size_t l = strcspn(s, " \t");
		if (l)
			v[(*n)++] = ib_arena_strndup(a, s, l);
		s += l;
	}
	return v;
}

/* --container and its options; the runner settings $INFBENCH_CONTAINER and
 * $INFBENCH_CONTAINER_OPTS are their defaults. Returns 0 or a usage error. */
static int container_opts(arg_parser *p, ib_arena *a, run_opts *o)
{
	const char *rt = sval(p, "--container", getenv("INFBENCH_CONTAINER"));
	ib_error e = {0};
	if (rt && *rt && cl_runtime_parse(rt, &o->container, &e))
		return args_error(p, NULL, "$INFBENCH_CONTAINER: %s", e.msg);
	o->container_images = sval(p, "--container-images", NULL);
	char *dir = o->container_images ? realpath(o->container_images, NULL) : NULL;
	if (dir) /* the rows' processes work in their workspaces */
		o->container_images = ib_arena_strdup(a, dir);
	free(dir);
	o->shm_size = sval(p, "--shm-size", NULL);
	o->container_opts = split_args(
	    a, sval(p, "--container-opts", getenv("INFBENCH_CONTAINER_OPTS")), &o->ncontainer_opts);
	return 0;
}

static int status_cmd(const char *store)
{
	ib_arena *a = ib_arena_new();
	ib_val *list;
	ib_error e = {0};
	if (run_store_status(a, store, &list, &e)) {
		cli_error("infbench run", NULL, &e);
		ib_arena_free(a);
		return CLI_FAIL;
	}
	size_t count[RUN_INTERRUPTED + 1] = {0};
	for (size_t i = 0; i < list->list.n; i++) {
		const ib_val *r = list->list.v[i];
		const ib_val *st = ib_map_get(r, "state"), *nm = ib_map_get(r, "name"),
		             *id = ib_map_get(r, "identity"), *why = ib_map_get(r, "reason"),
		             *att = ib_map_get(r, "attempt");
		const char *s = st && st->type == IB_V_STR ? st->str.s : "?";
		if (why && why->type == IB_V_STR) /* written by an older runner, maybe raw */
			ib_str_strip_ctl((char *)why->str.s);
		for (int k = 0; k <= RUN_INTERRUPTED; k++)
			count[k] += !strcmp(s, run_state_name(k));
		printf("%-11s %s a%lld %s%s%s\n", s, id ? id->str.s : "?",
		       att && att->type == IB_V_INT ? (long long)att->i : 0LL, nm ? nm->str.s : "?",
		       why && why->type == IB_V_STR ? "  -- " : "",
		       why && why->type == IB_V_STR ? why->str.s : "");
	}
	ib_buf jobs = {0}, q = {0};
	for (size_t i = 0; i < list->list.n; i++) {
		const ib_val *j = ib_map_get(list->list.v[i], "slurm_job");
		if (j && j->type == IB_V_STR && !(jobs.data && strstr(jobs.data, j->str.s)))
			ib_buf_printf(&jobs, "%s%s", jobs.len ? " " : "", j->str.s);
	}
	if (jobs.data && run_slurm_queue(jobs.data, &q, &e) == 0 && q.data && q.len)
		printf("squeue (job_task state):\n%s", q.data);
	ib_buf_free(&jobs);
	ib_buf_free(&q);
	printf("%zu rows:", list->list.n);
	for (int k = 0; k <= RUN_INTERRUPTED; k++)
		if (count[k])
			printf(" %zu %s", count[k], run_state_name(k));
	printf("\n");
	ib_arena_free(a);
	return CLI_OK;
}

/* --slurm: submit, then (--wait) follow the queue; the exit status. */
static int slurm_rows(arg_parser *p, run_opts *o, run_plan *plan)
{
	ib_error e = {0};
	run_slurm_opts so = {.partition = sval(p, "--partition", NULL),
	                     .account = sval(p, "--account", NULL),
	                     .time = sval(p, "--time", NULL)};
	ib_buf ids = {0}, q = {0};
	if (run_slurm_submit(o, plan, &so, &ids, &e)) {
		cli_error("infbench run", "--slurm", &e);
		ib_buf_free(&ids);
		return CLI_STORE;
	}
	printf("submitted %zu rows as Slurm job array %s\n", run_plan_count(plan),
	       ids.data ? ids.data : "");
	fflush(stdout);
	int status = CLI_OK;
	if (args_get(p, "--wait")->seen && ids.data) {
		run_summary sum = {0};
		for (;;) {
			q.len = 0;
			if (run_slurm_queue(ids.data, &q, &e)) {
				cli_error("infbench run", "--wait", &e);
				status = CLI_STORE;
				break;
			}
			if (!q.len || !q.data[0])
				break;
			size_t ended = sum.done + sum.failed + sum.skipped;
			if (!run_plan_outcome(plan, o->store, &sum, &e) &&
			    !args_get(p, "--quiet")->seen &&
			    (isatty(2) || sum.done + sum.failed + sum.skipped != ended))
				fprintf(stderr, "%srows %zu/%zu ended (%zu failed)%s",
				        isatty(2) ? "\r\033[K" : "",
				        sum.done + sum.failed + sum.skipped, run_plan_count(plan),
				        sum.failed, isatty(2) ? "" : "\n");
			sleep(2);
		}
		if (!status && run_plan_outcome(plan, o->store, &sum, &e) == 0) {
			fprintf(stderr,
			        "\ninfbench run: %zu rows: %zu done, %zu failed, %zu skipped, %zu "
			        "interrupted\n",
			        run_plan_count(plan), sum.done, sum.failed, sum.skipped,
			        sum.interrupted);
			char out[4200];
			snprintf(out, sizeof out, "%s/agg_%s.json", o->store,
			         sval(p, "--collect", "bmk"));
			status = sum.failed || sum.interrupted ||
			                 sum.done + sum.skipped < run_plan_count(plan)
			             ? 1
			             : 0;
			if (run_collect(plan, o->store, out, &e)) {
				cli_error("infbench run", "collecting", &e);
				status = 3; /* a store error */
			}
		}
	}
	ib_buf_free(&ids);
	ib_buf_free(&q);
	return status;
}

/* Selection, planning, execution, collection; the exit status. */
static int run_rows(arg_parser *p, run_opts *o, const ib_val *rows);
static int cli_run_rows(arg_parser *p, run_opts *o, const ib_val *rows)
{
	const char *tok0 = o->tokenizer, *prof0 = o->sim_profile;
	int st = run_rows(p, o, rows);
	if (o->tokenizer != tok0)
		free((char *)o->tokenizer);
	if (o->sim_profile != prof0)
		free((char *)o->sim_profile);
	return st;
}

static int run_rows(arg_parser *p, run_opts *o, const ib_val *rows)
{
	ib_error e = {0};
	if (!rows || rows->type != IB_V_LIST) {
		fprintf(stderr, "infbench run: error: the matrix is not a JSON list of rows\n");
		return CLI_FAIL;
	}
	bool *keep = calloc(rows->list.n + 1, sizeof *keep);
	arg_opt *f = args_get(p, "--filter"), *ri = args_get(p, "--row-index");
	if (!keep ||
	    run_select(rows, sval(p, "--rows", NULL), f->vals, f->seen ? f->nvals : 0, keep, &e)) {
		cli_error("infbench run", NULL, &e);
		free(keep);
		return CLI_USAGE;
	}
	if (ri->seen) { /* the I-th selected row only */
		int64_t want = ri->ivals[0], k = 0;
		bool found = false;
		for (size_t i = 0; i < rows->list.n; i++)
			if (keep[i])
				found |= (keep[i] = k++ == want);
		if (!found) {
			free(keep);
			return args_error(p, NULL, "--row-index %lld: only %lld rows are selected",
			                  (long long)want, (long long)k);
		}
	}
	/* children work in the row's workspace: paths they get must be absolute */
	char *tok = o->tokenizer ? realpath(o->tokenizer, NULL) : NULL,
	     *prof = o->sim_profile ? realpath(o->sim_profile, NULL) : NULL;
	if (tok)
		o->tokenizer = tok;
	if (prof)
		o->sim_profile = prof;
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	self[n > 0 ? n : 0] = 0;
	o->self_exe = self;
	progress pg = {.tty = isatty(2), .quiet = args_get(p, "--quiet")->seen, .eta = -1};
	o->on_event = on_event;
	o->on_log = on_log;
	o->arg = &pg;
	run_plan *plan = NULL;
	run_summary sum = {0};
	int rc = run_plan_new(o, rows, keep, &plan, &e);
	free(keep);
	if (rc == IB_EPARSE || rc == IB_EINVAL) { /* an input the plan rejects: a bad corpus */
		cli_error("infbench run", NULL, &e);
		return CLI_FAIL;
	}
	if (!rc && args_get(p, "--slurm")->seen) {
		int st = slurm_rows(p, o, plan);
		run_plan_free(plan);
		return st;
	}
	/* --dry-run: the planned rows, one line each, on stdout */
	for (size_t i = 0; !rc && o->dry_run && i < run_plan_count(plan); i++)
		printf("%zu\t%s\t%s\n", i, run_plan_identity(plan, i), run_plan_name(plan, i));
	if (!rc)
		rc = run_execute(o, plan, &sum, &e);
	if (rc) {
		cli_error("infbench run", NULL, &e);
		run_plan_free(plan);
		return CLI_STORE;
	}
	char out[4200];
	snprintf(out, sizeof out, "%s/agg_%s.json", o->store, sval(p, "--collect", "bmk"));
	bool collect_failed = !o->dry_run && !ri->seen && run_collect(plan, o->store, out, &e);
	if (collect_failed)
		cli_error("infbench run", "collecting", &e);
	int sig = sum.stopped_by;
	if (!pg.quiet || sig || sum.failed)
		fprintf(
		    stderr,
		    "infbench run: %zu rows: %zu done (%zu reused), %zu failed, %zu skipped, %zu "
		    "interrupted, %zu not started; results in %s\n",
		    run_plan_count(plan), sum.done, sum.reused, sum.failed, sum.skipped,
		    sum.interrupted,
		    run_plan_count(plan) - sum.done - sum.failed - sum.skipped - sum.interrupted,
		    o->store);
	run_plan_free(plan);
	if (sig)
		return 128 + sig;
	if (collect_failed)
		return CLI_STORE; /* a store error: agg_bmk.json is not what the rows say */
	return sum.failed ? CLI_FAIL : CLI_OK;
}

int cmd_run(int argc, char **argv)
{
	const char *matrix = NULL;
	if (argc > 1 && (argv[1][0] != '-' || !strcmp(argv[1], "-"))) {
		matrix = argv[1];
		argv++;
		argc--;
	}
	arg_parser p = {.prog = "infbench run",
	                .desc = "Run the rows of MATRIX (a matrix JSON file, '-' for stdin; or "
	                        "--config-files with --config-keys): server (simulator or "
	                        "recipe), client, processing, into a resumable results store.",
	                .epilog = "Exit status: 0 all rows done or skipped, 1 a row failed, 2 "
	                          "usage, 3 store error, 130 interrupted. See docs/run.md.",
	                .opts = run_opts_tbl,
	                .nopts = sizeof run_opts_tbl / sizeof *run_opts_tbl};
	int r = args_parse(&p, argc - 1, argv + 1, NULL, 0);
	if (r)
		return r == 1 ? CLI_OK : CLI_USAGE;
	const char *store = sval(&p, "--results", "results");
	/* the rows' clients and simulators inherit it (INFBENCH_TOK_CACHE) */
	if (cli_tok_cache(p.prog, sval(&p, "--tok-cache", NULL))) {
		args_free(&p);
		return CLI_FAIL;
	}
	if (args_get(&p, "--status")->seen) {
		args_free(&p);
		return status_cmd(store);
	}
	ib_arena *a = ib_arena_new();
	ib_val *rows = NULL;
	int bad = 0, status = CLI_FAIL;
	run_opts o;
	run_opts_init(&o);
	o.store = store;
	o.version = IB_VERSION;
	o.engine =
	    !strcmp(sval(&p, "--engine", "sim"), "recipe") ? RUN_ENGINE_RECIPE : RUN_ENGINE_SIM;
	o.recipes = sval(&p, "--recipes", "recipes");
	o.jobs = ival(&p, "--jobs", 1);
	o.gpus = sval(&p, "--gpus", NULL);
	o.cpus = ival(&p, "--cpus", 0);
	o.gpus_per_node = ival(&p, "--gpus-per-node", 0);
	if (args_get(&p, "--gpus-per-node")->seen && o.gpus_per_node <= 0)
		o.gpus_per_node = -1;
	o.runner_name = sval(&p, "--runner-name", NULL);
	o.tokenizer = sval(&p, "--tokenizer", NULL);
	o.time_scale = num(&p, "--time-scale", 0, &bad);
	o.num_spec_tokens = ival(&p, "--num-spec-tokens", 0);
	o.sim_profile = sval(&p, "--sim-profile", NULL);
	o.sim_extra = split_args(a, sval(&p, "--sim-args", NULL), &o.nsim_extra);
	o.ready_timeout_s = num(&p, "--ready-timeout", 0, &bad);
	o.row_timeout_s = num(&p, "--row-timeout", 0, &bad);
	o.prompts_per_conc = ival(&p, "--prompts-per-conc", 0);
	o.warmups_per_conc = ival(&p, "--warmups-per-conc", 0);
	if (args_get(&p, "--warmups-per-conc")->seen && o.warmups_per_conc == 0)
		o.warmups_per_conc = -1;
	o.prompt_threads = ival(&p, "--prompt-threads", 0);
	o.eval_dataset = sval(&p, "--eval-dataset", NULL);
	o.eval_accuracy = num(&p, "--eval-accuracy", 0, &bad);
	o.eval_limit = ival(&p, "--eval-limit", 0);
	o.no_evals = args_get(&p, "--no-evals")->seen;
	o.agentx_corpus = sval(&p, "--agentx-corpus", NULL);
	o.agentic_duration = ival(&p, "--agentic-duration", 0);
	if (args_get(&p, "--agentic-duration")->seen && o.agentic_duration < 1)
		bad =
		    args_error(&p, NULL, "argument --agentic-duration: must be at least 1 second");
	if (args_get(&p, "--eval-accuracy")->seen && !bad &&
	    !(o.eval_accuracy > 0 && o.eval_accuracy <= 1))
		bad = args_error(&p, NULL, "argument --eval-accuracy: must be in (0, 1]");
	if (o.eval_limit < 0)
		bad = args_error(&p, NULL, "argument --eval-limit: must be positive");
	o.force = args_get(&p, "--force")->seen;
	o.retry_failed = args_get(&p, "--retry-failed")->seen;
	o.dry_run = args_get(&p, "--dry-run")->seen;
	o.shared_store = args_get(&p, "--row-index")->seen;
	bad = bad ? bad : container_opts(&p, a, &o);
	if (o.jobs < 1 || o.jobs > 64)
		bad = args_error(&p, NULL, "argument --jobs: must be in [1, 64]");
	if (bad || load_matrix(&p, matrix, a, &rows)) {
		status = bad ? 2 : 1;
		goto done;
	}
	status = cli_run_rows(&p, &o, rows);
done:
	args_free(&p);
	ib_arena_free(a);
	return status;
}
