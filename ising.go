package pairwise

import (
	"context"
	"fmt"
	"math"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/internal/estimates"
)

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
	if ctx == nil {
		return nil, nilContext("LearnIsingContext")
	}
	return learnIsing(ctx, "LearnIsing", s, opts)
}

// learnIsing is LearnIsingContext called as fn, the learner its errors
// name (Learn hands its k = 2 samples here).
func learnIsing(ctx context.Context, fn string, s *Samples, opts []Option) (*Result, error) {
	if s != nil && s.incomplete {
		return learnIncomplete(ctx, fn, s, opts) // missing.go
	}
	f, err := fitIsing(ctx, fn, s, opts, nil)
	if err != nil {
		return nil, err
	}
	return f.r.assemble(ctx, 2, f.est, f.fields, f.nodes, f.radius)
}

// fitIsing is the per-node stage of LearnIsing: it fits the nodes only (all
// of them when only is nil) and returns their estimates, before the stages
// that look at all nodes.
func fitIsing(ctx context.Context, fn string, s *Samples, opts []Option, only []int) (*fitted, error) {
	r, err := newRun(fn, s, opts, true)
	if err != nil {
		return nil, err
	}
	r.only = only
	defer r.stop()
	n := s.n
	radius := r.cfg.regressionRadius(2, false)
	width := func(lambda float64) float64 { return 2 * lambda } // radius 2λ
	logD := math.Log(float64(max(n-1, 1)))
	est := make([]*estimates.Node, n)
	fields := make([]float64, 2*n)
	nodes := make([]NodeFit, n)
	err = r.eachNode(ctx, func(ctx context.Context, e *engine.Driver, i int) error {
		fit := NodeFit{Node: i, Converged: true}
		ws, err := r.fitNode(ctx, e, i, []engine.Task{e.SpinTask(i)}, radius, width, 1, logD, &fit)
		if err != nil {
			return fmt.Errorf("pairwise: %s: node %d: %w", fn, i, err)
		}
		nodes[i] = fit
		w := ws[0]
		est[i] = estimates.Ising(i, n, w) // Â_ij = ŵ_j/2 (Algorithm 1, line 4), sparse
		t := w[i] / 2                     // θ̂_i = ŵ_bias/2 (Fact 1)
		fields[2*i], fields[2*i+1] = -t, t
		return nil
	})
	if err != nil {
		return nil, err
	}
	foldConstant(s, est, fields, nodes) // degenerate.go
	return &fitted{r: r, k: 2, est: est, fields: fields, nodes: nodes, radius: radius}, nil
}
