package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mrfkit/pairwise/cmd/cli"
	"github.com/mrfkit/pairwise/models"
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
	runs        []runRecord // every outcome with its task, in task order
	learnRuns   int
	interrupted int                      // the number of tasks when the run was interrupted, else 0
	done        int                      // the tasks that finished, when interrupted
	replayed    string                   // the runs.csv the report was rendered from (-replay)
	took        map[string]time.Duration // learning time by experiment and method, summed over workers
}

// runRecord is one method's outcome on one task.
type runRecord struct {
	task reproTask
	out  outcome
}

// seOf returns the standard error of the mean of f over the runs of p.
func (r *reproReport) seOf(p *reproPoint, f func(outcome) float64) float64 {
	var xs []float64
	for _, rr := range r.runs {
		t := rr.task
		if t.exp == p.exp && t.param == p.param && t.n == p.n && rr.out.method == p.method {
			xs = append(xs, f(rr.out))
		}
	}
	return seMean(xs)
}

// seMean returns s/√R for the values xs, s their sample standard deviation.
func seMean(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	m := 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return math.Sqrt(v / float64(len(xs)-1) / float64(len(xs)))
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
			v, err := models.DiamondIncoherence(n, a)
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
		"edge_norm_ratio", "nonedge_norm", "gap", "T"}}
	for x, t := range tasks {
		key := [3]int{t.exp, t.param, t.n}
		pts, ok := index[key]
		if !ok {
			pts = map[string]*reproPoint{}
			index[key] = pts
		}
		for _, o := range results[x] {
			r.runs = append(r.runs, runRecord{task: t, out: o})
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
				fmtF(o.edgeNorm), fmtF(o.nonNorm), fmtF(o.gap), strconv.Itoa(o.iters)})
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
		if err := cli.WriteFile(filepath.Join(dir, name), nil, f); err != nil {
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
	// Every run first, so that the numbers are kept whatever happens to
	// the figures (-replay renders them again from this file).
	if len(r.runsCSV) > 1 {
		if err := put("runs.csv", writeCSV(r.runsCSV)); err != nil {
			return files, err
		}
	}
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
		if len(set.paperNames()) > 0 {
			if err := put("fig2_shrinkage.png", r.plotGridShrinkage); err != nil {
				return files, err
			}
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

// withoutReplay returns the arguments without -replay and its value: a
// replay's summary shows the command of the run it renders.
func withoutReplay(args []string) []string {
	var shown []string
	for x := 0; x < len(args); x++ {
		a := args[x]
		if a == "-replay" || a == "--replay" {
			x++
			continue
		}
		if strings.HasPrefix(a, "-replay=") || strings.HasPrefix(a, "--replay=") {
			continue
		}
		shown = append(shown, a)
	}
	return shown
}

// summary writes summary.md.
func (r *reproReport) summary(w io.Writer) error {
	set := r.settings
	pf := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	pf("# Reproduction of the paper's experiments\n\n")
	cmd := "cd study && go run . reproduce"
	if shown := withoutReplay(r.args); len(shown) > 0 {
		cmd += " " + strings.Join(shown, " ")
	}
	pf("Made by `%s`: %d runs a point, seed %d, exact samples, fixed seeds (the CSV files and figures are the same on every run with these flags).\n", cmd, set.runs, r.seed)
	if r.replayed == "" {
		pf("It took %v with %d workers (GOMAXPROCS %d, %d CPUs, %s, %s/%s).\n\n",
			r.elapsed.Round(time.Second), r.workers, runtime.GOMAXPROCS(0), runtime.NumCPU(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	} else {
		pf("Rendered with -replay from the runs of an earlier run (%s, %d learning runs).\n\n", filepath.Base(r.replayed), r.learnRuns)
	}
	if len(r.took) > 0 && r.replayed == "" {
		var parts []string
		keys := []string{"diamond/ours", "grid/ours", "grid/sparsitron"}
		for _, m := range set.paperNames() {
			keys = append(keys, "grid/"+m)
		}
		for _, key := range keys {
			if d, ok := r.took[key]; ok {
				parts = append(parts, fmt.Sprintf("%s %v", key, d.Round(time.Second)))
			}
		}
		pf("Learning time summed over the workers (wall clock, so it includes any contention from other work on the machine): %s.\n\n", strings.Join(parts, ", "))
	}
	if r.interrupted > 0 {
		pf("**The run was interrupted (Ctrl-C) after %d of its %d tasks had finished; what follows is what they say, and the points have the runs shown in the tables (`fig2_grid.csv` has the count of each).**\n\n", r.done, r.interrupted)
	}
	if r.quick {
		pf("**This is a quick run (-quick): few runs on a coarse grid, a smoke test. Its numbers are not the experiment.**\n\n")
	}
	pf("Files: `fig*.csv` hold the numbers behind every point of the figures, `runs.csv` every run (one line per run and method).\n\n")

	if len(r.incoherence) > 0 || r.has(expDiamond) {
		pf("## Figure 1: the diamond graph, which violates the incoherence condition\n\n")
		pf("The diamond has n nodes: node 1 and node n are joined to each of the n − 2 others, 2(n − 2) edges of weight a, zero field. ")
		pf("The incoherence value at node 1 is max over j ∉ S of ‖Q*_{jS} (Q*_{SS})⁻¹‖₁, with Q* the Fisher information of node 1's logistic regression at the truth ")
		pf("(Ravikumar, Wainwright and Lafferty 2010, whose guarantee needs it below 1), computed exactly (`models.DiamondIncoherence`).\n\n")
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
			inc, _ := models.DiamondIncoherence(n, set.diamondA)
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
			k           int
			ok1, ok2    bool
			ratio       float64
			ours, spars *reproPoint
		}
		var verdicts []verdict
		for _, k := range r.gridKs() {
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
		r.fractionTable(w, expGrid, r.gridKs(), "k", gridMethods)
		pf("\nMean estimation error max_ij ‖W_ij − Ŵ_ij‖∞ (ours / Sparsitron):\n\n")
		r.errorTable(w, r.gridKs())
		pf("\nWhy runs fail: mean number of missed true edges and of false edges, and the mean over runs of the smallest symmetrised weight of a true edge and of the largest of a non-edge (the threshold is η/2 = %g):\n\n", set.gridTheta/2)
		r.failureTable(w, r.gridKs())
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
		for _, k := range r.gridKs() {
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
		pf("\nAlgorithm 2 with the paper's own solver, Algorithm 4 under its fixed schedule, is measured in [paper-schedule.md](paper-schedule.md)%s.\n", map[bool]string{true: " and in the next section", false: ""}[len(set.paperNames()) > 0])
		if len(set.paperNames()) > 0 {
			r.paperSection(w)
		}
	}
	return nil
}

// wilson returns the Wilson score interval of a binomial proportion with
// rec successes in runs trials, at z standard errors (1.96 for 95%).
func wilson(rec, runs int, z float64) (lo, hi float64) {
	if runs == 0 {
		return 0, 1
	}
	n, f := float64(runs), float64(rec)/float64(runs)
	c := (f + z*z/(2*n)) / (1 + z*z/n)
	h := z / (1 + z*z/n) * math.Sqrt(f*(1-f)/n+z*z/(4*n*n))
	return math.Max(0, c-h), math.Min(1, c+h)
}

// crossingBand returns the N at which the upper and the lower 95% Wilson
// bounds of a recovery curve cross recoveryLevel (as threshold does for the
// fractions): the earliest and the latest crossing the runs allow. A bound
// that never reaches the level has ok false.
func crossingBand(s []*reproPoint) (early, late float64, okEarly, okLate bool) {
	bound := func(upper bool) []*reproPoint {
		b := make([]*reproPoint, len(s))
		for x, p := range s {
			lo, hi := wilson(p.rec, p.runs, 1.96)
			f := lo
			if upper {
				f = hi
			}
			// A point with the bound as its fraction, on a scale fine
			// enough that threshold's interpolation is that of f.
			const scale = 1 << 20
			b[x] = &reproPoint{n: p.n, runs: scale, rec: int(math.Round(f * scale))}
		}
		return b
	}
	_, early, okEarly = threshold(bound(true))
	_, late, okLate = threshold(bound(false))
	return
}

// paperSection writes the section on Algorithm 4 under the paper's fixed
// schedule: the 90% crossings with their uncertainty, and every point at
// which it ran beside the other methods on the same runs.
func (r *reproReport) paperSection(w io.Writer) {
	set := r.settings
	pf := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	pf("\n## Figure 2 with the paper's solver: Algorithm 4 under its fixed schedule\n\n")
	pf("Here Algorithm 2's regressions are also solved by `pairwise.GroupMirror{Schedule: pairwise.Paper, T: T}`: Algorithm 4 of the paper line by line, T iterations of mirror descent with the group-norm map, the fixed step γ = (1/(2W))·√(e ln n / T) (W = 2λ√k, n = 9 groups), from the constant start, returning the averaged iterate. ")
	pf("The paper does not say which T its experiments used (its Theorem 2 asks for T = O(λ²k³e^{12λ} ln n / ε⁴), with no constant). ")
	pf("\"T = ⌈eN/(3k)⌉\" is the T at which Lemma 4's bound on the optimisation error, 2W·√(e ln n / T) (the bound for which the paper's γ is the optimal step), equals the statistical error that the proof of Theorem 2 accepts in the same place, Lemma 9's 2W·√(6 ln n / N') with N' ≈ 2N/k the rows of one regression: T = (e/6)·N'. ")
	pf("Algorithm 4 runs on the first %d runs of each point where it is listed (the same samples and signs as the other methods' runs of the same number); Algorithm 2 with exact solves and Sparsitron run on all %d.\n\n", set.paperRuns, set.runs)
	pf("![The weights that decide recovery](fig2_shrinkage.png)\n\n")
	pf("Sample size at which each method crosses %.0f%% recovery (linear in log N between grid points), and the band within which the runs place it: the crossings of the upper and lower 95%% Wilson bounds of the fractions (\"> N\" when a bound does not reach %.0f%% on the grid):\n\n", 100*recoveryLevel, 100*recoveryLevel)
	pf("| k | method | runs a point | points of N | crossing | 95%% band |\n|---|---|---|---|---|---|\n")
	for _, k := range r.gridKs() {
		for _, m := range append(slices.Clone(gridMethods), set.paperNames()...) {
			s := r.series(expGrid, k, m)
			if len(s) < 2 {
				continue
			}
			_, c, ok := threshold(s)
			e, l, okE, okL := crossingBand(s)
			last := s[len(s)-1].n
			fmtC := func(v float64, ok bool) string {
				if !ok {
					return fmt.Sprintf("> %d", last)
				}
				return fmt.Sprintf("%.0f", v)
			}
			pf("| %d | %s | %d | %d–%d (%d) | %s | %s – %s |\n", k, methodLabel(m), s[0].runs, s[0].n, last, len(s), fmtC(c, ok), fmtC(e, okE), fmtC(l, okL))
		}
	}
	pf("\nEvery point at which Algorithm 4 ran, beside the exact solves and Sparsitron on the same runs (the first %d). ", set.paperRuns)
	pf("\"Edge size\" is Σ‖Ŵ_ij‖_F over the true edges divided by Σ‖W_ij‖_F (1 for an unbiased estimate, below 1 when shrunk), \"non-edge size\" the mean ‖Ŵ_ij‖_F over the non-edges (0 for the truth), both from the per-node estimates; ")
	pf("\"gap\" is the largest duality-gap certificate over the nodes' regressions, an upper bound on L(ŵ) − L*, the optimisation error left:\n\n")
	pf("| k | N | method | T | recovered | 95%% interval | missed, false | min edge, max non-edge | edge size | non-edge size | error | gap |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	type key struct{ k, n int }
	var keys []key
	for _, rr := range r.runs {
		if rr.task.exp == expGrid && strings.HasPrefix(rr.out.method, "paper") {
			kk := key{rr.task.param, rr.task.n}
			if !slices.Contains(keys, kk) {
				keys = append(keys, kk)
			}
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.k != b.k {
			return a.k - b.k
		}
		return a.n - b.n
	})
	for _, kk := range keys {
		for _, m := range append(slices.Clone(gridMethods), set.paperNames()...) {
			var outs []outcome
			for _, rr := range r.runs {
				if rr.task.exp == expGrid && rr.task.param == kk.k && rr.task.n == kk.n && rr.task.run < set.paperRuns && rr.out.method == m {
					outs = append(outs, rr.out)
				}
			}
			if len(outs) == 0 {
				continue
			}
			var rec int
			var missed, extra, minE, maxN, en, nn, er, gap float64
			for _, o := range outs {
				if o.recovered {
					rec++
				}
				missed += float64(o.missed)
				extra += float64(o.extra)
				minE += o.minEdge
				maxN += o.maxNon
				en += o.edgeNorm
				nn += o.nonNorm
				er += o.err
				gap = math.Max(gap, o.gap)
			}
			n := float64(len(outs))
			lo, hi := wilson(rec, len(outs), 1.96)
			t := "–"
			if outs[0].iters > 0 {
				t = strconv.Itoa(outs[0].iters)
			}
			name := map[string]string{"ours": "exact", "sparsitron": "Sparsitron", "paper": "Algorithm 4, rule"}[m]
			if name == "" {
				name = "Algorithm 4, fixed T"
			}
			pf("| %d | %d | %s | %s | %d of %d | %.2f–%.2f | %.1f, %.1f | %.3f, %.3f | %.2f | %.3f | %.3f | %.2g |\n",
				kk.k, kk.n, name, t, rec, len(outs), lo, hi, missed/n, extra/n, minE/n, maxN/n, en/n, nn/n, er/n, gap)
		}
	}
	pf("\n")
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
