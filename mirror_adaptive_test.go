package pairwise

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mrfkit/pairwise/solve"
)

// TestAdaptiveMirrorMatchesReference: the backends' own mirror maps with
// accelerated backtracking steps reach the reference optimum on the cases
// of mdCases. Near a sparse optimum on the boundary of the ball the entropic
// and group maps have unbounded curvature, so their tail is slower than the
// Euclidean Adaptive schedule's: we ask for a certificate of 1e-8 (the
// learners' default tolerance is 1e-6) and check the loss against the
// reference to 1e-8, the reported gap against the true suboptimality, and
// feasibility, as runCase does for 1e-11.
func TestAdaptiveMirrorMatchesReference(t *testing.T) {
	skipUnderRace(t)
	for _, c := range mdCases() {
		t.Run(c.name, func(t *testing.T) {
			if c.spins != nil {
				checkAdaptiveMirror(t, c.spins, "EntropicMirror", EntropicMirror{Schedule: AdaptiveMirror}.SolveSpins)
				checkAdaptiveMirror(t, c.spins, "GroupMirror", GroupMirror{Schedule: AdaptiveMirror}.SolveSpins)
			} else {
				checkAdaptiveMirror(t, c.oneHot, "GroupMirror", GroupMirror{Schedule: AdaptiveMirror}.SolveOneHot)
			}
		})
	}
}

func checkAdaptiveMirror[F solve.Layout](t *testing.T, p *solve.Problem[F], name string, solver func(context.Context, *solve.Problem[F], []float64) (solve.Stats, error)) {
	t.Helper()
	ref := mdNewRef(p)
	_, lRef, _ := ref.solve(t, 200000)
	q := *p
	q.Tol = 1e-8
	q.MaxIter = 50000
	w := make([]float64, p.X.Dim())
	st, err := solver(context.Background(), &q, w)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Logf("%s: %d iterations, gap %.2g", name, st.Iterations, st.Gap)
	g := make([]float64, len(w))
	loss := ref.lossGrad(w, g)
	if !st.Converged {
		t.Errorf("%s: not converged: %+v", name, st)
	}
	if math.Abs(loss-lRef) > 1e-8 {
		t.Errorf("%s: loss %.15g, reference %.15g", name, loss, lRef)
	}
	if st.Gap < loss-lRef-1e-12 {
		t.Errorf("%s: gap %g below the true suboptimality %g", name, st.Gap, loss-lRef)
	}
	if n := ref.norm(w); n > p.Radius*(1+1e-12) {
		t.Errorf("%s: infeasible: ‖w‖ = %.17g > R = %g", name, n, p.Radius)
	}
}

// TestLearnIsingSolversAgree: the Ising path gives the same graph and, up to
// the solver tolerance, the same weights with the default schedule and with
// each backend's own mirror map. With WithTolerance(1e-9) every regression
// is within 1e-9 of its optimum in loss; the loss grows at least
// quadratically away from the optimum with curvature μ (the smallest
// eigenvalue of the Fisher information of the conditional model, about 0.1
// here), so estimates differ by at most about √(2·1e-9/μ) ≈ 1.5e-4 from the
// optimum. We allow 1e-3 on Â = ŵ/2.
func TestLearnIsingSolversAgree(t *testing.T) {
	skipUnderRace(t) // one goroutine's numbers against a reference: see skipUnderRace
	m := diamondIsing(10, 0.2)
	s := drawExact(t, m, 4000, rand.NewPCG(21, 21))
	opts := []Option{WithWidth(1.6), WithMinEdgeWeight(0.2), WithTolerance(1e-9), WithMaxIterations(100000), WithWorkers(2)}
	base, err := LearnIsing(s, opts...)
	if err != nil {
		t.Fatal(err)
	}
	for _, solver := range []Solver{EntropicMirror{Schedule: AdaptiveMirror}, GroupMirror{Schedule: AdaptiveMirror}} {
		res, err := LearnIsing(s, append(opts, WithSolver(solver))...)
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range res.Nodes {
			if !f.Converged {
				t.Errorf("%v: node %d did not converge: %+v", solver, i, f)
			}
		}
		ce, fe := maxCouplingError(base.Model, res.Model)
		if ce > 1e-3 || fe > 1e-3 {
			t.Errorf("%v: weights differ from the default solver's by %.3g (couplings), %.3g (fields)", solver, ce, fe)
		}
		checkGraph(t, base.Edges, res.Edges)
	}
}
