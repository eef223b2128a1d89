/* A multi-node row inside its Slurm job on the simulator engine (docs/run.md
 * "Roles"): one simulator process per role and node, each an srun step on
 * its node, and the frontend in front of them (`infbench sim frontend`);
 * cluster/ lays the roles out and writes the script, this builds their
 * command lines from the row's. */
#include "cluster/cluster.h"
#include "cluster/multinode.h"
#include "power/power.h"
#include "run/plan.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

enum { MAX_ROLES = 64 };

bool row_roles_wanted(const row_ctx *rc)
{
	if (rc->o->engine != RUN_ENGINE_SIM || !getenv("SLURM_JOB_ID") || !getenv("FRONTEND_NODE"))
		return false;
	cl_mn_layout l;
	ib_error e = {0};
	return !cl_mn_layout_of(rc->it->row, 0, &l, &e) && l.multinode;
}

/* The value after flag in argv (the last one), or dflt. */
static const char *flag_value(const char **argv, const char *flag, const char *dflt)
{
	const char *v = dflt;
	for (size_t i = 0; argv[i] && argv[i + 1]; i++)
		if (!strcmp(argv[i], flag))
			v = argv[i + 1];
	return v;
}

/* The role's command line: the row's simulator with this process's share
 * of the pool's workers and its role (later flags replace earlier ones). */
static const char **role_argv(ib_arena *a, const char **sim, const cl_mn_role *r)
{
	size_t ns = 0;
	while (sim[ns])
		ns++;
	const char **v = ib_arena_alloc(a, (ns + 5) * sizeof *v);
	if (!v)
		return NULL;
	memcpy(v, sim, ns * sizeof *v);
	v[ns++] = "--replicas";
	v[ns++] = ib_arena_printf(a, "%d", r->replicas);
	if (r->pool != CL_MN_WORKER) {
		v[ns++] = "--role";
		v[ns++] = r->pool == CL_MN_PREFILL ? "prefill" : "decode";
	}
	v[ns] = NULL;
	for (size_t i = 0; i < ns; i++)
		if (!v[i])
			return NULL;
	return v;
}

const char **row_roles_argv(row_ctx *rc, const char **sim)
{
	ib_arena *a = rc->a;
	cl_mn_layout l;
	cl_mn_role roles[MAX_ROLES];
	ib_error e = {0};
	size_t n = 0;
	if (!sim) {
		row_fail(rc, RUN_FAILED, "out of memory");
		return NULL;
	}
	if (cl_mn_layout_of(rc->it->row, 0, &l, &e) ||
	    !(n = cl_mn_roles_of(&l, roles, MAX_ROLES))) {
		row_fail(rc, RUN_FAILED, "the row's roles: %s",
		         e.msg[0] ? e.msg : "a pool without workers, or more than 64 processes");
		return NULL;
	}
	const char **cmds = ib_arena_alloc(a, n * sizeof *cmds),
	           **cleanup = ib_arena_alloc(a, n * sizeof *cleanup);
	if (!cleanup)
		cmds = NULL;
	ib_buf b = {0};
	for (size_t i = 0; cmds && i < n; i++) {
		const char **v = role_argv(a, sim, &roles[i]);
		const char **cv = v ? row_in_container(rc, roles[i].name, v) : NULL;
		if (!cv) {
			ib_buf_free(&b);
			if (!v)
				row_fail(rc, RUN_FAILED, "out of memory");
			return NULL;
		}
		row_note_command(rc->ws, cv);
		b.len = 0;
		cl_sh_words(&b, cv);
		/* its simulated telemetry, in its node's folder (the script's $node) */
		ib_buf_printf(&b, " --gpu-metrics \"$PWD/LOGS/gpu_metrics/$node/%s.csv\"",
		              roles[i].name);
		cmds[i] = b.data ? ib_arena_strdup(a, b.data) : NULL;
		/* its container, removed on its node when the step ends */
		const char *name = cl_container_name(a, rc->it->identity, roles[i].name);
		const char **rm = rc->o->container && name
		                      ? cl_cleanup_argv(a, rc->o->container, &name, 1)
		                      : NULL;
		cleanup[i] = NULL;
		if (rm) {
			b.len = 0;
			cl_sh_words(&b, rm);
			cleanup[i] = b.data ? ib_arena_strdup(a, b.data) : NULL;
		}
		if (!cmds[i])
			cmds = NULL;
	}
	/* the frontend is infbench's own: on the host, on the row's port */
	const char *fe[16];
	size_t k = 0;
	fe[k++] = rc->o->self_exe;
	fe[k++] = "sim";
	fe[k++] = "frontend";
	fe[k++] = "--host";
	fe[k++] = "127.0.0.1";
	fe[k++] = "--port";
	fe[k++] = ib_arena_printf(a, "%d", rc->port);
	if (rc->o->time_scale > 0) {
		fe[k++] = "--time-scale";
		fe[k++] = ib_arena_printf(a, "%g", rc->o->time_scale);
	}
	fe[k++] = "--duration";
	fe[k++] = flag_value(sim, "--duration", "86400");
	fe[k] = NULL;
	b.len = 0;
	cl_sh_words(&b, fe);
	char *path = ib_arena_printf(a, "%s/roles.sh", rc->ws);
	const char *fe_cmd = b.data ? ib_arena_strdup(a, b.data) : NULL;
	ib_buf sh = {0};
	int err = !cmds || !fe_cmd || !path
	              ? IB_ENOMEM
	              : cl_mn_roles_script(&sh, roles, cmds, cleanup, n, fe_cmd);
	if (!err)
		err = ib_buf_write_file(path, &sh, &e);
	ib_buf_free(&b);
	ib_buf_free(&sh);
	if (err) {
		row_fail(rc, RUN_FAILED, "writing the roles script: %s",
		         e.msg[0] ? e.msg : "out of memory");
		return NULL;
	}
	const char **argv = ib_arena_alloc(a, 3 * sizeof *argv);
	if (!argv) {
		row_fail(rc, RUN_FAILED, "out of memory");
		return NULL;
	}
	argv[0] = "bash", argv[1] = path, argv[2] = NULL;
	return argv;
}

