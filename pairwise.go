package pairwise

import (
	"context"
	"fmt"
	"math"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/internal/estimates"
)

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
	if ctx == nil {
		return nil, nilContext("LearnPairwiseContext")
	}
	return learnPairwise(ctx, "LearnPairwise", s, opts)
}

// learnPairwise is LearnPairwiseContext called as fn, the learner its
// errors name (Learn hands its k > 2 samples here).
func learnPairwise(ctx context.Context, fn string, s *Samples, opts []Option) (*Result, error) {
	if s != nil && s.incomplete {
		return learnIncomplete(ctx, fn, s, opts) // missing.go
	}
	f, err := fitPairwise(ctx, fn, s, opts, nil)
	if err != nil {
		return nil, err
	}
	return f.r.assemble(ctx, f.k, f.est, f.fields, f.nodes, f.radius)
}

// fitPairwise is the per-node stage of LearnPairwise: it fits the nodes
// only (all of them when only is nil) and returns their estimates, before
// the stages that look at all nodes.
func fitPairwise(ctx context.Context, fn string, s *Samples, opts []Option, only []int) (*fitted, error) {
	r, err := newRun(fn, s, opts, false)
	if err != nil {
		return nil, err
	}
	r.only = only
	defer r.stop()
	n, k := s.n, s.k
	kk := k * k
	radius := r.cfg.regressionRadius(k, true)
	width := func(lambda float64) float64 { return 2 * lambda * math.Sqrt(float64(k)) } // radius 2λ√k
	logD := math.Log(float64(max(n-1, 1) * (k - 1)))
	est := make([]*estimates.Node, n)
	fields := make([]float64, n*k)
	nodes := make([]NodeFit, n)
	err = r.eachNode(ctx, func(ctx context.Context, e *engine.Driver, i int) error {
		tasks, empty, oneLabel := e.PairTasks(i)
		fit := NodeFit{Node: i, Converged: true, EmptyPairs: empty, OneLabelPairs: len(oneLabel)}
		ws, err := r.fitNode(ctx, e, i, tasks, radius, width, float64(k-1), logD, &fit)
		if err != nil {
			return fmt.Errorf("pairwise: %s: node %d, %w", fn, i, err)
		}
		nodes[i] = fit
		// The solution of every value pair α < β, in order: a task's, or
		// the closed form of a pair whose rows all have one of the two
		// values (the whole radius on the bias).
		sol := make(map[int][]float64, len(tasks)+len(oneLabel))
		for t := range tasks {
			sol[tasks[t].Alpha*k+tasks[t].Beta] = ws[t]
		}
		nodeRadius := radius // the closed form's radius: see LearnPairwise
		if r.widths != nil {
			nodeRadius = width(r.widths[i])
		}
		for _, ol := range oneLabel {
			w := make([]float64, n*k)
			w[i*k] = float64(ol[1]) * nodeRadius
			sol[ol[0]] = w
		}
		// sumU[j*kk + α*k + b] accumulates Σ_β U^{α,β}(j, b); row i holds
		// the bias row.
		sumU := make([]float64, n*kk)
		for alpha := 0; alpha < k; alpha++ {
			for beta := alpha + 1; beta < k; beta++ {
				w, ok := sol[alpha*k+beta]
				if !ok {
					continue // no rows: U^{α,β} = 0
				}
				centreRows(w, n, k, i)
				// U^{α,β} adds to row α, U^{β,α} = -U^{α,β} to row β.
				for j := 0; j < n; j++ {
					for b := 0; b < k; b++ {
						u := w[j*k+b]
						sumU[j*kk+alpha*k+b] += u
						sumU[j*kk+beta*k+b] -= u
					}
				}
			}
		}
		ei := make([]float64, n*kk)
		for j := 0; j < n; j++ {
			if j == i {
				continue
			}
			for x := 0; x < kk; x++ {
				ei[j*kk+x] = sumU[j*kk+x] / float64(k)
			}
		}
		est[i] = estimates.Sparse(k, ei, estimates.ZeroBlock(k))
		for a := 0; a < k; a++ {
			fields[i*k+a] = sumU[i*kk+a*k] / float64(k)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	foldConstant(s, est, fields, nodes) // degenerate.go
	return &fitted{r: r, k: k, est: est, fields: fields, nodes: nodes, radius: radius}, nil
}

// centreRows turns w (n×k, row i the bias row) into U of equation (9):
// every row j ≠ i loses its mean, and the bias row gains the sum of those
// means, so that ⟨U, x⟩ = ⟨w, x⟩ for every one-hot x.
func centreRows(w []float64, n, k, bias int) {
	moved := 0.0
	for j := 0; j < n; j++ {
		if j == bias {
			continue
		}
		moved += centre(w[j*k : (j+1)*k])
	}
	for b := 0; b < k; b++ {
		w[bias*k+b] += moved
	}
}

// centre subtracts the mean of v from each entry and returns the mean.
func centre(v []float64) float64 {
	mean := 0.0
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for a := range v {
		v[a] -= mean
	}
	return mean
}
