/* The rule table, the report's findings and its three formats. */
#include "fmt/fmt.h"
#include "review/private.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const rv_rule rules[] = {
    {"mtp-chat-template", RV_BLOCKING, false,
     "speculative-decoding (MTP / EAGLE) recipes pass --use-chat-template to the client",
     "add `--use-chat-template` to the benchmark client call"},
    {"ep-hardcoded", RV_WARNING, false,
     "--enable-expert-parallel only under an EP_SIZE / DP_ATTENTION condition",
     "enable expert parallelism under `if [ \"$EP_SIZE\" -gt 1 ]`"},
    {"launch-args-per-line", RV_WARNING, false,
     "server launch options (vllm serve, sglang.launch_server) one per line",
     "put each option on its own continuation line"},
    {"sister-guard", RV_BLOCKING, false,
     "commands the sister recipes all run under an if-guard are guarded here too",
     "run the command under the sisters' guard"},
    {"sister-export", RV_WARNING, false, "environment exports all sister recipes share are present",
     "add the sisters' export or explain why not"},
    {"sister-flag", RV_WARNING, false,
     "launch / client options all sister recipes pass are present",
     "pass the sisters' option or explain why not"},
    {"changelog-missing", RV_BLOCKING, true,
     "perf-changelog.yaml is updated when master configs change",
     "add an entry to the end of perf-changelog.yaml"},
    {"changelog-append-end", RV_BLOCKING, true,
     "new perf-changelog.yaml entries are appended at the end, nothing else edited",
     "move the new entries to the end of the file and restore the old ones"},
    {"append-only-mixed", RV_BLOCKING, true,
     "append-only entries are not mixed with regular ones and carry no eval modifiers",
     "make every new entry append-only (or none), drop evals-only / all-evals / "
     "eval-min-prefill-ep"},
    {"append-only-review", RV_WARNING, true,
     "an append-only change touches only what the appended points use (human check)",
     "confirm each changed file only affects the appended points"},
    {"yaml-invalid", RV_BLOCKING, false,
     "every reviewed YAML file parses (a master config is a mapping)",
     "fix the YAML syntax at the line shown (infbench validate checks the rest)"},
    {"config-key-name", RV_BLOCKING, false,
     "config keys read {model-prefix}-{precision}-{runner}-{framework}...",
     "rename the key after its fields"},
    {"model-prefix", RV_BLOCKING, false,
     "the model prefix is the one the model's other entries use",
     "use the model's existing model-prefix"},
    {"model-prefix-new", RV_WARNING, true, "a model prefix new to main is flagged for a human",
     "check the frontend knows the prefix"},
    {"config-recipe-missing", RV_BLOCKING, false,
     "every single-node config entry has its recipe script",
     "add the recipe under benchmarks/single_node/"},
    {"recipe-config-missing", RV_WARNING, false,
     "every single-node recipe is reached by a config entry",
     "add the config entry, or rename the recipe"},
    {"image-public", RV_BLOCKING, false, "images are public (no local path, no .sqsh)",
     "use a public registry image"},
    {"image-match", RV_WARNING, true,
     "a new image equals an on-main entry's of the same model / GPU / framework",
     "check the image by hand (no network here)"},
};
#define NRULES (sizeof rules / sizeof rules[0])
_Static_assert(NRULES <= 32, "rv_report.checked has room for 32 rules");

const rv_rule *rv_rules(size_t *n)
{
	*n = NRULES;
	return rules;
}

int rv_rule_index(const char *id)
{
	for (size_t i = 0; i < NRULES; i++)
		if (!strcmp(rules[i].id, id))
			return (int)i;
	return -1;
}

void rv_checked(rv_report *r, const char *rule)
{
	int i = rv_rule_index(rule);
	if (i >= 0)
		r->checked[i]++;
}

int rv_add(rv_report *r, const char *rule, const char *file, int line, const char *fix,
           const char *fmt, ...)
{
	int ri = rv_rule_index(rule);
	if (ri < 0)
		return IB_EINVAL;
	ib_diag g = {.severity = rules[ri].severity,
	             .file = file,
	             .line = line,
	             .rule = rules[ri].id,
	             .fix = fix ? fix : rules[ri].fix};
	va_list ap;
	va_start(ap, fmt);
	int rc = ib_diag_addv(&r->findings, &g, fmt, ap);
	va_end(ap);
	return rc;
}

int rv_file_add(rv_report *r, const char *path)
{
	if (ib_grow(&r->files, &r->files_cap, r->nfiles + 1))
		return IB_ENOMEM;
	r->files[r->nfiles] = ib_arena_strdup(r->a, path);
	if (!r->files[r->nfiles])
		return IB_ENOMEM;
	r->nfiles++;
	return 0;
}

