package pairwise

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The questionnaire-shaped fixtures of the tests of the edge test's refits
// and of warm starts (speed_test.go).

// questionnaireModel is a 25-item Ising model shaped like a personality
// questionnaire: five scales of five items with positive within-scale
// couplings (0.2 to 0.5 on the spin scale, where about 70% of the pairs of
// a scale are edges) and a few weak negative couplings across scales.
func questionnaireModel(t testing.TB, seed uint64) *Model {
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
	m, err := NewIsing(a, th)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func bootSamples(t testing.TB, m *Model, N int, seed uint64) *Samples {
	ex, err := NewExactSampler(m)
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
// of s, as the bootstrap fixes them with FixTuning.
func fullDataWidths(tb testing.TB, s *Samples) []float64 {
	tb.Helper()
	full, err := Learn(s, WithWorkers(1))
	if err != nil {
		tb.Fatal(err)
	}
	widths := make([]float64, len(full.Nodes))
	for i, f := range full.Nodes {
		widths[i] = f.Width
	}
	return widths
}

// resampleOf draws a nonparametric resample of s as the bootstrap draws
// one: the distinct rows of s in order of first appearance, each unit of
// weight an observation, and size draws with replacement from the first
// size observations, given as the rows weighted by their counts.
func resampleOf(tb testing.TB, s *Samples, rng *rand.Rand, size int) *Samples {
	tb.Helper()
	index := make(map[string]int)
	var rows [][]int
	var obs []int
	for m := 0; m < s.Len(); m++ {
		row := s.Row(nil, m)
		key := fmt.Sprint(row)
		id, ok := index[key]
		if !ok {
			id = len(rows)
			index[key] = id
			rows = append(rows, row)
		}
		for c := 0; c < int(s.Weight(m)); c++ {
			obs = append(obs, id)
		}
	}
	counts := make([]float64, len(rows))
	for range size {
		counts[obs[rng.IntN(size)]]++
	}
	var keep [][]int
	var w []float64
	for r, c := range counts {
		if c > 0 {
			keep = append(keep, rows[r])
			w = append(w, c)
		}
	}
	rs, err := NewWeightedSamples(s.Alphabet(), keep, w)
	if err != nil {
		tb.Fatal(err)
	}
	return rs
}
