/* cluster/multinode: a multi-node matrix row's node layout, its sbatch
 * command and its job script (docs/run.md "Multi-node rows"). */
#include "cluster/multinode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A pool's integer field (JSON integer or digits), dflt when absent. */
static int64_t pool_int(const ib_val *pool, const char *key, int64_t dflt)
{
	const ib_val *v = ib_map_get(pool, key);
	if (v && v->type == IB_V_INT)
		return v->i;
	if (v && v->type == IB_V_STR && v->str.len) {
		char *end;
		long long x = strtoll(v->str.s, &end, 10);
		if (!*end)
			return x;
	}
	return dflt;
}

/* A pool's "NAME=N" additional setting: 1 found (*n set), 0 absent,
 * IB_EINVAL when N is not a positive integer. */
static int pool_setting(const ib_val *pool, const char *side, const char *name, int64_t *n,
                        ib_error *e)
{
	const ib_val *as = ib_map_get(pool, "additional-settings");
	size_t len = strlen(name);
	for (size_t i = 0; as && as->type == IB_V_LIST && i < as->list.n; i++) {
		const ib_val *s = as->list.v[i];
		if (s->type != IB_V_STR || strncmp(s->str.s, name, len) || s->str.s[len] != '=')
			continue;
		char *end;
		long long x = strtoll(s->str.s + len + 1, &end, 10);
		if (*end || end == s->str.s + len + 1 || x <= 0)
			return ib_fail(e, IB_EINVAL, NULL, 0, 0,
			               "%s additional-settings: '%s' is not %s=<positive integer>",
			               side, s->str.s, name);
		*n = x;
		return 1;
	}
	return 0;
}

int cl_mn_layout_of(const ib_val *row, int gpus_per_node, cl_mn_layout *l, ib_error *e)
{
	memset(l, 0, sizeof *l);
	const ib_val *pre = ib_map_get(row, "prefill"), *dec = ib_map_get(row, "decode");
	if (!pre || !dec || pre->type != IB_V_MAP || dec->type != IB_V_MAP)
		return 0;
	l->multinode = true;
	int64_t gpn = gpus_per_node > 0 ? gpus_per_node : 8;
	const ib_val *pool[2] = {pre, dec};
	static const char *const side[2] = {"prefill", "decode"},
	                         *setting[2] = {"PREFILL_NODES", "DECODE_NODES"};
	int64_t workers[2], gpus[2], nodes[2];
	for (int i = 0; i < 2; i++) {
		workers[i] = pool_int(pool[i], "num-worker", 1);
		gpus[i] = workers[i] * pool_int(pool[i], "tp", 1) * pool_int(pool[i], "pp", 1) *
		          pool_int(pool[i], "pcp-size", 1);
		int rc = pool_setting(pool[i], side[i], setting[i], &nodes[i], e);
		if (rc < 0)
			return rc;
		if (!rc)
			nodes[i] = workers[i] > 0 ? (gpus[i] + gpn - 1) / gpn : 0;
		if (workers[i] > 0 && nodes[i] < 1)
			nodes[i] = 1;
	}
	l->prefill_workers = workers[0], l->decode_workers = workers[1];
	l->prefill_gpus = gpus[0], l->decode_gpus = gpus[1];
	l->disagg = workers[1] > 0;
	l->prefill_nodes = nodes[0];
	l->decode_nodes = l->disagg ? nodes[1] : 0;
	l->nodes = l->prefill_nodes + l->decode_nodes;
	return 0;
}

