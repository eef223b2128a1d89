/* Executing a plan: decisions from the manifest (reuse, retry, stale
 * rows), worker threads with GPU/CPU packing and distinct ports, the signal
 * thread, manifest records, and the renames that publish a row. */
#define _GNU_SOURCE /* readlink of /proc */
#include "run/plan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define MAXDEV 256

typedef struct {
	const run_opts *o;
	run_plan *p;
	run_store st;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int dev[MAXDEV];
	bool dev_busy[MAXDEV];
	size_t ndev;
	int cpu_free;
	int ports[MAXDEV];
	size_t nports;
	size_t total, finished;
	double run_secs;
	size_t run_n;
	int running;
	run_summary *sum;
	ib_arena *la;
	ib_val *latest;
	int err;
	ib_error first_err;
	atomic_int stop; /* the signal that stops this run, set by its signal thread; 0 */
} exec_t;

static void wall_iso(char *out, size_t cap)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	struct tm tm;
	gmtime_r(&ts.tv_sec, &tm);
	strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void note(exec_t *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(exec_t *x, const char *fmt, ...)
{
	if (!x->o->on_log)
		return;
	char line[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	x->o->on_log(x->o->arg, IB_LOG_ERR, line);
}

typedef struct {
	int state, attempt, exit_code;
	const char *reason, *started;
	double seconds;
	bool reused;
	const row_ctx *rc; /* an attempt's phases, or NULL */
} rec_info;

/* Appends a manifest record and reports the event (mutex held). */
static void record(exec_t *x, const run_item *it, const rec_info *ri)
{
	ib_arena *a = ib_arena_new();
	ib_val *m = a ? ib_v_map(a) : NULL;
	char now[32];
	wall_iso(now, sizeof now);
	if (m) {
		ib_map_set(a, m, "time", ib_v_str(a, now));
		ib_map_set(a, m, "row", ib_v_int(a, (int64_t)it->index));
		ib_map_set(a, m, "name", ib_v_str(a, it->name));
		ib_map_set(a, m, "identity", ib_v_str(a, it->identity));
		ib_map_set(a, m, "state", ib_v_str(a, run_state_name(ri->state)));
		ib_map_set(a, m, "attempt", ib_v_int(a, ri->attempt));
		if (ri->started)
			ib_map_set(a, m, "started", ib_v_str(a, ri->started));
		if (ri->state >= RUN_DONE && ri->state != RUN_SKIPPED && !ri->reused) {
			ib_map_set(a, m, "ended", ib_v_str(a, now));
			ib_map_set(a, m, "seconds", ib_v_float(a, ri->seconds));
		}
		if (ri->exit_code >= 0 && ri->state >= RUN_DONE)
			ib_map_set(a, m, "exit_code", ib_v_int(a, ri->exit_code));
		if (ri->reason)
			ib_map_set(a, m, "reason", ib_v_str(a, ri->reason));
		if (ri->reused)
			ib_map_set(a, m, "reused", ib_v_bool(a, true));
		if (ri->rc && ri->state == RUN_DONE && x->o->engine == RUN_ENGINE_SIM) {
			ib_map_set(a, m, "server_start_s", ib_v_float(a, ri->rc->server_start_s));
			ib_map_set(a, m, "client_s", ib_v_float(a, ri->rc->client_s));
			ib_map_set(a, m, "process_s", ib_v_float(a, ri->rc->process_s));
		}
		const char *job = getenv("SLURM_ARRAY_JOB_ID");
		if (job)
			ib_map_set(a, m, "slurm_job", ib_v_str(a, job));
		ib_map_set(a, m, "engine",
		           ib_v_str(a, x->o->engine == RUN_ENGINE_RECIPE ? "recipe" : "sim"));
		ib_map_set(a, m, "row_fields", (ib_val *)it->row);
		ib_error e = {0};
		if (!x->o->dry_run && run_store_append(&x->st, m, &e) && !x->err) {
			x->err = IB_EIO;
			x->first_err = e;
		}
	}
	ib_arena_free(a);
	if (!x->o->on_event)
		return;
	double eta = -1;
	size_t left = x->total - x->finished;
	if (x->run_n && left) {
		size_t par = (size_t)(x->o->jobs > 0 ? x->o->jobs : 1);
		if (par > left)
			par = left;
		eta = x->run_secs / (double)x->run_n * (double)left / (double)par;
	}
	run_event ev = {.state = ri->state,
	                .row = it->index,
	                .done = x->finished,
	                .total = x->total,
	                .name = it->name,
	                .identity = it->identity,
	                .reason = ri->reason,
	                .reused = ri->reused,
	                .seconds = ri->seconds,
	                .eta_seconds = eta};
	x->o->on_event(x->o->arg, &ev);
}

/* A RUN_RUNNING event of rc's row with ev's progress fields, under the
 * lock. */
static void running_event(row_ctx *rc, run_event *ev)
{
	exec_t *x = rc->exec;
	pthread_mutex_lock(&x->mu);
	ev->state = RUN_RUNNING;
	ev->row = rc->it->index;
	ev->done = x->finished;
	ev->total = x->total;
	ev->name = rc->it->name;
	ev->identity = rc->it->identity;
	ev->eta_seconds = -1;
	x->o->on_event(x->o->arg, ev);
	pthread_mutex_unlock(&x->mu);
}

void run_row_progress(row_ctx *rc, double tokens_done, double tokens_total)
{
	exec_t *x = rc->exec;
	if (!x || !x->o->on_event || !(tokens_total > 0))
		return;
	run_event ev = {.tokens_done = tokens_done, .tokens_total = tokens_total};
	running_event(rc, &ev);
}

void run_row_agentic_progress(row_ctx *rc, const ax_replay_progress *p)
{
	exec_t *x = rc->exec;
	if (!x || !x->o->on_event)
		return;
	run_event ev = {.agentic = true,
	                .profiling = p->profiling,
	                .elapsed = p->elapsed,
	                .duration = p->duration,
	                .requests = p->done,
	                .failed = p->failed,
	                .warmup_requests = p->warmup_done,
	                .inflight = p->inflight};
	running_event(rc, &ev);
}

void run_note_pid(row_ctx *rc, pid_t pid)
{
	char p[4096], line[32];
	snprintf(p, sizeof p, "%s/pids", rc->ws);
	int fd = open(p, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	int n = snprintf(line, sizeof line, "%d\n", (int)pid);
	if (write(fd, line, (size_t)n) < 0) {
		/* best effort: only used to clean up after a SIGKILL */
	}
	close(fd);
}

int run_gpus_per_node(const run_opts *o)
{
	return o->gpus_per_node < 0 ? 0 : o->gpus_per_node ? o->gpus_per_node : 8;
}

void run_recipe_env(row_ctx *rc, ib_buf *env)
{
	const char *path = getenv("PATH");
	ib_buf_printf(env, "PATH=%s:%s\n", rc->x->shim_dir, path ? path : "/usr/bin:/bin");
	ib_buf_printf(env, "INFBENCH=%s\n", rc->o->self_exe);
	if (rc->o->tokenizer)
		ib_buf_printf(env, "INFBENCH_TOKENIZER=%s\n", rc->o->tokenizer);
	ib_buf_printf(env, "INFBENCH_WORKSPACE=%s\n", rc->ws);
	ib_buf_printf(env, "INFBENCH_READY_TIMEOUT=%.0f\n", rc->x->ready_timeout_s);
	if (rc->o->time_scale > 0)
		ib_buf_printf(env, "INFBENCH_TIME_SCALE=%g\n", rc->o->time_scale);
	if (rc->it->eval)
		ib_buf_printf(env, "INFBENCH_EVAL_DATASET=%s\n", rc->x->eval_dataset);
}

/* Kills what a killed runner left in a stale workspace: the recorded
 * process groups whose members still work in that folder. */
static void reap_stale(const char *ws)
{
	char p[4200], cwd[PATH_MAX], real[PATH_MAX];
	snprintf(p, sizeof p, "%s/pids", ws);
	FILE *f = fopen(p, "r");
	if (!f || !realpath(ws, real)) {
		if (f)
			fclose(f);
		return;
	}
	int pid;
	while (fscanf(f, "%d", &pid) == 1) {
		snprintf(p, sizeof p, "/proc/%d/cwd", pid);
		ssize_t n = readlink(p, cwd, sizeof cwd - 1);
		if (n <= 0)
			continue;
		cwd[n] = 0;
		if (!strcmp(cwd, real))
			kill(-pid, SIGKILL);
	}
	fclose(f);
}

/* Every stale workspace of the store, whatever rows this run has: the
 * process groups a killed runner left (grandchildren a recipe started
 * survive PR_SET_PDEATHSIG), unless another runner has the row in flight. */
static void reap_all_stale(const char *store)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/work", store);
	DIR *d = opendir(p);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strchr(de->d_name, '.'))
			continue; /* ., .., <id>.old */
		int lk = run_store_row_lock(store, de->d_name);
		if (lk < 0)
			continue;
		snprintf(p, sizeof p, "%s/work/%s", store, de->d_name);
		reap_stale(p);
		close(lk);
	}
	closedir(d);
}

