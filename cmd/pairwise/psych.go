package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/internal/draw"
)

// learnerFlags are the flags of the learner that "network" and "bootstrap"
// share with "learn" (the ones that matter for questionnaire data), and
// -isingfit.
type learnerFlags struct {
	histogram, merge, isingfit *bool
	lambda, eta, gamma, alpha  *float64
	selection, sym             *string
	gap, mixture, refit, graph *bool
	workers                    *int
}

// addLearnerFlags registers the learner's flags on fs.
func addLearnerFlags(fs *flag.FlagSet) *learnerFlags {
	return &learnerFlags{
		histogram: fs.Bool("histogram", false, `the input is a histogram, lines "count,z_1,...,z_n"`),
		merge:     fs.Bool("merge", true, "merge identical rows into counts while reading"),
		isingfit:  fs.Bool("isingfit", false, "estimate as R's IsingFit does (pairwise.IsingFit: EBIC γ = 0.25, AND rule, every nonzero\ncoefficient an edge, no edge test), to match a published analysis (see docs/psych)"),
		lambda:    fs.Float64("lambda", 0, "width bound `λ` (default: chosen per node from the data)"),
		eta:       fs.Float64("eta", 0, "minimum edge weight bound `η`: keep pairs whose estimate max|Ŵ_ij| reaches η/2 (default: the edge test)"),
		selection: fs.String("select", "", "without -lambda, the `rule` choosing each node's λ: cv or ebic (default: ebic)"),
		gamma:     fs.Float64("gamma", 0.25, "with -select ebic: the EBIC `γ`"),
		alpha:     fs.Float64("alpha", pairwise.DefaultFalseEdgeRate, "without -eta: the edge test's family-wise false-edge `rate` α"),
		gap:       fs.Bool("gap", true, "without -eta: the edge test's gap rule"),
		mixture:   fs.Bool("mixture", true, "without -eta, Ising data: the edge test's mixture cut"),
		refit:     fs.Bool("refit", true, "without -eta, Ising data: the edge test's refit stage"),
		graph:     fs.Bool("ebic-graph", true, "without -eta, Ising data: the edge test's small-sample stage (the EBIC graph)"),
		sym:       fs.String("sym", "average", "the `rule` combining a pair's two estimates: average, and, or"),
		workers:   fs.Int("workers", runtime.GOMAXPROCS(0), "`goroutines`; results do not depend on it"),
	}
}

// options turns the flags given on the command line into learner options.
func (lf *learnerFlags) options(set map[string]bool) ([]pairwise.Option, error) {
	if *lf.isingfit {
		for _, name := range []string{"eta", "alpha", "gap", "mixture", "refit", "ebic-graph"} {
			if set[name] {
				return nil, usageError("-%s sets the edge test or η, which -isingfit replaces by its nonzero rule", name)
			}
		}
	}
	opts, err := learnOptions(set, *lf.lambda, *lf.eta, 0, "", *lf.workers, pairwise.DefaultTolerance, pairwise.DefaultMaxIterations, *lf.sym)
	if err != nil {
		return nil, err
	}
	sel, err := selectionOptions(set, *lf.selection, 0, *lf.gamma, *lf.alpha, *lf.gap, *lf.refit, *lf.mixture, *lf.graph)
	if err != nil {
		return nil, err
	}
	opts = append(opts, sel...)
	if *lf.isingfit {
		opts = append(pairwise.IsingFit(), opts...) // the flags given win
	}
	return opts, nil
}

// interrupted restates a cancellation by Ctrl-C.
func interrupted(err error) error {
	if errors.Is(err, context.Canceled) {
		return errors.New("interrupted")
	}
	return flagHint(err)
}

