#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void cli_print_diags(const ib_diags *d)
{
	ib_buf b = {0};
	for (size_t i = 0; i < d->n; i++) {
		b.len = 0;
		ib_diag_format(&d->items[i], &b);
		fprintf(stderr, "%s\n", b.data ? b.data : "");
	}
	ib_buf_free(&b);
}

void cli_error(const char *prog, const char *context, const ib_error *e)
{
	char m[4096];
	ib_error_format(e, m, sizeof m);
	if (context)
		fprintf(stderr, "%s: error: %s: %s\n", prog, context, m);
	else
		fprintf(stderr, "%s: error: %s\n", prog, m);
}

int cli_tok_cache(const char *prog, const char *val)
{
	ib_error e = {0};
	char *abs = NULL;
	if (!val)
		return CLI_OK;
	if (strcmp(val, "off")) {
		if (!*val)
			ib_fail(&e, IB_EINVAL, NULL, 0, 0, "a folder, or 'off'");
		else if (!ib_mkdirs_writable(val, &e) && !(abs = realpath(val, NULL)))
			ib_fail(&e, IB_EIO, val, 0, 0, "cannot resolve the folder");
		if (!abs) {
			cli_error(prog, "--tok-cache", &e);
			return CLI_FAIL;
		}
	}
	setenv("INFBENCH_TOK_CACHE", abs ? abs : val, 1);
	free(abs);
	return CLI_OK;
}

void cli_progress_line(void *arg, const char *text)
{
	(void)arg;
	if (text)
		fprintf(stderr, "\r%-70s", text);
	else
		fprintf(stderr, "\r%70s\r", "");
}

void cli_log_line(void *ud, int stream, const char *line)
{
	(void)ud;
	FILE *f = stream == 1 ? stdout : stderr;
	fprintf(f, "%s\n", line);
	fflush(f);
}

bool cli_require_power_env(void)
{
	const char *s = getenv("REQUIRE_POWER");
	return s && (!strcmp(s, "1") || !strcasecmp(s, "true") || !strcasecmp(s, "yes"));
}

int cli_dispatch(const char *prog, const char *usage, const cli_sub *subs, size_t n, int argc,
                 char **argv)
{
	const char *sub = argc >= 2 ? argv[1] : NULL;
	if (sub && (!strcmp(sub, "-h") || !strcmp(sub, "--help"))) {
		fputs(usage, stdout);
		return 0;
	}
	for (size_t i = 0; sub && i < n; i++)
		if (!strcmp(sub, subs[i].name))
			return subs[i].run(argc - 2, argv + 2);
	fputs(usage, stderr);
	if (sub)
		fprintf(stderr, "%s: error: unknown command '%s'\n", prog, sub);
	else
		fprintf(stderr, "%s: error: a command is required\n", prog);
	return 2;
}

int cli_json_error(ib_buf *out, const ib_error *e)
{
	char m[4096];
	ib_error_format(e, m, sizeof m);
	int rc = ib_buf_puts(out, "{\"error\": ");
	if (!rc)
		rc = ib_json_write_str(out, m, strlen(m), false);
	return rc ? rc : ib_buf_putc(out, '}');
}

int cli_jsonl(const char *prog, cli_jsonl_fn answer, void *arg)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;
	ib_buf out = {0};
	int status = CLI_OK;
	while ((got = getline(&line, &cap, stdin)) >= 0) {
		size_t n = (size_t)got;
		if (n && line[n - 1] == '\n')
			n--;
		out.len = 0;
		if (answer(arg, line, n, &out) || ib_buf_putc(&out, '\n')) {
			fprintf(stderr, "%s: error: out of memory\n", prog);
			status = CLI_FAIL;
			break;
		}
		if (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout)) {
			fprintf(stderr, "%s: error: writing standard output failed\n", prog);
			status = CLI_FAIL;
			break;
		}
	}
	if (!status && ferror(stdin)) {
		fprintf(stderr, "%s: error: reading standard input failed\n", prog);
		status = CLI_FAIL;
	}
	free(line);
	ib_buf_free(&out);
	return status;
}

int cli_read_input(const char *path, ib_buf *b, ib_error *e)
{
	if (path)
		return ib_read_file(path, b, e);
	char buf[65536];
	size_t n;
	int rc = 0;
	while (!rc && (n = fread(buf, 1, sizeof buf, stdin)) > 0)
		if ((rc = ib_buf_append(b, buf, n)))
			return ib_fail(e, rc, "<stdin>", 0, 0, "out of memory");
	if (!rc && ferror(stdin))
		rc = ib_fail(e, IB_EIO, "<stdin>", 0, 0, "cannot read");
	return rc;
}

int cli_emit(const char *prog, const char *path, const ib_buf *b)
{
	ib_error e = {0};
	if (path ? ib_buf_write_file(path, b, &e)
	         : ib_buf_write_to(stdout, "standard output", b, &e)) {
		cli_error(prog, NULL, &e);
		return 1;
	}
	return 0;
}

int cli_emit_json(const char *path, const ib_val *v)
{
	ib_error e = {0};
	ib_json_opts o = IB_JSON_PYTHON;
	ib_atomic w = {0};
	FILE *f = stdout;
	if (path) {
		if (ib_atomic_open(&w, path, &e))
			goto fail;
		f = w.f;
	}
	if (ib_json_write_file(f, v, &o, &e) || fputc('\n', f) == EOF) {
		if (!e.msg[0])
			ib_fail(&e, IB_EIO, path, 0, 0, "write error");
		goto fail;
	}
	if (path ? ib_atomic_commit(&w, &e) : fflush(stdout) != 0) {
		if (!path)
			ib_fail(&e, IB_EIO, NULL, 0, 0, "writing standard output failed");
		goto fail_no_abort;
	}
	return 0;
fail:
	if (path)
		ib_atomic_abort(&w);
fail_no_abort:
	cli_error("infbench", NULL, &e);
	return 1;
}
