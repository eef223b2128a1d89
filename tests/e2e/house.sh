#!/usr/bin/env bash
# The house rules of docs/design-notes.md, checked over the sources:
#   1. a module includes only modules listed above it in the module table
#      (`#include "<module>/..."` in src/<module>/*.[ch]);
#   2. `sim/` includes neither `pareto/` nor `report/`;
#   3. no function of a `src/cli/cmd_*.c` is over 100 lines, head to closing
#      brace (commands are thin).
# The checker first runs on a small tree with one breach of each rule and must
# find all three (so the check itself can fail), then on src/.
# Usage: house.sh [INFBENCH] (the binary is not used).
# Ends with "house: N passed, N failed".
. "$(dirname "$0")/lib.sh" house "${1:-/bin/true}"

# the module order: the table of docs/design-notes.md, top to bottom
mapfile -t order < <(sed -n 's/^| `\([a-z]*\)\/` |.*/\1/p' "$root/docs/design-notes.md")
[ "${#order[@]}" -ge 10 ] || e2e_skip "no module table in docs/design-notes.md"
declare -A rank
for i in "${!order[@]}"; do rank[${order[$i]}]=$i; done

# house_check SRC: prints one line per breach
house_check() {
	local src=$1 f m inc
	for f in "$src"/*/*.[ch]; do
		m=$(basename "$(dirname "$f")")
		if [ -z "${rank[$m]}" ]; then
			echo "$f: module '$m/' is not in the table of docs/design-notes.md"
			continue
		fi
		while read -r inc; do
			[ -n "${rank[$inc]}" ] || continue
			if [ "${rank[$inc]}" -gt "${rank[$m]}" ]; then
				echo "$f: includes $inc/, which the table lists after $m/"
			elif [ "$m" = sim ] && { [ "$inc" = pareto ] || [ "$inc" = report ]; }; then
				echo "$f: sim/ includes $inc/"
			fi
		done < <(sed -n 's/^#include "\([a-z]*\)\/.*/\1/p' "$f")
	done
	for f in "$src"/cli/cmd_*.c; do
		[ -f "$f" ] || continue
		# a function runs from its head (the last line starting with a name
		# and a '(' before a '{' in column 0) to the next '}' in column 0,
		# both counted
		awk -v f="$f" '
			/^[A-Za-z_].*\(/ { head = $0; hl = NR }
			/^\{/ { start = NR }
			/^\}/ { if (start && NR - hl + 1 > 100)
					printf "%s:%d: %s is %d lines (at most 100)\n", f, hl, head, NR - hl + 1
				start = 0 }' "$f"
	done
}

# 1. the checker finds a breach of each rule
e2e_tmp
t=$tmp
mkdir -p "$t/base" "$t/sim" "$t/cli"
printf '#include "run/run.h"\n' >"$t/base/x.c"
printf '#include "pareto/pareto.h"\n' >"$t/sim/x.c"
{
	echo 'int cmd_x(void)'
	echo '{'
	for _ in $(seq 98); do echo '	f();'; done
	echo '}'
} >"$t/cli/cmd_x.c"
got=$(house_check "$t")
for want in "base/x.c: includes run/" "sim/x.c: sim/ includes pareto/" "cmd_x.c:1: int cmd_x(void) is 101 lines"; do
	if grep -qF "$want" <<<"$got"; then ok; else no "the checker misses: $want (it said: $got)"; fi
done

# 2. the sources keep the rules
got=$(house_check "$root/src")
if [ -z "$got" ]; then
	ok
else
	no "the sources break the house rules:"
	printf '  %s\n' "$got" >&2
fi
e2e_end