void rv_report_free(rv_report *r)
{
	free(r->files);
	r->files = NULL;
	r->nfiles = r->files_cap = 0;
	r->findings = (ib_diags){.a = r->findings.a};
}

static size_t rule_findings(const rv_report *r, const char *id)
{
	size_t n = 0;
	for (size_t i = 0; i < r->findings.n; i++)
		n += !strcmp(r->findings.items[i].rule, id);
	return n;
}

static void where(ib_buf *o, const char *file, int line)
{
	if (file && line)
		ib_buf_printf(o, "%s:%d", file, line);
	else if (file)
		ib_buf_puts(o, file);
	else
		ib_buf_puts(o, "(the change)");
}

int rv_format_text(const rv_report *r, ib_buf *o)
{
	size_t nb = ib_diags_count(&r->findings, RV_BLOCKING),
	       nw = ib_diags_count(&r->findings, RV_WARNING);
	if (!strcmp(r->mode, "change"))
		ib_buf_printf(o, "infbench review: change %.12s..%.12s, %zu file%s\n\n", r->base,
		              r->head, r->nfiles, r->nfiles == 1 ? "" : "s");
	else
		ib_buf_printf(o, "infbench review: %zu file%s\n\n", r->nfiles,
		              r->nfiles == 1 ? "" : "s");
	for (size_t i = 0; i < NRULES; i++) {
		size_t k = rule_findings(r, rules[i].id);
		const char *mark = k ? (rules[i].severity == RV_BLOCKING ? "🔴" : "🟡")
		                   : r->checked[i] ? "✅"
		                                   : "➖";
		ib_buf_printf(o, "%s %s: %s", mark, rules[i].id, rules[i].title);
		if (k)
			ib_buf_printf(o, " (%zu finding%s)\n", k, k == 1 ? "" : "s");
		else if (r->checked[i])
			ib_buf_printf(o, " (%zu checked)\n", r->checked[i]);
		else
			ib_buf_printf(o, " (%s)\n",
			              rules[i].change_only && strcmp(r->mode, "change")
			                  ? "needs --base"
			                  : "nothing to check");
	}
	for (size_t i = 0; i < r->findings.n; i++) {
		const ib_diag *f = &r->findings.items[i];
		ib_buf_printf(o, "\n%s **%s** %s ", f->severity == RV_BLOCKING ? "🔴" : "🟡",
		              f->severity == RV_BLOCKING ? "BLOCKING" : "WARNING", f->rule);
		where(o, f->file, f->line);
		ib_buf_printf(o, "\n   %s\n", f->msg);
		for (size_t q = 0; q < f->nquotes; q++) {
			ib_buf_puts(o, "     ");
			where(o, f->quotes[q].file, f->quotes[q].line);
			ib_buf_printf(o, ": %s\n", f->quotes[q].text);
		}
		ib_buf_printf(o, "   Fix: %s\n", f->fix);
	}
	if (!r->findings.n)
		ib_buf_puts(o, "\nLGTM - no blocking issues found\n");
	else
		ib_buf_printf(o, "\n%zu blocking, %zu warning%s\n", nb, nw, nw == 1 ? "" : "s");
	return o->data ? 0 : IB_ENOMEM;
}

static ib_val *sv(ib_arena *a, const char *s)
{
	return s ? ib_v_str(a, s) : ib_v_null(a);
}

#define SET(m, k, v)                                                                               \
	do {                                                                                       \
		ib_val *v_ = (v);                                                                  \
		if (!v_ || ib_map_set(a, (m), (k), v_))                                            \
			return IB_ENOMEM;                                                          \
	} while (0)

