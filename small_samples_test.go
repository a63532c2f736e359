package pairwise

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/mrfkit/pairwise/internal/selection"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestTScore checks the normal score of a t statistic against the closed
// forms of Student's t tail for one degree of freedom (the Cauchy law,
// P(T > t) = 1/2 − atan(t)/π) and two (P(T > t) = (1 − t/√(2 + t²))/2),
// its limits, and selection.TQuantile as its inverse.
func TestTScore(t *testing.T) {
	tails := map[float64]func(float64) float64{
		1: func(x float64) float64 { return 0.5 - math.Atan(x)/math.Pi },
		2: func(x float64) float64 { return (1 - x/math.Sqrt(2+x*x)) / 2 },
	}
	for df, tail := range tails {
		for _, x := range []float64{0.1, 1, 2.5, 5, 20} {
			want := -distuv.UnitNormal.Quantile(tail(x))
			if got := selection.TScore(x, df); math.Abs(got-want) > 1e-9*math.Max(1, want) {
				t.Errorf("tScore(%g, %g) = %.12g, want %.12g", x, df, got, want)
			}
			if back := selection.TQuantile(selection.TScore(x, df), df); math.Abs(back-x) > 1e-6*x {
				t.Errorf("tQuantile(tScore(%g, %g)) = %.12g", x, df, back)
			}
		}
	}
	for _, c := range []struct{ t, df, want float64 }{
		{3, math.Inf(1), 3}, // the asymptotic test
		{3, 0, 0},           // no degrees of freedom
		{3, -2, 0},
		{0, 10, 0},
	} {
		if got := selection.TScore(c.t, c.df); got != c.want {
			t.Errorf("tScore(%g, %g) = %g, want %g", c.t, c.df, got, c.want)
		}
	}
	if !math.IsNaN(selection.TScore(math.NaN(), 5)) {
		t.Error("tScore(NaN, 5) is not NaN")
	}
	// Adequate N: at N = 1000 and p = 49 (the 7×7 grid's first stage),
	// the correction (HC1 and t with 951 degrees of freedom) shrinks a
	// statistic between 2 and 5 by 2.5% to 3.5%, the figures
	// docs/tuning/small-samples.md states.
	for _, x := range []float64{2, 3, 4, 5} {
		z := selection.TScore(x/selection.HC1Factor(1000, 49), 951)
		if z < 0.965*x || z > 0.975*x {
			t.Errorf("N = 1000, p = 49: t = %g scores %.4g, want 2.5%% to 3.5%% below", x, z)
		}
	}
}

// TestCochranOK checks Cochran's rule on hand-made marginals.
func TestCochranOK(t *testing.T) {
	for _, c := range []struct {
		ci, cj []float64
		want   bool
	}{
		{[]float64{10, 10}, []float64{10, 10}, true},              // every expected count 5
		{[]float64{9, 11}, []float64{10, 10}, false},              // one cell 4.5 of four: 25% > 20%
		{[]float64{50, 50, 50, 50, 4}, []float64{102, 102}, true}, // 2 of 10 cells below 5 (2.0), none below 1
		{[]float64{50, 50, 50, 52, 2}, []float64{102, 102}, true},
		{[]float64{51, 51, 51, 50, 1}, []float64{102, 102}, false}, // 0.5 < 1
		{[]float64{20, 0}, []float64{10, 10}, true},                // a value that never occurs takes no part
		{[]float64{3, 3}, []float64{3, 3}, false},
	} {
		total := 0.0
		for _, v := range c.ci {
			total += v
		}
		if got := selection.CochranOK(c.ci, c.cj, total); got != c.want {
			t.Errorf("cochranOK(%v, %v) = %v, want %v", c.ci, c.cj, got, c.want)
		}
	}
}

