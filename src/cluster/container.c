/* Container command lines (Docker, Podman, enroot, Apptainer), image names
 * and checks, and the weights' place in the Hugging Face cache. Pure: run/
 * starts what these build. */
#include "cluster/cluster.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const char *const rt_names[] = {"none", "docker", "podman", "enroot", "apptainer"};

int cl_runtime_parse(const char *s, int *rt, ib_error *e)
{
	for (int i = 0; s && i <= CL_RT_APPTAINER; i++)
		if (!strcmp(s, rt_names[i])) {
			*rt = i;
			return 0;
		}
	return ib_fail(e, IB_EINVAL, "", 0, 0,
	               "unknown container runtime '%s' (docker, podman, enroot, apptainer)",
	               s ? s : "");
}

const char *cl_runtime_name(int rt)
{
	return rt >= 0 && rt <= CL_RT_APPTAINER ? rt_names[rt] : "?";
}

int cl_vendor_of(const char *label)
{
	if (!label || !*label)
		return CL_GPU_NONE;
	const char *colon = strchr(label, ':'); /* cluster:mi355x */
	const char *s = colon ? colon + 1 : label;
	return !strncmp(s, "mi", 2) ? CL_GPU_AMD : CL_GPU_NVIDIA;
}

const char *cl_sanitise(ib_arena *a, const char *image)
{
	char *s = ib_arena_strdup(a, image ? image : "");
	for (char *p = s; p && *p; p++)
		if (strchr("/:@#", *p))
			*p = '_';
	return s;
}

const char *cl_container_name(ib_arena *a, const char *identity, const char *role)
{
	return ib_arena_printf(a, "infbench-%s-%s", identity, role);
}

const char *cl_image_ref(ib_arena *a, const cl_launch *l)
{
	bool file_rt = l->runtime == CL_RT_ENROOT || l->runtime == CL_RT_APPTAINER;
	if (file_rt && l->image_dir && *l->image_dir)
		return ib_arena_printf(a, "%s/%s.%s", l->image_dir, cl_sanitise(a, l->image),
		                       l->runtime == CL_RT_ENROOT ? "sqsh" : "sif");
	if (l->runtime == CL_RT_ENROOT)
		return cl_sanitise(a, l->image);
	return ib_arena_strdup(a, l->image);
}

/* A growable argv in the arena: room for a fixed maximum, counted. */
typedef struct {
	ib_arena *a;
	const char **v;
	size_t n, cap;
} argv_b;

static void put(argv_b *b, const char *s)
{
	if (b->v && s && b->n + 1 < b->cap)
		b->v[b->n++] = s;
	else
		b->v = NULL; /* out of room or memory: reported at the end */
}

static void put2(argv_b *b, const char *flag, const char *val)
{
	put(b, flag);
	put(b, val);
}

/* Docker/Podman GPU flags per vendor. */
static void docker_gpus(argv_b *b, const cl_launch *l)
{
	ib_arena *a = b->a;
	bool some = l->devices && *l->devices;
	if (l->vendor == CL_GPU_AMD) {
		/* ROCm: every device node; ROCR_VISIBLE_DEVICES (host ids) selects */
		put2(b, "--device", "/dev/kfd");
		put2(b, "--device", "/dev/dri");
		put2(b, "--group-add", "video");
		put2(b, "--security-opt", "seccomp=unconfined");
	} else if (l->runtime == CL_RT_DOCKER) {
		/* the CSV value of --gpus needs the quotes when it lists several */
		put2(b, "--gpus", some ? ib_arena_printf(a, "\"device=%s\"", l->devices) : "all");
	} else if (!some) { /* podman: CDI names */
		put2(b, "--device", "nvidia.com/gpu=all");
	} else {
		for (const char *s = l->devices; *s;) {
			size_t n = strcspn(s, ",");
			if (n)
				put2(b, "--device",
				     ib_arena_printf(a, "nvidia.com/gpu=%.*s", (int)n, s));
			s += n + (s[n] == ',');
		}
	}
	put2(b, "--ulimit", "memlock=-1");
	put2(b, "--ulimit", "stack=67108864");
}

