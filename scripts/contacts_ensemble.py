#!/usr/bin/env python3
"""Combine the contact scores of several runs on one family (docs/contacts,
"Ensembles of scores, measured"; issue 32).

    python3 scripts/contacts_ensemble.py [-rule z|rank] [-min-sep 6] -o OUT.csv A.csv B.csv ...

Each input is a score file as `pairwise contacts -o` writes it (header
i,j,score; columns named as the command names them, e.g. col12), all over
the same pairs. OUT gets the same format, pairs ranked by the combined
score (highest first; ties by the first input's order). Separation is read
from the number in the column names, as `study structprec score` reads it.

Rules (both fixed before any ensemble's precision was seen):
  z     each run's scores minus their mean over the pairs at separation >=
        min-sep, divided by their standard deviation over those pairs; then
        the mean over the runs, pair by pair. (The scores are APC-corrected:
        their mean at separation >= 6 is near zero and negative, so a
        division by the mean alone, without centring, would reverse a run.)
  rank  each run's score of a pair replaced by the share of that run's pairs
        at separation >= min-sep scored lower than it (ties count half);
        then the mean over the runs.
Pairs below min-sep get a combined score by the same rule (against the
same reference pairs), so the file stays complete; the benchmark ignores
them.
"""
import bisect
import math
import re
import sys


def col(name):
    m = re.search(r"-?\d+$", name)
    if not m:
        raise ValueError(f"column name {name!r} has no number")
    return int(m.group())


def read(path):
    """Returns the ordered list of (i, j) and a dict (i, j) -> score."""
    order, score = [], {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            t = line.strip()
            if not t or (n == 1 and t.startswith("i,j")):
                continue
            p = t.split(",")
            if len(p) != 3:
                raise ValueError(f"{path}:{n}: want i,j,score")
            key = (p[0], p[1]) if col(p[0]) <= col(p[1]) else (p[1], p[0])
            if key in score:
                raise ValueError(f"{path}:{n}: pair {key} twice")
            s = float(p[2])
            if math.isnan(s):
                raise ValueError(f"{path}:{n}: NaN score")
            order.append(key)
            score[key] = s
    if not score:
        raise ValueError(f"{path}: no pairs")
    return order, score


def far(key, min_sep):
    return abs(col(key[1]) - col(key[0])) >= min_sep


def zscores(score, min_sep):
    ref = [s for k, s in score.items() if far(k, min_sep)]
    if len(ref) < 2:
        raise ValueError("fewer than two pairs at the separation")
    m = sum(ref) / len(ref)
    sd = math.sqrt(sum((s - m) ** 2 for s in ref) / len(ref))
    if sd == 0:
        raise ValueError("all scores at the separation are equal")
    return {k: (s - m) / sd for k, s in score.items()}


def ranks(score, min_sep):
    ref = sorted(s for k, s in score.items() if far(k, min_sep))
    if not ref:
        raise ValueError("no pair at the separation")
    n = len(ref)
    out = {}
    for k, s in score.items():
        lo = bisect.bisect_left(ref, s)
        hi = bisect.bisect_right(ref, s)
        out[k] = (lo + 0.5 * (hi - lo)) / n
    return out


def combine(paths, rule="z", min_sep=6):
    """Returns [(i, j, combined score)] ranked highest first."""
    if not paths:
        raise ValueError("want at least one score file")
    norm = {"z": zscores, "rank": ranks}[rule]
    first, total = None, None
    for path in paths:
        order, score = read(path)
        if first is None:
            first = order
            total = dict.fromkeys(score, 0.0)
        elif set(score) != set(total):
            raise ValueError(f"{path}: not the same pairs as {paths[0]}")
        for k, v in norm(score, min_sep).items():
            total[k] += v / len(paths)
    pos = {k: n for n, k in enumerate(first)}
    return sorted(((k[0], k[1], total[k]) for k in first), key=lambda r: (-r[2], pos[(r[0], r[1])]))


def main(argv):
    rule, min_sep, out, paths = "z", 6, None, []
    it = iter(argv)
    for a in it:
        if a == "-rule":
            rule = next(it)
        elif a == "-min-sep":
            min_sep = int(next(it))
        elif a == "-o":
            out = next(it)
        elif a.startswith("-"):
            raise SystemExit(f"unknown flag {a}\n{__doc__}")
        else:
            paths.append(a)
    if rule not in ("z", "rank") or out is None or not paths:
        raise SystemExit(__doc__)
    rows = combine(paths, rule, min_sep)
    with open(out, "w") as f:
        f.write("i,j,score\n")
        for i, j, s in rows:
            f.write(f"{i},{j},{s:.9g}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
