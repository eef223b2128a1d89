/* changelog — the perf-changelog tooling (spec/matrix.md §4): the additions
 * between two git refs turned into the sweep matrix CI runs
 * (process_changelog.py), the changelog gate (validate_perf_changelog.py:
 * final newline, and the byte-level append-only contract), and the CI
 * priority annotation (ci_priority.py).
 *
 * git is read through the `git` program (ib_proc_run), run in o->repo.
 * Everything built lives in the caller's arena. Errors follow the ib_error
 * convention; messages are the reference's words, with the changelog's
 * file:line:col where a YAML node is at fault.
 */
#ifndef IB_CHANGELOG_H
#define IB_CHANGELOG_H

#include "config/config.h"
#include "fmt/fmt.h"

typedef struct {
	const char *repo;           /* folder git runs in and paths are relative to; NULL: "." */
	const char *base_ref;       /* required */
	const char *head_ref;       /* required */
	const char *changelog_file; /* required (process), "perf-changelog.yaml" (validate) */
	bool trim_conc, all_evals, evals_only;
	/* NULL / 0: configs/amd-master.yaml configs/nvidia-master.yaml and
	 * configs/runners.yaml, as the reference's constants */
	const char *const *config_files;
	size_t nconfig_files;
	const char *runner_config;
} clog_opts;

/* process_changelog.py: *out receives the ChangelogMatrixEntry object
 * (buckets, eval lists, changelog_metadata) with every row already in its
 * model's field order and defaults filled in, ready for clog_write_matrix.
 * Master configs are read from the working tree (o->repo); when they have
 * problems they are added to d and IB_EINVAL is returned with e saying so.
 * Other failures: IB_EINVAL with e holding the reference's message (a
 * deleted changelog line, no additions, an unknown key, the append-only
 * rules, an entry that is not a valid ChangelogEntry with its position),
 * IB_EIO when git cannot run, IB_ENOMEM. */
int clog_process(ib_arena *a, const clog_opts *o, ib_val **out, ib_diags *d, ib_error *e);

/* The matrix as the reference prints it: one line of compact JSON with raw
 * UTF-8, plus "\n". */
int clog_write_matrix(ib_buf *out, const ib_val *matrix, ib_error *e);

/* validate_perf_changelog.py main: the changelog at head_ref must end with a
 * newline, and clog_process must accept the diff. On failure e->msg holds the
 * reference's message (without its "ERROR: " prefix) and diagnostics of the
 * master configs, if any, are in d. */
int clog_validate(ib_arena *a, const clog_opts *o, ib_diags *d, ib_error *e);

/* ---- the byte-level append-only contract (the gate) ---- */

/* parse_changelog: raw must end with "\n", hold no CR, tab or NUL, be valid
 * UTF-8 and YAML without duplicate keys, a list whose length equals the
 * number of lines starting with "- config-keys:", every item a valid
 * ChangelogEntry. *entries receives the list. `label` names the text in
 * messages (e.g. "perf-changelog.yaml at base"). */
int clog_parse(ib_arena *a, const char *raw, size_t n, const char *label, ib_val **entries,
               ib_error *e);

/* compare_entries + validate_raw_change: head must keep every base entry
 * (only pr-link corrections to a canonical link allowed, never mixed with
 * additions), added entries need a canonical pr-link (pr_number < 0: a main
 * branch run) or, on PR pr_number, that PR's link or an XXX placeholder; the
 * bytes must be the base bytes plus entries appended after one empty line.
 * *added / *corrections receive the counts. Failures are IB_EINVAL with the
 * reference's message and, where one line is at fault, its line in head. */
int clog_gate(ib_arena *a, const char *base_raw, size_t base_n, const char *head_raw, size_t head_n,
              const char *path, int64_t pr_number, size_t *added, size_t *corrections, ib_error *e);

/* `git show ref:path` into out (appending). A ref or path that does not exist
 * is IB_ENOENT with "could not read <path> at <ref>: <git's message>". */
int clog_git_show(const char *repo, const char *ref, const char *path, ib_buf *out, ib_error *e);

/* ---- ci_priority.py ---- */
typedef struct {
	const char *event_name;    /* "" */
	const char *const *labels; /* label set */
	size_t nlabels;
	const char *queue_namespace; /* "local" */
	bool has_pr;
	int64_t pr_number;
	bool has_criteria; /* --criteria-json given (and not null) */
	const char *const *criteria;
	size_t ncriteria;
} clog_prio_ctx;

/* Checks a loaded ci-priority.yaml (version 1). */
int clog_policy_check(const ib_val *policy, const char *path, ib_error *e);
/* A copy of payload where every mapping holding both "runner" and "framework"
 * gains "priority", "queue-token" and (on PRs with the skip label)
 * "skip-queue-pr". Unknown criteria are IB_EINVAL. */
int clog_annotate(ib_arena *a, const ib_val *payload, const ib_val *policy, const clog_prio_ctx *c,
                  ib_val **out, ib_error *e);

#endif