// uniformSamples draws N rows of n independent uniform values in 0..k-1
// (all equal to the first when same), seeded by (seed, n, N).
func uniformSamples(t testing.TB, k, n, N int, seed uint64, same bool) *Samples {
	r := rand.New(rand.NewPCG(seed, uint64(n*1000+N)))
	rows := make([][]int, N)
	for m := range rows {
		rows[m] = make([]int, n)
		for j := range rows[m] {
			if same && m > 0 {
				rows[m][j] = rows[0][j]
			} else {
				rows[m][j] = r.IntN(k)
			}
		}
	}
	s, err := NewSamples(k, rows)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// falseEdgeRuns returns how many of seeds runs of the tuning-free default on
// independent uniform data (or identical rows) report an edge.
func falseEdgeRuns(t testing.TB, k, n, N, seeds int, same bool) int {
	bad := 0
	for seed := 0; seed < seeds; seed++ {
		s := uniformSamples(t, k, n, N, uint64(seed), same)
		res, err := Learn(s, WithWorkers(1))
		if err != nil {
			t.Fatalf("k = %d, n = %d, N = %d, seed %d: %v", k, n, N, seed, err)
		}
		if len(res.Edges) > 0 {
			bad++
		}
	}
	return bad
}

// TestSmallSampleFalseEdges: on independent data the tuning-free default
// must report no edge in most runs, at the sample sizes where the test
// without the small-sample rule (internal/selection) called false edges in
// 16% to 99% of its runs (docs/tuning/small-samples.md). 40 seeded runs a
// cell; the bound is 4 runs with an edge: a rule whose false-edge rate is
// 2% (twice α) exceeds it with probability 0.14% (binomial), so a failure
// means the rule is gone or much weaker, not bad luck.
func TestSmallSampleFalseEdges(t *testing.T) {
	cells := []struct{ k, n, N int }{
		{2, 2, 5}, {2, 3, 10}, {2, 5, 5}, {2, 5, 10}, {2, 10, 20},
		{3, 3, 20}, {3, 5, 50}, {4, 2, 20}, {4, 3, 50}, {5, 2, 50},
	}
	seeds := 40
	if raceEnabled {
		cells, seeds = cells[:5], 10 // the Ising cells; the bound scales
	}
	for _, c := range cells {
		if bad := falseEdgeRuns(t, c.k, c.n, c.N, seeds, false); bad*40 > 4*seeds {
			t.Errorf("k = %d, n = %d, N = %d: %d of %d runs on independent data report an edge, want at most %d", c.k, c.n, c.N, bad, seeds, 4*seeds/40)
		}
	}
}

// TestSmallSampleIdenticalRows: all rows identical say nothing about any
// dependence: no edge, and a warning naming every variable constant.
func TestSmallSampleIdenticalRows(t *testing.T) {
	for _, c := range []struct{ k, n, N int }{{2, 2, 2}, {2, 5, 2}, {2, 30, 1000}, {3, 5, 10}, {6, 4, 50}} {
		s := uniformSamples(t, c.k, c.n, c.N, 1, true)
		res, err := Learn(s, WithWorkers(1))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Edges) > 0 {
			t.Errorf("k = %d, n = %d, N = %d identical rows: edges %v", c.k, c.n, c.N, res.Edges)
		}
		found := false
		for _, w := range res.Warnings {
			if w.Kind == ConstantVariable && len(w.Nodes) == c.n {
				found = true
			}
		}
		if !found {
			t.Errorf("k = %d, n = %d, N = %d identical rows: warnings %v, want every variable constant", c.k, c.n, c.N, res.Warnings)
		}
	}
}

// TestSmallSampleWarning: little data give a SmallSample warning, on the
// tuning-free path and with η given; enough data give none.
func TestSmallSampleWarning(t *testing.T) {
	small := uniformSamples(t, 2, 10, 20, 3, false)
	for _, opts := range [][]Option{nil, {WithWidth(1), WithMinEdgeWeight(0.2)}} {
		res, err := Learn(small, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Warnings) != 1 || res.Warnings[0].Kind != SmallSample || res.Warnings[0].Pairs == 0 || res.Warnings[0].Message == "" {
			t.Errorf("n = 10, N = 20 with %d options: warnings %+v, want one SmallSample", len(opts), res.Warnings)
		}
	}
	res, err := Learn(uniformSamples(t, 2, 10, 1000, 3, false))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("n = 10, N = 1000: warnings %v, want none", res.Warnings)
	}
}

