#!/usr/bin/env bash
# End-to-end tests of `infbench sim` (tests/e2e/sim_e2e.c, built by make test).
# Usage: sim.sh INFBENCH. Ends with "sim: N passed, N failed".
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
prog=${IB_SIM_E2E:-$root/build/san/sim_e2e}
if [ ! -x "$prog" ]; then
	echo "sim_e2e is not built (make test builds it)"
	echo "sim: 0 passed, 1 failed"
	exit 1
fi
exec "$prog" "$1"
