/* YAML loading through libfyaml's event parser into an ib_val tree, with
 * PyYAML safe_load semantics (matrix.md Y1–Y5). */
#include "fmt/fmt.h"

#include <libfyaml.h>
#include <stdio.h>
#include <string.h>

typedef struct {
	ib_val *node;
	ib_val *key;       /* pending key of a mapping, NULL when a key is expected */
	bool key_is_merge; /* the pending key is a plain '<<' */
	ib_val *merges;    /* list of merge sources (maps), in order */
} frame;

typedef struct {
	ib_arena *a;
	const char *name;
	frame *stack;
	size_t depth, cap;
	ib_val *root;
	bool have_root;
	struct {
		char *name;
		ib_val *node;
	} * anchors;
	size_t nanchors, anchors_cap;
	ib_error *e;
	bool unique;             /* duplicate keys are an error (ib_yaml_load_unique) */
	int last_line, last_col; /* the position of the last node that had one */
} loader;

/* Where an event is: its start mark; an empty scalar has none, then its tag's
 * mark, else the last node that had a position (its key, as PyYAML places
 * empty scalars), so that messages about it have a line. */
static void event_pos(loader *L, struct fy_event *ev, int *line, int *col)
{
	const struct fy_mark *m = fy_event_start_mark(ev);
	if (!m && ev->type == FYET_SCALAR && ev->scalar.tag)
		m = fy_token_start_mark(ev->scalar.tag);
	*line = m ? m->line + 1 : L->last_line;
	*col = m ? m->column + 1 : L->last_col;
}

static int at(loader *L, struct fy_event *ev, int code, const char *fmt, const char *arg)
{
	int line, col;
	event_pos(L, ev, &line, &col);
	return ib_fail(L->e, code, L->name, line, col, fmt, arg);
}

static void set_pos(loader *L, ib_val *v, struct fy_event *ev)
{
	v->file = L->name;
	event_pos(L, ev, &v->line, &v->col);
	L->last_line = v->line;
	L->last_col = v->col;
}

static ib_val *find_anchor(loader *L, const char *name)
{
	for (size_t i = L->nanchors; i-- > 0;)
		if (strcmp(L->anchors[i].name, name) == 0)
			return L->anchors[i].node;
	return NULL;
}

static int add_anchor(loader *L, struct fy_token *tok, ib_val *v)
{
	if (!tok)
		return 0;
	size_t n;
	const char *t = fy_token_get_text(tok, &n);
	if (!t)
		return 0;
	if (ib_arena_grow(L->a, &L->anchors, &L->anchors_cap, L->nanchors + 1))
		return IB_ENOMEM;
	L->anchors[L->nanchors].name = ib_arena_strndup(L->a, t, n);
	L->anchors[L->nanchors].node = v;
	L->nanchors++;
	return 0;
}

