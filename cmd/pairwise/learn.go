package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/mrfkit/pairwise"
)

// stdin is the standard input of the commands; tests replace it.
var stdin io.Reader = os.Stdin

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

The alphabet: without -k or -states, k is the largest value + 1, and the
summary warns about a state that never occurs (a scale written 1..6 leaves
state 0 empty, which changes the graph: read it with -states 1,2,3,4,5,6)
and about a value seen in fewer than five places (a typo that adds a
state), naming where it is. With -k or -states any other value is an error
at its line and column. At most 256 states.

Missing values: NA and empty fields (-na sets the markers). By default a
missing value is learned as a state of its own and the graph is reported
for the real states (-missing state); -missing listwise drops the rows with
a missing value instead. The summary says how many values are missing and
what was done. See docs/missing for how the two compare.

Examples:
  pairwise learn -lambda 2.5 -eta 0.4 testdata/grid.csv
  pairwise learn -format dot -o grid.dot testdata/grid.csv && neato -Tsvg grid.dot > grid.svg
  pairwise learn -histogram -lambda 2.4 -eta 0.6 -format json testdata/survey.csv
  pairwise learn -lambda 2.5 -eta 0.4 -format model testdata/grid.csv | pairwise sample -n 10 -
`

// runLearn reads samples, learns the graph and the couplings with
// pairwise.Learn, and writes them in the chosen format.
func runLearn(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("learn", learnUsage, stderr)
	format := fs.String("format", "csv", "output `format`: csv (edges), json (edges and matrices, and without -eta the edge test and each edge's statistic), dot (Graphviz), model (the learned model as JSON)")
	out := fs.String("o", "", "write the output to `FILE` (default standard output)")
	modelOut := fs.String("model-out", "", "also write the learned model as JSON to `FILE`, for 'pairwise sample'")
	histogram := fs.Bool("histogram", false, `the input is a histogram, lines "count,z_1,...,z_n"`)
	merge := fs.Bool("merge", true, "merge identical rows into counts while reading (less memory and time when rows repeat);\n-merge=false keeps every row in file order")
	lambda := fs.Float64("lambda", 0, "width bound `λ` ≥ the model width, radius 2λ (k = 2) or 2λ√k (default: the library's choice)")
	eta := fs.Float64("eta", 0, "minimum edge weight bound `η`: keep edges of weight ≥ η/2 (default: the library's choice)")
	radius := fs.Float64("radius", 0, "constraint `radius` of every regression, in place of the one set by λ (default: from λ)")
	selection := fs.String("select", "", "without -lambda, the `rule` choosing each node's λ: cv (cross-validation) or ebic (default: the library's rule)")
	folds := fs.Int("folds", 0, "without -lambda, with -select cv: cross-validation `folds` (default: the library's)")
	gamma := fs.Float64("gamma", 0.25, "without -lambda, with -select ebic: the EBIC `γ` (0 is BIC; 0.25 is IsingFit's choice)")
	alpha := fs.Float64("alpha", pairwise.DefaultFalseEdgeRate, "without -eta: family-wise false-edge `rate` α of the edge test")
	gap := fs.Bool("gap", true, "without -eta: let the edge test's gap rule add the pairs above the widest gap in the statistics (-gap=false: Bonferroni at α only)")
	mixture := fs.Bool("mixture", true, "without -eta, Ising data: keep the pairs whose statistic a two-group mixture fit says is more likely an edge than not,\nonce five pairs reach the Bonferroni value (-mixture=false, or fewer pairs: the gap rule of -gap)")
	refit := fs.Bool("refit", true, "without -eta, Ising data: test the pairs again after refitting each node on the pairs whose statistic reaches 1.5 (-refit=false: one stage)")
	ebicGraph := fs.Bool("ebic-graph", true, "without -eta, Ising data, EBIC widths: the small-sample stage; when a global test rejects independence at α/2 and the\nedge test finds fewer than half of the pairs both nodes' EBIC fits keep, learn those pairs too if BIC prefers it (-ebic-graph=false: the test alone)")
	solver := fs.String("solver", "", "regression `backend`: entropic (Algorithm 3), group (Algorithm 4), or sparsitron (the paper's online\nbaseline; it reads the rows in file order, so it implies -merge=false) (default: entropic for k = 2, group for k > 2)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "`goroutines` solving nodes in parallel; results do not depend on it")
	tol := fs.Float64("tol", pairwise.DefaultTolerance, "certified optimality `gap` L(ŵ) - L* of every regression")
	maxIter := fs.Int("max-iter", pairwise.DefaultMaxIterations, "iteration `cap` of every regression")
	sym := fs.String("sym", "average", "the `rule` combining a pair's two estimates into an edge: average, and (both) or or (either)")
	quiet := fs.Bool("quiet", false, "no progress bar and no summary on standard error")
	alphabet := fs.Int("k", 0, "the alphabet size `k`: values must be states 0..k-1 (or spins for k = 2); any other value is an error (default: from the data)")
	states := fs.String("states", "", "the `list` of states as written, comma-separated, in order: -states 1,2,3,4,5 reads a scale written 1..5 as states 0..4")
	na := fs.String("na", "NA,", "the missing-value `markers`, comma-separated (the default is NA and the empty field; \"none\" for none)")
	missing := fs.String("missing", "state", "how to learn from rows with missing values: `rule` state (a missing value is a state of its own) or listwise (drop the rows)")
	shard := fs.String("shard", "", shardHelp)
	set, err := parseOneFile(fs, args, "learn", "input FILE")
	if err != nil {
		return err
	}
	if !oneOf(*format, learnFormats) {
		return usageError("-format %q: want one of %s", *format, strings.Join(learnFormats, ", "))
	}
	if *solver == "sparsitron" && !set["merge"] {
		*merge = false // an online method sees the samples in order
	}
	opts, err := learnOptions(set, *lambda, *eta, *radius, *solver, *workers, *tol, *maxIter, *sym)
	if err != nil {
		return err
	}
	sel, err := selectionOptions(set, *selection, *folds, *gamma, *alpha, *gap, *refit, *mixture, *ebicGraph)
	if err != nil {
		return err
	}
	opts = append(opts, sel...)
	ro, err := readOptions(set, *alphabet, *states, *na)
	if err != nil {
		return err
	}
	switch *missing {
	case "state":
	case "listwise":
		opts = append(opts, pairwise.WithMissing(pairwise.ListwiseDeletion))
	default:
		return usageError("-missing %q: want state or listwise", *missing)
	}
	// Fail before the fit, not after it, on an output that cannot be written.
	for _, path := range []string{*out, *modelOut} {
		if err := checkOutput(path); err != nil {
			return err
		}
	}
	if set["shard"] {
		ro.Histogram, ro.Compact = *histogram, *merge
		return runLearnShard(*shard, set, fs.Arg(0), ro, opts, *out, stdout, stderr, *quiet) // shard.go
	}

	if os.Getenv("GOGC") == "" {
		// The samples are a few large allocations without pointers,
		// which the collector scans at no cost; collecting more often
		// keeps the garbage of the per-node work from growing to the
		// size of the samples again (the default GOGC=100 lets the heap
		// reach twice the live data).
		defer debug.SetGCPercent(debug.SetGCPercent(25))
	}
	ro.Histogram, ro.Compact = *histogram, *merge
	s, name, err := readSamples(fs.Arg(0), ro, stderr, *quiet)
	if err != nil {
		return err
	}
	// The reader's garbage (its hash index, grown buffers) goes back to
	// the system before the learner allocates its own buffers.
	debug.FreeOSMemory()
	if !*quiet {
		noteStates(stderr, name, s)
	}
	names := s.Names()
	if names == nil {
		names = defaultNames(s.Vars())
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	bar := newProgress(stderr, "learning", s.Vars(), *quiet)
	bar.Stage = s.Vars()
	opts = append(opts, pairwise.WithProgress(bar.Func()))
	t0 := time.Now()
	res, err := pairwise.LearnContext(ctx, s, opts...)
	bar.Finish()
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return errors.New("interrupted")
		}
		return flagHint(err)
	}
	if err := res.Model.SetNames(names); err != nil {
		return err // cannot happen: the reader checks names as SetNames does
	}
	if !*quiet {
		summarize(stderr, name, s, res, time.Since(t0), *solver == "sparsitron")
	}

	if err := writeOutput(*out, stdout, func(w io.Writer) error {
		switch *format {
		case "json":
			return writeEdgesJSON(w, res, names, s)
		case "dot":
			return writeDOT(w, res, names)
		case "model":
			return res.Model.WriteModel(w)
		}
		return writeEdgesCSV(w, res, names)
	}); err != nil {
		return err
	}
	if *modelOut != "" {
		return writeOutput(*modelOut, stdout, res.Model.WriteModel)
	}
	return nil
}

// learnOptions turns the flags into learner options. Only flags given on
// the command line become options, so that a missing flag leaves the choice
// to the library (its defaults, or its data-driven selection of λ and η).
func learnOptions(set map[string]bool, lambda, eta, radius float64, solver string, workers int, tol float64, maxIter int, sym string) ([]pairwise.Option, error) {
	if workers < 1 {
		return nil, usageError("-workers %d: want at least 1", workers)
	}
	opts := []pairwise.Option{pairwise.WithWorkers(workers)}
	if set["lambda"] {
		opts = append(opts, pairwise.WithWidth(lambda))
	}
	if set["eta"] {
		opts = append(opts, pairwise.WithMinEdgeWeight(eta))
	}
	if set["radius"] {
		opts = append(opts, pairwise.WithRadius(radius))
	}
	if set["tol"] {
		opts = append(opts, pairwise.WithTolerance(tol))
	}
	if set["max-iter"] {
		opts = append(opts, pairwise.WithMaxIterations(maxIter))
	}
	switch solver {
	case "":
	case "entropic":
		opts = append(opts, pairwise.WithSolver(pairwise.EntropicMirror{}))
	case "group":
		opts = append(opts, pairwise.WithSolver(pairwise.GroupMirror{}))
	case "sparsitron":
		opts = append(opts, pairwise.WithSolver(pairwise.Sparsitron{}))
	default:
		return nil, usageError("-solver %q: want entropic, group or sparsitron", solver)
	}
	switch sym {
	case "average":
	case "and":
		opts = append(opts, pairwise.WithSymmetrization(pairwise.And))
	case "or":
		opts = append(opts, pairwise.WithSymmetrization(pairwise.Or))
	default:
		return nil, usageError("-sym %q: want average, and, or or", sym)
	}
	return opts, nil
}

// selectionOptions turns the flags of the data-driven choice of λ and η
// into options; as in learnOptions, only flags given become options. The
// flags apply only when -lambda (for -select, -folds, -gamma) or -eta (for
// -alpha, -gap, -refit, -mixture) is missing; giving both is a mistake worth reporting.
func selectionOptions(set map[string]bool, rule string, folds int, gamma, alpha float64, gap, refit, mixture, ebicGraph bool) ([]pairwise.Option, error) {
	var opts []pairwise.Option
	if set["folds"] && folds < 2 {
		return nil, usageError("-folds %d: want at least 2", folds)
	}
	if set["gamma"] && !(gamma >= 0) {
		return nil, usageError("-gamma %v: want γ ≥ 0", gamma)
	}
	if set["lambda"] || set["radius"] {
		for _, name := range []string{"select", "folds", "gamma"} {
			if set[name] {
				return nil, usageError("-%s chooses λ from the data; it has no effect with -lambda or -radius", name)
			}
		}
	}
	for _, name := range []string{"alpha", "gap", "refit", "mixture", "ebic-graph"} {
		if set["eta"] && set[name] {
			return nil, usageError("-%s sets the edge test used without -eta; it has no effect with -eta", name)
		}
	}
	switch rule {
	case "":
		for _, name := range []string{"folds", "gamma"} {
			if set[name] {
				return nil, usageError("-%s: say which rule it is for with -select", name)
			}
		}
	case "cv":
		if set["gamma"] {
			return nil, usageError("-gamma applies to -select ebic")
		}
		opts = append(opts, pairwise.WithSelection(pairwise.CrossValidation{Folds: folds}))
	case "ebic":
		if set["folds"] {
			return nil, usageError("-folds applies to -select cv")
		}
		opts = append(opts, pairwise.WithSelection(pairwise.EBIC{Gamma: gamma}))
	default:
		return nil, usageError("-select %q: want cv or ebic", rule)
	}
	if set["alpha"] {
		opts = append(opts, pairwise.WithFalseEdgeRate(alpha))
	}
	if set["gap"] {
		opts = append(opts, pairwise.WithEdgeGap(gap))
	}
	if set["refit"] {
		opts = append(opts, pairwise.WithRefit(refit))
	}
	if set["mixture"] {
		opts = append(opts, pairwise.WithEdgeMixture(mixture))
	}
	if set["ebic-graph"] {
		opts = append(opts, pairwise.WithEBICGraph(ebicGraph))
	}
	return opts, nil
}

// optionFlags maps the options of the library to the flags that set them:
// the learner's, which learn passes, and the Gibbs sampler's, which sample
// passes.
var optionFlags = map[string]string{
	"WithWidth":         "-lambda",
	"WithMinEdgeWeight": "-eta",
	"WithRadius":        "-radius",
	"WithTolerance":     "-tol",
	"WithMaxIterations": "-max-iter",
	"WithWorkers":       "-workers",
	"WithFalseEdgeRate": "-alpha",
	"WithSelection":     "-select",
	"GibbsBurnIn":       "-burnin",
	"GibbsThin":         "-thin",
	"GibbsChains":       "-chains",
}

// flagHint restates an error of the library for the command line: an
// invalid option (a *pairwise.OptionError) is named by its flag, "-lambda
// -1: the width bound λ must be ...", the error of an edge test too large
// to run names the flag that avoids it, and the package's prefix goes from
// the other messages. Several errors joined by errors.Join are restated
// one a line.
func flagHint(err error) error {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var lines []string
		for _, e := range joined.Unwrap() {
			lines = append(lines, flagHint(e).Error())
		}
		return errors.New(strings.Join(lines, "\n"))
	}
	var oe *pairwise.OptionError
	if errors.As(err, &oe) {
		if flag, ok := optionFlags[oe.Option]; ok {
			return fmt.Errorf("%s %v: %s", flag, oe.Value, oe.Reason)
		}
		return fmt.Errorf("%s(%v): %s", oe.Option, oe.Value, oe.Reason)
	}
	msg := libPrefixes.ReplaceAllString(err.Error(), "")
	if errors.Is(err, pairwise.ErrEdgeTestTooLarge) {
		msg += " (flag " + optionFlags["WithMinEdgeWeight"] + ")"
	}
	return errors.New(msg)
}

// libPrefixes matches "pairwise: " and "pairwise: Function: " at the start
// of every line of a (joined) error.
var libPrefixes = regexp.MustCompile(`(?m)^pairwise: ([A-Za-z.]+: )?`)

// countNames are header names of a first column that holds counts.
var countNames = []string{"count", "counts", "n", "freq", "frequency", "weight", "weights"}

// readSamples reads the samples of path ("-" for stdin) with a progress bar
// for the bytes read, and returns them with the input's name for messages.
func readSamples(path string, o pairwise.CSVOptions, stderr io.Writer, quiet bool) (*pairwise.Samples, string, error) {
	histogram := o.Histogram
	in, err := openInput(path, stdin)
	if err != nil {
		return nil, "", err
	}
	defer in.Close()
	bar := newByteProgress(stderr, "reading", in.size, quiet)
	counted := &countingReader{r: in.r, p: bar}
	br := bufio.NewReaderSize(counted, 1<<16)
	var r io.Reader = br
	if in.size > 0 {
		// Tell the reader how much is left, so that it can allocate its
		// storage once (see pairwise.ReadCSV).
		r = &sizedReader{Reader: br, left: func() int64 { return in.size - int64(counted.n) + int64(br.Buffered()) }}
	}
	if !histogram {
		if name := firstField(br); oneOf(strings.ToLower(name), countNames) {
			return nil, "", fmt.Errorf("%s: line 1, column 1: the first column is named %q: if it holds counts, pass -histogram to read lines \"count,z_1,...,z_n\"; otherwise rename the column", in.name, name)
		}
	}
	s, err := pairwise.ReadCSVWith(r, o)
	bar.Finish()
	if err != nil {
		var pe *pairwise.ParseError
		if !histogram && errors.As(err, &pe) && pe.Column == 1 && isCount(pe.Value) {
			return nil, "", fmt.Errorf("%w (if the first column holds counts, pass -histogram)", fileError(in.name, err))
		}
		return nil, "", fileError(in.name, err)
	}
	return s, in.name, nil
}

// isCount reports whether a field that is not a state could be a count of
// a histogram: a number, but not an integer state.
func isCount(field string) bool {
	_, err := strconv.ParseFloat(field, 64)
	return err == nil
}

// firstField returns the first field of the first line that r holds in its
// buffer, without quotes and surrounding spaces, without consuming it.
func firstField(r *bufio.Reader) string {
	b, _ := r.Peek(r.Size()) // a short read is fine: we only need the start
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	if i := bytes.IndexAny(b, ",\r\n"); i >= 0 {
		b = b[:i]
	}
	return strings.Trim(strings.TrimSpace(string(b)), `"`)
}

