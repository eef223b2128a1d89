/* The Weka trace format (AX1): parsing with file:line errors, loading a
 * corpus from a file, a folder or the Hugging Face cache, and writing. */
#include "agentx/agentx.h"
#include "fmt/fmt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OOM(e) ib_fail((e), IB_ENOMEM, "", 0, 0, "out of memory")

/* Where we are, for messages: file, line, trace id and the field path.
 * a: the corpus's arena (what the traces keep); s: a scratch arena, freed
 * after each record, for its JSON tree and the field paths of messages. */
typedef struct {
	ib_arena *a, *s;
	const char *file;
	int line;
	const char *id;
	ib_error *e;
} ctx;

static int bad(const ctx *c, const char *path, const char *fmt, const char *what)
{
	if (c->id)
		return ib_fail(c->e, IB_EINVAL, c->file, c->line, 0, "trace '%s': %s: %s%s", c->id,
		               path, fmt, what ? what : "");
	return ib_fail(c->e, IB_EINVAL, c->file, c->line, 0, "%s: %s%s", path, fmt,
	               what ? what : "");
}

static bool num(const ib_val *v, double *out)
{
	if (!v || (v->type != IB_V_INT && v->type != IB_V_FLOAT))
		return false;
	*out = v->type == IB_V_INT ? (double)v->i : v->f;
	return isfinite(*out);
}

/* An optional non-negative number field (dflt when absent or null). */
static int get_num(const ctx *c, const ib_val *m, const char *key, const char *path, bool required,
                   double dflt, double *out)
{
	const ib_val *v = ib_map_get(m, key);
	*out = dflt;
	if (!v || v->type == IB_V_NULL) {
		if (!required)
			return 0;
		return bad(c, path, "missing field '", ib_arena_printf(c->s, "%s'", key));
	}
	if (!num(v, out) || *out < 0)
		return bad(c, ib_arena_printf(c->s, "%s.%s", path, key),
		           "must be a non-negative number, not ", ib_vtype_pyname(v));
	return 0;
}

static int get_int(const ctx *c, const ib_val *m, const char *key, const char *path, bool required,
                   int64_t dflt, int64_t *out)
{
	const ib_val *v = ib_map_get(m, key);
	*out = dflt;
	if (!v || v->type == IB_V_NULL) {
		if (!required)
			return 0;
		return bad(c, path, "missing field '", ib_arena_printf(c->s, "%s'", key));
	}
	if (v->type != IB_V_INT || v->i < 0)
		return bad(c, ib_arena_printf(c->s, "%s.%s", path, key),
		           "must be a non-negative integer, not ",
		           v->type == IB_V_INT ? "negative" : ib_vtype_pyname(v));
	*out = v->i;
	return 0;
}

static int get_str(const ctx *c, const ib_val *m, const char *key, const char *path, bool required,
                   const char **out)
{
	const ib_val *v = ib_map_get(m, key);
	*out = NULL;
	if (!v || v->type == IB_V_NULL) {
		if (!required)
			return 0;
		return bad(c, path, "missing field '", ib_arena_printf(c->s, "%s'", key));
	}
	if (v->type != IB_V_STR || (required && !v->str.len))
		return bad(c, ib_arena_printf(c->s, "%s.%s", path, key),
		           "must be a non-empty string, not ", ib_vtype_pyname(v));
	if (!(*out = ib_arena_strndup(c->a, v->str.s, v->str.len)))
		return OOM(c->e);
	return 0;
}

static int get_strs(const ctx *c, const ib_val *m, const char *key, const char *path,
                    const char ***out, size_t *n)
{
	const ib_val *v = ib_map_get(m, key);
	*out = NULL;
	*n = 0;
	if (!v || v->type == IB_V_NULL)
		return 0;
	if (v->type != IB_V_LIST)
		return bad(c, ib_arena_printf(c->s, "%s.%s", path, key), "must be a list, not ",
		           ib_vtype_pyname(v));
	if (!(*out = ib_arena_alloc(c->a, (v->list.n + 1) * sizeof **out)))
		return OOM(c->e);
	for (size_t i = 0; i < v->list.n; i++) {
		if (v->list.v[i]->type != IB_V_STR)
			return bad(c, ib_arena_printf(c->s, "%s.%s[%zu]", path, key, i),
			           "must be a string, not ", ib_vtype_pyname(v->list.v[i]));
		if (!((*out)[i] =
		          ib_arena_strndup(c->a, v->list.v[i]->str.s, v->list.v[i]->str.len)))
			return OOM(c->e);
	}
	*n = v->list.n;
	return 0;
}

