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
/* The hardware name calibration rules are matched with for GPU gpu: gpu
 * itself when a rule of cal names it, else its closest sibling that one
 * names within its architecture (B300/GB200 -> B200, GB300 -> B300 or
 * B200, B200 -> B300, H100 <-> H200, MI300X <-> MI325X), else gpu (docs/sim.md "Frontier and
 * peak rows"). Only rules that can apply to precision count (a rule
 * matching other precisions does not make a GPU calibrated for this one;
 * precision NULL: every rule). */
const char *slab_calib_hw_for(const sim_calib_file *cal, const char *gpu, const char *precision);
/* The same for a server of model `model`: gpu when a rule names both, else
 * the first sibling of gpu (as above) with a rule naming both — the model's
 * calibration on the same architecture is closer than another model's on
 * this GPU — else slab_calib_hw_for(cal, gpu). */
const char *slab_calib_hw_for_model(const sim_calib_file *cal, const char *gpu, const char *model,
                                    const char *precision);
/* The framework whose calibration rules a server of `framework` on
 * calibration hardware hw (slab_calib_hw_for's answer) takes: framework
 * itself when a rule of cal names it together with hw, else the first
 * framework a rule names for hw (the one calibrated on that GPU: its
 * kernels and host overheads are the closest measured), else framework
 * (the model-wide rules apply; docs/sim.md "Frontier and peak rows").
 * Only rules that can apply to model and precision count
 * (slab_calib_rule_can_apply). */
const char *slab_calib_fw_for(const sim_calib_file *cal, const char *framework, const char *hw,
                              const char *model, const char *precision);
/* True when rule r can apply to a server of model and precision: its model
 * and precision matches are absent or name them (NULL: not checked). A rule
 * for other models or precisions says nothing about which GPUs and
 * frameworks are calibrated for this one (the fallbacks above, the sweep's
 * frameworks). */
bool slab_calib_rule_can_apply(const sim_calib_rule *r, const char *model, const char *precision);
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
