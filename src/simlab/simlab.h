/* simlab — the simulator's lab: published InferenceX points, frontier
 * sweeps, the calibration fit and validation, run in process on the sim
 * engine (docs/sim.md "Validation" and "Calibration"). */
#ifndef IB_SIMLAB_H
#define IB_SIMLAB_H

#include "sim/sim.h"

/* ---- published points (docs/sim.md "Validation") ---- */
typedef enum {
	SLAB_POINT_MEASURED, /* blog-measured, pr-table-inferencex: a fixed recipe */
	SLAB_POINT_PEAK,     /* blog-peak: a best config, often without its TP */
	SLAB_POINT_FRONTIER, /* dashboard and blog-interpolated rows */
	SLAB_POINT_OTHER,    /* prose, vendor numbers */
} slab_point_kind;

typedef struct {
	int row_id, line;
	const char *page_kind, *model_name, *gpu_name; /* as the file has them */
	slab_point_kind kind;
	/* the configuration (NULL / 0 where the row does not say) */
	const char *model, *gpu, *precision, *framework, *spec;
	const char *version; /* the first image tag (vX.Y...) or date (YYYY-MM-DD) in the note */
	int tp, ep, conc, isl, osl;
	bool dp_attn, disagg;
	bool no_spec; /* frontier / peak rows: the page or note rules speculative decoding out */
	double tps_gpu, interactivity; /* published (NAN when absent) */
	double cost;                   /* published $ per million total tokens (NAN when absent) */
	double tpot_ms;                /* peak rows: published median TPOT (NAN when absent) */
	bool tps_from_cost;            /* tps_gpu was derived from cost (README's formula) */
	const char *why;               /* non-NULL: why the row cannot be run */
} slab_point;

typedef struct {
	double tps_gpu, interactivity, median_tpot, median_ttft;
} slab_point_result;

/* Reads points.tsv (../shared/golden/real-frontiers/README.md) into *out
 * (n rows, in arena a): each row's kind, its configuration from the
 * columns and the recipe note (framework, TP=, EP=, MTP/EAGLE, DP
 * attention, disaggregation, concurrency), and why it cannot run, if so.
 * Errors: IB_ENOENT, IB_EINVAL (a missing column, no rows), IB_ENOMEM. */
int slab_points_load(const char *path, ib_arena *a, slab_point **out, size_t *n, ib_error *e);
/* The simulator configuration of a runnable row, its calibration resolved
 * from cal (NULL: defaults). IB_EINVAL with p->why otherwise. */
int slab_point_config(const slab_point *p, const sim_calib_file *cal, sim_config *c, ib_error *e);
/* Runs the row in process (sim_run_load, prompts_per_conc x concurrency
 * prompts, ratio 0.8, seed = row id) and gives total tok/s per GPU and
 * interactivity (1 / median TPOT). */
int slab_point_run(const slab_point *p, const sim_calib_file *cal, int prompts_per_conc,
                   slab_point_result *r, ib_error *e);

/* ---- frontier sweeps (docs/sim.md "Frontier and peak rows") ----
 * A frontier or peak row stands for the best of every serving config of its
 * series: model x GPU x precision x ISL/OSL (and the framework, framework
 * version and speculative-decoding setting its note names, if any). The
 * sweep runs the generic search space of that series in process:
 * frameworks (the note's, else every framework the calibration file has a
 * rule for on that GPU, else vllm), TP in {1,2,4,8} within a node (4 GPUs
 * on GB200/GB300 trays), EP in {1, TP} for MoE models, DP-attention on/off
 * with EP = TP > 1 (SGLang, vLLM, TRT-LLM), speculative decoding off and
 * on (the model's MTP or EAGLE3 drafts, 3 tokens) unless ruled out or
 * required — with a sweep matrix, on only when a row of that model there
 * runs spec decoding (InferenceX has a recipe) —, concurrency
 * 4..max_conc doubling. Configs whose weights do not
 * fit are left out. */