static const char *latest_str(const ib_val *rec, const char *k)
{
	const ib_val *v = ib_map_get(rec, k);
	return v && v->type == IB_V_STR ? v->str.s : NULL;
}

static bool file_exists(const char *p)
{
	return access(p, F_OK) == 0;
}

/* Reports an end state without recording it (mutex held). */
static void report_only(exec_t *x, const run_item *it, int state, const char *reason)
{
	if (!x->o->on_event)
		return;
	run_event ev = {.state = state,
	                .row = it->index,
	                .done = x->finished,
	                .total = x->total,
	                .name = it->name,
	                .identity = it->identity,
	                .reason = reason,
	                .eta_seconds = -1};
	x->o->on_event(x->o->arg, &ev);
}

#define IN_FLIGHT_ELSEWHERE "in flight in another infbench run (its row lock is held): left alone"

/* A row another runner has in flight: not touched, reported as skipped
 * (its runner records its end). */
static void leave_alone(exec_t *x, run_item *it)
{
	it->sched = 2;
	x->finished++;
	x->sum->skipped++;
	report_only(x, it, RUN_SKIPPED, IN_FLIGHT_ELSEWHERE);
}

/* What to do with each row before anything runs. */
static void decide(exec_t *x)
{
	const run_opts *o = x->o;
	char p[4096];
	if (!o->dry_run)
		reap_all_stale(x->st.dir);
	for (size_t i = 0; i < x->p->n; i++) {
		run_item *it = &x->p->items[i];
		/* the row's lock: a row in flight elsewhere keeps its process
		 * groups, workspace and manifest story */
		int lk = run_store_row_lock(x->st.dir, it->identity);
		if (lk < 0 && errno == EWOULDBLOCK) {
			leave_alone(x, it);
			continue;
		}
		if (lk >= 0)
			close(lk);
		const ib_val *rec = ib_map_get(x->latest, it->identity);
		const char *st = rec ? latest_str(rec, "state") : NULL;
		const ib_val *att = rec ? ib_map_get(rec, "attempt") : NULL;
		it->prev_attempts = att && att->type == IB_V_INT ? (int)att->i : 0;
		snprintf(p, sizeof p, "%s/work/%s", x->st.dir, it->identity);
		if (st && !strcmp(st, "running") && !o->dry_run) {
			reap_stale(p);
			rec_info ri = {.state = RUN_INTERRUPTED,
			               .attempt = it->prev_attempts,
			               .exit_code = -1,
			               .reason =
			                   "the runner stopped without recording an end (killed)"};
			record(x, it, &ri);
			st = "interrupted";
		}
		if (!o->dry_run)
			run_rmtree(p);
		rec_info ri = {.attempt = it->prev_attempts, .exit_code = -1};
		it->sched = 2;
		if (it->skip) {
			ri.state = RUN_SKIPPED;
			ri.reason = it->skip;
			x->finished++;
			x->sum->skipped++;
			record(x, it, &ri);
		} else if (!o->force && run_store_agg_ok(x->st.dir, it->identity, it->name)) {
			ri.state = RUN_DONE;
			ri.reused = true;
			x->finished++;
			x->sum->done++;
			x->sum->reused++;
			record(x, it, &ri);
		} else if (st && !strcmp(st, "failed") && !o->retry_failed && !o->force) {
			ib_buf b = {0};
			ib_buf_printf(&b, "failed in attempt %d (--retry-failed reruns it): %s",
			              it->prev_attempts, rec ? latest_str(rec, "reason") : "?");
			if (b.data) /* an older runner's record may hold raw terminal escapes */
				ib_str_strip_ctl(b.data);
			x->finished++;
			x->sum->failed++;
			/* reported, not recorded again: the manifest already says so */
			report_only(x, it, RUN_FAILED, b.data);
			ib_buf_free(&b);
		} else if (it->missing ||
		           (x->ndev && !it->node_recipe && it->gpus > (int64_t)x->ndev)) {
			ib_buf b = {0};
			if (it->missing)
				ib_buf_puts(&b, it->missing);
			else
				ib_buf_printf(
				    &b, "the row needs %lld GPUs, only %zu are available (--gpus)",
				    (long long)it->gpus, x->ndev);
			ri.state = RUN_FAILED;
			ri.attempt = it->prev_attempts + 1;
			ri.reason = b.data;
			x->finished++;
			x->sum->failed++;
			record(x, it, &ri);
			ib_buf_free(&b);
		} else {
			it->sched = 0;
			ri.state = RUN_PENDING;
			record(x, it, &ri);
		}
	}
}