size_t cl_mn_sbatch_argv(ib_arena *a, const cl_mn_layout *l, const cl_mn_submit *s,
                         const char **argv, size_t cap)
{
	size_t n = 0;
	const char *v[16];
	v[n++] = "sbatch";
	v[n++] = "--parsable";
	v[n++] = ib_arena_printf(a, "--nodes=%lld", (long long)l->nodes);
	v[n++] = "--ntasks-per-node=1";
	v[n++] = ib_arena_printf(a, "--job-name=%s", s->job_name ? s->job_name : "infbench-mn");
	v[n++] = ib_arena_printf(a, "--output=%s", s->output);
	if (s->gpus_per_node > 0)
		v[n++] = ib_arena_printf(a, "--gres=gpu:%d", s->gpus_per_node);
	if (s->partition)
		v[n++] = ib_arena_printf(a, "--partition=%s", s->partition);
	if (s->account)
		v[n++] = ib_arena_printf(a, "--account=%s", s->account);
	if (s->time_limit)
		v[n++] = ib_arena_printf(a, "--time=%s", s->time_limit);
	v[n++] = s->script;
	if (n + 1 > cap)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!v[i])
			return 0;
		argv[i] = v[i];
	}
	argv[n] = NULL;
	return n;
}

int cl_mn_job_script(ib_buf *b, const cl_mn_layout *l, const char *cwd, const char *command)
{
	long long p = l->prefill_nodes, d = l->decode_nodes;
	char dn[64] = "";
	if (l->disagg)
		snprintf(dn, sizeof dn, " + %lld decode node(s)", d);
	ib_buf_printf(b,
	              "#!/bin/sh\n"
	              "# written by infbench run --slurm: one multi-node matrix row as one job\n"
	              "# (%s: %lld prefill node(s)%s)\n"
	              "cd '%s' || exit 1\n"
	              "nodes=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\") || exit 1\n"
	              "[ \"$(printf '%%s\\n' \"$nodes\" | wc -l)\" -ge %lld ] || "
	              "{ echo \"infbench: the job got fewer than %lld nodes\" >&2; exit 1; }\n"
	              "pick() { printf '%%s\\n' \"$nodes\" | tail -n +\"$1\" | head -n \"$2\" | "
	              "paste -sd, -; }\n"
	              "export NUM_NODES=%lld PREFILL_NODES=%lld DECODE_NODES=%lld\n"
	              "export PREFILL_NODELIST=\"$(pick 1 %lld)\"\n"
	              "export DECODE_NODELIST=\"$(pick %lld %lld)\"\n"
	              "export FRONTEND_NODE=\"$(pick 1 1)\"\n"
	              "echo \"infbench: prefill nodes $PREFILL_NODELIST, decode nodes "
	              "${DECODE_NODELIST:-none}, frontend $FRONTEND_NODE\"\n"
	              "exec %s\n",
	              l->disagg ? "disaggregated" : "aggregated", p, dn, cwd, p + d, p + d, p + d,
	              p, d, p, p + 1, d, command);
	return b->err ? b->err : 0;
}

/* One pool's processes (see cl_mn_roles_of). */
static size_t pool_roles(int pool, const char *prefix, int64_t workers, int64_t nodes,
                         cl_mn_role *out, size_t cap)
{
	if (workers < 1 || nodes < 1)
		return 0;
	int64_t n = workers < nodes ? workers : nodes;
	if ((size_t)n > cap)
		return 0;
	for (int64_t i = 0; i < n; i++) {
		cl_mn_role *r = &out[i];
		snprintf(r->name, sizeof r->name, "%s-%lld", prefix, (long long)i);
		r->pool = pool;
		r->node = (int)(workers >= nodes ? i + 1 : 1 + i * nodes / workers);
		r->replicas = (int)(workers / n + (i < workers % n));
	}
	return (size_t)n;
}

size_t cl_mn_roles_of(const cl_mn_layout *l, cl_mn_role *out, size_t cap)
{
	if (!l->multinode)
		return 0;
	if (!l->disagg)
		return pool_roles(CL_MN_WORKER, "worker", l->prefill_workers, l->prefill_nodes, out,
		                  cap);
	size_t p =
	    pool_roles(CL_MN_PREFILL, "prefill", l->prefill_workers, l->prefill_nodes, out, cap);
	size_t d = p ? pool_roles(CL_MN_DECODE, "decode", l->decode_workers, l->decode_nodes,
	                          out + p, cap - p)
	             : 0;
	return p && d ? p + d : 0;
}

