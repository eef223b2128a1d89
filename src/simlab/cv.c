/* sim validate --cv: leave-one-group-out cross-validation of the
 * calibration (docs/sim.md "Out of sample"): the keys rows are grouped by,
 * a fold's training set (every row of the other groups) and the
 * calibration fitted on it with the calibration's own fitter
 * (slab_calibrate). */
#include "simlab/simlab.h"

#include <stdio.h>
#include <string.h>

bool slab_name_in(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *s = list; s && *s;) {
		size_t len = strcspn(s, ",");
		if (len == n && !strncmp(s, name, n))
			return true;
		s += len + (s[len] == ',');
	}
	return false;
}

int slab_cv_grouping_parse(const char *name, slab_cv_grouping *g)
{
	static const char *const names[] = {"model", "gpu", "model-gpu", "framework-vendor"};
	for (int i = 0; i < 4; i++)
		if (!strcmp(name, names[i])) {
			*g = (slab_cv_grouping)(SLAB_CV_MODEL + i);
			return 0;
		}
	return IB_EINVAL;
}

void slab_cv_key(const slab_point *p, slab_cv_grouping g, char *buf, size_t n)
{
	const char *model = p->model ? p->model : p->model_name;
	const char *gpu = p->gpu ? p->gpu : p->gpu_name;
	if (!model)
		model = "?";
	if (!gpu)
		gpu = "?";
	switch (g) {
	case SLAB_CV_MODEL:
		snprintf(buf, n, "%s", model);
		break;
	case SLAB_CV_GPU:
		snprintf(buf, n, "%s", gpu);
		break;
	case SLAB_CV_MODEL_GPU:
		snprintf(buf, n, "%s/%s", model, gpu);
		break;
	case SLAB_CV_FW_VENDOR:
		/* the GPU profiles' vendors: AMD's Instinct parts are mi*, the
		 * others NVIDIA's */
		snprintf(buf, n, "%s/%s", p->framework ? p->framework : "any",
		         strncmp(gpu, "mi", 2) && strncmp(gpu, "MI", 2) ? "nvidia" : "amd");
		break;
	default:
		snprintf(buf, n, "%s", "");
	}
}

int slab_cv_train(const slab_point *pts, size_t n, slab_cv_grouping g, const char *held,
                  ib_arena *a, slab_point **out, size_t *nout, size_t *nmeasured)
{
	slab_point *t = ib_arena_alloc(a, (n ? n : 1) * sizeof *t);
	if (!t)
		return IB_ENOMEM;
	size_t k = 0, m = 0;
	for (size_t i = 0; i < n; i++) {
		char key[256];
		slab_cv_key(&pts[i], g, key, sizeof key);
		if (!strcmp(key, held))
			continue;
		t[k++] = pts[i];
		m += !pts[i].why && pts[i].kind == SLAB_POINT_MEASURED;
	}
	*out = t;
	*nout = k;
	if (nmeasured)
		*nmeasured = m;
	return 0;
}

int slab_cv_fit(const slab_point *pts, size_t n, int prompts, ib_arena *a, sim_calib_file *out,
                ib_error *e)
{
	slab_fit_group *gs[SLAB_FIT_NLEVELS];
	size_t ng[SLAB_FIT_NLEVELS];
	ib_buf yaml = {0};
	int rc = slab_calibrate(pts, n, NULL, NULL, prompts, a, gs, ng, &yaml, out, e);
	ib_buf_free(&yaml);
	if (!rc)
		out->path = "(cross-validation fold)";
	return rc;
}
