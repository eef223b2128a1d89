/* The random dataset of the reference client, bit for bit (D1–D12). */
#include "bench/bench.h"
#include "chat/chat.h"
#include "tok/tok.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* transformers' clean_up_tokenization: ten replacements, in this order */
static void cleanup(ib_buf *b, size_t from)
{
	static const char *const pairs[][2] = {
		{" .", "."},	   {" ?", "?"},	    {" !", "!"},     {" ,", ","},     {" ' ", "'"},
		{" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"},
	};
	for (size_t p = 0; p < 10; p++) {
		const char *f = pairs[p][0], *r = pairs[p][1];
		size_t fl = strlen(f), rl = strlen(r);
		size_t w = from;
		for (size_t i = from; i < b->len;) {
			if (b->len - i >= fl && !memcmp(b->data + i, f, fl)) {
				memmove(b->data + w, r, rl);
				w += rl;
				i += fl;
			} else {
				b->data[w++] = b->data[i++];
			}
		}
		b->len = w;
		b->data[w] = '\0';
	}
}

int bench_tokenizer_open(bench_tokenizer *t, const char *path, bool use_chat_template, bool dsv4,
			 ib_error *e)
{
	memset(t, 0, sizeof *t);
	t->dsv4 = dsv4;
	t->arena = ib_arena_new();
	if (!t->arena)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	int rc = tok_load(path, &t->tok, e);
	if (rc)
		return rc;
	/* transformers 4.x applies clean_up_tokenization when the config says so */
	char cfg[4096];
	snprintf(cfg, sizeof cfg, "%s/tokenizer_config.json", path);
	ib_val *v = NULL;
	ib_error ignore = {0};
	if (ib_json_parse_file(t->arena, cfg, &v, &ignore) == 0)
		t->cleanup = ib_val_truthy(ib_map_get(v, "clean_up_tokenization_spaces"));
	if (use_chat_template && !dsv4) {
		chat_config cc = {0};
		if ((rc = chat_config_load(t->arena, path, NULL, &cc, e)))
			return rc;
		t->tmpl = cc.tmpl;
		t->special = cc.special;
	}
	return 0;
}

void bench_tokenizer_close(bench_tokenizer *t)
{
	tok_free(t->tok);
	chat_tmpl_free(t->tmpl);
	ib_arena_free(t->arena);
	memset(t, 0, sizeof *t);
}

int bench_decode(bench_tokenizer *t, const uint32_t *ids, size_t n, ib_buf *out, ib_error *e)
{
	size_t from = out->len;
	int rc = tok_decode(t->tok, ids, n, false, out, e);
	if (!rc && t->cleanup && out->len > from)
		cleanup(out, from);
	return rc;
}

int bench_apply_template(bench_tokenizer *t, const char *content, size_t len, ib_buf *out, ib_error *e)
{
	ib_arena *a = ib_arena_new();
	ib_val *msgs = ib_v_list(a), *m = ib_v_map(a);
	int rc = (!a || !msgs || !m) ? IB_ENOMEM : 0;
	if (!rc)
		rc = ib_map_set(a, m, "role", ib_v_str(a, "user"));
	if (!rc)
		rc = ib_map_set(a, m, "content", ib_v_strn(a, content, len));
	if (!rc)
		rc = ib_list_push(a, msgs, m);
	if (rc) {
		ib_arena_free(a);
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	}
	if (t->dsv4)
		rc = chat_dsv4_apply(msgs, NULL, out, e);
	else
		rc = chat_apply(t->tmpl, msgs, true, t->special, out, e);
	ib_arena_free(a);
	return rc;
}

static int encode_len(bench_tokenizer *t, const char *s, size_t n, tok_ids *ids, ib_error *e)
{
	ids->n = 0;
	return tok_encode(t->tok, s, n, false, ids, e);
}

static int push_id(tok_ids *ids, uint32_t id)
{
	if (ids->n == ids->cap) {
		size_t nc = ids->cap ? ids->cap * 2 : 1024;
		uint32_t *p = realloc(ids->v, nc * sizeof *p);
		if (!p)
			return IB_ENOMEM;
		ids->v = p;
		ids->cap = nc;
	}
	ids->v[ids->n++] = id;
	return 0;
}

