package pairwise

import (
	"context"
	"fmt"
	"math"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/internal/estimates"
	"github.com/mrfkit/pairwise/internal/selection"
)

// WithOrdinal makes Learn fit the ordinal pairwise model to samples with
// k > 2 states, for ordered answers (Likert items, counts, grades):
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
// of a score, not a coefficient. Tuning.Ordinal reports the model.
//
// Use it when the answers are ordered and their effects roughly linear
// in the answer: a coupling that is not (an answer that goes with its
// neighbour's middle values, a Potts model's k×k blocks) is seen only
// through its linear part, and its variable may show false edges to the
// variables that carry the rest. The command fits this model by default
// to integer answers with k > 2 (-categorical for the full blocks).
//
// WithOrdinal applies to Learn only (LearnPairwise is Algorithm 2 and
// LearnIsing Algorithm 1: under them it is an OptionError); with k = 2
// Learn runs the Ising path, which is the same model. It needs the
// Accelerated backend (the default). Missing values: the incomplete rows
// are dropped (ListwiseDeletion, the default under WithOrdinal), since a
// missing answer has no score; WithMissing(MissingAsState) is an error.
func WithOrdinal() Option {
	return optionFunc(func(c *config) { c.ordinal = true })
}

// wantsOrdinal reports whether opts hold WithOrdinal (their other effects
// and errors are left to the learner's own reading of them).
func wantsOrdinal(opts []Option) bool {
	cfg := defaultConfig()
	for _, o := range opts {
		if o != nil {
			o.apply(&cfg)
		}
	}
	return cfg.ordinal
}

// ordinalScores returns s_j(a) (n×k) of WithOrdinal: the state scaled to
// [−1, 1] over the states of positive weight that variable j takes, and 0
// for a variable with one state (or none).
func ordinalScores(s *Samples) []float64 {
	n, k := s.n, s.k
	lo, hi := make([]int, n), make([]int, n)
	for j := range lo {
		lo[j], hi[j] = k, -1
	}
	for m := 0; m < s.rows; m++ {
		if s.Weight(m) == 0 {
			continue
		}
		for j := 0; j < n; j++ {
			a := s.At(m, j)
			lo[j], hi[j] = min(lo[j], a), max(hi[j], a)
		}
	}
	scores := make([]float64, n*k)
	for j := 0; j < n; j++ {
		if hi[j] <= lo[j] {
			continue
		}
		mid, half := float64(lo[j]+hi[j])/2, float64(hi[j]-lo[j])/2
		for a := 0; a < k; a++ {
			scores[j*k+a] = (float64(a) - mid) / half
		}
	}
	return scores
}

// fitOrdinal is the per-node stage of Learn under WithOrdinal: node i's
// value pairs regressed on the other variables' scores (see WithOrdinal),
// their coefficients averaged into ŵ_ij, for the nodes only (all when nil).
func fitOrdinal(ctx context.Context, fn string, s *Samples, opts []Option, only []int) (*fitted, error) {
	r, err := newRun(fn, s, opts, false)
	if err != nil {
		return nil, err
	}
	r.only = only
	defer r.stop()
	scores := ordinalScores(r.fitted)
	if err := r.d.SetScores(scores); err != nil {
		return nil, &OptionError{Func: fn, Option: "WithOrdinal", Value: r.cfg.solver, Reason: err.Error()}
	}
	r.scores = scores
	n, k := s.n, s.k
	radius := r.cfg.regressionRadius(k, false)
	width := func(lambda float64) float64 { return 2 * lambda } // radius 2λ, l1 as Algorithm 1
	logD := math.Log(float64(max(n-1, 1)))
	est := make([]*estimates.Node, n)
	fields := make([]float64, n*k)
	nodes := make([]NodeFit, n)
	err = r.eachNode(ctx, func(ctx context.Context, e *engine.Driver, i int) error {
		// The value pairs against node i's commonest answer (see
		// WithOrdinal): k − 1 regressions, where all pairs take k(k−1)/2
		// for the same estimates within their noise.
		pl := e.PlanReferencePairs(i, nil)
		tasks := make([]engine.Task, len(pl.Pairs))
		for p := range pl.Pairs {
			tasks[p] = e.Task(pl, p)
		}
		empty, oneLabel := pl.Empty, pl.OneLabel
		fit := NodeFit{Node: i, Converged: true, EmptyPairs: empty, OneLabelPairs: len(oneLabel)}
		ws, err := r.fitNode(ctx, e, i, tasks, radius, width, 1, logD, &fit)
		if err != nil {
			return fmt.Errorf("pairwise: %s: node %d, %w", fn, i, err)
		}
		nodes[i] = fit
		c := selection.OrdinalPairWeights(tasks, scores, k, nil)
		w := make([]float64, n)
		// θ_i(α) − θ_i(β) is pair (α, β)'s bias; θ_i(a) is their average
		// over β, pairs without rows counting 0, as Algorithm 2 averages.
		for t := range tasks {
			task := &tasks[t]
			if delta := scores[i*k+task.Alpha] - scores[i*k+task.Beta]; c[t] > 0 && delta != 0 {
				for j := 0; j < n; j++ {
					if j != i {
						w[j] += c[t] * ws[t][j] / delta
					}
				}
			}
			fields[i*k+task.Alpha] += ws[t][i] / float64(k)
			fields[i*k+task.Beta] -= ws[t][i] / float64(k)
		}
		est[i] = estimates.Sparse(k, estimates.OrdinalLayout(i, n, k, w, scores, false), estimates.ZeroBlock(k))
		return nil
	})
	if err != nil {
		return nil, err
	}
	foldConstant(s, est, fields, nodes) // constant.go
	return &fitted{r: r, k: k, est: est, fields: fields, nodes: nodes, radius: radius}, nil
}
