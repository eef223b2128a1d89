#define _GNU_SOURCE /* memmem */
/* The random dataset of the reference client, bit for bit (D1–D12). */
#include "bench/bench.h"
#include "chat/chat.h"
#include "tok/tok.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* transformers' clean_up_tokenization: ten replacements, in this order,
 * each a left-to-right scan like Python's str.replace. Every one drops the
 * leading space, so the text only shrinks and is rewritten in place. The
 * reference form, for when cleanup cannot allocate its scratch. */
void bench_cleanup_slow(ib_buf *b, size_t from)
{
	static const char *const pairs[][2] = {
	    {" .", "."},     {" ?", "?"},   {" !", "!"},   {" ,", ","},     {" ' ", "'"},
	    {" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"},
	};
	for (size_t p = 0; p < 10; p++) {
		const char *f = pairs[p][0], *r = pairs[p][1];
		size_t fl = strlen(f), rl = strlen(r);
		char *d = b->data;
		char *hit = memmem(d + from, b->len - from, f, fl);
		if (!hit)
			continue;
		size_t w = (size_t)(hit - d), i = w; /* write and read positions, w <= i */
		while (hit) {
			size_t seg = (size_t)(hit - d) - i;
			memmove(d + w, d + i, seg);
			w += seg;
			memcpy(d + w, r, rl);
			w += rl;
			i += seg + fl;
			hit = memmem(d + i, b->len - i, f, fl);
		}
		memmove(d + w, d + i, b->len - i);
		b->len = w + (b->len - i);
		d[b->len] = '\0';
	}
}

/* The same in one scan and one compaction. Each replacement deletes spaces
 * (the leading one; " ' " also its last) and nothing else, so a match can
 * only start at a space whose first following non-space byte starts a
 * tail (. ? ! , ' n), even after earlier passes deleted spaces. Those
 * candidates are collected once; the ten passes run over them in order,
 * reading the text as the earlier passes left it (deleted bytes marked and
 * skipped) and resuming after each match as str.replace does; the marked
 * spaces go at the end. tests/unit/test_dataset.c checks it against
 * bench_cleanup_slow. */
void bench_cleanup(ib_buf *b, size_t from)
{
	static const char *const tails[10] = {".",   "?",  "!",  ",",   "' ",
	                                      "n't", "'m", "'s", "'ve", "'re"};
	char *d = b->data + from;
	size_t n = b->len - from, nc = 0, cap = 1024;
	if (n < 2)
		return;
	/* the bytes that start a tail */
	static const unsigned char tail_start[256] = {
	    ['.'] = 1, ['?'] = 1, ['!'] = 1, [','] = 1, ['\''] = 1, ['n'] = 1};
	size_t stack[1024], *cand = stack; /* in decreasing order */
	unsigned char *del = calloc(n, 1);
	bool ok = del != NULL;
	unsigned char next = 0;
	/* without branches on the bytes (spaces come every few bytes, at random):
	 * each position is stored, and kept when it is a candidate; blocks of
	 * 1024 bytes, with room for all of a block's positions first */
	for (size_t end = n; ok && end > 0;) {
		size_t start = end > 1024 ? end - 1024 : 0;
		if (cap - nc < end - start) {
			size_t *bigger = malloc(2 * cap * sizeof *bigger);
			if (!(ok = bigger != NULL))
				break;
			memcpy(bigger, cand, nc * sizeof *cand);
			if (cand != stack)
				free(cand);
			cand = bigger;
			cap *= 2;
		}
		for (size_t i = end; i-- > start;) {
			unsigned char c = (unsigned char)d[i];
			bool sp = c == ' ';
			cand[nc] = i;
			nc += sp & tail_start[next];
			next = sp ? next : c;
		}
		end = start;
	}
	if (!ok) {
		if (cand != stack)
			free(cand);
		free(del);
		bench_cleanup_slow(b, from);
		return;
	}
	size_t first = n;
	for (int p = 0; p < 10; p++) {
		const char *tail = tails[p];
		size_t resume = 0;
		for (size_t k = nc; k-- > 0;) {
			size_t s = cand[k], j = s + 1, last_sp = n;
			if (s < resume || del[s])
				continue;
			const char *c = tail;
			for (; *c; c++, j++) {
				while (j < n && del[j])
					j++;
				if (j >= n || d[j] != *c)
					break;
				if (*c == ' ')
					last_sp = j;
			}
			if (*c)
				continue;
			del[s] = 1;
			if (last_sp < n)
				del[last_sp] = 1;
			if (s < first)
				first = s;
			resume = j;
		}
	}
	if (first < n) { /* the deleted bytes are few: the runs between them move */
		size_t w = first, i = first;
		for (;;) {
			i++;
			const unsigned char *hit = memchr(del + i, 1, n - i);
			size_t stop = hit ? (size_t)(hit - del) : n;
			memmove(d + w, d + i, stop - i);
			w += stop - i;
			i = stop;
			if (!hit)
				break;
		}
		b->len = from + w;
		d[w] = '\0';
	}
	if (cand != stack)
		free(cand);
	free(del);
}

