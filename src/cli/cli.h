/* The infbench command line: one cmd_<name>.c per subcommand. Only cli/
 * prints usage, maps errors to exit codes and exits. */
#ifndef IB_CLI_H
#define IB_CLI_H

#include "config/config.h"
#include "cli/args.h"
#include "sim/sim.h"

#include <glob.h>

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
int cmd_compare(int argc, char **argv);
int cmd_db(int argc, char **argv);
int cmd_report_golden(int argc, char **argv);
int cmd_run(int argc, char **argv);

/* Prints "<prog>: error: [<context>: ]file:line:col: message" to stderr;
 * context may be NULL. */
void cli_error(const char *prog, const char *context, const ib_error *e);
/* Appends the JSON-lines answer to a failed request, {"error": "<message>"}
 * (no newline), to out. Returns 0 or IB_ENOMEM. */
int cli_json_error(ib_buf *out, const ib_error *e);
/* Prints every problem to stderr, one per line. */
void cli_print_diags(const ib_diags *d);
/* The simulator's calibration file: path, or (NULL) the one `infbench sim`
 * finds (sim_calib_find from this binary's location); *used names it ("built-in
 * defaults" when there is none: *f stays empty). Its problems are printed as
 * "<prog>: file:line:col: ..." lines. Returns 0, or 1 after printing the error
 * (cmd_sim_validate.c). */
int cli_load_calibration(const char *prog, const char *path, ib_arena *a, sim_calib_file *f,
			 const char **used);
/* The master configs and runners file of `sim validate` / `sim calibrate`:
 * --master-configs FILE... when given, else configs/NAME-master.yaml (globbed
 * into g; the caller globfree's it) when configs/runners.yaml or
 * --runner-config is readable, none under --no-master-configs (*n 0). */
void cli_sim_masters(arg_parser *p, glob_t *g, const char *const **masters, size_t *n,
		     const char **runners);
/* The three options cli_sim_masters reads, for an option table; `sweeps`
 * names what uses the master configs ("the sweeps"). */
#define CLI_SIM_MASTER_OPTS(sweeps)                                                            \
	{.name = "--master-configs",                                                           \
	 .kind = ARG_MANY,                                                                     \
	 .metavar = "FILE",                                                                    \
	 .help = "master configs whose single-node search spaces " sweeps " use where they "   \
		 "cover a series (default: configs/*-master.yaml when present)"},              \
	    {.name = "--runner-config",                                                        \
	     .kind = ARG_ONE,                                                                  \
	     .metavar = "FILE",                                                                \
	     .help = "runners file for the master configs (default: configs/runners.yaml)"},   \
	{                                                                                      \
		.name = "--no-master-configs", .kind = ARG_FLAG,                               \
		.help = "no master configs: the generic space for every series"                \
	}
/* The sweep matrix of the master configs masters[0..n) with runners (the
 * `matrix full-sweep` rows, evals left out) into *rows (in a), for the
 * frontier sweeps of `sim validate` / `sim calibrate`. Returns 0, or 1 after
 * printing the problems under prog (cmd_sim_validate.c). */
int cli_sim_matrix(const char *prog, ib_arena *a, const char *const *masters, size_t n,
		   const char *runners, ib_val **rows);
/* The frontier's tok/s/GPU at interactivity target over a sweep's points
 * (the dashboard's frontier and monotone spline, rep_throughput_at) into
 * *value, the nearest point's index into *nearest and the interpolated
 * concurrency into *conc (either may be NULL). Returns 1, 0 when there is
 * no point, IB_ENOMEM. */
int cli_sim_frontier_at(const sim_sweep_point *pts, size_t n, double target, double *value,
			size_t *nearest, double *conc);
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
/* Writes v as Python json.dumps text plus a newline, to path atomically or to
 * stdout when path is NULL. Returns 0, or prints an error and returns 1. */
int cli_emit_json(const char *path, const ib_val *v);

#endif
