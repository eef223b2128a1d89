/* The rules over one recipe: mtp-chat-template, ep-hardcoded,
 * launch-args-per-line (docs/review.md). */
#include "review/private.h"

#include <string.h>

/* The first physical line of command c holding needle (c->line when none). */
static int line_of(const rv_script *s, const rv_cmd *c, const char *needle)
{
	for (int l = c->line; l <= c->end_line && l <= s->nlines; l++)
		if (strstr(s->lines[l - 1], needle))
			return l;
	return c->line;
}

static bool mentions_ep(const char *t)
{
	return strstr(t, "EP_SIZE") || strstr(t, "DP_ATTENTION") || strstr(t, "DP_ATTN") ||
	       strstr(t, "EXPERT_PARALLEL") || strstr(t, "$EP ") || strstr(t, "$EP\"") ||
	       strstr(t, "${EP}") || strstr(t, "$EP;") || strstr(t, "ENABLE_EP") ||
	       strstr(t, "$EP -") || strstr(t, "$EP]");
}

static int chat_template(rv_report *r, rv_script *s)
{
	bool spec = *s->spec || s->spec_content;
	if (!spec || s->client < 0)
		return 0;
	rv_checked(r, "mtp-chat-template");
	const rv_cmd *c = &s->cmds[s->client];
	/* benchmark_lib.sh's run_benchmark_serving takes --dsv4 as "--use-chat-template
	 * with the DeepSeek-V4 framing" */
	bool helper = !strncmp(c->norm, "run_benchmark_serving", 21);
	for (size_t i = 0; i < s->ncmds; i++)
		if (strstr(s->cmds[i].text, "--use-chat-template") ||
		    (helper && rv_has_token(s->cmds[i].text, "--dsv4")))
			return 0;
	const char *why = *s->spec ? "its name says spec decoding" : "it runs a draft model";
	char fn[64];
	snprintf(fn, sizeof fn, "%.*s", (int)strcspn(c->norm, " "), c->norm);
	return rv_add(r, "mtp-chat-template", s->path, c->line,
	              "add `--use-chat-template` to the benchmark client call, on its own line",
	              "speculative-decoding recipe (%s) does not pass --use-chat-template to the "
	              "benchmark client (%s at line %d): acceptance on raw random tokens is not "
	              "the acceptance of chat traffic",
	              why, fn, c->line);
}

static int ep_hardcoded(rv_report *r, rv_script *s)
{
	for (size_t i = 0; i < s->ncmds; i++) {
		const rv_cmd *c = &s->cmds[i];
		if (!strstr(c->text, "--enable-expert-parallel"))
			continue;
		rv_checked(r, "ep-hardcoded");
		if (mentions_ep(c->conds) || mentions_ep(c->text))
			continue;
		int l = line_of(s, c, "--enable-expert-parallel");
		if (rv_add(
		        r, "ep-hardcoded", s->path, l,
		        "enable it only when the config asks for it: `if [ \"$EP_SIZE\" -gt 1 ]; "
		        "then EP=\" --enable-expert-parallel\"; else EP=\" \"; fi` (or under "
		        "the DP_ATTENTION branch)",
		        "--enable-expert-parallel is hard-coded (not under an EP_SIZE or "
		        "DP_ATTENTION condition): every point of the sweep runs with expert "
		        "parallelism, whatever its ep value"))
			return IB_ENOMEM;
	}
	return 0;
}

static int launch_lines(rv_report *r, rv_script *s)
{
	if (s->launch < 0 || (s->fw != RV_FW_VLLM && s->fw != RV_FW_SGLANG))
		return 0;
	const rv_cmd *c = &s->cmds[s->launch];
	rv_checked(r, "launch-args-per-line");
	char quote = 0;
	int bad = 0, first = 0, worst = 0;
	for (int l = c->line; l <= c->end_line && l <= s->nlines; l++) {
		int k = rv_count_flags_line(s->lines[l - 1], &quote);
		if (k >= 2) {
			bad++;
			if (!first) {
				first = l;
				worst = k;
			}
		}
	}
	if (!bad)
		return 0;
	return rv_add(r, "launch-args-per-line", s->path, first,
	              "put each option of the server launch command on its own line, ending the "
	              "lines with ` \\`",
	              "the server launch command (%s) has %d options on line %d%s; the checklist "
	              "wants one option per line so that a diff shows which option changed",
	              s->fw == RV_FW_VLLM ? "vllm serve" : "sglang.launch_server", worst, first,
	              bad > 1 ? " (and other lines)" : "");
}

int rv_check_recipe(rv_report *r, rv_script *s)
{
	int rc = chat_template(r, s);
	if (!rc)
		rc = ep_hardcoded(r, s);
	if (!rc)
		rc = launch_lines(r, s);
	return rc;
}