/* One request (type n or s) at path. */
static int parse_request(const ctx *c, const ib_val *q, const char *path, ax_request *r)
{
	int rc;
	const char *ty;
	memset(r, 0, sizeof *r);
	if ((rc = get_str(c, q, "type", path, true, &ty)))
		return rc;
	if (strcmp(ty, "n") && strcmp(ty, "s"))
		return bad(c, ib_arena_printf(c->s, "%s.type", path),
		           "must be \"n\", \"s\" or \"subagent\", not ",
		           ib_arena_printf(c->s, "\"%s\"", ty));
	r->type = ty[0];
	if ((rc = get_num(c, q, "t", path, true, 0, &r->t)) ||
	    (rc = get_str(c, q, "model", path, false, &r->model)) ||
	    (rc = get_int(c, q, "in", path, true, 0, &r->in)))
		return rc;
	const char *ok = ib_map_has(q, "out") ? "out" : "output_length";
	if ((rc = get_int(c, q, ok, path, true, 0, &r->out)) ||
	    (rc = get_num(c, q, "api_time", path, false, 0, &r->api_time)) ||
	    (rc = get_num(c, q, "think_time", path, false, 0, &r->think_time)))
		return rc;
	const ib_val *tt = ib_map_get(q, "ttft");
	if (tt && tt->type != IB_V_NULL) {
		if ((rc = get_num(c, q, "ttft", path, true, 0, &r->ttft)))
			return rc;
		r->has_ttft = true;
	}
	const ib_val *h = ib_map_get(q, "hash_ids");
	if (!h)
		return bad(c, path, "missing field 'hash_ids'", NULL);
	if (h->type != IB_V_LIST)
		return bad(c, ib_arena_printf(c->s, "%s.hash_ids", path), "must be a list, not ",
		           ib_vtype_pyname(h));
	int64_t *ids = ib_arena_alloc(c->a, (h->list.n + 1) * sizeof *ids);
	if (!ids)
		return OOM(c->e);
	for (size_t i = 0; i < h->list.n; i++) {
		if (h->list.v[i]->type != IB_V_INT)
			return bad(c, ib_arena_printf(c->s, "%s.hash_ids[%zu]", path, i),
			           "must be an integer, not ", ib_vtype_pyname(h->list.v[i]));
		ids[i] = h->list.v[i]->i;
	}
	r->hash_ids = ids, r->nhash = h->list.n;
	return 0;
}

static int parse_subagent(const ctx *c, const ib_val *q, const char *path, ax_subagent *s)
{
	int rc;
	memset(s, 0, sizeof *s);
	if ((rc = get_num(c, q, "t", path, true, 0, &s->t)) ||
	    (rc = get_str(c, q, "agent_id", path, true, &s->agent_id)) ||
	    (rc = get_str(c, q, "subagent_type", path, false, &s->subagent_type)) ||
	    (rc = get_str(c, q, "status", path, false, &s->status)) ||
	    (rc = get_int(c, q, "duration_ms", path, false, -1, &s->duration_ms)) ||
	    (rc = get_int(c, q, "total_tokens", path, false, -1, &s->total_tokens)) ||
	    (rc = get_strs(c, q, "models", path, &s->models, &s->nmodels)))
		return rc;
	const ib_val *rq = ib_map_get(q, "requests");
	if (!rq || rq->type != IB_V_LIST)
		return bad(c, ib_arena_printf(c->s, "%s.requests", path),
		           rq ? "must be a list, not " : "missing",
		           rq ? ib_vtype_pyname(rq) : NULL);
	if (!(s->req = ib_arena_alloc(c->a, (rq->list.n + 1) * sizeof *s->req)))
		return OOM(c->e);
	for (size_t i = 0; i < rq->list.n; i++) {
		const ib_val *x = rq->list.v[i];
		const char *p = ib_arena_printf(c->s, "%s.requests[%zu]", path, i);
		if (!p)
			return OOM(c->e);
		if (x->type != IB_V_MAP)
			return bad(c, p, "must be an object, not ", ib_vtype_pyname(x));
		const ib_val *ty = ib_map_get(x, "type");
		if (ty && ty->type == IB_V_STR && !strcmp(ty->str.s, "subagent"))
			return bad(c, p, "a subagent cannot spawn subagents", NULL);
		if ((rc = parse_request(c, x, p, &s->req[i])))
			return rc;
	}
	s->nreq = rq->list.n;
	return 0;
}

