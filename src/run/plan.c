/* Planning a matrix row: selection, the §3.4 environment, the §3.5
 * RESULT_FILENAME, what the simulator can model, recipe resolution. */
#include "run/private.h"
#include "sim/sim.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *run_state_name(int s)
{
	static const char *const names[] = {"pending", "running", "done",
	                                    "failed",  "skipped", "interrupted"};
	return s >= 0 && s <= RUN_INTERRUPTED ? names[s] : "?";
}

/* A row field as the workflow passes it to the environment: booleans as
 * GitHub writes them (true/false), numbers and strings as they are. */
void run_field(ib_buf *b, const ib_val *row, const char *key, const char *dflt)
{
	const ib_val *v = ib_map_get(row, key);
	if (!v || v->type == IB_V_NULL) {
		ib_buf_puts(b, dflt);
		return;
	}
	if (v->type == IB_V_BOOL)
		ib_buf_puts(b, v->b ? "true" : "false");
	else
		ib_val_pystr(b, v);
}

const char *run_fieldz(ib_arena *a, const ib_val *row, const char *key, const char *dflt)
{
	ib_buf b = {0};
	run_field(&b, row, key, dflt);
	char *s = ib_arena_strdup(a, b.data ? b.data : "");
	ib_buf_free(&b);
	return s;
}

static int64_t field_int(const ib_val *row, const char *key, int64_t dflt)
{
	const ib_val *v = ib_map_get(row, key);
	if (v && v->type == IB_V_INT)
		return v->i;
	if (v && v->type == IB_V_STR) {
		int64_t x;
		if (ib_py_int(v->str.s, v->str.len, &x))
			return x;
	}
	return dflt;
}

int64_t run_gpu_count(const ib_val *row)
{
	return field_int(row, "tp", 1) * field_int(row, "pp", 1) * field_int(row, "pcp-size", 1);
}

bool run_row_is_spec(const ib_val *row)
{
	const ib_val *v = ib_map_get(row, "spec-decoding");
	return v && v->type == IB_V_STR && strcmp(v->str.s, "none") != 0 && v->str.len;
}

bool run_row_flag(const ib_val *row, const char *key)
{
	const ib_val *v = ib_map_get(row, key);
	return v &&
	       ((v->type == IB_V_BOOL && v->b) ||
	        (v->type == IB_V_STR && (!strcmp(v->str.s, "true") || !strcmp(v->str.s, "True"))));
}

static int int_of(int64_t x)
{
	return x > INT_MAX ? INT_MAX : x < INT_MIN ? INT_MIN : (int)x;
}

/* One worker's shape for the simulator (docs/run.md, the sim engine):
 * prefill context parallelism spreads a worker over tp x pcp-size GPUs
 * (SGLang's --tp-size with --attn-cp-size: weights over all of them, each
 * prompt's attention split across them), served as that TP; DP attention
 * with EP wider than a TP > 1 (vLLM's TP x DP with expert parallelism over
 * all: ep / tp data-parallel groups of TP tp) is served as ep / tp replicas
 * of TP tp, attention TP-sharded in each, the experts over all ep GPUs. */
static void worker_shape(const ib_val *p, int *tp, int *ep, bool *dpa, int *workers)
{
	int64_t t = field_int(p, "tp", 1), pcp = field_int(p, "pcp-size", 1),
	        e = field_int(p, "ep", 1);
	if (pcp > 1 && t > 0 && t <= INT_MAX / pcp)
		t *= pcp;
	*tp = int_of(t);
	*ep = int_of(e);
	*dpa = run_row_flag(p, "dp-attn");
	if (*dpa && t > 1 && e > t && e % t == 0) {
		*dpa = false;
		if (*workers < e / t)
			*workers = int_of(e / t);
	}
}