/* Takes the first queued row whose resources are free (mutex held);
 * NULL when none fits now. *none_left: nothing is queued any more. */
static run_item *take(exec_t *x, char *devices, size_t cap, bool *none_left)
{
	*none_left = true;
	for (size_t i = 0; i < x->p->n; i++) {
		run_item *it = &x->p->items[i];
		if (it->sched != 0)
			continue;
		*none_left = false;
		/* a per-node recipe's GPUs are its nodes' (the job's --gres) */
		bool gpu = x->o->engine == RUN_ENGINE_RECIPE && x->ndev && !it->node_recipe;
		if (!gpu && x->o->engine == RUN_ENGINE_SIM && x->cpu_free <= 0)
			return NULL;
		if (gpu) {
			size_t freec = 0;
			for (size_t d = 0; d < x->ndev; d++)
				freec += !x->dev_busy[d];
			if ((int64_t)freec < it->gpus)
				continue;
			size_t got = 0, len = 0;
			devices[0] = 0;
			for (size_t d = 0; d < x->ndev && (int64_t)got < it->gpus; d++) {
				if (x->dev_busy[d])
					continue;
				x->dev_busy[d] = true;
				len += (size_t)snprintf(devices + len, cap - len, "%s%d",
				                        got ? "," : "", x->dev[d]);
				got++;
			}
		} else {
			devices[0] = 0;
			if (x->o->engine == RUN_ENGINE_SIM)
				x->cpu_free--;
		}
		it->sched = 1;
		return it;
	}
	return NULL;
}

