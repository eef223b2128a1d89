#!/usr/bin/env bash
# End-to-end checks of `infbench changelog` on bad input: every failure names
# the file, the line and the rule, exits non-zero and prints nothing on
# stdout; plus --help, --output and ci-priority from stdin.
# Usage: tests/e2e/changelog.sh INFBENCH
# Ends with "changelog-e2e: N passed, N failed".
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../golden/matrix
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
	echo "FAIL $1"
	fail=$((fail + 1))
}

if ! command -v git >/dev/null; then
	echo "changelog-e2e: SKIP: git is not installed"
	echo "changelog-e2e: 0 passed, 0 failed"
	exit 0
fi

repo=$tmp/repo
mkdir -p "$repo/configs"
cp "$data/configs/amd-master.yaml" "$data/configs/nvidia-master.yaml" \
	"$data/configs/runners.yaml" "$data/configs/ci-priority.yaml" "$repo/configs/"
cp "$data/configs/perf-changelog.yaml" "$repo/perf-changelog.yaml"
g() { git -C "$repo" -c user.name=t -c user.email=t@example.invalid -c commit.gpgsign=false \
	-c advice.detachedHead=false "$@"; }
g init -q
g add -A
g commit -q -m base
g tag base
base_lines=$(wc -l <"$repo/perf-changelog.yaml")

# head_tag TAG: commit the working tree as TAG on top of base
commit_as() {
	g add -A
	g commit -q --allow-empty -m "$1"
	g tag "$1"
}
entry() { # entry KEY LINK
	printf '\n- config-keys:\n    - %s\n  description:\n    - "e2e"\n  pr-link: %s\n' "$1" "$2"
}

# expect_fail NAME WANT_LINE WANT_TEXT -- CMD...: exit 1, empty stdout,
# stderr naming perf-changelog.yaml:WANT_LINE and WANT_TEXT
expect_fail() {
	local name=$1 line=$2 text=$3
	shift 4
	(cd "$repo" && "$@") >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ "$rc" != 1 ]; then
		bad "$name: exit $rc, want 1: $(head -c 300 "$tmp/err")"
	elif [ -s "$tmp/out" ]; then
		bad "$name: stdout not empty"
	elif [ -n "$line" ] && ! grep -qF "perf-changelog.yaml:$line:" "$tmp/err"; then
		bad "$name: no perf-changelog.yaml:$line: in: $(head -c 300 "$tmp/err")"
	elif ! grep -qF -- "$text" "$tmp/err"; then
		bad "$name: no '$text' in: $(head -c 300 "$tmp/err")"
	else
		ok
	fi
}

process() { "$bin" changelog process --base-ref base --head-ref "$1" --changelog-file perf-changelog.yaml; }

# 1. bad YAML in the added lines: the position is the line in the file
g checkout -q --detach base
printf '\n- config-keys: [dsr1-fp8-mi300x-sglang\n  description: ["x"]\n' >>"$repo/perf-changelog.yaml"
commit_as badyaml
expect_fail bad-yaml "$((base_lines + 3))" "not valid YAML" -- process badyaml

# 2. a missing key: entry number, field and the line of the entry
g checkout -q --detach base
printf '\n- config-keys:\n    - dsr1-fp8-mi300x-sglang\n  description:\n    - "x"\n' >>"$repo/perf-changelog.yaml"
commit_as nolink
expect_fail missing-key "$((base_lines + 2))" "field 'pr-link': field required" -- process nolink

# 3. an unknown field
g checkout -q --detach base
{ entry dsr1-fp8-mi300x-sglang XXX; echo "  colour: red"; } >>"$repo/perf-changelog.yaml"
commit_as unknownfield
expect_fail unknown-field "$((base_lines + 7))" "unknown field 'colour'" -- process unknownfield

# 4. an unknown config key is placed at its list item
g checkout -q --detach base
entry no-such-key XXX >>"$repo/perf-changelog.yaml"
commit_as nokey
expect_fail unknown-key "$((base_lines + 3))" "Config key 'no-such-key' not found" -- process nokey