void run_sim_shape_of(ib_arena *a, const ib_val *row, run_sim_shape *s)
{
	const ib_val *fw = ib_map_get(row, "framework"), *img = ib_map_get(row, "image");
	const char *f = fw && fw->type == IB_V_STR ? fw->str.s : "vllm";
	const char *key = sim_framework_key(f);
	s->framework = key ? key : f;
	s->version = a && img && img->type == IB_V_STR && strchr(img->str.s, ':')
	                 ? sim_version_of(a, strchr(img->str.s, ':') + 1)
	                 : NULL;
	const ib_val *pre = ib_map_get(row, "prefill"), *dec = ib_map_get(row, "decode");
	bool pools = pre && dec && pre->type == IB_V_MAP && dec->type == IB_V_MAP;
	/* the decode worker of a disaggregated row; with no decode workers
	 * (multi-node aggregated rows) the prefill workers serve it all */
	bool agg = pools && field_int(dec, "num-worker", 1) == 0;
	const ib_val *inst = agg ? pre : pools ? dec : row;
	s->decode_workers = inst == row ? 1 : int_of(field_int(inst, "num-worker", 1));
	worker_shape(inst, &s->tp, &s->ep, &s->dp_attn, &s->decode_workers);
	s->pp = int_of(field_int(inst, "pp", 1));
	pools = pools && !agg;
	s->prefill_workers = s->prefill_tp = s->prefill_ep = 0;
	s->prefill_dp_attn = false;
	if (pools) {
		s->prefill_workers = int_of(field_int(pre, "num-worker", 1));
		worker_shape(pre, &s->prefill_tp, &s->prefill_ep, &s->prefill_dp_attn,
		             &s->prefill_workers);
	}
	const ib_val *pr = ib_map_get(row, "precision");
	s->fp8_kv = !(pr && pr->type == IB_V_STR && !strcmp(pr->str.s, "bf16"));
}

static const char *scenario(const ib_val *row)
{
	const ib_val *v = ib_map_get(row, "scenario-type");
	return v && v->type == IB_V_STR ? v->str.s : "fixed-seq-len";
}

bool run_row_agentic(const ib_val *row)
{
	return !strcmp(scenario(row), "agentic-coding");
}

int run_result_filename(ib_buf *b, const ib_val *row, const char *rn)
{
	size_t l0 = b->len;
	run_field(b, row, "exp-name", "");
	ib_buf_putc(b, '_');
	run_field(b, row, "precision", "");
	ib_buf_putc(b, '_');
	run_field(b, row, "framework", "");
	ib_buf_puts(b, "_tp");
	run_field(b, row, "tp", "");
	ib_buf_puts(b, "-pp");
	run_field(b, row, "pp", "1");
	ib_buf_puts(b, "-dcp");
	run_field(b, row, "dcp-size", "1");
	ib_buf_puts(b, "-pcp");
	run_field(b, row, "pcp-size", "1");
	ib_buf_puts(b, "-ep");
	run_field(b, row, "ep", "1");
	ib_buf_puts(b, "-dpa");
	run_field(b, row, "dp-attn", "false");
	ib_buf_puts(b, "_disagg-");
	run_field(b, row, "disagg", "false");
	ib_buf_puts(b, "_spec-");
	run_field(b, row, "spec-decoding", "none");
	ib_buf_puts(b, "_conc");
	run_field(b, row, "conc", "");
	ib_buf_putc(b, '_');
	ib_buf_puts(b, rn);
	const ib_val *fp = ib_map_get(row, "recipe-fingerprint");
	if (fp && fp->type == IB_V_STR && fp->str.len)
		ib_buf_printf(b, "_recipe-%.16s", fp->str.s);
	if (!b->data || b->len == l0)
		return IB_ENOMEM;
	return 0;
}

static void env_kv(ib_buf *b, const char *k, const char *v)
{
	ib_buf_printf(b, "%s=%s\n", k, v);
}

static void env_field(ib_buf *b, const char *k, const ib_val *row, const char *key,
                      const char *dflt)
{
	ib_buf_printf(b, "%s=", k);
	run_field(b, row, key, dflt);
	ib_buf_putc(b, '\n');
}

