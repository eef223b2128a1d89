/* Unit tests for fmt/: PyYAML 1.1 typing (matrix.md §0), the YAML loader, the
 * value tree, and the json.dumps-compatible writer (dependencies.md §3.2–3.3).
 * Expected values were checked against PyYAML 6.0.3 and Python 3.11 json. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/fmt.h"

/* ---- helpers ---- */

static ib_arena *A;

static void setup(void)
{
	A = ib_arena_new();
	cr_assert_not_null(A);
}

static void teardown(void)
{
	ib_arena_free(A);
	A = NULL;
}

TestSuite(fmt, .init = setup, .fini = teardown);

/* Loads text that must parse. */
static ib_val *load(const char *text)
{
	ib_error e = {0};
	ib_val *v = NULL;
	int rc = ib_yaml_load(A, "mem.yaml", text, strlen(text), &v, &e);
	cr_assert_eq(rc, 0, "YAML did not load (%d): %s:%d:%d: %s\n%s", rc, e.file, e.line, e.col,
	             e.msg, text);
	cr_assert_not_null(v);
	return v;
}

/* Loads text that must fail; returns the code and fills e. */
static int load_fail(const char *text, ib_error *e)
{
	ib_val *v = NULL;
	int rc = ib_yaml_load(A, "bad.yaml", text, strlen(text), &v, e);
	cr_assert_neq(rc, 0, "YAML should not load:\n%s", text);
	return rc;
}

/* Serializes v with the given options; the text must be produced. */
static char *json(const ib_val *v, ib_json_opts o)
{
	ib_buf b = {0};
	ib_error e = {0};
	int rc = ib_json_write(&b, v, &o, &e);
	cr_assert_eq(rc, 0, "json write failed: %s", e.msg);
	char *s = ib_arena_strndup(A, b.data ? b.data : "", b.len);
	ib_buf_free(&b);
	return s;
}

static char *dumps(const ib_val *v)
{
	return json(v, IB_JSON_PYTHON);
}

/* ---- Y3: plain scalar typing ---- */

typedef struct {
	const char *s;
	ib_vtype t;
	int64_t i; /* IB_V_INT */
	double f;  /* IB_V_FLOAT (NAN: expect NaN) */
	bool b;    /* IB_V_BOOL */
} scalar_case;

#define B(s, v)                                                                                    \
	{                                                                                          \
		s, IB_V_BOOL, 0, 0, v                                                              \
	}
#define NUL(s)                                                                                     \
	{                                                                                          \
		s, IB_V_NULL, 0, 0, false                                                          \
	}
#define I(s, v)                                                                                    \
	{                                                                                          \
		s, IB_V_INT, v, 0, false                                                           \
	}
#define F(s, v)                                                                                    \
	{                                                                                          \
		s, IB_V_FLOAT, 0, v, false                                                         \
	}
#define S(s)                                                                                       \
	{                                                                                          \
		s, IB_V_STR, 0, 0, false                                                           \
	}
#define D(s)                                                                                       \
	{                                                                                          \
		s, IB_V_DATE, 0, 0, false                                                          \
	}

static const scalar_case scalar_cases[] = {
    /* booleans: exactly these spellings */
    B("yes", true),
    B("Yes", true),
    B("YES", true),
    B("No", false),
    B("no", false),
    B("NO", false),
    B("true", true),
    B("True", true),
    B("TRUE", true),
    B("false", false),
    B("False", false),
    B("FALSE", false),
    B("on", true),
    B("On", true),
    B("ON", true),
    B("off", false),
    B("Off", false),
    B("OFF", false),
    /* not booleans */
    S("y"),
    S("n"),
    S("Y"),
    S("N"),
    S("tRue"),
    S("oN"),
    S("yES"),
    /* null forms */
    NUL("~"),
    NUL("null"),
    NUL("Null"),
    NUL("NULL"),
    S("nULL"),
    S("none"),
    /* integers */
    I("0", 0),
    I("-0", 0),
    I("42", 42),
    I("010", 8),
    I("-010", -8),
    I("00", 0),
    I("8_192", 8192),
    I("1__0", 10),
    I("2_063_837", 2063837),
    I("0x400", 1024),
    I("0x_1F", 31),
    I("0b1", 1),
    I("0b1010", 10),
    I("+16", 16),
    I("-7", -7),
    I("1:30", 90),
    I("-1:30", -90),
    I("1:5:30", 3930),
    I("1:07", 67),
    I("190:20:30", 685230),
    I("9223372036854775807", INT64_MAX),
    I("-9223372036854775808", INT64_MIN),
    /* look like integers, are strings */
    S("08"),
    S("09"),
    S("0o10"),
    S("_1"),
    S("1:60"),
    S("0:30"),
    S("0x"),
    S("1_000x"),
    /* floats */
    F("1.", 1.0),
    F("0.", 0.0),
    F("1_0.5_0", 10.5),
    F("1.0e+3", 1000.0),
    F("1.5E-3", 0.0015),
    F("1.e+5", 100000.0),
    F("1_000.0e-1", 100.0),
    F(".5", 0.5),
    F("-1.5", -1.5),
    F("+2.25", 2.25),
    F("09.5", 9.5),
    F("1:30.5", 90.5),
    F("0.8", 0.8),
    F(".inf", INFINITY),
    F(".Inf", INFINITY),
    F(".INF", INFINITY),
    F("+.inf", INFINITY),
    F("-.Inf", -INFINITY),
    F("-.INF", -INFINITY),
    F(".NaN", NAN),
    F(".nan", NAN),
    F(".NAN", NAN),
    /* look like floats, are strings */
    S("-.5"),
    S("+.5"),
    S("1e3"),
    S("1.0e3"),
    S("1.5e3"),
    S("-.nan"),
    S(".Nan"),
    S("1.0e+"),
    S(".e+3"),
    S("inf"),
    S("nan"),
    /* dates and timestamps */
    D("2026-08-21"),
    D("2026-08-21 10:00:00"),
    D("2026-08-21T10:00:00Z"),
    D("2026-8-1 1:02:03.5 +02:00"),
    S("2026-08-21x"),
    S("2026/08/21"),
    /* plain strings */
    S("fp8"),
    S("cluster:b300-nv"),
    S("img/sn:1"),
    S("image:foo"),
    S("1k1k"),
    S("<<"),
};

static void check_scalar(const scalar_case *c, const ib_val *v, const char *how)
{
	cr_expect_eq(v->type, c->t, "%s '%s': type %d, want %d", how, c->s, v->type, c->t);
	if (v->type != c->t)
		return;
	switch (c->t) {
	case IB_V_BOOL:
		cr_expect_eq(v->b, c->b, "%s '%s'", how, c->s);
		break;
	case IB_V_INT:
		cr_expect_eq(v->i, c->i, "%s '%s': %lld, want %lld", how, c->s, (long long)v->i,
		             (long long)c->i);
		break;
	case IB_V_FLOAT:
		if (isnan(c->f))
			cr_expect(isnan(v->f), "%s '%s': want NaN", how, c->s);
		else
			cr_expect(v->f == c->f, "%s '%s': %.17g, want %.17g", how, c->s, v->f,
			          c->f);
		break;
	case IB_V_STR:
	case IB_V_DATE:
		cr_expect_eq(v->str.len, strlen(c->s), "%s '%s'", how, c->s);
		cr_expect_str_eq(v->str.s, c->s, "%s: text kept", how);
		break;
	default:
		break;
	}
}

Test(fmt, resolve_plain_table)
{
	for (size_t k = 0; k < sizeof scalar_cases / sizeof *scalar_cases; k++) {
		const scalar_case *c = &scalar_cases[k];
		ib_val *v = NULL;
		ib_error e = {0};
		int rc = ib_yaml_resolve_plain(A, c->s, strlen(c->s), &v, &e);
		cr_expect_eq(rc, 0, "resolve '%s' failed: %s", c->s, e.msg);
		if (!rc)
			check_scalar(c, v, "resolve_plain");
	}
}

