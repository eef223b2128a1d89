/* Eval result collection, as InferenceX's utils/collect_eval_results.py
 * (spec Part A.7; eval.h, docs/eval.md). */
#include "eval/private.h"

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <utf8proc.h>

typedef struct {
	ib_arena *a;
	ib_error *e;
	const char *file; /* the file the current step reads, for errors */
} cstate;

static int shape(cstate *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int shape(cstate *st, const char *fmt, ...)
{
	char m[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	return ib_fail(st->e, IB_EINVAL, st->file, 0, 0, "%s", m);
}

static int nomem(cstate *st)
{
	return ib_fail(st->e, IB_ENOMEM, NULL, 0, 0, "out of memory");
}

/* ---- paths as pathlib prints them ---- */

/* Path(root): '' and '.' parts dropped, "." when nothing is left. */
static char *norm_root(ib_arena *a, const char *root)
{
	ib_buf b = {0};
	if (root[0] == '/')
		ib_buf_putc(&b, '/');
	for (const char *p = root; *p;) {
		while (*p == '/')
			p++;
		const char *q = p;
		while (*q && *q != '/')
			q++;
		size_t n = (size_t)(q - p);
		if (n && !(n == 1 && *p == '.')) {
			if (b.len && b.data[b.len - 1] != '/')
				ib_buf_putc(&b, '/');
			ib_buf_append(&b, p, n);
		}
		p = q;
	}
	char *s = ib_arena_strdup(a, b.len ? b.data : ".");
	ib_buf_free(&b);
	return s;
}

/* dir / name */
static char *join(ib_arena *a, const char *dir, const char *name)
{
	if (!strcmp(dir, "."))
		return ib_arena_strdup(a, name);
	size_t n = strlen(dir);
	return ib_arena_printf(a, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
}

static bool exists(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0;
}

static bool is_dir(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* The names in dir (no "." / ".."), sorted bytewise; *n = 0 when unreadable. */
static char **list_dir(ib_arena *a, const char *dir, size_t *n)
{
	*n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	char **v = NULL;
	size_t cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *s = ib_arena_strdup(a, de->d_name);
		if (!s || ib_grow(&v, &cap, *n + 1)) {
			free(v);
			closedir(d);
			*n = 0;
			return NULL;
		}
		v[(*n)++] = s;
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof *v, ib_cmp_str);
	return v;
}

/* ---- Python helpers ---- */

static const ib_val *get(const ib_val *m, const char *key)
{
	return ib_map_get(m, key);
}

/* Python's s.upper() / s.lower(): per code point with utf8proc, plus the
 * special cases below */
static ib_val *str_case(ib_arena *a, const char *s, size_t n, bool upper)
{
	ib_buf b = {0};
	for (size_t i = 0; i < n;) {
		utf8proc_int32_t c;
		utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i,
		                                      (utf8proc_ssize_t)(n - i), &c);
		if (k <= 0) {
			ib_buf_putc(&b, s[i++]);
			continue;
		}
		i += (size_t)k;
		/* the unconditional SpecialCasing entries Python's str.upper()/lower()
		 * apply that single code points cannot express (the common ones) */
		static const struct {
			utf8proc_int32_t c;
			const char *up;
		} special[] = {{0xDF, "SS"},    {0xFB00, "FF"},  {0xFB01, "FI"}, {0xFB02, "FL"},
		               {0xFB03, "FFI"}, {0xFB04, "FFL"}, {0xFB05, "ST"}, {0xFB06, "ST"}};
		const char *sp = NULL;
		for (size_t q = 0; upper && q < sizeof special / sizeof *special; q++)
			if (special[q].c == c)
				sp = special[q].up;
		if (!upper && c == 0x130)
			sp = "i\xcc\x87";
		if (sp) {
			ib_buf_puts(&b, sp);
			continue;
		}
		c = upper ? utf8proc_toupper(c) : utf8proc_tolower(c);
		utf8proc_uint8_t enc[4];
		utf8proc_ssize_t w = utf8proc_encode_char(c, enc);
		ib_buf_append(&b, enc, (size_t)w);
	}
	ib_val *v = ib_v_strn(a, b.data ? b.data : "", b.len);
	ib_buf_free(&b);
	return v;
}

/* str(v).lower() */
static ib_val *str_lower(ib_arena *a, const ib_val *v)
{
	ib_buf b = {0};
	ib_val_pystr(&b, v);
	ib_val *r = str_case(a, b.data ? b.data : "", b.len, false);
	ib_buf_free(&b);
	return r;
}

/* as_int(x, default) */
static int64_t as_int(const ib_val *x, int64_t dflt)
{
	int64_t v;
	return x && ib_val_py_int(x, &v, NULL) ? v : dflt;
}

/* as_bool(x, default) */
static bool as_bool(const ib_val *x, bool dflt)
{
	if (!x || x->type == IB_V_NULL)
		return dflt;
	if (x->type == IB_V_BOOL)
		return x->b;
	return x->type == IB_V_STR && x->str.len == 4 && !strncasecmp(x->str.s, "true", 4);
}

/* m.get(key, dflt) where a missing key gives dflt (which may be NULL) */
static const ib_val *get_or(const ib_val *m, const char *key, const ib_val *dflt)
{
	return ib_map_has(m, key) ? get(m, key) : dflt;
}

/* ---- discovery ---- */

typedef struct {
	const char *path;
	double mtime;
	const ib_val *data;
} lmfile;

static double mtime_of(const char *path)
{
	struct stat sb;
	if (stat(path, &sb))
		return 0;
	return (double)sb.st_mtim.tv_sec + (double)sb.st_mtim.tv_nsec * 1e-9;
}

static bool conc_of(const char *path, int64_t *conc)
{
	const char *d;
	size_t l;
	return ev_conc_suffix(path, &d, &l) && ib_py_int(d, l, conc);
}

/* detect_lm_eval_jsons: *out (malloc'd) holds the chosen files. */
static int detect(cstate *st, const char *dir, bool batched, lmfile **out, size_t *nout)
{
	*out = NULL;
	*nout = 0;
	size_t n, ncand = 0, cap = 0;
	char **names = list_dir(st->a, dir, &n);
	lmfile *cand = NULL;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(names[i]);
		if (l < 5 || strcmp(names[i] + l - 5, ".json") != 0 ||
		    !strcmp(names[i], "meta_env.json"))
			continue;
		char *p = join(st->a, dir, names[i]);
		if (!p) {
			free(names);
			free(cand);
			return nomem(st);
		}
		ib_val *data;
		char msg[64];
		if (ev_load_json(st->a, p, &data, msg, sizeof msg, NULL) != EV_LOAD_OK ||
		    data->type != IB_V_MAP || !ib_map_has(data, "lm_eval_version"))
			continue;
		if (ib_grow(&cand, &cap, ncand + 1)) {
			free(names);
			free(cand);
			return nomem(st);
		}
		cand[ncand++] = (lmfile){p, mtime_of(p), data};
	}
	free(names);
	if (!ncand) {
		free(cand);
		return 0;
	}
	if (!batched) {
		size_t best = 0;
		for (size_t i = 1; i < ncand; i++)
			if (cand[i].mtime > cand[best].mtime)
				best = i;
		cand[0] = cand[best];
		*out = cand;
		*nout = 1;
		return 0;
	}
	/* the newest file per _concN, in concurrency order */
	int64_t *concs = calloc(ncand, sizeof *concs);
	lmfile *sel = calloc(ncand, sizeof *sel);
	size_t nsel = 0;
	if (!concs || !sel) {
		free(concs);
		free(sel);
		free(cand);
		return nomem(st);
	}
	for (size_t i = 0; i < ncand; i++) {
		int64_t c;
		if (!conc_of(cand[i].path, &c))
			continue;
		size_t j = 0;
		while (j < nsel && concs[j] != c)
			j++;
		if (j == nsel) {
			concs[nsel] = c;
			sel[nsel++] = cand[i];
		} else if (cand[i].mtime > sel[j].mtime) {
			sel[j] = cand[i];
		}
	}
	/* insertion sort by concurrency (distinct keys) */
	for (size_t i = 1; i < nsel; i++)
		for (size_t j = i; j > 0 && concs[j - 1] > concs[j]; j--) {
			int64_t tc = concs[j];
			concs[j] = concs[j - 1];
			concs[j - 1] = tc;
			lmfile tf = sel[j];
			sel[j] = sel[j - 1];
			sel[j - 1] = tf;
		}
	free(concs);
	free(cand);
	*out = sel;
	*nout = nsel;
	return 0;
}

/* ---- metrics and rows ---- */

typedef struct {
	const ib_val *task, *strict, *strict_se, *flex, *flex_se, *acc, *acc_se, *n_eff, *model;
	const char *source;
} metrics;

/* task_results.get(key): task_results must be a dict */
static int tr_get(cstate *st, const ib_val *tr, const ib_val *task, const char *key,
                  const ib_val **out)
{
	if (tr->type != IB_V_MAP)
		return shape(st, "field 'results.%s': must be an object, not %s", task->str.s,
		             ib_vtype_pyname(tr));
	*out = get(tr, key);
	return 0;
}

static int val_se(cstate *st, const ib_val *tr, const ib_val *task, const char *base,
                  const ib_val *fname, const ib_val **v, const ib_val **se)
{
	ib_buf k1 = {0}, k2 = {0};
	ib_buf_printf(&k1, "%s,", base);
	ib_val_pystr(&k1, fname);
	ib_buf_printf(&k2, "%s_stderr,", base);
	ib_val_pystr(&k2, fname);
	int rc = tr_get(st, tr, task, k1.data ? k1.data : "", v);
	rc = rc ? rc : tr_get(st, tr, task, k2.data ? k2.data : "", se);
	ib_buf_free(&k1);
	ib_buf_free(&k2);
	return rc;
}

static bool contains(const ib_val *hay, const char *needle)
{
	ib_val k = {.type = IB_V_STR, .str = {.s = needle, .len = strlen(needle)}};
	return ev_py_in(hay, &k) == 1;
}

/* extract_lm_metrics for one file: appends to *ms */
static int extract(cstate *st, const lmfile *f, metrics **ms, size_t *nms, size_t *cap)
{
	st->file = f->path;
	const ib_val *data = f->data;
	const ib_val *res = get_or(data, "results", NULL);
	const ib_val *cfgs = get_or(data, "configs", NULL);
	if (!res || !ib_val_truthy(res))
		return 0;
	if (res->type != IB_V_MAP)
		return shape(st, "field 'results': must be an object, not %s",
		             ib_vtype_pyname(res));
	static ib_val empty = {.type = IB_V_MAP};
	if (!cfgs)
		cfgs = &empty;
	if (cfgs->type != IB_V_MAP)
		return shape(st, "field 'configs': must be an object, not %s",
		             ib_vtype_pyname(cfgs));
	for (size_t t = 0; t < res->map.n; t++) {
		const ib_val *task = res->map.kv[t].key, *tr = res->map.kv[t].val;
		const ib_val *tc = get_or(cfgs, task->str.s, &empty);
		if (tc->type != IB_V_MAP)
			return shape(st, "field 'configs.%s': must be an object, not %s",
			             task->str.s, ib_vtype_pyname(tc));
		const ib_val *ml = get_or(tc, "metric_list", NULL);
		ib_buf base = {0};
		if (ml && ib_val_truthy(ml)) {
			const ib_val *m0 = ml->type == IB_V_LIST ? ml->list.v[0] : NULL;
			if (!m0 || m0->type != IB_V_MAP || !ib_map_has(m0, "metric"))
				return shape(
				    st, "field 'configs.%s.metric_list': needs [{\"metric\": ...}]",
				    task->str.s);
			ib_val_pystr(&base, get(m0, "metric"));
		} else {
			ib_buf_puts(&base, "exact_match");
		}
		const char *bm = base.data ? base.data : "";
		metrics m = {.task = task, .source = f->path};
		const ib_val *fl = get_or(tc, "filter_list", NULL);
		int rc = 0;
		if (!fl || !ib_val_truthy(fl)) {
			int in = ev_py_in(
			    tr, &(ib_val){.type = IB_V_STR, .str = {.s = "acc", .len = 3}});
			if (in < 0)
				rc = shape(st, "field 'results.%s': must be an object, not %s",
				           task->str.s, ib_vtype_pyname(tr));
			else if (in) {
				rc = tr_get(st, tr, task, "acc", &m.acc);
				rc = rc ? rc : tr_get(st, tr, task, "acc_stderr", &m.acc_se);
			} else {
				ib_buf k = {0};
				ib_buf_printf(&k, "%s_stderr", bm);
				rc = tr_get(st, tr, task, bm, &m.strict);
				rc = rc ? rc : tr_get(st, tr, task, k.data, &m.strict_se);
				ib_buf_free(&k);
			}
		} else if (fl->type != IB_V_LIST) {
			rc = shape(
			    st, "field 'configs.%s.filter_list': must be a list of {\"name\": ...}",
			    task->str.s);
		} else {
			for (size_t i = 0; i < fl->list.n && !rc; i++) {
				const ib_val *fi = fl->list.v[i];
				const ib_val *fname = fi->type == IB_V_MAP ? get(fi, "name") : NULL;
				if (!fname ||
				    ev_py_in(fname, &(ib_val){.type = IB_V_STR,
				                              .str = {.s = "", .len = 0}}) < 0) {
					rc = shape(
					    st,
					    "field 'configs.%s.filter_list': each filter needs a "
					    "\"name\" (a string)",
					    task->str.s);
					break;
				}
				if (contains(fname, "strict") || contains(fname, "resolved"))
					rc = val_se(st, tr, task, bm, fname, &m.strict,
					            &m.strict_se);
				else if (contains(fname, "flex") || contains(fname, "extract"))
					rc = val_se(st, tr, task, bm, fname, &m.flex, &m.flex_se);
			}
		}
		ib_buf_free(&base);
		if (rc)
			return rc;
		/* n-samples[task].effective */
		const ib_val *ns = get_or(data, "n-samples", &empty);
		if (ns->type != IB_V_MAP)
			return shape(st, "field 'n-samples': must be an object, not %s",
			             ib_vtype_pyname(ns));
		const ib_val *nt = get_or(ns, task->str.s, &empty);
		if (nt->type != IB_V_MAP)
			return shape(st, "field 'n-samples.%s': must be an object, not %s",
			             task->str.s, ib_vtype_pyname(nt));
		m.n_eff = get(nt, "effective");
		/* model_name, else configs[task].metadata.model */
		const ib_val *mn = get(data, "model_name");
		if (mn && ib_val_truthy(mn)) {
			m.model = mn;
		} else {
			const ib_val *md = get_or(tc, "metadata", &empty);
			if (md->type != IB_V_MAP)
				return shape(
				    st, "field 'configs.%s.metadata': must be an object, not %s",
				    task->str.s, ib_vtype_pyname(md));
			m.model = get(md, "model");
		}
		if (ib_grow(ms, cap, *nms + 1))
			return nomem(st);
		(*ms)[(*nms)++] = m;
	}
	return 0;
}

#define SET(key, v)                                                                                \
	do {                                                                                       \
		ib_val *v_ = (v);                                                                  \
		if (!v_ || ib_map_set(a, row, key, v_))                                            \
			return nomem(st);                                                          \
	} while (0)

static ib_val *or_null(ib_arena *a, const ib_val *v)
{
	return v ? (ib_val *)v : ib_v_null(a);
}

/* build_row */
static int build_row(cstate *st, const ib_val *meta, const metrics *m, bool has_conc, int64_t conc,
                     ib_val *rows)
{
	ib_arena *a = st->a;
	bool multi = as_bool(get(meta, "is_multinode"), false);
	const ib_val *tp = get(meta, "tp"), *ep = get(meta, "ep");
	int64_t ptp =
	    as_int(get_or(meta, "prefill_tp", tp ? tp : &(ib_val){.type = IB_V_INT, .i = 1}), 1);
	int64_t pep =
	    as_int(get_or(meta, "prefill_ep", ep ? ep : &(ib_val){.type = IB_V_INT, .i = 1}), 1);
	int64_t pnw = as_int(get_or(meta, "prefill_num_workers", NULL), 1);
	int64_t dtp =
	    as_int(get_or(meta, "decode_tp", tp ? tp : &(ib_val){.type = IB_V_INT, .i = 1}), 1);
	int64_t dep =
	    as_int(get_or(meta, "decode_ep", ep ? ep : &(ib_val){.type = IB_V_INT, .i = 1}), 1);
	int64_t dnw = as_int(get_or(meta, "decode_num_workers", NULL), 1);
	static ib_val none_str = IB_KEY_INIT("none");
	static ib_val null_v = {.type = IB_V_NULL};
	const ib_val *pda = get(meta, "prefill_dp_attention"),
	             *dda = get(meta, "decode_dp_attention");
	const ib_val *dpa = get_or(meta, "dp_attention", &none_str);
	if (!dpa)
		dpa = &null_v;
	if (!pda || pda->type == IB_V_NULL)
		pda = dpa;
	if (!dda || dda->type == IB_V_NULL)
		dda = dpa;
	ib_val *dpa_out = NULL;
	if (multi && !ib_val_equal(pda, dda)) {
		ib_buf b = {0};
		ib_buf_puts(&b, "prefill=");
		ib_val *x = str_lower(a, pda), *y = str_lower(a, dda);
		if (!x || !y)
			return nomem(st);
		ib_buf_puts(&b, x->str.s);
		ib_buf_puts(&b, ",decode=");
		ib_buf_puts(&b, y->str.s);
		dpa_out =
		    str_lower(a, &(ib_val){.type = IB_V_STR, .str = {.s = b.data, .len = b.len}});
		ib_buf_free(&b);
	} else {
		dpa_out = str_lower(a, multi ? pda : dpa);
	}
	const ib_val *hw = get_or(meta, "hw", NULL), *fw = get_or(meta, "framework", NULL),
	             *pr = get_or(meta, "precision", NULL);
	const char *bad = hw && hw->type != IB_V_STR   ? "hw"
	                  : fw && fw->type != IB_V_STR ? "framework"
	                  : pr && pr->type != IB_V_STR ? "precision"
	                                               : NULL;
	if (bad) {
		const ib_val *b = !strcmp(bad, "hw") ? hw : !strcmp(bad, "framework") ? fw : pr;
		return shape(st, "field '%s': must be a string, not %s", bad, ib_vtype_pyname(b));
	}
	ib_val *row = ib_v_map_cap(a, 32);
	if (!row)
		return nomem(st);
	static ib_val unknown = IB_KEY_INIT("unknown");
	SET("is_multinode", ib_v_bool(a, multi));
	SET("model_prefix", or_null(a, get_or(meta, "infmax_model_prefix", &unknown)));
	SET("model",
	    or_null(a, m->model && ib_val_truthy(m->model) ? m->model
	                                                   : get_or(meta, "model", &unknown)));
	SET("hw", hw ? str_case(a, hw->str.s, hw->str.len, true) : ib_v_str(a, "UNKNOWN"));
	SET("framework", fw ? str_case(a, fw->str.s, fw->str.len, false) : ib_v_str(a, "unknown"));
	SET("precision", pr ? str_case(a, pr->str.s, pr->str.len, false) : ib_v_str(a, "unknown"));
	SET("spec_decoding", or_null(a, get_or(meta, "spec_decoding", &unknown)));
	SET("isl", ib_v_int(a, as_int(get_or(meta, "isl", NULL), 0)));
	SET("osl", ib_v_int(a, as_int(get_or(meta, "osl", NULL), 0)));
	SET("tp", ib_v_int(a, tp || ib_map_has(meta, "tp") ? as_int(tp, ptp) : ptp));
	SET("ep", ib_v_int(a, ep || ib_map_has(meta, "ep") ? as_int(ep, pep) : pep));
	SET("prefill_tp", ib_v_int(a, ptp));
	SET("prefill_ep", ib_v_int(a, pep));
	SET("prefill_num_workers", ib_v_int(a, pnw));
	SET("decode_tp", ib_v_int(a, dtp));
	SET("decode_ep", ib_v_int(a, dep));
	SET("decode_num_workers", ib_v_int(a, dnw));
	SET("conc", ib_v_int(a, has_conc ? conc : as_int(get_or(meta, "conc", NULL), 0)));
	SET("dp_attention", dpa_out);
	SET("prefill_dp_attention", str_lower(a, pda));
	SET("decode_dp_attention", str_lower(a, dda));
	SET("task", (ib_val *)m->task);
	SET("em_strict", or_null(a, m->strict));
	SET("em_strict_se", or_null(a, m->strict_se));
	SET("em_flexible", or_null(a, m->flex));
	SET("em_flexible_se", or_null(a, m->flex_se));
	SET("n_eff", or_null(a, m->n_eff));
	SET("source", ib_v_str(a, m->source));
	if (m->strict && m->strict->type != IB_V_NULL) {
		SET("score", (ib_val *)m->strict);
		SET("score_name", ib_v_str(a, "em_strict"));
		SET("score_se", or_null(a, m->strict_se));
	} else if (m->acc && m->acc->type != IB_V_NULL) {
		SET("score", (ib_val *)m->acc);
		SET("score_name", ib_v_str(a, "accuracy"));
		SET("score_se", or_null(a, m->acc_se));
	} else {
		SET("score", ib_v_null(a));
		SET("score_name", ib_v_null(a));
		SET("score_se", ib_v_null(a));
	}
	return ib_list_push(a, rows, row) ? nomem(st) : 0;
}

/* One eval set: meta_env.json, its lm-eval files, their rows. */
static int collect_set(cstate *st, const char *dir, ib_val *rows)
{
	static ib_val empty = {.type = IB_V_MAP};
	char *mp = join(st->a, dir, "meta_env.json");
	if (!mp)
		return nomem(st);
	ib_val *meta = NULL;
	char msg[64];
	if (ev_load_json(st->a, mp, &meta, msg, sizeof msg, NULL) != EV_LOAD_OK ||
	    !ib_val_truthy(meta))
		meta = &empty;
	if (meta->type != IB_V_MAP) {
		st->file = mp;
		return shape(st, "must be a JSON object, not %s", ib_vtype_pyname(meta));
	}
	const ib_val *bc = get(meta, "eval_concs");
	bool batched = bc && bc->type == IB_V_LIST;
	const ib_val *allowed = NULL;
	if (batched) {
		const ib_val *cc = get_or(meta, "completed_eval_concs", bc);
		if (cc && cc->type == IB_V_LIST)
			allowed = cc;
	}
	lmfile *files;
	size_t nfiles;
	int rc = detect(st, dir, batched, &files, &nfiles);
	metrics *ms = NULL;
	size_t nms = 0, cap = 0;
	for (size_t i = 0; i < nfiles && !rc; i++) {
		int64_t conc = 0;
		if (batched) {
			if (!conc_of(files[i].path, &conc))
				continue;
			if (allowed) {
				bool ok = false;
				for (size_t k = 0; k < allowed->list.n && !ok; k++)
					ok = as_int(allowed->list.v[k], -1) == conc;
				if (!ok)
					continue;
			}
		}
		nms = 0;
		rc = extract(st, &files[i], &ms, &nms, &cap);
		st->file = mp;
		for (size_t k = 0; k < nms && !rc; k++)
			rc = build_row(st, meta, &ms[k], batched, conc, rows);
	}
	free(ms);
	free(files);
	return rc;
}

int ev_collect_rows(ib_arena *a, const char *root, ib_val **rows, ib_error *e)
{
	cstate st = {.a = a, .e = e};
	*rows = ib_v_list(a);
	char *r = *rows ? norm_root(a, root) : NULL;
	if (!r)
		return nomem(&st);
	char *m = join(a, r, "meta_env.json");
	if (!m)
		return nomem(&st);
	int rc = 0;
	if (exists(m))
		rc = collect_set(&st, r, *rows);
	size_t n;
	char **names = rc ? NULL : list_dir(a, r, &n);
	for (size_t i = 0; names && i < n && !rc; i++) {
		char *d = join(a, r, names[i]);
		char *dm = d ? join(a, d, "meta_env.json") : NULL;
		if (!dm) {
			rc = nomem(&st);
			break;
		}
		if (is_dir(d) && exists(dm))
			rc = collect_set(&st, d, *rows);
	}
	free(names);
	return rc;
}

/* ---- the report ---- */

/* Python a < b for sort keys; *bad on TypeError */
static bool py_lt(const ib_val *x, const ib_val *y, bool *bad)
{
	bool nx = x->type == IB_V_BOOL || x->type == IB_V_INT || x->type == IB_V_FLOAT;
	bool ny = y->type == IB_V_BOOL || y->type == IB_V_INT || y->type == IB_V_FLOAT;
	if (nx && ny) {
		long double a = x->type == IB_V_BOOL  ? (long double)x->b
		                : x->type == IB_V_INT ? (long double)x->i
		                                      : (long double)x->f;
		long double b = y->type == IB_V_BOOL  ? (long double)y->b
		                : y->type == IB_V_INT ? (long double)y->i
		                                      : (long double)y->f;
		return a < b;
	}
	if (x->type == IB_V_STR && y->type == IB_V_STR) {
		size_t n = x->str.len < y->str.len ? x->str.len : y->str.len;
		int c = memcmp(x->str.s, y->str.s, n);
		return c ? c < 0 : x->str.len < y->str.len;
	}
	if (x->type == IB_V_LIST && y->type == IB_V_LIST) {
		for (size_t i = 0; i < x->list.n && i < y->list.n; i++)
			if (!ib_val_equal(x->list.v[i], y->list.v[i]))
				return py_lt(x->list.v[i], y->list.v[i], bad);
		return x->list.n < y->list.n;
	}
	*bad = true;
	return false;
}

static const char *const single_key[] = {
    "model_prefix", "hw", "framework", "precision", "spec_decoding", "isl", "osl",
    "tp",           "ep", "conc",      NULL};
static const char *const multi_key[] = {
    "model_prefix", "hw",        "framework",          "precision",  "spec_decoding",
    "isl",          "osl",       "prefill_tp",         "prefill_ep", "prefill_num_workers",
    "decode_tp",    "decode_ep", "decode_num_workers", "conc",       NULL};

static bool key_lt(const ib_val *r1, const ib_val *r2, const char *const *key, bool *bad)
{
	for (; *key; key++) {
		const ib_val *x = get(r1, *key), *y = get(r2, *key);
		if (!ib_val_equal(x, y))
			return py_lt(x, y, bad);
	}
	return false;
}

/* stable merge sort of rows[0..n) by key */
static void sort_rows(const ib_val **v, const ib_val **tmp, size_t n, const char *const *key,
                      bool *bad)
{
	if (n < 2 || *bad)
		return;
	size_t h = n / 2;
	sort_rows(v, tmp, h, key, bad);
	sort_rows(v + h, tmp, n - h, key, bad);
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n)
		tmp[k++] = key_lt(v[j], v[i], key, bad) ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof *v);
}

