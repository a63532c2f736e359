package pairwise

import (
	"context"
	"fmt"
	"math"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/internal/estimates"
	"github.com/mrfkit/pairwise/internal/selection"
	"github.com/mrfkit/pairwise/solve"
)

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
	if err := r.checkDenseTest(fn, true); err != nil {
		return nil, err
	}
	n := s.n
	radius := r.cfg.regressionRadius(2, false)
	width := func(lambda float64) float64 { return 2 * lambda } // radius 2λ
	logD := math.Log(float64(max(n-1, 1)))
	est := make([]*estimates.Node, n)
	fields := make([]float64, 2*n)
	nodes := make([]NodeFit, n)
	if r.useSparse() {
		r.sparseState = newSparseRun(n, sparseEnv{
			s: s, data: r.fitted.stages(), workers: r.cfg.workers, each: r.eachNodeQuiet, lowKeep: r.cfg.lowKeep, floor: r.cfg.floorAt(n), all: r.cfg.sparseAll,
			driver: func() (*engine.Driver, func()) {
				wk := r.pool.Get()
				return r.driver(wk), func() { r.pool.Put(wk) }
			},
		})
		if r.only != nil {
			// A shard: the nodes of other shards never run their first
			// pass here, so no request is left for them; the merge's
			// second pass fetches their partner entries (shard.go).
			r.sparseState.elsewhere(r.only)
		}
	}
	if r.wantEta && selection.SupportWald(r.fitted.stages(), r.cfg.waldDense) {
		r.coefs = make([]float64, n)
	}
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
		if r.coefs != nil {
			r.coefs[i] = selection.SupportCoefficients(w, i) // its statistics' events rule
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	foldConstant(s, est, fields, nodes) // constant.go
	return &fitted{r: r, k: 2, est: est, fields: fields, nodes: nodes, radius: radius}, nil
}

// eachNodeQuiet runs f for every node on the run's workers, each with a
// driver of its own, without reporting progress.
func (r *learnRun) eachNodeQuiet(ctx context.Context, f func(e *engine.Driver, i int)) error {
	sched := r.cfg
	sched.progress = nil
	return forEachNode(ctx, &sched, r.s.n, func(ctx context.Context, i int) error {
		wk := r.pool.Get()
		defer r.pool.Put(wk)
		f(r.driver(wk), i)
		return ctx.Err()
	})
}

// driver returns a driver of the run's data on the scratch wk.
func (r *learnRun) driver(wk *engine.Work) *engine.Driver {
	return &engine.Driver{Backend: r.b, Data: r.d, Settings: solve.Settings{Tol: r.cfg.tol, MaxIter: r.cfg.maxIter}, Work: wk, Ridge: r.cfg.ridge}
}
