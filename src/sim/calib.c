/* Calibration as data: the efficiency and overhead parameters of the
 * performance model, read from a YAML file of rules (configs/sim/
 * calibration.yaml; docs/sim.md "Calibration"). Every problem of the file
 * goes into an ib_diags list with its file, line and field. */
#define _GNU_SOURCE /* strcasestr */
#include "sim/private.h"
#include "sim/sim.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

void sim_calib_defaults(sim_calib *c)
{
	/* the uncalibrated model of docs/sim.md: a roofline at 80 % of HBM
	 * bandwidth and 60 % of peak FLOPs, 300 us per step */
	*c = (sim_calib){
	    .mem_eff = 0.8,
	    .compute_eff = 0.6,
	    .step_overhead_s = 300e-6,
	    .seq_overhead_s = 0,
	    .comm_eff = 1.0,
	    .ep_imbalance = 1.0,
	    .draft_cost = 0.05,
	};
}

typedef struct {
	const char *key;
	size_t off;
	double scale;  /* file value * scale = stored value */
	double lo, hi; /* allowed range of the file value */
	bool lo_open;  /* lo itself is not allowed */
} param;

#define PARAM(k, f, s, lo, hi, open)                                                               \
	{                                                                                          \
		k, offsetof(sim_calib, f), s, lo, hi, open                                         \
	}
static const param params[] = {
    PARAM("mem-eff", mem_eff, 1, 0, 1, true),
    PARAM("compute-eff", compute_eff, 1, 0, 1, true),
    PARAM("step-overhead-us", step_overhead_s, 1e-6, 0, 1e7, false),
    PARAM("seq-overhead-us", seq_overhead_s, 1e-6, 0, 1e6, false),
    PARAM("comm-eff", comm_eff, 1, 0, 1, true),
    PARAM("ep-imbalance", ep_imbalance, 1, 1, 100, false),
    PARAM("draft-cost", draft_cost, 1, 0, 10, false),
};
#define NPARAMS (sizeof params / sizeof *params)

static const char *const match_keys[SIM_CALIB_NMATCH] = {"framework", "hardware", "precision",
                                                         "model",     "spec",     "version"};

static int bad(ib_diags *d, const ib_val *v, const char *field, const char *fmt, const char *arg)
{
	return sim_file_bad(d, v, field, fmt, arg);
}

/* A match value must name something the simulator knows (a typo would make
 * a rule silently apply to nothing). */
static bool known_name(int which, const char *s)
{
	switch (which) {
	case 1:
		return sim_hw_find(s) != NULL;
	case 2:
		return !strcmp(s, "bf16") || !strcmp(s, "fp8") || !strcmp(s, "fp4") ||
		       !strcmp(s, "int4");
	case 3:
		return sim_model_find(s) != NULL;
	case 4:
		return !strcmp(s, "none") || !strcmp(s, "mtp") || !strcmp(s, "eagle3");
	default:
		return s[0] != 0;
	}
}

static int load_match(const ib_val *m, sim_calib_rule *r, ib_arena *a, ib_diags *d)
{
	if (m->type != IB_V_MAP)
		return bad(d, m, "match", "should be a mapping of %s",
		           "framework/hardware/precision/model/spec/version");
	for (size_t i = 0; i < m->map.n; i++) {
		const ib_val *k = m->map.kv[i].key, *v = m->map.kv[i].val;
		int which = -1;
		for (int j = 0; j < SIM_CALIB_NMATCH && k->type == IB_V_STR; j++)
			if (!strcmp(k->str.s, match_keys[j]))
				which = j;
		if (which < 0) {
			bad(d, k, "match",
			    "unknown key '%s' (framework, hardware, precision, model, spec, "
			    "version)",
			    k->type == IB_V_STR ? k->str.s : "?");
			continue;
		}
		size_t n = v->type == IB_V_LIST ? v->list.n : 1;
		const char **names = ib_arena_alloc(a, (n + 1) * sizeof *names);
		if (!names)
			return IB_ENOMEM;
		for (size_t j = 0; j < n; j++) {
			const ib_val *x = v->type == IB_V_LIST ? v->list.v[j] : v;
			char field[32];
			snprintf(field, sizeof field, "match.%s", match_keys[which]);
			if (x->type != IB_V_STR) {
				bad(d, x, field, "should be a name or a list of names%s", "");
				names[j] = "";
				continue;
			}
			if (!known_name(which, x->str.s))
				bad(d, x, field, "unknown name '%s'", x->str.s);
			names[j] = ib_arena_strdup(a, x->str.s);
		}
		names[n] = NULL;
		r->match[which] = names;
	}
	return 0;
}

