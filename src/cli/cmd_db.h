/* Shared between cmd_db.c and cmd_db_history.c. */
#ifndef IB_CLI_CMD_DB_H
#define IB_CLI_CMD_DB_H

#include "results/results.h"

/* infbench db history over the open database: prints the trend of metric
 * (the dashboard's name, default tpPerGpu) at interactivity target_s per
 * config group and date as JSON or a table (format "table"). Returns 0, 2
 * after printing a usage error, or a negative ib_err with e filled. */
int cmd_db_history(res_db *db, const res_db_filter *f, const char *metric_name,
                   const char *target_s, const char *format, ib_error *e);

/* One row-filter option (--model --hw --framework --precision --spec
 * --since --until --branch --run-id --scenario, --isl --osl --conc,
 * --simulated yes|no) with its value (NULL
 * when the command line ended): returns 1 when `opt` is one and its value was
 * stored in f, 0 when it is not a filter option, 2 after printing a usage
 * error prefixed by `cmd` (no value, not a positive integer). */
int cli_db_filter(const char *cmd, const char *opt, const char *val, res_db_filter *f);

#endif