/* The worker pools of a multi-node config (a master config's multinode
 * search space: its `prefill` and `decode` pools); all zero for one
 * single-node instance. tp/ep/dp_attn of the config are then the decode
 * worker's (aggregated multi-node rows: the workers'). */
typedef struct {
	int replicas;        /* instances behind the one endpoint (decode workers) */
	int prefill_workers; /* > 0: disaggregated, this many prefill instances */
	int prefill_tp, prefill_ep;
	bool prefill_dp_attn;
} slab_pools;

/* Where a sweep's configs came from. */
typedef enum {
	SLAB_SWEEP_GIVEN,          /* slab_sweep_opts.only */
	SLAB_SWEEP_MATRIX,         /* the matrix's rows of the series (slab_sweep_from_matrix) */
	SLAB_SWEEP_OTHER_WORKLOAD, /* ... at another ISL/OSL (slab_sweep_other_workload) */
	SLAB_SWEEP_GENERIC,        /* the generic space */
} slab_sweep_source;

typedef struct {
	const char *framework, *spec; /* spec: NULL when off */
	int tp, ep, conc;
	bool dp_attn;
	double tps_gpu, interactivity, median_ttft, median_tpot;
	slab_sweep_source source;
	slab_pools pools; /* multi-node configs; zero: single-node */
} slab_sweep_point;

/* The $/GPU-hr the dashboard prices a GPU at (owning hyperscaler, README of
 * real-frontiers), NAN when unknown; gpu is a profile name ("mi355x"). */
double slab_gpu_price(const char *gpu);
/* GPUs of one node the sweep spreads TP over: 4 on GB200/GB300 trays, else 8. */
int slab_sweep_node_gpus(const char *gpu);
/* True when a and b belong to the same series (one sweep serves both). */
bool slab_point_same_series(const slab_point *a, const slab_point *b);
/* Runs the sweep of p's series (p a frontier or peak row without why)
 * with the options o. *out (malloc'd, the caller frees it) gets the configs that
 * ran, in enumeration order; *nconf the number enumerated. IB_EINVAL when
 * p cannot run, IB_ENOMEM. */
typedef struct {
	int prompts_per_conc; /* prompts per unit of concurrency of each config (InferenceX: 10) */
	int max_conc;         /* the highest concurrency (4, 8, ... max_conc) */
	/* the highest concurrency of a multi-node config; 0: multi-node
	 * configs are not swept (sim calibrate) */
	int max_conc_multinode;
	bool no_spec; /* spec decoding only where the row requires it */
	/* a sweep matrix (`matrix full-sweep` rows as ib_val maps), or NULL: a
	 * series with single-node rows there sweeps those configs instead of
	 * the generic space (slab_sweep_from_matrix) */
	const ib_val *matrix;
	/* when non-NULL: run exactly these nonly configs (a subset of an
	 * earlier sweep of the same series, e.g. the configs that made its
	 * frontier) instead of enumerating the series' space */
	const struct slab_sweep_config *only;
	size_t nonly;
} slab_sweep_opts;

/* One config of a sweep (concurrency included). */
typedef struct slab_sweep_config {
	const char *framework, *spec; /* spec: NULL when off */
	int tp, ep, conc;
	bool dp_attn;
	slab_pools pools; /* multi-node configs; zero: single-node */
} slab_sweep_config;
/* The config a sweep point ran. */
slab_sweep_config slab_sweep_config_of(const slab_sweep_point *q);
/* The configs of the matrix rows that belong to p's series: rows (pp 1) of
 * p's model (model-prefix resolved through the profile aliases),
 * precision, GPU (the runner's name up to its first '-', without
 * "cluster:"), ISL/OSL, framework (when p names one) and spec setting (MTP
 * rows run the model's draft method). Single-node rows at concurrency <=
 * o->max_conc; multi-node rows (`prefill` / `decode` pools: disaggregated,
 * or aggregated with no decode workers) at every concurrency of their list
 * up to o->max_conc_multinode (0: none), with their pools. A
 * disaggregated peak row (p->disagg) takes only the multi-node rows, an
 * aggregated peak row only the single-node ones, a frontier row both.
 * Duplicates once. *out is malloc'd (NULL when none). 0 or IB_ENOMEM. */
