package pairwise

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/internal/estimates"
	"github.com/mrfkit/pairwise/internal/selection"
	"github.com/mrfkit/pairwise/solve"
)

// ordinalChosen is the scale as learnWith resolved it: the ordinal model.
func ordinalChosen() Option { return optionFunc(func(c *config) { c.ordinal = true }) }

// resolveScale returns the scale Learn fits to s (k > 2) under opts, and
// the check that chose it under AutoScale (nil otherwise). Each pair's
// table in the check holds the rows that observe both. With detect (Learn
// in one process, neither λ, a radius nor node widths given: where the
// mixed model can be fitted) AutoScale first looks for unordered
// variables among ordered ones (selection.UnorderedVariables); the check
// then reads the pairs of the others, and on the ordinal scale the
// variables found are fitted as nominal (check.found).
func resolveScale(s *Samples, opts []Option, detect bool) (Scale, *scaleCheck) {
	cfg := defaultConfig()
	for _, o := range opts {
		if o != nil {
			o.apply(&cfg)
		}
	}
	if cfg.scale != AutoScale {
		return cfg.scale, nil
	}
	switch {
	case !math.IsNaN(cfg.eta), s.n*(s.n-1)/2*s.k*s.k > maxScaleCheckCells, !cfg.backend().Fast,
		s.incomplete && cfg.missingSet && cfg.missing == MissingAsState:
		return Nominal, nil
	}
	data, scores := s.stages(), ordinalScores(s)
	skip := nominalMask(s.n, cfg.nominalVars)
	var found []int
	if detect && math.IsNaN(cfg.lambda) && math.IsNaN(cfg.radius) && cfg.widths == nil {
		// The rows the fit will read: on the ordinal scale the incomplete
		// ones are dropped.
		d := data
		if s.incomplete {
			if c, _, err := s.DropIncomplete(); err == nil {
				d = c.stages()
			}
		}
		found = selection.UnorderedVariables(d, scores, unorderedAlpha, s.n/3, skip)
		if len(found) > 0 && skip == nil {
			skip = make([]bool, s.n)
		}
		for _, j := range found {
			skip[j] = true
		}
	}
	sums := selection.ScaleStatsSkip(data, scores, skip)
	check := &scaleCheck{association: sums.Association, linear: sums.Association - sums.NonLinear, needed: sums.Needed}
	if check.ordinal() {
		check.found = found
		return Ordinal, check
	}
	return Nominal, check
}

// unorderedAlpha is the family-wise level at which AutoScale takes a
// variable as unordered (selection.UnorderedVariables tests each at
// unorderedAlpha/n): the edge test's default false-edge rate.
const unorderedAlpha = 0.01

// nominalMask returns the n flags of the variables vars, nil for none.
func nominalMask(n int, vars []int) []bool {
	if len(vars) == 0 {
		return nil
	}
	mask := make([]bool, n)
	for _, j := range vars {
		if j >= 0 && j < n {
			mask[j] = true
		}
	}
	return mask
}

// ordinalScores returns s_j(a) (n×k) of the ordinal model: the state scaled to
// [−1, 1] over the states of positive weight that variable j takes, and 0
// for a variable with one state (or none). A state outside the range
// variable j takes (a yes/no item among five-point ones leaves it states 2
// to 4) scores 0: no row holds it, and extrapolated scores (3, 5, 7) would
// only inflate the couplings the model reports for states it never sees
// (a binary item's edge weights 49 times over).
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
			if a := s.At(m, j); a != Missing {
				lo[j], hi[j] = min(lo[j], a), max(hi[j], a)
			}
		}
	}
	scores := make([]float64, n*k)
	for j := 0; j < n; j++ {
		if hi[j] <= lo[j] {
			continue
		}
		mid, half := float64(lo[j]+hi[j])/2, float64(hi[j]-lo[j])/2
		for a := lo[j]; a <= hi[j]; a++ {
			scores[j*k+a] = (float64(a) - mid) / half
		}
	}
	return scores
}

