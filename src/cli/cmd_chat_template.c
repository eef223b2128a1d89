/* infbench chat-template: renders chat messages through a tokenizer's chat
 * template (as transformers' apply_chat_template does), a template file, or
 * the built-in DeepSeek-V4 framing; one request at a time or as JSON lines
 * (docs/chat-template.md). */
#include "chat/chat.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "tok/tok.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof(a)[0])

static const char prog[] = "infbench chat-template";

typedef struct {
	chat_tmpl *tmpl;       /* NULL with --dsv4 */
	const ib_val *special; /* special tokens (a map) or NULL */
	const ib_val *kwargs;  /* --kwargs (a map) or NULL */
	bool dsv4;
} renderer;

/* Renders one request: a JSON object {"messages": [...],
 * "add_generation_prompt": bool, "tools": ..., "documents": ...,
 * "chat_template_kwargs": {...}} or, when bare_ok, a messages list. */
static int render(const renderer *r, ib_arena *a, const ib_val *req, bool default_agp, ib_buf *out,
                  ib_error *e)
{
	const ib_val *messages = req;
	bool agp = default_agp;
	ib_val *extra = ib_v_map(a);
	if (!extra)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	if (req->type == IB_V_MAP) {
		messages = ib_map_get(req, "messages");
		const ib_val *g = ib_map_get(req, "add_generation_prompt");
		if (g && g->type != IB_V_BOOL && g->type != IB_V_NULL)
			return ib_fail(e, IB_EINVAL, NULL, 0, 0,
			               "'add_generation_prompt' must be a boolean");
		if (g && g->type == IB_V_BOOL)
			agp = g->b;
	} else if (req->type != IB_V_LIST) {
		return ib_fail(
		    e, IB_EINVAL, NULL, 0, 0,
		    "a request is a JSON object with \"messages\" or a list of messages");
	}
	if (!messages || messages->type != IB_V_LIST)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "'messages' must be a list of messages");
	if (r->dsv4)
		return chat_dsv4_apply(messages, NULL, out, e);
	int rc = 0;
	const ib_val *srcs[] = {r->special, r->kwargs};
	for (size_t s = 0; s < N(srcs); s++)
		for (size_t i = 0; !rc && srcs[s] && i < srcs[s]->map.n; i++)
			rc = ib_map_set_key(a, extra, srcs[s]->map.kv[i].key,
			                    srcs[s]->map.kv[i].val);
	if (!rc && req->type == IB_V_MAP) {
		const ib_val *kw = ib_map_get(req, "chat_template_kwargs");
		if (kw && kw->type != IB_V_MAP && kw->type != IB_V_NULL)
			return ib_fail(e, IB_EINVAL, NULL, 0, 0,
			               "'chat_template_kwargs' must be an object");
		for (size_t i = 0; !rc && kw && kw->type == IB_V_MAP && i < kw->map.n; i++)
			rc = ib_map_set_key(a, extra, kw->map.kv[i].key, kw->map.kv[i].val);
		static const char *const pass[] = {"tools", "documents"};
		for (size_t i = 0; !rc && i < N(pass); i++) {
			ib_val *v = ib_map_get(req, pass[i]);
			if (v)
				rc = ib_map_set(a, extra, pass[i], v);
		}
	}
	if (rc)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	return chat_apply(r->tmpl, messages, agp, extra, out, e);
}

/* One request line of --jsonl (cli_jsonl): {"rendered": TEXT}, or
 * {"error": ...} when it fails. */
typedef struct {
	const renderer *r;
	bool default_agp;
	ib_buf text;
} jsonl_ctx;

