/* The OpenAI-compatible HTTP API of the simulator: /v1/completions,
 * /v1/chat/completions (streaming and not), /v1/models, /health, /metrics;
 * OpenAI-shaped errors; fault injection. */
#include "chat/chat.h"
#include "sim/private.h"
#include "tok/tok.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The simulator's "vocabulary": words with a leading space, like BPE tokens. */
static const char *const words[] = {
    " the",   " of",     " and",    " to",    " in",     " a",      " is",      " that",
    " for",   " it",     " as",     " was",   " with",   " be",     " by",      " on",
    " not",   " he",     " this",   " are",   " or",     " his",    " from",    " at",
    " which", " but",    " have",   " an",    " had",    " they",   " you",     " were",
    " their", " one",    " all",    " we",    " can",    " her",    " has",     " there",
    " been",  " if",     " more",   " when",  " will",   " would",  " who",     " so",
    " model", " token",  " server", " batch", " cache",  " step",   " kernel",  " memory",
    " GPU",   " tensor", " expert", " layer", " prompt", " stream", " latency", " rate",
};
#define NWORDS (sizeof words / sizeof *words)

/* OpenAI's error shape; param: the request field at fault, or NULL */
static void json_error_param(net_conn *c, int status, const char *type, const char *msg,
                             const char *param)
{
	ib_buf b = {0};
	ib_buf_puts(&b, "{\"error\": {\"message\": ");
	ib_json_write_str(&b, msg, strlen(msg), true);
	ib_buf_printf(&b, ", \"type\": \"%s\", \"param\": ", type);
	if (param)
		ib_json_write_str(&b, param, strlen(param), true);
	else
		ib_buf_puts(&b, "null");
	ib_buf_printf(&b, ", \"code\": %d}}", status);
	net_conn_respond(c, status, "application/json", b.data, b.len, NULL);
	ib_buf_free(&b);
}

static void json_error(net_conn *c, int status, const char *type, const char *msg)
{
	json_error_param(c, status, type, msg, NULL);
}

/* Estimated token count of a text without a tokenizer: one token per four
 * bytes, at least one (docs/sim.md). */
static int estimate_tokens(size_t bytes)
{
	size_t n = (bytes + 3) / 4;
	return n ? (int)(n > 100000000 ? 100000000 : n) : 1;
}

static bool as_int(const ib_val *v, int64_t *out)
{
	if (!v || v->type == IB_V_NULL)
		return false;
	if (v->type == IB_V_INT) {
		*out = v->i;
		return true;
	}
	if (v->type == IB_V_FLOAT && v->f == floor(v->f) && fabs(v->f) < 1e15) {
		*out = (int64_t)v->f;
		return true;
	}
	return false;
}

/* The largest max_tokens the engine represents (an int, and room for +1). */
enum { MAX_TOKENS_LIMIT = 0x7ffffffe };

/* Types and ranges of the request fields that the engine reads or that
 * OpenAI and vLLM constrain; what the engine cannot represent is a 400,
 * never truncated. Returns the field at fault (msg set), or NULL. */
static const char *check_fields(const ib_val *req, bool chat, char *msg, size_t cap)
{
	static const char *const bools[] = {"stream", "ignore_eos", "echo", "skip_special_tokens",
	                                    NULL};
	for (size_t i = 0; bools[i]; i++) {
		const ib_val *v = ib_map_get(req, bools[i]);
		if (v && v->type != IB_V_NULL && v->type != IB_V_BOOL) {
			snprintf(msg, cap, "%s must be a boolean", bools[i]);
			return bools[i];
		}
	}
	const ib_val *so = ib_map_get(req, "stream_options");
	if (so && so->type != IB_V_NULL && so->type != IB_V_MAP) {
		snprintf(msg, cap, "stream_options must be an object");
		return "stream_options";
	}
	const ib_val *iu = so && so->type == IB_V_MAP ? ib_map_get(so, "include_usage") : NULL;
	if (iu && iu->type != IB_V_NULL && iu->type != IB_V_BOOL) {
		snprintf(msg, cap, "stream_options.include_usage must be a boolean");
		return "stream_options";
	}
	/* integers: name, lowest, highest */
	static const struct {
		const char *name;
		int64_t lo, hi;
	} ints[] = {
	    {"max_tokens", 1, MAX_TOKENS_LIMIT},
	    {"max_completion_tokens", 1, MAX_TOKENS_LIMIT},
	    {"min_tokens", 0, MAX_TOKENS_LIMIT},
	    {"n", 1, 128},
	    {"best_of", 1, 128},
	    {"top_k", -1, INT32_MAX},
	    {"seed", INT64_MIN, INT64_MAX},
	    {"top_logprobs", 0, 20},
	};
	for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
		const ib_val *v = ib_map_get(req, ints[i].name);
		int64_t x;
		if (!v || v->type == IB_V_NULL)
			continue;
		if (!as_int(v, &x) || x < ints[i].lo || x > ints[i].hi) {
			snprintf(msg, cap, "%s must be an integer in [%lld, %lld]", ints[i].name,
			         (long long)ints[i].lo, (long long)ints[i].hi);
			return ints[i].name;
		}
	}
	/* logprobs: a count for completions, a boolean for chat */
	const ib_val *lp = ib_map_get(req, "logprobs");
	int64_t x;
	if (lp && lp->type != IB_V_NULL &&
	    (chat ? lp->type != IB_V_BOOL : !as_int(lp, &x) || x < 0 || x > 20)) {
		snprintf(msg, cap,
		         chat ? "logprobs must be a boolean"
		              : "logprobs must be an integer in [0, 20]");
		return "logprobs";
	}
	/* numbers: name, lowest, highest */
	static const struct {
		const char *name;
		double lo, hi;
	} nums[] = {
	    {"temperature", 0, 1e6},
	    {"top_p", 0, 1},
	    {"min_p", 0, 1},
	    {"presence_penalty", -2, 2},
	    {"frequency_penalty", -2, 2},
	    {"repetition_penalty", 1e-6, 1e6},
	};
	for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
		const ib_val *v = ib_map_get(req, nums[i].name);
		if (!v || v->type == IB_V_NULL)
			continue;
		double d = v->type == IB_V_INT ? (double)v->i : v->type == IB_V_FLOAT ? v->f : NAN;
		if (!(d >= nums[i].lo && d <= nums[i].hi)) {
			snprintf(msg, cap, "%s must be a number in [%g, %g]", nums[i].name,
			         nums[i].lo, nums[i].hi);
			return nums[i].name;
		}
	}
	return NULL;
}

/* Prompt tokens of a completions `prompt`: a string, a list of token ids, or
 * a list with one string. -1 with *err set when malformed. */
