#!/usr/bin/env node
'use strict';
// Synthesises deterministic agg rows (process_result.py's shape) from an
// `infbench matrix` JSON: one row per matrix row, throughput and latencies
// from a simple per-config performance model (README §7 of the golden
// report cases: per-user rate r(c) = r1 / (1 + (c - 1) / k)^a, TTFT growing
// with concurrency, e2el = ttft + osl / r), 3 % seeded noise.
// usage: report_gen.js MATRIX.json OUT.json [--seed N] [--scale F] [--extras]
//                      [--evals OUT_EVAL.json] [--date YYYY-MM-DD]
// --extras adds infbench's client_health (two points client-bound), the
// measured acceptance length (spec decoding) and the workload fingerprint.
const fs = require('fs');

const args = process.argv.slice(2);
const opt = (k, d) => { const i = args.indexOf(k); return i >= 0 ? args[i + 1] : d; };
const valued = ['--seed', '--scale', '--evals', '--date'];
const [matrixPath, outPath] = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && valued.includes(args[i - 1])));
const seed = +opt('--seed', 1), scaleF = +opt('--scale', 1), extras = args.includes('--extras');
const evalPath = opt('--evals', null), date = opt('--date', null);

function hash(s) { // FNV-1a 32
  let h = 2166136261 >>> 0;
  for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619) >>> 0; }
  return h;
}
function rnd(key) { return (hash(key + '|' + seed) % 100000) / 100000; }
const GPU = { h100: 1, h200: 1.3, b200: 2.2, b300: 2.6, gb200: 2.4, gb300: 2.9, mi300x: 1.1, mi325x: 1.3, mi355x: 2.0 };

function hwLabel(runner) {
  let r = runner.replace(/^cluster:/, '');
  return r + '_' + (hash(r) % 4);
}

