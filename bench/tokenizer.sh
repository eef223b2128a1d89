#!/usr/bin/env bash
# Encode throughput of infbench's tokenizer against HuggingFace tokenizers
# (@anush008/tokenizers 0.6.0, the Rust library 0.22.2 for node, installed into
# fixtures/node_modules by `make fixtures`), one thread each, on the same text:
# the texts of the golden encode corpora repeated to MB megabytes (default 4).
# Both encode the whole text as one string with add_special_tokens=False; the
# best of REPEAT runs (default 3) counts, load time excluded.
# Usage: bench/tokenizer.sh [INFBENCH]
# Prints MB/s of both, the ratio, token counts and whether the ids are
# identical; targets: ratio >= 1.0 and >= 10 MB/s. A benchmark: always exits
# 0 unless it cannot run at all.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/lib.sh"
bin=${1:-$root/build/infbench}
mb=${MB:-4}
repeat=${REPEAT:-3}
[ -x "$bin" ] || { echo "no infbench binary at $bin (run make)"; exit 1; }
command -v node >/dev/null || { echo "node is missing (make deps installs it)"; exit 1; }
helper=$root/bench/tok_hf.js
out=$root/build/bench
mkdir -p "$out"
text=$out/tokenizer-text.txt
node "$helper" text "$root/tests/golden/tokenizer" "$text" "$mb" || exit 1
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)
hf=yes
[ -d "$root/fixtures/node_modules/@anush008/tokenizers" ] || hf=
bytes=$(wc -c <"$text")
echo "text: $bytes bytes (golden encode corpora repeated); best of $repeat; ${pin[*]:-unpinned}"
[ -n "$hf" ] || echo "(no HuggingFace reference: run make fixtures)"
printf '%-12s %14s %10s %8s %10s %10s %10s  %s\n' tokenizer "infbench MB/s" "HF MB/s" ratio \
	tokens "HF tokens" identical targets
ran=0
for name in $BENCH_FIXTURES; do
	bench_fixture "$name" || continue
	line=$("${pin[@]}" "$bin" tokenize --tokenizer "$fx" --no-special-tokens --bench "$text" \
		--repeat "$repeat") || { printf '%-12s infbench failed\n' "$name"; continue; }
	ran=1
	ib=$(sed -n 's/.*"mb_per_s": \([0-9.]*\).*/\1/p' <<<"$line")
	ibt=$(sed -n 's/.*"tokens": \([0-9]*\).*/\1/p' <<<"$line")
	hfm=n/a hft=n/a ratio=n/a same=n/a
	if [ -n "$hf" ]; then
		hline=$("${pin[@]}" node "$helper" encode "$fx/tokenizer.json" "$text" "$repeat")
		hfm=$(sed -n 's/.*"mb_per_s":\([0-9.e+-]*\).*/\1/p' <<<"$hline")
		hft=$(sed -n 's/.*"tokens":\([0-9]*\).*/\1/p' <<<"$hline")
		hsha=$(sed -n 's/.*"ids_sha":"\([0-9a-f]*\)".*/\1/p' <<<"$hline")
		"$bin" tokenize --tokenizer "$fx" --no-special-tokens <"$text" >"$out/tokenizer-ids.json"
		isha=$(node "$helper" hash "$out/tokenizer-ids.json")
		[ -n "$hsha" ] && [ "$hsha" = "$isha" ] && same=yes || same=NO
		ratio=$(awk -v a="$ib" -v b="$hfm" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "n/a" }')
		hfm=$(awk -v b="$hfm" 'BEGIN { printf "%.1f", b }')
	fi
	t1=$(awk -v a="$ib" 'BEGIN { print (a >= 10) ? "ok" : "MISSED" }')
	t2=$(awk -v r="${ratio%x}" 'BEGIN { if (r == "n/a") print "-"; else print (r >= 1.0) ? "ok" : "MISSED" }')
	printf '%-12s %14.1f %10s %8s %10s %10s %10s  %s\n' "$name" "$ib" "$hfm" "$ratio" "$ibt" "$hft" \
		"$same" ">=10MB/s $t1, >=1.0x $t2"
done
rm -f "$out/tokenizer-ids.json"
[ "$ran" = 1 ] || exit 1
exit 0