static void release(exec_t *x, const char *devices, int port)
{
	if (x->o->engine == RUN_ENGINE_SIM)
		x->cpu_free++;
	for (const char *s = devices; *s;) {
		int id = atoi(s);
		for (size_t d = 0; d < x->ndev; d++)
			if (x->dev[d] == id)
				x->dev_busy[d] = false;
		s += strcspn(s, ",");
		s += *s == ',';
	}
	for (size_t i = 0; i < x->nports; i++)
		if (x->ports[i] == port) {
			x->ports[i] = x->ports[--x->nports];
			break;
		}
}

/* Publishes a finished workspace: rows/<id> when done (replacing an older
 * copy), failed/<id> otherwise. */
static void publish(exec_t *x, const run_item *it, const char *ws, int state)
{
	char dst[4096], old[4096];
	snprintf(dst, sizeof dst, "%s/%s/%s", x->st.dir, state == RUN_DONE ? "rows" : "failed",
	         it->identity);
	snprintf(old, sizeof old, "%s/work/%s.old", x->st.dir, it->identity);
	if (file_exists(dst)) {
		run_rmtree(old);
		rename(dst, old);
	}
	if (rename(ws, dst) != 0)
		note(x, "cannot move %s to %s: %s", ws, dst, strerror(errno));
	run_rmtree(old);
}

/* A row that failed on a full disk says so first: its own reason (a
 * client that could not write its result, a log cut short) misleads. */
