#!/usr/bin/env bash
# End-to-end: `infbench agentx replay` against `infbench sim` (llama3
# tokenizer, --log-requests, time scale 50, a minute of model time) on a
# generated stand-in corpus: every request's content is exactly the `in`
# tokens of a request of its own trace (the marker names the replay, the
# records its trace); consecutive parent turns share their LCP bytes; one
# cache-bust marker per tree replay (every request of the replay carries
# it), different between replays and the same for the same seed; think
# times and subagent joins respected in model time;
# warmup rows excluded by `agentic process`; the global (10 s) and per-tree
# idle caps fire on traces built to need them; bad input (a broken trace
# record, a missing corpus, a model without a tokenizer) names the piece and
# writes nothing; with the release build ($IB_RELEASE) and cc, no allocation
# per streamed chunk (tests/e2e/alloc_count.c counts them).
# Usage: tests/e2e/agentx_replay.sh INFBENCH. Ends with "agentx-replay: N passed, N failed".
. "$(dirname "$0")/lib.sh" agentx-replay "$1"
e2e_tmp
e2e_need_tok skip
py=$(command -v /usr/bin/python3 || command -v python3) || e2e_skip "no python3 for the checks"

"$bin" agentx make-traces --traces 6 --turns 3:5 --first-in 2048:4096 --context 4096:8192 \
	--out 8:64 --think 0.5:3 --subagent-rate 0.4 --subagent-turns 2:3 --system-tokens 512 \
	--tool-tokens 512 --long-tail 0 --background-rate 0.3 -o "$tmp/tr.jsonl" || no "make-traces"
e2e_start_sim --tokenizer "$tok" --time-scale 50 --log-requests "$tmp/wire.jsonl"
[ -n "$port" ] || {
	no "the simulator did not start: $(cat "$tmp/sim.err")"
	e2e_end
	exit
}

replay() { # OUT ARGS...
	local out=$1
	shift
	"$bin" agentx replay --base-url "http://127.0.0.1:$port" --model llama3-8b --tokenizer "$tok" \
		--output-dir "$out" "$@"
}

# 1. a replay of a minute of model time, 3 lanes, 2 warmup requests per lane
replay "$tmp/a" --corpus "$tmp/tr.jsonl" --concurrency 3 --benchmark-duration 60 \
	--warmup-requests-per-lane 2 2>"$tmp/a.log" && ok || no "replay: $(cat "$tmp/a.log")"
sent=$(sed -n 's/.*: \([0-9]*\) requests sent.*/\1/p' "$tmp/a.log")
# the wire log is written when the simulator exits
kill -TERM "$simpid" 2>/dev/null
wait "$simpid" 2>/dev/null
simpid=
[ -s "$tmp/wire.jsonl" ] && ok || no "no request log"

# the token counts of each request's contents (the marker and its blank line removed)
"$py" - "$tmp/wire.jsonl" >"$tmp/texts.jsonl" <<'PY'
import json, re, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["path"] != "/v1/chat/completions":
        continue
    b = json.loads(r["body"])
    text = ""
    for m in b["messages"]:
        c = m["content"]
        c = re.sub(r"^\[rid:[0-9a-f]{12}\]\n\n", "", c)
        text += c
    print(json.dumps({"text": text, "add_special_tokens": False}))
PY
"$bin" tokenize --tokenizer "$tok" --jsonl <"$tmp/texts.jsonl" >"$tmp/ids.jsonl" || no "tokenize"

