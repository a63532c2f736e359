package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/cmd/cli"
	"github.com/mrfkit/pairwise/cmd/pairwise/internal/draw"
	"github.com/mrfkit/pairwise/protein"
)

// contactsUsage is the help of "pairwise contacts".
const contactsUsage = `Usage: pairwise contacts [flags] ALIGNMENT

Learn a Potts model's couplings from a multiple sequence alignment (FASTA,
A2M/A3M or Stockholm; - for standard input) and write every pair of columns
ranked by its coupling score: the Frobenius norm of the pair's coupling block
in the zero-sum gauge, gap state excluded, with the average product
correction (APC), the contact predictor of direct coupling analysis.
Sequences are reweighted by 1/(number of sequences at >= theta identity), as
plmc does. The learner is pairwise.LearnContacts: by default one softmax
(multinomial) regression a column over its states, on every sequence, with
ridges on couplings and fields (asymmetric pseudo-likelihood); with
-softmax=false Algorithm 2's nodewise value-pair regressions with a ridge
term, only those of each column's most frequent value against the others
(-all-pairs for every pair; see docs/contacts).

Output (-o, standard output by default):
  csv    i,j,score: the pairs ranked by score (the column names are the
         focus residues with -focus, else col1, col2, ...), the best first
  plmc   plmc's couplings-file layout: RES_I FOCUS_AI RES_J FOCUS_AJ 0 SCORE
         for every pair i < j in column order (residue numbers are the focus
         sequence's own; plmc counts from its first column instead, which
         differs when the focus sequence has gaps)

Examples:
  pairwise contacts -focus DYR_ECOLI -top 159 DHFR.a2m
  pairwise contacts -alphabet rna -o rf00162.csv RF00162.fasta
  pairwise contacts -layout plmc -o dhfr.ec -png dhfr.png -focus DYR_ECOLI DHFR.a2m
`

// alignFormats are the values of contacts' -format.
var alignFormats = map[string]protein.AlignmentFormat{
	"auto": protein.FormatAuto, "fasta": protein.FormatFASTA, "a2m": protein.FormatA2M, "a3m": protein.FormatA2M,
	"stockholm": protein.FormatStockholm, "sto": protein.FormatStockholm, "psicov": protein.FormatPSICOV, "aln": protein.FormatPSICOV,
}

// alphabets are the named values of contacts' -alphabet.
var alphabets = map[string]string{"protein": protein.ProteinAlphabet, "rna": protein.RNAAlphabet, "dna": protein.DNAAlphabet}

