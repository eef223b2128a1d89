/* The simulator's prediction-interval table (sim/interval.c: sim_iv_load,
 * then sim_iv_lookup for a few configurations, and sim_iv_header /
 * sim_iv_parse of each interval). Checks: no crash; a failure has a message,
 * an IB_EINVAL failure at least one diagnostic and every diagnostic a
 * message, the file and a line (but for an empty document); a loaded table
 * has a pool "all", and every lookup gives finite positive factors lo <= hi
 * whose header parses back to the same interval. */
#include "fuzz.h"

#include <math.h>

#include "sim/sim.h"

static const char *const files[] = {"intervals.yaml", NULL};

static void check_iv(const sim_iv *iv)
{
	FUZZ_CHECK(isfinite(iv->tput[0]) && isfinite(iv->tput[1]) && iv->tput[0] > 0 &&
	               iv->tput[0] <= iv->tput[1],
	           "tput factors %g %g", iv->tput[0], iv->tput[1]);
	FUZZ_CHECK(isfinite(iv->inter[0]) && isfinite(iv->inter[1]) && iv->inter[0] > 0 &&
	               iv->inter[0] <= iv->inter[1],
	           "interactivity factors %g %g", iv->inter[0], iv->inter[1]);
	char h[384], pool[128];
	sim_iv_header(iv, h, sizeof h);
	if (!h[0] || strlen(iv->pool) >= sizeof pool)
		return; /* too long for a header: left out */
	const char *v = h + strlen("X-Infbench-Sim-Interval: ");
	sim_iv back;
	FUZZ_CHECK(sim_iv_parse(v, strlen(v) - 2, &back, pool, sizeof pool), "header %s", h);
	FUZZ_CHECK(back.tput[0] == iv->tput[0] && back.inter[1] == iv->inter[1] &&
	               back.widen == iv->widen && !strcmp(back.pool, iv->pool),
	           "header %s does not parse back", h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[512];
	snprintf(path, sizeof path, "%s/intervals.yaml", fuzz_tmpdir(files));
	fuzz_write(path, data, size);
	ib_arena *a = ib_arena_new();
	if (!a)
		return 0;
	ib_diags d = {.a = a};
	ib_error e = {0};
	sim_iv_table t;
	int rc = sim_iv_load(path, a, &t, &d, &e);
	FUZZ_CHECK(rc <= 0, "rc %d", rc);
	if (rc)
		FUZZ_CHECK(e.msg[0], "error %d without a message", rc);
	if (rc == IB_EINVAL)
		FUZZ_CHECK(d.n > 0, "IB_EINVAL without a diagnostic");
	for (size_t i = 0; i < d.n; i++)
		FUZZ_CHECK(d.items[i].msg && d.items[i].msg[0] && d.items[i].file &&
		               (d.items[i].line >= 1 || fuzz_yaml_empty(a, data, size)),
		           "diagnostic %zu: %s at line %d", i, d.items[i].msg, d.items[i].line);
	if (!rc) {
		static const char *const q[][3] = {
		    {"vllm", "h100", "llama3-70b"},
		    {"sglang", "mi355x", "deepseek-r1"},
		    {NULL, "b300", NULL},
		    {"trt", "gb200", "kimi-k2.5"},
		};
		for (size_t i = 0; i < sizeof q / sizeof *q; i++) {
			sim_iv iv;
			if (!sim_iv_lookup(&t, q[i][0], q[i][1], q[i][2], &iv))
				check_iv(&iv);
		}
	}
	ib_arena_free(a);
	return 0;
}