if out=$("$py" - "$tmp/tr.jsonl" "$tmp/wire.jsonl" "$tmp/ids.jsonl" "$tmp/texts.jsonl" \
	"$tmp/a/aiperf_artifacts/profile_export.jsonl" "${sent:-0}" <<'PY' 2>&1
import json, re, sys, os
traces = [json.loads(l) for l in open(sys.argv[1])]
wire = [json.loads(l) for l in open(sys.argv[2])]
wire = [json.loads(w["body"]) for w in wire if w["path"] == "/v1/chat/completions"]
ids = [json.loads(l)["ids"] for l in open(sys.argv[3])]
texts = [json.loads(l)["text"] for l in open(sys.argv[4])]
recs = [json.loads(l) for l in open(sys.argv[5])]
sent = int(sys.argv[6])
bad = []
def fail(m):
    bad.append(m)
if len(wire) != sent or len(recs) != sent:
    fail(f"{len(wire)} requests on the wire, {len(recs)} records, {sent} sent")
# the requests of the corpus by (in, out): parent turns and subagent requests
known = {}
for t in traces:
    for k, e in enumerate(t["requests"]):
        if e["type"] == "subagent":
            for q, r in enumerate(e["requests"]):
                known.setdefault((r["in"], r["out"]), []).append((t["id"], e["agent_id"], q))
        else:
            known.setdefault((e["in"], e["out"]), []).append((t["id"], None, k))
# each tree replay's marker is sha256("cache-bust:SEED:REPLAY") (seed 42), so
# the marker names the replay, and the records name its trace
import hashlib
rep_trace, rep_count = {}, {}
for r in recs:
    md = r["metadata"]
    rep_trace[md["session_num"]] = md["x_correlation_id"].rsplit("-r", 1)[0]
    rep_count[md["session_num"]] = rep_count.get(md["session_num"], 0) + 1
marker_rep = {"[rid:" + hashlib.sha256(f"cache-bust:42:{n}".encode()).hexdigest()[:12] + "]": n
              for n in rep_trace}
if len(marker_rep) != len(rep_trace):
    fail("two replays share a marker")
tr_reqs = {}  # trace id -> the (in, out) of its parent turns and subagent requests
for t in traces:
    s = tr_reqs.setdefault(t["id"], set())
    for e in t["requests"]:
        for r in e["requests"] if e["type"] == "subagent" else [e]:
            s.add((r["in"], r["out"]))
marker_of = {}
on_wire = {}
exact = 0
for b, n in zip(wire, ids):
    if not b.get("ignore_eos") or not b.get("stream") or not b["stream_options"]["include_usage"]:
        fail("ignore_eos / stream / usage missing")
    users = [m for m in b["messages"] if m["role"] == "user"]
    mk = re.match(r"^(\[rid:[0-9a-f]{12}\])\n\n", users[0]["content"])
    if not mk:
        fail("no cache-bust marker on the first user message")
        continue
    if b["messages"][-1]["role"] != "user":
        fail("the messages do not end with the user")
    rep = marker_rep.get(mk.group(1))
    if rep is None:
        fail(f"marker {mk.group(1)} is no replay's")
        continue
    on_wire[rep] = on_wire.get(rep, 0) + 1
    # exactly its own trace's `in` tokens: a request of that trace with this
    # (in, out), or a 1-token warmup request on one of its prefixes
    own = tr_reqs[rep_trace[rep]]
    if (len(n), b["max_tokens"]) in own or (b["max_tokens"] == 1 and len(n) in {i for i, _ in own}):
        exact += 1
    else:
        fail(f"replay {rep} ({rep_trace[rep]}): {len(n)} tokens, max_tokens {b['max_tokens']}: "
             "no request of its trace")
    cand = {c[0] for c in known.get((len(n), b["max_tokens"]), [])}
    key = cand.pop() if len(cand) == 1 else None  # the trace, when (in, out) names one
    marker_of.setdefault(mk.group(1), set()).add(key)
# one marker per tree replay: every request of a replay carries its marker
if on_wire != rep_count:
    fail(f"requests per replay on the wire {on_wire} against the records {rep_count}")
for m, ts in marker_of.items():
    ts.discard(None)
    if len(ts) > 1:
        fail(f"marker {m} on traces {ts}")
# consecutive parent turns share their LCP bytes: the texts of turns k and
# k + 1 of one trace agree on at least the LCP blocks' text
by = {}
for b, n, x in zip(wire, ids, texts):
    for tid, ag, k in known.get((len(n), b["max_tokens"]), []):
        if ag is None:
            by[(tid, k)] = x
checked = 0
for t in traces:
    par = [(k, e) for k, e in enumerate(t["requests"]) if e["type"] != "subagent"]
    for (k0, a), (k1, c) in zip(par, par[1:]):
        if (t["id"], k0) not in by or (t["id"], k1) not in by:
            continue
        L = 0
        while L < min(len(a["hash_ids"]), len(c["hash_ids"])) and a["hash_ids"][L] == c["hash_ids"][L]:
            L += 1
        x, y = by[(t["id"], k0)], by[(t["id"], k1)]
        p = os.path.commonprefix([x, y])
        # 64 words per block, each " word"
        if p.count(" ") < 64 * L:
            fail(f"{t['id']} turns {k0}/{k1}: {p.count(' ')} shared words, LCP {L} blocks")
        checked += 1
if not checked:
    fail("no consecutive turns to compare")
# think times and joins, in model time (the records' clock)
tr = {t["id"]: t for t in traces}
seq = {}
for r in recs:
    md = r["metadata"]
    if r["error"] is not None or md["benchmark_phase"] != "profiling":
        continue
    seq.setdefault(md["x_correlation_id"], []).append(r)
gaps = joins = 0
for cid, rs in seq.items():
    tid = cid.rsplit("-r", 1)[0]
    t = tr[tid]
    par = {r["metadata"]["turn_index"]: r for r in rs if "::" not in r["metadata"]["conversation_id"]}
    subs = {}
    for r in rs:
        c = r["metadata"]["conversation_id"]
        if "::sa:" in c:
            subs.setdefault(c.split("::sa:")[1], []).append(r)
    ents = t["requests"]
    pk = [k for k, e in enumerate(ents) if e["type"] != "subagent"]
    for k0, k1 in zip(pk, pk[1:]):
        if k0 not in par or k1 not in par:
            continue
        start = par[k1]["metadata"]["request_start_ns"]
        end = par[k0]["metadata"]["request_end_ns"]
        think = ents[k0]["think_time"]
        between = [ents[i]["agent_id"] for i in range(k0 + 1, k1)]
        for ag in between:
            for s in subs.get(ag, []):
                end = max(end, s["metadata"]["request_end_ns"])
                joins += 1
                if s["metadata"]["request_end_ns"] > start:
                    fail(f"{cid}: turn {k1} started before subagent {ag} ended")
        if start - end < think * 1e9 - 1e6:
            fail(f"{cid}: turn {k1} {((start - end) / 1e9):.3f} s after turn {k0} (think {think})")
        gaps += 1
if not gaps:
    fail("no think gap checked")
print(f"checked {len(wire)} requests ({exact} exactly their trace's in), {len(rep_count)} replays, {checked} LCP pairs, {gaps} think gaps, {joins} joined subagent requests")
for m in bad[:10]:
    print("FAIL: " + m)
sys.exit(1 if bad else 0)
PY
); then ok; else no "wire and records: $out"; fi
echo "$out" | head -1