int bench_tokenizer_open(bench_tokenizer *t, const char *path, bool use_chat_template, bool dsv4,
                         ib_error *e)
{
	memset(t, 0, sizeof *t);
	t->dsv4 = dsv4;
	t->use_chat_template = use_chat_template;
	t->arena = ib_arena_new();
	if (!t->arena)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	/* a folder, a tokenizer.json, or a Hugging Face model id in the cache */
	char *found = NULL;
	int rc = tok_resolve(path, &found, e);
	if (rc)
		return rc;
	t->path = ib_arena_strdup(t->arena, found);
	free(found);
	if (!t->path)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	path = t->path;
	rc = tok_load(path, &t->tok, e);
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
		bench_cleanup(out, from);
	return rc;
}

int bench_apply_template(bench_tokenizer *t, const char *content, size_t len, ib_buf *out,
                         ib_error *e)
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

/* ---- the prompts, on all cores ----
 *
 * Each prompt is its own work (ramp, decode, correction loop, template,
 * final encode) except for the padding draws of the correction loop, which
 * come from one generator in prompt order (D6) or from one per chunk (D7).
 * Padding is rare, so the prompts are built in two passes: in parallel, every
 * prompt runs until it converges or first wants a draw; then, in prompt
 * order and with the generators exactly as the reference moves them, the
 * few that wait are finished. The result does not depend on the thread
 * count. */

typedef struct {
	tok_ids enc; /* waiting: the encode that is short of the target */
	int round;   /* waiting: the round of the correction loop */
	bool waiting;
	char *text; /* done: the final prompt (malloc) */
	size_t len;
	int64_t plen;
} gen_slot;

typedef struct gen_ctx gen_ctx;

typedef struct {
	gen_ctx *g;
	bench_tokenizer *t, own; /* t: the caller's (thread 0) or own */
	bool progress;           /* this thread draws the progress line */
	tok_ids ids, enc;
	ib_buf text, final;
	pthread_t tid;
	ib_error e;
	int rc;
} gen_worker;

struct gen_ctx {
	const bench_random_opts *o;
	int64_t V, prefix;
	const uint32_t *prefix_ids;
	const int64_t *in_lens, *offsets;
	gen_slot *slots;
	size_t n;
	atomic_size_t next, done;
	atomic_bool stop;
};

static int encode_len(bench_tokenizer *t, const char *s, size_t n, tok_ids *ids, ib_error *e)
{
	ids->n = 0;
	return tok_encode(t->tok, s ? s : "", n, false, ids, e);
}

/* encode_len of text that bench_decode wrote: tok_decode's output is valid
 * UTF-8 and the clean-up only deletes spaces, so the check is skipped. */
static int encode_decoded(bench_tokenizer *t, const ib_buf *text, tok_ids *ids, ib_error *e)
{
	ids->n = 0;
	return tok_encode_valid(t->tok, text->data ? text->data : "", text->len, false, ids, e);
}

