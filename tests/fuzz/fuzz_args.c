/* The CLI's argparse-compatible option parser (cli/args.c: args_parse,
 * args_parse_int), over a parser with every kind of option (flag, one
 * value, many values, ints, choices, required, mutually exclusive, an
 * alias, long options sharing prefixes). The input is the command line:
 * tokens parted by NUL or newline bytes (at most 64). Checks: no crash; the
 * result is 0, 1 (--help) or 2 (a usage error, printed; stdout and stderr
 * go to /dev/null while parsing); after success the required option was
 * seen, no exclusive pair was both given, values of a choices option are
 * choices, an int option's values parsed as Python's int() does
 * (ib_py_int), one-value options have one value and values point into
 * argv. */
#include "fuzz.h"

#include <fcntl.h>

#include "cli/args.h"

static const char *const kinds[] = {"full-sweep", "test-config", NULL};
static const char *const excl[][2] = {{"--single-node", "--multi-node"}, {NULL, NULL}};

static bool in_argv(const char *v, char **argv, int argc)
{
	for (int i = 0; i < argc; i++)
		if (v >= argv[i] && v <= argv[i] + strlen(argv[i]))
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	arg_opt opts[] = {
	    {.name = "--help", .alias = "-h", .kind = ARG_FLAG, .help = "show this help"},
	    {.name = "--config-files", .kind = ARG_MANY, .required = true, .metavar = "F"},
	    {.name = "--config-keys", .kind = ARG_MANY},
	    {.name = "--conc", .kind = ARG_MANY, .is_int = true},
	    {.name = "--min-conc", .kind = ARG_ONE, .is_int = true},
	    {.name = "--max-conc", .kind = ARG_ONE, .is_int = true},
	    {.name = "--kind", .alias = "-k", .kind = ARG_ONE, .choices = kinds},
	    {.name = "--single-node", .kind = ARG_FLAG},
	    {.name = "--multi-node", .kind = ARG_FLAG},
	    {.name = "--runner-config", .kind = ARG_ONE},
	};
	arg_parser p = {.prog = "infbench fuzz",
	                .top = "infbench",
	                .desc = "the fuzz target's parser",
	                .opts = opts,
	                .nopts = sizeof opts / sizeof *opts,
	                .exclusive = excl};
	char *text = fuzz_strdup(data, size);
	char *argv[65];
	int argc = 0;
	for (char *s = text; s <= text + size && argc < 64;) {
		char *end = s;
		while (end < text + size && *end && *end != '\n')
			end++;
		*end = '\0';
		argv[argc++] = s;
		s = end + 1;
	}
	argv[argc] = NULL;

	static int null_fd = -1, out_fd, err_fd;
	if (null_fd < 0) {
		null_fd = open("/dev/null", O_WRONLY);
		out_fd = dup(1);
		err_fd = dup(2);
	}
	fflush(stdout);
	fflush(stderr);
	dup2(null_fd, 1);
	dup2(null_fd, 2);
	int rc = args_parse(&p, argc, argv, NULL, 0);
	fflush(stdout);
	fflush(stderr);
	dup2(out_fd, 1);
	dup2(err_fd, 2);

	FUZZ_CHECK(rc == 0 || rc == 1 || rc == 2, "rc %d", rc);
	if (rc == 0) {
		FUZZ_CHECK(args_get(&p, "--config-files")->seen, "the required option is missing");
		FUZZ_CHECK(!(args_get(&p, "--single-node")->seen && args_get(&p, "--multi-node")->seen),
		           "both exclusive options");
		for (size_t i = 0; i < p.nopts; i++) {
			const arg_opt *o = &opts[i];
			if (!o->seen)
				continue;
			if (o->kind == ARG_ONE)
				FUZZ_CHECK(o->nvals == 1, "%s has %zu values", o->name, o->nvals);
			if (o->kind == ARG_MANY)
				FUZZ_CHECK(o->nvals >= 1, "%s has no value", o->name);
			for (size_t k = 0; k < o->nvals; k++) {
				const char *v = o->vals[k];
				FUZZ_CHECK(v && in_argv(v, argv, argc), "%s value %zu outside argv",
				           o->name, k);
				if (o->choices) {
					bool ok = false;
					for (const char *const *c = o->choices; *c; c++)
						ok |= !strcmp(*c, v);
					FUZZ_CHECK(ok, "%s: %s is not a choice", o->name, v);
				}
				if (o->is_int) {
					int64_t x;
					FUZZ_CHECK(ib_py_int(v, strlen(v), &x) && x == o->ivals[k],
					           "%s: %s parsed as %lld", o->name, v,
					           (long long)o->ivals[k]);
				}
			}
		}
	}
	/* every token as an int: args_parse_int and ib_py_int agree */
	for (int i = 0; i < argc; i++) {
		int64_t x = 0, y = 0;
		bool a = args_parse_int(argv[i], &x), b = ib_py_int(argv[i], strlen(argv[i]), &y);
		FUZZ_CHECK(a == b && (!a || x == y), "int(%s): args %d %lld, ib_py_int %d %lld",
		           argv[i], a, (long long)x, b, (long long)y);
	}
	args_free(&p);
	free(text);
	return 0;
}
