package pairwise

import (
	"math/rand/v2"
	"testing"
)

// TestBlockPower checks the power the grouped statistic brings to the
// k-ary edge test: on the paper's 3×3 Potts grid at k = 6 (checkerboard
// couplings ±0.2, exact samples) with N = 2000, Algorithm 2 tuning-free
// (LearnPairwise) recovers the grid exactly in at least 5 of 10 seeded
// runs. It recovered 6; the largest |Ŵ/SE| of each block with k² tests a
// pair, the statistic before it, recovered none (104 of 120 edges missed),
// since each of a block's 36 entries carries a sixth of the coupling.
// Without -short it also holds Learn's nominal default, the node-wise
// multinomial model (205 parameters a node, 9.8 rows each), to the same
// bar: it recovered 6 too.
func TestBlockPower(t *testing.T) {
	skipUnderRace(t)
	exact, exactMN := 0, 0
	for seed := 0; seed < 10; seed++ {
		m := gridPotts(3, 3, 6, 0.2, rand.New(rand.NewPCG(uint64(seed), 1)))
		sm, err := NewExactSampler(m)
		if err != nil {
			t.Fatal(err)
		}
		s, err := sm.Sample(rand.NewPCG(uint64(seed), 2), 2000)
		if err != nil {
			t.Fatal(err)
		}
		// Algorithm 2 tuning-free (LearnPairwise; Learn's nominal
		// default is the multinomial model, multinomial.go).
		res, err := LearnPairwise(s, WithWorkers(2))
		if err != nil {
			t.Fatal(err)
		}
		if !res.Tuning.Block {
			t.Fatal("Tuning.Block is false at n = 9, k = 6")
		}
		if sameEdges(m.Edges(), res.Edges) {
			exact++
		}
		if testing.Short() {
			continue
		}
		mn, err := Learn(s, WithScale(Nominal), WithWorkers(2))
		if err != nil {
			t.Fatal(err)
		}
		if !mn.Tuning.Mixed {
			t.Fatal("Learn's nominal default did not fit the multinomial model at n = 9, k = 6, N = 2000")
		}
		if sameEdges(m.Edges(), mn.Edges) {
			exactMN++
		}
	}
	t.Logf("exact: %d of 10 (block test), %d of 10 (multinomial)", exact, exactMN)
	if exact < 5 {
		t.Errorf("%d of 10 grids recovered exactly, want at least 5", exact)
	}
	if exactMN < 5 && !testing.Short() {
		t.Errorf("multinomial: %d of 10 grids recovered exactly, want at least 5", exactMN)
	}
}

// TestBlockNullPairs checks the law of the grouped statistic on
// independent items with skewed marginals (k = 4, six items, N = 1000, 40
// runs: 600 pairs): its normal score exceeds 1.96 in at most 5% + 3
// binomial standard errors (0.077) of the pairs and 2.576 in at most 1% +
// 3 standard errors (0.022), and in at least 1% (a statistic stuck at 0
// would pass the upper bounds). Measured: 4.0% and 0.5% (the average of
// the two nodes' covariances errs towards no edge).
func TestBlockNullPairs(t *testing.T) {
	skipUnderRace(t)
	r := rand.New(rand.NewPCG(4, 1000))
	var z []float64
	for run := 0; run < 40; run++ {
		s := skewedNullSamples(t, 6, 4, 1000, r)
		res, err := Learn(s, WithScale(Nominal), WithWorkers(2))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 6; i++ {
			for j := i + 1; j < 6; j++ {
				z = append(z, res.Tuning.Score(i, j))
			}
		}
	}
	over := func(c float64) float64 {
		k := 0
		for _, v := range z {
			if v >= c {
				k++
			}
		}
		return float64(k) / float64(len(z))
	}
	t.Logf("P(z ≥ 1.96) = %.3f, P(z ≥ 2.576) = %.3f over %d null pairs", over(1.96), over(2.576), len(z))
	if p := over(1.96); p > 0.077 || p < 0.01 {
		t.Errorf("P(z ≥ 1.96) = %.3f over %d null pairs, want in [0.01, 0.077]", p, len(z))
	}
	if p := over(2.576); p > 0.022 {
		t.Errorf("P(z ≥ 2.576) = %.3f over %d null pairs, want at most 0.022", p, len(z))
	}
}

// TestBlockRareValue checks that a rare value costs its own rows and
// columns of the grouped statistic, not the pair: a 3×3 Potts grid (k = 4,
// N = 3000, recovered exactly by the default) read with a fifth value that
// 50 rows of variable 0 take instead of their own. The fifth value's cells
// pass Cochran's rule (expected counts of 12 or so), but its value pairs
// have too few rows for 33 coefficients (selection.EnoughEvents: 66), so
// its row of each block has no degrees of freedom; the pairs of variable 0 must
// still be tested on the other four values and the grid still found. (A
// slip that let that row's zero degrees of freedom stand for the whole
// block scored every pair of such a variable 0: on bfi's six-point items
// read as nominal, no edge at all.) The SmallSample warning names the
// variable whose value enters no test.
func TestBlockRareValue(t *testing.T) {
	skipUnderRace(t)
	m := gridPotts(3, 3, 4, 0.2, rand.New(rand.NewPCG(0, 1)))
	sm, err := NewExactSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sm.Sample(rand.NewPCG(0, 2), 3000)
	if err != nil {
		t.Fatal(err)
	}
	rows := s.Rows()
	for m := 0; m < 50; m++ {
		rows[m*60][0] = 4
	}
	s5, err := NewSamples(5, rows)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		s    *Samples
	}{{"k=4", s}, {"k=5 with a rare value", s5}} {
		res, err := LearnPairwise(c.s, WithWorkers(2))
		if err != nil {
			t.Fatal(err)
		}
		if !sameEdges(m.Edges(), res.Edges) {
			t.Errorf("%s: edges %v, want the grid's %v", c.name, res.Edges, m.Edges())
		}
		// The rare value's coefficients enter no test: the warning names
		// its variable and no untested pair.
		var small []Warning
		for _, w := range res.Warnings {
			if w.Kind == SmallSample {
				small = append(small, w)
			}
		}
		if c.s == s5 && (len(small) != 1 || len(small[0].Nodes) != 1 || small[0].Nodes[0] != 0 || small[0].Pairs != 0) {
			t.Errorf("%s: SmallSample warnings %+v, want one naming variable 0 and no pair", c.name, small)
		}
		if c.s == s && len(small) != 0 {
			t.Errorf("%s: SmallSample warnings %+v, want none", c.name, small)
		}
	}
}