size_t cl_mn_nodes_of(const cl_mn_layout *l, cl_mn_role *out, size_t cap)
{
	if (!l->multinode || l->nodes < 1 || (size_t)l->nodes > cap)
		return 0;
	for (int64_t i = 0; i < l->nodes; i++) {
		cl_mn_role *r = &out[i];
		bool pre = i < l->prefill_nodes;
		r->pool = !l->disagg ? CL_MN_WORKER : pre ? CL_MN_PREFILL : CL_MN_DECODE;
		r->node = (int)(pre ? i + 1 : i - l->prefill_nodes + 1);
		r->replicas = 0;
		snprintf(r->name, sizeof r->name, "%s-%d",
		         r->pool == CL_MN_WORKER    ? "worker"
		         : r->pool == CL_MN_PREFILL ? "prefill"
		                                    : "decode",
		         r->node - 1);
	}
	return (size_t)l->nodes;
}

void cl_sh_words(ib_buf *b, const char *const *argv)
{
	for (size_t i = 0; argv[i]; i++) {
		const char *s = argv[i];
		bool plain = *s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		                             "0123456789-_./=:,+@%") == strlen(s);
		ib_buf_puts(b, i ? " " : "");
		if (plain) {
			ib_buf_puts(b, s);
			continue;
		}
		ib_buf_putc(b, '\'');
		for (; *s; s++)
			ib_buf_puts(b, *s == '\'' ? "'\\''" : (char[]){*s, 0});
		ib_buf_putc(b, '\'');
	}
}

