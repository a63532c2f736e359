package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/cmd/cli"
)

// learnFormats are the output formats of "pairwise learn".
var learnFormats = []string{"csv", "json", "dot", "model"}

// learnUsage is the help of "pairwise learn".
const learnUsage = `Usage: pairwise learn [flags] FILE

Reads samples from FILE ("-" for standard input), one sample a line: states
0..k-1 or spins -1/+1, comma-separated, with an optional header line of
variable names. With -histogram each line is "count,z_1,...,z_n". Learns the
graph and the couplings with Algorithm 1 (k = 2) or Algorithm 2 (k > 2) of Wu,
Sanghavi and Dimakis (2019), and writes the learned edges (csv, json), the
graph for Graphviz (dot) or the learned model (model, read by 'pairwise
sample'). Variables are named by the header, or x1..xn without one.

Without -lambda and -eta the library chooses them from the data (slower);
with them, the learner is exactly the paper's algorithm.

Answers with k > 2 values (-scale): Likert items and other ordered answers
are learned with one coupling a pair on the answers' values (the ordinal
model, W_ij(a,b) = w_ij·s_i(a)·s_j(b), s the values scaled to [-1, 1]),
other states with a full k×k block a pair (Algorithm 2). By default
(-scale auto, without -eta) the data choose: ordinal when most of the
association between the answers lies along their values. The summary
says which model was used and why; -scale ordinal or -scale nominal
decides. With -eta the states are nominal unless -scale ordinal.
-nominal names columns that are unordered categories among ordered
answers (a region, a diagnosis): on the ordinal scale they get one
coupling a value (the mixed model; without -lambda and -eta).

The alphabet: without -k or -states, k is the largest value + 1, and the
summary warns about a state that never occurs (a scale written 1..6 leaves
state 0 empty, which changes the graph: read it with -states 1,2,3,4,5,6)
and about a value seen in fewer than five places (a typo that adds a
state), naming where it is. With -k or -states any other value is an error
at its line and column. At most 256 states.

Missing values: NA and empty fields (-na sets the markers). By default,
on binary data each variable's regression uses the rows that observe it,
a missing neighbour entering as the spin 0 (-missing avail); for k > 2 a
missing value is learned as a state of its own and the graph is reported
for the real states (-missing state, which binary data can take too);
-missing listwise drops the rows with a missing value instead. The summary
says how many values are missing and what was done. See docs/missing for
how the rules compare.

Examples:
  pairwise learn -lambda 2.5 -eta 0.4 testdata/grid.csv
  pairwise learn -format dot -o grid.dot testdata/grid.csv && neato -Tsvg grid.dot > grid.svg
  pairwise learn -histogram -lambda 2.4 -eta 0.6 -format json testdata/survey.csv
  pairwise learn -lambda 2.5 -eta 0.4 -format model testdata/grid.csv | pairwise sample -n 10 -
`

// runLearn reads samples, learns the graph and the couplings with
// pairwise.Learn, and writes them in the chosen format.
func runLearn(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("learn", learnUsage, stderr)
	lf := addLearnerFlags(fs)
	format, out, modelOut := addResultFlags(fs)
	quiet := fs.Bool("quiet", false, "no progress bar and no summary on standard error (warnings are still written: they change what the result means)")
	shard := fs.String("shard", "", shardHelp)
	set, err := cli.ParseOneFile(fs, args, "pairwise learn", "input FILE")
	if err != nil {
		return err
	}
	if err := cli.CheckFormat(*format, learnFormats...); err != nil {
		return err
	}
	opts, ro, err := lf.options(set)
	if err != nil {
		return err
	}
	// Fail before the fit, not after it, on an output that cannot be written.
	for _, path := range []string{*out, *modelOut} {
		if err := cli.CheckOutput(path); err != nil {
			return err
		}
	}
	if os.Getenv("GOGC") == "" {
		// The samples are a few large allocations without pointers,
		// which the collector scans at no cost; collecting more often
		// keeps the garbage of the per-node work from growing to the
		// size of the samples again (the default GOGC=100 lets the heap
		// reach twice the live data).
		defer debug.SetGCPercent(debug.SetGCPercent(learnGCPercent(fs.Arg(0))))
	}
	if set["shard"] && set["nominal"] {
		return fmt.Errorf("-nominal: the mixed model is learned in one process, not in shards")
	}
	if set["shard"] {
		return runLearnShard(*shard, set, fs.Arg(0), ro, opts, *out, stdout, stderr, *quiet) // shard.go
	}
	s, res, err := learnFile(fs.Arg(0), ro, opts, *lf.nominal, stderr, *quiet, *lf.solver == "sparsitron")
	if err != nil {
		return err
	}
	return writeResult(*format, *out, *modelOut, stdout, res, s)
}

// largeInput is the size of an input file from which learn collects
// more often (learnGCPercent).
const largeInput = 1 << 28

// learnGCPercent returns the collector's GOGC for learning from path: 25,
// and 10 for a file of at least largeInput bytes (about 10^8 values of
// text), where the samples are most of the heap. The collector marks
// only what holds pointers, and the samples hold none, so a cycle costs
// next to nothing there: at n = 5,000, N = 10^5 (shard 1/50, 2 workers)
// 16 cycles took 0.01 s of CPU, as 9 cycles did at 25, and the peak was
// 133 MB against 144. Small inputs keep 25: their heap is small and holds
// pointers, and a lower goal would collect more often for little.
func learnGCPercent(path string) int {
	if fi, err := os.Stat(path); err == nil && fi.Size() >= largeInput {
		return 10
	}
	return 25
}

// addResultFlags registers the output flags of a learned result, for
// learn and merge: -format, -o and -model-out.
func addResultFlags(fs *flag.FlagSet) (format, out, modelOut *string) {
	return fs.String("format", "csv", "output `format`: csv (edges), json (edges and matrices, and without -eta the edge test and each edge's statistic), dot (Graphviz), model (the learned model as JSON)"),
		fs.String("o", "", "write the output to `FILE` (default standard output)"),
		fs.String("model-out", "", "also write the learned model as JSON to `FILE`, for 'pairwise sample'")
}

// writeResult writes a learned result to out in format (one of
// learnFormats), and its model to modelOut unless that is "". s gives the
// counts of the samples for the json format.
func writeResult(format, out, modelOut string, stdout io.Writer, res *pairwise.Result, s sampleCounts) error {
	if err := cli.WriteFile(out, stdout, func(w io.Writer) error {
		switch format {
		case "json":
			return res.WriteEdgesJSON(w, s.TotalWeight(), s.Len())
		case "dot":
			return res.WriteDOT(w)
		case "model":
			return res.Model.WriteModel(w)
		}
		return res.WriteEdgesCSV(w)
	}); err != nil || modelOut == "" {
		return err
	}
	return cli.WriteFile(modelOut, stdout, res.Model.WriteModel)
}

// sampleCounts is what Result.WriteEdgesJSON reports about the samples: a
// *pairwise.Samples, or the *pairwise.Partial that recorded them.
type sampleCounts interface {
	TotalWeight() float64
	Len() int
}
