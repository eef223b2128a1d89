#include "config/schema.h"

#include <stdio.h>
#include <string.h>

size_t sch_push(vctx *c, const char *fmt, ...)
{
	size_t mark = c->plen;
	char part[256];
	const char *src = part;
	if (strcmp(fmt, "%s") == 0) { /* the common case, without printf */
		va_list ap;
		va_start(ap, fmt);
		src = va_arg(ap, const char *);
		va_end(ap);
	} else {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(part, sizeof part, fmt, ap);
		va_end(ap);
	}
	size_t n = strlen(src);
	bool dot = c->plen && src[0] != '[';
	if (c->plen + n + 2 >= sizeof c->path)
		return mark; /* too deep to name; keep the prefix */
	if (dot)
		c->path[c->plen++] = '.';
	memcpy(c->path + c->plen, src, n + 1);
	c->plen += n;
	return mark;
}

void sch_pop(vctx *c, size_t mark)
{
	c->plen = mark;
	c->path[mark] = '\0';
}

void sch_fail(vctx *c, const ib_val *node, const char *key, const char *fmt, ...)
{
	const ib_val *at = node;
	const ib_val *got = NULL;
	size_t mark = c->plen;
	if (key) {
		const ib_kv *kv = ib_map_find(node, key);
		if (kv) {
			at = kv->val->line ? kv->val : kv->key;
			got = kv->val;
		}
		sch_push(c, "%s", key);
	}
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	cfg_problem(c->d, at ? at->file : NULL, at ? at->line : 0, at ? at->col : 0, c->entry,
	            c->path, got, "%s", msg);
	sch_pop(c, mark);
}

int cfg_problem(ib_diags *d, const char *file, int line, int col, const char *entry,
                const char *path, const ib_val *got, const char *fmt, ...)
{
	char r[512];
	if (got)
		ib_val_repr(got, r, sizeof r);
	ib_diag g = {.severity = IB_SEV_ERROR,
	             .file = file,
	             .line = line,
	             .col = col,
	             .kind = "entry",
	             .subject = entry,
	             .field = path,
	             .got = got ? r : NULL};
	va_list ap;
	va_start(ap, fmt);
	int rc = ib_diag_addv(d, &g, fmt, ap);
	va_end(ap);
	return rc;
}

/* A problem about value v itself at the current path. */
static void fail_val(vctx *c, const ib_val *v, const char *msg)
{
	cfg_problem(c->d, v->file, v->line, v->col, c->entry, c->path, v, "%s", msg);
}

static bool check_field(vctx *c, const field *f, const ib_val *v)
{
	int64_t i;
	bool b;
	double x;
	switch (f->t) {
	case FT_STR:
	case FT_STR1:
	case FT_VERSION:
		if (v->type != IB_V_STR) {
			fail_val(c, v, "should be a string");
			return false;
		}
		if (f->t != FT_STR && v->str.len == 0) {
			fail_val(c, v, "should have at least 1 character");
			return false;
		}
		if (f->t == FT_VERSION && ib_str_has_prefix(v->str.s, "image:")) {
			fail_val(c, v,
			         "component version must be a release, package version, or "
			         "source commit, not an image reference");
			return false;
		}
		return true;
	case FT_INT:
	case FT_INT_POS:
		if (!cfg_lax_int(v, &i)) {
			fail_val(c, v, "should be an integer");
			return false;
		}
		if (f->t == FT_INT_POS && i <= 0) {
			fail_val(c, v, "should be greater than 0");
			return false;
		}
		return true;
	case FT_SINT_POS:
		if (v->type != IB_V_INT) {
			fail_val(c, v, "should be an integer (strict: no bool, float or string)");
			return false;
		}
		if (v->i <= 0) {
			fail_val(c, v, "should be greater than 0");
			return false;
		}
		return true;
	case FT_BOOL:
		if (!cfg_lax_bool(v, &b)) {
			fail_val(c, v, "should be a boolean");
			return false;
		}
		return true;
	case FT_FALSE:
		if (!((v->type == IB_V_BOOL && !v->b) || (v->type == IB_V_INT && v->i == 0))) {
			fail_val(c, v, "should be false");
			return false;
		}
		return true;
	case FT_TRUE:
		if (!((v->type == IB_V_BOOL && v->b) || (v->type == IB_V_INT && v->i == 1))) {
			fail_val(c, v, "should be true");
			return false;
		}
		return true;
	case FT_SPEC:
		if (v->type != IB_V_STR ||
		    (strcmp(v->str.s, "mtp") && strcmp(v->str.s, "draft_model") &&
		     strcmp(v->str.s, "none"))) {
			fail_val(c, v, "should be 'mtp', 'draft_model' or 'none'");
			return false;
		}
		return true;
	case FT_KVOFF:
		if (v->type != IB_V_STR || (strcmp(v->str.s, "none") && strcmp(v->str.s, "dram"))) {
			fail_val(c, v, "should be 'none' or 'dram'");
			return false;
		}
		return true;
	case FT_UTIL:
		if (!cfg_lax_float(v, &x)) {
			fail_val(c, v, "should be a number");
			return false;
		}
		if (!(x > 0)) {
			fail_val(c, v, "should be greater than 0");
			return false;
		}
		if (!(x <= 1)) {
			fail_val(c, v, "should be less than or equal to 1");
			return false;
		}
		return true;
	case FT_INT_LIST:
	case FT_STR_LIST: {
		if (v->type != IB_V_LIST) {
			fail_val(c, v, "should be a list");
			return false;
		}
		bool ok = true;
		for (size_t k = 0; k < v->list.n; k++) {
			const ib_val *it = v->list.v[k];
			size_t m = sch_push(c, "[%zu]", k);
			if (f->t == FT_INT_LIST && !cfg_lax_int(it, &i)) {
				fail_val(c, it, "should be an integer");
				ok = false;
			} else if (f->t == FT_STR_LIST && it->type != IB_V_STR) {
				fail_val(c, it, "should be a string");
				ok = false;
			}
			sch_pop(c, m);
		}
		return ok;
	}
	case FT_MODEL:
		return sch_validate(c, f->sub, v);
	case FT_MODEL_LIST: {
		if (v->type != IB_V_LIST) {
			fail_val(c, v, "should be a list");
			return false;
		}
		bool ok = true;
		for (size_t k = 0; k < v->list.n; k++) {
			size_t m = sch_push(c, "[%zu]", k);
			ok &= sch_validate(c, f->sub, v->list.v[k]);
			sch_pop(c, m);
		}
		return ok;
	}
	case FT_MODEL_DICT: {
		if (v->type != IB_V_MAP) {
			fail_val(c, v, "should be a mapping");
			return false;
		}
		bool ok = true;
		for (size_t k = 0; k < v->map.n; k++) {
			const ib_kv *kv = &v->map.kv[k];
			if (kv->key->type != IB_V_STR) {
				fail_val(c, kv->key, "keys should be strings");
				ok = false;
				continue;
			}
			size_t m = sch_push(c, "%s", kv->key->str.s);
			ok &= sch_validate(c, f->sub, kv->val);
			sch_pop(c, m);
		}
		return ok;
	}
	}
	return false;
}

