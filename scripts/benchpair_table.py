"""Summarise scripts/benchpair.sh output: per benchmark case, the median CPU
seconds an iteration of each binary over the rounds, their ratio new/old,
and the geometric mean of the ratios. Standard library only."""
import collections
import math
import statistics
import sys

runs = collections.defaultdict(lambda: collections.defaultdict(list))
for path in sys.argv[1:]:
    for line in open(path):
        f = line.split()
        if len(f) != 6:
            continue
        _, which, case, iters, user, system = f
        runs[case][which].append((float(user) + float(system)) / int(iters))
ratios = []
print("| benchmark | old CPU ms/op | new CPU ms/op | new/old | runs |")
print("|---|---|---|---|---|")
for case, v in runs.items():
    if not v["old"] or not v["new"]:
        continue
    o, n = statistics.median(v["old"]), statistics.median(v["new"])
    ratios.append(n / o)
    name = case.replace("^", "").replace("$", "").rstrip("/")
    print(f"| {name} | {o*1e3:.1f} | {n*1e3:.1f} | {n/o:.2f} | {len(v['old'])} |")
if ratios:
    g = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"\ngeometric mean of new/old over {len(ratios)} cases: {g:.3f}")
