#!/usr/bin/env bash
# bench/matrix.sh [INFBENCH] — speed and memory of `infbench matrix` on the
# configs in configs/, optionally against the Python reference
# (InferenceX utils/matrix_logic/generate_sweep_configs.py).
#
#   INFBENCH   the binary to measure (default: build/infbench)
#   RUNS       timed runs per case (default: 5)
#   IX_REF     path to an InferenceX checkout; enables the comparison
#
# A benchmark, not a test: it exits 0 whatever the figures (and whether the
# outputs match); it exits 1 only if infbench cannot be run at all.
# See bench/README.md.
set -u

die() { printf 'bench/matrix.sh: %s\n' "$*" >&2; exit 1; }

# Resolve user-supplied paths against the caller's directory, then work from
# the repository root so that the configs/ paths resolve for both programs.
abspath() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd) || die "cannot find the repository root"
. "$ROOT/bench/lib.sh"
if [ $# -ge 1 ]; then INFBENCH=$(abspath "$1"); else INFBENCH=$ROOT/build/infbench; fi
REF_DIR=${IX_REF:+$(abspath "$IX_REF")}
RUNS=${RUNS:-5}
case $RUNS in '' | *[!0-9]* | 0) die "RUNS must be a positive integer (got '$RUNS')" ;; esac
cd "$ROOT" || die "cannot cd to $ROOT"

[ -x "$INFBENCH" ] || die "$INFBENCH is not an executable file (build it with: make)"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/infbench-bench.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$TMP"' EXIT

# ---- clocks ----------------------------------------------------------------
# Wall and CPU (user + system) time per run from bash's `time` (bench_time in
# bench/lib.sh: getrusage of the children, ms resolution, no fork of its own).
TIMER="bash time (wall, user + system CPU)"

# Peak RSS from GNU time (%M, KiB), run separately from the timed runs.
GNUTIME=
if command -v /usr/bin/time >/dev/null 2>&1 &&
    /usr/bin/time -f '%M' -o "$TMP/probe" true 2>/dev/null && [ -s "$TMP/probe" ]; then
    GNUTIME=/usr/bin/time
fi

# ---- the reference -----------------------------------------------------------
REF_SCRIPT=
REF_NOTE=
if [ -z "$REF_DIR" ]; then
    REF_NOTE='IX_REF unset'
elif [ ! -f "$REF_DIR/utils/matrix_logic/generate_sweep_configs.py" ]; then
    REF_NOTE="IX_REF=$REF_DIR has no utils/matrix_logic/generate_sweep_configs.py"
elif ! bench_ref_python pydantic yaml; then
    REF_NOTE="$REF_PY_NOTE (pip install pydantic pyyaml)"
else
    REF_SCRIPT=$REF_DIR/utils/matrix_logic/generate_sweep_configs.py
    REF_NOTE="$REF_DIR with $REF_PY_NOTE"
fi

# ---- the cases ---------------------------------------------------------------
FILES=(--config-files configs/amd-master.yaml configs/nvidia-master.yaml
    --runner-config configs/runners.yaml)
NAMES=('full-sweep' 'full-sweep --no-evals' 'test-config dsr1-fp8-mi300x-sglang')
ARGS=("full-sweep ${FILES[*]}"
    "full-sweep ${FILES[*]} --no-evals"
    "test-config ${FILES[*]} --config-keys dsr1-fp8-mi300x-sglang")