// defaultNames returns x1..xn, the names of variables without a header.
func defaultNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("x%d", i+1)
	}
	return names
}

// summarize writes one line about the learned graph, and a warning for
// regressions that stopped at the iteration cap (not for an online solver,
// which makes one pass and has no stopping rule).
func summarize(w io.Writer, name string, s *pairwise.Samples, res *pairwise.Result, elapsed time.Duration, online bool) {
	rows := ""
	if s.Weighted() {
		rows = fmt.Sprintf(" (%d distinct rows)", s.Len())
	}
	lambda := fmt.Sprintf("λ = %g", res.Width)
	if math.IsNaN(res.Width) {
		lambda = fmt.Sprintf("radius %g", res.Radius)
	}
	eta := fmt.Sprintf("η = %g", res.MinEdgeWeight)
	if tu := res.Tuning; tu != nil {
		if tu.Selection != nil {
			lo, hi := math.Inf(1), 0.0
			for _, f := range res.Nodes {
				lo, hi = math.Min(lo, f.Width), math.Max(hi, f.Width)
			}
			lambda = fmt.Sprintf("λ_i from %.3g to %.3g chosen by %v", lo, hi, tu.Selection)
		}
		if tu.FalseEdgeRate > 0 {
			eta = fmt.Sprintf("edges by a Wald test at false-edge rate α = %g, threshold %.3g", tu.FalseEdgeRate, tu.Threshold)
			if tu.Refit {
				eta += fmt.Sprintf(" after a refit on the pairs ≥ %.3g", tu.Screen)
			}
			if mx := tu.Mixture; mx != nil {
				eta += fmt.Sprintf(", cut by a mixture fit (%.3g of the pairs edges)", mx.EdgeShare)
			} else if tu.Lowest > 0 {
				eta += fmt.Sprintf(", cut at the widest gap above %.3g", tu.Lowest)
			}
			if tu.EBICGraph {
				eta += fmt.Sprintf("; then the EBIC graph (independence rejected, p = %.2g), its pairs not tested", tu.GlobalP)
			}
		}
	}
	fmt.Fprintf(w, "%s: %s samples%s of %d variables, k = %d: %d edges learned in %v (%s; %s)\n",
		name, strconv.FormatFloat(s.TotalWeight(), 'f', -1, 64), rows, s.Vars(), s.Alphabet(), len(res.Edges), elapsed.Round(time.Millisecond), lambda, eta)
	if rep := res.Missing; rep != nil {
		switch rep.Rule {
		case pairwise.ListwiseDeletion:
			fmt.Fprintf(w, "missing values: %v in %v rows; those rows were dropped (-missing listwise), %v rows learned\n", rep.Values, rep.Rows, s.TotalWeight()-rep.Dropped)
		default:
			fmt.Fprintf(w, "missing values: %v in %v rows, learned as a state of their own (-missing state; -missing listwise drops the rows instead)\n", rep.Values, rep.Rows)
		}
	}
	unconverged := 0
	for _, f := range res.Nodes {
		if !f.Converged {
			unconverged++
		}
	}
	if unconverged > 0 && !online {
		fmt.Fprintf(w, "warning: the regressions of %d of %d nodes reached the iteration cap before certifying the tolerance (raise -max-iter or -tol)\n", unconverged, len(res.Nodes))
	}
	for _, warn := range res.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
}

