package dca

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// TestNormsAgree checks the two norms against each other and against the
// gauge: over all k states (first = 0) they are the same quantity computed
// in two orders, and adding a constant to a row or a column of the block
// (a change of gauge) leaves both unchanged.
func TestNormsAgree(t *testing.T) {
	const k = 5
	rng := rand.New(rand.NewPCG(1, 2))
	w := make([]float64, k*k)
	for x := range w {
		w[x] = rng.NormFloat64()
	}
	row, col := make([]float64, k), make([]float64, k)
	c := CentredNorm(w, k, 0, row, col)
	z := ZeroSumNorm(w, k, 0, row, col)
	if !scalar.EqualWithinAbsOrRel(c, z, 1e-12, 1e-12) {
		t.Errorf("CentredNorm %v, ZeroSumNorm %v over all states", c, z)
	}
	g := append([]float64(nil), w...)
	for b := 0; b < k; b++ {
		g[2*k+b] += 0.7 // row 2
		g[b*k+3] -= 1.3 // column 3
	}
	for first := 0; first < 2; first++ {
		// ZeroSumNorm centres over the states it scores, so a constant on
		// any row or column of those states leaves it unchanged.
		if a, b := ZeroSumNorm(w, k, first, row, col), ZeroSumNorm(g, k, first, row, col); !scalar.EqualWithinAbsOrRel(a, b, 1e-12, 1e-12) {
			t.Errorf("first %d: ZeroSumNorm %v, after a change of gauge %v", first, a, b)
		}
	}
	if a, b := CentredNorm(w, k, 0, row, col), CentredNorm(g, k, 0, row, col); !scalar.EqualWithinAbsOrRel(a, b, 1e-12, 1e-12) {
		t.Errorf("CentredNorm %v, after a change of gauge %v", a, b)
	}
	if s := BlockSums(w, k, row, col); !scalar.EqualWithinAbsOrRel(s, sum(row), 1e-12, 1e-12) || !scalar.EqualWithinAbsOrRel(s, sum(col), 1e-12, 1e-12) {
		t.Errorf("BlockSums %v, rows sum to %v, columns to %v", s, sum(row), sum(col))
	}
}

func sum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

// TestAPC checks the correction on a 3×3 example worked by hand, and that
// it leaves zero scores and n < 3 alone.
func TestAPC(t *testing.T) {
	// S_01 = 1, S_02 = 2, S_12 = 3: row means 1.5, 2, 2.5; overall mean 2.
	s := mat.NewSymDense(3, []float64{0, 1, 2, 1, 0, 3, 2, 3, 0})
	APC(s)
	want := [][3]float64{{0, 1, 1 - 1.5*2/2.0}, {0, 2, 2 - 1.5*2.5/2}, {1, 2, 3 - 2*2.5/2}}
	for _, p := range want {
		if got := s.At(int(p[0]), int(p[1])); math.Abs(got-p[2]) > 1e-15 {
			t.Errorf("APC S_%v%v = %v, want %v", p[0], p[1], got, p[2])
		}
	}
	zero := mat.NewSymDense(4, nil)
	APC(zero)
	if !mat.Equal(zero, mat.NewSymDense(4, nil)) {
		t.Error("APC changed zero scores")
	}
	two := mat.NewSymDense(2, []float64{0, 5, 5, 0})
	APC(two)
	if two.At(0, 1) != 5 {
		t.Errorf("APC with n = 2 gave %v, want 5 unchanged", two.At(0, 1))
	}
}
