package pairwise

import (
	"context"
	"math"
	"slices"
	"testing"
)

// TestRefitStart checks that the refits of the edge test do not depend on
// where Newton's method starts: on the questionnaire truth of
// TestBootstrapTiming (500 people), every node's refit on its five
// strongest first-stage spins, started from zero and from the first stage
// (the debiased couplings and the constrained fit's bias, as WaldTest.run
// starts it), and from a poor start (every coefficient 1), gives the same
// estimates and standard errors up to 1e-8. Why 1e-8: the method stops
// after the full step taken once the Newton decrement falls below 1e-12
// (mle.go), a step of order 1e-6 in these units after which the error is
// of order its square; two runs can differ by that, far below 1e-8.
func TestRefitStart(t *testing.T) {
	m := questionnaireModel(t, 1)
	s := bootSamples(t, m, 500, 3)
	res, err := Learn(s, WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	n := s.n
	tun := res.Tuning
	for i := 0; i < n; i++ {
		// The five spins of largest first-stage |Â_ij|.
		var nb []int
		for len(nb) < 5 {
			best, bv := -1, -1.0
			for j := 0; j < n; j++ {
				if j == i || slices.Contains(nb, j) {
					continue
				}
				if v := math.Abs(tun.debias[i][4*j]); v > bv {
					best, bv = j, v
				}
			}
			nb = append(nb, best)
		}
		first := make([]float64, n)
		ones := make([]float64, n)
		for j := range first {
			first[j] = 2 * tun.debias[i][4*j]
			ones[j] = 1
		}
		first[i] = 2 * res.Model.Field(i)[1]
		d0, se0, df0, ok0 := refitSpinsFrom(context.Background(), s, i, nb, maxRefitTable, nil)
		if !ok0 {
			t.Fatalf("node %d: refit from zero failed", i)
		}
		for name, start := range map[string][]float64{"first stage": first, "ones": ones} {
			d, se, df, ok := refitSpinsFrom(context.Background(), s, i, nb, maxRefitTable, start)
			if !ok || df != df0 {
				t.Fatalf("node %d, %s: ok %v, df %v, want true, %v", i, name, ok, df, df0)
			}
			for x := range d {
				if math.Abs(d[x]-d0[x]) > 1e-8 || math.Abs(se[x]-se0[x]) > 1e-8 {
					t.Errorf("node %d, %s: entry %d = %.12g ± %.12g, from zero %.12g ± %.12g", i, name, x, d[x], se[x], d0[x], se0[x])
				}
			}
		}
	}
}
