/* Conversation reconstruction (AX2): the messages array of each turn from
 * the trace's hash ids, and the chat request body composed from block
 * texts (docs/agentx.md). */
#include "agentx/agentx.h"
#include "fmt/fmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t nblocks(const ax_trace *t, const ax_request *r)
{
	size_t n = (size_t)(r->in / t->block_size);
	return n < r->nhash ? n : r->nhash;
}

static int add(ax_conv *c, char role, size_t from, size_t to, size_t tail)
{
	if (to <= from && !tail)
		return 0;
	if (ib_grow(&c->seg, &c->cap, c->n + 1))
		return IB_ENOMEM;
	c->seg[c->n++] = (ax_seg){role, from, to, tail};
	return 0;
}

int ax_conv_turn(ax_conv *c, const ax_trace *t, const ax_request *prev, const ax_request *r)
{
	size_t nb = nblocks(t, r), bs = (size_t)t->block_size;
	size_t tail = (size_t)r->in - nb * bs;
	c->blocks = nb;
	if (!prev) {
		c->n = 0;
		size_t sys = (size_t)((t->tool_tokens + t->system_tokens + t->block_size - 1) /
		                      t->block_size);
		if (sys > nb)
			sys = nb;
		if (add(c, 's', 0, sys, 0) || add(c, 'u', sys, nb, tail))
			return IB_ENOMEM;
		return 0;
	}
	/* the longest common prefix of the two turns' blocks */
	size_t pb = nblocks(t, prev), l = 0;
	while (l < pb && l < nb && prev->hash_ids[l] == r->hash_ids[l])
		l++;
	size_t k = 0;
	for (size_t i = 0; i < c->n && c->seg[i].from < l; i++) {
		c->seg[k] = c->seg[i];
		if (c->seg[k].to > l)
			c->seg[k].to = l;
		c->seg[k++].tail = 0;
	}
	c->n = k;
	size_t a = (size_t)((prev->out + t->block_size - 1) / t->block_size);
	if (a > nb - l)
		a = nb - l;
	if (a && l + a == nb && !tail)
		a--; /* a chat turn ends with the user */
	if (add(c, 'a', l, l + a, 0) || add(c, 'u', l + a, nb, tail))
		return IB_ENOMEM;
	return 0;
}

void ax_conv_free(ax_conv *c)
{
	free(c->seg);
	memset(c, 0, sizeof *c);
}

int ax_chat_body(ib_buf *out, const ax_blocks *b, ax_texts *texts, const ax_trace *t,
                 const ax_conv *c, const ax_request *r, int64_t tail_key, const char *model,
                 int64_t max_tokens, const char *marker)
{
	static const char *const role[] = {['s'] = "system", ['u'] = "user", ['a'] = "assistant"};
	int rc = ib_buf_puts(out, "{\"model\": ") |
	         ib_json_write_str(out, model, strlen(model), false) |
	         ib_buf_puts(out, ", \"messages\": [");
	bool first_user = true;
	char scope[300];
	snprintf(scope, sizeof scope, "%s:tail", t->id);
	for (size_t i = 0; i < c->n && !rc; i++) {
		const ax_seg *s = &c->seg[i];
		/* consecutive segments of one role are one message */
		bool open = !i || c->seg[i - 1].role != s->role;
		bool close = i + 1 == c->n || c->seg[i + 1].role != s->role;
		if (open) {
			rc |= ib_buf_printf(out, "%s{\"role\": \"%s\", \"content\": \"",
			                    i ? ", " : "", role[(unsigned char)s->role]);
			if (s->role == 'u' && first_user && marker) {
				rc |= ib_buf_puts(out, marker) | ib_buf_puts(out, "\\n\\n");
				first_user = false;
			} else if (s->role == 'u')
				first_user = false;
		}
		for (size_t k = s->from; k < s->to && !rc; k++) {
			const char *bt;
			size_t bn;
			if (!texts)
				rc = ax_words(b, t->id, r->hash_ids[k], (size_t)t->block_size, out);
			else if (!(rc = ax_texts_get(texts, r->hash_ids[k], &bt, &bn)))
				rc = ib_buf_append(out, bt, bn);
		}
		if (s->tail && !rc)
			rc = ax_words(b, scope, tail_key, s->tail, out);
		if (close)
			rc |= ib_buf_puts(out, "\"}");
	}
	rc |= ib_buf_printf(out,
	                    "], \"max_tokens\": %lld, \"ignore_eos\": true, \"stream\": true, "
	                    "\"stream_options\": {\"include_usage\": true}}",
	                    (long long)max_tokens);
	return rc ? IB_ENOMEM : 0;
}