// TestSmallSamplePower: where the data are adequate the rule is idle (no
// pair is left untested, no warning) and the tuning-free default still
// recovers the graph: the diamond (n = 10, A = 0.2) at N = 2000 on five
// seeds, each recovered exactly before the rule (docs/tuning/recovery.md:
// 20/20 at N = 2000), and the 3×3 Potts grid with k = 4 at N = 5000 (20/20
// there).
func TestSmallSamplePower(t *testing.T) {
	type model struct {
		name string
		m    *Model
		N    int
		runs int
	}
	models := []model{{"diamond", diamondIsing(10, 0.2), 2000, 5}}
	if !raceEnabled {
		models = append(models, model{"grid k=4", gridPotts(3, 3, 4, 0.2, rand.New(rand.NewPCG(1, 2))), 5000, 1})
	}
	for _, c := range models {
		want := c.m.Edges()
		for r := 0; r < c.runs; r++ {
			s := exactDraws(t, c.m, c.N, uint64(r+1))
			res, err := Learn(s)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Warnings) != 0 {
				t.Errorf("%s, N = %d, run %d: warnings %v", c.name, c.N, r, res.Warnings)
			}
			if !sameSupport(res.Edges, want) {
				t.Errorf("%s, N = %d, run %d: learned %d edges, want the %d of the model", c.name, c.N, r, len(res.Edges), len(want))
			}
		}
	}
}

// sameSupport reports whether two edge lists hold the same pairs.
func sameSupport(a, b []Edge) bool {
	if len(a) != len(b) {
		return false
	}
	for x := range a {
		if a[x].I != b[x].I || a[x].J != b[x].J {
			return false
		}
	}
	return true
}

// TestSmallSampleTable is the measurement of docs/tuning/small-samples.md:
// 200 seeded runs a cell of independent uniform data, every n and N of the
// judging grid, k = 2..6; each cell must have at most 10 runs with an edge
// (95% without). It takes tens of minutes; run it with
// PAIRWISE_SMALLN_LONG=1 (PAIRWISE_SMALLN_K=3 for one alphabet).
func TestSmallSampleTable(t *testing.T) {
	if testing.Short() || os.Getenv("PAIRWISE_SMALLN_LONG") == "" {
		t.Skip("set PAIRWISE_SMALLN_LONG=1 to run the 200-seed table")
	}
	ks := []int{2, 3, 4, 5, 6}
	if v := os.Getenv("PAIRWISE_SMALLN_K"); v != "" {
		var k int
		fmt.Sscan(v, &k)
		ks = []int{k}
	}
	for _, k := range ks {
		ns := []int{2, 3, 5, 10, 20, 30}
		if k > 3 {
			ns = ns[:4] // n = 20, 30 at k ≥ 4 cost hours on two cores
		}
		for _, n := range ns {
			for _, N := range []int{2, 3, 5, 10, 20, 50, 100, 300, 1000} {
				bad := falseEdgeRuns(t, k, n, N, 200, false)
				same := falseEdgeRuns(t, k, n, N, 20, true)
				t.Logf("k = %d, n = %d, N = %d: %d/200 runs with an edge; identical rows %d/20", k, n, N, bad, same)
				if bad > 10 || same > 0 {
					t.Errorf("k = %d, n = %d, N = %d: %d/200 runs with an edge (want ≤ 10), identical rows %d/20 (want 0)", k, n, N, bad, same)
				}
			}
		}
	}
}

