/* sim/telemetry: --gpu-metrics, the simulated GPU telemetry of a simulator
 * process (docs/sim.md "Simulated GPU telemetry"): the CSV a GPU monitor
 * (nvidia-smi --format=csv -l) writes, one row per GPU per interval, with
 * board power modelled from the engine's busy time. No GPU is measured. */
#include "sim/private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

/* Board power limits (W) of the GPU types, as their vendors state them. */
static const struct {
	const char *hw;
	double tdp;
} boards[] = {{"h100", 700},    {"h200", 700},      {"b200", 1000},  {"b300", 1100},
              {"gb200", 1200},  {"gb300", 1400},    {"mi300x", 750}, {"mi325x", 1000},
              {"mi355x", 1400}, {"rtx6000pro", 600}};

double sim_board_power(const char *hw, double util)
{
	double tdp = 700;
	for (size_t i = 0; hw && i < sizeof boards / sizeof *boards; i++)
		if (!strcmp(boards[i].hw, hw))
			tdp = boards[i].tdp;
	util = util < 0 ? 0 : util > 1 ? 1 : util;
	/* an idle board draws about a sixth of its limit; a busy one about 90 % */
	return tdp * (SIM_IDLE_POWER_FRAC + (SIM_BUSY_POWER_FRAC - SIM_IDLE_POWER_FRAC) * util);
}

struct sim_telemetry {
	sim_server *srv;
	FILE *f;
	net_timer timer;
	int64_t every, last_wall;
	double last_busy[2]; /* this engine's, its in-process prefill pool's */
	int gpus[2];
	const char *hw;
};

static double busy_of(const sim_server *s)
{
	return s ? s->m.busy_s : 0;
}

/* One sample of every GPU, stamped now (nvidia-smi's local-time format). */
static void sample(sim_telemetry *t)
{
	int64_t now = ib_now_ns();
	double dt = (double)(now - t->last_wall) * 1e-9;
	const sim_server *pool[2] = {t->srv, t->srv->prefill};
	double util[2];
	for (int k = 0; k < 2; k++) {
		double b = busy_of(pool[k]);
		util[k] = dt > 0 ? (b - t->last_busy[k]) / dt : 0;
		util[k] = util[k] < 0 ? 0 : util[k] > 1 ? 1 : util[k];
		t->last_busy[k] = b;
	}
	t->last_wall = now;
	struct timeval tv;
	gettimeofday(&tv, NULL);
	struct tm tm;
	localtime_r(&tv.tv_sec, &tm);
	char ts[64];
	size_t n = strftime(ts, sizeof ts, "%Y/%m/%d %H:%M:%S", &tm);
	snprintf(ts + n, sizeof ts - n, ".%03d", (int)(tv.tv_usec / 1000));
	int index = 0;
	for (int k = 0; k < 2; k++)
		for (int g = 0; g < t->gpus[k]; g++, index++)
			fprintf(t->f, "%s, %d, %.2f W, %d %%, 1\n", ts, index,
			        sim_board_power(t->hw, util[k]), (int)(util[k] * 100 + 0.5));
	fflush(t->f);
}

static void on_tick(net_loop *l, net_timer *tm)
{
	sim_telemetry *t = tm->arg;
	sample(t);
	net_timer_arm(l, &t->timer, tm->when + t->every);
}

int sim_telemetry_start(sim_server *s, const char *path, double interval, sim_telemetry **out,
                        ib_error *e)
{
	*out = NULL;
	if (!(interval > 0))
		return ib_fail(e, IB_EINVAL, path, 0, 0, "the sample interval must be above 0 s");
	sim_telemetry *t = calloc(1, sizeof *t);
	if (!t)
		return ib_fail(e, IB_ENOMEM, NULL, 0, 0, "out of memory");
	t->f = fopen(path, "w");
	if (!t->f) {
		int err = errno;
		free(t);
		return ib_fail(e, IB_EIO, path, 0, 0, "cannot write: %s", strerror(err));
	}
	t->srv = s;
	t->hw = s->cfg.hw.name;
	/* this process's GPUs: its engine's replicas, then its in-process
	 * prefill pool's (a --role decode process models only its own) */
	sim_config own = s->cfg;
	own.prefill_workers = 0;
	t->gpus[0] = sim_config_gpus(&own);
	t->gpus[1] = s->prefill ? sim_config_gpus(&s->cfg) - t->gpus[0] : 0;
	t->every = (int64_t)(interval * 1e9);
	t->last_wall = ib_now_ns();
	t->last_busy[0] = busy_of(s);
	t->last_busy[1] = busy_of(s->prefill);
	/* the columns of the reference's monitor that infbench power reads, and
	 * a last one saying that no GPU was measured */
	fputs("timestamp, index, power.draw [W], utilization.gpu [%], simulated\n", t->f);
	sample(t);
	t->timer = (net_timer){.fn = on_tick, .arg = t};
	net_timer_arm(s->loop, &t->timer, t->last_wall + t->every);
	*out = t;
	return 0;
}

int sim_telemetry_stop(sim_telemetry *t, ib_error *e)
{
	if (!t)
		return 0;
	net_timer_cancel(t->srv->loop, &t->timer);
	sample(t); /* the last one, at the end of serving */
	int bad = ferror(t->f);
	bad |= fclose(t->f) != 0;
	free(t);
	return bad ? ib_fail(e, IB_EIO, NULL, 0, 0, "writing the GPU metrics failed") : 0;
}
