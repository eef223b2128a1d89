#!/usr/bin/env bash
# infbench's recipe library: the shell functions InferenceX's benchmark
# recipes call (check_env_vars, wait_for_server_ready, start_gpu_monitor,
# stop_gpu_monitor, run_benchmark_serving, run_eval, ...), with the same
# arguments, messages and return codes (spec/bench.md §1.1, §3.2, §3.3), but
# the client is `infbench bench` ($INFBENCH, else infbench on PATH).
# Written for infbench; see docs/run.md. Sourced by recipes; not run alone.

IB_BIN=${INFBENCH:-infbench}
: "${PORT:=8888}"
export PORT

# check_env_vars NAME... : exit 1 listing every unset or empty variable.
check_env_vars() {
	local name absent=()
	for name in "$@"; do
		[[ -n "${!name:-}" ]] || absent+=("$name")
	done
	((${#absent[@]} == 0)) && return 0
	echo "Error: The following required environment variables are not set:"
	for name in "${absent[@]}"; do echo "  - $name"; done
	exit 1
}

# wait_for_ready --endpoint URL --log FILE --pid PID [--sleep-interval S] [--timeout S]
# Waits for FILE, then polls URL until it answers below 400, streaming FILE.
# A dead PID or the deadline (0: none) ends the whole script with status 1.
wait_for_ready() {
	set +x
	local url="" log="" pid="" every=5 limit=0
	while (($#)); do
		case $1 in
		--endpoint) url=$2; shift 2 ;;
		--log) log=$2; shift 2 ;;
		--pid) pid=$2; shift 2 ;;
		--sleep-interval) every=$2; shift 2 ;;
		--timeout) limit=$2; shift 2 ;;
		*) echo "Unknown parameter: $1"; return 1 ;;
		esac
	done
	[[ -n $url ]] || { echo "Error: --endpoint is required"; return 1; }
	[[ -n $log ]] || { echo "Error: --log is required"; return 1; }
	[[ -n $pid ]] || { echo "Error: --pid is required"; return 1; }
	[[ $every =~ ^[1-9][0-9]*$ ]] || { echo "Error: --sleep-interval must be a positive integer"; return 1; }
	[[ $limit =~ ^[0-9]+$ ]] || { echo "Error: --timeout must be a non-negative integer"; return 1; }
	local until_s=0
	((limit > 0)) && until_s=$((SECONDS + limit))
	while [[ ! -f $log ]]; do
		kill -0 "$pid" 2>/dev/null || { echo "Process died before creating $log." >&2; exit 1; }
		((until_s > 0 && SECONDS >= until_s)) && { echo "Timed out waiting for $url." >&2; exit 1; }
		sleep 1
	done
	tail -f -n +1 "$log" &
	local follower=$!
	while ! curl --output /dev/null --silent --fail "$url"; do
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "Process died before $url became ready." >&2
			kill "$follower" 2>/dev/null
			exit 1
		fi
		if ((until_s > 0 && SECONDS >= until_s)); then
			echo "Timed out waiting for $url." >&2
			kill "$follower" 2>/dev/null
			exit 1
		fi
		sleep "$every"
	done
	# (recipes run under set -e: the follower's end is not a failure)
	kill "$follower" 2>/dev/null || true
	wait "$follower" 2>/dev/null || true
	return 0
}

# wait_for_server_ready --port P --server-log F --server-pid PID [--sleep-interval S]
# The runner's INFBENCH_READY_TIMEOUT (seconds) bounds the wait; the
# reference waits forever.
wait_for_server_ready() {
	local port="" log="" pid="" every=5
	while (($#)); do
		case $1 in
		--port) port=$2; shift 2 ;;
		--server-log) log=$2; shift 2 ;;
		--server-pid) pid=$2; shift 2 ;;
		--sleep-interval) every=$2; shift 2 ;;
		*) echo "Unknown parameter: $1"; return 1 ;;
		esac
	done
	if [[ -z $port || -z $log || -z $pid ]]; then
		echo "Error: --port, --server-log, and --server-pid are required"
		return 1
	fi
	wait_for_ready --endpoint "http://0.0.0.0:${port}/health" --log "$log" --pid "$pid" \
		--sleep-interval "$every" --timeout "${INFBENCH_READY_TIMEOUT:-0}"
}