// TestNotConvergedWarning: a fit whose regressions stopped before their
// certificate says so in Result.Warnings (issue 30: WithMaxIterations(2)
// and EntropicMirror's Paper schedule converged on 0 of 10 nodes with no
// warning), naming the nodes and the largest gap; a fit that converges has
// no such warning.
func TestNotConvergedWarning(t *testing.T) {
	m := diamondIsing(10, 0.5)
	sm, err := NewExactSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sm.Sample(rand.NewPCG(30, 2), 5000)
	if err != nil {
		t.Fatal(err)
	}
	given := []Option{WithWidth(4), WithMinEdgeWeight(0.8)}
	for _, c := range []struct {
		name    string
		opts    []Option
		stopped bool
		online  bool
	}{
		{"default", nil, false, false},
		{"default, λ and η", given, false, false},
		{"WithMaxIterations(2)", []Option{WithMaxIterations(2)}, true, false},
		{"WithMaxIterations(2), λ and η", append(given, WithMaxIterations(2)), true, false},
		{"Paper schedule", append(given, WithSolver(EntropicMirror{Schedule: Paper, T: 100})), true, false},
		{"Sparsitron", append(given, WithSolver(Sparsitron{})), true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Learn(s, c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			var warn *Warning
			for x := range res.Warnings {
				if res.Warnings[x].Kind == NotConverged {
					warn = &res.Warnings[x]
				}
			}
			var stopped []int
			gap := 0.0
			for _, f := range res.Nodes {
				if !f.Converged {
					stopped = append(stopped, f.Node)
					gap = math.Max(gap, f.Gap)
				}
			}
			switch {
			case !c.stopped && warn != nil:
				t.Fatalf("a converged fit warns: %v", warn)
			case !c.stopped:
				if len(stopped) > 0 {
					t.Fatalf("nodes %v did not converge", stopped)
				}
				return
			case warn == nil:
				t.Fatalf("%d of %d nodes did not converge, and no warning says so (warnings %v)", len(stopped), len(res.Nodes), res.Warnings)
			}
			if len(stopped) == 0 || fmt.Sprint(warn.Nodes) != fmt.Sprint(stopped) {
				t.Errorf("warning names nodes %v, the fits that stopped are %v", warn.Nodes, stopped)
			}
			want := fmt.Sprintf("the regressions of %d of the 10 nodes", len(stopped))
			if !strings.Contains(warn.Message, want) || !strings.Contains(warn.Message, fmt.Sprintf("largest gap is %.3g", gap)) || !strings.Contains(warn.Message, "tolerance 1e-06") {
				t.Errorf("message %q does not say %q, the largest gap %.3g and the tolerance", warn.Message, want, gap)
			}
			if got := strings.Contains(warn.Message, "no stopping rule"); got != c.online {
				t.Errorf("message %q: says Sparsitron has no stopping rule: %v, want %v", warn.Message, got, c.online)
			}
			if warn.Kind.String() != "not converged" {
				t.Errorf("kind %q", warn.Kind)
			}
		})
	}
}

// TestSmallSampleWarningSupportModel checks the SmallSample warning where
// the Ising edge test is made in the nodes' support models (more than
// selection.WaldDenseMax spins): a node's statistics count its support,
// the bias and the spin tested, not all n coefficients, so the warning
// must too. 300 independent fair spins of 400 rows (200 of each value,
// below the 2·300 rows a full regression would need: the old count called
// every pair untested while the test tested them) and one spin with 3
// ones in 400 rows, short for any regression: the warning names that
// spin, and not the fair ones.
func TestSmallSampleWarningSupportModel(t *testing.T) {
	skipUnderRace(t)
	const n, rows = 300, 400
	r := rand.New(rand.NewPCG(4, 4))
	data := make([][]int, rows)
	for m := range data {
		data[m] = make([]int, n)
		for j := 1; j < n; j++ {
			data[m][j] = r.IntN(2)
		}
		if m < 3 {
			data[m][0] = 1
		}
	}
	s, err := NewSamples(2, data)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Learn(s, WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	var small []Warning
	for _, w := range res.Warnings {
		if w.Kind == SmallSample {
			small = append(small, w)
		}
	}
	if len(small) != 1 {
		t.Fatalf("%d SmallSample warnings, want 1: %v", len(small), res.Warnings)
	}
	w := small[0]
	if len(w.Nodes) == 0 || w.Nodes[0] != 0 || len(w.Nodes) > 3 {
		t.Errorf("warning names nodes %v, want spin 0 (3 ones in 400 rows) and no fair spin", w.Nodes)
	}
	if w.Pairs < n-1 || w.Pairs > 3*(n-1) {
		t.Errorf("warning counts %d pairs untested, want those of spin 0 (%d)", w.Pairs, n-1)
	}
	t.Log(w.Message)
}
