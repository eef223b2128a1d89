/* infbench sim: the engine simulator (docs/sim.md). */
#include "bench/bench.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/sim_common.h"
#include "sim/sim.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define N(a) (sizeof(a) / sizeof(a)[0])

static const char *const prec_choices[] = {"bf16", "fp8", "fp4", "int4", NULL};
static const char *const kv_choices[] = {"auto", "bf16", "fp8", NULL};
static const char *const spec_choices[] = {"none", "mtp", "eagle3", NULL};
static const char *const role_choices[] = {"prefill", "decode", NULL};

static bool num_opt(arg_parser *p, const char *name, double *out, double lo, double hi, int *rc)
{
	arg_opt *o = args_get(p, name);
	if (!o->seen)
		return false;
	char *end;
	double v = strtod(o->vals[0], &end);
	if (*end || end == o->vals[0] || !(v >= lo && v <= hi)) {
		*rc = args_error(p, NULL, "argument %s: expected a number in [%g, %g], got '%s'",
		                 name, lo, hi, o->vals[0]);
		return false;
	}
	*out = v;
	return true;
}

static bool int_opt(arg_parser *p, const char *name, int *out, int lo, int *rc)
{
	arg_opt *o = args_get(p, name);
	if (!o->seen)
		return false;
	if (o->ivals[0] < lo || o->ivals[0] > 1000000000) {
		*rc = args_error(p, NULL, "argument %s: must be >= %d", name, lo);
		return false;
	}
	*out = (int)o->ivals[0];
	return true;
}

/* A parallelism or worker count (--tp, --replicas, --prefill-workers, ...):
 * lo..hi, so that the GPUs of a whole configuration (sim_config_gpus: TP x
 * PP x replicas + the prefill pool's) stay far inside an int. */
static void shape_opt(arg_parser *p, const char *name, int *out, int hi, int *rc)
{
	arg_opt *o = args_get(p, name);
	if (!o->seen || *rc)
		return;
	if (o->ivals[0] < 1 || o->ivals[0] > hi) {
		*rc = args_error(p, NULL, "argument %s: must be 1..%d", name, hi);
		return;
	}
	*out = (int)o->ivals[0];
}

/* The acceptance length for k drafts from a golden AL file: model key ->
 * mode -> {k: AL}. key/mode NULL: the first one. */
static int al_from_file(const char *path, const char *key, const char *mode, int k, double *out,
                        ib_error *e)
{
	ib_arena *a = ib_arena_new();
	ib_val *doc;
	int rc = ib_yaml_load_file(a, path, &doc, e);
	if (rc)
		goto done;
	rc = IB_EINVAL;
	if (doc->type != IB_V_MAP || !doc->map.n) {
		ib_fail(e, rc, path, doc->line, doc->col,
		        "an acceptance-length file maps model keys to modes");
		goto done;
	}
	const ib_val *m = key ? ib_map_get(doc, key) : doc->map.kv[0].val;
	if (!m || m->type != IB_V_MAP || !m->map.n) {
		ib_fail(e, rc, path, 0, 0, "model key '%s' not found", key ? key : "?");
		goto done;
	}
	const ib_val *t = mode ? ib_map_get(m, mode) : m->map.kv[0].val;
	if (!t || t->type != IB_V_MAP) {
		ib_fail(e, rc, path, m->line, m->col,
		        "mode '%s' not found (thinking_on, thinking_off)", mode ? mode : "?");
		goto done;
	}
	for (size_t i = 0; i < t->map.n; i++) {
		const ib_val *kk = t->map.kv[i].key, *v = t->map.kv[i].val;
		if (kk->type == IB_V_INT && kk->i == k &&
		    (v->type == IB_V_FLOAT || v->type == IB_V_INT)) {
			*out = v->type == IB_V_FLOAT ? v->f : (double)v->i;
			rc = 0;
			goto done;
		}
	}
	ib_fail(e, rc, path, t->line, t->col, "no acceptance length for num_speculative_tokens=%d",
	        k);
done:
	ib_arena_free(a);
	return rc;
}

