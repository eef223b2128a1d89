/* simlab: what points.c, sweep.c and fit.c share (private). */
#ifndef IB_SIMLAB_PRIVATE_H
#define IB_SIMLAB_PRIVATE_H

#include "simlab/simlab.h"

/* The configuration of point p's model, GPU, precision and version run with
 * the given framework, speculative method (NULL: off), TP, EP, DP-attention
 * and concurrency, calibrated from cal (NULL: defaults). p must name a model
 * and GPU with profiles and a precision. */
void slab_point_config_with(const slab_point *p, const sim_calib_file *cal, const char *framework,
                            const char *spec, int tp, int ep, bool dp_attn, int conc,
                            sim_config *c);
/* Runs c under InferenceX's load (sim_run_load: conc x prompts_per_conc
 * prompts, ratio 0.8) and gives total tok/s per GPU and 1 / median TPOT.
 * Errors of sim_run_load. */
int slab_config_run(const sim_config *c, int conc, int prompts_per_conc, int isl, int osl,
                    uint64_t seed, slab_point_result *r, ib_error *e);

/* Formats a text and hands each of its lines to log (nothing when log is
 * NULL). */
void slab_out(slab_log_fn log, void *ud, int stream, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