/* float(x), or false where Python's float() raises */
static bool py_float(const ib_val *x, double *d)
{
	if (!x)
		return false;
	switch (x->type) {
	case IB_V_BOOL:
		*d = x->b;
		return true;
	case IB_V_INT:
		*d = (double)x->i;
		return true;
	case IB_V_FLOAT:
		*d = x->f;
		return true;
	case IB_V_STR:
		return ib_py_float(x->str.s, x->str.len, d);
	default:
		return false;
	}
}

static void pct2(ib_buf *b, double d)
{
	d *= 100;
	if (isnan(d))
		ib_buf_puts(b, "nan");
	else
		ib_buf_printf(b, "%.2f", d);
}

/* f"{pct(v)}{se(s)}" */
static ib_val *score_text(ib_arena *a, const ib_val *v, const ib_val *s)
{
	ib_buf b = {0};
	double d;
	if (py_float(v, &d)) {
		pct2(&b, d);
		ib_buf_putc(&b, '%');
	} else {
		ib_buf_puts(&b, "N/A");
	}
	if (py_float(s, &d)) {
		ib_buf_puts(&b, " \xc2\xb1");
		pct2(&b, d);
		ib_buf_putc(&b, '%');
	}
	ib_val *r = ib_v_strn(a, b.data ? b.data : "", b.len);
	ib_buf_free(&b);
	return r;
}

