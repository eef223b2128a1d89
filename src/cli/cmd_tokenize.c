/* infbench tokenize / detokenize: HuggingFace tokenizer.json encoding and
 * decoding from the command line, one request at a time or as JSON lines
 * (docs/tokenize.md). */
#include "cli/args.h"
#include "cli/cli.h"
#include "fmt/fmt.h"
#include "tok/tok.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof(a)[0])

/* --tok-cache, then the tokenizer of --tokenizer */
static int load(arg_parser *p, tok **t)
{
	ib_error e = {0};
	char *found = NULL;
	const char *prog = p->prog, *path = args_get(p, "--tokenizer")->vals[0];
	arg_opt *cache = args_get(p, "--tok-cache");
	if (cli_tok_cache(prog, cache->seen ? cache->vals[0] : NULL))
		return CLI_FAIL;
	int rc = tok_resolve(path, &found, &e);
	if (!rc)
		rc = tok_load(found, t, &e);
	free(found);
	if (!rc)
		return CLI_OK;
	cli_error(prog, NULL, &e);
	return CLI_FAIL;
}

/* Reads all of f into b. */
/* All of stdin, NUL-terminated (the encoder reads in.data). */
static int slurp(ib_buf *b)
{
	ib_error e = {0};
	return cli_read_input(NULL, b, &e) ? IB_EIO : ib_buf_append(b, "", 0);
}

static int put_ids(ib_buf *out, const uint32_t *v, size_t n)
{
	int rc = ib_buf_putc(out, '[');
	for (size_t k = 0; k < n && !rc; k++)
		rc = ib_buf_printf(out, k ? ", %u" : "%u", v[k]);
	return rc ? rc : ib_buf_putc(out, ']');
}

/* A bool field of a request, default false. */
static int req_bool(const ib_val *req, const char *key, bool *out, ib_error *e)
{
	const ib_val *v = ib_map_get(req, key);
	*out = false;
	if (!v || v->type == IB_V_NULL)
		return 0;
	if (v->type != IB_V_BOOL)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "'%s' must be a boolean", key);
	*out = v->b;
	return 0;
}

/* Reads a JSON list of token ids into ids. */
static int parse_ids(const ib_val *v, tok_ids *ids, ib_error *e)
{
	if (!v || v->type != IB_V_LIST)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "'ids' must be a list of token ids");
	for (size_t k = 0; k < v->list.n; k++) {
		const ib_val *x = v->list.v[k];
		if (x->type != IB_V_INT || x->i < 0 || x->i > UINT32_MAX)
			return ib_fail(e, IB_EINVAL, NULL, 0, 0,
			               "ids[%zu]: a token id must be an integer in [0, 2^32)", k);
		if (tok_ids_push(ids, (uint32_t)x->i))
			return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	}
	return 0;
}

/* Answers one JSON-lines request into out (without the newline). */
static int answer(tok *t, bool decode, const char *line, size_t len, ib_buf *out, ib_buf *text)
{
	ib_error e = {0};
	ib_arena *a = ib_arena_new();
	ib_val *req = NULL;
	tok_ids ids = {0};
	bool flag;
	int rc = a ? ib_json_parse(a, "request", line, len, &req, &e) : IB_ENOMEM;
	if (!rc && req->type != IB_V_MAP)
		rc = ib_fail(&e, IB_EINVAL, NULL, 0, 0, "a request must be a JSON object");
	if (!rc && !decode) {
		const ib_val *s = ib_map_get(req, "text");
		if (!s || s->type != IB_V_STR)
			rc = ib_fail(&e, IB_EINVAL, NULL, 0, 0, "'text' must be a string");
		if (!rc)
			rc = req_bool(req, "add_special_tokens", &flag, &e);
		if (!rc)
			rc = tok_encode(t, s->str.s, s->str.len, flag, &ids, &e);
		if (!rc && !(rc = ib_buf_puts(out, "{\"ids\": ")) &&
		    !(rc = put_ids(out, ids.v, ids.n)))
			rc = ib_buf_putc(out, '}');
	} else if (!rc) {
		if (!(rc = parse_ids(ib_map_get(req, "ids"), &ids, &e)))
			rc = req_bool(req, "skip_special_tokens", &flag, &e);
		text->len = 0;
		if (!rc)
			rc = tok_decode(t, ids.v, ids.n, flag, text, &e);
		if (!rc && !(rc = ib_buf_puts(out, "{\"text\": ")) &&
		    !(rc = ib_json_write_str(out, text->data, text->len, false)))
			rc = ib_buf_putc(out, '}');
	}
	if (rc) {
		if (rc == IB_ENOMEM && !e.msg[0])
			ib_fail(&e, IB_ENOMEM, NULL, 0, 0, "out of memory");
		rc = cli_json_error(out, &e) ? IB_ENOMEM : 0;
	}
	tok_ids_free(&ids);
	ib_arena_free(a);
	return rc;
}