# 2. the warmup rows: one turn and 2 extra requests per lane at most, all
#    ended before profiling started; agentic process drops them
w=$("$py" - "$tmp/a/aiperf_artifacts/profile_export.jsonl" <<'PY'
import json, sys
rs = [json.loads(l)["metadata"] for l in open(sys.argv[1])]
w = [r for r in rs if r["benchmark_phase"] == "warmup"]
p = [r for r in rs if r["benchmark_phase"] == "profiling"]
ok = 6 <= len(w) <= 9 and max(r["request_end_ns"] for r in w) <= min(r["request_start_ns"] for r in p)
print(len(w), len(p), "ok" if ok else "bad")
PY
)
[ "${w##* }" = ok ] && ok || no "warmup rows: $w"
(cd "$tmp/a" && env -i PATH="$PATH" HF_HUB_CACHE=none RESULT_FILENAME=agentic KV_OFFLOADING=none TP=1 \
	FRAMEWORK=vllm $(cat env) "$bin" agentic process >"$tmp/proc.out" 2>&1) && ok || no "agentic process: $(cat "$tmp/proc.out")"
nw=$(echo "$w" | cut -d' ' -f1)
np=$(echo "$w" | cut -d' ' -f2)
grep -q "Requests: $np successful / $((nw + np)) total ($nw warmup, 0 error dropped)" "$tmp/proc.out" && ok ||
	no "agentic process counts: $(cat "$tmp/proc.out")"