Test(fmt, yaml_load_types_plain_values_the_same_way)
{
	for (size_t k = 0; k < sizeof scalar_cases / sizeof *scalar_cases; k++) {
		const scalar_case *c = &scalar_cases[k];
		if (!strcmp(c->s, "<<"))
			continue; /* a merge key in key position; as a value it is a string */
		char text[128];
		snprintf(text, sizeof text, "v: %s\n", c->s);
		ib_val *doc = load(text);
		ib_val *v = ib_map_get(doc, "v");
		cr_assert_not_null(v, "%s", text);
		check_scalar(c, v, "ib_yaml_load");
	}
}

Test(fmt, resolve_plain_empty_is_null)
{
	ib_val *v = NULL;
	cr_assert_eq(ib_yaml_resolve_plain(A, "", 0, &v, NULL), 0);
	cr_assert_eq(v->type, IB_V_NULL);
	/* an empty value in a mapping is null too */
	ib_val *doc = load("a:\nb: \n");
	cr_assert_eq(ib_map_get(doc, "a")->type, IB_V_NULL);
	cr_assert_eq(ib_map_get(doc, "b")->type, IB_V_NULL);
}

Test(fmt, resolve_plain_uses_length_not_nul)
{
	ib_val *v = NULL;
	/* only the first 3 bytes of "010abc" */
	cr_assert_eq(ib_yaml_resolve_plain(A, "010abc", 3, &v, NULL), 0);
	cr_assert_eq(v->type, IB_V_INT);
	cr_assert_eq(v->i, 8);
	cr_assert_eq(ib_yaml_resolve_plain(A, "yesterday", 3, &v, NULL), 0);
	cr_assert_eq(v->type, IB_V_BOOL);
	cr_assert(v->b);
}

Test(fmt, integer_beyond_int64_is_erange)
{
	ib_val *v = NULL;
	ib_error e = {0};
	cr_assert_eq(ib_yaml_resolve_plain(A, "9223372036854775808", 19, &v, &e), IB_ERANGE);
	cr_assert_eq(ib_yaml_resolve_plain(A, "-9223372036854775809", 20, &v, &e), IB_ERANGE);
	cr_assert_eq(ib_yaml_resolve_plain(A, "0x10000000000000000", 19, &v, &e), IB_ERANGE);
	cr_assert_eq(ib_yaml_resolve_plain(A, "999999999999999999:00", 21, &v, &e), IB_ERANGE);
	cr_assert_eq(ib_yaml_resolve_plain(A, "153722867280912930:07", 21, &v, &e), 0);
	cr_assert_eq(v->i, INT64_MAX);
	/* through the loader, with a position */
	ib_error le = {0};
	int rc = load_fail("a: 1\nbig: 99999999999999999999\n", &le);
	cr_assert_eq(rc, IB_ERANGE);
	cr_assert_eq(le.code, IB_ERANGE);
	cr_assert_eq(le.line, 2);
	cr_assert_eq(le.col, 6);
	cr_assert_str_eq(le.file, "bad.yaml");
}

Test(fmt, quoted_scalars_are_strings)
{
	ib_val *doc = load("a: \"010\"\nb: 'true'\nc: \"~\"\nd: \"\"\ne: '1.5'\nf: \"2026-08-21\"\n"
	                   "g: 'null'\n");
	static const char *const keys[] = {"a", "b", "c", "d", "e", "f", "g"};
	static const char *const want[] = {"010", "true", "~", "", "1.5", "2026-08-21", "null"};
	for (size_t i = 0; i < 7; i++) {
		ib_val *v = ib_map_get(doc, keys[i]);
		cr_assert_not_null(v);
		cr_expect_eq(v->type, IB_V_STR, "key %s", keys[i]);
		cr_expect_str_eq(v->str.s, want[i]);
	}
	/* quoted keys are strings too: "1" and 1 are different keys */
	doc = load("\"1\": a\n1: b\n");
	cr_assert_eq(doc->map.n, 2);
	cr_assert_eq(doc->map.kv[0].key->type, IB_V_STR);
	cr_assert_eq(doc->map.kv[1].key->type, IB_V_INT);
}

Test(fmt, explicit_tags)
{
	ib_val *doc = load("a: !!str 010\nb: !!int 010\nc: !!float 3\n");
	cr_assert_eq(ib_map_get(doc, "a")->type, IB_V_STR);
	cr_assert_str_eq(ib_map_get(doc, "a")->str.s, "010");
	cr_assert_eq(ib_map_get(doc, "b")->type, IB_V_INT);
	cr_assert_eq(ib_map_get(doc, "b")->i, 8);
	cr_assert_eq(ib_map_get(doc, "c")->type, IB_V_FLOAT);
	cr_assert(ib_map_get(doc, "c")->f == 3.0);
	ib_error e = {0};
	cr_assert_eq(load_fail("a: !custom x\n", &e), IB_EPARSE);
	cr_assert_gt(e.line, 0);
	cr_assert_eq(load_fail("a: !!python/object:os.system x\n", &e), IB_EPARSE);
}

/* ---- Y4/Y5: mapping order and duplicate keys ---- */

Test(fmt, duplicate_keys_first_position_last_value)
{
	ib_val *doc = load("{a: 1, a: 2, b: 3, a: 4}");
	cr_assert_eq(doc->type, IB_V_MAP);
	cr_assert_eq(doc->map.n, 2);
	cr_assert_str_eq(doc->map.kv[0].key->str.s, "a");
	cr_assert_eq(doc->map.kv[0].val->i, 4);
	cr_assert_str_eq(doc->map.kv[1].key->str.s, "b");
	cr_assert_eq(doc->map.kv[1].val->i, 3);
	cr_assert_str_eq(dumps(doc), "{\"a\": 4, \"b\": 3}");
	/* block style, nested */
	doc = load("top:\n  x: 1\n  y: 2\n  x: 3\nz: 0\ntop: {q: 9}\n");
	cr_assert_str_eq(dumps(doc), "{\"top\": {\"q\": 9}, \"z\": 0}");
}

Test(fmt, duplicate_keys_use_python_key_equality)
{
	/* 1 == True in Python: one key, the first spelling, the last value */
	ib_val *doc = load("{1: a, true: b, null: c, 1.5: d}");
	cr_assert_eq(doc->map.n, 3);
	cr_assert_eq(doc->map.kv[0].key->type, IB_V_INT);
	cr_assert_str_eq(dumps(doc), "{\"1\": \"b\", \"null\": \"c\", \"1.5\": \"d\"}");
}

Test(fmt, mapping_keeps_insertion_order)
{
	ib_val *doc = load("zeta: 1\nalpha: 2\nmid: 3\n");
	cr_assert_str_eq(dumps(doc), "{\"zeta\": 1, \"alpha\": 2, \"mid\": 3}");
}

/* ---- anchors, aliases, merge keys ---- */

Test(fmt, anchors_aliases_and_merge_keys)
{
	ib_val *doc = load("base: &b {x: 1, y: 2}\n"
	                   "other: &o {y: 20, w: 5}\n"
	                   "ref: *b\n"
	                   "m:\n"
	                   "  <<: *b\n"
	                   "  y: 3\n"
	                   "  z: 4\n"
	                   "ml:\n"
	                   "  k: 0\n"
	                   "  <<: [*b, *o]\n"
	                   "lst: &l [1, 2]\n"
	                   "lref: *l\n");
	/* the alias is the anchored node's value */
	cr_assert(ib_val_equal(ib_map_get(doc, "ref"), ib_map_get(doc, "base")));
	cr_assert(ib_val_equal(ib_map_get(doc, "lref"), ib_map_get(doc, "lst")));
	/* exact text as PyYAML safe_load + json.dumps gives it */
	cr_assert_str_eq(dumps(doc),
	                 "{\"base\": {\"x\": 1, \"y\": 2}, \"other\": {\"y\": 20, \"w\": 5}, "
	                 "\"ref\": {\"x\": 1, \"y\": 2}, \"m\": {\"x\": 1, \"y\": 3, \"z\": 4}, "
	                 "\"ml\": {\"y\": 2, \"w\": 5, \"x\": 1, \"k\": 0}, \"lst\": [1, 2], "
	                 "\"lref\": [1, 2]}");
	/* the merge did not change the source mapping */
	cr_assert_str_eq(dumps(ib_map_get(doc, "base")), "{\"x\": 1, \"y\": 2}");
	cr_assert_not(ib_map_has(doc, "<<"));
	cr_assert_not(ib_map_has(ib_map_get(doc, "m"), "<<"));
}

