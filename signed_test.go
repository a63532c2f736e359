package pairwise

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func sameFloat(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b))
}

func TestSignedWeight(t *testing.T) {
	// k = 2: the Ising coupling A.
	m, err := NewIsing(mat.NewSymDense(3, []float64{0, 0.3, -0.7, 0.3, 0, 0, -0.7, 0, 0}), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := SignedEdges(m)
	want := []Edge{{0, 1, 0.3}, {0, 2, -0.7}}
	if len(got) != 2 {
		t.Fatalf("SignedEdges: %v, want %v", got, want)
	}
	for e := range want {
		if got[e].I != want[e].I || got[e].J != want[e].J || !sameFloat(got[e].Weight, want[e].Weight, 1e-15) {
			t.Errorf("SignedEdges[%d] = %v, want %v", e, got[e], want[e])
		}
	}
	// k = 4: β s_a s_b plus row and column effects gives β back.
	const beta = -0.125
	w := mat.NewDense(4, 4, nil)
	r := []float64{0.3, -1, 2, 0.1}
	c := []float64{-0.4, 0.2, 0.9, 1.5}
	for a := 0; a < 4; a++ {
		for b := 0; b < 4; b++ {
			w.Set(a, b, beta*float64(2*a-3)*float64(2*b-3)+r[a]+c[b])
		}
	}
	if g := SignedWeight(w); !sameFloat(g, beta, 1e-14) {
		t.Errorf("SignedWeight(linear-by-linear β = %v + effects) = %v", beta, g)
	}
	// k = 3, by hand: W = [[1,0,0],[0,0,0],[0,0,0]] has s_0 = -2, so
	// β = 1·4 / (4+0+4)² = 1/16.
	if g := SignedWeight(mat.NewDense(3, 3, []float64{1, 0, 0, 0, 0, 0, 0, 0, 0})); g != 1.0/16 {
		t.Errorf("SignedWeight(e_00) = %v, want 1/16", g)
	}
	if g := SignedWeight(mat.NewDense(2, 3, nil)); !math.IsNaN(g) {
		t.Errorf("SignedWeight(2×3) = %v, want NaN", g)
	}
	if SignedEdges(nil) != nil {
		t.Error("SignedEdges(nil) is not nil")
	}
}
