/* The Weka trace parser of AgentX (agentx/trace.c: ax_parse, and
 * ax_trace_write). Checks: no crash; an error has a line within the input
 * (JSONL) and a message; every parsed trace has an id, a positive block
 * size and entries whose hash-id counts and subagent requests are in
 * bounds; writing the parsed corpus and parsing it again gives the same
 * traces, and writing those gives the same bytes. */
#include "fuzz.h"

#include "agentx/agentx.h"

static void write_all(const ax_corpus *c, ib_buf *b)
{
	for (size_t i = 0; i < c->n; i++)
		if (ax_trace_write(b, &c->t[i]) || ib_buf_putc(b, '\n'))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ib_arena *a = ib_arena_new();
	if (!a)
		abort();
	ax_corpus c = {0};
	ib_error e = {0};
	int lines = 1;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	int rc = ax_parse(a, "fuzz.jsonl", (const char *)data, size, &c, &e);
	if (rc) {
		FUZZ_CHECK(rc == IB_EPARSE || rc == IB_EINVAL, "rc %d", rc);
		FUZZ_CHECK(e.msg[0], "an error without a message");
		FUZZ_CHECK(e.line >= 0 && e.line <= lines, "line %d of %d", e.line, lines);
	}
	for (size_t i = 0; i < c.n; i++) {
		const ax_trace *t = &c.t[i];
		FUZZ_CHECK(t->id && t->block_size > 0 && t->n > 0, "trace %zu", i);
		for (size_t k = 0; k < t->n; k++) {
			const ax_entry *en = &t->entries[k];
			if (!en->is_subagent) {
				FUZZ_CHECK(en->r.type == 'n' || en->r.type == 's', "type %c", en->r.type);
				FUZZ_CHECK(en->r.in >= 0 && en->r.out >= 0 && (en->r.nhash == 0 || en->r.hash_ids),
				           "request %zu", k);
			} else
				FUZZ_CHECK(en->s.agent_id && (en->s.nreq == 0 || en->s.req), "subagent %zu", k);
		}
	}
	if (!rc && c.n) {
		ib_buf w1 = {0}, w2 = {0};
		write_all(&c, &w1);
		ax_corpus c2 = {0};
		rc = ax_parse(a, "again.jsonl", w1.data, w1.len, &c2, &e);
		FUZZ_CHECK(rc == 0, "the written corpus does not parse: %s", e.msg);
		FUZZ_CHECK(c2.n == c.n, "%zu traces, then %zu", c.n, c2.n);
		write_all(&c2, &w2);
		ax_corpus c3 = {0};
		ib_buf w3 = {0};
		FUZZ_CHECK(ax_parse(a, "third.jsonl", w2.data, w2.len, &c3, &e) == 0, "%s", e.msg);
		write_all(&c3, &w3);
		FUZZ_CHECK(w2.len == w3.len && !memcmp(w2.data, w3.data, w2.len),
		           "writing is not stable");
		ib_buf_free(&w1);
		ib_buf_free(&w2);
		ib_buf_free(&w3);
	}
	ib_arena_free(a);
	return 0;
}
