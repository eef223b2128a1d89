/* cluster — running rows on real GPU machines: the container command lines
 * of the four runtimes InferenceX's launchers use (Docker and Podman on the
 * single-node runners, enroot on Slurm clusters, Apptainer), the weights'
 * place in the Hugging Face cache, and the names containers get.
 *
 * This module decides, it does not start anything: every function here is
 * pure (argv out of a description of the launch) or reads the file system;
 * run/ starts the processes (DESIGN.md: the only module that does).
 *
 * Paths are mounted at the same path inside the container as outside, so
 * every path the runner puts on a command line (the workspace, the binary,
 * the tokenizer, the HF cache) means the same thing on both sides, and what
 * a process writes into the workspace lands in the results store.
 */
#ifndef IB_CLUSTER_H
#define IB_CLUSTER_H

#include "base/base.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum {
	CL_RT_NONE = 0, /* on the host, no container */
	CL_RT_DOCKER,
	CL_RT_PODMAN,
	CL_RT_ENROOT,
	CL_RT_APPTAINER,
} cl_runtime;

/* "docker", "podman", "enroot", "apptainer" (and "none") → *rt. IB_EINVAL
 * naming the choices for anything else. */
int cl_runtime_parse(const char *s, int *rt, ib_error *e);
/* The runtime's name (its program); "none" for CL_RT_NONE, "?" otherwise. */
const char *cl_runtime_name(int rt);

typedef enum { CL_GPU_NONE = 0, CL_GPU_NVIDIA, CL_GPU_AMD } cl_vendor;
/* The GPU vendor of a runner label as the launchers read it: labels that
 * start with "mi" (mi300x, mi355x-amds, cluster:mi355x) are AMD, every other
 * label is NVIDIA. NULL or "": CL_GPU_NONE. */
int cl_vendor_of(const char *runner_label);

/* A host path mounted at the same path inside the container. */
typedef struct {
	const char *path;
	bool rw;
} cl_mount;

/* One container launch: what runs, where, with what. The caller owns every
 * string; the argv built from it points into them and into the arena. */
typedef struct {
	int runtime;            /* cl_runtime (not CL_RT_NONE) */
	const char *image;      /* the row's IMAGE */
	const char *image_dir;  /* enroot/apptainer: folder of the images as files
	                         * (DIR/<image with / : @ # as _>.sqsh / .sif);
	                         * NULL: enroot starts the container named so
	                         * (enroot create --name), apptainer the IMAGE path */
	const char *name;       /* docker/podman: --name (cl_container_name) */
	int vendor;             /* cl_vendor; CL_GPU_NONE: no devices (simulator) */
	const char *devices;    /* host device ids "0,1" the row was packed on;
	                         * NULL or "": every GPU of the host */
	const char *hf_cache;   /* host HF cache, mounted read-write; NULL: none */
	const char *workdir;    /* working folder (mounted read-write); required */
	const char *shm_size;   /* docker/podman --shm-size; NULL: "16g" */
	const char *const *env; /* "KEY=VALUE" passed into the container */
	size_t nenv;
	const cl_mount *mounts; /* more same-path mounts */
	size_t nmounts;
	const char *const *opts; /* runtime options passed through before the image */
	size_t nopts;
	const char *const *cmd; /* the command inside, NULL-terminated, cmd[0] set */
} cl_launch;

/* The command line that runs l->cmd inside l->image (NULL-terminated, in
 * arena a):
 *   docker|podman run --rm --name NAME --network host --shm-size S
 *     [GPU rows: NVIDIA docker --gpus all | "device=IDS"; NVIDIA podman
 *      --device nvidia.com/gpu=all | =ID per device (CDI); AMD --device
 *      /dev/kfd --device /dev/dri --group-add video --security-opt
 *      seccomp=unconfined; both --ulimit memlock=-1 --ulimit stack=67108864]
 *     -v HF:HF -v P:P[:ro]... -v WORKDIR:WORKDIR -w WORKDIR -e K=V...
 *     [NVIDIA with IDS: -e CUDA_VISIBLE_DEVICES=0..n-1, as the devices are
 *      numbered inside] OPTS... --entrypoint CMD0 IMAGE CMD1...
 *   enroot start --rw --mount P:P... --env K=V... [NVIDIA: --env
 *     NVIDIA_VISIBLE_DEVICES=IDS|all; AMD: /dev/kfd and /dev/dri mounted]
 *     OPTS... IMAGE sh -c 'cd "$0" && exec "$@"' WORKDIR CMD...
 *   apptainer exec [--nv | --rocm] --bind P:P[:ro]... --env K=V... --pwd
 *     WORKDIR OPTS... IMAGE CMD...
 * IB_EINVAL for a launch without runtime, image, workdir or command, or an
 * env entry without '='; IB_ENOMEM. */
int cl_launch_argv(ib_arena *a, const cl_launch *l, const char ***argv, ib_error *e);

/* The image as the runtime is given it: IMAGE (docker, podman; apptainer
 * without image_dir), DIR/<sanitised>.sqsh|.sif with image_dir, the
 * sanitised name for enroot without one. In arena a. */
const char *cl_image_ref(ib_arena *a, const cl_launch *l);

/* How to check that the image is on this host without pulling it:
 * docker image inspect IMAGE / podman image exists IMAGE (status 0: there),
 * enroot list (the name is one of its lines); NULL where the image is a
 * file (apptainer; enroot with image_dir): check cl_image_ref exists. */
const char **cl_image_check_argv(ib_arena *a, const cl_launch *l);
/* How to fetch a missing image (a sentence for the user: "podman pull IMAGE",
 * "enroot import -o DIR/x.sqsh docker://IMAGE", ...). In arena a. */
const char *cl_image_fetch_hint(ib_arena *a, const cl_launch *l);

/* docker|podman rm -f NAMES... (podman: --ignore --time 0); NULL for enroot
 * and apptainer, whose containers end with their process. */
const char **cl_cleanup_argv(ib_arena *a, int rt, const char *const *names, size_t n);

/* The name of a row's container for a role ("server", "client", "eval",
 * "recipe"): "infbench-<identity>-<role>", so a later start of the same row
 * finds (and removes) what a killed runner left. In arena a. */
const char *cl_container_name(ib_arena *a, const char *identity, const char *role);

/* The image name with '/', ':', '@' and '#' made '_' (the launchers' squash
 * file names). In arena a. */
const char *cl_sanitise(ib_arena *a, const char *image);

/* Where a model's weights are in a Hugging Face cache: for a model id
 * "org/name", HF_CACHE/models--org--name; an absolute path is itself.
 * Appended to out. IB_EINVAL for an empty model. */
int cl_hf_model_dir(ib_buf *out, const char *hf_cache, const char *model);
/* Whether the weights are staged: the model folder has a snapshot
 * (snapshots/<anything>) holding at least one file or link, or, for an
 * absolute path, the folder exists and is not empty. When not, *why gets
 * "stage the weights first: <path> has no snapshot (hf download MODEL
 * --cache-dir HF_CACHE)". */
bool cl_hf_model_staged(const char *hf_cache, const char *model, ib_buf *why);

#endif