static int prompt_tokens(const ib_val *p, const char **err)
{
	if (!p) {
		*err = "'prompt' is required";
		return -1;
	}
	if (p->type == IB_V_STR)
		return estimate_tokens(p->str.len);
	if (p->type == IB_V_LIST && p->list.n > 0) {
		if (p->list.v[0]->type == IB_V_INT) {
			for (size_t i = 0; i < p->list.n; i++)
				if (p->list.v[i]->type != IB_V_INT) {
					*err = "'prompt' mixes token ids and other values";
					return -1;
				}
			return (int)p->list.n;
		}
		if (p->list.n == 1 && p->list.v[0]->type == IB_V_STR)
			return estimate_tokens(p->list.v[0]->str.len);
		*err = "'prompt' with several prompts (batch) is not supported";
		return -1;
	}
	*err = "'prompt' must be a string or a list of token ids";
	return -1;
}

static int chat_tokens(const ib_val *msgs, const char **err)
{
	if (!msgs || msgs->type != IB_V_LIST || msgs->list.n == 0) {
		*err = "'messages' must be a non-empty list";
		return -1;
	}
	size_t bytes = 0;
	for (size_t i = 0; i < msgs->list.n; i++) {
		const ib_val *m = msgs->list.v[i];
		const ib_val *role = ib_map_get(m, "role"), *content = ib_map_get(m, "content");
		if (m->type != IB_V_MAP || !role || role->type != IB_V_STR) {
			*err = "each message needs a 'role' string";
			return -1;
		}
		if (content && content->type == IB_V_STR) {
			bytes += content->str.len;
		} else if (content && content->type == IB_V_LIST) {
			for (size_t j = 0; j < content->list.n; j++) {
				const ib_val *t = ib_map_get(content->list.v[j], "text");
				if (t && t->type == IB_V_STR)
					bytes += t->str.len;
			}
		} else if (content && content->type != IB_V_NULL) {
			*err = "message 'content' must be a string, a list of parts or null";
			return -1;
		}
		bytes += 16; /* role markers of a chat template */
	}
	return estimate_tokens(bytes);
}

enum { PENDING = -2 }; /* exact_tokens: a worker encodes it, the request goes on later */

static void admit(sim_server *s, net_conn *c, const ib_val *req, bool chat, int ptoks,
                  const tok_ids *ids, const char *rid, int64_t read_ns, bool model_time);

/* a completion whose prompt the worker encoded */
static void generate_tokenized(sim_server *s, sim_tokjob *j)
{
	if (j->rc) {
		json_error(j->conn, 400, "BadRequestError", "the prompt could not be tokenized");
		return;
	}
	size_t n = j->ids.n + (size_t)j->extra;
	admit(s, j->conn, j->req, j->chat,
	      n < 1           ? 1
	      : n > INT32_MAX ? INT32_MAX
	                      : (int)n,
	      &j->ids, j->req_id, j->read_ns, j->model_time);
}

/* Exact prompt tokens with --tokenizer: a completions prompt is encoded with
 * the special tokens (as vLLM does); chat messages go through the chat
 * template (add_generation_prompt) and are encoded without them. Without a
 * template, chat contents are encoded and 4 tokens per message added.
 * A long prompt (or one that arrives while the worker encodes another) is
 * encoded by the worker thread (tokq.c): then the job takes the arena and
 * the request, and PENDING is returned. */
static int exact_tokens(sim_server *s, net_conn *c, ib_arena *a, ib_val *req, bool chat,
                        int estimate, const char *rid, int64_t read_ns, bool model_time,
                        tok_ids *out, const char **err)
{
	const sim_config *cfg = &s->cfg;
	ib_buf text = {0};
	ib_error e = {0};
	tok_ids ids = {0};
	int n = estimate, extra = 0;
	bool special = !chat;
	if (!chat) {
		const ib_val *p = ib_map_get(req, "prompt");
		if (p->type == IB_V_LIST && p->list.n && p->list.v[0]->type == IB_V_INT)
			return estimate; /* token ids: exact already */
		const ib_val *str = p->type == IB_V_STR ? p : p->list.v[0];
		ib_buf_append(&text, str->str.s, str->str.len);
	} else if (cfg->chat_template) {
		if (chat_apply(cfg->chat_template, ib_map_get(req, "messages"), true,
		               cfg->chat_special, &text, &e)) {
			*err = "the chat template failed on these messages";
			n = -1;
			goto out;
		}
	} else {
		const ib_val *msgs = ib_map_get(req, "messages");
		for (size_t i = 0; i < msgs->list.n; i++) {
			const ib_val *ct = ib_map_get(msgs->list.v[i], "content");
			if (ct && ct->type == IB_V_STR)
				ib_buf_append(&text, ct->str.s, ct->str.len);
			extra += 4;
		}
	}
	int rc = sim_tok_encode_now(s, text.data ? text.data : "", text.len, special, &ids, &e);
	if (rc == 1) {
		sim_tokjob *j = calloc(1, sizeof *j);
		if (!j) {
			*err = "out of memory";
			n = -1;
			goto out;
		}
		j->text = text;
		text = (ib_buf){0};
		j->special = special;
		j->conn = c;
		j->done = generate_tokenized;
		j->chat = chat;
		j->extra = extra;
		snprintf(j->req_id, sizeof j->req_id, "%s", rid);
		j->read_ns = read_ns;
		j->model_time = model_time;
		j->arena = a;
		j->req = req;
		sim_tokq_submit(s, j);
		n = PENDING;
		goto out;
	}
	if (rc) {
		*err = "the prompt could not be tokenized";
		n = -1;
		goto out;
	}
	n = (int)ids.n + extra;
	if (n < 1)
		n = 1;
	*out = ids; /* the caller's now: the prefix cache hashes them */
	ids = (tok_ids){0};
out:
	tok_ids_free(&ids);
	ib_buf_free(&text);
	return n;
}

static void tokenize_answer(sim_server *s, net_conn *c, const tok_ids *ids)
{
	ib_buf out = {0};
	ib_buf_puts(&out, "{\"tokens\": [");
	for (size_t i = 0; i < ids->n; i++)
		ib_buf_printf(&out, "%s%u", i ? ", " : "", ids->v[i]);
	ib_buf_printf(&out, "], \"count\": %zu, \"max_model_len\": %lld}", ids->n,
	              (long long)(s->cfg.max_model_len > 0 ? s->cfg.max_model_len
	                                                   : s->cap.kv_blocks * s->cfg.block_size));
	net_conn_respond(c, 200, "application/json", out.data, out.len, NULL);
	ib_buf_free(&out);
}

