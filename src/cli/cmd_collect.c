/* infbench collect DIR NAME: every *.json below DIR into agg_NAME.json, a
 * drop-in for InferenceX's utils/collect_results.py (docs/collect.md). */
#include "cli/cli.h"
#include "results/results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: infbench collect DIR NAME\n"
    "\n"
    "Collect every file whose name ends in .json below DIR (recursively, dot-files\n"
    "included) into agg_NAME.json in the current folder: a JSON list written like\n"
    "Python's json.dump(indent=2), in sorted path order. A file that is not valid\n"
    "JSON, or a folder named *.json, is an error (exit 1, nothing written); a\n"
    "missing DIR gives [].\n"
    "\n"
    "See docs/collect.md.\n";

int cmd_collect(int argc, char **argv)
{
	const char *pos[2] = {NULL, NULL};
	size_t npos = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage, stdout);
			return CLI_OK;
		}
		if (npos < 2)
			pos[npos] = argv[i];
		npos++; /* further arguments are ignored, as the reference ignores them */
	}
	if (npos < 2) {
		fputs(usage, stderr);
		fprintf(stderr, "infbench collect: error: %s is required\n",
		        npos == 0 ? "DIR" : "NAME");
		return CLI_FAIL; /* the reference's IndexError exits 1 */
	}
	size_t n = strlen(pos[1]) + sizeof "agg_.json";
	char *out = malloc(n);
	if (!out) {
		fprintf(stderr, "infbench collect: error: out of memory\n");
		return CLI_FAIL;
	}
	snprintf(out, n, "agg_%s.json", pos[1]);
	ib_error e = {0};
	int rc = res_collect_write(pos[0], out, &e);
	if (rc) {
		char msg[2700];
		ib_error_format(&e, msg, sizeof msg);
		fprintf(stderr, "infbench collect: error: %s\n", msg);
	}
	free(out);
	return rc ? CLI_FAIL : CLI_OK;
}