static int parse_trace(ctx *c, const ib_val *v, ax_trace *t)
{
	int rc;
	memset(t, 0, sizeof *t);
	t->file = c->file, t->line = c->line;
	if (v->type != IB_V_MAP)
		return ib_fail(c->e, IB_EINVAL, c->file, c->line, 0,
		               "a trace must be a JSON object, not %s", ib_vtype_pyname(v));
	if ((rc = get_str(c, v, "id", "trace", true, &t->id)))
		return rc;
	c->id = t->id;
	if ((rc = get_strs(c, v, "models", "trace", &t->models, &t->nmodels)) ||
	    (rc = get_int(c, v, "block_size", "trace", false, 64, &t->block_size)) ||
	    (rc = get_str(c, v, "hash_id_scope", "trace", false, &t->hash_id_scope)) ||
	    (rc = get_int(c, v, "tool_tokens", "trace", false, 0, &t->tool_tokens)) ||
	    (rc = get_int(c, v, "system_tokens", "trace", false, 0, &t->system_tokens)))
		return rc;
	if (t->block_size <= 0)
		return bad(c, "block_size", "must be positive", NULL);
	const ib_val *rq = ib_map_get(v, "requests");
	if (!rq || rq->type != IB_V_LIST)
		return bad(c, "requests", rq ? "must be a list, not " : "missing field",
		           rq ? ib_vtype_pyname(rq) : NULL);
	if (!rq->list.n)
		return bad(c, "requests", "must not be empty", NULL);
	if (!(t->entries = ib_arena_alloc(c->a, rq->list.n * sizeof *t->entries)))
		return OOM(c->e);
	for (size_t i = 0; i < rq->list.n; i++) {
		const ib_val *x = rq->list.v[i];
		const char *p = ib_arena_printf(c->s, "requests[%zu]", i);
		if (!p)
			return OOM(c->e);
		if (x->type != IB_V_MAP)
			return bad(c, p, "must be an object, not ", ib_vtype_pyname(x));
		const ib_val *ty = ib_map_get(x, "type");
		ax_entry *en = &t->entries[i];
		if (ty && ty->type == IB_V_STR && !strcmp(ty->str.s, "subagent")) {
			en->is_subagent = true;
			rc = parse_subagent(c, x, p, &en->s);
		} else
			rc = parse_request(c, x, p, &en->r);
		if (rc)
			return rc;
	}
	t->n = rq->list.n;
	return 0;
}

static int push(ib_arena *a, ax_corpus *c, const ax_trace *t, ib_error *e)
{
	/* grow by doubling inside the arena: capacity is the next power of two */
	size_t cap = 8;
	while (cap < c->n)
		cap *= 2;
	if (c->n == cap || !c->t) {
		size_t nc = c->t ? cap * 2 : 8;
		ax_trace *nt = ib_arena_alloc(a, nc * sizeof *nt);
		if (!nt)
			return OOM(e);
		if (c->n)
			memcpy(nt, c->t, c->n * sizeof *nt);
		c->t = nt;
	}
	c->t[c->n++] = *t;
	return 0;
}

