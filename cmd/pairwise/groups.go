package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/cmd/cli"
	"github.com/mrfkit/pairwise/psych"
)

// compareUsage is the help of "pairwise compare-groups".
const compareUsage = `Usage: pairwise compare-groups [flags] FILE_A FILE_B
       pairwise compare-groups [flags] -group COLUMN FILE

Tests whether two groups of people who answered the same items have the
same network: the permutation test of R's NetworkComparisonTest
(psych.CompareGroups; docs/psych). Each group's network is learned as
'pairwise network' learns it, with the same learner flags; the statistics
are the largest difference of an edge weight, the difference of the global
strengths Σ|w| (with -signed, of the sums Σw) and each pair's difference,
its p-value corrected for the n(n-1)/2 pairs by -correction: holm (the
family-wise error rate), bh (Benjamini-Hochberg, the false discovery rate)
or none. Holm's correction lets a pair reach p ≤ 0.05 only with at least
n(n-1)/2 / 0.05 - 1 permutations. The result depends on -seed, not on
-workers; Ctrl-C stops the run.

The groups are two files of the same items (the same header, or none), or
one file with a header whose column -group takes two values (sorted: the
first is group A; the column is not an item). Missing answers are an error,
or with -missing listwise their rows are dropped. Writes CSV: a row for the
largest difference, one for the global strengths (value_a, value_b) and one
for each pair, with differences and p-values; or JSON (-format json), with
every permutation's statistics too.

Examples:
  pairwise compare-groups -permutations 2000 women.csv men.csv
  pairwise compare-groups -group sex -isingfit -o pairs.csv answers.csv
`

// corrections are the values of -correction.
var corrections = map[string]psych.Correction{"holm": psych.Holm, "bh": psych.BenjaminiHochberg, "none": psych.NoCorrection}

// runCompareGroups runs psych.CompareGroups on two groups of people and
// writes the comparison.
func runCompareGroups(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("compare-groups", compareUsage, stderr)
	lf := addLearnerFlags(fs)
	group := fs.String("group", "", "the header's `COLUMN` whose two values split the rows of one FILE into the groups")
	perms := fs.Int("permutations", psych.DefaultPermutations, "random relabellings of the people (`count`)")
	correction := fs.String("correction", "holm", "`rule` correcting the pairs' p-values: holm, bh (Benjamini-Hochberg) or none")
	signed := fs.Bool("signed", false, "compare the global expected influence Σw instead of the global strength Σ|w|")
	seed := fs.Uint64("seed", 1, "`seed` of the permutations")
	format := fs.String("format", "csv", "output `format`: csv or json")
	out := fs.String("o", "", "write the result to `FILE` (default standard output)")
	quiet := fs.Bool("quiet", false, "no progress bar and no summary on standard error (warnings are still written: they change what the result means)")
	set, err := cli.ParseFlags(fs, args)
	if err != nil {
		return err
	}
	files := 2
	if *group != "" {
		files = 1
	}
	if fs.NArg() != files {
		return fmt.Errorf("want two files FILE_A FILE_B, or one FILE with -group COLUMN, got %d arguments; see 'pairwise compare-groups -h'", fs.NArg())
	}
	corr, ok := corrections[*correction]
	switch {
	case !ok:
		return fmt.Errorf("-correction %q: want holm, bh or none", *correction)
	case *perms < 1:
		return fmt.Errorf("-permutations %d: want at least 1", *perms)
	}
	if err := cli.CheckFormat(*format, "csv", "json"); err != nil {
		return err
	}
	if err := cli.CheckOutput(*out); err != nil {
		return err
	}
	opts, ro, err := lf.options(set)
	if err != nil {
		return err
	}
	if set["nominal"] {
		return fmt.Errorf("-nominal applies to learn and network, not to the groups' comparison")
	}
	var g groups
	if *group != "" {
		err = g.split(fs.Arg(0), *group, ro, stderr, *quiet)
	} else {
		err = g.files(fs.Arg(0), fs.Arg(1), ro, stderr, *quiet)
	}
	for x := 0; err == nil && x < 2; x++ {
		g.s[x], err = lf.complete(g.s[x], g.labels[x], stderr, *quiet)
		if err == nil && g.s[x].TotalWeight() < 2 {
			err = fmt.Errorf("%s: %v people, want at least 2 in each group", g.labels[x], g.s[x].TotalWeight())
		}
	}
	if err != nil {
		return err
	}
	var c *psych.Comparison
	t0 := time.Now()
	if err := cli.During(stderr, "permuting", *perms, *quiet, func(ctx context.Context, progress func(int, int)) (err error) {
		c, err = psych.CompareGroups(ctx, g.s[0], g.s[1], rand.NewPCG(*seed, 0xc0de), psych.CompareOptions{
			Permutations: *perms, Correction: corr, SignedStrength: *signed,
			Options: opts, Workers: *lf.workers, Progress: progress,
		})
		return err
	}); err != nil {
		return err
	}
	strength := "global strength"
	if *signed {
		strength = "global expected influence"
	}
	if !*quiet {
		compareSummary(stderr, c, g, *correction, strength, time.Since(t0))
	}
	return cli.WriteFile(*out, stdout, func(w io.Writer) error {
		if *format == "json" {
			return cli.WriteJSON(w, struct {
				Names  []string  `json:"names"`
				Groups [2]string `json:"groups"`
				*psych.Comparison
			}{g.names, g.labels, c})
		}
		return writeComparisonCSV(w, c, g.names, strength)
	})
}

