/* cli: what the simulator's commands (cmd_sim.c, cmd_sim_validate.c,
 * cmd_sim_calibrate.c) share (sim_common.c). */
#ifndef IB_CLI_SIM_COMMON_H
#define IB_CLI_SIM_COMMON_H

#include "cli/args.h"
#include "net/net.h"
#include "simlab/simlab.h"

#include <glob.h>

/* The simulator's calibration file: path, or (NULL) the one `infbench sim`
 * finds (sim_calib_find from this binary's location); *used names it ("built-in
 * defaults" when there is none: *f stays empty). Its problems are printed as
 * "<prog>: file:line:col: ..." lines. Returns 0, or 1 after printing the error. */
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
#define CLI_SIM_MASTER_OPTS(sweeps)                                                                \
	{.name = "--master-configs",                                                               \
	 .kind = ARG_MANY,                                                                         \
	 .metavar = "FILE",                                                                        \
	 .help = "master configs whose single-node search spaces " sweeps " use where they "       \
	         "cover a series (default: configs/*-master.yaml when present)"},                  \
	    {.name = "--runner-config",                                                            \
	     .kind = ARG_ONE,                                                                      \
	     .metavar = "FILE",                                                                    \
	     .help = "runners file for the master configs (default: configs/runners.yaml)"},       \
	{                                                                                          \
		.name = "--no-master-configs", .kind = ARG_FLAG,                                   \
		.help = "no master configs: the generic space for every series"                    \
	}
/* The lab's output (slab_log_fn): SLAB_LOG_OUT lines to stdout;
 * SLAB_LOG_PROGRESS, the status of a long fit, redrawn over one line of
 * stderr when stderr is a terminal (nothing otherwise). */
void cli_sim_log(void *ud, int stream, const char *line);
/* Prints the error of a lab call under prog: the master configs' problems
 * (d) and e's message, else cli_error(prog, context, e). Returns 1. */
int cli_sim_lab_error(const char *prog, const char *context, const ib_diags *d, const ib_error *e);

/* The listening options of the servers (`infbench sim`, `sim frontend`),
 * for an option table. */
#define CLI_SERVE_OPTS                                                                             \
	{.name = "--host",                                                                         \
	 .kind = ARG_ONE,                                                                          \
	 .metavar = "ADDR",                                                                        \
	 .help = "listen address (default 127.0.0.1)"},                                            \
	    {.name = "--port",                                                                     \
	     .kind = ARG_ONE,                                                                      \
	     .is_int = true,                                                                       \
	     .metavar = "N",                                                                       \
	     .help = "port (default 8000; 0: any free port)"},                                     \
	{                                                                                          \
		.name = "--port-file", .kind = ARG_ONE, .metavar = "FILE",                         \
		.help = "write the port to FILE once listening"                                    \
	}
/* Servers (`infbench sim`, `sim frontend`): SIGINT and SIGTERM blocked in
 * this thread (before any thread starts, which inherits the mask), so that
 * cli_serve_loop reads them through a signalfd. */
void cli_serve_block_signals(void);
/* Runs l until SIGINT/SIGTERM (blocked by cli_serve_block_signals) or,
 * duration > 0, that many seconds. Returns net_run's status. */
int cli_serve_loop(net_loop *l, double duration);

#endif