int ax_parse(ib_arena *a, const char *name, const char *text, size_t len, ax_corpus *c, ib_error *e)
{
	ctx x = {.a = a, .file = ib_arena_strdup(a, name ? name : "<traces>"), .e = e};
	if (!x.file)
		return OOM(e);
	size_t i = 0;
	while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
		i++;
	/* each record's JSON tree lives in a scratch arena, freed once the
	 * record is converted: a corpus keeps its traces, not their JSON (a
	 * tree of hash ids takes several times the text it was parsed from) */
	if (i < len && text[i] == '[') {
		ib_val *v;
		if (!(x.s = ib_arena_new()))
			return OOM(e);
		int rc = ib_json_parse(x.s, x.file, text, len, &v, e);
		int at = 1; /* values carry no positions: the list's line */
		for (size_t k = 0; k < i; k++)
			at += text[k] == '\n';
		for (size_t k = 0; !rc && k < v->list.n; k++) {
			ax_trace t;
			x.id = NULL, x.line = at;
			if (!(rc = parse_trace(&x, v->list.v[k], &t)))
				rc = push(a, c, &t, e);
		}
		ib_arena_free(x.s);
		return rc;
	}
	const char *p = text, *end = text + len;
	int line = 0;
	while (p < end) {
		const char *q = memchr(p, '\n', (size_t)(end - p));
		if (!q)
			q = end;
		line++;
		const char *s = p;
		size_t l = (size_t)(q - p);
		p = q + 1;
		while (l && (*s == ' ' || *s == '\t' || *s == '\r'))
			s++, l--;
		while (l && (s[l - 1] == ' ' || s[l - 1] == '\t' || s[l - 1] == '\r'))
			l--;
		if (!l)
			continue;
		ib_val *v;
		ib_error pe = {0};
		if (!(x.s = ib_arena_new()))
			return OOM(e);
		int rc = 0;
		if (ib_json_parse(x.s, x.file, s, l, &v, &pe))
			rc = ib_fail(e, pe.code == IB_ENOMEM ? IB_ENOMEM : IB_EPARSE, x.file, line,
			             pe.col, "%s", pe.msg);
		ax_trace t;
		x.id = NULL, x.line = line;
		if (!rc && !(rc = parse_trace(&x, v, &t)))
			rc = push(a, c, &t, e);
		ib_arena_free(x.s);
		if (rc)
			return rc;
	}
	return 0;
}

static int load_file(ib_arena *a, const char *path, ax_corpus *c, ib_error *e)
{
	ib_buf b = {0};
	int rc = ib_read_file(path, &b, e);
	if (!rc)
		rc = ax_parse(a, path, b.data ? b.data : "", b.len, c, e);
	ib_buf_free(&b);
	return rc;
}

int ax_corpus_load(ib_arena *a, const char *src, ax_corpus *c, ib_error *e)
{
	struct stat st;
	char *dir = NULL;
	int rc;
	if (stat(src, &st) == 0 && S_ISREG(st.st_mode))
		return load_file(a, src, c, e);
	if (stat(src, &st) == 0 && S_ISDIR(st.st_mode)) {
		dir = strdup(src);
		if (!dir)
			return OOM(e);
	} else {
		const char *slash = strchr(src, '/');
		if (!slash || strchr(slash + 1, '/') || slash == src || !slash[1])
			return ib_fail(e, IB_ENOENT, src, 0, 0,
			               "no such trace file or folder (nor a dataset id org/name)");
		char pat[512];
		snprintf(pat, sizeof pat, "datasets--%.*s--%s", (int)(slash - src), src, slash + 1);
		ib_buf why = {0};
		int k = ax_hf_snapshot(pat, &dir, &why);
		if (k <= 0) {
			rc = k < 0
			         ? OOM(e)
			         : ib_fail(e, IB_ENOENT, "", 0, 0,
			                   "corpus '%s' not found: %s (it is never downloaded: put "
			                   "the dataset in the cache or pass a trace file)",
			                   src, why.data ? why.data : "");
			ib_buf_free(&why);
			return rc;
		}
		ib_buf_free(&why);
	}
	char **files;
	size_t nf;
	rc = ax_corpus_files(dir, &files, &nf, e);
	if (!rc && !nf)
		rc = ib_fail(e, IB_ENOENT, dir, 0, 0, "holds no *.jsonl or *.json trace file");
	for (size_t i = 0; !rc && i < nf; i++)
		rc = load_file(a, files[i], c, e);
	if (nf)
		ax_paths_free(files, nf);
	free(dir);
	return rc;
}

/* ---- writing ---- */

