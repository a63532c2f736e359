package engine

import (
	"context"
	"gonum.org/v1/gonum/mat"
	"math"
	"testing"

	"github.com/mrfkit/pairwise/solve"
)

// ridgeReference minimises F(w) = Σ ĉ_m softplus(−y_m⟨w, x_m⟩) +
// (ρ/2)‖w off the free group‖² over the one-hot rows z (n variables, k
// states, node bias the bias column) without constraint, by dense Newton
// steps on explicit feature vectors: an implementation independent of the
// engine's kernels. The coordinates no row selects and the ridge leaves
// free (the bias group's other states) stay 0.
func ridgeReference(z []uint8, y, cw []float64, n, k, bias int, rho float64) []float64 {
	d := n * k
	feat := func(m, j int) int { // the coordinate row m selects in group j
		if j == bias {
			return bias * k
		}
		return j*k + int(z[m*n+j])
	}
	w := make([]float64, d)
	for step := 0; step < 100; step++ {
		g := make([]float64, d)
		h := make([]float64, d*d)
		for m := range y {
			u := 0.0
			for j := 0; j < n; j++ {
				u += w[feat(m, j)]
			}
			s := 1 / (1 + math.Exp(y[m]*u)) // σ(−y u)
			for a := 0; a < n; a++ {
				g[feat(m, a)] += -cw[m] * y[m] * s
				for b := 0; b < n; b++ {
					h[feat(m, a)*d+feat(m, b)] += cw[m] * s * (1 - s)
				}
			}
		}
		for j := 0; j < d; j++ {
			if j/k != bias {
				g[j] += rho * w[j]
				h[j*d+j] += rho
			}
			if h[j*d+j] == 0 {
				h[j*d+j] = 1
			}
		}
		// Solve h v = −g (gonum's LU, partial pivoting).
		v := denseNewtonStep(h, g, d)
		for j := range w {
			w[j] += v[j]
		}
	}
	return w
}

// ridgeObjective returns F(w) of ridgeReference.
func ridgeObjective(x solve.OneHot, y, cw, w []float64, k, bias int, rho float64) float64 {
	u := make([]float64, len(y))
	x.Margins(u, w)
	f := 0.0
	for m := range y {
		f += cw[m] * solve.Softplus(-y[m]*u[m])
	}
	for j, v := range w {
		if j/k != bias {
			f += rho / 2 * v * v
		}
	}
	return f
}

