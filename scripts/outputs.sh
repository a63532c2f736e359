#!/usr/bin/env bash
# Writes the command's text outputs that a move of code must leave
# unchanged into one folder, one file an output, so that two builds can be
# compared with cmp (the layout redesign, issue 30, was checked this way):
#
#   bash scripts/outputs.sh /tmp/before          # on the old commit
#   bash scripts/outputs.sh /tmp/after           # on the new one
#   for f in /tmp/before/*; do cmp "$f" "/tmp/after/${f##*/}"; done
#
# The outputs: the demo; 'learn' on every testdata CSV with λ and η given
# and without; 'contacts' on the example alignment; 'network' and
# 'bootstrap -n 50' on testdata/survey.csv; the study's 'reproduce -quick'
# report. Pictures are not compared (their drawing may change). The
# standard error of the runs with -quiet is kept apart (*.quiet-stderr):
# since issue 31 -quiet no longer hides warnings. Takes about half a
# minute on 2 cores.
set -euo pipefail
out=${1:?usage: scripts/outputs.sh DIR}
repo=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
if [ -f "$repo/cmd/pairwise/go.mod" ]; then
  (cd "$repo/cmd/pairwise" && go build -o "$bin/pairwise" .)
else
  (cd "$repo" && go build -o "$bin/pairwise" ./cmd/pairwise)
fi
(cd "$repo/study" && go build -o "$bin/study" .)
p=$bin/pairwise
cd "$repo"
"$p" demo >"$out/demo.txt" 2>&1
for f in testdata/*.csv; do
  b=$(basename "$f" .csv)
  h=""; [ "$b" = histogram ] || [ "$b" = survey ] && h="-histogram"
  "$p" learn -quiet $h -lambda 2.5 -eta 0.4 -format json "$f" >"$out/learn-$b-given.json" 2>"$out/learn-$b-given.quiet-stderr" || echo "exit $?" >>"$out/learn-$b-given.json"
  "$p" learn $h -format json "$f" >"$out/learn-$b-default.json" 2>"$out/learn-$b-default.summary" || echo "exit $?" >>"$out/learn-$b-default.json"
done
"$p" contacts -focus "$(head -n 1 testdata/align/family.fasta | cut -c2- | cut -d' ' -f1)" testdata/align/family.fasta >"$out/contacts.csv" 2>"$out/contacts.summary"
"$p" contacts -layout plmc testdata/align/family.sto >"$out/contacts-plmc.txt" 2>"$out/contacts-plmc.summary"
"$p" network -histogram -format json testdata/survey.csv >"$out/network.json" 2>"$out/network.summary"
"$p" network -histogram testdata/survey.csv >"$out/network.txt" 2>&1
"$p" bootstrap -histogram -n 50 -drop 50 -seed 1 testdata/survey.csv >"$out/bootstrap.json" 2>/dev/null
"$p" bootstrap -histogram -n 50 -drop 0 -seed 1 -format csv testdata/survey.csv >"$out/bootstrap.csv" 2>/dev/null
"$bin/study" reproduce -quick -q -out "$out/reproduce" >"$out/reproduce.txt" 2>&1
# the pictures are left out: keep only the text files of the report
find "$out/reproduce" -type f ! -name '*.md' ! -name '*.csv' ! -name '*.json' ! -name '*.txt' -delete
# times vary from run to run: "in 23ms", "in 3s", "in 1m2.5s" become "in T"
for f in "$out"/*.summary "$out"/*.txt "$out"/reproduce/summary.md; do
  sed -E -i 's/ in [0-9][0-9.]*(ns|µs|us|ms|s|m[0-9.]+s|h[0-9.m]+s)/ in T/g' "$f"
done
sed -E -i 's/\b[0-9][0-9.]*(ms|s)\b/T/g' "$out/reproduce.txt" "$out/reproduce/summary.md"
sed -i "s#$out#OUT#g" "$out/reproduce.txt" "$out/reproduce/summary.md"
echo "outputs in $out"