static void say_disk_full(const char *store, ib_buf *reason)
{
	struct statvfs fs;
	bool full = statvfs(store, &fs) == 0 &&
	            (unsigned long long)fs.f_bavail * fs.f_frsize < (1ull << 20);
	if (!full && !(reason->data && strstr(reason->data, "No space left on device")))
		return;
	ib_buf b = {0};
	if (ib_buf_printf(&b, "disk full (no space left on the file system of %s): %s", store,
	                  reason->data ? reason->data : "") == 0) {
		ib_buf_free(reason);
		*reason = b;
	} else {
		ib_buf_free(&b);
	}
}

static void run_one(exec_t *x, run_item *it, const char *devices)
{
	row_ctx rc = {.o = x->o,
	              .x = &x->p->x,
	              .it = it,
	              .state = RUN_RUNNING,
	              .stop = &x->stop,
	              .watch_fd = -1,
	              .exec = x};
	rc.a = ib_arena_new();
	if (!rc.a)
		return;
	snprintf(rc.devices, sizeof rc.devices, "%s", devices);
	rc.ws = ib_arena_printf(rc.a, "%s/work/%s", x->st.dir, it->identity);
	rc.server_log = ib_arena_printf(rc.a, "%s/server.log", rc.ws);
	const char *cl = x->o->engine == RUN_ENGINE_RECIPE ? "recipe" : "benchmark";
	rc.client_log = ib_arena_printf(rc.a, "%s/%s.log", rc.ws, cl);
	rc.shown_server_log =
	    ib_arena_printf(rc.a, "%s/failed/%s/server.log", x->st.dir, it->identity);
	rc.shown_client_log =
	    ib_arena_printf(rc.a, "%s/failed/%s/%s.log", x->st.dir, it->identity, cl);
	rc.eval_log = ib_arena_printf(rc.a, "%s/eval.log", rc.ws);
	rc.prompt_cache = ib_arena_printf(rc.a, "%s/prompt-cache", x->st.dir);
	rc.shown_eval_log = ib_arena_printf(rc.a, "%s/failed/%s/eval.log", x->st.dir, it->identity);
	const ib_val *c = ib_map_get(it->row, "conc");
	rc.conc = c && c->type == IB_V_INT ? c->i : 1;
	/* a multi-node row's list (recipe engine): its first concurrency; the
	 * simulator engine plans one row per concurrency (docs/run.md) */
	if (c && c->type == IB_V_LIST && c->list.n && c->list.v[0]->type == IB_V_INT)
		rc.conc = c->list.v[0]->i;
	char started[32];
	wall_iso(started, sizeof started);
	int64_t t0 = ib_now_ns();
	/* held until the row's end is recorded */
	int lk = run_store_row_lock(x->st.dir, it->identity);
	if (lk < 0 && errno == EWOULDBLOCK) {
		pthread_mutex_lock(&x->mu);
		leave_alone(x, it);
		release(x, devices, -1);
		pthread_cond_broadcast(&x->cv);
		pthread_mutex_unlock(&x->mu);
		ib_arena_free(rc.a);
		return;
	}
	pthread_mutex_lock(&x->mu);
	rc.port = run_free_port(x->ports, x->nports);
	if (x->nports < MAXDEV)
		x->ports[x->nports++] = rc.port;
	x->running++;
	rec_info ri = {.state = RUN_RUNNING,
	               .attempt = it->prev_attempts + 1,
	               .exit_code = -1,
	               .started = started};
	record(x, it, &ri);
	pthread_mutex_unlock(&x->mu);

	int state = row_execute(&rc);
	if (state == RUN_FAILED)
		say_disk_full(x->st.dir, &rc.reason);
	ri.seconds = (double)(ib_now_ns() - t0) / 1e9;
	publish(x, it, rc.ws, state);

	pthread_mutex_lock(&x->mu);
	x->running--;
	x->finished++;
	if (state == RUN_DONE) {
		x->run_secs += ri.seconds;
		x->run_n++;
		x->sum->done++;
	} else if (state == RUN_INTERRUPTED) {
		x->sum->interrupted++;
	} else {
		x->sum->failed++;
	}
	ri.state = state;
	ri.rc = &rc;
	ri.exit_code = state == RUN_DONE ? 0 : 1;
	ri.reason = state == RUN_DONE ? NULL : rc.reason.data;
	record(x, it, &ri);
	release(x, devices, rc.port);
	pthread_cond_broadcast(&x->cv);
	pthread_mutex_unlock(&x->mu);
	if (lk >= 0)
		close(lk);
	ib_buf_free(&rc.reason);
	ib_arena_free(rc.a);
}

