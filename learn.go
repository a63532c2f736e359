package pairwise

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise/solve"
)

// Result is what a learner returns: the learned model, the learned graph Ĝ
// and per-node diagnostics.
type Result struct {
	// Model holds the learned couplings of the edges in Edges, symmetrised
	// as (Ŵ_ij + Ŵ_ji^T)/2 (the average of node i's and node j's
	// estimates), and the learned fields, centred. Pairs that are not in
	// Edges have no coupling. For k = 2 the couplings have the Ising form
	// [[Â, -Â], [-Â, Â]].
	Model *Model
	// Edges is the learned graph Ĝ: the pairs I < J whose symmetrised
	// estimate has weight max_{a,b} |Ŵ_IJ(a, b)| ≥ η/2 (see
	// WithSymmetrization for the And and Or rules), sorted by (I, J).
	Edges []Edge
	// Width and MinEdgeWeight are the λ and η the learner used (Width is
	// NaN when WithRadius replaced it).
	Width, MinEdgeWeight float64
	// Radius is the constraint radius of the regressions: 2λ (Ising
	// path), 2λ√k (pairwise path), or the one given by WithRadius; NaN
	// when a Selection chose a width λ_i per node (NodeFit.Width).
	Radius float64
	// Nodes holds one entry per node i: how its regressions ended.
	Nodes []NodeFit
	// Tuning reports the widths and the edge test chosen from the data
	// when WithWidth or WithMinEdgeWeight was not given; nil otherwise.
	Tuning *Tuning

	n, k int
	est  [][]float64 // est[i][j*k*k + a*k + b] = Ŵ_ij(a, b) from node i's regressions
}

// NodeFit describes the regressions of one node: one for the Ising path,
// one per value pair α < β for the pairwise path.
type NodeFit struct {
	Node        int
	Regressions int     // regressions solved (pairs skipped for lack of data not counted)
	Iterations  int     // total solver iterations
	Loss        float64 // largest final loss L(ŵ) among the regressions
	Gap         float64 // largest duality-gap certificate: every L(ŵ) - L* ≤ Gap
	Converged   bool    // every regression certified the tolerance
	Width       float64 // λ_i chosen for this node by the Selection; 0 when WithWidth was given
	// EmptyPairs counts the value pairs (α, β) with no sample where z_i is α
	// or β; their U^{α,β} is taken as zero. OneLabelPairs counts the pairs
	// whose samples all have the same one of the two values; their
	// regression is solved in closed form (all of the radius on the bias).
	EmptyPairs, OneLabelPairs int
}

// Estimate returns Ŵ_ij as estimated from node i's regressions alone, before
// symmetrisation and thresholding (for k = 2 the Ising form
// [[Â_ij, -Â_ij], [-Â_ij, Â_ij]]). It returns a zero matrix for i == j and
// panics if i or j is out of range.
func (r *Result) Estimate(i, j int) *mat.Dense {
	if i < 0 || i >= r.n || j < 0 || j >= r.n {
		panic(fmt.Sprintf("pairwise: Estimate(%d, %d) out of range [0, %d)", i, j, r.n))
	}
	kk := r.k * r.k
	d := mat.NewDense(r.k, r.k, nil)
	copy(d.RawMatrix().Data, r.est[i][j*kk:(j+1)*kk])
	return d
}

// Learn learns the graph and the couplings from samples: the Ising path
// (LearnIsing, Algorithm 1) for k = 2 and the pairwise path (LearnPairwise,
// Algorithm 2) for k > 2.
func Learn(s *Samples, opts ...Option) (*Result, error) {
	return LearnContext(context.Background(), s, opts...)
}

// LearnContext is Learn with cancellation: it returns ctx.Err() promptly
// once ctx is done.
func LearnContext(ctx context.Context, s *Samples, opts ...Option) (*Result, error) {
	if s == nil {
		return nil, errors.New("pairwise: Learn: nil samples")
	}
	if s.k == 2 {
		return LearnIsingContext(ctx, s, opts...)
	}
	return LearnPairwiseContext(ctx, s, opts...)
}

