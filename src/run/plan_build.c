/* Building the plan: each selected row's identity and engine inputs
 * (tokenizer, calibration, eval dataset), its RESULT_FILENAME; execute.c
 * runs it. */
#include "agentx/agentx.h"
#include "eval/eval.h"
#include "run/plan.h"
#include "sim/sim.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void run_opts_init(run_opts *o)
{
	memset(o, 0, sizeof *o);
	o->jobs = 1;
	o->version = "0";
}

/* ---- identity ---- */

static const char *file_sha(ib_arena *a, const char *path)
{
	ib_buf b = {0};
	ib_error e = {0};
	char hex[65];
	if (ib_read_file(path, &b, &e) != 0) {
		ib_buf_free(&b);
		return NULL;
	}
	ib_sha256_hex(b.data ? b.data : "", b.len, hex);
	ib_buf_free(&b);
	return ib_arena_strdup(a, hex);
}

/* The content hash of a tokenizer folder (or file); its name when it is
 * not a local path (a model id). */
static const char *tokenizer_sha(ib_arena *a, const char *t)
{
	if (!t)
		return NULL;
	struct stat st;
	if (stat(t, &st) != 0)
		return ib_arena_printf(a, "id:%s", t);
	if (!S_ISDIR(st.st_mode))
		return file_sha(a, t);
	char p[4096];
	snprintf(p, sizeof p, "%s/tokenizer.json", t);
	const char *h1 = file_sha(a, p);
	snprintf(p, sizeof p, "%s/tokenizer_config.json", t);
	const char *h2 = file_sha(a, p);
	return ib_arena_printf(a, "%s+%s", h1 ? h1 : "-", h2 ? h2 : "-");
}

#define SET(m, k, v)                                                                               \
	do {                                                                                       \
		if (ib_map_set(a, (m), (k), (v)))                                                  \
			return IB_ENOMEM;                                                          \
	} while (0)

static ib_val *str_or_null(ib_arena *a, const char *s)
{
	return s ? ib_v_str(a, s) : ib_v_null(a);
}