grep -q "GPU cache hit rate: " "$tmp/proc.out" && ok ||
	no "no GPU cache hit rate from the simulator's /metrics: $(cat "$tmp/proc.out")"
"$bin" agentic validate "$tmp/a/aiperf_artifacts" --failed-request-threshold 0.1 >/dev/null 2>&1 && ok ||
	no "agentic validate"

# 2b. with IX_REF (an InferenceX tree, or a git mirror: its utils/ at HEAD is
#     extracted), the unmodified process_agentic_result.py reads the same
#     artifacts and writes the same row
if [ -n "${IX_REF:-}" ]; then
	ix=$IX_REF
	if [ ! -d "$ix/utils/agentic" ]; then
		mkdir -p "$tmp/ix"
		{ git --git-dir="$IX_REF" archive HEAD utils 2>/dev/null ||
			git -C "$IX_REF" archive HEAD utils; } | tar -x -C "$tmp/ix" && ix=$tmp/ix
	fi
	mkdir -p "$tmp/ref"
	(cd "$tmp/a" && env -i PATH="$PATH" HF_HUB_CACHE=none RESULT_FILENAME=agentic KV_OFFLOADING=none \
		TP=1 FRAMEWORK=vllm AGENTIC_OUTPUT_DIR="$tmp/ref" PYTHONPATH="$ix" $(cat env) \
		"$py" -m utils.agentic.aggregation.process_agentic_result >"$tmp/ref.out" 2>&1) &&
		cmp -s "$tmp/a/agentic.json" "$tmp/ref/agentic.json" && ok ||
		no "the reference's process_agentic_result: $(tail -3 "$tmp/ref.out"; diff <(tr , '\n' <"$tmp/a/agentic.json") <(tr , '\n' <"$tmp/ref/agentic.json") | head)"
else
	echo "$suite: the reference's process_agentic_result skipped (IX_REF not set)"
fi

# 3. the same seed gives the same markers; another seed other ones
e2e_start_sim --tokenizer "$tok" --time-scale 50 --log-requests "$tmp/wire2.jsonl"
replay "$tmp/b" --corpus "$tmp/tr.jsonl" --concurrency 3 --benchmark-duration 10 \
	--warmup-requests-per-lane 0 --random-seed 7 --dynamo-session-header 2>"$tmp/b.log" ||
	no "replay seed 7: $(cat "$tmp/b.log")"
