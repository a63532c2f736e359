package pairwise

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/internal/selection"
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
		d0, se0, df0, ok0 := selection.RefitSpinsFrom(context.Background(), s.stages(), i, nb, selection.MaxRefitTable, nil)
		if !ok0 {
			t.Fatalf("node %d: refit from zero failed", i)
		}
		for name, start := range map[string][]float64{"first stage": first, "ones": ones} {
			d, se, df, ok := selection.RefitSpinsFrom(context.Background(), s.stages(), i, nb, selection.MaxRefitTable, start)
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

// BenchmarkWaldChunk measures the edge test's moments of one Ising node
// (selection.WaldChunk) at the bootstrap's shape: 25 spins, 1500 rows.
func BenchmarkWaldChunk(b *testing.B) {
	const n, rows = 25, 1500
	r := rand.New(rand.NewPCG(5, 8))
	s := randomSamples(b, rows, n, 2, r)
	task := &engine.Task{Bias: 3, Y: make([]float64, rows), C: make([]float64, rows)}
	u := make([]float64, rows)
	for m := range u {
		task.Y[m] = float64(2*int(s.b8[m*n+3]) - 1)
		u[m] = 4 * (r.Float64() - 0.5)
		task.C[m] = 1 + float64(r.IntN(3))
	}
	total := engine.WeightSum(task.C, rows)
	for b.Loop() {
		selection.WaldChunk(s.stages(), task, u, total, 0, rows)
	}
}

// TestWarmStartWithinTolerance checks the warm starts of WithWarmStart, as
// the bootstrap's resamples at fixed widths use them: on resamples of the questionnaire truth (N = 1000) at
// the full data's widths, the fits started from the full-data solutions and
// the cold fits are both certified (every node's duality gap ≤ the
// tolerance) and each node's coefficients differ by no more than the
// certificates allow: with μ the smallest eigenvalue of the node's Hessian
// at the solution, L(w) − L* ≥ (μ/2)‖w − w*‖² on the ball, so two points of
// gaps g_a and g_b lie within √(2g_a/μ) + √(2g_b/μ) of each other (μ is
// taken at half its value for the change of the curvature between them).
func TestWarmStartWithinTolerance(t *testing.T) {
	skipUnderRace(t)
	m := questionnaireModel(t, 1)
	s := bootSamples(t, m, 1000, 4)
	widths := fullDataWidths(t, s)
	full, err := Learn(s, WithWorkers(1), WithNodeWidths(widths), WithKeepSolutions())
	if err != nil {
		t.Fatal(err)
	}
	if sol := full.solutions; len(sol) != s.n || len(sol[0]) != 1 || len(sol[0][0].w) != s.n {
		t.Fatalf("kept solutions: %d nodes", len(sol))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	n := s.n
	for r := 0; r < 3; r++ {
		rs := resampleOf(t, s, rng, s.Len())
		cold, err := Learn(rs, WithWorkers(1), WithNodeWidths(widths))
		if err != nil {
			t.Fatal(err)
		}
		warm, err := Learn(rs, WithWorkers(1), WithNodeWidths(widths), WithWarmStart(full))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			fc, fw := cold.Nodes[i], warm.Nodes[i]
			if !fc.Converged || !fw.Converged || fc.Gap > DefaultTolerance || fw.Gap > DefaultTolerance {
				t.Fatalf("resample %d, node %d: gaps %g, %g (converged %v, %v)", r, i, fc.Gap, fw.Gap, fc.Converged, fw.Converged)
			}
			wc, ww := nodeCoefficients(cold, i), nodeCoefficients(warm, i)
			mu := nodeCurvature(rs, i, wc) / 2
			bound := math.Sqrt(2*fc.Gap/mu) + math.Sqrt(2*fw.Gap/mu)
			d := 0.0
			for x := range wc {
				d += (wc[x] - ww[x]) * (wc[x] - ww[x])
			}
			if math.Sqrt(d) > bound {
				t.Errorf("resample %d, node %d: ‖w_warm − w_cold‖ = %.3g, more than the certificates allow (%.3g)", r, i, math.Sqrt(d), bound)
			}
		}
	}
}

// TestWarmStartErrors: WithWarmStart refuses, as an OptionError, a nil
// Result and one learned without WithKeepSolutions.
func TestWarmStartErrors(t *testing.T) {
	s := bootSamples(t, questionnaireModel(t, 1), 200, 5)
	plain, err := Learn(s, WithWorkers(1), WithWidth(1), WithMinEdgeWeight(0.2))
	if err != nil {
		t.Fatal(err)
	}
	if plain.solutions != nil {
		t.Error("solutions kept without WithKeepSolutions")
	}
	for _, tc := range []struct {
		prev *Result
		want string
	}{
		{nil, "no Result to start from"},
		{plain, "learn it with WithKeepSolutions"},
	} {
		_, err := Learn(s, WithWidth(1), WithMinEdgeWeight(0.2), WithWarmStart(tc.prev))
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Option != "WithWarmStart" || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("WithWarmStart: error %v, want an OptionError saying %q", err, tc.want)
		}
	}
}

// nodeCoefficients returns node i's regression coefficients ŵ (ŵ_j =
// 2Â_ij, the bias 2θ̂_i) from a Result of the Ising path: its own row of
// estimates, before symmetrisation.
func nodeCoefficients(res *Result, i int) []float64 {
	n := res.n
	w := make([]float64, n)
	for j := 0; j < n; j++ {
		if j != i {
			w[j] = 2 * res.est[i].Block(j)[0]
		}
	}
	w[i] = 2 * res.Model.Field(i)[1]
	return w
}

// nodeCurvature returns the smallest eigenvalue of the Hessian of node i's
// normalised logistic loss at w, on s (weighted).
func nodeCurvature(s *Samples, i int, w []float64) float64 {
	n := s.n
	h := mat.NewSymDense(n, nil)
	x := make([]float64, n)
	for m := 0; m < s.Len(); m++ {
		for j := 0; j < n; j++ {
			x[j] = float64(2*int(s.b8[m*n+j]) - 1)
		}
		x[i] = 1
		u := 0.0
		for j := range x {
			u += w[j] * x[j]
		}
		sg := 1 / (1 + math.Exp(-u))
		a := s.Weight(m) * sg * (1 - sg) / s.total
		for j := 0; j < n; j++ {
			for k := j; k < n; k++ {
				h.SetSym(j, k, h.At(j, k)+a*x[j]*x[k])
			}
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(h, false) {
		return math.NaN()
	}
	return eig.Values(nil)[0]
}