/* a /tokenize prompt the worker encoded */
static void tokenize_done(sim_server *s, sim_tokjob *j)
{
	if (j->rc)
		json_error(j->conn, 400, "BadRequestError", j->err);
	else
		tokenize_answer(s, j->conn, &j->ids);
}

/* POST /tokenize {"prompt": str, "add_special_tokens": bool} and
 * /detokenize {"tokens": [ids]}, vLLM's shapes. */
static void handle_tokenize(sim_server *s, net_conn *c, const char *body, size_t len, bool detok)
{
	ib_arena *a = ib_arena_new();
	ib_val *req = NULL;
	ib_error e = {0};
	ib_buf out = {0};
	tok_ids ids = {0};
	if (!a || ib_json_parse(a, "request", body, len, &req, &e) || req->type != IB_V_MAP) {
		json_error(c, 400, "BadRequestError", "the request body must be a JSON object");
		goto done;
	}
	if (detok) {
		const ib_val *t = ib_map_get(req, "tokens");
		if (!t || t->type != IB_V_LIST) {
			json_error(c, 400, "BadRequestError",
			           "'tokens' must be a list of token ids");
			goto done;
		}
		for (size_t i = 0; i < t->list.n; i++) {
			const ib_val *v = t->list.v[i];
			if (v->type != IB_V_INT || v->i < 0 || v->i > UINT32_MAX) {
				json_error(c, 400, "BadRequestError",
				           "'tokens' must be a list of token ids");
				goto done;
			}
			if (tok_ids_push(&ids, (uint32_t)v->i))
				goto done;
		}
		ib_buf text = {0};
		if (tok_decode(s->cfg.tokenizer, ids.v, ids.n, false, &text, &e)) {
			json_error(c, 400, "BadRequestError", e.msg);
			ib_buf_free(&text);
			goto done;
		}
		ib_buf_puts(&out, "{\"prompt\": ");
		ib_json_write_str(&out, text.data ? text.data : "", text.len, true);
		ib_buf_putc(&out, '}');
		ib_buf_free(&text);
	} else {
		const ib_val *p = ib_map_get(req, "prompt");
		if (!p || p->type != IB_V_STR) {
			json_error(c, 400, "BadRequestError", "'prompt' must be a string");
			goto done;
		}
		const ib_val *sp = ib_map_get(req, "add_special_tokens");
		bool special = !sp || ib_val_truthy(sp);
		int rc = sim_tok_encode_now(s, p->str.s, p->str.len, special, &ids, &e);
		if (rc == 1) { /* the worker encodes it */
			sim_tokjob *j = calloc(1, sizeof *j);
			if (!j || ib_buf_append(&j->text, p->str.s, p->str.len)) {
				if (j)
					ib_buf_free(&j->text);
				free(j);
				json_error(c, 500, "InternalServerError", "out of memory");
				goto done;
			}
			j->special = special;
			j->conn = c;
			j->done = tokenize_done;
			j->tokenize = true;
			sim_tokq_submit(s, j);
			goto done;
		}
		if (rc) {
			json_error(c, 400, "BadRequestError", e.msg);
			goto done;
		}
		tokenize_answer(s, c, &ids);
		goto done;
	}
	net_conn_respond(c, 200, "application/json", out.data, out.len, NULL);
done:
	tok_ids_free(&ids);
	ib_buf_free(&out);
	ib_arena_free(a);
}

/* --trace: the client's X-Request-Id (printable ASCII but quotes and
 * backslashes, so that it can be written into JSON as it is) */
static void copy_request_id(char out[72], const net_http_msg *r)
{
	const net_header *h = net_http_header(r, "x-request-id");
	size_t n = 0;
	for (size_t i = 0; h && i < h->value_len && n + 1 < 72; i++) {
		char ch = h->value[i];
		if (ch > ' ' && ch < 127 && ch != '"' && ch != '\\')
			out[n++] = ch;
	}
	out[n] = '\0';
}

/* --trace: one line per finished stream */
static void trace_write(sim_server *s, const seq *q)
{
	FILE *f = s->cfg.trace;
	fprintf(f, "{\"id\": \"%s\", \"seq\": %llu, \"received_ns\": %lld, \"sent_ns\": [",
	        q->req_id, (unsigned long long)q->id, (long long)q->arrival_ns);
	for (int i = 0; i < q->nsent; i++)
		fprintf(f, "%s%lld", i ? ", " : "", (long long)q->sent[i]);
	fputs("]}\n", f);
}

static void handle_generate(sim_server *s, net_conn *c, const net_http_msg *r, const char *body,
                            size_t len, bool chat)
{
	const sim_config *cfg = &s->cfg;
	int64_t read_ns = ib_now_ns(); /* the request was read: its model arrival */
	ib_arena *a = ib_arena_new();
	ib_val *req = NULL;
	ib_error e = {0};
	const char *err = NULL;
	tok_ids ids = {0}; /* before every goto done: freed there */
	if (!a) {
		json_error(c, 500, "InternalServerError", "out of memory");
		return;
	}
	if (ib_json_parse(a, "request", body, len, &req, &e)) {
		char m[sizeof e.msg + 64];
		snprintf(m, sizeof m, "malformed JSON body: %s (line %d, column %d)", e.msg, e.line,
		         e.col);
		json_error(c, 400, "BadRequestError", m);
		goto done;
	}
	if (req->type != IB_V_MAP) {
		json_error(c, 400, "BadRequestError", "the request body must be a JSON object");
		goto done;
	}
	const ib_val *model = ib_map_get(req, "model");
	const char *served = cfg->served_model_name;
	for (size_t i = 0; model && model->type == IB_V_STR && i < cfg->nlora; i++)
		if (!strcmp(model->str.s, cfg->lora[i]))
			served = cfg->lora[i];
	if (model && (model->type != IB_V_STR || strcmp(model->str.s, served))) {
		char m[400];
		snprintf(m, sizeof m, "The model `%.200s` does not exist.",
		         model->type == IB_V_STR ? model->str.s : "?");
		json_error(c, 404, "NotFoundError", m);
		goto done;
	}
	char bad[160];
	const char *field = check_fields(req, chat, bad, sizeof bad);
	if (field) {
		json_error_param(c, 400, "BadRequestError", bad, field);
		goto done;
	}
	int ptoks = chat ? chat_tokens(ib_map_get(req, "messages"), &err)
	                 : prompt_tokens(ib_map_get(req, "prompt"), &err);
	char rid[72];
	copy_request_id(rid, r);
	const net_header *mh = net_http_header(r, "x-infbench-model-time");
	bool model_time = mh && mh->value_len == 1 && mh->value[0] == '1';
	if (ptoks >= 0 && cfg->tokenizer)
		ptoks =
		    exact_tokens(s, c, a, req, chat, ptoks, rid, read_ns, model_time, &ids, &err);
	if (ptoks == PENDING)
		return; /* the job owns the arena; admit comes later */
	if (ptoks < 0) {
		json_error(c, 400, "BadRequestError", err);
		goto done;
	}
	admit(s, c, req, chat, ptoks, &ids, rid, read_ns, model_time);
done:
	tok_ids_free(&ids);
	ib_arena_free(a);
}