static const arg_opt flags[] = {
    CLI_SERVE_OPTS,
    {.name = "--served-model-name",
     .kind = ARG_ONE,
     .metavar = "NAME",
     .help = "model name in the API (default: the model profile's)"},
    {.name = "--lora-modules",
     .kind = ARG_MANY,
     .metavar = "NAME[=PATH]",
     .help = "LoRA adapters also served under NAME (as vLLM; PATH unused)"},
    {.name = "--hardware", .kind = ARG_ONE, .metavar = "GPU", .help = "GPU profile (default h100)"},
    {.name = "--model",
     .kind = ARG_ONE,
     .metavar = "NAME",
     .help = "model profile (default llama3-8b)"},
    {.name = "--profile",
     .kind = ARG_ONE,
     .metavar = "FILE",
     .help = "YAML overriding hardware/model fields"},
    {.name = "--framework",
     .kind = ARG_ONE,
     .metavar = "NAME",
     .help = "serving framework modelled: vllm, sglang, trt, atom, ... (default vllm)"},
    {.name = "--framework-version",
     .kind = ARG_ONE,
     .metavar = "TAG",
     .help = "its image tag or date, for calibration rules that match one"},
    {.name = "--calibration",
     .kind = ARG_ONE,
     .metavar = "FILE",
     .help = "efficiency/overhead rules (default: configs/sim/calibration.yaml)"},
    {.name = "--intervals",
     .kind = ARG_ONE,
     .metavar = "FILE",
     .help = "prediction-interval table announced in X-Infbench-Sim-Interval (default: "
             "intervals.yaml beside the calibration file, when there is one)"},
    {.name = "--precision",
     .kind = ARG_ONE,
     .choices = prec_choices,
     .metavar = "P",
     .help = "weights and compute: bf16, fp8, fp4, int4 (W4A16) (default bf16)"},
    {.name = "--kv-cache-dtype",
     .kind = ARG_ONE,
     .choices = kv_choices,
     .metavar = "T",
     .help = "auto (bf16), bf16 or fp8"},
    {.name = "--tp",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "tensor parallel size (default 1)"},
    {.name = "--ep",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "expert parallel ranks (default 1: experts sharded by TP)"},
    {.name = "--dp-attention",
     .kind = ARG_FLAG,
     .help = "data-parallel attention: each TP rank its own batch and KV"},
    {.name = "--pp",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "pipeline stages (default 1)"},
    {.name = "--replicas",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "identical instances behind the endpoint: the decode workers when disaggregated "
             "(default 1)"},
    {.name = "--prefill-workers",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help =
         "disaggregated: N prefill workers; this configuration decodes (default 0: aggregated)"},
    {.name = "--prefill-tp",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "a prefill worker's TP (default --tp)"},
    {.name = "--prefill-ep",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "a prefill worker's EP (default --ep)"},
    {.name = "--prefill-dp-attention",
     .kind = ARG_FLAG,
     .help = "prefill workers use DP attention"},
    {.name = "--role",
     .kind = ARG_ONE,
     .choices = role_choices,
     .metavar = "ROLE",
     .help = "serve one role of the disaggregated deployment in this process: prefill (its "
             "--replicas prefill workers; every answer is the first token) or decode (requests "
             "arrive prefilled: first token, KV transfer, decoding); a multi-node row's srun "
             "steps, behind `infbench sim frontend`"},
    {.name = "--max-num-seqs",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "running sequences at most (default 256)"},
    {.name = "--max-num-batched-tokens",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "token budget per step (default 8192)"},
    {.name = "--block-size",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "KV block size in tokens (default 16)"},
    {.name = "--gpu-memory-utilization",
     .kind = ARG_ONE,
     .metavar = "F",
     .help = "fraction of GPU memory used (default 0.9)"},
    {.name = "--max-model-len",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "reject longer requests (default: no limit)"},
    {.name = "--no-enable-prefix-caching",
     .kind = ARG_FLAG,
     .help = "no prefix cache: every prompt is computed in full"},
    {.name = "--kv-offload-gb",
     .kind = ARG_ONE,
     .metavar = "GB",
     .help = "host memory for KV blocks evicted from the GPU (default 0: no offload)"},
    {.name = "--spec-method",
     .kind = ARG_ONE,
     .choices = spec_choices,
     .metavar = "M",
     .help = "speculative decoding: none, mtp, eagle3"},
    {.name = "--num-spec-tokens",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "K",
     .help = "draft tokens per step"},
    {.name = "--acceptance-length",
     .kind = ARG_ONE,
     .metavar = "AL",
     .help = "mean tokens per step, bonus token included"},
    {.name = "--acceptance-file",
     .kind = ARG_ONE,
     .metavar = "FILE",
     .help = "golden AL YAML to take AL from"},
    {.name = "--acceptance-key",
     .kind = ARG_ONE,
     .metavar = "KEY",
     .help = "model key in that file (default: the first)"},
    {.name = "--thinking-mode",
     .kind = ARG_ONE,
     .metavar = "MODE",
     .help = "thinking_on or thinking_off (default: the first)"},
    {.name = "--draft-cost",
     .kind = ARG_ONE,
     .metavar = "F",
     .help = "a draft token's cost as a fraction of a step (default 0.05)"},
    {.name = "--mean-output-len",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "mean answer length without ignore_eos (default 512)"},
    {.name = "--time-scale",
     .kind = ARG_ONE,
     .metavar = "S",
     .help = "run the model S times faster than real time"},
    {.name = "--max-speed", .kind = ARG_FLAG, .help = "no model: stream as fast as clients read"},
    {.name = "--pace",
     .kind = ARG_ONE,
     .metavar = "TOK_S",
     .help = "no model: one step (a token per stream) every 1/TOK_S s, on a fixed grid"},
    {.name = "--trace",
     .kind = ARG_ONE,
     .metavar = "FILE",
     .help = "write when each streamed chunk left, a JSON line per request (at exit)"},
    {.name = "--log-requests",
     .kind = ARG_ONE,
     .metavar = "FILE",
     .help = "write every request as it arrived (method, path, body, the X-Dynamo-Session-ID "
             "header), a JSON line each (at exit)"},
    {.name = "--seed",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "seed of every random draw (default 1)"},
    {.name = "--fail-rate",
     .kind = ARG_ONE,
     .metavar = "P",
     .help = "answer this fraction of requests with HTTP 500"},
    {.name = "--drop-rate",
     .kind = ARG_ONE,
     .metavar = "P",
     .help = "close this fraction of streams midway"},
    {.name = "--stall-rate",
     .kind = ARG_ONE,
     .metavar = "P",
     .help = "pause this fraction of streams once"},
    {.name = "--stall-ms",
     .kind = ARG_ONE,
     .metavar = "MS",
     .help = "length of a pause (default 500)"},
    {.name = "--malformed-rate",
     .kind = ARG_ONE,
     .metavar = "P",
     .help = "send one broken SSE line in this fraction of streams"},
    {.name = "--tokenizer",
     .kind = ARG_ONE,
     .metavar = "DIR",
     .help = "exact prompt token counts, /tokenize and /detokenize"},
    CLI_TOK_CACHE_OPT,
    {.name = "--eval-dataset",
     .kind = ARG_ONE,
     .metavar = "DIR",
     .help = "grade evals: answer the gsm8k questions of DIR/test.jsonl"},
    {.name = "--eval-accuracy",
     .kind = ARG_ONE,
     .metavar = "P",
     .help = "fraction of those answered right, in [0, 1] (default 1)"},
    {.name = "--eval-seed",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "S",
     .help = "seed of the per-question verdicts (default 1)"},
    {.name = "--tls-cert",
     .kind = ARG_ONE,
     .metavar = "FILE",
     .help = "serve HTTPS with this PEM certificate (with --tls-key)"},
    {.name = "--header-timeout",
     .kind = ARG_ONE,
     .metavar = "SECONDS",
     .help = "close a connection that has not sent a whole request within this long (default 60; "
             "0: never)"},
    {.name = "--send-threads",
     .kind = ARG_ONE,
     .is_int = true,
     .metavar = "N",
     .help = "write the streams' chunks with N threads beside the event loop's, each a slice of "
             "the connections (plain HTTP; default 0: the loop alone; docs/sim.md \"Real-time "
             "capacity\")"},
    {.name = "--tls-key",
     .kind = ARG_ONE,
     .metavar = "FILE",
     .help = "the certificate's PEM private key"},
    {.name = "--duration",
     .kind = ARG_ONE,
     .metavar = "SECONDS",
     .help = "stop after this long (default: until SIGINT/SIGTERM)"},
    {.name = "--gpu-metrics",
     .kind = ARG_ONE,
     .metavar = "FILE",
     .help = "write SIMULATED GPU telemetry there while serving: the GPU monitor's CSV "
             "(timestamp, index, power.draw [W], utilization.gpu [%], simulated), one row per "
             "GPU per interval, power modelled from the engine's busy time (docs/sim.md)"},
    {.name = "--gpu-metrics-interval",
     .kind = ARG_ONE,
     .metavar = "SECONDS",
     .help = "seconds between --gpu-metrics samples (default 1, as the monitor's -l 1)"},
    {.name = "--help", .alias = "-h", .kind = ARG_FLAG, .help = "show this help and exit"},
};