static int jsonl_answer(void *arg, const char *line, size_t n, ib_buf *out)
{
	jsonl_ctx *j = arg;
	ib_arena *a = ib_arena_new();
	ib_error e = {0};
	ib_val *req = NULL;
	int rc = a ? 0 : ib_fail(&e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	j->text.len = 0;
	if (!rc)
		rc = ib_json_parse(a, "request", line, n, &req, &e);
	if (!rc)
		rc = render(j->r, a, req, j->default_agp, &j->text, &e);
	if (!rc) {
		rc = ib_buf_puts(out, "{\"rendered\": ");
		if (!rc)
			rc = ib_json_write_str(out, j->text.data ? j->text.data : "", j->text.len,
			                       false);
		if (!rc)
			rc = ib_buf_putc(out, '}');
	} else {
		out->len = 0;
		rc = cli_json_error(out, &e);
	}
	ib_arena_free(a);
	return rc;
}

/* One answer line per request line, in order; a failed request answers
 * {"error": ...} and the next one goes on. */
static int run_jsonl(const renderer *r, bool default_agp)
{
	jsonl_ctx j = {.r = r, .default_agp = default_agp};
	int status = cli_jsonl(prog, jsonl_answer, &j);
	ib_buf_free(&j.text);
	return status;
}

/* The whole of stdin is one request; prints the rendered text as it is. */
static int run_one(const renderer *r, bool default_agp)
{
	ib_buf in = {0}, text = {0};
	int status = CLI_FAIL;
	ib_error e = {0};
	ib_arena *a = ib_arena_new();
	int rrc = cli_read_input(NULL, &in, &e);
	if (rrc) {
		fprintf(stderr, "%s: error: %s\n", prog,
		        rrc == IB_ENOMEM ? "out of memory" : "reading standard input failed");
		goto done;
	}
	ib_val *req;
	if (!a) {
		fprintf(stderr, "%s: error: out of memory\n", prog);
		goto done;
	}
	if (ib_json_parse(a, "<stdin>", in.data ? in.data : "", in.len, &req, &e) ||
	    render(r, a, req, default_agp, &text, &e)) {
		cli_error(prog, NULL, &e);
		goto done;
	}
	if ((text.len && fwrite(text.data, 1, text.len, stdout) != text.len) || fflush(stdout)) {
		fprintf(stderr, "%s: error: writing standard output failed\n", prog);
		goto done;
	}
	status = CLI_OK;
done:
	ib_arena_free(a);
	ib_buf_free(&in);
	ib_buf_free(&text);
	return status;
}

/* The tokenizer's chat config at name (a folder, its tokenizer_config.json,
 * or a Hugging Face model id in the local cache) into r: its template
 * (`which`, NULL: the default) and special tokens, or with special_only
 * (--template given) the special tokens alone. */
static int tokenizer_config(ib_arena *a, const char *name, bool special_only, const char *which,
                            renderer *r, chat_config *cfg, ib_error *e)
{
	char *found = NULL;
	int rc = tok_resolve(name, &found, e);
	if (rc)
		return rc;
	const char *path = ib_arena_strdup(a, found);
	free(found);
	if (!path)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	if (!special_only) {
		if ((rc = chat_config_load(a, path, which, cfg, e)))
			return rc;
		r->tmpl = cfg->tmpl;
		r->special = cfg->special;
		return 0;
	}
	/* only the special tokens: the config needs no template */
	ib_val *conf;
	ib_buf f = {0};
	if (ib_buf_printf(&f, "%s/tokenizer_config.json", path))
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	FILE *probe = fopen(f.data, "r");
	const char *file = probe ? f.data : path;
	if (probe)
		fclose(probe);
	rc = ib_json_parse_file(a, file, &conf, e);
	if (!rc) {
		ib_val *fake = ib_map_copy(a, conf);
		ib_val *t = ib_v_str(a, "");
		if (!fake || !t || ib_map_set(a, fake, "chat_template", t))
			rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
		else
			rc = chat_config_from_val(a, fake, file, NULL, cfg, e);
	}
	ib_buf_free(&f);
	if (!rc) {
		r->special = cfg->special;
		chat_config_free(cfg);
	}
	return rc;
}

/* The options (copied: parsing fills them in). */
static const arg_opt flags[] = {
    {.name = "--tokenizer",
     .kind = ARG_ONE,
     .metavar = "DIR",
     .help = "tokenizer folder (or its tokenizer_config.json): the chat template and "
             "the special tokens"},
    {.name = "--template",
     .kind = ARG_ONE,
     .metavar = "FILE",
     .help = "render this Jinja template file instead of the tokenizer's (special "
             "tokens still come from --tokenizer when given)"},
    {.name = "--template-name",
     .kind = ARG_ONE,
     .metavar = "NAME",
     .help = "which of a tokenizer's named chat templates (default: \"default\")"},
    {.name = "--dsv4",
     .kind = ARG_FLAG,
     .help = "the built-in DeepSeek-V4 framing of the reference client's --dsv4"},
    {.name = "--jsonl",
     .kind = ARG_FLAG,
     .help = "read one request per line, answer one JSON line per request"},
    {.name = "--add-generation-prompt",
     .kind = ARG_FLAG,
     .help = "default of add_generation_prompt for requests that do not set it"},
    {.name = "--kwargs",
     .kind = ARG_ONE,
     .metavar = "JSON",
     .help = "a JSON object of extra template variables (chat_template_kwargs)"},
    {.name = "--help", .alias = "-h", .kind = ARG_FLAG, .help = "show this help and exit"},
};

int cmd_chat_template(int argc, char **argv)
{
	arg_opt opts[sizeof flags / sizeof *flags];
	memcpy(opts, flags, sizeof flags);
	static const char *const excl[][2] = {{"--dsv4", "--template"},
	                                      {"--dsv4", "--tokenizer"},
	                                      {"--dsv4", "--template-name"},
	                                      {"--template", "--template-name"},
	                                      {NULL, NULL}};
	arg_parser p = {
	    .prog = prog,
	    .top = prog,
	    .desc = "Render chat messages with a chat template, the way transformers'\n"
	            "apply_chat_template does. A request is a JSON object {\"messages\": [...],\n"
	            "\"add_generation_prompt\": bool} (or a bare list of messages). Without\n"
	            "--jsonl the whole of stdin is one request and the rendered text is printed\n"
	            "as it is; with --jsonl each stdin line is a request and each answer line is\n"
	            "{\"rendered\": str} or {\"error\": str}.",
	    .epilog = "See docs/chat-template.md.",
	    .opts = opts,
	    .nopts = N(opts),
	    .exclusive = excl,
	};
	int rc = args_parse(&p, argc - 1, argv + 1, NULL, 0);
	if (rc) {
		args_free(&p);
		return rc == 1 ? CLI_OK : rc;
	}
	arg_opt *tk = args_get(&p, "--tokenizer"), *tf = args_get(&p, "--template"),
	        *tn = args_get(&p, "--template-name"), *kw = args_get(&p, "--kwargs");
	renderer r = {.dsv4 = args_get(&p, "--dsv4")->seen};
	bool jsonl = args_get(&p, "--jsonl")->seen;
	bool agp = args_get(&p, "--add-generation-prompt")->seen;
	if (!tk->seen && !tf->seen && !r.dsv4) {
		rc = args_error(&p, prog,
		                "one of the arguments --tokenizer --template --dsv4 is "
		                "required");
		args_free(&p);
		return rc;
	}
	int status = CLI_FAIL;
	ib_error e = {0};
	ib_arena *a = ib_arena_new();
	chat_config cfg = {0};
	ib_buf src = {0};
	if (!a) {
		fprintf(stderr, "%s: error: out of memory\n", prog);
		goto done;
	}
	if (kw->seen) {
		ib_val *v;
		if (ib_json_parse(a, "--kwargs", kw->vals[0], strlen(kw->vals[0]), &v, &e)) {
			cli_error(prog, NULL, &e);
			goto done;
		}
		if (v->type != IB_V_MAP) {
			status = args_error(&p, prog, "argument --kwargs: expected a JSON object");
			goto done;
		}
		r.kwargs = v;
	}
	if (tk->seen && tokenizer_config(a, tk->vals[0], tf->seen, tn->seen ? tn->vals[0] : NULL,
	                                 &r, &cfg, &e)) {
		cli_error(prog, NULL, &e);
		goto done;
	}
	if (tf->seen) {
		if (ib_read_file(tf->vals[0], &src, &e) ||
		    chat_tmpl_parse(src.data ? src.data : "", src.len, tf->vals[0], &r.tmpl, &e)) {
			cli_error(prog, NULL, &e);
			goto done;
		}
	}
	status = jsonl ? run_jsonl(&r, agp) : run_one(&r, agp);
done:
	if (tf->seen)
		chat_tmpl_free(r.tmpl);
	chat_config_free(&cfg);
	ib_buf_free(&src);
	ib_arena_free(a);
	args_free(&p);
	return status;
}