# measure TAG OUTFILE CMD...  — one warm-up run (stdout kept in OUTFILE), then
# RUNS timed runs and RUNS GNU-time runs (stdout discarded). Sets M_MS (wall),
# M_CPU (user + system), M_KB (empty if unknown), M_OK (0/1) and M_RC (exit
# status of a failed run).
measure() {
    local tag=$1 out=$2; shift 2
    local i kb
    M_MS='' M_CPU='' M_KB='' M_OK=0 M_RC=0
    "$@" >"$out" 2>"$TMP/$tag.err" || { M_RC=$?; return 0; }
    bench_time "$RUNS" 1 "$@"
    [ "$BT_RC" = 0 ] || { M_RC=$BT_RC; return 0; }
    M_MS=$(printf '%.1f' "$BT_WALL_MS") M_CPU=$(printf '%.1f' "$BT_CPU_MS")
    if [ -n "$GNUTIME" ]; then
        : >"$TMP/$tag.kb"
        for ((i = 0; i < RUNS; i++)); do
            "$GNUTIME" -f '%M' -o "$TMP/$tag.time" "$@" >/dev/null 2>"$TMP/$tag.err" || { M_RC=$?; return 0; }
            kb=$(tail -n 1 "$TMP/$tag.time")
            case $kb in '' | *[!0-9]*) ;; *) echo "$kb" >>"$TMP/$tag.kb" ;; esac
        done
        # the peak over all runs (max), in KiB
        [ -s "$TMP/$tag.kb" ] && M_KB=$(sort -n "$TMP/$tag.kb" | tail -n 1)
    fi
    M_OK=1
}

mb() { [ -n "$1" ] && awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }' || printf 'n/a'; }
ratio() { bench_ratio "$@"; }

# ---- run ---------------------------------------------------------------------
echo "infbench matrix benchmark: median wall and CPU time of $RUNS runs, peak RSS = max over $RUNS runs"
echo "  infbench:  $INFBENCH"
echo "  reference: $REF_NOTE"
if [ -n "$GNUTIME" ]; then RSS_NOTE="GNU time %M ($GNUTIME)"; else RSS_NOTE='n/a (no GNU time; Debian package: time)'; fi
echo "  timer:     $TIMER; RSS: $RSS_NOTE"
echo "  machine:   $(nproc 2>/dev/null || echo '?') CPUs, $(uname -sm)"
echo "  targets:   speed: infbench >= 50x the reference's CPU time; rss: infbench peak RSS <= 10 MB"
echo
INFBENCH=$INFBENCH bench_startup
echo

rows=() notes=() ran=0
for c in "${!NAMES[@]}"; do
    read -r -a argv <<<"${ARGS[$c]}"
    measure "ib$c" "$TMP/ib$c.out" "$INFBENCH" matrix "${argv[@]}"
    ib_ok=$M_OK ib_ms=$M_MS ib_cpu=$M_CPU ib_kb=$M_KB
    [ "$ib_ok" = 1 ] && ran=1
    if [ "$ib_ok" != 1 ]; then
        notes+=("infbench failed on '${NAMES[$c]}' (status $M_RC)$(tail -n 3 "$TMP/ib$c.err" | sed 's/^/\n    /')")
    fi
    rf_ok=0 rf_ms='' rf_cpu='' rf_kb='' same=n/a
    if [ -n "$REF_SCRIPT" ]; then
        measure "rf$c" "$TMP/rf$c.out" "$REF_PY" "$REF_SCRIPT" "${argv[@]}"
        rf_ok=$M_OK rf_ms=$M_MS rf_cpu=$M_CPU rf_kb=$M_KB
        if [ "$rf_ok" != 1 ]; then
            notes+=("the reference failed on '${NAMES[$c]}' (status $M_RC)$(tail -n 3 "$TMP/rf$c.err" | sed 's/^/\n    /')")
        fi
        if [ "$ib_ok" = 1 ] && [ "$rf_ok" = 1 ]; then
            if cmp -s "$TMP/ib$c.out" "$TMP/rf$c.out"; then
                same=yes
            else
                same=no
                where=$(cmp "$TMP/ib$c.out" "$TMP/rf$c.out" 2>&1 | head -n 1 |
                    sed -e 's/.*differ: //' -e 's/.*EOF on [^ ]*\/\(ib\|rf\)[0-9]*\.out.*/the end of \1/' \
                        -e 's/the end of ib/the end of infbench'"'"'s output/' -e 's/the end of rf/the end of the reference'"'"'s output/')
                notes+=("'${NAMES[$c]}': outputs differ, first at $where\n    (infbench $(wc -c <"$TMP/ib$c.out") bytes, reference $(wc -c <"$TMP/rf$c.out") bytes)")
            fi
        fi
    fi
    # target checks: "ok", "MISSED", or "-" where the figure is unknown
    tgt=
    if [ "$ib_ok" = 1 ]; then
        t_speed=- t_rss=-
        if [ -n "$REF_SCRIPT" ] && [ "$rf_ok" = 1 ]; then
            if awk -v a="$rf_cpu" -v b="$ib_cpu" 'BEGIN { exit !(b > 0 && a / b >= 50) }'; then
                t_speed=ok
            else
                t_speed=MISSED
            fi
        fi
        if [ -n "$ib_kb" ]; then
            if [ "$ib_kb" -le 10240 ]; then t_rss=ok; else t_rss=MISSED; fi
        fi
        tgt="speed $t_speed, rss $t_rss"
    fi
    if [ "$ib_ok" = 1 ]; then ib_ms_s=$ib_ms ib_cpu_s=$ib_cpu ib_mb_s=$(mb "$ib_kb"); else ib_ms_s=failed ib_cpu_s=- ib_mb_s=-; fi
    if [ -z "$REF_SCRIPT" ]; then
        rows+=("${NAMES[$c]}|$ib_ms_s|$ib_cpu_s|$ib_mb_s|${tgt:--}")
    else
        if [ "$rf_ok" = 1 ]; then rf_ms_s=$rf_ms rf_cpu_s=$rf_cpu rf_mb_s=$(mb "$rf_kb"); else rf_ms_s=failed rf_cpu_s=- rf_mb_s=-; fi
        sp=n/a wr=n/a mr=n/a
        if [ "$ib_ok" = 1 ] && [ "$rf_ok" = 1 ]; then
            sp=$(ratio "$rf_cpu" "$ib_cpu")
            wr=$(ratio "$rf_ms" "$ib_ms")
            mr=$(ratio "$rf_kb" "$ib_kb")
        fi
        rows+=("${NAMES[$c]}|$ib_ms_s|$ib_cpu_s|$ib_mb_s|$rf_ms_s|$rf_cpu_s|$rf_mb_s|$sp|$wr|$mr|$same|${tgt:--}")
    fi
