#!/usr/bin/env python3
"""Summarise the JSON lines of scripts/compare.sh: one table row per data
set family (model and N), method and thread count, with the median wall
time, the exact recoveries over the seeds, the median max weight error, and
for our lines the ratio of our median time to the fastest fixed-lambda
baseline's (over every baseline method and thread count of that family).
The baselines' exact_recovery is their headline rule (thr, AND over the two
nodes' estimates); ours is our default rule (average of the two estimates,
then the eta/2 threshold), and the column 'thr_and' gives ours under the
baselines' rule too."""
import json
import statistics
import sys
from collections import defaultdict

FIXED = {"glmnet_fixed", "sk_liblinear", "sk_saga", "glmnet_grp_fixed", "sk_mn_saga"}


def main(path):
    rows = defaultdict(list)
    for line in open(path):
        line = line.strip()
        if not line.startswith("{"):
            continue
        d = json.loads(line)
        fam = "%s N=%d" % (d["model"], d["N"])
        rows[(fam, d["method"], d["threads"])].append(d)
    fams = sorted({k[0] for k in rows})
    print("| data | method | threads | runs | median wall s | exact (headline rule) | exact (thr_and) | median max weight error | ours / fastest baseline |")
    print("|---|---|---|---|---|---|---|---|---|")
    for fam in fams:
        keys = sorted((k for k in rows if k[0] == fam), key=lambda k: (k[1] != "pairwise", k[1], k[2]))
        base = [statistics.median(r["wall_s"] for r in rows[k]) for k in keys if k[1] in FIXED]
        fastest = min(base) if base else None
        for k in keys:
            rs = rows[k]
            wall = statistics.median(r["wall_s"] for r in rs)
            exact = sum(bool(r["exact_recovery"]) for r in rs)
            thr = sum(bool(r["rules"]["thr_and"]["exact"]) for r in rs)
            err = statistics.median(r["max_abs_weight_error"] for r in rs)
            ratio = ""
            if k[1] == "pairwise" and fastest:
                ratio = "%.3f (%.1fx faster)" % (wall / fastest, fastest / wall)
            rule = "average" if k[1] == "pairwise" else "thr_and"
            print("| %s | %s | %d | %d | %.3f | %d/%d (%s) | %d/%d | %.4f | %s |" % (
                fam, k[1], k[2], len(rs), wall, exact, len(rs), rule, thr, len(rs), err, ratio))


if __name__ == "__main__":
    main(sys.argv[1])
