#!/usr/bin/env bash
# Contact precision against solved structures (docs/contacts, issue 19):
# pairwise contacts and plmc on protein families whose structure is known,
# the precision of their top L/5, L/2 and L pairs (separation >= 6), and
# CPU seconds, wall seconds and peak memory from /usr/bin/time -v, run side
# by side under nice. Not part of CI (tens of minutes on 2 cores).
#
#   DATA=/path/to/files bash scripts/contacts_structure.sh              # SET=choice (default)
#   SET=report DATA=/path/to/files bash scripts/contacts_structure.sh   # only after the defaults are frozen
#   FAMILIES="1guu PF00014" VARIANTS="default ref" DATA=... bash scripts/contacts_structure.sh
#   DEPTH=500 SEED=1 DATA=... bash scripts/contacts_structure.sh       # shallow versions of the families
#   SET=long DATA=... bash scripts/contacts_structure.sh                # long shallow families (longA, longB: its halves)
#   VARIANTS="r8=-ridge,8 default r32=-ridge,32 ens:erho=r8+default+r32" DATA=... bash scripts/contacts_structure.sh
#
# Issue 32's benchmark has two sets of families (docs/contacts):
#   choice: the families on which the defaults of LearnContacts are chosen;
#   report: families only measured once the defaults are frozen.
# VARIANTS: default (pairwise contacts, the softmax), vp (-softmax=false, the
# value pairs, the default before issue 32), mf (mean-field couplings, study
# meanfield; mf:NAME=FLAGS with its flags), ec (the entropic correction
# in place of APC, study entropic; ec:NAME=FLAGS), plmc, plmc:NAME=FLAGS (plmc
# with other flags, e.g. plmc:m500=-m,500), NAME=FLAGS, or an
# ensemble of other variants' scores, ens:NAME=V1+V2+V3 (ensrank: by ranks;
# see the case below and scripts/contacts_ensemble.py). A variant
# whose NAME starts with dropx (dropx alone: the default's flags) reads the
# alignment without the sequences holding a letter outside the amino acids
# and the gap (study structprec dropx), as plmc drops them. The table
# of docs/contacts: python3 scripts/contacts_structure_table.py WORK/results.tsv
#
# The data are third-party and are not in this repository, and this script
# fetches nothing: put these files in $DATA (paths inside the public GitHub
# repositories named, at the commits docs/contacts gives):
#   1atzA.aln          soedinglab/CCMpred     example/1atzA.aln    (PSICOV's 1atz family)
#   1atz.pdb           bestlab/GREMLIN_RF     preprocessing/org_pdb/1atz.pdb (PDB 1ATZ as deposited)
#   1guuA.aln          psipred/DeepCov        test/example_io/1guuA.aln
#   1guu.pdb           bestlab/GREMLIN_RF     preprocessing/org_pdb/1guu.pdb
#   DHFR.a2m           ../shared/bench/plmc/example/protein/DHFR.a2m (read from there if absent)
#   5dfr.pdb           openmm/openmm          examples/benchmarks/5dfr_minimized.pdb (E. coli DHFR, PDB 5DFR, minimised)
#   PFxxxxx.fasta.gz, PFxxxxx_struct.dat
#                      pagnani/ArDCAData      data/PF00014/PF00014_mgap6.fasta.gz, data/PF00014/PF00014_struct.dat,
#                                             data/PF00595/PF00595_mgap6.fasta.gz, data/PF00595/PF00595_struct.dat,
#                                             data/PF13354/PF13354_wo_ref_seqs.fasta.gz, data/PF13354/PF13354_struct.dat
#                      (the Pfam families' distance maps, columns numbered as the alignment's)
#                      pagnani/ArDCAData @ bfd54c6 (PF13354's files last changed in 7477161)
#   s1Ahalabi_1470_nosnakes.an, 3TGI.pdb
#                      reynoldsk/pySCA @ b28ae4c (both last changed in db32030): Inputs/s1Ahalabi_1470_nosnakes.an
#                      (S1A serine proteases, Halabi et al. 2009, 1,390 sequences) and Inputs/3TGI.pdb
#                      (rat trypsin, chain E): the family S1A, L = 223
#   PFxxxxx.kortemme.fasta, PFxxxxx.pdb
#                      Kortemme-Lab/covariation @ e806290: analysis/natural_alignments/PFxxxxx.align.80
#                      (Pfam domain alignments, redundancy-filtered by the authors) and the domain's
#                      structure input/domains/PFxxxxx/XXXX_A.pdb (Ollikainen and Kortemme 2013, Table 1):
#                      PF00041 1TEN, PF00072 1MVO, PF00076 2X1B, PF00085 1FB0, PF00226 2O37,
#                      PF00364 2EVB, PF00486 2ZXJ, PF00550 1T8K, PF00581 1GN0, PF00582 2Z3V,
#                      PF00691 1OAP, PF01627 2A0B
#   SET=fresh and SET=issue (DATA=folder of NAME/ subfolders, the files under
#   the names of FRESH_PDB, FRESH_ISSUE and FRESH_DIST below):
#   16pkA0, 1a0tP0     ba-lab/DEEPCON @ 0f2853d: deepcon-covariance/test/{16pkA0,1a0tP0}.aln, {16pkA,1a0tP}.pdb (saved as NAME.pdb)
#   1a3aA              facebookresearch/esm @ 2b36991: examples/data/hhblits_uniclust_2017_10_1a3a_1_A.a3m (as 1a3aA.a3m);
#                      arronelab/PDownB @ 47c6f98: PDB/1a3a.pdb (as 1a3aA.pdb)
#   CMGC_kinase_2PK9   reynoldsk/KinaseAllosterySCA @ 8682680: Inputs/CMGC_KinaseMSA.fasta, Inputs/2PK9.pdb
#   ADK_4AKE, HD_5Z2S  barricklab-at-jhu/Potts_analysis_Sternke_Tripp_Barrick @ 36a5f45: MSAs/{ak,hd}_potts_alignment.txt (as .fasta);
#                      MDAnalysis/WorkshopPrace2021 @ 12feba9: 4ake.pdb; arronelab/PDownB @ 47c6f98: PDB/5z2s.pdb
#   CM_5TS9            ranganathanlab/Stochastic-Boltzmann-Machine @ f00ef51: data/fasta/CM.fasta; PDownB: PDB/5ts9.pdb
#   PF00074_5EOP       reynoldsk/pySCA @ b28ae4c: Inputs/PF00074_full.an (as PF00074_full.an.fasta); PDownB: PDB/5eop.pdb
#   T1019s1-D1         multicom-toolbox/deepdist @ 40cd6fe: example/T1019s1.aln, example/T1019s1-D1.pdb
#   T0900-D1, T0866-D1 multicom-toolbox/DNCON2 @ ec49d24: dry-run/output/T0900-2017-Oct-23/alignments/T0900.aln,
#                      dry-run/output/T0866-2017-Oct-23/alignments/T0866.aln, dry-run/native/{T0900-D1,T0866-D1}.pdb
#   5ptpA              psipred/metapsicov @ 28e636a: example/5ptpA.aln; bestlab/GREMLIN_RF @ 53ead1b: preprocessing/org_pdb/5ptp.pdb
#   PF00035 PF00677 PF00684 PF00763
#                      pagnani/AttentionDCA.jl @ 53cd023: PFs/NAME/NAME_full.fasta, PFs/NAME/Atomic_distances_NAME.dat
#   PF00131 PF00200 PF01774 PF02953
#                      francescocaredda/DataAttentionDCA @ 87f3a61: data/NAME/NAME.fasta, data/NAME/NAME_struct_struct.dat
#   SET=fresh2 (the files under the names of FRESH2_PDB below):
#   1ATG_A             structuralbioinformatics/RADI @ ab4f1c8: demo/1ATG_A.mfa, demo/1ATG_A.pdb
#   1pazA              j3xugit/RaptorX-3DModeling @ 22b58bc: BuildFeatures/example/1pazA.a3m, Utils/TPLGenerator/example/1paz.pdb
#   2hzrA00            dellacortelab/prospr @ c081249: data/training/a3ms/2hzrA00.a3m, data/training/pdbs/2hzrA00.pdb
#   T1034              dellacortelab/prospr @ c081249: data/evaluate/T1034.a3m, data/evaluate/T1034-D1.pdb
#   3GWR               jianlin-cheng/DRCon @ 11f164b: example/3GWR/3GWR.a3m, example/3GWR/3GWR.atom (as 3GWR.pdb)
#   T1006              multicom-toolbox/multicom @ 60fc644: examples/T1006.aln, examples/T1006.pdb
#   6KWC_2jic          aqlaboratory/openfold @ ce0029e: examples/monomer/alignments/6KWC_1/bfd_uniref_hits.a3m; PDownB: PDB/2jic.pdb
#   4OT_6blm           sokrypton/ColabFold @ e1bc16f: test_a5e17_22/test_a5e17_22.a3m; PDownB: PDB/6blm.pdb
#   FabIC_2p91         facebookresearch/esm @ 2b36991: examples/data/UniRef50_UPI0003108055.a3m; PDownB: PDB/2p91.pdb
#   SET=fresh3 (the files under the names of FRESH3_PDB below):
#   Selecase_4qhf, Mad2_1s2h, CLIC1_1k0n, XCL1_2jp1, KaiB_2qke, RfaH_5ond
#                      HWaymentSteele/AF_Cluster @ e4d9909: data_sep2022/04_OtherFoldswitchers/02_selecase/4QHF.{a3m,pdb},
#                      .../01_Mad2/1S2H.{a3m,pdb}, .../04_CLIC1/1K0N_a2a25.a3m and 1K0NA.pdb, .../03_lymphotactin/2JP1.a3m and
#                      .../02_selecase/2JP1A.pdb, data_sep2022/00_KaiB/2QKEE_colabfold.a3m and 2qkeE.pdb,
#                      .../00_RfaH/RfaH_from_colabfold.a3m and preds_3r/5ond.cif (chain A written as PDB: 5ond_A.pdb)
#   MHCI_7st3_5tez     bytedance/Protenix @ 3248f8e: examples/7st3/msa/1/non_pairing.a3m; PDownB: PDB/5tez.pdb
#   ANK_1k1a_3twu      bytedance/Protenix @ 3248f8e: scripts/msa/data/mmcif_msa/1/pairing.a3m; PDownB: PDB/3twu.pdb
#
# plmc is built from ../shared/bench/plmc in a temporary directory, run as
# its authors recommend (-le 16 -lh 0.01 -m 100 -t 0.2 -g) with -n 2; ours
# with -workers 2. Each structure family's alignment is first rewritten by
# "study structprec prep" with the sequence of the structure's chain first
# and only its residue columns, so that both programs number the columns
# 1..L as residues of that sequence; the Pfam families are read as they are.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
DATA=${DATA:?set DATA to the folder of the files listed above}
plmcsrc=${PLMC_SRC:-$repo/../shared/bench/plmc}
work=${WORK:-$(mktemp -d)}
CHOICE="1guu PF00014 DHFR PF00076 PF00085 PF00581 PF00550 PF00041"
REPORT="1atz PF00072 PF00582 PF00691 PF00486 PF00226 PF01627 PF00364"
# heldout: the other 27 Kortemme families of the same repository and
# commit (their XXXX_A.pdb in input/domains; PF00595 is left to issue 19's
# ArDCAData files), 338 to 1,825 sequences, the shallow ones among them:
# never used to choose anything, measured once a default is frozen.
# long: issue 32's long, shallow case (its families F and G: L = 256,
# N = 706 and 437), which none of the sets above reaches (L <= 160). The
# one family of L 180-320 with a structure found in the public
# repositories searched before its runs (docs/contacts, "Long, shallow
# families"; S1A, below, was found after) is PF13354 (beta-lactamase, L = 202, N = 7,515, nearly saturated at full
# depth); its long set is six shallow draws of it, NAME-dNsS being NAME's
# first sequence and N - 1 others drawn with seed S (study structprec
# depth). The halves were fixed before any run: the draws sorted by N,
# alternately to longA (where candidate changes are chosen) and longB
# (where the chosen one is reported). The draws share the family's truth
# and overlap in sequences: they are not six independent families.
LONGA="PF13354-d800s1 PF13354-d600s3 PF13354-d437s5"
LONGB="PF13354-d700s2 PF13354-d500s4 PF13354-d400s6"
# fresh: 16 families from other public repositories, staged after every
# family above had been seen with -smooth (docs/contacts, "A spatial prior
# on the score map"), each in $DATA/NAME/ with a SOURCE line (repository @
# commit, paths, chain). The first eight have a structure (NAME:ALIGNMENT:PDB:CHAIN,
# "_" for a blank chain), the other eight a file of minimum inter-atomic
# distances in alignment columns (NAME:ALIGNMENT:DISTANCES), read as
# ArDCAData's are. 1a3aA, 16pkA0 and 1a0tP0 have the L and N of issue 32's
# families D, F and G.
FRESH_PDB="16pkA0:16pkA0.aln:16pkA0.pdb:_ 1a0tP0:1a0tP0.aln:1a0tP0.pdb:_ 1a3aA:1a3aA.a3m:1a3aA.pdb:A
  CMGC_kinase_2PK9:CMGC_KinaseMSA.fasta:2PK9.pdb:A ADK_4AKE:ak_potts_alignment.fasta:4ake.pdb:A
  HD_5Z2S:hd_potts_alignment.fasta:5z2s.pdb:A CM_5TS9:CM.fasta:5ts9.pdb:A PF00074_5EOP:PF00074_full.an.fasta:5eop.pdb:A"