/* CUDA_VISIBLE_DEVICES inside an NVIDIA container given only some devices:
 * they are numbered 0..n-1 there. NULL when the host's ids stand. */
static const char *inner_cuda_devices(ib_arena *a, const cl_launch *l)
{
	if (l->vendor != CL_GPU_NVIDIA || !l->devices || !*l->devices ||
	    l->runtime == CL_RT_ENROOT || l->runtime == CL_RT_APPTAINER)
		return NULL;
	ib_buf b = {0};
	ib_buf_puts(&b, "CUDA_VISIBLE_DEVICES=");
	int k = 0;
	for (const char *s = l->devices; *s; s++) {
		if (*s == ',' || (s != l->devices && s[-1] != ','))
			continue; /* not the first character of an id */
		ib_buf_printf(&b, "%s%d", k ? "," : "", k);
		k++;
	}
	const char *r = b.data ? ib_arena_strdup(a, b.data) : NULL;
	ib_buf_free(&b);
	return r;
}

static bool is_cuda_devices(const char *kv)
{
	return ib_str_has_prefix(kv, "CUDA_VISIBLE_DEVICES=");
}

static void docker_argv(argv_b *b, const cl_launch *l)
{
	ib_arena *a = b->a;
	put(b, cl_runtime_name(l->runtime));
	put(b, "run");
	put(b, "--rm");
	if (l->name && *l->name)
		put2(b, "--name", l->name);
	put2(b, "--network", "host");
	put2(b, "--shm-size", l->shm_size && *l->shm_size ? l->shm_size : "16g");
	if (l->vendor != CL_GPU_NONE)
		docker_gpus(b, l);
	if (l->hf_cache && *l->hf_cache)
		put2(b, "-v", ib_arena_printf(a, "%s:%s", l->hf_cache, l->hf_cache));
	for (size_t i = 0; i < l->nmounts; i++)
		put2(b, "-v",
		     ib_arena_printf(a, "%s:%s%s", l->mounts[i].path, l->mounts[i].path,
		                     l->mounts[i].rw ? "" : ":ro"));
	put2(b, "-v", ib_arena_printf(a, "%s:%s", l->workdir, l->workdir));
	put2(b, "-w", l->workdir);
	const char *cuda = inner_cuda_devices(a, l);
	for (size_t i = 0; i < l->nenv; i++)
		if (!(cuda && is_cuda_devices(l->env[i])))
			put2(b, "-e", l->env[i]);
	if (cuda)
		put2(b, "-e", cuda);
	for (size_t i = 0; i < l->nopts; i++)
		put(b, l->opts[i]);
	/* the image's entrypoint (vllm serve, ...) would take our command as
	 * its arguments: the command's program is the entrypoint */
	put2(b, "--entrypoint", l->cmd[0]);
	put(b, cl_image_ref(a, l));
	for (size_t i = 1; l->cmd[i]; i++)
		put(b, l->cmd[i]);
}

static void enroot_argv(argv_b *b, const cl_launch *l)
{
	ib_arena *a = b->a;
	put(b, "enroot");
	put(b, "start");
	put(b, "--rw");
	if (l->hf_cache && *l->hf_cache)
		put2(b, "--mount", ib_arena_printf(a, "%s:%s", l->hf_cache, l->hf_cache));
	for (size_t i = 0; i < l->nmounts; i++) {
		const char *p = l->mounts[i].path;
		put2(b, "--mount",
		     l->mounts[i].rw
		         ? ib_arena_printf(a, "%s:%s", p, p)
		         : ib_arena_printf(a, "%s %s none x-create=auto,bind,ro", p, p));
	}
	put2(b, "--mount", ib_arena_printf(a, "%s:%s", l->workdir, l->workdir));
	if (l->vendor == CL_GPU_AMD) {
		put2(b, "--mount", "/dev/kfd:/dev/kfd");
		put2(b, "--mount", "/dev/dri:/dev/dri");
	}
	for (size_t i = 0; i < l->nenv; i++)
		put2(b, "--env", l->env[i]);
	if (l->vendor == CL_GPU_NVIDIA) /* enroot's NVIDIA hook reads it */
		put2(b, "--env",
		     ib_arena_printf(a, "NVIDIA_VISIBLE_DEVICES=%s",
		                     l->devices && *l->devices ? l->devices : "all"));
	for (size_t i = 0; i < l->nopts; i++)
		put(b, l->opts[i]);
	put(b, cl_image_ref(a, l));
	/* enroot has no working-folder flag */
	put(b, "sh");
	put(b, "-c");
	put(b, "cd \"$0\" && exec \"$@\"");
	put(b, l->workdir);
	for (size_t i = 0; l->cmd[i]; i++)
		put(b, l->cmd[i]);
}