static int load_rule(const ib_val *v, sim_calib_rule *r, ib_arena *a, ib_diags *d)
{
	memset(r, 0, sizeof *r);
	r->file = v->file;
	r->line = v->line;
	if (v->type != IB_V_MAP)
		return bad(d, v, "rules", "each rule should be a mapping (match: and parameters)%s",
		           "");
	for (size_t i = 0; i < v->map.n; i++) {
		const ib_val *k = v->map.kv[i].key, *x = v->map.kv[i].val;
		const char *name = k->type == IB_V_STR ? k->str.s : "?";
		if (!strcmp(name, "match")) {
			int rc = load_match(x, r, a, d);
			if (rc)
				return rc;
			continue;
		}
		if (!strcmp(name, "note")) /* provenance, free text */
			continue;
		size_t j = 0;
		while (j < NPARAMS && strcmp(params[j].key, name))
			j++;
		if (j == NPARAMS) {
			bad(d, k, name, "unknown parameter (see docs/sim.md \"Calibration\")%s",
			    "");
			continue;
		}
		double f;
		if (x->type == IB_V_INT)
			f = (double)x->i;
		else if (x->type == IB_V_FLOAT)
			f = x->f;
		else {
			bad(d, x, name, "should be a number%s", "");
			continue;
		}
		const param *p = &params[j];
		if (!isfinite(f)) {
			bad(d, x, name, "should be a finite number, not %s",
			    isnan(f) ? ".nan" : "infinite");
			continue;
		}
		/* written so that a NaN could not pass either */
		if (!(f >= p->lo && f <= p->hi) || (p->lo_open && f == p->lo)) {
			ib_diag_add(
			    d,
			    &(ib_diag){
			        .file = x->file, .line = x->line, .col = x->col, .field = name},
			    "%g is out of range: %s%g, %g]", f, p->lo_open ? "(" : "[", p->lo,
			    p->hi);
			continue;
		}
		r->set |= 1u << j;
		*(double *)((char *)&r->values + p->off) = f * p->scale;
	}
	return 0;
}

int sim_calib_load(const char *path, ib_arena *a, sim_calib_file *out, ib_diags *d, ib_error *e)
{
	memset(out, 0, sizeof *out);
	ib_val *doc;
	int rc = ib_yaml_load_file(a, path, &doc, e);
	if (rc)
		return rc;
	out->path = ib_arena_strdup(a, path);
	size_t before = ib_diags_count(d, IB_SEV_ERROR);
	const ib_val *rules = NULL;
	if (doc->type != IB_V_MAP) {
		/* an empty document is a node of no file: name the file */
		rc = ib_diag_add(d,
		                 &(ib_diag){.file = doc->file ? doc->file : path,
		                            .line = doc->line,
		                            .col = doc->col},
		                 "a calibration file is a mapping with 'rules'");
	} else {
		for (size_t i = 0; i < doc->map.n; i++) {
			const ib_val *k = doc->map.kv[i].key;
			if (k->type == IB_V_STR && !strcmp(k->str.s, "rules"))
				rules = doc->map.kv[i].val;
			else
				rc = bad(d, k, k->type == IB_V_STR ? k->str.s : NULL,
				         "unknown key (a calibration file has 'rules')%s", "");
		}
		if (!rules)
			rc = bad(d, doc, "rules", "missing%s", "");
		else if (rules->type != IB_V_LIST)
			rc = bad(d, rules, "rules", "should be a list of rules%s", "");
	}
	if (!rc && rules && rules->type == IB_V_LIST) { /* else diagnosed above */
		out->rules = ib_arena_alloc(a, (rules->list.n + 1) * sizeof *out->rules);
		if (!out->rules)
			return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
		for (size_t i = 0; i < rules->list.n && !rc; i++)
			rc = load_rule(rules->list.v[i], &out->rules[out->n++], a, d);
	}
	return sim_file_verdict(rc, d, before, path, "calibration file", e);
}

