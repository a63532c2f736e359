package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/cmd/cli"
	"github.com/mrfkit/pairwise/psych"
)

// learnerFlags are the flags of the reader and of the learner that every
// subcommand learning from a CSV file shares (learn, network, bootstrap,
// compare-groups): the same names, help and checks in all of them.
type learnerFlags struct {
	names                                                  []string // the flags' names
	histogram, merge, gap, mixture, refit, isingfit, graph *bool
	lambda, eta, radius, gamma, alpha, tol                 *float64
	selection, solver, sym, states, na, missing, scale     *string
	nominal                                                *string
	folds, workers, maxIter, alphabet                      *int
}

// addLearnerFlags registers the learner's flags on fs, which must have no
// flags yet (their names are those fs then holds).
func addLearnerFlags(fs *flag.FlagSet) *learnerFlags {
	lf := &learnerFlags{
		histogram: fs.Bool("histogram", false, `the input is a histogram, lines "count,z_1,...,z_n"`),
		merge:     fs.Bool("merge", true, "merge identical rows into counts while reading (less memory and time when rows repeat);\n-merge=false keeps every row in file order"),
		isingfit:  fs.Bool("isingfit", false, "estimate as R's IsingFit 0.4 does (psych.IsingFit: glmnet's penalised path, EBIC γ = 0.25 (-gamma),\nAND rule, every nonzero coefficient an edge, no edge test; binary items, complete rows), to match a published analysis\n(see docs/psych)"),
		lambda:    fs.Float64("lambda", 0, "width bound `λ` ≥ the model width, radius 2λ (k = 2) or 2λ√k (default: the library's choice)"),
		eta:       fs.Float64("eta", 0, "minimum edge weight bound `η`: keep edges of weight ≥ η/2 (default: the library's choice)"),
		radius:    fs.Float64("radius", 0, "constraint `radius` of every regression, in place of the one set by λ (default: from λ)"),
		selection: fs.String("select", "", "without -lambda, the `rule` choosing each node's λ: cv (cross-validation) or ebic (default: the library's rule)"),
		folds:     fs.Int("folds", 0, "without -lambda, with -select cv: cross-validation `folds` (default: the library's)"),
		gamma:     fs.Float64("gamma", 0.25, "without -lambda, with -select ebic or -isingfit: the EBIC `γ` (0 is BIC; 0.25 is IsingFit's choice)"),
		alpha:     fs.Float64("alpha", pairwise.DefaultFalseEdgeRate, "without -eta: family-wise false-edge `rate` α of the edge test"),
		gap:       fs.Bool("gap", true, "without -eta: let the edge test's gap rule add the pairs above the widest gap in the statistics (-gap=false: Bonferroni at α only)"),
		mixture:   fs.Bool("mixture", true, "without -eta, Ising data: keep the pairs whose statistic a two-group mixture fit says is more likely an edge than not,\nonce five pairs reach the Bonferroni value (-mixture=false, or fewer pairs: the gap rule of -gap)"),
		refit:     fs.Bool("refit", true, "without -eta, Ising data: test the pairs again after refitting each node on the pairs whose statistic reaches 1.5 (-refit=false: one stage)"),
		graph:     fs.Bool("ebic-graph", true, "without -eta, Ising data with EBIC widths and the ordinal scale: the small-sample stage; when a global test rejects independence at α/2\nand the edge test finds fewer than half of the pairs both nodes' EBIC fits keep, learn those pairs too if BIC prefers it (-ebic-graph=false: the test alone)"),
		solver:    fs.String("solver", "", "regression `backend`: entropic (Algorithm 3), group (Algorithm 4), or sparsitron (the paper's online\nbaseline; it reads the rows in file order, so it implies -merge=false), to reproduce the paper; they are much slower than the default\n(default: the library's Accelerated, for every k)"),
		workers:   fs.Int("workers", runtime.GOMAXPROCS(0), "`goroutines` solving nodes in parallel; results do not depend on it"),
		tol:       fs.Float64("tol", pairwise.DefaultTolerance, "certified optimality `gap` L(ŵ) - L* of every regression"),
		maxIter:   fs.Int("max-iter", pairwise.DefaultMaxIterations, "iteration `cap` of every regression"),
		sym:       fs.String("sym", "average", "the `rule` combining a pair's two estimates into an edge: average, and (both) or or (either)"),
		alphabet:  fs.Int("k", 0, "the alphabet size `k`: values must be states 0..k-1 (or spins for k = 2); any other value is an error (default: from the data)"),
		states:    fs.String("states", "", "the `list` of states as written, comma-separated, in order: -states 1,2,3,4,5 reads a scale written 1..5 as states 0..4"),
		na:        fs.String("na", "NA,", "the missing-value `markers`, comma-separated (the default is NA and the empty field; \"none\" for none)"),
		scale:     fs.String("scale", "auto", "for k > 2: `scale` ordinal (one coupling a pair on the answers' values, W_ij(a,b) = w·s_i(a)·s_j(b)),\nnominal (full k×k blocks, Algorithm 2) or auto (ordinal when most of the association between the answers\nlies along their values, as for Likert items; without -eta only)"),
		nominal:   fs.String("nominal", "", "the `columns` whose answers are unordered categories among ordered ones, comma-separated header names\nor column numbers from 1: on the ordinal scale they are coded one indicator a value (the mixed model; without -lambda and -eta only)"),
		missing:   fs.String("missing", "", "how to learn from rows with missing values: `rule` avail (binary data: each variable's regression on the rows that observe it,\na missing neighbour as the spin 0), state (a missing value is a state of its own) or listwise (drop the rows)\n(default: avail for binary data, state for k > 2)"),
	}
	fs.VisitAll(func(f *flag.Flag) { lf.names = append(lf.names, f.Name) })
	return lf
}

