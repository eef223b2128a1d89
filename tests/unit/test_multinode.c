/* Unit tests for cluster/multinode and cluster/frontend: a multi-node row's
 * node layout, its sbatch command, its job script, its roles and their
 * script (pure functions), the frontend's clock. The job itself runs
 * in tests/e2e/run_slurm.sh-style clusters. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cluster/frontend.h"
#include "cluster/multinode.h"
#include "power/power.h"
#include "sim/sim.h"

#include <math.h>
#include <sys/stat.h>

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

/* Writes data[0..len) to DIR/NAME, executable. */
static void put_file(const char *dir, const char *name, const char *data, size_t len)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fwrite(data, 1, len, f);
	fclose(f);
	chmod(path, 0755);
}

/* What the shell command prints (at most 4 KiB; a static buffer). */
static char *output_of(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	static char out[4096];
	size_t n = fread(out, 1, sizeof out - 1, p);
	out[n] = 0;
	pclose(p);
	return out;
}

/* Runs the script with a fake scontrol that lists the given hosts and a
 * command that prints the exported lists; returns its output. */
static char *run_script(const ib_buf *script, const char *hosts)
{
	char dir[] = "/tmp/ib_mn_unit.XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char fake[256], cmd[1024];
	int n = snprintf(fake, sizeof fake, "#!/bin/sh\nprintf '%s'\n", hosts);
	put_file(dir, "scontrol", fake, (size_t)n);
	put_file(dir, "job.sh", script->data, script->len);
	snprintf(cmd, sizeof cmd, "PATH=%s:$PATH sh %s/job.sh 2>&1; rm -rf %s", dir, dir, dir);
	return output_of(cmd);
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

/* ---- the roles inside the job ---- */

static void want_role(const cl_mn_role *r, const char *name, int pool, int node, int replicas)
{
	cr_assert_str_eq(r->name, name);
	cr_assert_eq(r->pool, pool, "%s pool", name);
	cr_assert_eq(r->node, node, "%s node %d", name, r->node);
	cr_assert_eq(r->replicas, replicas, "%s replicas %d", name, r->replicas);
}

Test(multinode, roles_one_process_per_node_and_pool_nodes_one_step_per_node)
{
	ib_arena *a = ib_arena_new();
	cl_mn_layout l;
	ib_error e = {0};
	cl_mn_role r[8];
	cr_assert_eq(cl_mn_layout_of(row_of(a, disagg), 8, &l, &e), 0);
	cr_assert_eq(cl_mn_roles_of(&l, r, 8), 2);
	want_role(&r[0], "prefill-0", CL_MN_PREFILL, 1, 1);
	want_role(&r[1], "decode-0", CL_MN_DECODE, 1, 1);
	/* 5 prefill workers on 2 nodes (3 + 2), 2 decode workers on 4 nodes:
	 * one process per worker, on the first node of its span */
	const char *w = "{\"prefill\": {\"num-worker\": 5, \"tp\": 2, \"additional-settings\": "
	                "[\"PREFILL_NODES=2\"]}, \"decode\": {\"num-worker\": 2, \"tp\": 16, "
	                "\"additional-settings\": [\"DECODE_NODES=4\"]}}";
	cr_assert_eq(cl_mn_layout_of(row_of(a, w), 8, &l, &e), 0);
	cr_assert_eq(cl_mn_roles_of(&l, r, 8), 4);
	want_role(&r[0], "prefill-0", CL_MN_PREFILL, 1, 3);
	want_role(&r[1], "prefill-1", CL_MN_PREFILL, 2, 2);
	want_role(&r[2], "decode-0", CL_MN_DECODE, 1, 1);
	want_role(&r[3], "decode-1", CL_MN_DECODE, 3, 1);
	cr_assert_eq(cl_mn_roles_of(&l, r, 3), 0, "no room: 0");
	/* per-node recipes: one step per node in rank order, prefill first */
	cr_assert_eq(cl_mn_nodes_of(&l, r, 8), 6);
	want_role(&r[0], "prefill-0", CL_MN_PREFILL, 1, 0);
	want_role(&r[1], "prefill-1", CL_MN_PREFILL, 2, 0);
	want_role(&r[2], "decode-0", CL_MN_DECODE, 1, 0);
	want_role(&r[5], "decode-3", CL_MN_DECODE, 4, 0);
	cr_assert_eq(cl_mn_nodes_of(&l, r, 5), 0, "no room: 0");
	/* aggregated: the workers, one per node */
	w = "{\"prefill\": {\"num-worker\": 2, \"tp\": 8}, \"decode\": {\"num-worker\": 0}}";
	cr_assert_eq(cl_mn_layout_of(row_of(a, w), 8, &l, &e), 0);
	cr_assert_eq(cl_mn_roles_of(&l, r, 8), 2);
	want_role(&r[0], "worker-0", CL_MN_WORKER, 1, 1);
	want_role(&r[1], "worker-1", CL_MN_WORKER, 2, 1);
	cr_assert_eq(cl_mn_nodes_of(&l, r, 8), 2);
	want_role(&r[1], "worker-1", CL_MN_WORKER, 2, 0);
	/* a single-node row has none */
	cr_assert_eq(cl_mn_layout_of(row_of(a, "{\"tp\": 8}"), 8, &l, &e), 0);
	cr_assert_eq(cl_mn_roles_of(&l, r, 8), 0);
	cr_assert_eq(cl_mn_nodes_of(&l, r, 8), 0);
	ib_arena_free(a);
}

Test(multinode, sh_words_quote_what_the_shell_would_split)
{
	ib_buf b = {0};
	const char *v[] = {"/bin/infbench", "--x", "a b", "it's", "", "k=v,w:1", NULL};
	cl_sh_words(&b, v);
	cr_assert_str_eq(b.data, "/bin/infbench --x 'a b' 'it'\\''s' '' k=v,w:1");
	ib_buf_free(&b);
}

/* Runs the roles script in a temp folder with fakes in PATH: scontrol
 * (node nI has NodeAddr 10.0.0.I), srun (logs its node and runs the command
 * with its output in --output), a role that writes its port file (7000 +
 * the node's last digit) and waits, and a frontend that logs its flags and
 * exits — which ends the script (status 1, the others stopped), and a
 * per-node script (below). lists: the node lists' assignments; show: shell
 * that prints what the steps left. Returns the status, the srun log, what
 * show prints, the logs and the telemetry folders. */
#define MN_LISTS "PREFILL_NODELIST=n1,n2 DECODE_NODELIST=n2,n3"
static char *run_roles(const ib_buf *script, const char *lists, const char *show)
{
	char dir[] = "/tmp/ib_mn_roles.XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	static const char *const fakes[][2] = {
	    {"scontrol", "#!/bin/sh\necho \"NodeName=$3 Arch=x NodeAddr=10.0.0.${3#n} Port=1\"\n"},
	    {"srun", "#!/bin/sh\nfor a; do case $a in --nodelist=*) n=${a#*=};; "
	             "--output=*) o=${a#*=};; --*) ;; *) break;; esac; shift; done\n"
	             "echo \"srun $n $1\" >>srun.log\nexec \"$@\" >\"$o\" 2>&1\n"},
	    {"role", "#!/bin/sh\nwhile [ $# -gt 0 ]; do case $1 in --host) h=$2;; "
	             "--port-file) f=$2;; esac; shift; done\n"
	             "echo $((7000 + ${h##*.})) >\"$f\"\nexec sleep 60\n"},
	    {"front", "#!/bin/sh\necho \"$*\" >front.args\n"},
	    {"node", "#!/bin/sh\n. ./nodes.env\necho \"$1 $NODE0_ADDR $IPADDRS\" >rank$1\n"
	             "[ $1 = 2 ] || exec sleep 60\n"
	             "for i in $(seq 1 100); do [ -s rank0 ] && [ -s rank1 ] && exit 0; "
	             "sleep 0.05; done\n"}};
	char cmd[1024];
	for (size_t i = 0; i < sizeof fakes / sizeof *fakes; i++)
		put_file(dir, fakes[i][0], fakes[i][1], strlen(fakes[i][1]));
	put_file(dir, "roles.sh", script->data, script->len);
	snprintf(cmd, sizeof cmd,
	         "cd %s && PATH=%s:$PATH %s FRONTEND_NODE=n1 bash roles.sh >out 2>&1; "
	         "echo \"status $?\"; sort srun.log; %s; ls logs; ls LOGS/gpu_metrics; rm -rf %s",
	         dir, dir, lists, show, dir);
	return output_of(cmd);
}