/* What a run holds, released by release(). */
typedef struct {
	ib_arena *a;
	bench_tokenizer bt;
	ib_atomic trace, reqlog;
	sim_grader *grader;
	net_tls *tls;
	net_loop *loop;
	sim_server *srv;
	double duration;
	double gpu_interval; /* --gpu-metrics-interval */
	bool spec;
} sim_run;

/* an error from a library call: printed, exit status 1 */
static int fail(const char *ctx, const ib_error *e)
{
	cli_error("infbench sim", ctx, e);
	return CLI_FAIL;
}

/* where, which GPU and model, names: 0 or an exit status */
static int target_flags(arg_parser *p, sim_config *c, sim_run *r)
{
	arg_opt *o;
	ib_error e = {0};
	if ((o = args_get(p, "--host"))->seen)
		c->host = o->vals[0];
	if ((o = args_get(p, "--port"))->seen) {
		if (o->ivals[0] < 0 || o->ivals[0] > 65535)
			return args_error(p, NULL, "argument --port: must be 0..65535");
		c->port = (int)o->ivals[0];
	}
	for (int model = 0; model < 2; model++) {
		if (!(o = args_get(p, model ? "--model" : "--hardware"))->seen)
			continue;
		const sim_hw *hw = model ? NULL : sim_hw_find(o->vals[0]);
		const sim_model *m = model ? sim_model_find(o->vals[0]) : NULL;
		if (!hw && !m) {
			ib_buf names = {0};
			sim_profile_names(&names, model);
			int rc = args_error(p, NULL, "argument %s: unknown %s '%s' (known: %s)",
			                    o->name, model ? "model" : "GPU", o->vals[0],
			                    names.data ? names.data : "");
			ib_buf_free(&names);
			return rc;
		}
		if (hw)
			c->hw = *hw;
		else
			c->model = *m;
	}
	if ((o = args_get(p, "--profile"))->seen &&
	    sim_profile_load(o->vals[0], &c->hw, &c->model, r->a, &e))
		return fail(NULL, &e);
	c->served_model_name =
	    (o = args_get(p, "--served-model-name"))->seen ? o->vals[0] : c->model.name;
	if ((o = args_get(p, "--lora-modules"))->seen) {
		const char **names = ib_arena_alloc(r->a, o->nvals * sizeof *names);
		for (size_t i = 0; names && i < o->nvals; i++) {
			const char *v = o->vals[i], *eq = strchr(v, '=');
			names[i] = ib_arena_strndup(r->a, v, eq ? (size_t)(eq - v) : strlen(v));
			if (!names[i] || !names[i][0] || strpbrk(names[i], "\"\\"))
				return args_error(
				    p, NULL, "argument --lora-modules: bad adapter name in '%s'",
				    v);
		}
		c->lora = names;
		c->nlora = o->nvals;
	}
	if ((o = args_get(p, "--precision"))->seen)
		c->precision = o->vals[0];
	if ((o = args_get(p, "--kv-cache-dtype"))->seen)
		c->kv_bytes = !strcmp(o->vals[0], "fp8") ? 1 : 2;
	return 0;
}

