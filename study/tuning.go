package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image/color"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/cmd/cli"
	"github.com/mrfkit/pairwise/models"
)

// The tuning study: how often the tuning-free learner (no WithWidth, no
// WithMinEdgeWeight) recovers the exact graph, against the oracle that is
// given the true width λ and minimum edge weight η, on the models of issue
// 6, over seeded runs at increasing sample sizes; and, with -bench, against
// nodewise l1 logistic regression with cross-validated penalties
// (scikit-learn, glmnet) on the baseline data sets of shared/bench.

// tuningModel is one model family of the study.
type tuningModel struct {
	name, about string
	build       func() (*pairwise.Model, error)
	ns          []int // default sample sizes
}

// tuningModels are the models of the study, with their default sample sizes.
var tuningModels = []tuningModel{
	{"diamond", "diamond graph, n = 10, A_ij = 0.2 (Figure 1)", func() (*pairwise.Model, error) { return models.NewDiamond(10, 0.2) },
		[]int{500, 1000, 2000, 5000, 10000}},
	{"grid-k2", "3x3 grid, k = 2, θ = 0.2", func() (*pairwise.Model, error) { return models.NewGridPotts(3, 3, 2, 0.2, rand.NewPCG(1, 0)) },
		[]int{500, 1000, 2000, 5000, 10000}},
	{"grid-k4", "3x3 grid, k = 4, θ = 0.2", func() (*pairwise.Model, error) { return models.NewGridPotts(3, 3, 4, 0.2, rand.NewPCG(1, 0)) },
		[]int{5000, 10000, 20000, 40000}},
	{"grid-k6", "3x3 grid, k = 6, θ = 0.2", func() (*pairwise.Model, error) { return models.NewGridPotts(3, 3, 6, 0.2, rand.NewPCG(1, 0)) },
		[]int{10000, 20000, 40000, 60000}},
	{"grid7x7", "7x7 Ising grid, |A_ij| ~ U[0.2, 0.5], random signs", func() (*pairwise.Model, error) { return tuningGridIsing(7, 7, 0.2, 0.5, 1) },
		[]int{1000, 2000, 5000, 10000, 20000}},
	{"regular30", "random 3-regular graph, n = 30, |A_ij| ~ U[0.2, 0.5], random signs", func() (*pairwise.Model, error) { return tuningRegularIsing(30, 3, 0.2, 0.5, 1) },
		[]int{1000, 2000, 5000, 10000, 20000}},
	// Sparse models, not in the default -models: few edges among many
	// pairs, where the mixture cut has few edges to place its lognormal.
	{"sparse12", "one edge A_01 = 0.3 among n = 12 spins", func() (*pairwise.Model, error) {
		a := mat.NewSymDense(12, nil)
		a.SetSym(0, 1, 0.3)
		return pairwise.NewIsing(a, nil)
	}, []int{500, 1000, 2000, 5000}},
	{"star15", "star: spin 0 coupled to spins 1 to 4 among n = 15, |A_ij| ~ U[0.2, 0.5], random signs", func() (*pairwise.Model, error) {
		return tuningIsing(15, [][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}}, 0.2, 0.5, rand.New(rand.NewPCG(1, 5)))
	}, []int{500, 1000, 2000, 5000}},
	{"random40", "20 random edges among n = 40, |A_ij| ~ U[0.2, 0.5], random signs", func() (*pairwise.Model, error) {
		return tuningRandomIsing(40, 20, 0.2, 0.5, 1)
	}, []int{500, 1000, 2000, 5000}},
}

// tuningGridIsing returns the zero-field Ising model on a rows×cols grid with
// |A_ij| ~ U[lo, hi) and a random sign per edge, drawn with seed.
func tuningGridIsing(rows, cols int, lo, hi float64, seed uint64) (*pairwise.Model, error) {
	r := rand.New(rand.NewPCG(seed, 7))
	var edges [][2]int
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			v := i*cols + j
			if j+1 < cols {
				edges = append(edges, [2]int{v, v + 1})
			}
			if i+1 < rows {
				edges = append(edges, [2]int{v, v + cols})
			}
		}
	}
	return tuningIsing(rows*cols, edges, lo, hi, r)
}

// tuningRegularIsing returns a zero-field Ising model on a random d-regular
// graph with n nodes (the pairing model, redrawn until simple), with
// |A_ij| ~ U[lo, hi) and random signs, drawn with seed.
func tuningRegularIsing(n, d int, lo, hi float64, seed uint64) (*pairwise.Model, error) {
	r := rand.New(rand.NewPCG(seed, 3))
	edges, err := regularEdges(n, d, r)
	if err != nil {
		return nil, err
	}
	return tuningIsing(n, edges, lo, hi, r)
}

