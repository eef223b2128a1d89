/* A multi-node row inside its Slurm job (docs/run.md "Roles", "Per-node
 * recipes"): on the simulator engine one simulator process per role and
 * node, each an srun step on its node, and the frontend in front of them
 * (`infbench sim frontend`); on the recipe engine the row's server.sh as
 * one srun step per node with NODE_RANK. cluster/ lays the roles out and
 * writes the script, this builds their command lines from the row's. */
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
	bool per_role = rc->o->engine == RUN_ENGINE_SIM || rc->it->node_recipe;
	if (!per_role || !getenv("SLURM_JOB_ID") || !getenv("FRONTEND_NODE"))
		return false;
	cl_mn_layout l;
	ib_error e = {0};
	return !cl_mn_layout_of(rc->it->row, 0, &l, &e) && l.multinode;
}

void row_roles_env(const row_ctx *rc, ib_buf *env)
{
	cl_mn_layout l;
	ib_error e = {0};
	if (!row_roles_wanted(rc) || cl_mn_layout_of(rc->it->row, 0, &l, &e))
		return;
	if (rc->o->engine == RUN_ENGINE_SIM) { /* the package row_roles_power writes */
		ib_buf_printf(env, "POWER_PRODUCER_SHA=%s\n", RUN_SIM_POWER_PRODUCER);
		return;
	}
	/* the per-node scripts' variables (docs/run.md "Per-node recipes") */
	ib_buf_printf(env, "POWER_PRODUCER_SHA=%s\nGPUS_PER_NODE=%d\nxP=%lld\nyD=%lld\n",
	              RUN_NODE_POWER_PRODUCER, run_gpus_per_node(rc->o),
	              (long long)l.prefill_workers, (long long)l.decode_workers);
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

/* Role r's step command in *cmd (shell text: argv v in the row's
 * container when asked, then suffix, shell text that may name $node) and
 * the removal of its container on its node in *cleanup (NULL: none).
 * Returns false with rc->reason. */
static bool role_command(row_ctx *rc, const cl_mn_role *r, const char **v, const char *suffix,
                         const char **cmd, const char **cleanup)
{
	ib_arena *a = rc->a;
	const char **cv = v ? row_in_container(rc, r->name, v) : NULL;
	if (!cv) {
		if (!v)
			row_fail(rc, RUN_FAILED, "out of memory");
		return false;
	}
	row_note_command(rc->ws, cv);
	ib_buf b = {0};
	cl_sh_words(&b, cv);
	ib_buf_puts(&b, suffix);
	*cmd = b.data ? ib_arena_strdup(a, b.data) : NULL;
	/* its container, removed on its node when the step ends */
	const char *name = cl_container_name(a, rc->it->identity, r->name);
	const char **rm =
	    rc->o->container && name ? cl_cleanup_argv(a, rc->o->container, &name, 1) : NULL;
	*cleanup = NULL;
	if (rm) {
		b.len = 0;
		cl_sh_words(&b, rm);
		*cleanup = b.data ? ib_arena_strdup(a, b.data) : NULL;
	}
	ib_buf_free(&b);
	if (!*cmd)
		row_fail(rc, RUN_FAILED, "out of memory");
	return *cmd != NULL;
}

/* Writes WS/roles.sh (cl_mn_roles_script) and returns the command that
 * runs it, or NULL with rc->reason. */
static const char **roles_script(row_ctx *rc, const cl_mn_role *roles, const char **cmds,
                                 const char **cleanup, size_t n, const char *fe_cmd)
{
	ib_arena *a = rc->a;
	ib_error e = {0};
	char *path = ib_arena_printf(a, "%s/roles.sh", rc->ws);
	ib_buf sh = {0};
	int err = !path ? IB_ENOMEM : cl_mn_roles_script(&sh, roles, cmds, cleanup, n, fe_cmd);
	if (!err)
		err = ib_buf_write_file(path, &sh, &e);
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

/* The simulator engine: one simulator per role process, then the frontend. */
static const char **sim_roles(row_ctx *rc, const cl_mn_layout *l, const char **sim)
{
	ib_arena *a = rc->a;
	cl_mn_role roles[MAX_ROLES];
	size_t n = cl_mn_roles_of(l, roles, MAX_ROLES);
	if (!n) {
		row_fail(rc, RUN_FAILED,
		         "the row's roles: a pool without workers, or more than 64 processes");
		return NULL;
	}
	const char **cmds = ib_arena_alloc(a, n * sizeof *cmds),
	           **cleanup = ib_arena_alloc(a, n * sizeof *cleanup);
	if (!cmds || !cleanup) {
		row_fail(rc, RUN_FAILED, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		/* its simulated telemetry, in its node's folder (the script's $node) */
		const char *suffix = ib_arena_printf(
		    a, " --gpu-metrics \"$PWD/LOGS/gpu_metrics/$node/%s.csv\"", roles[i].name);
		if (!role_command(rc, &roles[i], suffix ? role_argv(a, sim, &roles[i]) : NULL,
		                  suffix, &cmds[i], &cleanup[i]))
			return NULL;
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
	ib_buf b = {0};
	cl_sh_words(&b, fe);
	const char *fe_cmd = b.data ? ib_arena_strdup(a, b.data) : NULL;
	ib_buf_free(&b);
	if (!fe_cmd) {
		row_fail(rc, RUN_FAILED, "out of memory");
		return NULL;
	}
	return roles_script(rc, roles, cmds, cleanup, n, fe_cmd);
}

/* What each node's step runs around the row's per-node recipe: the
 * addresses of nodes.env and NODE_RANK ($0) exported, the node's GPU
 * monitor (nvidia-smi, else amd-smi, as start_gpu_monitor in
 * recipes/benchmark_lib.sh) into $2 while the recipe ($1) runs. */
static const char NODE_STEP[] =
    "set -a; . ./nodes.env; set +a; export NODE_RANK=$0; m=\n"
    "if command -v nvidia-smi >/dev/null 2>&1; then\n"
    "  nvidia-smi --query-gpu=timestamp,index,power.draw,temperature.gpu,clocks.current.sm,"
    "clocks.current.memory,utilization.gpu,utilization.memory --format=csv -l 1 >\"$2\" "
    "2>/dev/null & m=$!\n"
    "elif command -v amd-smi >/dev/null 2>&1; then\n"
    "  PYTHONUNBUFFERED=1 amd-smi metric -p -c -t -u -w 1 --csv 2>/dev/null | awk 'BEGIN { h = 0 "
    "} /^timestamp,/ { if (!h) { print; h = 1 } ; next } h { print; fflush() }' >\"$2\" & "
    "m=$!\n"
    "fi\n"
    "bash \"$1\"; st=$?\n"
    "[ -z \"$m\" ] || kill $m 2>/dev/null\n"
    "exit $st\n";

/* The recipe engine: the row's server.sh on every node of the job. */
static const char **node_roles(row_ctx *rc, const cl_mn_layout *l)
{
	ib_arena *a = rc->a;
	cl_mn_role roles[MAX_ROLES];
	size_t n = cl_mn_nodes_of(l, roles, MAX_ROLES);
	const char **cmds = n ? ib_arena_alloc(a, n * sizeof *cmds) : NULL,
	           **cleanup = n ? ib_arena_alloc(a, n * sizeof *cleanup) : NULL;
	if (!cmds || !cleanup) {
		row_fail(rc, RUN_FAILED, "the row's nodes: more than 64, or out of memory");
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		const char **v = ib_arena_alloc(a, 6 * sizeof *v);
		const char *suffix =
		    ib_arena_printf(a, " \"$PWD/LOGS/gpu_metrics/$node/%s.csv\"", roles[i].name);
		if (v) {
			v[0] = "bash", v[1] = "-c", v[2] = NODE_STEP;
			v[3] = ib_arena_printf(a, "%zu", i), v[4] = rc->it->recipe, v[5] = NULL;
		}
		if (!role_command(rc, &roles[i], v && v[3] && suffix ? v : NULL, suffix, &cmds[i],
		                  &cleanup[i]))
			return NULL;
	}
	return roles_script(rc, roles, cmds, cleanup, n, NULL);
}

const char **row_roles_argv(row_ctx *rc)
{
	cl_mn_layout l;
	ib_error e = {0};
	if (cl_mn_layout_of(rc->it->row, 0, &l, &e)) {
		row_fail(rc, RUN_FAILED, "the row's roles: %s", e.msg);
		return NULL;
	}
	if (rc->it->node_recipe)
		return node_roles(rc, &l);
	const char **sim = row_sim_argv(rc);
	if (!sim) {
		row_fail(rc, RUN_FAILED, "out of memory");
		return NULL;
	}
	return sim_roles(rc, &l, sim);
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
	bool sim = rc->o->engine == RUN_ENGINE_SIM;
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
	    .producer_commit = sim ? RUN_SIM_POWER_PRODUCER : RUN_NODE_POWER_PRODUCER,
	    .exporter =
	        sim ? "infbench sim --gpu-metrics (SIMULATED telemetry: no GPU was measured)"
	            : "nvidia-smi / amd-smi in each node's step (infbench run)",
	    .simulated = sim,
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