// options turns the flags given on the command line (set) into the
// reader's and the learner's options. Only flags given become options, so
// that a missing flag leaves the choice to the library (its defaults, or
// its data-driven selection of λ and η). The flags of that selection apply
// only when -lambda (for -select, -folds, -gamma) or -eta (for -alpha,
// -gap, -refit, -mixture) is missing, and -isingfit replaces the edge
// test: giving both is a mistake worth reporting.
func (lf *learnerFlags) options(set map[string]bool) ([]pairwise.Option, pairwise.CSVOptions, error) {
	ro := pairwise.CSVOptions{Histogram: *lf.histogram, Compact: *lf.merge && (*lf.solver != "sparsitron" || set["merge"])}
	fail := func(format string, args ...any) ([]pairwise.Option, pairwise.CSVOptions, error) {
		return nil, ro, fmt.Errorf(format, args...)
	}
	for _, name := range []string{"eta", "alpha", "gap", "mixture", "refit", "ebic-graph"} {
		if *lf.isingfit && set[name] {
			return fail("-%s sets the edge test or η, which -isingfit replaces by its nonzero rule", name)
		}
	}
	for _, name := range []string{"lambda", "radius", "select", "folds", "solver", "tol", "max-iter"} {
		if *lf.isingfit && set[name] {
			return fail("-%s sets the constrained fits, which -isingfit replaces by IsingFit's penalised path (-gamma sets its EBIC γ)", name)
		}
	}
	if *lf.workers < 1 {
		return fail("-workers %d: want at least 1", *lf.workers)
	}
	if set["folds"] && *lf.folds < 2 {
		return fail("-folds %d: want at least 2", *lf.folds)
	}
	if set["gamma"] && !(*lf.gamma >= 0) {
		return fail("-gamma %v: want γ ≥ 0", *lf.gamma)
	}
	for _, name := range []string{"select", "folds", "gamma"} {
		if (set["lambda"] || set["radius"]) && set[name] {
			return fail("-%s chooses λ from the data; it has no effect with -lambda or -radius", name)
		}
	}
	for _, name := range []string{"alpha", "gap", "refit", "mixture", "ebic-graph"} {
		if set["eta"] && set[name] {
			return fail("-%s sets the edge test used without -eta; it has no effect with -eta", name)
		}
	}
	opts := []pairwise.Option{pairwise.WithWorkers(*lf.workers)}
	if *lf.isingfit {
		opts = append(psych.IsingFitGamma(*lf.gamma), opts...) // the flags given win
	}
	for _, o := range []struct {
		flag string
		opt  pairwise.Option
	}{
		{"lambda", pairwise.WithWidth(*lf.lambda)}, {"eta", pairwise.WithMinEdgeWeight(*lf.eta)},
		{"radius", pairwise.WithRadius(*lf.radius)}, {"tol", pairwise.WithTolerance(*lf.tol)},
		{"max-iter", pairwise.WithMaxIterations(*lf.maxIter)},
	} {
		if set[o.flag] {
			opts = append(opts, o.opt)
		}
	}
	switch *lf.solver {
	case "":
	case "entropic":
		opts = append(opts, pairwise.WithSolver(pairwise.EntropicMirror{}))
	case "group":
		opts = append(opts, pairwise.WithSolver(pairwise.GroupMirror{}))
	case "sparsitron":
		opts = append(opts, pairwise.WithSolver(pairwise.Sparsitron{}))
	default:
		return fail("-solver %q: want entropic, group or sparsitron", *lf.solver)
	}
	switch *lf.sym {
	case "average":
	case "and":
		opts = append(opts, pairwise.WithSymmetrization(pairwise.And))
	case "or":
		opts = append(opts, pairwise.WithSymmetrization(pairwise.Or))
	default:
		return fail("-sym %q: want average, and, or or", *lf.sym)
	}
	switch *lf.selection {
	case "":
		for _, name := range []string{"folds", "gamma"} {
			if set[name] && !(name == "gamma" && *lf.isingfit) {
				return fail("-%s: say which rule it is for with -select", name)
			}
		}
	case "cv":
		if set["gamma"] {
			return fail("-gamma applies to -select ebic")
		}
		opts = append(opts, pairwise.WithSelection(pairwise.CrossValidation{Folds: *lf.folds}))
	case "ebic":
		if set["folds"] {
			return fail("-folds applies to -select cv")
		}
		opts = append(opts, pairwise.WithSelection(pairwise.EBIC{Gamma: *lf.gamma}))
	default:
		return fail("-select %q: want cv or ebic", *lf.selection)
	}
	for _, o := range []struct {
		flag string
		opt  pairwise.Option
	}{
		{"alpha", pairwise.WithFalseEdgeRate(*lf.alpha)}, {"gap", pairwise.WithEdgeGap(*lf.gap)},
		{"refit", pairwise.WithRefit(*lf.refit)}, {"mixture", pairwise.WithEdgeMixture(*lf.mixture)},
		{"ebic-graph", pairwise.WithEBICGraph(*lf.graph)},
	} {
		if set[o.flag] {
			opts = append(opts, o.opt)
		}
	}
	if set["k"] && set["states"] {
		return fail("give -k or -states, not both")
	}
	if k := *lf.alphabet; set["k"] && (k < 2 || k > pairwise.MaxLearnAlphabet) {
		return fail("-k %d: want 2 to %d states", k, pairwise.MaxLearnAlphabet)
	} else if set["k"] {
		ro.Alphabet = k
	}
	if set["states"] {
		if ro.States = strings.Split(*lf.states, ","); len(ro.States) > pairwise.MaxLearnAlphabet {
			return fail("-states: %d states, the learners take at most %d", len(ro.States), pairwise.MaxLearnAlphabet)
		}
	}
	if set["na"] {
		ro.Missing = []string{}
		if *lf.na != "none" {
			ro.Missing = strings.Split(*lf.na, ",")
		}
	}
	switch *lf.scale {
	case "auto":
		opts = append(opts, pairwise.WithScale(pairwise.AutoScale))
	case "ordinal":
		opts = append(opts, pairwise.WithScale(pairwise.Ordinal))
	case "nominal":
		opts = append(opts, pairwise.WithScale(pairwise.Nominal))
	default:
		return fail("-scale %q: want auto, ordinal or nominal", *lf.scale)
	}
	switch *lf.missing {
	case "": // the learners' default: AvailableCase for k = 2, MissingAsState for k > 2
	case "state":
		opts = append(opts, pairwise.WithMissing(pairwise.MissingAsState))
	case "listwise":
		opts = append(opts, pairwise.WithMissing(pairwise.ListwiseDeletion))
	case "avail":
		opts = append(opts, pairwise.WithMissing(pairwise.AvailableCase))
	default:
		return fail("-missing %q: want avail, state or listwise", *lf.missing)
	}
	return opts, ro, nil
}