const matrix = JSON.parse(fs.readFileSync(matrixPath, 'utf8'));
const rows = [], evals = [];
matrix.forEach((m, idx) => {
  const base = m.runner.replace(/^cluster:/, '').split('-')[0];
  const g = GPU[base] || 1.5;
  const multi = !!m.prefill;
  const concs = Array.isArray(m.conc) ? m.conc : [m.conc];
  const conc = concs[hash(JSON.stringify(m)) % concs.length];
  const id = JSON.stringify(m) + '#' + idx;
  const tp = multi ? m.decode.tp : m.tp, ep = multi ? m.decode.ep : m.ep;
  const prec = m.precision === 'fp4' ? 1.6 : 1;
  const mtp = m['spec-decoding'] === 'mtp' ? 1.45 : 1;
  const fw = 0.85 + 0.3 * rnd(m.framework + m.runner + m.precision);
  const r1 = 90 * g * Math.sqrt(prec) * mtp * fw * Math.pow(tp / 8, 0.25) * scaleF;
  const k = 6 * (ep > 1 ? 2 : 1) * (multi ? 3 : 1), a = 0.75;
  let nn = 0;
  const noise = () => 1 + 0.03 * (2 * rnd(id + ':' + nn++) - 1);
  // agentic-coding rows have no fixed ISL/OSL (their results are a different
  // shape); the generator gives them 1k/8k so that every row is drawn.
  const isl = m.isl === undefined ? 1024 : m.isl, osl = m.osl === undefined ? 8192 : m.osl;
  const r = r1 / Math.pow(1 + (conc - 1) / k, a) * noise();
  const tpot = 1 / r;
  const ttft = (0.04 + 0.1 * (isl || 1024) / 8192) * (1 + conc / 48) / g * noise();
  const e2el = ttft + (osl || 1024) * tpot;
  const gpus = multi ? m.prefill.tp * m.prefill['num-worker'] + m.decode.tp * m.decode['num-worker'] : tp * (m.pp || 1);
  const outTot = conc * (osl || 1024) / e2el, inTot = conc * (isl || 1024) / e2el;
  const row = {
    hw: hwLabel(m.runner), conc, image: m.image, model: m.model, infmax_model_prefix: m['model-prefix'],
    framework: m.framework, precision: m.precision, spec_decoding: m['spec-decoding'], disagg: !!m.disagg,
    recipe_fingerprint: '',
  };
  row.isl = isl; row.osl = osl;
  if (multi) {
    Object.assign(row, {
      is_multinode: true, prefill_tp: m.prefill.tp, prefill_pp: 1, prefill_ep: m.prefill.ep,
      prefill_dp_attention: String(m.prefill['dp-attn']), prefill_num_workers: m.prefill['num-worker'],
      decode_tp: m.decode.tp, decode_pp: 1, decode_ep: m.decode.ep, decode_dp_attention: String(m.decode['dp-attn']),
      decode_num_workers: m.decode['num-worker'], num_prefill_gpu: m.prefill.tp * m.prefill['num-worker'],
      num_decode_gpu: m.decode.tp * m.decode['num-worker'],
    });
  } else {
    Object.assign(row, { is_multinode: false, tp, pp: m.pp || 1, dcp_size: 1, pcp_size: 1, ep, dp_attention: String(!!m['dp-attn']) });
  }
  row.tput_per_gpu = (outTot + inTot) / gpus;
  row.output_tput_per_gpu = outTot / gpus;
  row.input_tput_per_gpu = inTot / gpus;
  const lat = (name, v, spread) => {
    row['mean_' + name] = v * 1.02; row['median_' + name] = v; row['std_' + name] = v * 0.1 * spread;
    row['p90_' + name] = v * (1 + 0.3 * spread); row['p99_' + name] = v * (1 + 0.6 * spread); row['p99.9_' + name] = v * (1 + 0.8 * spread);
  };
  lat('ttft', ttft, 1);
  lat('tpot', tpot, 0.3);
  ['mean', 'median', 'std', 'p90', 'p99', 'p99.9'].forEach((s) => { row[s + '_intvty'] = 1 / row[s + '_tpot']; });
  lat('itl', tpot * 0.98, 0.3);
  lat('e2el', e2el, 0.5);
  if (date) row.date = date;
  if (extras) {
    const bound = rows.length % 26 === 7;
    row.client_health = { schedule_lag_p99_ms: bound ? 4.2 : 0.1, event_loop_lag_p99_ms: bound ? 3.1 : 0.2,
      timestamps: 'kernel', client_bound: bound, reason: bound ? 'event-loop lag p99 3.1 ms > 1 ms' : null };
    if (m['spec-decoding'] === 'mtp') row.server_metrics = { spec_decode: { mean_acceptance_length: 2.2 + rnd(id) } };
    row.workload = { sha256: 'w' + hash((m['exp-name'] || '') + isl + osl).toString(16), tokenizer_sha256: 't0' };
  }
  rows.push(row);
  if (evalPath && m['run-eval']) {
    const sc = 0.9 + 0.05 * rnd(id + 'e');
    evals.push({ is_multinode: multi, model_prefix: m['model-prefix'], model: m.model, hw: hwLabel(m.runner).toUpperCase(),
      framework: m.framework, precision: m.precision, spec_decoding: m['spec-decoding'], isl, osl, tp, ep, conc,
      dp_attention: String(!!m['dp-attn']).toLowerCase(), task: 'gsm8k', em_strict: sc, em_strict_se: 0.008,
      em_flexible: sc + 0.01, em_flexible_se: 0.008, n_eff: 1319,
      source: 'eval_' + m['model-prefix'] + '_' + (isl / 1024) + 'k' + (osl / 1024) + 'k_' + m.precision + '.json',
      score: sc, score_name: 'em_strict', score_se: 0.008 });
  }
});
fs.writeFileSync(outPath, JSON.stringify(rows, null, 2));
if (evalPath) fs.writeFileSync(evalPath, JSON.stringify(evals, null, 2));
console.log(`${rows.length} agg rows -> ${outPath}` + (evalPath ? `, ${evals.length} eval rows -> ${evalPath}` : ''));
