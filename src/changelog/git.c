/* changelog/git: the few git reads the changelog tools need, through `git`. */
#include "changelog/private.h"

#include <string.h>

int clog_git(const char *repo, const char *const *args, ib_buf *out, ib_error *e)
{
	const char *argv[16] = {"git"};
	size_t n = 1;
	for (; args[n - 1] && n < 15; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	ib_buf err = {0};
	int status = 0;
	int rc = ib_proc_run(argv, repo ? repo : ".", out, &err, &status, e);
	if (rc == 0 && status != 0) {
		/* git's message without its trailing newline */
		while (err.len && (err.data[err.len - 1] == '\n' || err.data[err.len - 1] == '\r'))
			err.data[--err.len] = '\0';
		rc = ib_fail(e, IB_ENOENT, "", 0, 0, "%s", err.len ? err.data : "git failed");
	}
	ib_buf_free(&err);
	return rc;
}

int clog_git_show(const char *repo, const char *ref, const char *path, ib_buf *out, ib_error *e)
{
	ib_buf spec = {0};
	if (ib_buf_printf(&spec, "%s:%s", ref, path))
		return ib_fail(e, IB_ENOMEM, "", 0, 0, "out of memory");
	const char *args[] = {"show", spec.data, NULL};
	ib_error ge;
	int rc = clog_git(repo, args, out, &ge);
	ib_buf_free(&spec);
	if (rc == IB_ENOENT)
		return ib_fail(e, rc, "", 0, 0, "could not read %s at %s: %s", path, ref, ge.msg);
	if (rc && e)
		*e = ge;
	return rc;
}
