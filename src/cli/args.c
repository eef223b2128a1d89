#include "cli/args.h"

#include "base/base.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Python's int() is base/'s ib_py_int (its whitespace is Python's, \x1c-\x1f
 * too, and INT64_MIN is in range). */
bool args_parse_int(const char *s, int64_t *out)
{
	return ib_py_int(s, strlen(s), out);
}

static void usage(const arg_parser *p, FILE *f)
{
	fprintf(f, "usage: %s", p->prog);
	for (size_t i = 0; i < p->nopts; i++) {
		const arg_opt *o = &p->opts[i];
		const char *mv = o->metavar ? o->metavar : "VALUE";
		const char *open = o->required ? "" : "[", *close = o->required ? "" : "]";
		if (o->kind == ARG_FLAG)
			fprintf(f, " %s%s%s", open, o->alias ? o->alias : o->name, close);
		else if (o->kind == ARG_ONE)
			fprintf(f, " %s%s %s%s", open, o->name, mv, close);
		else
			fprintf(f, " %s%s %s [%s ...]%s", open, o->name, mv, mv, close);
	}
	fputc('\n', f);
}

void args_help(const arg_parser *p)
{
	usage(p, stdout);
	if (p->desc)
		printf("\n%s\n", p->desc);
	printf("\noptions:\n");
	for (size_t i = 0; i < p->nopts; i++) {
		const arg_opt *o = &p->opts[i];
		char head[160];
		const char *mv = o->metavar ? o->metavar : "VALUE";
		if (o->kind == ARG_FLAG)
			snprintf(head, sizeof head, "%s%s%s", o->alias ? o->alias : "",
			         o->alias ? ", " : "", o->name);
		else if (o->kind == ARG_ONE)
			snprintf(head, sizeof head, "%s %s", o->name, mv);
		else
			snprintf(head, sizeof head, "%s %s [%s ...]", o->name, mv, mv);
		printf("  %-34s %s\n", head, o->help ? o->help : "");
	}
	if (p->epilog)
		printf("\n%s\n", p->epilog);
}

int args_error(const arg_parser *p, const char *prog, const char *fmt, ...)
{
	/* one line and a pointer to --help, not the whole usage */
	fprintf(stderr, "%s: error: ", prog ? prog : p->prog);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see '%s --help')\n", p->prog);
	return 2;
}

void args_free(arg_parser *p)
{
	for (size_t i = 0; i < p->nopts; i++) {
		free(p->opts[i].ivals);
		p->opts[i].ivals = NULL;
	}
}

arg_opt *args_get(arg_parser *p, const char *name)
{
	for (size_t i = 0; i < p->nopts; i++)
		if (strcmp(p->opts[i].name, name) == 0)
			return &p->opts[i];
	return NULL;
}

/* argparse's negative-number test: ^-\d+$ or ^-\d*\.\d+$ */
static bool negative_number(const char *s)
{
	if (s[0] != '-')
		return false;
	const char *p = s + 1;
	while (isdigit((unsigned char)*p))
		p++;
	if (!*p)
		return p > s + 1;
	if (*p != '.')
		return false;
	const char *q = ++p;
	while (isdigit((unsigned char)*p))
		p++;
	return !*p && p > q;
}

/* Is token an option string (argparse 'O'), as opposed to a value ('A')? */
static bool looks_optional(const char *t)
{
	if (t[0] != '-' || t[1] == '\0')
		return false;
	if (negative_number(t))
		return false;
	if (strchr(t, ' ') && !strchr(t, '='))
		return false;
	return true;
}

/* Finds the option for token (exact, alias, or unique prefix of a long
 * name). Returns NULL when unknown; sets *ambiguous with the candidates. */
static arg_opt *lookup(arg_parser *p, const char *name, size_t len, char *amb, size_t ambcap)
{
	amb[0] = '\0';
	for (size_t i = 0; i < p->nopts; i++) {
		arg_opt *o = &p->opts[i];
		if ((strlen(o->name) == len && !strncmp(o->name, name, len)) ||
		    (o->alias && strlen(o->alias) == len && !strncmp(o->alias, name, len)))
			return o;
	}
	if (len < 3 || strncmp(name, "--", 2) != 0)
		return NULL;
	arg_opt *found = NULL;
	int count = 0;
	size_t used = 0;
	for (size_t i = 0; i < p->nopts; i++) {
		arg_opt *o = &p->opts[i];
		if (strncmp(o->name, name, len) == 0) {
			found = o;
			count++;
			int n =
			    snprintf(amb + used, ambcap - used, "%s%s", used ? ", " : "", o->name);
			if (n > 0 && (size_t)n < ambcap - used)
				used += (size_t)n;
		}
	}
	if (count == 1) {
		amb[0] = '\0';
		return found;
	}
	return NULL;
}

