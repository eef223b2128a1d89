/* Unit tests for chat/: error positions and messages, apply_chat_template
 * variables, tokenizer_config.json loading, the DeepSeek-V4 framing, limits,
 * and random templates and bytes (no crash, output or an error). The Jinja
 * semantics themselves are compared with jinja2 in test_chat_jinja*.c. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chat/chat.h"

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

TestSuite(chat, .init = setup, .fini = teardown);

static ib_val *json(const char *text)
{
	ib_error e = {0};
	ib_val *v = NULL;
	cr_assert_eq(ib_json_parse(A, "test", text, strlen(text), &v, &e), 0, "%s", e.msg);
	return v;
}

/* Renders tmpl with vars (JSON or NULL); returns rc and fills out / e. */
static int try_render(const char *tmpl, const char *vars, ib_buf *out, ib_error *e)
{
	chat_tmpl *t = NULL;
	int rc = chat_tmpl_parse(tmpl, strlen(tmpl), "t.jinja", &t, e);
	if (!rc)
		rc = chat_tmpl_render(t, vars ? json(vars) : NULL, out, e);
	chat_tmpl_free(t);
	return rc;
}

static void expect_render(const char *tmpl, const char *vars, const char *want)
{
	ib_buf out = {0};
	ib_error e = {0};
	int rc = try_render(tmpl, vars, &out, &e);
	cr_expect_eq(rc, 0, "%s: %s:%d:%d: %s", tmpl, e.file, e.line, e.col, e.msg);
	cr_expect_str_eq(out.data ? out.data : "", want, "%s", tmpl);
	ib_buf_free(&out);
}

/* Expects an error whose message contains msg, at line:col (0: not checked). */
static void expect_error(const char *tmpl, const char *vars, int code, int line, int col,
                         const char *msg)
{
	ib_buf out = {0};
	ib_error e = {0};
	int rc = try_render(tmpl, vars, &out, &e);
	cr_expect_eq(rc, code, "%s: rc %d, want %d (%s)", tmpl, rc, code, e.msg);
	cr_expect_str_eq(e.file, "t.jinja", "%s", tmpl);
	if (line)
		cr_expect_eq(e.line, line, "%s: line %d, want %d", tmpl, e.line, line);
	if (col)
		cr_expect_eq(e.col, col, "%s: col %d, want %d", tmpl, e.col, col);
	cr_expect(strstr(e.msg, msg) != NULL, "%s: message '%s' lacks '%s'", tmpl, e.msg, msg);
	cr_expect_eq(out.len, 0, "%s: output on error", tmpl);
	ib_buf_free(&out);
}

/* ---- errors: messages, line and column ---- */

Test(chat, syntax_errors_have_positions)
{
	expect_error("a\n{% if true %}\nx", NULL, IB_EPARSE, 3, 2,
	             "Unexpected end of template. Jinja was looking for the following tags: "
	             "'elif' or 'else' or 'endif'. The innermost block that needs to be closed "
	             "is 'if'.");
	expect_error("{% foo %}", NULL, IB_EPARSE, 1, 4, "Encountered unknown tag 'foo'.");
	expect_error("{{ 1 + }}", NULL, IB_EPARSE, 1, 8, "unexpected 'end of print statement'");
	expect_error("ab\n  {{ (1 }}", NULL, IB_EPARSE, 2, 9, "unexpected '}', expected ')'");
	expect_error("{{ 'abc }}", NULL, IB_EPARSE, 1, 4, "unexpected character '''");
	expect_error("{# open", NULL, IB_EPARSE, 1, 1, "missing end of comment tag");
	expect_error("x{% raw %}abc", NULL, IB_EPARSE, 1, 2, "missing end of raw directive");
	expect_error("{{ '\\x4' }}", NULL, IB_EPARSE, 1, 5, "truncated \\x escape");
	expect_error("{% macro m(a=1, b) %}{% endmacro %}", NULL, IB_EPARSE, 1, 18,
	             "non-default argument follows default argument");
	expect_error("{% break %}", NULL, IB_EPARSE, 1, 4, "'break' outside of a loop");
	expect_error("{% set 1 = 2 %}", NULL, IB_EPARSE, 1, 8, "can't assign to 'const'");
	expect_error("{{ 99999999999999999999 }}", NULL, IB_EPARSE, 1, 4,
	             "does not fit in 64 bits");
	/* columns count characters, not bytes */
	expect_error("é€{{ ) }}", NULL, IB_EPARSE, 1, 6, "unexpected ')'");
}

