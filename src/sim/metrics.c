/* Prometheus text exposition with vLLM's metric names, and the prefix
 * cache's under the serving framework's own names too (SGLang, ATOM). */
#include "sim/private.h"

#include <string.h>

static const double latency_buckets[] = {0.001, 0.005, 0.01, 0.02,  0.04,  0.06,  0.08, 0.1,
                                         0.25,  0.5,   0.75, 1.0,   2.5,   5.0,   7.5,  10.0,
                                         20.0,  40.0,  80.0, 160.0, 640.0, 2560.0};

void sim_metrics_init(sim_metrics *m)
{
	memset(m, 0, sizeof *m);
	size_t nb = sizeof latency_buckets / sizeof *latency_buckets;
	m->ttft = (sim_hist){.bounds = latency_buckets, .nb = nb};
	m->itl = (sim_hist){.bounds = latency_buckets, .nb = nb};
	m->e2e = (sim_hist){.bounds = latency_buckets, .nb = nb};
}

void sim_hist_observe(sim_hist *h, double v)
{
	for (size_t i = 0; i < h->nb; i++)
		if (v <= h->bounds[i])
			h->counts[i]++;
	h->sum += v;
	h->count++;
}

static void gauge(ib_buf *b, const char *name, const char *help, const char *model, double v)
{
	ib_buf_printf(b, "# HELP %s %s\n# TYPE %s gauge\n%s{model_name=\"%s\"} %.17g\n", name, help,
	              name, name, model, v);
}

static void counter(ib_buf *b, const char *name, const char *help, const char *model, double v)
{
	ib_buf_printf(b, "# HELP %s %s\n# TYPE %s counter\n%s{model_name=\"%s\"} %.17g\n", name,
	              help, name, name, model, v);
}

