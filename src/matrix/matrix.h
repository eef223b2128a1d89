/* matrix — expands validated master configs into the sweep matrix
 * (spec/matrix.md §2: full-sweep and test-config, concurrency windows, runner
 * resolution, agentic DRAM budget, eval marking, row key order).
 *
 * Rows are ib_val maps allocated in the caller's arena; they share the raw
 * config values they copy (no value is ever modified after it was copied).
 */
#ifndef IB_MATRIX_H
#define IB_MATRIX_H

#include "fmt/fmt.h"

typedef struct {
	const char *const *v;
	size_t n;
} mx_strs;

typedef struct {
	bool full_sweep; /* else test-config */

	/* both subcommands */
	bool no_evals, evals_only, all_evals;
	const char *runner_node_filter; /* NULL or "" = no filter */
	bool want_fixed, want_agentic;  /* --scenario-type (both when not given) */
	bool have_seq_lens;             /* --seq-lens given */
	bool seq_1k1k, seq_8k1k;

	/* full-sweep */
	mx_strs model_prefix, precision, framework, runner_type;
	int64_t step_size; /* default 2 */
	bool has_min_conc, has_max_conc, has_max_tp, has_max_ep;
	int64_t min_conc, max_conc, max_tp, max_ep;
	bool single_node, multi_node; /* both true when neither flag was given */

	/* test-config */
	mx_strs config_keys;
	const int64_t *conc;
	size_t nconc;
} mx_opts;

/* Initialises o to the reference defaults for the given subcommand. */
void mx_opts_init(mx_opts *o, bool full_sweep);

/* Generates the matrix: rows (§2.3/§2.4), eval marking (§2.8) unless
 * no_evals, --all-evals expansion, and the eval-only filter. `master` is the
 * merged, validated master-config mapping; `runners` the validated
 * runners.yaml document. *rows receives a list (possibly empty).
 * Errors (IB_EINVAL, with e naming the entry, label or value): an unknown
 * runner type or config key, a pattern that matches nothing, a DRAM budget
 * that cannot be computed. IB_ENOMEM on allocation failure. */
int mx_generate(ib_arena *a, const mx_opts *o, const ib_val *master, const ib_val *runners,
                ib_val **rows, ib_error *e);

/* Concurrency expansion: start, start*step, ... clamped so that `end` is
 * always the last value. Writes at most cap values to out and returns how
 * many there are in total. */
size_t mx_expand(int64_t start, int64_t end, int64_t step, int64_t *out, size_t cap);

/* The eval policy on its own (exposed for tests): marks rows in place as the
 * default policy does; include_agentic as with --evals-only/--all-evals. */
int mx_mark_evals(ib_arena *a, ib_val *rows, bool include_agentic);
/* --all-evals expansion; returns a new list in *out. */
int mx_mark_all_evals(ib_arena *a, const ib_val *rows, ib_val **out);

/* The reference's seq_len_to_str: "1k1k", "8k1k" or "<isl>_<osl>" (Python
 * str() of each), appended to b. */
void mx_seq_len_str(ib_buf *b, const ib_val *isl, const ib_val *osl);

/* The rows split into the job families of InferenceX's sweep workflows, as a
 * map (in a) of family name -> list of rows, in this order:
 * agentic-config, agentic-eval-config (agentic rows without / with run-eval),
 * multi-node-agentic-config, multi-node-agentic-eval-config (the same with
 * prefill/decode workers), single-node-config, multi-node-config (the other
 * rows, eval-only ones left out), eval-config (single-node eval-only rows),
 * multi-node-eval-config (multi-node rows with run-eval). Rows are shared with
 * the input. IB_EINVAL when rows is not a list. */
int mx_gha_families(ib_arena *a, const ib_val *rows, ib_val **out);

#endif