/* What determines a row's numbers, hashed into its identity. */
static int identity(ib_arena *a, const run_opts *o, const run_resolved *x, run_item *it,
                    const char *tok_sha)
{
	ib_val *m = ib_v_map(a), *cl = ib_v_map(a), *eng = ib_v_map(a);
	if (!m || !cl || !eng)
		return IB_ENOMEM;
	SET(m, "row", (ib_val *)it->row);
	SET(m, "runner_name", ib_v_str(a, x->runner_name ? x->runner_name : ""));
	SET(cl, "version", ib_v_str(a, o->version));
	if (it->agentic) { /* the AgentX replay: its corpus and duration */
		SET(cl, "kind", ib_v_str(a, "agentx-replay"));
		SET(cl, "corpus", str_or_null(a, it->corpus_id));
		SET(cl, "duration", ib_v_int(a, it->duration));
	} else {
		SET(cl, "num_prompts_per_conc", ib_v_int(a, x->prompts_per_conc));
		SET(cl, "num_warmups_per_conc", ib_v_int(a, x->warmups_per_conc));
		SET(cl, "random_range_ratio", ib_v_str(a, "0.8"));
		SET(cl, "chat_template", ib_v_bool(a, it->spec));
	}
	SET(cl, "tokenizer", str_or_null(a, tok_sha));
	SET(m, "client", cl);
	if (o->engine == RUN_ENGINE_RECIPE) {
		SET(eng, "kind", ib_v_str(a, "recipe"));
		SET(eng, "script", str_or_null(a, it->recipe ? file_sha(a, it->recipe) : NULL));
		/* the library the recipe sources, wherever the layout puts it */
		const char *lib = NULL;
		if (it->recipe) {
			char p[4096];
			snprintf(p, sizeof p, "%s", it->recipe);
			for (int up = 0; up < 4 && !lib; up++) {
				char *sl = strrchr(p, '/');
				if (!sl)
					break;
				*sl = 0;
				char q[4200];
				snprintf(q, sizeof q, "%s/benchmark_lib.sh", p);
				lib = file_sha(a, q);
			}
		}
		SET(eng, "benchmark_lib", str_or_null(a, lib));
	} else {
		SET(eng, "kind", ib_v_str(a, "sim"));
		SET(eng, "model", str_or_null(a, it->sim_model));
		SET(eng, "hardware", str_or_null(a, it->sim_hw));
		SET(eng, "time_scale", ib_v_float(a, o->time_scale > 0 ? o->time_scale : 1));
		SET(eng, "calibration", str_or_null(a, x->sim_calibration_sha));
		SET(eng, "num_spec_tokens", ib_v_int(a, it->spec ? x->num_spec_tokens : 0));
		SET(eng, "profile",
		    str_or_null(a, o->sim_profile ? file_sha(a, o->sim_profile) : NULL));
		ib_val *ex = ib_v_list(a);
		for (size_t i = 0; ex && i < o->nsim_extra; i++)
			if (ib_list_push(a, ex, ib_v_str(a, o->sim_extra[i])))
				return IB_ENOMEM;
		SET(eng, "extra", ex);
	}
	SET(m, "engine", eng);
	if (it->eval) {
		ib_val *ev = ib_v_map(a);
		if (!ev)
			return IB_ENOMEM;
		SET(ev, "dataset", ib_v_str(a, x->eval_dataset_id));
		SET(ev, "limit", ib_v_int(a, o->eval_limit));
		SET(ev, "eval_only", ib_v_bool(a, it->eval_only));
		if (o->engine != RUN_ENGINE_RECIPE)
			SET(ev, "sim_accuracy", ib_v_float(a, x->eval_accuracy));
		SET(m, "eval", ev);
	}
	ib_buf b = {0};
	ib_json_opts jo = {.indent = 2, .ensure_ascii = true, .sort_keys = true};
	ib_error e = {0};
	int rc = ib_json_write(&b, m, &jo, &e);
	if (rc || ib_buf_putc(&b, '\n')) {
		ib_buf_free(&b);
		return rc ? rc : IB_ENOMEM;
	}
	char hex[65];
	ib_sha256_hex(b.data, b.len, hex);
	memcpy(it->identity, hex, 16);
	it->identity[16] = 0;
	it->identity_json = ib_arena_strdup(a, b.data);
	ib_buf_free(&b);
	return it->identity_json ? 0 : IB_ENOMEM;
}

static int resolve(ib_arena *a, const run_opts *o, run_resolved *x)
{
	memset(x, 0, sizeof *x);
	x->runner_name = o->runner_name;
	x->ready_timeout_s = o->ready_timeout_s > 0 ? o->ready_timeout_s : 600;
	x->prompts_per_conc = o->prompts_per_conc > 0 ? o->prompts_per_conc : 10;
	x->warmups_per_conc = o->warmups_per_conc > 0   ? o->warmups_per_conc
	                      : o->warmups_per_conc < 0 ? 0
	                                                : 2;
	x->num_spec_tokens = o->num_spec_tokens > 0 ? o->num_spec_tokens : 3;
	x->prompt_threads = o->prompt_threads;
	x->eval_accuracy = o->eval_accuracy > 0 ? o->eval_accuracy : 0.93;
	if (o->engine == RUN_ENGINE_SIM) {
		char buf[4200];
		const char *c = sim_calib_find(o->self_exe, buf, sizeof buf);
		char *real = c ? realpath(c, NULL) : NULL;
		if (real) {
			x->sim_calibration = ib_arena_strdup(a, real);
			x->sim_calibration_sha = file_sha(a, real);
			const char *slash = strrchr(real, '/');
			const char *iv =
			    ib_arena_printf(a, "%.*s/intervals.yaml",
			                    slash ? (int)(slash - real) : 1, slash ? real : ".");
			if (iv && !access(iv, R_OK))
				x->sim_intervals = iv;
		}
		free(real);
	}
	return 0;
}

