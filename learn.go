package pairwise

import (
	"context"
)

// Learn learns the graph and the couplings from samples: the Ising path
// (LearnIsing, Algorithm 1) for k = 2 and, for k > 2, the pairwise path
// (LearnPairwise, Algorithm 2) on the nominal scale or the ordinal model,
// as WithScale chooses. Without λ and η on the nominal scale it fits the
// node-wise multinomial model, one softmax a node on all rows, where the
// samples allow it (see WithScale).
//
// What is chosen when an option is missing:
//
//   - WithWidth (λ) missing: each node's width λ_i is chosen from the data
//     along a path of widths by the Selection rule, EBIC with γ =
//     DefaultGamma unless WithSelection says otherwise (NodeFit.Width,
//     Result.Tuning).
//   - WithMinEdgeWeight (η) missing: the graph is chosen by the edge test
//     (WaldTest: a Wald statistic a pair at the family-wise false-edge
//     rate DefaultFalseEdgeRate, then, on Ising data, a refit of the
//     screened pairs and a mixture cut, and with few observations the
//     EBIC graph); Result.MinEdgeWeight is the η̂ it implies and
//     Result.Tuning holds the statistics.
//   - Both given: the paper's algorithm, unchanged.
//   - WithSolver: Accelerated, on the fast path, for every k. The paper's
//     mirror descents (EntropicMirror, Algorithm 3, k = 2 only;
//     GroupMirror, Algorithm 4), Sparsitron and Custom are there to
//     reproduce or compare: see Solver for when to use which.
//   - WithTolerance DefaultTolerance, WithMaxIterations
//     DefaultMaxIterations, WithWorkers runtime.GOMAXPROCS(0),
//     WithSymmetrization Average, no progress report.
//   - WithMissing, for samples with missing values: AvailableCase for
//     k = 2, MissingAsState for k > 2 (see Missing); Result.Missing says
//     what was done.
//
// Result.Model carries the samples' variable names (Samples.Names).
func Learn(s *Samples, opts ...Option) (*Result, error) {
	return LearnContext(context.Background(), s, opts...)
}

// LearnContext is Learn with cancellation: it returns ctx.Err() promptly
// once ctx is done. The options and their defaults (the solver
// Accelerated) are Learn's. A nil ctx is an error (pass
// context.Background() for none).
func LearnContext(ctx context.Context, s *Samples, opts ...Option) (*Result, error) {
	return learnWith(ctx, "Learn", s, opts)
}

// LearnIsing learns an Ising model with Algorithm 1 of the paper. For every
// node i it solves the l1-constrained logistic regression of the spin z_i on
// x = [z_-i, 1] (equation (3)),
//
//	ŵ ∈ argmin_w Σ_m c_m ln(1 + exp(-z_i^m ⟨w, x^m⟩)) / Σ_m c_m   s.t. ‖w‖_1 ≤ 2λ,
//
// where the bias (the field) is inside the l1 budget as in Fact 1, and sets
// Â_ij = ŵ_j/2 and θ̂_i = ŵ_bias/2. The graph keeps the pairs with
// |Â_ij| ≥ η/2 after symmetrisation (see Result).
//
// The samples must have k = 2 (spins -1, +1 as states 0, 1). With both
// WithWidth (λ) and WithMinEdgeWeight (η) this is the paper's algorithm;
// without them λ_i is chosen per node and the graph by an edge test (see
// Selection and Tuning). The default solver is
// Accelerated, stopped when the duality gap certifies WithTolerance;
// WithSolver chooses another backend (the paper's EntropicMirror,
// Algorithm 3, GroupMirror, Sparsitron or Custom: see Solver for when to
// use which).
//
// With that default the regressions run on a fast path that gives the same certified solutions:
// identical rows are merged into weights, the spins are encoded as byte
// codes of eight variables that turn margins and gradients into table
// reads and histogram updates, and near the optimum the accelerated method
// takes Newton steps on the face of the l1 ball (preconditioned by the
// spins' second moment, computed once through gonum's blas64). From 400
// variables on, each node's regression is solved on a small working set of
// variables that grows until the duality gap of the full problem, computed
// over all n − 1 variables, certifies WithTolerance: the same certificate,
// with a cost that follows the node's support more than n, and without the
// n×n second moment. Any other backend runs on the plain ±1 design of
// package solve.
//
// Samples with missing values are learned by AvailableCase unless
// WithMissing says otherwise (see Missing).
func LearnIsing(s *Samples, opts ...Option) (*Result, error) {
	return LearnIsingContext(context.Background(), s, opts...)
}

