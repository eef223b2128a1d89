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

#endif
