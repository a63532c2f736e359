package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/psych"
)

const psychUsage = `Usage: go run . psych [flags]

Measures the learners on questionnaire-shaped Ising networks, in the style
of van Borkulo et al. (2014): for every seed a new truth of 25 binary items
in five subscales of five (within a subscale a pair is an edge with
probability 0.6 and weight β = 0.3 + 1.2u² (u uniform: 0.3 to 1.5, mostly
below 0.8) on IsingFit's 0/1 scale, between subscales with probability 0.15
and β from 0.2 to 0.7, a quarter of those negative: about 67 edges of 300; thresholds that put the items' endorsement between about
20% and 80%), N people drawn by the Gibbs sampler, and the network learned
by the default (the Wald edge test) and by the IsingFit preset
(psych.IsingFit: EBIC γ = 0.25, AND rule, every nonzero coefficient an
edge). Writes a CSV of every run and a Markdown summary (mean F1,
sensitivity, precision, empty graphs, weight correlation, time).

Example:
  go run . psych -seeds 20 -N 100,250,500,1000,2500
  go run . psych -seeds 20 -seed-offset 100     held-out truths (seeds 101-120)
`

// psychRow is one learned data set.
type psychRow struct {
	method               string
	N, seed              int
	tp, fp, fn, edges    int
	sens, prec, f1, wcor float64
	seconds              float64
	truthEdges           int
	ebicGraph            bool // the default's EBIC graph stage chose the graph
}

func runPsych(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("psych", psychUsage, stderr)
	seeds := fs.Int("seeds", 20, "seeded runs (each its own truth) per sample size")
	offset := fs.Int("seed-offset", 0, "the seeds are `offset`+1 to offset+seeds: 0 for the seeds 1-20 the default's small-sample stage was chosen on, 100 for held-out ones")
	sizes := fs.String("N", "100,250,500,1000,2500", "sample sizes, comma-separated")
	out := fs.String("out", filepath.Join("..", "docs", "psych"), "output `directory` for power.csv and power.md")
	workers := fs.Int("workers", 1, "goroutines per learner")
	export := fs.String("export", "", "also write every truth (truth-SEED.json, a model JSON) and data set (data-SEED-N.csv, answers 0/1 with a header) to this `directory`, and learn nothing")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	var ns []int
	for _, f := range strings.Split(*sizes, ",") {
		v, err := strconv.Atoi(f)
		if err != nil || v < 2 {
			return fmt.Errorf("-N: bad sample size %q", f)
		}
		ns = append(ns, v)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	methods := []struct {
		name string
		opts []pairwise.Option
	}{
		{"default", nil},
		{"isingfit", psych.IsingFit()},
	}
	var rows []psychRow
	if *offset < 0 {
		return fmt.Errorf("-seed-offset %d: want at least 0", *offset)
	}
	for seed := *offset + 1; seed <= *offset+*seeds; seed++ {
		m, beta, err := psychTruth(uint64(seed))
		if err != nil {
			return err
		}
		g, err := pairwise.NewGibbsSampler(m, pairwise.GibbsChains(50), pairwise.GibbsBurnIn(500), pairwise.GibbsThin(10))
		if err != nil {
			return err
		}
		for _, N := range ns {
			s, err := g.Sample(rand.NewPCG(uint64(seed), uint64(N)), N)
			if err != nil {
				return err
			}
			if *export != "" {
				if err := psychExport(*export, m, s, seed, N); err != nil {
					return err
				}
				continue
			}
			for _, me := range methods {
				opts := append(slices.Clip(me.opts), pairwise.WithWorkers(*workers))
				t0 := time.Now()
				res, err := pairwise.Learn(s, opts...)
				if err != nil {
					return fmt.Errorf("seed %d, N = %d, %s: %v", seed, N, me.name, err)
				}
				row := psychScore(beta, res)
				row.seconds = time.Since(t0).Seconds()
				row.method, row.N, row.seed = me.name, N, seed
				row.ebicGraph = res.Tuning != nil && res.Tuning.EBICGraph
				rows = append(rows, row)
				fmt.Fprintf(stderr, "seed %2d N %5d %-9s F1 %.3f edges %3d (truth %d) %.3fs\n", seed, N, me.name, row.f1, row.edges, row.truthEdges, row.seconds)
			}
		}
	}
	if *export != "" {
		return nil
	}
	if err := psychCSV(filepath.Join(*out, "power.csv"), rows); err != nil {
		return err
	}
	md := psychSummary(rows, ns, methods[0].name, methods[1].name, *offset+1, *offset+*seeds, args)
	fmt.Fprint(stdout, md)
	return os.WriteFile(filepath.Join(*out, "power.md"), []byte(md), 0o644)
}

// psychExport writes a truth and one of its data sets into dir.
func psychExport(dir string, m *pairwise.Model, s *pairwise.Samples, seed, N int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b strings.Builder
	if err := m.WriteModel(&b); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("truth-%d.json", seed)), []byte(b.String()), 0o644); err != nil {
		return err
	}
	b.Reset()
	b.WriteString(strings.Join(m.Names(), ",") + "\n")
	if err := writeRows(&b, s, false); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, fmt.Sprintf("data-%d-%d.csv", seed, N)), []byte(b.String()), 0o644)
}