static void *worker(void *arg)
{
	exec_t *x = arg;
	char devices[256];
	for (;;) {
		pthread_mutex_lock(&x->mu);
		run_item *it = NULL;
		for (;;) {
			bool none_left;
			if (atomic_load(&x->stop))
				break;
			it = take(x, devices, sizeof devices, &none_left);
			if (it || none_left)
				break;
			pthread_cond_wait(&x->cv, &x->mu);
		}
		pthread_mutex_unlock(&x->mu);
		if (!it)
			return NULL;
		run_one(x, it, devices);
	}
}

typedef struct {
	sigset_t set;
	exec_t *x;
} sig_arg;

static void *sig_thread(void *arg)
{
	sig_arg *s = arg;
	for (;;) {
		int sig;
		if (sigwait(&s->set, &sig) != 0)
			continue;
		if (sig == SIGUSR1)
			return NULL;
		atomic_store(&s->x->stop, sig);
		pthread_mutex_lock(&s->x->mu);
		pthread_cond_broadcast(&s->x->cv);
		pthread_mutex_unlock(&s->x->mu);
	}
}

/* Device ids from "0-3,6" (or discovered from nvidia-smi). */
static int parse_devices(exec_t *x, const char *spec, ib_error *e)
{
	for (const char *s = spec; *s;) {
		long a, b;
		if (!run_range(&s, &a, &b))
			goto bad;
		for (long i = a; i <= b && x->ndev < MAXDEV; i++)
			x->dev[x->ndev++] = (int)i;
		if (!run_range_sep(&s))
			goto bad;
	}
	return 0;
bad:
	return ib_fail(e, IB_EINVAL, "", 0, 0,
	               "--gpus: expected ids and ranges like '0-7' or '0,2', got '%s'", spec);
}

static void discover_devices(exec_t *x)
{
	const char *argv[] = {"nvidia-smi", "--query-gpu=index", "--format=csv,noheader", NULL};
	ib_buf out = {0};
	int st = 1;
	ib_error e = {0};
	if (ib_proc_run(argv, NULL, &out, NULL, &st, &e) == 0 && st == 0 && out.data) {
		for (char *s = out.data; *s && x->ndev < MAXDEV;) {
			x->dev[x->ndev++] = atoi(s);
			s += strcspn(s, "\n");
			s += *s == '\n';
		}
	}
	ib_buf_free(&out);
}

/* The agentic recipes' aiperf (docs/run.md "Agentic rows"): `aiperf` runs
 * `infbench aiperf`; `uv venv DIR` (InferenceX's install_agentic_deps)
 * makes DIR/bin/{aiperf,hf,python,python3} links to the shims, `uv pip`
 * installs nothing. */