static void pack_log(void *ud, int stream, const char *line)
{
	(void)stream;
	fprintf(ud, "%s\n", line);
}

/* The role and worker index of a telemetry file named after its role
 * process ("prefill-0.csv"); false for another name. */
static bool role_of(const char *file, const char **role, int64_t *index)
{
	static const char *const names[][2] = {
	    {"prefill-", "prefill"}, {"decode-", "decode"}, {"worker-", "agg"}};
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(names[i][0]);
		char *end;
		if (strncmp(file, names[i][0], n))
			continue;
		long long x = strtoll(file + n, &end, 10);
		if (end == file + n || strcmp(end, ".csv") || x < 0)
			return false;
		*role = names[i][1], *index = x;
		return true;
	}
	return false;
}

/* Calls fn(ud, node, file, path) for each file under WS/LOGS/gpu_metrics/NODE/. */
static void each_telemetry(row_ctx *rc,
                           void (*fn)(void *, const char *, const char *, const char *), void *ud)
{
	ib_arena *a = rc->a;
	const char *gm = ib_arena_printf(a, "%s/LOGS/gpu_metrics", rc->ws);
	DIR *nodes = gm ? opendir(gm) : NULL;
	struct dirent *nd, *fd;
	while (nodes && (nd = readdir(nodes))) {
		const char *dir = ib_arena_printf(a, "%s/%s", gm, nd->d_name);
		DIR *files = nd->d_name[0] != '.' && dir ? opendir(dir) : NULL;
		while (files && (fd = readdir(files))) {
			const char *path = ib_arena_printf(a, "%s/%s", dir, fd->d_name);
			if (fd->d_name[0] != '.' && path)
				fn(ud, nd->d_name, fd->d_name, path);
		}
		if (files)
			closedir(files);
	}
	if (nodes)
		closedir(nodes);
}

typedef struct {
	struct timespec since;
	int stale;
} settle_ctx;

static void count_stale(void *ud, const char *node, const char *file, const char *path)
{
	settle_ctx *c = ud;
	struct stat st;
	(void)node, (void)file;
	if (stat(path, &st) == 0 &&
	    (st.st_mtim.tv_sec < c->since.tv_sec ||
	     (st.st_mtim.tv_sec == c->since.tv_sec && st.st_mtim.tv_nsec <= c->since.tv_nsec)))
		c->stale++;
}

void row_roles_settle(row_ctx *rc)
{
	settle_ctx c = {0};
	clock_gettime(CLOCK_REALTIME, &c.since);
	/* each monitor samples once a second: three of them at most */
	for (int i = 0; i < 30; i++) {
		c.stale = 0;
		each_telemetry(rc, count_stale, &c);
		if (!c.stale)
			return;
		nanosleep(&(struct timespec){0, 100000000}, NULL);
	}
}

typedef struct {
	ib_arena *a;
	pw_mn_source *src;
	size_t n, cap;
} pack_src;

static void add_source(void *ud, const char *node, const char *file, const char *path)
{
	pack_src *p = ud;
	pw_mn_source *s = &p->src[p->n];
	if (p->n < p->cap && role_of(file, &s->role, &s->worker_index)) {
		s->host = ib_arena_strdup(p->a, node);
		s->csv = ib_arena_strdup(p->a, path);
		p->n += s->host && s->csv;
	}
}

void row_roles_power(row_ctx *rc)
{
	ib_arena *a = rc->a;
	const char *logp = ib_arena_printf(a, "%s/power_package.log", rc->ws),
	           *gm = ib_arena_printf(a, "%s/LOGS/gpu_metrics", rc->ws);
	FILE *log = logp ? fopen(logp, "w") : NULL;
	if (!log || !gm) {
		if (log)
			fclose(log);
		return;
	}
	enum { MAX_SRC = 256 };
	pw_mn_source src[MAX_SRC];
	pack_src ps = {.a = a, .src = src, .cap = MAX_SRC};
	each_telemetry(rc, add_source, &ps);
	size_t n = ps.n;
	pw_mn_pack_opts o = {
	    .power_dir = ib_arena_printf(a, "%s/LOGS/power", rc->ws),
	    .logs_root = ib_arena_printf(a, "%s/LOGS", rc->ws),
	    .bench_path = ib_arena_printf(a, "%s/%s.json", rc->ws, rc->it->name),
	    .src = src,
	    .nsrc = n,
	    .producer_commit = RUN_SIM_POWER_PRODUCER,
	    .exporter = "infbench sim --gpu-metrics (SIMULATED telemetry: no GPU was measured)",
	    .simulated = true,
	    .interval = 1,
	    .log = pack_log,
	    .log_ud = log,
	};
	ib_error e = {0};
	bool valid;
	if (!n)
		fprintf(log, "[power package] no telemetry under %s: no package\n", gm);
	else if (!o.power_dir || !o.logs_root || !o.bench_path)
		fprintf(log, "[power package] out of memory\n");
	else if (pw_mn_pack(&o, &valid, &e)) {
		char msg[2600];
		ib_error_format(&e, msg, sizeof msg);
		fprintf(log, "[power package] not written: %s\n", msg);
	}
	fclose(log);
}
