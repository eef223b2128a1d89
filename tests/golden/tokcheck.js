#!/usr/bin/env node
// Helper of tests/golden/run_tokenizer.sh: writes the JSON-lines requests for
// `infbench tokenize/detokenize --jsonl` and compares the answers with the
// golden data (parsed JSON values, not bytes). Node 20, no packages needed;
// the live comparison with HuggingFace uses @anush008/tokenizers from
// fixtures/node_modules when `make fixtures` installed it.
//
//   tokcheck.js prepare NAME GOLDEN_DIR FIXTURE_DIR WORK_DIR
//   tokcheck.js stage2  NAME GOLDEN_DIR WORK_DIR
//   tokcheck.js report  NAME GOLDEN_DIR WORK_DIR
//
// `report` prints the first mismatches and ends with "COUNTS <passed> <failed>".
'use strict';
const fs = require('fs');
const path = require('path');

const RANDOM_CASES = 1000;
const SHOW = 5;

// JSON lines, split on \n only (texts contain U+2028, U+0085, CR).
function lines(file) {
	const s = fs.readFileSync(file, 'utf8');
	const out = s.split('\n');
	if (out.length && out[out.length - 1] === '') out.pop();
	return out.map((l) => JSON.parse(l));
}
function answers(file) {
	if (!fs.existsSync(file)) return [];
	const s = fs.readFileSync(file, 'utf8');
	const out = s.split('\n');
	if (out.length && out[out.length - 1] === '') out.pop();
	return out.map((l) => {
		try {
			return JSON.parse(l);
		} catch (e) {
			return {error: 'unparsable answer: ' + l.slice(0, 200)};
		}
	});
}
function writeLines(file, objs) {
	fs.writeFileSync(file, objs.map((o) => JSON.stringify(o) + '\n').join(''));
}
function same(a, b) {
	return JSON.stringify(a) === JSON.stringify(b);
}
function short(v) {
	const s = JSON.stringify(v);
	return s.length > 300 ? s.slice(0, 300) + '…' : s;
}

