#!/usr/bin/env node
'use strict';
// Opens an infbench report in headless Chromium through the DevTools
// protocol (a minimal WebSocket client on node's net/http; no npm package)
// and checks it against the report's data as `infbench report --format json`
// printed it (the C library's frontiers):
//   - no console errors, no exceptions, no request other than the page itself
//     (all network blocked: offline + every http/https/ws URL blocked);
//   - per checked view, the points drawn and the frontier paths (their row
//     lists, read back from the DOM) equal the data;
//   - switching the y metric, the x metric and the sequence redraws;
//   - "Optimal only" keeps exactly the frontier ("roof") points;
//   - a PNG screenshot of each view.
//   - with --checks FILE (a JSON list of {"js": expression, "what": text}):
//     only those, each expression evaluated in the loaded page and passing
//     when it returns true (anything else is printed), then one screenshot
//     and the console/network checks (DATA.json may then be "-").
// usage: report_cdp.js CHROMIUM REPORT.html DATA.json SHOT_PREFIX [--all-groups] [--checks FILE]
// Prints "ok: ..." / "FAIL: ..." lines and "cdp: N passed, N failed";
// exit 0 when all passed, 1 on a failed check, 3 when Chromium cannot start.
const { spawn } = require('child_process');
const http = require('http');
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

const [chrome, reportPath, dataPath, shotPrefix] = process.argv.slice(2);
const allGroups = process.argv.includes('--all-groups');
const checksAt = process.argv.indexOf('--checks');
const checksPath = checksAt > 0 ? process.argv[checksAt + 1] : null;
let passed = 0, failed = 0;
function check(ok, what) {
  if (ok) { passed++; console.log('ok: ' + what); } else { failed++; console.log('FAIL: ' + what); }
}

/* ---- minimal WebSocket client (RFC 6455, text frames, client masking) ---- */
function wsConnect(url) {
  return new Promise((resolve, reject) => {
    const u = new URL(url), key = crypto.randomBytes(16).toString('base64');
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, headers: {
      Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': key } });
    req.on('upgrade', (res, sock) => {
      let buf = Buffer.alloc(0), frags = [];
      const ws = { onmessage: null, onclose: null, send(text) {
        const data = Buffer.from(text), mask = crypto.randomBytes(4);
        let hdr;
        if (data.length < 126) { hdr = Buffer.from([0x81, 0x80 | data.length]); }
        else if (data.length < 65536) { hdr = Buffer.from([0x81, 0x80 | 126, data.length >> 8, data.length & 255]); }
        else { hdr = Buffer.alloc(10); hdr[0] = 0x81; hdr[1] = 0x80 | 127; hdr.writeBigUInt64BE(BigInt(data.length), 2); }
        for (let i = 0; i < data.length; i++) data[i] ^= mask[i & 3];
        sock.write(Buffer.concat([hdr, mask, data]));
      }, close() { sock.destroy(); } };
      sock.on('data', (d) => {
        buf = Buffer.concat([buf, d]);
        for (;;) {
          if (buf.length < 2) return;
          const fin = buf[0] & 0x80, op = buf[0] & 15;
          let len = buf[1] & 127, off = 2;
          if (len === 126) { if (buf.length < 4) return; len = buf.readUInt16BE(2); off = 4; }
          else if (len === 127) { if (buf.length < 10) return; len = Number(buf.readBigUInt64BE(2)); off = 10; }
          if (buf.length < off + len) return;
          const payload = buf.subarray(off, off + len);
          buf = buf.subarray(off + len);
          if (op === 8) { sock.destroy(); return; }
          if (op === 9 || op === 10) continue;
          frags.push(Buffer.from(payload));
          if (fin) { const msg = Buffer.concat(frags).toString(); frags = []; if (ws.onmessage) ws.onmessage(msg); }
        }
      });
      sock.on('close', () => { if (ws.onclose) ws.onclose(); });
      resolve(ws);
    });
    req.on('response', (res) => reject(new Error('no websocket upgrade: HTTP ' + res.statusCode)));
    req.on('error', reject);
    req.end();
  });
}

function httpJson(port, p, method) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: p, method: method || 'GET' }, (res) => {
      let s = ''; res.on('data', (d) => { s += d; }); res.on('end', () => { try { resolve(JSON.parse(s)); } catch (e) { reject(e); } });
    });
    req.on('error', reject); req.end();
  });
}

