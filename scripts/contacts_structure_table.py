#!/usr/bin/env python3
"""Markdown table of scripts/contacts_structure.sh results (docs/contacts).

    python3 scripts/contacts_structure_table.py WORK/results.tsv [MORE/results.tsv ...]

Reads the lines "FAMILY.RUN<TAB>wall=..<TAB>cpu=..<TAB>peakMB=.." and the
precision lines "FAMILY.RUN.csv|.ec<TAB>P(L/5)<TAB>P(L/2)<TAB>P(L)" of every
file given (later files add runs or replace earlier ones), and prints one
row per family and run, then the mean precision of each run over the
families where every run was measured.
"""
import sys

CHOICE = "1guu PF00014 DHFR PF00076 PF00085 PF00581 PF00550 PF00041".split()
REPORT = "1atz PF00072 PF00582 PF00691 PF00486 PF00226 PF01627 PF00364".split()
HELDOUT = ("PF00013 PF00018 PF00111 PF00168 PF00169 PF00179 PF00240 PF00249 PF00254 PF00313 "
           "PF00327 PF00355 PF00381 PF00439 PF00498 PF00542 PF00708 PF01029 PF01035 PF01451 "
           "PF01833 PF02823 PF04002 PF07679 PF07686 PF08666 PF12844").split()
# The long set: shallow draws of PF13354 (L = 202), its halves longA (where
# changes are chosen) and longB (where the chosen one is reported).
LONGA = "PF13354-d800s1 PF13354-d600s3 PF13354-d437s5".split()
LONGB = "PF13354-d700s2 PF13354-d500s4 PF13354-d400s6".split()
# S1A, the second long family (L = 223), found after the long set's
# protocol: its draws and the whole family.
S1A = "S1A-d437s3 S1A-d437s4 S1A-d437s5 S1A-d600s6 S1A-d706s2 S1A-d800s1 S1A".split()
SETS = (("choice", CHOICE), ("report", REPORT), ("heldout", HELDOUT),
        ("longA", LONGA), ("longB", LONGB), ("long", LONGA + LONGB), ("S1A", S1A))


def main(paths):
    time, prec = {}, {}
    for path in paths:
        for line in open(path):
            f = line.rstrip("\n").split("\t")
            if len(f) == 4 and f[1].startswith("wall="):
                time[f[0]] = [x.split("=")[1] for x in f[1:]]
            elif len(f) == 4 and (f[0].endswith(".csv") or f[0].endswith(".ec")):
                name = f[0].rsplit("/", 1)[-1].rsplit(".", 1)[0]
                prec[name] = [float(x) for x in f[1:]]
    runs = []
    for key in list(time) + list(prec):
        run = key.split(".", 1)[1]
        if run not in runs:
            runs.append(run)
    print("| set | family | run | top L/5 | top L/2 | top L | wall s | CPU s | peak MB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, fams in SETS:
        if label == "long":  # its rows are longA's and longB's
            continue
        for fam in fams:
            for r in runs:
                key = f"{fam}.{r}"
                if key not in prec and key not in time:
                    continue
                p = prec.get(key)
                t = time.get(key, ["", "", ""])
                ps = [f"{x:.3f}" for x in p] if p else ["", "", ""]
                print(f"| {label} | {fam} | {r} | " + " | ".join(ps + t) + " |")
    # Each run's mean beside plmc's over the families where both ran, and
    # the families where the run is at least plmc's at top L.
    for label, fams in SETS:
        for r in runs:
            if r == "plmc":
                continue
            both = [f for f in fams if f"{f}.{r}" in prec and f"{f}.plmc" in prec]
            if not both:
                continue
            mr = [sum(prec[f"{f}.{r}"][x] for f in both) / len(both) for x in range(3)]
            mp = [sum(prec[f"{f}.plmc"][x] for f in both) / len(both) for x in range(3)]
            ge = sum(prec[f"{f}.{r}"][2] >= prec[f"{f}.plmc"][2] for f in both)
            print(f"| {label} | mean of {len(both)} | {r} | " + " | ".join(f"{x:.3f}" for x in mr)
                  + f" | plmc: " + ", ".join(f"{x:.3f}" for x in mp) + f" | top L ≥ plmc on {ge} of {len(both)} | |")


if __name__ == "__main__":
    main(sys.argv[1:])