static void apptainer_argv(argv_b *b, const cl_launch *l)
{
	ib_arena *a = b->a;
	put(b, "apptainer");
	put(b, "exec");
	if (l->vendor == CL_GPU_NVIDIA)
		put(b, "--nv");
	else if (l->vendor == CL_GPU_AMD)
		put(b, "--rocm");
	if (l->hf_cache && *l->hf_cache)
		put2(b, "--bind", ib_arena_printf(a, "%s:%s", l->hf_cache, l->hf_cache));
	for (size_t i = 0; i < l->nmounts; i++)
		put2(b, "--bind",
		     ib_arena_printf(a, "%s:%s%s", l->mounts[i].path, l->mounts[i].path,
		                     l->mounts[i].rw ? "" : ":ro"));
	put2(b, "--bind", ib_arena_printf(a, "%s:%s", l->workdir, l->workdir));
	for (size_t i = 0; i < l->nenv; i++)
		put2(b, "--env", l->env[i]);
	put2(b, "--pwd", l->workdir);
	for (size_t i = 0; i < l->nopts; i++)
		put(b, l->opts[i]);
	put(b, cl_image_ref(a, l));
	for (size_t i = 0; l->cmd[i]; i++)
		put(b, l->cmd[i]);
}

int cl_launch_argv(ib_arena *a, const cl_launch *l, const char ***argv, ib_error *e)
{
	*argv = NULL;
	if (l->runtime <= CL_RT_NONE || l->runtime > CL_RT_APPTAINER)
		return ib_fail(e, IB_EINVAL, "", 0, 0, "no container runtime");
	if (!l->image || !*l->image)
		return ib_fail(e, IB_EINVAL, "", 0, 0, "the row names no image");
	if (!l->workdir || !*l->workdir || !l->cmd || !l->cmd[0])
		return ib_fail(e, IB_EINVAL, "", 0, 0,
		               "a container launch needs a folder and a command");
	size_t ncmd = 0;
	while (l->cmd[ncmd])
		ncmd++;
	for (size_t i = 0; i < l->nenv; i++)
		if (!strchr(l->env[i], '='))
			return ib_fail(e, IB_EINVAL, "", 0, 0, "environment entry '%s' has no '='",
			               l->env[i]);
	size_t ndev = l->devices ? strlen(l->devices) : 0;
	argv_b b = {.a = a, .cap = 48 + 2 * (l->nenv + l->nmounts + ndev) + l->nopts + ncmd};
	b.v = ib_arena_alloc(a, b.cap * sizeof *b.v);
	if (l->runtime == CL_RT_ENROOT)
		enroot_argv(&b, l);
	else if (l->runtime == CL_RT_APPTAINER)
		apptainer_argv(&b, l);
	else
		docker_argv(&b, l);
	if (!b.v)
		return IB_ENOMEM;
	b.v[b.n] = NULL;
	*argv = b.v;
	return 0;
}