// groups are the two samples that compare-groups compares, their labels
// for messages and the names of the items.
type groups struct {
	s      [2]*pairwise.Samples
	labels [2]string
	names  []string
}

// files reads the groups from two files, which must hold the same items.
func (g *groups) files(a, b string, ro pairwise.CSVOptions, stderr io.Writer, quiet bool) (err error) {
	for x, path := range []string{a, b} {
		if g.s[x], g.labels[x], err = cli.ReadSamples(path, stdin, ro, stderr, quiet); err != nil {
			return err
		}
	}
	na, nb := g.s[0].Names(), g.s[1].Names()
	switch {
	case g.s[0].Vars() != g.s[1].Vars():
		return fmt.Errorf("%s has %d items, %s has %d: the groups must answer the same items", g.labels[0], g.s[0].Vars(), g.labels[1], g.s[1].Vars())
	case na == nil && nb != nil:
		return fmt.Errorf("%s has a header line and %s has none: give both the same header, or neither", g.labels[1], g.labels[0])
	case na != nil && nb == nil:
		return fmt.Errorf("%s has a header line and %s has none: give both the same header, or neither", g.labels[0], g.labels[1])
	}
	for i := range na {
		if na[i] != nb[i] {
			return fmt.Errorf("%s: column %d is %q, but column %d of %s is %q: the groups must answer the same items in the same order", g.labels[1], i+1, nb[i], i+1, g.labels[0], na[i])
		}
	}
	if g.names = na; na == nil {
		g.names = defaultNames(g.s[0].Vars())
	}
	return nil
}

// split reads the groups from one file whose column named column takes
// two values. The file is read once without that column, line for line,
// so that its errors and the notes on its states name the file's lines
// (and columns, counted with the group's); then each group's rows are read
// with the alphabet of the whole file.
func (g *groups) split(path, column string, ro pairwise.CSVOptions, stderr io.Writer, quiet bool) error {
	in, err := cli.Open(path, stdin)
	if err != nil {
		return err
	}
	data, err := io.ReadAll(in.R)
	in.Close()
	if err != nil {
		return fmt.Errorf("%s: %v", in.Name, err)
	}
	name, markers := in.Name, ro.Missing
	if markers == nil {
		markers = pairwise.DefaultMissing
	}
	lines := strings.Split(strings.TrimPrefix(string(data), "\xef\xbb\xbf"), "\n")
	header := strings.Split(lines[0], ",")
	col := slices.IndexFunc(header, func(f string) bool { return strings.Trim(strings.TrimSpace(f), `"`) == column })
	switch {
	case col < 0:
		return fmt.Errorf("%s: line 1: no column is named %q (-group): the first line must be a header that names it", name, column)
	case col == 0 && ro.Histogram:
		return fmt.Errorf("-group %s names the count column of -histogram", column)
	}
	var values []string
	groupOf := make([]string, len(lines)) // each line's group
	for l := range lines {
		f := strings.Split(lines[l], ",")
		if len(f) != len(header) && strings.TrimSpace(lines[l]) != "" {
			return fmt.Errorf("%s: line %d has %d fields, want %d", name, l+1, len(f), len(header))
		}
		if l == 0 || len(f) != len(header) {
			lines[l] = strings.Join(slices.Delete(f, min(col, len(f)-1), min(col+1, len(f))), ",")
			continue // the header, or a blank line that the reader judges
		}
		v := strings.TrimSpace(f[col])
		switch known := slices.Contains(values, v); {
		case slices.Contains(markers, v):
			return fmt.Errorf("%s: line %d, column %d: the group (-group %s) is missing: give the row its group, or remove it", name, l+1, col+1, column)
		case !known && len(values) == 2:
			return fmt.Errorf("%s: line %d, column %d: %q is a third group (-group %s has %q and %q); compare-groups compares two", name, l+1, col+1, v, column, values[0], values[1])
		case !known:
			values = append(values, v)
		}
		groupOf[l], lines[l] = v, strings.Join(slices.Delete(f, col, col+1), ",")
	}
	all, err := pairwise.ReadCSVWith(strings.NewReader(strings.Join(lines, "\n")), ro)
	var pe *pairwise.ParseError
	if errors.As(err, &pe) && pe.Column > col {
		pe.Column++
	}
	switch {
	case err != nil:
		return cli.FileError(name, err)
	case all.Names() == nil:
		return fmt.Errorf("%s: line 1 is not a header: -group needs one that names the column %q", name, column)
	case len(values) < 2:
		return fmt.Errorf("%s: -group %s: the rows are in %d group(s) %q, want two", name, column, len(values), values)
	}
	if !quiet {
		cli.NoteStates(stderr, name, all, col+1)
	}
	if ro.Alphabet == 0 && ro.States == nil {
		ro.Alphabet = all.Alphabet()
	}
	slices.Sort(values)
	for x, v := range values {
		text := lines[:1:1]
		for l := range lines {
			if groupOf[l] == v && l > 0 {
				text = append(text, lines[l])
			}
		}
		g.labels[x] = fmt.Sprintf("%s (%s = %s)", name, column, v)
		if g.s[x], err = pairwise.ReadCSVWith(strings.NewReader(strings.Join(text, "\n")), ro); err != nil {
			return cli.FileError(g.labels[x], err)
		}
	}
	g.names = all.Names()
	return nil
}

