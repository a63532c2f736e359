package pairwise

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mrfkit/pairwise/internal/selection"
	"gonum.org/v1/gonum/mat"
)

// withDenseTest makes the learner run the dense Ising edge test where the
// sparse one would run (edgetest_sparse.go), for the tests that compare
// them.
func withDenseTest() Option {
	return optionFunc(func(c *config) { c.denseTest = true })
}

// withSparseFloor sets the sparse edge test's floor F (and the mixture's
// floor on the support model's path, in the dense test too), which
// selection.SparseFloorAt raises only from about 1,000 spins: the tests
// raise it on small models.
func withSparseFloor(f float64) Option {
	return optionFunc(func(c *config) { c.sparseFloor = f })
}

// withSparseAll makes the sparse test's first pass keep each node's n
// entries (v > 0) or not (v < 0) whatever sparseKeepsAll says, so that
// the tests run both the reads and the passes over the rows.
func withSparseAll(v int) Option {
	return optionFunc(func(c *config) { c.sparseAll = v })
}

// sparseModel returns an Ising model on n spins whose couplings are a
// random graph of the given average degree, weights ±[lo, hi], fields
// uniform in ±0.3.
func sparseModel(t *testing.T, n int, degree, lo, hi float64, r *rand.Rand) *Model {
	t.Helper()
	a := mat.NewSymDense(n, nil)
	theta := make([]float64, n)
	for i := 0; i < n; i++ {
		theta[i] = 0.3 * (2*r.Float64() - 1)
		for j := i + 1; j < n; j++ {
			if r.Float64() < degree/float64(n-1) {
				w := lo + (hi-lo)*r.Float64()
				if r.IntN(2) == 0 {
					w = -w
				}
				a.SetSym(i, j, w)
			}
		}
	}
	m, err := NewIsing(a, theta)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSparseEdgeTestMatchesDense learns the same samples with the sparse
// edge test and with the dense one on the support-model path (lowered to
// a few spins by withWaldDense) and requires the same result to the bit:
// edges and their weights, threshold, z₁, MinEdgeWeight, the mixture, the
// EBIC graph stage, and every pair's Score, Debiased and StdErr (the
// sparse test's computed on demand for the pairs it did not keep). The
// models: random graphs of 24 to 60 spins at 300 to 3000 rows, seeds
// fixed, under the three symmetrisation rules and with the mixture or the
// gap rule; some take the sparse test's fallback to the dense arrays (no
// candidate between its floor and z₁), which must agree too.
func TestSparseEdgeTestMatchesDense(t *testing.T) {
	skipUnderRace(t)
	type tc struct {
		n     int
		rows  int
		deg   float64
		opts  []Option
		label string
	}
	cases := []tc{
		{24, 3000, 2, nil, "default"},
		{40, 1000, 3, nil, "default"},
		{60, 2000, 2.5, nil, "default"},
		{40, 300, 3, nil, "few rows"},
		{40, 2000, 3, []Option{WithSymmetrization(And)}, "And"},
		{40, 2000, 3, []Option{WithSymmetrization(Or)}, "Or"},
		{40, 2000, 3, []Option{WithFalseEdgeRate(0.2)}, "alpha 0.2"},
		{40, 2000, 3, []Option{WithEdgeMixture(false)}, "gap rule"},
		{60, 1000, 2, []Option{WithEdgeMixture(false), WithSymmetrization(Or)}, "gap rule, Or"},
		// z₁ is 2.4 at 12 spins, below the sparse test's floor: the
		// fallback to the dense arrays.
		{12, 2000, 2, []Option{WithEdgeMixture(false)}, "fallback"},
		{12, 2000, 2, nil, "small"},
		// The floor raised as selection.SparseFloorAt raises it from
		// about 1,000 spins (3.23 at 10,000), on models small enough to
		// run the dense test beside it.
		{60, 2000, 2.5, []Option{withSparseFloor(3.23)}, "floor 3.23"},
		{40, 300, 3, []Option{withSparseFloor(3.23)}, "floor 3.23, few rows"},
		{40, 2000, 3, []Option{withSparseFloor(3.23), WithEdgeMixture(false)}, "floor 3.23, gap rule"},
	}
	fallbacks := 0
	for x, c := range cases {
		t.Run(fmt.Sprintf("n=%d/N=%d/%s", c.n, c.rows, c.label), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(33+x), 7))
			m := sparseModel(t, c.n, c.deg, 0.2, 0.6, r)
			g, err := NewGibbsSampler(m)
			if err != nil {
				t.Fatal(err)
			}
			s, err := g.Sample(rand.NewPCG(uint64(100+x), 3), c.rows)
			if err != nil {
				t.Fatal(err)
			}
			opts := append([]Option{withWaldDense(4), WithWorkers(2)}, c.opts...)
			de, err := Learn(s, append(opts, withDenseTest())...)
			if err != nil {
				t.Fatal(err)
			}
			td := de.Tuning
			if td.sparse != nil {
				t.Fatal("the dense test ran the sparse one")
			}
			// The sparse test with the entries no side kept computed over
			// the rows, and read from every node's n entries kept.
			var sp *Result
			for _, all := range []int{-1, 1} {
				sp, err = Learn(s, append(opts, withSparseAll(all))...)
				if err != nil {
					t.Fatal(err)
				}
				ts := sp.Tuning
				if ts.sparse == nil && ts.scores != nil {
					fallbacks++
				} else if ts.sparse == nil {
					t.Fatal("the sparse test did not run")
				} else if st := ts.sparse.(*sparseStore); (st.sides[0].allA != nil) != (all > 0) && !st.sides[0].zero {
					t.Fatalf("all = %d: node 0 keeps its n entries: %v", all, st.sides[0].allA != nil)
				}
				checkSameEdgeTest(t, sp, de, c.n)
			}
			ts := sp.Tuning
			t.Logf("%d edges, threshold %.3f (z1 %.3f), mixture %v, EBIC graph %v, sparse store %v", len(sp.Edges), ts.Threshold, ts.Lowest, ts.Mixture != nil, ts.EBICGraph, ts.sparse != nil)
		})
	}
	t.Logf("%d of %d runs took the fallback", fallbacks, 2*len(cases))
	if fallbacks == 0 {
		t.Error("no case took the fallback to the dense arrays")
	}
}

