package pairwise

import (
	"fmt"
	"math"
	"runtime"

	"github.com/mrfkit/pairwise/solve"
)

// Option configures Learn, LearnIsing and LearnPairwise. Options are applied
// in order; where an option is repeated, the last one wins. Invalid values are
// reported as errors by the learner, naming the option.
type Option interface {
	apply(*config)
}

// optionFunc adapts a function to Option.
type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// config holds the learner settings after all options are applied.
type config struct {
	lambda    float64 // the width bound λ; NaN when not given
	radius    float64 // the constraint radius; NaN for the paper's 2λ or 2λ√k
	eta       float64 // the edge weight bound η; NaN when not given
	workers   int
	progress  func(done, total int)
	solver    Solver
	spins     solve.Solver[solve.Spins]
	oneHot    solve.Solver[solve.OneHot]
	tol       float64
	maxIter   int
	symmetric Symmetrization
	selection Selection // selection.go: WithSelection, WithFalseEdgeRate, WithEdgeGap
	alpha     float64
	noGap     bool
	noRefit   bool
	noMixture bool
	sel       *selector

	errs []error // problems found while applying options
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

func defaultConfig() config {
	return config{
		lambda:  math.NaN(),
		radius:  math.NaN(),
		eta:     math.NaN(),
		workers: runtime.GOMAXPROCS(0),
		tol:     DefaultTolerance,
		maxIter: DefaultMaxIterations,
	}
}

// optionError records that option was called with the invalid value v.
func (c *config) optionError(option string, v any, reason string) {
	c.errs = append(c.errs, &OptionError{Option: option, Value: v, Reason: reason})
}

// setPositive sets *dst to v, the value of option name, when v is finite and
// positive, and otherwise records an OptionError, "pairwise: name(v): why".
func (c *config) setPositive(dst *float64, v float64, name, why string) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		c.optionError(name, v, why)
		return
	}
	*dst = v
}

// setAtLeast sets *dst to v, the value of option name, when v ≥ least, and
// otherwise records an OptionError, "pairwise: name(v): want at least least unit".
func (c *config) setAtLeast(dst *int, v, least int, name, unit string) {
	if v < least {
		c.optionError(name, v, fmt.Sprintf("want at least %d %s", least, unit))
		return
	}
	*dst = v
}

// WithWidth sets λ, the known upper bound on the model width λ(W, Θ)
// (Definitions 1 and 2). The per-node regressions are constrained to radius
// 2λ (l1, Algorithm 1) or 2λ√k (l2,1, Algorithm 2). λ must be finite and
// positive. Without it (and without WithRadius) the learners choose a width
// λ_i for each node from the data with a Selection (EBIC by default; see
// WithSelection), reported in NodeFit.Width and Result.Tuning.
func WithWidth(lambda float64) Option {
	return optionFunc(func(c *config) {
		c.setPositive(&c.lambda, lambda, "WithWidth", "the width bound λ must be a finite positive number")
	})
}

// WithRadius sets the constraint radius of every per-node regression
// directly, in place of the paper's 2λ (l1, Algorithm 1) or 2λ√k (l2,1,
// Algorithm 2). This goes beyond the paper: the theory needs the radius to
// contain the true parameter, while in practice a smaller radius shrinks the
// estimates and can remove false edges at small N. For example, on the 3x3
// grid with k = 4 and θ = 0.2 at N = 6000, the paper's radius 2λ√k = 3.2
// recovers the graph in 0 of 20 seeded runs and the radius 2λ = 1.6 in 19 of
// 20 (see the README). r must be finite and positive. With WithRadius,
// WithWidth is not needed; by default the radius follows λ.
func WithRadius(r float64) Option {
	return optionFunc(func(c *config) {
		c.setPositive(&c.radius, r, "WithRadius", "the radius must be a finite positive number")
	})
}

// resultRadius is Result.Radius for a learner that used radius: NaN when a
// Selection chose the widths node by node (each node i then used 2λ_i or
// 2λ_i√k, with λ_i in NodeFit.Width).
func (c *config) resultRadius(radius float64) float64 {
	if c.sel != nil && c.sel.spec != nil {
		return math.NaN()
	}
	return radius
}

// regressionRadius returns the constraint radius for alphabet size k: the one
// given by WithRadius, else 2λ for k = 2 on the Ising path (l1) and 2λ√k on
// the pairwise path (l2,1).
func (c *config) regressionRadius(k int, pairwise bool) float64 {
	if !math.IsNaN(c.radius) {
		return c.radius
	}
	if pairwise {
		return 2 * c.lambda * math.Sqrt(float64(k))
	}
	return 2 * c.lambda
}

