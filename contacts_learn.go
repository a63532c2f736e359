package pairwise

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/mrfkit/pairwise/internal/dca"
	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/solve"
	"gonum.org/v1/gonum/mat"
)

// Defaults of LearnContacts, chosen by measurement on the synthetic and
// real families of docs/contacts (README.md there has the numbers).
const (
	// DefaultContactRidge is ρ of WithRidge for LearnContacts, in
	// effective sequences: each value-pair regression of a node minimises
	// its weighted logistic loss plus (ρ/2)·‖w‖². It keeps the couplings
	// of rare amino acids small.
	DefaultContactRidge = 64.0
	// DefaultContactWidth is λ of WithWidth for LearnContacts: the l2,1
	// radius 2λ√k of the value-pair regressions. With the ridge it is
	// rarely active.
	DefaultContactWidth = 8.0
	// DefaultContactTolerance is the certified optimality gap of every
	// value-pair regression of LearnContacts (WithTolerance): looser than
	// DefaultTolerance, because the ranking of the pairs does not move
	// (the top-L pairs of the families in docs/contacts are the same at
	// 1e-4 as at 1e-6) while the fits take fewer iterations.
	DefaultContactTolerance = 1e-4
)

// WithIgnoreGap sets how LearnContacts treats state 0, the gap of an
// alignment's alphabet: when on (the default of LearnContacts), the value
// pairs of a node that involve the gap are not fitted (the rows where
// z_i is a gap take no part in node i's regressions, as plmc's -g ignores
// them) and the gap's row and column are left out of the scores; when off,
// state 0 is a state like any other. Learn and LearnPairwise ignore it.
func WithIgnoreGap(on bool) Option {
	return optionFunc(func(c *config) {
		if on {
			c.gap = gapIgnore
		} else {
			c.gap = gapKeep
		}
	})
}

// WithReferencePairs sets which value pairs LearnContacts fits at each
// node: when on, only the k'−1 pairs of the node's reference value (the
// value of largest weight) with each other value, whose log-odds against
// the reference give every other pair's by difference, as a multinomial
// regression with a reference category does (Begg and Gray's individual
// regressions); when off, all k'(k'−1)/2 pairs of Algorithm 2, averaged as
// in equation (9). k' is k, or k−1 with the gap ignored. On is the default
// of LearnContacts: at k = 21 it fits 19 regressions a column instead of
// 190, in a third of the time or less, and ranked contacts of the protein
// families of docs/contacts as well. Learn and LearnPairwise ignore it.
func WithReferencePairs(on bool) Option {
	return optionFunc(func(c *config) {
		if on {
			c.refPairs = refPairsOn
		} else {
			c.refPairs = refPairsOff
		}
	})
}

// WithSoftmax sets whether LearnContacts fits each node by one
// multinomial (softmax) regression over its k' states (k' = k−1 with the
// gap ignored, else k) on every sequence where the node holds one of them,
// the conditional likelihood of pseudo-likelihood methods, instead of
// value-pair regressions (WithReferencePairs). On is the default, unless
// WithReferencePairs is given without WithSoftmax: the softmax was more
// precise than the value pairs on the choice families of docs/contacts
// (mean precision of the top L pairs 0.69 against 0.63). Its couplings carry the
// ridge (ρ/2)·‖W‖² of WithRidge, its fields (ρ_h/2)·‖h‖² of WithFieldRidge,
// both in effective sequences; without WithRidge, ρ is
// DefaultSoftmaxRidge. There is no l2,1 constraint unless
// WithSoftmaxRadius or WithSoftmaxShrink asks for one: WithWidth is not
// used.
// Each fit is solved to the duality gap of WithTolerance
// (DefaultSoftmaxTolerance unless given). Learn and LearnPairwise ignore
// it.
func WithSoftmax(on bool) Option {
	return optionFunc(func(c *config) {
		if on {
			c.softmax = refPairsOn
		} else {
			c.softmax = refPairsOff
		}
	})
}