/* One request line of --jsonl (cli_jsonl). */
typedef struct {
	tok *t;
	bool decode;
	ib_buf text;
} jsonl_ctx;

static int jsonl_answer(void *arg, const char *line, size_t n, ib_buf *out)
{
	jsonl_ctx *j = arg;
	return answer(j->t, j->decode, line, n, out, &j->text);
}

static int run_jsonl(const char *prog, tok *t, bool decode)
{
	jsonl_ctx j = {.t = t, .decode = decode};
	int status = cli_jsonl(prog, jsonl_answer, &j);
	ib_buf_free(&j.text);
	return status;
}

/* --bench FILE: encodes the file `repeat` times in this process and reports
 * the throughput of tok_encode alone (no I/O, no JSON). */
static int run_bench(const char *prog, tok *t, const char *file, int64_t repeat, bool special,
                     double load_s, double load_cpu_s)
{
	ib_buf b = {0};
	ib_error e = {0};
	tok_ids ids = {0};
	int status = CLI_OK;
	char m[4096];
	if (ib_read_file(file, &b, &e))
		goto fail;
	int64_t best = INT64_MAX, total = 0;
	size_t ntok = 0;
	for (int64_t r = 0; r < repeat; r++) {
		ids.n = 0;
		int64_t t0 = ib_now_ns();
		if (tok_encode(t, b.data ? b.data : "", b.len, special, &ids, &e))
			goto fail;
		int64_t dt = ib_now_ns() - t0;
		total += dt;
		if (dt < best)
			best = dt;
		ntok = ids.n;
	}
	double s = best / 1e9;
	printf("{\"bytes\": %zu, \"tokens\": %zu, \"repeat\": %lld, \"best_s\": %.6f, "
	       "\"mean_s\": %.6f, \"mb_per_s\": %.3f, \"load_s\": %.6f, \"load_cpu_s\": %.6f, "
	       "\"from_cache\": %s}\n",
	       b.len, ntok, (long long)repeat, s, total / 1e9 / (double)repeat,
	       s > 0 ? b.len / 1e6 / s : 0.0, load_s, load_cpu_s,
	       tok_from_cache(t) ? "true" : "false");
	goto done;
fail:
	ib_error_format(&e, m, sizeof m);
	fprintf(stderr, "%s: error: %s\n", prog, m);
	status = CLI_FAIL;
done:
	ib_buf_free(&b);
	tok_ids_free(&ids);
	return status;
}

/* --info: the vocabulary sizes and the special tokens of
 * tokenizer_config.json with their ids, as one JSON object. */
static int run_info(const char *prog, const tok *t)
{
	static const char *const names[] = {"bos_token", "eos_token", "pad_token", "unk_token"};
	ib_buf out = {0};
	int rc = ib_buf_printf(&out, "{\"vocab_size\": %zu, \"vocab_size_with_added_tokens\": %zu",
	                       tok_vocab_size(t, false), tok_vocab_size(t, true));
	for (size_t k = 0; k < N(names) && !rc; k++) {
		const char *v = tok_config_token(t, names[k]);
		int64_t id = v ? tok_token_to_id(t, v, strlen(v)) : -1;
		rc = ib_buf_printf(&out, ", \"%s\": ", names[k]);
		if (!rc)
			rc = v ? ib_json_write_str(&out, v, strlen(v), false)
			       : ib_buf_puts(&out, "null");
		if (!rc)
			rc = id >= 0
			         ? ib_buf_printf(&out, ", \"%s_id\": %lld", names[k], (long long)id)
			         : ib_buf_printf(&out, ", \"%s_id\": null", names[k]);
	}
	if (!rc)
		rc = ib_buf_puts(&out, "}\n");
	if (rc || fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout)) {
		fprintf(stderr, "%s: error: writing standard output failed\n", prog);
		ib_buf_free(&out);
		return CLI_FAIL;
	}
	ib_buf_free(&out);
	return CLI_OK;
}