done

# ---- table -------------------------------------------------------------------
if [ -z "$REF_SCRIPT" ]; then
    header='case|infbench ms|CPU ms|RSS MB|targets'
else
    header='case|infbench ms|CPU ms|RSS MB|ref ms|ref CPU ms|ref RSS MB|CPU ratio|wall ratio|mem ratio|identical output|targets'
fi
{
    printf '%s\n' "$header"
    printf '%s\n' "${rows[@]}"
} | awk -F'|' '
    NR == 1 { for (i = 1; i <= NF; i++) left[i] = ($i == "case" || $i == "identical output" || $i == "targets") }
    { for (i = 1; i <= NF; i++) { cell[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) }
      if (NF > nf) nf = NF }
    END {
        for (r = 1; r <= NR; r++) {
            line = ""
            for (i = 1; i <= nf; i++) {
                # text columns left-aligned, numbers right-aligned
                fmt = left[i] ? "%-" w[i] "s" : "%" w[i] "s"
                line = line (i > 1 ? "  " : "") sprintf(fmt, cell[r, i])
            }
            sub(/ +$/, "", line); print line
        }
    }'
echo

if [ -n "$REF_SCRIPT" ]; then
    echo "ms = median wall time, CPU ms = median user + system time; CPU ratio = ref CPU / infbench CPU;"
    echo "wall ratio = ref ms / infbench ms; mem ratio = ref RSS / infbench RSS;"
    echo "identical output = both stdouts byte-identical (warm-up run of each)."
else
    echo "No comparison with the Python reference: $REF_NOTE. To enable it:"
    echo "  IX_REF=/path/to/InferenceX bench/matrix.sh    (a checkout of SemiAnalysisAI/InferenceX,"
    echo "  e.g. at commit 843c6254f, and a python3 that can import pydantic and yaml;"
    echo "  REF_PYTHON=/path/to/python3 names the interpreter, else bench/lib.sh resolves python3's)"
fi

for n in "${notes[@]}"; do printf '! %b\n' "$n"; done

[ "$ran" = 1 ] || die "infbench failed on every case"
exit 0
