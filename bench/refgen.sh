#!/usr/bin/env bash
# refgen.sh - time the reference's random-prompt generation: InferenceX's own,
# unmodified sample_random_requests (utils/bench_serving/benchmark_serving.py),
# called the way its main() calls it, with a real tokenizer.
#
# Usage: bench/refgen.sh [--tokenizer NAME|DIR (llama3)] [--num-prompts N (5120)]
#            [--input-len L (8192)] [--output-len O (1024)] [--range-ratio R (0.8)]
#            [--prefix-len P (0)] [--workers W (8; 1 = serial, 0 = min(cpu_count, 8))]
#            [--chat | --no-chat (chat)] [--dsv4] [--seed S (0)] [--dump FILE]
#        bench/refgen.sh --golden /work/shared/golden/dataset/CASE.json
#   --dump FILE     write input_lens, output_lens, prompt_sha256 (one per prompt) and
#                   prompts_sha256 as JSON, the key names of the golden dataset files
#   --golden FILE   take every argument from a golden dataset case, compare the lengths,
#                   the prompt hashes and the statistics block; exit 1 on a mismatch
# Env: IX_MIRROR (bare git mirror of InferenceX, default
#      /work/.mirror/SemiAnalysisAI+InferenceX/repo), IX_REV (default HEAD).
# Output (stdout): the tokenizer load, the IPC cost, the generation time, the lengths and
# the sha256 of all final prompts joined by "\n"; the last line is machine-readable:
#   seconds=S prompts_sha256=HEX input_lens_sum=N
# The function's own output (its statistics block) goes to stderr.
#
# How: the four client files are extracted from the mirror into a temporary directory
# (nothing of the reference is stored in this repository) and imported next to
# bench/refgen/shim, a stand-in `transformers`/`huggingface_hub`. Its tokenizer is the
# one that produced the golden dataset (/work/shared/golden/dataset/README.md):
# HuggingFace tokenizers 0.22.2 (Rust) through the node binding @anush008/tokenizers
# (fixtures/node_modules, `make fixtures`), one bench/refgen/tokserver.js child per
# Python process (the Pool workers each load their own tokenizer, as in the reference),
# spoken to over its stdin/stdout with length-prefixed binary frames; chat templates
# rendered by Python jinja2 as transformers does. Cross-checked against the golden
# dataset: llama3_isl1024_n40_chat, llama3_isl1024_n40_w2, qwen3_isl1024_n40_chat_w4 and
# every other case give identical lengths, prompt hashes and statistics blocks.
#
# The real reference runs the Rust tokenizer inside Python through transformers, which
# adds Python-side work of its own per call; the stand-in replaces that with a pipe round
# trip. Measured (the "ipc:" line of every run): an empty round trip takes 35-50 us; an
# 8192-token llama3 prompt (41 kB) echoed both ways 0.14-0.19 ms against 12-27 ms for
# its encode through the pipe, so the pipe is ~1% of the tokenizer work. A prompt takes
# 5-6 calls (2 decodes, 3-4 encodes), ~100 ms of tokenizer CPU at 8k tokens. Each worker
# loads its own tokenizer inside the timed call, as the reference's workers do:
# tokenizer.json in node takes 1-1.7 s for llama3 (8 workers: ~10 s CPU).
#
# Figures (2 CPUs, AMD EPYC virtualised, Debian 12, Python 3.11.2, numpy 1.24.2, node 20,
# InferenceX 843c6254f), llama3, chat, 8 workers, seed 0; "cpu" counts the driver, its
# workers and all node servers; "others" is the CPU that other processes took meanwhile:
#   256 x 8192:   19.4 s  (cpu 38.1 s, others 0.05 CPUs)  input_lens_sum 1886084
#   5120 x 8192: 286.2 s  (cpu 482.4 s, others 0.31 CPUs) input_lens_sum 37774003,
#                290.9 s  (cpu 516.1 s) on a second run, identical prompts:
#                prompts_sha256 42195a3e29f390ef96360f1be4f13da2d03b7947c041278b47f9caf81ff8ffa9
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/bench/lib.sh"
mirror=${IX_MIRROR:-/work/.mirror/SemiAnalysisAI+InferenceX/repo}
rev=${IX_REV:-HEAD}
die() { echo "refgen.sh: $*" >&2; exit 2; }

for a in "$@"; do
	case "$a" in -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
done

git --git-dir="$mirror" rev-parse --verify -q "$rev^{commit}" >/dev/null 2>&1 ||
	die "no InferenceX git mirror at $mirror (or no $rev in it): set IX_MIRROR"
bench_ref_python numpy jinja2 aiohttp tqdm ||
	die "$REF_PY_NOTE (Debian: apt-get install python3-numpy python3-jinja2 python3-aiohttp python3-tqdm)"
py=$REF_PY
command -v node >/dev/null || die "node not found (make deps installs it)"
node -e "require('$root/fixtures/node_modules/@anush008/tokenizers')" 2>/dev/null ||
	die "the npm binding @anush008/tokenizers is missing or does not load: run make fixtures"

work=$(mktemp -d /tmp/refgen.XXXXXX)
trap 'rm -rf "$work"' EXIT
for f in benchmark_serving.py backend_request_func.py benchmark_utils.py encoding_dsv4.py; do
	git --git-dir="$mirror" show "$rev:utils/bench_serving/$f" >"$work/$f"
done

PYTHONPATH="$root/bench/refgen/shim:$work" PYTHONDONTWRITEBYTECODE=1 \
	"$py" "$root/bench/refgen/refgen.py" --fixtures "$root/fixtures/tokenizers" "$@"