# start_gpu_monitor [--output PATH] [--interval S]: nvidia-smi or amd-smi
# samples in the background (§3.3); neither → a message, no file.
start_gpu_monitor() {
	local out=${GPU_METRICS_CSV:-gpu_metrics.csv} every=1
	while (($#)); do
		case $1 in
		--output) out=$2; shift 2 ;;
		--interval) every=$2; shift 2 ;;
		*) shift ;;
		esac
	done
	IB_GPU_CSV=$out
	IB_GPU_INTERVAL=$every
	if command -v nvidia-smi >/dev/null 2>&1; then
		IB_GPU_KIND=nvidia
		nvidia-smi --query-gpu=timestamp,index,power.draw,temperature.gpu,clocks.current.sm,clocks.current.memory,utilization.gpu,utilization.memory \
			--format=csv -l "$every" >"$out" 2>/dev/null &
		IB_GPU_PID=$!
	elif command -v amd-smi >/dev/null 2>&1; then
		IB_GPU_KIND=amd
		local base=${out%.csv}
		amd-smi metric -E --csv >"${base}_energy_start.csv" 2>/dev/null
		amd-smi static --json >"${base}_identity.json" 2>/dev/null
		PYTHONUNBUFFERED=1 amd-smi metric -p -c -t -u -w "$every" --csv 2>/dev/null |
			awk 'BEGIN { h = 0 } /^timestamp,/ { if (!h) { print; h = 1 } ; next } h { print; fflush() }' >"$out" &
		IB_GPU_PID=$!
	else
		IB_GPU_KIND=
		echo "[GPU Monitor] neither nvidia-smi nor amd-smi found; no GPU metrics"
		return 0
	fi
	echo "[GPU Monitor] sampling every ${every}s -> $out (pid $IB_GPU_PID)"
}

# stop_gpu_monitor: ends the sampler, drops a torn last line, adds the final
# sample (NVIDIA) or the energy end snapshot (AMD).
stop_gpu_monitor() {
	[[ -n ${IB_GPU_PID:-} ]] || return 0
	[[ $IB_GPU_KIND == amd ]] && sleep $((IB_GPU_INTERVAL + 2))
	kill "$IB_GPU_PID" 2>/dev/null || true
	wait "$IB_GPU_PID" 2>/dev/null || true
	if [[ -s $IB_GPU_CSV && $(tail -c 1 "$IB_GPU_CSV" | od -An -c | tr -d ' ') != '\n' ]]; then
		sed -i '$ d' "$IB_GPU_CSV"
	fi
	if [[ $IB_GPU_KIND == nvidia ]]; then
		nvidia-smi --query-gpu=timestamp,index,power.draw,temperature.gpu,clocks.current.sm,clocks.current.memory,utilization.gpu,utilization.memory \
			--format=csv,noheader >>"$IB_GPU_CSV" 2>/dev/null
	elif [[ $IB_GPU_KIND == amd ]]; then
		amd-smi metric -E --csv >"${IB_GPU_CSV%.csv}_energy_end.csv" 2>/dev/null
	fi
	local rows
	rows=$(($(wc -l <"$IB_GPU_CSV") - 1))
	echo "[GPU Monitor] Collected $rows rows -> $IB_GPU_CSV"
	IB_GPU_PID=
}

