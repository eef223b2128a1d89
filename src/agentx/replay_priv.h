/* The replay's records and their writer (private to agentx/). */
#ifndef IB_AGENTX_REPLAY_PRIV_H
#define IB_AGENTX_REPLAY_PRIV_H

#include "agentx/agentx.h"
#include "bench/bench.h"

/* One finished request, as aiperf's profile_export.jsonl row holds it.
 * Times are nanoseconds on the replay's clock (Unix epoch at the start plus
 * model time on a time-scaled server); latencies milliseconds. */
typedef struct {
	const ax_trace *trace;
	uint64_t id, replay;
	size_t entry, turn; /* turn: the entry index, or the request within the subagent */
	bool subagent, warmup, ok, cancelled;
	int64_t start_ns, ack_ns, end_ns;
	double ttft_ms, latency_ms;
	int64_t isl, osl;
	int64_t hit_tokens; /* a perfect per-replay prefix cache's hits */
	int code;           /* HTTP status of a failure (0: none) */
	char etype[64];
	char emsg[320];
} ax_rec;

typedef struct {
	const ax_replay_opts *o;
	const ax_rec *rec;
	size_t n;
	double start_unix, end_unix; /* the profiling window */
	double scale;
	bool cancelled;
	size_t ntraces; /* kept after dropping */
	/* /metrics at the start and the end of the window (ok: scraped) */
	const bench_scrape *before, *after;
} ax_art;

/* Writes <artifact_dir, else out_dir/aiperf_artifacts>/{profile_export.jsonl,
 * profile_export_aiperf.json, and server_metrics_export.json when the
 * server's /metrics had vLLM's prefix-cache counters} and <out_dir>/env (none
 * without out_dir),
 * each atomically. */
int ax_art_write(const ax_art *a, ib_error *e);

#endif