/* Hands a finished node to its parent. */
static int add_node(loader *L, struct fy_event *ev, ib_val *v, bool is_merge_key)
{
	if (L->depth == 0) {
		L->root = v;
		L->have_root = true;
		return 0;
	}
	frame *f = &L->stack[L->depth - 1];
	if (f->node->type == IB_V_LIST)
		return ib_list_push(L->a, f->node, v) ? IB_ENOMEM : 0;
	if (!f->key) {
		if (v->type == IB_V_LIST || v->type == IB_V_MAP)
			return at(L, ev, IB_EPARSE,
			          "found unhashable key (a %s used as a mapping key)",
			          v->type == IB_V_LIST ? "sequence" : "mapping");
		f->key = v;
		f->key_is_merge = is_merge_key;
		return 0;
	}
	int rc = 0;
	if (f->key_is_merge) {
		if (v->type == IB_V_MAP) {
			if (!f->merges)
				f->merges = ib_v_list(L->a);
			rc = f->merges ? ib_list_push(L->a, f->merges, v) : IB_ENOMEM;
		} else if (v->type == IB_V_LIST) {
			if (!f->merges)
				f->merges = ib_v_list(L->a);
			if (!f->merges)
				return IB_ENOMEM;
			/* PyYAML: later maps of a merge list come first */
			for (size_t i = v->list.n; i-- > 0 && !rc;) {
				if (v->list.v[i]->type != IB_V_MAP)
					return at(L, ev, IB_EPARSE, "%s",
					          "expected a mapping for merging, but found a "
					          "sequence item that is not one");
				rc = ib_list_push(L->a, f->merges, v->list.v[i]);
			}
		} else {
			return at(L, ev, IB_EPARSE, "%s",
			          "expected a mapping or list of mappings for merging");
		}
	} else {
		for (size_t i = 0; L->unique && i < f->node->map.n; i++)
			if (ib_val_equal(f->node->map.kv[i].key, f->key)) {
				char r[128];
				ib_val_repr(f->key, r, sizeof r);
				return ib_fail(L->e, IB_EPARSE, L->name, f->key->line, f->key->col,
				               "found duplicate key %s", r);
			}
		rc = ib_map_set_key(L->a, f->node, f->key, v);
	}
	f->key = NULL;
	f->key_is_merge = false;
	return rc ? IB_ENOMEM : 0;
}

static int push(loader *L, ib_val *v)
{
	if (ib_arena_grow(L->a, &L->stack, &L->cap, L->depth + 1))
		return IB_ENOMEM;
	L->stack[L->depth++] = (frame){.node = v};
	return 0;
}

/* Applies merge keys: merged pairs first, then the explicit ones. */
static int finish_map(loader *L, frame *f)
{
	if (!f->merges)
		return 0;
	ib_val *m = f->node;
	ib_val explicit = *m;
	m->map.kv = NULL;
	m->map.n = m->map.cap = 0;
	for (size_t i = 0; i < f->merges->list.n; i++) {
		ib_val *src = f->merges->list.v[i];
		for (size_t j = 0; j < src->map.n; j++)
			if (ib_map_set_key(L->a, m, src->map.kv[j].key, src->map.kv[j].val))
				return IB_ENOMEM;
	}
	for (size_t j = 0; j < explicit.map.n; j++)
		if (ib_map_set_key(L->a, m, explicit.map.kv[j].key, explicit.map.kv[j].val))
			return IB_ENOMEM;
	return 0;
}

static const char *tag_suffix(struct fy_token *tag)
{
	if (!tag)
		return NULL;
	const char *t = fy_token_get_text0(tag);
	if (!t)
		return NULL;
	if (ib_str_has_prefix(t, "tag:yaml.org,2002:"))
		return t + strlen("tag:yaml.org,2002:");
	if (ib_str_has_prefix(t, "!!"))
		return t + 2;
	return t;
}

static int tag_fail(loader *L, struct fy_token *tag, const char *fmt, const char *arg)
{
	const struct fy_mark *m = fy_token_start_mark(tag);
	return ib_fail(L->e, IB_EPARSE, L->name, m ? m->line + 1 : 0, m ? m->column + 1 : 0, fmt,
	               arg);
}

/* PyYAML safe_load's constructors for a tagged collection. */
static int check_collection_tag(loader *L, struct fy_event *ev, bool is_map)
{
	struct fy_token *tt = is_map ? ev->mapping_start.tag : ev->sequence_start.tag;
	const char *tag = tag_suffix(tt);
	const char *found = is_map ? "mapping" : "sequence";
	if (!tag || !strcmp(tag, "!") || (is_map && !strcmp(tag, "map")) ||
	    (!is_map && !strcmp(tag, "seq")) || !strcmp(tag, "omap") || !strcmp(tag, "pairs") ||
	    !strcmp(tag, "set"))
		return 0;
	if (!strcmp(tag, "map") || !strcmp(tag, "seq"))
		return tag_fail(L, tt,
		                is_map ? "expected a sequence node, but found %s"
		                       : "expected a mapping node, but found %s",
		                found);
	static const char *const scalars[] = {"str",  "int",    "float",    "bool",
	                                      "null", "binary", "timestamp"};
	for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++)
		if (!strcmp(tag, scalars[i]))
			return tag_fail(L, tt, "expected a scalar node, but found %s", found);
	return tag_fail(L, tt, "could not determine a constructor for the tag '%s' (safe_load)",
	                tag);
}