int cl_mn_roles_script(ib_buf *b, const cl_mn_role *r, const char *const *cmds,
                       const char *const *cleanup, size_t n, const char *frontend)
{
	static const char *const list[] = {"PREFILL_NODELIST", "DECODE_NODELIST",
	                                   "PREFILL_NODELIST"};
	ib_buf_puts(
	    b, "#!/bin/bash\n"
	       "# written by infbench run: the roles of one multi-node row, one srun step each\n"
	       "# (docs/run.md \"Roles\"), run from the row's workspace\n"
	       "mkdir -p logs ports && rm -f ports/* || exit 1\n"
	       "pids=\n"
	       "nth() { printf '%s\\n' \"$1\" | tr , '\\n' | sed -n \"$2p\"; }\n"
	       "addr() {\n"
	       "\tlocal a\n"
	       "\ta=$(scontrol show node \"$1\" 2>/dev/null | tr ' ' '\\n' | "
	       "sed -n 's/^NodeAddr=//p' | head -n 1)\n"
	       "\tprintf '%s\\n' \"${a:-$1}\"\n"
	       "}\n"
	       "step() {\n"
	       "\tlocal name=$1 node=$2\n"
	       "\tshift 2\n"
	       "\techo \"infbench: step $name on $node\"\n"
	       "\tsrun --overlap --nodes=1 --ntasks=1 --nodelist=\"$node\" --job-name=\"$name\" "
	       "--output=\"$PWD/logs/$name.log\" \"$@\" &\n"
	       "\tpids=\"$pids $!\"\n"
	       "}\n"
	       "stop() { kill $pids 2>/dev/null; wait; reap; cleanup; tail -n 4 logs/*.log >&2; }\n"
	       "# a step whose srun was stopped before its tasks started can outlive\n"
	       "# it: cancel what is left of this job's steps, and wait (30 s at most)\n"
	       "reap() {\n"
	       "\t[ -n \"$SLURM_JOB_ID\" ] || return 0\n"
	       "\tlocal i s\n"
	       "\tfor i in $(seq 300); do\n"
	       "\t\ts=$(squeue -h -s -j \"$SLURM_JOB_ID\" -o %i 2>/dev/null | grep -E "
	       "'\\.[0-9]+$')\n"
	       "\t\t[ -z \"$s\" ] && return 0\n"
	       "\t\t[ \"$i\" = 10 ] && scancel $s 2>/dev/null\n"
	       "\t\tsleep 0.1\n"
	       "\tdone\n"
	       "}\n"
	       "listening() {\n"
	       "\tuntil [ -s \"ports/$1\" ]; do\n"
	       "\t\tfor p in $pids; do\n"
	       "\t\t\tkill -0 \"$p\" 2>/dev/null || "
	       "{ echo \"infbench: a step ended before $1 listened\" >&2; stop; exit 1; }\n"
	       "\t\tdone\n"
	       "\t\tsleep 0.1\n"
	       "\tdone\n"
	       "}\n"
	       "trap 'kill $pids 2>/dev/null; wait; cleanup; exit 143' TERM INT\n");
	/* what a role left on its node once its step ended (a container that
	 * outlived its killed client), removed by a step there */
	ib_buf_puts(b, "cleanup() {\n\t:\n");
	for (size_t i = 0; cleanup && i < n; i++)
		if (cleanup[i])
			ib_buf_printf(b,
			              "\tsrun --overlap --nodes=1 --ntasks=1 --nodelist=\"$(nth "
			              "\"$%s\" %d)\" "
			              "--job-name=cleanup %s >/dev/null 2>&1\n",
			              list[r[i].pool], r[i].node, cleanup[i]);
	ib_buf_puts(b, "}\n");
	if (!frontend) /* per-node scripts: every node's address, in rank order */
		ib_buf_puts(
		    b, "ips=\n"
		       "for h in $(printf '%s\\n' \"$PREFILL_NODELIST\" \"$DECODE_NODELIST\" | "
		       "tr , '\\n'); do ips=\"$ips${ips:+,}$(addr \"$h\")\"; done\n"
		       "printf 'NODE0_ADDR=%s\\nIPADDRS=%s\\n' \"${ips%%,*}\" \"$ips\" "
		       ">nodes.env || exit 1\n"
		       "cat nodes.env\n");
	for (size_t i = 0; i < n; i++) {
		ib_buf_printf(b,
		              "node=$(nth \"$%s\" %d)\n"
		              "mkdir -p \"LOGS/gpu_metrics/$node\" || exit 1\n"
		              "step %s \"$node\" %s",
		              list[r[i].pool], r[i].node, r[i].name, cmds[i]);
		if (frontend)
			ib_buf_printf(b,
			              " --host \"$(addr \"$node\")\" --port 0 --port-file "
			              "\"$PWD/ports/%s\"",
			              r[i].name);
		ib_buf_putc(b, '\n');
	}
	if (!frontend) {
		ib_buf_puts(b, "wait -n\n"
		               "st=$?\n"
		               "echo \"infbench: a node's step ended (status $st): stopping the "
		               "others\" >&2\n"
		               "stop\n"
		               "exit 1\n");
		return b->err ? b->err : 0;
	}
	ib_buf_puts(b, "fe_prefill= fe_workers=\n");
	for (size_t i = 0; i < n; i++)
		ib_buf_printf(b,
		              "listening %s\n"
		              "fe_%s=\"$fe_%s $(addr \"$(nth \"$%s\" %d)\"):$(cat ports/%s)\"\n",
		              r[i].name, r[i].pool == CL_MN_PREFILL ? "prefill" : "workers",
		              r[i].pool == CL_MN_PREFILL ? "prefill" : "workers", list[r[i].pool],
		              r[i].node, r[i].name);
	ib_buf_printf(b,
	              "step frontend \"$FRONTEND_NODE\" %s ${fe_prefill:+--prefill $fe_prefill} "
	              "--workers $fe_workers\n"
	              "wait -n\n"
	              "st=$?\n"
	              "echo \"infbench: a role step ended (status $st): stopping the others\" >&2\n"
	              "stop\n"
	              "exit 1\n",
	              frontend);
	return b->err ? b->err : 0;
}
