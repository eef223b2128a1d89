#!/usr/bin/env python3
"""Can a held-out group's offset be predicted?  An analysis of `sim validate --cv` rows.

Usage: scripts/sim-offsets.py CV_OUTPUT [--points FILE] [--shifts N]

CV_OUTPUT is what `infbench sim validate --points FILE --cv model-gpu` prints without
`--summary` (one line per row).  The script prints, for the frontier rows and the measured
rows (tok/s/GPU), the median absolute percentage error:

  * of the run itself;
  * with each published curve's own median offset (simulated / published) divided out: the
    error a perfect per-curve correction would leave (an oracle: it uses the held-out rows);
  * with a held-out row corrected by an offset predicted from OTHER model x GPU groups only:
    the same model on other GPUs, the same model and framework on other GPUs (frontier rows),
    other models on the same GPU and framework, other models on the same GPU, other models on
    the same framework, and the model's age at the build's date (a line fitted over the other
    groups' frontier rows), each at half and at the whole of its value.

A predictor that lowers the frontier median without raising the measured one would be worth
building into the calibration; docs/sim.md ("Why the frontier target is out of reach of shared
parameters") quotes this script's output.  Errors go to stderr with exit status 1.
"""

import argparse
import collections
import datetime
import math
import random
import re
import statistics
import sys

# Release dates, for the age predictor only.  The first three are the public release dates; the
# 2026 models' are approximate (to the month; never later than the earliest build a point of
# theirs names).  --shifts re-runs the check with every date moved at random by up to 60 days and
# the dashboard's date anywhere from August to December 2026, so the conclusion does not rest on
# them.
RELEASE = {
    "llama3-70b": "2024-12-06",
    "deepseek-r1": "2025-05-28",
    "gpt-oss-120b": "2025-08-05",
    "kimi-k2.5": "2026-01-27",
    "glm-5": "2026-02-11",
    "minimax-m2.5": "2026-02-12",
    "qwen3.5-397b-a17b": "2026-02-16",
    "deepseek-v4-pro": "2026-04-24",
    "minimax-m3": "2026-06-12",
}
# The dashboard's rows ("best available" builds) carry no date: one date for all of them.
DASHBOARD_DATE = "2026-11-15"
DASHBOARD_DATES = ["2026-08-01", "2026-10-01", "2026-11-15", "2026-12-05"]

Row = collections.namedtuple("Row", "rid kind model gpu fw logr curve date")


def fail(msg):
    print("sim-offsets: " + msg, file=sys.stderr)
    sys.exit(1)


def read_points(path):
    pts = {}
    try:
        with open(path, encoding="utf-8") as f:
            header = f.readline().rstrip("\n").split("\t")
            need = ["row_id", "series", "precision", "framework_or_config_note", "page_kind"]
            for n in need:
                if n not in header:
                    fail("%s:1: no column %s" % (path, n))
            col = {n: header.index(n) for n in header}
            for line in f:
                c = line.rstrip("\n").split("\t")
                if len(c) >= len(header) and c[0].isdigit():
                    pts[c[0]] = {n: c[col[n]] for n in need}
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))
    return pts


def curve_of(p):
    """A published curve: the points' series, page kind, speculative setting and build date."""
    note = p["framework_or_config_note"]
    if re.search(r"decoding = MTP|FP8 MTP", note):
        spec = "mtp"
    elif re.search(r"= Off|non-MTP", note):
        spec = "off"
    else:
        spec = "any"
    m = re.search(r"20\d\d-\d\d-\d\d", note)
    date = m.group(0) if m and p["page_kind"].startswith("blog") else ""
    return (p["series"], p["precision"], p["page_kind"], spec, date), date


def read_cv(path, pts):
    rows = []
    try:
        f = open(path, encoding="utf-8")
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))
    with f:
        for n, line in enumerate(f, 1):
            c = line.split()
            if len(c) < 13 or not c[0].isdigit() or c[1] not in ("frontier", "measured"):
                continue
            try:
                pub, sim = float(c[10]), float(c[11])
            except ValueError:
                fail("%s:%d: pub_tps/sim_tps are not numbers" % (path, n))
            if not (pub > 0 and sim > 0):
                continue
            if c[0] not in pts:
                fail("%s:%d: row %s is not in the points file" % (path, n, c[0]))
            curve, date = curve_of(pts[c[0]])
            rows.append(Row(c[0], c[1], c[2], c[3], c[5], math.log(sim / pub), curve, date))
    if not any(r.kind == "frontier" for r in rows):
        fail("%s: no frontier rows (run sim validate without --summary)" % path)
    return rows


def ape(logr):
    return abs(math.exp(logr) - 1) * 100


def median_ape(rows, kind, corr=None, scale=1.0):
    """The median APE of the rows of one kind, each row's log ratio less scale x corr(row)."""
    v = [ape(r.logr - (scale * corr(r) if corr else 0)) for r in rows if r.kind == kind]
    return statistics.median(v) if v else float("nan")


def group_medians(rows, kinds):
    g = collections.defaultdict(list)
    for r in rows:
        if r.kind in kinds:
            g[(r.model, r.gpu, r.fw)].append(r.logr)
    return g


def donor_offset(rows, kinds, same):
    """Offset of a row of one of `kinds`: the median over donor (model, GPU, framework) groups'
    medians, where a donor is never the row's own model x GPU and `same(donor, row)` holds; 0
    for a row of another kind."""
    g = group_medians(rows, kinds)
    med = {k: statistics.median(v) for k, v in g.items()}
    cache = {}

    def off(r):
        if r.kind not in kinds:
            return 0.0
        key = (r.model, r.gpu, r.fw)
        if key not in cache:
            d = [m for k, m in med.items() if (k[0], k[1]) != (r.model, r.gpu) and same(k, r)]
            cache[key] = statistics.median(d) if d else 0.0
        return cache[key]

    return off