static int on_scalar(loader *L, struct fy_event *ev)
{
	struct fy_token *tok = ev->scalar.value;
	size_t n = 0;
	const char *s = tok ? fy_token_get_text(tok, &n) : "";
	if (!s)
		s = "";
	enum fy_scalar_style style = tok ? fy_token_scalar_style(tok) : FYSS_PLAIN;
	const char *tag = tag_suffix(ev->scalar.tag);
	ib_val *v = NULL;
	bool merge = false;
	frame *f = L->depth ? &L->stack[L->depth - 1] : NULL;
	bool is_key = f && f->node->type == IB_V_MAP && !f->key;
	if (tag && strcmp(tag, "!") != 0) {
		if (strcmp(tag, "str") == 0) {
			v = ib_v_strn(L->a, s, n);
		} else if (!strcmp(tag, "int") || !strcmp(tag, "float") || !strcmp(tag, "bool") ||
		           !strcmp(tag, "null")) {
			int rc = ib_yaml_resolve_plain(L->a, s, n, &v, L->e);
			if (rc)
				return at(L, ev, rc, "%s", L->e ? L->e->msg : "invalid scalar");
			const char *got = ib_vtype_pyname(v);
			if ((!strcmp(tag, "int") && v->type != IB_V_INT) ||
			    (!strcmp(tag, "float") && v->type != IB_V_FLOAT &&
			     v->type != IB_V_INT) ||
			    (!strcmp(tag, "bool") && v->type != IB_V_BOOL) ||
			    (!strcmp(tag, "null") && v->type != IB_V_NULL))
				return at(L, ev, IB_EPARSE,
				          "scalar does not match its explicit tag (resolves to %s)",
				          got);
			if (!strcmp(tag, "float") && v->type == IB_V_INT) {
				double d = (double)v->i;
				v = ib_v_float(L->a, d);
			}
		} else {
			return at(L, ev, IB_EPARSE,
			          "could not determine a constructor for the tag '%s' (safe_load)",
			          tag);
		}
	} else if (style == FYSS_PLAIN && !tag) {
		if (n == 2 && s[0] == '<' && s[1] == '<' && is_key) {
			merge = true;
			v = ib_v_strn(L->a, s, n);
		} else if (n == 1 && s[0] == '=' && is_key) {
			v = ib_v_strn(L->a, s, n); /* PyYAML turns a '=' key into a string */
		} else {
			int rc = ib_yaml_resolve_plain(L->a, s, n, &v, L->e);
			if (rc) {
				char msg[sizeof L->e->msg];
				snprintf(msg, sizeof msg, "%s",
				         L->e ? L->e->msg : "invalid scalar");
				return at(L, ev, rc, "%s", msg);
			}
		}
	} else {
		v = ib_v_strn(L->a, s, n);
	}
	if (!v)
		return IB_ENOMEM;
	set_pos(L, v, ev);
	/* libfyaml marks the first character inside the quotes; point at the
	 * opening quote, as PyYAML does */
	if ((style == FYSS_SINGLE_QUOTED || style == FYSS_DOUBLE_QUOTED) && v->col > 1)
		v->col--;
	if (add_anchor(L, ev->scalar.anchor, v))
		return IB_ENOMEM;
	return add_node(L, ev, v, merge);
}

