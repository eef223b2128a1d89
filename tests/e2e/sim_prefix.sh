#!/usr/bin/env bash
# End-to-end test of the simulator's prefix cache and KV offload (docs/sim.md
# "Prefix cache", "KV offload"), on model time (X-Infbench-Model-Time):
#  1. a conversation's second turn hits its first turn's prefix: shorter
#     TTFT, the hit in /metrics under vLLM's names (and SGLang's, ATOM's);
#  2. under a small KV budget another prompt evicts the first one's blocks,
#     so asking it again misses;
#  3. with a host tier (--kv-offload-gb) the evicted blocks come back from
#     host memory: external hits, offload bytes both ways, a TTFT between
#     the hit's and the miss's.
# Usage: sim_prefix.sh INFBENCH. Ends with "sim_prefix: N passed, N failed".
. "$(dirname "$0")/lib.sh" sim_prefix "$1"
e2e_tmp

http() { # http METHOD PATH [BODY]: the raw response
	local body=${3:-}
	exec 3<>"/dev/tcp/127.0.0.1/$port"
	printf '%s %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\nX-Infbench-Model-Time: 1\r\nConnection: close\r\n\r\n%s' \
		"$1" "$2" "${#body}" "$body" >&3
	cat <&3
	exec 3<&-
}
metric() { # metric NAME [LABEL-MATCH]: a value of /metrics
	http GET /metrics | grep "^$1{" | grep -- "${2:-}" | sed -n 's/^[^ ]* \([-0-9.e+]*\).*/\1/p' | head -n 1
}
ttft() { # ttft BODY: model seconds from arrival to the first content token
	http POST /v1/chat/completions "$1" | grep '"content":"[^"]' | head -n 1 |
		sed 's/.*"infbench_t0":\([0-9.]*\),"infbench_t":\([0-9.]*\).*/\2 \1/' | awk '{ printf "%.9f", $1 - $2 }'
}
chat() { # chat TEXT...: a streamed chat body, messages alternating system/user/assistant/user
	local roles=(system user assistant user) m="" i=0
	for t in "$@"; do
		m+="${m:+,}{\"role\":\"${roles[$i]}\",\"content\":\"$t\"}"
		i=$((i + 1))
	done
	printf '{"model":"llama3-8b","stream":true,"max_tokens":2,"messages":[%s]}' "$m"
}
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }

A=$(yes "lorem ipsum dolor sit amet" | head -c 8000 | tr '\n' ' ')
B=$(yes "alpha beta gamma delta" | head -c 8000 | tr '\n' ' ')
turn1=$(chat "$A" "first question")
turn2=$(chat "$A" "first question" "an answer" "second question")

# -- 1. the second turn hits the first turn's prefix
e2e_start_sim --time-scale 10
[ -n "$port" ] || { no "the simulator did not start: $(cat "$tmp/sim.err")"; e2e_end; exit; }
t1=$(ttft "$turn1")
t2=$(ttft "$turn2")
lt "$t2" "$(awk -v a="$t1" 'BEGIN { print a / 2 }')" && ok || no "turn 2 TTFT $t2 not under half of turn 1's $t1"
hits=$(metric vllm:prefix_cache_hits_total)
queries=$(metric vllm:prefix_cache_queries_total)
prompts=$(metric vllm:prompt_tokens_total)
# turn 1's text is ~8,030 bytes: 125 blocks of 16 x 4 bytes, all of them in turn 2's prefix
[ "$hits" = $((125 * 16)) ] && ok || no "prefix_cache_hits_total $hits, want 2000"
[ "$queries" = "$prompts" ] && ok || no "queries $queries != prompt tokens $prompts"
computed=$(metric vllm:prompt_tokens_by_source_total local_compute)
cached=$(metric vllm:prompt_tokens_by_source_total local_cache_hit)
[ $((computed + cached)) = "$prompts" ] && [ "$cached" = "$hits" ] && ok ||
	no "prompt_tokens_by_source: compute $computed + hit $cached != $prompts"
# a conversation of another system prompt shares nothing
t3=$(ttft "$(chat "$B" "first question")")
[ "$(metric vllm:prefix_cache_hits_total)" = "$hits" ] && ok || no "an unrelated prompt hit"
lt "$t2" "$t3" && ok || no "the unrelated prompt's TTFT $t3 is not over the hit's $t2"
# the frameworks' own names
e2e_start_sim --time-scale 10 --framework sglang
ttft "$turn1" >/dev/null
ttft "$turn2" >/dev/null
[ "$(metric sglang:cached_tokens_total 'cache_source="device"')" = 2000 ] && ok ||
	no "sglang:cached_tokens_total{cache_source=device} $(metric sglang:cached_tokens_total)"
