/* The infbench command line: one cmd_<name>.c per subcommand. Only cli/
 * prints usage, maps errors to exit codes and exits. */
#ifndef IB_CLI_H
#define IB_CLI_H

#include "config/config.h"
#include "cli/args.h"

int cmd_matrix(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_collect(int argc, char **argv);
int cmd_process(int argc, char **argv);
int cmd_power(int argc, char **argv);
int cmd_agentic(int argc, char **argv);
int cmd_agentx(int argc, char **argv);
int cmd_success_rate(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_sim_validate(int argc, char **argv);
int cmd_sim_calibrate(int argc, char **argv);
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
/* Writes v as Python json.dumps text plus a newline, to path atomically or to
 * stdout when path is NULL. Returns 0, or prints an error and returns 1. */
int cli_emit_json(const char *path, const ib_val *v);

#endif
