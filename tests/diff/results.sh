#!/usr/bin/env bash
# Differential test: InferenceX's process_result.py / aggregate_power.py against
# infbench process / power on randomly generated raw results, environments and
# telemetry CSVs (tests/diff/gen_results.py). Runs only when IX_REF names an
# InferenceX checkout (843c6254) and python3 is available; otherwise prints a
# "skipped" line.
#   tests/diff/results.sh BIN [N=1000] [SEED=1]
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 1 ] || { echo "usage: results.sh BIN [N] [SEED]" >&2; exit 2; }
if [ -z "${IX_REF:-}" ] || [ ! -f "$IX_REF/utils/process_result.py" ]; then
	echo "diff-results: skipped (set IX_REF to an InferenceX checkout)"
	exit 0
fi
command -v python3 >/dev/null || { echo "diff-results: skipped (no python3)"; exit 0; }
exec python3 "$here/gen_results.py" "$1" "${2:-1000}" "${3:-1}"