// checkSameEdgeTest requires the sparse test's result sp to be the dense
// one's de to the bit: edges and their weights, threshold, z₁,
// MinEdgeWeight, the mixture, the EBIC graph stage, and every pair's
// Score, Debiased and StdErr on n spins.
func checkSameEdgeTest(t *testing.T, sp, de *Result, n int) {
	t.Helper()
	ts, td := sp.Tuning, de.Tuning
	same := func(name string, a, b float64) {
		if a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
			t.Errorf("%s: sparse %v, dense %v", name, a, b)
		}
	}
	if len(sp.Edges) != len(de.Edges) {
		t.Fatalf("%d edges, dense %d", len(sp.Edges), len(de.Edges))
	}
	for e := range sp.Edges {
		if sp.Edges[e] != de.Edges[e] {
			t.Errorf("edge %d: %+v, dense %+v", e, sp.Edges[e], de.Edges[e])
		}
	}
	same("MinEdgeWeight", sp.MinEdgeWeight, de.MinEdgeWeight)
	same("Threshold", ts.Threshold, td.Threshold)
	same("Critical", ts.Critical, td.Critical)
	same("Lowest", ts.Lowest, td.Lowest)
	same("GlobalP", ts.GlobalP, td.GlobalP)
	if ts.EBICGraph != td.EBICGraph {
		t.Errorf("EBICGraph %v, dense %v", ts.EBICGraph, td.EBICGraph)
	}
	if (ts.Mixture == nil) != (td.Mixture == nil) || (ts.Mixture != nil && *ts.Mixture != *td.Mixture) {
		t.Errorf("mixture %+v, dense %+v", ts.Mixture, td.Mixture)
	}
	bad := 0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if a, b := ts.Score(i, j), td.Score(i, j); a != b && bad < 5 {
				bad++
				t.Errorf("Score(%d, %d) = %v, dense %v", i, j, a, b)
			}
			for a := 0; a < 2; a++ {
				for b := 0; b < 2; b++ {
					if u, v := ts.Debiased(i, j, a, b), td.Debiased(i, j, a, b); u != v && bad < 5 {
						bad++
						t.Errorf("Debiased(%d, %d, %d, %d) = %v, dense %v", i, j, a, b, u, v)
					}
					if u, v := ts.StdErr(i, j, a, b), td.StdErr(i, j, a, b); u != v && bad < 5 {
						bad++
						t.Errorf("StdErr(%d, %d, %d, %d) = %v, dense %v", i, j, a, b, u, v)
					}
				}
			}
		}
	}
}

