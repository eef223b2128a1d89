/* Prompt files beyond the random dataset (docs/bench.md "Datasets from
 * files"): a ShareGPT-format JSON file and a custom JSONL of prompts, in the
 * formats vLLM's benchmark reads (--dataset-name sharegpt|custom). */
#include "bench/bench.h"
#include "tok/tok.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the prompt as sent (template applied when asked) and its token count */
static int finish(ib_arena *a, bench_tokenizer *t, const char *text, size_t len, int64_t out_len,
                  bench_prompt *p, ib_error *e)
{
	ib_buf b = {0};
	int rc = t->use_chat_template ? bench_apply_template(t, text, len, &b, e)
	                              : ib_buf_append(&b, text, len);
	tok_ids ids = {0};
	if (!rc)
		rc = tok_encode(t->tok, b.data ? b.data : "", b.len, false, &ids, e);
	if (!rc) {
		p->text = ib_arena_strndup(a, b.data ? b.data : "", b.len);
		p->len = b.len;
		p->prompt_len = (int64_t)ids.n;
		p->output_len = out_len;
		if (!p->text)
			rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	}
	tok_ids_free(&ids);
	ib_buf_free(&b);
	return rc;
}

/* tokens of a text (no special tokens) */
static int count(bench_tokenizer *t, const char *s, size_t n, int64_t *out, ib_error *e)
{
	tok_ids ids = {0};
	int rc = tok_encode(t->tok, s, n, false, &ids, e);
	*out = (int64_t)ids.n;
	tok_ids_free(&ids);
	return rc;
}

static const ib_val *turn_value(const ib_val *turn)
{
	const ib_val *v = turn && turn->type == IB_V_MAP ? ib_map_get(turn, "value") : NULL;
	return v && v->type == IB_V_STR ? v : NULL;
}

static int sharegpt(ib_arena *a, bench_tokenizer *t, const bench_file_opts *o, bench_prompt *ps,
                    size_t *got, ib_error *e)
{
	ib_val *doc = NULL;
	int rc = ib_json_parse_file(a, o->path, &doc, e);
	if (rc)
		return rc;
	if (doc->type != IB_V_LIST)
		return ib_fail(
		    e, IB_EINVAL, o->path, 0, 0,
		    "a ShareGPT file is a JSON list of {\"conversations\": [...]} (got a %s)",
		    ib_vtype_pyname(doc));
	for (size_t i = 0; i < doc->list.n && *got < o->num_prompts; i++) {
		const ib_val *d = doc->list.v[i];
		const ib_val *c = d->type == IB_V_MAP ? ib_map_get(d, "conversations") : NULL;
		if (!c || c->type != IB_V_LIST)
			return ib_fail(
			    e, IB_EINVAL, o->path, 0, 0,
			    "entry %zu: field 'conversations': a list of turns is needed", i + 1);
		if (c->list.n < 2) /* vLLM keeps conversations of two turns or more */
			continue;
		const ib_val *q = turn_value(c->list.v[0]), *r = turn_value(c->list.v[1]);
		if (!q || !r)
			return ib_fail(
			    e, IB_EINVAL, o->path, 0, 0,
			    "entry %zu: field 'conversations[%d].value': a string is needed", i + 1,
			    q ? 1 : 0);
		int64_t plen, olen = o->output_len;
		if ((rc = count(t, q->str.s, q->str.len, &plen, e)) ||
		    (!olen && (rc = count(t, r->str.s, r->str.len, &olen, e))))
			return rc;
		/* vLLM's is_valid_sequence: at least 4 tokens each (the output
		 * check only when the length comes from the reply), a prompt of at
		 * most 1,024 and a total of at most 2,048 */
		if (plen < 4 || (!o->output_len && olen < 4) || plen > 1024 || plen + olen > 2048)
			continue;
		if ((rc = finish(a, t, q->str.s, q->str.len, olen, &ps[*got], e)))
			return rc;
		(*got)++;
	}
	return 0;
}

static int custom(ib_arena *a, bench_tokenizer *t, const bench_file_opts *o, bench_prompt *ps,
                  size_t *got, ib_error *e)
{
	ib_buf text = {0};
	int rc = ib_read_file(o->path, &text, e);
	const char *s = text.data ? text.data : "", *end = s + text.len;
	int line = 0;
	while (!rc && s < end && *got < o->num_prompts) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		line++;
		const char *l = s;
		s += n + (nl ? 1 : 0);
		size_t k = 0;
		while (k < n && (l[k] == ' ' || l[k] == '\t' || l[k] == '\r'))
			k++;
		if (k == n) /* a blank line */
			continue;
		ib_val *v = NULL;
		ib_error je = {0};
		if (ib_json_parse(a, o->path, l, n, &v, &je)) {
			rc = ib_fail(e, IB_EPARSE, o->path, line, je.col, "not a JSON object: %s",
			             je.msg);
			break;
		}
		const ib_val *p = v->type == IB_V_MAP ? ib_map_get(v, "prompt") : NULL;
		if (!p || p->type != IB_V_STR) {
			rc = ib_fail(e, IB_EINVAL, o->path, line, 0,
			             "field 'prompt': a string is needed (each line is "
			             "{\"prompt\": \"...\"})");
			break;
		}
		rc = finish(a, t, p->str.s, p->str.len, o->output_len ? o->output_len : 256,
		            &ps[*got], e);
		if (!rc)
			(*got)++;
	}
	ib_buf_free(&text);
	return rc;
}

int bench_file_dataset(ib_arena *a, bench_tokenizer *t, const bench_file_opts *o,
                       bench_prompt **out, ib_error *e)
{
	*out = NULL;
	if (!o->path)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0,
		               "--dataset-name %s needs --dataset-path FILE",
		               o->sharegpt ? "sharegpt" : "custom");
	bench_prompt *ps = ib_arena_alloc(a, (o->num_prompts + 1) * sizeof *ps);
	if (!ps)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	size_t got = 0;
	int rc = o->sharegpt ? sharegpt(a, t, o, ps, &got, e) : custom(a, t, o, ps, &got, e);
	if (!rc && got < o->num_prompts)
		rc = ib_fail(e, IB_EINVAL, o->path, 0, 0,
		             "%zu usable prompt%s, --num-prompts %zu asked for%s", got,
		             got == 1 ? "" : "s", o->num_prompts,
		             o->sharegpt
		                 ? " (conversations of fewer than two turns, prompts under 4 or "
		                   "over 1,024 tokens and totals over 2,048 are left out)"
		                 : "");
	if (!rc)
		*out = ps;
	return rc;
}