int slab_sweep_from_matrix(const ib_val *rows, const slab_point *p, const slab_sweep_opts *o,
                           slab_sweep_config **out, size_t *n);
/* A series the matrix has no row of at its ISL/OSL: the single-node
 * configs (framework, spec setting, TP, EP, DP attention) of the matrix
 * rows of p's model, precision, GPU and framework (when p names one) at
 * any workload, each at concurrency 4, 8, ... o->max_conc; a peak row of a
 * disaggregated config gets none. Duplicates once; *out malloc'd (NULL when
 * none). 0 or IB_ENOMEM. */
int slab_sweep_other_workload(const ib_val *rows, const slab_point *p, const slab_sweep_opts *o,
                              slab_sweep_config **out, size_t *n);
int slab_sweep_run(const slab_point *p, const sim_calib_file *cal, const slab_sweep_opts *o,
                   slab_sweep_point **out, size_t *n, size_t *nconf, ib_error *e);
/* A peak row's counterpart: of the sweep points at the concurrency nearest
 * to conc (ties: the lower) and of framework fw (NULL: any), the one with
 * the highest tok/s/GPU; -1 when none. */
ptrdiff_t slab_sweep_peak(const slab_sweep_point *pts, size_t n, int conc, const char *fw);

/* Absolute percentage errors of a group of rows (sim validate's summary,
 * per kind and per GPU). Zero-initialise; release with slab_ape_free. */
typedef struct {
	size_t total, runnable; /* rows counted, rows that ran */
	double *tps, *inter;    /* |error| in % of each published figure */
	size_t ntps, ninter, cap_tps, cap_inter;
} slab_ape;
/* The signed error of sim against published in %; NAN when published is NAN
 * (the row publishes no such figure). */
double slab_err_pct(double sim, double published);
/* Counts a row; one that ran with its signed errors in % (slab_err_pct; NAN:
 * not published, not counted in that figure). 0 or IB_ENOMEM. */
int slab_ape_add(slab_ape *g, bool runnable, double tps_err, double inter_err);
/* Median and mean of the tok/s/GPU and interactivity APEs (NAN when the
 * group has none); sorts the group's arrays. */
void slab_ape_stats(slab_ape *g, double *tps_median, double *tps_mean, double *inter_median,
                    double *inter_mean);
/* The 90th percentile (nearest rank) of the tok/s/GPU and interactivity
 * APEs (NAN when the group has none); sorts the group's arrays. */
void slab_ape_p90(slab_ape *g, double *tps_p90, double *inter_p90);
void slab_ape_free(slab_ape *g);

/* True when name is one of the comma-separated names of list. */
bool slab_name_in(const char *list, const char *name);

/* ---- cross-validation (sim validate --cv; docs/sim.md "Out of sample") ----
 * Leave one group out: the rows of one group (by model, GPU, model x GPU or
 * framework x GPU vendor) are held out, the calibration is fitted on every
 * other row the way `sim calibrate --no-frontier` fits it (slab_calibrate,
 * from the defaults), and the held-out rows are predicted with it. */
typedef enum {
	SLAB_CV_OFF,
	SLAB_CV_MODEL,
	SLAB_CV_GPU,
	SLAB_CV_MODEL_GPU,
	SLAB_CV_FW_VENDOR, /* framework x GPU vendor (nvidia, amd); "any" framework
	                    * for rows that name none */
} slab_cv_grouping;
/* "model", "gpu", "model-gpu", "framework-vendor" into *g; IB_EINVAL for
 * another name. */
int slab_cv_grouping_parse(const char *name, slab_cv_grouping *g);
/* The group key of p under g ("minimax-m3", "h200", "minimax-m3/h200",
 * "vllm/nvidia") into buf (n bytes, truncated); "" for SLAB_CV_OFF. */
void slab_cv_key(const slab_point *p, slab_cv_grouping g, char *buf, size_t n);
/* The training set of the fold that holds out group `held`: copies of the
 * rows of pts whose key differs (in arena a; none of them has key held).
 * *nmeasured (when not NULL) gets how many of them the fit uses (runnable
 * measured rows). 0 or IB_ENOMEM. */
