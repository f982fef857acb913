#!/usr/bin/env python3
"""Reads the thresholds Hartl (2006) reads off his study figures from an
`nsdyn sweep` database of configs/sweep_tumbleweed_study<N>.toml, and prints
heat tables over (b, e). docs/tumbleweed.md defines each threshold.

Usage: tumbleweed_thresholds.py DB [--b B] [--k K] [--shallow | --deep]

--shallow (studies I, II; default when the runs cross more than they stop):
  per (b, k): P(e) = percent of the speeds that crossed (Sec. 5.1's
  "percentage crossed");
  e80   = smallest e on the grid with P(e') >= 80 for it and every larger e'
          (Case Studies I, II: "crosses the valley 80 percent of the time");
  ecrit = smallest e such that P over [e, 1] stays within a band 4 points
          wide (Sec. 5.1: "increases monotonically ... before leveling
          off"; 4 points is two speeds of 51).
--deep (studies III, IV): per (b, k): H(e) = mean height on the incline
  relative to the rim [m] over the speeds, S(e) its standard deviation;
  e15   = smallest e with H(e') > -15 m for it and every larger e';
  e15s  = the same with H - S > -15 m (Sec. 6.3: "the average height and
          its corresponding error bars are above -15 m");
  ecrit = smallest e such that H over [e, 1] stays within a band 10 % of
          Hmax - Hmin wide (Sec. 5.2: "where the average height stops to
          strictly increase", region III).
Runs whose status is not ok are left out and counted; so are runs with a
sample of the gap below -1e-6 m (a missed impact, docs/tumbleweed.md)."""
import argparse
import math
import sqlite3
import sys


def tail_from(es, ok):
    """Smallest e such that ok(e') holds for it and every larger e'."""
    best = None
    for e in sorted(es, reverse=True):
        if not ok(e):
            break
        best = e
    return best


def plateau(es, val, width):
    """Smallest e such that val over [e, 1] stays within a band of this width."""
    best, lo, hi = None, math.inf, -math.inf
    for e in sorted(es, reverse=True):
        lo, hi = min(lo, val[e]), max(hi, val[e])
        if hi - lo > width:
            break
        best = e
    return best


def fmt(e):
    return "none" if e is None else f"{e:.2f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--b", type=float, action="append")
    ap.add_argument("--k", type=float, action="append")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--shallow", action="store_true")
    g.add_argument("--deep", action="store_true")
    ap.add_argument("--tables", action="store_true", help="print heat tables over (b, e)")
    ap.add_argument("--where", default="1", help="an SQL condition on the runs (other axes)")
    a = ap.parse_args()
    con = sqlite3.connect(a.db)
    cols = [r[1] for r in con.execute("pragma table_info(runs)")]
    bk = ("b" if "b" in cols else "0") + ", " + ("k" if "k" in cols else "0")
    n_all, n_bad = con.execute(
        f"select count(*), sum(status != 'ok' or gap_min < -1e-6) from runs where {a.where}").fetchone()
    rows = con.execute(f"select {bk}, round(e, 2), crossed, height from runs "
                       f"where status = 'ok' and gap_min >= -1e-6 and {a.where}").fetchall()
    deep = a.deep or (not a.shallow and sum(r[3] for r in rows) < 0.5 * len(rows))
    cell = {}
    for b, k, e, crossed, h in rows:
        cell.setdefault((b, k), {}).setdefault(e, []).append((crossed, h))
    print(f"# {a.db} [{a.where}]: {n_all} runs, {n_bad} left out (failed or a missed impact); "
          f"{'deep: heights' if deep else 'shallow: percentage crossed'}")
    bs = a.b or sorted({b for b, _ in cell})
    ks = a.k or sorted({k for _, k in cell})
    for b in bs:
        for k in ks:
            by_e = cell.get((b, k))
            if not by_e:
                continue
            es = sorted(by_e)
            if not deep:
                P = {e: 100.0 * sum(c for c, _ in by_e[e]) / len(by_e[e]) for e in es}
                pmax = max(P.values())
                e80 = tail_from(es, lambda e: P[e] >= 80.0)
                ecrit = plateau(es, P, 4.0)
                print(f"b={b:g} k={k:g}: P(0.60)={P[es[0]]:.1f} P(1.00)={P[es[-1]]:.1f} "
                      f"max={pmax:.1f}  e80={fmt(e80)}  ecrit={fmt(ecrit)}")
            else:
                H, S = {}, {}
                for e in es:
                    hs = [h for _, h in by_e[e] if h is not None and not math.isnan(h)]
                    m = sum(hs) / len(hs)
                    H[e] = m
                    S[e] = math.sqrt(sum((h - m) ** 2 for h in hs) / max(1, len(hs) - 1))
                hmax, hmin = max(H.values()), min(H.values())
                e15 = tail_from(es, lambda e: H[e] > -15.0)
                e15s = tail_from(es, lambda e: H[e] - S[e] > -15.0)
                ecrit = plateau(es, H, 0.1 * (hmax - hmin))
                print(f"b={b:g} k={k:g}: H(0.60)={H[es[0]]:.2f}+-{S[es[0]]:.2f} "
                      f"H(1.00)={H[es[-1]]:.2f}+-{S[es[-1]]:.2f} m  e15={fmt(e15)} "
                      f"e15s={fmt(e15s)}  ecrit={fmt(ecrit)}")
    if a.tables:
        heat(con, deep)


def heat(con, deep):
    """Markdown heat table over (b, e), every 0.05 in e, over k and speed."""
    col = "avg(height)" if deep else "100.0 * avg(crossed)"
    q = (f"select b, round(e, 2), {col} from runs where status = 'ok' and "
         "gap_min >= -1e-6 group by b, round(e, 2)")
    t = {}
    for b, e, v in con.execute(q):
        t[(b, e)] = v
    es = [round(0.6 + 0.05 * i, 2) for i in range(9)]
    print("\n| b [m] | " + " | ".join(f"e={e:.2f}" for e in es) + " |")
    print("|---" * (len(es) + 1) + "|")
    for b in sorted({b for b, _ in t}):
        vals = [t.get((b, e)) for e in es]
        print(f"| {b:g} | " + " | ".join("-" if v is None else f"{v:.1f}" for v in vals) + " |")


if __name__ == "__main__":
    sys.exit(main())