static int oom(ib_error *e)
{
	return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
}

/* Prompt i (D8). Without rng it stops, and marks the slot waiting, at the
 * first draw it needs; with rng it resumes a waiting slot. */
static int gen_prompt(gen_worker *w, size_t i, ib_mt *rng, ib_error *e)
{
	gen_ctx *g = w->g;
	gen_slot *s = &g->slots[i];
	bench_tokenizer *t = w->t;
	int64_t target = g->prefix + g->in_lens[i];
	int round = 0, rc;
	bool have_enc = false;
	/* the encodes below repeat each other's pieces, not those of the
	 * worker's previous prompt */
	tok_encode_forget(t->tok);
	if (s->waiting) {
		tok_ids_free(&w->enc); /* the waiting encode becomes the worker's */
		w->enc = s->enc;
		s->enc = (tok_ids){0};
		s->waiting = false;
		round = s->round;
		have_enc = true;
	} else {
		/* D8.1–3: the prefix, then a ramp of consecutive ids */
		w->ids.n = 0;
		for (int64_t j = 0; j < g->prefix; j++)
			if (tok_ids_push(&w->ids, g->prefix_ids[j]))
				return oom(e);
		for (int64_t j = 0; j < g->in_lens[i]; j++)
			if (tok_ids_push(&w->ids,
			                 (uint32_t)((g->offsets[i] + (int64_t)i + j) % g->V)))
				return oom(e);
		w->text.len = 0;
		if ((rc = bench_decode(t, w->ids.v, w->ids.n, &w->text, e)))
			return rc;
	}
	/* D8.4: the correction loop */
	for (; round < 10; round++) {
		if (!have_enc && (rc = encode_decoded(t, &w->text, &w->enc, e)))
			return rc;
		have_enc = false;
		if ((int64_t)w->enc.n < target) {
			int64_t extra = target - (int64_t)w->enc.n;
			if (!rng) {
				s->enc = w->enc; /* kept as it is, the worker starts a new one */
				w->enc = (tok_ids){0};
				s->round = round;
				s->waiting = true;
				return 0;
			}
			for (int64_t j = 0; j < extra; j++)
				if (tok_ids_push(&w->enc, (uint32_t)ib_mt_randint(rng, 0, g->V)))
					return oom(e);
		} else if ((int64_t)w->enc.n > target) {
			w->enc.n = (size_t)target;
		} else {
			break;
		}
		w->text.len = 0;
		if ((rc = bench_decode(t, w->enc.v, w->enc.n, &w->text, e)))
			return rc;
	}
	/* D8.5–7: the template, and the length the server will see */
	w->final.len = 0;
	const char *body = w->text.data ? w->text.data : "";
	if (g->o->use_chat_template)
		rc = bench_apply_template(t, body, w->text.len, &w->final, e);
	else if (ib_buf_append(&w->final, body, w->text.len))
		rc = oom(e);
	if (rc || (rc = encode_len(t, w->final.data, w->final.len, &w->enc, e)))
		return rc;
	s->plen = (int64_t)w->enc.n;
	s->len = w->final.len;
	if (!(s->text = malloc(s->len + 1)))
		return oom(e);
	memcpy(s->text, w->final.data ? w->final.data : "", s->len);
	s->text[s->len] = '\0';
	return 0;
}

static void *gen_main(void *arg)
{
	gen_worker *w = arg;
	gen_ctx *g = w->g;
	while (!atomic_load(&g->stop)) {
		size_t i = atomic_fetch_add(&g->next, 1);
		if (i >= g->n)
			break;
		if ((w->rc = gen_prompt(w, i, NULL, &w->e))) {
			atomic_store(&g->stop, true);
			break;
		}
		size_t d = atomic_fetch_add(&g->done, 1) + 1;
		if (w->progress && (d % 16 == 0 || d == g->n)) {
			char line[80];
			snprintf(line, sizeof line, "  generating prompts %zu/%zu", d, g->n);
			g->o->progress(g->o->progress_arg, IB_LOG_PROGRESS, line);
		}
	}
	return NULL;
}