// withLowKeep sets the number of least standard errors each node keeps
// for the sparse test's bound of MinEdgeWeight (sparseLowKeep).
func withLowKeep(m int) Option {
	return optionFunc(func(c *config) { c.lowKeep = m })
}

// TestSparseMinEdgeWeightBound holds the sparse test's MinEdgeWeight, the
// least q·SE over all pairs, to the dense test's bit for bit when the
// nodes keep few of their least standard errors (1, 2 and the default),
// so that the pairs that neither side lists must be found by the streamed
// pass over the open nodes. It requires some case in which that pass
// lowered the minimum below both the candidates' least and the listed
// pairs', so that a pair wrongly certified (a node wrongly closed, or a
// bound too high) would change MinEdgeWeight and fail the comparison.
func TestSparseMinEdgeWeightBound(t *testing.T) {
	skipUnderRace(t)
	streamed, opened := 0, 0
	for x, c := range []struct {
		n, rows int
		deg     float64
		opts    []Option
	}{
		{40, 1000, 3, nil},
		{60, 2000, 2.5, nil},
		{40, 2000, 3, []Option{WithSymmetrization(And)}},
		{40, 2000, 3, []Option{WithSymmetrization(Or)}},
		{60, 600, 2, []Option{WithEdgeMixture(false)}},
	} {
		r := rand.New(rand.NewPCG(uint64(71+x), 9))
		m := sparseModel(t, c.n, c.deg, 0.2, 0.6, r)
		g, err := NewGibbsSampler(m)
		if err != nil {
			t.Fatal(err)
		}
		s, err := g.Sample(rand.NewPCG(uint64(200+x), 5), c.rows)
		if err != nil {
			t.Fatal(err)
		}
		opts := append([]Option{withWaldDense(4), WithWorkers(2)}, c.opts...)
		de, err := Learn(s, append(opts, withDenseTest())...)
		if err != nil {
			t.Fatal(err)
		}
		for _, keep := range []int{1, 2, 0} {
			sp, err := Learn(s, append(opts, withLowKeep(keep))...)
			if err != nil {
				t.Fatal(err)
			}
			st, ok := sp.Tuning.sparse.(*sparseStore)
			if !ok {
				t.Fatalf("case %d, keep %d: the sparse test did not run", x, keep)
			}
			if a, b := sp.MinEdgeWeight, de.MinEdgeWeight; a != b {
				t.Errorf("case %d, keep %d: MinEdgeWeight %v, dense %v (%+v)", x, keep, a, b, st.stats)
			}
			if st.stats.streamed {
				streamed++
			}
			opened += st.stats.open
			t.Logf("case %d, keep %d: %+v", x, keep, st.stats)
		}
	}
	if streamed == 0 {
		t.Error("the streamed pass never lowered the minimum: the test cannot see a pair wrongly certified")
	}
	t.Logf("%d runs lowered by the streamed pass, %d nodes opened", streamed, opened)
}