Test(fmt, merge_of_non_mapping_is_error)
{
	ib_error e = {0};
	cr_assert_eq(load_fail("a: &s scalar\nb:\n  <<: *s\n", &e), IB_EPARSE);
	cr_assert_gt(e.line, 0);
}

Test(fmt, undefined_alias_is_error)
{
	ib_error e = {0};
	cr_assert_eq(load_fail("a: *nope\n", &e), IB_EPARSE);
	cr_assert_gt(e.line, 0);
}

/* ---- documents and errors ---- */

Test(fmt, multi_document_is_error)
{
	ib_error e = {0};
	cr_assert_eq(load_fail("a: 1\n---\nb: 2\n", &e), IB_EPARSE);
	cr_assert_eq(e.line, 2);
	cr_assert_str_eq(e.file, "bad.yaml");
	cr_assert_eq(load_fail("--- 1\n--- 2\n", &e), IB_EPARSE);
}

Test(fmt, single_explicit_document_is_fine)
{
	ib_val *doc = load("---\na: 1\n...\n");
	cr_assert_eq(ib_map_get(doc, "a")->i, 1);
}

Test(fmt, empty_document_is_null)
{
	ib_val *doc = load("");
	cr_assert_eq(doc->type, IB_V_NULL);
	doc = load("# only a comment\n");
	cr_assert_eq(doc->type, IB_V_NULL);
}

Test(fmt, syntax_errors_have_positions)
{
	static const char *const bad[] = {
	    "a: [1, 2\nb: 3\n", "a: b: c\n",           "a:\n  - 1\n - 2\n",
	    "a: {x: 1\n",       "a: \"unterminated\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		ib_error e = {0};
		int rc = load_fail(bad[i], &e);
		cr_expect_eq(rc, IB_EPARSE, "case %zu: rc %d", i, rc);
		cr_expect_eq(e.code, IB_EPARSE, "case %zu", i);
		cr_expect_gt(e.line, 0, "case %zu: line", i);
		cr_expect_gt(e.col, 0, "case %zu: col", i);
		cr_expect_str_eq(e.file, "bad.yaml", "case %zu", i);
		cr_expect_gt(strlen(e.msg), 0, "case %zu", i);
	}
}

Test(fmt, unhashable_key_and_plain_equals)
{
	ib_error e = {0};
	cr_assert_eq(load_fail("? [1, 2]\n: x\n", &e), IB_EPARSE);
	cr_assert_gt(e.line, 0);
	cr_assert_eq(load_fail("a: =\n", &e), IB_EPARSE);
	cr_assert_eq(e.line, 1);
}

Test(fmt, node_positions_are_recorded)
{
	ib_val *doc = load("a:\n  b: [1, 2]\n  c: x\nd: 'q'\n");
	cr_assert_eq(doc->line, 1);
	cr_assert_eq(doc->col, 1);
	cr_assert_str_eq(doc->file, "mem.yaml");
	ib_val *a = ib_map_get(doc, "a");
	cr_assert_eq(a->line, 2);
	cr_assert_eq(a->col, 3);
	const ib_kv *b = ib_map_find(a, "b");
	cr_assert_eq(b->key->line, 2);
	cr_assert_eq(b->key->col, 3);
	cr_assert_eq(b->val->line, 2);
	cr_assert_eq(b->val->col, 6);
	cr_assert_eq(b->val->list.v[0]->line, 2);
	cr_assert_eq(b->val->list.v[0]->col, 7);
	cr_assert_eq(b->val->list.v[1]->col, 10);
	const ib_kv *c = ib_map_find(a, "c");
	cr_assert_eq(c->key->line, 3);
	cr_assert_eq(c->val->line, 3);
	cr_assert_eq(c->val->col, 6);
	cr_assert_str_eq(c->val->file, "mem.yaml");
	/* a quoted scalar is placed at its opening quote, as PyYAML does */
	ib_val *d = ib_map_get(doc, "d");
	cr_assert_eq(d->line, 4);
	cr_assert_eq(d->col, 4);
}

/* An empty value has no mark of its own in libfyaml: it takes the position
 * of the node before it (its key), so messages about it name a line (found
 * by the sim_profile fuzz target). */
Test(fmt, empty_values_are_placed_at_their_key)
{
	ib_val *doc = load("a: 1\nhardware:\nb:\n  - \n");
	const ib_kv *h = ib_map_find(doc, "hardware");
	cr_assert_eq(h->val->type, IB_V_NULL);
	cr_assert_eq(h->val->line, 2);
	cr_assert_eq(h->val->col, 1);
	const ib_val *b = ib_map_get(doc, "b");
	cr_assert_eq(b->list.v[0]->type, IB_V_NULL);
	cr_assert_gt(b->list.v[0]->line, 2);
}

/* A syntax error that libfyaml gives no place (a block scalar indicator
 * followed by junk, no newline) is placed at the end of the input (found by
 * the sim_profile fuzz target's 10-minute run). */
Test(fmt, unplaced_syntax_errors_have_a_line)
{
	static const char *const in[] = {">0,eex44", "a: 1\nb: >0,eex44"};
	for (size_t i = 0; i < 2; i++) {
		ib_arena *a = ib_arena_new();
		ib_val *v;
		ib_error e = {0};
		cr_assert_eq(ib_yaml_load(a, "x.yaml", in[i], strlen(in[i]), &v, &e), IB_EPARSE);
		cr_assert_geq(e.line, 1, "%s: %s", in[i], e.msg);
		cr_assert(strstr(e.msg, "YAML syntax error"), "%s", e.msg);
		ib_arena_free(a);
	}
}

/* JSON text is UTF-8: a byte that does not start valid UTF-8 is written as
 * U+FFFD in both modes, valid non-ASCII text as it is (raw) or \u-escaped
 * (found by the review fuzz target: its JSON report copied a recipe's stray
 * byte). */
Test(fmt, json_strings_stay_utf8)
{
	static const char in[] = "a\x9a\xc3\xa9\xe8u\xf0\x9f\x98\x80";
	ib_buf b = {0};
	cr_assert_eq(ib_json_write_str(&b, in, sizeof in - 1, false), 0);
	cr_assert_str_eq(b.data, "\"a\xef\xbf\xbd\xc3\xa9\xef\xbf\xbdu\xf0\x9f\x98\x80\"");
	b.len = 0;
	cr_assert_eq(ib_json_write_str(&b, in, sizeof in - 1, true), 0);
	b.data[b.len] = 0;
	cr_assert_str_eq(b.data, "\"a\\ufffd\\u00e9\\ufffdu\\ud83d\\ude00\"");
	ib_buf_free(&b);
}

Test(fmt, load_file_missing_is_enoent)
{
	ib_val *v = NULL;
	ib_error e = {0};
	cr_assert_eq(ib_yaml_load_file(A, "/nonexistent/dir/x.yaml", &v, &e), IB_ENOENT);
	cr_assert_str_eq(e.file, "/nonexistent/dir/x.yaml");
}

/* ---- value tree ---- */

