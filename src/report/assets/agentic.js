'use strict';
/* infbench report: the agentic view (only in pages with agentic rows). The
 * charts and tables are drawn by the C side; this shows those of the chosen
 * model · scenario, percentile, y metric and latency metric. */
(function () {
  const sec = document.getElementById('view-agentic');
  if (!sec) return;
  const S = { g: 0, p: 2, y: 0, lat: 0 };
  function show() {
    sec.querySelectorAll('.agg').forEach((g) => {
      const on = +g.dataset.g === S.g;
      g.classList.toggle('on', on);
      g.querySelectorAll('.agv').forEach((v) => v.classList.toggle('on', on && +v.dataset.p === S.p && +v.dataset.y === S.y));
      g.querySelectorAll('.agm').forEach((v) => v.classList.toggle('on', on && +v.dataset.m === S.lat));
    });
  }
  [['ag-group', 'g'], ['ag-pct', 'p'], ['ag-y', 'y'], ['ag-lat', 'lat']].forEach(([id, k]) => {
    const e = document.getElementById(id);
    if (!e) return;
    S[k] = +e.value;
    e.addEventListener('change', () => { S[k] = +e.value; show(); });
  });
  show();
  /* for tests and scripting */
  window.infbenchAgentic = { state: S, show: show };
})();