/* gsm8k's split sizes, for the stand-in set */
#define STANDIN_TRAIN 7473
#define STANDIN_TEST  1319

/* The eval dataset folder (absolute) and what identifies its content. */
/* STORE/name as an absolute path (children work in their workspaces);
 * NULL without memory or when the current folder cannot be told. */
static const char *store_path(ib_arena *a, const char *store, const char *name)
{
	char cwd[4096];
	if (store[0] == '/')
		return ib_arena_printf(a, "%s/%s", store, name);
	if (!getcwd(cwd, sizeof cwd))
		return NULL;
	return ib_arena_printf(a, "%s/%s/%s", cwd, store, name);
}

/* An option's path made absolute into *out (arena a): IB_ENOENT with
 * `missing` when it does not exist. */
static int abs_path(ib_arena *a, const char *path, const char *missing, const char **out,
                    ib_error *e)
{
	char *real = realpath(path, NULL);
	if (!real)
		return ib_fail(e, IB_ENOENT, path, 0, 0, "%s", missing);
	*out = ib_arena_strdup(a, real);
	free(real);
	return *out ? 0 : IB_ENOMEM;
}

static int resolve_eval_dataset(ib_arena *a, const run_opts *o, run_resolved *x, ib_error *e)
{
	if (!o->eval_dataset) {
		if (!(x->eval_dataset = store_path(a, o->store, "eval-dataset")))
			return ib_fail(e, IB_EIO, o->store, 0, 0, "cannot tell the current folder");
		x->eval_dataset_id =
		    ib_arena_printf(a, "stand-in: eval make-dataset --train %d --test %d --seed 1",
		                    STANDIN_TRAIN, STANDIN_TEST);
		return x->eval_dataset && x->eval_dataset_id ? 0 : IB_ENOMEM;
	}
	int rc =
	    abs_path(a, o->eval_dataset, "--eval-dataset: no such folder", &x->eval_dataset, e);
	if (rc)
		return rc;
	char p[4200];
	snprintf(p, sizeof p, "%s/train.jsonl", x->eval_dataset);
	const char *h1 = file_sha(a, p);
	snprintf(p, sizeof p, "%s/test.jsonl", x->eval_dataset);
	const char *h2 = file_sha(a, p);
	if (!h1 || !h2)
		return ib_fail(
		    e, IB_ENOENT, p, 0, 0,
		    "--eval-dataset needs train.jsonl and test.jsonl (see docs/eval.md)");
	x->eval_dataset_id = ib_arena_printf(a, "train %s test %s", h1, h2);
	return x->eval_dataset_id ? 0 : IB_ENOMEM;
}

/* ---- the AgentX corpus of agentic rows ---- */

#define STANDIN_NAME "agentx-corpus.jsonl"
#define STANDIN_ID   "stand-in: infbench agentx make-traces (its defaults: 393 traces, seed 42)"

/* --agentx-corpus: absolute, its content hash, and parsed once here so that
 * a broken record stops the run before anything is written. */