// regularEdges returns the edges (i < j, sorted) of a random d-regular
// graph on n nodes by the pairing model, redrawn until simple.
func regularEdges(n, d int, r *rand.Rand) ([][2]int, error) {
	if n*d%2 != 0 {
		return nil, fmt.Errorf("no %d-regular graph on %d nodes", d, n)
	}
	for try := 0; try < 10000; try++ {
		stubs := make([]int, 0, n*d)
		for v := 0; v < n; v++ {
			for range d {
				stubs = append(stubs, v)
			}
		}
		r.Shuffle(len(stubs), func(a, b int) { stubs[a], stubs[b] = stubs[b], stubs[a] })
		seen := map[[2]int]bool{}
		var edges [][2]int
		ok := true
		for x := 0; x < len(stubs); x += 2 {
			a, b := min(stubs[x], stubs[x+1]), max(stubs[x], stubs[x+1])
			if a == b || seen[[2]int{a, b}] {
				ok = false
				break
			}
			seen[[2]int{a, b}] = true
			edges = append(edges, [2]int{a, b})
		}
		if ok {
			sortPairs(edges)
			return edges, nil
		}
	}
	return nil, errors.New("no simple pairing found")
}

// tuningRandomIsing returns a zero-field Ising model on m edges drawn
// uniformly among the pairs of n nodes, with |A_ij| ~ U[lo, hi) and random
// signs, drawn with seed.
func tuningRandomIsing(n, m int, lo, hi float64, seed uint64) (*pairwise.Model, error) {
	if m > n*(n-1)/2 {
		return nil, fmt.Errorf("%d edges on %d nodes", m, n)
	}
	r := rand.New(rand.NewPCG(seed, 11))
	seen := map[[2]int]bool{}
	var edges [][2]int
	for len(edges) < m {
		a, b := r.IntN(n), r.IntN(n)
		e := [2]int{min(a, b), max(a, b)}
		if a == b || seen[e] {
			continue
		}
		seen[e] = true
		edges = append(edges, e)
	}
	sortPairs(edges)
	return tuningIsing(n, edges, lo, hi, r)
}

// sortPairs sorts pairs (i, j) by i, then j, so that the couplings drawn
// for them do not depend on the order the pairs were found in.
func sortPairs(edges [][2]int) {
	sort.Slice(edges, func(x, y int) bool {
		return edges[x][0] < edges[y][0] || edges[x][0] == edges[y][0] && edges[x][1] < edges[y][1]
	})
}