int slab_cv_train(const slab_point *pts, size_t n, slab_cv_grouping g, const char *held,
                  ib_arena *a, slab_point **out, size_t *nout, size_t *nmeasured);
/* The calibration a fold predicts with: slab_calibrate's five measured
 * levels, as the committed file's measured part, fitted on pts from the
 * defaults with `prompts` prompts per unit of concurrency (the committed
 * file's --prompts-per-conc 2), rules in a. A model or version rule is
 * fitted on its own model's rows, so it never resolves for a held-out
 * measured row of the data (the measured figures are the same with the
 * first three levels only), but a held-out frontier or peak row takes a
 * sibling GPU's rule for its model when its own GPU has none for it
 * (MiniMax M3 on H100 from MiniMax M3 on H200's), as it does under the
 * committed file. Errors of slab_calibrate. */
int slab_cv_fit(const slab_point *pts, size_t n, int prompts, ib_arena *a, sim_calib_file *out,
                ib_error *e);

/* ---- the fit (sim calibrate) ---- */
#define SLAB_FIT_MIN_POINTS 4
typedef struct {
	const char *framework, *gpu; /* the group: measured runnable rows of this pair */
	const char *model;           /* and of this model (NULL: any model) */
	const char *version;         /* and of this framework version (NULL: any) */
	/* frontier groups (`sim calibrate`'s frontier levels): frontier rows
	 * of one GPU (model and precision NULL) or of GPU x model x precision;
	 * the rule matches these frameworks (NULL-terminated; framework is
	 * NULL) */
	bool frontier;
	const char *precision;
	const char *const *frameworks;
	size_t nseries;
	size_t npoints, nfigures;       /* rows, and published figures (tok/s/GPU, interactivity) */
	bool fitted;                    /* npoints >= SLAB_FIT_MIN_POINTS (frontier groups: and the
	                                 * rule lowered the group's error) */
	sim_calib values;               /* the group's parameters after the fit */
	double loss_before, loss_after; /* mean squared log error of its figures */
} slab_fit_group;
/* Fits mem-eff, compute-eff, step-overhead-us and seq-overhead-us per framework x GPU
 * group (coordinate descent, golden-section searches, deterministic) on
 * top of base (NULL: defaults), running each point with prompts x its
 * concurrency prompts. *out (in arena a) lists every group. */
/* The levels of the measured fit, in the order slab_calibrate fits them. */
enum {
	SLAB_LEVEL_ALL = -1,    /* every row: one global rule */
	SLAB_LEVEL_FW_GPU = 0,  /* framework x GPU */
	SLAB_LEVEL_MODEL = 1,   /* framework x GPU x model */
	SLAB_LEVEL_VERSION = 2, /* framework x GPU x model x version (rows with one) */
	SLAB_LEVEL_FW = 3,      /* framework, over every GPU */
};
#define SLAB_FIT_NLEVELS 5
/* The pull of each level's rule towards the level before it (ridge x the
 * sum of the squared log ratios of the three fitted parameters, added to the
 * group's error; docs/sim.md "Calibration"): 0.1, the best of 0, 0.03,
 * 0.05, 0.1, 0.2, 0.3 and 1 by the error cross-validated by model x GPU. */
#define SLAB_FIT_RIDGE 0.1
/* The log error beyond which a row's cost grows linearly instead of
 * squared (Huber's loss): 0.3, a factor of 1.35. */
#define SLAB_FIT_HUBER 0.3
/* Rows weigh 1 / their model x GPU's rows in the group; every level but
 * SLAB_LEVEL_ALL is pulled towards what base gives the group with strength
 * ridge (0: a plain fit). SLAB_LEVEL_ALL's rule also sets comm-eff to
 * SLAB_FIT_COMM_EFF, which the lower levels inherit and do not set. */
int slab_fit(const slab_point *pts, size_t n, const sim_calib_file *base, int prompts, double ridge,
             int level, ib_arena *a, slab_fit_group **out, size_t *nout, ib_error *e);