static int resolve_agentx_corpus(ib_arena *a, const run_opts *o, run_resolved *x, ib_error *e)
{
	int rc = abs_path(a, o->agentx_corpus, "--agentx-corpus: no such trace file or folder",
	                  &x->agentx_corpus, e);
	if (rc)
		return rc;
	char **files = NULL;
	size_t nf = 0;
	struct stat st;
	if (stat(x->agentx_corpus, &st) == 0 && S_ISDIR(st.st_mode))
		rc = ax_corpus_files(x->agentx_corpus, &files, &nf, e);
	ib_buf ids = {0};
	for (size_t i = 0; !rc && i < nf; i++) {
		const char *h = file_sha(a, files[i]);
		ib_buf_printf(&ids, "%s ", h ? h : "-");
	}
	ax_paths_free(files, nf);
	if (!rc && !nf) {
		const char *h = file_sha(a, x->agentx_corpus);
		ib_buf_puts(&ids, h ? h : "-");
	}
	x->agentx_corpus_sha = ids.data ? ib_arena_strdup(a, ids.data) : NULL;
	ib_buf_free(&ids);
	if (rc)
		return rc;
	ib_arena *ca = ib_arena_new();
	ax_corpus c = {0};
	if (!ca)
		return IB_ENOMEM;
	rc = ax_corpus_load(ca, x->agentx_corpus, &c, e);
	if (!rc && !c.n)
		rc =
		    ib_fail(e, IB_EINVAL, o->agentx_corpus, 0, 0, "--agentx-corpus holds no trace");
	ib_arena_free(ca);
	return rc;
}

/* An agentic row's corpus: --agentx-corpus, else the reference's dataset
 * for the model prefix (WEKA_LOADER_OVERRIDE honoured) in the local Hugging
 * Face cache, else the stand-in. IB_EINVAL for a bad WEKA_LOADER_OVERRIDE. */
static int item_corpus(ib_arena *a, const run_opts *o, const run_resolved *x, run_item *it,
                       ib_error *e)
{
	if (x->agentx_corpus) {
		it->corpus = x->agentx_corpus;
		it->corpus_id = ib_arena_printf(a, "file %s", x->agentx_corpus_sha);
		return it->corpus_id ? 0 : IB_ENOMEM;
	}
	if (o->engine == RUN_ENGINE_RECIPE)
		return 0; /* the recipe resolves its own (resolve_trace_source) */
	const char *ds;
	int rc = ax_reference_corpus(run_fieldz(a, it->row, "model-prefix", ""),
	                             getenv("WEKA_LOADER_OVERRIDE"), NULL, &ds, e);
	if (rc)
		return rc;
	char pat[512], *dir = NULL;
	snprintf(pat, sizeof pat, "datasets--%.*s--%s", (int)strcspn(ds, "/"), ds,
	         strchr(ds, '/') + 1);
	int k = ax_hf_snapshot(pat, &dir, NULL);
	if (k < 0)
		return IB_ENOMEM;
	if (k > 0) {
		it->corpus = ib_arena_strdup(a, dir);
		it->dataset = ds;
		/* the snapshot folder is named by the dataset's revision */
		it->corpus_id = ib_arena_printf(a, "hf %s@%s", ds, strrchr(dir, '/') + 1);
		free(dir);
		return it->corpus && it->corpus_id ? 0 : IB_ENOMEM;
	}
	it->standin = true;
	it->corpus = x->standin;
	it->dataset = STANDIN_NAME " (infbench stand-in)";
	it->corpus_id = STANDIN_ID;
	return 0;
}

int run_agentx_standin(const run_resolved *x, ib_error *e)
{
	if (access(x->standin, F_OK) == 0)
		return 0;
	ax_gen_opts g;
	ax_gen_defaults(&g);
	return ax_gen_write(&g, x->standin, NULL, e);
}

int run_eval_dataset(const run_resolved *x, ib_error *e)
{
	char p[4200], tmp[4200];
	snprintf(p, sizeof p, "%s/test.jsonl", x->eval_dataset);
	if (access(p, F_OK) == 0)
		return 0;
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", x->eval_dataset, (long)getpid());
	run_rmtree(tmp);
	int rc = ev_dataset_generate(tmp, STANDIN_TRAIN, STANDIN_TEST, 1, e);
	if (!rc && rename(tmp, x->eval_dataset) != 0 && access(p, F_OK) != 0)
		rc = ib_fail(e, IB_EIO, x->eval_dataset, 0, 0, "cannot create the eval dataset: %s",
		             strerror(errno));
	run_rmtree(tmp);
	return rc;
}