kill -TERM "$simpid" 2>/dev/null
wait "$simpid" 2>/dev/null
simpid=
m1=$(grep -o 'rid:[0-9a-f]*' "$tmp/wire.jsonl" | sort -u)
m2=$(grep -o 'rid:[0-9a-f]*' "$tmp/wire2.jsonl" | sort -u)
[ -n "$m2" ] && [ -z "$(comm -12 <(echo "$m1") <(echo "$m2"))" ] && ok || no "seed 7 reused markers of seed 42"
# 3b. X-Dynamo-Session-ID (--dynamo-session-header, replay b): absent from
#     replay a; on every request of b, "ax-<its marker's hex>" for parent
#     turns and "-sa<entry>" added for a subagent's, whose entry is a
#     subagent of the replay's trace with a request of this max_tokens
#     (a parent turn's max_tokens is a parent turn's out; 1 a per-lane
#     warmup request): one id per
#     conversation, different between conversations and between replays
# sessions WIRE RECORDS SEED: checks the wire's session ids; prints a summary
sessions() {
	"$py" - "$tmp/tr.jsonl" "$@" <<'PY'
import hashlib, json, re, sys
traces = {t["id"]: t for t in map(json.loads, open(sys.argv[1]))}
wire = [json.loads(l) for l in open(sys.argv[2])]
wire = [w for w in wire if w["path"] == "/v1/chat/completions"]
recs = [json.loads(l)["metadata"] for l in open(sys.argv[3])]
seed = sys.argv[4]
rep_trace = {r["session_num"]: r["x_correlation_id"].rsplit("-r", 1)[0] for r in recs}
hex_rep = {hashlib.sha256(f"cache-bust:{seed}:{n}".encode()).hexdigest()[:12]: n for n in rep_trace}
ids, reps, n = set(), set(), 0
for w in wire:
    b = json.loads(w["body"])
    sid = w.get("x_dynamo_session_id")
    mk = re.match(r"\[rid:([0-9a-f]{12})\]", [m for m in b["messages"] if m["role"] == "user"][0]["content"])
    m = re.fullmatch(r"ax-([0-9a-f]{12})(?:-sa([0-9]+))?", sid or "")
    assert m and mk and m.group(1) == mk.group(1), (sid, mk and mk.group(1))
    if m.group(1) not in hex_rep:
        continue  # a replay without records (cancelled at the end)
    t = traces[rep_trace[hex_rep[m.group(1)]]]
    if m.group(2) is None:
        outs = {e["out"] for e in t["requests"] if e["type"] != "subagent"}
    else:
        e = t["requests"][int(m.group(2))]
        assert e["type"] == "subagent", (sid, e["type"])
        outs = {r["out"] for r in e["requests"]}
    assert b["max_tokens"] in outs | {1}, (sid, b["max_tokens"], outs)  # 1: a warmup request
    ids.add(sid)
    reps.add(m.group(1))
    n += 1
assert n >= 10 and len(reps) >= 2 and len(ids) > len(reps), (n, len(ids), len(reps))
print(f"{n} requests, {len(ids)} sessions, {len(reps)} replays")
PY
}
! grep -q x_dynamo_session_id "$tmp/wire.jsonl" && ok || no "a session header without --dynamo-session-header"
out=$(sessions "$tmp/wire2.jsonl" "$tmp/b/aiperf_artifacts/profile_export.jsonl" 7 2>&1) && ok || no "session ids: $out"
echo "session ids: $out"

# 4. the idle caps: one trace whose turns are 50 s apart, one lane: with
#    everything idle the global cap brings the next turn within 10 s; with
#    the global cap out of the way, the per-tree cap of 4 s does
cat >"$tmp/idle.jsonl" <<'EOF'
{"id": "idle", "block_size": 64, "requests": [{"t": 0, "type": "n", "in": 128, "out": 4, "hash_ids": [1, 2], "api_time": 1, "think_time": 50}, {"t": 51, "type": "n", "in": 256, "out": 4, "hash_ids": [1, 2, 3, 4], "api_time": 1, "think_time": 50}, {"t": 102, "type": "n", "in": 384, "out": 4, "hash_ids": [1, 2, 3, 4, 5, 6], "api_time": 1, "think_time": 50}, {"t": 153, "type": "n", "in": 512, "out": 4, "hash_ids": [1, 2, 3, 4, 5, 6, 7, 8], "api_time": 1, "think_time": 50}]}
EOF
e2e_start_sim --tokenizer "$tok" --time-scale 50
gapcheck() { # DIR LO HI
	"$py" - "$1/aiperf_artifacts/profile_export.jsonl" "$2" "$3" <<'PY'
import json, sys
lo, hi = float(sys.argv[2]), float(sys.argv[3])
rs = [json.loads(l)["metadata"] for l in open(sys.argv[1])]
rs = [r for r in rs if r["benchmark_phase"] == "profiling" and "::" not in r["conversation_id"]]
rs.sort(key=lambda r: r["request_start_ns"])
g = [(b["request_start_ns"] - a["request_end_ns"]) / 1e9 for a, b in zip(rs, rs[1:])
     if b["x_correlation_id"] == a["x_correlation_id"]]
print(" ".join(f"{x:.2f}" for x in g))
sys.exit(0 if g and all(lo <= x <= hi for x in g) else 1)
PY
}
replay "$tmp/g" --corpus "$tmp/idle.jsonl" --concurrency 1 --benchmark-duration 40 \
	--warmup-requests-per-lane 0 --trajectory-start-min-ratio 0 --trajectory-start-max-ratio 0 \
	2>"$tmp/g.log" || no "replay idle: $(cat "$tmp/g.log")"
