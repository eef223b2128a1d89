/* A multi-node row inside its Slurm job on the simulator engine (docs/run.md
 * "Roles"): one simulator process per role and node, each an srun step on
 * its node, and the frontend in front of them (`infbench sim frontend`);
 * cluster/ lays the roles out and writes the script, this builds their
 * command lines from the row's. */
#include "cluster/multinode.h"
#include "run/plan.h"

#include <stdlib.h>
#include <string.h>

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
	const char **cmds = ib_arena_alloc(a, n * sizeof *cmds);
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
		cmds[i] = b.data ? ib_arena_strdup(a, b.data) : NULL;
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
	int err =
	    !cmds || !fe_cmd || !path ? IB_ENOMEM : cl_mn_roles_script(&sh, roles, cmds, n, fe_cmd);
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
