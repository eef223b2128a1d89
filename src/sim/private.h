/* Private to sim/: requests, the engine and the metrics shared by its files. */
#ifndef IB_SIM_PRIVATE_H
#define IB_SIM_PRIVATE_H

#include "sim/sim.h"
#include "tok/tok.h"

#include <pthread.h>

/* A request arriving less than this (wall time) after a step began joins
 * that step (docs/sim.md "Time"). */
/* announced on every response: a client marks what it measured here as
 * simulated (bench reads the header by name; the wire is the contract) */
#define SIM_ENGINE_HEADER "X-Infbench-Engine: infbench-sim\r\n"
#define SIM_JOIN_GRACE_NS (20 * 1000 * 1000)
/* A step whose timer fires more than this (wall) after its deadline was
 * held up (the host ran something else, the loop was busy): the lateness is
 * not model time, and the next step starts from now, not from the missed
 * deadline (docs/sim.md "Time"). */
#define SIM_REBASE_NS (2 * 1000 * 1000)

typedef enum {
	SEQ_WAITING,
	SEQ_RUNNING,
	SEQ_DONE,
	SEQ_XFER /* KV on its way to decode */
} seq_state;

typedef struct seq seq;
struct seq {
	uint64_t id;
	const char *model; /* the served name or the LoRA adapter asked for */
	net_conn *conn;    /* NULL once the client is gone */
	bool chat, stream, include_usage, ignore_eos;
	int prompt_tokens;
	int max_tokens;
	int target;       /* tokens this request will produce */
	int generated;    /* tokens emitted */
	int prefilled;    /* tokens of the prefill processed */
	int recompute;    /* generated tokens to recompute after a preemption */
	int plan_prefill; /* prefill tokens in the step in flight */
	bool plan_decode; /* decodes in the step in flight */
	int64_t blocks;   /* KV blocks held */
	seq_state state;
	int64_t arrival_ns; /* when the request was read (ib_now_ns) */
	int64_t arrival_m;  /* the same moment on the model clock (ns) */
	int64_t last_m;     /* the last emission, model clock (ns) */
	bool model_time;    /* X-Infbench-Model-Time: 1: model timestamps in the body */
	int64_t last_ns;    /* the last emission (the loop's clock) */
	sim_rng rng;
	/* faults planned for this request: token index where they strike, -1 none */
	int drop_at, stall_at, malformed_at;
	int64_t stall_until; /* wall ns */
	/* --trace: the X-Request-Id and when each chunk left (ib_now_ns); one
	 * allocation per request */
	char req_id[72];
	int64_t *sent;
	int nsent, sent_cap;
	ib_buf text; /* non-streaming: the whole completion */
	/* streaming: the constant start of every token chunk (id, object,
	 * created, model, up to the opening quote of the text), built at the
	 * first chunk; each event appends only its tokens and the tail */
	ib_buf pre;
	/* --eval-dataset: a graded answer, JSON-escaped, precomputed when the
	 * request arrives; token i is ans.data[ans_end[i-1] .. ans_end[i]) with
	 * ans_end[-1] = 0. NULL ans_end: not an eval request (random words). */
	ib_buf ans;
	int *ans_end;
	int ans_ntok;
	bool ans_reasoning; /* in reasoning_content, content empty */
	bool ans_cut;       /* cut at a `stop` string */
	seq *prev, *next;   /* in the waiting or running list */
	sim_server *srv;
	/* the prefix cache (prefix_cache.c): the chained hashes of the prompt's
	 * nbh full blocks (NULL: none, the request takes no part), and for each
	 * the cache entry this sequence references (-1: none); one allocation
	 * (bh, then bent) per request */
	uint64_t *bh;
	int32_t *bent;
	int nbh;
	int nshared; /* entries referenced (of q->blocks) */
	int nreg;    /* blocks 0..nreg-1 looked up or registered */
	/* disaggregated serving (disagg.c): the prefill engine the request is
	 * in (NULL: srv's), and the KV transfer's timer (state SEQ_XFER) */
	sim_server *eng;
	net_timer xfer;
	int64_t xfer_due_m; /* when the KV arrives, model ns */
};