g=$(gapcheck "$tmp/g" 9.9 12) && ok || no "global idle cap: gaps $g (want 10 s)"
replay "$tmp/t" --corpus "$tmp/idle.jsonl" --concurrency 1 --benchmark-duration 20 \
	--warmup-requests-per-lane 0 --trajectory-start-min-ratio 0 --trajectory-start-max-ratio 0 \
	--global-idle-cap-seconds 1000 --trace-idle-gap-cap-seconds 4 2>"$tmp/t.log" ||
	no "replay tree cap: $(cat "$tmp/t.log")"
g=$(gapcheck "$tmp/t" 3.9 6) && ok || no "per-tree idle cap: gaps $g (want 4 s)"

# 5. bad input: each names the piece; nothing is written
printf '%s\n' "$(head -1 "$tmp/tr.jsonl")" '{"id": "x", "requests": [' >"$tmp/broken.jsonl"
replay "$tmp/bad1" --corpus "$tmp/broken.jsonl" 2>"$tmp/bad1.err"
[ $? = 1 ] && grep -q "broken.jsonl:2" "$tmp/bad1.err" && [ ! -e "$tmp/bad1" ] && ok ||
	no "broken record: $(cat "$tmp/bad1.err")"
replay "$tmp/bad2" --corpus "$tmp/nothere.jsonl" 2>"$tmp/bad2.err"
[ $? = 1 ] && grep -q "nothere.jsonl" "$tmp/bad2.err" && [ ! -e "$tmp/bad2" ] && ok ||
	no "missing corpus: $(cat "$tmp/bad2.err")"
HF_HUB_CACHE=$tmp/nohub "$bin" agentx replay --base-url "http://127.0.0.1:$port" --model acme/no-such-model \
	--corpus "$tmp/tr.jsonl" --output-dir "$tmp/bad3" 2>"$tmp/bad3.err"
[ $? = 1 ] && grep -q "acme/no-such-model" "$tmp/bad3.err" && [ ! -e "$tmp/bad3" ] && ok ||
	no "model without a tokenizer: $(cat "$tmp/bad3.err")"
"$bin" agentx replay --corpus "$tmp/tr.jsonl" --model m --concurrency 0 >/dev/null 2>&1
[ $? = 2 ] && ok || no "--concurrency 0 is a usage error"

# 6. another framework's server metrics: the simulator as ATOM; the replay
#    exports its atom: counters and gauges (prometheus names, _total dropped,
#    CSV beside the JSON) and the ATOM adapter reads its cache hit rate there
e2e_start_sim --tokenizer "$tok" --time-scale 50 --framework atom
replay "$tmp/at" --corpus "$tmp/tr.jsonl" --concurrency 2 --benchmark-duration 10 \
	--warmup-requests-per-lane 1 2>"$tmp/at.log" || no "replay against ATOM: $(cat "$tmp/at.log")"
kill -TERM "$simpid" 2>/dev/null
wait "$simpid" 2>/dev/null
simpid=
(cd "$tmp/at" && env -i PATH="$PATH" HF_HUB_CACHE=none RESULT_FILENAME=agentic KV_OFFLOADING=none TP=1 \
	FRAMEWORK=atom $(cat env) "$bin" agentic process >"$tmp/atp.out" 2>&1) && ok ||
	no "agentic process (ATOM): $(cat "$tmp/atp.out")"