// prepare validates the common inputs and applies the options.
func prepare(fn string, s *Samples, opts []Option) (config, error) {
	cfg := defaultConfig()
	if s == nil {
		return cfg, fmt.Errorf("pairwise: %s: nil samples", fn)
	}
	if s.rows == 0 || s.total <= 0 {
		return cfg, errorOf(ErrNoSamples, "pairwise: %s: no samples", fn)
	}
	for x, o := range opts {
		if o == nil {
			return cfg, fmt.Errorf("pairwise: %s: option %d is nil", fn, x)
		}
		o.apply(&cfg)
	}
	if len(cfg.errs) > 0 {
		return cfg, errors.Join(cfg.errs...)
	}
	return cfg, cfg.selectDefaults(fn, s) // selection.go: choose λ and η from the data when not given
}

// forEachNode runs fit(i) for every node on cfg.workers goroutines, reports
// progress, and stops early on the first error or when ctx is done. fit must
// write its results only to slots owned by node i, so the outcome does not
// depend on the number of workers.
func forEachNode(parent context.Context, cfg *config, n int, fit func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	var (
		mu    sync.Mutex
		done  int
		first error
		next  int
	)
	if cfg.progress != nil {
		cfg.progress(0, n)
	}
	workers := min(cfg.workers, n)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if first != nil || next >= n {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				err := ctx.Err()
				if err == nil {
					err = fit(ctx, i)
				}
				mu.Lock()
				if err != nil {
					if first == nil {
						first = err
						cancel()
					}
				} else {
					done++
					if cfg.progress != nil {
						cfg.progress(done, n)
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := parent.Err(); err != nil {
		// Report the caller's cancellation as such, not a solver's
		// wrapped view of it.
		return err
	}
	return first
}

// assemble symmetrises the per-node estimates, thresholds them at η/2 with
// the configured rule, and builds the Result. fields[i*k+a] holds θ̂_i(a).
// Its only error is ctx's, when the edge test's refit stage is cancelled.
func assemble(ctx context.Context, cfg *config, n, k int, est [][]float64, fields []float64, nodes []NodeFit) (*Result, error) {
	if cfg.sel != nil {
		return cfg.sel.assemble(ctx, cfg, n, k, est, fields, nodes) // selection.go
	}
	kk := k * k
	m, _ := NewModel(n, k)
	copy(m.theta, fields)
	res := &Result{
		Model:         m,
		Width:         cfg.lambda,
		MinEdgeWeight: cfg.eta,
		Nodes:         nodes,
		n:             n,
		k:             k,
		est:           est,
	}
	half := cfg.eta / 2
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			wij := est[i][j*kk : (j+1)*kk]
			wji := est[j][i*kk : (i+1)*kk]
			avg := make([]float64, kk)
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					avg[a*k+b] = (wij[a*k+b] + wji[b*k+a]) / 2
				}
			}
			weight := maxAbs(avg)
			var keep bool
			switch cfg.symmetric {
			case And:
				keep = maxAbs(wij) >= half && maxAbs(wji) >= half
			case Or:
				keep = maxAbs(wij) >= half || maxAbs(wji) >= half
			default:
				keep = weight >= half
			}
			if keep && weight > 0 {
				m.setCoupling(i, j, avg)
				res.Edges = append(res.Edges, Edge{I: i, J: j, Weight: weight})
			}
		}
	}
	return res, nil
}

// noteStats folds one regression's stats into a node's fit.
func (f *NodeFit) noteStats(st solve.Stats) {
	f.Regressions++
	f.Iterations += st.Iterations
	f.Loss = math.Max(f.Loss, st.Loss)
	f.Gap = math.Max(f.Gap, st.Gap)
	if !st.Converged {
		f.Converged = false
	}
}
