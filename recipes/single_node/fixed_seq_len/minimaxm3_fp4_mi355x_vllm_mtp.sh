#!/usr/bin/env bash
# MiniMax-M3 in MXFP4 on MI355X with vLLM and EAGLE3 speculative decoding
# (config key minimaxm3-fp4-mi355x-vllm-mtp): the draft model
# Inferact/MiniMax-M3-EAGLE3 proposes 3 tokens per step; text-only serving
# (--language-model-only), Triton attention, AITER MoE kernels. The client
# frames prompts with the chat template so that acceptance is realistic.
# Run by `infbench run --engine recipe` with the matrix row's environment.

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP EP_SIZE DP_ATTENTION CONC ISL OSL MAX_MODEL_LEN RANDOM_RANGE_RATIO \
	RESULT_FILENAME

DRAFT_MODEL="Inferact/MiniMax-M3-EAGLE3"
NUM_SPEC_TOKENS=3
WORKSPACE=${INFBENCH_WORKSPACE:-/workspace}

[[ -n ${SLURM_JOB_ID:-} ]] && echo "JOB $SLURM_JOB_ID running on ${SLURMD_NODENAME:-?}"

# A local-path MODEL means the weights (and the draft) are staged offline:
# download nothing then.
if [[ "$MODEL" != /* ]]; then
	hf download "$MODEL"
	hf download "$DRAFT_MODEL"
fi

[[ -n ${ROCR_VISIBLE_DEVICES:-} ]] && export HIP_VISIBLE_DEVICES="$ROCR_VISIBLE_DEVICES"

SERVER_LOG=$WORKSPACE/server.log
export VLLM_ENGINE_READY_TIMEOUT_S=3600
export VLLM_USE_BREAKABLE_CUDAGRAPH=0
export VLLM_ROCM_USE_AITER=1
export VLLM_ROCM_USE_AITER_MOE=1
export VLLM_ROCM_USE_AITER_FUSION_SHARED_EXPERTS=1

[[ ${EVAL_ONLY:-} == true ]] && setup_eval_context

# DP attention: one attention replica per GPU with the experts spread over
# all of them; otherwise tensor parallel, with expert parallel when EP > 1.
if [[ $DP_ATTENTION == true ]]; then
	PARALLEL=(--tensor-parallel-size 1 --data-parallel-size "$TP" --enable-expert-parallel)
else
	PARALLEL=(--tensor-parallel-size "$TP")
	((EP_SIZE > 1)) && PARALLEL+=(--enable-expert-parallel)
fi

SPEC_CONFIG="{\"method\": \"eagle3\", \"model\": \"$DRAFT_MODEL\", \"num_speculative_tokens\": $NUM_SPEC_TOKENS}"

start_gpu_monitor

set -x
vllm serve "$MODEL" --port "$PORT" \
	"${PARALLEL[@]}" \
	--trust-remote-code \
	--block-size 128 \
	--no-enable-prefix-caching \
	--language-model-only \
	--max-model-len "$MAX_MODEL_LEN" \
	--attention-backend TRITON_ATTN \
	--moe-backend aiter \
	--speculative-config "$SPEC_CONFIG" \
	--tool-call-parser minimax_m3 \
	--enable-auto-tool-choice \
	--reasoning-parser minimax_m3 >"$SERVER_LOG" 2>&1 &
SERVER_PID=$!
set +x

wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

run_benchmark_serving \
	--model "$MODEL" \
	--port "$PORT" \
	--backend vllm \
	--input-len "$ISL" \
	--output-len "$OSL" \
	--random-range-ratio "$RANDOM_RANGE_RATIO" \
	--num-prompts "$((CONC * 10))" \
	--max-concurrency "$CONC" \
	--result-filename "$RESULT_FILENAME" \
	--result-dir "$WORKSPACE/" \
	--server-pid "$SERVER_PID" \
	--trust-remote-code \
	--use-chat-template

if [[ ${RUN_EVAL:-} == true ]]; then
	run_eval --framework lm-eval --port "$PORT"
	append_lm_eval_summary
fi

stop_gpu_monitor
kill "$SERVER_PID" 2>/dev/null
wait "$SERVER_PID" 2>/dev/null
exit 0