Test(fmt, val_equal_python_semantics)
{
	ib_val *i1 = ib_v_int(A, 1), *f1 = ib_v_float(A, 1.0), *t = ib_v_bool(A, true);
	ib_val *i2 = ib_v_int(A, 2), *f = ib_v_bool(A, false), *i0 = ib_v_int(A, 0);
	cr_assert(ib_val_equal(i1, f1));
	cr_assert(ib_val_equal(f1, t));
	cr_assert(ib_val_equal(i1, t));
	cr_assert(ib_val_equal(f, i0));
	cr_assert_not(ib_val_equal(i2, t));
	cr_assert_not(ib_val_equal(ib_v_str(A, "1"), i1));
	cr_assert(ib_val_equal(ib_v_null(A), ib_v_null(A)));
	cr_assert_not(ib_val_equal(ib_v_null(A), i0));
	cr_assert_not(ib_val_equal(ib_v_str(A, ""), ib_v_null(A)));
	cr_assert(ib_val_equal(ib_v_str(A, "ab"), ib_v_strn(A, "abc", 2)));
	cr_assert_not(ib_val_equal(ib_v_float(A, NAN), ib_v_float(A, NAN)));
	/* int64 values that a double cannot tell apart */
	cr_assert_not(ib_val_equal(ib_v_int(A, INT64_MAX), ib_v_int(A, INT64_MAX - 1)));
	/* maps ignore order; lists do not */
	ib_val *m1 = load("{a: 1, b: [1, 2], c: {x: true}}");
	ib_val *m2 = load("{c: {x: 1}, b: [1.0, 2], a: 1}");
	ib_val *m3 = load("{a: 1, b: [2, 1], c: {x: 1}}");
	ib_val *m4 = load("{a: 1, b: [1, 2]}");
	cr_assert(ib_val_equal(m1, m2));
	cr_assert_not(ib_val_equal(m1, m3));
	cr_assert_not(ib_val_equal(m1, m4));
	cr_assert_not(ib_val_equal(m4, m1));
	cr_assert_not(ib_val_equal(load("[1, 2]"), load("[1, 2, 3]")));
	cr_assert_not(ib_val_equal(NULL, i1));
}

Test(fmt, map_set_keeps_position_on_overwrite)
{
	ib_val *m = ib_v_map(A);
	cr_assert_eq(ib_map_set(A, m, "a", ib_v_int(A, 1)), 0);
	cr_assert_eq(ib_map_set(A, m, "b", ib_v_int(A, 2)), 0);
	cr_assert_eq(ib_map_set(A, m, "c", ib_v_int(A, 3)), 0);
	cr_assert_eq(ib_map_set(A, m, "a", ib_v_str(A, "new")), 0);
	cr_assert_eq(m->map.n, 3);
	cr_assert_str_eq(dumps(m), "{\"a\": \"new\", \"b\": 2, \"c\": 3}");
	cr_assert_str_eq(ib_map_get(m, "a")->str.s, "new");
	cr_assert(ib_map_has(m, "b"));
	cr_assert_not(ib_map_has(m, "z"));
	cr_assert_null(ib_map_get(m, "z"));
	cr_assert_null(ib_map_get(ib_v_int(A, 1), "a"), "not a map");
	/* many keys: growth keeps order */
	for (int i = 0; i < 100; i++) {
		char k[16];
		snprintf(k, sizeof k, "k%d", i);
		cr_assert_eq(ib_map_set(A, m, k, ib_v_int(A, i)), 0);
	}
	cr_assert_eq(m->map.n, 103);
	cr_assert_str_eq(m->map.kv[102].key->str.s, "k99");
	cr_assert_eq(ib_map_get(m, "k57")->i, 57);
}

Test(fmt, map_del_moves_later_keys_up)
{
	ib_val *m = load("{a: 1, b: 2, c: 3, d: 4}");
	cr_assert(ib_map_del(m, "b"));
	cr_assert_eq(m->map.n, 3);
	cr_assert_str_eq(dumps(m), "{\"a\": 1, \"c\": 3, \"d\": 4}");
	cr_assert_not(ib_map_del(m, "b"));
	cr_assert(ib_map_del(m, "d"));
	cr_assert(ib_map_del(m, "a"));
	cr_assert_str_eq(dumps(m), "{\"c\": 3}");
	cr_assert(ib_map_del(m, "c"));
	cr_assert_str_eq(dumps(m), "{}");
	/* a re-added key goes to the end */
	ib_val *m2 = load("{x: 1, y: 2}");
	cr_assert(ib_map_del(m2, "x"));
	cr_assert_eq(ib_map_set(A, m2, "x", ib_v_int(A, 9)), 0);
	cr_assert_str_eq(dumps(m2), "{\"y\": 2, \"x\": 9}");
}

Test(fmt, map_copy_is_independent)
{
	ib_val *m = load("{a: 1, b: 2}");
	ib_val *c = ib_map_copy(A, m);
	for (int i = 0; i < 10; i++) {
		char k[16];
		snprintf(k, sizeof k, "n%d", i % 10);
		cr_assert_eq(ib_map_set(A, c, k, ib_v_int(A, i)), 0);
	}
	cr_assert_eq(ib_map_set(A, c, "a", ib_v_int(A, 100)), 0);
	cr_assert(ib_map_del(c, "b"));
	cr_assert_str_eq(dumps(m), "{\"a\": 1, \"b\": 2}");
	cr_assert_eq(c->map.n, 11);
	cr_assert_eq(ib_map_get(c, "a")->i, 100);
}

Test(fmt, truthy_and_pynames)
{
	cr_assert_not(ib_val_truthy(ib_v_null(A)));
	cr_assert_not(ib_val_truthy(ib_v_int(A, 0)));
	cr_assert_not(ib_val_truthy(ib_v_float(A, 0.0)));
	cr_assert_not(ib_val_truthy(ib_v_str(A, "")));
	cr_assert_not(ib_val_truthy(ib_v_list(A)));
	cr_assert_not(ib_val_truthy(ib_v_map(A)));
	cr_assert_not(ib_val_truthy(NULL));
	cr_assert(ib_val_truthy(ib_v_str(A, "0")));
	cr_assert(ib_val_truthy(ib_v_int(A, -1)));
	cr_assert(ib_val_truthy(load("[0]")));
	cr_assert_str_eq(ib_vtype_pyname(ib_v_null(A)), "NoneType");
	cr_assert_str_eq(ib_vtype_pyname(ib_v_bool(A, true)), "bool");
	cr_assert_str_eq(ib_vtype_pyname(ib_v_int(A, 1)), "int");
	cr_assert_str_eq(ib_vtype_pyname(ib_v_float(A, 1)), "float");
	cr_assert_str_eq(ib_vtype_pyname(ib_v_str(A, "")), "str");
	cr_assert_str_eq(ib_vtype_pyname(ib_v_list(A)), "list");
	cr_assert_str_eq(ib_vtype_pyname(ib_v_map(A)), "dict");
}

/* ---- JSON: float repr ---- */

typedef struct {
	double x;
	const char *want;
} float_case;