/* The prompt's content for the prefix cache's block hashes: the token ids
 * (the tokenizer's, or a completions prompt given as ids), else the text
 * (a completions prompt, or each chat message's role and content, NUL
 * separated) in blocks of block_size x 4 bytes, the estimate's bytes per
 * token. Fills q->bh / q->bent with the full blocks, at most ptoks /
 * block_size; 0 or IB_ENOMEM. */
static int prompt_hashes(const sim_server *s, seq *q, const ib_val *req, bool chat,
                         const tok_ids *ids)
{
	int bs = s->cfg.block_size;
	ib_buf text = {0};
	const void *data = NULL;
	size_t unit = 0, len = 0; /* bytes per block, bytes in all */
	uint32_t *lv = NULL;
	int rc = 0;
	const ib_val *p = chat ? NULL : ib_map_get(req, "prompt");
	if (ids && ids->n) {
		data = ids->v;
		len = ids->n * sizeof *ids->v;
		unit = (size_t)bs * sizeof *ids->v;
	} else if (p && p->type == IB_V_LIST && p->list.n && p->list.v[0]->type == IB_V_INT) {
		if (!(lv = malloc(p->list.n * sizeof *lv)))
			return IB_ENOMEM;
		for (size_t i = 0; i < p->list.n; i++)
			lv[i] = (uint32_t)p->list.v[i]->i;
		data = lv;
		len = p->list.n * sizeof *lv;
		unit = (size_t)bs * sizeof *lv;
	} else {
		if (p) {
			const ib_val *str = p->type == IB_V_STR ? p : p->list.v[0];
			ib_buf_append(&text, str->str.s, str->str.len);
		} else {
			const ib_val *msgs = ib_map_get(req, "messages");
			for (size_t i = 0; i < msgs->list.n; i++) {
				const ib_val *m = msgs->list.v[i], *ct = ib_map_get(m, "content");
				const ib_val *role = ib_map_get(m, "role");
				ib_buf_append(&text, role->str.s, role->str.len + 1);
				if (ct && ct->type == IB_V_STR)
					ib_buf_append(&text, ct->str.s, ct->str.len);
				for (size_t j = 0; ct && ct->type == IB_V_LIST && j < ct->list.n;
				     j++) {
					const ib_val *t = ib_map_get(ct->list.v[j], "text");
					if (t && t->type == IB_V_STR)
						ib_buf_append(&text, t->str.s, t->str.len);
				}
				ib_buf_putc(&text, '\0');
			}
		}
		data = text.data;
		len = text.len;
		unit = (size_t)bs * 4;
	}
	size_t n = unit ? len / unit : 0;
	if (n > (size_t)(q->prompt_tokens / bs))
		n = (size_t)(q->prompt_tokens / bs);
	if (n > 0) {
		q->bh = malloc(n * (sizeof *q->bh + sizeof *q->bent));
		if (!q->bh) {
			rc = IB_ENOMEM;
			goto out;
		}
		q->bent = (int32_t *)(q->bh + n);
		uint64_t h = 0;
		for (size_t i = 0; i < n; i++) {
			h = q->bh[i] = sim_pc_hash(h, (const char *)data + i * unit, unit);
			q->bent[i] = -1;
		}
		q->nbh = (int)n;
	}
out:
	free(lv);
	ib_buf_free(&text);
	return rc;
}

/* The request, its prompt counted: checked against the limits, then given
 * to the engine (or answered at once). */
