package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/cmd/cli"
	"github.com/mrfkit/pairwise/cmd/pairwise/internal/draw"
	"github.com/mrfkit/pairwise/psych"
)

// networkUsage is the help of "pairwise network".
const networkUsage = `Usage: pairwise network [flags] FILE

Learns the network of the items in FILE (a CSV of answers as for 'pairwise
learn'; with -model, a model JSON such as 'pairwise learn -format model'
writes) and prints each node's centrality as qgraph computes it: strength
(Σ|w|), expected influence (Σw), closeness and betweenness (shortest paths
with lengths 1/|w|). Weights are signed: for binary items the Ising
coupling Â_ij (a quarter of IsingFit's weight on 0/1 answers), for k > 2
the linear-by-linear summary of each k×k block (pairwise.SignedWeight).

With -picture it draws the network (PNG, SVG or PDF by the file's
extension): a spring layout (Eades's, the same for the same -seed),
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

// runNetwork learns (or reads) a network, writes its centrality and draws it.
func runNetwork(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("network", networkUsage, stderr)
	lf := addLearnerFlags(fs)
	model := fs.Bool("model", false, "FILE is a model JSON file, not samples: draw and measure its couplings")
	format := fs.String("format", "table", "centrality output `format`: table, csv or json (json adds the edges)")
	out := fs.String("o", "", "write the centrality to `FILE` (default standard output)")
	picture := fs.String("picture", "", "draw the network to `FILE`.png, FILE.svg or FILE.pdf")
	layoutIn := fs.String("layout", "", "read the node positions from this layout JSON `FILE` (from -layout-out)")
	layoutOut := fs.String("layout-out", "", "write the node positions as layout JSON to `FILE`")
	seed := fs.Uint64("seed", 1, "`seed` of the spring layout")
	size := fs.Int("size", 800, "picture width and height in `pixels` (points in SVG and PDF)")
	title := fs.String("title", "", "picture `title`")
	palette := fs.String("palette", "blue", "edge `colours`: blue (positive blue, negative red) or green (positive green, negative red)")
	maxWeight := fs.Float64("max-weight", 0, "|w| drawn widest (default: the largest |w| of the network)")
	quiet := fs.Bool("quiet", false, "no progress bar and no summary on standard error (warnings are still written: they change what the result means)")
	set, err := cli.ParseOneFile(fs, args, "pairwise network", "input FILE")
	if err != nil {
		return err
	}
	if err := cli.CheckFormat(*format, "table", "csv", "json"); err != nil {
		return err
	}
	colors, ok := draw.Palettes[*palette]
	if !ok {
		return fmt.Errorf("-palette %q: want blue or green", *palette)
	}
	if *size < 100 || *size > 10000 {
		return fmt.Errorf("-size %d: want 100 to 10000 pixels", *size)
	}
	if !(*maxWeight >= 0) || math.IsInf(*maxWeight, 0) {
		return fmt.Errorf("-max-weight %v: want a finite |w| ≥ 0", *maxWeight)
	}
	if err := checkPictures(*picture); err != nil {
		return err
	}
	var (
		m     *pairwise.Model
		edges []pairwise.Edge
	)
	if *model {
		for _, name := range lf.names {
			if set[name] {
				return fmt.Errorf("-%s sets the learner; with -model nothing is learned", name)
			}
		}
		if m, _, err = readModel(fs.Arg(0)); err != nil {
			return err
		}
		edges = pairwise.SignedEdges(m)
	} else {
		opts, ro, err := lf.options(set)
		if err != nil {
			return err
		}
		_, res, err := learnFile(fs.Arg(0), ro, opts, *lf.nominal, stderr, *quiet, *lf.solver == "sparsitron")
		if err != nil {
			return err
		}
		m, edges = res.Model, res.SignedEdges()
	}
	names := m.Names()
	if names == nil {
		names = defaultNames(m.Vars())
	}
	c, err := psych.NewCentrality(m.Vars(), edges)
	if err != nil {
		return cli.FlagHint(err)
	}
	var pos [][2]float64
	if *layoutIn != "" {
		in, err := cli.Open(*layoutIn, nil)
		if err != nil {
			return err
		}
		pos, err = draw.ReadLayout(in.R, names)
		in.Close()
		if err != nil {
			return fmt.Errorf("%s: %v", *layoutIn, err)
		}
	} else if *picture != "" || *layoutOut != "" {
		pos = draw.SpringLayout(m.Vars(), drawEdges(edges), *seed)
	}
	if err := cli.WriteFile(*out, stdout, func(w io.Writer) error {
		return writeCentrality(w, *format, names, edges, c)
	}); err != nil {
		return err
	}
	pic := draw.NetworkPicture{Names: names, Edges: drawEdges(edges), Pos: pos, Size: *size, Title: *title, MaxWeight: *maxWeight, Colors: colors}
	if err := writePicture(*picture, stdout, pic.Drawing); err != nil || *layoutOut == "" {
		return err
	}
	return cli.WriteFile(*layoutOut, stdout, func(w io.Writer) error { return draw.WriteLayout(w, names, pos) })
}

// readModel reads the model JSON file path ("-" for standard input) and
// returns it with the input's name for messages.
func readModel(path string) (*pairwise.Model, string, error) {
	in, err := cli.Open(path, stdin)
	if err != nil {
		return nil, "", err
	}
	defer in.Close()
	m, err := pairwise.ReadModel(in.R)
	if err != nil {
		return nil, "", cli.FileError(in.Name, err)
	}
	return m, in.Name, nil
}

// checkPictures returns an error for a picture file name (not "") that
// ends in none of .png, .svg and .pdf.
func checkPictures(paths ...string) error {
	for _, p := range paths {
		if p != "" {
			if _, err := draw.PictureFormat(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// writePicture draws the drawing to path, PNG, SVG or PDF by its extension;
// nothing for "".
func writePicture(path string, stdout io.Writer, drawing func() draw.Drawing) error {
	if path == "" {
		return nil
	}
	format, err := draw.PictureFormat(path)
	if err != nil {
		return err
	}
	return cli.WriteFile(path, stdout, func(w io.Writer) error { return draw.WritePicture(w, drawing(), format) })
}

// writeCentrality writes the centrality of every node as an aligned table,
// CSV, or JSON with the signed edges.
func writeCentrality(w io.Writer, format string, names []string, edges []pairwise.Edge, c *psych.Centrality) error {
	type edgeOut struct {
		Source string  `json:"source"`
		Target string  `json:"target"`
		Weight float64 `json:"weight"`
	}
	out, negative := []edgeOut{}, 0
	for _, e := range edges {
		out = append(out, edgeOut{names[e.I], names[e.J], e.Weight})
		if e.Weight < 0 {
			negative++
		}
	}
	switch format {
	case "json":
		return cli.WriteJSON(w, struct {
			Names      []string          `json:"names"`
			Edges      []edgeOut         `json:"edges"`
			Centrality *psych.Centrality `json:"centrality"`
		}{names, out, c})
	case "csv":
		var b strings.Builder
		b.WriteString("node,strength,expected_influence,closeness,betweenness\n")
		for i, nm := range names {
			b.WriteString(nm)
			for _, v := range []float64{c.Strength[i], c.ExpectedInfluence[i], c.Closeness[i], c.Betweenness[i]} {
				b.WriteString("," + strconv.FormatFloat(v, 'g', 6, 64))
			}
			b.WriteByte('\n')
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "node\tstrength\texpected influence\tcloseness\tbetweenness\t\n")
	for i, nm := range names {
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.4g\t%.4g\t\n", nm, c.Strength[i], c.ExpectedInfluence[i], c.Closeness[i], c.Betweenness[i])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%d edges, %d of them negative\n", len(edges), negative)
	return err
}

// bootstrapUsage is the help of "pairwise bootstrap".
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
-fix it reuses the widths λ̂_i chosen on the full data and skips their
search (about twice as fast; the intervals then leave out the variability
of the widths). The rule that makes a pair an edge (the edge test, or
-isingfit's) still runs on every resample, so the full-data network is the
same with and without -fix.

Writes JSON (-format json, the default) or CSV (-format csv: one table of
edges, nodes and drop levels), and with -intervals and -stability the two
plots of bootnet (PNG, SVG or PDF by the file's extension): the edge-weight
intervals sorted by weight, and the correlation with the full-data
estimate against the share of people dropped.

Examples:
  pairwise bootstrap -histogram -n 200 -drop 200 -intervals edges.png -stability cs.png testdata/survey.csv
  pairwise bootstrap -fix -o boot.json answers.csv
`

