package selection

import (
	"math/rand/v2"
	"testing"
)

// TestSupportCoefficientsAt checks that the count from the places of the
// nonzero coefficients is SupportCoefficients' count on the dense vector,
// for random sparse solutions with and without the bias, -0 and +0 left
// out as the learners leave them (a zero is not listed).
func TestSupportCoefficientsAt(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 1))
	for trial := 0; trial < 200; trial++ {
		n := 1 + r.IntN(50)
		i := r.IntN(n)
		w := make([]float64, n)
		var at []int32
		for j := range w {
			if r.IntN(4) == 0 {
				w[j] = r.NormFloat64()
				at = append(at, int32(j))
			}
		}
		if got, want := SupportCoefficientsAt(at, i), SupportCoefficients(w, i); got != want {
			t.Fatalf("n = %d, i = %d, nonzero %v: %v, want %v", n, i, at, got, want)
		}
	}
}