static int write_aiperf_shims(const char *dir, ib_buf *b, ib_error *e)
{
	char p[4200];
	b->len = 0;
	ib_buf_printf(b, "#!/bin/sh\n"
	                 "# written by infbench run: aiperf is infbench's AgentX replay\n"
	                 "exec \"$INFBENCH\" aiperf \"$@\"\n");
	snprintf(p, sizeof p, "%s/aiperf", dir);
	int rc = ib_buf_write_file(p, b, e);
	if (!rc)
		chmod(p, 0755);
	b->len = 0;
	ib_buf_printf(
	    b,
	    "#!/bin/sh\n"
	    "# written by infbench run: the aiperf venv of InferenceX's install_agentic_deps\n"
	    "# is links to infbench's shims; nothing is installed\n"
	    "shims='%s'\n"
	    "case \"$1\" in\n"
	    "venv)\n"
	    "\tshift; dir=\n"
	    "\twhile [ $# -gt 0 ]; do\n"
	    "\t\tcase \"$1\" in\n"
	    "\t\t--python | -p) shift 2 ;;\n"
	    "\t\t-*) shift ;;\n"
	    "\t\t*) dir=$1; shift ;;\n"
	    "\t\tesac\n"
	    "\tdone\n"
	    "\t[ -n \"$dir\" ] || { echo 'infbench uv shim: uv venv: no folder given' >&2; exit 2; "
	    "}\n"
	    "\tmkdir -p \"$dir/bin\" || exit 1\n"
	    "\tfor n in aiperf hf python3; do ln -sf \"$shims/$n\" \"$dir/bin/$n\" || exit 1; "
	    "done\n"
	    "\texec ln -sf \"$shims/python3\" \"$dir/bin/python\" ;;\n"
	    "pip)\n"
	    "\techo \"infbench: skipped: uv $* (aiperf is infbench aiperf)\" >&2\n"
	    "\texit 0 ;;\n"
	    "esac\n"
	    "rest=$(printf %%s \"$PATH\" | sed 's|^[^:]*:||')\n"
	    "if PATH=$rest command -v uv >/dev/null 2>&1; then PATH=$rest exec uv \"$@\"; fi\n"
	    "echo \"infbench: no uv for: uv $*\" >&2\n"
	    "exit 1\n",
	    dir);
	snprintf(p, sizeof p, "%s/uv", dir);
	if (!rc)
		rc = ib_buf_write_file(p, b, e);
	if (!rc)
		chmod(p, 0755);
	return rc;
}

/* The client shim a recipe finds first in PATH: the reference's
 * `python3 .../benchmark_serving.py ARGS` runs `infbench bench ARGS`, its
 * agentic processing modules (python3 -m utils.agentic...) `infbench
 * agentic`. */
static int write_shim(exec_t *x, ib_error *e)
{
	char dir[4096], p[4200];
	snprintf(dir, sizeof dir, "%s/.shim", x->st.dir);
	int rc = ib_mkdirs(dir, 0755, e);
	if (rc)
		return rc;
	ib_buf b = {0};
	ib_buf_printf(
	    &b,
	    "#!/bin/sh\n"
	    "# written by infbench run: the benchmark client of the reference is infbench bench\n"
	    "case \"$1\" in\n"
	    "*/benchmark_serving.py)\n"
	    "\tshift\n"
	    "\ttok=\n"
	    "\tcase \" $* \" in *' --tokenizer '*) ;; *) [ -n \"$INFBENCH_TOKENIZER\" ] && "
	    "tok=\"--tokenizer $INFBENCH_TOKENIZER\" ;; esac\n"
	    "\texec \"$INFBENCH\" bench $tok \"$@\" ;;\n"
	    "-m)\n"
	    "\tcase \"$2\" in\n"
	    "\tutils.agentic.aggregation.process_agentic_result) shift 2; exec \"$INFBENCH\" "
	    "agentic process \"$@\" ;;\n"
	    "\tutils.agentic.aggregation.power_adapter) shift 2; exec \"$INFBENCH\" agentic "
	    "power-adapter \"$@\" ;;\n"
	    "\tutils.agentic.validation.validate_agentic_result) shift 2; exec \"$INFBENCH\" "
	    "agentic validate \"$@\" ;;\n"
	    "\tesac ;;\n"
	    "*/generate_aiperf_plots.py | */analyze_benchmark_distributions.py)\n"
	    "\techo \"infbench: skipped: ${1##*/} (no infbench equivalent)\" >&2\n"
	    "\texit 0 ;;\n"
	    "esac\n"
	    "PATH=$(printf %%s \"$PATH\" | sed 's|^[^:]*:||') exec python3 \"$@\"\n");
	snprintf(p, sizeof p, "%s/python3", dir);
	rc = ib_buf_write_file(p, &b, e);
	if (!rc)
		chmod(p, 0755);
	b.len = 0;
	ib_buf_printf(
	    &b, "#!/bin/sh\n"
	        "# written by infbench run: 'hf download' without a hub (air-gapped) is a no-op\n"
	        "rest=$(printf %%s \"$PATH\" | sed 's|^[^:]*:||')\n"
	        "if PATH=$rest command -v hf >/dev/null 2>&1; then PATH=$rest exec hf \"$@\"; fi\n"
	        "echo \"infbench: no hf CLI; skipping: hf $*\" >&2\n");
	snprintf(p, sizeof p, "%s/hf", dir);
	if (!rc)
		rc = ib_buf_write_file(p, &b, e);
	if (!rc)
		chmod(p, 0755);
	if (!rc)
		rc = write_aiperf_shims(dir, &b, e);
	ib_buf_free(&b);
	x->p->x.shim_dir = ib_arena_strdup(x->p->a, dir);
	return rc;
}