# The issue's own families A, B, C and E (found after the sixteen, by
# their N): the same layout, NAME:ALIGNMENT:PDB:CHAIN[:FIRST-LAST], the
# optional range cutting the prepared alignment to the columns of the
# structure's domain.
FRESH_ISSUE="T1019s1-D1:T1019s1.aln:T1019s1-D1.pdb:_ T0900-D1:T0900.aln:T0900-D1.pdb:_:5-106
  T0866-D1:T0866.aln:T0866-D1.pdb:_:38-141 5ptpA:5ptpA.aln:5ptp.pdb:A"
FRESH_DIST="PF00035:PF00035_full.fasta:Atomic_distances_PF00035.dat PF00131:PF00131.fasta:PF00131_struct_struct.dat
  PF00200:PF00200.fasta:PF00200_struct_struct.dat PF00677:PF00677_full.fasta:Atomic_distances_PF00677.dat
  PF00684:PF00684_full.fasta:Atomic_distances_PF00684.dat PF00763:PF00763_full.fasta:Atomic_distances_PF00763.dat
  PF01774:PF01774.fasta:PF01774_struct_struct.dat PF02953:PF02953.fasta:PF02953_struct_struct.dat"
FRESH=$(for e in $FRESH_PDB $FRESH_DIST; do printf '%s ' "${e%%:*}"; done)
# fresh2: 9 more families with a structure, staged after the smoothing rule
# was adopted (docs/contacts, "A second fresh set"), in the same layout,
# NAME:ALIGNMENT:PDB:CHAIN; the structure's row is found by its sequence
# (row 0 but for 4OT_6blm and FabIC_2p91).
FRESH2_PDB="1ATG_A:1ATG_A.mfa:1ATG_A.pdb:A 1pazA:1pazA.a3m:1paz.pdb:A 2hzrA00:2hzrA00.a3m:2hzrA00.pdb:A
  3GWR:3GWR.a3m:3GWR.pdb:_ 6KWC_2jic:bfd_uniref_hits.a3m:2jic.pdb:A T1006:T1006.aln:T1006.pdb:_
  T1034:T1034.a3m:T1034-D1.pdb:_ 4OT_6blm:test_a5e17_22.a3m:6blm.pdb:A FabIC_2p91:UniRef50_UPI0003108055.a3m:2p91.pdb:A"