// TestSparseEdgeTestRowSplit runs the sparse edge test on rows split among
// the workers (lowered thresholds, as a long recording's are): the result
// is the dense test's on the same split rows to the bit, and the same bits
// for 1 and 2 workers.
func TestSparseEdgeTestRowSplit(t *testing.T) {
	skipUnderRace(t)
	r := rand.New(rand.NewPCG(34, 7))
	m := sparseModel(t, 40, 3, 0.2, 0.6, r)
	g, err := NewGibbsSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.Sample(rand.NewPCG(101, 3), 3000)
	if err != nil {
		t.Fatal(err)
	}
	split := withRowSplit(1000, 250)
	run, err := newRun("test", s, []Option{split, WithWorkers(2)}, true)
	if err != nil {
		t.Fatal(err)
	}
	if run.stop(); !run.d.Split() {
		t.Fatal("the rows of this test are not split")
	}
	var first *Result
	for _, p := range []int{1, 2} {
		opts := []Option{withWaldDense(4), WithWorkers(p), split}
		sp, err := Learn(s, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if sp.Tuning.sparse == nil {
			t.Fatalf("workers %d: the sparse test did not run", p)
		}
		de, err := Learn(s, append(opts, withDenseTest())...)
		if err != nil {
			t.Fatal(err)
		}
		checkSameEdgeTest(t, sp, de, s.n)
		if first == nil {
			first = sp
			continue
		}
		checkSameEdgeTest(t, sp, first, s.n)
	}
	t.Logf("%d edges, threshold %.3f, MinEdgeWeight %.4f", len(first.Edges), first.Tuning.Threshold, first.MinEdgeWeight)
}

// TestSparseIndependenceUnitWeights checks the global test of independence
// of the sparse edge test on rows that all weigh 1 but are given as
// weights (the command reads a file as its distinct rows): the bits'
// popcounts give the same p-value, to the bit, as the weighted sums of
// selection.IndependenceP, on a dependent model (p near 0) and on
// independent spins (p of order 1), with 1 to 3 workers sharing the
// counts; with a weight of 2 the weighted sums are used, and they differ.
// At n = 1,100 the counts take 35 tiles of indepTile spins and up to
// three chunks of indepChunk spins a tile, the last ones short.
func TestSparseIndependenceUnitWeights(t *testing.T) {
	for _, c := range []struct {
		n        int
		coupling float64
	}{{40, 0.3}, {40, 0}, {1100, 0}} {
		if c.n > 40 && testing.Short() {
			continue
		}
		n, coupling := c.n, c.coupling
		var plain *Samples
		if n <= 40 {
			m := randomModel(t, n, 2, coupling, coupling, rand.New(rand.NewPCG(5, 8)))
			es, err := NewExactSampler(m)
			if err != nil {
				t.Fatal(err)
			}
			if plain, err = es.Sample(rand.NewPCG(9, 9), 700); err != nil {
				t.Fatal(err)
			}
		} else {
			// Independent spins with random marginals: a p-value of
			// order 1, which the counts' last bits would move.
			r := rand.New(rand.NewPCG(5, 9))
			pr := make([]float64, n)
			for j := range pr {
				pr[j] = 0.2 + 0.6*r.Float64()
			}
			data := make([][]int, 700)
			for m := range data {
				data[m] = make([]int, n)
				for j := range data[m] {
					if r.Float64() < pr[j] {
						data[m][j] = 1
					}
				}
			}
			var err error
			if plain, err = NewSamples(2, data); err != nil {
				t.Fatal(err)
			}
		}
		rows := make([][]int, plain.Len())
		ones := make([]float64, plain.Len())
		for r := range rows {
			rows[r] = make([]int, plain.Vars())
			for j := range rows[r] {
				rows[r][j] = plain.At(r, j)
			}
			ones[r] = 1
		}
		unit, err := NewWeightedSamples(2, rows, ones)
		if err != nil {
			t.Fatal(err)
		}
		counts := valueWeights(unit)
		want, wantPairs := selection.IndependenceP(unit.stages(), counts, unit.TotalWeight())
		var got float64
		var gotPairs int
		for workers := 1; workers <= 3; workers++ {
			got, gotPairs = sparseIndependenceP(unit, counts, unit.TotalWeight(), workers)
			if got != want || gotPairs != wantPairs {
				t.Errorf("n = %d, coupling %g, %d workers: p %v over %d pairs, want IndependenceP's %v over %d", n, coupling, workers, got, gotPairs, want, wantPairs)
			}
		}
		t.Logf("n = %d, coupling %g: p = %.3g over %d pairs", n, coupling, got, gotPairs)
		ones[0] = 2
		heavy, err := NewWeightedSamples(2, rows, ones)
		if err != nil {
			t.Fatal(err)
		}
		hc := valueWeights(heavy)
		if p, _ := sparseIndependenceP(heavy, hc, heavy.TotalWeight(), 2); p == got && coupling == 0 {
			t.Errorf("a row of weight 2 left the p-value unchanged (%v): the weights were not read", p)
		}
	}
}