/* the engine's numbers, pacing and faults: 0 or an exit status */
static int engine_flags(arg_parser *p, sim_config *c, sim_run *r)
{
	int rc = 0;
	shape_opt(p, "--tp", &c->tp, 1024, &rc);
	shape_opt(p, "--ep", &c->ep, 1024, &rc);
	shape_opt(p, "--pp", &c->pp, 64, &rc);
	shape_opt(p, "--replicas", &c->replicas, 1024, &rc);
	shape_opt(p, "--prefill-workers", &c->prefill_workers, 1024, &rc);
	shape_opt(p, "--prefill-tp", &c->prefill_tp, 1024, &rc);
	shape_opt(p, "--prefill-ep", &c->prefill_ep, 1024, &rc);
	c->prefill_dp_attn = args_get(p, "--prefill-dp-attention")->seen;
	c->dp_attn = args_get(p, "--dp-attention")->seen;
	int_opt(p, "--max-num-seqs", &c->max_num_seqs, 1, &rc);
	int_opt(p, "--max-num-batched-tokens", &c->max_num_batched_tokens, 1, &rc);
	int_opt(p, "--block-size", &c->block_size, 1, &rc);
	int_opt(p, "--max-model-len", &c->max_model_len, 1, &rc);
	int_opt(p, "--num-spec-tokens", &c->num_spec_tokens, 1, &rc);
	int_opt(p, "--mean-output-len", &c->mean_output_len, 1, &rc);
	num_opt(p, "--gpu-memory-utilization", &c->gpu_mem_util, 0.01, 1, &rc);
	num_opt(p, "--kv-offload-gb", &c->kv_offload_gb, 0, 1e7, &rc);
	c->no_prefix_cache = args_get(p, "--no-enable-prefix-caching")->seen;
	num_opt(p, "--time-scale", &c->time_scale, 1e-3, 1e9, &rc);
	num_opt(p, "--pace", &c->pace, 1e-3, 1e6, &rc);
	num_opt(p, "--fail-rate", &c->fail_rate, 0, 1, &rc);
	num_opt(p, "--drop-rate", &c->drop_rate, 0, 1, &rc);
	num_opt(p, "--stall-rate", &c->stall_rate, 0, 1, &rc);
	num_opt(p, "--stall-ms", &c->stall_ms, 0, 3.6e6, &rc);
	num_opt(p, "--malformed-rate", &c->malformed_rate, 0, 1, &rc);
	num_opt(p, "--duration", &r->duration, 0, 1e9, &rc);
	r->gpu_interval = 1;
	num_opt(p, "--gpu-metrics-interval", &r->gpu_interval, 0.01, 3600, &rc);
	num_opt(p, "--header-timeout", &c->header_timeout, 0, 1e6, &rc);
	int_opt(p, "--send-threads", &c->send_threads, 0, &rc);
	if (c->send_threads > 256)
		rc = args_error(p, NULL, "argument --send-threads: at most 256");
	if (rc)
		return rc;
	if (args_get(p, "--seed")->seen)
		c->seed = (uint64_t)args_get(p, "--seed")->ivals[0];
	c->max_speed = args_get(p, "--max-speed")->seen;
	if (!c->prefill_workers && (args_get(p, "--prefill-tp")->seen ||
	                            args_get(p, "--prefill-ep")->seen || c->prefill_dp_attn))
		return args_error(
		    p, NULL,
		    "--prefill-tp, --prefill-ep and --prefill-dp-attention need --prefill-workers");
	if (args_get(p, "--role")->seen)
		c->role = strcmp(args_get(p, "--role")->vals[0], "prefill") ? SIM_ROLE_DECODE
		                                                            : SIM_ROLE_PREFILL;
	if (c->role && !c->prefill_workers)
		return args_error(p, NULL,
		                  "--role needs the deployment it is part of: --prefill-workers "
		                  "(and --prefill-tp, --prefill-ep)");
	if (c->prefill_workers && (c->max_speed || c->pace > 0))
		return args_error(p, NULL,
		                  "--prefill-workers needs the model, not --max-speed or --pace");
	if (c->max_speed && c->pace > 0)
		return args_error(p, NULL, "--pace and --max-speed exclude each other");
	if (c->max_speed &&
	    (args_get(p, "--drop-rate")->seen || args_get(p, "--stall-rate")->seen ||
	     args_get(p, "--malformed-rate")->seen || args_get(p, "--time-scale")->seen))
		return args_error(
		    p, NULL,
		    "--drop-rate, --stall-rate, --malformed-rate and --time-scale act on "
		    "engine steps: they need the model or --pace, not --max-speed");
	if (c->max_speed && args_get(p, "--trace")->seen)
		return args_error(
		    p, NULL,
		    "--trace records steps: it needs the model or --pace, not --max-speed");
	return 0;
}

