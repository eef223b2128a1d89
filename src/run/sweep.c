/* infbench sweep (docs/sweep.md): an endpoint, a list of loads, one report.
 * Each point is the benchmark client in process, its raw result turned into
 * an agg row with the caller's labels, and the folder drawn as the HTML
 * report at the end. */
#include "report/html.h"
#include "run/run.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void note(const run_sweep_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note(const run_sweep_opts *o, const char *fmt, ...)
{
	if (!o->note)
		return;
	char line[1200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	o->note(o->arg, line);
}

/* an agg row already there: a JSON object with an "hw"; *sim: its mark */
static bool have_row(const char *path, bool *sim)
{
	ib_arena *a = ib_arena_new();
	ib_val *v = NULL;
	ib_error e = {0};
	bool ok = a && access(path, F_OK) == 0 && !ib_json_parse_file(a, path, &v, &e) &&
	          v->type == IB_V_MAP && ib_map_get(v, "hw");
	const ib_val *s = ok ? ib_map_get(v, "simulated") : NULL;
	*sim = s && s->type == IB_V_BOOL && s->b;
	ib_arena_free(a);
	return ok;
}

/* the raw result into agg_<name>.json */
static int process(const run_sweep_opts *o, const char *name, ib_error *e)
{
	ib_arena *a = ib_arena_new();
	if (!a)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	char raw_path[4200];
	snprintf(raw_path, sizeof raw_path, "%s/%s.json", o->results, name);
	ib_val *raw = NULL;
	int rc = ib_json_parse_file(a, raw_path, &raw, e);
	const char **env = rc ? NULL : res_labels_env(a, raw, &o->labels, name);
	if (!rc && !env)
		rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	int power = 0;
	res_process_opts po = {.dir = o->results, .env = env};
	rc = rc ? rc : res_process(&po, NULL, &power, e);
	ib_arena_free(a);
	return rc;
}

/* one point: the client, then the agg row; *ran false when reused */
static int point(const run_sweep_opts *o, const char *rate, size_t conc, run_sweep_summary *sum,
                 ib_error *e)
{
	char name[128], agg[4300];
	if (!strcmp(rate, "inf"))
		snprintf(name, sizeof name, "conc%zu", conc);
	else
		snprintf(name, sizeof name, "rate%s-conc%zu", rate, conc);
	snprintf(agg, sizeof agg, "%s/agg_%s.json", o->results, name);
	sum->points++;
	bool sim = false;
	if (!o->force && have_row(agg, &sim)) {
		sum->reused++;
		sum->simulated = sum->simulated || sim;
		note(o, "infbench sweep: %s: reused %s", name, agg);
		return 0;
	}
	char file[160], cache[4200];
	snprintf(file, sizeof file, "%s.json", name);
	snprintf(cache, sizeof cache, "%s/prompt-cache", o->results);
	bench_options b;
	bench_options_init(&b);
	b.base_url = o->base_url;
	b.model = o->model;
	b.tokenizer = o->tokenizer;
	if (o->backend)
		b.backend = o->backend;
	if (o->endpoint)
		b.endpoint = o->endpoint;
	b.input_len = o->input_len;
	b.output_len = o->output_len;
	b.range_ratio = o->range_ratio;
	b.seed = o->seed;
	b.use_chat_template = o->use_chat_template;
	b.ignore_eos = true;
	b.max_concurrency = conc;
	b.request_rate = rate;
	b.num_prompts = (size_t)(o->prompts_per_conc > 0 ? o->prompts_per_conc : 10) * conc;
	b.num_warmups = o->warmups_per_conc < 0
	                    ? 0
	                    : (size_t)(o->warmups_per_conc ? o->warmups_per_conc : 2) * conc;
	b.prompt_cache = cache;
	b.save_result = true;
	b.result_dir = o->results;
	b.result_filename = file;
	note(o, "infbench sweep: %s: %zu prompts at concurrency %zu, request rate %s", name,
	     b.num_prompts, conc, rate);
	bench_outcome out;
	int rc = bench_main(&b, o->log, &out, e);
	if (rc)
		return rc;
	sum->ran++;
	sum->simulated = sum->simulated || out.simulated;
	if (out.failure_gate) {
		sum->failed++;
		note(o, "infbench sweep: %s: failed (%zu of %zu requests completed); no row", name,
		     out.completed, out.num_prompts);
		return 0;
	}
	ib_error pe = {0};
	if (process(o, name, &pe)) {
		sum->failed++;
		char msg[2600];
		ib_error_format(&pe, msg, sizeof msg);
		note(o, "infbench sweep: %s: the result could not become an agg row: %s", name,
		     msg);
		return 0;
	}
	note(o, "infbench sweep: %s: done%s -> %s", name, out.simulated ? " (simulated)" : "", agg);
	return 0;
}

int run_sweep(const run_sweep_opts *o, run_sweep_summary *sum, ib_error *e)
{
	memset(sum, 0, sizeof *sum);
	static const char *const inf[] = {"inf"};
	const char *const *rates = o->nrates ? o->rates : inf;
	size_t nrates = o->nrates ? o->nrates : 1;
	if (!o->nconcs)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "--concurrencies: at least one is needed");
	int rc = ib_mkdirs_writable(o->results, e);
	for (size_t r = 0; r < nrates && !rc; r++)
		for (size_t c = 0; c < o->nconcs && !rc; c++)
			rc = point(o, rates[r], o->concs[c], sum, e);
	if (rc)
		return rc;
	snprintf(sum->report, sizeof sum->report, "%s/report.html", o->results);
	ib_arena *a = ib_arena_new();
	if (!a)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	ib_diags d = {.a = a};
	rc = rep_write_html_file(o->results, sum->report, o->title, &sum->drawn, &d, e);
	for (size_t i = 0; i < d.n; i++) {
		ib_buf b = {0};
		ib_diag_format(&d.items[i], &b);
		note(o, "infbench sweep: report: %s", b.data ? b.data : "");
		ib_buf_free(&b);
	}
	ib_arena_free(a);
	return rc;
}