bool sim_calib_names(const char *const *list, const char *v)
{
	for (size_t i = 0; list && v && list[i]; i++)
		if (!strcasecmp(list[i], v))
			return true;
	return false;
}

static bool matches(const char *const *names, const char *v)
{
	return !names /* not constrained */ || sim_calib_names(names, v);
}

void sim_calib_resolve(const sim_calib_file *f, const sim_calib_key *k, sim_calib *out)
{
	sim_calib_defaults(out);
	const char *vals[SIM_CALIB_NMATCH] = {k->framework, k->hardware, k->precision,
	                                      k->model,     k->spec,     k->version};
	for (size_t i = 0; f && i < f->n; i++) {
		const sim_calib_rule *r = &f->rules[i];
		bool ok = true;
		for (int j = 0; j < SIM_CALIB_NMATCH && ok; j++)
			ok = matches(r->match[j], vals[j]);
		if (!ok)
			continue;
		for (size_t j = 0; j < NPARAMS; j++)
			if (r->set & (1u << j))
				*(double *)((char *)out + params[j].off) =
				    *(const double *)((const char *)&r->values + params[j].off);
	}
}

void sim_calib_apply(const sim_calib *cal, sim_config *c)
{
	c->mem_eff = cal->mem_eff;
	c->compute_eff = cal->compute_eff;
	c->step_overhead_s = cal->step_overhead_s;
	c->seq_overhead_s = cal->seq_overhead_s;
	c->comm_eff = cal->comm_eff;
	c->ep_imbalance = cal->ep_imbalance;
	c->draft_cost = cal->draft_cost;
}

const char *sim_calib_find(const char *exe, char *buf, size_t len)
{
	const char *env = getenv("INFBENCH_SIM_CALIBRATION");
	if (env && env[0])
		return env;
	static const char rel[] = "configs/sim/calibration.yaml";
	if (access(rel, R_OK) == 0)
		return rel;
	/* next to the binary: build/infbench or build/san/infbench in a checkout */
	if (exe) {
		const char *slash = strrchr(exe, '/');
		size_t dir = slash ? (size_t)(slash - exe) : 0;
		static const char *const ups[] = {"/../", "/../../"};
		for (size_t i = 0; slash && i < 2; i++) {
			if ((size_t)snprintf(buf, len, "%.*s%s%s", (int)dir, exe, ups[i], rel) <
			        len &&
			    access(buf, R_OK) == 0)
				return buf;
		}
	}
	return NULL;
}

const char *sim_framework_key(const char *note)
{
	if (!note)
		return NULL;
	if (strcasestr(note, "dynamo-trt") || strcasestr(note, "trt-llm") ||
	    strcasestr(note, "tensorrt"))
		return "trt";
	if (strcasestr(note, "atom"))
		return "atom";
	if (strcasestr(note, "sglang"))
		return "sglang";
	if (strcasestr(note, "vllm"))
		return "vllm";
	return NULL;
}

/* The first image tag ("v0.5.10rc0") or date ("2026-05-02") in a note. */
const char *sim_version_of(ib_arena *a, const char *note)
{
	if (!note)
		return NULL;
	for (const char *s = note; *s; s++) {
		if ((s == note || !isalnum((unsigned char)s[-1])) && s[0] == 'v' &&
		    isdigit((unsigned char)s[1])) {
			size_t n = 1;
			while (s[n] && (isalnum((unsigned char)s[n]) || s[n] == '.'))
				n++;
			if (memchr(s, '.', n))
				return ib_arena_strndup(a, s, n);
		}
	}
	for (const char *s = note; *s; s++)
		if (strlen(s) >= 10 && isdigit((unsigned char)s[0]) &&
		    isdigit((unsigned char)s[3]) && s[4] == '-' && s[7] == '-' &&
		    isdigit((unsigned char)s[8]) && isdigit((unsigned char)s[9]))
			return ib_arena_strndup(a, s, 10);
	return NULL;
}

