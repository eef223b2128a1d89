'use strict';
/* infbench report page: draws the embedded data (frontiers computed by the C
 * report library). No network access of any kind. */
(function () {
  const D = JSON.parse(document.getElementById('ib-data').textContent);
  const W = 600, H = 420, MT = 24, MR = 10, MB = 60, ML = 60;
  /* An x-axis tick label, centred on its tick unless that would cut it at
   * the chart's left or right edge (10px digits: at most 6.2px a character). */
  const xTick = (x, y, text, w) => {
    const half = text.length * 3.1, anchor = x + half > w - 1 ? 'end' : x - half < 1 ? 'start' : 'middle';
    const at = anchor === 'end' ? w - 1 : anchor === 'start' ? 1 : x;
    return '<text x="' + r3(at) + '" y="' + y + '" text-anchor="' + anchor + '">' + esc(text) + '</text>';
  };
  const XIDX = {};
  D.meta.xfields.forEach((x, i) => { XIDX[x.key] = i; });
  const METRICS = D.meta.metrics.map((m, i) => Object.assign({ idx: i }, m));
  METRICS.push({ key: 'costUser', group: 'Custom User Values', base: 'tpPerGpu', custom: true, lower: true,
    title: 'Cost per Million Total Tokens (Custom User Values)', label: 'Cost per Million Total Tokens ($)' });
  METRICS.push({ key: 'powerUser', group: 'Custom User Values', base: 'tpPerMw', custom: true,
    title: 'Token Throughput per All in Utility MW (Custom User Values)', label: 'Token Throughput per All in Utility MW (tok/s/MW)' });
  const MBYKEY = {};
  METRICS.forEach((m) => { MBYKEY[m.key] = m; });
  const GPU = {};
  D.meta.gpus.forEach((g) => { GPU[g.key] = g; });
  const USER = {};
  D.meta.gpus.forEach((g) => { USER[g.key] = { cost: g.costh, power: g.power }; });

  const S = { g: 0, metric: 'tpPerGpu', xa: 'p90_ttft', xb: 'median_e2el', xscale: 'auto', log: { A: false, B: false },
    optimal: { A: false, B: false }, labels: { A: false, B: false }, prec: {}, hidden: {}, table: { A: false, B: false },
    sort: { A: null, B: null }, evalg: 0 };

  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));

  /* ---- number formatting (the dashboard's formatNumber / formatLargeNumber / table cells) ---- */
  const fmtCache = {};
  function grouped(v, lo, hi) {
    const k = lo + ':' + hi;
    if (!fmtCache[k]) fmtCache[k] = new Intl.NumberFormat('en-US', { minimumFractionDigits: lo, maximumFractionDigits: hi });
    return fmtCache[k].format(v);
  }
  function fmtNum(v) { if (v == null || !isFinite(v)) return '–'; return v < 10000 ? String(v) : grouped(v, 0, 3); }
  function fmtLarge(v) {
    const a = Math.abs(v);
    if (a >= 1e6) return (v / 1e6).toFixed(v % 1e6 === 0 ? 0 : 1) + 'M';
    if (a >= 1e3) return (v / 1e3).toFixed(v % 1e3 === 0 ? 0 : 1) + 'k';
    return fmtNum(v);
  }
  function fmtCell(v) {
    if (v == null || !isFinite(v)) return '–';
    const a = Math.abs(v), d = a >= 100 ? 0 : a >= 1 ? 1 : a >= 0.01 ? 3 : 4;
    return grouped(v, d, d);
  }
  function fmt1(v) { return v == null || !isFinite(v) ? '–' : grouped(v, 1, 1); }
  function round3(v) { return parseFloat(v.toFixed(3)); }

  /* ---- d3-style linear ticks / nice and log ticks ---- */
  const E10 = Math.sqrt(50), E5 = Math.sqrt(10), E2 = Math.sqrt(2);
  function tickSpec(start, stop, count) {
    const step = (stop - start) / Math.max(0, count), power = Math.floor(Math.log10(step)), error = step / Math.pow(10, power);
    const factor = error >= E10 ? 10 : error >= E5 ? 5 : error >= E2 ? 2 : 1;
    let i1, i2, inc;
    if (power < 0) {
      inc = Math.pow(10, -power) / factor; i1 = Math.round(start * inc); i2 = Math.round(stop * inc);
      if (i1 / inc < start) ++i1; if (i2 / inc > stop) --i2; inc = -inc;
    } else {
      inc = Math.pow(10, power) * factor; i1 = Math.round(start / inc); i2 = Math.round(stop / inc);
      if (i1 * inc < start) ++i1; if (i2 * inc > stop) --i2;
    }
    if (i2 < i1 && 0.5 <= count && count < 2) return tickSpec(start, stop, count * 2);
    return [i1, i2, inc];
  }
  function ticks(start, stop, count) {
    if (!(count > 0)) return [];
    if (start === stop) return [start];
    const [i1, i2, inc] = tickSpec(start, stop, count);
    if (!(i2 >= i1)) return [];
    const out = [];
    for (let i = 0; i <= i2 - i1; ++i) out.push(inc < 0 ? (i1 + i) / -inc : (i1 + i) * inc);
    return out;
  }
  function nice(lo, hi, count) {
    let prestep, step, n = 10;
    while (n-- > 0) {
      step = tickSpec(lo, hi, count)[2];
      if (step === prestep) break;
      if (step > 0) { lo = Math.floor(lo / step) * step; hi = Math.ceil(hi / step) * step; }
      else if (step < 0) { lo = Math.ceil(lo * step) / step; hi = Math.floor(hi * step) / step; }
      else break;
      prestep = step;
    }
    return [lo, hi];
  }
  function logTicks(lo, hi) {
    const out = [], a = Math.floor(Math.log10(lo)), b = Math.ceil(Math.log10(hi));
    const few = b - a < 2;
    for (let k = a; k <= b; k++) for (let m = 1; m < 10; m++) {
      const v = m * Math.pow(10, k);
      if (v >= lo * (1 - 1e-12) && v <= hi * (1 + 1e-12)) out.push({ v, label: few || m === 1 });
    }
    return out;
  }
  function axis(vals, kind, count) {
    /* kind: 'x0' ([0, 1.05 max]), 'xlog' ([0.9 min, 1.05 max] log), 'y', 'ylog' */
    let lo, hi;
    const finite = vals.filter((v) => isFinite(v));
    if (!finite.length) { lo = 0; hi = 100; } else {
      const mn = Math.min.apply(null, finite), mx = Math.max.apply(null, finite);
      if (kind === 'x0') { lo = 0; hi = 1.05 * mx; }
      else if (kind === 'xlog') { lo = 0.9 * mn; hi = 1.05 * mx; }
      else if (kind === 'ylog') { lo = mn <= 0 ? 0.1 : mn < 1 ? Math.pow(10, Math.floor(Math.log10(mn))) : 0.95 * mn; hi = 1.05 * mx; }
      else { lo = Math.max(0, mn - 0.05 * (mx - mn)); hi = 1.05 * mx; }
      if (hi === lo) hi = lo + 1;
    }
    if (kind === 'xlog' || kind === 'ylog') {
      if (!(lo > 0)) lo = 0.1;
      const nlo = Math.pow(10, Math.floor(Math.log10(lo))), nhi = Math.pow(10, Math.ceil(Math.log10(hi)));
      return { log: true, lo: nlo, hi: nhi === nlo ? nlo * 10 : nhi, ticks: logTicks(nlo, nhi) };
    }
    const [a, b] = nice(lo, hi, count);
    return { log: false, lo: a, hi: b, ticks: ticks(a, b, count).map((v) => ({ v, label: true })) };
  }
  function scale(ax, r0, r1) {
    if (ax.log) { const a = Math.log10(ax.lo), b = Math.log10(ax.hi); return (v) => r0 + (Math.log10(v) - a) / (b - a) * (r1 - r0); }
    return (v) => r0 + (v - ax.lo) / (ax.hi - ax.lo) * (r1 - r0);
  }

  /* ---- d3.curveMonotoneX path through pixel points ---- */
  function r3(v) { return String(Math.round(v * 1000) / 1000); }
  function monoPath(P) {
    const p = [];
    for (const q of P) if (!p.length || p[p.length - 1][0] !== q[0] || p[p.length - 1][1] !== q[1]) p.push(q);
    const n = p.length;
    if (!n) return '';
    if (n === 1) return 'M' + r3(p[0][0]) + ',' + r3(p[0][1]) + 'Z';
    if (n === 2) return 'M' + r3(p[0][0]) + ',' + r3(p[0][1]) + 'L' + r3(p[1][0]) + ',' + r3(p[1][1]);
    const sgn = (v) => (v < 0 ? -1 : 1), m = new Array(n).fill(0), h = [], s = [];
    for (let i = 0; i < n - 1; i++) { h[i] = p[i + 1][0] - p[i][0]; s[i] = h[i] === 0 ? 0 : (p[i + 1][1] - p[i][1]) / h[i]; }
    for (let i = 1; i < n - 1; i++) {
      const q = (s[i - 1] * h[i] + s[i] * h[i - 1]) / (h[i - 1] + h[i]);
      m[i] = (sgn(s[i - 1]) + sgn(s[i])) * Math.min(Math.abs(s[i - 1]), Math.abs(s[i]), 0.5 * Math.abs(q)) || 0;
    }
    m[0] = h[0] ? (3 * s[0] - m[1]) / 2 : m[1];
    m[n - 1] = h[n - 2] ? (3 * s[n - 2] - m[n - 2]) / 2 : m[n - 2];
    let d = 'M' + r3(p[0][0]) + ',' + r3(p[0][1]);
    for (let i = 0; i < n - 1; i++) {
      const dx = h[i] / 3;
      d += 'C' + r3(p[i][0] + dx) + ',' + r3(p[i][1] + dx * m[i]) + ',' + r3(p[i + 1][0] - dx) + ',' +
        r3(p[i + 1][1] - dx * m[i + 1]) + ',' + r3(p[i + 1][0]) + ',' + r3(p[i + 1][1]);
    }
    return d;
  }

  /* ---- the current view ---- */
  function group() { return D.groups[S.g]; }
  function xfield(which) {
    const M = MBYKEY[S.metric];
    if (which === 'A') return M.input ? S.xa : 'median_intvty';
    return S.xb;
  }
  function viewOf(which) {
    const M = MBYKEY[S.metric];
    return group().views[which + '|' + (M.base || M.key) + '|' + xfield(which)];
  }
  function customY(key, r) {
    const s = D.series[r.s], g = GPU[s.gpu], u = USER[s.gpu];
    if (!g || !u) return NaN;
    if (key === 'costUser') { const t = r.y[0]; return t > 0 ? round3(u.cost / (t * 3600 / 1e6)) : NaN; }
    const mw = r.y[3];
    return g.power > 0 && isFinite(mw) ? round3(mw / g.power * u.power) : NaN;
  }
  function seriesOn(si) {
    const s = D.series[si];
    return !S.hidden[si] && S.prec[s.prec] !== false;
  }
  function isLower(which, V) {
    const M = MBYKEY[S.metric];
    if (M.custom) return !!M.lower;
    return V.dir.indexOf('lower') === 0;
  }
  /* A view's points: the group's rows less the view's drops; x and y are
   * the row's own values (or the view's "xy" override); roof: optimal. */
  function viewPoints(which) {
    const V = viewOf(which);
    if (!V._pts) {
      const drop = new Set(), roof = new Set(V.roof), ov = {}, M = MBYKEY[S.metric];
      for (let k = 0; k < V.drop.length; k += 2) drop.add(V.drop[k]);
      if (V.xy) for (let k = 0; k < V.xy.length; k += 3) ov[V.xy[k]] = [V.xy[k + 1], V.xy[k + 2]];
      const xi = XIDX[xfield(which)], yi = MBYKEY[M.base || M.key].idx, pts = [];
      group().rows.forEach((row) => {
        if (drop.has(row)) return;
        const r = D.rows[row], o = ov[row];
        const x = o ? o[0] : r.x[xi], y = o ? o[1] : r.y[yi];
        pts.push({ row, x: x == null ? NaN : x, y: y == null ? NaN : y, roof: roof.has(row), s: r.s });
      });
      V._pts = pts;
    }
    return V._pts;
  }
  /* Points shown: [{row, x, y, roof, s}] */
  function shown(which) {
    const M = MBYKEY[S.metric], out = [];
    viewPoints(which).forEach((p) => {
      if (!seriesOn(p.s)) return;
      if (S.optimal[which] && !p.roof) return;
      out.push(M.custom ? Object.assign({}, p, { y: customY(M.key, D.rows[p.row]) }) : p);
    });
    return out;
  }

  /* ---- shapes ---- */
  function shape(p, px, py, color, r) {
    const s = D.series[p.s], attrs = ' class="pt" data-row="' + p.row + '" data-s="' + p.s + '"';
    const hollow = r.cb === 1;
    const paint = hollow ? ' fill="#fff" stroke="' + color + '" stroke-width="1.6"' : ' fill="' + color + '"';
    if (s.run >= 0) {
      const a = 4;
      return '<path' + attrs + ' d="M' + r3(px - a) + ',' + r3(py - a) + 'L' + r3(px + a) + ',' + r3(py + a) + 'M' + r3(px - a) + ',' +
        r3(py + a) + 'L' + r3(px + a) + ',' + r3(py - a) + '" stroke="' + color + '" stroke-width="2.5" fill="none"/>';
    }
    const ring = r.sim === 1 ? '<circle class="simring" data-row="' + p.row + '" cx="' + r3(px) + '" cy="' + r3(py) + '" r="7" stroke="' + color + '"/>' : '';
    return ring + plainShape(s, attrs, paint, px, py);
  }
  function plainShape(s, attrs, paint, px, py) {
    if (s.prec === 'fp8') return '<rect' + attrs + ' x="' + r3(px - 3.5) + '" y="' + r3(py - 3.5) + '" width="7" height="7"' + paint + '/>';
    if (s.prec === 'bf16') return '<path' + attrs + ' d="M' + r3(px) + ',' + r3(py - 4.5) + 'L' + r3(px + 4) + ',' + r3(py + 3) + 'L' + r3(px - 4) + ',' + r3(py + 3) + 'Z"' + paint + '/>';
    if (s.prec === 'int4') return '<path' + attrs + ' d="M' + r3(px) + ',' + r3(py - 4.5) + 'L' + r3(px + 4.5) + ',' + r3(py) + 'L' + r3(px) + ',' + r3(py + 4.5) + 'L' + r3(px - 4.5) + ',' + r3(py) + 'Z"' + paint + '/>';
    return '<circle' + attrs + ' cx="' + r3(px) + '" cy="' + r3(py) + '" r="3.5"' + paint + '/>';
  }

  function chartTitle(which) {
    const M = MBYKEY[S.metric], xf = xfield(which);
    const head = xf === 'median_intvty' ? 'vs. Interactivity' : xf === 'median_e2el' ? 'vs. End-to-end Latency'
      : 'vs. ' + D.meta.xfields[XIDX[xf]].label.replace(' (s)', '');
    return M.title + ' ' + head;
  }
  function caption() {
    const g = group(), precs = {};
    g.rows.forEach((i) => { const s = D.series[D.rows[i].s]; if (seriesOn(D.rows[i].s)) precs[s.prec.toUpperCase()] = 1; });
    return [g.modelLabel, Object.keys(precs).join(', '), g.seq, 'Source: infbench' + (D.compare ? ' + ' + D.runLabel + ' (UNOFFICIAL)' : ''),
      D.generated ? 'Generated: ' + D.generated : ''].filter((x) => x).join(' • ');
  }

  /* The prediction-interval bands of simulated series (docs/sim.md
   * "Prediction intervals"), on throughput per GPU vs interactivity only:
   * per series, its shown simulated points that carry an interval (row.iv:
   * tok/s/GPU lo, hi, interactivity lo, hi), left to right:
   * [{s, P: [[x, lo, hi, xlo, xhi, row]...]}]. */
  function simBands(which, pts) {
    const M = MBYKEY[S.metric];
    if ((M.base || M.key) !== 'tpPerGpu' || M.custom || xfield(which) !== 'median_intvty') return [];
    const by = {};
    pts.forEach((p) => {
      const r = D.rows[p.row];
      if (r.sim !== 1 || !r.iv || !isFinite(p.x)) return;
      (by[p.s] = by[p.s] || []).push([p.x, r.iv[0], r.iv[1], r.iv[2], r.iv[3], p.row]);
    });
    return Object.keys(by).map((s) => ({ s: +s, P: by[s].sort((a, b) => a[0] - b[0]) }));
  }
  /* A band's shaded path: the upper bounds left to right, then the lower
   * bounds back; one point: the box of its two intervals. */
  function bandPaths(bands, sx, sy) {
    return bands.map((b) => {
      const P = b.P, pt = (x, y) => r3(sx(x)) + ',' + r3(sy(y));
      const d = P.length === 1
        ? 'M' + pt(P[0][3], P[0][2]) + 'L' + pt(P[0][4], P[0][2]) + 'L' + pt(P[0][4], P[0][1]) + 'L' + pt(P[0][3], P[0][1]) + 'Z'
        : 'M' + P.map((q) => pt(q[0], q[2])).join('L') + 'L' + P.slice().reverse().map((q) => pt(q[0], q[1])).join('L') + 'Z';
      return '<path class="simband" data-s="' + b.s + '" data-rows="' + P.map((q) => q[5]).join(',') + '" fill="' + D.series[b.s].color + '" d="' + d + '"/>';
    }).join('');
  }

  function drawChart(which) {
    const card = $('chart' + which), V = viewOf(which), M = MBYKEY[S.metric], xf = xfield(which);
    const pts = shown(which);
    const ttftA = which === 'A' && M.input;
    const xlog = ttftA && (S.xscale === 'log' || S.xscale === 'auto') && (() => {
      const xs = pts.map((p) => p.x).filter((v) => isFinite(v));
      if (!xs.length) return false;
      const mn = Math.min.apply(null, xs), mx = Math.max.apply(null, xs);
      return mn > 0 && (S.xscale === 'log' || mx / mn > 10);
    })();
    const ylog = S.log[which] && !M.input;
    const bands = simBands(which, pts), bandY = [];
    bands.forEach((b) => b.P.forEach((q) => { bandY.push(q[1], q[2]); }));
    const ax = axis(pts.map((p) => p.x), xlog ? 'xlog' : 'x0', 10), ay = axis(pts.map((p) => p.y).concat(bandY), ylog ? 'ylog' : 'y', 10);
    const sx = scale(ax, ML, W - MR), sy = scale(ay, H - MB, MT);
    let g = '<g class="grid">';
    ax.ticks.forEach((t) => { g += '<line x1="' + r3(sx(t.v)) + '" x2="' + r3(sx(t.v)) + '" y1="' + MT + '" y2="' + (H - MB) + '"/>'; });
    ay.ticks.forEach((t) => { g += '<line x1="' + ML + '" x2="' + (W - MR) + '" y1="' + r3(sy(t.v)) + '" y2="' + r3(sy(t.v)) + '"/>'; });
    g += '</g><g class="axis"><line x1="' + ML + '" x2="' + (W - MR) + '" y1="' + (H - MB) + '" y2="' + (H - MB) + '"/>' +
      '<line x1="' + ML + '" x2="' + ML + '" y1="' + MT + '" y2="' + (H - MB) + '"/>';
    ax.ticks.forEach((t) => { if (t.label) g += xTick(sx(t.v), H - MB + 14, fmtNum(+t.v.toPrecision(12)), W); });
    ay.ticks.forEach((t) => { if (t.label) g += '<text x="' + (ML - 6) + '" y="' + r3(sy(t.v) + 3) + '" text-anchor="end">' + esc(fmtLarge(+t.v.toPrecision(12))) + '</text>'; });
    g += '</g><text class="axis-label" x="' + ((ML + W - MR) / 2) + '" y="' + (H - MB + 36) + '" text-anchor="middle">' + esc(D.meta.xfields[XIDX[xf]].label) + '</text>' +
      '<text class="axis-label" transform="translate(14,' + ((MT + H - MB) / 2) + ') rotate(-90)" text-anchor="middle">' + esc(M.label) + '</text>';
    /* frontier paths (the library's), behind the points */
    const byRow = {};
    pts.forEach((p) => { byRow[p.row] = p; });
    let fr = '';
    V.paths.forEach((path) => {
      const si = D.rows[path[0]].s;
      if (!seriesOn(si)) return;
      const P = [];
      path.forEach((row) => {
        const r = D.rows[row];
        const y = M.custom ? customY(M.key, r) : null;
        const k = byRow[row];
        const yy = k ? k.y : y;
        const xx = k ? k.x : NaN;
        if (isFinite(xx) && isFinite(yy)) P.push([sx(xx), sy(yy)]);
      });
      if (P.length < 2) return;
      const s = D.series[si];
      fr += '<path class="front' + (s.run >= 0 ? ' run' : '') + '" data-s="' + si + '" data-rows="' + path.join(',') + '" stroke="' + s.color + '" d="' + monoPath(P) + '"/>';
    });
    const bd = bandPaths(bands, sx, sy);
    let pp = '', lab = '';
    pts.forEach((p) => {
      if (!isFinite(p.x) || !isFinite(p.y)) return;
      const r = D.rows[p.row], px = sx(p.x), py = sy(p.y);
      pp += shape(p, px, py, D.series[p.s].color, r);
      if (S.labels[which]) lab += '<text class="ptlabel" x="' + r3(px + 5) + '" y="' + r3(py - 5) + '">' + esc(r.par) + '</text>';
    });
    const svg = card.querySelector('svg');
    svg.innerHTML = '<rect width="' + W + '" height="' + H + '" fill="#fff"/>' + g + (bd ? '<g class="bands">' + bd + '</g>' : '') + '<g class="fronts">' + fr + '</g><g class="points">' + pp + '</g><g>' + lab + '</g>';
    card.querySelector('h2').textContent = chartTitle(which);
    card.querySelector('.caption').textContent = caption();
    card.dataset.view = which + '|' + (M.base || M.key) + '|' + xf;
    drawLegend(card.querySelector('.legend'));
    drawTable(which, pts, V);
  }

  function drawLegend(el) {
    const g = group(), present = {};
    g.rows.forEach((i) => { present[D.rows[i].s] = 1; });
    const idx = Object.keys(present).map(Number).sort((a, b) => {
      const A = D.series[a], B = D.series[b];
      return (A.run - B.run) || (A.order - B.order) || (A.key < B.key ? -1 : A.key > B.key ? 1 : 0);
    });
    el.innerHTML = idx.map((si) => {
      const s = D.series[si];
      const name = (s.run >= 0 ? '✕ ' + D.runLabel + ': ' : '') + s.label + ' ' + s.prec.toUpperCase();
      const sim = g.rows.some((i) => D.rows[i].s === si && D.rows[i].sim === 1) ? '<b class="simbadge">SIMULATED</b>' : '';
      return '<span data-s="' + si + '" class="' + (S.hidden[si] ? 'off' : '') + '"><i style="background:' + s.color + '"></i>' + esc(name) + sim + '</span>';
    }).join('') + ' <button class="small reset">Reset filter</button>';
  }

  /* ---- results table and CSV ---- */
  function tableRows(which) {
    const V = viewOf(which), pts = shown(which), lower = isLower(which, V);
    const rows = pts.map((p) => ({ p, r: D.rows[p.row] }));
    const st = S.sort[which];
    const cols = tableCols(which);
    if (st) rows.sort((a, b) => { const x = cols[st.col].v(a), y = cols[st.col].v(b); return (x < y ? -1 : x > y ? 1 : 0) * st.dir; });
    else rows.sort((a, b) => (lower ? a.p.y - b.p.y : b.p.y - a.p.y));
    return rows;
  }
  function tableCols(which) {
    const M = MBYKEY[S.metric], xf = xfield(which);
    return [
      { h: 'Chip', v: (o) => D.series[o.p.s].label, f: (v) => esc(v) },
      { h: 'Precision', v: (o) => D.series[o.p.s].prec.toUpperCase(), f: (v) => esc(v) },
      { h: 'TP', v: (o) => o.r.par, f: (v) => esc(v) },
      { h: 'Conc', v: (o) => o.r.conc, f: (v) => String(v) },
      { h: M.label, v: (o) => o.p.y, f: fmtCell },
      { h: D.meta.xfields[XIDX[xf]].label, v: (o) => o.p.x, f: fmtCell },
      { h: 'Throughput/Chip (tok/s)', v: (o) => o.r.y[0], f: fmt1 },
    ];
  }
  function drawTable(which) {
    const box = $('table' + which);
    if (!S.table[which]) { box.innerHTML = ''; box.style.display = 'none'; return; }
    const cols = tableCols(which), rows = tableRows(which);
    let h = '<table class="data"><thead><tr>' + cols.map((c, i) => '<th data-col="' + i + '">' + esc(c.h) + '</th>').join('') + '</tr></thead><tbody>';
    rows.forEach((o) => { h += '<tr data-row="' + o.p.row + '">' + cols.map((c) => '<td>' + c.f(c.v(o)) + '</td>').join('') + '</tr>'; });
    box.innerHTML = h + '</tbody></table>';
    box.style.display = 'block';
  }
  const CSV_RAW = ['mean_ttft', 'median_ttft', 'p99_ttft', 'std_ttft', 'mean_tpot', 'median_tpot', 'p99_tpot', 'std_tpot',
    'mean_itl', 'median_itl', 'p99_itl', 'std_itl', 'mean_intvty', 'median_intvty', 'p99_intvty', 'mean_e2el', 'median_e2el', 'p99_e2el'];
  function csv(which) {
    const g = group(), q = (v) => { const s = v == null ? '' : String(v); return /[",\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s; };
    const head = ['Model', 'ISL', 'OSL', 'Hardware', 'Hardware Key', 'Framework', 'Precision', 'TP', 'Concurrency', 'Date',
      'Throughput/GPU (tok/s)', 'Output Throughput/GPU (tok/s)', 'Input Throughput/GPU (tok/s)',
      'Mean TTFT (ms)', 'Median TTFT (ms)', 'P99 TTFT (ms)', 'Std TTFT (ms)', 'Mean TPOT (ms)', 'Median TPOT (ms)', 'P99 TPOT (ms)', 'Std TPOT (ms)',
      'Mean ITL (ms)', 'Median ITL (ms)', 'P99 ITL (ms)', 'Std ITL (ms)', 'Mean Interactivity (tok/s/user)', 'Median Interactivity (tok/s/user)',
      'P99 Interactivity (tok/s/user)', 'Mean E2EL (s)', 'Median E2EL (s)', 'P99 E2EL (s)', 'Disaggregated', 'Num Prefill GPUs', 'Num Decode GPUs',
      'Spec Decoding', 'EP', 'DP Attention', 'Is Multinode', S.metric];
    const lines = [head.join(',')];
    tableRows(which).forEach((o) => {
      const r = o.r, s = D.series[o.p.s], raw = r.raw;
      const lat = CSV_RAW.map((k, i) => { const v = raw[i]; if (v == null) return ''; return k.indexOf('intvty') >= 0 || k.indexOf('e2el') >= 0 ? v : v * 1000; });
      lines.push([g.modelLabel, g.isl, g.osl, GPU[s.gpu] ? GPU[s.gpu].label : s.gpu, s.hw, r.fw, s.prec, r.tp, r.conc, r.date,
        raw[18], raw[19], raw[20]].concat(lat, [r.disagg, r.npg, r.ndg, r.spec, r.ep, r.dpa, r.multinode, o.p.y]).map(q).join(','));
    });
    return lines.join('\n') + '\n';
  }
  function download(name, text) {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
    a.download = name;
    document.body.appendChild(a); a.click(); a.remove();
  }

  /* ---- tooltip ---- */
  let pinned = false;
  function tipHtml(which, row) {
    const r = D.rows[row], s = D.series[r.s], M = MBYKEY[S.metric], xf = xfield(which);
    let x = NaN, y = NaN;
    viewPoints(which).forEach((p) => { if (p.row === row) { x = p.x; y = M.custom ? customY(M.key, r) : p.y; } });
    const L = [];
    if (s.run >= 0) L.push('<span class="run">✕ UNOFFICIAL RUN</span> ' + esc(D.runLabel));
    L.push('<b>' + esc(s.label) + '</b>' + (r.sim === 1 ? '<b class="simbadge">SIMULATED</b>' : ''));
    if (r.sim === 1) L.push('Simulated: infbench sim, not a measurement');
    L.push('Date: ' + esc(r.date));
    if (r.image) L.push('Image: ' + esc(r.image));
    L.push(esc(D.meta.xfields[XIDX[xf]].label) + ': ' + fmtCell(x));
    L.push(esc(M.label) + ': ' + fmtCell(y));
    if (S.metric === 'tpPerGpu') {
      L.push('Input Token Throughput per GPU: ' + fmtCell(r.y[1]));
      L.push('Output Token Throughput per GPU: ' + fmtCell(r.y[2]));
    }
    const ms = (v) => (v == null || !isFinite(v) ? '–' : fmtCell(v * 1000) + ' ms'), sec = (v) => (v == null || !isFinite(v) ? '–' : fmtCell(v) + ' s');
    L.push('TTFT: median ' + ms(r.raw[1]) + ', p99 ' + ms(r.raw[2]));
    L.push('TPOT: median ' + ms(r.raw[5]) + ', p99 ' + ms(r.raw[6]));
    L.push('E2EL: median ' + sec(r.raw[16]) + ', p99 ' + sec(r.raw[17]));
    L.push('Total GPUs: ' + fmtNum(r.gpus));
    if (r.prefill) { L.push('Prefill: ' + esc(r.prefill)); L.push('Decode: ' + esc(r.decode)); }
    else { L.push('Tensor Parallelism: ' + r.tp); L.push('Expert Parallelism: ' + r.ep); L.push('DP Attention: ' + (r.dpa ? 'True' : 'False')); }
    L.push('Parallelism: ' + esc(r.par));
    L.push('Concurrency: ' + r.conc);
    L.push('Precision: ' + esc(s.prec.toUpperCase()));
    if (r.al != null) L.push('Acceptance length: ' + fmtNum(+r.al.toFixed(3)));
    if (r.cb === 1) L.push('Client-bound: latency is the client\'s' + (r.cbwhy ? ' (' + esc(r.cbwhy) + ')' : ''));
    L.push('Row: ' + esc(r.src));
    return L.join('<br>');
  }
  function onMove(which, ev) {
    if (pinned) return;
    const t = ev.target.closest && ev.target.closest('.pt'), tip = $('tip');
    if (!t) { tip.style.display = 'none'; return; }
    tip.innerHTML = tipHtml(which, +t.dataset.row);
    tip.style.display = 'block';
    tip.style.left = Math.min(ev.clientX + 14, window.innerWidth - 370) + 'px';
    tip.style.top = (ev.clientY + 14) + 'px';
  }

  /* ---- controls ---- */
  function option(v, text, sel) { return '<option value="' + esc(v) + '"' + (sel ? ' selected' : '') + '>' + esc(text) + '</option>'; }
  function buildControls() {
    const models = [];
    D.groups.forEach((g) => { if (models.indexOf(g.model) < 0) models.push(g.model); });
    $('sel-model').innerHTML = models.map((m) => option(m, D.groups.find((g) => g.model === m).modelLabel, m === group().model)).join('');
    fillSeq();
    let mh = '', last = '';
    METRICS.forEach((m) => {
      if (m.group !== last) { mh += (last ? '</optgroup>' : '') + '<optgroup label="' + esc(m.group) + '">'; last = m.group; }
      mh += option(m.key, m.title, m.key === S.metric);
    });
    $('sel-metric').innerHTML = mh + '</optgroup>';
    $('sel-xa').innerHTML = option('p90_ttft', 'P90 TTFT', true) + option('median_ttft', 'Median TTFT', false);
    $('sel-xb').innerHTML = option('median_e2el', 'End-to-end Latency', true) + option('p99_ttft', 'P99 TTFT', false) + option('median_ttft', 'Median TTFT', false);
    $('sel-xscale').innerHTML = option('auto', 'auto', true) + option('linear', 'linear', false) + option('log', 'log', false);
  }
  function fillSeq() {
    const m = group().model;
    $('sel-seq').innerHTML = D.groups.map((g, i) => (g.model === m ? option(i, g.seq, i === S.g) : '')).join('');
    const precs = {};
    group().rows.forEach((i) => { precs[D.series[D.rows[i].s].prec] = 1; });
    $('precs').innerHTML = Object.keys(precs).sort().map((p) => '<label><input type="checkbox" data-prec="' + esc(p) + '"' +
      (S.prec[p] !== false ? ' checked' : '') + '>' + esc(p.toUpperCase()) + '</label>').join('');
  }
  function renderInference() {
    const M = MBYKEY[S.metric];
    $('xa-box').style.display = M.input ? '' : 'none';
    const g = group();
    $('fpwarn').innerHTML = (g.fpwarn ? '<div class="warn">Workload warning: ' + esc(g.fpwarn) + '</div>' : '') +
      (g.total ? '<div class="note">Thinned: ' + g.rows.length + ' of ' + g.total + ' points drawn (the page holds at most ' + D.maxPoints +
        ' rows). Every point on a frontier is kept and the frontiers are computed on all points; the others are an even sample per series. ' +
        'Use infbench report --max-points 0 for every point.</div>' : '');
    drawChart('A');
    drawChart('B');
    const sim = g.rows.filter((i) => D.rows[i].sim === 1).length;
    $('simnote').innerHTML = sim ? '<div class="warn"><b class="simbadge">SIMULATED</b> ' + sim + ' of ' + g.rows.length +
      ' point(s) come from infbench sim (the engine simulator), not from a measured server: drawn with a dashed ring.</div>' : '';
    $('context').innerHTML = contextHtml(g);
    const cb = g.rows.filter((i) => D.rows[i].cb === 1);
    $('clientbound').innerHTML = cb.length ? '<div class="warn">' + cb.length + ' point(s) are client-bound (drawn hollow): their latency is the load client\'s, not the server\'s.<ul class="list">' +
      cb.map((i) => '<li>' + esc(D.series[D.rows[i].s].label + ' ' + D.rows[i].par + ' conc ' + D.rows[i].conc + (D.rows[i].cbwhy ? ': ' + D.rows[i].cbwhy : '') + ' (' + D.rows[i].src + ')') + '</li>').join('') + '</ul></div>' : '';
    const al = g.rows.filter((i) => D.rows[i].al != null);
    $('accept').innerHTML = al.length ? '<div class="note">Measured speculative-decoding acceptance length on ' + al.length + ' point(s) (in the tooltips).</div>' : '';
    drawCompare();
    drawTrend();
  }

  /* ---- what was run: the panel above the charts ---- */
  function contextHtml(g) {
    const rows = g.rows.map((i) => D.rows[i]), uniq = (a) => a.filter((v, i) => v != null && v !== '' && a.indexOf(v) === i);
    const list = (a, n) => (a.length > n ? a.slice(0, n).join(', ') + ' and ' + (a.length - n) + ' more' : a.join(', '));
    const nsim = rows.filter((r) => r.sim === 1).length;
    const engine = nsim === rows.length ? '<b class="simbadge">SIMULATED</b> infbench sim (the engine simulator), not measured'
      : nsim ? 'mixed: ' + nsim + ' simulated (infbench sim), ' + (rows.length - nsim) + ' measured' : 'measured servers';
    const concs = rows.map((r) => r.conc).filter((c) => c != null), dates = uniq(rows.map((r) => r.date)).sort();
    const ts = uniq(rows.map((r) => r.ts));
    const items = [['Engine', engine],
      ['Versions', esc(list(uniq(rows.map((r) => r.image)), 3) || 'not recorded') + ' • ' + esc(list(uniq(rows.map((r) => r.fw)), 4))],
      ['Workload', esc(g.modelLabel + ', ' + g.seq + ' (ISL ' + g.isl + ', OSL ' + g.osl + ')') + ', concurrency ' +
        (concs.length ? Math.min.apply(null, concs) + '–' + Math.max.apply(null, concs) : '–') + ', ' + rows.length + ' point(s)'],
      ['Time scale', ts.length ? 'model time (the simulator ran ' + esc(ts.map((t) => String(+t.toPrecision(4)) + '×').join(', ')) + ' faster than real time)' : 'real time'],
      ['Date', esc(dates.length > 1 ? dates[0] + ' – ' + dates[dates.length - 1] : dates[0] || '–')]];
    return '<dl class="context">' + items.map((it) => '<dt>' + it[0] + '</dt><dd data-k="' + it[0] + '">' + it[1] + '</dd>').join('') + '</dl>';
  }

  /* ---- comparison view ---- */
  function drawCompare() {
    const box = $('compare-body');
    if (!box) return;
    const g = group(), list = g.compare || [];
    if (!list.length) { box.innerHTML = '<p class="note">No series of ' + esc(D.runLabel) + ' overlaps the baseline for ' + esc(g.modelLabel + ' ' + g.seq) + '.</p>'; return; }
    let h = '<p class="note">' + esc(g.modelLabel + ' • ' + g.seq) + ': each series of the run against the same series of the baseline, interpolated on the upper-left (interactivity, throughput) frontier at 25/50/75 % of the overlapping interactivity range (cost: owning, hyperscaler).</p>';
    list.forEach((c) => {
      const s = D.series.find((x) => x.hw === c.hw && x.prec === c.prec && x.run < 0);
      h += '<h3>' + esc((s ? s.label : c.hw) + ' ' + c.prec.toUpperCase()) + ' <span class="note">overlap ' + fmtNum(c.min) + '–' + fmtNum(c.max) + ' tok/s/user</span></h3>';
      h += '<table class="data cmp"><thead><tr><th>Interactivity (tok/s/user)</th><th>Baseline tok/s/GPU</th><th>' + esc(D.runLabel) + ' tok/s/GPU</th><th>Change</th><th>Baseline $/M tok</th><th>' + esc(D.runLabel) + ' $/M tok</th><th>Baseline conc</th><th>' + esc(D.runLabel) + ' conc</th></tr></thead><tbody>';
      c.rows.forEach((r) => {
        const a = r.base || {}, b = r.run || {};
        const ch = a.value > 0 && b.value != null ? ((b.value / a.value - 1) * 100).toFixed(1) + ' %' : '–';
        h += '<tr><td>' + fmtNum(r.target) + '</td><td>' + fmt1(a.value) + '</td><td>' + fmt1(b.value) + '</td><td>' + ch + '</td><td>' +
          (a.cost != null ? a.cost.toFixed(3) : '–') + '</td><td>' + (b.cost != null ? b.cost.toFixed(3) : '–') + '</td><td>' + fmtNum(a.conc) + '</td><td>' + fmtNum(b.conc) + '</td></tr>';
      });
      h += '</tbody></table>';
      (c.text || []).forEach((t) => { h += '<p class="narr">' + esc(t) + '</p>'; });
    });
    box.innerHTML = h;
  }

  /* ---- historical trends (the library's values at fixed interactivities) ---- */
  function drawTrend() {
    const box = $('trend-body');
    if (!box) return;
    const g = group(), T = g.trend;
    if (!T) { box.innerHTML = '<p class="note">' + esc(g.modelLabel + ' ' + g.seq) + ' has one date only: no history to draw.</p>'; return; }
    const mi = Math.max(0, T.metrics.indexOf($('sel-tmetric').value)), ti = Math.max(0, T.targets.indexOf(+$('sel-ttarget').value));
    const nd = T.dates.length, t = T.dates.map((d) => Date.parse(d + 'T00:00:00Z'));
    const w = 900, h = 420, ml = 70, mr = 50, mt = 20, mb = 50;
    const lines = T.series.map((s) => ({ s: s.s, v: T.dates.map((d, di) => s.v[(mi * T.targets.length + ti) * nd + di]) }));
    const all = [];
    lines.forEach((l) => l.v.forEach((v) => { if (v != null) all.push(v); }));
    const ay = axis(all, 'y', 8);
    const t0 = Math.min.apply(null, t), t1 = Math.max.apply(null, t);
    const sx = (x) => ml + (t1 > t0 ? (x - t0) / (t1 - t0) : 0.5) * (w - ml - mr), sy = scale(ay, h - mb, mt);
    let svg = '<rect width="' + w + '" height="' + h + '" fill="#fff"/>';
    ay.ticks.forEach((k) => { svg += '<line x1="' + ml + '" x2="' + (w - mr) + '" y1="' + r3(sy(k.v)) + '" y2="' + r3(sy(k.v)) + '" stroke="#eef0f3"/><text x="' + (ml - 6) + '" y="' + r3(sy(k.v) + 3) + '" text-anchor="end" font-size="10" fill="#6b7280">' + esc(fmtLarge(+k.v.toPrecision(12))) + '</text>'; });
    T.dates.forEach((d, di) => { svg += '<text x="' + r3(sx(t[di])) + '" y="' + (h - mb + 16) + '" text-anchor="middle" font-size="10" fill="#6b7280">' + esc(d) + '</text>'; });
    lines.forEach((l) => {
      const s = D.series[l.s];
      if (!seriesOn(l.s) || l.v.every((v) => v == null)) return;
      let d = '', pen = false;
      l.v.forEach((v, di) => {
        if (v == null) { pen = false; return; }
        d += (pen ? 'L' : 'M') + r3(sx(t[di])) + ',' + r3(sy(v)); pen = true;
        svg += '<circle class="tpt" data-s="' + l.s + '" cx="' + r3(sx(t[di])) + '" cy="' + r3(sy(v)) + '" r="3.5" fill="' + s.color + '"><title>' + esc(s.label + ' ' + s.prec.toUpperCase() + ' ' + T.dates[di] + ': ' + fmtNum(v)) + '</title></circle>';
      });
      svg += '<path class="tline" d="' + d + '" fill="none" stroke="' + s.color + '" stroke-width="2"/>';
    });
    const M = MBYKEY[T.metrics[mi]];
    svg += '<text class="axis-label" transform="translate(14,' + ((mt + h - mb) / 2) + ') rotate(-90)" text-anchor="middle">' + esc(M ? M.label : T.metrics[mi]) + '</text>';
    box.innerHTML = '<h3>' + esc((M ? M.title : T.metrics[mi]) + ' at ' + T.targets[ti] + ' tok/s/user Interactivity') + '</h3><p class="note">' + esc(g.modelLabel + ' • ' + g.seq) +
      ': per series and date, the value interpolated on that date\'s throughput-vs-interactivity frontier; no point where the target is outside the frontier.</p><svg id="trendsvg" viewBox="0 0 ' + w + ' ' + h + '">' + svg + '</svg>';
  }

  /* ---- evaluation view ---- */
  function drawEval() {
    const box = $('eval-body');
    if (!box || !D.evals.length) return;
    const e = D.evals[S.evalg], bars = e.bars, mt = 20, mb = 40, ml = 230, mr = 70;
    const bh = 40, h = Math.max(400, bars.length * bh + mt + mb), w = 900;
    /* bars start at 0; the axis ends at a nice value above every score and
     * error bar; tick labels carry as many decimals as their step needs */
    const top = Math.max.apply(null, bars.map((b) => Math.max(b.score, b.emax != null ? b.emax : b.score)));
    const [lo, hi] = nice(0, top > 0 ? top : 1, 6), sx = (v) => ml + (v - lo) / (hi - lo || 1) * (w - ml - mr);
    const tk = ticks(lo, hi, 6), step = tk.length > 1 ? tk[1] - tk[0] : 1, dec = Math.max(0, Math.min(6, -Math.floor(Math.log10(step) + 1e-9)));
    const colorOf = (hw) => { const s = D.series.find((x) => x.hw === hw); return s ? s.color : '#8b5cf6'; };
    let g = '<rect width="' + w + '" height="' + h + '" fill="#fff"/>';
    tk.forEach((t) => {
      g += '<line x1="' + r3(sx(t)) + '" x2="' + r3(sx(t)) + '" y1="' + mt + '" y2="' + (h - mb) + '" stroke="#eef0f3"/>' +
        '<text class="axis evaltick" x="' + r3(sx(t)) + '" y="' + (h - mb + 14) + '" text-anchor="middle" font-size="10" fill="#6b7280">' + t.toFixed(dec) + '</text>';
    });
    const band = (h - mt - mb) / Math.max(1, bars.length);
    bars.forEach((b, i) => {
      const y0 = mt + i * band + band * 0.1, bhh = band * 0.8, c = colorOf(b.hw);
      const lines = b.label.split('\n');
      g += '<g class="evalbar" data-label="' + esc(b.label) + '"><rect class="bar" x="' + r3(sx(lo)) + '" y="' + r3(y0) + '" width="' + r3(Math.max(0, sx(b.score) - sx(lo))) + '" height="' + r3(bhh) + '" fill="' + c + '"/>';
      if (b.emin != null && b.emax != null) {
        const cy = y0 + bhh / 2, cap = bhh / 3;
        g += '<line class="errbar" x1="' + r3(sx(b.emin)) + '" x2="' + r3(sx(b.emax)) + '" y1="' + r3(cy) + '" y2="' + r3(cy) + '"/>' +
          '<line class="errbar" x1="' + r3(sx(b.emin)) + '" x2="' + r3(sx(b.emin)) + '" y1="' + r3(cy - cap / 2) + '" y2="' + r3(cy + cap / 2) + '"/>' +
          '<line class="errbar" x1="' + r3(sx(b.emax)) + '" x2="' + r3(sx(b.emax)) + '" y1="' + r3(cy - cap / 2) + '" y2="' + r3(cy + cap / 2) + '"/>';
      }
      g += '<text x="' + (ml - 8) + '" y="' + r3(y0 + bhh / 2 - (lines.length > 1 ? 2 : -3)) + '" text-anchor="end" font-size="11">' + esc(lines[0]) + '</text>';
      if (lines[1]) g += '<text x="' + (ml - 8) + '" y="' + r3(y0 + bhh / 2 + 11) + '" text-anchor="end" font-size="10" fill="#6b7280">' + esc(lines[1]) + '</text>';
      g += '<text class="scorelabel" x="' + r3(sx(Math.max(b.score, b.emax || b.score)) + 12) + '" y="' + r3(y0 + bhh / 2 + 3) + '">' + b.score.toFixed(3) + '</text></g>';
    });
    g += '<text class="axis-label" x="' + ((ml + w - mr) / 2) + '" y="' + (h - 8) + '" text-anchor="middle">' + esc(e.task.toUpperCase()) + ' Score</text>';
    let t = '<table class="data"><thead><tr><th>GPU</th><th>Precision</th><th>Score</th><th>Min</th><th>Max</th><th>TP</th><th>Conc</th><th>Benchmark</th><th>Date</th></tr></thead><tbody>';
    bars.slice().sort((a, b) => b.score - a.score).forEach((b) => {
      t += '<tr><td>' + esc(b.label.replace('\n', ' ')) + '</td><td>' + esc(b.prec.toUpperCase()) + '</td><td class="evalscore">' + b.score.toFixed(3) + '</td><td>' +
        (b.min != null ? b.min.toFixed(3) : '–') + '</td><td>' + (b.max != null ? b.max.toFixed(3) : '–') + '</td><td>' + b.tp + '</td><td>' + b.conc + '</td><td>' + esc(e.task) + '</td><td>' + esc(b.date) + '</td></tr>';
    });
    box.innerHTML = '<svg id="evalsvg" viewBox="0 0 ' + w + ' ' + h + '">' + g + '</svg>' + t + '</tbody></table>';
  }

  /* ---- GPU table ---- */
  function drawGpus() {
    let h = '<table class="data"><thead><tr><th>GPU</th><th>Power (kW/GPU, all-in)</th><th>Owning – Hyperscaler ($/GPU-hr)</th><th>Owning – Neocloud Giant</th><th>3-yr Rental</th><th>Custom $/GPU-hr</th><th>Custom power (kW)</th></tr></thead><tbody>';
    D.meta.gpus.forEach((g) => {
      h += '<tr><td>' + esc(g.label) + '</td><td>' + g.power + '</td><td>' + g.costh + '</td><td>' + g.costn + '</td><td>' + g.costr +
        '</td><td><input type="number" step="0.01" min="0" data-gpu="' + g.key + '" data-k="cost" value="' + USER[g.key].cost + '"></td>' +
        '<td><input type="number" step="0.01" min="0" data-gpu="' + g.key + '" data-k="power" value="' + USER[g.key].power + '"></td></tr>';
    });
    $('gpu-body').innerHTML = h + '</tbody></table>';
  }

  function tab(name) {
    document.querySelectorAll('nav.tabs button').forEach((b) => b.classList.toggle('on', b.dataset.tab === name));
    document.querySelectorAll('section.view').forEach((s) => s.classList.toggle('on', s.id === 'view-' + name));
    if (name === 'evaluation') drawEval();
    if (name === 'trends') drawTrend();
  }

  function wire() {
    $('sel-model').addEventListener('change', (e) => { S.g = D.groups.findIndex((g) => g.model === e.target.value); fillSeq(); renderInference(); });
    $('sel-seq').addEventListener('change', (e) => { S.g = +e.target.value; fillSeq(); renderInference(); });
    $('sel-metric').addEventListener('change', (e) => { S.metric = e.target.value; S.sort = { A: null, B: null }; renderInference(); });
    $('sel-xa').addEventListener('change', (e) => { S.xa = e.target.value; renderInference(); });
    $('sel-xb').addEventListener('change', (e) => { S.xb = e.target.value; renderInference(); });
    $('sel-xscale').addEventListener('change', (e) => { S.xscale = e.target.value; renderInference(); });
    $('precs').addEventListener('change', (e) => { const p = e.target.dataset.prec; if (p) { S.prec[p] = e.target.checked; renderInference(); } });
    ['A', 'B'].forEach((w) => {
      const card = $('chart' + w);
      card.addEventListener('change', (e) => {
        const k = e.target.dataset.toggle;
        if (!k) return;
        S[k][w] = e.target.checked;
        drawChart(w);
      });
      card.addEventListener('click', (e) => {
        const leg = e.target.closest('.legend span');
        if (leg) { const si = +leg.dataset.s; S.hidden[si] = !S.hidden[si]; renderInference(); return; }
        if (e.target.classList.contains('reset')) { S.hidden = {}; renderInference(); return; }
        if (e.target.classList.contains('csv')) { download('infbench-' + group().model + '-' + group().seq.replace('/', '') + '-' + w + '.csv', csv(w)); return; }
        const th = e.target.closest('th');
        if (th) { const c = +th.dataset.col, st = S.sort[w]; S.sort[w] = { col: c, dir: st && st.col === c ? -st.dir : 1 }; drawTable(w); return; }
        const pt = e.target.closest('.pt');
        const tip = $('tip');
        if (pt) { pinned = !pinned; tip.classList.toggle('pinned', pinned); if (pinned) { tip.innerHTML = tipHtml(w, +pt.dataset.row); tip.style.display = 'block'; } return; }
        if (pinned) { pinned = false; tip.classList.remove('pinned'); tip.style.display = 'none'; }
      });
      card.querySelector('svg').addEventListener('mousemove', (e) => onMove(w, e));
      card.querySelector('svg').addEventListener('mouseleave', () => { if (!pinned) $('tip').style.display = 'none'; });
    });
    wireCommon();
  }
  function wireCommon() {
    document.querySelector('nav.tabs').addEventListener('click', (e) => { const b = e.target.closest('button'); if (b) tab(b.dataset.tab); });
    $('gpu-body').addEventListener('input', (e) => {
      const g = e.target.dataset.gpu, k = e.target.dataset.k, v = parseFloat(e.target.value);
      if (g && isFinite(v) && v >= 0) { USER[g][k] = v; if (D.groups.length && MBYKEY[S.metric].custom) renderInference(); }
    });
    const tm = $('sel-tmetric');
    if (tm) {
      tm.innerHTML = ['tpPerGpu', 'costh', 'jTotal'].map((k, i) => option(k, MBYKEY[k].title, i === 0)).join('');
      $('sel-ttarget').innerHTML = [10, 20, 30, 40, 50, 75, 100, 150, 200, 300].map((v) => option(v, v + ' tok/s/user', v === 50)).join('');
      tm.addEventListener('change', drawTrend);
      $('sel-ttarget').addEventListener('change', drawTrend);
    }
    const es = $('sel-eval');
    if (es) {
      es.innerHTML = D.evals.map((e, i) => option(i, (e.run >= 0 ? '✕ ' + D.runLabel + ': ' : '') + e.model + ' ' + e.seq + ' ' + e.task, i === 0)).join('');
      es.addEventListener('change', (e) => { S.evalg = +e.target.value; drawEval(); });
    }
  }

  if (!D.groups.length) {
    $('view-inference').innerHTML = '<div class="warn">No benchmark rows could be drawn' + (D.skipped.length ? ' (' + D.skipped.length + ' problems listed under "Skipped rows")' : '') + '.</div>';
    wireCommon();
  } else {
    buildControls();
    wire();
    renderInference();
  }
  drawGpus();
  /* for tests and scripting */
  window.infbenchReport = { data: D, state: S, render: renderInference, csv: csv, tab: tab, drawEval: drawEval };
  document.body.dataset.ready = '1';
})();