# 5. an entry inserted in the middle: process accepts additions anywhere
#    (as the reference does); the gate names the line and the rule
g checkout -q --detach base
python3 - "$repo/perf-changelog.yaml" <<'EOF'
import sys
p = sys.argv[1]
lines = open(p).read().split("\n")
# before the second top-level entry
idx = [i for i, l in enumerate(lines) if l.startswith("- config-keys:")][1]
new = ["- config-keys:", "    - dsr1-fp8-mi300x-sglang", "  description:", '    - "inserted"',
       "  pr-link: XXX", ""]
lines[idx:idx] = new
open(p, "w").write("\n".join(lines))
EOF
commit_as middle
insert_line=$(grep -n '"inserted"' "$repo/perf-changelog.yaml" | cut -d: -f1)
(cd "$repo" && process middle >/dev/null 2>&1) && ok || bad "middle: process should accept it"
expect_fail gate-middle "$((insert_line - 3))" "existing entries are immutable" -- \
	"$bin" changelog gate --base-ref base --head-ref middle --pr-number 1

# 6. a deletion names the line in the base file and the rule
g checkout -q --detach base
sed -i '3d' "$repo/perf-changelog.yaml"
commit_as deleted
expect_fail deleted-line 3 "Deletions are not allowed" -- process deleted
expect_fail gate-deleted "" "fails ChangelogEntry validation" -- \
	"$bin" changelog gate --base-ref base --head-ref deleted

# 7. the gate accepts a proper append and counts it
g checkout -q --detach base
entry dsr1-fp8-mi300x-sglang XXX >>"$repo/perf-changelog.yaml"
commit_as good
out=$(cd "$repo" && "$bin" changelog gate --base-ref base --head-ref good --pr-number 9)
[ "$?" = 0 ] && grep -q "1 entry appended" <<<"$out" && ok || bad "gate-good: $out"
expect_fail gate-main-link "$((base_lines + 6))" "new main-branch entry has invalid pr-link" -- \
	"$bin" changelog gate --base-ref base --head-ref good

# 8. --output writes the same bytes atomically; ci-priority reads stdin like --input
g checkout -q --detach good
(cd "$repo" && process good >"$tmp/a.json") || bad "process good"
(cd "$repo" && "$bin" changelog process --base-ref base --head-ref good \
	--changelog-file perf-changelog.yaml --output "$tmp/b.json") || bad "process --output"
cmp -s "$tmp/a.json" "$tmp/b.json" && ok || bad "--output differs from stdout"
ls "$tmp" | grep -q '\.tmp' && bad "a temporary file was left behind" || ok
(cd "$repo" && "$bin" changelog ci-priority <"$tmp/a.json" >"$tmp/p1.json") || bad "ci-priority stdin"
(cd "$repo" && "$bin" changelog ci-priority --input "$tmp/a.json" >"$tmp/p2.json") || bad "ci-priority --input"
cmp -s "$tmp/p1.json" "$tmp/p2.json" && grep -q '"queue-token"' "$tmp/p1.json" && ok ||
	bad "ci-priority stdin and --input differ"
expect_fail bad-labels "" "--labels-json must be a JSON array of strings" -- \
	"$bin" changelog ci-priority --input "$tmp/a.json" --labels-json '{"a":1}'

# 9. --help everywhere, usage errors exit 2
for sub in "" process validate gate ci-priority; do
	"$bin" changelog $sub --help >"$tmp/h" 2>&1 && grep -q usage "$tmp/h" && ok || bad "--help $sub"
done
"$bin" changelog process --base-ref base >/dev/null 2>"$tmp/err"
[ "$?" = 2 ] && grep -q "error:" "$tmp/err" && ok || bad "missing required option: exit 2"
"$bin" changelog frobnicate >/dev/null 2>&1
[ "$?" = 2 ] && ok || bad "unknown subcommand: exit 2"

echo "changelog-e2e: $pass passed, $fail failed"
[ "$fail" = 0 ]
