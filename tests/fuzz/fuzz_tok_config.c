/* tokenizer_config.json (tok/tok.c: read by tok_load beside tokenizer.json,
 * tok_config_token; chat/config.c: chat_config_load, the chat template and
 * the special tokens, then chat_apply on a short conversation). The input
 * is the tokenizer_config.json of a folder whose tokenizer.json is a fixed
 * small byte-level BPE. Checks: no crash; failures have messages; a special
 * token the tokenizer reports is a string; a loaded chat config has its
 * template and a map of special tokens, and a failed render leaves the
 * output as it was. */
#include "fuzz.h"

#include "chat/chat.h"
#include "tok/tok.h"

static const char *const files[] = {"tokenizer.json", "tokenizer_config.json", NULL};

static const char tokenizer[] =
    "{\"version\": \"1.0\", \"added_tokens\": [{\"id\": 3, \"content\": \"<s>\", \"special\": "
    "true, \"single_word\": false, \"lstrip\": false, \"rstrip\": false, \"normalized\": "
    "false}], \"normalizer\": null, \"pre_tokenizer\": {\"type\": \"ByteLevel\", "
    "\"add_prefix_space\": false, \"use_regex\": true}, \"post_processor\": {\"type\": "
    "\"ByteLevel\"}, \"decoder\": {\"type\": \"ByteLevel\"}, \"model\": {\"type\": \"BPE\", "
    "\"vocab\": {\"a\": 0, \"b\": 1, \"ab\": 2, \"\\u0120\": 4}, \"merges\": [\"a b\"], "
    "\"unk_token\": null}}";

static const char messages[] =
    "[{\"role\": \"system\", \"content\": \"Be brief.\"}, {\"role\": \"user\", \"content\": "
    "\"What is 6 x 7?\"}, {\"role\": \"assistant\", \"content\": \"42\"}, {\"role\": \"user\", "
    "\"content\": \"And 6 x 8?\"}]";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_tmpdir(files);
	char path[512];
	snprintf(path, sizeof path, "%s/tokenizer.json", dir);
	static bool wrote;
	if (!wrote) {
		/* the fixed tokenizer.json needs no cache (fuzz_tok_cache fuzzes it) */
		setenv("INFBENCH_TOK_CACHE", "off", 1);
		fuzz_write(path, tokenizer, sizeof tokenizer - 1);
		wrote = true;
	}
	snprintf(path, sizeof path, "%s/tokenizer_config.json", dir);
	fuzz_write(path, data, size);

	tok *t = NULL;
	ib_error e = {0};
	int rc = tok_load(dir, &t, &e);
	FUZZ_CHECK(rc <= 0, "tok_load rc %d", rc);
	if (rc) {
		FUZZ_CHECK(e.msg[0], "tok_load: error %d without a message", rc);
	} else {
		static const char *const names[] = {"bos_token", "eos_token", "pad_token",
		                                    "unk_token", "sep_token", "cls_token",
		                                    "mask_token"};
		for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
			const char *s = tok_config_token(t, names[i]);
			if (s)
				(void)strlen(s);
		}
		tok_free(t);
	}

	ib_arena *a = ib_arena_new();
	if (!a)
		abort();
	chat_config c = {0};
	rc = chat_config_load(a, dir, NULL, &c, &e);
	FUZZ_CHECK(rc <= 0, "chat_config_load rc %d", rc);
	if (rc) {
		FUZZ_CHECK(e.msg[0], "chat_config_load: error %d without a message", rc);
	} else {
		FUZZ_CHECK(c.tmpl && c.tmpl_src && c.special && c.special->type == IB_V_MAP,
		           "a loaded config without its template or special tokens");
		ib_val *msgs;
		FUZZ_CHECK(!ib_json_parse(a, "messages", messages, sizeof messages - 1, &msgs, &e),
		           "messages");
		ib_buf out = {0};
		FUZZ_CHECK(!ib_buf_puts(&out, "x"), "buf");
		if (chat_apply(c.tmpl, msgs, true, c.special, &out, &e))
			FUZZ_CHECK(out.len == 1 && e.msg[0], "a failed render changed the output");
		ib_buf_free(&out);
		chat_config_free(&c);
	}
	ib_arena_free(a);
	return 0;
}