/* Whether row is a multi-node row with a per-node recipe
 * (run_node_recipe_path; its path appended to out, when not NULL). */
static bool node_recipe_of(const run_opts *o, const ib_val *row, ib_buf *out)
{
	ib_buf b = {0};
	bool yes = ib_map_get(row, "prefill") && ib_map_get(row, "decode") &&
	           run_node_recipe_path(out ? out : &b, o->recipes, row) == 0;
	ib_buf_free(&b);
	return yes;
}

static int plan_item(run_plan *p, const run_opts *o, const ib_val *row, size_t idx,
                     const char *tok_sha, ib_error *e)
{
	ib_arena *a = p->a;
	run_item *it = &p->items[p->n];
	memset(it, 0, sizeof *it);
	it->index = idx;
	it->row = row;
	if (row->type != IB_V_MAP)
		return ib_fail(e, IB_EINVAL, "", 0, 0, "matrix row %zu is not an object", idx);
	const char *label = run_fieldz(a, row, "runner", "");
	const char *rn = p->x.runner_name ? p->x.runner_name : ib_arena_printf(a, "%s_0", label);
	it->runner_name = rn;
	ib_buf b = {0};
	if (run_result_filename(&b, row, rn))
		return IB_ENOMEM;
	it->name = ib_arena_strdup(a, b.data);
	ib_buf_free(&b);
	it->spec = run_row_is_spec(row);
	it->amd = !strncmp(label, "mi", 2);
	it->gpus = run_gpu_count(row);
	it->eval_only = !o->no_evals && run_row_flag(row, "eval-only");
	it->eval = it->eval_only || (!o->no_evals && run_row_flag(row, "run-eval"));
	if (o->no_evals && run_row_flag(row, "eval-only"))
		it->skip = "an eval-only row, and evals are off (--no-evals)";
	if ((it->agentic = run_row_agentic(row))) {
		const ib_val *d = ib_map_get(row, "duration");
		int64_t dur = 3600; /* the workflow's default */
		if (d && d->type == IB_V_INT && d->i > 0)
			dur = d->i;
		else if (d && d->type == IB_V_STR)
			ib_py_int(d->str.s, d->str.len, &dur);
		it->duration = o->agentic_duration > 0 ? o->agentic_duration : dur;
		int rc = item_corpus(a, o, &p->x, it, e);
		if (rc)
			return rc;
	}
	if (o->engine == RUN_ENGINE_RECIPE) {
		ib_buf rp = {0};
		ib_error re = {0};
		char *real = NULL;
		/* a multi-node row: its per-node server.sh, else a whole-row script */
		it->node_recipe = node_recipe_of(o, row, &rp);
		if ((it->node_recipe || run_recipe_path(&rp, o->recipes, row, &re) == 0) &&
		    (real = realpath(rp.data, NULL)))
			it->recipe = ib_arena_strdup(a, real);
		else
			it->missing = ib_arena_strdup(a, re.msg);
		free(real);
		ib_buf_free(&rp);
	} else {
		const char *why = run_sim_unmodelable(row, &it->sim_model, &it->sim_hw);
		if (why && !it->skip)
			it->skip = ib_arena_strdup(a, why);
		bool eagle = it->sim_model && (!strcmp(it->sim_model, "minimax-m3") ||
		                               !strcmp(it->sim_model, "kimi-k2.5"));
		it->sim_spec_method = eagle ? "eagle3" : "mtp";
	}
	run_resolved xr = p->x;
	xr.runner_name = rn;
	int rc = identity(a, o, &xr, it, tok_sha);
	if (rc)
		return rc;
	p->n++;
	return 0;
}

/* The concurrency list of a multi-node row (`conc: [8, 16, ...]`) that the
 * runner's client runs one concurrency at a time (the simulator engine, a
 * per-node recipe), or NULL. */
