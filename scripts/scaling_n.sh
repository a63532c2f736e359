#!/usr/bin/env bash
# scaling_n.sh DIR [ROUNDS [N_ROWS [n...]]]: issue 21's study of time against
# the number of variables n at a fixed number of rows and degree. For each
# n it writes (once, into DIR) Gibbs samples of the study's random
# 4-regular Ising model (`study regular`), then times the paper's learner
# with the true λ and η, one worker (`pairwise learn -quiet -workers 1
# -lambda L -eta E`), ROUNDS times (default 3), the sizes interleaved
# round by round so that a slow minute of a shared machine falls on all of
# them. It prints one line a run (n, CPU seconds user + system, wall
# seconds, peak RSS in kB, edges found, edges missed, edges false) and, at
# the end, the median CPU seconds a size, a node, and the least-squares
# exponent of time against n over the sizes from 500 to 5,000.
#
#   bash scripts/scaling_n.sh /tmp/scaling 3 10000 500 1000 2000 5000
#
# The data take 12.5·n·N bytes of CSV each (1.25 GB at n = 5,000,
# N = 10^5). Run it outside CI: n = 5,000 at N = 10^4 takes about four
# minutes of CPU a round on this machine.
set -euo pipefail
dir=$1 rounds=${2:-3} rows=${3:-10000}
shift $(($# < 3 ? $# : 3))
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(500 1000 2000 5000)
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd) # the command is built from its own module's folder
bin=$dir/pairwise
(cd "$root/cmd/pairwise" && go build -o "$bin" .)
declare -A lam eta
for n in "${sizes[@]}"; do
  base=$dir/reg$n-$rows
  if [ ! -s "$base.csv" ] || [ ! -s "$base.params" ]; then
    (cd "$root/study" && go run . regular -n "$n" -N "$rows" -out "$base") | tee "$base.params" >&2
  fi
  lam[$n]=$(sed -n 's/.*lambda = \([0-9.e+-]*\),.*/\1/p' "$base.params")
  eta[$n]=$(sed -n 's/.*eta = \([0-9.e+-]*\)$/\1/p' "$base.params")
done
out=$dir/runs-$rows.txt
: > "$out"
for r in $(seq "$rounds"); do
  for n in "${sizes[@]}"; do
    base=$dir/reg$n-$rows
    /usr/bin/time -f "%U %S %e %M" -o "$dir/time.txt" "$bin" learn -quiet -workers 1 \
      -lambda "${lam[$n]}" -eta "${eta[$n]}" -o "$dir/edges.csv" "$base.csv"
    read -r user sys wall rss < "$dir/time.txt"
    # Found, missed and false edges against the truth's edge list.
    check=$(python3 "$root/scripts/recovery.py" "$base.truth.json" "$dir/edges.csv")
    echo "$n $(echo "$user + $sys" | bc) $wall $rss $check" | tee -a "$out"
  done
done
python3 - "$out" <<'EOF'
import math, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    f = line.split()
    runs.setdefault(int(f[0]), []).append(float(f[1]))
print("n  median CPU s  per node ms  runs")
pts = []
for n in sorted(runs):
    t = statistics.median(runs[n])
    print(f"{n} {t:.2f} {1000 * t / n:.1f} {' '.join(f'{x:.2f}' for x in runs[n])}")
    if 500 <= n <= 5000:
        pts.append((math.log(n), math.log(t)))
if len(pts) >= 2:
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    b = sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)
    lo, hi = min(pts), max(pts)
    print(f"exponent, least squares over n = 500..5000: {b:.3f}; end to end: {(hi[1] - lo[1]) / (hi[0] - lo[0]):.3f}")
EOF