Test(chat, runtime_errors_have_positions)
{
	expect_error("line1\n{{ foo.bar }}", NULL, IB_EINVAL, 2, 7, "'foo' is undefined");
	expect_error("é{{ 1 + 'a' }}", NULL, IB_EINVAL, 1, 7,
	             "unsupported operand type(s) for +: 'int' and 'str'");
	expect_error("{{ x.append(1) }}", "{\"x\": []}", IB_EINVAL, 1, 0,
	             "access to attribute 'append' of 'list' object is unsafe.");
	expect_error("{{ d.y.z }}", "{\"d\": {}}", IB_EINVAL, 1, 0,
	             "'dict object' has no attribute 'y'");
	expect_error("{{ x[3] + 1 }}", "{\"x\": [1]}", IB_EINVAL, 1, 0,
	             "list object has no element 3");
	expect_error("{{ x | nope }}", NULL, IB_EINVAL, 1, 8, "No filter named 'nope'.");
	expect_error("{{ x is nope }}", NULL, IB_EINVAL, 1, 6, "No test named 'nope'.");
	expect_error("{{ 1 // 0 }}", NULL, IB_EINVAL, 1, 6, "integer division or modulo by zero");
	expect_error("{% for a, b in [[1]] %}{% endfor %}", NULL, IB_EINVAL, 1, 8,
	             "not enough values to unpack (expected 2, got 1)");
	expect_error("{{ (1 if false).x }}", NULL, IB_EINVAL, 1, 0,
	             "the inline if-expression on line 1 evaluated to false and no else section "
	             "was defined.");
}

Test(chat, raise_exception_message_and_position)
{
	ib_buf out = {0};
	ib_error e = {0};
	cr_assert_eq(ib_buf_puts(&out, "kept"), 0);
	int rc = try_render("ok\n  {{ raise_exception('Only user and assistant roles are "
	                    "supported, got ' ~ r) }}",
	                    "{\"r\": \"tool\"}", &out, &e);
	cr_expect_eq(rc, IB_EINVAL);
	cr_expect_str_eq(e.msg, "Only user and assistant roles are supported, got tool");
	cr_expect_eq(e.line, 2);
	cr_expect_eq(e.col, 6);
	/* what the buffer held before the call is kept, nothing is added */
	cr_expect_str_eq(out.data, "kept");
	char m[4096];
	ib_error_format(&e, m, sizeof m);
	cr_expect_str_eq(m, "t.jinja:2:6: Only user and assistant roles are supported, got tool");
	ib_buf_free(&out);
}