// runBootstrap runs psych.Bootstrap on a file and writes its result.
func runBootstrap(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("bootstrap", bootstrapUsage, stderr)
	lf := addLearnerFlags(fs)
	nBoot := fs.Int("n", psych.DefaultBootstrapResamples, "nonparametric `resamples` (0: none)")
	nDrop := fs.Int("drop", psych.DefaultBootstrapResamples, "case-dropping `resamples` (0: none)")
	seed := fs.Uint64("seed", 1, "`seed` of the resamples")
	fix := fs.Bool("fix", false, "refit every resample with the full data's widths λ̂_i (faster; see above)")
	level := fs.Float64("level", psych.DefaultIntervalLevel, "coverage of the percentile `intervals`")
	format := fs.String("format", "json", "output `format`: json or csv")
	out := fs.String("o", "", "write the result to `FILE` (default standard output)")
	intervals := fs.String("intervals", "", "draw the edge-weight intervals to `FILE`.png, FILE.svg or FILE.pdf")
	stability := fs.String("stability", "", "draw the case-dropping correlations to `FILE`.png, FILE.svg or FILE.pdf")
	quiet := fs.Bool("quiet", false, "no progress bar and no summary on standard error (warnings are still written: they change what the result means)")
	set, err := cli.ParseOneFile(fs, args, "pairwise bootstrap", "input FILE")
	if err != nil {
		return err
	}
	if err := cli.CheckFormat(*format, "json", "csv"); err != nil {
		return err
	}
	switch {
	case *nBoot < 0 || *nDrop < 0:
		return fmt.Errorf("-n %d, -drop %d: want counts ≥ 0", *nBoot, *nDrop)
	case *nBoot == 0 && *nDrop == 0:
		return fmt.Errorf("-n 0 and -drop 0: nothing to resample")
	case !(*level > 0 && *level < 1):
		return fmt.Errorf("-level %v: want a coverage in (0, 1)", *level)
	case *intervals != "" && *nBoot == 0:
		return fmt.Errorf("-intervals needs nonparametric resamples (-n)")
	case *stability != "" && *nDrop == 0:
		return fmt.Errorf("-stability needs case-dropping resamples (-drop)")
	}
	if err := checkPictures(*intervals, *stability); err != nil {
		return err
	}
	opts, ro, err := lf.options(set)
	if err != nil {
		return err
	}
	if set["nominal"] {
		return fmt.Errorf("-nominal applies to learn and network, not to the bootstrap")
	}
	if os.Getenv("GOGC") == "" {
		// Each resample's fit leaves a few megabytes of garbage over a
		// live heap of about 4 MB, so at the default GOGC=100 the
		// collector ran every couple of resamples and took 6% of the CPU
		// (GODEBUG=gctrace=1, 25 items, N = 2500, 200 + 200 resamples:
		// 612 cycles). GOGC=200 ran 216 cycles, 2% of the CPU, at the
		// same peak (25 MB); 400 ran 42 at 95 MB.
		defer debug.SetGCPercent(debug.SetGCPercent(200))
	}
	s, name, err := cli.ReadSamples(fs.Arg(0), stdin, ro, stderr, *quiet)
	if err != nil {
		return err
	}
	if s, err = lf.complete(s, name, stderr, *quiet); err != nil {
		return err
	}
	count := func(v int) int {
		if v == 0 {
			return -1 // BootstrapOptions: negative skips, zero is the default
		}
		return v
	}
	var res *psych.BootstrapResult
	t0 := time.Now()
	if err := cli.During(stderr, "resampling", *nBoot+*nDrop, *quiet, func(ctx context.Context, progress func(int, int)) (err error) {
		res, err = psych.Bootstrap(ctx, s, rand.NewPCG(*seed, 0xb007), psych.BootstrapOptions{
			Resamples: count(*nBoot),
			CaseDrops: count(*nDrop),
			Level:     *level,
			Options:   opts,
			FixTuning: *fix,
			Workers:   *lf.workers,
			Progress:  progress,
		})
		return err
	}); err != nil {
		return err
	}
	if res.Names == nil {
		res.Names = defaultNames(res.Vars)
	}
	if !*quiet {
		bootstrapSummary(stderr, name, res, *nBoot, *nDrop, time.Since(t0))
	}
	if err := cli.WriteFile(*out, stdout, func(w io.Writer) error {
		if *format == "csv" {
			return res.WriteCSV(w)
		}
		return cli.WriteJSON(w, res)
	}); err != nil {
		return err
	}
	if err := writePicture(*intervals, stdout, func() draw.Drawing { return draw.IntervalPlot(drawIntervals(res)) }); err != nil {
		return err
	}
	return writePicture(*stability, stdout, func() draw.Drawing { return draw.StabilityPlot(drawStability(res)) })
}

// bootstrapSummary writes what a bootstrap found on one or two lines.
func bootstrapSummary(w io.Writer, name string, res *psych.BootstrapResult, nBoot, nDrop int, elapsed time.Duration) {
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