/* One text (NULL: standard input) encoded and printed as a JSON list. */
static int run_once(const char *prog, tok *t, const char *text, bool special)
{
	ib_buf in = {0}, out = {0};
	tok_ids ids = {0};
	ib_error e = {0};
	int status = CLI_OK;
	if (text ? ib_buf_puts(&in, text) : slurp(&in)) {
		fprintf(stderr, "%s: error: cannot read standard input\n", prog);
		status = CLI_FAIL;
	} else if (tok_encode(t, in.data ? in.data : "", in.len, special, &ids, &e)) {
		cli_error(prog, NULL, &e);
		status = CLI_FAIL;
	} else if (put_ids(&out, ids.v, ids.n) || ib_buf_putc(&out, '\n') ||
	           fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout)) {
		fprintf(stderr, "%s: error: writing standard output failed\n", prog);
		status = CLI_FAIL;
	}
	ib_buf_free(&in);
	ib_buf_free(&out);
	tok_ids_free(&ids);
	return status;
}

int cmd_tokenize(int argc, char **argv)
{
	arg_opt opts[] = {
	    {.name = "--tokenizer",
	     .kind = ARG_ONE,
	     .required = true,
	     .metavar = "PATH",
	     .help = "tokenizer.json, or a folder with tokenizer.json (and tokenizer_config.json)"},
	    {.name = "--jsonl",
	     .kind = ARG_FLAG,
	     .help = "answer JSON lines from stdin: {\"text\": str, \"add_special_tokens\": bool} "
	             "-> {\"ids\": [int]}"},
	    {.name = "--text",
	     .kind = ARG_ONE,
	     .metavar = "STR",
	     .help = "the text to encode (default: all of stdin)"},
	    {.name = "--no-special-tokens",
	     .kind = ARG_FLAG,
	     .help = "do not let the post-processor add special tokens (add_special_tokens=False)"},
	    {.name = "--bench",
	     .kind = ARG_ONE,
	     .metavar = "FILE",
	     .help = "time the encoding of FILE in-process and print its throughput as JSON"},
	    {.name = "--info",
	     .kind = ARG_FLAG,
	     .help = "print the vocabulary sizes and the special tokens of tokenizer_config.json "
	             "(with their ids) as JSON"},
	    {.name = "--repeat",
	     .kind = ARG_ONE,
	     .is_int = true,
	     .metavar = "N",
	     .help = "with --bench: encode N times and report the best (default 3)"},
	    CLI_TOK_CACHE_OPT,
	    {.name = "--help", .alias = "-h", .kind = ARG_FLAG, .help = "show this help and exit"},
	};
	static const char *const excl[][2] = {{"--jsonl", "--text"}, {"--jsonl", "--bench"},
	                                      {"--text", "--bench"}, {"--info", "--jsonl"},
	                                      {"--info", "--text"},  {"--info", "--bench"},
	                                      {NULL, NULL}};
	arg_parser p = {
	    .prog = "infbench tokenize",
	    .top = "infbench tokenize",
	    .desc =
	        "Encode text into token ids with a HuggingFace tokenizer.json, as HuggingFace\n"
	        "tokenizers' encode(text, add_special_tokens) does. Prints the ids as one JSON\n"
	        "list, or with --jsonl answers one JSON line per request line.",
	    .epilog = "See docs/tokenize.md.",
	    .opts = opts,
	    .nopts = N(opts),
	    .exclusive = excl,
	};
	int rc = args_parse(&p, argc - 1, argv + 1, NULL, 0);
	if (rc) {
		args_free(&p);
		return rc == 1 ? CLI_OK : rc;
	}
	const char *prog = p.prog;
	arg_opt *rep = args_get(&p, "--repeat");
	int64_t repeat = rep->seen ? rep->ivals[0] : 3;
	if (repeat < 1) {
		rc = args_error(&p, prog, "argument --repeat: must be at least 1");
		args_free(&p);
		return rc;
	}
	tok *t = NULL;
	int64_t t0 = ib_now_ns();
	double c0 = ib_cpu_s();
	if (load(&p, &t)) {
		args_free(&p);
		return CLI_FAIL;
	}
	double load_s = (double)(ib_now_ns() - t0) / 1e9, load_cpu_s = ib_cpu_s() - c0;
	bool special = !args_get(&p, "--no-special-tokens")->seen;
	arg_opt *text = args_get(&p, "--text"), *bench = args_get(&p, "--bench");
	int status = CLI_OK;
	if (args_get(&p, "--jsonl")->seen) {
		status = run_jsonl(prog, t, false);
	} else if (args_get(&p, "--info")->seen) {
		status = run_info(prog, t);
	} else if (bench->seen) {
		status = run_bench(prog, t, bench->vals[0], repeat, special, load_s, load_cpu_s);
	} else {
		status = run_once(prog, t, text->seen ? text->vals[0] : NULL, special);
	}
	tok_free(t);
	args_free(&p);
	return status;
}