/* speculative decoding and its acceptance length: 0 or an exit status */
static int spec_flags(arg_parser *p, sim_config *c, sim_run *r)
{
	arg_opt *o;
	ib_error e = {0};
	int rc = 0;
	if ((o = args_get(p, "--spec-method"))->seen)
		c->spec_method = o->vals[0];
	r->spec = c->spec_method && strcmp(c->spec_method, "none");
	if (!r->spec && args_get(p, "--num-spec-tokens")->seen)
		return args_error(p, NULL, "--num-spec-tokens needs --spec-method mtp or eagle3");
	if (!r->spec)
		return 0;
	int k = c->num_spec_tokens;
	if (k <= 0)
		return args_error(p, NULL, "--spec-method %s needs --num-spec-tokens K",
		                  c->spec_method);
	if (num_opt(p, "--acceptance-length", &c->acceptance_length, 1, k + 1, &rc)) {
	} else if (rc) {
		return rc;
	} else if ((o = args_get(p, "--acceptance-file"))->seen) {
		arg_opt *key = args_get(p, "--acceptance-key"),
		        *mode = args_get(p, "--thinking-mode");
		if (al_from_file(o->vals[0], key->seen ? key->vals[0] : NULL,
		                 mode->seen ? mode->vals[0] : NULL, k, &c->acceptance_length, &e))
			return fail(NULL, &e);
	} else if (k <= 8 && c->model.default_al[k] > 0) {
		c->acceptance_length = c->model.default_al[k];
	} else { /* per-position acceptance 0.7, independent positions */
		c->acceptance_length = (1 - pow(0.7, k + 1)) / (1 - 0.7);
	}
	if (c->acceptance_length > k + 1)
		c->acceptance_length = k + 1;
	return 0;
}