// TestRidgeMatchesReference checks the ridge term of Driver.Fit and FISTA
// against ridgeReference on a tiny pair regression (4 variables, k = 3, a
// few hundred rows, so that the reference's dense Newton is exact to
// rounding): inside the ball the coefficients themselves must agree (the
// ridge makes them identifiable) and the certificate must bound the true
// suboptimality F(ŵ) − F*; with the ball active, the constrained optimum
// must be no better than the unconstrained one and the certificate must
// still bound F(ŵ) − F(w) for every feasible w we try (the reference scaled
// into the ball).
func TestRidgeMatchesReference(t *testing.T) {
	const n, k, i = 4, 3, 1
	s := chainRows(n, k, 400, 0.5, 7)
	const tol = 1e-11
	for _, rho := range []float64{0.5, 5, 40} { // absolute, in rows
		e := testEngine(s, false, tol, new(Work))
		e.Ridge = rho
		pl := e.PlanPairs(i, nil)
		task := e.Task(pl, 0)
		alpha, beta := pl.Pairs[0][0], pl.Pairs[0][1]
		z, y, c, _ := gatherRows(s, rowsWith(s, i, alpha), rowsWith(s, i, beta), true)
		cw := make([]float64, len(y))
		for m := range cw {
			cw[m] = 1 / float64(len(y))
		}
		if c != nil {
			t.Fatal("unweighted rows expected")
		}
		rhoN := rho / float64(len(y)) // the normalised coefficient Fit uses
		ref := ridgeReference(z, y, cw, n, k, i, rhoN)
		x := solve.OneHot{Z: z, Groups: n, K: k, Bias: i}
		fRef := ridgeObjective(x, y, cw, ref, k, i, rhoN)

		// Inside the ball: Driver.Fit (Newton on this small problem).
		w := make([]float64, n*k)
		st, err := e.Fit(context.Background(), &task, task.C, 100, w)
		if err != nil || !st.Converged {
			t.Fatalf("ρ = %v: Fit %+v, %v", rho, st, err)
		}
		if d := maxDiff(w, ref); d > 1e-5 {
			t.Errorf("ρ = %v: Fit's coefficients differ from the reference minimiser by %.3g", rho, d)
		}
		f := ridgeObjective(x, y, cw, w, k, i, rhoN)
		if f-fRef > st.Gap+1e-12 {
			t.Errorf("ρ = %v: F(ŵ) − F* = %.3g exceeds the certificate %.3g", rho, f-fRef, st.Gap)
		}
		if math.Abs(st.Loss-f) > 1e-9 {
			t.Errorf("ρ = %v: Stats.Loss %v, want the penalised objective %v", rho, st.Loss, f)
		}

		// The same problem by FISTA alone (the coded kernels, face
		// Newton steps) from zero.
		w2 := make([]float64, n*k)
		p := &Regression{X: e.Design(&task), Y: task.Y, CW: cw, Radius: 100, Tol: tol, MaxIter: 100000, Trace: n, Ridge: rhoN, Free: i}
		if st, err := FISTA(context.Background(), p, w2, new(FistaWork)); err != nil || !st.Converged {
			t.Fatalf("ρ = %v: FISTA %+v, %v", rho, st, err)
		}
		if d := maxDiff(w2, ref); d > 1e-4 {
			t.Errorf("ρ = %v: FISTA's coefficients differ from the reference minimiser by %.3g", rho, d)
		}

		// An active ball: a third of the reference's l2,1 norm.
		radius := solve.Norm(ref, k) / 3
		w3 := make([]float64, n*k)
		p.Radius = radius
		st3, err := FISTA(context.Background(), p, w3, new(FistaWork))
		if err != nil || !st3.Converged {
			t.Fatalf("ρ = %v: constrained FISTA %+v, %v", rho, st3, err)
		}
		if nr := solve.Norm(w3, k); nr > radius*(1+1e-9) {
			t.Errorf("ρ = %v: ‖ŵ‖ = %v outside the radius %v", rho, nr, radius)
		}
		f3 := ridgeObjective(x, y, cw, w3, k, i, rhoN)
		if f3 < fRef-1e-12 {
			t.Errorf("ρ = %v: constrained optimum %v below the unconstrained %v", rho, f3, fRef)
		}
		// Feasible points: the reference scaled into the ball, and
		// projected onto it.
		scaled := append([]float64(nil), ref...)
		for j := range scaled {
			scaled[j] /= 3
		}
		proj := append([]float64(nil), ref...)
		ProjectBall(proj, k, radius, nil)
		for _, v := range [][]float64{scaled, proj} {
			if fv := ridgeObjective(x, y, cw, v, k, i, rhoN); f3-fv > st3.Gap+1e-12 {
				t.Errorf("ρ = %v: a feasible point is better than ŵ by %.3g, beyond the certificate %.3g", rho, f3-fv, st3.Gap)
			}
		}
	}
}

// denseNewtonStep returns the solution v of h v = −g for the d×d matrix h
// (row-major), by gonum's LU factorisation with partial pivoting: the
// dense Newton step of the tests' brute-force reference minimisers.
func denseNewtonStep(h, g []float64, d int) []float64 {
	b := make([]float64, d)
	for j := range b {
		b[j] = -g[j]
	}
	v := mat.NewVecDense(d, nil)
	// A singular h leaves v as the solver found it; the callers' steps
	// then stop converging, which their checks catch.
	_ = v.SolveVec(mat.NewDense(d, d, h), mat.NewVecDense(d, b))
	return v.RawVector().Data
}
