#!/usr/bin/env bash
# `infbench eval validate` / `eval collect` against the reference's
# utils/evals/validate_scores.py and utils/collect_eval_results.py on 88
# edge cases (tests/diff/evals.py: odd thresholds, metadata and result shapes,
# batched manifests, table typing, Unicode, sort-key errors).
# Needs IX_REF (an InferenceX checkout or bare git mirror; the scripts are
# extracted at run time), python3 with PyYAML, and tabulate 0.10 importable
# (on PYTHONPATH, or TABULATE_PYLIB=DIR); skipped when IX_REF is unset.
# Usage: IX_REF=path tests/diff/evals.sh INFBENCH
# Ends with "evals_diff: N passed, N failed"; exit 1 on any difference.
set -u
if [ -z "${IX_REF:-}" ]; then
	echo "(IX_REF not set: skipping the eval validate/collect check against the Python reference)"
	echo "evals_diff: 0 passed, 0 failed"
	exit 0
fi
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
py=${PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "${TABULATE_PYLIB:-}" ] && export PYTHONPATH=$TABULATE_PYLIB${PYTHONPATH:+:$PYTHONPATH}
if ! "$py" -c 'import yaml, tabulate' 2>/dev/null; then
	echo "not ok - $py cannot import yaml and tabulate (set TABULATE_PYLIB)"
	echo "evals_diff: 0 passed, 1 failed"
	exit 1
fi
mkdir -p "$tmp/ix/utils/evals"
for f in utils/collect_eval_results.py utils/evals/validate_scores.py utils/evals/thresholds.yaml; do
	if [ -f "$IX_REF/$f" ]; then
		cp "$IX_REF/$f" "$tmp/ix/$f"
	else
		git --git-dir="$IX_REF" show "HEAD:$f" >"$tmp/ix/$f" 2>/dev/null ||
			git -C "$IX_REF" show "HEAD:$f" >"$tmp/ix/$f" || {
			echo "not ok - cannot read $f from $IX_REF"
			echo "evals_diff: 0 passed, 1 failed"
			exit 1
		}
	fi
done
exec "$py" "$here/evals.py" "$bin" "$tmp/ix"
