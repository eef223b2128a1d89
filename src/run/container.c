/* --container: a row's processes inside its image (the command lines come
 * from cluster/), the preflight before anything starts, and the removal of
 * the row's containers on every exit path — the runner's own end of the
 * row, and its death (a watcher process outside the runner's threads). */
#define _GNU_SOURCE /* pipe2 */
#include "cluster/cluster.h"
#include "run/plan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The value of KEY in the row's "K=V" lines (arena), or NULL. */
static const char *env_value(row_ctx *rc, const char *key)
{
	size_t kl = strlen(key);
	for (const char *s = rc->env_text; s && *s;) {
		size_t l = strcspn(s, "\n");
		if (l > kl && !strncmp(s, key, kl) && s[kl] == '=')
			return ib_arena_strndup(rc->a, s + kl + 1, l - kl - 1);
		s += l + (s[l] == '\n');
	}
	return NULL;
}

/* The host HF cache when it exists (it is mounted at its own path). */
static const char *hf_cache(row_ctx *rc)
{
	const char *hf = env_value(rc, "HF_HUB_CACHE");
	return hf && *hf && access(hf, F_OK) == 0 ? hf : NULL;
}

/* The launch of this row, without command and name. */
static void launch_of(row_ctx *rc, cl_launch *l)
{
	const run_opts *o = rc->o;
	ib_arena *a = rc->a;
	const ib_val *img = ib_map_get(rc->it->row, "image");
	bool recipe = o->engine == RUN_ENGINE_RECIPE;
	*l = (cl_launch){.runtime = o->container,
	                 .image = img && img->type == IB_V_STR ? img->str.s : NULL,
	                 .image_dir = o->container_images,
	                 .vendor = !recipe       ? CL_GPU_NONE
	                           : rc->it->amd ? CL_GPU_AMD
	                                         : CL_GPU_NVIDIA,
	                 .devices = rc->devices,
	                 .hf_cache = hf_cache(rc),
	                 .workdir = rc->ws,
	                 .shm_size = o->shm_size,
	                 .opts = o->container_opts,
	                 .nopts = o->ncontainer_opts};
	/* the row's variables, but PATH (the image's own stands) */
	size_t n = 0;
	for (const char *s = rc->env_text; *s; s++)
		n += *s == '\n';
	const char **env = ib_arena_alloc(a, (n + 1) * sizeof *env);
	for (const char *s = rc->env_text; env && *s;) {
		size_t len = strcspn(s, "\n");
		if (len && strncmp(s, "PATH=", 5))
			env[l->nenv++] = ib_arena_strndup(a, s, len);
		s += len + (s[len] == '\n');
	}
	l->env = env;
	/* what the command lines name, at the same paths: the binary, the
	 * tokenizer, the simulator's files, the prompt cache, the eval set,
	 * the recipe's folder and the client shim */
	cl_mount *m = ib_arena_alloc(a, 10 * sizeof *m);
	const char *ro[] = {o->self_exe,
	                    o->tokenizer,
	                    o->sim_profile,
	                    rc->x->sim_calibration,
	                    rc->x->sim_intervals,
	                    rc->it->eval ? rc->x->eval_dataset : NULL,
	                    recipe ? rc->x->shim_dir : NULL};
	size_t k = 0;
	if (m && rc->prompt_cache && !recipe)
		m[k++] = (cl_mount){rc->prompt_cache, true};
	for (size_t i = 0; m && i < sizeof ro / sizeof *ro; i++)
		if (ro[i] && *ro[i])
			m[k++] = (cl_mount){ro[i], false};
	if (m && recipe && rc->it->recipe) {
		char *dir = ib_arena_strdup(a, rc->it->recipe);
		char *slash = dir ? strrchr(dir, '/') : NULL;
		if (slash && slash != dir) {
			*slash = 0;
			m[k++] = (cl_mount){dir, false};
		}
	}
	l->mounts = m;
	l->nmounts = m ? k : 0;
}

const char **row_in_container(row_ctx *rc, const char *role, const char **argv)
{
	if (!rc->o->container)
		return argv;
	if (!argv) {
		row_fail(rc, RUN_FAILED, "out of memory");
		return NULL;
	}
	cl_launch l;
	launch_of(rc, &l);
	l.cmd = argv;
	l.name = cl_container_name(rc->a, rc->it->identity, role);
	const char **out = NULL;
	ib_error e = {0};
	if (cl_launch_argv(rc->a, &l, &out, &e)) {
		row_fail(rc, RUN_FAILED, "the %s container: %s", role,
		         e.msg[0] ? e.msg : "out of memory");
		return NULL;
	}
	return out;
}

/* Every name the row's containers can have (a later attempt removes what a
 * killed runner left: the names are the row's). */
static const char **row_names(row_ctx *rc, size_t *n)
{
	static const char *const roles[] = {"server", "client", "eval", "recipe"};
	const char **v = ib_arena_alloc(rc->a, 4 * sizeof *v);
	*n = 0;
	for (size_t i = 0; v && i < 4; i++)
		v[(*n)++] = cl_container_name(rc->a, rc->it->identity, roles[i]);
	return v;
}

