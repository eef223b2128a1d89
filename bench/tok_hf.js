#!/usr/bin/env node
// Helper of bench/tokenizer.sh.
//   tok_hf.js text GOLDEN_DIR OUT MB   writes ~MB megabytes of text: the texts of
//                                      every *.encode.jsonl corpus, repeated
//   tok_hf.js encode TOKENIZER_JSON FILE REPEAT
//                                      HuggingFace tokenizers (@anush008/tokenizers
//                                      from fixtures/node_modules): best time of
//                                      REPEAT encodes of FILE as one string, as JSON
//                                      {"bytes", "tokens", "best_s", "mb_per_s", "ids_sha"}
//   tok_hf.js hash FILE                the same ids_sha of a JSON id list (infbench's output)
//   tok_hf.js load TOKENIZER_JSON      the time of one Tokenizer.fromFile in this process (wall,
//                                      and CPU of all its threads) and the resident memory it
//                                      added, as JSON {"load_s", "cpu_s", "rss_mb"}
'use strict';
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');

function corpusText(golden, mb) {
	const texts = [];
	for (const f of fs.readdirSync(golden).sort()) {
		if (!f.endsWith('.encode.jsonl')) continue;
		for (const l of fs.readFileSync(path.join(golden, f), 'utf8').split('\n'))
			if (l) texts.push(JSON.parse(l).text);
	}
	const one = texts.join('\n');
	const want = mb * 1e6;
	let out = '';
	while (Buffer.byteLength(out) < want) out += one + '\n';
	return out;
}

async function encode(tokjson, file, repeat) {
	const root = path.join(__dirname, '..', 'fixtures', 'node_modules', '@anush008', 'tokenizers');
	const {Tokenizer} = require(root);
	const t = Tokenizer.fromFile(tokjson);
	const text = fs.readFileSync(file, 'utf8');
	let best = Infinity;
	let ids = [];
	for (let k = 0; k < repeat; k++) {
		const t0 = process.hrtime.bigint();
		const enc = await t.encode(text, null, {addSpecialTokens: false});
		const dt = Number(process.hrtime.bigint() - t0) / 1e9;
		ids = enc.getIds();
		if (dt < best) best = dt;
	}
	const bytes = fs.statSync(file).size;
	const sha = crypto.createHash('sha256').update(JSON.stringify(ids)).digest('hex').slice(0, 16);
	console.log(JSON.stringify({bytes, tokens: ids.length, best_s: best, mb_per_s: bytes / 1e6 / best, ids_sha: sha}));
}

function load(tokjson) {
	const root = path.join(__dirname, '..', 'fixtures', 'node_modules', '@anush008', 'tokenizers');
	const {Tokenizer} = require(root);
	const rss0 = process.memoryUsage().rss;
	const c0 = process.cpuUsage();
	const t0 = process.hrtime.bigint();
	const t = Tokenizer.fromFile(tokjson);
	const dt = Number(process.hrtime.bigint() - t0) / 1e9;
	const c = process.cpuUsage(c0);
	const rss = (process.memoryUsage().rss - rss0) / 1048576;
	if (!t) throw new Error('no tokenizer');
	console.log(JSON.stringify({load_s: dt, cpu_s: (c.user + c.system) / 1e6, rss_mb: rss}));
}

(async () => {
	const [cmd, a, b, c] = process.argv.slice(2);
	if (cmd === 'text') fs.writeFileSync(b, corpusText(a, Number(c)));
	else if (cmd === 'encode') await encode(a, b, Number(c));
	else if (cmd === 'load') load(a);
	else if (cmd === 'hash')
		console.log(crypto.createHash('sha256').update(JSON.stringify(JSON.parse(fs.readFileSync(a, 'utf8')))).digest('hex').slice(0, 16));
	else {
		console.error('usage: tok_hf.js text GOLDEN OUT MB | encode TOKENIZER_JSON FILE REPEAT | load TOKENIZER_JSON');
		process.exit(2);
	}
})().catch((e) => {
	console.error(String(e && e.stack || e));
	process.exit(1);
});