/* The prediction interval c announces (docs/sim.md "Prediction
 * intervals"): from --intervals FILE, else intervals.yaml beside the
 * calibration file used (cal: its path, NULL: none); neither: none. Says
 * which on stderr; problems of the file with file:line. 0 or an exit
 * status. */
static int interval_flags(arg_parser *p, sim_config *c, sim_run *r, const char *cal)
{
	arg_opt *o = args_get(p, "--intervals");
	const char *path = o->seen ? o->vals[0] : NULL;
	if (!path && cal) {
		const char *slash = strrchr(cal, '/');
		path = ib_arena_printf(r->a, "%.*sintervals.yaml",
		                       slash ? (int)(slash - cal + 1) : 0, cal);
		if (path && access(path, R_OK))
			return CLI_OK; /* no table beside it */
	}
	if (!path)
		return CLI_OK;
	ib_diags d = {.a = r->a};
	ib_error e = {0};
	sim_iv_table t;
	sim_iv *iv = ib_arena_alloc(r->a, sizeof *iv);
	if (!iv || sim_iv_load(path, r->a, &t, &d, &e)) {
		cli_print_diags(&d);
		cli_error("infbench sim", "--intervals", &e);
		return CLI_FAIL;
	}
	if (sim_iv_lookup(&t, c->framework, c->hw.name, c->model.name, iv))
		return CLI_OK;
	c->interval = iv;
	fprintf(stderr,
	        "infbench sim: %.0f %% prediction interval (%s: pool %s, widened %d): tok/s/GPU "
	        "x%.2f..x%.2f, interactivity x%.2f..x%.2f\n",
	        iv->level * 100, path, iv->pool, iv->widen, iv->tput[0], iv->tput[1], iv->inter[0],
	        iv->inter[1]);
	return CLI_OK;
}

/* The calibration parameters for c's framework, GPU, precision, model and
 * spec method (spec_flags ran) from --calibration FILE or the default file
 * (sim_calib_find); without a file, the built-in defaults; then
 * --draft-cost, which wins over the file. Says which on stderr; problems
 * of the file are printed with file:line. 0 or an exit status. */
static int calib_flags(arg_parser *p, sim_config *c, sim_run *r)
{
	arg_opt *o;
	c->framework = (o = args_get(p, "--framework"))->seen ? o->vals[0] : "vllm";
	c->framework_version = (o = args_get(p, "--framework-version"))->seen ? o->vals[0] : NULL;
	o = args_get(p, "--calibration");
	sim_calib_file f;
	sim_calib cal;
	const char *used;
	if (cli_load_calibration("infbench sim", o->seen ? o->vals[0] : NULL, r->a, &f, &used))
		return CLI_FAIL;
	sim_calib_key k;
	sim_calib_key_for(f.n ? &f : NULL, c->framework, c->hw.name, c->precision, c->model.name,
	                  c->spec_method, c->framework_version, &k);
	sim_calib_resolve(f.n ? &f : NULL, &k, &cal);
	sim_calib_apply(&cal, c);
	int rc = 0;
	num_opt(p, "--draft-cost", &c->draft_cost, 0, 10, &rc);
	if (rc)
		return rc;
	char by[160] = "";
	if (strcasecmp(k.framework, c->framework) || strcasecmp(k.hardware, c->hw.name))
		snprintf(by, sizeof by, ", by the rules of %s on %s", k.framework, k.hardware);
	fprintf(stderr,
	        "infbench sim: calibration %s (%s on %s%s: mem-eff %g, compute-eff %g, step %g "
	        "us)\n",
	        used, c->framework, c->hw.name, by, c->mem_eff, c->compute_eff,
	        c->step_overhead_s * 1e6);
	return interval_flags(p, c, r, f.path);
}

