#!/usr/bin/env bash
# benchpair.sh OLD.test NEW.test [ROUNDS [CASE...]]: the CPU seconds (user +
# system) a benchmark iteration costs in two test binaries of this package (built with
# `go test -c`, for example from two commits), run alternately, ROUNDS times
# (default 3), one process per benchmark case with a fixed iteration count,
# so that the ratio new/old of each case comes from interleaved runs.
# CPU time, not wall time: on a shared machine it moves much less with the
# load. Prints one line a run; scripts/benchpair_table.py summarises them.
# Each CASE, when given, is "PATTERN ITERATIONS" and replaces the list below:
#
#   bash scripts/benchpair.sh /tmp/old.test /tmp/new.test 4 'Selection/^potts$/^k=4$/^cv$/ 2'
#
#   git worktree add /tmp/base <commit> && (cd /tmp/base && go test -c -o /tmp/old.test .)
#   go test -c -o /tmp/new.test .
#   bash scripts/benchpair.sh /tmp/old.test /tmp/new.test 3 > pair.txt
#   python3 scripts/benchpair_table.py pair.txt
set -euo pipefail
old=$1 new=$2 rounds=${3:-3}
shift $(($# < 3 ? $# : 3))
# benchmark (anchored sub-benchmark pattern) and iterations a run: about
# 2 to 10 CPU seconds a run on a 2-core machine.
cases=(
  "Selection/^diamond$/^n=10$/^oracle$/ 400"
  "Selection/^diamond$/^n=10$/^edge-test$/ 150"
  "Selection/^diamond$/^n=10$/^ebic$/ 150"
  "Selection/^diamond$/^n=10$/^cv$/ 30"
  "Selection/^diamond$/^n=10$/^default$/ 100"
  "Selection/^grid$/^n=49$/^oracle$/ 8"
  "Selection/^grid$/^n=49$/^edge-test$/ 3"
  "Selection/^grid$/^n=49$/^ebic$/ 3"
  "Selection/^grid$/^n=49$/^cv$/ 2"
  "Selection/^grid$/^n=49$/^default$/ 2"
  "Selection/^potts$/^k=4$/^oracle$/ 12"
  "Selection/^potts$/^k=4$/^edge-test$/ 4"
  "Selection/^potts$/^k=4$/^ebic$/ 3"
  "Selection/^potts$/^k=4$/^cv$/ 2"
  "Selection/^potts$/^k=4$/^default$/ 2"
  "LearnIsing/^grid=7x7$/^n=49$/^N=10000$/^workers=1$ 5"
  "LearnIsing/^grid=10x10$/^n=100$/^N=1000$/^workers=1$ 5"
  "LearnPairwise/^grid=3x3$/^k=4$/^N=10000$/^workers=1$ 12"
  "LearnPairwise/^grid=3x3$/^k=6$/^N=50000$/^workers=1$ 2"
  "LearnPairwise/^grid=5x5$/^k=4$/^N=10000$/^workers=1$ 2"
)
if [ $# -gt 0 ]; then
  cases=("$@")
fi
for r in $(seq "$rounds"); do
  for c in "${cases[@]}"; do
    set -- $c
    for which in old new; do
      bin=$old; [ "$which" = new ] && bin=$new
      t=$( { /usr/bin/time -f "%U %S" "$bin" -test.run '^$' -test.bench "$1" -test.benchtime "${2}x" -test.count 1 >/dev/null; } 2>&1 | tail -1)
      echo "$r $which $1 $2 $t"
    done
  done
done