// WithAveragedBlocks sets how LearnContacts' softmax regressions
// (WithSoftmax) score a pair: when on, by the zero-sum Frobenius norm of
// the mean of its two nodes' coupling blocks (as asymmetric
// pseudo-likelihood averages J_ij of node i and J_ji of node j), which
// holds n(n−1)/2 blocks of (k')² float32s; when off (the default), by the
// mean of the two nodes' norms, in no memory beyond the scores. Other
// paths ignore it.
func WithAveragedBlocks(on bool) Option {
	return optionFunc(func(c *config) {
		if on {
			c.avgBlocks = refPairsOn
		} else {
			c.avgBlocks = refPairsOff
		}
	})
}

// WithGapInputs sets whether a gap (state 0) in column j is an input of
// column i's softmax regression (WithSoftmax) in LearnContacts: when on (the
// default), it is a state of column j's one-hot encoding like the others,
// with its own coupling W_j(gap, ·) under the ridge; when off, those
// couplings are held at zero, so that a gap at j contributes nothing to
// column i's conditional, as plmc's -g has it, and each fit is certified
// by the duality gap of that restricted problem. The gap's row and column
// are left out of the scores either way (WithIgnoreGap). Other paths
// ignore it.
func WithGapInputs(on bool) Option {
	return optionFunc(func(c *config) {
		if on {
			c.gapInputs = refPairsOn
		} else {
			c.gapInputs = refPairsOff
		}
	})
}

// WithFieldRidge sets ρ_h, the ridge (ρ_h/2)·‖h‖² on the fields of
// LearnContacts' softmax regressions (WithSoftmax), in effective sequences;
// DefaultSoftmaxFieldRidge unless given. ρ_h must be finite and positive
// (the duality gap needs it). Other learners and paths ignore it.
func WithFieldRidge(rho float64) Option {
	return optionFunc(func(c *config) {
		c.setPositive(&c.fieldRidge, rho, "WithFieldRidge", "the field ridge ρ_h must be a finite positive number")
	})
}

// WithSoftmaxRadius adds to LearnContacts' softmax regressions
// (WithSoftmax) the l2,1 constraint of the paper's Algorithm 2, kept beside
// the ridge: node i's couplings satisfy ‖W‖_{2,1} = Σ_{j≠i} ‖W_ij‖_F ≤ R,
// each W_ij the k×k' block of column j's one-hot coefficients (its fields
// are not constrained), as Algorithm 2 bounds a value pair's regression by
// 2λ√k. Each fit is certified by the duality gap of the constrained
// problem (engine.Softmax.Radius). R must be finite and positive (NaN,
// ±Inf, 0 and negative radii are option errors); without it there is no
// constraint (the default). Other paths ignore it.
func WithSoftmaxRadius(r float64) Option {
	return optionFunc(func(c *config) {
		c.setPositive(&c.softmaxRadius, r, "WithSoftmaxRadius", "the softmax's l2,1 radius must be a finite positive number")
	})
}

// WithSoftmaxShrink adds to LearnContacts' softmax regressions
// (WithSoftmax) the l2,1 constraint of WithSoftmaxRadius at a radius that
// follows each node: f times the l2,1 norm of the node's fit without the
// constraint (fitted first, and the start of the constrained fit), so
// that the constraint is active at every node for f < 1. f must be in
// (0, 1) (NaN and other values are option errors); without it there is
// no constraint (the default). WithSoftmaxRadius, when also given, wins.
// Other paths ignore it.
func WithSoftmaxShrink(f float64) Option {
	return optionFunc(func(c *config) {
		if !(f > 0 && f < 1) {
			c.optionError("WithSoftmaxShrink", f, "the shrink factor must be in (0, 1)")
			return
		}
		c.softmaxShrink = f
	})
}