Test(chat, limits)
{
	expect_error("{{ 'x' * 2000000000 }}", NULL, IB_ERANGE, 1, 8, "too large");
	expect_error("{% macro r() %}{{ r() }}{% endmacro %}{{ r() }}", NULL, IB_ERANGE, 1, 19,
	             "maximum recursion depth exceeded");
	expect_error("{{ range(100001) }}", NULL, IB_ERANGE, 1, 4,
	             "Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
	char deep[4096];
	size_t n = 0;
	n += (size_t)snprintf(deep + n, sizeof deep - n, "{{ ");
	for (int i = 0; i < 400; i++)
		deep[n++] = '-';
	snprintf(deep + n, sizeof deep - n, "1 }}");
	expect_error(deep, NULL, IB_EPARSE, 1, 0, "template nested too deeply");
	n = (size_t)snprintf(deep, sizeof deep, "{{ ");
	for (int i = 0; i < 300; i++)
		n += (size_t)snprintf(deep + n, sizeof deep - n, "[");
	expect_error(deep, NULL, IB_EPARSE, 1, 260, "brackets nested too deeply");
}

/* ---- Undefined: jinja2's default Undefined ---- */

Test(chat, undefined_semantics)
{
	expect_render("[{{ nope }}][{{ nope is defined }}][{{ nope|length }}][{% for x in nope "
	              "%}x{% endfor %}][{{ nope|default('d') }}][{{ nope ~ 'c' }}][{{ not nope }}]",
	              NULL, "[][False][0][][d][c][True]");
	/* attributes of defined objects that lack them are undefined ... */
	expect_render("[{{ d.nope }}][{{ d['nope'] is undefined }}][{{ none.x }}]", "{\"d\": {}}",
	              "[][True][]");
	/* ... but an attribute of an Undefined is an error, as in jinja2 */
	expect_error("{{ nope.x }}", NULL, IB_EINVAL, 1, 8, "'nope' is undefined");
	expect_error("{{ nope['x'] }}", NULL, IB_EINVAL, 1, 8, "'nope' is undefined");
	expect_error("{{ nope + 1 }}", NULL, IB_EINVAL, 1, 9, "'nope' is undefined");
	expect_error("{{ nope() }}", NULL, IB_EINVAL, 1, 4, "'nope' is undefined");
}

/* ---- apply_chat_template ---- */

Test(chat, apply_passes_transformers_variables)
{
	const char *src =
	    "{{ messages|length }}|{{ tools }}|{{ documents }}|{{ add_generation_prompt "
	    "}}|{{ bos_token }}|{{ extra is defined }}";
	chat_tmpl *t = NULL;
	ib_error e = {0};
	cr_assert_eq(chat_tmpl_parse(src, strlen(src), "apply", &t, &e), 0, "%s", e.msg);
	ib_buf out = {0};
	cr_assert_eq(chat_apply(t, json("[{\"role\": \"user\", \"content\": \"a\"}]"), true,
	                        json("{\"bos_token\": \"<s>\"}"), &out, &e),
	             0, "%s", e.msg);
	cr_expect_str_eq(out.data, "1|None|None|True|<s>|False");
	out.len = 0;
	/* extra keys replace the standard ones */
	cr_assert_eq(
	    chat_apply(t, json("[]"), false, json("{\"tools\": [1], \"extra\": 0}"), &out, &e), 0,
	    "%s", e.msg);
	cr_expect_str_eq(out.data, "0|[1]|None|False||True");
	ib_buf_free(&out);
	chat_tmpl_free(t);
}

Test(chat, render_is_repeatable)
{
	const char *src =
	    "{% set ns = namespace(n=0) %}{% for m in messages %}{% set ns.n = ns.n + "
	    "1 %}{% endfor %}{{ ns.n }}{% set j = joiner() %}{{ j() }}{{ j() }}";
	chat_tmpl *t = NULL;
	ib_error e = {0};
	cr_assert_eq(chat_tmpl_parse(src, strlen(src), "r", &t, &e), 0, "%s", e.msg);
	for (int i = 0; i < 3; i++) {
		ib_buf out = {0};
		cr_assert_eq(chat_apply(t, json("[{}, {}]"), false, NULL, &out, &e), 0, "%s",
		             e.msg);
		cr_expect_str_eq(out.data, "2, ");
		ib_buf_free(&out);
	}
	chat_tmpl_free(t);
}

/* ---- tokenizer_config.json ---- */

static void render_config(const char *config_json, const char *which, const char *messages,
                          const char *want)
{
	chat_config c;
	ib_error e = {0};
	cr_assert_eq(chat_config_from_val(A, json(config_json), "cfg.json", which, &c, &e), 0, "%s",
	             e.msg);
	ib_buf out = {0};
	cr_assert_eq(chat_apply(c.tmpl, json(messages), true, c.special, &out, &e), 0, "%s", e.msg);
	cr_expect_str_eq(out.data ? out.data : "", want);
	ib_buf_free(&out);
	chat_config_free(&c);
}

Test(chat, config_special_tokens)
{
	/* AddedToken objects give their content; null leaves the token undefined */
	render_config(
	    "{\"chat_template\": \"{{ bos_token }}|{{ eos_token }}|{{ unk_token is "
	    "defined }}|{{ pad_token }}|{{ additional_special_tokens }}\", "
	    "\"bos_token\": {\"__type\": \"AddedToken\", \"content\": \"<B>\", \"lstrip\": "
	    "false}, \"eos_token\": \"<E>\", \"unk_token\": null, \"pad_token\": \"<P>\", "
	    "\"additional_special_tokens\": [\"<x>\", {\"content\": \"<y>\"}], "
	    "\"model_max_length\": 1e30}",
	    NULL, "[]", "<B>|<E>|False|<P>|['<x>', '<y>']");
}

Test(chat, config_named_templates)
{
	const char *cfg = "{\"chat_template\": [{\"name\": \"tool_use\", \"template\": \"T\"}, "
	                  "{\"name\": \"default\", \"template\": \"D{{ messages|length }}\"}]}";
	render_config(cfg, NULL, "[1, 2]", "D2");
	render_config(cfg, "tool_use", "[]", "T");
	chat_config c;
	ib_error e = {0};
	cr_expect_eq(chat_config_from_val(A, json(cfg), "cfg.json", "rag", &c, &e), IB_ENOENT);
	cr_expect(strstr(e.msg, "no chat template named 'rag'") != NULL, "%s", e.msg);
	cr_expect_eq(
	    chat_config_from_val(A, json("{\"bos_token\": \"<s>\"}"), "cfg.json", NULL, &c, &e),
	    IB_ENOENT);
	cr_expect_eq(
	    chat_config_from_val(A, json("{\"chat_template\": 3}"), "cfg.json", NULL, &c, &e),
	    IB_EINVAL);
	cr_expect_eq(chat_config_from_val(A, json("{\"chat_template\": [{\"name\": 1}]}"),
	                                  "cfg.json", NULL, &c, &e),
	             IB_EINVAL);
	/* template syntax errors name the config */
	cr_expect_eq(chat_config_from_val(A, json("{\"chat_template\": \"\\n{% if %}\"}"),
	                                  "cfg.json", NULL, &c, &e),
	             IB_EPARSE);
	cr_expect_str_eq(e.file, "cfg.json:chat_template");
	cr_expect_eq(e.line, 2);
}

Test(chat, config_load_from_folder)
{
	char dir[] = "/tmp/chat_cfg_XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof path, "%s/tokenizer_config.json", dir);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	/* an integer beyond 64 bits (transformers writes model_max_length so) */
	fputs("{\"model_max_length\": 1000000000000000019884624838656, \"eos_token\": \"</s>\", "
	      "\"chat_template\": \"{% for m in messages %}{{ m.content }}{{ eos_token }}{% endfor "
	      "%}\", \"n\": -12345678901234567890}",
	      f);
	fclose(f);
	chat_config c;
	ib_error e = {0};
	cr_assert_eq(chat_config_load(A, dir, NULL, &c, &e), 0, "%s", e.msg);
	ib_buf out = {0};
	cr_assert_eq(chat_apply(c.tmpl, json("[{\"content\": \"a\"}, {\"content\": \"b\"}]"), false,
	                        c.special, &out, &e),
	             0, "%s", e.msg);
	cr_expect_str_eq(out.data, "a</s>b</s>");
	ib_buf_free(&out);
	chat_config_free(&c);
	/* the file itself works too; a missing one is IB_ENOENT */
	cr_expect_eq(chat_config_load(A, path, NULL, &c, &e), 0, "%s", e.msg);
	chat_config_free(&c);
	unlink(path);
	cr_expect_eq(chat_config_load(A, dir, NULL, &c, &e), IB_ENOENT);
	rmdir(dir);
}

/* ---- the DeepSeek-V4 framing ---- */

#define BOS       "<｜begin▁of▁sentence｜>"
#define EOS       "<｜end▁of▁sentence｜>"
#define USER      "<｜User｜>"
#define ASSISTANT "<｜Assistant｜>"

static void expect_dsv4(const char *messages, const chat_dsv4_opts *o, const char *want)
{
	ib_buf out = {0};
	ib_error e = {0};
	cr_assert_eq(chat_dsv4_apply(json(messages), o, &out, &e), 0, "%s", e.msg);
	cr_expect_str_eq(out.data ? out.data : "", want, "%s", messages);
	ib_buf_free(&out);
}

Test(chat, dsv4_benchmark_prompt)
{
	/* spec/bench.md D11: one user message gives exactly
	 * <｜begin▁of▁sentence｜><｜User｜>{prompt}<｜Assistant｜><think> */
	expect_dsv4("[{\"role\": \"user\", \"content\": \"a prompt\"}]", NULL,
	            "<｜begin▁of▁sentence｜><｜User｜>a prompt<｜Assistant｜><think>");
}

Test(chat, dsv4_conversations)
{
	expect_dsv4(
	    "[{\"role\": \"system\", \"content\": \"S\"}, {\"role\": \"user\", \"content\": "
	    "\"U\"}]",
	    NULL, BOS "S" USER "U" ASSISTANT "<think>");
	/* earlier reasoning is dropped, the last turn thinks */
	const char *turns =
	    "[{\"role\": \"user\", \"content\": \"Q1\"}, {\"role\": \"assistant\", "
	    "\"content\": \"A1\", \"reasoning_content\": \"R1\"}, {\"role\": \"user\", "
	    "\"content\": \"Q2\"}]";
	expect_dsv4(turns, NULL,
	            BOS USER "Q1" ASSISTANT "</think>A1" EOS USER "Q2" ASSISTANT "<think>");
	chat_dsv4_opts keep = {.keep_thinking = true};
	expect_dsv4(turns, &keep,
	            BOS USER "Q1" ASSISTANT "<think>R1</think>A1" EOS USER "Q2" ASSISTANT
	                     "<think>");
	chat_dsv4_opts chat = {.chat_mode = true, .no_bos = true};
	expect_dsv4(turns, &chat,
	            USER "Q1" ASSISTANT "</think>A1" EOS USER "Q2" ASSISTANT "</think>");
	/* an answer after the last user message keeps its reasoning */
	expect_dsv4("[{\"role\": \"user\", \"content\": \"Q\"}, {\"role\": \"assistant\", "
	            "\"content\": \"A\", \"reasoning_content\": \"R\"}]",
	            NULL, BOS USER "Q" ASSISTANT "<think>R</think>A" EOS);
	/* consecutive user messages merge; an earlier developer message is dropped */
	expect_dsv4("[{\"role\": \"developer\", \"content\": \"D\"}, {\"role\": \"user\", "
	            "\"content\": \"a\"}, {\"role\": \"user\", \"content\": \"b\"}]",
	            NULL, BOS USER "a\n\nb" ASSISTANT "<think>");
	expect_dsv4("[{\"role\": \"user\", \"content\": \"a\"}, {\"role\": \"developer\", "
	            "\"content\": \"D\"}]",
	            NULL, BOS USER "a" USER "D" ASSISTANT "<think>");
}

Test(chat, dsv4_refuses_what_it_does_not_encode)
{
	const char *bad[] = {
	    "{\"role\": \"user\"}",
	    "[{\"role\": \"tool\", \"content\": \"r\"}]",
	    "[{\"role\": \"user\", \"content\": \"q\", \"tools\": [{\"type\": \"function\"}]}]",
	    "[{\"role\": \"assistant\", \"content\": null, \"tool_calls\": [{}]}]",
	    "[{\"role\": \"wizard\", \"content\": \"x\"}]",
	    "[{\"content\": \"x\"}]",
	    "[{\"role\": \"user\", \"content\": [1]}]",
	    "[3]",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ib_buf out = {0};
		ib_error e = {0};
		cr_expect_eq(chat_dsv4_apply(json(bad[i]), NULL, &out, &e), IB_EINVAL, "%s",
		             bad[i]);
		cr_expect(e.msg[0] != 0, "%s: no message", bad[i]);
		cr_expect_eq(out.len, 0);
		ib_buf_free(&out);
	}
}

/* ---- random templates and bytes ---- */

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % n);
}