"$py" - "$tmp/at" <<'PY' && ok || no "ATOM server metrics: $(head -c 600 "$tmp/at/aiperf_artifacts/server_metrics_export.json")"
import json, sys, os
d = sys.argv[1]
m = json.load(open(os.path.join(d, "aiperf_artifacts/server_metrics_export.json")))["metrics"]
assert m["atom:prompt_tokens"]["type"] == "counter" and m["atom:kv_cache_usage_ratio"]["type"] == "gauge", list(m)
assert m["atom:prefix_cache_full_tokens"]["series"][0]["stats"]["total"] > 0, m["atom:prefix_cache_full_tokens"]
assert not any(k.endswith("_total") for k in m), [k for k in m if k.endswith("_total")]
csv = open(os.path.join(d, "aiperf_artifacts/server_metrics_export.csv")).read().splitlines()
assert csv[0] == "metric,type,endpoint_url,labels,stat,value" and any(l.startswith("atom:prompt_tokens,counter,") for l in csv), csv[:3]
agg = json.load(open(os.path.join(d, "agentic.json")))
c = agg["server_metrics"]["cache"]
assert c["prefix_cache_queries"] > 0 and 0 < c["gpu_cache_hit_rate"] < 1, c
PY


# 7. the aiperf shim's live checks: against a simulator failing half its
#    requests, --failed-request-threshold 0.1 stops the replay early (exit 1,
#    the artifacts written, far fewer requests than the whole duration would
#    send); a --warmup-grace-period shorter than any request fails in warmup;
#    --stats-interval prints its lines
e2e_start_sim --tokenizer "$tok" --time-scale 50 --fail-rate 0.5 --seed 3
shim() { # OUT ARGS...
	local out=$1
	shift
	"$bin" aiperf profile --scenario inferencex-agentx-mvp --url "http://127.0.0.1:$port" \
		--endpoint /v1/chat/completions --endpoint-type chat --streaming --model llama3-8b \
		--tokenizer "$tok" --concurrency 3 --random-seed 42 --trajectory-start-min-ratio 0.25 \
		--trajectory-start-max-ratio 0.75 --use-server-token-count --no-gpu-telemetry \
		--output-artifact-dir "$out" --unsafe-override "$@"
}
INFBENCH_AGENTX_CORPUS=$tmp/tr.jsonl shim "$tmp/th" --benchmark-duration 600 --warmup-requests-per-lane 0 \
	--failed-request-threshold 0.1 >"$tmp/th.out" 2>"$tmp/th.err"
rc=$?
n=$(grep -c '"benchmark_phase":"profiling"' "$tmp/th/profile_export.jsonl" 2>/dev/null)
[ "$rc" = 1 ] && grep -q 'over the --failed-request-threshold 0.1 (the artifacts are written)' "$tmp/th.err" &&
	[ -s "$tmp/th/profile_export_aiperf.json" ] && [ "${n:-0}" -ge 10 ] && [ "$n" -lt 60 ] && ok ||
	no "live threshold (exit $rc, $n profiling records): $(tail -3 "$tmp/th.err")"
e2e_start_sim --tokenizer "$tok" --time-scale 50 --log-requests "$tmp/wire3.jsonl"
INFBENCH_AGENTX_CORPUS=$tmp/tr.jsonl shim "$tmp/wg" --benchmark-duration 30 --warmup-requests-per-lane 2 \
	--warmup-grace-period 0.001 >/dev/null 2>"$tmp/wg.err"
rc=$?
[ "$rc" = 1 ] && grep -q 'warmup did not drain within the --warmup-grace-period of 0.001 s' "$tmp/wg.err" &&
	[ ! -e "$tmp/wg/profile_export.jsonl" ] && ok || no "warmup grace (exit $rc): $(tail -2 "$tmp/wg.err")"
# (and the recipes' AIPERF_HTTP_X_DYNAMO_SESSION_ID_FROM_CORRELATION_ID=true
# sends the session header; --use-dynamo-conv-aware-routing says it sends
# no nvext.session_control)
AIPERF_HTTP_X_DYNAMO_SESSION_ID_FROM_CORRELATION_ID=true INFBENCH_AGENTX_CORPUS=$tmp/tr.jsonl \
	shim "$tmp/si" --benchmark-duration 150 --warmup-requests-per-lane 1 \
	--stats-interval 1 --num-dataset-entries 2 --use-dynamo-conv-aware-routing \
	--dynamo-session-timeout-seconds 3600 >"$tmp/si.out" 2>"$tmp/si.err"