/* ---- which rules a server takes: the GPU and framework fallbacks (the one
 * resolution of `infbench sim` and the in-process lab) ---- */

bool sim_calib_rule_can_apply(const sim_calib_rule *r, const char *model, const char *precision)
{
	return (!model || !r->match[3] || sim_calib_names(r->match[3], model)) &&
	       (!precision || !r->match[2] || sim_calib_names(r->match[2], precision));
}

/* A rule of cal names gpu (and model, when not NULL) and can apply to
 * precision (sim_calib_rule_can_apply). */
static bool calib_names(const sim_calib_file *cal, const char *gpu, const char *model,
                        const char *precision)
{
	for (size_t i = 0; cal && i < cal->n; i++) {
		const sim_calib_rule *r = &cal->rules[i];
		if (sim_calib_names(r->match[1], gpu) &&
		    (!model || sim_calib_names(r->match[3], model)) &&
		    sim_calib_rule_can_apply(r, NULL, precision))
			return true;
	}
	return false;
}

/* the same GPU architecture (Blackwell, Hopper, CDNA3): the same kernels */
static const char *const sibling[][3] = {
    {"b300", "b200", NULL},     {"gb200", "b200", NULL},    {"gb300", "b300", "b200"},
    {"b200", "b300", NULL},     {"h100", "h200", NULL},     {"h200", "h100", NULL},
    {"mi300x", "mi325x", NULL}, {"mi325x", "mi300x", NULL},
};

/* The first sibling GPU of gpu that a rule of cal names (with model, when
 * not NULL), in the table's order of preference; NULL when none. */
static const char *calib_sibling(const sim_calib_file *cal, const char *gpu, const char *model,
                                 const char *precision)
{
	for (size_t i = 0; i < sizeof sibling / sizeof *sibling; i++)
		if (!strcasecmp(sibling[i][0], gpu))
			for (int j = 1; j < 3 && sibling[i][j]; j++)
				if (calib_names(cal, sibling[i][j], model, precision))
					return sibling[i][j];
	return NULL;
}

const char *sim_calib_hw_for_model(const sim_calib_file *cal, const char *gpu, const char *model,
                                   const char *precision)
{
	if (gpu && model && !calib_names(cal, gpu, model, precision)) {
		const char *s = calib_sibling(cal, gpu, model, precision);
		if (s)
			return s;
	}
	return sim_calib_hw_for(cal, gpu, precision);
}

const char *sim_calib_hw_for(const sim_calib_file *cal, const char *gpu, const char *precision)
{
	if (!gpu || calib_names(cal, gpu, NULL, precision))
		return gpu;
	const char *s = calib_sibling(cal, gpu, NULL, precision);
	return s ? s : gpu;
}

const char *sim_calib_fw_for(const sim_calib_file *cal, const char *framework, const char *hw,
                             const char *model, const char *precision)
{
	if (!framework || !hw)
		return framework;
	const char *other = NULL;
	for (size_t i = 0; cal && i < cal->n; i++) {
		const sim_calib_rule *r = &cal->rules[i];
		if (!r->match[0] || !sim_calib_names(r->match[1], hw) ||
		    !sim_calib_rule_can_apply(r, model, precision))
			continue;
		if (sim_calib_names(r->match[0], framework))
			return framework;
		if (!other)
			other = r->match[0][0];
	}
	return other ? other : framework;
}

void sim_calib_key_for(const sim_calib_file *cal, const char *framework, const char *gpu,
                       const char *precision, const char *model, const char *spec,
                       const char *version, sim_calib_key *k)
{
	const char *hw = sim_calib_hw_for_model(cal, gpu, model, precision);
	k->framework = sim_calib_fw_for(cal, framework, hw, model, precision);
	k->hardware = hw;
	k->precision = precision;
	k->model = model;
	k->spec = spec ? spec : "none";
	k->version = version;
}
