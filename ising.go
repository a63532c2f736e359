package pairwise

import (
	"context"
	"fmt"

	"github.com/mrfkit/pairwise/solve"
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
// EntropicMirror (Algorithm 3) with the Adaptive schedule, stopped when the
// duality gap certifies WithTolerance.
//
// With that default (or GroupMirror with the Adaptive schedule) the
// regressions run on a fast path that gives the same certified solutions:
// identical rows are merged into weights, the spins are encoded as byte
// codes of eight variables that turn margins and gradients into table
// reads and histogram updates, and near the optimum the accelerated method
// takes Newton steps on the face of the l1 ball (preconditioned by the
// spins' second moment, computed once through gonum's blas64). Any other
// backend runs on the plain ±1 design of package solve.
func LearnIsing(s *Samples, opts ...Option) (*Result, error) {
	return LearnIsingContext(context.Background(), s, opts...)
}

// LearnIsingContext is LearnIsing with cancellation: it returns ctx.Err()
// promptly once ctx is done.
func LearnIsingContext(ctx context.Context, s *Samples, opts ...Option) (*Result, error) {
	const fn = "LearnIsing"
	cfg, err := prepare(fn, s, opts)
	if err != nil {
		return nil, err
	}
	if s.k != 2 {
		return nil, &AlphabetError{Func: fn, K: s.k, Min: 2, Max: 2}
	}
	n := s.n
	radius := cfg.regressionRadius(2, false)
	// solveNode fits node i's regression into w (zero on entry): on the
	// fast path (learn_fast.go) with the default backends, else with the
	// configured solver on the plain layout.
	var solveNode func(ctx context.Context, i int, w []float64) (solve.Stats, error)
	nodeCfg := cfg // the nodes' schedule: cfg's workers, or one node at a time
	if cfg.fastSpins() {
		if f := newIsingFast(&cfg, s, radius); f != nil {
			solveNode = f.solve
			defer f.stop()
			if f.team != nil {
				nodeCfg.workers = 1 // the workers split the rows instead
			}
		}
	}
	if solveNode == nil && cfg.sel != nil {
		// The selecting solver reads only the node, the radius and the
		// stopping rule of a problem: the data are the selector's, so the
		// ±1 design is not built here.
		sel := cfg.sel
		if sel.fastSpins {
			if d := sel.data(true); d.gc != nil && d.s.rows >= rowSplitMin {
				sel.team = newRowTeam(cfg.workers)
				defer sel.team.stop()
				nodeCfg.workers = 1 // the workers split the rows instead
			}
		}
		solveNode = func(ctx context.Context, i int, w []float64) (solve.Stats, error) {
			p := &solve.Problem[solve.Spins]{
				X:       solve.Spins{Cols: n, Bias: i},
				Radius:  radius,
				Tol:     cfg.tol,
				MaxIter: cfg.maxIter,
			}
			return cfg.spins.Solve(ctx, p, w)
		}
	}
	if solveNode == nil {
		solver := cfg.spins
		if solver == nil {
			b := cfg.solver
			if b == nil {
				b = EntropicMirror{}
			}
			solver = b.spinsSolver()
		}
		enc := encodeSpins(s)
		solveNode = func(ctx context.Context, i int, w []float64) (solve.Stats, error) {
			p := &solve.Problem[solve.Spins]{
				X:       solve.Spins{X: enc.x, Cols: n, Bias: i},
				Y:       enc.column(i),
				C:       enc.c,
				Radius:  radius,
				Tol:     cfg.tol,
				MaxIter: cfg.maxIter,
			}
			return solver.Solve(ctx, p, w)
		}
	}

	est := make([][]float64, n)
	fields := make([]float64, 2*n)
	nodes := make([]NodeFit, n)
	err = forEachNode(ctx, &nodeCfg, n, func(ctx context.Context, i int) error {
		w := make([]float64, n)
		st, err := solveNode(ctx, i, w)
		if err != nil {
			return fmt.Errorf("pairwise: %s: node %d: %w", fn, i, err)
		}
		fit := NodeFit{Node: i, Converged: true}
		fit.noteStats(st)
		nodes[i] = fit
		e := make([]float64, 4*n)
		for j := 0; j < n; j++ {
			if j == i {
				continue
			}
			a := w[j] / 2 // Â_ij = ŵ_j/2 (Algorithm 1, line 4)
			e[4*j], e[4*j+1], e[4*j+2], e[4*j+3] = a, -a, -a, a
		}
		est[i] = e
		t := w[i] / 2 // θ̂_i = ŵ_bias/2 (Fact 1)
		fields[2*i], fields[2*i+1] = -t, t
		return nil
	})
	if err != nil {
		return nil, err
	}
	res, err := assemble(ctx, &cfg, n, 2, est, fields, nodes)
	if err != nil {
		return nil, err
	}
	res.Radius = cfg.resultRadius(radius)
	return res, nil
}

// spinEncoding is the ±1 design shared by all nodes of the Ising path.
type spinEncoding struct {
	n int
	x []float64 // rows*n spins ±1
	c []float64 // row weights, nil when unweighted
}

func encodeSpins(s *Samples) spinEncoding {
	e := spinEncoding{n: s.n, x: make([]float64, s.rows*s.n)}
	for m := 0; m < s.rows; m++ {
		for i := 0; i < s.n; i++ {
			e.x[m*s.n+i] = float64(2*s.At(m, i) - 1)
		}
	}
	if s.weights != nil {
		e.c = s.weights
	}
	return e
}

// column returns the labels y^m = z_i^m.
func (e spinEncoding) column(i int) []float64 {
	rows := len(e.x) / e.n
	y := make([]float64, rows)
	for m := range y {
		y[m] = e.x[m*e.n+i]
	}
	return y
}
