"""Driver of bench/refgen.sh: times InferenceX's own sample_random_requests.

Run by refgen.sh with PYTHONPATH = bench/refgen/shim + the extracted client
directory; does what the client's main() does before generation: random.seed,
np.random.seed, _load_tokenizer(dir, "auto", False), then
sample_random_requests(..., tokenizer_id=dir, num_workers=W). The function's own
output (statistics block) goes to stderr; stdout gets the measurement lines.
"""
import argparse
import contextlib
import ctypes
import hashlib
import io
import json
import os
import random
import resource
import statistics
import sys
import time

import numpy as np

import benchmark_serving

CLK_TCK = os.sysconf("SC_CLK_TCK")
PR_SET_CHILD_SUBREAPER = 36


def parse_args():
    p = argparse.ArgumentParser(prog="refgen.sh", description="Time the reference's random-prompt generation.")
    p.add_argument("--tokenizer", default="llama3", help="fixture name or tokenizer directory (llama3)")
    p.add_argument("--num-prompts", type=int, default=5120)
    p.add_argument("--input-len", type=int, default=8192)
    p.add_argument("--output-len", type=int, default=1024)
    p.add_argument("--range-ratio", type=float, default=0.8)
    p.add_argument("--prefix-len", type=int, default=0)
    p.add_argument("--workers", type=int, default=8, help="num_workers; 1 = serial path, 0 = min(cpu_count, 8)")
    p.add_argument("--chat", action=argparse.BooleanOptionalAction, default=True, help="use the chat template")
    p.add_argument("--dsv4", action="store_true", help="DeepSeek-V4 encoder instead of the jinja template")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--dump", metavar="FILE", help="write input_lens, output_lens and prompt hashes as JSON")
    p.add_argument("--golden", metavar="FILE", help="take all arguments from a golden dataset case and compare")
    p.add_argument("--fixtures", required=True, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.golden:
        with open(args.golden, encoding="utf-8") as f:
            args.golden = json.load(f)
        g = args.golden["args"]
        args.tokenizer = args.golden["tokenizer"]
        args.num_prompts, args.input_len, args.output_len = g["num_prompts"], g["input_len"], g["output_len"]
        args.range_ratio, args.prefix_len, args.seed = g["range_ratio"], g["prefix_len"], g["seed"]
        args.chat, args.dsv4, args.workers = g["use_chat_template"], g["dsv4"], g["num_workers"]
    args.tokenizer_dir = os.path.abspath(
        args.tokenizer if os.path.isdir(args.tokenizer) else os.path.join(args.fixtures, args.tokenizer))
    if not os.path.isfile(os.path.join(args.tokenizer_dir, "tokenizer.json")):
        p.error("no tokenizer.json in %s (run make fixtures, or give a directory)" % args.tokenizer_dir)
    return args


def process_cpu(pid):
    """user+sys CPU seconds of a running process."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def own_cpu():
    """user+sys CPU seconds of this process and of every child it has reaped."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def machine_busy():
    """CPU seconds the whole machine has spent not idle since boot."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    return (sum(v) - v[3] - v[4]) / CLK_TCK


def median_ms(fn, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def ipc_line(tokenizer, n_tokens):
    """Cost of the pipe to tokserver.js: an empty round trip, and an echo of a prompt's
    text (the same bytes both ways) against an encode of it through the pipe (medians)."""
    v = tokenizer.vocab_size
    text = tokenizer.decode([(1000 + j) % v for j in range(n_tokens)]).encode("utf-8")
    empty = median_ms(lambda: tokenizer.call(b"X"), 2000)
    echo = median_ms(lambda: tokenizer.call(b"X", text), 50)
    encode = median_ms(lambda: tokenizer.call(b"E", text), 20)
    return ("ipc: empty round trip %.0f us; %d-token prompt (%.1f kB): echo %.2f ms, encode %.2f ms "
            "(pipe = %.1f%% of an encode)" % (empty * 1e3, n_tokens, len(text) / 1e3, echo, encode,
                                               100 * echo / encode))


def compare_golden(golden, input_lens, output_lens, hashes, prompts_sha, stats):
    ok_lens = golden["input_lens"] == input_lens and golden["output_lens"] == output_lens
    same = sum(a == b for a, b in zip(golden["prompt_sha256"], hashes))
    ok = ok_lens and same == len(hashes) == len(golden["prompt_sha256"]) and \
        golden["prompts_sha256"] == prompts_sha and golden["stats_block"] == stats
    print("golden: lens %s, %d/%d prompt hashes match, prompts_sha256 %s, stats block %s -> %s" % (
        "match" if ok_lens else "DIFFER", same, len(golden["prompt_sha256"]),
        "matches" if golden["prompts_sha256"] == prompts_sha else "DIFFERS",
        "matches" if golden["stats_block"] == stats else "DIFFERS", "MATCH" if ok else "MISMATCH"))
    return ok


def main():
    args = parse_args()
    name = os.path.basename(args.tokenizer_dir)
    random.seed(args.seed)
    np.random.seed(args.seed)

    t0 = time.perf_counter()
    tokenizer = benchmark_serving._load_tokenizer(args.tokenizer_dir, tokenizer_mode="auto", trust_remote_code=False)
    vocab_size = tokenizer.vocab_size
    print("tokenizer: %s (%s), vocab_size %d, loaded in %.2f s (in the main process)" % (
        name, args.tokenizer_dir, vocab_size, time.perf_counter() - t0))
    if args.chat and not args.dsv4 and tokenizer.chat_template is None:
        sys.exit("refgen.sh: %s has no chat template: use --no-chat" % name)
    print(ipc_line(tokenizer, args.input_len), flush=True)

    # The Pool workers' node servers outlive them (a worker ends by SIGTERM); as their
    # subreaper this process reaps them, so their CPU time is counted.
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    cpu0, busy0 = own_cpu() + process_cpu(tokenizer.server_pid()), machine_busy()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        t0 = time.perf_counter()
        requests = benchmark_serving.sample_random_requests(
            prefix_len=args.prefix_len, input_len=args.input_len, output_len=args.output_len,
            num_prompts=args.num_prompts, range_ratio=args.range_ratio, tokenizer=tokenizer,
            use_chat_template=args.chat, dsv4=args.dsv4, tokenizer_id=args.tokenizer_dir,
            tokenizer_mode="auto", trust_remote_code=False, num_workers=args.workers)
        seconds = time.perf_counter() - t0
    tokenizer.close()
    with contextlib.suppress(ChildProcessError):
        while True:
            os.wait()
    cpu = own_cpu() - cpu0
    others = (machine_busy() - busy0 - cpu) / (time.perf_counter() - t0)
    sys.stdout.flush()
    sys.stderr.write(out.getvalue())

    prompts = [r[0] for r in requests]
    input_lens = [r[1] for r in requests]
    output_lens = [r[2] for r in requests]
    hashes = [hashlib.sha256(p.encode("utf-8")).hexdigest() for p in prompts]
    prompts_sha = hashlib.sha256("\n".join(prompts).encode("utf-8")).hexdigest()
    mode = "dsv4" if args.dsv4 else "chat" if args.chat else "no chat"
    workers = args.workers if args.workers > 0 else min(os.cpu_count() or 1, 8)
    print("reference generation: %d prompts x %d tokens, %s, %s, %s: %.1f s" % (
        args.num_prompts, args.input_len, name, mode, "%d workers" % workers if workers > 1 else "serial",
        seconds))
    print("cpu: %.1f s user+sys (this process, its workers and their node servers); other processes "
          "kept %.2f of %d CPUs busy meanwhile" % (cpu, max(others, 0.0), os.cpu_count()))
    print("input_lens: sum %d, min %d, max %d; prompts_sha256 %s" % (
        sum(input_lens), min(input_lens), max(input_lens), prompts_sha))
    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as f:
            json.dump({"input_lens": input_lens, "output_lens": output_lens, "prompt_sha256": hashes,
                       "prompts_sha256": prompts_sha}, f)
    ok = True
    if args.golden:
        stats = out.getvalue()
        ok = compare_golden(args.golden, input_lens, output_lens, hashes, prompts_sha,
                            stats[stats.index("-" * 19):])
    print("seconds=%.1f cpu_seconds=%.1f prompts_sha256=%s input_lens_sum=%d" % (
        seconds, cpu, prompts_sha, sum(input_lens)))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
