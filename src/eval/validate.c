/* Eval score validation: thresholds and the batched-eval manifest, as
 * InferenceX's utils/evals/validate_scores.py (spec Part A.5, T1–T6; eval.h). */
#include "eval/private.h"

#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char ev_builtin_thresholds_name[] = "<built-in InferenceX thresholds.yaml>";

/* InferenceX's floors (spec A.5): task defaults, then per-model gsm8k. */
static const char builtin_yaml[] = "default:\n"
                                   "  gsm8k: 0.90\n"
                                   "  gpqa_diamond_cot_n_shot: 0.30\n"
                                   "  swebench_lite: 0.50\n"
                                   "models:\n"
                                   "  dsr1: {gsm8k: 0.91}\n"
                                   "  dsv4: {gsm8k: 0.91}\n"
                                   "  glm5: {gsm8k: 0.94}\n"
                                   "  glm5.1: {gsm8k: 0.93}\n"
                                   "  gptoss: {gsm8k: 0.91}\n"
                                   "  kimik2.5: {gsm8k: 0.90}\n"
                                   "  minimaxm2.5: {gsm8k: 0.92}\n"
                                   "  qwen3.5: {gsm8k: 0.94}\n";

bool ev_conc_suffix(const char *path, const char **digits, size_t *len)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (const char *p = strstr(base, "_conc"); p; p = strstr(p + 1, "_conc")) {
		const char *d = p + 5, *q = d;
		while (*q >= '0' && *q <= '9')
			q++;
		if (q == d)
			continue;
		const char *r = q;
		if (*r == '_' && r[1] >= '0' && r[1] <= '9') {
			r++;
			while (*r >= '0' && *r <= '9')
				r++;
		}
		if (!strcmp(r, ".json")) {
			*digits = d;
			*len = (size_t)(q - d);
			return true;
		}
	}
	return false;
}

/* ---- a small set of positive concurrencies ---- */
typedef struct {
	int64_t *v;
	size_t n, cap;
} iset;

static int iset_add(iset *s, int64_t x)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == x)
			return 0;
	if (ib_grow(&s->v, &s->cap, s->n + 1))
		return IB_ENOMEM;
	s->v[s->n++] = x;
	return 0;
}

static bool iset_has(const iset *s, int64_t x)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == x)
			return true;
	return false;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* a - b, sorted */
static int iset_minus(const iset *a, const iset *b, iset *out)
{
	for (size_t i = 0; i < a->n; i++)
		if (!iset_has(b, a->v[i]) && iset_add(out, a->v[i]))
			return IB_ENOMEM;
	if (out->n)
		qsort(out->v, out->n, sizeof *out->v, cmp_i64);
	return 0;
}

static bool iset_same(const iset *a, const iset *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (!iset_has(b, a->v[i]))
			return false;
	return true;
}