// psychTruth draws a questionnaire-shaped Ising network of 25 items (see
// psychUsage) and returns it with its weights β on the 0/1 scale.
func psychTruth(seed uint64) (*pairwise.Model, *mat.SymDense, error) {
	const n, scale = 25, 5
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	beta := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if i/scale == j/scale {
				if r.Float64() < 0.6 {
					u := r.Float64()
					beta.SetSym(i, j, 0.3+1.2*u*u) // 0.3 to 1.5, most below 0.8
				}
				continue
			}
			if r.Float64() < 0.15 {
				b := 0.2 + 0.5*r.Float64()
				if r.Float64() < 0.25 {
					b = -b
				}
				beta.SetSym(i, j, b)
			}
		}
	}
	// P ∝ exp(Σ β_ij x_i x_j + Σ τ_i x_i) with x = (s+1)/2 is the Ising
	// model with A = β/4 and field h_i = τ_i/2 + Σ_j β_ij/4. τ_i centres
	// each item near half its neighbours' pull, then shifts it so that
	// endorsement rates spread as in questionnaires.
	a := mat.NewSymDense(n, nil)
	h := make([]float64, n)
	for i := 0; i < n; i++ {
		var sum float64
		for j := 0; j < n; j++ {
			if j != i {
				a.SetSym(i, j, beta.At(i, j)/4)
				sum += beta.At(i, j)
			}
		}
		tau := -sum/2 + (r.Float64()*2-1)*1.2
		h[i] = tau/2 + sum/4
	}
	m, err := pairwise.NewIsing(a, h)
	if err != nil {
		return nil, nil, err
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%c%d", 'A'+i/scale, i%scale+1)
	}
	if err := m.SetNames(names); err != nil {
		return nil, nil, err
	}
	return m, beta, nil
}

// psychScore compares the learned graph with the truth's.
func psychScore(beta *mat.SymDense, res *pairwise.Result) psychRow {
	n := beta.SymmetricDim()
	learned := map[[2]int]float64{}
	for _, e := range res.SignedEdges() {
		learned[[2]int{e.I, e.J}] = 4 * e.Weight // IsingFit's scale
	}
	var row psychRow
	var tw, lw []float64
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			t := beta.At(i, j)
			w, ok := learned[[2]int{i, j}]
			switch {
			case t != 0 && ok:
				row.tp++
			case t == 0 && ok:
				row.fp++
			case t != 0:
				row.fn++
			}
			if t != 0 {
				row.truthEdges++
			}
			tw, lw = append(tw, t), append(lw, w)
		}
	}
	row.edges = len(learned)
	row.sens = float64(row.tp) / float64(row.tp+row.fn)
	row.prec = math.NaN()
	if row.edges > 0 {
		row.prec = float64(row.tp) / float64(row.edges)
	}
	row.f1 = 2 * float64(row.tp) / float64(2*row.tp+row.fp+row.fn)
	row.wcor = math.NaN()
	if row.edges > 0 {
		row.wcor = stat.Correlation(tw, lw, nil)
	}
	return row
}

