package psych

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise"
)

// Fixtures and checks that the psych tests share. They are copies of the
// root package's test helpers of the same names (a package's test files
// cannot be imported), kept word for word apart from the package
// qualifiers; the grid model is package models' NewGridPotts.

// drawExact draws count exact samples of m from src.
func drawExact(t *testing.T, m *pairwise.Model, count int, src rand.Source) *pairwise.Samples {
	t.Helper()
	es, err := pairwise.NewExactSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := es.Sample(src, count)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func checkGraph(t *testing.T, want, got []pairwise.Edge) {
	t.Helper()
	key := func(e pairwise.Edge) [2]int { return [2]int{e.I, e.J} }
	w := map[[2]int]bool{}
	for _, e := range want {
		w[key(e)] = true
	}
	g := map[[2]int]bool{}
	for _, e := range got {
		g[key(e)] = true
		if !w[key(e)] {
			t.Errorf("false edge (%d, %d) with weight %.4f", e.I, e.J, e.Weight)
		}
	}
	for _, e := range want {
		if !g[key(e)] {
			t.Errorf("missed edge (%d, %d)", e.I, e.J)
		}
	}
}

func sameFloat(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b))
}

// questionnaireModel is a 25-item Ising model shaped like a personality
// questionnaire: five scales of five items with positive within-scale
// couplings (0.2 to 0.5 on the spin scale, where about 70% of the pairs of
// a scale are edges) and a few weak negative couplings across scales.
func questionnaireModel(t testing.TB, seed uint64) *pairwise.Model {
	r := rand.New(rand.NewPCG(seed, 7))
	const n = 25
	a := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if i/5 == j/5 {
				if r.Float64() < 0.7 {
					a.SetSym(i, j, 0.2+0.3*r.Float64())
				}
			} else if r.Float64() < 0.04 {
				a.SetSym(i, j, -(0.15 + 0.2*r.Float64()))
			}
		}
	}
	th := make([]float64, n)
	for i := range th {
		th[i] = 0.4 * (2*r.Float64() - 1)
	}
	m, err := pairwise.NewIsing(a, th)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func bootSamples(t testing.TB, m *pairwise.Model, N int, seed uint64) *pairwise.Samples {
	ex, err := pairwise.NewExactSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ex.Sample(rand.NewPCG(seed, 99), N)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fullDataWidths returns the width λ̂_i the default chooses for each node
// of s, as Bootstrap fixes them with FixTuning.
func fullDataWidths(tb testing.TB, s *pairwise.Samples) []float64 {
	tb.Helper()
	full, err := pairwise.Learn(s, pairwise.WithWorkers(1))
	if err != nil {
		tb.Fatal(err)
	}
	widths := make([]float64, len(full.Nodes))
	for i, f := range full.Nodes {
		widths[i] = f.Width
	}
	return widths
}

// benchLearn runs learn on s in a b.Loop and reports the rate in
// samples·nodes/s (the work of a sweep of n regressions over N rows; it is
// flat in n and N when the cost is linear in both), the solver iterations
// of one run, and the bytes allocated per sample.
func benchLearn(b *testing.B, s *pairwise.Samples, learn func(*pairwise.Samples, ...pairwise.Option) (*pairwise.Result, error), opts ...pairwise.Option) {
	b.Helper()
	b.ReportAllocs()
	var res *pairwise.Result
	for b.Loop() {
		var err error
		if res, err = learn(s, opts...); err != nil {
			b.Fatal(err)
		}
	}
	iters := 0
	for _, f := range res.Nodes {
		iters += f.Iterations
	}
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(s.TotalWeight()*float64(s.Vars())/sec, "samples·nodes/s")
	b.ReportMetric(float64(iters), "iters/op")
}