static void iset_free(iset *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

/* ---- state of one run ---- */
typedef struct {
	const ev_validate_opts *o;
	ib_arena *a;
	ib_buf *out, *err;
	ib_error *e;
	const char *meta_path;
	/* meta_env.json, read once (the file does not change during a run) */
	ev_load meta_rc;
	ib_val *meta;
	char meta_msg[1200];
	/* thresholds */
	const ib_val *def, *models;
	const char *thr_file;
	const ib_val *prefix; /* NULL: none */
	char **files;
	size_t nfiles;
	bool failed;
} vstate;

static void line(ib_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(ib_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ib_buf_vprintf(b, fmt, ap);
	va_end(ap);
	ib_buf_putc(b, '\n');
}

/* T1: load_config; returns 0 (loaded or a WARN printed) or a fatal error. */
static int load_thresholds(vstate *st, const char *path, const char *text, size_t len)
{
	ib_val *cfg = NULL;
	ib_error ye = {0};
	if (ib_yaml_load(st->a, path, text, len, &cfg, &ye)) {
		char m[2700];
		ib_error_format(&ye, m, sizeof m);
		line(st->err, "WARN: could not load thresholds from %s: invalid YAML: %s", path, m);
		return 0;
	}
	if (!cfg || cfg->type != IB_V_MAP) {
		line(st->err,
		     "WARN: could not load thresholds from %s: thresholds config must be a mapping",
		     path);
		return 0;
	}
	st->thr_file = path;
	if (!ib_map_has(cfg, "default") && !ib_map_has(cfg, "models")) {
		st->def = cfg; /* the legacy flat format */
	} else {
		st->def = ib_map_has(cfg, "default") ? ib_map_get(cfg, "default") : st->def;
		st->models = ib_map_has(cfg, "models") ? ib_map_get(cfg, "models") : st->models;
	}
	line(st->out, "Loaded thresholds from %s", path);
	return 0;
}

static int read_thresholds(vstate *st)
{
	const char *path = st->o->thresholds;
	if (!path)
		return load_thresholds(st, ev_builtin_thresholds_name, builtin_yaml,
		                       sizeof builtin_yaml - 1);
	if (!*path)
		return 0; /* `if thresholds_path:` */
	FILE *f = fopen(path, "rb");
	ib_buf b = {0};
	int err = 0;
	if (!f) {
		err = errno;
	} else {
		char chunk[65536];
		size_t k;
		while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
			if (ib_buf_append(&b, chunk, k)) {
				fclose(f);
				ib_buf_free(&b);
				return ib_fail(st->e, IB_ENOMEM, path, 0, 0, "out of memory");
			}
		if (ferror(f))
			err = errno ? errno : EIO;
		fclose(f);
	}
	if (err) {
		ib_buf m = {0};
		ib_buf_printf(&m, "WARN: could not load thresholds from %s: [Errno %d] %s: ", path,
		              err, strerror(err));
		ev_py_repr(&m, path, strlen(path));
		line(st->err, "%s", m.data ? m.data : "");
		ib_buf_free(&m);
		ib_buf_free(&b);
		return 0;
	}
	const char *s = b.data ? b.data : "";
	for (size_t i = 0; i < b.len;) {
		uint32_t cp;
		int u = ib_utf8_decode(s + i, b.len - i, &cp);
		if (u < 0) { /* UnicodeDecodeError is a ValueError: a WARN */
			line(st->err,
			     "WARN: could not load thresholds from %s: 'utf-8' codec can't decode "
			     "byte "
			     "0x%02x in position %zu: %s",
			     path, (unsigned char)s[i], i, ib_utf8_reason(u));
			ib_buf_free(&b);
			return 0;
		}
		i += (size_t)u;
	}
	/* the tree keeps pointers into the text: copy it into the arena */
	char *text = ib_arena_strndup(st->a, s, b.len);
	size_t len = b.len;
	ib_buf_free(&b);
	if (!text)
		return ib_fail(st->e, IB_ENOMEM, path, 0, 0, "out of memory");
	return load_thresholds(st, path, text, len);
}

/* The meta_env.json failure the reference does not catch. */
static int meta_fatal(vstate *st)
{
	return ib_fail(st->e, IB_EPARSE, st->meta_path, 0, 0, "%s", st->meta_msg);
}

/* T2: detect_model_prefix */
static int detect_prefix(vstate *st)
{
	const ev_validate_opts *o = st->o;
	if (o->model_prefix && *o->model_prefix) {
		st->prefix = ib_v_str(st->a, o->model_prefix);
		return st->prefix ? 0 : IB_ENOMEM;
	}
	if (st->meta_rc == EV_LOAD_UNICODE)
		return meta_fatal(st);
	if (st->meta_rc == EV_LOAD_OK && st->meta->type == IB_V_MAP) {
		const ib_val *p = ib_map_get(st->meta, "infmax_model_prefix");
		if (p && ib_val_truthy(p) &&
		    !(p->type == IB_V_STR && p->str.len == 7 && !memcmp(p->str.s, "unknown", 7))) {
			st->prefix = p;
			return 0;
		}
	}
	const char *env = o->env_model_prefix;
	if (env && *env && strcmp(env, "unknown") != 0) {
		st->prefix = ib_v_str(st->a, env);
		return st->prefix ? 0 : IB_ENOMEM;
	}
	return 0;
}

static void pystr(ib_buf *b, const ib_val *v)
{
	ib_val_pystr(b, v);
}

/* A Python TypeError/AttributeError of the reference, at a value's source. */
static int shape_error(vstate *st, const ib_val *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int shape_error(vstate *st, const ib_val *at, const char *fmt, ...)
{
	char m[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	const char *file = at && at->file ? at->file : st->thr_file;
	return ib_fail(st->e, IB_EINVAL, file, at ? at->line : 0, at ? at->col : 0, "%s", m);
}

static int print_prefix(vstate *st)
{
	ib_buf p = {0};
	int rc = 0;
	if (st->prefix) {
		pystr(&p, st->prefix);
		int in = ev_py_in(st->models, st->prefix);
		if (in < 0) {
			rc = shape_error(st, st->models,
			                 "thresholds: 'models' must be a mapping, not %s",
			                 ib_vtype_pyname(st->models));
		} else if (in) {
			line(st->out, "Model prefix: %s (per-model thresholds apply)", p.data);
		} else {
			line(st->out,
			     "Model prefix: %s (no per-model override; using global default)",
			     p.data);
		}
	} else {
		line(st->out, "Model prefix: <unknown> (using global default thresholds)");
	}
	ib_buf_free(&p);
	return rc;
}

static bool is_number(const ib_val *v)
{
	return v && (v->type == IB_V_BOOL || v->type == IB_V_INT || v->type == IB_V_FLOAT);
}

static long double num(const ib_val *v)
{
	return v->type == IB_V_BOOL  ? (long double)v->b
	       : v->type == IB_V_INT ? (long double)v->i
	                             : (long double)v->f;
}

/* The concurrency values of one manifest list: all positive ints (bool counts
 * as int, as isinstance(True, int)); false otherwise. */
static bool conc_values(const ib_val *l, iset *set, size_t *count)
{
	*count = l->list.n;
	for (size_t i = 0; i < l->list.n; i++) {
		const ib_val *x = l->list.v[i];
		int64_t v;
		if (x->type == IB_V_INT)
			v = x->i;
		else if (x->type == IB_V_BOOL)
			v = x->b;
		else
			return false;
		if (v <= 0)
			return false;
		if (iset_add(set, v))
			return false;
	}
	return true;
}

static void list_line(ib_buf *b, const char *what, const iset *s)
{
	ib_buf_printf(b, "FAIL: %s", what);
	for (size_t i = 0; i < s->n; i++)
		ib_buf_printf(b, "%s%lld", i ? ", " : "", (long long)s->v[i]);
	ib_buf_putc(b, '\n');
}

static void fail(vstate *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(vstate *st, const char *fmt, ...)
{
	ib_buf_puts(st->err, "FAIL: ");
	va_list ap;
	va_start(ap, fmt);
	ib_buf_vprintf(st->err, fmt, ap);
	va_end(ap);
	ib_buf_putc(st->err, '\n');
	st->failed = true;
}

/* T5: validate_batch_manifest; prints each error as FAIL. *nerr counts them. */
static int manifest(vstate *st, const int64_t *exp, size_t nexp, bool has_exp, size_t *nerr)
{
	*nerr = 0;
	size_t before = st->err->len;
	int rc = 0;
	if (st->meta_rc == EV_LOAD_UNICODE)
		return meta_fatal(st);
	if (st->meta_rc != EV_LOAD_OK) {
		bool any = has_exp;
		const char *d;
		size_t l;
		for (size_t i = 0; i < st->nfiles && !any; i++)
			any = ev_conc_suffix(st->files[i], &d, &l);
		if (any) {
			fail(st,
			     "batched eval result files exist but %s is unavailable or invalid: %s",
			     st->meta_path, st->meta_msg);
			*nerr = 1;
		}
		return 0;
	}
	const ib_val *meta = st->meta;
	static ib_val k_concs = IB_KEY_INIT("eval_concs");
	int has = ev_py_in(meta, &k_concs);
	if (has < 0)
		return ib_fail(st->e, IB_EINVAL, st->meta_path, 0, 0,
		               "must be a JSON object, not %s", ib_vtype_pyname(meta));
	if (has && meta->type != IB_V_MAP && (has_exp || has))
		return ib_fail(st->e, IB_EINVAL, st->meta_path, 0, 0,
		               "must be a JSON object, not %s", ib_vtype_pyname(meta));
	if (has_exp && !has) {
		if (nexp > 1) {
			fail(st, "workflow requested multiple concurrencies but batched eval "
			         "metadata is "
			         "missing");
		} else {
			if (meta->type != IB_V_MAP)
				return ib_fail(st->e, IB_EINVAL, st->meta_path, 0, 0,
				               "must be a JSON object, not %s",
				               ib_vtype_pyname(meta));
			const ib_val *c = ib_map_get(meta, "conc");
			if (!(is_number(c) && num(c) == (long double)exp[0]))
				fail(st,
				     "eval metadata concurrency does not match workflow request");
			if (st->nfiles != 1)
				fail(st, "eval must produce exactly one result file");
		}
		goto count;
	}
	if (!has)
		return 0;
	const ib_val *me = ib_map_get(meta, "eval_concs"),
	             *co = ib_map_get(meta, "completed_eval_concs"),
	             *fa = ib_map_get(meta, "failed_eval_concs");
	if (!(me && me->type == IB_V_LIST && co && co->type == IB_V_LIST && fa &&
	      fa->type == IB_V_LIST)) {
		fail(st, "batched eval metadata must contain list-valued concurrency fields");
		goto count;
	}
	iset mes = {0}, cos = {0}, fas = {0}, exps = {0}, actual = {0}, d1 = {0}, d2 = {0};
	size_t nme, nco, nfa;
	bool ok = conc_values(me, &mes, &nme);
	ok = ok && conc_values(co, &cos, &nco);
	ok = ok && conc_values(fa, &fas, &nfa);
	if (!ok) {
		fail(st, "batched eval metadata contains an invalid concurrency");
		goto done;
	}
	if (has_exp) {
		for (size_t i = 0; i < nexp && !rc; i++)
			rc = iset_add(&exps, exp[i]);
	} else {
		for (size_t i = 0; i < mes.n && !rc; i++)
			rc = iset_add(&exps, mes.v[i]);
	}
	if (rc)
		goto done;
	if (mes.n != nme)
		fail(st, "batched eval metadata contains duplicate expected concurrencies");
	if (cos.n != nco)
		fail(st, "batched eval metadata contains duplicate completed concurrencies");
	if (has_exp && !iset_same(&mes, &exps))
		fail(st, "batched eval metadata does not match workflow concurrencies");
	if (fas.n) {
		iset none = {0};
		if ((rc = iset_minus(&fas, &none, &d1)))
			goto done;
		list_line(st->err, "batched eval failed for concurrency: ", &d1);
		st->failed = true;
		iset_free(&d1);
	}
	if (!iset_same(&cos, &exps)) {
		if ((rc = iset_minus(&exps, &cos, &d1)) || (rc = iset_minus(&cos, &exps, &d2)))
			goto done;
		if (d1.n) {
			list_line(st->err, "batched eval is missing completed concurrency: ", &d1);
			st->failed = true;
		}
		if (d2.n) {
			list_line(st->err, "batched eval completed unexpected concurrency: ", &d2);
			st->failed = true;
		}
		iset_free(&d1);
		iset_free(&d2);
	}
	for (size_t i = 0; i < st->nfiles && !rc; i++) {
		const char *d;
		size_t l;
		if (!ev_conc_suffix(st->files[i], &d, &l)) {
			fail(st, "batched eval result lacks a concurrency suffix: %s",
			     st->files[i]);
			continue;
		}
		int64_t v;
		if (!ib_py_int(d, l, &v)) {
			rc = ib_fail(st->e, IB_ERANGE, st->files[i], 0, 0,
			             "concurrency suffix does not fit 64 bits");
			break;
		}
		rc = iset_add(&actual, v);
	}
	if (rc)
		goto done;
	if ((rc = iset_minus(&exps, &actual, &d1)) || (rc = iset_minus(&actual, &exps, &d2)))
		goto done;
	if (d1.n) {
		list_line(st->err, "batched eval is missing result files for concurrency: ", &d1);
		st->failed = true;
	}
	if (d2.n) {
		list_line(st->err,
		          "batched eval has unexpected result files for concurrency: ", &d2);
		st->failed = true;
	}
done:
	iset_free(&mes);
	iset_free(&cos);
	iset_free(&fas);
	iset_free(&exps);
	iset_free(&actual);
	iset_free(&d1);
	iset_free(&d2);
	if (rc)
		return rc;
count:
	for (size_t i = before; i < st->err->len; i++)
		*nerr += st->err->data[i] == '\n';
	return 0;
}

/* T3: resolve_threshold; *thr and the source text, or a fatal shape error. */
static int resolve(vstate *st, const ib_val *task, const ib_val **thr, ib_buf *src)
{
	if (st->prefix && ib_val_truthy(st->prefix)) {
		if (!st->models || st->models->type != IB_V_MAP)
			return shape_error(st, st->models,
			                   "thresholds: 'models' must be a mapping, not %s",
			                   ib_vtype_pyname(st->models));
		const ib_val *m = ev_py_getitem(st->models, st->prefix);
		if (m) {
			int in = ev_py_in(m, task);
			if (in < 0)
				return shape_error(
				    st, m, "thresholds: models.%s must be a mapping, not %s",
				    st->prefix->type == IB_V_STR ? st->prefix->str.s : "?",
				    ib_vtype_pyname(m));
			if (in) {
				if (m->type != IB_V_MAP)
					return shape_error(
					    st, m,
					    "thresholds: models entry must be a mapping, not %s",
					    ib_vtype_pyname(m));
				*thr = ev_py_getitem(m, task);
				ib_buf_puts(src, "models.");
				pystr(src, st->prefix);
				return 0;
			}
		}
	}
	int in = ev_py_in(st->def, task);
	if (in < 0 || (in && st->def->type != IB_V_MAP))
		return shape_error(st, st->def, "thresholds: 'default' must be a mapping, not %s",
		                   ib_vtype_pyname(st->def));
	if (in) {
		*thr = ev_py_getitem(st->def, task);
		ib_buf_puts(src, "default");
		return 0;
	}
	*thr = NULL; /* the --min-score fallback */
	ib_buf_puts(src, "min-score");
	return 0;
}

static void fmt4(ib_buf *b, const ib_val *v)
{
	double d = (double)num(v);
	if (isnan(d))
		ib_buf_puts(b, "nan");
	else
		ib_buf_printf(b, "%.4f", d);
}

static void float_str(ib_buf *b, double d)
{
	if (isnan(d)) {
		ib_buf_puts(b, "nan");
	} else if (isinf(d)) {
		ib_buf_puts(b, d > 0 ? "inf" : "-inf");
	} else {
		char f[40];
		ib_json_float_repr(d, f, sizeof f);
		ib_buf_puts(b, f);
	}
}

/* T4: the metrics of one results file. */
static int check_file(vstate *st, const char *path, size_t *checked)
{
	const char *d;
	size_t l;
	ib_buf label = {0};
	if (ev_conc_suffix(path, &d, &l))
		ib_buf_printf(&label, "[conc=%.*s] ", (int)l, d);
	ib_val *data;
	char msg[1200];
	int rc = 0;
	ib_error detail = {0};
	if (ev_load_json(st->a, path, &data, msg, sizeof msg, &detail) != EV_LOAD_OK) {
		ib_buf_free(&label);
		if (st->e)
			*st->e = detail;
		return detail.code;
	}
	if (data->type != IB_V_MAP) {
		ib_buf_free(&label);
		return ib_fail(st->e, IB_EINVAL, path, 0, 0, "must be a JSON object, not %s",
		               ib_vtype_pyname(data));
	}
	const ib_val *res = ib_map_has(data, "results") ? ib_map_get(data, "results") : NULL;
	if (res && res->type != IB_V_MAP) {
		ib_buf_free(&label);
		return ib_fail(st->e, IB_EINVAL, path, 0, 0,
		               "field 'results': must be an object, not %s", ib_vtype_pyname(res));
	}
	const char *mp = st->o->metric_prefix ? st->o->metric_prefix : "exact_match,";
	size_t mpl = strlen(mp);
	for (size_t t = 0; res && t < res->map.n && !rc; t++) {
		const ib_val *task = res->map.kv[t].key, *metrics = res->map.kv[t].val;
		const ib_val *thr = NULL;
		ib_buf src = {0}, ts = {0};
		rc = resolve(st, task, &thr, &src);
		if (!rc && metrics->type != IB_V_MAP)
			rc = ib_fail(st->e, IB_EINVAL, path, 0, 0,
			             "field 'results.%s': must be an object, not %s", task->str.s,
			             ib_vtype_pyname(metrics));
		if (!rc) {
			if (thr)
				pystr(&ts, thr);
			else
				float_str(&ts, st->o->min_score);
		}
		for (size_t m = 0; !rc && m < metrics->map.n; m++) {
			const ib_val *name = metrics->map.kv[m].key, *val = metrics->map.kv[m].val;
			if (name->str.len < mpl || memcmp(name->str.s, mp, mpl) != 0 ||
			    strstr(name->str.s, "stderr"))
				continue;
			if (!is_number(val))
				continue;
			if (thr && !is_number(thr)) {
				ib_buf r = {0};
				if (thr->type == IB_V_STR)
					ev_py_repr(&r, thr->str.s, thr->str.len);
				else
					pystr(&r, thr);
				rc = shape_error(
				    st, thr,
				    "threshold for task '%s' (from %s) must be a number, not "
				    "%s %s",
				    task->str.s, src.data, ib_vtype_pyname(thr), r.data);
				ib_buf_free(&r);
				break;
			}
			(*checked)++;
			long double limit = thr ? num(thr) : (long double)st->o->min_score;
			bool below = num(val) < limit;
			ib_buf *to = below ? st->err : st->out;
			ib_buf_printf(to, "%s: %s%s %s = ", below ? "FAIL" : "PASS",
			              label.data ? label.data : "", task->str.s, name->str.s);
			fmt4(to, val);
			ib_buf_printf(to, " (%s %s from %s)\n", below ? "<" : ">=", ts.data,
			              src.data);
			if (below)
				st->failed = true;
		}
		ib_buf_free(&src);
		ib_buf_free(&ts);
	}
	ib_buf_free(&label);
	return rc;
}

/* --expected-concs: str.split() then int() each; false when invalid. */
static bool parse_expected(const char *s, int64_t **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	size_t cap = 0;
	bool ok = true;
	const char *p = s;
	for (;;) {
		while (*p == ' ' || (*p >= '\t' && *p <= '\r') || (*p >= 0x1c && *p <= 0x1f))
			p++;
		if (!*p)
			break;
		const char *q = p;
		while (*q &&
		       !(*q == ' ' || (*q >= '\t' && *q <= '\r') || (*q >= 0x1c && *q <= 0x1f)))
			q++;
		int64_t v;
		if (!ib_py_int(p, (size_t)(q - p), &v) || ib_grow(out, &cap, *n + 1)) {
			ok = false;
			break;
		}
		(*out)[(*n)++] = v;
		p = q;
	}
	if (ok && !*n)
		ok = false;
	for (size_t i = 0; ok && i < *n; i++) {
		if ((*out)[i] <= 0)
			ok = false;
		for (size_t j = 0; ok && j < i; j++)
			if ((*out)[i] == (*out)[j])
				ok = false;
	}
	return ok;
}

int ev_validate(const ev_validate_opts *o, ib_buf *out, ib_buf *err, int *status, ib_error *e)
{
	*status = 1;
	int64_t *exp = NULL;
	size_t nexp = 0;
	bool has_exp = o->expected_concs != NULL;
	if (has_exp && !parse_expected(o->expected_concs, &exp, &nexp)) {
		free(exp);
		line(err, "FAIL: expected concurrencies must be unique positive integers");
		return 0;
	}
	static ib_val empty_map = {.type = IB_V_MAP};
	vstate st = {
	    .o = o, .out = out, .err = err, .e = e, .def = &empty_map, .models = &empty_map};
	st.meta_path = o->meta_env ? o->meta_env : "meta_env.json";
	st.a = ib_arena_new();
	glob_t g = {0};
	int rc = st.a ? 0 : ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	if (!rc)
		rc = read_thresholds(&st);
	if (!rc)
		st.meta_rc = ev_load_json(st.a, st.meta_path, &st.meta, st.meta_msg,
		                          sizeof st.meta_msg, NULL);
	if (!rc)
		rc = detect_prefix(&st);
	if (!rc)
		rc = print_prefix(&st);
	if (!rc) {
		int gr = glob(o->results_glob ? o->results_glob : "results*.json", GLOB_NOESCAPE,
		              NULL, &g);
		if (gr == GLOB_NOSPACE)
			rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
		else if (gr == 0) {
			st.files = g.gl_pathv;
			st.nfiles = g.gl_pathc;
			qsort(st.files, st.nfiles, sizeof *st.files, ib_cmp_str);
		}
	}
	size_t nerr = 0;
	if (!rc)
		rc = manifest(&st, exp, nexp, has_exp, &nerr);
	if (!rc && !nerr) {
		if (st.meta_rc == EV_LOAD_OK) {
			static ib_val k_concs = IB_KEY_INIT("eval_concs");
			int in = ev_py_in(st.meta, &k_concs);
			if (in < 0)
				rc = ib_fail(e, IB_EINVAL, st.meta_path, 0, 0,
				             "must be a JSON object, not %s",
				             ib_vtype_pyname(st.meta));
			else if (in)
				line(out,
				     "PASS: batched eval produced every requested concurrency");
		} else if (st.meta_rc == EV_LOAD_UNICODE) {
			rc = meta_fatal(&st);
		} else {
			line(err,
			     "WARN: could not inspect eval metadata for batched concurrency "
			     "status: %s",
			     st.meta_msg);
		}
	}
	size_t checked = 0;
	for (size_t i = 0; !rc && i < st.nfiles; i++)
		rc = check_file(&st, st.files[i], &checked);
	if (!rc) {
		if (!checked)
			line(err, "WARN: no metrics matched prefix '%s'",
			     o->metric_prefix ? o->metric_prefix : "exact_match,");
		*status = st.failed || !checked ? 1 : 0;
	}
	globfree(&g);
	ib_arena_free(st.a);
	free(exp);
	return rc;
}