/* The two passes; every slot ends done, or an error. */
static int gen_all(gen_ctx *g, bench_tokenizer *t, ib_mt *local, int W, ib_error *e)
{
	long T = g->o->threads > 0 ? g->o->threads : sysconf(_SC_NPROCESSORS_ONLN);
	if (T < 1)
		T = 1;
	if ((size_t)T > g->n)
		T = g->n ? (long)g->n : 1;
	gen_worker *ws = calloc((size_t)T, sizeof *ws);
	if (!ws)
		return oom(e);
	int rc = 0;
	long started = 1;
	ws[0] = (gen_worker){.g = g, .t = t, .progress = g->o->progress != NULL};
	/* pass 1: every prompt up to its first draw, on T threads; the others
	 * load a tokenizer each (one is not shared between threads) */
	for (long k = 1; k < T && !rc; k++) {
		ws[k] = (gen_worker){.g = g};
		if ((rc = bench_tokenizer_open(&ws[k].own, t->path, t->use_chat_template, t->dsv4,
		                               e))) {
			bench_tokenizer_close(&ws[k].own); /* what the failed open left */
			break;
		}
		ws[k].t = &ws[k].own;
		if (pthread_create(&ws[k].tid, NULL, gen_main, &ws[k]))
			rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0,
			             "cannot start a prompt generation thread");
		else
			started++;
	}
	if (rc)
		atomic_store(&g->stop, true);
	gen_main(&ws[0]);
	for (long k = 1; k < started; k++)
		pthread_join(ws[k].tid, NULL);
	for (long k = 0; k < T && !rc; k++)
		if (ws[k].rc) {
			rc = ws[k].rc;
			*e = ws[k].e;
		}
	/* pass 2: the waiting ones, in order, with the reference's generators */
	size_t chunk = (g->n + (size_t)W - 1) / (size_t)W;
	ib_mt chunk_rng = *local;
	for (size_t i = 0; i < g->n && !rc; i++) {
		if (W > 1 && i % chunk == 0)
			ib_mt_seed(&chunk_rng, (uint32_t)ib_mt_randint(local, 0, 2147483648LL));
		if (g->slots[i].waiting)
			rc = gen_prompt(&ws[0], i, W > 1 ? &chunk_rng : local, e);
	}
	for (long k = 0; k < T; k++) {
		if (ws[k].t == &ws[k].own)
			bench_tokenizer_close(&ws[k].own);
		tok_ids_free(&ws[k].ids);
		tok_ids_free(&ws[k].enc);
		ib_buf_free(&ws[k].text);
		ib_buf_free(&ws[k].final);
	}
	free(ws);
	return rc;
}

/* ---- the prompt cache (--prompt-cache) ---- */

static const char cache_magic[8] = "IBPC1\n\0\0";

/* DIR/NAME's bytes (nothing when there is none: a tokenizer.json path has
 * no config beside it), then "|" */
static void sha_file(ib_sha256 *h, const char *dir, const char *name)
{
	ib_buf p = {0}, b = {0};
	ib_error e = {0};
	if (!ib_buf_printf(&p, "%s/%s", dir, name) && !ib_read_file(p.data, &b, &e))
		ib_sha256_update(h, b.data ? b.data : "", b.len);
	ib_sha256_update(h, "|", 1);
	ib_buf_free(&p);
	ib_buf_free(&b);
}

