package pairwise

import (
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/internal/selection"
	"github.com/mrfkit/pairwise/solve"
)

// Option configures Learn, LearnIsing and LearnPairwise. Options are applied
// in order; where an option is repeated with valid values, the last one
// wins. Every invalid value is reported as an error by the learner, naming
// the option, even when a later option gives a valid one: WithWidth(-1),
// WithWidth(1) is an error, so that a mistake (a computed λ that came out
// negative) is never hidden by a default given after it.
//
// Some options override others whatever their order:
//
//   - WithRadius overrides WithWidth, WithNodeWidths and the Selection:
//     every regression uses the radius, and Result.Width is NaN;
//   - WithWidth or WithNodeWidths (the last of the two given) overrides
//     WithSelection;
//   - WithMinEdgeWeight overrides the edge test (WithEdgeTest,
//     WithFalseEdgeRate and the other test options);
//   - WithSpinSolver and WithOneHotSolver override WithSolver on their
//     path.
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
	selection Selection    // selection.go: WithSelection, WithFalseEdgeRate, WithEdgeGap
	test      WaldTest     // edgetest.go: WithEdgeTest, WithFalseEdgeRate
	widths    []float64    // WithNodeWidths: λ_i for each node; nil otherwise
	split     engine.Split // when the engine splits rows among the workers
	screen    int          // the least n from which Ising nodes are screened (engine.DefaultScreen)
	waldDense int          // the most spins of the full-model Ising edge test (waldDenseMax)
	denseTest bool         // the dense Ising edge test even where the sparse one runs (tests)
	lowKeep   int          // the least standard errors a node keeps in the sparse test (sparseLowKeep; tests lower it)
	// sparseFloor is the Ising edge test's floor F on the support
	// model's path (edgetest_sparse.go); 0 for selection.SparseFloorAt(n).
	// Tests raise it; the merge of sparse parts sets the parts' floor.
	sparseFloor float64
	// sparseAll: the sparse test's first pass keeps each node's n
	// entries always (> 0), never (< 0), or by sparseKeepsAll (0; tests
	// set it).
	sparseAll int
	missing   MissingRule // missing.go: WithMissing
	// missingSet: WithMissing was given (else the rule depends on k).
	missingSet bool
	ridge      float64 // ρ of WithRidge; 0 for none
	gap        int     // contacts_learn.go: WithIgnoreGap
	refPairs   int     // contacts_learn.go: WithReferencePairs
	softmax    int     // contacts_learn.go: WithSoftmax
	avgBlocks  int     // contacts_learn.go: WithAveragedBlocks
	gapInputs  int     // contacts_learn.go: WithGapInputs
	fieldRidge float64 // contacts_learn.go: WithFieldRidge; 0 when not given
	// contacts_learn.go: WithSoftmaxRadius and WithSoftmaxShrink; 0 when
	// not given (no l2,1 constraint).
	softmaxRadius, softmaxShrink float64
	// ridgeSet: WithRidge was given (LearnContacts' softmax then uses ρ
	// as given rather than its own default).
	ridgeSet bool
	// warm and keep: the regressions' solutions of another fit to start
	// from, and whether to keep this fit's in its Result (WithWarmStart,
	// WithKeepSolutions: the bootstrap's resamples at fixed widths).
	warm [][]taskSolution
	keep bool
	// scale is WithScale's (default AutoScale); ordinal is the scale
	// Learn resolved for k > 2 (ordinal.go): the ordinal model.
	scale   Scale
	ordinal bool
	// multinomial: Learn's tuning-free default on the nominal scale fits
	// the node-wise multinomial model, the mixed model with every
	// variable nominal (multinomial.go); set with ordinal.
	multinomial bool
	// nominalVars are WithNominalVariables' variables, in increasing
	// order; nil when it was not given.
	nominalVars []int

	errs []error // problems found while applying options
}

func defaultConfig() config {
	return config{
		lambda:    math.NaN(),
		radius:    math.NaN(),
		eta:       math.NaN(),
		workers:   runtime.GOMAXPROCS(0),
		tol:       DefaultTolerance,
		maxIter:   DefaultMaxIterations,
		split:     engine.DefaultSplit,
		screen:    engine.DefaultScreen,
		waldDense: selection.WaldDenseMax,
		scale:     AutoScale,
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
		c.widths = nil // the last of WithWidth and WithNodeWidths wins
	})
}