# run_benchmark_serving: the reference's options (§1.1), the client is
# infbench bench. Returns the client's status (1 on a bad option).
run_benchmark_serving() {
	if [[ ${EVAL_ONLY:-} == true ]]; then
		echo "EVAL_ONLY mode: skipping throughput benchmark"
		return 0
	fi
	set +x
	local -A v=()
	local chat=0 dsv4=0 trust=0 opt
	while (($#)); do
		case $1 in
		--model | --port | --backend | --endpoint | --input-len | --output-len | --random-range-ratio | \
			--num-prompts | --max-concurrency | --result-filename | --result-dir | --bench-serving-dir | \
			--server-pid | --tokenizer | --tokenizer-mode)
			v[${1#--}]=$2
			shift 2
			;;
		--use-chat-template) chat=1; shift ;;
		--dsv4) dsv4=1; chat=1; shift ;;
		--trust-remote-code) trust=1; shift ;;
		*) echo "Unknown parameter: $1"; return 1 ;;
		esac
	done
	for opt in model port backend input-len output-len random-range-ratio num-prompts \
		max-concurrency result-filename result-dir; do
		[[ -n ${v[$opt]:-} ]] || { echo "Error: --$opt is required"; return 1; }
	done
	local prompts=${v[num-prompts]} extra=()
	if [[ ${PROFILE:-} == 1 ]]; then
		extra+=(--profile)
		prompts=${v[max-concurrency]}
	fi
	[[ -n ${v[endpoint]:-} ]] && extra+=(--endpoint "${v[endpoint]}")
	((chat)) && extra+=(--use-chat-template)
	((dsv4)) && extra+=(--dsv4)
	((trust)) && extra+=(--trust-remote-code)
	if [[ -n ${v[tokenizer]:-} ]]; then
		extra+=(--tokenizer "${v[tokenizer]}")
	elif [[ -n ${INFBENCH_TOKENIZER:-} ]]; then
		extra+=(--tokenizer "$INFBENCH_TOKENIZER")
	fi
	[[ -n ${v[tokenizer-mode]:-} ]] && extra+=(--tokenizer-mode "${v[tokenizer-mode]}")
	local cmd=("$IB_BIN" bench --model "${v[model]}" --backend "${v[backend]}"
		--base-url "http://0.0.0.0:${v[port]}" --dataset-name random
		--random-input-len "${v[input-len]}" --random-output-len "${v[output-len]}"
		--random-range-ratio "${v[random-range-ratio]}" --num-prompts "$prompts"
		--max-concurrency "${v[max-concurrency]}" --request-rate inf --ignore-eos --save-result
		--num-warmups "$((2 * v[max-concurrency]))" --percentile-metrics 'ttft,tpot,itl,e2el'
		--result-dir "${v[result-dir]}" --result-filename "${v[result-filename]}.json"
		"${extra[@]}")
	echo "${cmd[*]}"
	if [[ -z ${v[server-pid]:-} ]]; then
		"${cmd[@]}"
		return $?
	fi
	"${cmd[@]}" &
	local client=$!
	while kill -0 "$client" 2>/dev/null; do
		if ! kill -0 "${v[server-pid]}" 2>/dev/null; then
			echo "ERROR: Server process ${v[server-pid]} died during benchmark"
			kill "$client" 2>/dev/null
			wait "$client" 2>/dev/null
			return 1
		fi
		sleep 2
	done
	wait "$client"
}

# setup_eval_context: EVAL_MAX_MODEL_LEN = ISL + OSL + 256 unless set.
setup_eval_context() {
	: "${EVAL_MAX_MODEL_LEN:=$((ISL + OSL + 256))}"
	export EVAL_MAX_MODEL_LEN
}

# run_eval [--framework lm-eval] --port P: the gsm8k eval with infbench's
# client (docs/eval.md) instead of lm-eval, on the questions of
# $INFBENCH_EVAL_DATASET.
run_eval() {
	local port=$PORT
	while (($#)); do
		case $1 in
		--port) port=$2; shift 2 ;;
		--framework) shift 2 ;;
		*) shift ;;
		esac
	done
	setup_eval_context
	if [[ -z ${INFBENCH_EVAL_DATASET:-} ]]; then
		echo "run_eval: INFBENCH_EVAL_DATASET (a gsm8k folder, see docs/eval.md) is not set" >&2
		return 1
	fi
	"$IB_BIN" eval run --base-url "http://0.0.0.0:$port" --model "$MODEL" \
		--dataset "$INFBENCH_EVAL_DATASET" --output-path . --max-model-len "$EVAL_MAX_MODEL_LEN"
}

# append_lm_eval_summary: nothing to move; infbench eval run writes its
# files (results*.json, samples*.jsonl, meta_env.json) in the workspace.
append_lm_eval_summary() {
	return 0
}

# ---- agentic rows (AgentX trace replay; docs/agentx.md "The aiperf shim") ----
# The replay client is `aiperf profile` as InferenceX calls it; under
# `infbench run --engine recipe` the `aiperf` found first in PATH is the
# runner's shim (`infbench aiperf`). AIPERF_CLI / AIPERF_PYTHON may name
# others.
: "${AIPERF_CLI:=aiperf}"
: "${AIPERF_FAILED_REQUEST_THRESHOLD:=0.10}"
: "${AIPERF_LIVE_FAILED_REQUEST_THRESHOLD:=$AIPERF_FAILED_REQUEST_THRESHOLD}"
: "${AIPERF_TRACE_IDLE_GAP_CAP_SECONDS:=300}"

