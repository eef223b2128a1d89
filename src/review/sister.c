/* Sister-script consistency (docs/review.md): a recipe is compared with the
 * other recipes of its family — the same scenario folder (deprecated/ parts
 * ignored), model prefix, GPU vendor, framework, spec-decoding token and
 * other name tokens, on other GPUs or precisions. What every sister (at
 * least two) does and the new recipe does not is reported with the sisters'
 * lines quoted: a command the sisters all run under an if-guard and this one
 * runs unconditionally (sister-guard), an exported variable (sister-export),
 * an option of the launch or client command (sister-flag). */
#include "review/private.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SISTERS 64

/* The next word after `flag` in text (its value), into out. */
static void value_after(const char *text, const char *flag, char *out, size_t cap)
{
	out[0] = 0;
	for (const char *p = strstr(text, flag); p; p = strstr(p + 1, flag)) {
		const char *q = p + strlen(flag);
		if (*q != ' ' && *q != '=')
			continue;
		q++;
		while (*q == ' ' || *q == '"' || *q == '\'')
			q++;
		size_t k = 0;
		while (q[k] && q[k] != ' ' && q[k] != '"' && q[k] != '\'' && k + 1 < cap)
			k++;
		memcpy(out, q, k);
		out[k] = 0;
		return;
	}
}

static bool same_family(const rv_script *a, const rv_script *b)
{
	return b->is_recipe && strcmp(a->path, b->path) && !strcmp(a->scenario, b->scenario) &&
	       !strcmp(a->model, b->model) && !strcmp(a->vendor, b->vendor) &&
	       !strcmp(a->spec, b->spec) && !strcmp(a->variant, b->variant) && a->fw == b->fw;
}

/* Commands too common or too local to compare. */
static bool trivial(const char *norm)
{
	static const char *const w[] = {"echo",   "printf",   "set",  "exit",  "return",
	                                "break",  "continue", "true", "false", ":",
	                                "shift",  "local",    "wait", "sleep", "cd",
	                                "source", ".",        "trap", NULL};
	size_t n = strcspn(norm, " ");
	if (!n)
		return true;
	for (int i = 0; w[i]; i++)
		if (strlen(w[i]) == n && !strncmp(norm, w[i], n))
			return true;
	return false;
}

static const char *trimmed_line(const rv_script *s, int line)
{
	if (line < 1 || line > s->nlines)
		return "";
	const char *l = s->lines[line - 1];
	while (isspace((unsigned char)*l))
		l++;
	return l;
}

static int guard_check(rv_report *r, rv_script *s, rv_script **sis, size_t ns, ib_arena *a)
{
	rv_checked(r, "sister-guard");
	for (size_t i = 0; i < s->ncmds; i++) {
		const rv_cmd *c = &s->cmds[i];
		if (c->nguard || trivial(c->norm))
			continue;
		/* every sister runs it, and only under a guard */
		const rv_cmd *m[MAX_SISTERS];
		bool all = true;
		for (size_t k = 0; k < ns && all; k++) {
			m[k] = NULL;
			for (size_t j = 0; j < sis[k]->ncmds; j++) {
				const rv_cmd *d = &sis[k]->cmds[j];
				if (strcmp(d->norm, c->norm))
					continue;
				if (!d->nif) {
					all = false;
					break;
				}
				if (!m[k])
					m[k] = d;
			}
			if (!m[k])
				all = false;
		}
		if (!all)
			continue;
		/* the same guard everywhere? then name it in the fix */
		const char *g0 = m[0]->guard_norm;
		bool same = g0 != NULL;
		for (size_t k = 1; k < ns && same; k++)
			same = m[k]->guard_norm && !strcmp(m[k]->guard_norm, g0);
		char fix[1024];
		if (same) {
			const rv_cmd *here = NULL;
			for (size_t j = 0; j < s->ncmds && !here; j++)
				if (s->cmds[j].guard_norm && !strcmp(s->cmds[j].guard_norm, g0))
					here = &s->cmds[j];
			if (here)
				snprintf(
				    fix, sizeof fix,
				    "move `%s` inside the `%s` block at line %d, as the sisters do",
				    c->text, here->guard, here->guard_line);
			else
				snprintf(fix, sizeof fix,
				         "run `%s` only under `%s`, as the sisters do", c->text,
				         m[0]->guard);
		} else {
			snprintf(fix, sizeof fix,
			         "run `%s` under the same condition as the sisters (quoted), or "
			         "say in a "
			         "comment why this recipe differs",
			         c->text);
		}
		if (rv_add(
		        r, "sister-guard", s->path, c->line, fix,
		        "`%s` runs unconditionally, but all %zu sister recipes run it only under a "
		        "guard",
		        c->text, ns))
			return IB_ENOMEM;
		for (size_t k = 0; k < ns; k++) {
			if (m[k]->guard_line && m[k]->guard_line != m[k]->line &&
			    ib_diag_quote_add(&r->findings, sis[k]->path, m[k]->guard_line,
			                      trimmed_line(sis[k], m[k]->guard_line)))
				return IB_ENOMEM;
			if (ib_diag_quote_add(&r->findings, sis[k]->path, m[k]->line,
			                      trimmed_line(sis[k], m[k]->line)))
				return IB_ENOMEM;
		}
	}
	(void)a;
	return 0;
}

