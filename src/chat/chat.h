/* chat — chat templates: a Jinja renderer that reproduces HuggingFace
 * transformers' apply_chat_template, and the built-in DeepSeek-V4 framing.
 *
 * The renderer behaves like Python jinja2 3.1 set up the way transformers sets
 * it up: ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True),
 * the loopcontrols extension, the {% generation %} tag of transformers'
 * AssistantTracker, `tojson` as json.dumps(ensure_ascii=False), and the
 * globals raise_exception(msg) and strftime_now(fmt). docs/chat-template.md
 * lists the supported Jinja subset and the known deviations.
 *
 * Values: templates see the caller's ib_val trees (fmt.h) converted into the
 * renderer's own value type (Python semantics: str, int, float, bool, None,
 * list, tuple, dict, plus Jinja's Undefined, namespace, loop and macros).
 * Nothing of the caller's trees is modified.
 *
 * Errors: syntax errors and render-time errors are IB_EPARSE / IB_EINVAL with
 * the template name as file and the line and column (1-based, in code points)
 * of the offending token or expression; raise_exception(msg) fails with msg as
 * the message. Out of memory is IB_ENOMEM; a render that would need more than
 * CHAT_MEM_LIMIT bytes fails with IB_ERANGE.
 */
#ifndef IB_CHAT_H
#define IB_CHAT_H

#include "base/base.h"
#include "fmt/fmt.h"

/* A render stops with IB_ERANGE once its working memory exceeds this. */
#define CHAT_MEM_LIMIT ((size_t)1 << 30)

/* ---- compiled templates ---- */

typedef struct chat_tmpl chat_tmpl;

/* Parses template source text (any bytes; UTF-8 expected) into *out. `name`
 * names the template in error messages (copied). Returns 0, IB_EPARSE with
 * name:line:col for syntax errors, IB_ENOMEM. The caller frees *out with
 * chat_tmpl_free. A compiled template is read-only and may be rendered any
 * number of times, also from several threads at once. */
int chat_tmpl_parse(const char *src, size_t len, const char *name, chat_tmpl **out, ib_error *e);
void chat_tmpl_free(chat_tmpl *t);

/* Renders t with the variables of map `vars` (NULL: none) appended to out.
 * On error out keeps what it held before the call (its length is restored). */
int chat_tmpl_render(const chat_tmpl *t, const ib_val *vars, ib_buf *out, ib_error *e);

/* ---- apply_chat_template ---- */

/* Renders the way transformers' apply_chat_template does: variables
 * messages, tools (None), documents (None), add_generation_prompt, then every
 * key of `extra` (a map, or NULL: special tokens such as bos_token, or
 * template kwargs; a key of extra replaces the ones before). */
int chat_apply(const chat_tmpl *t, const ib_val *messages, bool add_generation_prompt,
               const ib_val *extra, ib_buf *out, ib_error *e);

/* ---- tokenizer_config.json ---- */

typedef struct {
	chat_tmpl *tmpl;      /* the compiled chat_template */
	ib_val *special;      /* map: bos_token, eos_token, ... as strings */
	const char *tmpl_src; /* the template text (in the arena) */
} chat_config;

/* Reads the chat template and the special tokens from a parsed
 * tokenizer_config.json (`config`, a map). chat_template is a string, or a
 * list of {"name", "template"} objects of which "default" is taken (`which`
 * names another one; NULL means "default"). The special tokens are the
 * bos/eos/unk/sep/pad/cls/mask_token keys that are strings or AddedToken
 * objects (their "content"), and additional_special_tokens; null and missing
 * ones stay undefined. `name` names the source in messages. Values are built
 * in arena a; out->tmpl is owned by the caller (chat_config_free).
 * Errors: IB_ENOENT when there is no (such) chat template, IB_EINVAL for a
 * malformed one, IB_EPARSE for template syntax errors. */
int chat_config_from_val(ib_arena *a, const ib_val *config, const char *name, const char *which,
                         chat_config *out, ib_error *e);
/* Reads `path`: a tokenizer_config.json file, or a directory holding one. */
int chat_config_load(ib_arena *a, const char *path, const char *which, chat_config *out,
                     ib_error *e);
void chat_config_free(chat_config *c);

/* ---- the built-in DeepSeek-V4 framing ---- */

typedef struct {
	bool chat_mode;     /* thinking_mode "chat" instead of "thinking" (default) */
	bool keep_thinking; /* drop_thinking=False: keep every assistant reasoning */
	bool no_bos;        /* add_default_bos_token=False */
} chat_dsv4_opts;

/* Encodes messages (a list of {"role", "content", "reasoning_content"} maps)
 * the way the reference client's --dsv4 encoder does (encoding_dsv4.py,
 * thinking_mode "thinking", drop_thinking, BOS): for one user message the text
 * is <｜begin▁of▁sentence｜><｜User｜>{content}<｜Assistant｜><think>. Roles:
 * system, developer, user, assistant. Tools, tool calls, tool messages and
 * tasks are not supported (IB_EINVAL). opts may be NULL. Appends to out. */
int chat_dsv4_apply(const ib_val *messages, const chat_dsv4_opts *opts, ib_buf *out, ib_error *e);

#endif
