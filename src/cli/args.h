/* An argparse-compatible option parser for the subcommands whose command lines
 * must behave like the reference's Python argparse (matrix.md §2.1): unique
 * prefixes of long options, --opt=value, repeated options replace earlier
 * values, one-or-more values run until the next option-like token, Python
 * int() parsing, usage errors with `<prog>: error: <msg>` and exit status 2. */
#ifndef IB_CLI_ARGS_H
#define IB_CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { ARG_FLAG, ARG_ONE, ARG_MANY } arg_kind;

typedef struct {
	const char *name;  /* "--config-files" */
	const char *alias; /* "-h", or NULL */
	arg_kind kind;
	bool is_int;
	bool required;
	const char *const *choices; /* NULL-terminated, or NULL */
	const char *metavar;
	const char *help;
	/* results */
	bool seen;
	const char **vals;
	size_t nvals;
	int64_t *ivals; /* parsed values of an is_int option; freed by args_free */
	const char *eqval[1];
} arg_opt;

typedef struct {
	const char *prog; /* "infbench matrix full-sweep" */
	const char *top;  /* prog of the enclosing parser, for unrecognized args */
	const char *desc; /* first help paragraph */
	const char *epilog;
	arg_opt *opts;
	size_t nopts;
	const char *const (*exclusive)[2]; /* pairs of option names, NULL-terminated */
} arg_parser;

/* Parses argv[0..argc). Returns 0 on success, 1 after printing --help to
 * stdout (exit 0), 2 after printing a usage error to stderr (exit 2).
 * `extra` holds unrecognized tokens the caller already set aside (reported
 * as unrecognized arguments after everything else). Values point into argv. */
int args_parse(arg_parser *p, int argc, char **argv, const char *const *extra, size_t nextra);
arg_opt *args_get(arg_parser *p, const char *name);
/* Releases what args_parse allocated. */
void args_free(arg_parser *p);
/* Prints one line, `<prog>: error: <msg> (see '<prog> --help')`, to stderr;
 * returns 2. */
int args_error(const arg_parser *p, const char *prog, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void args_help(const arg_parser *p);
/* Python int(): surrounding whitespace, sign, '_' between digits. */
bool args_parse_int(const char *s, int64_t *out);

#endif