Test(fmt, float_repr_matches_python)
{
	static const float_case cases[] = {
	    {0.1, "0.1"},
	    {1e-05, "1e-05"},
	    {1e16, "1e+16"},
	    {1000000000000000.0, "1000000000000000.0"},
	    {2.5, "2.5"},
	    {-0.0, "-0.0"},
	    {0.0, "0.0"},
	    {100.0, "100.0"},
	    {0.30000000000000004, "0.30000000000000004"},
	    {5e-324, "5e-324"},
	    {1.7976931348623157e+308, "1.7976931348623157e+308"},
	    {1e22, "1e+22"},
	    {1234.5678, "1234.5678"},
	    {0.0001, "0.0001"},
	    {0.3333333333333333, "0.3333333333333333"},
	    {9.900000000000001e-05, "9.900000000000001e-05"},
	    {1.2345678901234568e+17, "1.2345678901234568e+17"},
	    {-1.5, "-1.5"},
	    {0.8, "0.8"},
	    {INFINITY, "Infinity"},
	    {-INFINITY, "-Infinity"},
	    {NAN, "NaN"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char out[64];
		memset(out, 'X', sizeof out);
		ib_json_float_repr(cases[i].x, out, sizeof out);
		cr_expect_str_eq(out, cases[i].want, "repr(%.17g)", cases[i].x);
	}
}

/* repr by the definition (the shortest %.{p-1}e that reads back), to check
 * ib_json_float_repr's integer fast path against */
static void repr_by_search(double x, char *out)
{
	char sci[64];
	int p = 1;
	for (; p < 17; p++) {
		snprintf(sci, sizeof sci, "%.*e", p - 1, x);
		if (strtod(sci, NULL) == x)
			break;
	}
	snprintf(sci, sizeof sci, "%.*e", p - 1, x);
	/* Python's layout, from the digits and the exponent */
	char digits[32];
	size_t nd = 0;
	const char *c = sci + (sci[0] == '-');
	for (; *c && *c != 'e'; c++)
		if (*c != '.')
			digits[nd++] = *c;
	int e = atoi(c + 1);
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	size_t o = 0;
	if (signbit(x))
		out[o++] = '-';
	if (e >= -4 && e < 16) {
		if (e < 0) {
			o += (size_t)sprintf(out + o, "0.");
			for (int i = 0; i < -e - 1; i++)
				out[o++] = '0';
			memcpy(out + o, digits, nd);
			o += nd;
		} else {
			for (int i = 0; i <= e; i++)
				out[o++] = (size_t)i < nd ? digits[i] : '0';
			out[o++] = '.';
			if ((size_t)e + 1 < nd) {
				memcpy(out + o, digits + e + 1, nd - (size_t)e - 1);
				o += nd - (size_t)e - 1;
			} else {
				out[o++] = '0';
			}
		}
		out[o] = 0;
	} else {
		out[o++] = digits[0];
		if (nd > 1) {
			out[o++] = '.';
			memcpy(out + o, digits + 1, nd - 1);
			o += nd - 1;
		}
		sprintf(out + o, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
	}
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* 200,000 doubles: random bit patterns, values of measured magnitudes, and
 * short decimals read back; every repr is the one the definition gives. */
Test(fmt, float_repr_fast_path_matches_the_definition)
{
	uint64_t st = 88172645463325252ULL;
	for (int i = 0; i < 200000; i++) {
		uint64_t b = xorshift(&st);
		double x;
		if (i % 3 == 0) {
			memcpy(&x, &b, sizeof x);
		} else if (i % 3 == 1) {
			x = (double)(b >> 11) / 9007199254740992.0 *
			    pow(10, (int)(xorshift(&st) % 26) - 10);
		} else {
			char t[40];
			snprintf(t, sizeof t, "%.*g", (int)(xorshift(&st) % 17) + 1,
			         (double)(b >> 11) / 9007199254740992.0 *
			             pow(10, (int)(xorshift(&st) % 20) - 6));
			x = strtod(t, NULL);
		}
		if (!isfinite(x))
			continue;
		char got[64], want[64];
		ib_json_float_repr(x, got, sizeof got);
		repr_by_search(x, want);
		cr_assert_str_eq(got, want, "repr of %a", x);
	}
}

/* JSON number literals: ib_json_float_literal_repr (no strtod) gives repr of
 * strtod's value, or 0 (not handled). Literals of 1 to 20 digits, with and
 * without exponents, and a few made to sit near ties. */
Test(fmt, float_literal_repr_matches_strtod)
{
	uint64_t st = 1234567;
	long handled = 0;
	for (int i = 0; i < 200000; i++) {
		char lit[64];
		int nd = 1 + (int)(xorshift(&st) % 20), len = 0,
		    point = (int)(xorshift(&st) % (nd + 1));
		if (xorshift(&st) & 1)
			lit[len++] = '-';
		for (int d = 0; d < nd; d++) {
			if (d == point && d)
				lit[len++] = '.';
			lit[len++] = (char)('0' + (d == 0 && point > 1 ? 1 + xorshift(&st) % 9
			                                               : xorshift(&st) % 10));
		}
		if (point == 0 || point >= nd)
			len += sprintf(lit + len, "e%d", (int)(xorshift(&st) % 40) - 25);
		if (i % 7 == 0) /* a half-way digit string: 17 digits then 5 */
			len = sprintf(lit, "0.%016llu5",
			              (unsigned long long)(xorshift(&st) % 10000000000000000ULL));
		lit[len] = 0;
		char got[64], want[64];
		size_t n = ib_json_float_literal_repr(lit, (size_t)len, got);
		if (!n)
			continue;
		handled++;
		cr_assert_eq(n, strlen(got));
		ib_json_float_repr(strtod(lit, NULL), want, sizeof want);
		cr_assert_str_eq(got, want, "literal %s", lit);
	}
	cr_assert_gt(handled, 100000, "the fast path took only %ld literals", handled);
}

static ib_val *load_json(const char *text)
{
	ib_error e = {0};
	ib_val *v = NULL;
	cr_assert_eq(ib_json_parse(A, "mem.json", text, strlen(text), &v, &e), 0, "%s: %s", text,
	             e.msg);
	return v;
}

/* ib_json_reindent writes what the tree writer writes, or declines (1) with
 * the buffer as it was. */
Test(fmt, json_reindent_matches_the_tree)
{
	static const char *const texts[] = {
	    "{\"a\": 1, \"b\": [1.5, -0.25, 3.0e2, 1E-5, true, false, null], \"c\": {}}",
	    "[]",
	    "  [ {\"x\" :\"y\"} , [ [ ] , { } ] ]  ",
	    "{\"tput\": 3132.0783161505733, \"t\": 0.032490304121966955, \"n\": -42}",
	    "123456789012345678",
	    "0.30000000000000004",
	    "[1.50000000000000000000, 100.0, 1e15, 5e-6]",
	};
	static const char *const declined[] = {
	    "{\"a\": 1, \"a\": 2}",            /* a repeated key */
	    "\"caf\\u00e9\"",                  /* an escape */
	    "1234567890123456789012",          /* beyond 18 digits */
	    "-0",                              /* Python's int: 0 */
	    "[NaN]",                           /* Python's extension */
	    "[1, 2",                           /* not JSON */
	    "{\"a\": 1} x",                    /* trailing text */
	    "1e400",                           /* infinity */
	    "1.00000000000000000000000000001", /* over 19 digits */
	    "",
	};
	ib_json_opts o = {.indent = 2, .ensure_ascii = true};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		ib_buf fast = {0}, tree = {0};
		ib_buf_puts(&fast, "pre");
		cr_assert_eq(ib_json_reindent(&fast, texts[i], strlen(texts[i]), 2, 1), 0, "%s",
		             texts[i]);
		ib_val *v = load_json(texts[i]);
		ib_buf_puts(&tree, "pre");
		cr_assert_eq(ib_json_write_at(&tree, v, &o, 1, NULL), 0);
		cr_assert_eq(fast.len, tree.len, "%s:\n%s\n%s", texts[i], fast.data, tree.data);
		cr_assert_eq(memcmp(fast.data, tree.data, fast.len), 0, "%s", texts[i]);
		ib_buf_free(&fast);
		ib_buf_free(&tree);
	}
	for (size_t i = 0; i < sizeof declined / sizeof *declined; i++) {
		ib_buf b = {0};
		ib_buf_puts(&b, "pre");
		cr_assert_eq(ib_json_reindent(&b, declined[i], strlen(declined[i]), 2, 0), 1, "%s",
		             declined[i]);
		cr_assert_eq(b.len, 3);
		ib_buf_free(&b);
	}
}

Test(fmt, json_writes_floats_with_repr)
{
	ib_val *l = ib_v_list(A);
	ib_list_push(A, l, ib_v_float(A, 1e16));
	ib_list_push(A, l, ib_v_float(A, 100.0));
	ib_list_push(A, l, ib_v_float(A, NAN));
	ib_list_push(A, l, ib_v_float(A, -INFINITY));
	ib_list_push(A, l, ib_v_int(A, INT64_MIN));
	ib_list_push(A, l, ib_v_int(A, -3));
	cr_assert_str_eq(dumps(l), "[1e+16, 100.0, NaN, -Infinity, -9223372036854775808, -3]");
}

/* ---- JSON: layout ---- */

static const char *const NESTED = "{a: [1, {b: null, c: []}, {}], d: x, e: [true, false, 1.5]}";

Test(fmt, json_default_separators)
{
	cr_assert_str_eq(dumps(load(NESTED)),
	                 "{\"a\": [1, {\"b\": null, \"c\": []}, {}], \"d\": \"x\", "
	                 "\"e\": [true, false, 1.5]}");
}

Test(fmt, json_compact)
{
	ib_json_opts o = {.indent = -1, .compact = true, .ensure_ascii = true};
	cr_assert_str_eq(json(load(NESTED), o),
	                 "{\"a\":[1,{\"b\":null,\"c\":[]},{}],\"d\":\"x\",\"e\":[true,false,1.5]}");
}

Test(fmt, json_indent_2_like_python)
{
	ib_json_opts o = {.indent = 2, .ensure_ascii = true};
	/* Python: json.dumps(..., indent=2) */
	cr_assert_str_eq(json(load(NESTED), o), "{\n"
	                                        "  \"a\": [\n"
	                                        "    1,\n"
	                                        "    {\n"
	                                        "      \"b\": null,\n"
	                                        "      \"c\": []\n"
	                                        "    },\n"
	                                        "    {}\n"
	                                        "  ],\n"
	                                        "  \"d\": \"x\",\n"
	                                        "  \"e\": [\n"
	                                        "    true,\n"
	                                        "    false,\n"
	                                        "    1.5\n"
	                                        "  ]\n"
	                                        "}");
	/* indent=0 still breaks lines */
	o.indent = 0;
	cr_assert_str_eq(json(load("[1, [2]]"), o), "[\n1,\n[\n2\n]\n]");
}

Test(fmt, json_empty_containers)
{
	cr_assert_str_eq(dumps(ib_v_list(A)), "[]");
	cr_assert_str_eq(dumps(ib_v_map(A)), "{}");
	ib_json_opts o = {.indent = 2, .ensure_ascii = true};
	cr_assert_str_eq(json(ib_v_list(A), o), "[]");
	cr_assert_str_eq(json(ib_v_map(A), o), "{}");
	cr_assert_str_eq(dumps(ib_v_null(A)), "null");
	cr_assert_str_eq(dumps(ib_v_bool(A, true)), "true");
}

Test(fmt, json_sort_keys)
{
	ib_json_opts o = IB_JSON_PYTHON;
	o.sort_keys = true;
	cr_assert_str_eq(json(load("{z: 1, a: 2, m: {y: 1, b: 2}, A: 0, aa: 3}"), o),
	                 "{\"A\": 0, \"a\": 2, \"aa\": 3, \"m\": {\"b\": 2, \"y\": 1}, \"z\": 1}");
	/* the value itself is not reordered */
	ib_val *v = load("{z: 1, a: 2}");
	json(v, o);
	cr_assert_str_eq(dumps(v), "{\"z\": 1, \"a\": 2}");
	o.compact = true;
	cr_assert_str_eq(json(load("{b: [1], a: x}"), o), "{\"a\":\"x\",\"b\":[1]}");
}

/* ---- JSON: strings ---- */

/* è β 😀 DEL SOH \n \t " \ \b \f \r / */
static const char ESC_IN[] = "\xc3\xa8"
                             "\xce\xb2"
                             "\xf0\x9f\x98\x80"
                             "\x7f"
                             "\x01"
                             "\n\t\"\\\b\f\r/";

Test(fmt, json_ensure_ascii_escapes)
{
	ib_val *s = ib_v_str(A, ESC_IN);
	cr_assert_str_eq(dumps(s), "\"\\u00e8\\u03b2\\ud83d\\ude00\\u007f\\u0001"
	                           "\\n\\t\\\"\\\\\\b\\f\\r/\"");
	/* every control character below 0x20 without a short form */
	ib_val *c = ib_v_strn(A, "\x00\x1f\x0b", 3);
	cr_assert_str_eq(dumps(c), "\"\\u0000\\u001f\\u000b\"");
	/* golden 061 model name */
	cr_assert_str_eq(dumps(ib_v_str(A, "org/Mod\xc3\xa8le-\xce\xb2")),
	                 "\"org/Mod\\u00e8le-\\u03b2\"");
	/* U+FFFF and U+10000 boundaries */
	cr_assert_str_eq(dumps(ib_v_str(A, "\xef\xbf\xbf\xf0\x90\x80\x80")),
	                 "\"\\uffff\\ud800\\udc00\"");
}

Test(fmt, json_raw_utf8_without_ensure_ascii)
{
	ib_json_opts o = {.indent = -1};
	ib_val *s = ib_v_str(A, ESC_IN);
	cr_assert_str_eq(json(s, o), "\"\xc3\xa8\xce\xb2\xf0\x9f\x98\x80\x7f\\u0001"
	                             "\\n\\t\\\"\\\\\\b\\f\\r/\"");
	ib_buf b = {0};
	cr_assert_eq(ib_json_write_str(&b, "a\xc3\xa8", 3, false), 0);
	cr_assert_str_eq(b.data, "\"a\xc3\xa8\"");
	b.len = 0;
	cr_assert_eq(ib_json_write_str(&b, "a\xc3\xa8", 3, true), 0);
	cr_assert_str_eq(b.data, "\"a\\u00e8\"");
	ib_buf_free(&b);
}

Test(fmt, json_keys_are_escaped)
{
	ib_val *m = ib_v_map(A);
	ib_map_set(A, m, "k\xc3\xa8y\n", ib_v_int(A, 1));
	cr_assert_str_eq(dumps(m), "{\"k\\u00e8y\\n\": 1}");
}

Test(fmt, json_date_is_not_serializable)
{
	ib_val *doc = load("a: 1\nd: 2026-08-21\n");
	cr_assert_eq(ib_map_get(doc, "d")->type, IB_V_DATE);
	ib_buf b = {0};
	ib_error e = {0};
	ib_json_opts o = IB_JSON_PYTHON;
	cr_assert_eq(ib_json_write(&b, doc, &o, &e), IB_EINVAL);
	cr_assert_eq(e.code, IB_EINVAL);
	cr_assert_eq(e.line, 2);
	ib_buf_free(&b);
}

Test(fmt, yaml_to_json_roundtrip_of_a_master_entry)
{
	ib_val *doc =
	    load("dsr1-fp8-h100-sglang:\n"
	         "  image: lmsysorg/sglang:v0.5.2\n"
	         "  model: deepseek-ai/DeepSeek-R1\n"
	         "  multinode: false\n"
	         "  scenarios:\n"
	         "    fixed-seq-len:\n"
	         "    - isl: 8192\n"
	         "      osl: 1_024\n"
	         "      search-space:\n"
	         "      - { tp: 8, ep: 8, conc-start: 4, conc-end: 0x40 }  # trailing comment\n");
	cr_assert_str_eq(dumps(doc),
	                 "{\"dsr1-fp8-h100-sglang\": {\"image\": \"lmsysorg/sglang:v0.5.2\", "
	                 "\"model\": \"deepseek-ai/DeepSeek-R1\", \"multinode\": false, "
	                 "\"scenarios\": {\"fixed-seq-len\": [{\"isl\": 8192, \"osl\": 1024, "
	                 "\"search-space\": [{\"tp\": 8, \"ep\": 8, \"conc-start\": 4, "
	                 "\"conc-end\": 64}]}]}}}");
}

Test(fmt, val_hash_consistent_with_equal)
{
	cr_assert_eq(ib_val_hash(ib_v_int(A, 1)), ib_val_hash(ib_v_float(A, 1.0)));
	cr_assert_eq(ib_val_hash(ib_v_int(A, 1)), ib_val_hash(ib_v_bool(A, true)));
	cr_assert_eq(ib_val_hash(ib_v_int(A, 0)), ib_val_hash(ib_v_float(A, -0.0)));
	cr_assert_eq(ib_val_hash(ib_v_str(A, "ab")), ib_val_hash(ib_v_strn(A, "abc", 2)));
	ib_val *m1 = load("{a: 1, b: [1, 2], c: {x: true, y: null}}");
	ib_val *m2 = load("{c: {y: ~, x: 1}, b: [1.0, 2], a: 1}");
	cr_assert(ib_val_equal(m1, m2));
	cr_assert_eq(ib_val_hash(m1), ib_val_hash(m2));
	/* unequal values of the kinds the eval grouping sees usually differ */
	cr_assert_neq(ib_val_hash(load("[1, 2]")), ib_val_hash(load("[2, 1]")));
	cr_assert_neq(ib_val_hash(ib_v_str(A, "mi300x")), ib_val_hash(ib_v_str(A, "mi355x")));
	cr_assert_neq(ib_val_hash(load("{tp: 4}")), ib_val_hash(load("{tp: 8}")));
}

Test(fmt, map_cap_and_literal_keys)
{
	ib_val *m = ib_v_map_cap(A, 2);
	cr_assert_not_null(m);
	cr_assert_eq(m->type, IB_V_MAP);
	cr_assert_eq(m->map.n, 0);
	cr_assert_geq(m->map.cap, 2);
	int rc = 0;
	IB_MAP_SET_LIT(rc, A, m, "image", ib_v_str(A, "img"));
	cr_assert_eq(rc, 0);
	IB_MAP_SET_LIT(rc, A, m, "conc", ib_v_int(A, 4));
	cr_assert_eq(rc, 0);
	IB_MAP_SET_LIT(rc, A, m, "tp", ib_v_int(A, 8)); /* grows past cap */
	cr_assert_eq(rc, 0);
	IB_MAP_SET_LIT(rc, A, m, "conc", ib_v_int(A, 16)); /* overwrite in place */
	cr_assert_eq(rc, 0);
	cr_assert_str_eq(dumps(m), "{\"image\": \"img\", \"conc\": 16, \"tp\": 8}");
	cr_assert_eq(ib_map_get(m, "tp")->i, 8);
	/* ib_map_set on a literal key finds the same entry */
	cr_assert_eq(ib_map_set(A, m, "image", ib_v_str(A, "x")), 0);
	cr_assert_eq(m->map.n, 3);
	cr_assert_str_eq(ib_map_get(m, "image")->str.s, "x");
}

/* ib_json_write_file must give the bytes ib_json_write gives. */
static void check_write_file(const ib_val *v, ib_json_opts o)
{
	char *want = json(v, o);
	char *got = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&got, &len);
	cr_assert_not_null(f);
	ib_error e = {0};
	cr_assert_eq(ib_json_write_file(f, v, &o, &e), 0, "%s", e.msg);
	fclose(f);
	cr_assert_eq(len, strlen(want));
	cr_assert_str_eq(got, want);
	free(got);
}

Test(fmt, json_write_file_same_bytes)
{
	ib_val *big = ib_v_list(A);
	for (int i = 0; i < 3000; i++)
		ib_list_push(A, big, load("{image: \"img/\xc3\xa8\", conc: [1, 2], x: 1.5}"));
	ib_json_opts compact = {.indent = -1, .compact = true, .ensure_ascii = true};
	ib_json_opts raw = {.indent = -1};
	ib_json_opts ind = {.indent = 2, .ensure_ascii = true};
	check_write_file(big, IB_JSON_PYTHON);
	check_write_file(big, compact);
	check_write_file(big, raw);
	check_write_file(load(NESTED), ind);
	check_write_file(ib_v_list(A), IB_JSON_PYTHON);
	check_write_file(load("{a: [1]}"), IB_JSON_PYTHON);
	/* a date inside the list is still an error */
	ib_val *l = load("[1, 2026-08-21]");
	FILE *f = fopen("/dev/null", "w");
	cr_assert_not_null(f);
	ib_error e = {0};
	ib_json_opts o = IB_JSON_PYTHON;
	cr_assert_eq(ib_json_write_file(f, l, &o, &e), IB_EINVAL);
	fclose(f);
}

Test(fmt, json_parse_roundtrip)
{
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	ib_val *v = NULL;
	const char *text =
	    "{\"b\": [1, 2.5, -0.0, 1e+16, true, null, \"\\u00e9\\u0000x\"], \"a\": {}, "
	    "\"b\": {\"z\": 1, \"y\": []}}";
	cr_assert_eq(ib_json_parse(a, "t.json", text, strlen(text), &v, &e), 0, "%s", e.msg);
	cr_assert_eq(v->type, IB_V_MAP);
	cr_assert_eq(v->map.n, 2); /* duplicate "b": first position, last value */
	cr_assert_str_eq(v->map.kv[0].key->str.s, "b");
	cr_assert_eq(ib_map_get(v, "b")->type, IB_V_MAP);
	ib_buf b = {0};
	ib_json_opts o = IB_JSON_PYTHON;
	cr_assert_eq(ib_json_write(&b, v, &o, &e), 0);
	cr_assert_str_eq(b.data, "{\"b\": {\"z\": 1, \"y\": []}, \"a\": {}}");
	b.len = 0;
	const char *list = "[1, 2.5, -0.0, 1e+16, true, null, \"\\u00e9\\u0000x\"]";
	cr_assert_eq(ib_json_parse(a, "t.json", list, strlen(list), &v, &e), 0);
	cr_assert_eq(ib_json_write(&b, v, &o, &e), 0);
	cr_assert_str_eq(b.data, "[1, 2.5, -0.0, 1e+16, true, null, \"\\u00e9\\u0000x\"]");
	cr_assert_eq(v->list.v[6]->str.len, 4); /* é is 2 bytes, then NUL, then x */
	ib_buf_free(&b);
	ib_arena_free(a);
}

Test(fmt, json_parse_errors_have_positions)
{
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	ib_val *v = NULL;
	const char *text = "{\n  \"a\": [1, 2,,]\n}";
	cr_assert_eq(ib_json_parse(a, "bad.json", text, strlen(text), &v, &e), IB_EPARSE);
	cr_assert_eq(e.line, 2);
	cr_assert_gt(e.col, 0);
	cr_assert_str_eq(e.file, "bad.json");
	ib_arena_free(a);
}

/* A top-level list of objects (an agg file) is read item by item: the same
 * tree as the whole text gives, keys shared between rows, Python's tokens in
 * a later row, and errors at the same place as before. */
Test(fmt, json_parse_list_of_rows_item_by_item)
{
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	ib_val *v = NULL;
	const char *text =
	    " [ {\"hw\": \"h100\", \"x\": 1, \"x\": 2, \"l\": [1, {\"a\": null}]} ,\n"
	    "{\"x\": 3, \"hw\": \"b200\"},{\"x\": NaN, \"big\": 100000000000000000000},"
	    "[], {} ]\n";
	cr_assert_eq(ib_json_parse(a, "rows.json", text, strlen(text), &v, &e), 0, "%s", e.msg);
	cr_assert_eq(v->type, IB_V_LIST);
	cr_assert_eq(v->list.n, 5);
	const ib_val *r0 = v->list.v[0], *r1 = v->list.v[1], *r2 = v->list.v[2];
	cr_assert_eq(r0->map.n, 3); /* duplicate key: first position, last value */
	cr_assert_eq(ib_map_get(r0, "x")->i, 2);
	cr_assert_str_eq(ib_map_get(r1, "hw")->str.s, "b200");
	cr_assert_eq(r0->map.kv[0].key, r1->map.kv[1].key); /* "hw" interned */
	cr_assert(isnan(ib_map_get(r2, "x")->f));
	cr_assert_str_eq(ib_map_get(r2, "big")->bigint, "100000000000000000000");
	ib_buf b = {0};
	cr_assert_eq(ib_json_write(&b, v, &IB_JSON_PYTHON, &e), 0);
	cr_assert_str_eq(b.data, "[{\"hw\": \"h100\", \"x\": 2, \"l\": [1, {\"a\": null}]}, "
	                         "{\"x\": 3, \"hw\": \"b200\"}, "
	                         "{\"x\": NaN, \"big\": 100000000000000000000}, [], {}]");
	ib_buf_free(&b);
	cr_assert_eq(ib_json_parse(a, "e.json", " [ ]", 4, &v, &e), 0);
	cr_assert_eq(v->type, IB_V_LIST);
	cr_assert_eq(v->list.n, 0);
	/* not JSON: the error of the whole text */
	const char *bad[] = {"[{\"a\": 1},]", "[{\"a\": 1}] x", "[{\"a\": 1},\n{\"a\": }]",
	                     "[{\"a\": 1} {\"a\": 2}]", "[{\"a\": 1}, 2, nan]"};
	const int line[] = {1, 1, 2, 1, 1};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		e = (ib_error){0};
		cr_assert_eq(ib_json_parse(a, "bad.json", bad[i], strlen(bad[i]), &v, &e),
		             IB_EPARSE, "%s", bad[i]);
		cr_assert_eq(e.line, line[i], "%s: line %d", bad[i], e.line);
	}
	ib_arena_free(a);
}

