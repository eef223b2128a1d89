#!/usr/bin/env python3
"""Timing fidelity: a client's measured TTFT and ITL against the simulator's
own record of when each chunk left (`infbench sim --trace FILE`).

Usage: fidelity.py TRACE RESULT_JSON [--itl-ms 20]

RESULT_JSON is a result saved with --save-detailed (per-request `ttfts` and
`itls`, in prompt order). infbench's client names each request in an
X-Request-Id header (infbench-<index>), which the trace keeps, so every
client gap is paired with the server's gap for the same two chunks. A client
that sends no such id (the reference) is compared by distribution only.

Prints one `key=value` line per figure (seconds are printed in ms):
  client_itl_mean, server_itl_mean, itl_mean_error_pct (vs --itl-ms)
  itl_err_p50/p99/max: |client gap - server gap| over paired gaps
  ttft_err_mean/p99: client TTFT - server TTFT (received -> first sent);
  the client's includes connect and upload, the server's does not
  paired, unpaired: requests matched by id, and those that were not
Standard library only.
"""
import json
import sys


def pct(sorted_v, p):
    """numpy's linear-interpolation percentile of a sorted list"""
    if not sorted_v:
        return float("nan")
    k = (len(sorted_v) - 1) * p / 100.0
    lo = int(k)
    hi = min(lo + 1, len(sorted_v) - 1)
    return sorted_v[lo] + (sorted_v[hi] - sorted_v[lo]) * (k - lo)


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) > 1 and argv[1] in ("-h", "--help") else 2
    itl_ms = 20.0
    if "--itl-ms" in argv:
        itl_ms = float(argv[argv.index("--itl-ms") + 1])
    trace = {}
    server_gaps = []
    with open(argv[1], encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            try:
                r = json.loads(line)
            except ValueError as e:
                print(f"fidelity.py: {argv[1]}:{n}: {e}", file=sys.stderr)
                return 1
            sent = r["sent_ns"]
            trace[r["id"]] = r
            server_gaps += [(b - a) / 1e6 for a, b in zip(sent, sent[1:])]
    with open(argv[2], encoding="utf-8") as f:
        res = json.load(f)
    if "itls" not in res:
        print(f"fidelity.py: {argv[2]}: no 'itls' (run the client with --save-detailed)",
              file=sys.stderr)
        return 1
    client_gaps = [g * 1e3 for gaps in res["itls"] for g in gaps]
    errs, ttft_errs = [], []
    paired = unpaired = 0
    for i, (gaps, ttft) in enumerate(zip(res["itls"], res["ttfts"])):
        r = trace.get(f"infbench-{i}")
        sent = r["sent_ns"] if r else []
        if not r or len(sent) != len(gaps) + 1:
            unpaired += 1
            continue
        paired += 1
        for k, g in enumerate(gaps):
            errs.append(abs(g * 1e3 - (sent[k + 1] - sent[k]) / 1e6))
        ttft_errs.append(ttft * 1e3 - (sent[0] - r["received_ns"]) / 1e6)
    errs.sort()
    ttft_errs.sort()
    cm = sum(client_gaps) / len(client_gaps) if client_gaps else float("nan")
    sm = sum(server_gaps) / len(server_gaps) if server_gaps else float("nan")
    client_gaps.sort()
    server_gaps.sort()
    out = {
        "client_itl_mean": cm,
        "server_itl_mean": sm,
        "itl_mean_error_pct": abs(cm - itl_ms) / itl_ms * 100,
        "client_itl_p99": pct(client_gaps, 99),
        "server_itl_p99": pct(server_gaps, 99),
        "itl_err_p50": pct(errs, 50),
        "itl_err_p99": pct(errs, 99),
        "itl_err_max": errs[-1] if errs else float("nan"),
        "ttft_err_mean": sum(ttft_errs) / len(ttft_errs) if ttft_errs else float("nan"),
        "ttft_err_p99": pct(ttft_errs, 99),
    }
    for k, v in out.items():
        print(f"{k}={v:.4f}")
    print(f"paired={paired}")
    print(f"unpaired={unpaired}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