static void admit(sim_server *s, net_conn *c, const ib_val *req, bool chat, int ptoks,
                  const tok_ids *ids, const char *rid, int64_t read_ns, bool model_time)
{
	const sim_config *cfg = &s->cfg;
	const ib_val *model = ib_map_get(req, "model");
	const char *served = cfg->served_model_name;
	for (size_t i = 0; model && model->type == IB_V_STR && i < cfg->nlora; i++)
		if (!strcmp(model->str.s, cfg->lora[i]))
			served = cfg->lora[i];
	int64_t max_tokens = 16, n = 1;
	const ib_val *mt = chat ? ib_map_get(req, "max_completion_tokens") : NULL;
	if (!mt || mt->type == IB_V_NULL)
		mt = ib_map_get(req, "max_tokens");
	if (mt && mt->type != IB_V_NULL && (!as_int(mt, &max_tokens) || max_tokens < 1)) {
		json_error(c, 400, "BadRequestError", "max_tokens must be an integer >= 1");
		return;
	}
	if (chat && (!mt || mt->type == IB_V_NULL))
		max_tokens = cfg->max_model_len > 0 ? cfg->max_model_len - ptoks : 4096;
	const ib_val *nv = ib_map_get(req, "n");
	if (nv && nv->type != IB_V_NULL && (!as_int(nv, &n) || n != 1)) {
		json_error(c, 400, "BadRequestError", "only n = 1 is supported");
		return;
	}
	if (max_tokens > MAX_TOKENS_LIMIT) /* a chat default past what the engine holds */
		max_tokens = MAX_TOKENS_LIMIT;
	if (cfg->max_model_len > 0 && ptoks + max_tokens > cfg->max_model_len) {
		char m[300];
		snprintf(
		    m, sizeof m,
		    "This model's maximum context length is %d tokens. However, you requested %lld "
		    "tokens (%d in the messages, %lld in the completion).",
		    cfg->max_model_len, (long long)(ptoks + max_tokens), ptoks,
		    (long long)max_tokens);
		json_error(c, 400, "BadRequestError", m);
		return;
	}
	const ib_val *t = ib_map_get(req, "temperature");
	if (t && t->type != IB_V_NULL && t->type != IB_V_INT && t->type != IB_V_FLOAT) {
		json_error(c, 400, "BadRequestError", "temperature must be a number");
		return;
	}
	int64_t blocks_needed = (ptoks + 1 + cfg->block_size - 1) / cfg->block_size;
	if (!cfg->max_speed && blocks_needed > s->cap.kv_blocks) {
		json_error(c, 400, "BadRequestError", "the prompt does not fit in the KV cache");
		return;
	}
	/* without --max-model-len the KV cache bounds a sequence, as vLLM
	 * derives its limit: a request that could never finish is refused */
	int64_t kv_tokens = cfg->max_speed || s->cap.kv_blocks > INT64_MAX / 2 / cfg->block_size
	                        ? INT64_MAX / 2
	                        : s->cap.kv_blocks * (int64_t)cfg->block_size;
	if (!cfg->max_speed && cfg->max_model_len <= 0 && ptoks + max_tokens > kv_tokens) {
		char m[300];
		snprintf(m, sizeof m,
		         "This model's maximum context length is %lld tokens (the KV cache). "
		         "However, you requested "
		         "%lld tokens (%d in the messages, %lld in the completion).",
		         (long long)kv_tokens, (long long)(ptoks + max_tokens), ptoks,
		         (long long)max_tokens);
		json_error_param(c, 400, "BadRequestError", m,
		                 chat ? "max_completion_tokens" : "max_tokens");
		return;
	}
	seq *q = calloc(1, sizeof *q);
	if (!q) {
		json_error(c, 500, "InternalServerError", "out of memory");
		return;
	}
	q->srv = s;
	q->id = ++s->next_id;
	q->model = served;
	q->conn = c;
	q->chat = chat;
	q->stream = ib_val_truthy(ib_map_get(req, "stream"));
	q->include_usage =
	    ib_val_truthy(ib_map_get(ib_map_get(req, "stream_options"), "include_usage"));
	q->ignore_eos = ib_val_truthy(ib_map_get(req, "ignore_eos"));
	q->prompt_tokens = ptoks;
	q->max_tokens = (int)max_tokens;
	q->arrival_ns = ib_now_ns(); /* the moment it was read, not the loop's cached time */
	/* handling it (parsing, tokenizing: the simulator's CPU, not the
	 * modelled GPU) is not model time while no step is in flight; a step
	 * in flight that it holds up fires late, which says it (engine.c) */
	if (!cfg->max_speed)
		sim_model_pause(s, read_ns, q->arrival_ns);
	q->arrival_m = cfg->max_speed ? 0 : sim_model_now(s, read_ns);
	q->last_m = q->arrival_m;
	q->model_time = s->scale_field[0] && model_time;
	if (cfg->trace && q->stream) {
		snprintf(q->req_id, sizeof q->req_id, "%s", rid);
		q->sent_cap = q->max_tokens + 1;
		if (!(q->sent = malloc((size_t)q->sent_cap * sizeof *q->sent))) {
			free(q);
			json_error(c, 500, "InternalServerError", "out of memory");
			return;
		}
	}
	sim_rng_seed(&q->rng, cfg->seed * 0x9e3779b97f4a7c15ULL + q->id);
	/* the natural length of an answer when EOS is not ignored: geometric */
	q->target = q->max_tokens;
	if (!q->ignore_eos) {
		double u = sim_rng_uniform(&q->rng);
		double natural = 1 + floor(log(1 - u) / log(1 - 1.0 / cfg->mean_output_len));
		if (natural < q->target)
			q->target = (int)natural;
	}
	if (chat && cfg->grader) { /* a graded question: its answer's length, up to max_tokens */
		int g = sim_eval_plan(cfg->grader, req, q);
		if (g < 0) {
			free(q->sent);
			free(q);
			json_error(c, 500, "InternalServerError", "out of memory");
			return;
		}
		if (g > 0)
			q->target = q->ans_ntok < q->max_tokens ? q->ans_ntok : q->max_tokens;
	}
	if (cfg->role == SIM_ROLE_PREFILL) /* the decode role generates the rest */
		q->target = 1;
	if (!cfg->max_speed && !cfg->no_prefix_cache && prompt_hashes(s, q, req, chat, ids)) {
		q->conn = NULL;
		sim_seq_free(s, q);
		json_error(c, 500, "InternalServerError", "out of memory");
		return;
	}
	q->drop_at = q->stall_at = q->malformed_at = -1;
	if (sim_rng_uniform(&q->rng) < cfg->fail_rate) {
		q->conn = NULL;
		sim_seq_free(s, q);
		json_error(c, 500, "InternalServerError", "injected failure (--fail-rate)");
		return;
	}
	if (sim_rng_uniform(&q->rng) < cfg->drop_rate)
		q->drop_at = (int)(sim_rng_next(&q->rng) % (uint64_t)q->target);
	if (sim_rng_uniform(&q->rng) < cfg->stall_rate)
		q->stall_at = /* before the last token, so that it happens */
		    (int)(sim_rng_next(&q->rng) % (uint64_t)(q->target > 1 ? q->target - 1 : 1));
	if (q->stream && sim_rng_uniform(&q->rng) < cfg->malformed_rate)
		q->malformed_at = (int)(sim_rng_next(&q->rng) % (uint64_t)q->target);
	net_conn_set_data(c, q);
	s->m.prompt_tokens += (uint64_t)ptoks;
	if (q->stream)
		net_conn_stream_begin(c, 200, "text/event-stream");
	if (cfg->max_speed)
		sim_emit(s, q, 0, false); /* fills the connection; on_drain continues */
	else if (s->prefill)
		sim_disagg_submit(s, q);
	else if (cfg->role == SIM_ROLE_DECODE)
		sim_disagg_arrived(s, q);
	else
		sim_engine_submit(s, q);
}

void sim_seq_free(sim_server *s, seq *q)
{
	(void)s;
	if (q->conn)
		net_conn_set_data(q->conn, NULL);
	ib_buf_free(&q->text);
	ib_buf_free(&q->pre);
	ib_buf_free(&q->ans);
	free(q->ans_end);
	free(q->sent);
	free(q->bh);
	free(q);
}

/* Appends the text of the next n tokens (from q->generated on): random
 * words, or the graded answer's tokens (JSON-escaped already). */
static void append_words(seq *q, ib_buf *b, int n)
{
	if (q->ans_end) {
		int from = q->generated, to = q->generated + n;
		if (to > q->ans_ntok)
			to = q->ans_ntok;
		if (to > from) {
			int a = from ? q->ans_end[from - 1] : 0;
			ib_buf_append(b, q->ans.data + a, (size_t)(q->ans_end[to - 1] - a));
		}
		return;
	}
	for (int i = 0; i < n; i++)
		ib_buf_puts(b, words[sim_rng_next(&q->rng) % NWORDS]);
}

/* finish_reason of a finished request: "stop" when it ended by itself (a
 * graded answer complete, or cut at a stop string), else "length". */
