/* The infbench command line: one cmd_<name>.c per subcommand. Only cli/
 * prints usage, maps errors to exit codes and exits. */
#ifndef IB_CLI_H
#define IB_CLI_H

#include "cli/args.h"
#include "config/config.h"

/* The exit statuses of infbench: every cmd_*.c returns one of these (or,
 * for `run`, 128 + the signal that stopped it). */
enum {
	CLI_OK = 0,    /* done (also: --help printed) */
	CLI_FAIL = 1,  /* the command ran and failed: bad input, a failed check or gate, I/O */
	CLI_USAGE = 2, /* a bad command line (what argparse exits with) */
	CLI_STORE = 3, /* run: the results store cannot be used (unwritable, locked) */
};

/* One subcommand of the command table (main.c): its name, the function
 * main dispatches to (argv[0] is the name) and its line in `infbench
 * --help` (a second line, when there is one, is written in the text). */
typedef struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} cli_command;

int cmd_matrix(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_collect(int argc, char **argv);
int cmd_process(int argc, char **argv);
int cmd_power(int argc, char **argv);
int cmd_agentic(int argc, char **argv);
int cmd_agentx(int argc, char **argv);
int cmd_aiperf(int argc, char **argv);
int cmd_success_rate(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_sim_validate(int argc, char **argv);
int cmd_sim_calibrate(int argc, char **argv);
int cmd_sim_frontend(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_tokenize(int argc, char **argv);
int cmd_detokenize(int argc, char **argv);
int cmd_chat_template(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_eval_dataset(int argc, char **argv);
int cmd_eval_run(int argc, char **argv);
int cmd_changelog(int argc, char **argv);
/* eval subcommands, dispatched by cmd_eval (argv[0] is the subcommand) */
int cmd_eval_validate(int argc, char **argv);
int cmd_eval_collect(int argc, char **argv);
int cmd_review(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_db(int argc, char **argv);
int cmd_report_golden(int argc, char **argv);
int cmd_run(int argc, char **argv);

/* Prints "<prog>: error: [<context>: ]file:line:col: message" to stderr;
 * context may be NULL. */
void cli_error(const char *prog, const char *context, const ib_error *e);
/* A pw_log_fn-shaped line sink: stream 1 to stdout, else stderr, each line
 * with a newline, flushed. */
void cli_log_line(void *ud, int stream, const char *line);
/* A bench_log progress sink: text rewritten in place on stderr's line
 * ("\r" + text padded to 70 columns); NULL clears the line. */
void cli_progress_line(void *arg, const char *text);
/* REQUIRE_POWER in {1, true, yes} (any case for the words), as the power
 * scripts read it. */
bool cli_require_power_env(void);
/* A command family's subcommand: argv[0] names it, the handler gets the
 * arguments after it. */
typedef struct {
	const char *name;
	int (*run)(int argc, char **argv);
} cli_sub;
/* Dispatches `prog SUB ARGS...` (argv[0] is prog's own name): -h/--help
 * prints usage to stdout (0); no or an unknown subcommand prints it to
 * stderr with an error (2). */
int cli_dispatch(const char *prog, const char *usage, const cli_sub *subs, size_t n, int argc,
                 char **argv);
/* Appends the JSON-lines answer to a failed request, {"error": "<message>"}
 * (no newline), to out. Returns 0 or IB_ENOMEM. */
int cli_json_error(ib_buf *out, const ib_error *e);
/* Prints every problem to stderr, one per line. */
void cli_print_diags(const ib_diags *d);
/* The JSON-lines loop of the `--jsonl` modes: reads stdin a line at a time
 * (the line without its "\n"), has answer(arg, line, n, out) append one
 * answer (without "\n") to out — a failed request answers {"error": ...}
 * itself and returns 0 — and writes it with a newline to stdout, flushed,
 * before reading the next. Returns CLI_OK, or CLI_FAIL after printing
 * "<prog>: error: ..." when an answer cannot be built (answer returned an
 * error), written, or stdin cannot be read. */
typedef int (*cli_jsonl_fn)(void *arg, const char *line, size_t n, ib_buf *out);
int cli_jsonl(const char *prog, cli_jsonl_fn answer, void *arg);
/* Finishes an output built in b (base.h's buffer policy): writes it to path
 * atomically, or to stdout when path is NULL. When b has a (sticky) error or
 * the write fails, nothing is written to path, the error naming the file (or
 * "standard output") is printed under prog, and 1 is returned; else 0. */
int cli_emit(const char *prog, const char *path, const ib_buf *b);
/* The whole of path into *b, or of standard input when path is NULL (named
 * "<stdin>" in errors): 0, or an error in e. */
int cli_read_input(const char *path, ib_buf *b, ib_error *e);
/* --tok-cache DIR|off, the option of every command that loads a tokenizer
 * (tok.h: the cache of loaded tokenizers), declared the same way by each. */
#define CLI_TOK_CACHE_OPT                                                                          \
	{                                                                                          \
		.name = "--tok-cache", .kind = ARG_ONE, .metavar = "DIR|off",                      \
		.help = "infbench: keep loaded tokenizers in DIR (default $INFBENCH_TOK_CACHE, "   \
		        "else ~/.cache/infbench/tok), or 'off'"                                    \
	}
/* Applies --tok-cache (val NULL: not given, nothing changes): sets
 * INFBENCH_TOK_CACHE for this process and the processes it starts; DIR is
 * created when missing and made absolute. Call it before any thread starts.
 * Returns CLI_OK, or prints "<prog>: error: --tok-cache: ..." and returns
 * CLI_FAIL when DIR cannot be made or is not writable. */
int cli_tok_cache(const char *prog, const char *val);
/* Writes v as Python json.dumps text plus a newline, to path atomically or to
 * stdout when path is NULL. Returns 0, or prints an error and returns 1. */
int cli_emit_json(const char *path, const ib_val *v);

#endif