/* A fit's objective: the mean squared log error of some published figures
 * when the simulator runs under cal (*nfigures, when not NULL, gets their
 * count); INFINITY when a run fails. */
typedef double (*slab_fit_loss_fn)(void *ctx, const sim_calib_file *cal, size_t *nfigures);
/* mem-eff of every fitted rule, not searched: weights and KV are read at
 * the GPU's published HBM bandwidth, and what kernels lose below it (small
 * reads, launches, syncs) is time per step. Fitted, mem-eff settled at
 * 0.39-0.75 on the TP 8 rows that dominate the data, and a held-out row at
 * TP 2 or 4 (4x the bytes per GPU) came out 25-45 % too slow; chosen by
 * the cross-validated error (docs/sim.md "Out of sample"). */
#define SLAB_FIT_MEM_EFF 1.0
/* comm-eff of the first level's rule (every framework and GPU), not
 * searched: the fraction of the scale-up link's bandwidth a decode step's
 * all-reduce (a few hundred KB) reaches. Searched on the first level, it
 * went to 0.16 (or to 0.08, trading the whole per-sequence overhead and the
 * prefill's compute for it, when searched first); at 1.0 the all-reduces of
 * TP 8 rows went into the TP-independent overheads and held-out TP 2 rows
 * came out 20-45 % too slow. Chosen by the cross-validated error among 1.0,
 * 0.35, 0.2 and fitted (pull 0.03), then among 0.3, 0.2, 0.15, 0.125 and
 * 0.1 with the pull 0.1, by the sum of the three targets' medians
 * (measured tok/s/GPU and interactivity, frontier) among the values whose
 * p90s are at most 10 points worse than 0.2's: 0.15 (14.9 + 14.4 + 42.2
 * against 16.3 + 13.8 + 43.0; frontier p90 104 against 97 %); 0.125 and
 * 0.1 have lower medians but frontier p90s of 131 and 159 % (docs/sim.md
 * "Calibration"). */
#define SLAB_FIT_COMM_EFF 0.15
/* Fits step-overhead-us, seq-overhead-us and compute-eff of cal's last
 * rule and sets its mem-eff to SLAB_FIT_MEM_EFF (starting from its values;
 * the rule's `set` gains all four) by
 * coordinate descent: `passes` rounds of one golden-section search per
 * parameter (`iters` steps each, log scale) minimising loss(ctx, cal).
 * Deterministic when loss is. slab_fit uses it for the measured groups;
 * `sim calibrate` for the frontier groups (docs/sim.md "Calibration"). */
void slab_fit_descend(sim_calib_file *cal, slab_fit_loss_fn loss, void *ctx, int passes, int iters);
/* The calibration rule of group g (its match: framework or frameworks, GPU,
 * precision, model, version, each when set; its values; the fitted
 * parameters marked set), name lists in arena a. 0 or IB_ENOMEM. */
int slab_fit_group_rule(const slab_fit_group *g, ib_arena *a, sim_calib_rule *r);
/* base's rules followed by the fitted groups' (in arena a); IB_ENOMEM. */
int slab_fit_append(const sim_calib_file *base, const slab_fit_group *g, size_t n, ib_arena *a,
                    sim_calib_file *out);
/* The fitted groups as calibration rules (YAML list items, indented two
 * spaces under `rules:`), each with a note of its provenance. */
void slab_fit_rules(const slab_fit_group *g, size_t n, ib_buf *out);
/* The measured part of the calibration (what `sim calibrate` writes before
 * its frontier level): five levels fitted one on top of the other on base
 * (NULL or empty: the defaults) — every row, framework, framework x GPU,
 * x model, x framework version — each level's groups in gs[l] (ng[l] of them, in arena
 * a), the calibration file (a header naming prompts and base_name, the
 * defaults rule, the fitted rules) appended to yaml, and its rules in
 * *fitted (in a; NULL: not wanted). Errors of slab_fit; IB_ENOMEM. */