// Defaults of LearnContacts' softmax regressions (WithSoftmax).
const (
	// DefaultSoftmaxRidge is ρ of the couplings, in effective sequences.
	DefaultSoftmaxRidge = 16.0
	// DefaultSoftmaxFieldRidge is ρ_h of the fields, in effective
	// sequences: enough to keep the field of a state that a column never
	// shows finite, too little to move the others.
	DefaultSoftmaxFieldRidge = 1.0
	// DefaultSoftmaxTolerance is the duality gap to which each softmax
	// regression is solved unless WithTolerance says otherwise, on the
	// objective divided by the node's total weight (nats a sequence).
	// Chosen on the choice families of docs/contacts: at 10⁻² the mean
	// precision of the top L pairs was 0.691 against 0.684 at 10⁻³ (the
	// same at L/5 and L/2), in about half the CPU time. The fits start
	// from zero, so the looser gap also stops them earlier on the path
	// from zero.
	DefaultSoftmaxTolerance = 1e-2
	// defaultSoftmaxIter caps the quasi-Newton iterations of a node.
	defaultSoftmaxIter = 1000
)

// Which value pairs LearnContacts fits (config.refPairs).
const (
	refPairsDefault = iota // not set
	refPairsOn
	refPairsOff
)

// How LearnContacts treats state 0 (config.gap).
const (
	gapDefault = iota // not set: ignored
	gapIgnore
	gapKeep
)

// ContactMap is what LearnContacts learned: the coupling scores of every
// pair of columns.
type ContactMap struct {
	// Scores holds the APC-corrected scores S_ij - S_i· S_j· / S_··
	// (see protein.ContactScores), Raw the scores before the correction.
	// Rank them with protein.RankContacts.
	Scores, Raw *mat.SymDense
	// Nodes holds each node's fit: regressions solved, iterations, the
	// largest certificate.
	Nodes []NodeFit
	// Ridge and Width are the ρ and λ used; Neff is the total weight of
	// the samples (the effective number of sequences with alignment
	// weights).
	Ridge, Width, Neff float64
	// IgnoreGap reports whether state 0 was left out.
	IgnoreGap bool
	// Softmax reports whether the nodes were fitted by softmax
	// regressions (WithSoftmax); FieldRidge is then their ρ_h, and Width
	// is 0 (Algorithm 2's λ is not used).
	Softmax    bool
	FieldRidge float64
	// SoftmaxRadius and SoftmaxShrink are the softmax regressions' l2,1
	// constraint: the radius of WithSoftmaxRadius, or the factor of
	// WithSoftmaxShrink; both 0 without a constraint (the default).
	SoftmaxRadius, SoftmaxShrink float64
	// NoGapInputs reports that the softmax regressions held the couplings
	// of a gap in the other columns at zero (WithGapInputs(false)).
	NoGapInputs bool
}

// LearnContacts is LearnContactsContext without cancellation.
func LearnContacts(s *Samples, opts ...Option) (*ContactMap, error) {
	return LearnContactsContext(context.Background(), s, opts...)
}