static int collect_diag(loader *L, struct fy_diag *diag, int fallback_line, int fallback_col)
{
	void *it = NULL;
	struct fy_diag_error *de;
	while ((de = fy_diag_errors_iterate(diag, &it)) != NULL) {
		if (de->type >= FYET_ERROR && de->line >= 1)
			return ib_fail(L->e, IB_EPARSE, L->name, de->line, de->column,
			               "YAML syntax error: %s", de->msg);
		if (de->type >= FYET_ERROR)
			return ib_fail(L->e, IB_EPARSE, L->name, fallback_line, fallback_col,
			               "YAML syntax error: %s", de->msg);
	}
	return ib_fail(L->e, IB_EPARSE, L->name, fallback_line, fallback_col, "YAML syntax error");
}

/* PyYAML's Reader: the stream must be valid UTF-8 of printable characters
 * (comments included), checked before libfyaml sees a byte, so that it can
 * neither stop early nor spin on them. A decode error reports the byte
 * offset, a special character its character index, as PyYAML does. */
static int check_reader(const char *name, const char *text, size_t len, ib_error *e)
{
	size_t chars = 0;
	int line = 1, col = 1;
	for (size_t i = 0; i < len; chars++) {
		unsigned char c = (unsigned char)text[i];
		if ((c >= 0x20 && c <= 0x7E) || c == 0x09 || c == 0x0D) { /* ASCII, at once */
			col++;
			i++;
			continue;
		}
		uint32_t cp;
		int n = ib_utf8_decode(text + i, len - i, &cp);
		if (n < 0)
			return ib_fail(e, IB_EPARSE, name, line, col,
			               "unacceptable character #x%04x: %s (position %zu)",
			               (unsigned char)text[i], ib_utf8_reason(n), i);
		bool ok = cp == 0x09 || cp == 0x0A || cp == 0x0D || (cp >= 0x20 && cp <= 0x7E) ||
		          cp == 0x85 || (cp >= 0xA0 && cp <= 0xD7FF) ||
		          (cp >= 0xE000 && cp <= 0xFFFD) || cp >= 0x10000;
		if (!ok)
			return ib_fail(e, IB_EPARSE, name, line, col,
			               "unacceptable character #x%04x: special characters are not "
			               "allowed (position %zu)",
			               (unsigned)cp, chars);
		if (cp == 0x0A) {
			line++;
			col = 1;
		} else {
			col++;
		}
		i += (size_t)n;
	}
	return 0;
}

