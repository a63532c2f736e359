package pairwise

import (
	"context"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/solve"
)

// Accelerated is the default backend of the learners: accelerated projected
// gradient (FISTA, with the backtracking of Scheinberg, Goldfarb and Bai and
// the gradient restarts of O'Donoghue and Candès) in the original
// coordinates, with the exact Euclidean projection onto the l1 or l2,1 ball,
// stopped as soon as the duality-gap certificate solve.Gap proves
// L(ŵ) − L* ≤ Tol. It is mirror descent with the Euclidean map ½‖w‖², which
// converges linearly once the loss is strongly convex near the optimum,
// where the entropic and group-norm maps of the paper's Algorithms 3 and 4
// (EntropicMirror, GroupMirror), built for a 1/√T rate from a cold start,
// slow down near the boundary of their domain. This goes beyond the paper:
// the paper's guarantees are about the constrained estimator, which every
// backend computes to the certified tolerance; the method only changes how
// fast it gets there.
//
// As a solve.Solver (SolveSpins, SolveOneHot) it runs on the plain layouts
// it is handed. On the learners' default path the per-node engine runs the
// same method on its own preparation of the rows, shared by all nodes:
// identical rows merged into weights, the states encoded as group codes that
// turn margins and gradients into table reads, a majorise–minimise start
// from the spins' second moment for the Ising path, Newton steps for small
// one-hot problems, and Newton steps on the face of the ball near the
// optimum. Both stop on the same certificate.
//
// Accelerated has no settings; its zero value is the backend. Problems
// without rows (or with all weights zero) have the constant loss 0 and the
// solution 0; NaN or infinite features, weights or warm starts are errors.
type Accelerated struct{}

var _ Solver = Accelerated{}

// String returns "Accelerated".
func (Accelerated) String() string { return "Accelerated" }

// SolveSpins solves an l1-constrained problem of the Ising path. w is the
// warm start (scaled onto the ball when outside it) and receives the
// solution; p is not modified. Validation, cancellation and the Stats are as
// for EntropicMirror.SolveSpins.
func (a Accelerated) SolveSpins(ctx context.Context, p *solve.Problem[solve.Spins], w []float64) (solve.Stats, error) {
	return solveAccelerated(ctx, p, w)
}

// SolveOneHot solves an l2,1-constrained problem of the pairwise path, as
// SolveSpins does.
func (a Accelerated) SolveOneHot(ctx context.Context, p *solve.Problem[solve.OneHot], w []float64) (solve.Stats, error) {
	return solveAccelerated(ctx, p, w)
}

func (a Accelerated) spinsSolver() solve.Solver[solve.Spins] {
	return solve.Func[solve.Spins](a.SolveSpins)
}

func (a Accelerated) oneHotSolver() solve.Solver[solve.OneHot] {
	return solve.Func[solve.OneHot](a.SolveOneHot)
}

func solveAccelerated[F solve.Layout](ctx context.Context, p *solve.Problem[F], w []float64) (solve.Stats, error) {
	run, st, done, err := startSolve(ctx, "Accelerated", Adaptive, 0, p, w)
	if !done && err == nil {
		st, err = accelerated(ctx, p, w, run)
	}
	return solve.Ended(ctx, st, err), err
}

// backend resolves WithSolver (and its shorthands WithSpinSolver and
// WithOneHotSolver) for the engine: Accelerated, the default, runs the
// engine's own methods on its coded rows; any other backend solves the
// plain layouts through its solve.Solver.
func (c *config) backend() engine.Backend {
	b := c.solver
	if b == nil {
		b = Accelerated{}
	}
	_, fast := b.(Accelerated)
	r := engine.Backend{Fast: fast, Spins: c.spins, OneHot: c.oneHot}
	if r.Spins == nil {
		r.Spins = b.spinsSolver()
	} else {
		r.Fast = false
	}
	if r.OneHot == nil {
		r.OneHot = b.oneHotSolver()
	} else {
		r.Fast = false
	}
	return r
}

// Custom is a backend made of a caller's own solvers, one for each layout of
// package solve: Spins solves the l1-constrained problems of the Ising path
// (Algorithm 1, equation (3)), OneHot the l2,1-constrained problems of the
// pairwise path (Algorithm 2, equation (8)). A nil field leaves its layout to
// Accelerated's Solve method. Choose it with WithSolver; the learners then
// call it through solve.Solver for every regression they solve — the
// paper's path, each width a Selection tries, each cross-validation fold,
// and the fits the edge test starts from — on the rows as given, in their
// order, and never use their own engine. Name, when not empty, is what
// String returns.
//
// A Solver must honour the contract of solve.Solver: solve from the warm
// start w into w, return ctx.Err() promptly once ctx is done, keep neither p
// nor w, and be safe for concurrent use (the learners call it from several
// workers at once). The learners check no certificate of their own: the
// Stats it returns are what Result.Nodes reports.
type Custom struct {
	Name   string
	Spins  solve.Solver[solve.Spins]
	OneHot solve.Solver[solve.OneHot]
}

var _ Solver = Custom{}

// String returns Name, or "Custom".
func (c Custom) String() string {
	if c.Name != "" {
		return c.Name
	}
	return "Custom"
}

func (c Custom) spinsSolver() solve.Solver[solve.Spins] {
	if c.Spins == nil {
		return Accelerated{}.spinsSolver()
	}
	return c.Spins
}

func (c Custom) oneHotSolver() solve.Solver[solve.OneHot] {
	if c.OneHot == nil {
		return Accelerated{}.oneHotSolver()
	}
	return c.OneHot
}
