/* Slurm: the plan's rows as job arrays (one task per row, each an `infbench
 * run --row-index I` against the shared store), squeue, and the outcome of a
 * plan read back from the manifest. */
#include "cluster/cluster.h"
#include "cluster/multinode.h"
#include "run/plan.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A path as the tasks must see it: absolute when it exists here. */
static const char *abs_path(ib_arena *a, const char *p)
{
	char *r = p ? realpath(p, NULL) : NULL;
	if (!r)
		return p;
	const char *s = ib_arena_strdup(a, r);
	free(r);
	return s;
}

static void opt(ib_buf *b, const char *name, const char *val)
{
	if (!val)
		return;
	ib_buf_printf(b, " %s '", name);
	for (const char *s = val; *s; s++)
		ib_buf_puts(b, *s == '\'' ? "'\\''" : (char[]){*s, 0});
	ib_buf_putc(b, '\'');
}

/* An option whose value is a list of arguments, blank-separated. */
static void opt_list(ib_buf *b, const char *name, const char *const *v, size_t n)
{
	ib_buf x = {0};
	for (size_t i = 0; i < n; i++)
		ib_buf_printf(&x, "%s%s", i ? " " : "", v[i]);
	opt(b, name, x.data);
	ib_buf_free(&x);
}

/* The task's options, rebuilt from o (paths made absolute). */
static void task_flags(ib_buf *b, ib_arena *a, const run_opts *o)
{
	char tmp[64];
	opt(b, "--engine", o->engine == RUN_ENGINE_RECIPE ? "recipe" : "sim");
	if (o->engine == RUN_ENGINE_RECIPE)
		opt(b, "--recipes", abs_path(a, o->recipes));
	opt(b, "--tokenizer", abs_path(a, o->tokenizer));
	opt(b, "--runner-name", o->runner_name);
	opt(b, "--sim-profile", abs_path(a, o->sim_profile));
	opt(b, "--eval-dataset", abs_path(a, o->eval_dataset));
	opt(b, "--agentx-corpus", abs_path(a, o->agentx_corpus));
	if (o->no_evals)
		ib_buf_puts(b, " --no-evals");
	if (o->time_scale > 0) {
		snprintf(tmp, sizeof tmp, "%.17g", o->time_scale);
		opt(b, "--time-scale", tmp);
	}
	opt_list(b, "--sim-args", o->sim_extra, o->nsim_extra);
	const struct {
		const char *name;
		double v;
	} nums[] = {{"--ready-timeout", o->ready_timeout_s},
	            {"--row-timeout", o->row_timeout_s},
	            {"--num-spec-tokens", o->num_spec_tokens},
	            {"--prompts-per-conc", o->prompts_per_conc},
	            {"--warmups-per-conc", o->warmups_per_conc},
	            {"--prompt-threads", o->prompt_threads},
	            {"--eval-accuracy", o->eval_accuracy},
	            {"--eval-limit", o->eval_limit},
	            {"--agentic-duration", o->agentic_duration},
	            {"--gpus-per-node", o->gpus_per_node}};
	for (size_t i = 0; i < sizeof nums / sizeof *nums; i++) {
		if (nums[i].v == 0)
			continue;
		snprintf(tmp, sizeof tmp, "%.17g", nums[i].v < 0 ? 0 : nums[i].v);
		opt(b, nums[i].name, tmp);
	}
	if (o->container) { /* each task starts its row's containers on its node */
		opt(b, "--container", cl_runtime_name(o->container));
		opt(b, "--container-images", abs_path(a, o->container_images));
		opt(b, "--shm-size", o->shm_size);
		opt_list(b, "--container-opts", o->container_opts, o->ncontainer_opts);
	}
	if (o->force)
		ib_buf_puts(b, " --force");
	if (o->retry_failed)
		ib_buf_puts(b, " --retry-failed");
}

/* The task's command line: `'EXE' run 'MATRIX' --results 'STORE'
 * --row-index IDX --quiet` and the options of o (IDX is shell text). */
static void task_command(ib_buf *b, ib_arena *a, const run_opts *o, const char *matrix,
                         const char *idx)
{
	ib_buf_printf(b, "'%s' run '%s' --results '%s' --row-index %s --quiet", o->self_exe, matrix,
	              abs_path(a, o->store), idx);
	task_flags(b, a, o);
}

/* Runs sbatch (argv) and appends the job id it prints to jobids. */
static int sbatch(const char *const *argv, ib_buf *jobids, ib_error *e)
{
	ib_buf out = {0}, err = {0};
	int st = 0;
	int rc = ib_proc_run(argv, NULL, &out, &err, &st, e);
	if (!rc && st != 0)
		rc =
		    ib_fail(e, IB_EIO, "", 0, 0, "sbatch failed (status %d): %.*s", st,
		            (int)strcspn(err.data ? err.data : "", "\n"), err.data ? err.data : "");
	if (!rc) {
		const char *id = out.data ? out.data : "";
		ib_buf_printf(jobids, "%s%.*s", jobids->len ? " " : "", (int)strcspn(id, ";\n"),
		              id);
	}
	ib_buf_free(&out);
	ib_buf_free(&err);
	return rc;
}