FRESH2=$(for e in $FRESH2_PDB; do printf '%s ' "${e%%:*}"; done)
# fresh3: 8 more, staged after fresh2 was run, in the same layout. Five are
# fold-switching proteins (KaiB, RfaH, Mad2, XCL1, CLIC1) whose structure
# shows one of their two folds.
FRESH3_PDB="Selecase_4qhf:4QHF.a3m:4QHF.pdb:A MHCI_7st3_5tez:non_pairing.a3m:5tez.pdb:A Mad2_1s2h:1S2H.a3m:1S2H.pdb:A
  CLIC1_1k0n:1K0N_a2a25.a3m:1K0NA.pdb:A XCL1_2jp1:2JP1.a3m:2JP1A.pdb:A ANK_1k1a_3twu:pairing.a3m:3twu.pdb:A
  RfaH_5ond:RfaH_from_colabfold.a3m:5ond_A.pdb:A KaiB_2qke:2QKEE_colabfold.a3m:2qkeE.pdb:E"
FRESH3=$(for e in $FRESH3_PDB; do printf '%s ' "${e%%:*}"; done)
ISSUE="T1019s1-D1 T0900-D1 T0866-D1 1a3aA 5ptpA 16pkA0 1a0tP0" # A to G
HELDOUT="PF00013 PF00018 PF00111 PF00168 PF00169 PF00179 PF00240 PF00249 PF00254 PF00313 PF00327 PF00355 PF00381 PF00439 PF00498 PF00542 PF00708 PF01029 PF01035 PF01451 PF01833 PF02823 PF04002 PF07679 PF07686 PF08666 PF12844"
case ${SET:-choice} in
choice) set_families=$CHOICE ;;
report) set_families=$REPORT ;;
heldout) set_families=$HELDOUT ;;
long) set_families="$LONGA $LONGB" ;;
longA) set_families=$LONGA ;;
longB) set_families=$LONGB ;;
fresh) set_families=$FRESH ;;
fresh2) set_families=$FRESH2 ;;
fresh3) set_families=$FRESH3 ;;
issue) set_families=$ISSUE ;;
all) set_families="$CHOICE $REPORT" ;;
*) echo "SET is choice, report, heldout, long, longA, longB, fresh, fresh2, fresh3, issue or all" >&2; exit 1 ;;
esac
FAMILIES=${FAMILIES:-$set_families}
VARIANTS=${VARIANTS:-"default plmc"}
echo "working in $work" >&2
mkdir -p "$work/plmc"
cp -r "$plmcsrc/." "$work/plmc"
make -s -C "$work/plmc" all-openmp >/dev/null 2>&1
plmc=$work/plmc/bin/plmc
(cd "$repo/cmd/pairwise" && go build -o "$work/pairwise" .)
(cd "$repo/study" && go build -o "$work/study" .)
cd "$work"
results=$work/results.tsv
: > "$results"
rawdone=