int bench_random_dataset(ib_arena *a, bench_tokenizer *t, ib_mt *g, const bench_random_opts *o,
			 bench_prompt **out, ib_buf *stats, ib_error *e)
{
	size_t N = o->num_prompts;
	int64_t V = (int64_t)tok_vocab_size(t->tok, false);
	int64_t L_in = o->input_len, L_out = o->output_len, prefix = o->prefix_len;
	double r = o->range_ratio;
	if (V <= 0)
		return ib_fail(e, IB_EINVAL, NULL, 0, 0, "the tokenizer has an empty vocabulary");
	/* D2: the shared prefix */
	uint32_t *prefix_ids = calloc((size_t)prefix + 1, sizeof *prefix_ids);
	int64_t *in_lens = calloc(N + 1, sizeof *in_lens), *out_lens = calloc(N + 1, sizeof *out_lens);
	int64_t *offsets = calloc(N + 1, sizeof *offsets), *plen = calloc(N + 1, sizeof *plen);
	int64_t *mismatch = calloc(N + 1, sizeof *mismatch);
	bench_prompt *ps = ib_arena_alloc(a, (N + 1) * sizeof *ps);
	tok_ids ids = {0}, enc = {0};
	ib_buf text = {0}, final = {0};
	int rc = 0;
	if (!prefix_ids || !in_lens || !out_lens || !offsets || !plen || !mismatch || !ps) {
		rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
		goto out;
	}
	for (int64_t i = 0; i < prefix; i++)
		prefix_ids[i] = (uint32_t)ib_mt_randint(g, 0, V);
	/* D4: the template's own tokens shrink the budget */
	if (o->use_chat_template) {
		if ((rc = bench_apply_template(t, "a", 1, &text, e)) ||
		    (rc = encode_len(t, text.data, text.len, &enc, e)))
			goto out;
		L_in -= (int64_t)enc.n - 1;
		text.len = 0;
	}
	/* D5 */
	for (size_t i = 0; i < N; i++)
		in_lens[i] = ib_mt_randint(g, (int64_t)((double)L_in * r), L_in + 1);
	for (size_t i = 0; i < N; i++)
		out_lens[i] = ib_mt_randint(g, (int64_t)((double)L_out * r), L_out + 1);
	for (size_t i = 0; i < N; i++)
		offsets[i] = ib_mt_randint(g, 0, V);
	/* D6: the padding generator, seeded from the global state array */
	ib_mt local;
	ib_mt_seed_array(&local, g->mt, 4);
	/* D7: chunks of the parallel path get their own generators */
	int W = o->num_workers > 1 ? o->num_workers : 1;
	size_t chunk = (N + (size_t)W - 1) / (size_t)W;
	ib_mt chunk_rng = local;
	for (size_t i = 0; i < N; i++) {
		if (W > 1 && i % chunk == 0)
			ib_mt_seed(&chunk_rng, (uint32_t)ib_mt_randint(&local, 0, 2147483648LL));
		ib_mt *rng = W > 1 ? &chunk_rng : &local;
		if (o->progress && (i % 16 == 0 || i + 1 == N))
			fprintf(stderr, "\r  generating prompts %zu/%zu", i + 1, N);
		/* D8.1–3: a ramp of consecutive ids */
		int64_t target = prefix + in_lens[i];
		ids.n = 0;
		for (int64_t j = 0; j < prefix; j++)
			push_id(&ids, prefix_ids[j]);
		for (int64_t j = 0; j < in_lens[i]; j++)
			if (push_id(&ids, (uint32_t)((offsets[i] + (int64_t)i + j) % V))) {
				rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
				goto out;
			}
		text.len = 0;
		if ((rc = bench_decode(t, ids.v, ids.n, &text, e)))
			goto out;
		/* D8.4: the correction loop */
		for (int round = 0; round < 10; round++) {
			if ((rc = encode_len(t, text.data ? text.data : "", text.len, &enc, e)))
				goto out;
			if ((int64_t)enc.n < target) {
				int64_t extra = target - (int64_t)enc.n;
				for (int64_t j = 0; j < extra; j++)
					push_id(&enc, (uint32_t)ib_mt_randint(rng, 0, V));
			} else if ((int64_t)enc.n > target) {
				enc.n = (size_t)target;
			} else {
				break;
			}
			text.len = 0;
			if ((rc = bench_decode(t, enc.v, enc.n, &text, e)))
				goto out;
		}
		/* D8.5–7 */
		final.len = 0;
		if (o->use_chat_template) {
			if ((rc = bench_apply_template(t, text.data ? text.data : "", text.len, &final, e)))
				goto out;
		} else {
			ib_buf_append(&final, text.data ? text.data : "", text.len);
		}
		if ((rc = encode_len(t, final.data ? final.data : "", final.len, &enc, e)))
			goto out;
		plen[i] = (int64_t)enc.n;
		mismatch[i] = plen[i] - target;
		ps[i].text = ib_arena_strndup(a, final.data ? final.data : "", final.len);
		ps[i].len = final.len;
		ps[i].prompt_len = plen[i];
		ps[i].output_len = out_lens[i];
		if (!ps[i].text) {
			rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
			goto out;
		}
	}
	if (o->progress)
		fprintf(stderr, "\r%*s\r", 40, "");
	/* D9: the statistics block, formatted as the reference prints it */
	{
		int64_t imin = 0, imax = 0, omin = 0, omax = 0;
		double isum = 0, osum = 0, msum = 0;
		for (size_t i = 0; i < N; i++) {
			if (!i || plen[i] < imin)
				imin = plen[i];
			if (!i || plen[i] > imax)
				imax = plen[i];
			if (!i || out_lens[i] < omin)
				omin = out_lens[i];
			if (!i || out_lens[i] > omax)
				omax = out_lens[i];
			isum += (double)plen[i];
			osum += (double)out_lens[i];
			msum += (double)mismatch[i];
		}
		double nn = N ? (double)N : 1;
		ib_buf_printf(stats, "-------------------  Input/Output Length Statistics  -------------------\n");
		ib_buf_printf(stats, " input_lens : min=%-4lld  max=%-4lld  mean=%-7.2f  avg_token_mismatch=%-5.2f \n",
			      (long long)imin, (long long)imax, isum / nn, msum / nn);
		ib_buf_printf(stats, " output_lens: min=%-4lld  max=%-4lld  mean=%-7.2f \n", (long long)omin,
			      (long long)omax, osum / nn);
		ib_buf_printf(stats, "------------------------------------------------------------------------ \n\n");
	}
	*out = ps;
out:
	free(prefix_ids);
	free(in_lens);
	free(out_lens);
	free(offsets);
	free(plen);
	free(mismatch);
	tok_ids_free(&ids);
	tok_ids_free(&enc);
	ib_buf_free(&text);
	ib_buf_free(&final);
	return rc;
}