// WithMinEdgeWeight sets η, the known lower bound on the minimum edge weight
// η(W, Θ). The learned graph keeps the pairs whose estimated weight is at
// least η/2, as Algorithms 1 and 2 do. η must be finite and positive. Without
// it the learners keep the pairs that a Wald test on debiased estimates finds
// nonzero at the false-edge rate of WithFalseEdgeRate (default
// DefaultFalseEdgeRate), and report the test in Result.Tuning.
func WithMinEdgeWeight(eta float64) Option {
	return optionFunc(func(c *config) {
		c.setPositive(&c.eta, eta, "WithMinEdgeWeight", "the edge weight bound η must be a finite positive number")
	})
}

// WithWorkers sets the number of goroutines that learn in parallel: they
// solve nodes (and value pairs) in parallel, or, from 2^18 distinct rows
// with the default backends, split the rows of each regression (on the
// Ising path, and on the pairwise path when λ is given). Results do not
// depend on p. p must be at least 1; the default is runtime.GOMAXPROCS(0),
// every core the program may use.
func WithWorkers(p int) Option {
	return optionFunc(func(c *config) {
		c.setAtLeast(&c.workers, p, 1, "WithWorkers", "worker")
	})
}

// WithProgress registers f to be called with the number of nodes done and the
// total, once at the start and after every node. Calls come from one goroutine
// at a time, in increasing order of done. The default is no report.
func WithProgress(f func(done, total int)) Option {
	return optionFunc(func(c *config) { c.progress = f })
}

// WithSolver chooses the backend for the per-node regressions:
// EntropicMirror (the default on the Ising path; Algorithm 3) or GroupMirror
// (the default on the pairwise path; Algorithm 4, which also solves the l1
// problems of the Ising path as groups of size one). A nil s restores the
// defaults.
func WithSolver(s Solver) Option {
	return optionFunc(func(c *config) { c.solver = s })
}

// WithSpinSolver sets a caller's own solver for the l1 problems of the Ising
// path (LearnIsing). It overrides WithSolver there. For compiled Go callers;
// see package solve.
func WithSpinSolver(s solve.Solver[solve.Spins]) Option {
	return optionFunc(func(c *config) { c.spins = s })
}

// WithOneHotSolver sets a caller's own solver for the l2,1 problems of the
// pairwise path (LearnPairwise). It overrides WithSolver there. For compiled
// Go callers; see package solve.
func WithOneHotSolver(s solve.Solver[solve.OneHot]) Option {
	return optionFunc(func(c *config) { c.oneHot = s })
}

// WithTolerance sets the target for every per-node regression: a solver stops
// once the duality-gap certificate proves L(ŵ) - L* ≤ tol. tol must be finite
// and positive; the default is DefaultTolerance.
func WithTolerance(tol float64) Option {
	return optionFunc(func(c *config) {
		c.setPositive(&c.tol, tol, "WithTolerance", "want a finite positive tolerance")
	})
}

// WithMaxIterations caps the iterations of every per-node regression. A
// regression that reaches the cap without certifying the tolerance is
// reported in Result.Nodes (Converged false); the learner does not fail. n
// must be at least 1; the default is DefaultMaxIterations. With the Paper
// schedule, the backend's own iteration count T governs instead.
func WithMaxIterations(n int) Option {
	return optionFunc(func(c *config) {
		c.setAtLeast(&c.maxIter, n, 1, "WithMaxIterations", "iteration")
	})
}

// Symmetrization is the rule that combines the two estimates of a coupling,
// Ŵ_ij from node i's regression and Ŵ_ji^T from node j's.
type Symmetrization int

const (
	// Average keeps (Ŵ_ij + Ŵ_ji^T)/2 and the edge when its weight is at
	// least η/2. This is the default.
	Average Symmetrization = iota
	// And keeps the edge only when both estimates reach η/2 (the weights
	// are still the average).
	And
	// Or keeps the edge when either estimate reaches η/2 (the weights are
	// still the average).
	Or
)

// String returns the rule's name.
func (s Symmetrization) String() string {
	switch s {
	case Average:
		return "average"
	case And:
		return "and"
	case Or:
		return "or"
	}
	return fmt.Sprintf("Symmetrization(%d)", int(s))
}

// WithSymmetrization chooses how the two per-node estimates of each pair are
// combined into the learned graph. The default is Average.
func WithSymmetrization(s Symmetrization) Option {
	return optionFunc(func(c *config) {
		if s < Average || s > Or {
			c.optionError("WithSymmetrization", s, "unknown rule")
			return
		}
		c.symmetric = s
	})
}