int run_row_env(ib_buf *b, const ib_val *row, const char *rn, const char *rf, int port)
{
	bool agentic = run_row_agentic(row);
	/* agentic jobs get isl, osl and max-model-len '0' (run-sweep.yml) */
	const char *zero = agentic ? "0" : "";
	const char *hf = getenv("HF_HUB_CACHE");
	env_kv(b, "RANDOM_RANGE_RATIO", "0.8");
	if (hf && *hf)
		env_kv(b, "HF_HUB_CACHE", hf);
	else {
		const char *home = getenv("HOME");
		ib_buf_printf(b, "HF_HUB_CACHE=%s/.cache/huggingface/hub\n", home ? home : "");
	}
	env_field(b, "EXP_NAME", row, "exp-name", "");
	env_field(b, "RECIPE_FINGERPRINT", row, "recipe-fingerprint", "");
	env_field(b, "MODEL", row, "model", "");
	env_field(b, "MODEL_PREFIX", row, "model-prefix", "");
	env_field(b, "ISL", row, "isl", zero);
	env_field(b, "OSL", row, "osl", zero);
	env_field(b, "MAX_MODEL_LEN", row, "max-model-len", zero);
	env_field(b, "IMAGE", row, "image", "");
	env_field(b, "FRAMEWORK", row, "framework", "");
	env_field(b, "PRECISION", row, "precision", "");
	env_field(b, "TP", row, "tp", "");
	env_field(b, "PP_SIZE", row, "pp", "1");
	env_field(b, "DCP_SIZE", row, "dcp-size", "1");
	env_field(b, "PCP_SIZE", row, "pcp-size", "1");
	env_field(b, "EP_SIZE", row, "ep", "1");
	env_field(b, "DP_ATTENTION", row, "dp-attn", "false");
	env_field(b, "CONC", row, "conc", "");
	env_field(b, "SPEC_DECODING", row, "spec-decoding", "none");
	env_field(b, "DISAGG", row, "disagg", "false");
	env_field(b, "RUN_EVAL", row, "run-eval", "false");
	env_field(b, "EVAL_ONLY", row, "eval-only", "false");
	env_kv(b, "SCENARIO_TYPE", scenario(row));
	env_kv(b, "SCENARIO_SUBDIR", agentic ? "agentic/" : "fixed_seq_len/");
	env_kv(b, "IS_AGENTIC", agentic ? "1" : "0");
	env_kv(b, "REQUIRE_POWER", "0");
	env_kv(b, "RUNNER_NAME", rn ? rn : "");
	env_field(b, "RUNNER_TYPE", row, "runner", "");
	env_kv(b, "RESULT_FILENAME", rf);
	ib_buf_printf(b, "GPU_COUNT=%lld\n", (long long)run_gpu_count(row));
	ib_buf_printf(b, "PORT=%d\n", port);
	/* the multi-node template's variables (benchmark-multinode-tmpl.yml),
	 * which result processing reads for the prefill/decode fields */
	const ib_val *pre = ib_map_get(row, "prefill"), *dec = ib_map_get(row, "decode");
	if (pre && dec && pre->type == IB_V_MAP && dec->type == IB_V_MAP) {
		env_kv(b, "IS_MULTINODE", "true");
		const char *side[] = {"PREFILL", "DECODE"};
		const ib_val *pool[] = {pre, dec};
		for (int i = 0; i < 2; i++) {
			int64_t nw = field_int(pool[i], "num-worker", 1);
			int64_t g = nw * field_int(pool[i], "tp", 1) * field_int(pool[i], "pp", 1) *
			            field_int(pool[i], "pcp-size", 1);
			ib_buf_printf(b, "%s_GPUS=%lld\n%s_NUM_WORKERS=%lld\n", side[i],
			              (long long)g, side[i], (long long)nw);
			char k[64];
			static const char *const f[][2] = {{"TP", "tp"},
			                                   {"EP", "ep"},
			                                   {"DP_ATTN", "dp-attn"},
			                                   {"PP_SIZE", "pp"},
			                                   {"DCP_SIZE", "dcp-size"},
			                                   {"PCP_SIZE", "pcp-size"}};
			for (size_t j = 0; j < sizeof f / sizeof *f; j++) {
				snprintf(k, sizeof k, "%s_%s", side[i], f[j][0]);
				env_field(b, k, pool[i], f[j][1], j == 2 ? "false" : "1");
			}
		}
		env_field(b, "KV_P2P_TRANSFER", row, "kv-p2p-transfer", "");
	}
	return b->data ? 0 : IB_ENOMEM;
}