func psychCSV(path string, rows []psychRow) error {
	var b strings.Builder
	b.WriteString("method,N,seed,truth_edges,edges,tp,fp,fn,sensitivity,precision,f1,weight_cor,seconds,ebic_graph\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "%s,%d,%d,%d,%d,%d,%d,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%t\n",
			r.method, r.N, r.seed, r.truthEdges, r.edges, r.tp, r.fp, r.fn, r.sens, r.prec, r.f1, r.wcor, r.seconds, r.ebicGraph)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// psychSummary is the Markdown table of the means over the seeds first to
// last, one line a method and N, and the paired comparison of m1 with m2.
func psychSummary(rows []psychRow, ns []int, m1, m2 string, first, last int, args []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Command: `cd study && go run . psych %s` (seeds %d to %d, each its own truth).\n\n", strings.Join(args, " "), first, last)
	b.WriteString("| N | method | F1 (sd) | sensitivity | precision | edges (truth) | empty graphs | weight cor. | time a fit |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, N := range ns {
		for _, me := range []string{m1, m2} {
			var f1, sens, prec, cor, sec, edges, truth []float64
			empty := 0
			for _, r := range rows {
				if r.N != N || r.method != me {
					continue
				}
				f1, sens, sec = append(f1, r.f1), append(sens, r.sens), append(sec, r.seconds)
				edges, truth = append(edges, float64(r.edges)), append(truth, float64(r.truthEdges))
				if r.edges == 0 {
					empty++
				} else {
					prec, cor = append(prec, r.prec), append(cor, r.wcor)
				}
			}
			mf, sf := stat.MeanStdDev(f1, nil)
			fmt.Fprintf(&b, "| %d | %s | %.3f (%.3f) | %.3f | %s | %.1f (%.1f) | %d | %s | %.3f s |\n",
				N, me, mf, sf, stat.Mean(sens, nil), meanOrDash(prec), stat.Mean(edges, nil), stat.Mean(truth, nil), empty, meanOrDash(cor), stat.Mean(sec, nil))
		}
	}
	b.WriteString("\nPrecision and weight correlation are over the runs with at least one edge. Times were taken on a shared, busy machine, one goroutine a fit.\n")
	fmt.Fprintf(&b, "\nPaired by seed (the same data set): %s's F1 minus %s's, and the runs in which the default's EBIC graph stage chose the graph.\n\n", m1, m2)
	fmt.Fprintf(&b, "| N | F1 difference (sd) | %s ≥ %s | %s empty where %s is not | EBIC graph chosen |\n", m1, m2, m1, m2)
	b.WriteString("|---|---|---|---|---|\n")
	for _, N := range ns {
		by := map[int]map[string]psychRow{}
		for _, r := range rows {
			if r.N != N {
				continue
			}
			if by[r.seed] == nil {
				by[r.seed] = map[string]psychRow{}
			}
			by[r.seed][r.method] = r
		}
		var diff []float64
		ge, empty, chosen, runs := 0, 0, 0, 0
		for _, p := range by {
			a, okA := p[m1]
			c, okC := p[m2]
			if !okA || !okC {
				continue
			}
			runs++
			diff = append(diff, a.f1-c.f1)
			if a.f1 >= c.f1 {
				ge++
			}
			if a.edges == 0 && c.edges > 0 {
				empty++
			}
			if a.ebicGraph {
				chosen++
			}
		}
		md, sd := stat.MeanStdDev(diff, nil)
		fmt.Fprintf(&b, "| %d | %+.3f (%.3f) | %d of %d | %d | %d of %d |\n", N, md, sd, ge, runs, empty, chosen, runs)
	}
	return b.String()
}

func meanOrDash(x []float64) string {
	if len(x) == 0 {
		return "–"
	}
	return strconv.FormatFloat(stat.Mean(x, nil), 'f', 3, 64)
}
