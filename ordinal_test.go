package pairwise

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// ordinalModel returns the ordinal model (WithScale(Ordinal)) on n variables with
// k states, scores s(a) = (2a − (k−1))/(k−1) for every variable, coupling w
// on each pair of edges and fields theta (k values, the same for every
// variable; nil for none).
func ordinalModel(t *testing.T, n, k int, edges [][2]int, w []float64, theta []float64) *Model {
	t.Helper()
	ord := make(map[[2]int]float64, len(edges))
	for x, e := range edges {
		ord[e] = w[x]
	}
	return mixedModel(t, n, k, ord, nil, nil, theta) // mixed_test.go
}

// TestOrdinalExactDistribution checks the ordinal model's estimate against
// the truth on the exact distribution (every state weighted by its
// probability, by enumeration) of a small ordinal model with skewed
// fields: the model is the regressions' own, so each value pair's
// population minimiser is (s_i(α) − s_i(β))·w_ij and every average of
// them is w_ij. The width is large enough that no constraint binds, so
// the estimate is exact up to the solver's tolerance: 1e-9 on the loss
// bounds a coefficient whose curvature is of order 0.1 to about 1e-4, the
// tolerance here (the errors seen are 1e-7). The edge test's refit is a
// Newton solve to a decrement of 1e-12, exact to 1e-6.
func TestOrdinalExactDistribution(t *testing.T) {
	edges := [][2]int{{0, 1}, {0, 3}, {1, 2}} // sorted, as Result.Edges
	w := []float64{0.6, 0.3, -0.4}
	for _, k := range []int{3, 4} {
		theta := make([]float64, k)
		for a := range theta {
			theta[a] = 0.5 * float64(a) // the top answers more common
		}
		m := ordinalModel(t, 4, k, edges, w, theta)
		s := exactSamples(t, m)
		res, err := Learn(s, WithScale(Ordinal), WithWidth(20), WithMinEdgeWeight(0.1))
		if err != nil {
			t.Fatal(err)
		}
		// The edge test's refit (one softmax over node i's answers,
		// unconstrained) on the same distribution, as 10⁴ rows: its
		// estimates are the truth, its statistics far above any threshold.
		states, probs := enumerate(m)
		for x := range probs {
			probs[x] *= 1e4
		}
		big, err := NewWeightedSamples(k, states, probs)
		if err != nil {
			t.Fatal(err)
		}
		tested, err := Learn(big, WithScale(Ordinal))
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(edgePairs(tested.Edges)) != fmt.Sprint(edges) {
			t.Errorf("k=%d: the edge test keeps %v, want %v", k, edgePairs(tested.Edges), edges)
		}
		for x, e := range edges {
			for _, ij := range [][2]int{e, {e[1], e[0]}} {
				if got := tested.Tuning.Debiased(ij[0], ij[1], k-1, k-1); math.Abs(got-w[x]) > 1e-6 {
					t.Errorf("k=%d: refit w(%d, %d) = %.8f, want %.8f", k, ij[0], ij[1], got, w[x])
				}
			}
		}
		if got := fmt.Sprint(res.Edges); len(res.Edges) != len(edges) {
			t.Fatalf("k=%d: edges %s, want %v", k, got, edges)
		}
		for x, e := range edges {
			blk := res.Model.Coupling(e[0], e[1])
			// The corner (k−1, k−1) holds w·1·1.
			if got := blk.At(k-1, k-1); math.Abs(got-w[x]) > 1e-3 {
				t.Errorf("k=%d: w(%d, %d) = %.5f, want %.5f", k, e[0], e[1], got, w[x])
			}
			if got := blk.At(0, k-1); math.Abs(got+w[x]) > 1e-3 {
				t.Errorf("k=%d: W(%d, %d)(0, k-1) = %.5f, want %.5f", k, e[0], e[1], got, -w[x])
			}
		}
	}
}