/* The simulator's GPU profile for a runner label, or NULL: the label
 * without the "cluster:" prefix of runners.yaml's cluster pools (as the
 * reference's normalize_hardware_label), then up to its first '-'
 * ("mi355x", "h200-cw" → h200, "cluster:b300-nv" → b300). */
static const char *sim_hw_of(const char *label, char *tmp, size_t cap)
{
	if (!strncmp(label, "cluster:", 8))
		label += 8;
	if (sim_hw_find(label))
		return sim_hw_find(label)->name;
	snprintf(tmp, cap, "%s", label);
	char *dash = strchr(tmp, '-');
	if (dash)
		*dash = 0;
	return sim_hw_find(tmp) ? sim_hw_find(tmp)->name : NULL;
}

const char *run_sim_unmodelable(const ib_val *row, const char **model, const char **hw)
{
	static _Thread_local char why[2600];
	char tmp[128];
	const ib_val *v;
	/* an agentic-coding row goes through the same checks (model, GPU,
	 * precision, pools, memory): the simulator serves it (chat requests,
	 * prefix cache, the row's KV offload), the AgentX replay drives it */
	bool agentic = run_row_agentic(row);
	if (strcmp(scenario(row), "fixed-seq-len") != 0 && !agentic) {
		snprintf(why, sizeof why,
		         "scenario '%s' is not modelled by the simulator (fixed-seq-len only)",
		         scenario(row));
		return why;
	}
	const ib_val *pre = ib_map_get(row, "prefill"), *dec = ib_map_get(row, "decode");
	bool pools = pre && dec && pre->type == IB_V_MAP && dec->type == IB_V_MAP;
	if ((v = ib_map_get(row, "disagg")) && ib_val_truthy(v) &&
	    !(v->type == IB_V_STR && !strcmp(v->str.s, "false")) && !pools)
		return "a disaggregated row without its 'prefill' and 'decode' pools";
	if (!pools && (pre || dec))
		return "a multi-node row needs both 'prefill' and 'decode' pools (mappings)";
	const ib_val *mp = ib_map_get(row, "model-prefix");
	const sim_model *m = mp && mp->type == IB_V_STR ? sim_model_find(mp->str.s) : NULL;
	if (!m) {
		ib_buf names = {0};
		sim_profile_names(&names, true);
		snprintf(
		    why, sizeof why, "no simulator model profile for model-prefix '%s' (known: %s)",
		    mp && mp->type == IB_V_STR ? mp->str.s : "?", names.data ? names.data : "");
		ib_buf_free(&names);
		return why;
	}
	const ib_val *rl = ib_map_get(row, "runner");
	const char *h = rl && rl->type == IB_V_STR ? sim_hw_of(rl->str.s, tmp, sizeof tmp) : NULL;
	if (!h) {
		ib_buf names = {0};
		sim_profile_names(&names, false);
		snprintf(why, sizeof why, "no simulator GPU profile for runner '%s' (known: %s)",
		         rl && rl->type == IB_V_STR ? rl->str.s : "?",
		         names.data ? names.data : "");
		ib_buf_free(&names);
		return why;
	}
	const ib_val *pr = ib_map_get(row, "precision");
	const char *p = pr && pr->type == IB_V_STR ? pr->str.s : "?";
	if (strcmp(p, "bf16") && strcmp(p, "fp8") && strcmp(p, "fp4") && strcmp(p, "int4")) {
		snprintf(why, sizeof why,
		         "precision '%s' is not modelled by the simulator (bf16, fp8, fp4, int4)",
		         p);
		return why;
	}
	sim_config c;
	sim_config_init(&c);
	c.hw = *sim_hw_find(h);
	c.model = *m;
	c.precision = p;
	run_sim_shape sh;
	run_sim_shape_of(NULL, row, &sh);
	c.tp = sh.tp;
	c.ep = sh.ep;
	c.pp = sh.pp;
	c.dp_attn = sh.dp_attn;
	c.kv_bytes = sh.fp8_kv ? 1 : 2;
	c.prefill_workers = sh.prefill_workers;
	c.prefill_tp = sh.prefill_tp;
	c.prefill_ep = sh.prefill_ep;
	c.prefill_dp_attn = sh.prefill_dp_attn;
	c.replicas = sh.decode_workers;
	if (c.tp < 1 || c.ep < 1 || c.pp < 1) {
		snprintf(why, sizeof why, "tp %d, ep %d, pp %d: not GPU counts", c.tp, c.ep, c.pp);
		return why;
	}
	pools = sh.prefill_workers > 0;
	if (pools && (c.prefill_tp < 1 || c.prefill_ep < 1))
		return "the prefill pool needs tp and ep of at least 1";
	if (c.replicas < 1)
		return "no workers: the prefill and decode pools both have num-worker 0";
	sim_capacity cap;
	ib_error e = {0};
	if (sim_capacity_of(&c, &cap, &e)) {
		snprintf(why, sizeof why, "%s%s", pools ? "the decode workers: " : "", e.msg);
		return why;
	}
	if (pools) {
		sim_config pc;
		sim_prefill_config(&c, &pc);
		if (sim_capacity_of(&pc, &cap, &e)) {
			snprintf(why, sizeof why, "the prefill workers: %s", e.msg);
			return why;
		}
	}
	if (model)
		*model = m->name;
	if (hw)
		*hw = c.hw.name;
	return NULL;
}