/* grader, tokenizer, trace and request log, TLS: 0 or an exit status */
/* The server's notes for the operator, on stderr. */
static void note(void *arg, int stream, const char *line)
{
	(void)arg;
	(void)stream;
	fprintf(stderr, "infbench sim: %s\n", line);
}

static int attach(arg_parser *p, sim_config *c, sim_run *r)
{
	c->log = note;
	arg_opt *o;
	ib_error e = {0};
	int rc = 0;
	double eval_acc = 1;
	num_opt(p, "--eval-accuracy", &eval_acc, 0, 1, &rc);
	if (rc)
		return rc;
	if (!args_get(p, "--eval-dataset")->seen &&
	    (args_get(p, "--eval-accuracy")->seen || args_get(p, "--eval-seed")->seen))
		return args_error(p, NULL,
		                  "--eval-accuracy and --eval-seed need --eval-dataset DIR");
	if ((o = args_get(p, "--eval-dataset"))->seen) {
		arg_opt *es = args_get(p, "--eval-seed");
		if (sim_grader_load(o->vals[0], eval_acc, es->seen ? (uint64_t)es->ivals[0] : 1,
		                    &r->grader, &e))
			return fail("--eval-dataset", &e);
		c->grader = r->grader;
	}
	o = args_get(p, "--tok-cache");
	if ((rc = cli_tok_cache(p->prog, o->seen ? o->vals[0] : NULL)))
		return rc;
	if ((o = args_get(p, "--tokenizer"))->seen) {
		if (bench_tokenizer_open(&r->bt, o->vals[0], false, false, &e)) {
			char ctx[4200];
			snprintf(ctx, sizeof ctx, "tokenizer '%s'", o->vals[0]);
			return fail(ctx, &e);
		}
		c->tokenizer = r->bt.tok;
		/* the chat template, when the tokenizer has one */
		bench_tokenizer chat_bt;
		ib_error ce = {0};
		if (bench_tokenizer_open(&chat_bt, o->vals[0], true, false, &ce) == 0) {
			bench_tokenizer_close(&r->bt);
			r->bt = chat_bt;
			c->tokenizer = r->bt.tok;
			c->chat_template = r->bt.tmpl;
			c->chat_special = r->bt.special;
		}
	}
	if ((o = args_get(p, "--trace"))->seen) {
		if (ib_atomic_open(&r->trace, o->vals[0], &e))
			return fail("--trace", &e);
		c->trace = r->trace.f;
	}
	if ((o = args_get(p, "--log-requests"))->seen) {
		if (ib_atomic_open(&r->reqlog, o->vals[0], &e))
			return fail("--log-requests", &e);
		c->request_log = r->reqlog.f;
	}
	arg_opt *cert = args_get(p, "--tls-cert"), *key = args_get(p, "--tls-key");
	if (cert->seen != key->seen)
		return args_error(p, NULL, "--tls-cert and --tls-key go together");
	if (cert->seen && net_tls_server_new(cert->vals[0], key->vals[0], &r->tls, &e))
		return fail(NULL, &e);
	c->tls = r->tls;
	return 0;
}

/* listens, announces, runs until a signal or --duration, writes the
 * trace and the request log: the exit status */