// LearnIsingContext is LearnIsing with cancellation: it returns ctx.Err()
// promptly once ctx is done. The options and their defaults (the solver
// Accelerated) are LearnIsing's. A nil ctx is an error (pass
// context.Background() for none).
func LearnIsingContext(ctx context.Context, s *Samples, opts ...Option) (*Result, error) {
	return learnWith(ctx, "LearnIsing", s, opts)
}

// LearnPairwise learns a pairwise model over the alphabet 0..k-1 with
// Algorithm 2 of the paper. For every node i and every value pair α < β it
// takes the samples with z_i ∈ {α, β}, labels them y = +1 for α and -1 for β,
// and solves the l2,1-constrained logistic regression on the one-hot encoding
// x ∈ {0,1}^{n×k} of [z_-i, 1] (equation (8)),
//
//	w^{α,β} ∈ argmin_w Σ c_m ln(1 + exp(-y_m ⟨w, x_m⟩)) / Σ c_m   s.t. ‖w‖_{2,1} ≤ 2λ√k.
//
// It centres the first n-1 rows of w^{α,β} into U^{α,β} (equation (9), with
// the removed means added to the bias row), sets U^{β,α} = -U^{α,β} and
// U^{α,α} = 0, and estimates
//
//	Ŵ_ij(α, :) = (1/k) Σ_β U^{α,β}(j, :),   θ̂_i(α) = (1/k) Σ_β U^{α,β}(bias, 0),
//
// the second by the same argument as the first, since the true field is
// centred. The graph keeps the pairs with max_{a,b} |Ŵ_ij(a, b)| ≥ η/2 after
// symmetrisation (see Result).
//
// Pairs without enough data: when no sample has z_i ∈ {α, β}, nothing can be
// said about the difference between α and β, and U^{α,β} is taken as zero
// (counted in NodeFit.EmptyPairs). When the samples all have z_i = α (or all
// β), the regression is solved exactly in closed form: the whole radius goes
// to the bias, w = ±2λ√k·e_bias, and the coupling rows are zero (counted in
// NodeFit.OneLabelPairs). Both happen only when a value is very rare, and
// the estimates of that value's rows are then unreliable.
//
// Any k from 2 to 256 is accepted; for k = 2 the result agrees with
// LearnIsing up to the solver tolerance. With both WithWidth (λ) and
// WithMinEdgeWeight (η) this is the paper's algorithm; without them λ_i is
// chosen per node and the graph by an edge test (see Selection and Tuning).
// When the widths are chosen, the closed form of a one-label pair uses the
// radius of a provisional width λ = 1, not λ_i: such pairs mean a value
// is nearly unseen, and its field estimate is arbitrary either way. The
// default solver is Accelerated, stopped when the duality gap certifies
// WithTolerance; WithSolver chooses another backend (the paper's
// GroupMirror, Algorithm 4, Sparsitron or Custom: see Solver for when to
// use which; EntropicMirror takes only k = 2).
//
// With that default the regressions run on a fast path that gives the same
// certified solutions: identical rows are merged into weights, the states
// are encoded as codes of a few variables that turn margins and gradients
// into table reads and histogram updates, the pair (α, β) with α ≥ 1 starts
// from w^{0,β} − w^{0,α}, small problems take Newton steps (their
// optimum is usually inside the l2,1 ball), and near the optimum of the
// others the accelerated method takes Newton steps on the face of the ball.
// Any other backend runs on the plain one-hot layout of package solve, on
// the rows in their order.
//
// Samples with missing values are learned by MissingAsState unless
// WithMissing says ListwiseDeletion (see Missing).
func LearnPairwise(s *Samples, opts ...Option) (*Result, error) {
	return LearnPairwiseContext(context.Background(), s, opts...)
}

// LearnPairwiseContext is LearnPairwise with cancellation: it returns
// ctx.Err() promptly once ctx is done. The options and their defaults (the
// solver Accelerated) are LearnPairwise's. A nil ctx is an error (pass
// context.Background() for none).
func LearnPairwiseContext(ctx context.Context, s *Samples, opts ...Option) (*Result, error) {
	return learnWith(ctx, "LearnPairwise", s, opts)
}