typedef struct {
	seq *head, *tail;
	size_t n;
} seq_list;

void seq_list_push(seq_list *l, seq *s);
void seq_list_push_front(seq_list *l, seq *s);
void seq_list_remove(seq_list *l, seq *s);

/* Prometheus histogram with fixed buckets (seconds). */
typedef struct {
	const double *bounds;
	size_t nb;
	uint64_t counts[32];
	double sum;
	uint64_t count;
} sim_hist;
void sim_hist_observe(sim_hist *h, double v);

typedef struct {
	uint64_t prompt_tokens, generation_tokens, requests_ok, requests_aborted;
	uint64_t num_drafts, num_draft_tokens, num_accepted;
	uint64_t accepted_per_pos[8];
	uint64_t preemptions;
	sim_hist ttft, itl, e2e;
	/* wall seconds each step's timer fired after its deadline (the host's
	 * timer latency and stalls; docs/sim.md "Time") */
	double late_sum, late_max;
	uint64_t late_count;
	/* prefix cache and host tier, in tokens (docs/sim.md "Prefix cache") */
	uint64_t pc_queries, pc_hits,
	    pc_computed;                /* prompt tokens looked up, hit on the GPU, computed */
	uint64_t ext_queries, ext_hits; /* looked up in the host tier, hit there */
	uint64_t pc_evicted;            /* blocks evicted from the GPU */
	uint64_t kv_transfers;          /* prefill -> decode KV transfers */
	double kv_transfer_s;           /* their model seconds */
	double offload_bytes_to_host, offload_bytes_to_gpu; /* per GPU x GPUs, bytes */
	double offload_s_to_host, offload_s_to_gpu;         /* transfer seconds */
	/* wall seconds left out of the model clock (late steps past
	 * SIM_REBASE_NS, request handling while idle); steps rebased */
	double paused_sum;
	uint64_t paused_count;
	/* wall seconds the engine's GPUs were busy stepping (a step of model
	 * time t counts t / time scale; --gpu-metrics' utilisation) */
	double busy_s;
} sim_metrics;
void sim_metrics_init(sim_metrics *m);

/* The prefix cache (prefix_cache.c; docs/sim.md "Prefix cache", "KV
 * offload"): entries in a chained hash table, the unreferenced ones in an
 * LRU list per tier. */
enum { SIM_TIER_GPU, SIM_TIER_HOST };
typedef struct {
	uint64_t hash;      /* 0: a free entry */
	int32_t ref;        /* running sequences that use the block */
	int32_t chain;      /* next in the bucket, or in the free list */
	int32_t prev, next; /* LRU list of the tier (ref 0 only) */
	int tier;
} sim_pc_entry;
typedef struct {
	sim_pc_entry *e;
	size_t n, cap, live;
	int32_t *buckets;
	size_t nbuckets;
	int32_t free_head;
	int32_t head[2], tail[2];
	int64_t cached_free;            /* GPU blocks that are free but hold a cached block */
	int64_t host_blocks, host_used; /* the host tier's capacity (0: none) and use */
} sim_pcache;
void sim_pc_init(sim_pcache *c);
void sim_pc_free(sim_pcache *c);
/* The hash of a block of content data[0..len) after the block whose hash is
 * parent (0 for the first block); never 0. */
uint64_t sim_pc_hash(uint64_t parent, const void *data, size_t len);
/* Takes n blocks from the free pool, evicting cached blocks (least
 * recently used first) when the uncached ones do not suffice; false when
 * fewer than n are free. */
bool sim_pc_take(sim_server *s, int64_t n);
/* Looks q's blocks up (at most max_blocks, from the first) and references
 * the leading ones found; returns how many (q->blocks and q->nshared grow by
 * that many), *host_hits of them came from the host tier. All or nothing:
 * 0 when the free pool cannot hold them. */