Test(multinode, roles_script_starts_a_step_per_role_then_the_frontend_or_per_node)
{
	cl_mn_role r[3] = {{"prefill-0", CL_MN_PREFILL, 1, 1},
	                   {"decode-0", CL_MN_DECODE, 1, 1},
	                   {"decode-1", CL_MN_DECODE, 2, 1}};
	const char *cmds[] = {"role --role prefill", "role --role decode", "role --role decode"};
	ib_buf b = {0};
	cr_assert_eq(cl_mn_roles_script(&b, r, cmds, NULL, 3, "front --port 9"), 0);
	cr_assert_str_eq(run_roles(&b, MN_LISTS, "cat front.args"),
	                 "status 1\n"
	                 "srun n1 front\n"
	                 "srun n1 role\n"
	                 "srun n2 role\n"
	                 "srun n3 role\n"
	                 "--port 9 --prefill 10.0.0.1:7001 --workers 10.0.0.2:7002 "
	                 "10.0.0.3:7003\n"
	                 "decode-0.log\ndecode-1.log\nfrontend.log\nprefill-0.log\n"
	                 "n1\nn2\nn3\n");
	ib_buf_free(&b);
	/* aggregated: no --prefill */
	cl_mn_role w[2] = {{"worker-0", CL_MN_WORKER, 1, 2}, {"worker-1", CL_MN_WORKER, 2, 2}};
	const char *wc[] = {"role", "role"};
	cr_assert_eq(cl_mn_roles_script(&b, w, wc, NULL, 2, "front"), 0);
	cr_assert(strstr(run_roles(&b, MN_LISTS, "cat front.args"),
	                 "\n--workers 10.0.0.1:7001 10.0.0.2:7002\n"));
	ib_buf_free(&b);
	/* per-node mode (no frontend: per-node recipes): each step's command as
	 * given; the fake node script records the addresses nodes.env gives its
	 * rank; rank 2 ends once the others wrote, which ends the script */
	const char *nc[] = {"node 0", "node 1", "node 2"};
	cr_assert_eq(cl_mn_roles_script(&b, r, nc, NULL, 3, NULL), 0);
	const char *ips = "10.0.0.1 10.0.0.1,10.0.0.2,10.0.0.3\n";
	char want[512];
	snprintf(want, sizeof want,
	         "status 1\nsrun n1 node\nsrun n2 node\nsrun n3 node\n0 %s1 %s2 %s"
	         "decode-0.log\ndecode-1.log\nprefill-0.log\nn1\nn2\nn3\n",
	         ips, ips, ips);
	cr_assert_str_eq(
	    run_roles(&b, "PREFILL_NODELIST=n1 DECODE_NODELIST=n2,n3", "cat rank0 rank1 rank2"),
	    want);
	ib_buf_free(&b);
}