// WithNodeWidths sets a width λ_i for each node i, in place of one λ for
// all (WithWidth) or the ones a Selection would choose: node i's
// regressions are constrained to radius 2λ_i (Algorithm 1) or 2λ_i√k
// (Algorithm 2). Its use is to refit with the widths a first fit chose
// (NodeFit.Width), as a bootstrap does, without running the selection
// again. The slice must have one finite positive entry per variable
// (checked by the learner, which reports a mismatch as an error); it is
// copied. Of WithWidth and WithNodeWidths the last given wins; it
// overrides WithSelection, and WithRadius overrides it. Result.Width is then the largest λ_i and Result.Radius NaN.
func WithNodeWidths(widths []float64) Option {
	w := append([]float64(nil), widths...)
	return optionFunc(func(c *config) {
		for i, v := range w {
			if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
				c.optionError("WithNodeWidths", w, fmt.Sprintf("λ_%d = %v: every width must be a finite positive number", i, v))
				return
			}
		}
		if len(w) == 0 {
			c.optionError("WithNodeWidths", w, "no widths")
			return
		}
		c.widths = w
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
// WithWidth is not needed; given as well, in any order, it is overridden
// (as are WithNodeWidths and the Selection), and Result.Width is NaN. By
// default the radius follows λ.
func WithRadius(r float64) Option {
	return optionFunc(func(c *config) {
		c.setPositive(&c.radius, r, "WithRadius", "the radius must be a finite positive number")
	})
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

// WithProgress registers f to be called with the units of work done and the
// total, once at the start and after every node. A node is a unit; when
// the edge test chooses the graph (WithMinEdgeWeight not given) the total
// has ⌈n/4⌉ more units for the test and its refit, about their share of a
// run, reported done (done = total) when the test ends, so that a bar
// does not stand at 100% while the test runs. Calls come from one
// goroutine at a time, in increasing order of done. The default is no
// report.
func WithProgress(f func(done, total int)) Option {
	return optionFunc(func(c *config) { c.progress = f })
}

// WithSolver chooses the backend for the per-node regressions: Accelerated
// (the default), EntropicMirror (Algorithm 3, l1 problems only: on the
// pairwise path the learner returns an OptionError for it),
// GroupMirror (Algorithm 4, which also solves the l1 problems of the Ising
// path as groups of size one), Sparsitron (the paper's baseline), or a
// caller's own solvers wrapped in Custom. A nil s restores the default.
// With Accelerated the learners run the per-node engine on their own
// preparation of the rows; with any other backend they hand every
// regression to the backend's solve.Solver on the plain layouts.
func WithSolver(s Solver) Option {
	return optionFunc(func(c *config) { c.solver = s })
}

// WithSpinSolver is a shorthand for a caller's own solver of the l1
// problems of the Ising path: it overrides WithSolver there, as
// WithSolver(Custom{Spins: s}) would. For compiled Go callers; see package
// solve. A nil s removes the override.
func WithSpinSolver(s solve.Solver[solve.Spins]) Option {
	return optionFunc(func(c *config) { c.spins = s })
}

// WithOneHotSolver is a shorthand for a caller's own solver of the l2,1
// problems of the pairwise path: it overrides WithSolver there, as
// WithSolver(Custom{OneHot: s}) would. For compiled Go callers; see package
// solve. A nil s removes the override.
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
// reported in Result.Nodes (Converged false) and in Result.Warnings (a
// NotConverged warning); the learner does not fail. n
// must be at least 1; the default is DefaultMaxIterations. With the Paper
// schedule, the backend's own iteration count T governs instead.
func WithMaxIterations(n int) Option {
	return optionFunc(func(c *config) {
		c.setAtLeast(&c.maxIter, n, 1, "WithMaxIterations", "iteration")
	})
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

// WithSelection sets the rule that chooses each node's width when WithWidth
// is not given. A nil s restores the default, EBIC{Gamma: DefaultGamma}
// over DefaultWidths. It has no effect when WithWidth is given.
func WithSelection(s Selection) Option {
	return optionFunc(func(c *config) { c.selection = s })
}

// WithEdgeTest sets the edge test used when WithMinEdgeWeight is not given;
// the default is WaldTest{}. A FalseEdgeRate outside (0, 1) (other than
// zero) is an error. It has no effect when WithMinEdgeWeight is given.
// Repeated, the last one wins.
func WithEdgeTest(t WaldTest) Option {
	return optionFunc(func(c *config) {
		if a := t.FalseEdgeRate; math.IsNaN(a) || a < 0 || a >= 1 {
			c.optionError("WithEdgeTest", t, "want a FalseEdgeRate α in (0, 1)")
			return
		}
		c.test = t
	})
}

// WithFalseEdgeRate sets α, the family-wise false-edge rate of the edge
// test (WaldTest.FalseEdgeRate), keeping the test's other settings. α must
// be in (0, 1); the default is DefaultFalseEdgeRate. On Ising data the
// EBIC graph stage's test of independence runs at α/2, so that a model
// with no edge is learned with one with probability at most about 1.5α (α
// for the test, α/2 for the stage; see WaldTest). It has no effect when
// WithMinEdgeWeight is given.
func WithFalseEdgeRate(alpha float64) Option {
	return optionFunc(func(c *config) {
		if math.IsNaN(alpha) || alpha <= 0 || alpha >= 1 {
			c.optionError("WithFalseEdgeRate", alpha, "want α in (0, 1)")
			return
		}
		c.test.FalseEdgeRate = alpha
	})
}

// WithEdgeGap turns the gap rule of the edge test on (the default) or off:
// WaldTest.NoGap = !on, keeping the test's other settings.
func WithEdgeGap(on bool) Option {
	return optionFunc(func(c *config) { c.test.NoGap = !on })
}

// WithEdgeMixture turns the mixture cut of the Ising edge test on (the
// default) or off: WaldTest.NoMixture = !on, keeping the test's other
// settings.
func WithEdgeMixture(on bool) Option {
	return optionFunc(func(c *config) { c.test.NoMixture = !on })
}

// WithRefit turns the refit stage of the Ising edge test on (the default)
// or off: WaldTest.NoRefit = !on, keeping the test's other settings. On
// complete samples of more than 256 spins the stage does not run either
// way: the first stage is then made in each node's support model, which
// is what the refit would fit (WaldTest, Many variables).
func WithRefit(on bool) Option {
	return optionFunc(func(c *config) { c.test.NoRefit = !on })
}

// WithEBICGraph turns the EBIC graph stage of the Ising edge test on (the
// default) or off: WaldTest.NoEBICGraph = !on, keeping the test's other
// settings. The stage runs only when the widths are chosen by EBIC (the
// default Selection).
func WithEBICGraph(on bool) Option {
	return optionFunc(func(c *config) { c.test.NoEBICGraph = !on })
}

// WithRidge adds a ridge (L2) term (ρ/2)·‖w‖² to every per-node regression,
// on all coefficients but the bias, beside the constraint: each regression
// becomes
//
//	minimise Σ_m c_m ln(1 + exp(−y_m ⟨w, x_m⟩)) / Σ c + (ρ/Σ c)/2·‖w‖²   s.t. ‖w‖ ≤ radius,
//
// with ρ in the units of the sample weights (with alignment weights,
// effective sequences), so that it acts as a Gaussian prior whose strength
// does not depend on how many rows a regression has: a value pair of
// Algorithm 2 whose values are rare is shrunk hard, one with many rows
// hardly at all. The paper's estimator has no ridge (ρ = 0, the default);
// the ridge is what keeps the couplings of rare states of sequence
// alignments small (LearnContacts uses it by default, see
// DefaultContactRidge and docs/contacts). The duality-gap certificate
// bounds the penalised objective. ρ must be finite and non-negative. The
// ridge needs the Accelerated backend (the default); other backends return
// an error. With the edge test (η not given) the test treats the ridge's
// estimates as unpenalised ones, so give η with WithMinEdgeWeight.
func WithRidge(rho float64) Option {
	return optionFunc(func(c *config) {
		if math.IsNaN(rho) || math.IsInf(rho, 0) || rho < 0 {
			c.optionError("WithRidge", rho, "the ridge ρ must be a finite non-negative number")
			return
		}
		c.ridge = rho
		c.ridgeSet = true
	})
}

// WithKeepSolutions makes the learner keep in the Result the solution ŵ
// of every regression at the final widths (n numbers for each node of the
// Ising path; n·k for each of a node's k(k−1)/2 value pairs on the pairwise
// path), so that a later fit on related data can start from them with
// WithWarmStart; they are not shown otherwise. Off by default, for they
// cost memory (n² numbers for k = 2). Given more than once, it is the same
// as once.
func WithKeepSolutions() Option {
	return optionFunc(func(c *config) { c.keep = true })
}

// WithWarmStart starts every regression at a given width from the solution
// of the same regression in prev, a Result learned with WithKeepSolutions
// (node i's regression of the same value pair and length; one without such
// a solution starts as usual), in place of the learner's own start. prev
// is read, not copied or changed, so that fits on many goroutines can share
// it. The solutions are those of a fit at the same widths (WithNodeWidths
// or WithWidth) on related data, such as a bootstrap's full-data fit for
// its resamples: every regression is still solved to the tolerance, so
// the estimates differ from a cold start's by no more than the tolerance
// allows; only the iterations change. It has no effect where the widths
// are searched (the search warm-starts along its own path). A nil prev or
// one learned without WithKeepSolutions is an error (OptionError). By
// default every regression starts from the learner's own start; given more
// than once, the last one wins.
func WithWarmStart(prev *Result) Option {
	return optionFunc(func(c *config) {
		switch {
		case prev == nil:
			c.optionError("WithWarmStart", prev, "no Result to start from")
		case prev.solutions == nil:
			c.optionError("WithWarmStart", "Result", "it holds no solutions: learn it with WithKeepSolutions")
		default:
			c.warm = prev.solutions
		}
	})
}

// WithMissing sets how the learners handle missing values in the samples
// (see Missing); it has no effect on complete samples. Without it, Learn
// and LearnIsing use AvailableCase on binary data (k = 2), and
// MissingAsState otherwise (k > 2, or LearnPairwise). Repeating it keeps
// the last rule; a rule that is not one of the three is an OptionError.
func WithMissing(rule MissingRule) Option {
	return optionFunc(func(c *config) {
		if rule != MissingAsState && rule != ListwiseDeletion && rule != AvailableCase {
			c.optionError("WithMissing", rule, "want MissingAsState, ListwiseDeletion or AvailableCase")
			return
		}
		c.missing, c.missingSet = rule, true
	})
}

// WithScale sets how Learn treats k > 2 states (default AutoScale).
//
// Ordinal fits the ordinal pairwise model, for ordered answers (Likert
// items, counts, grades):
//
//	W_ij(a, b) = w_ij · s_i(a) · s_j(b),
//
// the linear-by-linear association model, one coupling w_ij a pair. The
// scores s_i(a) are the states themselves (for samples read from a CSV
// file, the answers' integer values) scaled to [−1, 1] over the states
// that variable i takes: s_i(a) = (a − m_i)/h_i with m_i and h_i the
// midpoint and half-range of its smallest and largest observed state (0
// for a variable with one state). A binary item thus has the spins ±1 and
// its couplings are those of the Ising model, and an edge's weight
// max_{a,b} |W_ij(a, b)| is |w_ij|.
//
// This goes beyond the paper, whose Algorithm 2 fits the full k×k blocks.
// Node i's regressions are one for each value pair (α, β) of z_i, as in
// Algorithm 2, but only the k − 1 pairs of its commonest answer against
// each other (the log-odds of any two answers is the difference of theirs),
// on the scores of the other variables, x_j = s_j(z_j): one coefficient a
// variable, with the ℓ1 constraint of Algorithm 1 (radius 2λ), fitted by
// the engine on its table codes as the Ising path is. Under the model the
// coefficient of z_j is (s_i(α) − s_i(β))·w_ij, so each pair estimates
// w_ij, and ŵ_ij is their average weighted by (s_i(α) − s_i(β))²·N_α·N_β/
// (N_α + N_β) (N_a the weight of the rows with z_i = a).
//
// Without η the edge test is the Wald test of w_ij = 0, one statistic a
// pair as on the Ising path, at the false-edge rate of WithFalseEdgeRate
// over the n(n−1)/2 pairs, cut by the same mixture as Ising data
// (WithEdgeMixture) or the gap rule. Its estimate is node i's conditional
// law refitted without constraint by maximum likelihood on all rows (one
// softmax over the answers z_i takes, the adjacent-category logit model),
// whose Fisher information gives the standard errors; where that estimate
// does not exist (answers separated by the others) the value pairs'
// debiased estimates stand in. Rare answers cost no pair: a rare answer of
// z_i is one more field of its softmax, and as a neighbour one more value
// of a score, not a coefficient. Tuning.Ordinal reports the model. Its
// small-sample stage is the Ising path's EBIC graph (WaldTest,
// WithEBICGraph) on the ordinal model: when Mantel's global test of
// independence on the scores rejects at α/2 and the Wald test keeps fewer
// than half of the pairs that both nodes' EBIC-chosen neighbourhoods hold
// (each node's path: its variables by decreasing Wald statistic, refitted
// without constraint), those pairs join the graph if BIC prefers it
// (Tuning.EBICGraph, Tuning.GlobalP). With neither λ nor η the refit is also the estimate,
// and no width is searched (NodeFit.Width 0); with λ or η the value
// pairs' constrained fits are.
//
// The ordinal model suits ordered answers whose effects are roughly linear
// in the answer: a coupling that is not (an answer that goes with its
// neighbour's middle values, a Potts model's k×k blocks) is seen only
// through its linear part, and its variable may show false edges to the
// variables that carry the rest. It applies to Learn only (WithScale(
// Ordinal) under LearnPairwise, Algorithm 2, or LearnIsing, Algorithm 1,
// is an OptionError); with k = 2 Learn runs the Ising path, which is the
// same model. It needs the Accelerated backend (the default). Missing
// values: the incomplete rows are dropped (ListwiseDeletion, the default
// on this scale), since a missing answer has no score;
// WithMissing(MissingAsState) is an error.
//
// AutoScale (the default) fits the ordinal model when the association
// along the scores reaches the midpoint between the share a Potts coupling
// δ(a, b) has there and the whole (Result.ScaleCheck says how, and gives
// the numbers; docs/learning.md gives the measurements behind the rule): Likert answers of latent normal variables pass by far,
// the nominal blocks of the paper's grids fail by far and get Algorithm
// 2's blocks. This goes beyond the paper. The check reads each pair's
// table once (N·n²/2 additions) and fits it (a few passes over its k²
// cells). It is skipped, and the states are nominal, when η is given
// (WithMinEdgeWeight: η bounds the nominal blocks' weight, and with λ and
// η the learner is the paper's algorithm), when the tables hold more than
// 2^20 cells in all (n(n−1)/2·k²: 60 items of 7 answers hold 87,000, 100
// columns of 21 amino acids 2.2 million), with a backend other than
// Accelerated, and for incomplete samples under
// WithMissing(MissingAsState) (a missing state has no score).
// Result.Scale says which model was fitted.
//
// Nominal fits the full k×k blocks. Learn's tuning-free default there
// (one process or its shards; neither λ, η, a radius, node widths, a
// Selection nor a ridge given; complete samples; the Accelerated backend)
// is the node-wise multinomial model: each node's law is one softmax over
// the values it takes, on an indicator a value of every other variable,
// fitted without constraint by maximum likelihood on all rows (Newton's
// method; a ridge of one row's weight where values are separated), the
// mixed model of WithNominalVariables with every variable nominal. Its
// edge test has one Wald statistic a pair over the (k_i − 1)(k_j − 1)
// couplings of its block, cut by the mixture or the gap rule, and the
// mixed model's EBIC graph for small samples (Tuning.Mixed; not
// Tuning.Ordinal nor Tuning.Block); no width is searched (Result.Width
// and NodeFit.Width 0, Result.Radius NaN). It needs the largest node law
// to have at most 1,000 parameters, (k_i − 1)(1 + Σ_{j≠i} (k_j − 1)) with
// k_j the values variable j takes, and the samples' total weight to be
// at least twice that and less than 20 times (docs/learning.md gives the
// measurements: on questionnaire files read as nominal, 0.4 to 14 rows a
// parameter, it finds far more of the true edges than Algorithm 2's value
// pairs, at the same precision; from 20 rows a parameter on, Algorithm 2
// recovered the Potts grids as well, as the paper's guarantees say it
// will with enough samples, and in less time on questionnaires). Elsewhere,
// with λ or η given, and in LearnPairwise, Learn fits Algorithm 2's value
// pairs, as the paper does; on incomplete samples its missing state
// (MissingAsState) keeps Algorithm 2 too. This goes beyond the paper.
//
// Before the check, AutoScale looks for unordered categories written as
// numbers among ordered answers (a region coded 1 to 5 in a Likert
// questionnaire), when Learn runs in one process with neither λ, a
// radius nor node widths given: a variable whose association with the
// others needs its values unordered (the row-effects model of its table
// with each partner, its values' own coefficients on the partner's
// scores) for at least half of its association beyond chance, at the
// level 0.01/n, the most unordered first, at most n/3 of them
// (docs/learning.md gives the measurements). The check then
// reads the pairs of the others, and on the ordinal scale the variables
// found are fitted as nominal, as if declared with WithNominalVariables
// (Result.NominalFound). This goes beyond the paper. WithScale(Ordinal)
// does not look: every undeclared variable is then ordered.
func WithScale(sc Scale) Option {
	return optionFunc(func(c *config) {
		if sc < Nominal || sc > AutoScale {
			c.optionError("WithScale", sc, "unknown scale")
			return
		}
		c.scale = sc
	})
}

// WithNominalVariables declares the variables whose states are unordered
// categories (a diagnosis, a region, a brand, an answer such as "don't
// know" that belongs to no scale) among ordered ones, for Learn on the
// ordinal scale (WithScale(Ordinal), or AutoScale when it chooses it): the
// mixed model. The other variables keep the ordinal model's one coupling
// a pair, w_ij·s_i(a)·s_j(b); a declared variable j is coded by the
// indicators of its values, so that its coupling to an ordinal variable i
// is one number a value of j times s_i(a), and to another declared
// variable the full k×k block of Algorithm 2. Node i's conditional law is
// then one regression over all rows: the adjacent-category logit of the
// ordinal model for an ordinal node, the multinomial logit (a softmax over
// its values) for a declared node, each on the others' scores and
// indicators, fitted without constraint by maximum likelihood (with a
// ridge of one row's weight on the couplings where the estimate does not
// exist: values separated by the others). This goes beyond the paper; it
// is the node-wise mixed graphical model of Haslbeck and Waldorp's mgm,
// with ordered answers on the ordinal model rather than as Gaussian or
// categorical. Under AutoScale (the default) the data may add variables
// to the declared ones (see WithScale).
//
// The edge test has one Wald statistic a pair over its couplings (1,
// k_j − 1 or (k_i − 1)(k_j − 1) of them, k_j the values j takes), χ² or
// F with as many degrees of freedom, as a normal score, at the false-edge
// rate over the n(n − 1)/2 pairs, cut by the mixture or the gap rule as on
// the ordinal scale; its small-sample stage is the ordinal scale's EBIC
// graph on these refits, gated by the generalised Cochran–Mantel–Haenszel
// test of independence (Result.Tuning). AutoScale's check reads only the
// pairs of undeclared variables.
//
// The mixed model is fitted by Learn's tuning-free default: with
// WithWidth, WithRadius, WithNodeWidths or WithMinEdgeWeight, and in
// LearnShard and LearnNodes, declaring variables is an OptionError. On
// the nominal scale (WithScale(Nominal), LearnPairwise) every variable is
// nominal and the declaration changes nothing; for k = 2 (LearnIsing, or
// Learn on binary samples) neither does it, since a two-valued variable's
// one coupling is the same in both codings. Result.Nominal lists the
// variables fitted as nominal. A variable index out of range, a repeated
// one or an empty list is an OptionError.
func WithNominalVariables(vars ...int) Option {
	return optionFunc(func(c *config) {
		if len(vars) == 0 {
			c.optionError("WithNominalVariables", vars, "no variable given")
			return
		}
		v := slices.Clone(vars)
		slices.Sort(v)
		for x, j := range v {
			if j < 0 {
				c.optionError("WithNominalVariables", vars, fmt.Sprintf("variable %d: want an index from 0", j))
				return
			}
			if x > 0 && v[x-1] == j {
				c.optionError("WithNominalVariables", vars, fmt.Sprintf("variable %d given twice", j))
				return
			}
		}
		c.nominalVars = v
	})
}

// maxScaleCheckCells bounds the cells of all the pairs' tables,
// n(n−1)/2·k², on which AutoScale checks the scale; above it the states
// are nominal unless WithScale(Ordinal).
const maxScaleCheckCells = 1 << 20

// floorAt returns the Ising edge test's floor F at n spins on the support
// model's path: the one set (tests, the merge of sparse parts), else
// selection.SparseFloorAt(n).
func (c *config) floorAt(n int) float64 {
	if c.sparseFloor > 0 {
		return c.sparseFloor
	}
	return selection.SparseFloorAt(n)
}