def age_years(r, release, dash):
    # The CV output cuts long model names (qwen3.5-397b-a17): match by prefix.
    rel = next((v for k, v in release.items() if k.startswith(r.model)), None)
    if rel is None:
        return None
    d = r.date or dash
    return (datetime.date.fromisoformat(d) - datetime.date.fromisoformat(rel)).days / 365.0


def age_offset(rows, release, dash):
    """Least squares of log(sim / published) on the age in years, over the frontier rows of the
    other model x GPU groups; the held-out row gets the line's value at its age."""
    fr = [(r, age_years(r, release, dash)) for r in rows if r.kind == "frontier"]
    fr = [(r, a) for r, a in fr if a is not None]
    cache = {}

    def off(r):
        a0 = age_years(r, release, dash)
        if a0 is None or r.kind != "frontier":
            return 0.0
        key = (r.model, r.gpu)
        if key not in cache:
            tr = [(a, x.logr) for x, a in fr if (x.model, x.gpu) != key]
            mx = statistics.mean(a for a, _ in tr)
            my = statistics.mean(y for _, y in tr)
            sxx = sum((a - mx) ** 2 for a, _ in tr)
            b = sum((a - mx) * (y - my) for a, y in tr) / sxx if sxx > 0 else 0.0
            cache[key] = (my - b * mx, b)
        a, b = cache[key]
        return a + b * a0

    return off


def spearman(pairs):
    """Spearman's rank correlation of (x, y) pairs; ties take their mean rank."""

    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2.0
            i = j + 1
        return r

    if len(pairs) < 2:
        return float("nan")
    rx = ranks([x for x, _ in pairs])
    ry = ranks([y for _, y in pairs])
    mx, my = statistics.mean(rx), statistics.mean(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cv_output")
    ap.add_argument("--points", default="tests/data/sim/points.tsv")
    ap.add_argument("--shifts", type=int, default=12, metavar="N",
                    help="random re-datings of the age check (default 12; 0: none)")
    a = ap.parse_args()
    rows = read_cv(a.cv_output, read_points(a.points))
    nf = sum(r.kind == "frontier" for r in rows)
    nm = sum(r.kind == "measured" for r in rows)
    curves = collections.defaultdict(list)
    for r in rows:
        if r.kind == "frontier":
            curves[r.curve].append(r.logr)
    cmed = {k: statistics.median(v) for k, v in curves.items()}
    factor = statistics.median(math.exp(abs(v)) for v in cmed.values())

    print("frontier rows %d in %d published curves, measured rows %d" % (nf, len(curves), nm))
    print("%-62s %9s %9s" % ("offset predicted from", "frontier", "measured"))

    def lines(name, off, measured):
        """The predictor `off` at half and at the whole of its value; `measured`: whether it
        corrects measured rows too (else their median is the run's)."""
        for s, w in ((0.5, "half"), (1.0, "whole")):
            m = "%8.1f%%" % median_ape(rows, "measured", off, s) if measured else "   (same)"
            print("%-62s %8.1f%% %s" % (name + ", " + w, median_ape(rows, "frontier", off, s), m))

    print("%-62s %8.1f%% %8.1f%%" % ("none (the run itself)", median_ape(rows, "frontier"),
                                     median_ape(rows, "measured")))
    print("%-62s %8.1f%% %9s" % ("each curve's own median offset (oracle; median factor %.2f)"
                                 % factor, median_ape(rows, "frontier", lambda r: cmed[r.curve]),
                                 "-"))
    both = ("frontier", "measured")
    preds = [
        ("the same model on other GPUs", both, lambda k, r: k[0] == r.model),
        ("the same model and framework on other GPUs, frontier rows", ("frontier",),
         lambda k, r: k[0] == r.model and k[2] == r.fw),
        ("other models on the same GPU and framework", both,
         lambda k, r: k[0] != r.model and k[1] == r.gpu and k[2] == r.fw),
        ("other models on the same GPU", both, lambda k, r: k[0] != r.model and k[1] == r.gpu),
        ("other models on the same framework, any GPU", both,
         lambda k, r: k[0] != r.model and k[2] == r.fw),
    ]
    for name, kinds, same in preds:
        lines(name, donor_offset(rows, kinds, same), "measured" in kinds)
    aged = [(age_years(r, RELEASE, DASHBOARD_DATE), r.logr) for r in rows if r.kind == "frontier"]
    aged = [(x, y) for x, y in aged if x is not None]
    print("rank correlation (Spearman) of the frontier rows' log(sim / published) with the "
          "model's age: %+.2f (%d rows)" % (spearman(aged), len(aged)))
    lines("the model's age at the build's date", age_offset(rows, RELEASE, DASHBOARD_DATE), False)
    if a.shifts > 0:
        rnd = random.Random(1)
        got = []
        for _ in range(a.shifts):
            rel = {k: (datetime.date.fromisoformat(v)
                       + datetime.timedelta(days=rnd.randint(-60, 60))).isoformat()
                   for k, v in RELEASE.items()}
            dash = rnd.choice(DASHBOARD_DATES)
            o = age_offset(rows, rel, dash)
            got += [median_ape(rows, "frontier", o, s) for s in (0.5, 1.0)]
        print("the age check re-dated %d times (half and whole): frontier median %.1f..%.1f%%"
              % (a.shifts, min(got), max(got)))


if __name__ == "__main__":
    main()
