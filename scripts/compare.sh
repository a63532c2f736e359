#!/usr/bin/env bash
# Compare the learners of this repository with the baselines of
# ../shared/bench (glmnet and scikit-learn nodewise l1 logistic regression
# at a fixed λ) on the same data files, in one run, and print a table of
# median wall times, exact recoveries over the seeds and the ratio of our
# time to the fastest fixed-λ baseline. Not part of CI: it needs the Debian
# packages of ../shared/bench/README.md (python3-sklearn, r-cran-glmnet,
# r-cran-jsonlite) and takes about 10 minutes on 2 cores (one more to
# generate the data).
#
#   bash scripts/compare.sh                # everything, into a fresh temp dir
#   DATA_DIR=/tmp/bench/data bash scripts/compare.sh   # reuse generated data
#
# Environment: SHARED_BENCH (default ../shared/bench next to the repository),
# WORK (working dir, default mktemp -d), DATA_DIR (existing data to copy
# instead of generating), SEEDS (default 0..9), SAGA_SEEDS (seeds on which
# the slow saga solvers also run, default 0), PY (a python3 with sklearn).
# The raw JSON lines are in $WORK/compare.jsonl, the table on stdout.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED_BENCH:-$repo/../shared/bench}
work=${WORK:-$(mktemp -d)}
SEEDS=${SEEDS:-"0 1 2 3 4 5 6 7 8 9"}
SAGA_SEEDS=${SAGA_SEEDS:-"0"}
cp -r "$shared/." "$work"
cd "$work"
. ./pick_python.sh
mkdir -p data
if [ -n "${DATA_DIR:-}" ]; then
  cp "$DATA_DIR"/ising_grid10x10* "$DATA_DIR"/ising_grid7x7* "$DATA_DIR"/pw_grid3x3_k6* data/
else
  "$PY" gen.py ising_grid10x10 --N 10000 --seeds $SEEDS
  "$PY" gen.py pw_grid3x3_k6 --N 50000 --seeds $SEEDS
  "$PY" gen.py ising_grid7x7 --N 100000 --seeds 0
  "$PY" gen.py ising_grid10x10 --N 100000 --seeds 0
fi
# compare is a command of the study module (study/, its own go.mod).
(cd "$repo/study" && go build -o "$work/study-bin" .)
out=$work/compare.jsonl
: > "$out"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(getconf _NPROCESSORS_ONLN) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), work dir $work" >&2

is_saga() { case " $SAGA_SEEDS " in *" $1 "*) return 0;; esac; return 1; }

for s in $SEEDS; do
  f=data/ising_grid10x10_N10000_seed$s.csv t=data/ising_grid10x10.truth.json
  for j in 1 2; do
    ./study-bin compare -workers $j "$f" "$t" >> "$out"
    Rscript glmnet_ising.R "$f" "$t" --methods fixed --jobs $j >> "$out"
    "$PY" sk_ising.py "$f" "$t" --methods liblinear --jobs $j >> "$out"
  done
  if is_saga "$s"; then "$PY" sk_ising.py "$f" "$t" --methods saga >> "$out"; fi
  f=data/pw_grid3x3_k6_N50000_seed$s.csv t=data/pw_grid3x3_k6.truth.json
  for j in 1 2; do
    ./study-bin compare -workers $j "$f" "$t" >> "$out"
    Rscript glmnet_pairwise.R "$f" "$t" --methods fixed --jobs $j >> "$out"
  done
  if is_saga "$s"; then "$PY" sk_pairwise.py "$f" "$t" --methods saga >> "$out"; fi
  echo "seed $s done" >&2
done
for g in 7x7 10x10; do
  f=data/ising_grid${g}_N100000_seed0.csv t=data/ising_grid${g}.truth.json
  ./study-bin compare -workers 2 "$f" "$t" >> "$out"
  Rscript glmnet_ising.R "$f" "$t" --methods fixed --jobs 2 >> "$out"
done
echo "# finished $(date -u '+%H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
"$PY" "$repo/scripts/compare_table.py" "$out"