/* Renders src; it must give output or an error with a message. */
static void fuzz_one(const char *src, size_t n, const ib_val *vars)
{
	chat_tmpl *t = NULL;
	ib_error e = {0};
	ib_buf out = {0};
	int rc = chat_tmpl_parse(src, n, "fuzz", &t, &e);
	if (!rc)
		rc = chat_tmpl_render(t, vars, &out, &e);
	if (rc)
		cr_expect(e.msg[0] != 0, "error %d without a message for %.*s", rc, (int)n, src);
	chat_tmpl_free(t);
	ib_buf_free(&out);
}

Test(chat, fuzz_random_templates)
{
	static const char *const frags[] = {
	    "{{",
	    "}}",
	    "{%",
	    "%}",
	    "{#",
	    "#}",
	    "-",
	    "+",
	    " ",
	    "\n",
	    "if ",
	    "for ",
	    "in ",
	    "endif",
	    "endfor",
	    "else",
	    "elif ",
	    "set ",
	    "macro ",
	    "endmacro",
	    "call",
	    "endcall",
	    "raw",
	    "endraw",
	    "filter ",
	    "with ",
	    "x",
	    "m",
	    "ns",
	    "loop",
	    "messages",
	    ".",
	    "[",
	    "]",
	    "(",
	    ")",
	    "{",
	    "}",
	    ",",
	    ":",
	    "|",
	    "~",
	    "*",
	    "**",
	    "/",
	    "//",
	    "%",
	    "==",
	    "<",
	    "is ",
	    "not ",
	    "and ",
	    "or ",
	    "'s'",
	    "\"t\\n\"",
	    "1",
	    "2.5",
	    "0x1f",
	    "true",
	    "none",
	    "namespace(a=1)",
	    "range(3)",
	    "|length",
	    "|tojson",
	    "|trim",
	    "|join(',')",
	    "|map(attribute='role')",
	    "|selectattr('role')",
	    "|sort",
	    "|dictsort",
	    ".split(' ')",
	    ".strip()",
	    "[0]",
	    "[::-1]",
	    "[1:]",
	    "break",
	    "continue",
	    "caller()",
	    "raise_exception('e')",
	    "'%s' % x",
	    "é",
	    "€",
	    "\xff",
	    "\xc3",
	    "\t",
	    "=",
	    "'",
	    "\"",
	    "\\",
	};
	ib_val *vars =
	    json("{\"x\": [1, \"a\", {\"role\": \"user\"}], \"m\": {\"role\": \"user\", "
	         "\"content\": \"hi\"}, \"messages\": [{\"role\": \"user\", \"content\": "
	         "\"q\"}, {\"role\": \"assistant\", \"content\": \"a\"}]}");
	char buf[512];
	for (int i = 0; i < 3000; i++) {
		size_t n = 0;
		int parts = 1 + (int)rnd(24);
		for (int k = 0; k < parts; k++) {
			const char *f = frags[rnd(sizeof frags / sizeof frags[0])];
			size_t fl = strlen(f);
			if (n + fl >= sizeof buf)
				break;
			memcpy(buf + n, f, fl);
			n += fl;
		}
		fuzz_one(buf, n, vars);
	}
	/* well-formed skeletons with random bodies */
	static const char *const shells[][2] = {
	    {"{% for m in messages %}", "{% endfor %}"},
	    {"{% if messages %}", "{% else %}x{% endif %}"},
	    {"{% macro f(a, b=1) %}", "{% endmacro %}{{ f(1) }}{{ f(2, b=3) }}"},
	    {"{% set ns = namespace(v='') %}{% for c in 'abc' %}{% set ns.v = ns.v ~ c %}",
	     "{% endfor %}{{ ns.v }}"},
	};
	for (int i = 0; i < 1000; i++) {
		const char *const *s = shells[rnd(4)];
		size_t n = (size_t)snprintf(buf, sizeof buf, "%s", s[0]);
		int parts = (int)rnd(8);
		for (int k = 0; k < parts; k++) {
			const char *f = frags[rnd(sizeof frags / sizeof frags[0])];
			if (n + strlen(f) + strlen(s[1]) + 1 >= sizeof buf)
				break;
			n += (size_t)snprintf(buf + n, sizeof buf - n, "%s", f);
		}
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s", s[1]);
		fuzz_one(buf, n, vars);
	}
}

Test(chat, fuzz_random_bytes)
{
	char buf[256];
	for (int i = 0; i < 3000; i++) {
		size_t n = rnd(sizeof buf);
		for (size_t k = 0; k < n; k++) {
			/* mostly template punctuation, some arbitrary bytes (NUL too) */
			static const char pick[] = "{}%#-+ \n'\"()[]|.,~=ax01";
			buf[k] = rnd(4) ? pick[rnd(sizeof pick - 1)] : (char)rnd(256);
		}
		fuzz_one(buf, n, NULL);
	}
}
