package pairwise

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/solve"
)

// Solver is a backend for the per-node regressions, chosen with WithSolver.
// Accelerated and the mirror descents with their Adaptive schedule compute
// the same constrained estimator to the same duality-gap certificate
// (WithTolerance), so they differ in speed, not in the result; the Paper
// schedule runs a fixed number of steps, and Sparsitron is another learner.
// The backends and when to use which:
//
//   - Accelerated, the default: accelerated projected gradient with Newton
//     steps near the optimum, on the learners' fast path (merged rows,
//     coded states, screening of many variables). Use it unless you are
//     reproducing or comparing methods; it is the only backend that takes
//     WithRidge.
//   - EntropicMirror: the paper's Algorithm 3, for the l1 problems of the
//     Ising path only (k = 2). Use it, with the Paper schedule, to
//     reproduce Algorithm 1 as published. It is much slower: on the
//     diamond with n = 10 and N = 5,000, Learn takes about 1.2 s with it
//     and 13 ms with Accelerated.
//   - GroupMirror: the paper's Algorithm 4, for the l2,1 problems of the
//     pairwise path (and the l1 problems as groups of size one). Use it to
//     reproduce Algorithm 2 as published; slower than Accelerated too
//     (0.23 s on the same diamond).
//   - Sparsitron: the baseline of the paper's Figure 2 (Klivans and Meka),
//     one online pass over unweighted rows. Use it for that comparison; it
//     rarely reaches the certificate.
//   - Custom: a caller's own solve.Solver for either layout (as
//     WithSpinSolver and WithOneHotSolver), for new methods.
//
// The built-in backends have the methods SolveSpins (the l1 problems of
// Algorithm 1) and SolveOneHot (the l2,1 problems of Algorithm 2), which
// package solve's Func turns into a solve.Solver for either layout. Every
// backend but Accelerated runs on the plain layouts of package solve.
type Solver interface {
	// String returns the backend's name and settings.
	String() string

	spinsSolver() solve.Solver[solve.Spins]
	oneHotSolver() solve.Solver[solve.OneHot]
}

// Schedule is a mirror-descent step schedule.
type Schedule int

const (
	// Adaptive, the default, runs the backend's own mirror map — the
	// negative entropy on the doubled simplex for EntropicMirror
	// (Algorithm 3), the group p-norm map for GroupMirror (Algorithm 4) —
	// with the step chosen by backtracking on a Bregman descent test
	// instead of the paper's fixed γ, returns the last iterate instead of
	// the average, and stops as soon as the duality-gap certificate
	// solve.Gap (at the returned iterate, with the gradient there) proves
	// L(w) − L* ≤ Tol. It is the paper's method with a practical step and
	// stopping rule (this goes beyond the paper, whose guarantee is for the
	// fixed schedule: Paper), and the way to compare the two maps.
	//
	// The maps are built for a 1/√T rate from a cold start; near a sparse
	// optimum on the boundary of the ball both have unbounded curvature, so
	// the tail is slow: on the solver tests' small problems a certificate
	// of 1e-8 takes 50 to 500 iterations when the constraint is inactive
	// and 3,000 to 15,000 when it binds. The learners'
	// default backend, Accelerated (the Euclidean map ½‖w‖² with
	// acceleration and Newton steps), reaches the same certificate in tens
	// of steps. Stats.Iterations counts accepted steps; a step costs about
	// one Margins and one Gradient of the layout.
	Adaptive Schedule = iota
	// Paper runs exactly the paper's Algorithm 3 or 4: a fixed number T of
	// iterations with the constant step γ of the algorithm and the averaged
	// iterate. It converges as 1/√T and is there for faithful reproduction:
	// by Lemma 4 (Appendix), L(w̄) − L* ≤ 2R·√(2 ln(2d+1)/T) for
	// EntropicMirror started from w = 0, and O(R·√(ln n / T)) for
	// GroupMirror. It does not stop early; Stats.Gap is the certificate
	// at w̄.
	Paper
	// AdaptiveMirror is Adaptive under the name it had when Adaptive ran
	// the Euclidean method that is now the Accelerated backend.
	AdaptiveMirror
)

// String returns "Adaptive", "Paper", "AdaptiveMirror", or "Schedule(n)" for
// other values.
func (s Schedule) String() string {
	switch s {
	case Adaptive:
		return "Adaptive"
	case Paper:
		return "Paper"
	case AdaptiveMirror:
		return "AdaptiveMirror"
	}
	return fmt.Sprintf("Schedule(%d)", int(s))
}

func backendString(name string, s Schedule, t int) string {
	if s == Adaptive && t == 0 {
		return name
	}
	if t != 0 {
		return fmt.Sprintf("%s{Schedule: %v, T: %d}", name, s, t)
	}
	return fmt.Sprintf("%s{Schedule: %v}", name, s)
}