// fitOrdinal is the per-node stage of Learn on the Ordinal scale: node i's
// value pairs regressed on the other variables' scores (see WithScale),
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
		return nil, &OptionError{Func: fn, Option: "WithScale", Value: Ordinal, Reason: err.Error() + " (WithScale(Nominal) fits the k×k blocks with any backend)"}
	}
	r.scores = scores
	n, k := s.n, s.k
	if len(r.cfg.nominalVars) > 0 || r.cfg.multinomial {
		return r.fitMixed(ctx, fn, s)
	}
	radius := r.cfg.regressionRadius(k, false)
	width := func(lambda float64) float64 { return 2 * lambda } // radius 2λ, l1 as Algorithm 1
	logD := math.Log(float64(max(n-1, 1)))
	est := make([]*estimates.Node, n)
	fields := make([]float64, n*k)
	nodes := make([]NodeFit, n)
	err = r.eachNode(ctx, func(ctx context.Context, e *engine.Driver, i int) error {
		if r.spec != nil && r.wantEta && r.widths == nil {
			// Neither λ nor η: the edge test's refit of node i's law is
			// the estimate, and no width is searched (see WithScale).
			if ok := r.ordinalRefitNode(i, est, fields, nodes); ok {
				return nil
			}
		}
		// The value pairs against node i's commonest answer (see
		// WithScale): k − 1 regressions, where all pairs take k(k−1)/2
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
		// Pair (α, β)'s bias is θ_i(α) − θ_i(β); one of them is the
		// reference answer, whose field is 0.
		for t := range tasks {
			task := &tasks[t]
			if delta := scores[i*k+task.Alpha] - scores[i*k+task.Beta]; c[t] > 0 && delta != 0 {
				for j := 0; j < n; j++ {
					if j != i {
						w[j] += c[t] * ws[t][j] / delta
					}
				}
			}
			if task.Alpha == pl.Ref {
				fields[i*k+task.Beta] = -ws[t][i]
			} else {
				fields[i*k+task.Alpha] = ws[t][i]
			}
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

// ordinalRefitNode makes node i's estimate, fields and edge-test
// statistics from the unconstrained refit of its conditional law
// (selection.OrdinalRefit), for the tuning-free default on the ordinal
// scale, and reports whether the refit exists. An answer node i never
// takes gets the field of its rarest answer less ln N: below any answer
// seen once in N rows.
func (r *learnRun) ordinalRefitNode(i int, est []*estimates.Node, fields []float64, nodes []NodeFit) bool {
	data := r.fitted.stages()
	w, se, theta, df, ok := selection.OrdinalRefit(data, i, r.scores)
	if !ok {
		return false
	}
	n, k := r.s.n, r.s.k
	ns := &r.nodes[i]
	ns.lambda = 0 // no width searched
	ns.d = estimates.OrdinalLayout(i, n, k, w, r.scores, false)
	ns.se = estimates.OrdinalLayout(i, n, k, se, r.scores, true)
	ns.df = slices.Repeat([]float64{df}, k)
	est[i] = estimates.Sparse(k, estimates.OrdinalLayout(i, n, k, w, r.scores, false), estimates.ZeroBlock(k))
	refitFields(fields[i*k:(i+1)*k], theta, r.fitted.total)
	// Newton's method stopped at a decrement below 1e-12: Gap 0 stands
	// for that certificate, of the unconstrained problem.
	nodes[i] = NodeFit{Node: i, Regressions: 1, Converged: true, Status: solve.GapBelowTol}
	return true
}

// fitMixed is fitOrdinal for the mixed model (WithNominalVariables, or
// every variable nominal for the nominal scale's multinomial default,
// multinomial.go): each node's law refitted without constraint on all
// rows (selection.MixedRefit), which is both the estimate and the edge
// test's.
func (r *learnRun) fitMixed(ctx context.Context, fn string, s *Samples) (*fitted, error) {
	switch {
	case r.cfg.multinomial:
		// The nominal default: multinomialDefault allowed it, in one
		// process or in shards.
	case fn != "Learn":
		return nil, &OptionError{Func: fn, Option: "WithNominalVariables", Value: r.cfg.nominalVars, Reason: "the mixed model is fitted by Learn in one process, not by its shards"}
	case r.spec == nil || !r.wantEta || r.widths != nil:
		return nil, &OptionError{Func: fn, Option: "WithNominalVariables", Value: r.cfg.nominalVars, Reason: "the mixed model is fitted by Learn's tuning-free default: drop WithWidth, WithRadius, WithNodeWidths and WithMinEdgeWeight, or use WithScale(Nominal)"}
	}
	n, k := s.n, s.k
	data := r.fitted.stages()
	mask := nominalMask(n, r.cfg.nominalVars)
	if r.cfg.multinomial {
		mask = slices.Repeat([]bool{true}, n)
	}
	v := selection.NewMixedVars(data, r.scores, mask)
	r.mixed, r.mixFits = v, make([]*selection.MixedFit, n)
	est := make([]*estimates.Node, n)
	fields := make([]float64, n*k)
	nodes := make([]NodeFit, n)
	cols := make([][]int, n)
	for i := range cols {
		for j := 0; j < n; j++ {
			if j != i {
				cols[i] = append(cols[i], j)
			}
		}
	}
	err := r.eachNode(ctx, func(ctx context.Context, _ *engine.Driver, i int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		nodes[i] = NodeFit{Node: i, Regressions: 1}
		f, ok := selection.MixedRefit(data, i, v, cols[i], nil, mixedRefitTol, 0)
		if !ok {
			f, ok = selection.MixedRefit(data, i, v, cols[i], nil, mixedRefitTol, selection.MixedRidge)
		}
		ns := &r.nodes[i]
		ns.lambda = 0 // no width searched
		if !ok {
			// No estimate even with the ridge (a node with one value is
			// constant and folded below): its pairs score 0.
			est[i] = estimates.New(k, estimates.ZeroBlock(k))
			ns.d, ns.se = make([]float64, n*k*k), make([]float64, n*k*k)
			ns.df = make([]float64, k)
			nodes[i].Converged = len(v.Values[i]) < 2
			return nil
		}
		r.mixFits[i] = f
		blocks, se, theta := f.Layout(v)
		ns.d, ns.se = blocks, se
		ns.df = slices.Repeat([]float64{f.DF}, k)
		est[i] = estimates.Sparse(k, slices.Clone(blocks), estimates.ZeroBlock(k))
		refitFields(fields[i*k:(i+1)*k], theta, r.fitted.total)
		// Newton's method stopped at a decrement below mixedRefitTol:
		// Gap 0 stands for that certificate, of the unconstrained (or
		// ridge) problem.
		nodes[i].Converged, nodes[i].Status = true, solve.GapBelowTol
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, f := range r.mixFits {
		if f != nil && f.Ridge > 0 {
			r.ridged = append(r.ridged, i)
		}
	}
	foldConstant(s, est, fields, nodes) // constant.go
	return &fitted{r: r, k: k, est: est, fields: fields, nodes: nodes, radius: math.NaN()}, nil
}

// mixedRefitTol is the mixed refit's stopping rule, the ordinal refit's:
// the predicted gain in mean log-likelihood of one more Newton step below
// 1e-12.
const mixedRefitTol = 1e-12

// refitFields writes a refit's fields θ̂_i(a) into dst: an answer node i
// never takes (NaN in theta) gets the field of its rarest answer less
// ln N, below any answer seen once in N rows (total).
func refitFields(dst, theta []float64, total float64) {
	low := math.Inf(1)
	for _, t := range theta {
		if !math.IsNaN(t) {
			low = math.Min(low, t)
		}
	}
	for a, t := range theta {
		if math.IsNaN(t) {
			t = low - math.Log(math.Max(total, 2))
		}
		dst[a] = t
	}
}