# require_agentic_kv_offload_none / require_agentic_kv_offload_backend NAME:
# the row's KV_OFFLOAD_BACKEND must be empty / NAME.
require_agentic_kv_offload_none() {
	if [[ -n ${KV_OFFLOAD_BACKEND:-} ]]; then
		echo "Error: KV_OFFLOADING=none takes no KV_OFFLOAD_BACKEND (got '$KV_OFFLOAD_BACKEND')" >&2
		exit 1
	fi
}
require_agentic_kv_offload_backend() {
	if [[ ${KV_OFFLOAD_BACKEND:-} != "$1" ]]; then
		echo "Error: this recipe offloads KV with '$1', the row asks for '${KV_OFFLOAD_BACKEND:-}'" >&2
		exit 1
	fi
}

# install_agentic_deps: nothing to install, infbench's replay is built in.
install_agentic_deps() {
	command -v "$AIPERF_CLI" >/dev/null 2>&1 || {
		echo "Error: no '$AIPERF_CLI' (run under infbench run --engine recipe, or set AIPERF_CLI)" >&2
		return 1
	}
}

# resolve_trace_source: TRACE_SOURCE_FLAG for the row's corpus, chosen by
# WEKA_LOADER_OVERRIDE, else by MODEL_PREFIX (the 1M-context families replay
# the full corpus, the others its 256k cut); `infbench aiperf` reads the
# loader's dataset from the local Hugging Face cache (or INFBENCH_AGENTX_CORPUS).
resolve_trace_source() {
	local loader=${WEKA_LOADER_OVERRIDE:-}
	if [[ -z $loader ]]; then
		case ${MODEL_PREFIX:-} in
		dsv4* | glm5.2* | minimaxm3* | kimik3*) loader=semianalysis_cc_traces_weka_062126 ;;
		*) loader=semianalysis_cc_traces_weka_062126_256k ;;
		esac
	fi
	TRACE_SOURCE_FLAG="--public-dataset $loader"
	echo "trace corpus: aiperf loader $loader (MODEL_PREFIX=${MODEL_PREFIX:-unset})"
}

# build_replay_cmd RESULT_DIR: REPLAY_CMD, the aiperf command line of the
# inferencex-agentx-mvp scenario for this row (DURATION, CONC, MODEL,
# MAX_MODEL_LEN, AIPERF_* knobs), artifacts under RESULT_DIR/aiperf_artifacts.
build_replay_cmd() {
	local dir=$1 duration=$DURATION warm=${AIPERF_WARMUP_REQUESTS_PER_LANE:-10}
	if [[ ${AIPERF_EXPERIMENTAL_FAST:-0} == 1 ]]; then
		duration=1200
		warm=1
	fi
	[[ -n ${TRACE_SOURCE_FLAG:-} ]] || resolve_trace_source
	local a=("$AIPERF_CLI" profile --scenario inferencex-agentx-mvp
		--url "${AIPERF_SERVER_URL:-http://localhost:$PORT}" --endpoint /v1/chat/completions
		--endpoint-type chat --streaming --model "${SERVED_MODEL_NAME:-$MODEL}"
		--tokenizer "$MODEL" --concurrency "$CONC" --benchmark-duration "$duration"
		--stats-interval 30 --random-seed 42
		--failed-request-threshold "$AIPERF_LIVE_FAILED_REQUEST_THRESHOLD"
		--trajectory-start-min-ratio 0.25 --trajectory-start-max-ratio 0.75
		--warmup-requests-per-lane "$warm"
		--trace-idle-gap-cap-seconds "$AIPERF_TRACE_IDLE_GAP_CAP_SECONDS"
		--warmup-grace-period "${AGENTIC_WARMUP_GRACE_PERIOD:-1800}"
		--use-server-token-count --no-gpu-telemetry --tokenizer-trust-remote-code)
	[[ -n ${MAX_MODEL_LEN:-} && $MAX_MODEL_LEN != 0 ]] && a+=(--max-context-length "$MAX_MODEL_LEN")
	a+=(--num-dataset-entries 393 --slice-duration 1.0)
	if [[ -n ${AIPERF_SERVER_METRICS_URLS:-} ]]; then
		local IFS=,
		# shellcheck disable=SC2206
		local urls=($AIPERF_SERVER_METRICS_URLS)
		unset IFS
		a+=(--server-metrics "${urls[@]}")
	fi
	a+=(--output-artifact-dir "$dir/aiperf_artifacts")
	if ((duration < 900)) || [[ ${AIPERF_UNSAFE_OVERRIDE:-false} == true ]]; then
		a+=(--unsafe-override)
	fi
	# shellcheck disable=SC2206
	a+=($TRACE_SOURCE_FLAG)
	REPLAY_CMD="${a[*]}"
}