int slab_calibrate(const slab_point *pts, size_t n, const sim_calib_file *base,
                   const char *base_name, int prompts, ib_arena *a,
                   slab_fit_group *gs[SLAB_FIT_NLEVELS], size_t ng[SLAB_FIT_NLEVELS], ib_buf *yaml,
                   sim_calib_file *fitted, ib_error *e);

/* ---- the lab's commands (sim validate, sim calibrate) ---- */

/* The lab's output: each line without its newline, with stream
 * SLAB_LOG_OUT (the report: stdout in the CLI) or SLAB_LOG_PROGRESS (a status
 * line while a long fit runs, to redraw in place on a terminal; a NULL line
 * clears it). A NULL callback drops them. The library itself never prints.
 * The shape and stream values of base's log callback (ib_emitv). */
enum { SLAB_LOG_OUT = 1, SLAB_LOG_PROGRESS = 3 };
typedef void (*slab_log_fn)(void *ud, int stream, const char *line);

/* ---- prediction intervals (sim validate --cv; docs/sim.md "Prediction
 * intervals") ----
 * A cross-validated residual: a held-out measured row, what its fold's
 * calibration simulated, and r = ln(published / simulated) per figure. */
typedef struct {
	const slab_point *p;
	const char *group; /* the held-out group it was predicted in */
	double sim_tps, sim_inter;
	double r_tps, r_inter; /* NAN: the figure is not published */
} slab_resid;

typedef struct {
	double level;            /* nominal coverage (0.8) */
	const sim_iv_rule *rule; /* the widening (NULL: SIM_IV_INFLATION, _ADD, _CAP) */
	size_t min_n;            /* residuals a pool needs (0: SIM_IV_MIN_RESIDUALS) */
} slab_iv_opts;

/* The interval table of residuals r[0..n), those of group skip (when not
 * NULL) left out: a pool per framework x GPU family, vendor and "all" that
 * has residuals (sim_iv_keys), each with the type-7 quantiles (1 - level) / 2
 * and (1 + level) / 2 of its residuals (a pool without interactivity
 * residuals takes its tok/s/GPU quantiles), the models and GPUs seen; in a.
 * Deterministic: pools sorted by level then key. 0 or IB_ENOMEM. */
int slab_iv_build(const slab_resid *r, size_t n, const char *skip, const slab_iv_opts *o,
                  ib_arena *a, sim_iv_table *out);
/* The table as the YAML sim_iv_load reads (a header of comments naming
 * source, the command that made it), appended to out. */
void slab_iv_write(const sim_iv_table *t, const char *source, ib_buf *out);

/* The honest check: each residual's interval from the table built without
 * its held-out group (slab_iv_build with skip), and whether the published
 * figure falls inside it. */
typedef struct {
	size_t n_tps, in_tps, n_inter, in_inter; /* figures checked, figures inside */
	size_t n_w[4], in_w[4];        /* tok/s/GPU figures by widening steps (3: 3 or more) */
	double width_tps, width_inter; /* median hi / lo of the intervals */
	double p90_tps, p90_inter;     /* their 90th percentile */
} slab_iv_cover;
/* Fills *c and prints through log (NULL: nothing) the coverage summary and,
 * with rows, first one line per residual (row, held-out group, pool,
 * widening, simulated, interval, published, in or out). 0 or IB_ENOMEM. */
int slab_iv_check(const slab_resid *r, size_t n, const slab_iv_opts *o, ib_arena *a, bool rows,
                  slab_log_fn log, void *ud, slab_iv_cover *c);

/* The sweep matrix of the master configs masters[0..n) with runners (the
 * `matrix full-sweep` rows, evals left out) into *rows (in a), for the
 * frontier sweeps. Problems of the files go into d, then IB_EINVAL ("the
 * master configs have problems"); errors of mx_generate; IB_ENOMEM. */
int slab_matrix(ib_arena *a, const char *const *masters, size_t n, const char *runners, ib_diags *d,
                ib_val **rows, ib_error *e);

/* The frontier's tok/s/GPU at interactivity target over a sweep's points
 * (the dashboard's frontier and monotone spline, par_throughput_at) into
 * *value, the nearest point's index into *nearest and the interpolated
 * concurrency into *conc (either may be NULL). Returns 1, 0 when there is
 * no point, IB_ENOMEM. */