/* DIR/<sha256 of what the prompts depend on>.prompts, into path */
static void cache_path(const gen_ctx *gc, const bench_tokenizer *t, const ib_mt *local,
                       const int64_t *out_lens, int W, ib_buf *path)
{
	ib_sha256 h;
	char tj[65];
	ib_error ignore = {0};
	ib_sha256_init(&h);
	/* tokenizer.json by its digest, which the tokenizer cache keeps (no
	 * hashing of megabytes at every run) */
	if (tok_source_sha256(t->tok, tj, &ignore))
		snprintf(tj, sizeof tj, "unknown");
	ib_sha256_update(&h, tj, strlen(tj));
	ib_sha256_update(&h, "|", 1);
	sha_file(&h, t->path, "tokenizer_config.json");
	int64_t head[7] = {gc->V,   gc->prefix, (int64_t)gc->n, W, t->use_chat_template,
	                   t->dsv4, t->cleanup};
	ib_sha256_update(&h, head, sizeof head);
	ib_sha256_update(&h, local->mt, sizeof local->mt);
	ib_sha256_update(&h, gc->prefix_ids, (size_t)gc->prefix * sizeof *gc->prefix_ids);
	ib_sha256_update(&h, gc->in_lens, gc->n * sizeof *gc->in_lens);
	ib_sha256_update(&h, out_lens, gc->n * sizeof *out_lens);
	ib_sha256_update(&h, gc->offsets, gc->n * sizeof *gc->offsets);
	uint8_t d[32];
	ib_sha256_final(&h, d);
	ib_buf_printf(path, "%s/", gc->o->cache_dir);
	for (int i = 0; i < 32; i++)
		ib_buf_printf(path, "%02x", d[i]);
	ib_buf_puts(path, ".prompts");
}

/* Fills the slots from a cached set; false (slots untouched) on any mismatch. */
static bool cache_load(const char *path, gen_slot *slots, size_t n)
{
	ib_buf b = {0};
	ib_error e = {0};
	bool ok = !ib_read_file(path, &b, &e) && b.len >= 16 && !memcmp(b.data, cache_magic, 8);
	uint64_t cnt = 0;
	if (ok)
		memcpy(&cnt, b.data + 8, 8);
	ok = ok && cnt == n;
	size_t at = 16, i = 0;
	for (; ok && i < n; i++) {
		int64_t plen;
		uint64_t len;
		if (b.len - at < 16)
			break;
		memcpy(&plen, b.data + at, 8);
		memcpy(&len, b.data + at + 8, 8);
		at += 16;
		if (len > b.len - at || !(slots[i].text = malloc(len + 1)))
			break;
		memcpy(slots[i].text, b.data + at, len);
		slots[i].text[len] = 0;
		slots[i].len = len;
		slots[i].plen = plen;
		at += len;
	}
	ok = ok && i == n && at == b.len;
	if (!ok)
		for (size_t k = 0; k < n; k++) {
			free(slots[k].text);
			slots[k].text = NULL;
		}
	ib_buf_free(&b);
	return ok;
}

/* Writes the set (atomically; a failure only loses the cache entry). */
static void cache_store(const char *dir, const char *path, const gen_slot *slots, size_t n)
{
	ib_error e = {0};
	ib_atomic w = {0};
	if (ib_mkdirs(dir, 0777, &e) || ib_atomic_open(&w, path, &e))
		return;
	uint64_t cnt = n;
	bool ok = fwrite(cache_magic, 1, 8, w.f) == 8 && fwrite(&cnt, 8, 1, w.f) == 1;
	for (size_t i = 0; ok && i < n; i++) {
		uint64_t len = slots[i].len;
		ok = fwrite(&slots[i].plen, 8, 1, w.f) == 1 && fwrite(&len, 8, 1, w.f) == 1 &&
		     fwrite(slots[i].text, 1, len, w.f) == len;
	}
	if (!ok || ib_atomic_commit(&w, &e))
		ib_atomic_abort(&w);
}