# run_agentic_replay_and_write_outputs RESULT_DIR: the replay (its output
# in RESULT_DIR/benchmark.log), then the agg row ($AGENTIC_OUTPUT_DIR/
# $RESULT_FILENAME.json), the power adapter (single-node, ENABLE_AGENTX_POWER
# on) and the request-error gate. Returns the first failure's status, after
# every step has written what it could.
run_agentic_replay_and_write_outputs() {
	local dir=$1 out=${AGENTIC_OUTPUT_DIR:-$PWD} replay_rc gate_rc power_rc=0 power=0
	if [[ ${ENABLE_AGENTX_POWER:-1} =~ ^(1|true|TRUE|yes|YES)$ && ${IS_MULTINODE:-false} != true ]]; then
		power=1
	fi
	mkdir -p "$dir"
	if ((power)); then
		date +%z >"$dir/agentic_power_timezone_offset.txt"
		start_gpu_monitor --output "$dir/gpu_metrics.csv"
	fi
	echo "$REPLAY_CMD" >"$dir/benchmark_command.txt"
	# every status is collected, also under the recipes' set -e
	replay_rc=0
	# shellcheck disable=SC2086
	$REPLAY_CMD 2>&1 | tee "$dir/benchmark.log" || replay_rc=${PIPESTATUS[0]}
	if ((power)); then stop_gpu_monitor; fi
	RESULT_DIR=$dir AGENTIC_OUTPUT_DIR=$out "$IB_BIN" agentic process || return $?
	if ((power)); then
		local req=()
		[[ ${REQUIRE_POWER:-0} =~ ^(1|true|TRUE|yes|YES)$ ]] && req=(--require-power)
		"$IB_BIN" agentic power-adapter --result-dir "$dir" --agg-result "$out/$RESULT_FILENAME.json" \
			--expected-num-gpus "$((${TP:-1} * ${PP_SIZE:-1} * ${PCP_SIZE:-1}))" "${req[@]}" ||
			power_rc=$?
	fi
	gate_rc=0
	"$IB_BIN" agentic validate "$dir/aiperf_artifacts" \
		--failed-request-threshold "$AIPERF_FAILED_REQUEST_THRESHOLD" || gate_rc=$?
	if ((replay_rc)); then
		echo "ERROR: the agentic replay exited with status $replay_rc (its results are written)" >&2
		return "$replay_rc"
	fi
	if ((gate_rc)); then
		echo "ERROR: the agentic results failed the request-error gate" >&2
		return "$gate_rc"
	fi
	if ((power_rc)); then
		echo "ERROR: the AgentX power validation failed" >&2
		return "$power_rc"
	fi
	validate_required_agentic_server_metrics "$dir"
}

# validate_required_agentic_server_metrics RESULT_DIR: with
# AIPERF_REQUIRED_SERVER_METRIC_PREFIX set (e.g. sglang:), the replay's
# server metrics must exist and hold a metric of that prefix.
validate_required_agentic_server_metrics() {
	local prefix=${AIPERF_REQUIRED_SERVER_METRIC_PREFIX:-} m=$1/aiperf_artifacts/server_metrics_export
	[[ -n $prefix ]] || return 0
	if [[ ! -s $m.json || ! -s $m.csv ]]; then
		echo "ERROR: no server metrics in $1/aiperf_artifacts (server_metrics_export.json/.csv)" >&2
		return 1
	fi
	if ! grep -F -q -m 1 "\"$prefix" "$m.json"; then
		echo "ERROR: $m.json has no metric named $prefix*" >&2
		return 1
	fi
	echo "server metrics with prefix '$prefix' present"
}