int slab_frontier_at(const slab_sweep_point *pts, size_t n, double target, double *value,
                     size_t *nearest, double *conc);

typedef struct {
	const slab_point *points; /* the published rows (slab_points_load) */
	size_t npoints;
	const sim_calib_file *cal;    /* the calibration (empty: defaults) */
	const char *calibration_name; /* its name for the first line */
	int prompts;                  /* prompts per unit of concurrency of measured rows */
	slab_sweep_opts sweep;        /* the frontier sweeps (matrix: set from masters) */
	bool kinds[4];                /* the row kinds to run (slab_point_kind) */
	bool quiet;                   /* no per-row lines: the unrunnable rows and the summary */
	bool show_sweeps;             /* every config of each sweep with its figures */
	/* cross-validation (SLAB_CV_OFF: in sample, with cal): each group of the
	 * selected rows is predicted by a calibration fitted on the other rows
	 * (slab_cv_fit with cv_prompts; cal is not used); cv_groups, when not
	 * NULL, a comma-separated list of the groups to hold out (the others
	 * are not run) */
	slab_cv_grouping cv;
	int cv_prompts;
	const char *cv_groups;
	/* with cv: the prediction intervals of the measured rows' residuals
	 * (iv; zero: 0.8, the rule SIM_IV_INFLATION / _ADD / _CAP,
	 * SIM_IV_MIN_RESIDUALS) are
	 * checked on held-out groups and printed, with the coverage and widths
	 * of the candidate widening rules beside (how the rule was chosen);
	 * write_intervals, when not NULL, gets the table of every residual
	 * (slab_iv_write, iv_source its source line) */
	slab_iv_opts iv;
	ib_buf *write_intervals;
	const char *iv_source;
	const char *const *masters; /* master configs for the sweep matrix (n 0: none) */
	size_t nmasters;
	const char *runners;
	slab_log_fn log;
	void *log_ud;
} slab_validate_opts;
/* `sim validate` (docs/sim.md "Validation"): prints the calibration used,
 * the sweep matrix (when master configs are given), one line per row that
 * ran (published vs simulated tok/s/GPU and interactivity, the relative
 * errors), the rows that cannot run and why, the sweeps' totals and the
 * median / mean / p90 absolute percentage errors per kind, page kind and
 * GPU, through o->log. With o->cv, the rows group by group, each predicted by
 * its fold's calibration (a line per fold says what it was trained on), and
 * the errors also per held-out group. Returns 0; slab_matrix's errors (its
 * problems in d); slab_cv_fit's; IB_EINVAL when o->cv_groups names no group
 * of the rows; IB_ENOMEM. */
int slab_validate(const slab_validate_opts *o, ib_arena *a, ib_diags *d, ib_error *e);

typedef struct {
	const slab_point *points; /* the published rows (slab_points_load) */
	size_t npoints;
	const sim_calib_file *base; /* rules the fit starts from (empty: defaults) */
	const char *base_name;      /* named in the file's header */
	int prompts;                /* prompts per unit of concurrency, rows and sweeps */
	int max_conc;               /* the frontier sweeps' highest concurrency */
	bool frontier;              /* false: the measured levels only */
	const char *const *masters; /* master configs for the sweep matrix (n 0: none) */
	size_t nmasters;
	const char *runners;
	slab_log_fn log;
	void *log_ud;
} slab_calibrate_opts;
/* `sim calibrate` (docs/sim.md "Calibration"): the measured levels
 * (slab_calibrate) and, with o->frontier, the two frontier levels (per GPU
 * without measured rules, then per GPU x model x precision); prints each
 * group's fit through o->log and appends the whole calibration file to yaml.
 * Errors of slab_calibrate and slab_matrix (problems in d); IB_ENOMEM. */
int slab_calibrate_run(const slab_calibrate_opts *o, ib_arena *a, ib_buf *yaml, ib_diags *d,
                       ib_error *e);

#endif