static const char *finish_of(const seq *q)
{
	if (q->ans_end)
		return q->target == q->ans_ntok && (q->target < q->max_tokens || q->ans_cut)
		           ? "stop"
		           : "length";
	return q->target < q->max_tokens ? "stop" : "length";
}

/* X-Infbench-Model-Time: the model clock in the JSON object just written
 * to b (its last byte is the closing brace), in seconds: "infbench_t" the
 * moment of this chunk, "infbench_t0" (with t0) the request's arrival. */
static void stamp(const sim_server *s, const seq *q, ib_buf *b, bool t0)
{
	if (!q->model_time || !b->len || b->data[b->len - 1] != '}')
		return;
	b->len--;
	if (t0)
		ib_buf_printf(b, ",\"infbench_t0\":%.9f", (double)q->arrival_m * 1e-9);
	ib_buf_printf(b, ",\"infbench_t\":%.9f}", (double)s->m_step_end * 1e-9);
}

/* Writes one streamed event carrying n tokens. */
static void stream_tokens(sim_server *s, seq *q, int n, bool last)
{
	ib_buf *out = net_conn_out(q->conn);
	ib_buf *b = &s->scratch;
	const char *model = q->model;
	const char *finish = !last                           ? "null"
	                     : !strcmp(finish_of(q), "stop") ? "\"stop\""
	                                                     : "\"length\"";
	if (q->malformed_at >= 0 && q->generated >= q->malformed_at) {
		q->malformed_at = -1;
		static const char broken[] = "{\"id\": \"cmpl-broken\", \"choices\": [{\"text\": ";
		net_sse_append(out, broken, sizeof broken - 1);
	}
	if (!q->pre.len) { /* built once per request */
		if (q->chat)
			ib_buf_printf(
			    &q->pre,
			    "{\"id\":\"chatcmpl-%llu\",\"object\":\"chat.completion.chunk\","
			    "\"created\":%lld,\"model\":\"%s\",\"choices\":[{\"index\":0,"
			    "\"delta\":{\"%s\":\"",
			    (unsigned long long)q->id, (long long)s->created, model,
			    q->ans_reasoning ? "reasoning_content" : "content");
		else
			ib_buf_printf(&q->pre,
			              "{\"id\":\"cmpl-%llu\",\"object\":\"text_completion\","
			              "\"created\":%lld,\"model\":\"%s\",\"choices\":[{\"index\":0,"
			              "\"text\":\"",
			              (unsigned long long)q->id, (long long)s->created, model);
	}
	b->len = 0;
	if (q->chat) {
		if (q->generated == 0) {
			ib_buf_printf(
			    b,
			    "{\"id\":\"chatcmpl-%llu\",\"object\":\"chat.completion.chunk\","
			    "\"created\":%lld,\"model\":\"%s\",\"choices\":[{\"index\":0,\"delta\":"
			    "{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,"
			    "\"finish_reason\":null}]}",
			    (unsigned long long)q->id, (long long)s->created, model);
			stamp(s, q, b, true);
			net_sse_append(out, b->data, b->len);
			b->len = 0;
		}
		if (q->pre.len)
			ib_buf_append(b, q->pre.data, q->pre.len);
		append_words(q, b, n);
		ib_buf_puts(b, "\"},\"logprobs\":null,\"finish_reason\":");
		ib_buf_puts(b, finish);
		ib_buf_puts(b, "}]}");
		stamp(s, q, b, q->generated == 0);
	} else {
		if (q->pre.len)
			ib_buf_append(b, q->pre.data, q->pre.len);
		append_words(q, b, n);
		ib_buf_puts(b, "\",\"logprobs\":null,\"finish_reason\":");
		ib_buf_puts(b, finish);
		ib_buf_puts(b, ",\"stop_reason\":null}]}");
		stamp(s, q, b, q->generated == 0);
	}
	net_sse_append(out, b->data, b->len);
	if (last) {
		if (q->include_usage) {
			b->len = 0;
			ib_buf_printf(
			    b,
			    "{\"id\":\"%s-%llu\",\"object\":\"%s\",\"created\":%lld,\"model\":\"%"
			    "s\","
			    "\"choices\":[],\"usage\":{\"prompt_tokens\":%d,\"total_tokens\":%d,"
			    "\"completion_tokens\":%d}}",
			    q->chat ? "chatcmpl" : "cmpl", (unsigned long long)q->id,
			    q->chat ? "chat.completion.chunk" : "text_completion",
			    (long long)s->created, model, q->prompt_tokens,
			    q->prompt_tokens + q->generated + n, q->generated + n);
			stamp(s, q, b, false);
			net_sse_append(out, b->data, b->len);
		}
		net_sse_append(out, "[DONE]", 6);
		net_conn_stream_end(q->conn);
	} else {
		net_conn_mark(q->conn);
	}
}

static void respond_whole(sim_server *s, seq *q)
{
	ib_buf *b = &s->scratch;
	const char *finish = finish_of(q);
	b->len = 0;
	if (q->chat && q->ans_end) { /* a graded answer: reasoning_content too */
		const char *text = q->text.data ? q->text.data : "";
		ib_buf_printf(
		    b,
		    "{\"id\":\"chatcmpl-%llu\",\"object\":\"chat.completion\",\"created\":%lld,"
		    "\"model\":\"%s\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
		    "\"assistant\","
		    "\"content\":\"%s\",\"reasoning_content\":%s%s%s},\"logprobs\":null,"
		    "\"finish_reason\":\"%s\"}],",
		    (unsigned long long)q->id, (long long)s->created, q->model,
		    q->ans_reasoning ? "" : text, q->ans_reasoning ? "\"" : "",
		    q->ans_reasoning ? text : "null", q->ans_reasoning ? "\"" : "", finish);
	} else if (q->chat) {
		ib_buf_printf(
		    b,
		    "{\"id\":\"chatcmpl-%llu\",\"object\":\"chat.completion\",\"created\":%lld,"
		    "\"model\":\"%s\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
		    "\"assistant\","
		    "\"content\":\"%s\"},\"logprobs\":null,\"finish_reason\":\"%s\"}],",
		    (unsigned long long)q->id, (long long)s->created, q->model,
		    q->text.data ? q->text.data : "", finish);
	} else {
		ib_buf_printf(
		    b,
		    "{\"id\":\"cmpl-%llu\",\"object\":\"text_completion\",\"created\":%lld,"
		    "\"model\":\"%s\",\"choices\":[{\"index\":0,\"text\":\"%s\",\"logprobs\":null,"
		    "\"finish_reason\":\"%s\",\"stop_reason\":null}],",
		    (unsigned long long)q->id, (long long)s->created, q->model,
		    q->text.data ? q->text.data : "", finish);
	}
	ib_buf_printf(
	    b, "\"usage\":{\"prompt_tokens\":%d,\"total_tokens\":%d,\"completion_tokens\":%d}}",
	    q->prompt_tokens, q->prompt_tokens + q->generated, q->generated);
	stamp(s, q, b, true);
	net_conn_respond(q->conn, 200, "application/json", b->data, b->len, NULL);
}

