/* cluster/multinode — a multi-node matrix row as one Slurm job (docs/run.md
 * "Multi-node rows"): the row's node layout per role, the sbatch command
 * and the job script. Pure functions: nothing here starts a process (run/
 * submits what these build).
 *
 * A multi-node row has `prefill` and `decode` pools (num-worker, tp, ep,
 * dp-attn, pp, pcp-size, additional-settings). Its nodes are the prefill
 * nodes then the decode nodes; an aggregated multi-node row (decode
 * num-worker 0) has one group, the prefill pool's. */
#ifndef IB_CLUSTER_MULTINODE_H
#define IB_CLUSTER_MULTINODE_H

#include "base/base.h"
#include "fmt/fmt.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
	bool multinode;       /* the row has both pools */
	bool disagg;          /* prefill and decode pools (decode num-worker > 0) */
	int64_t prefill_gpus; /* num-worker x tp x pp x pcp-size of the pool */
	int64_t decode_gpus;
	int64_t prefill_workers, decode_workers;
	int64_t prefill_nodes, decode_nodes; /* decode 0 when aggregated */
	int64_t nodes;                       /* prefill_nodes + decode_nodes */
} cl_mn_layout;

/* The layout of a matrix row. A pool's node count is its
 * additional-settings entry PREFILL_NODES=N / DECODE_NODES=N (the
 * reference's master configs state them so), else its GPUs over
 * gpus_per_node rounded up (at least 1 for a pool with workers;
 * gpus_per_node <= 0: 8). A row without both pools gives multinode false
 * and 0. IB_EINVAL (named in e: the pool and setting) for a node setting
 * that is not a positive integer. */
int cl_mn_layout_of(const ib_val *row, int gpus_per_node, cl_mn_layout *l, ib_error *e);

/* What the sbatch command of one multi-node row needs. */
typedef struct {
	const char *script;     /* the job script (cl_mn_job_script) */
	const char *output;     /* the job's stdout+stderr file */
	const char *job_name;   /* NULL: infbench-mn */
	int gpus_per_node;      /* > 0: --gres=gpu:N (recipe engine); 0: no GPUs */
	const char *partition;  /* NULL: the cluster's default */
	const char *account;    /* NULL: none */
	const char *time_limit; /* NULL: the partition's */
} cl_mn_submit;

/* The sbatch argv (NULL-terminated, strings in arena a) for layout l:
 * --parsable, --nodes = l->nodes, one task per node, the job's name and
 * output, GPUs per node, partition, account, time, then the script.
 * Returns the argument count, or 0 when argv (cap entries) is too small or
 * a allocation fails. */
size_t cl_mn_sbatch_argv(ib_arena *a, const cl_mn_layout *l, const cl_mn_submit *s,
                         const char **argv, size_t cap);

/* Appends the job script of one multi-node row to b: `cd CWD`, the node
 * lists of the allocation split by role (SLURM_JOB_NODELIST through
 * `scontrol show hostnames`): NUM_NODES, PREFILL_NODES, DECODE_NODES,
 * PREFILL_NODELIST, DECODE_NODELIST (empty when aggregated) and
 * FRONTEND_NODE (the first node, where the frontend and the client run),
 * exported for the row, then `exec COMMAND`. cwd goes in single quotes as
 * is (a folder without a quote); command is shell text as given (the
 * caller quotes its words). Returns 0 or IB_ENOMEM. */
int cl_mn_job_script(ib_buf *b, const cl_mn_layout *l, const char *cwd, const char *command);

/* ---- a row's roles inside its job (docs/run.md "Roles") ---- */

enum { CL_MN_PREFILL, CL_MN_DECODE, CL_MN_WORKER };

/* One process of a role, on one node of its pool. */
typedef struct {
	char name[32]; /* "prefill-0", "decode-1", "worker-0": its step, log and port file */
	int pool;      /* CL_MN_PREFILL / CL_MN_DECODE (disaggregated), CL_MN_WORKER (aggregated) */
	int node;      /* 1-based, in the pool's node list (PREFILL_NODELIST / DECODE_NODELIST) */
	int replicas;  /* the pool's workers this process models */
} cl_mn_role;

/* The processes of layout l's roles into out[0..cap): per pool (prefill
 * and decode of a disaggregated row, the workers of an aggregated one) one
 * process per node when the pool has at least as many workers as nodes,
 * the workers shared out (the first nodes get one more when they do not
 * divide), else one process per worker on the first node of its span.
 * Returns the count (0 when l is not multi-node or cap is too small). */
size_t cl_mn_roles_of(const cl_mn_layout *l, cl_mn_role *out, size_t cap);

/* One entry per node of layout l, in rank order (the prefill nodes, then
 * the decode nodes): pool, 1-based node in its pool's list, and the name
 * prefill-I / decode-I / worker-I (I the node's index in its pool), the
 * per-node recipe steps (docs/run.md "Per-node recipes"); replicas 0.
 * Returns l->nodes, or 0 when l is not multi-node or cap is too small. */
size_t cl_mn_nodes_of(const cl_mn_layout *l, cl_mn_role *out, size_t cap);

/* Appends argv to b as shell words separated by blanks (single-quoted
 * where needed). */
void cl_sh_words(ib_buf *b, const char *const *argv);

/* Appends the bash script that runs roles r[0..n) of a row inside its job,
 * from the row's workspace: one `srun --overlap` step per role on its node
 * (--nodelist from the pool's node list), its output in logs/NAME.log, its
 * node's telemetry folder LOGS/gpu_metrics/NODE created; the role's command
 * is cmds[i] (shell text, which may name the role's node as $node) plus `--host ADDR --port 0
 * --port-file ports/NAME` (ADDR the node's NodeAddr); once every role
 * listens, the frontend step on FRONTEND_NODE, `frontend` (shell text)
 * plus `--prefill ADDR:PORT...` (disaggregated) and `--workers
 * ADDR:PORT...`, its output in logs/frontend.log. The script then waits:
 * when a step ends it stops the others and exits 1; SIGTERM stops them
 * all. Once the steps ended, cleanup[i] (shell text; NULL, or a NULL
 * cleanup: none) runs as a step on role i's node (the removal of a
 * container that outlived its killed client).
 * frontend NULL (per-node recipes, cl_mn_nodes_of): cmds[i] runs as is
 * (no address, port or frontend added), the script first writes
 * nodes.env (NODE0_ADDR, IPADDRS: the nodes' addresses in rank order) in
 * the workspace, and waits on the steps as above. Returns 0 or IB_ENOMEM. */
int cl_mn_roles_script(ib_buf *b, const cl_mn_role *r, const char *const *cmds,
                       const char *const *cleanup, size_t n, const char *frontend);

#endif
