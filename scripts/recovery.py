"""recovery.py TRUTH.json EDGES.csv: prints the edges found, missed and
false of a learned edge list (`pairwise learn`'s CSV, names v1, v2, ...)
against the truth file of the study's `regular` command. Used by
scaling_n.sh and peak_memory.sh."""
import csv
import json
import sys

truth = json.load(open(sys.argv[1]))
want = {tuple(sorted(e[:2])) for e in truth["edges"]}
got = set()
for row in csv.DictReader(open(sys.argv[2])):
    a, b = int(row["source"][1:]) - 1, int(row["target"][1:]) - 1
    got.add(tuple(sorted((a, b))))
print(len(got), len(want - got), len(got - want))