// mdRun holds what every schedule needs besides the problem: the iteration
// budget and the normalised row weights ĉ_m = c_m / Σc (1/N unweighted).
type mdRun struct {
	iters int       // MaxIter for Adaptive, T for Paper
	cw    []float64 // ĉ, length Len
}

// startSolve validates the problem and the schedule, handles the problems
// without data (done = true, with their Stats), scales w into the ball and
// returns the iteration budget and normalised weights.
func startSolve[F solve.Layout](ctx context.Context, name string, s Schedule, t int, p *solve.Problem[F], w []float64) (run mdRun, st solve.Stats, done bool, err error) {
	if s != Adaptive && s != Paper && s != AdaptiveMirror {
		return run, st, true, fmt.Errorf("pairwise: %s: unknown schedule %v", name, s)
	}
	if t < 0 {
		return run, st, true, fmt.Errorf("pairwise: %s: T = %d, want T ≥ 0", name, t)
	}
	if ctx == nil {
		return run, st, true, nilContext(name)
	}
	if err := checkProblem(p, w); err != nil {
		return run, st, true, err
	}
	if err := ctx.Err(); err != nil {
		return run, st, true, err
	}
	run.iters = p.MaxIter
	if run.iters == 0 {
		run.iters = DefaultMaxIterations
	}
	if s == Paper && t > 0 {
		run.iters = t
	}
	n := p.X.Len()
	total := float64(n)
	if p.C != nil {
		total = 0
		for _, c := range p.C {
			total += c
		}
	}
	if n == 0 || total == 0 || math.IsInf(total, 1) {
		if math.IsInf(total, 1) {
			return run, st, true, errors.New("pairwise: the row weights sum to +Inf")
		}
		// L ≡ 0: every feasible w is optimal, and 0 is the natural one.
		clear(w)
		return run, solve.Stats{Converged: true}, true, nil
	}
	run.cw = make([]float64, n)
	for m := range run.cw {
		c := 1.0
		if p.C != nil {
			c = p.C[m]
		}
		run.cw[m] = c / total
	}
	// An infeasible warm start is scaled onto the ball (a Solver may be
	// handed any w; the learners pass 0).
	if nrm := solve.Norm(w, p.X.GroupSize()); nrm > p.Radius {
		scale := p.Radius / nrm
		for j := range w {
			w[j] *= scale
		}
		engine.ProjectBall(w, p.X.GroupSize(), p.Radius, nil)
	}
	return run, st, false, nil
}

// checkProblem returns an error naming the first thing wrong with p or w.
// It reads every feature once, the cost of one Margins call.
func checkProblem[F solve.Layout](p *solve.Problem[F], w []float64) error {
	if p == nil {
		return errors.New("pairwise: nil problem")
	}
	if r := p.Radius; !(r > 0) || math.IsInf(r, 1) {
		return fmt.Errorf("pairwise: radius %v: want a finite positive number", r)
	}
	if !(p.Tol >= 0) || math.IsInf(p.Tol, 1) {
		return fmt.Errorf("pairwise: tolerance %v: want a finite number ≥ 0", p.Tol)
	}
	if p.MaxIter < 0 {
		return fmt.Errorf("pairwise: MaxIter = %d: want ≥ 0 (0 for the default)", p.MaxIter)
	}
	switch x := any(p.X).(type) {
	case solve.Spins:
		if x.Cols < 0 || (x.Cols == 0 && len(x.X) > 0) || (x.Cols > 0 && len(x.X)%x.Cols != 0) {
			return fmt.Errorf("pairwise: Spins layout: len(X) = %d is not a multiple of Cols = %d", len(x.X), x.Cols)
		}
		if x.Bias >= x.Cols && x.Cols > 0 {
			return fmt.Errorf("pairwise: Spins layout: Bias = %d out of range [0, %d)", x.Bias, x.Cols)
		}
		for i, v := range x.X {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("pairwise: Spins layout: feature X[%d] (row %d, column %d) = %v is not finite", i, i/x.Cols, i%x.Cols, v)
			}
		}
	case solve.OneHot:
		if x.Groups < 0 || x.K < 1 || (x.Groups == 0 && len(x.Z) > 0) || (x.Groups > 0 && len(x.Z)%x.Groups != 0) {
			return fmt.Errorf("pairwise: OneHot layout: len(Z) = %d, Groups = %d, K = %d: want K ≥ 1 and len(Z) a multiple of Groups", len(x.Z), x.Groups, x.K)
		}
		if x.Bias >= x.Groups && x.Groups > 0 {
			return fmt.Errorf("pairwise: OneHot layout: Bias = %d out of range [0, %d)", x.Bias, x.Groups)
		}
		for i := 0; i < len(x.Z); i += x.Groups {
			for j, a := range x.Z[i : i+x.Groups] {
				if int(a) >= x.K && j != x.Bias {
					return fmt.Errorf("pairwise: OneHot layout: state Z[%d] (row %d, group %d) = %d, want < K = %d", i+j, i/x.Groups, j, a, x.K)
				}
			}
		}
	}
	n := p.X.Len()
	if len(p.Y) != n {
		return fmt.Errorf("pairwise: %d labels for %d rows", len(p.Y), n)
	}
	for m, y := range p.Y {
		if y != 1 && y != -1 {
			return fmt.Errorf("pairwise: label Y[%d] = %v, want -1 or +1", m, y)
		}
	}
	if p.C != nil {
		if len(p.C) != n {
			return fmt.Errorf("pairwise: %d row weights for %d rows", len(p.C), n)
		}
		for m, c := range p.C {
			if !(c >= 0) || math.IsInf(c, 1) {
				return fmt.Errorf("pairwise: row weight C[%d] = %v, want a finite number ≥ 0", m, c)
			}
		}
	}
	if len(w) != p.X.Dim() {
		return fmt.Errorf("pairwise: len(w) = %d, want the dimension %d", len(w), p.X.Dim())
	}
	for j, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("pairwise: warm start w[%d] = %v is not finite", j, v)
		}
	}
	return nil
}

