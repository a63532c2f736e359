package pairwise

import (
	"context"
	"fmt"
	"math"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/internal/estimates"
)

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
	foldConstant(s, est, fields, nodes) // constant.go
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
		moved += estimates.Centre(w[j*k : (j+1)*k])
	}
	for b := 0; b < k; b++ {
		w[bias*k+b] += moved
	}
}