rc=$?
[ "$rc" = 0 ] && grep -qE '^infbench aiperf: profiling [0-9]+ / 150 s: [0-9]+ requests completed, 0 failed' "$tmp/si.out" &&
	grep -q ': 2 traces (0 dropped' "$tmp/si.err" && ok ||
	no "stats lines / --num-dataset-entries (exit $rc): $(tail -3 "$tmp/si.out" "$tmp/si.err")"
grep -q -- '--use-dynamo-conv-aware-routing: not sent: nvext.session_control' "$tmp/si.err" && ok ||
	no "no line for --use-dynamo-conv-aware-routing: $(cat "$tmp/si.err")"
kill -TERM "$simpid" 2>/dev/null
wait "$simpid" 2>/dev/null
simpid=
# the warmup-grace replay sent no header, the shim's with the variable did
grep x_dynamo_session_id "$tmp/wire3.jsonl" >"$tmp/wire3s.jsonl"
out=$(sessions "$tmp/wire3s.jsonl" "$tmp/si/profile_export.jsonl" 42 2>&1) &&
	[ "$(wc -l <"$tmp/wire3s.jsonl")" -lt "$(grep -c chat/completions "$tmp/wire3.jsonl")" ] && ok ||
	no "the shim's session header: $out"

# 6. no allocation per streamed chunk, none per request body: the release
#    build under an LD_PRELOAD shim that counts malloc/calloc/realloc after the
#    first connect(), against `sim --max-speed` (one SSE event per token),
#    2000-token answers. Counts, not timings: fewer than one allocation per 100
#    chunks, and at most 2,000 (slots, tables, records, artifacts) plus one per
#    4 requests in all.
rel=${IB_RELEASE:-$root/build/infbench}
if [ ! -x "$rel" ] || ! cc -shared -fPIC -O1 -o "$tmp/alloc.so" "$root/tests/e2e/alloc_count.c" -ldl 2>"$tmp/cc.err"; then
	echo "$suite: allocation counts skipped (no release build at $rel or no cc: $(head -c 200 "$tmp/cc.err" 2>/dev/null))"
else
	"$bin" agentx make-traces --traces 8 --turns 3:6 --first-in 2048:4096 --context 8192:16384 \
		--out 2000:2000 --think 0:0 --subagent-rate 0.5 --subagent-turns 2:3 --system-tokens 512 \
		--tool-tokens 512 --long-tail 0 --background-rate 0.3 --max-context 20000 -o "$tmp/al.jsonl" ||
		no "make-traces for the allocation counts"
	e2e_start_sim --max-speed
	ALLOC_COUNT_FILE=$tmp/allocs LD_PRELOAD=$tmp/alloc.so "$rel" agentx replay \
		--base-url "http://127.0.0.1:$port" --model llama3-8b --tokenizer "$tok" --corpus "$tmp/al.jsonl" \
		--concurrency 4 --benchmark-duration 2 --warmup-requests-per-lane 1 --output-dir "$tmp/al" \
		2>"$tmp/al.log" || no "replay for the allocation counts: $(cat "$tmp/al.log")"
	if c=$("$py" - "$tmp/al/aiperf_artifacts/profile_export.jsonl" "$(cat "$tmp/allocs" 2>/dev/null)" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
allocs = int(sys.argv[2])
chunks = sum(r["metrics"].get("output_sequence_length", {}).get("value", 0) for r in recs)
n = len(recs)
print(f"{allocs} allocations after the first connect for {n} requests, {chunks} chunks")
sys.exit(0 if n >= 8 and chunks >= 500 * n and allocs * 100 < chunks and allocs <= 2000 + n // 4 else 1)
PY
	); then ok; else no "allocations: $c"; fi
	echo "$c"
fi

e2e_end
