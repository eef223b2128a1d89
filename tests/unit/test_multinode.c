/* Unit tests for cluster/multinode: a multi-node row's node layout, its
 * sbatch command and its job script (pure functions). The job itself runs
 * in tests/e2e/run_slurm.sh-style clusters. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cluster/multinode.h"

static ib_val *row_of(ib_arena *a, const char *json)
{
	ib_val *v;
	ib_error e = {0};
	cr_assert_eq(ib_json_parse(a, "row", json, strlen(json), &v, &e), 0, "%s", e.msg);
	return v;
}

/* amd-master's qwen3.5 disagg key: prefill TP4 on 1 node, decode TP8 on 1 */
static const char disagg[] =
    "{\"disagg\": true, \"prefill\": {\"num-worker\": 1, \"tp\": 4, \"ep\": 1, \"dp-attn\": false,"
    " \"additional-settings\": [\"PREFILL_NODES=1\"]}, \"decode\": {\"num-worker\": 1, \"tp\": 8,"
    " \"ep\": 1, \"dp-attn\": false, \"additional-settings\": [\"DECODE_NODES=1\","
    " \"DECODE_MTP_SIZE=0\"]}}";

Test(multinode, layout_from_the_node_settings)
{
	ib_arena *a = ib_arena_new();
	cl_mn_layout l;
	ib_error e = {0};
	cr_assert_eq(cl_mn_layout_of(row_of(a, disagg), 8, &l, &e), 0);
	cr_assert(l.multinode && l.disagg);
	cr_assert_eq(l.prefill_gpus, 4);
	cr_assert_eq(l.decode_gpus, 8);
	cr_assert_eq(l.prefill_nodes, 1);
	cr_assert_eq(l.decode_nodes, 1);
	cr_assert_eq(l.nodes, 2);
	ib_arena_free(a);
}

Test(multinode, layout_from_gpus_per_node_rounded_up)
{
	ib_arena *a = ib_arena_new();
	cl_mn_layout l;
	ib_error e = {0};
	/* 3 prefill workers of TP8 (24 GPUs), 1 decode worker of TP16 x PP1 */
	const char *r =
	    "{\"prefill\": {\"num-worker\": 3, \"tp\": 8}, \"decode\": {\"num-worker\": 1,"
	    " \"tp\": 16, \"pp\": 1}}";
	cr_assert_eq(cl_mn_layout_of(row_of(a, r), 4, &l, &e), 0);
	cr_assert_eq(l.prefill_nodes, 6);
	cr_assert_eq(l.decode_nodes, 4);
	cr_assert_eq(l.nodes, 10);
	/* gpus_per_node 0: 8 per node; 12 GPUs -> 2 nodes */
	r = "{\"prefill\": {\"num-worker\": 3, \"tp\": 4}, \"decode\": {\"num-worker\": 1, \"tp\": "
	    "2}}";
	cr_assert_eq(cl_mn_layout_of(row_of(a, r), 0, &l, &e), 0);
	cr_assert_eq(l.prefill_nodes, 2);
	cr_assert_eq(l.decode_nodes, 1);
	ib_arena_free(a);
}

Test(multinode, aggregated_row_is_one_group)
{
	ib_arena *a = ib_arena_new();
	cl_mn_layout l;
	ib_error e = {0};
	const char *r =
	    "{\"prefill\": {\"num-worker\": 2, \"tp\": 8}, \"decode\": {\"num-worker\": 0,"
	    " \"tp\": 8, \"additional-settings\": [\"DECODE_NODES=3\"]}}";
	cr_assert_eq(cl_mn_layout_of(row_of(a, r), 8, &l, &e), 0);
	cr_assert(l.multinode && !l.disagg);
	cr_assert_eq(l.prefill_nodes, 2);
	cr_assert_eq(l.decode_nodes, 0);
	cr_assert_eq(l.nodes, 2);
	ib_arena_free(a);
}

Test(multinode, single_node_row_and_bad_setting)
{
	ib_arena *a = ib_arena_new();
	cl_mn_layout l;
	ib_error e = {0};
	cr_assert_eq(cl_mn_layout_of(row_of(a, "{\"tp\": 8}"), 8, &l, &e), 0);
	cr_assert(!l.multinode);
	cr_assert_eq(l.nodes, 0);
	const char *r = "{\"prefill\": {\"num-worker\": 1, \"additional-settings\":"
	                " [\"PREFILL_NODES=two\"]}, \"decode\": {\"num-worker\": 1}}";
	cr_assert_eq(cl_mn_layout_of(row_of(a, r), 8, &l, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "prefill") && strstr(e.msg, "PREFILL_NODES=two"), "%s", e.msg);
	r = "{\"prefill\": {\"num-worker\": 1}, \"decode\": {\"num-worker\": 1,"
	    " \"additional-settings\": [\"DECODE_NODES=0\"]}}";
	cr_assert_eq(cl_mn_layout_of(row_of(a, r), 8, &l, &e), IB_EINVAL);
	ib_arena_free(a);
}