# timed TAG CMD... runs CMD under nice and /usr/bin/time -v and appends
# TAG wall_s cpu_s peak_MB to $results.
timed() {
  local tag=$1; shift
  nice -n 19 /usr/bin/time -v "$@" 2> "$tag.time" > "$tag.out"
  awk -v tag="$tag" -F': ' '
    /Elapsed \(wall clock\)/ { n = split($2, t, ":"); w = 0; for (i = 1; i <= n; i++) w = w * 60 + t[i] }
    /User time/ { u = $2 } /System time/ { s = $2 }
    /Maximum resident/ { m = $2 / 1024 }
    END { printf "%s\twall=%.1f\tcpu=%.1f\tpeakMB=%.0f\n", tag, w, u + s, m }' "$tag.time" >> "$results"
}

# pdbseq PDB CHAIN prints the one-letter sequence of the chain's Cα atoms
# ("_": a blank chain letter).
pdbseq() {
  local ch=$2
  [ "$ch" = _ ] && ch=" "
  awk -v ch="$ch" '/^ENDMDL/{exit} /^ATOM/ && substr($0,13,4)==" CA " && substr($0,22,1)==ch && (substr($0,17,1)==" "||substr($0,17,1)=="A") {print substr($0,18,3)}' "$1" |
    awk 'BEGIN{split("ALA A ARG R ASN N ASP D CYS C GLN Q GLU E GLY G HIS H HID H HIE H ILE I LEU L LYS K MET M MSE M PHE F PRO P SER S THR T TRP W TYR Y VAL V", a, " "); for (i = 1; i < length(a); i += 2) c[a[i]] = a[i+1]}
         {printf "%s", ($1 in c) ? c[$1] : "X"} END{print ""}'
}

