/* apply_chat_template and tokenizer_config.json: the chat template (a string
 * or a list of named templates) and the special tokens transformers passes
 * to the template. */
#include "chat/private.h"

#include <string.h>
#include <sys/stat.h>

int chat_apply(const chat_tmpl *t, const ib_val *messages, bool add_generation_prompt,
               const ib_val *extra, ib_buf *out, ib_error *e)
{
	ib_arena *a = ib_arena_new();
	if (!a)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	ib_val *vars = ib_v_map(a);
	int rc = vars ? 0 : IB_ENOMEM;
	ib_val *none = ib_v_null(a), *agp = ib_v_bool(a, add_generation_prompt);
	if (!none || !agp)
		rc = IB_ENOMEM;
	if (!rc)
		rc = ib_map_set(a, vars, "messages", (ib_val *)(messages ? messages : none));
	if (!rc)
		rc = ib_map_set(a, vars, "tools", none);
	if (!rc)
		rc = ib_map_set(a, vars, "documents", none);
	if (!rc)
		rc = ib_map_set(a, vars, "add_generation_prompt", agp);
	for (size_t i = 0; !rc && extra && extra->type == IB_V_MAP && i < extra->map.n; i++)
		rc = ib_map_set_key(a, vars, extra->map.kv[i].key, extra->map.kv[i].val);
	if (rc)
		rc = ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	else
		rc = chat_tmpl_render(t, vars, out, e);
	ib_arena_free(a);
	return rc;
}

static const char *const special_keys[] = {"bos_token", "eos_token", "unk_token", "sep_token",
                                           "pad_token", "cls_token", "mask_token"};

/* a token as transformers gives it to templates: a string, or the content of
 * an AddedToken object; NULL for null or anything else */
static const ib_val *token_text(const ib_val *v)
{
	if (!v)
		return NULL;
	if (v->type == IB_V_STR)
		return v;
	if (v->type == IB_V_MAP) {
		const ib_val *c = ib_map_get(v, "content");
		if (c && c->type == IB_V_STR)
			return c;
	}
	return NULL;
}

int chat_config_from_val(ib_arena *a, const ib_val *config, const char *name, const char *which,
                         chat_config *out, ib_error *e)
{
	memset(out, 0, sizeof *out);
	if (!name)
		name = "tokenizer_config.json";
	if (!config || config->type != IB_V_MAP)
		return ib_fail(e, IB_EINVAL, name, 0, 0,
		               "the tokenizer config is not a JSON object");
	const ib_val *ct = ib_map_get(config, "chat_template");
	const ib_val *src = NULL;
	const char *want = which ? which : "default";
	if (!ct || ct->type == IB_V_NULL)
		return ib_fail(e, IB_ENOENT, name, 0, 0,
		               "no chat_template in the tokenizer config");
	if (ct->type == IB_V_STR) {
		if (which && strcmp(which, "default"))
			return ib_fail(e, IB_ENOENT, name, 0, 0,
			               "no chat template named '%s' (the config has a single one)",
			               which);
		src = ct;
	} else if (ct->type == IB_V_LIST) {
		for (size_t i = 0; i < ct->list.n; i++) {
			const ib_val *it = ct->list.v[i];
			const ib_val *n = ib_map_get(it, "name"), *tx = ib_map_get(it, "template");
			if (!n || n->type != IB_V_STR || !tx || tx->type != IB_V_STR)
				return ib_fail(
				    e, IB_EINVAL, name, 0, 0,
				    "chat_template[%zu] is not a {\"name\", \"template\"} object",
				    i);
			if (!strcmp(n->str.s, want))
				src = tx;
		}
		if (!src)
			return ib_fail(e, IB_ENOENT, name, 0, 0, "no chat template named '%s'",
			               want);
	} else {
		return ib_fail(e, IB_EINVAL, name, 0, 0,
		               "chat_template must be a string or a list of named templates");
	}
	ib_val *special = ib_v_map(a);
	if (!special)
		return ib_fail(e, IB_ENOMEM, name, 0, 0, "out of memory");
	for (size_t i = 0; i < sizeof special_keys / sizeof special_keys[0]; i++) {
		const ib_val *t = token_text(ib_map_get(config, special_keys[i]));
		if (t && ib_map_set(a, special, special_keys[i], (ib_val *)t))
			return ib_fail(e, IB_ENOMEM, name, 0, 0, "out of memory");
	}
	const ib_val *add = ib_map_get(config, "additional_special_tokens");
	if (add && add->type == IB_V_LIST) {
		ib_val *l = ib_v_list(a);
		if (!l || ib_map_set(a, special, "additional_special_tokens", l))
			return ib_fail(e, IB_ENOMEM, name, 0, 0, "out of memory");
		for (size_t i = 0; i < add->list.n; i++) {
			const ib_val *t = token_text(add->list.v[i]);
			if (t && ib_list_push(a, l, (ib_val *)t))
				return ib_fail(e, IB_ENOMEM, name, 0, 0, "out of memory");
		}
	}
	char *tname =
	    ib_arena_printf(a, "%s:chat_template%s%s", name, which ? ":" : "", which ? which : "");
	if (!tname)
		return ib_fail(e, IB_ENOMEM, name, 0, 0, "out of memory");
	int rc = chat_tmpl_parse(src->str.s, src->str.len, tname, &out->tmpl, e);
	if (rc)
		return rc;
	out->special = special;
	out->tmpl_src = src->str.s;
	return 0;
}

int chat_config_load(ib_arena *a, const char *path, const char *which, chat_config *out,
                     ib_error *e)
{
	memset(out, 0, sizeof *out);
	struct stat st;
	const char *file = path;
	if (stat(path, &st) != 0)
		return ib_fail(e, IB_ENOENT, path, 0, 0,
		               "no such tokenizer folder or tokenizer_config.json file");
	if (S_ISDIR(st.st_mode)) {
		size_t n = strlen(path);
		file = ib_arena_printf(a, "%s%stokenizer_config.json", path,
		                       n && path[n - 1] == '/' ? "" : "/");
		if (!file)
			return ib_fail(e, IB_ENOMEM, path, 0, 0, "out of memory");
	}
	ib_val *config;
	int rc = ib_json_parse_file(a, file, &config, e);
	if (rc)
		return rc;
	return chat_config_from_val(a, config, file, which, out, e);
}

void chat_config_free(chat_config *c)
{
	if (c) {
		chat_tmpl_free(c->tmpl);
		c->tmpl = NULL;
	}
}