// LearnContactsContext learns the coupling scores that predict contacts
// from the samples of a sequence alignment (protein's Alignment.Samples
// with the weights of protein.Reweight), the estimator of direct coupling
// analysis, and never builds a Model.
//
// By default (WithSoftmax) every node i is fitted by one multinomial
// (softmax) regression of z_i over its states (the gap left out with
// WithIgnoreGap, the default) on the one-hot encoding of the other columns,
// over every sequence where z_i is not a gap, with its weight: asymmetric
// pseudo-likelihood. Its couplings carry a ridge (ρ/2)·‖W‖² (WithRidge;
// DefaultSoftmaxRidge unless given) and its fields (ρ_h/2)·‖h‖²
// (WithFieldRidge; DefaultSoftmaxFieldRidge unless given), ρ and ρ_h in
// effective sequences, and it is solved by a quasi-Newton method to the
// duality gap DefaultSoftmaxTolerance (on the objective divided by the
// node's total weight) unless WithTolerance says otherwise.
// WithSoftmaxRadius or WithSoftmaxShrink add Algorithm 2's l2,1
// constraint on the couplings beside the ridge (not by default:
// docs/contacts has its measurement). Node i's block Ŵ_ij(α, b) is its
// coupling of column j in state b to class α.
//
// With WithSoftmax(false), or WithReferencePairs given without WithSoftmax,
// it runs the value-pair estimator of earlier versions: for every node i it solves Algorithm 2's logistic regressions (equation
// (8)) of value pairs of z_i, with a ridge term beside the l2,1 constraint
// (WithRidge; DefaultContactRidge unless given) at the width λ (WithWidth;
// DefaultContactWidth unless given), each to the certified gap
// DefaultContactTolerance unless WithTolerance says otherwise. By default
// (WithReferencePairs) the pairs are those of the node's reference value r,
// its most frequent, with every other value β: their solutions are the
// log-odds U^{r,β} of β against r, and Ŵ_ij(α, ·) is −U^{r,α}(j, ·) up to
// a term that the zero-sum gauge removes. With WithReferencePairs(false)
// it fits every pair α < β and estimates the coupling blocks Ŵ_ij from the
// centred solutions as LearnPairwise does (equation (9)). What goes beyond
// the paper, and why, is in docs/contacts: without the ridge, a rare
// state's value pairs have few rows and get huge couplings that rank above
// the true contacts. Node i's score of column j is the Frobenius norm of
// Ŵ_ij in the zero-sum gauge (rows and columns centred over the states
// scored: 1..k-1 with WithIgnoreGap, the default, else all k); the score
// of a pair is the mean of its two nodes' scores, and Scores applies the
// average product correction to it. Nothing chooses an edge set: there is
// no edge test and no width search, whatever WithSelection or
// WithMinEdgeWeight say.
//
// Memory: the samples as one byte a state, their group codes (two bytes
// per few columns a row); with the softmax, each row's entries off the
// columns' most frequent states (two bytes each) and, per worker, a few
// vectors of the node's n·k·k' parameters (the quasi-Newton method keeps 6
// pairs of them); with value pairs, one value pair's gathered codes and the
// solutions of one node's value pairs (n·k numbers for each of k−1 values,
// or of k(k-1)/2 pairs with WithReferencePairs(false)) per worker, and the
// n×n scores: linear in the alignment, never n²k² couplings. Time: with
// value pairs each node fits k'−1 regressions (k' = k−1 with the gap ignored, else k), each
// over the rows where z_i is r or β; k'(k'−1)/2 with
// WithReferencePairs(false). The softmax's time is that of plmc's
// pseudo-likelihood: each iteration of a node passes over its rows' entries
// once for every class.
//
// It returns an error for a nil ctx, nil or empty samples, k < 3 with the
// gap ignored, an invalid option, a backend other than Accelerated, and
// ctx.Err() once ctx is done (checked every few solver iterations).
func LearnContactsContext(ctx context.Context, s *Samples, opts ...Option) (*ContactMap, error) {
	const fn = "LearnContacts"
	if ctx == nil {
		return nil, nilContext("LearnContactsContext")
	}
	if s == nil {
		return nil, errors.New("pairwise: LearnContacts: nil samples")
	}
	defaults := []Option{
		WithWidth(DefaultContactWidth),
		WithRidge(DefaultContactRidge),
		WithMinEdgeWeight(math.SmallestNonzeroFloat64), // no edge test
		WithTolerance(DefaultContactTolerance),
	}
	var probe config // the caller's options alone
	for _, o := range opts {
		if o != nil {
			o.apply(&probe)
		}
	}
	r, err := newRun(fn, s, append(defaults, opts...), false)
	if err != nil {
		return nil, err
	}
	// The softmax is the default, unless the caller turned it off or asked
	// for value pairs (WithReferencePairs) without asking for it.
	softmax := r.cfg.softmax == refPairsOn || (r.cfg.softmax == refPairsDefault && probe.refPairs == refPairsDefault)
	if softmax {
		if !probe.ridgeSet {
			r.cfg.ridge = DefaultSoftmaxRidge
		}
		if !(r.cfg.ridge > 0) {
			return nil, fmt.Errorf("pairwise: %s: the softmax regression needs a positive ridge ρ (WithRidge)", fn)
		}
		if r.cfg.fieldRidge == 0 {
			r.cfg.fieldRidge = DefaultSoftmaxFieldRidge
		}
		if probe.tol == 0 {
			r.cfg.tol = DefaultSoftmaxTolerance
		}
	}
	defer r.stop()
	n, k := s.n, s.k
	ignoreGap := r.cfg.gap != gapKeep
	if ignoreGap && k < 3 {
		return nil, fmt.Errorf("pairwise: %s: alphabet size k = %d: with the gap (state 0) ignored at least 3 states are needed (use WithIgnoreGap(false))", fn, k)
	}
	var skip []bool
	first := 0 // the first state scored and fitted
	if ignoreGap {
		skip = make([]bool, k)
		skip[0] = true
		first = 1
	}
	kk := k * k
	radius := r.cfg.regressionRadius(k, true)
	raw := make([]float64, n*n) // raw[i*n+j]: node i's score of column j
	nodes := make([]NodeFit, n)
	refPairs := r.cfg.refPairs != refPairsOff
	var pb *pairBlocks
	if softmax && r.cfg.avgBlocks == refPairsOn {
		pb = newPairBlocks(n, k-first)
	}
	err = r.eachNode(ctx, func(ctx context.Context, e *engine.Driver, i int) error {
		if softmax {
			return contactNodeSoftmax(ctx, e, i, n, k, first, &r.cfg, raw, nodes, pb, fn)
		}
		if refPairs {
			return contactNodeRef(ctx, e, i, n, k, first, skip, radius, raw, nodes, fn)
		}
		pl := e.PlanPairs(i, skip)
		fit := NodeFit{Node: i, Converged: true, EmptyPairs: pl.Empty, OneLabelPairs: len(pl.OneLabel)}
		// sumU[j*kk + α*k + b] accumulates Σ_β U^{α,β}(j, b).
		sumU := make([]float64, n*kk)
		// base[β] is w^{first,β}, the warm start of the pairs (α, β)
		// with α > first: w^{first,β} − w^{first,α}.
		base := make([][]float64, k)
		for p, ab := range pl.Pairs {
			alpha, beta := ab[0], ab[1]
			t := e.Task(pl, p)
			w := make([]float64, e.Design(&t).Dim())
			if alpha > first && base[alpha] != nil && base[beta] != nil {
				for x := range w {
					w[x] = base[beta][x] - base[alpha][x]
				}
			} else {
				w[i*k] = logOdds(t.Y, t.C) // the bias alone, as contactNodeRef starts
			}
			if err := fitContactPair(ctx, e, &t, radius, w, &fit, fn, i, alpha, beta); err != nil {
				return err
			}
			if alpha == first {
				base[beta] = append([]float64(nil), w...)
			}
			centreRows(w, n, k, i)
			for j := 0; j < n; j++ {
				if j == i {
					continue
				}
				for b := 0; b < k; b++ {
					u := w[j*k+b]
					sumU[j*kk+alpha*k+b] += u
					sumU[j*kk+beta*k+b] -= u
				}
			}
		}
		nodes[i] = fit
		// Ŵ_ij(α, b) = (1/k') Σ_β U^{α,β}(j, b) over the k' states fitted;
		// its norm in the zero-sum gauge over the states scored.
		states := float64(k - first)
		block := make([]float64, kk)
		row, col := make([]float64, k), make([]float64, k)
		for j := 0; j < n; j++ {
			if j == i {
				continue
			}
			for x := range block {
				block[x] = sumU[j*kk+x] / states
			}
			raw[i*n+j] = dca.ZeroSumNorm(block, k, first, row, col)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	rawSym := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if pb != nil {
				rawSym.SetSym(i, j, pb.norm(i, j))
				continue
			}
			rawSym.SetSym(i, j, (raw[i*n+j]+raw[j*n+i])/2)
		}
	}
	scores := mat.NewSymDense(n, nil)
	scores.CopySym(rawSym)
	dca.APC(scores)
	width := r.cfg.lambda
	smRadius, smShrink := 0.0, 0.0
	if softmax {
		width = 0 // Algorithm 2's λ is not used
		smRadius = r.cfg.softmaxRadius
		if smRadius == 0 {
			smShrink = r.cfg.softmaxShrink
		}
	}
	return &ContactMap{
		Scores: scores, Raw: rawSym, Nodes: nodes,
		Ridge: r.cfg.ridge, Width: width, Neff: s.total, IgnoreGap: ignoreGap,
		Softmax: softmax, FieldRidge: r.cfg.fieldRidge,
		SoftmaxRadius: smRadius, SoftmaxShrink: smShrink,
		NoGapInputs: softmax && r.cfg.gapInputs == refPairsOff,
	}, nil
}

// contactNodeRef is node i of LearnContacts with WithReferencePairs: the
// k'−1 value pairs (r, β) of its reference value r (PlanReferencePairs)
// give the log-odds of every value against r, U^{r,β} (centred, with
// U^{r,r} = 0), and the log-odds of α against β is U^{r,β} − U^{r,α}.
// Equation (9)'s average over β of those differences is Ŵ_ij(α, ·) =
// mean_β U^{r,β}(j, ·) − U^{r,α}(j, ·), whose first term does not depend on
// α and vanishes in the zero-sum gauge: node i's score of column j is the
// zero-sum norm of the block with rows −U^{r,α}(j, ·).
func contactNodeRef(ctx context.Context, e *engine.Driver, i, n, k, first int, skip []bool, radius float64, raw []float64, nodes []NodeFit, fn string) error {
	pl := e.PlanReferencePairs(i, skip)
	fit := NodeFit{Node: i, Converged: true, EmptyPairs: pl.Empty, OneLabelPairs: len(pl.OneLabel)}
	kk := k * k
	// u[j*kk + α*k + b] holds −U^{r,α}(j, b).
	u := make([]float64, n*kk)
	var w []float64
	for p, ab := range pl.Pairs {
		alpha, beta := ab[0], ab[1]
		t := e.Task(pl, p)
		if d := e.Design(&t).Dim(); cap(w) < d {
			w = make([]float64, d)
		} else {
			w = w[:d]
			clear(w)
		}
		// Start from the fit of the bias alone, the weighted log-odds of
		// α against β (the bias is coordinate (i, 0), unpenalised): from
		// zero, the first-order steps spend many iterations reaching the
		// large bias of a rare β.
		w[i*k] = logOdds(t.Y, t.C)
		if err := fitContactPair(ctx, e, &t, radius, w, &fit, fn, i, alpha, beta); err != nil {
			return err
		}
		centreRows(w, n, k, i)
		// w is the log-odds of α against β: U^{r,β} when α = r, and
		// −U^{r,α} when β = r.
		other, sign := beta, -1.0
		if beta == pl.Ref {
			other, sign = alpha, 1.0
		}
		for j := 0; j < n; j++ {
			if j == i {
				continue
			}
			for b := 0; b < k; b++ {
				u[j*kk+other*k+b] = sign * w[j*k+b]
			}
		}
	}
	nodes[i] = fit
	row, col := make([]float64, k), make([]float64, k)
	for j := 0; j < n; j++ {
		if j == i {
			continue
		}
		raw[i*n+j] = dca.ZeroSumNorm(u[j*kk:(j+1)*kk], k, first, row, col)
	}
	return nil
}

// contactNodeSoftmax is node i of LearnContacts with WithSoftmax: one
// multinomial regression of z_i over the states first..k−1 (engine.Softmax),
// whose coupling rows give the block Ŵ_ij(α, b) = W_j(b, α − first) and
// node i's score of column j, the zero-sum norm of that block over the
// states scored.
func contactNodeSoftmax(ctx context.Context, e *engine.Driver, i, n, k, first int, cfg *config, raw []float64, nodes []NodeFit, pb *pairBlocks, fn string) error {
	K := k - first
	w := make([]float64, engine.SoftmaxDim(n, k, first))
	p := &engine.Softmax{Node: i, First: first, Ridge: cfg.ridge, FieldRidge: cfg.fieldRidge, Tol: e.Tol, MaxIter: defaultSoftmaxIter, Radius: cfg.softmaxRadius}
	if p.Radius == 0 {
		p.Shrink = cfg.softmaxShrink
	}
	if cfg.gapInputs == refPairsOff {
		p.InputFirst = 1 // a gap at j is no input: W_j(0, ·) = 0
	}
	if e.MaxIter > 0 && e.MaxIter < p.MaxIter {
		p.MaxIter = e.MaxIter
	}
	st, err := e.FitSoftmax(ctx, p, w)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("pairwise: %s: node %d: %w", fn, i, err)
	}
	status := solve.IterationLimit
	if st.Converged {
		status = solve.GapBelowTol
	}
	nodes[i] = NodeFit{Node: i, Regressions: 1, Iterations: st.Iter, Loss: st.Objective, Gap: st.Gap, Converged: st.Converged, Status: status}
	kk := k * k
	block := make([]float64, kk)
	row, col := make([]float64, k), make([]float64, k)
	for j := 0; j < n; j++ {
		if j == i {
			continue
		}
		clear(block)
		for b := 0; b < k; b++ {
			src := w[(j*k+b)*K : (j*k+b+1)*K]
			for c, v := range src {
				block[(c+first)*k+b] = v
			}
		}
		raw[i*n+j] = dca.ZeroSumNorm(block, k, first, row, col)
		if pb != nil {
			pb.add(i, j, block, k, first)
		}
	}
	return nil
}