// complete returns the samples s of the input name for the commands that
// resample whole rows and take no missing value: with -missing listwise
// without their incomplete rows, saying so (also when quiet); otherwise missing
// values are an error.
func (lf *learnerFlags) complete(s *pairwise.Samples, name string, stderr io.Writer, quiet bool) (*pairwise.Samples, error) {
	if !s.Incomplete() {
		return s, nil
	}
	if *lf.missing != "listwise" {
		return nil, fmt.Errorf("%s: %v missing values, which resampling cannot take: -missing listwise drops the rows that have them", name, s.MissingCount())
	}
	c, _, err := s.DropIncomplete()
	if err != nil {
		return nil, cli.FileError(name, err)
	}
	// Said even when quiet: the rows set aside change the result.
	fmt.Fprintf(stderr, "warning: %s: %v rows with missing values dropped (-missing listwise)\n", name, s.TotalWeight()-c.TotalWeight())
	return c, nil
}

// learnFile reads the samples of path with ro and learns them with opts,
// with a progress bar and Ctrl-C (during); the model is named by the
// header, or x1..xn. Unless quiet it writes the summary (summarize; online
// for the Sparsitron, which has no stopping rule); quiet, it still writes
// the warnings.
func learnFile(path string, ro pairwise.CSVOptions, opts []pairwise.Option, nominal string, stderr io.Writer, quiet, online bool) (*pairwise.Samples, *pairwise.Result, error) {
	s, name, err := cli.ReadSamples(path, stdin, ro, stderr, quiet)
	if err != nil {
		return nil, nil, err
	}
	if nominal != "" {
		vars, err := columnList(nominal, s.Names(), s.Vars())
		if err != nil {
			return nil, nil, fmt.Errorf("-nominal: %s: %w", name, err)
		}
		opts = append(slices.Clip(opts), pairwise.WithNominalVariables(vars...))
	}
	// The reader's garbage (its hash index, grown buffers) goes back to
	// the system before the learner allocates its own buffers.
	debug.FreeOSMemory()
	var res *pairwise.Result
	t0 := time.Now()
	if err := cli.During(stderr, "learning", s.Vars(), quiet, func(ctx context.Context, progress func(int, int)) (err error) {
		res, err = pairwise.LearnContext(ctx, s, append(opts, pairwise.WithProgress(progress))...)
		return err
	}); err != nil {
		return nil, nil, err
	}
	names := s.Names()
	if names == nil {
		names = defaultNames(s.Vars())
	}
	if err := res.Model.SetNames(names); err != nil {
		return nil, nil, err // cannot happen: the reader checks names as SetNames does
	}
	if !quiet {
		summarize(stderr, name, s, res, time.Since(t0), online)
	} else {
		warnings(stderr, res, online)
	}
	return s, res, nil
}