// accelerated is the Adaptive schedule of both backends: FISTA with
// backtracking and adaptive restarts on min L(w) s.t. ‖w‖ ≤ R, in the
// original coordinates, with the exact Euclidean projection of projectBall.
//
// Each step, from the current iterate x and the previous one x⁻,
//
//	t⁺ = (1 + √(1 + 4(L⁺/L)t²))/2,   y = x + ((t−1)/t⁺)(x − x⁻),
//	x⁺ = P(y − ∇L(y)/L⁺),
//
// and x⁺ is accepted when the sufficient-decrease test
// L(x⁺) − L(y) − ⟨∇L(y), x⁺ − y⟩ ≤ (L⁺/2)‖x⁺ − y‖² holds; otherwise L⁺ is
// doubled (never beyond the global bound Lmax, at which the test holds in
// exact arithmetic). The left side is computed row by row as a Bregman
// divergence of the softplus from the margins, which keeps it accurate to
// the last digits where a difference of losses would be all rounding. Margins
// are linear in w, so the margins of y are extrapolated from those of x and
// x⁻ and each step costs one Margins and one Gradient. The momentum t is
// reset to 1 when the step x⁺ − x makes an obtuse angle with the gradient
// mapping (O'Donoghue and Candès), which gives linear convergence near a
// strongly convex optimum.
//
// The certificate solve.Gap(∇L(x), x) costs one more Gradient, so it is
// computed when a cheap estimate from ∇L(y) says it may be below Tol,
// at least every gapEvery steps, and at the end.
//
// fista (fastsolve.go) implements it for any design with the layouts'
// methods: the plain layouts here, the table kernels on the learners' fast
// path, which add the face steps of faceNewton.
func accelerated[F solve.Layout](ctx context.Context, p *solve.Problem[F], w []float64, run mdRun) (solve.Stats, error) {
	r := &engine.Regression{X: p.X, Y: p.Y, CW: run.cw, Radius: p.Radius, Tol: p.Tol, MaxIter: run.iters, Trace: meanRowNormSq(p.X, run.cw)}
	return engine.FISTA(ctx, r, w, new(engine.FistaWork))
}

// meanRowNormSq returns Σ ĉ_m ‖x_m‖₂², the trace of the weighted second
// moment of the design.
func meanRowNormSq[F solve.Layout](x F, cw []float64) float64 {
	switch x := any(x).(type) {
	case solve.Spins:
		s := 0.0
		for m, c := range cw {
			row := x.X[m*x.Cols : (m+1)*x.Cols]
			ss := 0.0
			for j, v := range row {
				if j == x.Bias {
					v = 1
				}
				ss += v * v
			}
			s += c * ss
		}
		return s
	case solve.OneHot:
		return float64(x.Groups)
	}
	panic("unreachable")
}

// Defaults of the options that have one.
const (
	// DefaultTolerance is the default bound on L(ŵ) - L* certified by the
	// duality gap for every per-node regression. The statistical error of
	// ŵ is of order 1/√N; 1e-6 in loss moves ŵ by far less than that at
	// any N a user can hold, so recovery is not harmed (the learner tests
	// check this against tighter tolerances).
	DefaultTolerance = 1e-6
	// DefaultMaxIterations caps the iterations of one regression.
	DefaultMaxIterations = 20000
)
