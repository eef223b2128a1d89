#!/usr/bin/env bash
# Golden AgentX result cases (tests/golden/agentic/, copied from the golden
# data made by running InferenceX's unmodified utils/agentic scripts) against
# infbench.
#   tests/golden/run_agentic.sh BIN [CASES_DIR...]
# (default: agentic/cases). Runs results/run.sh (the golden folders share
# one runner; the agentic folder's run.sh is a copy of it) with
# agentic-tool.sh and INFBENCH=BIN; the last line is "agentic: N passed, N
# failed".
# Cases: par- (agentic process), val- (agentic validate), pwr- (agentic
# power-adapter).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 1 ] || { echo "usage: run_agentic.sh BIN [CASES_DIR...]" >&2; exit 2; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
[ $# -ge 1 ] || set -- "$here/agentic/cases"
out=$(INFBENCH=$bin RUN_ENV_PASS=INFBENCH "$here/results/run.sh" "$here/agentic-tool.sh" "$@")
rc=$?
printf '%s\n' "$out" | sed '$d'
last=$(printf '%s\n' "$out" | tail -1)
echo "agentic: $last"
exit $rc
