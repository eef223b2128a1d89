#include "cli/cli.h"

#include <stdio.h>

void cli_print_diags(const cfg_diags *d)
{
	ib_buf b = {0};
	for (size_t i = 0; i < d->n; i++) {
		b.len = 0;
		cfg_diag_format(&d->items[i], &b);
		fprintf(stderr, "%s\n", b.data ? b.data : "");
	}
	ib_buf_free(&b);
}

int cli_emit(const char *path, const char *data, size_t len)
{
	if (path) {
		ib_error e = {0};
		if (ib_write_file_atomic(path, data, len, &e)) {
			char m[4096];
			ib_error_format(&e, m, sizeof m);
			fprintf(stderr, "infbench: error: %s\n", m);
			return 1;
		}
		return 0;
	}
	if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0) {
		perror("infbench: error: writing standard output");
		return 1;
	}
	return 0;
}