# fresh_entry NAME prints NAME's entry of FRESH_PDB, FRESH2_PDB, FRESH3_PDB, FRESH_ISSUE or
# FRESH_DIST, nothing when it has none.
fresh_entry() {
  local e
  for e in $FRESH_PDB $FRESH2_PDB $FRESH3_PDB $FRESH_ISSUE $FRESH_DIST; do
    if [ "${e%%:*}" = "$1" ]; then echo "$e"; fi
  done
}

# fresh NAME ENTRY prepares a fresh family as family does.
fresh() {
  local _ a b c r
  IFS=: read -r _ a b c r <<< "$2"
  if [ -n "$c" ]; then
    "$work/study" structprec prep -match "$(pdbseq "$DATA/$1/$b" "$c")" -o "$1.fasta" "$DATA/$1/$a"
    if [ -n "${CUT:-}" ] && [ -n "$r" ]; then
      awk -v lo="${r%-*}" -v hi="${r#*-}" '/^>/ { print; next } { print substr($0, lo, hi - lo + 1) }' "$1.fasta" > "$1.cut.fasta"
      mv "$1.cut.fasta" "$1.fasta"
    fi
    aln=$1.fasta; truth=(-pdb "$DATA/$1/$b" -chain "$c" -fasta "$1.fasta")
  else
    cp "$DATA/$1/$a" "$1.fasta"
    aln=$1.fasta; truth=(-dist "$DATA/$1/$b" -L "$(awk '!/^>/{print length($0); exit}' "$1.fasta")")
  fi
}