static int put_num(ib_buf *b, double x)
{
	char s[40];
	ib_json_float_repr(x, s, sizeof s);
	return ib_buf_puts(b, s);
}

static int put_str(ib_buf *b, const char *s)
{
	return ib_json_write_str(b, s, strlen(s), true);
}

static int put_strs(ib_buf *b, const char *const *v, size_t n)
{
	int rc = ib_buf_putc(b, '[');
	for (size_t i = 0; i < n; i++)
		rc |= (i ? ib_buf_puts(b, ", ") : 0) | put_str(b, v[i]);
	return rc | ib_buf_putc(b, ']');
}

static int put_request(ib_buf *b, const ax_request *r)
{
	int rc = ib_buf_puts(b, "{\"t\": ") | put_num(b, r->t) |
	         ib_buf_printf(b, ", \"type\": \"%c\"", r->type);
	if (r->model)
		rc |= ib_buf_puts(b, ", \"model\": ") | put_str(b, r->model);
	rc |= ib_buf_printf(b, ", \"in\": %lld, \"out\": %lld, \"hash_ids\": [", (long long)r->in,
	                    (long long)r->out);
	for (size_t i = 0; i < r->nhash; i++)
		rc |= ib_buf_printf(b, "%s%lld", i ? ", " : "", (long long)r->hash_ids[i]);
	rc |= ib_buf_puts(b, "], \"api_time\": ") | put_num(b, r->api_time) |
	      ib_buf_puts(b, ", \"think_time\": ") | put_num(b, r->think_time);
	if (r->has_ttft)
		rc |= ib_buf_puts(b, ", \"ttft\": ") | put_num(b, r->ttft);
	return rc | ib_buf_putc(b, '}');
}

int ax_trace_write(ib_buf *b, const ax_trace *t)
{
	int rc = ib_buf_puts(b, "{\"id\": ") | put_str(b, t->id) |
	         ib_buf_puts(b, ", \"models\": ") | put_strs(b, t->models, t->nmodels) |
	         ib_buf_printf(b, ", \"block_size\": %lld", (long long)t->block_size);
	if (t->hash_id_scope)
		rc |= ib_buf_puts(b, ", \"hash_id_scope\": ") | put_str(b, t->hash_id_scope);
	if (t->tool_tokens)
		rc |= ib_buf_printf(b, ", \"tool_tokens\": %lld", (long long)t->tool_tokens);
	if (t->system_tokens)
		rc |= ib_buf_printf(b, ", \"system_tokens\": %lld", (long long)t->system_tokens);
	rc |= ib_buf_puts(b, ", \"requests\": [");
	for (size_t i = 0; i < t->n; i++) {
		const ax_entry *en = &t->entries[i];
		if (i)
			rc |= ib_buf_puts(b, ", ");
		if (!en->is_subagent) {
			rc |= put_request(b, &en->r);
			continue;
		}
		const ax_subagent *s = &en->s;
		rc |= ib_buf_puts(b, "{\"t\": ") | put_num(b, s->t) |
		      ib_buf_puts(b, ", \"type\": \"subagent\", \"agent_id\": ") |
		      put_str(b, s->agent_id);
		if (s->subagent_type)
			rc |=
			    ib_buf_puts(b, ", \"subagent_type\": ") | put_str(b, s->subagent_type);
		if (s->duration_ms >= 0)
			rc |=
			    ib_buf_printf(b, ", \"duration_ms\": %lld", (long long)s->duration_ms);
		if (s->total_tokens >= 0)
			rc |= ib_buf_printf(b, ", \"total_tokens\": %lld",
			                    (long long)s->total_tokens);
		if (s->status)
			rc |= ib_buf_puts(b, ", \"status\": ") | put_str(b, s->status);
		rc |= ib_buf_puts(b, ", \"models\": ") | put_strs(b, s->models, s->nmodels) |
		      ib_buf_puts(b, ", \"requests\": [");
		for (size_t k = 0; k < s->nreq; k++)
			rc |= (k ? ib_buf_puts(b, ", ") : 0) | put_request(b, &s->req[k]);
		rc |= ib_buf_puts(b, "]}");
	}
	rc |= ib_buf_puts(b, "]}");
	return rc ? IB_ENOMEM : 0;
}