Test(fmt, json_parse_huge_integers_like_python)
{
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	ib_val *v = NULL;
	const char *text =
	    "{\"model_max_length\": 1000000000000000019884624838656, \"n\": 7, \"x\": 2.5}";
	cr_assert_eq(ib_json_parse(a, "c.json", text, strlen(text), &v, &e), 0, "%s", e.msg);
	cr_assert_eq(ib_map_get(v, "model_max_length")->type, IB_V_FLOAT);
	cr_assert_eq(ib_map_get(v, "n")->type, IB_V_INT);
	cr_assert_eq(ib_map_get(v, "n")->i, 7);
	cr_assert_eq(ib_map_get(v, "x")->f, 2.5);
	cr_assert_str_eq(ib_map_get(v, "model_max_length")->bigint,
	                 "1000000000000000019884624838656");
	cr_assert_null(ib_map_get(v, "x")->bigint);
	ib_arena_free(a);
}

/* json.dump(json.load(f)) keeps integers of any size exact, next to Python's
 * other tokens; the int64 limits stay ints; Python's 4300-digit limit holds. */
Test(fmt, json_huge_integers_written_back_exactly)
{
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	ib_val *v = NULL;
	const char *text = "[12345678901234567890, -9223372036854775809, 9223372036854775807, "
	                   "-9223372036854775808, 9223372036854775808, 1e400, NaN, 3, "
	                   "{\"k\": 100000000000000000000000000000000000001}]";
	cr_assert_eq(ib_json_parse(a, "c.json", text, strlen(text), &v, &e), 0, "%s", e.msg);
	cr_assert_eq(v->list.v[2]->type, IB_V_INT);
	cr_assert_eq(v->list.v[3]->type, IB_V_INT);
	cr_assert_eq(v->list.v[4]->type, IB_V_FLOAT);
	cr_assert_eq(v->list.v[0]->f, 12345678901234567890.0);
	ib_buf b = {0};
	ib_json_opts o = IB_JSON_PYTHON;
	cr_assert_eq(ib_json_write(&b, v, &o, &e), 0);
	cr_assert_str_eq(b.data,
	                 "[12345678901234567890, -9223372036854775809, 9223372036854775807, "
	                 "-9223372036854775808, 9223372036854775808, Infinity, NaN, 3, "
	                 "{\"k\": 100000000000000000000000000000000000001}]");
	b.len = 0;
	ib_val_pystr(&b, v->list.v[1]);
	cr_assert_str_eq(b.data, "-9223372036854775809");
	/* not JSON numbers: still syntax errors, at their place in the text */
	const char *bad[] = {"[01234567890123456789012]", "[-012345678901234567890123]", "[1 2]"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_expect_eq(ib_json_parse(a, "c.json", bad[i], strlen(bad[i]), &v, &e), IB_EPARSE,
		             "%s", bad[i]);
	/* 4300 digits read, 4301 refused (Python: ValueError) */
	ib_buf d = {0};
	ib_buf_putc(&d, '[');
	for (int i = 0; i < 4300; i++)
		ib_buf_putc(&d, i ? '7' : '1');
	ib_buf_putc(&d, ']');
	cr_assert_eq(ib_json_parse(a, "c.json", d.data, d.len, &v, &e), 0, "%s", e.msg);
	cr_assert_eq(strlen(v->list.v[0]->bigint), 4300);
	cr_assert(isinf(v->list.v[0]->f));
	d.data[d.len - 1] = '7';
	ib_buf_putc(&d, ']');
	cr_assert_eq(ib_json_parse(a, "c.json", d.data, d.len, &v, &e), IB_EPARSE);
	ib_buf_free(&d);
	ib_buf_free(&b);
	ib_arena_free(a);
}

/* PyYAML's ReaderError: invalid UTF-8 or special characters anywhere, comments
 * included, fail with their position; libfyaml never sees them (the 4-byte
 * directive used to hang it). */
Test(fmt, yaml_reader_rejects_invalid_utf8_and_special_characters)
{
	static const struct {
		const char *text;
		const char *want;
		int line;
	} cases[] = {
	    {"a: 1\n# c\xf9\nb: 2\n", "#x00f9: invalid start byte (position 8)", 2},
	    {"%!\xf9!", "#x00f9: invalid start byte (position 2)", 1},
	    {"a: \xc3\x28\n", "#x00c3: invalid continuation byte (position 3)", 1},
	    {"a: \xc3\xa9\xc3", "#x00c3: unexpected end of data (position 5)", 1},
	    {"a: \xed\xa0\x80\n", "#x00ed: invalid continuation byte (position 3)", 1},
	    {"a: \xf4\x90\x80\x80", "#x00f4: invalid continuation byte (position 3)", 1},
	    {"a: 1 # \x07\n", "#x0007: special characters are not allowed (position 7)", 1},
	    {"\xc3\xa9\n\xc3\xa9: \xef\xbf\xbe",
	     "#xfffe: special characters are not allowed (position 5)", 2},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ib_error e = {0};
		load_fail(cases[i].text, &e);
		cr_expect(strstr(e.msg, cases[i].want) != NULL, "case %zu: %s", i, e.msg);
		cr_expect_eq(e.line, cases[i].line, "case %zu: line %d", i, e.line);
	}
	ib_val *v = load("a: \xc3\xa9\xf0\x9f\x98\x80\n");
	cr_assert_eq(v->type, IB_V_MAP);
}

/* Tags on collections are checked as PyYAML's safe constructors check them. */
Test(fmt, yaml_tags_on_collections_checked)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"a: !foo {b: 1}\n", "could not determine a constructor for the tag '!foo'"},
	    {"a: !!str [1]\n", "expected a scalar node, but found sequence"},
	    {"a: !!seq {b: 1}\n", "expected a sequence node, but found mapping"},
	    {"a: !!map [1]\n", "expected a mapping node, but found sequence"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ib_error e = {0};
		load_fail(cases[i].text, &e);
		cr_expect(strstr(e.msg, cases[i].want) != NULL, "case %zu: %s", i, e.msg);
		cr_expect_eq(e.line, 1, "case %zu", i);
		cr_expect_eq(e.col, 4, "case %zu: col %d", i, e.col);
	}
	ib_val *v = load("a: !!map {b: 1}\nc: !!seq [1]\n");
	cr_assert_eq(v->type, IB_V_MAP);
}