// pairBlocks sums the two nodes' coupling blocks of every pair i < j over
// the states scored (WithAveragedBlocks), q×q float32 a pair, oriented as
// (state of i, state of j); a lock per lower column guards the sums.
type pairBlocks struct {
	n, q  int
	sum   []float32
	locks []sync.Mutex
}

func newPairBlocks(n, q int) *pairBlocks {
	return &pairBlocks{n: n, q: q, sum: make([]float32, n*(n-1)/2*q*q), locks: make([]sync.Mutex, n)}
}

// slot returns pair (lo, hi)'s block.
func (pb *pairBlocks) slot(lo, hi int) []float32 {
	x := lo*pb.n - lo*(lo+1)/2 + hi - lo - 1 // rank of (lo, hi) among the pairs
	return pb.sum[x*pb.q*pb.q : (x+1)*pb.q*pb.q]
}

// add adds node i's block of column j (k×k row-major, rows the states of i;
// the states first..k−1 kept) into the pair's sum.
func (pb *pairBlocks) add(i, j int, block []float64, k, first int) {
	lo, hi := min(i, j), max(i, j)
	q := pb.q
	pb.locks[lo].Lock()
	defer pb.locks[lo].Unlock()
	dst := pb.slot(lo, hi)
	for a := 0; a < q; a++ {
		for b := 0; b < q; b++ {
			v := float32(block[(a+first)*k+b+first])
			if i < j {
				dst[a*q+b] += v
			} else {
				dst[b*q+a] += v
			}
		}
	}
}