/* ---- the frontend's clock ---- */

Test(multinode, restamp_moves_a_roles_stamps_onto_the_frontends_clock)
{
	/* arrived at 10 s on the frontend, prefilled in 0.25 s; the decode role
	 * got it at its 100 s and stamped its chunks on its own clock */
	cl_fe_clock k = {.t0 = 10, .base = 10.25, .a = NAN};
	const char *ev1 = "data: {\"choices\":[{\"text\":\" a\"}],\"infbench_t0\":100.000000000,"
	                  "\"infbench_t\":100.000000000}\n\n",
	           *ev2 =
	               "data: {\"choices\":[{\"text\":\" b\"}],\"infbench_t\":100.020000000}\n\n";
	ib_buf b = {0};
	cr_assert_eq(cl_fe_restamp(&k, ev1, strlen(ev1), &b), 0);
	cr_assert_eq(cl_fe_restamp(&k, ev2, strlen(ev2), &b), 0);
	cr_assert_str_eq(b.data,
	                 "data: {\"choices\":[{\"text\":\" a\"}],\"infbench_t0\":10.000000000,"
	                 "\"infbench_t\":10.250000000}\n\n"
	                 "data: {\"choices\":[{\"text\":\" b\"}],\"infbench_t\":10.270000000}"
	                 "\n\n");
	cr_assert_float_eq(k.a, 100.0, 1e-12);
	/* no stamps: the bytes as they were; a key without a number is kept */
	b.len = 0;
	const char *plain = "{\"infbench_t\": \"x\", \"infbench_tx\": 1}";
	cr_assert_eq(cl_fe_restamp(&k, plain, strlen(plain), &b), 0);
	cr_assert_eq(b.len, strlen(plain));
	cr_assert_eq(memcmp(b.data, plain, b.len), 0);
	ib_buf_free(&b);
}

