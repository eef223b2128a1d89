/* results: turning raw benchmark results into agg rows and collections of them.
 * Today: collect (a drop-in for InferenceX's utils/collect_results.py).
 * Not yet here: process, power, compare, success rate (see docs/ and the issue). */
#ifndef IB_RESULTS_H
#define IB_RESULTS_H

#include "base/base.h"
#include "fmt/fmt.h"

#include <stddef.h>

/* Every file below dir whose name ends in ".json" (case-sensitive; dot-files
 * and a file named ".json" included; directories are descended, symlinked
 * directories too, but a directory whose name ends in ".json" is an error as
 * in the reference), as relative-to-cwd paths "dir/sub/x.json", sorted
 * bytewise (the reference uses filesystem order; see docs/collect.md).
 * A missing dir gives zero paths (as Path.rglob does). On success *paths is a
 * malloc'd array of *n malloc'd strings, freed with res_paths_free.
 * Returns 0, IB_ENOMEM, or IB_EIO (unreadable folder, a directory named
 * *.json) with the path in e. */
int res_find_json(const char *dir, char ***paths, size_t *n, ib_error *e);
void res_paths_free(char **paths, size_t n);

/* Parses every file of res_find_json(dir) and returns them, in that order, as
 * a JSON list in arena a (*out). A file that is not valid JSON is IB_EPARSE
 * naming the file, line and column; unreadable is IB_EIO. */
int res_collect(ib_arena *a, const char *dir, ib_val **out, ib_error *e);

/* res_collect, then writes the list as json.dump(indent=2) (no trailing
 * newline) to out_path atomically (temp + rename): on any error nothing is
 * written. */
int res_collect_write(const char *dir, const char *out_path, ib_error *e);

/* ---- success rate (calc_success_rate.py) ---- */

/* The hardware labels of a runners.yaml tree, as the reference derives them:
 * the "cluster:" keys of its `labels` map (the top level when there is none),
 * prefix removed; without any, the keys of its `hardware` map; sorted
 * bytewise, duplicates removed. Strings point into the tree. Returns 0 or
 * IB_ENOMEM; *labels is malloc'd (free()). */
int res_hw_labels(const ib_val *runners, const char ***labels, size_t *n);

/* The label a job name counts for: the first label (in the given order) that
 * occurs in the lower-cased name, alone or as "cluster:<label>", with no
 * [a-z0-9] character right before or after it. -1 when none. */
int res_job_label(const char *name, const char *const *labels, size_t n);

/* Builds {label: {"n_success": S, "total": T}} in label order from a list of
 * jobs ({"name", "conclusion"}): "skipped" is ignored, every other conclusion
 * (null too) counts in total, "success" also in n_success. A job without a
 * string name is IB_EINVAL. */
int res_success_rates(ib_arena *a, const ib_val *jobs, const char *const *labels, size_t n,
                      ib_val **out, ib_error *e);

/* Appends the reference's text table of rates (None: "No data to display"). */
int res_success_table(ib_buf *b, const ib_val *rates);

#endif