# what AgentX's SGLang adapter reads besides: prompt tokens by mode, the KV pool's size
rc=$(metric sglang:realtime_tokens_total 'mode="prefill_compute"')
rh=$(metric sglang:realtime_tokens_total 'mode="prefill_cache"')
[ "$rh" = 2000 ] && [ $((rc + rh)) = "$(metric sglang:prompt_tokens_total)" ] && ok ||
	no "sglang:realtime_tokens_total: compute $rc + cache $rh != $(metric sglang:prompt_tokens_total)"
[ "$(metric sglang:realtime_tokens_total 'mode="decode"')" = "$(metric sglang:generation_tokens_total)" ] && ok ||
	no "sglang:realtime_tokens_total{mode=decode} != generation tokens"
lt 2000 "$(metric sglang:max_total_num_tokens)" && ok || no "sglang:max_total_num_tokens $(metric sglang:max_total_num_tokens)"
e2e_start_sim --time-scale 10 --framework atom
ttft "$turn1" >/dev/null
ttft "$turn2" >/dev/null
[ "$(metric atom:prefix_cache_cached_tokens_total)" = 2000 ] && ok || no "atom:prefix_cache_cached_tokens_total"
[ "$(metric atom:prefix_cache_full_tokens_total)" = "$(metric atom:prompt_tokens_total)" ] && ok ||
	no "atom:prefix_cache_full_tokens_total"
# prefix caching off (vLLM's flag): no hits
e2e_start_sim --time-scale 10 --no-enable-prefix-caching
ttft "$turn1" >/dev/null
ttft "$turn2" >/dev/null
[ "$(metric vllm:prefix_cache_hits_total)" = 0 ] && ok || no "--no-enable-prefix-caching still hits"

# -- 2. a small KV budget: B evicts A, A misses
# llama3-8b (16.1 GB of BF16 weights) on 20.5 GB x 0.9 - 2 GB: ~2,900 tokens of KV
cat >"$tmp/small.yaml" <<'Y'
hardware:
  mem-gb: 20.5
Y
e2e_start_sim --time-scale 10 --profile "$tmp/small.yaml"
a1=$(ttft "$turn1")
ttft "$(chat "$B" "first question")" >/dev/null
a2=$(ttft "$turn1")
[ "$(metric vllm:prefix_cache_hits_total)" = 0 ] && ok || no "small KV: A hit after B evicted it ($(metric vllm:prefix_cache_hits_total))"
awk -v a="$a1" -v b="$a2" 'BEGIN { exit !(b > 0.9 * a) }' && ok || no "small KV: A's second TTFT $a2 vs first $a1"
# the same three requests with room: A's second time hits
e2e_start_sim --time-scale 10
ttft "$turn1" >/dev/null
ttft "$(chat "$B" "first question")" >/dev/null
ttft "$turn1" >/dev/null
h=$(metric vllm:prefix_cache_hits_total)
[ "${h:-0}" -gt 0 ] && ok || no "room for both: A's second time did not hit"

# -- 3. a host tier: the evicted blocks come back over the host link
e2e_start_sim --time-scale 10 --profile "$tmp/small.yaml" --kv-offload-gb 10
ttft "$turn1" >/dev/null
ttft "$(chat "$B" "first question")" >/dev/null
o2=$(ttft "$turn1")
ext=$(metric vllm:external_prefix_cache_hits_total)
[ "${ext:-0}" -gt 0 ] && ok || no "offload: no external hits ($ext)"
[ "$(metric vllm:prompt_tokens_by_source_total external_kv_transfer)" = "$ext" ] && ok ||
	no "prompt_tokens_by_source{external_kv_transfer} != external hits"
out=$(metric vllm:kv_offload_bytes_gpu_to_cpu_total)
back=$(metric vllm:kv_offload_bytes_cpu_to_gpu_total)
lt 0 "${out:-0}" && lt 0 "${back:-0}" && ok || no "offload bytes: out $out, back $back"
lt 0 "$(metric vllm:cpu_kv_cache_usage_perc)" && ok || no "cpu_kv_cache_usage_perc is 0"
lt "$o2" "$a2" && ok || no "a host hit ($o2) is not faster than recomputing ($a2)"
lt "$t2" "$o2" && ok || no "a host hit ($o2) is not slower than a GPU hit ($t2)"
echo "model TTFT (s): turn 1 $t1, turn 2 (GPU hit) $t2, unrelated $t3; small KV: first $a1, after eviction $a2, from the host tier $o2"
e2e_end