Test(multinode, span_of_a_prefill_answer)
{
	double s = -1;
	const char *a = "data: {\"infbench_t0\":3.5,\"infbench_t\":3.75}\n\n"
	                "data: {\"usage\":{},\"infbench_t\":3.75}\n\ndata: [DONE]\n\n";
	cr_assert(cl_fe_span(a, strlen(a), &s));
	cr_assert_float_eq(s, 0.25, 1e-12);
	cr_assert_not(cl_fe_span("{\"infbench_t\":1}", 16, &s), "no arrival stamp");
	cr_assert_not(cl_fe_span("{}", 2, &s));
}

/* ---- the multinode power package (pw_mn_pack) ---- */

static void put_text(const char *dir, const char *name, const char *text)
{
	put_file(dir, name, text, strlen(text));
}

/* The output of a power run as one string: its lines joined. */
static void join_log(void *ud, int stream, const char *line)
{
	(void)stream;
	ib_buf_printf(ud, "%s\n", line);
}

Test(multinode, power_package_of_two_monitors_validates_into_role_energies)
{
	char dir[] = "/tmp/ib_mn_pkg.XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	/* a prefill GPU at 100 W on n1 and a decode GPU at 300 W on n2, sampled
	 * every second from 999 to 1012 (numeric stamps); the window 1000..1010 */
	ib_buf c1 = {0}, c2 = {0};
	ib_buf_puts(&c1, "timestamp, index, power.draw [W], simulated\n");
	ib_buf_puts(&c2, "timestamp, index, uuid, power.draw [W]\n");
	for (int t = 999; t <= 1012; t++) {
		ib_buf_printf(&c1, "%d, 0, 100.00 W, 1\n", t);
		ib_buf_printf(&c2, "%d, 0, GPU-abc, %s\n", t, t == 1005 ? "[N/A]" : "300 W");
	}
	put_text(dir, "p.csv", c1.data);
	put_text(dir, "d.csv", c2.data);
	put_text(dir, "res.json",
	         "{\"max_concurrency\": 4, \"benchmark_start_time_unix\": 1000.0, "
	         "\"benchmark_end_time_unix\": 1010.0, \"duration\": 10.0, \"completed\": 10, "
	         "\"total_input_tokens\": 1000, \"total_output_tokens\": 500}");
	put_text(dir, "agg.json", "{\"hw\": \"x\"}");
	ib_buf_free(&c1);
	ib_buf_free(&c2);
	char p[6][256];
	const char *names[] = {"p.csv", "d.csv", "LOGS/power", "LOGS", "res.json", "agg.json"};
	for (int i = 0; i < 6; i++)
		snprintf(p[i], sizeof p[i], "%s/%s", dir, names[i]);
	pw_mn_source src[] = {{p[0], "n1", "prefill", 0}, {p[1], "n2", "decode", 0}};
	ib_buf log = {0};
	pw_mn_pack_opts o = {.power_dir = p[2],
	                     .logs_root = p[3],
	                     .bench_path = p[4],
	                     .src = src,
	                     .nsrc = 2,
	                     .producer_commit = "pin",
	                     .exporter = "test",
	                     .interval = 1,
	                     .log = join_log,
	                     .log_ud = &log};
	ib_error e = {0};
	bool valid = false;
	cr_assert_eq(pw_mn_pack(&o, &valid, &e), 0, "%s", e.msg);
	cr_assert(valid, "%s", log.data);
	cr_assert(strstr(log.data, "27 samples of 2 GPUs from 2 monitors (1 left out)"), "%s",
	          log.data);
	/* the validator of the reference's package takes it */
	pw_mn_opts v = {.power_dir = p[2],
	                .logs_root = p[3],
	                .bench_path = p[4],
	                .agg_path = p[5],
	                .prefill_gpus = 1,
	                .decode_gpus = 1,
	                .expected_producer_sha = "pin"};
	int status = 1;
	cr_assert_eq(pw_mn_run(&v, &status, &e), 0, "%s", e.msg);
	ib_arena *a = ib_arena_new();
	ib_val *agg;
	cr_assert_eq(ib_json_parse_file(a, p[5], &agg, &e), 0);
	cr_assert_eq(ib_map_get(agg, "power_valid")->i, 1);
	cr_assert_float_eq(ib_map_get(agg, "prefill_gpu_energy_j")->f, 1000.0, 1e-9);
	cr_assert_float_eq(ib_map_get(agg, "decode_gpu_energy_j")->f, 3000.0, 1e-9);
	cr_assert_float_eq(ib_map_get(agg, "avg_power_w")->f, 200.0, 1e-9);
	/* an aggregated deployment's package, checked as one: topology mismatch */
	v.aggregate_gpus = 2;
	cr_assert_eq(pw_mn_run(&v, &status, &e), 0);
	cr_assert_eq(ib_json_parse_file(a, p[5], &agg, &e), 0);
	cr_assert_eq(ib_map_get(agg, "power_valid")->i, 0);
	/* a monitor's CSV without a power column: the file and line named */
	char cmd0[300];
	put_text(dir, "p.csv", "timestamp, index\n1000, 0\n");
	cr_assert_eq(pw_mn_pack(&o, &valid, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "no power column"), "%s", e.msg);
	cr_assert_eq(e.line, 1);
	/* a result without its concurrency: nothing of the package is left */
	put_text(dir, "p.csv", "timestamp, index, power.draw [W]\n1000, 0, 5 W\n");
	put_text(dir, "res.json", "{\"duration\": 1}");
	snprintf(cmd0, sizeof cmd0, "rm -rf %s", p[2]);
	cr_assert_eq(system(cmd0), 0);
	cr_assert_eq(pw_mn_pack(&o, &valid, &e), IB_EINVAL);
	cr_assert(strstr(e.msg, "max_concurrency"), "%s", e.msg);
	snprintf(cmd0, sizeof cmd0, "%s/samples.csv", p[2]);
	cr_assert_neq(access(cmd0, F_OK), 0);
	ib_arena_free(a);
	ib_buf_free(&log);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

Test(multinode, simulated_board_power_rises_with_utilisation)
{
	cr_assert_float_eq(sim_board_power("mi355x", 0), 1400 * SIM_IDLE_POWER_FRAC, 1e-9);
	cr_assert_float_eq(sim_board_power("h100", 1), 700 * SIM_BUSY_POWER_FRAC, 1e-9);
	cr_assert_float_eq(sim_board_power("h100", 7), 700 * SIM_BUSY_POWER_FRAC, 1e-9);
	cr_assert(sim_board_power("b200", 0.5) > sim_board_power("b200", 0.25));
}

/* ---- the frontend's /metrics ---- */

Test(multinode, frontend_metrics_merge_sums_per_role)
{
	const char *a = "# HELP req Requests.\n# TYPE req counter\nreq{m=\"x}\"} 2\n"
	                "# TYPE lat histogram\nlat_bucket{le=\"1\"} 1\nlat_bucket{le=\"+Inf\"} 2\n"
	                "lat_sum 3.5\nlat_count 2\n# TYPE kv_usage_perc gauge\nkv_usage_perc 0.25\n"
	                "not a sample\n",
	           *b = "# TYPE req counter\r\nreq{m=\"x}\"} 3\r\n# TYPE kv_usage_perc gauge\n"
	                "kv_usage_perc 0.75\nlat_count 5\nrunning 4\n",
	           *c = "req{m=\"x}\"} 10\n";
	const char *bodies[] = {a, b, c}, *roles[] = {"decode", "decode", "prefill"};
	size_t lens[] = {strlen(a), strlen(b), strlen(c)};
	ib_buf out = {0};
	cr_assert_eq(cl_fe_merge_metrics(bodies, lens, roles, 3, &out), 0);
	cr_assert_str_eq(out.data, "# HELP req Requests.\n"
	                           "# TYPE req counter\n"
	                           "req{m=\"x}\",infbench_role=\"decode\"} 5\n"
	                           "req{m=\"x}\",infbench_role=\"prefill\"} 10\n"
	                           "# TYPE lat histogram\n"
	                           "lat_bucket{le=\"1\",infbench_role=\"decode\"} 1\n"
	                           "lat_bucket{le=\"+Inf\",infbench_role=\"decode\"} 2\n"
	                           "lat_sum{infbench_role=\"decode\"} 3.5\n"
	                           "lat_count{infbench_role=\"decode\"} 7\n"
	                           "# TYPE kv_usage_perc gauge\n"
	                           "kv_usage_perc{infbench_role=\"decode\"} 0.5\n"
	                           "running{infbench_role=\"decode\"} 4\n");
	ib_buf_free(&out);
}