async function startChrome() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-chrome-'));
  const proc = spawn(chrome, ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
    '--no-first-run', '--no-default-browser-check', '--disable-extensions', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--remote-debugging-address=127.0.0.1', '--remote-debugging-port=0',
    '--user-data-dir=' + dir, '--window-size=1400,1000', 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const port = await new Promise((resolve, reject) => {
    let err = '';
    const t = setTimeout(() => reject(new Error('no DevTools port within 60 s: ' + err.slice(-500))), 60000);
    proc.stderr.on('data', (d) => {
      err += d;
      const m = /DevTools listening on ws:\/\/127\.0\.0\.1:(\d+)\//.exec(err);
      if (m) { clearTimeout(t); resolve(+m[1]); }
    });
    proc.on('exit', (c) => { clearTimeout(t); reject(new Error('chromium exited ' + c + ': ' + err.slice(-500))); });
  });
  return { proc, port, dir };
}

async function main() {
  let ch;
  try { ch = await startChrome(); } catch (e) { console.log('skipped: chromium cannot start: ' + e.message); process.exit(3); }
  const cleanup = () => {
    try { ch.proc.kill('SIGKILL'); } catch (e) { /* gone */ }
    try { fs.rmSync(ch.dir, { recursive: true, force: true, maxRetries: 5 }); } catch (e) { /* the shell's trap removes it */ }
  };
  process.on('exit', cleanup);
  const watchdog = setTimeout(() => { console.log('FAIL: timed out after 240 s'); process.exit(1); }, 240000);
  const targets = await httpJson(ch.port, '/json/list');
  const page = targets.find((t) => t.type === 'page');
  const ws = await wsConnect(page.webSocketDebuggerUrl);
  let id = 0;
  const pending = {}, errors = [], requests = [], failedReq = [];
  ws.onmessage = (s) => {
    const m = JSON.parse(s);
    if (m.id && pending[m.id]) { const p = pending[m.id]; delete pending[m.id]; if (m.error) p.reject(new Error(JSON.stringify(m.error))); else p.resolve(m.result); return; }
    if (m.method === 'Runtime.exceptionThrown') errors.push('exception: ' + JSON.stringify(m.params.exceptionDetails).slice(0, 400));
    if (m.method === 'Runtime.consoleAPICalled' && (m.params.type === 'error' || m.params.type === 'warning' || m.params.type === 'assert'))
      errors.push('console.' + m.params.type + ': ' + JSON.stringify(m.params.args).slice(0, 400));
    if (m.method === 'Log.entryAdded' && (m.params.entry.level === 'error' || m.params.entry.level === 'warning'))
      errors.push('log: ' + m.params.entry.text.slice(0, 400));
    if (m.method === 'Network.requestWillBeSent') requests.push(m.params.request.url);
    if (m.method === 'Network.loadingFailed') failedReq.push(m.params.errorText + ' ' + (m.params.requestId || ''));
  };
  const send = (method, params) => new Promise((resolve, reject) => { const i = ++id; pending[i] = { resolve, reject }; ws.send(JSON.stringify({ id: i, method, params: params || {} })); });
  const evalJs = async (expr) => {
    const r = await send('Runtime.evaluate', { expression: expr, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) throw new Error('evaluate: ' + JSON.stringify(r.exceptionDetails).slice(0, 500));
    return r.result.value;
  };
  await send('Runtime.enable'); await send('Log.enable'); await send('Page.enable'); await send('Network.enable');
  await send('Network.emulateNetworkConditions', { offline: true, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  await send('Network.setBlockedURLs', { urls: ['http://*', 'https://*', 'ws://*', 'wss://*', 'ftp://*'] });
  await send('Emulation.setDeviceMetricsOverride', { width: 1400, height: 1000, deviceScaleFactor: 1, mobile: false });
  const url = 'file://' + path.resolve(reportPath);
  const t0 = Date.now();
  await send('Page.navigate', { url });
  let ready = false;
  for (let i = 0; i < 600 && !ready; i++) {
    ready = await evalJs('document.body && document.body.dataset.ready === "1"').catch(() => false);
    if (!ready) await new Promise((r) => setTimeout(r, 100));
  }
  check(ready, 'page loaded and script ran (' + (Date.now() - t0) + ' ms)');
  if (!ready) { console.log('errors: ' + errors.join('\n')); process.exit(1); }
  const finish = async () => {
    await new Promise((r) => setTimeout(r, 200));
    check(errors.length === 0, 'no console errors or exceptions' + (errors.length ? ': ' + errors.join(' | ') : ''));
    const others = requests.filter((u) => u !== url && !u.startsWith('data:') && !u.startsWith('blob:'));
    check(others.length === 0, 'no request besides the page itself' + (others.length ? ': ' + others.join(' ') : ''));
    check(failedReq.length === 0, 'no failed request' + (failedReq.length ? ': ' + failedReq.join(' ') : ''));
    clearTimeout(watchdog);
    ws.close();
    console.log(`cdp: ${passed} passed, ${failed} failed`);
    process.exit(failed ? 1 : 0);
  };
  if (checksPath) {
    for (const c of JSON.parse(fs.readFileSync(checksPath, 'utf8'))) {
      const v = await evalJs(c.js).catch((e) => 'threw ' + e.message);
      check(v === true, c.what + (v === true ? '' : ' (got ' + JSON.stringify(v).slice(0, 300) + ')'));
    }
    const m = await send('Page.getLayoutMetrics');
    const h = Math.min(6000, Math.ceil(m.cssContentSize ? m.cssContentSize.height : m.contentSize.height));
    const r = await send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true, clip: { x: 0, y: 0, width: 1400, height: h, scale: 1 } });
    fs.writeFileSync(shotPrefix + 'checks.png', Buffer.from(r.data, 'base64'));
    await finish();
  }
  const D = JSON.parse(fs.readFileSync(dataPath, 'utf8'));

  // the DOM of both charts: points (row ids) and frontier paths (row lists)
  const readDom = () => evalJs(`(() => { const out = {};
    for (const w of ['A', 'B']) { const c = document.getElementById('chart' + w);
      out[w] = { view: c.dataset.view, pts: [...c.querySelectorAll('.pt')].map((e) => +e.dataset.row),
        paths: [...c.querySelectorAll('.front')].map((e) => e.dataset.rows), d: [...c.querySelectorAll('.front')].map((e) => e.getAttribute('d')),
        clipped: [...c.querySelectorAll('svg .axis text')].filter((t) => { const s = t.ownerSVGElement, b = t.getBBox(),
          wd = (s.viewBox.baseVal && s.viewBox.baseVal.width) || s.width.baseVal.value;
          return b.x < -0.5 || b.x + b.width > wd + 0.5; }).map((t) => t.textContent) }; }
    return out; })()`);
  const select = (sel, value) => evalJs(`(() => { const s = document.getElementById(${JSON.stringify(sel)}); s.value = ${JSON.stringify(String(value))};
    s.dispatchEvent(new Event('change', { bubbles: true })); return s.value; })()`);
  // the data's points of a view: the group's rows less the drops, where x and y are numbers
  const expectView = (g, key) => {
    const v = g.views[key], drop = new Set(), ov = {};
    for (let k = 0; k < v.drop.length; k += 2) drop.add(v.drop[k]);
    if (v.xy) for (let k = 0; k < v.xy.length; k += 3) ov[v.xy[k]] = [v.xy[k + 1], v.xy[k + 2]];
    const [, metric, xf] = key.split('|');
    const xi = D.meta.xfields.findIndex((x) => x.key === xf), yi = D.meta.metrics.findIndex((m) => m.key === metric);
    const rows = g.rows.filter((row) => {
      if (drop.has(row)) return false;
      const o = ov[row], x = o ? o[0] : D.rows[row].x[xi], y = o ? o[1] : D.rows[row].y[yi];
      return x !== null && y !== null;
    });
    return { rows, paths: v.paths.map((p) => p.join(',')), roof: v.roof.length };
  };
  const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
  const verify = async (gi, metric, label) => {
    const dom = await readDom(), g = D.groups[gi];
    for (const w of ['A', 'B']) {
      const key = dom[w].view, exp = expectView(g, key);
      check(key.split('|')[1] === metric, `${label} chart ${w}: view ${key}`);
      check(same(dom[w].pts.slice().sort((a, b) => a - b), exp.rows.slice().sort((a, b) => a - b)),
        `${label} chart ${w}: ${dom[w].pts.length} points drawn = ${exp.rows.length} in the data`);
      check(same(dom[w].paths, exp.paths), `${label} chart ${w}: ${dom[w].paths.length} frontier paths (row lists) = the library's ${exp.paths.length}`);
      check(dom[w].clipped.length === 0, `${label} chart ${w}: every axis label inside the chart` + (dom[w].clipped.length ? ' (clipped: ' + dom[w].clipped.join(', ') + ')' : ''));
      check(dom[w].d.every((d) => /^M[-0-9.e]+,[-0-9.e]+([LC][-0-9.e,]+)+$/.test(d)), `${label} chart ${w}: path data well-formed`);
    }
    return dom;
  };
  const shot = async (name) => {
    const m = await send('Page.getLayoutMetrics');
    const h = Math.min(6000, Math.ceil(m.cssContentSize ? m.cssContentSize.height : m.contentSize.height));
    const r = await send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true, clip: { x: 0, y: 0, width: 1400, height: h, scale: 1 } });
    fs.writeFileSync(shotPrefix + name + '.png', Buffer.from(r.data, 'base64'));
    console.log('screenshot: ' + shotPrefix + name + '.png');
  };

  // 1. the default view of the first group
  const d0 = await verify(0, 'tpPerGpu', 'default');
  await shot('inference');
  // 2. y metric: cost per million total tokens; input throughput (x = TTFT); custom cost
  await select('sel-metric', 'costh');
  const d1 = await verify(0, 'costh', 'y=costh');
  check(d1.A.view !== d0.A.view && JSON.stringify(d1.A.d) !== JSON.stringify(d0.A.d), 'switching the y metric redraws');
  await shot('inference-cost');
  await select('sel-metric', 'inputTputPerGpu');
  const d2 = await verify(0, 'inputTputPerGpu', 'y=input tput');
  check(d2.A.view.endsWith('|p90_ttft'), 'input throughput plots against P90 TTFT');
  await select('sel-xa', 'median_ttft');
  const d3 = await readDom();
  check(d3.A.view.endsWith('|median_ttft'), 'x metric switch to median TTFT redraws');
  await select('sel-metric', 'jTotal');
  await verify(0, 'jTotal', 'y=J/token');
  await select('sel-xb', 'p99_ttft');
  const d4 = await readDom();
  check(d4.B.view === 'B|jTotal|p99_ttft', 'latency chart x switch to P99 TTFT');
  await select('sel-xb', 'median_e2el');
  await select('sel-metric', 'costUser');
  const d5 = await readDom();
  check(d5.A.pts.length > 0 && d5.A.view === 'A|tpPerGpu|median_intvty', 'custom cost metric draws on the throughput frontier');
  await select('sel-metric', 'tpPerGpu');
  // 3. optimal only
  await evalJs(`(() => { const c = document.querySelector('#chartA input[data-toggle=optimal]'); c.checked = true; c.dispatchEvent(new Event('change', { bubbles: true })); })()`);
  const d6 = await readDom();
  check(d6.A.pts.length === expectView(D.groups[0], d6.A.view).roof, `optimal only: ${d6.A.pts.length} points = the library's roof set`);
  await evalJs(`(() => { const c = document.querySelector('#chartA input[data-toggle=optimal]'); c.checked = false; c.dispatchEvent(new Event('change', { bubbles: true })); })()`);
  // 4. the table and the CSV export
  const t = await evalJs(`(() => { const c = document.querySelector('#chartA input[data-toggle=table]'); c.checked = true; c.dispatchEvent(new Event('change', { bubbles: true }));
    return { rows: document.querySelectorAll('#tableA tbody tr').length, csv: window.infbenchReport.csv('A').trim().split('\\n').length }; })()`);
  check(t.rows === d0.A.pts.length && t.csv === t.rows + 1, `results table ${t.rows} rows, CSV ${t.csv} lines`);
  // 5. every other sequence / model group (all of them with --all-groups, else the first three)
  const groups = allGroups ? D.groups.length : Math.min(3, D.groups.length);
  for (let gi = 1; gi < groups; gi++) {
    const g = D.groups[gi];
    await select('sel-model', g.model);
    await select('sel-seq', gi);
    await verify(gi, 'tpPerGpu', `${g.model} ${g.seq}`);
    if (allGroups) { // the TTFT x axis (milliseconds: the widest tick labels) of every group too
      await select('sel-metric', 'inputTputPerGpu');
      await verify(gi, 'inputTputPerGpu', `${g.model} ${g.seq} y=input tput`);
      await select('sel-metric', 'tpPerGpu');
    }
  }
  if (D.groups.length > 1) {
    await select('sel-model', D.groups[1].model);
    await select('sel-seq', 1);
    const s = await readDom();
    check(s.A.pts.length === expectView(D.groups[1], s.A.view).rows.length, 'switching the sequence redraws');
    await shot('inference-seq2');
    await select('sel-model', D.groups[0].model);
    await select('sel-seq', 0);
  }
  // 6. tooltip
  const tip = await evalJs(`(() => { const p = document.querySelector('#chartA .pt'); const r = p.getBoundingClientRect();
    p.dispatchEvent(new MouseEvent('mousemove', { bubbles: true, clientX: r.x + 2, clientY: r.y + 2 }));
    return document.getElementById('tip').textContent; })()`);
  check(/Concurrency: \d+/.test(tip) && /Precision: /.test(tip), 'tooltip shows concurrency and precision');
  await evalJs(`document.getElementById('tip').style.display = 'none'`);
  // 7. other views
  for (const tab of ['comparison', 'evaluation', 'trends', 'gpus', 'skipped']) {
    const has = await evalJs(`!!document.querySelector('nav.tabs button[data-tab=${tab}]')`);
    if (!has) continue;
    await evalJs(`window.infbenchReport.tab('${tab}')`);
    if (tab === 'evaluation') {
      const n = await evalJs(`document.querySelectorAll('#evalsvg .evalbar').length`);
      check(n === D.evals[0].bars.length, `evaluation view: ${n} bars = ${D.evals[0].bars.length}`);
    }
    if (tab === 'trends') {
      const n = await evalJs(`document.querySelectorAll('#trendsvg .tpt').length`);
      const T = D.groups[0].trend, nd = T.dates.length, ti = T.targets.indexOf(50);
      const exp = T.series.reduce((a, s) => a + s.v.slice(ti * nd, ti * nd + nd).filter((v) => v !== null).length, 0);
      check(n === exp && n > 0, `historical trends: ${n} points (tok/s/GPU at 50 tok/s/user per date) = ${exp} values of the library`);
    }
    if (tab === 'comparison') {
      const n = await evalJs(`document.querySelectorAll('#compare-body table.cmp tbody tr').length`);
      const exp = (D.groups[0].compare || []).reduce((s, c) => s + c.rows.length, 0);
      check(n === exp && n > 0, `comparison view: ${n} interpolated rows = ${exp}`);
    }
    await shot(tab);
  }
  await finish();
}
main().catch((e) => { console.log('FAIL: ' + (e.stack || e)); console.log(`cdp: ${passed} passed, ${failed + 1} failed`); process.exit(1); });
