package pairwise

import (
	"context"
	"fmt"

	"github.com/mrfkit/pairwise/solve"
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
// default solver is GroupMirror (Algorithm 4) with the Adaptive schedule.
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
func LearnPairwise(s *Samples, opts ...Option) (*Result, error) {
	return LearnPairwiseContext(context.Background(), s, opts...)
}

// LearnPairwiseContext is LearnPairwise with cancellation: it returns
// ctx.Err() promptly once ctx is done.
func LearnPairwiseContext(ctx context.Context, s *Samples, opts ...Option) (*Result, error) {
	const fn = "LearnPairwise"
	cfg, err := prepare(fn, s, opts)
	if err != nil {
		return nil, err
	}
	if s.k > 256 {
		return nil, &AlphabetError{Func: fn, K: s.k, Min: 2, Max: 256}
	}
	n, k := s.n, s.k
	kk := k * k
	radius := cfg.regressionRadius(k, true)
	// The fast path (learn_fast.go) with the default backend, else the
	// configured solver on the plain layout; data are the rows it reads.
	var fast *pairFast
	if cfg.fastOneHot() {
		fast = newPairFast(&cfg, s, radius)
	}
	data := s
	nodeCfg := cfg // the nodes' schedule: cfg's workers, or one node at a time
	var solver solve.Solver[solve.OneHot]
	if fast != nil {
		data = fast.s
		if data.rows >= rowSplitMin {
			// As on the Ising path (rowsplit.go): one node at a time,
			// the workers splitting the rows of each value pair.
			fast.team = newRowTeam(cfg.workers)
			defer fast.team.stop()
			nodeCfg.workers = 1
		}
	} else {
		solver = cfg.oneHot
		if solver == nil {
			b := cfg.solver
			if b == nil {
				b = GroupMirror{}
			}
			solver = b.oneHotSolver()
		}
	}

	est := make([][]float64, n)
	fields := make([]float64, n*k)
	nodes := make([]NodeFit, n)
	err = forEachNode(ctx, &nodeCfg, n, func(ctx context.Context, i int) error {
		// byValue[a] lists the rows with z_i = a.
		byValue := make([][]int32, k)
		for m := 0; m < data.rows; m++ {
			if data.weights != nil && data.weights[m] == 0 {
				continue
			}
			a := data.b8[m*n+i]
			byValue[a] = append(byValue[a], int32(m))
		}
		var pn *pairNode
		if fast != nil {
			pn = fast.node(i)
			defer pn.done()
		}
		fit := NodeFit{Node: i, Converged: true}
		// sumU[j*kk + α*k + b] accumulates Σ_β U^{α,β}(j, b); row i holds
		// the bias row.
		sumU := make([]float64, n*kk)
		var z []uint8
		var y, c []float64
		w := make([]float64, n*k)
		for alpha := 0; alpha < k; alpha++ {
			for beta := alpha + 1; beta < k; beta++ {
				na, nb := len(byValue[alpha]), len(byValue[beta])
				for x := range w {
					w[x] = 0
				}
				switch {
				case na+nb == 0:
					fit.EmptyPairs++
					continue
				case na == 0 || nb == 0:
					fit.OneLabelPairs++
					sign := 1.0
					if na == 0 {
						sign = -1
					}
					w[i*k] = sign * radius
				case pn != nil:
					st, err := pn.solve(ctx, alpha, beta, byValue[alpha], byValue[beta], w)
					if err != nil {
						return fmt.Errorf("pairwise: %s: node %d, values (%d, %d): %w", fn, i, alpha, beta, err)
					}
					fit.noteStats(st)
				default:
					z, y, c = gatherPair(data, i, byValue[alpha], byValue[beta], z[:0], y[:0], c[:0])
					p := &solve.Problem[solve.OneHot]{
						X:       solve.OneHot{Z: z, Groups: n, K: k, Bias: i},
						Y:       y,
						C:       c,
						Radius:  radius,
						Tol:     cfg.tol,
						MaxIter: cfg.maxIter,
					}
					st, err := solver.Solve(ctx, p, w)
					if err != nil {
						return fmt.Errorf("pairwise: %s: node %d, values (%d, %d): %w", fn, i, alpha, beta, err)
					}
					fit.noteStats(st)
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
		e := make([]float64, n*kk)
		for j := 0; j < n; j++ {
			if j == i {
				continue
			}
			for x := 0; x < kk; x++ {
				e[j*kk+x] = sumU[j*kk+x] / float64(k)
			}
		}
		est[i] = e
		for a := 0; a < k; a++ {
			fields[i*k+a] = sumU[i*kk+a*k] / float64(k)
		}
		if fit.Regressions == 0 {
			fit.Converged = true
		}
		nodes[i] = fit
		return nil
	})
	if err != nil {
		return nil, err
	}
	res, err := assemble(ctx, &cfg, n, k, est, fields, nodes)
	if err != nil {
		return nil, err
	}
	res.Radius = cfg.resultRadius(radius)
	return res, nil
}

// gatherPair copies the rows of the pair, in their original order, into the
// one-hot states z, the labels y (+1 where z_i = α, -1 where z_i = β) and the
// weights c (nil when the samples are unweighted). Keeping the sample order
// matters to online backends such as Sparsitron.
func gatherPair(s *Samples, i int, rowsA, rowsB []int32, z []uint8, y, c []float64) ([]uint8, []float64, []float64) {
	n := s.n
	add := func(m int32, label float64) {
		z = append(z, s.b8[int(m)*n:int(m+1)*n]...)
		y = append(y, label)
		if s.weights != nil {
			c = append(c, s.weights[m])
		}
	}
	a, b := 0, 0
	for a < len(rowsA) || b < len(rowsB) {
		if b == len(rowsB) || (a < len(rowsA) && rowsA[a] < rowsB[b]) {
			add(rowsA[a], 1)
			a++
		} else {
			add(rowsB[b], -1)
			b++
		}
	}
	if s.weights == nil {
		c = nil
	}
	return z, y, c
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
		row := w[j*k : (j+1)*k]
		mean := 0.0
		for _, v := range row {
			mean += v
		}
		mean /= float64(k)
		for b := range row {
			row[b] -= mean
		}
		moved += mean
	}
	for b := 0; b < k; b++ {
		w[bias*k+b] += moved
	}
}
