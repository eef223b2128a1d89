#!/usr/bin/env bash
# Runs the infbench equivalent of one reference AgentX result tool, so that
#   tests/golden/results/run.sh tests/golden/agentic-tool.sh tests/golden/agentic/cases
# checks infbench against any folder of cases of the golden agentic layout.
#
#   agentic-tool.sh TOOL ARGS...
#
# TOOL is a name of tests/golden/agentic/tools/ref.sh; the binary is $INFBENCH
# (default: build/infbench beside this script's repository).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=${INFBENCH:-$here/../../build/infbench}
[ $# -ge 1 ] || { echo "usage: agentic-tool.sh TOOL ARGS..." >&2; exit 2; }
tool=$1
shift
case $tool in
process_agentic_result) exec "$bin" agentic process "$@" ;;
validate_agentic_result) exec "$bin" agentic validate "$@" ;;
agentic_power_adapter) exec "$bin" agentic power-adapter "$@" ;;
*) echo "agentic-tool.sh: unknown tool '$tool'" >&2; exit 2 ;;
esac