func oneOf(s string, list []string) bool {
	for _, x := range list {
		if s == x {
			return true
		}
	}
	return false
}

// readOptions turns the reading flags into the reader's options.
func readOptions(set map[string]bool, k int, states, na string) (pairwise.CSVOptions, error) {
	var o pairwise.CSVOptions
	if set["k"] && set["states"] {
		return o, usageError("give -k or -states, not both")
	}
	if set["k"] {
		if k < 2 || k > pairwise.MaxLearnAlphabet {
			return o, usageError("-k %d: want 2 to %d states", k, pairwise.MaxLearnAlphabet)
		}
		o.Alphabet = k
	}
	if set["states"] {
		o.States = strings.Split(states, ",")
		if len(o.States) > pairwise.MaxLearnAlphabet {
			return o, usageError("-states: %d states, the learners take at most %d", len(o.States), pairwise.MaxLearnAlphabet)
		}
	}
	if set["na"] {
		o.Missing = []string{}
		if na != "none" {
			o.Missing = strings.Split(na, ",")
		}
	}
	return o, nil
}

// checkOutput returns an error when path (an output file; "" or "-" is
// standard output) cannot be created: its directory is missing or not a
// directory, or path is a directory. It creates nothing.
func checkOutput(path string) error {
	if path == "" || path == "-" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s: is a directory", path)
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return fmt.Errorf("%s: %v", path, pe.Err)
		}
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: not a directory", dir)
	}
	return nil
}

// noteStates writes the reader's notes on the alphabet (pairwise.StateNotes)
// as warnings, with what to do about them.
func noteStates(w io.Writer, name string, s *pairwise.Samples) {
	for _, n := range s.StateNotes() {
		if n.Count == 0 {
			fmt.Fprintf(w, "warning: %s: %s, yet k = %d counts it: if the file codes its values from 1 (or skips one), list them with -states so that the empty state does not change the graph\n", name, n, s.Alphabet())
			continue
		}
		fmt.Fprintf(w, "warning: %s: %s in %v values: a typo? It adds a state (k = %d); correct it, mark it missing, or state the alphabet with -k to make it an error\n", name, n, float64(s.Vars())*s.TotalWeight()-s.MissingCount(), s.Alphabet())
	}
}