static int load(ib_arena *a, const char *name, const char *text, size_t len, bool unique,
                ib_val **out, ib_error *e)
{
	loader L = {.a = a, .e = e, .unique = unique};
	int crc = check_reader(name ? name : "<input>", text, len, e);
	if (crc)
		return crc;
	L.name = ib_arena_strdup(a, name ? name : "<input>");
	struct fy_diag_cfg dcfg;
	fy_diag_cfg_default(&dcfg);
	dcfg.fp = NULL;
	dcfg.level = FYET_ERROR;
	struct fy_diag *diag = fy_diag_create(&dcfg);
	if (!diag || !L.name)
		return ib_fail(e, IB_ENOMEM, name, 0, 0, "out of memory");
	fy_diag_set_collect_errors(diag, true);
	struct fy_parse_cfg cfg = {.flags = FYPCF_QUIET | FYPCF_ALLOW_DUPLICATE_KEYS, .diag = diag};
	struct fy_parser *fyp = fy_parser_create(&cfg);
	if (!fyp) {
		fy_diag_destroy(diag);
		return ib_fail(e, IB_ENOMEM, name, 0, 0, "cannot create YAML parser");
	}
	int rc = 0;
	int docs = 0;
	if (fy_parser_set_string(fyp, text, len) != 0) {
		rc = ib_fail(e, IB_ENOMEM, name, 0, 0, "cannot start YAML parser");
		goto done;
	}
	struct fy_event *ev;
	while ((ev = fy_parser_parse(fyp)) != NULL) {
		switch (ev->type) {
		case FYET_DOCUMENT_START:
			if (++docs > 1)
				rc = at(&L, ev, IB_EPARSE, "%s",
				        "expected a single document in the stream, but found "
				        "another document");
			break;
		case FYET_SCALAR:
			rc = on_scalar(&L, ev);
			break;
		case FYET_SEQUENCE_START:
		case FYET_MAPPING_START: {
			bool is_map = ev->type == FYET_MAPPING_START;
			ib_val *v = is_map ? ib_v_map(a) : ib_v_list(a);
			if (!v) {
				rc = IB_ENOMEM;
				break;
			}
			set_pos(&L, v, ev);
			rc = check_collection_tag(&L, ev, is_map);
			if (rc)
				break;
			if (L.depth) {
				frame *f = &L.stack[L.depth - 1];
				if (f->node->type == IB_V_MAP && !f->key) {
					rc = at(&L, ev, IB_EPARSE,
					        "found unhashable key (a %s used as a mapping key)",
					        is_map ? "mapping" : "sequence");
					break;
				}
			}
			rc = add_anchor(
			    &L, is_map ? ev->mapping_start.anchor : ev->sequence_start.anchor, v);
			if (!rc)
				rc = push(&L, v);
			break;
		}
		case FYET_SEQUENCE_END:
		case FYET_MAPPING_END: {
			frame f = L.stack[--L.depth];
			if (f.node->type == IB_V_MAP)
				rc = finish_map(&L, &f);
			if (!rc)
				rc = add_node(&L, ev, f.node, false);
			break;
		}
		case FYET_ALIAS: {
			size_t n;
			const char *t = fy_token_get_text(ev->alias.anchor, &n);
			char nm[256];
			snprintf(nm, sizeof nm, "%.*s", (int)(n < 255 ? n : 255), t ? t : "");
			ib_val *v = find_anchor(&L, nm);
			if (!v) {
				rc = at(&L, ev, IB_EPARSE, "found undefined alias '%s'", nm);
				break;
			}
			for (size_t i = 0; i < L.depth; i++)
				if (L.stack[i].node == v)
					rc = at(&L, ev, IB_EPARSE,
					        "recursive alias '%s' is not supported", nm);
			if (!rc)
				rc = add_node(&L, ev, v, false);
			break;
		}
		default:
			break;
		}
		fy_parser_event_free(fyp, ev);
		if (rc)
			break;
	}
	if (rc == IB_ENOMEM)
		rc = ib_fail(e, IB_ENOMEM, name, 0, 0, "out of memory");
	if (!rc && fy_parser_get_stream_error(fyp)) {
		/* an error libfyaml gives no place: the end of the input, where
		 * the parser stopped (its last line, column 1) */
		int last = 1;
		for (size_t i = 0; i + 1 < len; i++)
			last += text[i] == '\n';
		rc = collect_diag(&L, diag, last, 1);
	}
	if (!rc)
		*out = L.have_root ? L.root : ib_v_null(a);
done:
	fy_parser_destroy(fyp);
	fy_diag_destroy(diag);
	return rc;
}

int ib_yaml_load_file(ib_arena *a, const char *path, ib_val **out, ib_error *e)
{
	ib_buf b = {0};
	int rc = ib_read_file_max(path, IB_YAML_MAX_FILE, &b, e);
	if (!rc)
		rc = ib_yaml_load(a, path, b.data ? b.data : "", b.len, out, e);
	ib_buf_free(&b);
	return rc;
}

int ib_yaml_load(ib_arena *a, const char *name, const char *text, size_t len, ib_val **out,
                 ib_error *e)
{
	return load(a, name, text, len, false, out, e);
}

int ib_yaml_load_unique(ib_arena *a, const char *name, const char *text, size_t len, ib_val **out,
                        ib_error *e)
{
	return load(a, name, text, len, true, out, e);
}
