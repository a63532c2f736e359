package main

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mrfkit/pairwise"
)

// reproReport holds everything the reproduce command writes.
type reproReport struct {
	settings reproSettings
	quick    bool
	args     []string
	workers  int
	seed     uint64
	dpi      int
	elapsed  time.Duration

	incoherence []incRow
	points      []*reproPoint // one per (experiment, param, N, method), in grid order
	runsCSV     [][]string
	learnRuns   int
	took        map[string]time.Duration // learning time by experiment and method, summed over workers
}

// incRow is one point of Figure 1 (middle).
type incRow struct {
	n     int
	a     float64
	value float64
}

// reproPoint aggregates the runs of one method at one N.
type reproPoint struct {
	exp, param, n int
	method        string
	runs, rec     int
	errSum, errSq float64
	missed, extra int
	minEdge       float64 // sums over runs
	maxNon        float64
	edgeNorm      float64 // sums over runs (see outcome)
	nonNorm       float64
	gap           float64 // the largest over runs
	iters         int     // T of a paper-schedule learner
	took          time.Duration
}

func (p *reproPoint) fraction() float64 { return float64(p.rec) / float64(p.runs) }
func (p *reproPoint) meanErr() float64  { return p.errSum / float64(p.runs) }

// seErr is the standard error of the mean estimation error.
func (p *reproPoint) seErr() float64 {
	if p.runs < 2 {
		return 0
	}
	m := p.meanErr()
	v := (p.errSq - float64(p.runs)*m*m) / float64(p.runs-1)
	return math.Sqrt(math.Max(v, 0) / float64(p.runs))
}

// seFraction is the binomial standard error of the recovery fraction.
func (p *reproPoint) seFraction() float64 {
	f := p.fraction()
	return math.Sqrt(f * (1 - f) / float64(p.runs))
}

// fractionBarsText says what the error bars of a recovery plot are, for
// summary.md.
func fractionBarsText(runs int) string {
	return fmt.Sprintf("The error bars are ±1 standard error of a binomial proportion, √(f(1 − f)/R), with f the fraction of the R = %d runs that recover the graph: "+
		"the plug-in (Wald) standard error, roughly a 68%% interval when R is large; it is zero where f is 0 or 1, so those points have no bar, although their fraction is uncertain too.", runs)
}

// lowerFirst lower-cases the first letter of s.
func lowerFirst(s string) string {
	return strings.ToLower(s[:1]) + s[1:]
}

// incoherenceTable computes Figure 1 (middle) exactly.
func incoherenceTable(set reproSettings) []incRow {
	var rows []incRow
	for _, a := range set.incA {
		for _, n := range set.incN {
			v, err := pairwise.DiamondIncoherence(n, a)
			if err != nil {
				v = math.NaN() // cannot happen for n ≥ 3, a ≠ 0
			}
			rows = append(rows, incRow{n: n, a: a, value: v})
		}
	}
	return rows
}

// aggregate folds the task outcomes into points, in the order of the grids.
func (r *reproReport) aggregate(tasks []reproTask, results [][]outcome) {
	index := map[[3]int]map[string]*reproPoint{}
	r.took = map[string]time.Duration{}
	r.runsCSV = [][]string{{"experiment", "param", "N", "run", "method", "recovered", "error", "missed", "false", "min_edge_weight", "max_nonedge_weight",
		"edge_norm_ratio", "nonedge_norm", "gap", "T", "seconds"}}
	for x, t := range tasks {
		key := [3]int{t.exp, t.param, t.n}
		pts, ok := index[key]
		if !ok {
			pts = map[string]*reproPoint{}
			index[key] = pts
		}
		for _, o := range results[x] {
			p, ok := pts[o.method]
			if !ok {
				p = &reproPoint{exp: t.exp, param: t.param, n: t.n, method: o.method, iters: o.iters}
				pts[o.method] = p
				r.points = append(r.points, p)
			}
			p.runs++
			r.learnRuns++
			r.took[expName(t.exp)+"/"+p.method] += o.took
			if o.recovered {
				p.rec++
			}
			p.errSum += o.err
			p.errSq += o.err * o.err
			p.missed += o.missed
			p.extra += o.extra
			p.minEdge += o.minEdge
			p.maxNon += o.maxNon
			p.edgeNorm += o.edgeNorm
			p.nonNorm += o.nonNorm
			p.gap = math.Max(p.gap, o.gap)
			p.took += o.took
			r.runsCSV = append(r.runsCSV, []string{expName(t.exp), strconv.Itoa(t.param), strconv.Itoa(t.n), strconv.Itoa(t.run), p.method,
				strconv.FormatBool(o.recovered), fmtF(o.err), strconv.Itoa(o.missed), strconv.Itoa(o.extra), fmtF(o.minEdge), fmtF(o.maxNon),
				fmtF(o.edgeNorm), fmtF(o.nonNorm), fmtF(o.gap), strconv.Itoa(o.iters), fmtF(o.took.Seconds())})
		}
	}
}