/* ---- selection ---- */

bool run_range(const char **s, long *a, long *b)
{
	char *end;
	*a = *b = strtol(*s, &end, 10);
	if (end == *s || *a < 0)
		return false;
	*s = end;
	if (**s == '-') {
		*b = strtol(*s + 1, &end, 10);
		if (end == *s + 1 || *b < *a)
			return false;
		*s = end;
	}
	return true;
}

bool run_range_sep(const char **s)
{
	if (**s == ',') {
		(*s)++;
		return true;
	}
	return !**s;
}

static int parse_rows(const char *spec, size_t n, bool *keep, ib_error *e)
{
	memset(keep, 0, n * sizeof *keep);
	const char *s = spec;
	while (*s) {
		long a, b;
		if (!run_range(&s, &a, &b))
			goto bad;
		if ((size_t)b >= n)
			return ib_fail(
			    e, IB_EINVAL, "", 0, 0,
			    "--rows: row %ld does not exist (the matrix has %zu rows, 0-%zu)", b, n,
			    n ? n - 1 : 0);
		for (long i = a; i <= b; i++)
			keep[i] = true;
		if (!run_range_sep(&s))
			goto bad;
	}
	return 0;
bad:
	return ib_fail(e, IB_EINVAL, "", 0, 0,
	               "--rows: expected indexes and ranges like '0,3-5', got '%s'", spec);
}

int run_select(const ib_val *list, const char *rows, const char *const *filters, size_t nf,
               bool *keep, ib_error *e)
{
	size_t n = list->list.n;
	if (rows) {
		int rc = parse_rows(rows, n, keep, e);
		if (rc)
			return rc;
	} else {
		for (size_t i = 0; i < n; i++)
			keep[i] = true;
	}
	for (size_t f = 0; f < nf; f++) {
		const char *eq = strchr(filters[f], '=');
		if (!eq || eq == filters[f])
			return ib_fail(e, IB_EINVAL, "", 0, 0,
			               "--filter: expected KEY=GLOB, got '%s'", filters[f]);
		char key[128];
		snprintf(key, sizeof key, "%.*s", (int)(eq - filters[f]), filters[f]);
		for (size_t i = 0; i < n; i++) {
			if (!keep[i])
				continue;
			const ib_val *v = ib_map_get(list->list.v[i], key);
			if (!v) {
				keep[i] = false;
				continue;
			}
			ib_buf b = {0};
			run_field(&b, list->list.v[i], key, "");
			keep[i] = ib_glob_match(eq + 1, b.data ? b.data : "");
			ib_buf_free(&b);
		}
	}
	return 0;
}

/* ---- recipes (§3.1 step 3) ---- */

static bool is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* The names a row's recipe can have (names[2] NULL but for TRT rows) and
 * its scenario folder ("fixed_seq_len/", "agentic/"). */