// norm returns the zero-sum Frobenius norm of the mean of the pair's two
// blocks.
func (pb *pairBlocks) norm(i, j int) float64 {
	q := pb.q
	src := pb.slot(min(i, j), max(i, j))
	blk := make([]float64, q*q)
	for x, v := range src {
		blk[x] = float64(v) / 2
	}
	return dca.ZeroSumNorm(blk, q, 0, make([]float64, q), make([]float64, q))
}

// fitContactPair solves value pair (α, β)'s regression of node i in place
// from the start w, notes its statistics in fit, and names the node and the
// pair in an error (a cancelled context is returned as itself).
func fitContactPair(ctx context.Context, e *engine.Driver, t *engine.Task, radius float64, w []float64, fit *NodeFit, fn string, i, alpha, beta int) error {
	st, err := e.Fit(ctx, t, t.C, radius, w)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("pairwise: %s: node %d, values (%d, %d): %w", fn, i, alpha, beta, err)
	}
	fit.noteStats(st)
	return nil
}

// logOdds returns ln(Σ c over label +1 / Σ c over label −1), the weights c
// nil for 1; 0 when either side has no weight.
func logOdds(y, c []float64) float64 {
	pos, neg := 0.0, 0.0
	for m, v := range y {
		w := 1.0
		if c != nil {
			w = c[m]
		}
		if v > 0 {
			pos += w
		} else {
			neg += w
		}
	}
	if pos <= 0 || neg <= 0 {
		return 0
	}
	return math.Log(pos / neg)
}