const networkUsage = `Usage: pairwise network [flags] FILE

Learns the network of the items in FILE (a CSV of answers as for 'pairwise
learn'; with -model, a model JSON such as 'pairwise learn -format model'
writes) and prints each node's centrality as qgraph computes it: strength
(Σ|w|), expected influence (Σw), closeness and betweenness (shortest paths
with lengths 1/|w|). Weights are signed: for binary items the Ising
coupling Â_ij (a quarter of IsingFit's weight on 0/1 answers), for k > 2
the linear-by-linear summary of each k×k block (pairwise.SignedWeight).

With -picture it draws the network (PNG or SVG by the file's extension): a
spring layout (Fruchterman-Reingold, the same for the same -seed),
positive edges blue (or green with -palette green) and negative ones red,
wider and darker as |w| grows, nodes named by the header. -layout-out
saves the node positions and -layout reuses them, so that two networks of
the same items are drawn alike; give both pictures the same -max-weight
to compare their edge widths too.

Examples:
  pairwise network -histogram -picture survey.png testdata/survey.csv
  pairwise network -isingfit -format csv -o centrality.csv answers.csv
  pairwise network -picture men.png -layout-out layout.json men.csv
  pairwise network -picture women.png -layout layout.json women.csv
`

// networkFormats are the output formats of "pairwise network".
var networkFormats = []string{"table", "csv", "json"}

// runNetwork learns (or reads) a network, writes its centrality and draws it.
func runNetwork(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("network", networkUsage, stderr)
	lf := addLearnerFlags(fs)
	model := fs.Bool("model", false, "FILE is a model JSON file, not samples: draw and measure its couplings")
	format := fs.String("format", "table", "centrality output `format`: table, csv or json (json adds the edges)")
	out := fs.String("o", "", "write the centrality to `FILE` (default standard output)")
	picture := fs.String("picture", "", "draw the network to `FILE`.png or FILE.svg")
	layoutIn := fs.String("layout", "", "read the node positions from this layout JSON `FILE` (from -layout-out)")
	layoutOut := fs.String("layout-out", "", "write the node positions as layout JSON to `FILE`")
	seed := fs.Uint64("seed", 1, "`seed` of the spring layout")
	size := fs.Int("size", 800, "picture width and height in `pixels`")
	title := fs.String("title", "", "picture `title`")
	palette := fs.String("palette", "blue", "edge `colours`: blue (positive blue, negative red) or green (positive green, negative red)")
	maxWeight := fs.Float64("max-weight", 0, "|w| drawn widest (default: the largest |w| of the network)")
	quiet := fs.Bool("quiet", false, "no progress bar and no summary on standard error")
	set, err := parseOneFile(fs, args, "network", "input FILE")
	if err != nil {
		return err
	}
	if !oneOf(*format, networkFormats) {
		return usageError("-format %q: want one of %s", *format, strings.Join(networkFormats, ", "))
	}
	colors, ok := draw.Palettes[*palette]
	if !ok {
		return usageError("-palette %q: want blue or green", *palette)
	}
	if *size < 100 || *size > 10000 {
		return usageError("-size %d: want 100 to 10000 pixels", *size)
	}
	if !(*maxWeight >= 0) || math.IsInf(*maxWeight, 0) {
		return usageError("-max-weight %v: want a finite |w| ≥ 0", *maxWeight)
	}
	var picFormat string
	if *picture != "" {
		if picFormat, err = draw.PictureFormat(*picture); err != nil {
			return usageError("%v", err)
		}
	}
	var (
		m     *pairwise.Model
		edges []pairwise.Edge
	)
	if *model {
		for _, name := range []string{"histogram", "merge", "isingfit", "lambda", "eta", "select", "gamma", "alpha", "gap", "mixture", "refit", "ebic-graph", "sym", "workers"} {
			if set[name] {
				return usageError("-%s sets the learner; with -model nothing is learned", name)
			}
		}
		in, err := openInput(fs.Arg(0), stdin)
		if err != nil {
			return err
		}
		m, err = pairwise.ReadModel(in.r)
		in.Close()
		if err != nil {
			return fileError(in.name, err)
		}
		edges = pairwise.SignedEdges(m)
	} else {
		opts, err := lf.options(set)
		if err != nil {
			return err
		}
		s, name, err := readSamples(fs.Arg(0), pairwise.CSVOptions{Histogram: *lf.histogram, Compact: *lf.merge}, stderr, *quiet)
		if err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		bar := newProgress(stderr, "learning", s.Vars(), *quiet)
		t0 := time.Now()
		res, err := pairwise.LearnContext(ctx, s, append(opts, pairwise.WithProgress(bar.Func()))...)
		bar.Finish()
		if err != nil {
			return interrupted(err)
		}
		m, edges = res.Model, res.SignedEdges()
		if names := s.Names(); names != nil {
			if err := m.SetNames(names); err != nil {
				return err
			}
		}
		if !*quiet {
			summarize(stderr, name, s, res, time.Since(t0), false)
		}
	}
	names := m.Names()
	if names == nil {
		names = defaultNames(m.Vars())
	}
	c, err := pairwise.NewCentrality(m.Vars(), edges)
	if err != nil {
		return flagHint(err)
	}
	var pos [][2]float64
	if *layoutIn != "" {
		in, err := openInput(*layoutIn, nil)
		if err != nil {
			return err
		}
		pos, err = draw.ReadLayout(in.r, names)
		in.Close()
		if err != nil {
			return fmt.Errorf("%s: %v", *layoutIn, err)
		}
	} else if *picture != "" || *layoutOut != "" {
		pos = draw.SpringLayout(m.Vars(), edges, *seed)
	}
	if err := writeOutput(*out, stdout, func(w io.Writer) error {
		return writeCentrality(w, *format, names, edges, c)
	}); err != nil {
		return err
	}
	if *picture != "" {
		pic := draw.NetworkPicture{Names: names, Edges: edges, Pos: pos, Size: *size, Title: *title, MaxWeight: *maxWeight, Colors: colors}
		if err := writeOutput(*picture, stdout, func(w io.Writer) error { return draw.WritePicture(w, pic.Drawing(), picFormat) }); err != nil {
			return err
		}
	}
	if *layoutOut != "" {
		return writeOutput(*layoutOut, stdout, func(w io.Writer) error { return draw.WriteLayout(w, names, pos) })
	}
	return nil
}