static int table(ib_arena *a, const ib_val **v, size_t n, bool multi, ib_buf *out)
{
	static const char *const sh[] = {
	    "Model Prefix", "Hardware",  "Framework",   "Precision", "Spec Decode",  "ISL",
	    "OSL",          "TP",        "EP",          "Conc",      "DP Attention", "Task",
	    "Score",        "EM Strict", "EM Flexible", "N (eff)",   "Model"};
	static const char *const mh[] = {"Model Prefix",
	                                 "Hardware",
	                                 "Framework",
	                                 "Precision",
	                                 "Spec Decode",
	                                 "ISL",
	                                 "OSL",
	                                 "Prefill TP",
	                                 "Prefill EP",
	                                 "Prefill DP Attn",
	                                 "Prefill Workers",
	                                 "Decode TP",
	                                 "Decode EP",
	                                 "Decode DP Attn",
	                                 "Decode Workers",
	                                 "Conc",
	                                 "Task",
	                                 "Score",
	                                 "EM Strict",
	                                 "EM Flexible",
	                                 "N (eff)",
	                                 "Model"};
	static const char *const sf[] = {
	    "model_prefix", "hw",        "framework",   "precision", "spec_decoding", "isl",
	    "osl",          "tp",        "ep",          "conc",      "dp_attention",  "task",
	    "score",        "em_strict", "em_flexible", "n_eff",     "model"};
	static const char *const mf[] = {"model_prefix",
	                                 "hw",
	                                 "framework",
	                                 "precision",
	                                 "spec_decoding",
	                                 "isl",
	                                 "osl",
	                                 "prefill_tp",
	                                 "prefill_ep",
	                                 "prefill_dp_attention",
	                                 "prefill_num_workers",
	                                 "decode_tp",
	                                 "decode_ep",
	                                 "decode_dp_attention",
	                                 "decode_num_workers",
	                                 "conc",
	                                 "task",
	                                 "score",
	                                 "em_strict",
	                                 "em_flexible",
	                                 "n_eff",
	                                 "model"};
	const char *const *hd = multi ? mh : sh, *const *fd = multi ? mf : sf;
	size_t nc = multi ? sizeof mh / sizeof *mh : sizeof sh / sizeof *sh;
	const ib_val **cells = calloc(nc * n + 1, sizeof *cells);
	if (!cells)
		return IB_ENOMEM;
	int rc = 0;
	for (size_t r = 0; r < n && !rc; r++) {
		for (size_t c = 0; c < nc; c++) {
			const char *f = fd[c];
			const ib_val *x = get(v[r], f);
			ib_val *cell = (ib_val *)x;
			if (!strcmp(f, "framework") || !strcmp(f, "precision"))
				cell = str_case(a, x->str.s, x->str.len, true);
			else if (!strcmp(f, "score"))
				cell = score_text(a, x, get(v[r], "score_se"));
			else if (!strcmp(f, "em_strict"))
				cell = score_text(a, x, get(v[r], "em_strict_se"));
			else if (!strcmp(f, "em_flexible"))
				cell = score_text(a, x, get(v[r], "em_flexible_se"));
			else if (!strcmp(f, "n_eff") && !ib_val_truthy(x))
				cell = ib_v_str(a, "");
			if (!cell) {
				rc = IB_ENOMEM;
				break;
			}
			cells[r * nc + c] = cell;
		}
	}
	rc = rc ? rc : ib_table_github(out, hd, nc, cells, n);
	rc = rc ? rc : ib_buf_putc(out, '\n');
	free(cells);
	return rc;
}