int cmd_detokenize(int argc, char **argv)
{
	arg_opt opts[] = {
	    {.name = "--tokenizer",
	     .kind = ARG_ONE,
	     .required = true,
	     .metavar = "PATH",
	     .help = "tokenizer.json, or a folder with tokenizer.json (and tokenizer_config.json)"},
	    {.name = "--jsonl",
	     .kind = ARG_FLAG,
	     .help = "answer JSON lines from stdin: {\"ids\": [int], \"skip_special_tokens\": "
	             "bool} -> {\"text\": str}"},
	    {.name = "--ids",
	     .kind = ARG_ONE,
	     .metavar = "JSON",
	     .help = "the ids to decode as a JSON list (default: a JSON list on stdin)"},
	    {.name = "--skip-special-tokens",
	     .kind = ARG_FLAG,
	     .help = "leave special added tokens out (skip_special_tokens=True)"},
	    CLI_TOK_CACHE_OPT,
	    {.name = "--help", .alias = "-h", .kind = ARG_FLAG, .help = "show this help and exit"},
	};
	static const char *const excl[][2] = {{"--jsonl", "--ids"}, {NULL, NULL}};
	arg_parser p = {
	    .prog = "infbench detokenize",
	    .top = "infbench detokenize",
	    .desc = "Decode token ids into text with a HuggingFace tokenizer.json, as HuggingFace\n"
	            "tokenizers' decode(ids, skip_special_tokens) does. Reads one JSON list of\n"
	            "ids and prints the text as it is (no newline added), or with --jsonl answers\n"
	            "one JSON line per request line.",
	    .epilog = "See docs/tokenize.md.",
	    .opts = opts,
	    .nopts = N(opts),
	    .exclusive = excl,
	};
	int rc = args_parse(&p, argc - 1, argv + 1, NULL, 0);
	if (rc) {
		args_free(&p);
		return rc == 1 ? CLI_OK : rc;
	}
	const char *prog = p.prog;
	tok *t = NULL;
	if (load(&p, &t)) {
		args_free(&p);
		return CLI_FAIL;
	}
	int status = CLI_OK;
	arg_opt *idsopt = args_get(&p, "--ids");
	if (args_get(&p, "--jsonl")->seen) {
		status = run_jsonl(prog, t, true);
	} else {
		ib_buf in = {0}, out = {0};
		ib_error e = {0};
		tok_ids ids = {0};
		ib_arena *a = ib_arena_new();
		ib_val *v = NULL;
		if (!a || (idsopt->seen ? ib_buf_puts(&in, idsopt->vals[0]) : slurp(&in))) {
			fprintf(stderr, "%s: error: cannot read standard input\n", prog);
			status = CLI_FAIL;
		} else if (ib_json_parse(a, idsopt->seen ? "--ids" : "<stdin>",
		                         in.data ? in.data : "", in.len, &v, &e) ||
		           parse_ids(v, &ids, &e) ||
		           tok_decode(t, ids.v, ids.n, args_get(&p, "--skip-special-tokens")->seen,
		                      &out, &e)) {
			cli_error(prog, NULL, &e);
			status = CLI_FAIL;
		} else if (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout)) {
			fprintf(stderr, "%s: error: writing standard output failed\n", prog);
			status = CLI_FAIL;
		}
		ib_buf_free(&in);
		ib_buf_free(&out);
		tok_ids_free(&ids);
		ib_arena_free(a);
	}
	tok_free(t);
	args_free(&p);
	return status;
}
