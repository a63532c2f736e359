package engine

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mrfkit/pairwise/solve"
)

// TestLogisticParts checks that Sigmoids and LogisticParts return, bit for
// bit, what solve.Sigmoid and solve.Softplus return, on both signs of u and
// y, at the branch points (±0), far in the tails, at ±Inf and NaN, and for
// labels other than ±1: the callers that moved to them (the edge test's
// moments, the refits) must not change a result.
func TestLogisticParts(t *testing.T) {
	us := []float64{0, math.Copysign(0, -1), 1e-300, -1e-300, 1e-9, -1e-9, 0.5, -0.5, 1, -1,
		20, -20, 36.7, -36.7, 700, -700, 746, -746, math.Inf(1), math.Inf(-1), math.NaN()}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		us = append(us, rng.NormFloat64()*8)
	}
	same := func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
	}
	for _, y := range []float64{1, -1, 0.5, 0} {
		for _, u := range us {
			sg, sgy := Sigmoids(u, y)
			sg2, sgy2, sp := LogisticParts(u, y)
			wantSg, wantSgy, wantSp := solve.Sigmoid(u), solve.Sigmoid(-y*u), solve.Softplus(-y*u)
			if !same(sg, wantSg) || !same(sg2, wantSg) {
				t.Errorf("y = %v, u = %v: σ(u) = %v, %v, want %v", y, u, sg, sg2, wantSg)
			}
			if !same(sgy, wantSgy) || !same(sgy2, wantSgy) {
				t.Errorf("y = %v, u = %v: σ(−yu) = %v, %v, want %v", y, u, sgy, sgy2, wantSgy)
			}
			if !same(sp, wantSp) {
				t.Errorf("y = %v, u = %v: softplus(−yu) = %v, want %v", y, u, sp, wantSp)
			}
		}
	}
}