int rv_format_json(const rv_report *r, ib_buf *o)
{
	ib_arena *a = r->a;
	ib_val *doc = ib_v_map(a), *rl = ib_v_list(a), *fl = ib_v_list(a), *files = ib_v_list(a);
	if (!doc || !rl || !fl || !files)
		return IB_ENOMEM;
	SET(doc, "mode", sv(a, r->mode));
	SET(doc, "base", sv(a, r->base));
	SET(doc, "head", sv(a, r->head));
	for (size_t i = 0; i < r->nfiles; i++)
		if (ib_list_push(a, files, ib_v_str(a, r->files[i])))
			return IB_ENOMEM;
	SET(doc, "files", files);
	for (size_t i = 0; i < NRULES; i++) {
		ib_val *m = ib_v_map(a);
		if (!m)
			return IB_ENOMEM;
		size_t k = rule_findings(r, rules[i].id);
		SET(m, "id", sv(a, rules[i].id));
		SET(m, "severity",
		    sv(a, rules[i].severity == RV_BLOCKING ? "blocking" : "warning"));
		SET(m, "checked", ib_v_int(a, (int64_t)r->checked[i]));
		SET(m, "findings", ib_v_int(a, (int64_t)k));
		SET(m, "status",
		    sv(a, k ? (rules[i].severity == RV_BLOCKING ? "blocking" : "warning")
		          : r->checked[i] ? "pass"
		                          : "not-applicable"));
		if (ib_list_push(a, rl, m))
			return IB_ENOMEM;
	}
	SET(doc, "rules", rl);
	for (size_t i = 0; i < r->findings.n; i++) {
		const ib_diag *f = &r->findings.items[i];
		ib_val *m = ib_v_map(a), *ql = ib_v_list(a);
		if (!m || !ql)
			return IB_ENOMEM;
		SET(m, "rule", sv(a, f->rule));
		SET(m, "severity", sv(a, f->severity == RV_BLOCKING ? "blocking" : "warning"));
		SET(m, "file", sv(a, f->file));
		SET(m, "line", ib_v_int(a, f->line));
		SET(m, "message", sv(a, f->msg));
		SET(m, "fix", sv(a, f->fix));
		for (size_t q = 0; q < f->nquotes; q++) {
			ib_val *qm = ib_v_map(a);
			if (!qm)
				return IB_ENOMEM;
			SET(qm, "file", sv(a, f->quotes[q].file));
			SET(qm, "line", ib_v_int(a, f->quotes[q].line));
			SET(qm, "text", sv(a, f->quotes[q].text));
			if (ib_list_push(a, ql, qm))
				return IB_ENOMEM;
		}
		SET(m, "quotes", ql);
		if (ib_list_push(a, fl, m))
			return IB_ENOMEM;
	}
	SET(doc, "findings", fl);
	SET(doc, "blocking", ib_v_int(a, (int64_t)ib_diags_count(&r->findings, RV_BLOCKING)));
	SET(doc, "warnings", ib_v_int(a, (int64_t)ib_diags_count(&r->findings, RV_WARNING)));
	ib_json_opts jo = {.indent = 2, .ensure_ascii = false};
	ib_error e = {0};
	if (ib_json_write(o, doc, &jo, &e))
		return IB_ENOMEM;
	return ib_buf_putc(o, '\n');
}

/* GitHub workflow commands: data escapes %, CR, LF; properties also : and , */
static void gh_escape(ib_buf *o, const char *s, bool prop)
{
	for (; *s; s++) {
		if (*s == '%')
			ib_buf_puts(o, "%25");
		else if (*s == '\r')
			ib_buf_puts(o, "%0D");
		else if (*s == '\n')
			ib_buf_puts(o, "%0A");
		else if (prop && *s == ':')
			ib_buf_puts(o, "%3A");
		else if (prop && *s == ',')
			ib_buf_puts(o, "%2C");
		else
			ib_buf_putc(o, *s);
	}
}

int rv_format_github(const rv_report *r, ib_buf *o)
{
	for (size_t i = 0; i < r->findings.n; i++) {
		const ib_diag *f = &r->findings.items[i];
		ib_buf_puts(o, f->severity == RV_BLOCKING ? "::error " : "::warning ");
		if (f->file) {
			ib_buf_puts(o, "file=");
			gh_escape(o, f->file, true);
			if (f->line)
				ib_buf_printf(o, ",line=%d", f->line);
			ib_buf_puts(o, ",");
		}
		ib_buf_puts(o, "title=");
		gh_escape(o, f->rule, true);
		ib_buf_puts(o, "::");
		ib_buf m = {0};
		ib_buf_puts(&m, f->msg);
		for (size_t q = 0; q < f->nquotes; q++) {
			ib_buf_puts(&m, "\n  ");
			if (f->quotes[q].line)
				ib_buf_printf(&m, "%s:%d: %s", f->quotes[q].file, f->quotes[q].line,
				              f->quotes[q].text);
			else
				ib_buf_printf(&m, "%s: %s", f->quotes[q].file, f->quotes[q].text);
		}
		ib_buf_printf(&m, "\nFix: %s", f->fix);
		gh_escape(o, m.data ? m.data : "", false);
		ib_buf_free(&m);
		ib_buf_putc(o, '\n');
	}
	ib_buf_printf(o, "infbench review: %zu blocking, %zu warnings\n",
	              ib_diags_count(&r->findings, RV_BLOCKING),
	              ib_diags_count(&r->findings, RV_WARNING));
	return o->data ? 0 : IB_ENOMEM;
}
