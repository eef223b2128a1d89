#!/usr/bin/env bash
# Qwen3.5-397B-A17B in FP8 on B200 with SGLang and MTP drafts, AgentX trace
# replay (config key qwen3.5-fp8-b200-sglang-agentic-mtp): the server with
# prefix caching and metrics on, the KV cache optionally extended into host
# DRAM (kv-offloading: dram, backend hicache), then the replay through
# `aiperf profile` (under `infbench run --engine recipe`: infbench's replay,
# docs/agentx.md "The aiperf shim") and the agentic processing and gate.
# Written for infbench; run with the row's environment.
set -eo pipefail

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC KV_OFFLOADING TOTAL_CPU_DRAM_GB RESULT_DIR DURATION PORT EVAL_ONLY

# A local-path MODEL means the weights are staged offline.
if [[ "$MODEL" != /* ]]; then
	hf download "$MODEL"
fi

resolve_trace_source
install_agentic_deps
mkdir -p "$RESULT_DIR"
SERVER_LOG=$RESULT_DIR/server.log

KV_ARGS=()
case $KV_OFFLOADING in
none) require_agentic_kv_offload_none ;;
dram)
	require_agentic_kv_offload_backend hicache
	# the row's host-DRAM budget (decimal GB for the whole server) split per rank
	PER_RANK_GB=$((TOTAL_CPU_DRAM_GB / TP))
	((PER_RANK_GB > 0)) || { echo "Error: TOTAL_CPU_DRAM_GB=$TOTAL_CPU_DRAM_GB is too small for TP $TP" >&2; exit 1; }
	KV_ARGS=(--enable-hierarchical-cache --hicache-size "$PER_RANK_GB")
	;;
*)
	echo "Error: unsupported KV_OFFLOADING='$KV_OFFLOADING'" >&2
	exit 1
	;;
esac

SERVER_PID=
stop_server() {
	[[ -n $SERVER_PID ]] && kill "$SERVER_PID" 2>/dev/null
	wait "$SERVER_PID" 2>/dev/null || true
}
trap stop_server EXIT

set -x
python3 -m sglang.launch_server \
	--model-path "$MODEL" \
	--served-model-name "$MODEL" \
	--host 0.0.0.0 \
	--port "$PORT" \
	--tp "$TP" \
	--trust-remote-code \
	--mem-fraction-static 0.85 \
	--max-running-requests "$((2 * CONC))" \
	--speculative-algorithm NEXTN \
	--speculative-num-steps 3 \
	--speculative-eagle-topk 1 \
	--speculative-num-draft-tokens 4 \
	--enable-metrics \
	--enable-cache-report \
	"${KV_ARGS[@]}" >"$SERVER_LOG" 2>&1 &
SERVER_PID=$!
set +x

wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

if [[ $EVAL_ONLY == true ]]; then
	run_eval --port "$PORT"
	exit 0
fi
export AIPERF_SERVER_METRICS_URLS="http://localhost:${PORT}/metrics"
export AIPERF_REQUIRED_SERVER_METRIC_PREFIX="sglang:"
build_replay_cmd "$RESULT_DIR"
run_agentic_replay_and_write_outputs "$RESULT_DIR"
