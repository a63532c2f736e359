#!/usr/bin/env bash
# Submits the sharded learning and its merge, run from the directory that
# holds samples.csv, with pairwise on the PATH.
set -euo pipefail
here=$(dirname "$0")
mkdir -p logs
learn=$(sbatch --parsable "$here/learn.sbatch")
sbatch --dependency=afterok:"${learn%%;*}" "$here/merge.sbatch"