int ev_collect_report(const ib_val *rows, const char *sort_by, ib_buf *out, ib_error *e)
{
	size_t n = rows->list.n, ns = 0, nm = 0;
	const ib_val **sv = calloc(n + 1, sizeof *sv), **mv = calloc(n + 1, sizeof *mv),
	             **tmp = calloc(n + 1, sizeof *tmp);
	ib_arena *a = ib_arena_new();
	int rc = 0;
	if (!sv || !mv || !tmp || !a) {
		rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		const ib_val *r = rows->list.v[i];
		if (ib_val_truthy(get(r, "is_multinode")))
			mv[nm++] = r;
		else
			sv[ns++] = r;
	}
	bool by_hw = sort_by && !strcmp(sort_by, "hw");
	bool bad = false;
	sort_rows(sv, tmp, ns, single_key + (by_hw ? 1 : 0), &bad);
	sort_rows(mv, tmp, nm, multi_key + (by_hw ? 1 : 0), &bad);
	if (bad) {
		rc = ib_fail(e, IB_EINVAL, NULL, 0, 0,
		             "the rows' sort keys do not compare (e.g. a number against a string "
		             "in model_prefix or spec_decoding)");
		goto done;
	}
	if (!n) {
		rc = ib_buf_puts(out, "> No eval results found to summarize.\n");
		goto done;
	}
	if (ns) {
		rc = ib_buf_puts(out, "### Single-Node Eval Results\n\n");
		rc = rc ? rc : table(a, sv, ns, false, out);
	}
	if (nm && !rc) {
		if (ns)
			rc = ib_buf_puts(out, "\n\n");
		rc = rc ? rc : ib_buf_puts(out, "### Multi-Node Eval Results\n\n");
		rc = rc ? rc : table(a, mv, nm, true, out);
	}
	if (rc)
		rc = ib_fail(e, rc, NULL, 0, 0, "out of memory");
done:
	free(sv);
	free(mv);
	free(tmp);
	ib_arena_free(a);
	return rc;
}

int ev_collect(const char *root, const char *name, const char *sort_by, ib_buf *out, ib_error *e)
{
	ib_arena *a = ib_arena_new();
	if (!a)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	ib_val *rows;
	int rc = ev_collect_rows(a, root, &rows, e);
	rc = rc ? rc : ev_collect_report(rows, sort_by, out, e);
	if (!rc) {
		ib_json_opts jo = IB_JSON_PYTHON;
		jo.indent = 2;
		char *path = ib_arena_printf(a, "agg_eval_%s.json", name);
		rc = path ? ib_json_write_path(path, rows, &jo, e)
		          : ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	}
	ib_arena_free(a);
	return rc;
}