// summarize writes one line about the learned graph, how missing values
// were handled, and the result's warnings (warnings).
func summarize(w io.Writer, name string, s *pairwise.Samples, res *pairwise.Result, elapsed time.Duration, online bool) {
	rows := ""
	if s.Weighted() {
		rows = fmt.Sprintf(" (%d distinct rows)", s.Len())
	}
	lambda := fmt.Sprintf("λ = %g", res.Width)
	if math.IsNaN(res.Width) {
		lambda = fmt.Sprintf("radius %g", res.Radius)
	}
	if res.Radius == math.MaxFloat64 { // psych.IsingFit's radius out of reach
		lambda = "penalised regressions along IsingFit's path, each node's penalty chosen by EBIC"
	}
	eta := fmt.Sprintf("η = %g", res.MinEdgeWeight)
	if tu := res.Tuning; tu != nil {
		if tu.Selection != nil {
			lo, hi := math.Inf(1), 0.0
			for _, f := range res.Nodes {
				lo, hi = math.Min(lo, f.Width), math.Max(hi, f.Width)
			}
			switch {
			case hi == 0 && (tu.Ordinal || tu.Mixed):
				lambda = "no width: each variable's law refitted without constraint"
			default:
				lambda = fmt.Sprintf("λ_i from %.3g to %.3g chosen by %v", lo, hi, tu.Selection)
			}
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
	if s.Alphabet() > 2 {
		fmt.Fprintln(w, scaleLine(res))
	}
	if rep := res.Missing; rep != nil {
		switch rep.Rule {
		case pairwise.ListwiseDeletion:
			fmt.Fprintf(w, "missing values: %v in %v rows; those rows were dropped (-missing listwise), %v rows learned\n", rep.Values, rep.Rows, s.TotalWeight()-rep.Dropped)
		case pairwise.AvailableCase:
			fmt.Fprintf(w, "missing values: %v in %v rows; each variable learned from the rows that observe it, a missing neighbour as the spin 0 (-missing avail; -missing state or listwise for the other rules)\n", rep.Values, rep.Rows)
		default:
			fmt.Fprintf(w, "missing values: %v in %v rows, learned as a state of their own (-missing state; -missing listwise drops the rows instead)\n", rep.Values, rep.Rows)
		}
	}
	warnings(w, res, online)
}

// columnList returns the variables named in list (comma-separated header
// names, or column numbers from 1 where no header name matches) among n
// variables with the given names (nil without a header).
func columnList(list string, names []string, n int) ([]int, error) {
	var vars []int
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if x := slices.Index(names, f); x >= 0 {
			vars = append(vars, x)
			continue
		}
		c, err := strconv.Atoi(f)
		if err != nil || c < 1 || c > n {
			if names != nil {
				return nil, fmt.Errorf("%q is neither a column of the header nor a column number from 1 to %d", f, n)
			}
			return nil, fmt.Errorf("%q: want a column number from 1 to %d (the file has no header)", f, n)
		}
		vars = append(vars, c-1)
	}
	return vars, nil
}

// scaleLine says which model the k > 2 states were learned with, and why.
func scaleLine(res *pairwise.Result) string {
	why := ""
	if assoc, linear, needed, ok := res.ScaleCheck(); ok {
		share := "no association beyond chance"
		if assoc > 0 {
			share = fmt.Sprintf("%.0f%% of the association between the answers lies along their values; the ordinal scale needs %.0f%%", 100*linear/assoc, 100*needed/assoc)
		}
		why = "chosen from the data: " + share + "; "
	}
	if res.Scale == pairwise.Ordinal && len(res.Nominal) > 0 {
		names := res.Model.Names()
		found := res.NominalFound()
		var list []string
		for _, j := range res.Nominal {
			name := strconv.Itoa(j + 1)
			if names != nil {
				name = names[j]
			}
			if slices.Contains(found, j) {
				name += " (found)"
			}
			list = append(list, name)
		}
		how := "-nominal declares such columns"
		if len(found) > 0 {
			how = "found: most of its association lies off its values, along its partners'; -nominal declares such columns, -scale ordinal keeps every column ordered"
		}
		return fmt.Sprintf("scale: ordinal with %d nominal variable(s), %s: one coupling a pair between ordered answers, one a value of a nominal variable (%s; %s-scale nominal fits full k×k blocks)", len(list), strings.Join(list, ", "), how, why)
	}
	if res.Scale == pairwise.Ordinal {
		return "scale: ordinal, one coupling a pair on the answers' values (" + why + "-scale nominal fits full k×k blocks)"
	}
	if res.Tuning != nil && res.Tuning.Mixed {
		return "scale: nominal, a full k×k block a pair from one softmax regression a node on all rows (the node-wise multinomial model; " + why + "-scale ordinal fits one coupling a pair on the answers' values)"
	}
	return "scale: nominal, a full k×k block a pair (" + why + "-scale ordinal fits one coupling a pair on the answers' values)"
}

// warnings writes the result's warnings, one line each, even when quiet
// (quiet silences the progress and the summary, never a warning: pairs the
// edge test could not use, a constant variable, a fit that did not
// converge all change what the result means). online (the Sparsitron,
// which makes one pass and has no stopping rule) leaves NotConverged out.
func warnings(w io.Writer, res *pairwise.Result, online bool) {
	for _, warn := range res.Warnings {
		switch {
		case warn.Kind == pairwise.NotConverged && !online:
			fmt.Fprintf(w, "warning: %s; the command's flags for it: -max-iter, -tol, -solver\n", warn)
		case warn.Kind != pairwise.NotConverged:
			fmt.Fprintf(w, "warning: %s\n", warn)
		}
	}
}
