#!/usr/bin/env node
// Tokenizer server of bench/refgen.sh: one per Python process, started by the
// stand-in `transformers` in bench/refgen/shim. It loads TOKENIZER_JSON with
// HuggingFace tokenizers (@anush008/tokenizers from fixtures/node_modules) and
// answers requests on stdin/stdout until stdin closes.
//
//   tokserver.js TOKENIZER_JSON
//
// Request:  1 byte op, u32 LE payload length, payload.
// Response: u32 LE length, payload.
//   'E' UTF-8 text         -> u32 LE ids of encode(text, add_special_tokens=False)
//   'D' u32 LE ids         -> UTF-8 text of decode(ids, skip_special_tokens=False)
//   'V' (empty)            -> u32 LE get_vocab_size(with_added_tokens=False)
//   'X' bytes              -> the same bytes (echo, to measure the IPC cost)
'use strict';
const path = require('path');

const root = path.join(__dirname, '..', '..', 'fixtures', 'node_modules', '@anush008', 'tokenizers');
const {Tokenizer} = require(root);
const tok = Tokenizer.fromFile(process.argv[2]);

function u32le(values) {
	const out = Buffer.allocUnsafe(4 * values.length);
	for (let i = 0; i < values.length; i++) out.writeUInt32LE(values[i], 4 * i);
	return out;
}

async function handle(op, payload) {
	switch (op) {
	case 0x45: { // 'E'
		const enc = await tok.encode(payload.toString('utf8'), null, {addSpecialTokens: false});
		return u32le(enc.getIds());
	}
	case 0x44: { // 'D'
		const ids = new Array(payload.length >>> 2);
		for (let i = 0; i < ids.length; i++) ids[i] = payload.readUInt32LE(4 * i);
		return Buffer.from(await tok.decode(ids, false), 'utf8');
	}
	case 0x56: // 'V'
		return u32le([tok.getVocabSize(false)]);
	case 0x58: // 'X'
		return payload;
	default:
		throw new Error(`tokserver.js: unknown op ${op}`);
	}
}

let pending = Buffer.alloc(0);
let busy = false;

async function pump() {
	if (busy) return;
	busy = true;
	while (pending.length >= 5) {
		const n = pending.readUInt32LE(1);
		if (pending.length < 5 + n) break;
		const op = pending[0];
		const payload = pending.subarray(5, 5 + n);
		pending = pending.subarray(5 + n);
		const out = await handle(op, payload);
		const head = Buffer.allocUnsafe(4);
		head.writeUInt32LE(out.length);
		process.stdout.write(Buffer.concat([head, out]));
	}
	busy = false;
}

function fail(e) {
	process.stderr.write(String(e && e.stack || e) + '\n');
	process.exit(1);
}

process.stdin.on('data', (chunk) => {
	pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
	pump().catch(fail);
});
