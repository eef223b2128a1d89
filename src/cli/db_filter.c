/* The results database's row filters as command-line options, shared by
 * `infbench db` (query, latest, history) and `infbench report --db`. */
#include "cli/cmd_db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_db_filter(const char *cmd, const char *opt, const char *val, res_db_filter *f)
{
	static const char *const strs[] = {"--model",  "--hw",      "--framework", "--precision",
	                                   "--spec",   "--since",   "--until",     "--branch",
	                                   "--run-id", "--scenario"};
	static const char *const ints[] = {"--isl", "--osl", "--conc"};
	const char **sdst[] = {&f->model,       &f->hardware, &f->framework, &f->precision,
	                       &f->spec_method, &f->since,    &f->until,     &f->branch,
	                       &f->run_id,      &f->scenario};
	int64_t *idst[] = {&f->isl, &f->osl, &f->conc};
	for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++)
		if (!strcmp(opt, strs[k])) {
			if (!val)
				goto no_value;
			*sdst[k] = val;
			return 1;
		}
	if (!strcmp(opt, "--simulated")) {
		if (!val)
			goto no_value;
		if (strcmp(val, "yes") && strcmp(val, "no")) {
			fprintf(stderr, "%s: error: --simulated: expected yes or no (got '%s')\n",
			        cmd, val);
			return 2;
		}
		f->simulated = strcmp(val, "yes") ? -1 : 1;
		return 1;
	}
	for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++)
		if (!strcmp(opt, ints[k])) {
			if (!val)
				goto no_value;
			char *end;
			long long x = strtoll(val, &end, 10);
			if (!*val || *end || x <= 0) {
				fprintf(stderr,
				        "%s: error: %s: expected a positive integer (got '%s')\n",
				        cmd, opt, val);
				return 2;
			}
			*idst[k] = x;
			return 1;
		}
	return 0;
no_value:
	fprintf(stderr, "%s: error: %s needs a value\n", cmd, opt);
	return 2;
}