/* The names a command exports ("export A=1 B" → A, B), into out. */
static size_t exports(const rv_cmd *c, char names[][64], size_t cap)
{
	const char *t = c->norm;
	if (strncmp(t, "export ", 7))
		return 0;
	t += 7;
	size_t n = 0;
	while (*t && n < cap) {
		while (*t == ' ')
			t++;
		if (*t == '-') { /* export -n ... */
			while (*t && *t != ' ')
				t++;
			continue;
		}
		size_t k = 0;
		while ((isalnum((unsigned char)t[k]) || t[k] == '_') && k < 63)
			k++;
		if (!k)
			break;
		memcpy(names[n], t, k);
		names[n][k] = 0;
		n++;
		t += k;
		if (*t == '=') /* skip the value up to the next blank */
			while (*t && *t != ' ')
				t++;
	}
	return n;
}

static const rv_cmd *find_export(const rv_script *s, const char *name)
{
	char nm[8][64];
	for (size_t i = 0; i < s->ncmds; i++) {
		size_t k = exports(&s->cmds[i], nm, 8);
		for (size_t j = 0; j < k; j++)
			if (!strcmp(nm[j], name))
				return &s->cmds[i];
	}
	return NULL;
}

static int export_check(rv_report *r, rv_script *s, rv_script **sis, size_t ns)
{
	rv_checked(r, "sister-export");
	char nm[8][64];
	int at = s->launch >= 0 ? s->cmds[s->launch].line : 1;
	/* candidate names: the first sister's exports, in its order */
	for (size_t i = 0; i < sis[0]->ncmds; i++) {
		size_t k = exports(&sis[0]->cmds[i], nm, 8);
		for (size_t j = 0; j < k; j++) {
			if (find_export(sis[0], nm[j]) != &sis[0]->cmds[i])
				continue; /* a later export of the same name */
			const rv_cmd *m[MAX_SISTERS];
			bool all = true;
			for (size_t q = 0; q < ns && all; q++)
				all = (m[q] = find_export(sis[q], nm[j])) != NULL;
			if (!all || find_export(s, nm[j]))
				continue;
			/* set some other way (NAME=..., ${NAME:=...}) counts as present */
			char assign[80];
			snprintf(assign, sizeof assign, "%s=", nm[j]);
			bool set = false;
			for (size_t q = 0; q < s->ncmds && !set; q++)
				set = !strncmp(s->cmds[q].norm, assign, strlen(assign));
			if (set)
				continue;
			if (rv_add(r, "sister-export", s->path, at,
			           ib_arena_printf(r->a,
			                           "add the sisters' `export %s=...` (see the "
			                           "quoted lines), or say in a comment why this "
			                           "recipe does without it",
			                           nm[j]),
			           "all %zu sister recipes export %s; this one does not", ns,
			           nm[j]))
				return IB_ENOMEM;
			for (size_t q = 0; q < ns; q++)
				if (ib_diag_quote_add(&r->findings, sis[q]->path, m[q]->line,
				                      trimmed_line(sis[q], m[q]->line)))
					return IB_ENOMEM;
		}
	}
	return 0;
}

/* The option names (--x) of a command, outside quotes and $(...). */
static size_t flags_of(const char *text, char out[][64], size_t cap)
{
	size_t n = 0;
	char quote = 0;
	int depth = 0;
	for (size_t i = 0; text[i] && n < cap; i++) {
		char c = text[i];
		if (quote) {
			if (c == '\\' && quote == '"' && text[i + 1])
				i++;
			else if (c == quote)
				quote = 0;
			continue;
		}
		if (c == '\'' || c == '"') {
			quote = c;
			continue;
		}
		if (c == '(')
			depth++;
		else if (c == ')' && depth)
			depth--;
		else if (!depth && c == '-' && text[i + 1] == '-' &&
		         (i == 0 || isspace((unsigned char)text[i - 1]) || text[i - 1] == '(') &&
		         isalpha((unsigned char)text[i + 2])) {
			size_t k = 0;
			while (text[i + k] && !isspace((unsigned char)text[i + k]) &&
			       text[i + k] != '=' && text[i + k] != ')' && k < 63)
				k++;
			memcpy(out[n], text + i, k);
			out[n][k] = 0;
			bool dup = false;
			for (size_t j = 0; j < n && !dup; j++)
				dup = !strcmp(out[j], out[n]);
			if (!dup)
				n++;
			i += k - 1;
		}
	}
	return n;
}