static const ib_val *conc_list(const run_opts *o, const ib_val *row)
{
	const ib_val *c = row->type == IB_V_MAP ? ib_map_get(row, "conc") : NULL;
	if (!c || c->type != IB_V_LIST || !c->list.n)
		return NULL;
	return o->engine != RUN_ENGINE_RECIPE || node_recipe_of(o, row, NULL) ? c : NULL;
}

/* Plans row idx: one item, or with the simulator engine one per concurrency
 * of a multi-node row's list (a copy of the row with that `conc`, so its
 * identity, RESULT_FILENAME and CONC are the concurrency's). */
static int plan_row(run_plan *p, const run_opts *o, const ib_val *row, size_t idx,
                    const char *tok_sha, ib_error *e)
{
	const ib_val *cl = conc_list(o, row);
	if (!cl)
		return plan_item(p, o, row, idx, tok_sha, e);
	for (size_t j = 0; j < cl->list.n; j++) {
		const ib_val *c = cl->list.v[j];
		if (c->type != IB_V_INT || c->i < 1)
			return ib_fail(e, IB_EINVAL, "", 0, 0,
			               "matrix row %zu: conc[%zu] is not a positive integer", idx,
			               j);
		ib_val *one = ib_map_copy(p->a, row), *v = ib_v_int(p->a, c->i);
		if (!one || !v || ib_map_set(p->a, one, "conc", v))
			return IB_ENOMEM;
		int rc = plan_item(p, o, one, idx, tok_sha, e);
		if (rc)
			return rc;
	}
	return 0;
}

int run_plan_new(const run_opts *o, const ib_val *list, const bool *keep, run_plan **out,
                 ib_error *e)
{
	if (!list || list->type != IB_V_LIST)
		return ib_fail(e, IB_EINVAL, "", 0, 0, "the matrix is not a JSON list of rows");
	run_plan *p = calloc(1, sizeof *p);
	if (!p || !(p->a = ib_arena_new())) {
		free(p);
		return IB_ENOMEM;
	}
	resolve(p->a, o, &p->x);
	size_t nitems = 1;
	for (size_t i = 0; i < list->list.n; i++) {
		const ib_val *cl = conc_list(o, list->list.v[i]);
		nitems += cl ? cl->list.n : 1;
	}
	p->items = ib_arena_alloc(p->a, nitems * sizeof *p->items);
	const char *tok = tokenizer_sha(p->a, o->tokenizer);
	int rc = p->items ? 0 : IB_ENOMEM;
	bool evals = false;
	for (size_t i = 0; i < list->list.n && !o->no_evals; i++)
		evals |= (!keep || keep[i]) && list->list.v[i]->type == IB_V_MAP &&
		         (run_row_flag(list->list.v[i], "run-eval") ||
		          run_row_flag(list->list.v[i], "eval-only"));
	if (!rc && evals)
		rc = resolve_eval_dataset(p->a, o, &p->x, e);
	bool agentic = false;
	for (size_t i = 0; i < list->list.n; i++)
		agentic |= (!keep || keep[i]) && list->list.v[i]->type == IB_V_MAP &&
		           run_row_agentic(list->list.v[i]);
	if (!rc && agentic && o->agentx_corpus)
		rc = resolve_agentx_corpus(p->a, o, &p->x, e);
	if (!rc && agentic && !(p->x.standin = store_path(p->a, o->store, STANDIN_NAME)))
		rc = IB_ENOMEM;
	for (size_t i = 0; i < list->list.n && !rc; i++)
		if (!keep || keep[i])
			rc = plan_row(p, o, list->list.v[i], i, tok, e);
	if (rc) {
		run_plan_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void run_plan_free(run_plan *p)
{
	if (!p)
		return;
	ib_arena_free(p->a);
	free(p);
}

size_t run_plan_count(const run_plan *p)
{
	return p->n;
}
const char *run_plan_identity(const run_plan *p, size_t i)
{
	return p->items[i].identity;
}
const char *run_plan_name(const run_plan *p, size_t i)
{
	return p->items[i].name;
}
