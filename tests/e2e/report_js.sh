#!/usr/bin/env bash
# The report library's JavaScript emulation against the JavaScript engine
# itself (node, when installed): number printing (Number#toString, toFixed,
# Intl.NumberFormat en-US, through the dashboard's table and tick formats) on
# random values, V8's Array.prototype.sort order with NaN comparisons (through
# the table's default order) for 2 to 3,000 rows, and ICU root collation
# (localeCompare, through the legend order) on random printable-ASCII keys.
# Usage: tests/e2e/report_js.sh INFBENCH. Ends with "report-js: N passed, N failed".
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
if ! command -v node >/dev/null; then
	echo "report-js: skipped (node not found)"
	echo "report-js: 0 passed, 0 failed"
	exit 0
fi

# 1-2. number formats and sort order: case folders with node's answers
node - "$tmp" <<'JS' || fail=$((fail + 1))
const fs = require('fs');
const dir = process.argv[2];
let seed = 12345;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const put = (name, fn, input, expected) => {
	fs.mkdirSync(`${dir}/${name}`);
	fs.writeFileSync(`${dir}/${name}/function`, fn + '\n');
	fs.writeFileSync(`${dir}/${name}/input.json`, JSON.stringify(input));
	fs.writeFileSync(`${dir}/${name}/expected.json`, JSON.stringify(expected));
};
const enc = (v) => (Number.isNaN(v) ? 'NaN' : v === Infinity ? 'Infinity' : v === -Infinity ? '-Infinity' : v);
// number formats (README 3.12 number_format)
const vals = [0, 0.5, 1.5, 2.5, 1.005, 9.95, 99.95, 9999, 999999, 2500000.5];
for (let i = 0; i < 3000; i++) {
	const k = Math.floor(rnd() * 6), p = Math.floor(rnd() * 7);
	const v = k === 0 ? Math.round(rnd() * 1e6) / 10 ** p
		: k === 1 ? (Math.floor(rnd() * 20000) + 0.5) / 10 ** (p % 4)
		: k === 2 ? rnd() * 10 ** (Math.floor(rnd() * 14) - 6)
		: k === 3 ? -rnd() * 10 ** (Math.floor(rnd() * 10) - 3)
		: k === 4 ? Math.floor(rnd() * 2000000)
		: (Math.floor(rnd() * 100000) * 5 + 5) / 10 ** (p % 5 + 1);
	vals.push(v);
}
const nf = (v, lo, hi) => new Intl.NumberFormat('en-US', { minimumFractionDigits: lo, maximumFractionDigits: hi }).format(v);
const table = (v) => { const a = Math.abs(v), d = a >= 100 ? 0 : a >= 1 ? 1 : a >= 0.01 ? 3 : 4; return nf(v, d, d); };
const tick = (v) => (v < 10000 ? v.toString() : nf(v, 0, 3));
const large = (v) => {
	const a = Math.abs(v);
	if (a >= 1e6) return (v / 1e6).toFixed(v % 1e6 === 0 ? 0 : 1) + 'M';
	if (a >= 1e3) return (v / 1e3).toFixed(v % 1e3 === 0 ? 0 : 1) + 'k';
	return tick(v);
};
put('number_format', 'number_format', { values: vals }, {
	table: vals.map(table), table_1dp: vals.map((v) => nf(v, 1, 1)), tick: vals.map(tick), tick_large: vals.map(large),
});
// sort order: ascending for lower_* directions, descending otherwise, NaN included
for (const n of [2, 5, 31, 63, 64, 65, 200, 1000, 3000]) {
	for (const dir of ['lower_left', 'upper_left']) {
		const rows = [];
		for (let i = 0; i < n; i++) {
			const r = rnd();
			rows.push({ id: 'r' + i, y: r < 0.1 ? NaN : r < 0.3 ? Math.floor(rnd() * 4) : i % 97 < 50 ? i : -i });
		}
		const asc = dir.startsWith('lower');
		const ids = [...rows].sort((a, b) => (asc ? a.y - b.y : b.y - a.y)).map((r) => r.id);
		put(`table_sort_${dir}_${n}`, 'table_sort', { rows: rows.map((r) => ({ id: r.id, y: enc(r.y) })), direction: dir }, { ids });
	}
}
JS
out=$("$bin" report-golden "$tmp"/*/)
printf '%s\n' "$out" | grep '^FAIL' | cut -c1-400
pass=$((pass + $(printf '%s\n' "$out" | grep -c '^ok ')))
fail=$((fail + $(printf '%s\n' "$out" | grep -c '^FAIL ')))

# 3. collation: the legend order of keys without a hardware prefix is localeCompare
for round in 1 2 3 4 5; do
	node - "$tmp/keys$round.json" "$round" <<'JS'
const fs = require('fs');
let seed = 777 * +process.argv[3];
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const chars = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('') + '\n\t';
const keys = new Set();
while (keys.size < 60) {
	let s = 'x';
	for (let i = 0, n = 1 + Math.floor(rnd() * 6); i < n; i++) s += chars[Math.floor(rnd() * chars.length)];
	keys.add(s);
}
fs.writeFileSync(process.argv[2], JSON.stringify({ keys: [...keys], theme: 'light' }));
JS
	if "$bin" report-golden --eval vendor_colors "$tmp/keys$round.json" >"$tmp/got$round.json" &&
		node - "$tmp/keys$round.json" "$tmp/got$round.json" <<'JS'; then
const fs = require('fs');
const keys = JSON.parse(fs.readFileSync(process.argv[2])).keys;
const got = JSON.parse(fs.readFileSync(process.argv[3])).legend_order;
const want = [...keys].sort((a, b) => a.localeCompare(b));
const i = want.findIndex((k, j) => k !== got[j]);
if (i >= 0 || got.length !== want.length) {
	console.log(`collation: position ${i}: want ${JSON.stringify(want[i])}, got ${JSON.stringify(got[i])}`);
	process.exit(1);
}
JS
		pass=$((pass + 1))
	else
		echo "FAIL collation round $round"
		fail=$((fail + 1))
	fi
done

echo "report-js: $pass passed, $fail failed"
[ "$fail" = 0 ]