void sim_emit(sim_server *s, seq *q, int n, bool last)
{
	const sim_config *cfg = &s->cfg;
	if (!q->conn) { /* client gone */
		if (last || q->state == SEQ_DONE)
			sim_seq_free(s, q);
		return;
	}
	if (cfg->max_speed) { /* stream until the output buffer is full */
		while (q->generated < q->target && net_conn_pending(q->conn) < 256 * 1024) {
			if (!q->stream) {
				append_words(q, &q->text, q->target - q->generated);
				q->generated = q->target;
				break;
			}
			bool end = q->generated + 1 >= q->target;
			stream_tokens(s, q, 1, end);
			q->generated++;
			s->m.generation_tokens++;
		}
		if (q->generated >= q->target) {
			if (!q->stream)
				respond_whole(s, q);
			s->m.requests_ok++;
			net_conn_set_data(q->conn, NULL);
			q->conn = NULL;
			sim_seq_free(s, q);
		}
		return;
	}
	int64_t now = net_now(s->loop);
	/* the histograms are on the model clock (the step's end), not the late
	 * moment its timer fired; a request read after the step ended in model
	 * time (the wake-up was late) waited nothing */
	int64_t at = s->m_step_end;
	if (q->generated == 0) {
		double w = (double)(at - q->arrival_m) * 1e-9;
		sim_hist_observe(&s->m.ttft, w > 0 ? w : 0);
	} else {
		sim_hist_observe(&s->m.itl, (double)(at - q->last_m) * 1e-9);
	}
	q->last_m = at;
	q->last_ns = now;
	s->m.generation_tokens += (uint64_t)n;
	if (q->drop_at >= 0 && q->generated + n > q->drop_at && !last) {
		/* injected: close the connection mid-stream */
		if (q->stream)
			stream_tokens(s, q, n, false);
		q->generated += n;
		net_conn *c = q->conn;
		s->m.requests_aborted++;
		net_conn_abort(c); /* on_close aborts the sequence and frees it */
		return;
	}
	if (q->stream)
		stream_tokens(s, q, n, last);
	else
		append_words(q, &q->text, n);
	if (q->sent && q->nsent < q->sent_cap) { /* --trace: the chunk leaves now */
		net_conn_flush(q->conn);
		q->sent[q->nsent++] = ib_now_ns();
	}
	q->generated += n;
	if (q->stall_at >= 0 && q->generated > q->stall_at && !last) {
		q->stall_at = -1;
		q->stall_until = now + (int64_t)(cfg->stall_ms * 1e6);
		sim_engine_kick(s);
	}
	if (last) {
		double w = (double)(at - q->arrival_m) * 1e-9;
		sim_hist_observe(&s->m.e2e, w > 0 ? w : 0);
		if (q->sent)
			trace_write(s, q);
		s->m.requests_ok++;
		if (!q->stream)
			respond_whole(s, q);
		net_conn_set_data(q->conn, NULL);
		q->conn = NULL;
		sim_seq_free(s, q);
	}
}

/* ---- routing ---- */

static bool path_is(const net_http_msg *r, const char *p)
{
	size_t n = strlen(p);
	size_t len = r->path_len;
	const char *qm = memchr(r->path, '?', len);
	if (qm)
		len = (size_t)(qm - r->path);
	return len == n && memcmp(r->path, p, n) == 0;
}

static bool method_is(const net_http_msg *r, const char *m)
{
	return r->method_len == strlen(m) && memcmp(r->method, m, r->method_len) == 0;
}

/* --log-requests: the request as it arrived, one JSON line (method, path,
 * body, and x_dynamo_session_id when the header came). A line that
 * cannot be built (out of memory) is left out, never half-written. */
int sim_server_log_error(const sim_server *s)
{
	return ib_buf_error(&s->logline);
}

static void log_request(sim_server *s, const net_http_msg *r, const char *body, size_t len)
{
	ib_buf *b = &s->logline;
	b->len = 0;
	int rc = ib_buf_puts(b, "{\"method\": ");
	rc = rc ? rc : ib_json_write_str(b, r->method, r->method_len, true);
	rc = rc ? rc : ib_buf_puts(b, ", \"path\": ");
	rc = rc ? rc : ib_json_write_str(b, r->path, r->path_len, true);
	rc = rc ? rc : ib_buf_puts(b, ", \"body\": ");
	rc = rc ? rc : ib_json_write_str(b, body ? body : "", body ? len : 0, true);
	const net_header *h = net_http_header(r, "X-Dynamo-Session-ID");
	if (h) { /* the session a router keeps on one worker */
		rc = rc ? rc : ib_buf_puts(b, ", \"x_dynamo_session_id\": ");
		rc = rc ? rc : ib_json_write_str(b, h->value, h->value_len, true);
	}
	rc = rc ? rc : ib_buf_puts(b, "}\n");
	if (!rc)
		fwrite(b->data, 1, b->len, s->cfg.request_log);
}

