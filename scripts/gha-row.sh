#!/usr/bin/env bash
# One job of a GitHub Actions fan-out (docs/examples/github-actions.yml): runs
# the matrix row given as JSON (the workflow's `toJson(matrix.config)`) with
# `infbench run` into the results store STORE, so each job leaves
# STORE/rows/<identity>/ for the collect job to merge.
# Usage: scripts/gha-row.sh STORE ROW_JSON [infbench run options...]
#   INFBENCH   the binary (default build/infbench)
# Exit status: infbench run's (0 when the row is done or skipped).
set -euo pipefail
store=${1:?usage: gha-row.sh STORE ROW_JSON [options]}
row=${2:?usage: gha-row.sh STORE ROW_JSON [options]}
shift 2
bin=${INFBENCH:-build/infbench}
mkdir -p "$store"
matrix=$(mktemp "$store/.row.XXXXXX.json")
trap 'rm -f "$matrix"' EXIT
printf '[%s]\n' "$row" >"$matrix"
"$bin" run "$matrix" --results "$store" "$@"