static bool is_multinode(const ib_val *row)
{
	cl_mn_layout l;
	ib_error e = {0};
	return !cl_mn_layout_of(row, 0, &l, &e) && l.multinode;
}

/* One array: the single-node rows of plan p whose GPU count is gpus (< 0:
 * all); none: nothing submitted. */
static int submit_group(const run_opts *o, const run_plan *p, const run_slurm_opts *so,
                        int64_t gpus, const char *dir, ib_buf *jobids, ib_error *e)
{
	ib_arena *a = ib_arena_new();
	ib_val *rows = a ? ib_v_list(a) : NULL;
	if (!rows) {
		ib_arena_free(a);
		return IB_ENOMEM;
	}
	for (size_t i = 0; i < p->n; i++)
		if ((gpus < 0 || p->items[i].gpus == gpus) && !is_multinode(p->items[i].row))
			ib_list_push(a, rows, (ib_val *)p->items[i].row);
	if (!rows->list.n) {
		ib_arena_free(a);
		return 0;
	}
	int rc = ib_mkdirs(dir, 0755, e);
	ib_buf b = {0};
	char path[4200];
	ib_json_opts jo = IB_JSON_PYTHON;
	snprintf(path, sizeof path, "%s/matrix.json", dir);
	if (!rc)
		rc = ib_json_write_path(path, rows, &jo, e);
	char cwd[4096];
	if (!getcwd(cwd, sizeof cwd))
		snprintf(cwd, sizeof cwd, "/");
	ib_buf_printf(
	    &b, "#!/bin/sh\n# written by infbench run --slurm: one matrix row per array task\n");
	ib_buf_printf(&b, "cd '%s' || exit 1\nexec ", cwd);
	task_command(&b, a, o, path, "\"$SLURM_ARRAY_TASK_ID\"");
	ib_buf_putc(&b, '\n');
	snprintf(path, sizeof path, "%s/task.sh", dir);
	if (!rc)
		rc = ib_buf_write_file(path, &b, e);
	ib_buf_free(&b);
	if (rc) {
		ib_arena_free(a);
		return rc;
	}
	const char *argv[24];
	size_t n = 0;
	argv[n++] = "sbatch";
	argv[n++] = "--parsable";
	argv[n++] = ib_arena_printf(a, "--array=0-%zu", rows->list.n - 1);
	argv[n++] = "--job-name=infbench-run";
	argv[n++] = ib_arena_printf(a, "--output=%s/task-%%a.out", dir);
	argv[n++] = "--ntasks=1";
	if (gpus > 0)
		argv[n++] = ib_arena_printf(a, "--gres=gpu:%lld", (long long)gpus);
	if (so->partition)
		argv[n++] = ib_arena_printf(a, "--partition=%s", so->partition);
	if (so->account)
		argv[n++] = ib_arena_printf(a, "--account=%s", so->account);
	if (so->time)
		argv[n++] = ib_arena_printf(a, "--time=%s", so->time);
	argv[n++] = path;
	argv[n] = NULL;
	rc = sbatch(argv, jobids, e);
	ib_arena_free(a);
	return rc;
}

/* A multi-node row as one job over its nodes (docs/run.md "Multi-node
 * rows"): DIR/matrix.json holds the row, DIR/job.sh (cl_mn_job_script)
 * runs it on the allocation, its output in DIR/job.out. */