static void on_request(net_conn *c, const net_http_msg *r, const char *body, size_t len, void *arg)
{
	sim_server *s = arg;
	if (s->cfg.request_log)
		log_request(s, r, body, len);
	bool completions = path_is(r, "/v1/completions"), chat = path_is(r, "/v1/chat/completions");
	if (completions || chat) {
		if (!method_is(r, "POST")) {
			json_error(c, 405, "MethodNotAllowed", "use POST");
			return;
		}
		handle_generate(s, c, r, body, len, chat);
		return;
	}
	if (path_is(r, "/tokenize") || path_is(r, "/detokenize")) {
		if (!s->cfg.tokenizer) {
			json_error(c, 404, "NotFoundError",
			           "no tokenizer loaded (start the simulator with --tokenizer)");
			return;
		}
		if (!method_is(r, "POST")) {
			json_error(c, 405, "MethodNotAllowed", "use POST");
			return;
		}
		handle_tokenize(s, c, body, len, path_is(r, "/detokenize"));
		return;
	}
	if (path_is(r, "/start_profile") ||
	    path_is(r, "/stop_profile")) { /* as vLLM: an empty 200 */
		if (!method_is(r, "POST")) {
			json_error(c, 405, "MethodNotAllowed", "use POST");
			return;
		}
		bool start = path_is(r, "/start_profile");
		if (s->cfg.log)
			s->cfg.log(s->cfg.log_arg, IB_LOG_ERR,
			           start ? "profiler started (no trace is written)"
			                 : "profiler stopped (no trace is written)");
		net_conn_respond(c, 200, "application/json", "", 0, NULL);
		return;
	}
	if (path_is(r, "/health") || path_is(r, "/v1/models") || path_is(r, "/metrics")) {
		if (!method_is(r, "GET") && !method_is(r, "HEAD")) {
			json_error(c, 405, "MethodNotAllowed", "use GET");
			return;
		}
		ib_buf *b = &s->scratch;
		b->len = 0;
		if (path_is(r, "/health")) {
			net_conn_respond(c, 200, "application/json", "{}", 2, NULL);
		} else if (path_is(r, "/v1/models")) {
			/* --max-speed has no KV limit (kv_blocks near INT64_MAX / 2) */
			long long ctx = s->cap.kv_blocks > INT64_MAX / s->cfg.block_size
			                    ? INT64_MAX
			                    : (long long)(s->cap.kv_blocks * s->cfg.block_size);
			ib_buf_printf(b,
			              "{\"object\": \"list\", \"data\": [{\"id\": \"%s\", "
			              "\"object\": \"model\", "
			              "\"created\": %lld, \"owned_by\": \"infbench-sim\", "
			              "\"max_model_len\": %lld%s}",
			              s->cfg.served_model_name, (long long)s->created, ctx,
			              s->scale_field);
			for (size_t i = 0; i < s->cfg.nlora; i++)
				ib_buf_printf(
				    b,
				    ", {\"id\": \"%s\", \"object\": \"model\", \"created\": %lld, "
				    "\"owned_by\": \"infbench-sim\", \"parent\": \"%s\", "
				    "\"max_model_len\": %lld%s}",
				    s->cfg.lora[i], (long long)s->created, s->cfg.served_model_name,
				    ctx, s->scale_field);
			ib_buf_puts(b, "]}");
			net_conn_respond(c, 200, "application/json", b->data, b->len, NULL);
		} else {
			sim_metrics_render(s, b);
			net_conn_respond(c, 200, "text/plain; version=0.0.4", b->data, b->len,
			                 NULL);
		}
		return;
	}
	json_error(c, 404, "NotFoundError", "unknown path");
}

static void on_close(net_conn *c, void *arg)
{
	sim_server *s = arg;
	if (s->tokq_on)
		sim_tokq_forget(s, c);
	seq *q = net_conn_get_data(c);
	if (!q)
		return;
	q->conn = NULL;
	if (s->cfg.max_speed) {
		sim_seq_free(s, q);
		return;
	}
	sim_engine_abort(s, q);
	sim_seq_free(s, q);
}

static void on_drain(net_conn *c, void *arg)
{
	sim_server *s = arg;
	seq *q = net_conn_get_data(c);
	if (q && s->cfg.max_speed)
		sim_emit(s, q, 0, false);
}

int sim_server_new(net_loop *l, const sim_config *c, sim_server **out, ib_error *e)
{
	sim_server *s = calloc(1, sizeof *s);
	if (!s)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	s->cfg = *c;
	if (c->role == SIM_ROLE_PREFILL) { /* the prefill pool, this process's workers */
		sim_prefill_config(c, &s->cfg);
		s->cfg.replicas = c->replicas;
	}
	c = &s->cfg;
	s->loop = l;
	s->created = (int64_t)time(NULL);
	sim_metrics_init(&s->m);
	int rc = c->max_speed ? 0 : sim_capacity_of(c, &s->cap, e);
	if (c->max_speed)
		s->cap.kv_blocks = INT64_MAX / 2;
	if (!rc && c->tokenizer)
		rc = sim_tokq_start(s, e);
	if (!rc) {
		sim_engine_start(s);
		if (c->prefill_workers > 0 && c->role != SIM_ROLE_DECODE && !c->max_speed &&
		    !(c->pace > 0))
			rc = sim_disagg_start(s, e);
	}
	if (!rc) {
		net_server_cbs cbs = {
		    .on_request = on_request, .on_close = on_close, .on_drain = on_drain};
		rc = net_server_new(l, c->host, c->port, &cbs, s, &s->http, e);
		if (!rc && c->tls)
			net_server_use_tls(s->http, c->tls);
		if (!rc)
			net_server_set_header_timeout(s->http, (int64_t)(c->header_timeout * 1000));
		if (!rc && c->send_threads > 0)
			rc = net_server_set_send_threads(s->http, c->send_threads, e);
	}
	/* the simulator announces itself on every response, so that a client
	 * marks its results simulated (docs/sim.md "How a client knows") */
	snprintf(s->scale_header, sizeof s->scale_header, "%s", SIM_ENGINE_HEADER);
	if (!rc && !c->max_speed && !(c->pace > 0)) {
		/* the time scale, announced on every response and in /v1/models, so
		 * that a client converts what it measures to model time */
		snprintf(s->scale_header, sizeof s->scale_header,
		         SIM_ENGINE_HEADER "X-Infbench-Time-Scale: %.17g\r\n", c->time_scale);
		snprintf(s->scale_field, sizeof s->scale_field, ", \"time_scale\": %.17g",
		         c->time_scale);
	}
	if (!rc && c->interval) /* its prediction interval, as factors */
		sim_iv_header(c->interval, s->scale_header + strlen(s->scale_header),
		              sizeof s->scale_header - strlen(s->scale_header));
	if (!rc)
		net_server_set_headers(s->http, s->scale_header);
	if (rc) {
		net_server_free(s->http); /* NULL: none */
		sim_tokq_stop(s);
		sim_disagg_free(s);
		free(s);
		return rc;
	}
	*out = s;
	return 0;
}

int sim_server_port(const sim_server *s)
{
	return net_server_port(s->http);
}

void sim_server_free(sim_server *s)
{
	if (!s)
		return;
	net_server_free(s->http); /* closes connections: on_close frees their requests */
	sim_tokq_stop(s);         /* waits for the prompt at hand; frees every job */
	net_timer_cancel(s->loop, &s->step_timer);
	net_defer_cancel(s->loop, &s->kick);
	while (s->waiting.head) {
		seq *q = s->waiting.head;
		seq_list_remove(&s->waiting, q);
		sim_seq_free(s, q);
	}
	while (s->running.head) {
		seq *q = s->running.head;
		seq_list_remove(&s->running, q);
		sim_seq_free(s, q);
	}
	sim_disagg_free(s);
	sim_pc_free(&s->pc);
	ib_buf_free(&s->scratch);
	ib_buf_free(&s->logline);
	free(s);
}