# family NAME prepares the alignment and sets aln and truth (the score
# command's truth flags).
family() {
  local entry
  entry=$(fresh_entry "$1")
  if [ -n "$entry" ]; then
    fresh "$1" "$entry"
    return
  fi
  case $1 in
  1atz|1guu)
    "$work/study" structprec prep -match "$(pdbseq "$DATA/$1.pdb" A)" -o "$1.fasta" "$DATA/${1}A.aln"
    aln=$1.fasta; truth=(-pdb "$DATA/$1.pdb" -chain A -fasta "$1.fasta") ;;
  DHFR)
    a2m=$DATA/DHFR.a2m; [ -f "$a2m" ] || a2m=$plmcsrc/example/protein/DHFR.a2m
    "$work/study" structprec prep -focus DYR_ECOLI/1-159 -o DHFR.fasta "$a2m"
    # 5dfr_minimized.pdb has no chain letter.
    aln=DHFR.fasta; truth=(-pdb "$DATA/5dfr.pdb" -chain _ -fasta DHFR.fasta) ;;
  S1A)
    "$work/study" structprec prep -match "$(pdbseq "$DATA/3TGI.pdb" E)" -o S1A.fasta "$DATA/s1Ahalabi_1470_nosnakes.an"
    aln=S1A.fasta; truth=(-pdb "$DATA/3TGI.pdb" -chain E -fasta S1A.fasta) ;;
  PF00014|PF00595|PF13354)
    local gz
    gz=$(ls "$DATA/$1"_*.fasta.gz | head -1)
    gunzip -c "$gz" > "$1.fasta"
    aln=$1.fasta
    truth=(-dist "$DATA/$1_struct.dat" -L "$(awk '!/^>/{print length($0); exit}' "$1.fasta")") ;;
  PF*)
    [ -f "$DATA/$1.kortemme.fasta" ] || { echo "unknown family $1" >&2; exit 1; }
    "$work/study" structprec prep -match "$(pdbseq "$DATA/$1.pdb" A)" -o "$1.fasta" "$DATA/$1.kortemme.fasta"
    aln=$1.fasta; truth=(-pdb "$DATA/$1.pdb" -chain A -fasta "$1.fasta") ;;
  *) echo "unknown family $1" >&2; exit 1 ;;
  esac
}