static const char *recipe_names(ib_arena *a, const ib_val *row, const char *names[3])
{
	const char *exp = run_fieldz(a, row, "exp-name", "");
	const char *prec = run_fieldz(a, row, "precision", "");
	const char *fw = run_fieldz(a, row, "framework", "");
	const char *label = run_fieldz(a, row, "runner", "");
	/* <exp-prefix> = EXP_NAME up to the first '_'; <gpu> = the label up to
	 * its first '-' (h200-cw → h200, cluster:b200-dgxc → b200) */
	char prefix[256], gpu[128];
	snprintf(prefix, sizeof prefix, "%.*s", (int)strcspn(exp, "_"), exp);
	/* a cluster label names its launcher's runner: cluster:b200-dgxc → b200 */
	if (!strncmp(label, "cluster:", 8))
		label += 8;
	snprintf(gpu, sizeof gpu, "%.*s", (int)strcspn(label, "-"), label);
	const char *mtp = run_row_is_spec(row) ? "_mtp" : "";
	names[0] = ib_arena_printf(a, "%s_%s_%s_%s%s", prefix, prec, gpu, fw, mtp);
	names[1] = ib_arena_printf(a, "%s_%s_%s%s", prefix, prec, gpu, mtp);
	/* the TRT launchers' short framework name */
	names[2] = !strcmp(fw, "trt") || !strcmp(fw, "trtllm")
	               ? ib_arena_printf(a, "%s_%s_%s_trt%s", prefix, prec, gpu, mtp)
	               : NULL;
	return run_row_agentic(row) ? "agentic/" : "fixed_seq_len/";
}

int run_node_recipe_path(ib_buf *out, const char *dir, const ib_val *row)
{
	ib_arena *a = ib_arena_new();
	if (!a)
		return IB_ENOMEM;
	const char *names[3];
	const char *sub = recipe_names(a, row, names);
	const char *subs[] = {"multi_node/", NULL, "benchmarks/multi_node/", NULL};
	subs[1] = ib_arena_printf(a, "multi_node/%s", sub);
	subs[3] = ib_arena_printf(a, "benchmarks/multi_node/%s", sub);
	int rc = IB_ENOENT;
	for (size_t ni = 0; ni < 3 && rc; ni++)
		for (size_t si = 0; names[ni] && si < 4 && rc; si++) {
			char *p = ib_arena_printf(a, "%s/%s%s/server.sh", dir, subs[si], names[ni]);
			if (p && is_file(p)) {
				ib_buf_puts(out, p);
				rc = 0;
			}
		}
	ib_arena_free(a);
	return rc;
}

int run_recipe_path(ib_buf *out, const char *dir, const ib_val *row, ib_error *e)
{
	ib_arena *a = ib_arena_new();
	if (!a)
		return IB_ENOMEM;
	const char *names[3];
	const char *sub = recipe_names(a, row, names);
	const char *subs[] = {"", sub, "single_node/", NULL, "benchmarks/single_node/", NULL};
	subs[3] = ib_arena_printf(a, "single_node/%s", sub);
	subs[5] = ib_arena_printf(a, "benchmarks/single_node/%s", sub);
	ib_buf tried = {0};
	int rc = IB_ENOENT;
	for (size_t ni = 0; ni < 3 && rc; ni++) {
		if (!names[ni])
			continue;
		for (size_t si = 0; si < sizeof subs / sizeof *subs; si++) {
			char *p = ib_arena_printf(a, "%s/%s%s.sh", dir, subs[si], names[ni]);
			if (is_file(p)) {
				ib_buf_puts(out, p);
				rc = 0;
				break;
			}
			if (si == 0 || si == 3)
				ib_buf_printf(&tried, "%s%s", tried.len ? ", " : "", p);
		}
	}
	if (rc)
		ib_fail(e, IB_ENOENT, "", 0, 0,
		        "no recipe script for this row (tried %s and the %s layouts)",
		        tried.data ? tried.data : "?", "benchmarks/single_node");
	ib_buf_free(&tried);
	ib_arena_free(a);
	return rc;
}
