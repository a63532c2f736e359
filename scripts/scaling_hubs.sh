#!/usr/bin/env bash
# scaling_hubs.sh DIR [N_ROWS [n...]]: issue 33's heavy-tailed graphs over
# sizes, beside the 4-regular ones of scaling_n.sh. For each n it writes
# (once, into DIR) Gibbs samples of a random 4-regular Ising model with
# n/200 hubs (at least 2), each joined to 20 to 50 more spins (`study
# regular -hubs`; |A_ij| ~ U[0.2, 0.5), random signs, seed 1), then runs
# the tuning-free default and the fit told the truth's λ and η, both with
# 2 workers (`pairwise learn -quiet -workers 2 [-lambda L -eta E]`), one
# after the other. It prints one line a run: n, hubs, edges of the truth,
# the run (default or fixed), CPU seconds (user + system), wall seconds,
# peak RSS in MB, edges reported, missed and false, and F1. RUNS (default
# "default fixed") names the runs; FIXED_MAX (default 2000) is the largest
# n at which the fixed fit runs.
#
#   bash scripts/scaling_hubs.sh /tmp/hubscale 10000 500 1000 2000 5000
#
# Run it outside CI: at n = 2,000 the fixed fit takes about 10 minutes of
# CPU (its one radius 2λ is set by the hubs), the default about 1.5.
set -euo pipefail
dir=$1 rows=${2:-10000}
shift $(($# < 2 ? $# : 2))
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(500 1000 2000)
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
bin=$dir/pairwise
(cd "$root/cmd/pairwise" && go build -o "$bin" .)
out=$dir/runs-$rows.txt
: > "$out"
for n in "${sizes[@]}"; do
  hubs=$((n / 200 < 2 ? 2 : n / 200))
  base=$dir/hub$n-$rows
  if [ ! -s "$base.csv" ] || [ ! -s "$base.truth.json" ]; then
    (cd "$root/study" && go run . regular -n "$n" -N "$rows" -hubs "$hubs" -out "$base") > /dev/null
  fi
  read -r lam eta edges < <(python3 -c "import json,sys; t=json.load(open(sys.argv[1])); print(t['lambda'], t['eta'], len(t['edges']))" "$base.truth.json")
  for run in ${RUNS:-default fixed}; do
    [ "$run" = fixed ] && [ "$n" -gt "${FIXED_MAX:-2000}" ] && continue
    flags=()
    [ "$run" = fixed ] && flags=(-lambda "$lam" -eta "$eta")
    /usr/bin/time -f "%U %S %e %M" -o "$dir/time.txt" "$bin" learn -quiet -workers 2 \
      "${flags[@]}" -o "$dir/edges.csv" "$base.csv"
    read -r user sys wall rss < "$dir/time.txt"
    read -r found missed false < <(python3 "$root/scripts/recovery.py" "$base.truth.json" "$dir/edges.csv")
    # recovery.py's "found" counts every reported edge, the false ones too.
    f1=$(python3 -c "f,m,x=$found,$missed,$false; t=f-x; print('%.5f' % (2*t/(2*t+m+x)))")
    echo "$n $hubs $edges $run $(echo "$user + $sys" | bc) $wall $((rss / 1024)) $found $missed $false $f1" | tee -a "$out"
  done
done