const char **cl_image_check_argv(ib_arena *a, const cl_launch *l)
{
	const char **v = ib_arena_alloc(a, 6 * sizeof *v);
	if (!v)
		return NULL;
	const char *img = cl_image_ref(a, l);
	if (l->runtime == CL_RT_DOCKER) {
		v[0] = "docker", v[1] = "image", v[2] = "inspect", v[3] = img, v[4] = NULL;
	} else if (l->runtime == CL_RT_PODMAN) {
		v[0] = "podman", v[1] = "image", v[2] = "exists", v[3] = img, v[4] = NULL;
	} else if (l->runtime == CL_RT_ENROOT && !(l->image_dir && *l->image_dir)) {
		v[0] = "enroot", v[1] = "list", v[2] = NULL;
	} else {
		return NULL; /* a file: its existence is the check */
	}
	return v;
}

const char *cl_image_fetch_hint(ib_arena *a, const cl_launch *l)
{
	const char *ref = cl_image_ref(a, l);
	switch (l->runtime) {
	case CL_RT_DOCKER:
	case CL_RT_PODMAN:
		return ib_arena_printf(a, "%s pull %s", cl_runtime_name(l->runtime), l->image);
	case CL_RT_ENROOT:
		if (l->image_dir && *l->image_dir)
			return ib_arena_printf(a, "enroot import -o %s docker://%s", ref, l->image);
		return ib_arena_printf(
		    a, "enroot import docker://%s && enroot create --name %s *.sqsh", l->image,
		    ref);
	default:
		return ib_arena_printf(a, "apptainer build %s docker://%s", ref, l->image);
	}
}

const char **cl_cleanup_argv(ib_arena *a, int rt, const char *const *names, size_t n)
{
	if (rt != CL_RT_DOCKER && rt != CL_RT_PODMAN)
		return NULL;
	const char **v = ib_arena_alloc(a, (n + 8) * sizeof *v);
	if (!v)
		return NULL;
	size_t k = 0;
	v[k++] = cl_runtime_name(rt);
	v[k++] = "rm";
	v[k++] = "-f";
	if (rt == CL_RT_PODMAN) { /* no error for a name already gone; no stop grace */
		v[k++] = "--ignore";
		v[k++] = "--time";
		v[k++] = "0";
	}
	for (size_t i = 0; i < n; i++)
		v[k++] = names[i];
	v[k] = NULL;
	return v;
}

int cl_hf_model_dir(ib_buf *out, const char *hf_cache, const char *model)
{
	if (!model || !*model)
		return IB_EINVAL;
	if (model[0] == '/')
		return ib_buf_puts(out, model);
	ib_buf_printf(out, "%s/models--", hf_cache ? hf_cache : "");
	for (const char *s = model; *s; s++)
		if (*s == '/')
			ib_buf_puts(out, "--");
		else
			ib_buf_putc(out, *s);
	return out->data ? 0 : IB_ENOMEM;
}

/* A folder with at least one entry other than . and .. (depth 1). */
static bool has_entry(const char *dir, bool want_dir_with_entry)
{
	DIR *d = opendir(dir);
	if (!d)
		return false;
	bool found = false;
	struct dirent *de;
	while (!found && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!want_dir_with_entry) {
			found = true;
			continue;
		}
		char p[4200];
		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		found = has_entry(p, false);
	}
	closedir(d);
	return found;
}

bool cl_hf_model_staged(const char *hf_cache, const char *model, ib_buf *why)
{
	ib_buf dir = {0};
	if (cl_hf_model_dir(&dir, hf_cache, model) || !dir.data) {
		ib_buf_free(&dir);
		ib_buf_puts(why, "stage the weights first: the row names no model");
		return false;
	}
	bool ok;
	if (model[0] == '/') {
		ok = has_entry(dir.data, false);
		if (!ok)
			ib_buf_printf(why, "stage the weights first: %s is missing or empty",
			              dir.data);
	} else {
		size_t l = dir.len;
		ib_buf_puts(&dir, "/snapshots");
		ok = dir.data && has_entry(dir.data, true);
		if (!ok && dir.data) {
			dir.data[l] = 0;
			ib_buf_printf(why,
			              "stage the weights first: %s/snapshots/ holds no snapshot "
			              "(hf download %s --cache-dir %s)",
			              dir.data, model, hf_cache ? hf_cache : "");
		}
	}
	ib_buf_free(&dir);
	return ok;
}