static int setup(exec_t *x, ib_error *e)
{
	const run_opts *o = x->o;
	int rc = run_store_open(&x->st, o->store, !o->shared_store, e);
	if (rc)
		return rc;
	x->la = ib_arena_new();
	if (!x->la)
		return IB_ENOMEM;
	rc = run_store_latest(x->la, o->store, &x->latest, e);
	if (rc)
		return rc;
	if (o->gpus)
		rc = parse_devices(x, o->gpus, e);
	else if (o->engine == RUN_ENGINE_RECIPE)
		discover_devices(x);
	if (!rc && o->engine == RUN_ENGINE_RECIPE)
		rc = write_shim(x, e);
	bool evals = false;
	for (size_t i = 0; i < x->p->n; i++)
		evals |= x->p->items[i].eval && !x->p->items[i].skip;
	if (!rc && evals && !o->eval_dataset && !o->dry_run)
		rc = run_eval_dataset(&x->p->x, e);
	/* agentic rows without a corpus of their own: the stand-in, made once */
	bool standin = false;
	for (size_t i = 0; i < x->p->n; i++)
		standin |= x->p->items[i].standin && !x->p->items[i].skip;
	if (!rc && standin) {
		note(
		    x,
		    "agentic rows replay a stand-in AgentX corpus, %s (infbench agentx "
		    "make-traces; "
		    "no --agentx-corpus, no cc-traces-weka dataset in the Hugging Face cache): its "
		    "numbers are not comparable with published AgentX results",
		    x->p->x.standin);
		if (!o->dry_run)
			rc = run_agentx_standin(&x->p->x, e);
	}
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	x->cpu_free = o->cpus > 0 ? o->cpus : (int)(cpus > 0 ? cpus : 1);
	return rc;
}

int run_execute(const run_opts *o, run_plan *p, run_summary *sum, ib_error *e)
{
	static exec_t zero;
	exec_t *x = malloc(sizeof *x);
	if (!x)
		return IB_ENOMEM;
	*x = zero;
	x->o = o;
	x->p = p;
	x->st.fd = x->st.lock_fd = -1;
	x->sum = sum;
	memset(sum, 0, sizeof *sum);
	x->total = p->n;
	pthread_mutex_init(&x->mu, NULL);
	pthread_cond_init(&x->cv, NULL);
	atomic_init(&x->stop, 0);
	int rc = setup(x, e);
	if (rc)
		goto out;
	sig_arg sa = {.x = x};
	sigemptyset(&sa.set);
	sigaddset(&sa.set, SIGINT);
	sigaddset(&sa.set, SIGTERM);
	sigaddset(&sa.set, SIGUSR1);
	sigset_t old;
	pthread_sigmask(SIG_BLOCK, &sa.set, &old);
	pthread_t st;
	pthread_create(&st, NULL, sig_thread, &sa);
	pthread_mutex_lock(&x->mu);
	decide(x);
	pthread_mutex_unlock(&x->mu);
	int jobs = o->jobs > 0 ? o->jobs : 1;
	pthread_t th[64];
	int nth = 0;
	for (int i = 0; i < jobs && i < 64 && !o->dry_run; i++)
		if (pthread_create(&th[nth], NULL, worker, x) == 0)
			nth++;
	for (int i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	pthread_kill(st, SIGUSR1);
	pthread_join(st, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (x->err) {
		*e = x->first_err;
		rc = x->err;
	}
	sum->stopped_by = atomic_load(&x->stop);
out:
	run_store_close(&x->st);
	ib_arena_free(x->la);
	pthread_mutex_destroy(&x->mu);
	pthread_cond_destroy(&x->cv);
	free(x);
	return rc;
}
