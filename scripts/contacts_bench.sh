#!/usr/bin/env bash
# The contact benchmark of docs/contacts: pairwise contacts against plmc, run
# side by side on the same machine. Not part of CI (tens of minutes on 2
# cores, most of it plmc on DHFR).
#
#   bash scripts/contacts_bench.sh              # everything
#   FAMILIES="RF00162 potts3" bash scripts/contacts_bench.sh   # a subset
#   PARTS="synth" bash scripts/contacts_bench.sh                # synth, real, scaling
#
# It builds plmc from ../shared/bench/plmc in a temporary directory (never
# in the repository), and this repository's command and helper
# (scripts/contactsbench). Then:
#   synth    for each family, a model learned from its alignment, its L best
#            pairs kept (the truth), N sequences drawn from it with the Gibbs
#            sampler, learned back by both: precision of the top L/5, L/2, L
#            pairs, CPU and wall time, peak memory (/usr/bin/time -v);
#   real     the real alignments at 1 and 2 threads: the overlap of our
#            top-L pairs (separation >= 6) with plmc's, time and memory;
#   scaling  pairwise contacts on synthetic alignments of growing L and N.
# plmc runs as its authors recommend: -le 16 -lh 0.01 -m 100 -t 0.2 -g.
# Results go to $WORK (default a fresh temp dir): results.tsv has one line a
# run; the tables are printed at the end.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
plmcsrc=${PLMC_SRC:-$repo/../shared/bench/plmc}
work=${WORK:-$(mktemp -d)}
FAMILIES=${FAMILIES:-"potts3 RF00162 DHFR"}
PARTS=${PARTS:-"synth real scaling"}
THREADS=${THREADS:-"1 2"}
echo "working in $work" >&2
mkdir -p "$work/plmc"
cp -r "$plmcsrc/." "$work/plmc"
make -s -C "$work/plmc" all-openmp >/dev/null 2>&1
plmc=$work/plmc/bin/plmc
(cd "$repo/cmd/pairwise" && go build -o "$work/pairwise" .) && (cd "$repo" && go build -o "$work/contactsbench" ./scripts/contactsbench)
pw=$work/pairwise
cb=$work/contactsbench
cd "$work"
results=$work/results.tsv
: > "$results"

# family NAME sets the alignment, alphabet and flags of a family.
family() {
  case $1 in
  DHFR) aln=$work/plmc/example/protein/DHFR.a2m; alpha=-ACDEFGHIKLMNPQRSTVWY; focus=DYR_ECOLI; gap=1 ;;
  RF00162) aln=$work/plmc/example/RNA/RF00162.fasta; alpha=-ACGU; focus=; gap=1 ;;
  # potts3 is a synthetic 3-state alignment: no state is a gap.
  potts3) aln=$work/plmc/example/potts/potts3.a2m; alpha='_*^'; focus=; gap=0 ;;
  *) echo "unknown family $1" >&2; exit 1 ;;
  esac
}

# timed TAG CMD... runs CMD under /usr/bin/time -v and appends
# TAG wall_s cpu_s peak_MB to $results.
timed() {
  local tag=$1; shift
  /usr/bin/time -v "$@" 2> "$tag.time" > "$tag.out"
  awk -v tag="$tag" -F': ' '
    /Elapsed \(wall clock\)/ { n = split($2, t, ":"); w = 0; for (i = 1; i <= n; i++) w = w * 60 + t[i] }
    /User time/ { u = $2 } /System time/ { s = $2 }
    /Maximum resident/ { m = $2 / 1024 }
    END { printf "%s\twall=%.1f\tcpu=%.1f\tpeakMB=%.0f\n", tag, w, u + s, m }' "$tag.time" >> "$results"
}

# run_pair TAG ALN ALPHA FOCUS GAP THREADS: plmc and pairwise on one alignment.
run_pair() {
  local tag=$1 a=$2 al=$3 fo=$4 g=$5 t=$6
  local pf=() of=(-alphabet "$al")
  [ -n "$fo" ] && pf+=(-f "$fo") && of+=(-focus "$fo")
  [ "$g" = 1 ] && pf+=(-g) || of+=(-ignore-gap=false)
  timed "$tag.plmc.t$t" "$plmc" -c "$tag.plmc.t$t.ec" -le 16.0 -lh 0.01 -m 100 -t 0.2 -n "$t" -a "$al" "${pf[@]}" "$a"
  timed "$tag.pairwise.t$t" "$pw" contacts -quiet -workers "$t" "${of[@]}" -o "$tag.pairwise.t$t.csv" "$a"
}

for part in $PARTS; do
  case $part in
  synth)
    for f in $FAMILIES; do
      family "$f"
      fo=()
      [ -n "$focus" ] && fo=(-focus "$focus")
      kg=()
      [ "$gap" = 0 ] && kg=(-keep-gap)
      "$cb" synth -alphabet "$alpha" "${fo[@]}" "${kg[@]}" -seed 1 -out "synth_$f" "$aln"
      L=$(wc -l < "synth_$f.truth")
      run_pair "synth_$f" "synth_$f.fasta" "$alpha" "" "$gap" 2
      echo "precision synth_$f L=$L (top L/5, L/2, L)" >> "$results"
      "$cb" score -truth "synth_$f.truth" -L "$L" "synth_$f.plmc.t2.ec" "synth_$f.pairwise.t2.csv" >> "$results"
    done ;;
  real)
    for f in $FAMILIES; do
      family "$f"
      [ "$f" = potts3 ] && continue
      for t in $THREADS; do
        run_pair "real_$f" "$aln" "$alpha" "$focus" "$gap" "$t"
        L=$(awk -F, 'NR>1{print $1; print $2}' "real_$f.pairwise.t$t.csv" | sort -u | wc -l)
        echo "overlap real_$f t=$t L=$L: $("$cb" overlap -L "$L" -min-sep 6 "real_$f.pairwise.t$t.csv" "real_$f.plmc.t$t.ec")" >> "$results"
      done
    done ;;
  scaling)
    # The synthetic RNA family's sequences: the first N (repeated when N
    # exceeds the file), and each sequence joined to others to reach L.
    family RF00162
    [ -f synth_RF00162.fasta ] || "$cb" synth -alphabet "$alpha" -seed 1 -out synth_RF00162 "$aln"
    for n in 1000 4000 16000; do
      awk -v n="$n" '/^>/{c++} c<=n' synth_RF00162.fasta > "scale_N$n.fasta"
      # Repeat the sequences when n exceeds the file (scaling in N only).
      while [ "$(grep -c '>' "scale_N$n.fasta")" -lt "$n" ]; do cat synth_RF00162.fasta >> "scale_N$n.fasta"; awk -v n="$n" '/^>/{c++} c<=n' "scale_N$n.fasta" > tmp.fa && mv tmp.fa "scale_N$n.fasta"; done
      timed "scale_N$n" "$pw" contacts -quiet -workers 2 -alphabet "$alpha" -o /dev/null "scale_N$n.fasta"
    done
    for rep in 1 2 4; do
      # L = 107·rep: each sequence concatenated rep times with its successors.
      awk -v rep="$rep" '/^>/{next} {s[++n]=$0} END{for(i=1;i<=n;i++){printf ">s%d\n", i; for(r=0;r<rep;r++) printf "%s", s[(i+r*7-1)%n+1]; printf "\n"}}' synth_RF00162.fasta > "scale_L$rep.fasta"
      timed "scale_L$rep" "$pw" contacts -quiet -workers 2 -alphabet "$alpha" -o /dev/null "scale_L$rep.fasta"
    done ;;
  esac
done
cat "$results"