// runContacts is the contacts subcommand.
func runContacts(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("contacts", contactsUsage, stderr)
	format := fs.String("format", "auto", "alignment format: auto, fasta, a2m (also A3M), stockholm or psicov (.aln: one sequence a line, no names)")
	alphabet := fs.String("alphabet", "protein", "alphabet: protein, rna, dna, or the letters themselves with the gap first (e.g. -ACGU)")
	focus := fs.String("focus", "", "focus sequence: keep its uppercase, non-gap columns and number them by its residues")
	theta := fs.Float64("theta", protein.DefaultIdentity, "identity threshold of the sequence reweighting, in (0, 1]; 0 for no reweighting")
	maxSeqGaps := fs.Float64("max-seq-gaps", 1, "drop sequences with more than this fraction of gaps")
	maxColGaps := fs.Float64("max-col-gaps", 1, "drop columns with more than this fraction of gaps")
	ignoreGap := fs.Bool("ignore-gap", true, "leave the gap state out of the fits and the scores (as plmc -g)")
	apc := fs.Bool("apc", true, "apply the average product correction")
	top := fs.Int("top", 0, "write only the best this many pairs (csv; 0 for all)")
	minSep := fs.Int("min-sep", 1, "rank only pairs whose columns are at least this far apart (csv)")
	layout := fs.String("layout", "csv", "output layout: csv (ranked i,j,score) or plmc (couplings file)")
	out := fs.String("o", "", "output file (standard output when empty or -)")
	png := fs.String("png", "", "also draw the score matrix as a heat map to `FILE` (SVG or PDF when it ends in .svg or .pdf, else PNG), the top pairs marked")
	ridge := fs.Float64("ridge", pairwise.DefaultContactRidge, "ridge ρ of every regression, in effective sequences (with -softmax, pairwise.DefaultSoftmaxRidge unless given)")
	allPairs := fs.Bool("all-pairs", false, "fit value pairs (not the softmax), every value pair of a column, as Algorithm 2 does ((k-1)(k-2)/2 regressions), instead of its most frequent value against each other (k-2)")
	softmax := fs.Bool("softmax", true, "fit each column by one multinomial (softmax) regression over its states on every sequence; false for value-pair regressions")
	avgBlocks := fs.Bool("avg-blocks", false, "with -softmax, score a pair by the norm of the mean of its two columns' coupling blocks instead of the mean of their norms")
	gapInputs := fs.Bool("gap-inputs", true, "with -softmax, a gap in another column is an input with its own coupling; false holds those couplings at zero (a gap contributes nothing, as plmc -g)")
	fieldRidge := fs.Float64("field-ridge", pairwise.DefaultSoftmaxFieldRidge, "ridge ρ_h of the fields of the softmax regressions, in effective sequences")
	tol := fs.Float64("tol", pairwise.DefaultContactTolerance, "certified optimality gap of every regression (with -softmax, pairwise.DefaultSoftmaxTolerance unless given)")
	smRadius := fs.Float64("softmax-radius", 0, "with -softmax, the l2,1 constraint Σ_j ‖W_ij‖_F ≤ `R` on each column's couplings beside the ridge (0: none)")
	smShrink := fs.Float64("softmax-shrink", 0, "with -softmax, the l2,1 constraint at `f` in (0, 1) times the norm of each column's fit without it (0: none)")
	lambda := fs.Float64("lambda", pairwise.DefaultContactWidth, "width λ: l2,1 radius 2λ√k of every regression")
	smooth := fs.String("smooth", "0", "raise each pair's score by `alpha` times the mean score of its neighbouring pairs (i±1, j±1), a spatial prior beyond direct coupling analysis; auto: 1 when Neff per column is below protein.SmoothDepth (20), else 0; 0 (the default): off, the scores of direct coupling analysis alone (docs/contacts: auto helped on one fresh set of families and failed on two)")
	smoothSep := fs.Int("smooth-sep", protein.DefaultSmoothSeparation, "with -smooth, average only neighbouring pairs at least this far apart")
	workers := fs.Int("workers", 0, "goroutines (0 for every core)")
	quiet := fs.Bool("quiet", false, "no progress bar and no summary on standard error (warnings are still written: they change what the result means)")
	if _, err := cli.ParseOneFile(fs, args, "pairwise contacts", "ALIGNMENT file"); err != nil {
		return err
	}
	alignFormat, ok := alignFormats[strings.ToLower(*format)]
	switch {
	case !ok:
		return fmt.Errorf("-format %q: want auto, fasta, a2m, stockholm or psicov", *format)
	case *layout != "csv" && *layout != "plmc":
		return fmt.Errorf("-layout %q: want csv or plmc", *layout)
	case *top < 0:
		return fmt.Errorf("-top %d: want 0 (all) or more", *top)
	case *minSep < 1:
		return fmt.Errorf("-min-sep %d: want at least 1", *minSep)
	case !(*theta >= 0 && *theta <= 1):
		return fmt.Errorf("-theta %v: want a number in [0, 1] (0 for no reweighting)", *theta)
	case *workers < 0:
		return fmt.Errorf("-workers %d: want 0 (every core) or more", *workers)
	}
	alpha := 0.0 // -smooth auto: set from Neff once the alignment is weighted
	if *smooth != "auto" {
		v, err := strconv.ParseFloat(*smooth, 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 1) {
			return fmt.Errorf("-smooth %q: want auto or a finite number ≥ 0 (0: off)", *smooth)
		}
		alpha = v
	}
	if *smoothSep < 1 {
		return fmt.Errorf("-smooth-sep %d: want at least 1", *smoothSep)
	}
	letters, ok := alphabets[strings.ToLower(*alphabet)]
	if !ok {
		letters = *alphabet
	}
	aopts := []protein.AlignmentOption{protein.AlignFormat(alignFormat), protein.AlignAlphabet(letters),
		protein.AlignMaxSequenceGaps(*maxSeqGaps), protein.AlignMaxColumnGaps(*maxColGaps)}
	if *focus != "" {
		aopts = append(aopts, protein.AlignFocus(*focus))
	}
	in, err := cli.Open(fs.Arg(0), stdin)
	if err != nil {
		return err
	}
	a, err := protein.ReadAlignment(in.R, aopts...)
	in.Close()
	if err != nil {
		return cli.FileError(in.Name, err)
	}
	if a.Vars() < 2 {
		return fmt.Errorf("%s: %d column(s) left after the filters, need at least 2", in.Name, a.Vars())
	}
	neff := float64(a.Len())
	var cm *pairwise.ContactMap
	if err := cli.During(stderr, "contacts", a.Vars(), *quiet, func(ctx context.Context, progress func(int, int)) error {
		var weights []float64
		if *theta > 0 {
			w, err := protein.ReweightContext(ctx, a, protein.ReweightIdentity(*theta))
			if err != nil {
				return err
			}
			weights, neff = w.Weights, w.Neff
		}
		s, err := a.Samples(weights)
		if err != nil {
			return cli.FileError(in.Name, err)
		}
		useSoftmax := *softmax && !*allPairs
		ridgeSet, tolSet := false, false
		fs.Visit(func(f *flag.Flag) {
			ridgeSet = ridgeSet || f.Name == "ridge"
			tolSet = tolSet || f.Name == "tol"
		})
		lopts := []pairwise.Option{
			pairwise.WithWidth(*lambda), pairwise.WithSoftmax(useSoftmax), pairwise.WithFieldRidge(*fieldRidge), pairwise.WithAveragedBlocks(*avgBlocks),
			pairwise.WithGapInputs(*gapInputs),
			pairwise.WithIgnoreGap(*ignoreGap), pairwise.WithProgress(progress),
			pairwise.WithReferencePairs(!*allPairs),
		}
		if tolSet || !useSoftmax {
			lopts = append(lopts, pairwise.WithTolerance(*tol))
		}
		if ridgeSet || !useSoftmax {
			lopts = append(lopts, pairwise.WithRidge(*ridge))
		}
		if *smRadius != 0 {
			lopts = append(lopts, pairwise.WithSoftmaxRadius(*smRadius))
		}
		if *smShrink != 0 {
			lopts = append(lopts, pairwise.WithSoftmaxShrink(*smShrink))
		}
		if *workers > 0 {
			lopts = append(lopts, pairwise.WithWorkers(*workers))
		}
		cm, err = pairwise.LearnContactsContext(ctx, s, lopts...)
		return err
	}); err != nil {
		return err
	}
	scores := cm.Scores
	if !*apc {
		scores = cm.Raw
	}
	if *smooth == "auto" {
		alpha = protein.AutoSmoothAlpha(neff, a.Vars())
	}
	if alpha != 0 {
		sm, err := protein.SmoothScores(scores, alpha, *smoothSep)
		if err != nil {
			return fmt.Errorf("-smooth %s -smooth-sep %d: %w", *smooth, *smoothSep, err)
		}
		scores = sm
	}
	// Mostly-gap columns warn whatever -quiet says: their blocks can fill the
	// top of the ranking (docs/contacts, "A second fresh set").
	gappy := 0
	for _, g := range a.ColumnGaps() {
		if g > 0.5 {
			gappy++
		}
	}
	if 4*gappy >= a.Vars() {
		also := ""
		if alpha != 0 {
			also = ", and the smoothing (-smooth) lifts such blocks further (compare -smooth 0)"
		}
		fmt.Fprintf(stderr, "warning: %s: %d of %d columns are more than half gaps: their gaps co-vary in blocks (sequences that lack a segment), which raises the scores of whole blocks of pairs%s; -max-col-gaps 0.5 drops those columns\n", in.Name, gappy, a.Vars(), also)
	}
	names := a.VarNames()
	if !*quiet {
		fmt.Fprintf(stderr, "%s: %d sequences, %d columns, k = %d, Neff = %.1f\n", in.Name, a.Len(), a.Vars(), len(a.Alphabet()), neff)
		if alpha != 0 {
			fmt.Fprintf(stderr, "%s: scores smoothed over neighbouring pairs at separation ≥ %d (-smooth %s: α = %g), beyond direct coupling analysis\n", in.Name, *smoothSep, *smooth, alpha)
		}
	}
	ranked := protein.RankContacts(scores, *minSep)
	if *png != "" {
		marks := min(len(ranked), a.Vars())
		if *top > 0 {
			marks = min(len(ranked), *top)
		}
		if err := cli.WriteFile(*png, stdout, func(w io.Writer) error {
			format, err := draw.PictureFormat(*png)
			if err != nil {
				format = "png" // -png writes PNG whatever the name, as it always has
			}
			return draw.WritePicture(w, draw.ContactMap(names, scores, drawMarks(ranked[:marks])), format)
		}); err != nil {
			return err
		}
	}
	return cli.WriteFile(*out, stdout, func(w io.Writer) error {
		if *layout == "plmc" {
			return protein.WritePlmcCouplings(w, a, scores)
		}
		if *top > 0 && *top < len(ranked) {
			ranked = ranked[:*top]
		}
		if _, err := fmt.Fprintln(w, "i,j,score"); err != nil {
			return err
		}
		for _, c := range ranked {
			if _, err := fmt.Fprintf(w, "%s,%s,%.6g\n", names[c.I], names[c.J], c.Score); err != nil {
				return err
			}
		}
		return nil
	})
}
