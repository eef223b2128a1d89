/* The built-in DeepSeek-V4 framing of the reference client (--dsv4): the
 * prompt encoder of encoding_dsv4.py for plain conversations, re-implemented
 * from its behaviour: system, developer, user and assistant messages, the
 * thinking / chat modes and the dropping of earlier reasoning. Tools, tool
 * calls, tool results and tasks are refused (the benchmark uses none). */
#include "chat/private.h"

#include <stdlib.h>
#include <string.h>

#define BOS       "<｜begin▁of▁sentence｜>"
#define EOS       "<｜end▁of▁sentence｜>"
#define USER      "<｜User｜>"
#define ASSISTANT "<｜Assistant｜>"
#define REMINDER  "<｜latest_reminder｜>"
#define THINK     "<think>"
#define END_THINK "</think>"

typedef struct {
	const char *role;
	const ib_val *content;   /* a string, null or NULL */
	const ib_val *reasoning; /* idem */
	const ib_val **parts;    /* merged user messages: their contents */
	size_t nparts;
	bool wo_eos;
} dmsg;

static bool role_is(const dmsg *m, const char *r)
{
	return m->role && !strcmp(m->role, r);
}

static const char *str_of(const ib_val *v)
{
	return v && v->type == IB_V_STR ? v->str.s : "";
}

static size_t len_of(const ib_val *v)
{
	return v && v->type == IB_V_STR ? v->str.len : 0;
}

static int last_user(const dmsg *m, size_t n)
{
	for (size_t i = n; i-- > 0;)
		if (role_is(&m[i], "user") || role_is(&m[i], "developer"))
			return (int)i;
	return -1;
}