// tuningIsing returns the zero-field Ising model on edges with |A_ij| ~
// U[lo, hi) and a random sign per edge, drawn from r.
func tuningIsing(n int, edges [][2]int, lo, hi float64, r *rand.Rand) (*pairwise.Model, error) {
	// Coupling by coupling, W_ij = [[A_ij, −A_ij], [−A_ij, A_ij]] as
	// NewIsing sets it, so that no dense n × n A is formed (12.8 GB at
	// n = 40,000); TestTuningIsingSparse checks it against NewIsing.
	m, err := pairwise.NewModel(n, 2)
	if err != nil {
		return nil, err
	}
	for _, e := range edges {
		v := lo + (hi-lo)*r.Float64()
		if r.IntN(2) == 0 {
			v = -v
		}
		if err := m.SetCoupling(e[0], e[1], mat.NewDense(2, 2, []float64{v, -v, -v, v})); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// tuningMethods are the learners the study can run.
var tuningMethods = map[string]string{
	"oracle":      "the true λ and η given (WithWidth, WithMinEdgeWeight)",
	"default":     "tuning-free: Learn(samples) with no option",
	"cv":          "tuning-free with WithSelection(CrossValidation{Folds: 5})",
	"ebic":        "tuning-free with WithSelection(EBIC{Gamma: 0.25})",
	"cv+eta":      "true η given, width by CrossValidation{Folds: 5}",
	"ebic+eta":    "true η given, width by EBIC{Gamma: 0.25}",
	"lambda":      "true λ given, edges by the edge test",
	"bonferroni":  "tuning-free with the edge test before the gap rule, the refit and the mixture: WithFalseEdgeRate(0.05), WithEdgeGap(false), WithRefit(false), WithEdgeMixture(false)",
	"norefit":     "tuning-free without the Ising refit stage: WithRefit(false) (the mixture cut on the first stage's statistics)",
	"gap":         "tuning-free with the gap rule in place of the Ising mixture cut: WithEdgeMixture(false) (the default until 2026-11-24, late evening)",
	"nogap":       "tuning-free with Bonferroni at the default α alone: WithEdgeMixture(false), WithEdgeGap(false)",
	"isingfit":    "IsingFit's rule: EBIC (γ = 0.25) widths and the AND support of the constrained fits (WithMinEdgeWeight(1e-9), WithSymmetrization(And))",
	"noebicgraph": "tuning-free without the small-sample stage of the Ising edge test: WithEBICGraph(false) (the default until 2026-11-25)",
	"nominal":     "tuning-free on the nominal scale: WithScale(Nominal), Learn's k-ary default (for k = 2 the Ising default)",
	"multinomial": "tuning-free node-wise multinomial model: WithScale(Ordinal) with every variable declared nominal (WithNominalVariables), issue 31's mixed model with no ordered variable",
	"valuepairs":  "tuning-free Algorithm 2: LearnPairwise(samples) with no option (Learn's nominal default before issue 32)",
}

// tuningFreeMethods are the methods that need nothing of the true model, so
// that they can run on files (-bench).
var tuningFreeMethods = []string{"default", "bonferroni", "norefit", "gap", "nogap", "isingfit", "cv", "ebic", "noebicgraph", "nominal", "valuepairs"}

func tuningOptions(method string, m *pairwise.Model) []pairwise.Option {
	cv, ebic := pairwise.WithSelection(pairwise.CrossValidation{Folds: 5}), pairwise.WithSelection(pairwise.EBIC{Gamma: 0.25})
	switch method {
	case "cv":
		return []pairwise.Option{cv}
	case "ebic":
		return []pairwise.Option{ebic}
	case "bonferroni":
		return []pairwise.Option{pairwise.WithFalseEdgeRate(0.05), pairwise.WithEdgeGap(false), pairwise.WithRefit(false), pairwise.WithEdgeMixture(false)}
	case "norefit":
		return []pairwise.Option{pairwise.WithRefit(false)}
	case "gap":
		return []pairwise.Option{pairwise.WithEdgeMixture(false)}
	case "nogap":
		return []pairwise.Option{pairwise.WithEdgeMixture(false), pairwise.WithEdgeGap(false)}
	case "noebicgraph":
		return []pairwise.Option{pairwise.WithEBICGraph(false)}
	case "isingfit":
		return []pairwise.Option{pairwise.WithMinEdgeWeight(1e-9), pairwise.WithSymmetrization(pairwise.And)}
	case "default":
		return nil
	case "nominal":
		return []pairwise.Option{pairwise.WithScale(pairwise.Nominal)}
	case "multinomial":
		if m == nil || m.Alphabet() == 2 {
			return nil
		}
		every := make([]int, m.Vars())
		for j := range every {
			every[j] = j
		}
		return []pairwise.Option{pairwise.WithScale(pairwise.Ordinal), pairwise.WithNominalVariables(every...)}
	}
	// The rest are told part of the truth.
	lam, eta := pairwise.WithWidth(m.Width()), pairwise.WithMinEdgeWeight(m.MinEdgeWeight())
	switch method {
	case "oracle":
		return []pairwise.Option{lam, eta}
	case "cv+eta":
		return []pairwise.Option{cv, eta}
	case "ebic+eta":
		return []pairwise.Option{ebic, eta}
	case "lambda":
		return []pairwise.Option{lam}
	}
	return nil
}

// tuningRow is one learner run.
type tuningRow struct {
	model, method  string
	n, k, N, seed  int
	exact          bool
	fp, fn         int
	seconds        float64
	width, minEdge float64 // Result.Width and Result.MinEdgeWeight
}

// tuningUsage returns the help of "tuning", which lists the models
// and methods.
func tuningUsage() string {
	var b strings.Builder
	b.WriteString(`Usage: go run . tuning [flags]   (from study/)

The tuning study of issue 6: exact recovery of the tuning-free learner (no width λ, no
edge weight η) against the oracle given the true λ and η, over seeded runs with exact
samples. Writes recovery.csv (one line a run), recovery.md and one PNG a model.

Models (the default -models are the first six; the sparse ones run when named):
`)
	for _, m := range tuningModels {
		fmt.Fprintf(&b, "  %-10s %s; N = %v\n", m.name, m.about, m.ns)
	}
	b.WriteString("\nMethods:\n")
	names := make([]string, 0, len(tuningMethods))
	for k := range tuningMethods {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(&b, "  %-9s %s\n", k, tuningMethods[k])
	}
	b.WriteString(`
Examples:
  go run . tuning                    the default study into ../docs/tuning
  go run . tuning -models diamond -seeds 5 -N 1000,2000 -out /tmp/t
  go run . tuning -bench /tmp/bench -out ../docs/tuning
`)
	return b.String()
}

func runTuning(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("tuning", tuningUsage(), stderr)
	models := fs.String("models", "diamond,grid-k2,grid-k4,grid-k6,grid7x7,regular30", "comma-separated `models`")
	methods := fs.String("methods", "oracle,default", "comma-separated `methods`")
	seeds := fs.Int("seeds", 20, "seeded runs per sample size")
	sizes := fs.String("N", "", "sample sizes for every model, comma-separated (default: per model)")
	out := fs.String("out", filepath.Join("..", "docs", "tuning"), "output `directory` for recovery.csv, recovery.md and the PNG figures")
	workers := fs.Int("workers", 1, "goroutines per learner")
	export := fs.String("export", "", "also write every data set as CSV with a truth JSON to this `directory` (for shared/bench's scripts: spins ±1 for k = 2, values 0..k-1 otherwise)")
	bench := fs.String("bench", "", "instead: learn the data sets of a shared/bench `copy` (data/, results/grid.jsonl) and compare with its baselines")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *seeds < 1 || *workers < 1 {
		return fmt.Errorf("-seeds and -workers must be at least 1")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	if *bench != "" {
		given := false
		fs.Visit(func(f *flag.Flag) { given = given || f.Name == "methods" })
		var meths []string
		for _, m := range strings.Split(*methods, ",") {
			if m == "oracle" && !given {
				continue // the default list's oracle needs the true model
			}
			if !slices.Contains(tuningFreeMethods, m) {
				return fmt.Errorf("-methods %q: -bench runs only the tuning-free methods (%s)", m, strings.Join(tuningFreeMethods, ", "))
			}
			meths = append(meths, m)
		}
		return tuningBench(*bench, *out, *workers, meths, stdout)
	}
	var chosen []tuningModel
	for _, name := range strings.Split(*models, ",") {
		found := false
		for _, m := range tuningModels {
			if m.name == name {
				chosen, found = append(chosen, m), true
			}
		}
		if !found {
			return fmt.Errorf("-models: unknown model %q", name)
		}
	}
	meths := strings.Split(*methods, ",")
	for _, m := range meths {
		if _, ok := tuningMethods[m]; !ok {
			return fmt.Errorf("-methods: unknown method %q", m)
		}
	}
	var ns []int
	if *sizes != "" {
		for _, f := range strings.Split(*sizes, ",") {
			v, err := strconv.Atoi(f)
			if err != nil || v < 1 {
				return fmt.Errorf("-N: bad sample size %q", f)
			}
			ns = append(ns, v)
		}
	}

	csvPath := filepath.Join(*out, "recovery.csv")
	f, err := os.Create(csvPath)
	if err != nil {
		return err
	}
	defer f.Close()
	cw := csv.NewWriter(f)
	cw.Write([]string{"model", "n", "k", "N", "seed", "method", "exact", "fp", "fn", "seconds", "width", "min_edge_weight"})
	var rows []tuningRow
	about := map[string]*pairwise.Model{}
	for _, tm := range chosen {
		m, err := tm.build()
		if err != nil {
			return fmt.Errorf("%s: %v", tm.name, err)
		}
		about[tm.name] = m
		sampler, err := pairwise.NewExactSampler(m)
		if err != nil {
			return fmt.Errorf("%s: %v", tm.name, err)
		}
		truth := map[[2]int]bool{}
		for _, e := range m.Edges() {
			truth[[2]int{e.I, e.J}] = true
		}
		sizes := tm.ns
		if ns != nil {
			sizes = ns
		}
		fmt.Fprintf(stdout, "%s: %s; n = %d, k = %d, %d edges, λ = %.4g, η = %.4g\n", tm.name, tm.about, m.Vars(), m.Alphabet(), len(truth), m.Width(), m.MinEdgeWeight())
		for _, N := range sizes {
			for seed := 0; seed < *seeds; seed++ {
				s, err := sampler.Sample(rand.NewPCG(uint64(seed)+1, uint64(N)), N)
				if err != nil {
					return err
				}
				if *export != "" {
					if err := tuningExport(*export, tm, m, s, N, seed); err != nil {
						return err
					}
				}
				for _, meth := range meths {
					opts := append(tuningOptions(meth, m), pairwise.WithWorkers(*workers))
					t0 := time.Now()
					learn := pairwise.Learn
					if meth == "valuepairs" {
						learn = pairwise.LearnPairwise
					}
					res, err := learn(s, opts...)
					if err != nil {
						return fmt.Errorf("%s N=%d seed %d %s: %v", tm.name, N, seed, meth, err)
					}
					r := tuningRow{model: tm.name, method: meth, n: m.Vars(), k: m.Alphabet(), N: N, seed: seed,
						seconds: time.Since(t0).Seconds(), width: res.Width, minEdge: res.MinEdgeWeight}
					r.fp, r.fn = tuningErrors(truth, res.Edges)
					r.exact = r.fp == 0 && r.fn == 0
					rows = append(rows, r)
					cw.Write([]string{r.model, strconv.Itoa(r.n), strconv.Itoa(r.k), strconv.Itoa(r.N), strconv.Itoa(r.seed), r.method,
						strconv.FormatBool(r.exact), strconv.Itoa(r.fp), strconv.Itoa(r.fn), strconv.FormatFloat(r.seconds, 'g', 4, 64),
						tuningFinite(r.width), tuningFinite(r.minEdge)})
				}
			}
			cw.Flush()
			line := fmt.Sprintf("  N = %6d:", N)
			for _, meth := range meths {
				st := tuningSummarize(rows, tm.name, meth, N)
				line += fmt.Sprintf("  %s %d/%d (FP %.2f, FN %.2f, %.3gs)", meth, st.exact, st.runs, st.fp, st.fn, st.seconds)
			}
			fmt.Fprintln(stdout, line)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	if err := tuningReport(filepath.Join(*out, "recovery.md"), chosen, about, meths, rows, *seeds, args); err != nil {
		return err
	}
	for _, tm := range chosen {
		if err := tuningPlot(filepath.Join(*out, tm.name+".png"), tm, meths, rows); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "wrote %s, %s and the figures\n", csvPath, filepath.Join(*out, "recovery.md"))
	return nil
}

// tuningErrors counts the false positives and negatives of a learned graph.
func tuningErrors(truth map[[2]int]bool, edges []pairwise.Edge) (fp, fn int) {
	got := map[[2]int]bool{}
	for _, e := range edges {
		got[[2]int{e.I, e.J}] = true
		if !truth[[2]int{e.I, e.J}] {
			fp++
		}
	}
	for e := range truth {
		if !got[e] {
			fn++
		}
	}
	return fp, fn
}

type tuningStat struct {
	runs, exact           int
	fp, fn, seconds, wide float64
}

func tuningSummarize(rows []tuningRow, model, method string, N int) tuningStat {
	var st tuningStat
	for _, r := range rows {
		if r.model != model || r.method != method || r.N != N {
			continue
		}
		st.runs++
		if r.exact {
			st.exact++
		}
		st.fp += float64(r.fp)
		st.fn += float64(r.fn)
		st.seconds += r.seconds
		st.wide += r.width
	}
	if st.runs > 0 {
		st.fp /= float64(st.runs)
		st.fn /= float64(st.runs)
		st.seconds /= float64(st.runs)
		st.wide /= float64(st.runs)
	}
	return st
}

// tuningReport writes the Markdown tables: per model and N, the exact
// recoveries of every method, the mean FP and FN, the mean time, and the
// issue's criterion (where the oracle recovers at least 90% of the runs,
// the tuning-free default at least 80%).
func tuningReport(path string, models []tuningModel, about map[string]*pairwise.Model, meths []string, rows []tuningRow, seeds int, args []string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Tuning-free learning against the oracle\n\n")
	fmt.Fprintf(&b, "Made by `cd study && go run . tuning %s` (%d seeded runs per cell, exact samples;\n", strings.Join(args, " "), seeds)
	fmt.Fprintf(&b, "run s at sample size N draws its samples with `rand.NewPCG(s+1, N)`). Methods:\n\n")
	for _, m := range meths {
		fmt.Fprintf(&b, "- **%s**: %s\n", m, tuningMethods[m])
	}
	fmt.Fprintf(&b, "\nEach cell: exact recoveries / runs, mean false positives and false negatives, mean seconds per run.\n")
	hasBoth := false
	for _, m := range meths {
		if m == "default" {
			hasBoth = true
		}
	}
	for _, tm := range models {
		m := about[tm.name]
		fmt.Fprintf(&b, "\n## %s: %s\n\nn = %d, k = %d, %d edges, λ = %.4g, η = %.4g. Figure: `%s.png`.\n\n", tm.name, tm.about, m.Vars(), m.Alphabet(), len(m.Edges()), m.Width(), m.MinEdgeWeight(), tm.name)
		b.WriteString("| N |")
		for _, meth := range meths {
			fmt.Fprintf(&b, " %s |", meth)
		}
		if hasBoth {
			b.WriteString(" criterion |")
		}
		b.WriteString("\n|---|")
		for range meths {
			b.WriteString("---|")
		}
		if hasBoth {
			b.WriteString("---|")
		}
		b.WriteString("\n")
		for _, N := range tuningSizes(rows, tm.name) {
			fmt.Fprintf(&b, "| %d |", N)
			for _, meth := range meths {
				st := tuningSummarize(rows, tm.name, meth, N)
				fmt.Fprintf(&b, " %d/%d (FP %.2f, FN %.2f, %.3g s) |", st.exact, st.runs, st.fp, st.fn, st.seconds)
			}
			if hasBoth {
				o := tuningSummarize(rows, tm.name, "oracle", N)
				d := tuningSummarize(rows, tm.name, "default", N)
				switch {
				case o.runs == 0 || 10*o.exact < 9*o.runs:
					b.WriteString(" oracle < 90% |")
				case 10*d.exact >= 8*d.runs:
					b.WriteString(" met |")
				default:
					b.WriteString(" **not met** |")
				}
			}
			b.WriteString("\n")
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func tuningSizes(rows []tuningRow, model string) []int {
	seen := map[int]bool{}
	var ns []int
	for _, r := range rows {
		if r.model == model && !seen[r.N] {
			seen[r.N] = true
			ns = append(ns, r.N)
		}
	}
	sort.Ints(ns)
	return ns
}

// tuningPlot draws the fraction of exact recoveries against N, one line a
// method.
func tuningPlot(path string, tm tuningModel, meths []string, rows []tuningRow) error {
	p := plot.New()
	p.Title.Text = tm.name + ": " + tm.about
	p.X.Label.Text = "samples N"
	p.Y.Label.Text = "exact recovery (fraction of runs)"
	p.X.Scale = plot.LogScale{}
	var ticks []plot.Tick
	for _, N := range tuningSizes(rows, tm.name) {
		ticks = append(ticks, plot.Tick{Value: float64(N), Label: strconv.Itoa(N)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Min, p.Y.Max = -0.02, 1.02
	// Lower right, lifted clear of the bottom: at the largest N the
	// learners sit at 1 or, for the weak rules, near 0.
	p.Legend.Top = false
	p.Legend.Left = false
	p.Legend.YOffs = vg.Inch
	palette := []color.Color{
		color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
		color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
		color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
		color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
		color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	}
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{}, draw.PyramidGlyph{}}
	for x, meth := range meths {
		var xys plotter.XYs
		for _, N := range tuningSizes(rows, tm.name) {
			st := tuningSummarize(rows, tm.name, meth, N)
			if st.runs > 0 {
				xys = append(xys, plotter.XY{X: float64(N), Y: float64(st.exact) / float64(st.runs)})
			}
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return err
		}
		c := palette[x%len(palette)]
		l.Color, pts.Color, pts.Shape = c, c, shapes[x%len(shapes)]
		l.Width = vg.Points(1.5)
		if x%2 == 1 {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(l, pts)
		p.Legend.Add(meth, l, pts)
	}
	return p.Save(6*vg.Inch, 4*vg.Inch, path)
}

// tuningExport writes one data set (no header; spins ±1 for k = 2, values
// 0..k-1 otherwise) and, once, the truth JSON that shared/bench's scripts
// read.
func tuningExport(dir string, tm tuningModel, m *pairwise.Model, s *pairwise.Samples, N, seed int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	truthPath := filepath.Join(dir, tm.name+".truth.json")
	if _, err := os.Stat(truthPath); err != nil {
		n, k := m.Vars(), m.Alphabet()
		var edges [][2]int
		for _, e := range m.Edges() {
			edges = append(edges, [2]int{e.I, e.J})
		}
		truth := map[string]any{
			"name": tm.name, "n": n, "k": k, "indexing": "0-based",
			"edges": edges, "lambda": m.Width(), "eta": m.MinEdgeWeight(),
			"sampler": "pairwise.ExactSampler (cd study && go run . tuning -export)",
		}
		if k == 2 {
			a, _, err := m.Ising()
			if err != nil {
				return err
			}
			A := make([][]float64, n)
			for i := range A {
				A[i] = make([]float64, n)
				for j := range A[i] {
					A[i][j] = a.At(i, j)
				}
			}
			truth["kind"], truth["A"], truth["values"] = "ising", A, []int{-1, 1}
		} else {
			// shared/bench's pairwise layout: values 0..k-1 and W_ij per edge.
			var ws []map[string]any
			for _, e := range m.Edges() {
				c := m.Coupling(e.I, e.J)
				w := make([][]float64, k)
				for a := range w {
					w[a] = mat.Row(nil, a, c)
				}
				ws = append(ws, map[string]any{"i": e.I, "j": e.J, "W": w})
			}
			values := make([]int, k)
			for v := range values {
				values[v] = v
			}
			truth["kind"], truth["W"], truth["values"] = "pairwise", ws, values
		}
		js, _ := json.MarshalIndent(truth, "", " ")
		if err := os.WriteFile(truthPath, js, 0o644); err != nil {
			return err
		}
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s_N%d_seed%d.csv", tm.name, N, seed)))
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := writeRows(w, s, m.Alphabet() == 2); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// benchLine is the part of a shared/bench result line the comparison reads.
type benchLine struct {
	Method string `json:"method"`
	Data   string `json:"data"`
	Model  string `json:"model"`
	N      int    `json:"N"`
	Rules  map[string]struct {
		Exact bool `json:"exact"`
		FP    int  `json:"fp"`
		FN    int  `json:"fn"`
	} `json:"rules"`
	Wall float64 `json:"wall_s"`
}

// tuningBench learns every data set named in DIR/results/*.jsonl (Ising or
// k-ary, read with ReadCSV) with the tuning-free default and tabulates it next to the baselines' lines for the
// same files: their thr_and rule (which uses the true η) and supp_and rule
// (the lasso support, which does not).
func tuningBench(dir, out string, workers int, meths []string, stdout io.Writer) error {
	files, _ := filepath.Glob(filepath.Join(dir, "results", "*.jsonl"))
	var lines []benchLine
	for _, fn := range files {
		f, err := os.Open(fn)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var l benchLine
			if json.Unmarshal(sc.Bytes(), &l) == nil && l.Data != "" && l.Rules != nil {
				lines = append(lines, l)
			}
		}
		f.Close()
	}
	if len(lines) == 0 {
		return fmt.Errorf("-bench %s: no result lines in results/*.jsonl", dir)
	}
	type key = benchKey
	type agg struct {
		runs, exactThr, exactSupp          int
		fpThr, fnThr, fpSupp, fnSupp, wall float64
		thr, supp                          map[string]bool // by data set
	}
	table := map[key]*agg{}
	add := func(k key, data string, exThr bool, fpT, fnT int, exSupp bool, fpS, fnS int, wall float64) {
		a := table[k]
		if a == nil {
			a = &agg{thr: map[string]bool{}, supp: map[string]bool{}}
			table[k] = a
		}
		a.thr[data], a.supp[data] = exThr, exSupp
		a.runs++
		if exThr {
			a.exactThr++
		}
		if exSupp {
			a.exactSupp++
		}
		a.fpThr += float64(fpT)
		a.fnThr += float64(fnT)
		a.fpSupp += float64(fpS)
		a.fnSupp += float64(fnS)
		a.wall += wall
	}
	done := map[string]bool{}
	var keys []key
	for _, l := range lines {
		k := key{l.Model, l.N, l.Method}
		if table[k] == nil {
			keys = append(keys, k)
		}
		thr, supp := l.Rules["thr_and"], l.Rules["supp_and"]
		add(k, l.Data, thr.Exact, thr.FP, thr.FN, supp.Exact, supp.FP, supp.FN, l.Wall)
		if done[l.Data] {
			continue
		}
		done[l.Data] = true
		var truth struct {
			N     int      `json:"n"`
			Edges [][2]int `json:"edges"`
		}
		js, err := os.ReadFile(filepath.Join(dir, "data", l.Model+".truth.json"))
		if err != nil {
			return err
		}
		if err := json.Unmarshal(js, &truth); err != nil {
			return fmt.Errorf("%s.truth.json: %v", l.Model, err)
		}
		s, _, err := cli.ReadSamples(filepath.Join(dir, "data", l.Data), nil, pairwise.CSVOptions{}, io.Discard, true)
		if err != nil {
			return err
		}
		tr := map[[2]int]bool{}
		for _, e := range truth.Edges {
			tr[[2]int{min(e[0], e[1]), max(e[0], e[1])}] = true
		}
		for _, meth := range meths {
			t0 := time.Now()
			learn := pairwise.Learn
			if meth == "valuepairs" {
				learn = pairwise.LearnPairwise
			}
			res, err := learn(s, append(tuningOptions(meth, nil), pairwise.WithWorkers(workers))...)
			if err != nil {
				return fmt.Errorf("%s: %s: %v", l.Data, meth, err)
			}
			wall := time.Since(t0).Seconds()
			fp, fn := tuningErrors(tr, res.Edges)
			k = key{l.Model, l.N, "pairwise " + meth}
			if table[k] == nil {
				keys = append(keys, k)
			}
			add(k, l.Data, fp+fn == 0, fp, fn, fp+fn == 0, fp, fn, wall)
		}
	}
	sort.Slice(keys, func(a, b int) bool {
		x, y := keys[a], keys[b]
		if x.model != y.model {
			return x.model < y.model
		}
		if x.N != y.N {
			return x.N < y.N
		}
		return x.method < y.method
	})
	var b strings.Builder
	fmt.Fprintf(&b, "# Tuning-free learning against cross-validated nodewise l1 logistic regression\n\n")
	fmt.Fprintf(&b, "Made by `cd study && go run . tuning -bench %s -methods %s`: every data set named in `%s/results/*.jsonl` (lines written\n", dir, strings.Join(meths, ","), dir)
	fmt.Fprintf(&b, "by shared/bench's `sk_ising.py`, `glmnet_ising.R`, `sk_pairwise.py`, `glmnet_pairwise.R`) learned with `pairwise.Learn`, tuning-free:\n\n")
	for _, m := range meths {
		fmt.Fprintf(&b, "- **pairwise %s**: %s\n", m, tuningMethods[m])
	}
	fmt.Fprintf(&b, "\nFor the baselines, `thr` keeps |Â_ij| ≥ η/2 with the **true** η (information the tuning-free learner\n")
	fmt.Fprintf(&b, "does not have) and `supp` keeps the nonzero lasso coefficients; both use the AND rule. Cells: exact\n")
	fmt.Fprintf(&b, "recoveries / runs, then mean FP / FN, and the mean seconds of the learning step.\n")
	fmt.Fprintf(&b, "The baselines' seconds are the ones their scripts recorded in the results files (on the machine\n")
	fmt.Fprintf(&b, "that ran them); ours are measured by this command on this machine, so compare them with care.\n\n")
	tuningBenchSummary(&b, keys, func(k key) benchCell {
		a := table[k]
		return benchCell{a.exactThr, a.exactSupp, a.runs, (a.fpThr + a.fnThr) / float64(a.runs), (a.fpSupp + a.fnSupp) / float64(a.runs), a.thr, a.supp}
	})
	b.WriteString("| model | N | method | exact (thr) | FP/FN (thr) | exact (supp) | FP/FN (supp) | seconds |\n|---|---|---|---|---|---|---|---|\n")
	for _, k := range keys {
		a := table[k]
		r := float64(a.runs)
		if strings.HasPrefix(k.method, "pairwise ") {
			name := k.method
			if k.method == "pairwise default" {
				name = "**" + name + "**"
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %d/%d | %.2f / %.2f | (same) | | %.3g |\n", k.model, k.N, name, a.exactThr, a.runs, a.fpThr/r, a.fnThr/r, a.wall/r)
			continue
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %d/%d | %.2f / %.2f | %d/%d | %.2f / %.2f | %.3g |\n", k.model, k.N, k.method, a.exactThr, a.runs, a.fpThr/r, a.fnThr/r, a.exactSupp, a.runs, a.fpSupp/r, a.fnSupp/r, a.wall/r)
	}
	path := filepath.Join(out, "baselines.md")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", path)
	return nil
}

// benchKey names one cell of the -bench table.
type benchKey struct {
	model  string
	N      int
	method string
}

// benchCell is one cell of the -bench table: exact recoveries under the thr
// and supp rules, the runs, the mean FP+FN under each, and which data sets
// each rule recovered exactly.
type benchCell struct {
	exThr, exSupp, runs int
	errThr, errSupp     float64
	thr, supp           map[string]bool
}

// pairedExact compares two learners run on the same data sets: a is the
// number of data sets that x recovers exactly and y does not, b the
// reverse, and p the two-sided exact McNemar p-value of a against b (under
// "equally accurate" each discordant data set goes either way with
// probability ½). Data sets only one of them ran are skipped.
func pairedExact(x, y map[string]bool) (a, b int, p float64) {
	for data, ex := range x {
		ey, ok := y[data]
		switch {
		case !ok || ex == ey:
		case ex:
			a++
		default:
			b++
		}
	}
	return a, b, mcnemar(a, b)
}

// mcnemar returns the two-sided exact McNemar p-value of a and b discordant
// pairs: 2·P(X ≤ min(a, b)) for X ~ Binomial(a+b, ½), at most 1.
func mcnemar(a, b int) float64 {
	if a+b == 0 {
		return 1
	}
	return math.Min(1, 2*distuv.Binomial{N: float64(a + b), P: 0.5}.CDF(float64(min(a, b))))
}

// tuningBenchSummary writes, for every model and N of keys (sorted), the
// default's exact recoveries next to the best cross-validated baseline's
// (methods whose name has "cv": their thr rule, given the true η, and their
// supp rule), and whether the default is ahead, level or behind in the
// rate of exact recovery, with the paired test of pairedExact; then the
// totals of every method with the same paired test against the default.
func tuningBenchSummary(b *strings.Builder, keys []benchKey, get func(benchKey) benchCell) {
	type best struct {
		method     string
		ex, runs   int
		rate, errs float64
		exact      map[string]bool
	}
	verdict := func(d, o best) string {
		if o.method == "" {
			return "-"
		}
		a, c, p := pairedExact(d.exact, o.exact)
		v := "**behind**"
		switch {
		case d.rate > o.rate:
			v = "ahead"
		case d.rate == o.rate:
			v = "level"
		}
		return fmt.Sprintf("%s (%d:%d, p %.2g)", v, a, c, p)
	}
	cell := func(x best) string {
		if x.method == "" {
			return "-"
		}
		return fmt.Sprintf("%s %d/%d (FP+FN %.2f)", x.method, x.ex, x.runs, x.errs)
	}
	b.WriteString("## Summary: the default against the best cross-validated baseline\n\n")
	b.WriteString("Every comparison is paired: both learners ran on the same data sets. After each verdict, d:b counts\n")
	b.WriteString("the data sets the default recovers exactly and the baseline does not (d) and the reverse (b), and p\n")
	b.WriteString("is the two-sided exact McNemar test of d against b (each such data set goes either way with\n")
	b.WriteString("probability ½ if the two are equally accurate). The best baseline is picked per cell after the\n")
	b.WriteString("fact, which favours the baselines.\n\n")
	b.WriteString("| model | N | pairwise default | best CV lasso, thr (true η) | vs thr | best CV lasso, supp | vs supp |\n|---|---|---|---|---|---|---|\n")
	for x := 0; x < len(keys); {
		y := x
		var def, thr, supp best
		for ; y < len(keys) && keys[y].model == keys[x].model && keys[y].N == keys[x].N; y++ {
			k := keys[y]
			c := get(k)
			rT, rS := float64(c.exThr)/float64(c.runs), float64(c.exSupp)/float64(c.runs)
			switch {
			case k.method == "pairwise default":
				def = best{k.method, c.exThr, c.runs, rT, c.errThr, c.thr}
			case strings.Contains(k.method, "cv"):
				if thr.method == "" || rT > thr.rate || rT == thr.rate && c.errThr < thr.errs {
					thr = best{k.method, c.exThr, c.runs, rT, c.errThr, c.thr}
				}
				if supp.method == "" || rS > supp.rate || rS == supp.rate && c.errSupp < supp.errs {
					supp = best{k.method, c.exSupp, c.runs, rS, c.errSupp, c.supp}
				}
			}
		}
		if def.method != "" {
			fmt.Fprintf(b, "| %s | %d | %d/%d (FP+FN %.2f) | %s | %s | %s | %s |\n", keys[x].model, keys[x].N, def.ex, def.runs, def.errs,
				cell(thr), verdict(def, thr), cell(supp), verdict(def, supp))
		}
		x = y
	}
	// Totals over every cell, method by method.
	type total struct {
		exThr, exSupp, runs int
		thr, supp           map[string]bool
	}
	totals := map[string]*total{}
	var names []string
	for _, k := range keys {
		c := get(k)
		t := totals[k.method]
		if t == nil {
			t = &total{thr: map[string]bool{}, supp: map[string]bool{}}
			totals[k.method] = t
			names = append(names, k.method)
		}
		t.exThr, t.exSupp, t.runs = t.exThr+c.exThr, t.exSupp+c.exSupp, t.runs+c.runs
		for data, ex := range c.thr {
			t.thr[data] = ex
		}
		for data, ex := range c.supp {
			t.supp[data] = ex
		}
	}
	sort.Strings(names)
	b.WriteString("\nTotals over all the cells above, method by method (exact recoveries / runs; the pairwise methods\n")
	b.WriteString("have one rule, shown under both), each with the paired test against the default (d:m, p) over the\n")
	b.WriteString("data sets both ran:\n\n")
	b.WriteString("| method | exact (thr, true η) | default vs it (thr) | exact (supp) | default vs it (supp) |\n|---|---|---|---|---|\n")
	def := totals["pairwise default"]
	paired := func(m map[string]bool, own bool) string {
		if def == nil || own {
			return "-"
		}
		a, c, p := pairedExact(def.thr, m)
		return fmt.Sprintf("%d:%d, p %.2g", a, c, p)
	}
	for _, name := range names {
		t := totals[name]
		own := name == "pairwise default"
		fmt.Fprintf(b, "| %s | %d/%d (%.0f%%) | %s | %d/%d (%.0f%%) | %s |\n", name, t.exThr, t.runs, 100*float64(t.exThr)/float64(t.runs),
			paired(t.thr, own), t.exSupp, t.runs, 100*float64(t.exSupp)/float64(t.runs), paired(t.supp, own))
	}
	b.WriteString("\n## All methods\n\n")
}

// tuningFinite formats v, or "-" when it is not finite.
func tuningFinite(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// writeRows writes the rows of s to w as CSV lines without a header
// (cli.WriteRows).
func writeRows(w io.Writer, s *pairwise.Samples, spins bool) error {
	return cli.WriteRows(w, s, spins)
}
