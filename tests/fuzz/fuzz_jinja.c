/* The chat-template engine (chat/: lexer, parser, renderer, filters) on any
 * template text, rendered the way apply_chat_template does with a small
 * conversation. Checks: no crash, no hang, bounded memory (the renderer's
 * own limits must hold, see chat.h); a failed render leaves the output as it
 * was; a template renders the same way twice. */
#include "fuzz.h"

#include "chat/chat.h"

static ib_arena *arena;
static ib_val *messages, *extra;

static ib_val *msg(const char *role, const char *content)
{
	ib_val *m = ib_v_map(arena);
	ib_map_set(arena, m, "role", ib_v_str(arena, role));
	ib_map_set(arena, m, "content", ib_v_str(arena, content));
	return m;
}

static void init(void)
{
	arena = ib_arena_new();
	messages = ib_v_list(arena);
	ib_list_push(arena, messages, msg("system", "You are terse."));
	ib_list_push(arena, messages, msg("user", "What is 2+2? \xC3\xA9\xE4\xB8\xAD"));
	ib_list_push(arena, messages, msg("assistant", "4"));
	ib_list_push(arena, messages, msg("user", "And <b>3+3</b>?\n"));
	extra = ib_v_map(arena);
	ib_map_set(arena, extra, "bos_token", ib_v_str(arena, "<s>"));
	ib_map_set(arena, extra, "eos_token", ib_v_str(arena, "</s>"));
	ib_map_set(arena, extra, "n", ib_v_int(arena, 3));
	ib_map_set(arena, extra, "x", ib_v_float(arena, 2.5));
	if (!arena || !messages || !extra)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!arena)
		init();
	chat_tmpl *t = NULL;
	ib_error e = {0};
	int rc = chat_tmpl_parse((const char *)data, size, "fuzz.jinja", &t, &e);
	FUZZ_CHECK(rc <= 0, "rc %d", rc);
	if (rc) {
		FUZZ_CHECK(!t && e.msg[0], "parse failure %d without a message", rc);
		return 0;
	}
	ib_buf out = {0}, again = {0};
	ib_buf_puts(&out, "keep");
	ib_buf_puts(&again, "keep");
	rc = chat_apply(t, messages, true, extra, &out, &e);
	if (rc) {
		FUZZ_CHECK(out.len == 4 && !memcmp(out.data, "keep", 4),
		           "failed render left output");
	} else {
		ib_error e2 = {0};
		int rc2 = chat_apply(t, messages, true, extra, &again, &e2);
		/* strftime_now may tick between the two renders: only the verdict */
		FUZZ_CHECK(rc2 == 0, "second render failed: %s", e2.msg);
	}
	ib_buf_free(&out);
	ib_buf_free(&again);
	chat_tmpl_free(t);
	return 0;
}