// mulberry32: a small seeded generator, so the random cases are the same on
// every run.
function rng(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

// What decode(encode(text)) must give back: byte-level tokenizers without a
// normalizer are lossless; qwen3 normalizes to NFC; mistral's normalizer and
// decoders (Prepend/Replace with U+2581, Strip) are lossless only for texts
// without U+2581 and without added-token texts (each piece between added
// tokens gets its own U+2581).
function roundtripExpect(name, text) {
	if (name === 'qwen3') return text.normalize('NFC');
	if (name === 'mistral') {
		if (/[\u2581]|<s>|<\/s>|<unk>/.test(text)) return null;
		return text;
	}
	return text;
}

function hf(fixtures) {
	const dir = path.join(fixtures, '..', 'node_modules', '@anush008', 'tokenizers');
	if (!fs.existsSync(dir)) return null;
	return require(dir);
}

async function prepare(name, golden, fixtures, work) {
	const enc = lines(path.join(golden, name + '.encode.jsonl'));
	const reqs = [];
	for (const c of enc) {
		reqs.push({text: c.text, add_special_tokens: false});
		reqs.push({text: c.text, add_special_tokens: true});
	}
	writeLines(path.join(work, 'enc.req'), reqs);
	const dec = lines(path.join(golden, name + '.decode.jsonl'));
	writeLines(path.join(work, 'dec.req'), dec.map((c) => ({ids: c.ids, skip_special_tokens: false})));
	// random id sequences, answered live by HuggingFace tokenizers
	const lib = hf(fixtures);
	if (!lib) return;
	const meta = JSON.parse(fs.readFileSync(path.join(golden, name + '.meta.json'), 'utf8'));
	const t = lib.Tokenizer.fromFile(path.join(fixtures, name, 'tokenizer.json'));
	let seed = 0;
	for (const ch of name) seed = (seed * 31 + ch.charCodeAt(0)) >>> 0;
	const r = rng(seed);
	const cases = [];
	for (let k = 0; k < RANDOM_CASES; k++) {
		const n = 1 + Math.floor(r() * 48);
		const ids = [];
		const run = r() < 0.25; // a run of consecutive ids, as the benchmark builds prompts
		const start = Math.floor(r() * meta.vocab_size_with_added_tokens);
		for (let j = 0; j < n; j++)
			ids.push(run ? (start + j) % meta.vocab_size_with_added_tokens
				     : Math.floor(r() * meta.vocab_size_with_added_tokens));
		const text = await t.decode(ids, false);
		const again = (await t.encode(text, null, {addSpecialTokens: false})).getIds();
		cases.push({ids, text, ids_again: again});
	}
	writeLines(path.join(work, 'rand.expect'), cases);
	writeLines(path.join(work, 'rand.dec.req'), cases.map((c) => ({ids: c.ids, skip_special_tokens: false})));
}

function stage2(name, golden, work) {
	const enc = lines(path.join(golden, name + '.encode.jsonl'));
	const got = answers(path.join(work, 'enc.resp'));
	const reqs = [];
	for (let k = 0; k < enc.length; k++) {
		const a = got[2 * k];
		reqs.push({ids: a && Array.isArray(a.ids) ? a.ids : [], skip_special_tokens: false});
	}
	writeLines(path.join(work, 'rt.req'), reqs);
	const rfile = path.join(work, 'rand.expect');
	if (fs.existsSync(rfile)) {
		const dec = answers(path.join(work, 'rand.dec.resp'));
		writeLines(path.join(work, 'rand.enc.req'), lines(rfile).map((c, k) => ({
			text: dec[k] && typeof dec[k].text === 'string' ? dec[k].text : '',
			add_special_tokens: false,
		})));
	}
}

function report(name, golden, work) {
	let pass = 0;
	let fail = 0;
	const shown = {};
	const bad = (kind, msg) => {
		fail++;
		shown[kind] = (shown[kind] || 0) + 1;
		if (shown[kind] <= SHOW) console.log(`  ${name} ${kind}: ${msg}`);
	};
	const counts = {};
	const tally = (kind, ok) => {
		counts[kind] = counts[kind] || [0, 0];
		counts[kind][0]++;
		if (ok) counts[kind][1]++;
		if (ok) pass++;
		return ok;
	};
	// vocabulary sizes and special tokens (tokenize --info) against the meta file
	const meta = JSON.parse(fs.readFileSync(path.join(golden, name + '.meta.json'), 'utf8'));
	let info = {};
	try {
		info = JSON.parse(fs.readFileSync(path.join(work, 'info.json'), 'utf8'));
	} catch (e) {
		info = {error: String(e)};
	}
	const keys = ['vocab_size', 'vocab_size_with_added_tokens'];
	for (const t of ['bos', 'eos', 'pad', 'unk']) keys.push(t + '_token', t + '_token_id');
	const wrong = keys.filter((k) => !same(info[k], meta[k]));
	if (!tally('info', wrong.length === 0))
		bad('info', wrong.map((k) => `${k}: want ${short(meta[k])}, got ${short(info[k])}`).join('; '));
	// golden encode: a line is identical when both id lists match
	const enc = lines(path.join(golden, name + '.encode.jsonl'));
	const er = answers(path.join(work, 'enc.resp'));
	enc.forEach((c, k) => {
		const a = er[2 * k] || {}, b = er[2 * k + 1] || {};
		if (!tally('encode', same(a.ids, c.ids) && same(b.ids, c.ids_with_special)))
			bad('encode', `line ${k + 1} text ${short(c.text)}\n    want ${short(c.ids)} / ${short(c.ids_with_special)}\n    got  ${short(a.ids || a)} / ${short(b.ids || b)}`);
	});
	// golden decode
	const dec = lines(path.join(golden, name + '.decode.jsonl'));
	const dr = answers(path.join(work, 'dec.resp'));
	dec.forEach((c, k) => {
		const a = dr[k] || {};
		if (!tally('decode', a.text === c.text))
			bad('decode', `line ${k + 1} ids ${short(c.ids)}\n    want ${short(c.text)}\n    got  ${short(a.text !== undefined ? a.text : a)}`);
	});
	// decode(encode(text)) == text (see roundtripExpect)
	const rt = answers(path.join(work, 'rt.resp'));
	enc.forEach((c, k) => {
		const want = roundtripExpect(name, c.text);
		if (want === null) return;
		const a = rt[k] || {};
		if (!tally('roundtrip', a.text === want))
			bad('roundtrip', `line ${k + 1} text ${short(c.text)}\n    got ${short(a.text !== undefined ? a.text : a)}`);
	});
	// random ids: our decode equals HF's, and our encode of it equals HF's
	const rfile = path.join(work, 'rand.expect');
	if (fs.existsSync(rfile)) {
		const cases = lines(rfile);
		const rd = answers(path.join(work, 'rand.dec.resp'));
		const re = answers(path.join(work, 'rand.enc.resp'));
		cases.forEach((c, k) => {
			const d = rd[k] || {}, e = re[k] || {};
			if (!tally('random', d.text === c.text && same(e.ids, c.ids_again)))
				bad('random', `ids ${short(c.ids)}\n    HF decode ${short(c.text)} -> ${short(c.ids_again)}\n    got       ${short(d.text !== undefined ? d.text : d)} -> ${short(e.ids || e)}`);
		});
	}
	const parts = Object.keys(counts).map((k) => `${counts[k][1]}/${counts[k][0]} ${k}`);
	console.log(`${name}: ${parts.join(', ')} identical`);
	console.log(`COUNTS ${pass} ${fail}`);
}

(async () => {
	const [cmd, name, golden, a, b] = process.argv.slice(2);
	if (cmd === 'prepare') await prepare(name, golden, a, b);
	else if (cmd === 'stage2') stage2(name, golden, a);
	else if (cmd === 'report') report(name, golden, a);
	else {
		console.error('usage: tokcheck.js prepare|stage2|report NAME GOLDEN_DIR ...');
		process.exit(2);
	}
})().catch((e) => {
	console.error(e && e.stack ? e.stack : String(e));
	process.exit(1);
});