int chat_dsv4_apply(const ib_val *messages, const chat_dsv4_opts *opts, ib_buf *out, ib_error *e)
{
	chat_dsv4_opts none = {0};
	if (!opts)
		opts = &none;
	bool thinking = !opts->chat_mode, drop = !opts->keep_thinking;
	if (!messages || messages->type != IB_V_LIST)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "messages must be a list");
	size_t n = messages->list.n, len0 = out->len;
	dmsg *m = calloc(n + 1, sizeof *m);
	const ib_val **parts = calloc(n + 1, sizeof *parts);
	int rc = 0;
	if (!m || !parts) {
		rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
		goto done;
	}
	/* merge consecutive user messages (merge_tool_messages) */
	size_t k = 0, np = 0;
	for (size_t i = 0; i < n; i++) {
		const ib_val *msg = messages->list.v[i];
		if (!msg || msg->type != IB_V_MAP) {
			rc = ib_fail(e, IB_EINVAL, NULL, 0, 0, "messages[%zu] is not an object", i);
			goto done;
		}
		static const char *const unsupported[] = {"tools", "tool_calls", "task",
		                                          "content_blocks", "response_format"};
		for (size_t u = 0; u < sizeof unsupported / sizeof unsupported[0]; u++) {
			const ib_val *x = ib_map_get(msg, unsupported[u]);
			if (x && ib_val_truthy(x)) {
				rc = ib_fail(e, IB_EINVAL, NULL, 0, 0,
				             "messages[%zu]: '%s' is not supported by the built-in "
				             "DeepSeek-V4 framing",
				             i, unsupported[u]);
				goto done;
			}
		}
		const ib_val *role = ib_map_get(msg, "role");
		const ib_val *content = ib_map_get(msg, "content");
		const ib_val *wo = ib_map_get(msg, "wo_eos");
		if (!role || role->type != IB_V_STR) {
			rc = ib_fail(e, IB_EINVAL, NULL, 0, 0, "messages[%zu] has no role", i);
			goto done;
		}
		const char *r = role->str.s;
		if (!strcmp(r, "tool")) {
			rc = ib_fail(
			    e, IB_EINVAL, NULL, 0, 0,
			    "messages[%zu]: tool messages are not supported by the built-in "
			    "DeepSeek-V4 framing",
			    i);
			goto done;
		}
		if (strcmp(r, "system") && strcmp(r, "developer") && strcmp(r, "user") &&
		    strcmp(r, "assistant") && strcmp(r, "latest_reminder")) {
			rc = ib_fail(e, IB_EINVAL, NULL, 0, 0, "messages[%zu]: unknown role '%s'",
			             i, r);
			goto done;
		}
		if (content && content->type != IB_V_STR && content->type != IB_V_NULL) {
			rc = ib_fail(e, IB_EINVAL, NULL, 0, 0,
			             "messages[%zu]: content must be a string", i);
			goto done;
		}
		if (!strcmp(r, "user")) {
			if (!content || content->type != IB_V_STR) {
				rc = ib_fail(e, IB_EINVAL, NULL, 0, 0,
				             "messages[%zu]: a user message needs a string content",
				             i);
				goto done;
			}
			if (k && role_is(&m[k - 1], "user")) {
				parts[np++] = content;
				m[k - 1].nparts++;
				continue;
			}
			m[k].parts = &parts[np];
			parts[np++] = content;
			m[k].nparts = 1;
		}
		if (!strcmp(r, "developer") && (!content || !ib_val_truthy(content))) {
			rc = ib_fail(e, IB_EINVAL, NULL, 0, 0,
			             "messages[%zu]: a developer message needs a content", i);
			goto done;
		}
		m[k].role = r;
		m[k].content = content;
		m[k].reasoning = ib_map_get(msg, "reasoning_content");
		m[k].wo_eos = wo && ib_val_truthy(wo);
		k++;
	}
	n = k;
	/* drop earlier reasoning (and earlier developer messages) */
	if (thinking && drop) {
		int lu = last_user(m, n);
		size_t j = 0;
		for (size_t i = 0; i < n; i++) {
			bool keep = role_is(&m[i], "user") || role_is(&m[i], "system") ||
			            role_is(&m[i], "latest_reminder") || (int)i >= lu;
			if (keep) {
				m[j++] = m[i];
			} else if (role_is(&m[i], "assistant")) {
				m[j] = m[i];
				m[j++].reasoning = NULL;
			}
		}
		n = j;
	}
	int lu = last_user(m, n);
	if (!opts->no_bos)
		rc = ib_buf_puts(out, BOS);
	for (size_t i = 0; !rc && i < n; i++) {
		const dmsg *x = &m[i];
		if (role_is(x, "system")) {
			rc = ib_buf_append(out, str_of(x->content), len_of(x->content));
		} else if (role_is(x, "developer")) {
			rc = ib_buf_puts(out, USER);
			if (!rc)
				rc = ib_buf_append(out, str_of(x->content), len_of(x->content));
		} else if (role_is(x, "user")) {
			rc = ib_buf_puts(out, USER);
			for (size_t p = 0; !rc && p < x->nparts; p++) {
				if (p)
					rc = ib_buf_puts(out, "\n\n");
				if (!rc)
					rc = ib_buf_append(out, x->parts[p]->str.s,
					                   x->parts[p]->str.len);
			}
		} else if (role_is(x, "latest_reminder")) {
			rc = ib_buf_puts(out, REMINDER);
			if (!rc)
				rc = ib_buf_append(out, str_of(x->content), len_of(x->content));
		} else { /* assistant */
			if (thinking && (!drop || (int)i > lu)) {
				rc = ib_buf_append(out, str_of(x->reasoning), len_of(x->reasoning));
				if (!rc)
					rc = ib_buf_puts(out, END_THINK);
			}
			if (!rc)
				rc = ib_buf_append(out, str_of(x->content), len_of(x->content));
			if (!rc && !x->wo_eos)
				rc = ib_buf_puts(out, EOS);
		}
		if (rc)
			break;
		if (i + 1 < n && !role_is(&m[i + 1], "assistant") &&
		    !role_is(&m[i + 1], "latest_reminder"))
			continue;
		if (role_is(x, "user") || role_is(x, "developer")) {
			rc = ib_buf_puts(out, ASSISTANT);
			if (!rc)
				rc = ib_buf_puts(
				    out, thinking && (!drop || (int)i >= lu) ? THINK : END_THINK);
		}
	}
	if (rc)
		rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
done:
	if (rc) {
		out->len = len0;
		if (out->data)
			out->data[len0] = 0;
	}
	free(m);
	free(parts);
	return rc;
}