int sim_pc_acquire(sim_server *s, seq *q, int max_blocks, int *host_hits);
/* Registers q's fully prefilled prompt blocks not yet in the cache. */
void sim_pc_register(sim_server *s, seq *q);
/* Drops q's references; entries no one uses become free cached blocks
 * (most recently used). The caller returns q's private blocks. */
void sim_pc_release(sim_server *s, seq *q);

/* Disaggregated serving (disagg.c): starts s's prefill pool (0, IB_EINVAL
 * when its weights do not fit, IB_ENOMEM); frees it (after the
 * connections closed); gives a new request to it; and, called by the
 * prefill engine, emits q's first token and sends its KV to s. */
int sim_disagg_start(sim_server *s, ib_error *e);
void sim_disagg_free(sim_server *s);
void sim_disagg_submit(sim_server *s, seq *q);
void sim_disagg_prefilled(sim_server *prefill, seq *q);
/* --role decode: q was prefilled by another process; its first token
 * leaves now, its KV arrives sim_kv_transfer_s later, then it decodes. */
void sim_disagg_arrived(sim_server *s, seq *q);

/* A prompt tokenized off the event loop (tokq.c): the loop fills the input
 * and the request's state, the worker thread the output; done runs on the
 * loop afterwards. */
typedef struct sim_tokjob sim_tokjob;
struct sim_tokjob {
	ib_buf text;   /* in: the text to encode */
	bool special;  /* in: add special tokens */
	tok_ids ids;   /* out */
	int rc;        /* out: 0 or the ib_err of tok_encode */
	char err[256]; /* out: its message */
	/* the request's state, kept for done */
	net_conn *conn; /* NULL once the client went away: done is not called */
	void (*done)(sim_server *s, sim_tokjob *j);
	bool tokenize; /* POST /tokenize, else a completion */
	bool chat;
	int extra; /* tokens added to the count (chat without a template) */
	char req_id[72];
	int64_t read_ns; /* when the request was read (its model arrival) */
	bool model_time; /* X-Infbench-Model-Time: 1 */
	ib_arena *arena; /* the parsed request, freed with the job */
	ib_val *req;
	sim_tokjob *next, *prev; /* queues (worker side), then the loop's list */
};
struct sim_server {
	sim_config cfg;
	net_loop *loop;
	net_server *http;
	sim_capacity cap;
	int64_t total_blocks; /* cap.kv_blocks x replicas */
	/* disaggregated serving (disagg.c): the prefill pool's engine, and in
	 * it the server it prefills for */
	sim_server *prefill, *parent;
	int64_t free_blocks;
	sim_pcache pc;
	seq_list waiting, running;
	net_timer step_timer;
	bool step_armed;
	bool stall_wait;    /* the armed timer only waits for a stall to end */
	sim_step step;      /* the step in flight */
	int64_t step_at;    /* when the step in flight ends (paced: the grid) */
	bool chain;         /* planning right after a step: the next starts at its deadline */
	int64_t step_start; /* when the step in flight began (its predecessor's deadline, or now) */
	/* the model clock (ns since the server started; docs/sim.md "Time"):
	 * steps chain in model time exactly (each ends step time after its
	 * start); between steps it runs with the wall clock x S from the last
	 * anchor, never past the end of the step in flight, so that what the
	 * host delays (a late timer, a busy loop) is not model time */
	int64_t m_anchor, m_anchor_wall;  /* model ns at wall ns (eng_now) */
	int64_t m_step_start, m_step_end; /* the step in flight, model ns */
	bool rebase;                      /* the last step fired late: the next starts now (wall) */
	uint64_t next_id;
	sim_metrics m;
	ib_buf scratch;
	ib_buf logline;  /* --log-requests: one line, reused */
	int64_t created; /* wall-clock seconds for "created" */
	net_defer kick;  /* schedule a step at the end of the iteration */
	/* in-process runs (sim_run_load): no event loop; a virtual clock (ns)
	 * the driver moves to each step's deadline, and tokens go to vemit */
	bool virt;
	int64_t vnow, vdue;
	void (*vemit)(sim_server *s, seq *q, int n, bool last);
	void *vctx;
	/* the headers of every response: the engine, and the time scale
	 * (scale_field empty with --max-speed or --pace) */
	char scale_header[384]; /* "X-Infbench-Engine: infbench-sim\r\n" and, scaled,
	                         * "X-Infbench-Time-Scale: S\r\n" */
	char scale_field[48];   /* ", \"time_scale\": S" in /v1/models */
	/* tokq.c: the tokenizer's worker (started with --tokenizer) */
	bool tokq_on;
	pthread_t tokq_thread;
	pthread_mutex_t tokq_mu; /* the queues and tokq_stop */
	pthread_cond_t tokq_cv;
	pthread_mutex_t tok_mu; /* held around every tok_encode */
	sim_tokjob *tokq_todo, *tokq_todo_tail, *tokq_done;
	bool tokq_stop;
	int tokq_efd; /* eventfd: the worker finished a job */
	net_watch tokq_watch;
	sim_tokjob *tokq_flight; /* jobs submitted and not yet done (loop side) */
};
/* Starts the worker (0, or IB_EIO / IB_ENOMEM); stops it, waiting for the
 * job at hand, and frees every job (sim_server_free, after the connections
 * were closed). */