static void hist(ib_buf *b, const char *name, const char *help, const char *model,
                 const sim_hist *h)
{
	ib_buf_printf(b, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
	for (size_t i = 0; i < h->nb; i++)
		ib_buf_printf(b, "%s_bucket{le=\"%g\",model_name=\"%s\"} %llu\n", name,
		              h->bounds[i], model, (unsigned long long)h->counts[i]);
	ib_buf_printf(b, "%s_bucket{le=\"+Inf\",model_name=\"%s\"} %llu\n", name, model,
	              (unsigned long long)h->count);
	ib_buf_printf(b, "%s_sum{model_name=\"%s\"} %.17g\n", name, model, h->sum);
	ib_buf_printf(b, "%s_count{model_name=\"%s\"} %llu\n", name, model,
	              (unsigned long long)h->count);
}

/* A counter with one more label, one sample per value. */
static void labelled(ib_buf *b, const char *name, const char *help, const char *model,
                     const char *label, const char *const *vals, const double *v, size_t n)
{
	ib_buf_printf(b, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
	for (size_t i = 0; i < n; i++)
		ib_buf_printf(b, "%s{model_name=\"%s\",%s=\"%s\"} %.17g\n", name, model, label,
		              vals[i], v[i]);
}

/* The prefix cache and the host tier (docs/sim.md "Metrics"). */
static void render_cache(const sim_server *s, ib_buf *b, double used)
{
	const sim_metrics *m = &s->m;
	const char *mn = s->cfg.served_model_name;
	const char *fw = s->cfg.framework ? s->cfg.framework : "vllm";
	int64_t bs = s->cfg.block_size;
	double host_used = (double)(s->pc.host_used * bs),
	       host_total = (double)(s->pc.host_blocks * bs);
	counter(b, "vllm:prefix_cache_queries_total",
	        "Prefix cache queries, in terms of number of queried tokens.", mn,
	        (double)m->pc_queries);
	counter(b, "vllm:prefix_cache_hits_total",
	        "Prefix cache hits, in terms of number of cached tokens.", mn, (double)m->pc_hits);
	const char *src[] = {"local_compute", "local_cache_hit", "external_kv_transfer"};
	double by[] = {(double)m->pc_computed, (double)m->pc_hits, (double)m->ext_hits};
	labelled(b, "vllm:prompt_tokens_by_source_total",
	         "Prompt tokens by where their KV came from.", mn, "source", src, by,
	         s->pc.host_blocks > 0 ? 3 : 2);
	if (s->pc.host_blocks > 0) {
		counter(b, "vllm:external_prefix_cache_queries_total",
		        "External prefix cache queries (the CPU offload tier), in tokens.", mn,
		        (double)m->ext_queries);
		counter(b, "vllm:external_prefix_cache_hits_total",
		        "External prefix cache hits (the CPU offload tier), in tokens.", mn,
		        (double)m->ext_hits);
		counter(b, "vllm:kv_offload_bytes_gpu_to_cpu_total",
		        "KV bytes offloaded to the CPU.", mn, m->offload_bytes_to_host);
		counter(b, "vllm:kv_offload_bytes_cpu_to_gpu_total",
		        "KV bytes loaded back from the CPU.", mn, m->offload_bytes_to_gpu);
		counter(b, "vllm:kv_offload_time_gpu_to_cpu_total",
		        "Seconds of GPU-to-CPU KV transfers.", mn, m->offload_s_to_host);
		counter(b, "vllm:kv_offload_time_cpu_to_gpu_total",
		        "Seconds of CPU-to-GPU KV transfers.", mn, m->offload_s_to_gpu);
		gauge(b, "vllm:cpu_kv_cache_usage_perc",
		      "CPU KV-cache usage. 1 means 100 percent usage.", mn,
		      host_total > 0 ? host_used / host_total : 0);
	}
	if (!strcmp(fw, "sglang")) {
		counter(b, "sglang:prompt_tokens_total", "Number of prefill tokens processed.", mn,
		        (double)m->prompt_tokens);
		counter(b, "sglang:generation_tokens_total",
		        "Number of generation tokens processed.", mn, (double)m->generation_tokens);
		const char *cs[] = {"device", "host"};
		double cv[] = {(double)m->pc_hits, (double)m->ext_hits};
		labelled(b, "sglang:cached_tokens_total",
		         "Prefix-cached prompt tokens by where they were.", mn, "cache_source", cs,
		         cv, s->pc.host_blocks > 0 ? 2 : 1);
		double q = (double)m->pc_queries;
		gauge(b, "sglang:cache_hit_rate", "The prefix cache hit rate.", mn,
		      q > 0 ? (double)(m->pc_hits + m->ext_hits) / q : 0);
		gauge(b, "sglang:token_usage", "The token usage of the KV cache.", mn, used);
		gauge(b, "sglang:max_total_num_tokens",
		      "Maximum total number of tokens in the KV cache.", mn,
		      (double)(s->total_blocks * bs));
		/* prompt tokens computed and found cached (either tier), generated tokens */
		const char *md[] = {"prefill_compute", "prefill_cache", "decode"};
		double mv[] = {(double)m->pc_computed, (double)(m->pc_hits + m->ext_hits),
		               (double)m->generation_tokens};
		labelled(b, "sglang:realtime_tokens_total", "Tokens processed, by mode.", mn,
		         "mode", md, mv, 3);
		if (s->pc.host_blocks > 0) {
			gauge(b, "sglang:hicache_host_used_tokens",
			      "Tokens held in the host cache.", mn, host_used);
			gauge(b, "sglang:hicache_host_total_tokens",
			      "Tokens the host cache holds at most.", mn, host_total);
		}
	} else if (!strcmp(fw, "atom")) {
		counter(b, "atom:prompt_tokens_total", "Number of prefill tokens processed.", mn,
		        (double)m->prompt_tokens);
		counter(b, "atom:generation_tokens_total", "Number of generation tokens processed.",
		        mn, (double)m->generation_tokens);
		counter(b, "atom:prefix_cache_full_tokens_total",
		        "Prompt tokens looked up in the prefix cache.", mn, (double)m->pc_queries);
		counter(b, "atom:prefix_cache_cached_tokens_total",
		        "Prompt tokens found in the prefix cache.", mn, (double)m->pc_hits);
		gauge(b, "atom:kv_cache_usage_ratio", "KV-cache usage.", mn, used);
	}
}

void sim_metrics_render(const sim_server *s, ib_buf *b)
{
	const sim_metrics *m = &s->m;
	const char *mn = s->cfg.served_model_name;
	double used = s->total_blocks > 0 && !s->cfg.max_speed
	                  ? 1.0 - (double)s->free_blocks / (double)s->total_blocks
	                  : 0.0;
	gauge(b, "vllm:num_requests_running", "Number of requests in model execution batches.", mn,
	      (double)s->running.n);
	gauge(b, "vllm:num_requests_waiting", "Number of requests waiting to be processed.", mn,
	      (double)s->waiting.n);
	gauge(b, "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", mn,
	      used);
	counter(b, "vllm:prompt_tokens_total", "Number of prefill tokens processed.", mn,
	        (double)m->prompt_tokens);
	counter(b, "vllm:generation_tokens_total", "Number of generation tokens processed.", mn,
	        (double)m->generation_tokens);
	counter(b, "vllm:num_preemptions_total", "Cumulative number of preemptions.", mn,
	        (double)m->preemptions);
	ib_buf_printf(
	    b,
	    "# HELP vllm:request_success_total Count of successfully processed requests.\n"
	    "# TYPE vllm:request_success_total counter\n"
	    "vllm:request_success_total{finished_reason=\"length\",model_name=\"%s\"} %llu\n",
	    mn, (unsigned long long)m->requests_ok);
	hist(b, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
	     mn, &m->ttft);
	hist(b, "vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.",
	     mn, &m->itl);
	hist(b, "vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.",
	     mn, &m->e2e);
	gauge(b, "infbench:step_lateness_seconds_max",
	      "The latest a step's timer fired after its deadline (wall seconds).", mn,
	      m->late_max);
	counter(b, "infbench:step_lateness_seconds_sum",
	        "Wall seconds steps fired after their deadlines.", mn, m->late_sum);
	counter(b, "infbench:step_lateness_count", "Steps timed.", mn, (double)m->late_count);
	counter(b, "infbench:model_clock_paused_seconds_total",
	        "Wall seconds left out of the model clock (steps held up, request handling).", mn,
	        m->paused_sum);
	counter(b, "infbench:step_rebase_count",
	        "Steps that fired over 2 ms late: the next one started then, not at the missed "
	        "deadline.",
	        mn, (double)m->paused_count);
	if (!s->cfg.max_speed && s->cfg.pace <= 0 && s->loop)
		gauge(b, "infbench:model_clock_seconds",
		      "The model clock: seconds of model time since the server started.", mn,
		      (double)sim_model_now(s, net_now(s->loop)) * 1e-9);
	render_cache(s, b, used);
	if (s->prefill) {
		counter(b, "infbench:kv_transfers_total", "Prefill-to-decode KV transfers.", mn,
		        (double)m->kv_transfers);
		counter(b, "infbench:kv_transfer_seconds_total",
		        "Model seconds of prefill-to-decode KV transfers.", mn, m->kv_transfer_s);
		gauge(b, "infbench:prefill_num_requests_running",
		      "Requests the prefill pool is prefilling.", mn,
		      (double)s->prefill->running.n);
		gauge(b, "infbench:prefill_num_requests_waiting",
		      "Requests waiting for a prefill worker.", mn, (double)s->prefill->waiting.n);
	}
	counter(b, "vllm:spec_decode_num_drafts_total", "Number of spec decoding drafts.", mn,
	        (double)m->num_drafts);
	counter(b, "vllm:spec_decode_num_draft_tokens_total", "Number of draft tokens.", mn,
	        (double)m->num_draft_tokens);
	counter(b, "vllm:spec_decode_num_accepted_tokens_total", "Number of accepted tokens.", mn,
	        (double)m->num_accepted);
	ib_buf_printf(
	    b, "# HELP vllm:spec_decode_num_accepted_tokens_per_pos_total Accepted tokens "
	       "per draft position.\n# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total "
	       "counter\n");
	int k =
	    s->cfg.spec_method && strcmp(s->cfg.spec_method, "none") ? s->cfg.num_spec_tokens : 0;
	for (int i = 0; i < k && i < 8; i++)
		ib_buf_printf(
		    b,
		    "vllm:spec_decode_num_accepted_tokens_per_pos_total{model_name=\"%s\","
		    "position=\"%d\"} %llu\n",
		    mn, i, (unsigned long long)m->accepted_per_pos[i]);
}