/* Is the image on this host? Returns NULL, or why not (arena). */
static const char *image_missing(row_ctx *rc, const cl_launch *l)
{
	ib_arena *a = rc->a;
	const char *ref = cl_image_ref(a, l);
	const char **check = cl_image_check_argv(a, l);
	bool there;
	if (!check) {
		there = access(ref, R_OK) == 0;
	} else {
		ib_buf out = {0};
		ib_error e = {0};
		int st = 1;
		if (ib_proc_run(check, NULL, &out, NULL, &st, &e)) {
			ib_buf_free(&out);
			return ib_arena_printf(a, "container runtime %s: %s",
			                       cl_runtime_name(l->runtime), e.msg);
		}
		there = st == 0;
		if (there && l->runtime == CL_RT_ENROOT) { /* enroot list: one name a line */
			there = false;
			for (const char *s = out.data ? out.data : ""; *s && !there;) {
				size_t n = strcspn(s, "\n");
				there = n == strlen(ref) && !strncmp(s, ref, n);
				s += n + (s[n] == '\n');
			}
		}
		ib_buf_free(&out);
	}
	if (there)
		return NULL;
	return ib_arena_printf(a, "image %s is not on this host for %s (get it first: %s)", ref,
	                       cl_runtime_name(l->runtime), cl_image_fetch_hint(a, l));
}

/* The watcher: `sh` waiting on a pipe only the runner holds; when the
 * runner closes it (the row's end) or dies (any signal, SIGKILL too), sh
 * reads end-of-file and removes the containers. Not in the runner's
 * process groups and without PR_SET_PDEATHSIG, so it outlives the runner. */
static void start_watcher(row_ctx *rc, const char *const *cleanup)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return;
	size_t n = 0;
	while (cleanup[n])
		n++;
	const char **argv = ib_arena_alloc(rc->a, (n + 6) * sizeof *argv);
	if (!argv) {
		close(p[0]);
		close(p[1]);
		return;
	}
	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = "read _ <&1; exec \"$@\" >/dev/null 2>&1 </dev/null";
	argv[3] = "sh";
	for (size_t i = 0; i <= n; i++)
		argv[4 + i] = cleanup[i];
	ib_spawn sp = {.argv = argv, .out_fd = p[0], .err_fd = -1};
	ib_error e = {0};
	pid_t pid;
	if (ib_proc_spawn(&sp, &pid, &e) == 0) {
		rc->watcher = pid;
		rc->watch_fd = p[1];
	} else {
		close(p[1]);
	}
	close(p[0]);
}

int row_container_begin(row_ctx *rc)
{
	cl_launch l;
	launch_of(rc, &l);
	if (!l.image || !*l.image)
		return row_fail(rc, RUN_FAILED, "--container: the row names no image");
	const char *why = image_missing(rc, &l);
	if (why)
		return row_fail(rc, RUN_FAILED, "preflight: %s", why);
	if (rc->o->engine == RUN_ENGINE_RECIPE) {
		if (rc->it->gpus > 0 && !rc->devices[0] && !rc->it->node_recipe)
			return row_fail(
			    rc, RUN_FAILED,
			    "preflight: the row needs %lld GPUs and this host shows none "
			    "(nvidia-smi found none; --gpus lists them)",
			    (long long)rc->it->gpus);
		const char *model = run_fieldz(rc->a, rc->it->row, "model", "");
		const char *hf = env_value(rc, "HF_HUB_CACHE");
		ib_buf msg = {0};
		if (!cl_hf_model_staged(hf, model, &msg)) {
			row_fail(rc, RUN_FAILED, "preflight: %s", msg.data ? msg.data : "");
			ib_buf_free(&msg);
			return RUN_FAILED;
		}
		ib_buf_free(&msg);
	}
	if (ib_mkdirs(rc->prompt_cache, 0755, NULL))
		return row_fail(rc, RUN_FAILED, "cannot create %s", rc->prompt_cache);
	size_t n;
	const char **names = row_names(rc, &n);
	const char **cleanup = names ? cl_cleanup_argv(rc->a, l.runtime, names, n) : NULL;
	if (!cleanup)
		return RUN_RUNNING; /* enroot, apptainer: the containers end with their process */
	/* what a runner killed before its watcher could act left behind */
	int st;
	ib_proc_run(cleanup, NULL, NULL, NULL, &st, NULL);
	start_watcher(rc, cleanup);
	return RUN_RUNNING;
}

void row_container_end(row_ctx *rc)
{
	if (!rc->o->container)
		return;
	int st = -1;
	if (rc->watch_fd >= 0) {
		close(rc->watch_fd);
		rc->watch_fd = -1;
		ib_proc_reap(rc->watcher, &st, true);
		rc->watcher = 0;
	}
	if (st == 0)
		return;
	size_t n;
	const char **names = row_names(rc, &n);
	const char **cleanup = names ? cl_cleanup_argv(rc->a, rc->o->container, names, n) : NULL;
	if (cleanup) /* no watcher, or it did not finish its work */
		ib_proc_run(cleanup, NULL, NULL, NULL, &st, NULL);
}