// TestOrdinalLearnsWithRareAnswers is issue 31's Likert case in small: a
// chain of six five-point items whose lowest answer is rare (about 1% of
// the rows). The categorical test (Algorithm 2's blocks) cannot use any
// pair of a variable with a rare answer; the ordinal model finds the chain
// exactly with its default edge test. Seeds fixed; at N = 2000 each
// coupling of 0.5 has a statistic of about 10, far above the Bonferroni
// value of 15 pairs at 1% (3.4).
func TestOrdinalLearnsWithRareAnswers(t *testing.T) {
	const n, k = 6, 5
	var edges [][2]int
	var w []float64
	for i := 0; i+1 < n; i++ {
		edges = append(edges, [2]int{i, i + 1})
		w = append(w, 0.5)
	}
	theta := []float64{-3, 0, 0.5, 0.5, 0}
	m := ordinalModel(t, n, k, edges, w, theta)
	sm, err := NewExactSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sm.Sample(rand.NewPCG(31, 1), 2000)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Learn(s, WithScale(Ordinal))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(res.Edges), fmt.Sprint(m.Edges()); fmt.Sprint(edgePairs(res.Edges)) != fmt.Sprint(edgePairs(m.Edges())) {
		t.Errorf("ordinal edges %s, want %s", got, want)
	}
	if !res.Tuning.Ordinal {
		t.Error("Tuning.Ordinal is false")
	}
	cat, err := Learn(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("categorical default: %d edges; ordinal: %d", len(cat.Edges), len(res.Edges))
}

// edgePairs returns the (I, J) of edges.
func edgePairs(edges []Edge) [][2]int {
	var p [][2]int
	for _, e := range edges {
		p = append(p, [2]int{e.I, e.J})
	}
	return p
}

// TestOrdinalOptionErrors checks that WithScale(Ordinal) is refused where it
// cannot apply, with errors a caller can act on.
func TestOrdinalOptionErrors(t *testing.T) {
	s, err := NewSamples(3, [][]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	var oe *OptionError
	if _, err := LearnPairwise(s, WithScale(Ordinal)); !errors.As(err, &oe) {
		t.Errorf("LearnPairwise with WithScale(Ordinal): %v, want an OptionError", err)
	}
	if _, err := Learn(s, WithScale(Ordinal), WithSolver(GroupMirror{})); err == nil {
		t.Error("WithScale(Ordinal) with GroupMirror: no error")
	}
}

var (
	nullFull    = flag.Bool("null.full", false, "TestNullCalibration: the full grid of issue 31 (k = 3..7, n = 10, 30, N = 250, 500, 2000), printed as a table")
	nullRuns    = flag.Int("null.runs", 200, "TestNullCalibration -null.full: `runs` a cell of the ordinal model (a quarter of them for the nominal one, unless -null.nominal)")
	nullNominal = flag.Int("null.nominal", 0, "TestNullCalibration -null.full: `runs` a cell of the nominal scale (0: a quarter of -null.runs)")
	nullScale   = flag.String("null.scale", "both", "TestNullCalibration -null.full: the `scale`s of the grid: both, ordinal, nominal, or auto (the default: AutoScale, which may find unordered variables)")
)

// skewedNullSamples returns N rows of n independent items with k answers
// each, whose marginals are skewed as questionnaire answers are: a random
// mode, probabilities falling geometrically (ratio 0.3 to 0.7) away from
// it, so that the farthest answers are rare (often under 1%).
func skewedNullSamples(t testing.TB, n, k, rows int, r *rand.Rand) *Samples {
	t.Helper()
	cum := make([][]float64, n)
	for j := range cum {
		mode, ratio := r.IntN(k), 0.3+0.4*r.Float64()
		p := make([]float64, k)
		sum := 0.0
		for a := range p {
			d := a - mode
			if d < 0 {
				d = -d
			}
			p[a] = math.Pow(ratio, float64(d))
			sum += p[a]
		}
		c := 0.0
		cum[j] = make([]float64, k)
		for a := range p {
			c += p[a] / sum
			cum[j][a] = c
		}
	}
	data := make([][]int, rows)
	for m := range data {
		row := make([]int, n)
		for j := range row {
			u := r.Float64()
			a := 0
			for a < k-1 && u > cum[j][a] {
				a++
			}
			row[j] = a
		}
		data[m] = row
	}
	s, err := NewSamples(k, data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestNullCalibration checks the false-edge rate of the default edge test
// on independent k-ary items with skewed marginals, for the ordinal model
// and for the categorical blocks of Algorithm 2: a run with any edge is a
// false positive, and the test is designed for at most 1% of them
// (WithFalseEdgeRate). The short version runs 20 runs for each k = 3, 5, 7
// at n = 10, N = 300 under the ordinal model and 20 at k = 4 under the
// categorical one (80 runs): with a true rate of 1% the chance of 4 or
// more false runs is 0.9% (binomial), the bound here; issue 31 asks for at
// most 5% in every cell of its grid (-null.full: 200 runs a cell for the
// ordinal model, 50 for the slower categorical one).
func TestNullCalibration(t *testing.T) {
	skipUnderRace(t) // 80 learner calls: see skipUnderRace
	type cell struct {
		k, n, rows    int
		ordinal, auto bool
	}
	runs, catRuns := 20, 20
	var cells []cell
	if *nullFull {
		runs, catRuns = *nullRuns, max(*nullRuns/4, 1) // the nominal fits are the slower
		if *nullNominal > 0 {
			catRuns = *nullNominal
		}
		for k := 3; k <= 7; k++ {
			for _, n := range []int{10, 30} {
				for _, rows := range []int{250, 500, 2000} {
					switch *nullScale {
					case "auto":
						cells = append(cells, cell{k, n, rows, true, true})
					case "ordinal":
						cells = append(cells, cell{k, n, rows, true, false})
					case "nominal":
						cells = append(cells, cell{k, n, rows, false, false})
					default:
						cells = append(cells, cell{k, n, rows, true, false}, cell{k, n, rows, false, false})
					}
				}
			}
		}
	} else {
		if testing.Short() {
			t.Skip("short")
		}
		cells = []cell{{3, 10, 300, true, false}, {5, 10, 300, true, false}, {7, 10, 300, true, false}, {4, 10, 300, false, false}}
	}
	total := 0
	for _, c := range cells {
		r := rand.New(rand.NewPCG(uint64(1000*c.k+c.n), uint64(c.rows)))
		bad, runs := 0, runs
		if !c.ordinal {
			runs = catRuns
		}
		for run := 0; run < runs; run++ {
			s := skewedNullSamples(t, c.n, c.k, c.rows, r)
			opts := []Option{WithWorkers(1), WithScale(Nominal)}
			switch {
			case c.auto:
				opts = opts[:1] // the default
			case c.ordinal:
				opts = append(opts, WithScale(Ordinal))
			}
			res, err := Learn(s, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Edges) > 0 {
				bad++
			}
		}
		total += bad
		if *nullFull {
			t.Logf("k=%d n=%d N=%d ordinal=%v auto=%v: %d of %d runs with an edge (%.1f%%)", c.k, c.n, c.rows, c.ordinal, c.auto, bad, runs, 100*float64(bad)/float64(runs))
			if float64(bad) > 0.05*float64(runs) {
				t.Errorf("k=%d n=%d N=%d ordinal=%v: %d of %d runs with an edge, more than 5%%", c.k, c.n, c.rows, c.ordinal, bad, runs)
			}
		}
	}
	if !*nullFull && total >= 4 {
		t.Errorf("%d of %d null runs with an edge, want at most 3", total, 80)
	}
}

// TestAutoScale checks the data's choice of scale (WithScale(AutoScale),
// Learn's default) on both kinds of truth it must tell apart: samples of
// an ordinal model with skewed answers get the ordinal model, and the
// paper's checkerboard Potts couplings (k = 4: every block ±θ in a
// checkerboard, whose linear-by-linear part is 0) get the nominal blocks
// of Algorithm 2, which recover the grid where the ordinal model would see
// nothing. Exact samples, fixed seeds; the linear shares seen are 0.9 and
// above against 0.05 and below, far on either side of the rule's 1/2.
func TestAutoScale(t *testing.T) {
	var edges [][2]int
	var w []float64
	for i := 0; i+1 < 6; i++ {
		edges = append(edges, [2]int{i, i + 1})
		w = append(w, 0.5)
	}
	m := ordinalModel(t, 6, 5, edges, w, []float64{-3, 0, 0.5, 0.5, 0})
	sm, err := NewExactSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sm.Sample(rand.NewPCG(31, 2), 1000)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Learn(s)
	if err != nil {
		t.Fatal(err)
	}
	if a, l, need, ok := res.ScaleCheck(); res.Scale != Ordinal || !ok || !(l >= need) {
		t.Errorf("ordinal truth: scale %v, check %v, %v, %v, %v, want ordinal", res.Scale, a, l, need, ok)
	}
	grid := gridPotts(3, 3, 4, 0.5, rand.New(rand.NewPCG(1, 0)))
	gs, err := NewExactSampler(grid)
	if err != nil {
		t.Fatal(err)
	}
	s, err = gs.Sample(rand.NewPCG(32, 2), 2000)
	if err != nil {
		t.Fatal(err)
	}
	if res, err = Learn(s); err != nil {
		t.Fatal(err)
	}
	if a, l, need, ok := res.ScaleCheck(); res.Scale != Nominal || !ok || l >= need {
		t.Errorf("checkerboard grid: scale %v, check %v, %v, %v, %v, want nominal", res.Scale, a, l, need, ok)
	}
	if fmt.Sprint(edgePairs(res.Edges)) != fmt.Sprint(edgePairs(grid.Edges())) {
		t.Errorf("checkerboard grid: edges %v, want %v", edgePairs(res.Edges), edgePairs(grid.Edges()))
	}
	// A given scale is not checked.
	if res, err = Learn(s, WithScale(Nominal)); err != nil || res.Scale != Nominal {
		t.Fatalf("WithScale(Nominal): scale %v, err %v", res.Scale, err)
	}
	if _, _, _, ok := res.ScaleCheck(); ok {
		t.Error("WithScale(Nominal): the scale was checked")
	}
}