// writeCentrality writes the centrality of every node as an aligned table,
// CSV, or JSON with the signed edges.
func writeCentrality(w io.Writer, format string, names []string, edges []pairwise.Edge, c *pairwise.Centrality) error {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	switch format {
	case "json":
		type edgeOut struct {
			Source string  `json:"source"`
			Target string  `json:"target"`
			Weight float64 `json:"weight"`
		}
		out := struct {
			Names      []string             `json:"names"`
			Edges      []edgeOut            `json:"edges"`
			Centrality *pairwise.Centrality `json:"centrality"`
		}{Names: names, Edges: []edgeOut{}, Centrality: c}
		for _, e := range edges {
			out.Edges = append(out.Edges, edgeOut{names[e.I], names[e.J], e.Weight})
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	case "csv":
		if _, err := fmt.Fprintln(w, "node,strength,expected_influence,closeness,betweenness"); err != nil {
			return err
		}
		for i, nm := range names {
			if _, err := fmt.Fprintf(w, "%s,%s,%s,%s,%s\n", csvField(nm), f(c.Strength[i]), f(c.ExpectedInfluence[i]), f(c.Closeness[i]), f(c.Betweenness[i])); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "node\tstrength\texpected influence\tcloseness\tbetweenness\t\n")
	for i, nm := range names {
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.4g\t%.4g\t\n", nm, c.Strength[i], c.ExpectedInfluence[i], c.Closeness[i], c.Betweenness[i])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%d edges, %d of them negative\n", len(edges), countNegative(edges))
	return err
}

// csvField quotes a name for CSV when it needs it.
func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\n\r") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

func countNegative(edges []pairwise.Edge) int {
	n := 0
	for _, e := range edges {
		if e.Weight < 0 {
			n++
		}
	}
	return n
}

const bootstrapUsage = `Usage: pairwise bootstrap [flags] FILE

Measures how far the network learned from FILE can be trusted, as R's
bootnet does (Epskamp, Borsboom and Fried 2018): -n nonparametric resamples
(people drawn with replacement) give every pair's weight interval and how
often it is an edge, and every node's centrality intervals; -drop
case-dropping resamples (10 levels from 5% to 75% of the people dropped)
give the correlation-stability coefficient CS of the edge weights and of
each centrality index: interpret an order of centrality only with CS ≥ 0.25,
preferably ≥ 0.5. Resamples run in parallel and the result depends only on
-seed, not on -workers. A progress bar is drawn on standard error; Ctrl-C
stops the run.

Each resample reruns the whole estimation by default, as bootnet does; with
-fix it reuses the widths λ̂_i and the minimum edge weight η̂ chosen on the
full data (several times faster; the intervals then leave out the
variability of those choices). With the default edge test, -fix also
changes the full-data network, most at small N: the refit keeps the pairs
whose estimate reaches η̂/2, not the pairs the test chose, and a note on
standard error gives both edge counts. With -isingfit, -fix keeps the
network and only skips the search for the widths.

Writes JSON (-format json, the default) or CSV (-format csv: one table of
edges, nodes and drop levels), and with -intervals and -stability the two
plots of bootnet (PNG or SVG by the file's extension): the edge-weight
intervals sorted by weight, and the correlation with the full-data
estimate against the share of people dropped.

Examples:
  pairwise bootstrap -histogram -n 200 -drop 200 -intervals edges.png -stability cs.png testdata/survey.csv
  pairwise bootstrap -fix -o boot.json answers.csv
`

// bootstrapFormats are the output formats of "pairwise bootstrap".
var bootstrapFormats = []string{"json", "csv"}

// runBootstrap runs pairwise.Bootstrap on a file and writes its result.
func runBootstrap(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bootstrap", bootstrapUsage, stderr)
	lf := addLearnerFlags(fs)
	nBoot := fs.Int("n", pairwise.DefaultBootstrapResamples, "nonparametric `resamples` (0: none)")
	nDrop := fs.Int("drop", pairwise.DefaultBootstrapResamples, "case-dropping `resamples` (0: none)")
	seed := fs.Uint64("seed", 1, "`seed` of the resamples")
	fix := fs.Bool("fix", false, "refit every resample with the full data's λ̂_i and η̂ (faster; see above)")
	level := fs.Float64("level", pairwise.DefaultIntervalLevel, "coverage of the percentile `intervals`")
	format := fs.String("format", "json", "output `format`: json or csv")
	out := fs.String("o", "", "write the result to `FILE` (default standard output)")
	intervals := fs.String("intervals", "", "draw the edge-weight intervals to `FILE`.png or FILE.svg")
	stability := fs.String("stability", "", "draw the case-dropping correlations to `FILE`.png or FILE.svg")
	quiet := fs.Bool("quiet", false, "no progress bar and no summary on standard error")
	set, err := parseOneFile(fs, args, "bootstrap", "input FILE")
	if err != nil {
		return err
	}
	if !oneOf(*format, bootstrapFormats) {
		return usageError("-format %q: want one of %s", *format, strings.Join(bootstrapFormats, ", "))
	}
	if *nBoot < 0 || *nDrop < 0 {
		return usageError("-n %d, -drop %d: want counts ≥ 0", *nBoot, *nDrop)
	}
	if *nBoot == 0 && *nDrop == 0 {
		return usageError("-n 0 and -drop 0: nothing to resample")
	}
	if !(*level > 0 && *level < 1) {
		return usageError("-level %v: want a coverage in (0, 1)", *level)
	}
	var intFormat, stabFormat string
	if *intervals != "" {
		if *nBoot == 0 {
			return usageError("-intervals needs nonparametric resamples (-n)")
		}
		if intFormat, err = draw.PictureFormat(*intervals); err != nil {
			return usageError("%v", err)
		}
	}
	if *stability != "" {
		if *nDrop == 0 {
			return usageError("-stability needs case-dropping resamples (-drop)")
		}
		if stabFormat, err = draw.PictureFormat(*stability); err != nil {
			return usageError("%v", err)
		}
	}
	opts, err := lf.options(set)
	if err != nil {
		return err
	}
	s, name, err := readSamples(fs.Arg(0), pairwise.CSVOptions{Histogram: *lf.histogram, Compact: *lf.merge}, stderr, *quiet)
	if err != nil {
		return err
	}
	count := func(v int) int {
		if v == 0 {
			return -1 // BootstrapOptions: negative skips, zero is the default
		}
		return v
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	bar := newProgress(stderr, "resampling", *nBoot+*nDrop, *quiet)
	t0 := time.Now()
	res, err := pairwise.Bootstrap(ctx, s, rand.NewPCG(*seed, 0xb007), pairwise.BootstrapOptions{
		Resamples: count(*nBoot),
		CaseDrops: count(*nDrop),
		Level:     *level,
		Options:   opts,
		FixTuning: *fix,
		Workers:   *lf.workers,
		Progress:  bar.Func(),
	})
	bar.Finish()
	if err != nil {
		return interrupted(err)
	}
	if res.Names == nil {
		res.Names = defaultNames(res.Vars)
	}
	if !*quiet {
		bootstrapSummary(stderr, name, res, *nBoot, *nDrop, time.Since(t0))
		if *fix {
			// The refit keeps the pairs whose shrunk estimate reaches
			// η̂/2, which need not be the pairs the edge test chose.
			if plain, err := pairwise.LearnContext(ctx, s, opts...); err == nil && len(plain.Edges) != len(res.Fit.Edges) {
				fmt.Fprintf(stderr, "note: with -fix the full-data network has %d edges, without it %d: the refit keeps the pairs whose estimate reaches η̂/2 instead of those the edge test chose (-isingfit -fix keeps the same network)\n", len(res.Fit.Edges), len(plain.Edges))
			}
		}
	}
	if err := writeOutput(*out, stdout, func(w io.Writer) error {
		if *format == "csv" {
			return res.WriteCSV(w)
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}); err != nil {
		return err
	}
	if *intervals != "" {
		if err := writeOutput(*intervals, stdout, func(w io.Writer) error { return draw.WritePicture(w, draw.IntervalPlot(res), intFormat) }); err != nil {
			return err
		}
	}
	if *stability != "" {
		return writeOutput(*stability, stdout, func(w io.Writer) error { return draw.WritePicture(w, draw.StabilityPlot(res), stabFormat) })
	}
	return nil
}

// bootstrapSummary writes what a bootstrap found on one or two lines.
func bootstrapSummary(w io.Writer, name string, res *pairwise.BootstrapResult, nBoot, nDrop int, elapsed time.Duration) {
	fmt.Fprintf(w, "%s: %d people, %d items, %d edges; %d nonparametric and %d case-dropping resamples in %v\n",
		name, res.Observations, res.Vars, len(res.Fit.Edges), nBoot, nDrop, elapsed.Round(time.Millisecond))
	if cd := res.CaseDrop; cd != nil {
		var parts []string
		for i, st := range cd.Statistics {
			parts = append(parts, fmt.Sprintf("%s %.2f", st, cd.CS[i]))
		}
		fmt.Fprintf(w, "CS coefficients (≥ 0.25 needed, ≥ 0.5 preferred): %s\n", strings.Join(parts, ", "))
	}
}