Test(multinode, sbatch_argv)
{
	ib_arena *a = ib_arena_new();
	cl_mn_layout l;
	ib_error e = {0};
	cr_assert_eq(cl_mn_layout_of(row_of(a, disagg), 8, &l, &e), 0);
	cl_mn_submit s = {.script = "/s/job.sh",
	                  .output = "/s/job.out",
	                  .gpus_per_node = 8,
	                  .partition = "gpu",
	                  .time_limit = "10"};
	const char *argv[16];
	size_t n = cl_mn_sbatch_argv(a, &l, &s, argv, 16);
	const char *want[] = {"sbatch",
	                      "--parsable",
	                      "--nodes=2",
	                      "--ntasks-per-node=1",
	                      "--job-name=infbench-mn",
	                      "--output=/s/job.out",
	                      "--gres=gpu:8",
	                      "--partition=gpu",
	                      "--time=10",
	                      "/s/job.sh"};
	cr_assert_eq(n, sizeof want / sizeof *want);
	for (size_t i = 0; i < n; i++)
		cr_assert_str_eq(argv[i], want[i]);
	cr_assert_null(argv[n]);
	/* no room: 0 */
	cr_assert_eq(cl_mn_sbatch_argv(a, &l, &s, argv, 5), 0);
	ib_arena_free(a);
}

/* Runs the script with a fake scontrol that lists the given hosts and a
 * command that prints the exported lists; returns its output. */
static char *run_script(const ib_buf *script, const char *hosts)
{
	char dir[] = "/tmp/ib_mn_unit.XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char path[256], cmd[1024];
	snprintf(path, sizeof path, "%s/scontrol", dir);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "#!/bin/sh\nprintf '%s'\n", hosts);
	fclose(f);
	snprintf(path, sizeof path, "%s/job.sh", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fwrite(script->data, 1, script->len, f);
	fclose(f);
	snprintf(cmd, sizeof cmd,
	         "chmod +x %s/scontrol && PATH=%s:$PATH sh %s/job.sh 2>&1; rm -rf %s", dir, dir,
	         dir, dir);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	static char out[4096];
	size_t n = fread(out, 1, sizeof out - 1, p);
	out[n] = 0;
	pclose(p);
	return out;
}

Test(multinode, job_script_splits_the_nodes_by_role)
{
	ib_arena *a = ib_arena_new();
	cl_mn_layout l;
	ib_error e = {0};
	const char *r =
	    "{\"prefill\": {\"num-worker\": 2, \"tp\": 8}, \"decode\": {\"num-worker\": 1,"
	    " \"tp\": 8}}";
	cr_assert_eq(cl_mn_layout_of(row_of(a, r), 8, &l, &e), 0);
	ib_buf b = {0};
	cr_assert_eq(cl_mn_job_script(&b, &l, "/tmp",
	                              "echo \"$NUM_NODES|$PREFILL_NODES|$DECODE_NODES|"
	                              "$PREFILL_NODELIST|$DECODE_NODELIST|$FRONTEND_NODE\""),
	             0);
	cr_assert_str_eq(run_script(&b, "n1\\nn2\\nn3\\n"),
	                 "infbench: prefill nodes n1,n2, decode nodes n3, frontend n1\n"
	                 "3|2|1|n1,n2|n3|n1\n");
	/* fewer nodes than the layout: the job fails with a clear line */
	cr_assert(strstr(run_script(&b, "n1\\nn2\\n"), "fewer than 3 nodes"));
	ib_buf_free(&b);
	/* aggregated: no decode list */
	r = "{\"prefill\": {\"num-worker\": 2, \"tp\": 8}, \"decode\": {\"num-worker\": 0}}";
	cr_assert_eq(cl_mn_layout_of(row_of(a, r), 8, &l, &e), 0);
	cr_assert_eq(cl_mn_job_script(&b, &l, "/tmp",
	                              "echo \"$NUM_NODES|$PREFILL_NODELIST|$DECODE_NODELIST|\""),
	             0);
	cr_assert_str_eq(run_script(&b, "a\\nb\\n"),
	                 "infbench: prefill nodes a,b, decode nodes none, frontend a\n2|a,b||\n");
	ib_buf_free(&b);
	ib_arena_free(a);
}