static bool script_has_flag(const rv_script *s, const char *flag)
{
	for (size_t i = 0; i < s->ncmds; i++)
		if (rv_has_token(s->cmds[i].text, flag))
			return true;
	return false;
}

static int flag_line(const rv_script *s, const rv_cmd *c, const char *flag)
{
	for (int l = c->line; l <= c->end_line && l <= s->nlines; l++)
		if (rv_has_token(s->lines[l - 1], flag))
			return l;
	return c->line;
}

static int flag_check(rv_report *r, rv_script *s, rv_script **sis, size_t ns, bool client)
{
	int mine = client ? s->client : s->launch;
	if (mine < 0)
		return 0;
	for (size_t q = 0; q < ns; q++)
		if ((client ? sis[q]->client : sis[q]->launch) < 0)
			return 0;
	rv_checked(r, "sister-flag");
	char fl[128][64];
	const rv_cmd *c0 = &sis[0]->cmds[client ? sis[0]->client : sis[0]->launch];
	size_t nf = flags_of(c0->text, fl, 128);
	for (size_t i = 0; i < nf; i++) {
		bool all = true;
		for (size_t q = 1; q < ns && all; q++) {
			const rv_cmd *c = &sis[q]->cmds[client ? sis[q]->client : sis[q]->launch];
			all = rv_has_token(c->text, fl[i]);
		}
		if (!all || script_has_flag(s, fl[i]))
			continue;
		/* a value naming the sisters' own precision (--kv-cache-dtype fp8) is
		 * not for a recipe of another precision */
		bool prec = false;
		for (size_t q = 0; q < ns && !prec; q++) {
			const rv_cmd *c = &sis[q]->cmds[client ? sis[q]->client : sis[q]->launch];
			char val[128];
			value_after(c->text, fl[i], val, sizeof val);
			prec = strcmp(sis[q]->precision, s->precision) &&
			       strstr(val, sis[q]->precision);
		}
		if (prec)
			continue;
		const rv_cmd *me = &s->cmds[mine];
		if (rv_add(r, "sister-flag", s->path, me->line,
		           ib_arena_printf(
		               r->a,
		               "pass %s as the sisters do (quoted), or say in a comment why this "
		               "recipe does not",
		               fl[i]),
		           "all %zu sister recipes pass %s to the %s; this one does not", ns, fl[i],
		           client ? "benchmark client" : "server launch command"))
			return IB_ENOMEM;
		for (size_t q = 0; q < ns; q++) {
			const rv_cmd *c = &sis[q]->cmds[client ? sis[q]->client : sis[q]->launch];
			int l = flag_line(sis[q], c, fl[i]);
			if (ib_diag_quote_add(&r->findings, sis[q]->path, l,
			                      trimmed_line(sis[q], l)))
				return IB_ENOMEM;
		}
	}
	return 0;
}

static int by_path(const void *x, const void *y)
{
	return strcmp((*(rv_script *const *)x)->path, (*(rv_script *const *)y)->path);
}

int rv_check_sisters(rv_report *r, rv_tree *t, rv_script *s)
{
	if (!s->is_recipe || s->fw == RV_FW_NONE)
		return 0;
	rv_script *sis[MAX_SISTERS];
	size_t ns = 0;
	size_t ml = strlen(s->model);
	for (size_t i = 0; i < t->n && ns < MAX_SISTERS; i++) {
		const char *p = t->paths[i];
		size_t pl = strlen(p);
		const char *b = strrchr(p, '/');
		b = b ? b + 1 : p;
		if (pl < 4 || strcmp(p + pl - 3, ".sh") || strncmp(b, s->model, ml) ||
		    b[ml] != '_' || !strcmp(p, s->path) || strncmp(p, "benchmarks/", 11))
			continue;
		rv_script *o = rv_tree_script(t, i);
		if (o && same_family(s, o))
			sis[ns++] = o;
	}
	if (ns < 2)
		return 0;
	qsort(sis, ns, sizeof *sis, by_path);
	int rc = guard_check(r, s, sis, ns, t->a);
	/* exports and options are tuning: compare within the GPU generation */
	rv_script *gen[MAX_SISTERS];
	size_t ng = 0;
	for (size_t i = 0; i < ns; i++)
		if (!strcmp(sis[i]->gen, s->gen))
			gen[ng++] = sis[i];
	if (!rc && ng >= 2)
		rc = export_check(r, s, gen, ng);
	if (!rc && ng >= 2)
		rc = flag_check(r, s, gen, ng, false);
	if (!rc && ng >= 2)
		rc = flag_check(r, s, gen, ng, true);
	return rc;
}
