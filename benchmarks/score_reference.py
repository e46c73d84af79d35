"""The limit ``voxeval score`` is measured against: the same two metrics and the same rows in plain Python.

``python benchmarks/score_reference.py GOLD PRED OUT_JSONL``. No validation, no lenient labels, predictions in
gold order assumed (the benchmark's files are): a floor on what a careful script costs, not a replacement.
"""

import json
import math
import sys


def norm(steps):
    total = math.fsum(s["importance"] for s in steps)
    return [(s["act"], s["importance"] / total if total else 1 / len(steps)) for s in steps]


def wlcs(g, p):
    best = [0.0] * (len(p) + 1)
    for ga, _ in g:
        diag = 0.0
        for j, (pa, pw) in enumerate(p, 1):
            above = best[j]
            best[j] = max(above, best[j - 1], diag + pw if ga == pa else 0.0)
            diag = above
    return best[-1]


def wed(p, g):
    d = [[0.0] * (len(g) + 1) for _ in range(len(p) + 1)]
    for j in range(1, len(g) + 1):
        d[0][j] = d[0][j - 1] + g[j - 1][1]
    for i in range(1, len(p) + 1):
        d[i][0] = d[i - 1][0] + p[i - 1][1]
        for j in range(1, len(g) + 1):
            sub = 0.0 if p[i - 1][0] == g[j - 1][0] else (p[i - 1][1] + g[j - 1][1]) / 2.0
            d[i][j] = min(d[i - 1][j - 1] + sub, d[i - 1][j] + p[i - 1][1], d[i][j - 1] + g[j - 1][1])
    ops, i, j = [], len(p), len(g)
    while i or j:
        sub = (0.0 if p[i - 1][0] == g[j - 1][0] else (p[i - 1][1] + g[j - 1][1]) / 2.0) if i and j else 0.0
        if i and j and abs(d[i - 1][j - 1] + sub - d[i][j]) <= 1e-12:
            ops.append(
                {
                    "op": "match" if p[i - 1][0] == g[j - 1][0] else "substitution",
                    "pred": i - 1,
                    "gold": j - 1,
                    "cost": sub,
                }
            )
            i, j = i - 1, j - 1
        elif i and (not j or abs(d[i - 1][j] + p[i - 1][1] - d[i][j]) <= 1e-12):
            ops.append({"op": "deletion", "pred": i - 1, "gold": None, "cost": p[i - 1][1]})
            i -= 1
        else:
            ops.append({"op": "insertion", "pred": None, "gold": j - 1, "cost": g[j - 1][1]})
            j -= 1
    sums = {k: math.fsum(o["cost"] for o in ops if o["op"] == k) for k in ("deletion", "insertion", "substitution")}
    return sums, ops[::-1]


def main(gold_path, pred_path, out_path):
    with open(gold_path, encoding="utf-8") as f:
        gold = {str(r["id"]): norm(r["output_dialogue_acts"]["steps"]) for r in map(json.loads, f)}
    with open(pred_path, encoding="utf-8") as f, open(out_path, "w", encoding="utf-8") as out:
        for row in map(json.loads, f):
            g, p = gold[str(row["id"])], norm(row["steps"])
            sums, ops = wed(p, g)
            total = sums["deletion"] + sums["insertion"] + sums["substitution"]
            scores = {"id": str(row["id"]), "wlcs": wlcs(g, p), "wed": total, **sums, "ops": ops}
            out.write(json.dumps({**scores, "missing_prediction": False}, ensure_ascii=False, separators=(",", ":")))
            out.write("\n")


if __name__ == "__main__":
    main(*sys.argv[1:4])