// compareSummary writes what a comparison found: the groups, the two
// global statistics, and the pairs that differ at corrected p ≤ 0.05, or
// a warning when no pair can.
func compareSummary(w io.Writer, c *psych.Comparison, g groups, correction, strength string, elapsed time.Duration) {
	fmt.Fprintf(w, "A: %s, %d people; B: %s, %d people; %d items; %d permutations in %v\n",
		g.labels[0], c.Observations[0], g.labels[1], c.Observations[1], c.Vars, c.Permutations, elapsed.Round(time.Millisecond))
	if len(c.Edges) > 0 {
		top := slices.MaxFunc(c.Edges, func(a, b psych.EdgeDifference) int { return cmp.Compare(a.Difference, b.Difference) })
		fmt.Fprintf(w, "network structure: the largest difference of an edge weight is %.3g (%s–%s), p = %.3g\n", c.MaxDifference, g.names[top.I], g.names[top.J], c.MaxDifferenceP)
	}
	fmt.Fprintf(w, "%s: %.4g in A, %.4g in B, difference %.3g, p = %.3g\n", strength, c.Strength[0], c.Strength[1], c.StrengthDifference, c.StrengthP)
	var differ []string
	for _, e := range c.Edges {
		if e.Adjusted <= 0.05 {
			differ = append(differ, fmt.Sprintf("%s–%s (%.3g in A, %.3g in B, p = %.3g)", g.names[e.I], g.names[e.J], e.Weight1, e.Weight2, e.Adjusted))
		}
	}
	if m := len(c.Edges); correction == "holm" && float64(m)/float64(c.Permutations+1) > 0.05 {
		fmt.Fprintf(w, "warning: with %d permutations no pair can reach p ≤ 0.05 after Holm's correction for %d pairs: that needs at least %d (-permutations)\n", c.Permutations, m, 20*m-1)
	} else if len(differ) == 0 {
		fmt.Fprintf(w, "pairs that differ at p ≤ 0.05 (-correction %s): none\n", correction)
	} else {
		fmt.Fprintf(w, "pairs that differ at p ≤ 0.05 (-correction %s): %s\n", correction, strings.Join(differ, ", "))
	}
}

// writeComparisonCSV writes the comparison as one CSV table: the largest
// difference, the global strengths (or expected influences, as strength
// names them), and every pair, with the pair's corrected p-value.
func writeComparisonCSV(w io.Writer, c *psych.Comparison, names []string, strength string) error {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	var b strings.Builder
	b.WriteString("statistic,node1,node2,value_a,value_b,difference,p,p_adjusted\n")
	fmt.Fprintf(&b, "max_difference,,,,,%s,%s,\n", f(c.MaxDifference), f(c.MaxDifferenceP))
	fmt.Fprintf(&b, "%s,,,%s,%s,%s,%s,\n", strings.ReplaceAll(strength, " ", "_"), f(c.Strength[0]), f(c.Strength[1]), f(c.StrengthDifference), f(c.StrengthP))
	for _, e := range c.Edges {
		fmt.Fprintf(&b, "edge,%s,%s,%s,%s,%s,%s,%s\n", names[e.I], names[e.J], f(e.Weight1), f(e.Weight2), f(e.Difference), f(e.P), f(e.Adjusted))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