int sim_tokq_start(sim_server *s, ib_error *e);
void sim_tokq_stop(sim_server *s);
/* Encodes text[0..len) on the loop when it is short and the worker does not
 * hold the tokenizer: returns 0 (ids filled) or a negative ib_err (e set);
 * returns 1 when the caller should queue a job instead. */
int sim_tok_encode_now(sim_server *s, const char *text, size_t len, bool special, tok_ids *ids,
                       ib_error *e);
/* Queues j (text, special, done and the request's state set; j->conn
 * non-NULL): the worker encodes it, then done(s, j) runs on the loop unless
 * the client went away; the job is freed after done returns. */
void sim_tokq_submit(sim_server *s, sim_tokjob *j);
/* The client on c went away: its job, if any, is dropped when it finishes. */
void sim_tokq_forget(sim_server *s, net_conn *c);

/* Engine: a request enters; tokens come back through sim_emit. */
void sim_engine_submit(sim_server *s, seq *q);
/* The client went away: drop the request wherever it is. */
void sim_engine_abort(sim_server *s, seq *q);
void sim_engine_start(sim_server *s);
void sim_engine_kick(sim_server *s);
/* The model clock at wall time `wall` (eng_now's clock), ns. */
int64_t sim_model_now(const sim_server *s, int64_t wall);
/* Leaves [from, to) (wall ns, the handling of a request while no step is
 * in flight) out of the model clock. */
void sim_model_pause(sim_server *s, int64_t from, int64_t to);
/* Plans and arms the next step now (in-process runs). */
void sim_engine_schedule(sim_server *s);
/* The step in flight ended: emit its tokens, plan the next. */
void sim_engine_step_done(sim_server *s);

/* API side, called by the engine. */
void sim_emit(sim_server *s, seq *q, int ntokens, bool last);
void sim_seq_free(sim_server *s, seq *q);

/* --eval-dataset: when chat request req's last user turn is a known
 * question, fills q's answer fields (the text cut at the request's `stop`
 * strings) and returns 1; 0 when it is not an eval request; IB_ENOMEM. */
int sim_eval_plan(const sim_grader *g, const ib_val *req, seq *q);

/* Renders /metrics. */
void sim_metrics_render(const sim_server *s, ib_buf *out);

/* The two YAML files of the simulator (calibration.yaml, intervals.yaml):
 * a diagnostic at v's file:line:col for field (fmt takes arg), 0 or
 * IB_ENOMEM; and a loader's verdict: IB_ENOMEM ("out of memory") when rc
 * is, IB_EINVAL ("N problems in the WHAT", file path) when d gained errors
 * since it held `before`, else 0. */
int sim_file_bad(ib_diags *d, const ib_val *v, const char *field, const char *fmt, const char *arg);
int sim_file_verdict(int rc, const ib_diags *d, size_t before, const char *path, const char *what,
                     ib_error *e);

#endif