static int take(arg_parser *p, arg_opt *o, const char **vals, size_t n)
{
	if (o->choices) {
		for (size_t i = 0; i < n; i++) {
			bool ok = false;
			for (const char *const *c = o->choices; *c && !ok; c++)
				ok = strcmp(*c, vals[i]) == 0;
			if (!ok) {
				char list[512];
				size_t used = 0;
				for (const char *const *c = o->choices; *c; c++) {
					int k = snprintf(list + used, sizeof list - used, "%s'%s'",
					                 used ? ", " : "", *c);
					if (k > 0 && (size_t)k < sizeof list - used)
						used += (size_t)k;
				}
				return args_error(
				    p, NULL, "argument %s: invalid choice: '%s' (choose from %s)",
				    o->name, vals[i], list);
			}
		}
	}
	if (o->is_int) {
		free(o->ivals);
		o->ivals = calloc(n + 1, sizeof *o->ivals);
		if (!o->ivals)
			return args_error(p, NULL, "out of memory");
		for (size_t i = 0; i < n; i++)
			if (!args_parse_int(vals[i], &o->ivals[i]))
				return args_error(p, NULL, "argument %s: invalid int value: '%s'",
				                  o->name, vals[i]);
	}
	o->vals = vals;
	o->nvals = n;
	return 0;
}

int args_parse(arg_parser *p, int argc, char **argv, const char *const *extra, size_t nextra)
{
	const char **unrec = calloc((size_t)argc + nextra + 1, sizeof *unrec);
	size_t nunrec = 0;
	if (!unrec)
		return args_error(p, NULL, "out of memory");
	for (size_t i = 0; i < nextra; i++)
		unrec[nunrec++] = extra[i];
	int rc = 0;
	bool rest_positional = false;
	for (int i = 0; i < argc && !rc; i++) {
		const char *t = argv[i];
		if (!rest_positional && strcmp(t, "--") == 0) {
			rest_positional = true;
			continue;
		}
		if (rest_positional || !looks_optional(t)) {
			unrec[nunrec++] = t;
			continue;
		}
		const char *eq = strncmp(t, "--", 2) == 0 ? strchr(t, '=') : NULL;
		size_t len = eq ? (size_t)(eq - t) : strlen(t);
		char amb[512];
		arg_opt *o = lookup(p, t, len, amb, sizeof amb);
		if (!o && amb[0]) {
			rc = args_error(p, NULL, "ambiguous option: %.*s could match %s", (int)len,
			                t, amb);
			break;
		}
		if (!o) {
			unrec[nunrec++] = t;
			continue;
		}
		if (o->alias && strcmp(o->alias, "-h") == 0) {
			args_help(p);
			rc = 1;
			break;
		}
		if (p->exclusive) {
			for (const char *const(*x)[2] = p->exclusive; (*x)[0]; x++) {
				const char *other = !strcmp((*x)[0], o->name)   ? (*x)[1]
				                    : !strcmp((*x)[1], o->name) ? (*x)[0]
				                                                : NULL;
				arg_opt *oo = other ? args_get(p, other) : NULL;
				if (oo && oo->seen)
					rc = args_error(p, NULL,
					                "argument %s: not allowed with argument %s",
					                o->name, other);
			}
			if (rc)
				break;
		}
		o->seen = true;
		if (o->kind == ARG_FLAG) {
			if (eq)
				rc = args_error(p, NULL,
				                "argument %s: ignored explicit argument '%s'",
				                o->name, eq + 1);
			continue;
		}
		if (eq) { /* the value is the text after '=' */
			o->eqval[0] = eq + 1;
			rc = take(p, o, o->eqval, 1);
			continue;
		}
		int j = i + 1;
		while (j < argc && (o->kind == ARG_MANY || j == i + 1) &&
		       !looks_optional(argv[j]) && strcmp(argv[j], "--") != 0)
			j++;
		if (j == i + 1) {
			rc = args_error(p, NULL, "argument %s: expected %s argument", o->name,
			                o->kind == ARG_ONE ? "one" : "at least one");
			break;
		}
		rc = take(p, o, (const char **)&argv[i + 1], (size_t)(j - i - 1));
		i = j - 1;
	}
	if (!rc) {
		char missing[512];
		size_t used = 0;
		for (size_t i = 0; i < p->nopts; i++) {
			if (!p->opts[i].required || p->opts[i].seen)
				continue;
			int k = snprintf(missing + used, sizeof missing - used, "%s%s",
			                 used ? ", " : "", p->opts[i].name);
			if (k > 0 && (size_t)k < sizeof missing - used)
				used += (size_t)k;
		}
		if (used)
			rc = args_error(p, NULL, "the following arguments are required: %s",
			                missing);
	}
	if (!rc && nunrec) {
		char list[1024];
		size_t used = 0;
		for (size_t i = 0; i < nunrec; i++) {
			int k = snprintf(list + used, sizeof list - used, "%s%s", i ? " " : "",
			                 unrec[i]);
			if (k > 0 && (size_t)k < sizeof list - used)
				used += (size_t)k;
		}
		rc = args_error(p, p->top, "unrecognized arguments: %s", list);
	}
	free(unrec);
	return rc;
}