int bench_random_dataset(ib_arena *a, bench_tokenizer *t, ib_mt *g, bench_random_opts *o,
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
	int64_t *in_lens = calloc(N + 1, sizeof *in_lens),
	        *out_lens = calloc(N + 1, sizeof *out_lens);
	int64_t *offsets = calloc(N + 1, sizeof *offsets);
	gen_slot *slots = calloc(N + 1, sizeof *slots);
	bench_prompt *ps = ib_arena_alloc(a, (N + 1) * sizeof *ps);
	tok_ids enc = {0};
	ib_buf text = {0};
	int rc = 0;
	if (!prefix_ids || !in_lens || !out_lens || !offsets || !slots || !ps) {
		rc = oom(e);
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
	}
	/* D5 */
	for (size_t i = 0; i < N; i++)
		in_lens[i] = ib_mt_randint(g, (int64_t)((double)L_in * r), L_in + 1);
	for (size_t i = 0; i < N; i++)
		out_lens[i] = ib_mt_randint(g, (int64_t)((double)L_out * r), L_out + 1);
	for (size_t i = 0; i < N; i++)
		offsets[i] = ib_mt_randint(g, 0, V);
	/* D6: the padding generator, seeded from the global state array;
	 * D7: chunks of the parallel path get their own generators */
	ib_mt local;
	ib_mt_seed_array(&local, g->mt, 4);
	gen_ctx gc = {.o = o,
	              .V = V,
	              .prefix = prefix,
	              .prefix_ids = prefix_ids,
	              .in_lens = in_lens,
	              .offsets = offsets,
	              .slots = slots,
	              .n = N};
	int W = o->num_workers > 1 ? o->num_workers : 1;
	ib_buf cpath = {0};
	o->cache_hit = false;
	if (o->cache_dir)
		cache_path(&gc, t, &local, out_lens, W, &cpath);
	if (cpath.data && cache_load(cpath.data, slots, N))
		o->cache_hit = true;
	else
		rc = gen_all(&gc, t, &local, W, e);
	if (!rc && cpath.data && !o->cache_hit)
		cache_store(o->cache_dir, cpath.data, slots, N);
	ib_buf_free(&cpath);
	if (o->progress)
		o->progress(o->progress_arg, IB_LOG_PROGRESS, NULL);
	if (rc)
		goto out;
	for (size_t i = 0; i < N; i++) {
		ps[i].text = ib_arena_strndup(a, slots[i].text, slots[i].len);
		ps[i].len = slots[i].len;
		ps[i].prompt_len = slots[i].plen;
		ps[i].output_len = out_lens[i];
		if (!ps[i].text) {
			rc = oom(e);
			goto out;
		}
	}
	/* D9: the statistics block, formatted as the reference prints it */
	{
		int64_t imin = 0, imax = 0, omin = 0, omax = 0;
		double isum = 0, osum = 0, msum = 0;
		for (size_t i = 0; i < N; i++) {
			int64_t pl = slots[i].plen;
			if (!i || pl < imin)
				imin = pl;
			if (!i || pl > imax)
				imax = pl;
			if (!i || out_lens[i] < omin)
				omin = out_lens[i];
			if (!i || out_lens[i] > omax)
				omax = out_lens[i];
			isum += (double)pl;
			osum += (double)out_lens[i];
			msum += (double)(pl - (prefix + in_lens[i]));
		}
		double nn = N ? (double)N : 1;
		ib_buf_printf(
		    stats,
		    "-------------------  Input/Output Length Statistics  -------------------\n");
		ib_buf_printf(stats,
		              " input_lens : min=%-4lld  max=%-4lld  mean=%-7.2f  "
		              "avg_token_mismatch=%-5.2f \n",
		              (long long)imin, (long long)imax, isum / nn, msum / nn);
		ib_buf_printf(stats, " output_lens: min=%-4lld  max=%-4lld  mean=%-7.2f \n",
		              (long long)omin, (long long)omax, osum / nn);
		ib_buf_printf(stats, "-------------------------------------------------------------"
		                     "----------- \n\n");
	}
	*out = ps;
out:
	for (size_t i = 0; slots && i < N; i++) {
		free(slots[i].text);
		tok_ids_free(&slots[i].enc);
	}
	free(slots);
	free(prefix_ids);
	free(in_lens);
	free(out_lens);
	free(offsets);
	tok_ids_free(&enc);
	ib_buf_free(&text);
	return rc;
}
