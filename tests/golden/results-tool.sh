#!/usr/bin/env bash
# Runs the infbench equivalent of one reference result tool, so that
#   tests/golden/results/run.sh tests/golden/results-tool.sh [CASES_DIR...]
# checks infbench against any folder of cases of the golden results layout.
#
#   results-tool.sh TOOL ARGS...
#
# TOOL is a name of tests/golden/results/tools/ref.sh; the binary is $INFBENCH
# (default: build/infbench beside this script's repository).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=${INFBENCH:-$here/../../build/infbench}
[ $# -ge 1 ] || { echo "usage: results-tool.sh TOOL ARGS..." >&2; exit 2; }
tool=$1
shift
case $tool in
process_result) exec "$bin" process "$@" ;;
aggregate_power) exec "$bin" power "$@" ;;
aggregate_power_multinode) exec "$bin" power --multinode "$@" ;;
collect_results) exec "$bin" collect "$@" ;;
compare_results)
	# The cases' database is DATABASE_URL=golden-json:FILE, the rows of the
	# reference's joined tables (tools/stubs/psycopg2): load them into a
	# SQLite results database in a temporary folder and compare against it.
	case ${DATABASE_URL:-} in
	golden-json:*)
		tmp=$(mktemp -d)
		trap 'rm -rf "$tmp"' EXIT
		"$bin" db import --db "$tmp/baselines.db" "${DATABASE_URL#golden-json:}" >/dev/null || exit 1
		DATABASE_URL=$tmp/baselines.db "$bin" compare "$@"
		exit $? ;;
	*) exec "$bin" compare "$@" ;;
	esac ;;
calc_success_rate) exec "$bin" success-rate "$@" ;;
collect_eval_results) exec "$bin" eval collect "$@" ;;
validate_scores) exec "$bin" eval validate "$@" ;;
gsm8k_score) exec "$bin" eval score "$@" ;;
*) echo "results-tool.sh: unknown tool '$tool'" >&2; exit 2 ;;
esac