for f in $FAMILIES; do
  if [[ $f =~ ^(.+)-d([0-9]+)s([0-9]+)$ ]]; then
    # NAME-dNsS: a shallow draw of NAME, N sequences, seed S.
    family "${BASH_REMATCH[1]}"
    "$work/study" structprec depth -n "${BASH_REMATCH[2]}" -seed "${BASH_REMATCH[3]}" -o "$f.shallow.fasta" "$aln" 2>> "$work/depth.log"
    aln=$f.shallow.fasta
  else
    family "$f"
  fi
  if [ -n "${DEPTH:-}" ]; then
    # A shallow family assembled from this one: its first sequence and
    # DEPTH - 1 others drawn with seed SEED (study structprec depth).
    "$work/study" structprec depth -n "$DEPTH" -seed "${SEED:-1}" -o "$f.shallow.fasta" "$aln" 2>> "$work/depth.log"
    aln=$f.shallow.fasta
  fi
  files=()
  for v in $VARIANTS; do
    case $v in
    plmc) timed "$f.plmc" "$plmc" -c "$f.plmc.ec" -le 16.0 -lh 0.01 -m 100 -t 0.2 -g -n 2 "$aln"; files+=("$f.plmc.ec") ;;
    # plmc with other flags, plmc:NAME=FLAGS (commas become spaces), given
    # after the issue's flags, so that they override them (plmc reads its
    # options left to right, the last wins): e.g. "plmc:m500=-m,500", the
    # issue's run with 500 L-BFGS iterations at most (-m 0: no bound). How
    # L-BFGS stopped goes to $work/plmc_stop.log: "Minimization success" when
    # ||g||/max(1, ||x||) <= 10^-3 (plmc's own criterion), MAXIMUMITERATION
    # at the bound; then the last iteration's line (iter, time, ||g||/||x||,
    # objective, -log pseudo-likelihood, ||h||, ||e||) and, for the runs of
    # 101 iterations or more, the line 100 iterations before it.
    plmc:*=*)
         name=${v#plmc:}; name=${name%%=*}; flags=${v#*=}
         # shellcheck disable=SC2086
         timed "$f.$name" "$plmc" -c "$f.$name.ec" -le 16.0 -lh 0.01 -m 100 -t 0.2 -g -n 2 ${flags//,/ } "$aln"
         awk -v tag="$f.$name" '/^[0-9]+\t/ { last = $0; it[$1] = $0; k = $1 }
           /^Gradient optimization/ { stop = $0 }
           END { printf "%s: %s; last: %s", tag, stop, last; if (k > 100) printf "; 100 before: %s", it[k - 100]; print "" }' \
           "$f.$name.time" >> "$work/plmc_stop.log"
         files+=("$f.$name.ec") ;;
    default) timed "$f.default" "$work/pairwise" contacts -quiet -workers 2 -o "$f.default.csv" "$aln"; files+=("$f.default.csv") ;;
    # Mean-field (Gaussian) couplings, study meanfield (issue 32's second
    # estimator class; docs/contacts, "A second estimator: mean-field
    # couplings, measured"): mf with its defaults, mf:NAME=FLAGS with other
    # flags, e.g. "mf:mf8=-pc,0.8" (commas become spaces).
    mf|mf:*=*)
         name=mf; flags=
         if [[ $v == mf:* ]]; then name=${v#mf:}; name=${name%%=*}; flags=${v#*=}; fi
         # shellcheck disable=SC2086
         timed "$f.$name" "$work/study" meanfield -workers 2 ${flags//,/ } -o "$f.$name.csv" "$aln"; files+=("$f.$name.csv") ;;
    # The entropic correction in place of APC (study entropic; docs/contacts,
    # "The entropic correction, measured"): the default's scores without
    # APC (pairwise contacts -apc=false, F.raw.csv, run once a family and
    # scored too, as raw), then F_ij - alpha sqrt(s_i s_j): ec with its
    # defaults (20-state entropies), ec:NAME=FLAGS with other flags, e.g.
    # "ec:ec21=-states,21" (commas become spaces).
    ec|ec:*=*)
         name=ec; flags=
         if [[ $v == ec:* ]]; then name=${v#ec:}; name=${name%%=*}; flags=${v#*=}; fi
         if [ "$rawdone" != "$f" ]; then
           timed "$f.raw" "$work/pairwise" contacts -quiet -workers 2 -apc=false -o "$f.raw.csv" "$aln"; files+=("$f.raw.csv")
           rawdone=$f
         fi
         # shellcheck disable=SC2086
         timed "$f.$name" "$work/study" entropic ${flags//,/ } -o "$f.$name.csv" "$aln" "$f.raw.csv"; files+=("$f.$name.csv") ;;
    # The value-pair estimator, the default before issue 32.
    vp) timed "$f.vp" "$work/pairwise" contacts -quiet -workers 2 -softmax=false -o "$f.vp.csv" "$aln"; files+=("$f.vp.csv") ;;
    # The default on the alignment without the sequences plmc drops.
    dropx) "$work/study" structprec dropx -o "$f.dropx.fasta" "$aln" 2>> "$work/dropx.log"
           timed "$f.dropx" "$work/pairwise" contacts -quiet -workers 2 -o "$f.dropx.csv" "$f.dropx.fasta"; files+=("$f.dropx.csv") ;;
    # An ensemble of variants of the same work folder: ens:NAME=V1+V2+V3
    # combines the score files F.V1.csv, F.V2.csv, ... (made earlier in this
    # run, or left in $WORK by an earlier run) by the mean of their z-scores
    # at separation >= 6, ensrank:NAME=V1+V2 by the mean of their ranks
    # (scripts/contacts_ensemble.py); no fit, no time line.
    ens:*=*|ensrank:*=*)
         rule=z; [[ $v == ensrank:* ]] && rule=rank
         name=${v#*:}; name=${name%%=*}; parts=${v#*=}
         inputs=()
         for p in ${parts//+/ }; do inputs+=("$f.$p.csv"); done
         python3 "$repo/scripts/contacts_ensemble.py" -rule "$rule" -o "$f.$name.csv" "${inputs[@]}"
         files+=("$f.$name.csv") ;;
    # Any other variant NAME=FLAGS, e.g. "rho16=-ridge,16": commas become spaces.
    # "C@L" in FLAGS stands for C·(L − 1), L the family's number of
    # columns (e.g. "smL=-softmax,-ridge,0.2@L": CCMpred's scaling);
    # "C@N" for C·√Neff, Neff as pairwise contacts reweights the family
    # (study structprec neff; e.g. "sqrtN=-ridge,0.358@N": 16·√(Neff/2000)).
    *=*) name=${v%%=*}; flags=${v#*=}
         valn=$aln
         if [[ $name == dropx* ]]; then
           "$work/study" structprec dropx -o "$f.dropx.fasta" "$aln" 2>> "$work/dropx.log"
           valn=$f.dropx.fasta
         fi
         L=$(awk '!/^>/{print length($0); exit}' "$aln")
         while [[ $flags =~ ([0-9.]+)@L ]]; do
           flags=${flags/"${BASH_REMATCH[0]}"/$(awk -v c="${BASH_REMATCH[1]}" -v L="$L" 'BEGIN{print c*(L-1)}')}
         done
         if [[ $flags =~ @N ]]; then
           neff=$("$work/study" structprec neff "$valn" | awk '{print $3}')
           while [[ $flags =~ ([0-9.]+)@N ]]; do
             flags=${flags/"${BASH_REMATCH[0]}"/$(awk -v c="${BASH_REMATCH[1]}" -v n="$neff" 'BEGIN{printf "%.2f", c*sqrt(n)}')}
           done
         fi
         echo "$f.$name: flags ${flags//,/ }" >> "$work/flags.log"
         # shellcheck disable=SC2086
         timed "$f.$name" "$work/pairwise" contacts -quiet -workers 2 ${flags//,/ } -o "$f.$name.csv" "$valn"; files+=("$f.$name.csv") ;;
    esac
  done
  echo "precision $f" >> "$results"
  "$work/study" structprec score "${truth[@]}" "${files[@]}" >> "$results" 2>> "$results"
done
cat "$results"