static int submit_multinode(const run_opts *o, const run_item *it, const run_slurm_opts *so,
                            const char *dir, ib_buf *jobids, ib_error *e)
{
	ib_arena *a = ib_arena_new();
	ib_val *rows = a ? ib_v_list(a) : NULL;
	if (!rows || ib_list_push(a, rows, (ib_val *)it->row)) {
		ib_arena_free(a);
		return IB_ENOMEM;
	}
	/* the recipe engine asks a whole node's GPUs on every node */
	int gpn = o->engine == RUN_ENGINE_RECIPE ? run_gpus_per_node(o) : 0;
	cl_mn_layout l;
	int rc = cl_mn_layout_of(it->row, gpn, &l, e);
	if (!rc)
		rc = ib_mkdirs(dir, 0755, e);
	char path[4400], cwd[4096];
	ib_json_opts jo = IB_JSON_PYTHON;
	snprintf(path, sizeof path, "%s/matrix.json", dir);
	if (!rc)
		rc = ib_json_write_path(path, rows, &jo, e);
	if (!getcwd(cwd, sizeof cwd))
		snprintf(cwd, sizeof cwd, "/");
	ib_buf cmd = {0}, b = {0};
	task_command(&cmd, a, o, path, "0");
	if (!rc && !(rc = cl_mn_job_script(&b, &l, cwd, cmd.data ? cmd.data : ""))) {
		snprintf(path, sizeof path, "%s/job.sh", dir);
		rc = ib_buf_write_file(path, &b, e);
	}
	ib_buf_free(&cmd);
	ib_buf_free(&b);
	cl_mn_submit s = {.script = path,
	                  .output = ib_arena_printf(a, "%s/job.out", dir),
	                  .gpus_per_node = gpn,
	                  .partition = so->partition,
	                  .account = so->account,
	                  .time_limit = so->time};
	const char *argv[24];
	if (!rc && !cl_mn_sbatch_argv(a, &l, &s, argv, sizeof argv / sizeof *argv))
		rc = IB_ENOMEM;
	if (!rc)
		rc = sbatch(argv, jobids, e);
	ib_arena_free(a);
	return rc;
}

int run_slurm_submit(const run_opts *o, const run_plan *p, const run_slurm_opts *so, ib_buf *jobids,
                     ib_error *e)
{
	if (!p->n)
		return 0;
	char stamp[64], dir[4200];
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	/* the store must exist before the tasks share it */
	run_store st;
	int rc = run_store_open(&st, o->store, false, e);
	if (rc)
		return rc;
	run_store_close(&st);
	/* multi-node rows: one job each over the row's nodes */
	for (size_t i = 0; i < p->n && !rc; i++)
		if (is_multinode(p->items[i].row)) {
			snprintf(dir, sizeof dir, "%s/slurm/%s-%d-mn%zu", o->store, stamp,
			         (int)getpid(), i);
			rc = submit_multinode(o, &p->items[i], so, dir, jobids, e);
		}
	if (rc)
		return rc;
	if (o->engine != RUN_ENGINE_RECIPE) {
		snprintf(dir, sizeof dir, "%s/slurm/%s-%d", o->store, stamp, (int)getpid());
		return submit_group(o, p, so, -1, dir, jobids, e);
	}
	/* recipe rows: one array per GPU count, each task with --gres=gpu:N */
	for (size_t i = 0; i < p->n && !rc; i++) {
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = p->items[j].gpus == p->items[i].gpus;
		if (seen)
			continue;
		snprintf(dir, sizeof dir, "%s/slurm/%s-%d-gpu%lld", o->store, stamp, (int)getpid(),
		         (long long)p->items[i].gpus);
		rc = submit_group(o, p, so, p->items[i].gpus, dir, jobids, e);
	}
	return rc;
}

int run_slurm_queue(const char *jobids, ib_buf *out, ib_error *e)
{
	char *ids = strdup(jobids);
	if (!ids)
		return IB_ENOMEM;
	for (char *s = ids; *s; s++)
		if (*s == ' ')
			*s = ',';
	const char *argv[] = {"squeue", "-h", "-o", "%i %T", "-j", ids, NULL};
	int st = 0;
	ib_buf err = {0};
	int rc = ib_proc_run(argv, NULL, out, &err, &st, e);
	/* squeue -j of jobs that left the queue may fail with "Invalid job id" */
	if (!rc && st != 0 && !(err.data && strstr(err.data, "Invalid job id")))
		rc = ib_fail(e, IB_EIO, "", 0, 0, "squeue failed (status %d): %s", st,
		             err.data ? err.data : "");
	ib_buf_free(&err);
	free(ids);
	return rc;
}

int run_plan_outcome(const run_plan *p, const char *store, run_summary *sum, ib_error *e)
{
	memset(sum, 0, sizeof *sum);
	ib_arena *a = ib_arena_new();
	ib_val *latest;
	if (!a)
		return IB_ENOMEM;
	int rc = run_store_latest(a, store, &latest, e);
	for (size_t i = 0; i < p->n && !rc; i++) {
		const ib_val *rec = ib_map_get(latest, p->items[i].identity);
		const ib_val *st = rec ? ib_map_get(rec, "state") : NULL;
		const char *s = st && st->type == IB_V_STR ? st->str.s : "";
		bool done = !strcmp(s, "done"),
		     ok = done && run_store_agg_ok(store, p->items[i].identity, p->items[i].name);
		sum->done += ok;
		sum->failed += !strcmp(s, "failed") || (done && !ok); /* a damaged agg */
		sum->skipped += !strcmp(s, "skipped");
		sum->interrupted += !strcmp(s, "interrupted") || !strcmp(s, "running");
	}
	ib_arena_free(a);
	return rc;
}