static int serve(arg_parser *p, sim_config *c, sim_run *r)
{
	/* SIGINT and SIGTERM arrive through a signalfd on the loop: blocked
	 * before the server starts its threads (the tokenizer's), which inherit
	 * the mask, so that no thread takes the default action and the logs are
	 * still committed */
	cli_serve_block_signals();
	ib_error e = {0};
	arg_opt *o;
	net_raise_fd_limit(); /* thousands of concurrent streams */
	if (net_loop_new(&r->loop, &e) || sim_server_new(r->loop, c, &r->srv, &e))
		return fail(NULL, &e);
	if ((o = args_get(p, "--port-file"))->seen) {
		char port[32];
		int n = snprintf(port, sizeof port, "%d\n", sim_server_port(r->srv));
		if (ib_write_file_atomic(o->vals[0], port, (size_t)n, &e))
			return fail(NULL, &e);
	}
	fprintf(stderr, "infbench sim: listening on %s://%s:%d  model %s (%s), %s x%d%s%s\n",
	        r->tls ? "https" : "http", c->host, sim_server_port(r->srv), c->served_model_name,
	        c->precision, c->hw.name, c->tp,
	        c->max_speed  ? ", max speed"
	        : c->pace > 0 ? ", paced"
	                      : "",
	        r->spec ? ", speculative decoding" : "");
	if (r->grader)
		fprintf(stderr, "infbench sim: grading %zu questions, accuracy %g, seed %llu\n",
		        sim_grader_count(r->grader), sim_grader_accuracy(r->grader),
		        (unsigned long long)sim_grader_seed(r->grader));
	if (r->spec)
		fprintf(stderr, "infbench sim: %s with %d draft tokens, acceptance length %.2f\n",
		        c->spec_method, c->num_spec_tokens, c->acceptance_length);
	sim_telemetry *gm = NULL;
	if ((o = args_get(p, "--gpu-metrics"))->seen &&
	    sim_telemetry_start(r->srv, o->vals[0], r->gpu_interval, &gm, &e))
		return fail("--gpu-metrics", &e);
	if (gm)
		fprintf(
		    stderr,
		    "infbench sim: simulated GPU telemetry (no GPU measured) every %g s to %s\n",
		    r->gpu_interval, o->vals[0]);
	int status = cli_serve_loop(r->loop, r->duration) ? 1 : 0;
	if (sim_telemetry_stop(gm, &e))
		status = fail("--gpu-metrics", &e);
	int log_err = sim_server_log_error(r->srv);
	sim_server_free(r->srv); /* streams still open are not traced */
	r->srv = NULL;
	if (r->trace.f && ib_atomic_commit(&r->trace, &e))
		status = fail("--trace", &e);
	if (r->reqlog.f && log_err) { /* a line is missing: no short log */
		ib_fail_unwritten(&e, log_err, r->reqlog.path);
		ib_atomic_abort(&r->reqlog);
		status = fail("--log-requests", &e);
	} else if (r->reqlog.f && ib_atomic_commit(&r->reqlog, &e)) {
		status = fail("--log-requests", &e);
	}
	return status;
}

int cmd_sim(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "validate"))
		return cmd_sim_validate(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "calibrate"))
		return cmd_sim_calibrate(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "frontend"))
		return cmd_sim_frontend(argc - 1, argv + 1);
	arg_opt opts[N(flags)];
	memcpy(opts, flags, sizeof flags);
	arg_parser p = {
	    .prog = "infbench sim",
	    .top = "infbench sim",
	    .desc =
	        "An OpenAI-compatible server (/v1/completions, /v1/chat/completions, /v1/models,\n"
	        "/health, /metrics) over a continuous-batching performance model of a model on a "
	        "GPU.",
	    .epilog =
	        "Profiles: see docs/sim.md. Subcommands: infbench sim validate, sim calibrate, "
	        "sim frontend (each with --help).",
	    .opts = opts,
	    .nopts = N(opts),
	};
	int rc = args_parse(&p, argc - 1, argv + 1, NULL, 0);
	if (rc) {
		args_free(&p);
		return rc == 1 ? CLI_OK : rc;
	}
	sim_config c;
	sim_config_init(&c);
	sim_run r = {.a = ib_arena_new()};
	if (!r.a)
		rc = 1;
	if (!rc)
		rc = target_flags(&p, &c, &r);
	if (!rc)
		rc = engine_flags(&p, &c, &r);
	if (!rc)
		rc = spec_flags(&p, &c, &r);
	if (!rc)
		rc = calib_flags(&p, &c, &r);
	if (!rc)
		rc = attach(&p, &c, &r);
	if (!rc)
		rc = serve(&p, &c, &r);
	sim_server_free(r.srv);
	ib_atomic_abort(&r.trace); /* nothing left after a commit */
	ib_atomic_abort(&r.reqlog);
	bench_tokenizer_close(&r.bt);
	sim_grader_free(r.grader);
	net_loop_free(r.loop);
	net_tls_free(r.tls);
	ib_arena_free(r.a);
	args_free(&p);
	return rc;
}