func expName(exp int) string {
	if exp == expDiamond {
		return "diamond"
	}
	return "grid"
}

func fmtF(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// series returns the points of one experiment, parameter and method, by N.
func (r *reproReport) series(exp, param int, method string) []*reproPoint {
	var s []*reproPoint
	for _, p := range r.points {
		if p.exp == exp && p.param == param && p.method == method {
			s = append(s, p)
		}
	}
	slices.SortFunc(s, func(a, b *reproPoint) int { return a.n - b.n })
	return s
}

// recoveryLevel is the recovery fraction whose sample size the summary
// reports.
const recoveryLevel = 0.9

// threshold returns the smallest N of the grid from which on (at that N and
// every larger N of the grid) the recovery fraction is at least
// recoveryLevel, with ok false when the largest N does not reach it; and an
// interpolated crossing: the N, on a log scale between that grid point and
// the one before, at which the fraction crosses recoveryLevel linearly (the
// grid point itself when it is the first).
func threshold(s []*reproPoint) (gridN int, crossing float64, ok bool) {
	at := -1
	for x := len(s) - 1; x >= 0; x-- {
		if s[x].fraction() < recoveryLevel {
			break
		}
		at = x
	}
	if at < 0 {
		return 0, 0, false
	}
	gridN, crossing = s[at].n, float64(s[at].n)
	if at > 0 {
		f0, f1 := s[at-1].fraction(), s[at].fraction()
		l0, l1 := math.Log(float64(s[at-1].n)), math.Log(float64(s[at].n))
		crossing = math.Exp(l0 + (recoveryLevel-f0)/(f1-f0)*(l1-l0))
	}
	return gridN, crossing, true
}

// write writes the CSV files, the figures and summary.md into dir and
// returns their names.
func (r *reproReport) write(dir string) ([]string, error) {
	var files []string
	put := func(name string, f func(w io.Writer) error) error {
		path := filepath.Join(dir, name)
		out, err := os.Create(path)
		if err != nil {
			return err
		}
		bw := bufio.NewWriter(out)
		if err := f(bw); err != nil {
			out.Close()
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := bw.Flush(); err != nil {
			out.Close()
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := out.Close(); err != nil {
			return err
		}
		files = append(files, name)
		return nil
	}
	writeCSV := func(rows [][]string) func(w io.Writer) error {
		return func(w io.Writer) error {
			cw := csv.NewWriter(w)
			if err := cw.WriteAll(rows); err != nil {
				return err
			}
			cw.Flush()
			return cw.Error()
		}
	}
	set := r.settings
	if len(r.incoherence) > 0 {
		rows := [][]string{{"n", "a", "incoherence"}}
		for _, row := range r.incoherence {
			rows = append(rows, []string{strconv.Itoa(row.n), fmtF(row.a), fmtF(row.value)})
		}
		if err := put("fig1_incoherence.csv", writeCSV(rows)); err != nil {
			return files, err
		}
		if err := put("fig1_incoherence.png", r.plotIncoherence); err != nil {
			return files, err
		}
	}
	if r.has(expDiamond) {
		rows := [][]string{{"n", "a", "lambda", "N", "runs", "recovered", "fraction", "mean_error", "se_error", "mean_missed", "mean_false"}}
		for _, n := range set.diamondSizes {
			for _, p := range r.series(expDiamond, n, "ours") {
				rows = append(rows, []string{strconv.Itoa(n), fmtF(set.diamondA), fmtF(float64(n-2) * set.diamondA), strconv.Itoa(p.n),
					strconv.Itoa(p.runs), strconv.Itoa(p.rec), fmtF(p.fraction()), fmtF(p.meanErr()), fmtF(p.seErr()),
					fmtF(float64(p.missed) / float64(p.runs)), fmtF(float64(p.extra) / float64(p.runs))})
			}
		}
		if err := put("fig1_recovery.csv", writeCSV(rows)); err != nil {
			return files, err
		}
		if err := put("fig1_recovery.png", r.plotDiamond); err != nil {
			return files, err
		}
	}
	if r.has(expGrid) {
		rows := [][]string{{"k", "N", "method", "runs", "recovered", "fraction", "mean_error", "se_error", "mean_missed", "mean_false", "mean_min_edge_weight", "mean_max_nonedge_weight",
			"mean_edge_norm_ratio", "mean_nonedge_norm", "max_gap", "T"}}
		for _, k := range set.gridK {
			for _, m := range append(slices.Clone(gridMethods), set.paperNames()...) {
				for _, p := range r.series(expGrid, k, m) {
					rows = append(rows, []string{strconv.Itoa(k), strconv.Itoa(p.n), m, strconv.Itoa(p.runs), strconv.Itoa(p.rec),
						fmtF(p.fraction()), fmtF(p.meanErr()), fmtF(p.seErr()),
						fmtF(float64(p.missed) / float64(p.runs)), fmtF(float64(p.extra) / float64(p.runs)),
						fmtF(p.minEdge / float64(p.runs)), fmtF(p.maxNon / float64(p.runs)),
						fmtF(p.edgeNorm / float64(p.runs)), fmtF(p.nonNorm / float64(p.runs)), fmtF(p.gap), strconv.Itoa(p.iters)})
				}
			}
		}
		if err := put("fig2_grid.csv", writeCSV(rows)); err != nil {
			return files, err
		}
		if err := put("fig2_recovery.png", r.plotGridRecovery); err != nil {
			return files, err
		}
		if err := put("figA_grid.png", r.plotGridAppendix); err != nil {
			return files, err
		}
	}
	if len(r.runsCSV) > 1 {
		if err := put("runs.csv", writeCSV(r.runsCSV)); err != nil {
			return files, err
		}
	}
	if err := put("summary.md", r.summary); err != nil {
		return files, err
	}
	return files, nil
}

func (r *reproReport) has(exp int) bool {
	for _, p := range r.points {
		if p.exp == exp {
			return true
		}
	}
	return false
}

// summary writes summary.md.
func (r *reproReport) summary(w io.Writer) error {
	set := r.settings
	pf := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	pf("# Reproduction of the paper's experiments\n\n")
	cmd := "cd study && go run . reproduce"
	if len(r.args) > 0 {
		cmd += " " + strings.Join(r.args, " ")
	}
	pf("Made by `%s`: %d runs a point, seed %d, exact samples, fixed seeds (the CSV files and figures are the same on every run with these flags).\n", cmd, set.runs, r.seed)
	pf("It took %v with %d workers (GOMAXPROCS %d, %d CPUs, %s, %s/%s).\n\n",
		r.elapsed.Round(time.Second), r.workers, runtime.GOMAXPROCS(0), runtime.NumCPU(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if len(r.took) > 0 {
		var parts []string
		for _, key := range []string{"diamond/ours", "grid/ours", "grid/sparsitron"} {
			if d, ok := r.took[key]; ok {
				parts = append(parts, fmt.Sprintf("%s %v", key, d.Round(time.Second)))
			}
		}
		pf("Learning time summed over the workers (wall clock, so it includes any contention from other work on the machine): %s.\n\n", strings.Join(parts, ", "))
	}
	if r.quick {
		pf("**This is a quick run (-quick): few runs on a coarse grid, a smoke test. Its numbers are not the experiment.**\n\n")
	}
	pf("Files: `fig*.csv` hold the numbers behind every point of the figures, `runs.csv` every run (one line per run and method).\n\n")

	if len(r.incoherence) > 0 || r.has(expDiamond) {
		pf("## Figure 1: the diamond graph, which violates the incoherence condition\n\n")
		pf("The diamond has n nodes: node 1 and node n are joined to each of the n − 2 others, 2(n − 2) edges of weight a, zero field. ")
		pf("The incoherence value at node 1 is max over j ∉ S of ‖Q*_{jS} (Q*_{SS})⁻¹‖₁, with Q* the Fisher information of node 1's logistic regression at the truth ")
		pf("(Ravikumar, Wainwright and Lafferty 2010, whose guarantee needs it below 1), computed exactly (`pairwise.DiamondIncoherence`).\n\n")
	}
	if len(r.incoherence) > 0 {
		pf("![Incoherence value at node 1 of the diamond](fig1_incoherence.png)\n\n")
		show := []int{4, 6, 8, 10, 12, 14, 18, 22, 26, 30}
		pf("| n |")
		for _, a := range set.incA {
			pf(" a = %g |", a)
		}
		pf("\n|---|")
		for range set.incA {
			pf("---|")
		}
		pf("\n")
		for _, n := range show {
			if !slices.Contains(set.incN, n) {
				continue
			}
			pf("| %d |", n)
			for _, a := range set.incA {
				for _, row := range r.incoherence {
					if row.n == n && row.a == a {
						pf(" %.3f |", row.value)
					}
				}
			}
			pf("\n")
		}
		pf("\nSmallest n at which the value exceeds 1 (the condition fails):")
		for _, a := range set.incA {
			first := "none up to n = " + strconv.Itoa(slices.Max(set.incN))
			for _, row := range r.incoherence {
				if row.a == a && row.value > 1 {
					first = strconv.Itoa(row.n)
					break
				}
			}
			pf(" a = %g: %s;", a, first)
		}
		pf("\n\n")
	}
	if r.has(expDiamond) {
		pf("![Exact recovery of the diamond by LearnIsing](fig1_recovery.png)\n\n")
		pf("Recovery with `LearnIsing` (Algorithm 1), a = %g, the paper's λ = (n − 2)a and η = a; %d runs a point, fresh samples each run. ", set.diamondA, set.runs)
		pf("%s The dotted line is the %.0f%% level of the table below.\n\n", fractionBarsText(set.runs), 100*recoveryLevel)
		pf("| n | λ | incoherence | N for %.0f%% recovery | mean error at the largest N |\n|---|---|---|---|---|\n", 100*recoveryLevel)
		for _, n := range set.diamondSizes {
			s := r.series(expDiamond, n, "ours")
			inc, _ := pairwise.DiamondIncoherence(n, set.diamondA)
			gridN, crossing, ok := threshold(s)
			at := "not reached"
			if ok {
				at = fmt.Sprintf("%d (crossing ≈ %.0f)", gridN, crossing)
			}
			last := s[len(s)-1]
			pf("| %d | %.1f | %.3f | %s | %.4f |\n", n, float64(n-2)*set.diamondA, inc, at, last.meanErr())
		}
		pf("\nFraction of runs that recover the graph exactly:\n\n")
		r.fractionTable(w, expDiamond, set.diamondSizes, "n", []string{"ours"})
		pf("\n")
	}
	if r.has(expGrid) {
		pf("## Figure 2 and the appendix figure: the 3×3 grid, LearnPairwise against Sparsitron\n\n")
		pf("3×3 grid, alphabet k, W_ij the checkerboard ±θ (θ = %g) with a random sign per edge (fresh in every run), zero field. ", set.gridTheta)
		pf("Both methods see the same exact samples and the true λ = %g (the width: θ times the largest degree) and η = %g. ", 4*set.gridTheta, set.gridTheta)
		pf("Ours is `LearnPairwise` (Algorithm 2, constrained logistic regression solved to a certified duality gap of 1e-6); ")
		pf("Sparsitron is `WithSolver(pairwise.Sparsitron{})`, Klivans and Meka's algorithm with l1 radius 2kλ, the last max{200, 0.01·N} rows of each regression held out to select the candidate. ")
		pf("The graph is thresholded the same way for both (symmetrised estimate ≥ η/2). The error is max_ij ‖W_ij − Ŵ_ij‖∞ over the per-node estimates.\n\n")
		pf("![Figure 2: exact recovery against N](fig2_recovery.png)\n\n![Appendix figure: estimation error and exact recovery against N](figA_grid.png)\n\n")
		pf("In both figures the legend is above the panels: \"ours (LearnPairwise)\" is Algorithm 2, \"Sparsitron (Klivans–Meka)\" is Klivans and Meka's Sparsitron, and the dotted line is the %.0f%% level of the tables below. ", 100*recoveryLevel)
		pf("On the recovery panels, %s ", lowerFirst(fractionBarsText(set.runs)))
		pf("On the estimation-error panels they are ±1 standard error of the mean over the R = %d runs, s/√R with s the sample standard deviation (divisor R − 1) of the runs' errors (the `se_error` column of `fig2_grid.csv`). ", set.runs)
		pf("Each run draws its own signs as well as its own samples, so the bars cover both; the points at different N of one run share its signs, so the points of a curve are not independent.\n\n")
		pf("Smallest N of the grid from which on a method recovers the graph in at least %.0f%% of the runs, and the N at which its curve crosses %.0f%% (linear in log N between grid points):\n\n", 100*recoveryLevel, 100*recoveryLevel)
		pf("| k | ours | Sparsitron | ratio Sparsitron/ours (grid) | ours, crossing | Sparsitron, crossing | ratio (crossings) |\n|---|---|---|---|---|---|---|\n")
		type verdict struct {
			k                 int
			ok1, ok2          bool
			ratio             float64
			ours, spars       *reproPoint
			errOurs, errSpars float64
		}
		var verdicts []verdict
		for _, k := range set.gridK {
			so, ss := r.series(expGrid, k, "ours"), r.series(expGrid, k, "sparsitron")
			g1, c1, ok1 := threshold(so)
			g2, c2, ok2 := threshold(ss)
			cell := func(g int, ok bool) string {
				if !ok {
					return fmt.Sprintf("> %d", so[len(so)-1].n)
				}
				return strconv.Itoa(g)
			}
			ratio, cratio := "–", "–"
			v := verdict{k: k, ok1: ok1, ok2: ok2, ours: so[len(so)-1], spars: ss[len(ss)-1]}
			if ok1 && ok2 {
				ratio = fmt.Sprintf("%.2f", float64(g2)/float64(g1))
				cratio = fmt.Sprintf("%.2f", c2/c1)
				v.ratio = c2 / c1
			}
			cr := func(c float64, ok bool) string {
				if !ok {
					return "–"
				}
				return fmt.Sprintf("%.0f", c)
			}
			pf("| %d | %s | %s | %s | %s | %s | %s |\n", k, cell(g1, ok1), cell(g2, ok2), ratio, cr(c1, ok1), cr(c2, ok2), cratio)
			verdicts = append(verdicts, v)
		}
		pf("\nFraction of runs that recover the graph exactly (ours / Sparsitron):\n\n")
		r.fractionTable(w, expGrid, set.gridK, "k", gridMethods)
		pf("\nMean estimation error max_ij ‖W_ij − Ŵ_ij‖∞ (ours / Sparsitron):\n\n")
		r.errorTable(w, set.gridK)
		pf("\nWhy runs fail: mean number of missed true edges and of false edges, and the mean over runs of the smallest symmetrised weight of a true edge and of the largest of a non-edge (the threshold is η/2 = %g):\n\n", set.gridTheta/2)
		r.failureTable(w, set.gridK)
		pf("\n## Agreement with the paper\n\n")
		pf("The paper (Figure 2 and the appendix figure) reports that its algorithm needs fewer samples than Sparsitron to recover the grid, for k = 2, 4 and 6. Here:\n\n")
		for _, v := range verdicts {
			switch {
			case v.ok1 && v.ok2 && v.ratio > 1.1:
				pf("- k = %d: ours reaches %.0f%% with %.2f times fewer samples than Sparsitron: this agrees with the paper.\n", v.k, 100*recoveryLevel, v.ratio)
			case v.ok1 && v.ok2 && v.ratio < 1/1.1:
				pf("- k = %d: **Sparsitron reaches %.0f%% with %.2f times fewer samples than ours: this disagrees with the paper.**\n", v.k, 100*recoveryLevel, 1/v.ratio)
			case v.ok1 && v.ok2:
				pf("- k = %d: both reach %.0f%% at about the same N (ratio %.2f, within the grid's resolution): the paper's advantage is not visible.\n", v.k, 100*recoveryLevel, v.ratio)
			case v.ok1:
				pf("- k = %d: ours reaches %.0f%% within the grid, Sparsitron does not: this agrees with the paper.\n", v.k, 100*recoveryLevel)
			case v.ok2:
				pf("- k = %d: **Sparsitron reaches %.0f%% within the grid, ours does not: this disagrees with the paper.**\n", v.k, 100*recoveryLevel)
			default:
				pf("- k = %d: neither method reaches %.0f%% within the grid.\n", v.k, 100*recoveryLevel)
			}
			pf("  At the largest N (%d) the mean estimation error is %.4f for ours and %.4f for Sparsitron; the smallest estimated true-edge weight averages %.3f and %.3f (truth %g).\n",
				v.ours.n, v.ours.meanErr(), v.spars.meanErr(), v.ours.minEdge/float64(v.ours.runs), v.spars.minEdge/float64(v.spars.runs), set.gridTheta)
		}
		// How the runs fail, over the whole grid of N.
		pf("\nHow runs fail, summed over every N of the grid (a run fails by a missed edge when the smallest true-edge weight falls below η/2, by a false edge when the largest non-edge weight reaches it):\n\n")
		pf("| k | ours: failed runs | ours: missed, false edges a failed run | Sparsitron: failed runs | Sparsitron: missed, false edges a failed run |\n|---|---|---|---|---|\n")
		sparsShrinks, oursFalse := true, true
		for _, k := range set.gridK {
			var cells [2]string
			for x, m := range gridMethods {
				runs, failed, missed, extra := 0, 0, 0, 0
				for _, p := range r.series(expGrid, k, m) {
					runs += p.runs
					failed += p.runs - p.rec
					missed += p.missed
					extra += p.extra
				}
				per := func(v int) float64 {
					if failed == 0 {
						return 0
					}
					return float64(v) / float64(failed)
				}
				cells[x] = fmt.Sprintf("%d of %d | %.2f, %.2f", failed, runs, per(missed), per(extra))
				if m == "ours" && extra < missed {
					oursFalse = false
				}
				if m == "sparsitron" && extra > missed {
					sparsShrinks = false
				}
			}
			pf("| %d | %s | %s |\n", k, cells[0], cells[1])
		}
		pf("\n")
		if sparsShrinks && oursFalse {
			pf("Ours fails by false edges and Sparsitron by missed edges. ")
			pf("Sparsitron's estimates start from w = 0 and move by small multiplicative steps over one pass of the rows, and the held-out selection may pick an early candidate, so they are shrunk towards zero: its non-edge weights stay small, but so do its true-edge weights, which is also why its estimation error is larger. ")
			pf("Ours minimises the empirical loss to optimality within a ball (radius 2λ√k) that is not active here: an unregularised estimate, whose noise on the k² entries of each of the 24 non-edges of the grid must stay below η/2 = %g, which takes many samples as k grows.\n\n", set.gridTheta/2)
		}
		pf("### Differences from the paper's experiment\n\n")
		pf("The figure data of the paper are not published; its authors' scripts (github.com/wushanshan/GraphLearn, NonBinaryModel) differ from this reproduction in ways that matter:\n\n")
		pf("- Their \"ours\" (`l21_mirror_descent.m`) is stochastic mirror descent: T iterations of Algorithm 4, each on a minibatch of 10 random rows, from the constant start, returning the averaged iterate; an early-stopped, hence shrunk, estimate like Sparsitron's. Here ours is the exact minimiser of the constrained loss (certified to 1e-6).\n")
		pf("- Their Sparsitron (`sparsitron.m`) holds out max{100, ⌊0.01·N⌋} rows of each regression (the paper says 200), and as we read it, its selection keeps the last candidate that beats the uniform start, not the best one (`best_err_hat` is never updated). Here it is Klivans and Meka's argmin over all candidates, with max{200, ⌊0.01·N⌋} held-out rows.\n")
		pf("- Their `sparsitron.m` also updates the Hedge weights with `w = w.*beta.^grad'`, grad = (σ − y)x̂ (x̂ = [x, −x], the doubled row): twice Klivans and Meka's loss ½(1 + (σ − y)x̂), less a constant that the normalisation removes, so their step is doubled, as if β were β². Ours follows Klivans and Meka, W_i ← W_i·β^ℓ_i with ℓ = ½(1 + (σ − y)x̂).\n")
		pf("- Their recovery test thresholds each node's own estimate (both directions of a pair must agree with the graph); here both methods use the library's rule, the symmetrised estimate ≥ η/2.\n")
		pf("- The radii agree: l1 radius 2kλ for Sparsitron, l2,1 radius 2λ√k for ours, with λ = 4θ the true width.\n")
	}
	return nil
}

// fractionTable writes the recovery fractions: one row per N, one column per
// parameter (and method).
func (r *reproReport) fractionTable(w io.Writer, exp int, params []int, name string, methods []string) {
	r.table(w, exp, params, name, methods, func(p *reproPoint) string { return fmt.Sprintf("%.2f", p.fraction()) })
}

// errorTable writes the mean estimation errors of the grid experiment.
func (r *reproReport) errorTable(w io.Writer, ks []int) {
	r.table(w, expGrid, ks, "k", gridMethods, func(p *reproPoint) string { return fmt.Sprintf("%.3f", p.meanErr()) })
}

// failureTable writes missed / false edges and the weight margins.
func (r *reproReport) failureTable(w io.Writer, ks []int) {
	fmt.Fprintf(w, "| k | N | ours: missed, false | ours: min edge, max non-edge | Sparsitron: missed, false | Sparsitron: min edge, max non-edge |\n|---|---|---|---|---|---|\n")
	for _, k := range ks {
		so, ss := r.series(expGrid, k, "ours"), r.series(expGrid, k, "sparsitron")
		for x := range so {
			o, s := so[x], ss[x]
			ro, rs := float64(o.runs), float64(s.runs)
			fmt.Fprintf(w, "| %d | %d | %.2f, %.2f | %.3f, %.3f | %.2f, %.2f | %.3f, %.3f |\n", k, o.n,
				float64(o.missed)/ro, float64(o.extra)/ro, o.minEdge/ro, o.maxNon/ro,
				float64(s.missed)/rs, float64(s.extra)/rs, s.minEdge/rs, s.maxNon/rs)
		}
	}
}

// table writes a Markdown table with one row per N of any parameter and one
// column per parameter, each cell the methods' values joined by " / ".
func (r *reproReport) table(w io.Writer, exp int, params []int, name string, methods []string, cell func(*reproPoint) string) {
	var ns []int
	for _, p := range r.points {
		if p.exp == exp && !slices.Contains(ns, p.n) {
			ns = append(ns, p.n)
		}
	}
	slices.Sort(ns)
	fmt.Fprintf(w, "| N |")
	for _, q := range params {
		fmt.Fprintf(w, " %s = %d |", name, q)
	}
	fmt.Fprintf(w, "\n|---|")
	for range params {
		fmt.Fprintf(w, "---|")
	}
	fmt.Fprintln(w)
	for _, n := range ns {
		fmt.Fprintf(w, "| %d |", n)
		for _, q := range params {
			var parts []string
			for _, m := range methods {
				for _, p := range r.series(exp, q, m) {
					if p.n == n {
						parts = append(parts, cell(p))
					}
				}
			}
			if len(parts) == 0 {
				fmt.Fprintf(w, " |")
				continue
			}
			fmt.Fprintf(w, " %s |", strings.Join(parts, " / "))
		}
		fmt.Fprintln(w)
	}
}
