#!/usr/bin/env bash
# peak_memory.sh FILE.csv LAMBDA ETA [WORKERS]: issue 21's memory line. It
# runs the paper's learner on one file of binary samples in one process
# (`pairwise learn -quiet -lambda L -eta E`, all CPUs unless WORKERS is
# given) under /usr/bin/time, and prints the CPU and wall seconds, the
# peak resident set of the learner's process, and that peak over the
# packed samples, n·N bits. With FILE.truth.json beside the file (the
# study's `regular` command writes one) it also prints the edges found,
# missed and false against the truth.
#
#   bash scripts/peak_memory.sh /tmp/scaling/reg5000-100000.csv 1.90856 0.200071
#
# Run it outside CI: at n = 5,000 and N = 10^5 (a 1.25 GB file) the fit
# takes about an hour of CPU on this machine.
set -euo pipefail
file=$1 lambda=$2 eta=$3 workers=${4:-}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root/cmd/pairwise" && go build -o "$tmp/pairwise" .)
args=(learn -quiet -lambda "$lambda" -eta "$eta" -o "$tmp/edges.csv")
[ -n "$workers" ] && args+=(-workers "$workers")
/usr/bin/time -f "%U %S %e %M" -o "$tmp/time.txt" "$tmp/pairwise" "${args[@]}" "$file"
read -r user sys wall rss < "$tmp/time.txt"
# n from the first line, N from the lines (less a header of names).
n=$(head -1 "$file" | awk -F, '{print NF}')
rows=$(wc -l < "$file")
head -1 "$file" | grep -q '^[-+0-9.]*,' || rows=$((rows - 1))
python3 - "$user" "$sys" "$wall" "$rss" "$n" "$rows" <<'EOF'
import sys
user, sys_, wall, rss, n, rows = sys.argv[1:]
packed = int(n) * int(rows) / 8 / 1e6
peak = int(rss) * 1024 / 1e6
print(f"n = {n}, N = {rows}: CPU {float(user) + float(sys_):.1f} s, wall {float(wall):.1f} s, "
      f"peak RSS {peak:.1f} MB, packed samples {packed:.1f} MB, ratio {peak / packed:.2f}")
EOF
truth=${file%.csv}.truth.json
if [ -s "$truth" ]; then
  read -r found missed false < <(python3 "$root/scripts/recovery.py" "$truth" "$tmp/edges.csv")
  echo "edges: $found found, $missed missed, $false false"
fi