/* ---- tabulate's github tables ---- */

static char *table(const char *const *hd, size_t nc, const ib_val *const *cells, size_t nr)
{
	ib_buf b = {0};
	cr_assert_eq(ib_table_github(&b, hd, nc, cells, nr), 0);
	return b.data;
}

Test(fmt, table_github_text_left_numbers_right)
{
	static const char *const hd[] = {"A", "Num"};
	const ib_val *cells[] = {ib_v_str(A, "x"), ib_v_int(A, 1), ib_v_str(A, " y "),
	                         ib_v_str(A, ""),  ib_v_null(A),   ib_v_str(A, "22")};
	char *t = table(hd, 2, cells, 3);
	cr_assert_str_eq(t, "| A   |   Num |\n"
	                    "|-----|-------|\n"
	                    "| x   |     1 |\n"
	                    "| y   |       |\n"
	                    "|     |    22 |");
	free(t);
}

Test(fmt, table_github_floats_align_on_the_point)
{
	static const char *const hd[] = {"F"};
	const ib_val *cells[] = {ib_v_float(A, 1.5), ib_v_str(A, "2"), ib_v_float(A, 10.25),
	                         ib_v_float(A, 1234567.0)};
	char *t = table(hd, 1, cells, 4);
	/* "g": 6 significant digits; tabulate counts the 9 characters after the
	 * point of 1.23457e+06 as decimals, so every cell is padded to 9 */
	cr_assert_str_eq(t, "|            F |\n"
	                    "|--------------|\n"
	                    "|  1.5         |\n"
	                    "|  2           |\n"
	                    "| 10.25        |\n"
	                    "|  1.23457e+06 |");
	free(t);
}

Test(fmt, table_github_one_text_cell_makes_the_column_text)
{
	static const char *const hd[] = {"Mixed"};
	const ib_val *cells[] = {ib_v_int(A, 5), ib_v_str(A, "N/A"), ib_v_bool(A, true)};
	char *t = table(hd, 1, cells, 3);
	cr_assert_str_eq(t, "| Mixed   |\n"
	                    "|---------|\n"
	                    "| 5       |\n"
	                    "| N/A     |\n"
	                    "| True    |");
	free(t);
}