static const field *find_field(const model *m, const ib_val *key)
{
	if (key->type != IB_V_STR)
		return NULL;
	for (size_t i = 0; i < m->nfields; i++)
		if (strcmp(m->fields[i].name, key->str.s) == 0)
			return &m->fields[i];
	return NULL;
}

/* The hyphenated field that an underscore spelling stands for, if any. */
static const char *alias_of(const model *m, const char *key)
{
	char hy[128];
	snprintf(hy, sizeof hy, "%s", key);
	bool changed = false;
	for (char *p = hy; *p; p++)
		if (*p == '_') {
			*p = '-';
			changed = true;
		}
	if (!changed)
		return NULL;
	for (size_t i = 0; i < m->nfields; i++)
		if (strcmp(m->fields[i].name, hy) == 0)
			return m->fields[i].name;
	return NULL;
}

bool sch_validate(vctx *c, const model *m, const ib_val *node)
{
	if (node->type != IB_V_MAP) {
		fail_val(c, node, "should be a mapping");
		return false;
	}
	bool ok = true;
	for (size_t i = 0; i < node->map.n; i++) {
		const ib_val *k = node->map.kv[i].key;
		if (find_field(m, k))
			continue;
		char kr[256];
		if (k->type == IB_V_STR)
			snprintf(kr, sizeof kr, "%s", k->str.s);
		else
			ib_val_repr(k, kr, sizeof kr);
		size_t mark = sch_push(c, "%s", kr);
		const char *hy = k->type == IB_V_STR ? alias_of(m, k->str.s) : NULL;
		if (hy)
			cfg_problem(c->d, k->file, k->line, k->col, c->entry, c->path, NULL,
			            "unknown field; write it with hyphens: '%s'", hy);
		else
			cfg_problem(c->d, k->file, k->line, k->col, c->entry, c->path, NULL,
			            "unknown field (not allowed in %s)", m->name);
		sch_pop(c, mark);
		ok = false;
	}
	for (size_t i = 0; i < m->nfields; i++) {
		const field *f = &m->fields[i];
		const ib_val *v = ib_map_get(node, f->name);
		size_t mark = sch_push(c, "%s", f->name);
		if (!v || (v->type == IB_V_NULL && f->pres == P_OPT)) {
			if (!v && f->pres == P_REQ) {
				cfg_problem(c->d, node->file, node->line, node->col, c->entry,
				            c->path, NULL, "required field is missing");
				ok = false;
			}
		} else if (!check_field(c, f, v)) {
			ok = false;
		}
		sch_pop(c, mark);
	}
	if (ok && m->after)
		ok = m->after(c, node);
	return ok;
}
