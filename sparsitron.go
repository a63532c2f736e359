package pairwise

import (
	"context"
	"fmt"
	"math"

	"github.com/mrfkit/pairwise/solve"
)

// Sparsitron is the baseline learner of the paper's Figure 2: the Sparsitron
// of Klivans and Meka, "Learning Graphical Models Using Multiplicative
// Weights" (FOCS 2017, arXiv:1706.06274), run on the per-node regressions of
// Algorithms 1 and 2 in place of the constrained logistic regression. Choose
// it with WithSolver(Sparsitron{}). It is there to reproduce the comparison;
// Accelerated, the default backend, is the recommended one (see Solver).
//
// # The algorithm
//
// Sparsitron learns a generalised linear model P(ŷ = 1 | x) = σ(⟨w*, x⟩)
// with ‖w*‖₁ ≤ λ and x ∈ [−1, 1]^d online, with the Hedge algorithm of
// Freund and Schapire: its experts are the coordinates of a non-negative
// weight vector scaled to l1 norm λ. Any sign is covered by the doubling
// trick x̂ = [x, −x] (as in Algorithm 3): 2d experts, and
// w = λ·(p_{1:d} − p_{d+1:2d}) for a point p of the simplex.
// With T training rows (x^t, ŷ^t), ŷ = (y + 1)/2 ∈ {0, 1}:
//
//	weights W⁰ = 1 ∈ R^{2d},   β = 1/(1 + √(ln(2d)/T))
//	for t = 1..T:
//	    p^t = W^{t−1}/‖W^{t−1}‖₁
//	    ℓ^t = ½(1 + (σ(λ⟨p^t, x̂^t⟩) − ŷ^t)·x̂^t)        (the loss vector, in [0, 1]^{2d})
//	    W^t_i = W^{t−1}_i · β^{ℓ^t_i}
//
// and it returns the candidate λ·p^t, t = 1..T, with the smallest empirical
// risk (1/M)·Σ_j (σ(λ⟨p^t, x̂^j⟩) − ŷ^j)² on a second sample set of M rows
// that the updates have not seen. The first candidate is the uniform point,
// w = 0.
//
// # How it is applied here
//
// Every regression problem is split in the order of its rows: the first
// T = N − M rows train, the last M select, with M = max{200, ⌊0.01·N⌋}
// (the setting of the paper's Appendix, "More experimental results"), or
// Holdout when it is set, and never more than ⌊N/2⌋ so that at least half of
// the rows train. The split is per problem, as in the authors' experiment
// code (github.com/wushanshan/GraphLearn, NonBinaryModel/sparsitron.m, which
// splits each pair's rows): on the pairwise path each value pair (α, β) of
// node i is a problem of its own whose N counts the samples with
// z_i ∈ {α, β}. LearnPairwise keeps those rows in sample order, so the
// held-out rows are the latest samples.
//
// The l1 radius λ is the problem's Radius on the Ising path (2λ, the l1
// radius of Algorithm 1). On the pairwise path Radius is the l2,1 radius
// 2λ√k, and Sparsitron uses the l1 ball that contains that ball,
// Radius·√k = 2kλ, since ‖w‖₁ ≤ √k·‖w‖_{2,1}. That is the radius Klivans and
// Meka need for a k-ary model (‖w*‖₁ ≤ 2kλ, the paper's remark on the l2,1
// versus l1 constraint and its footnote on the k⁵ dependence), and the
// reason the paper expects Sparsitron to need more samples as k grows.
//
// # Cost, stats, stopping and weights
//
// A row costs O(nonzeros) for the update; the selection computes the exact
// held-out risk (one exponential a held-out row) only for the candidates
// that a bracket on its risk cannot decide, 3 to 4% of them on the paper's
// grid (Taylor's theorem with a bound on the loss's curvature brackets a
// candidate's risk from sums kept up to date as the rows pass). The result
// is the same as with the risk of every candidate.
//
// Sparsitron makes one pass over the training rows: Stats.Iterations is T,
// MaxIter is ignored, and there is no stopping rule. Stats.Loss is the
// logistic loss of the returned w on all N rows, and Stats.Gap the duality
// gap solve.Gap on the l1 ball of radius λ at that w, a valid bound on
// L(w) − L* for the problem's own constraint too (that ball contains the
// l2,1 ball, so its optimum is no larger); Converged reports Gap ≤ Tol, which
// an online method rarely reaches.
//
// Hedge's guarantee is for rows that arrive one at a time, i.i.d.; a weighted
// row has no online meaning (expanding a count into copies would present
// them consecutively). Problems with row weights other than 0 and 1 are
// therefore an error: pass unweighted samples. A row of weight 0 is absent
// (CrossValidation's training folds give the held-out rows weight 0).
//
// A Sparsitron holds only its settings; it is safe for concurrent use.
type Sparsitron struct {
	// Holdout is the number M of rows, taken from the end of each problem,
	// that select the best candidate. Zero means max{200, ⌊0.01·N⌋}.
	// At most ⌊N/2⌋ rows are held out whatever the setting.
	Holdout int
}

var _ Solver = Sparsitron{}

// String returns "Sparsitron", or "Sparsitron{Holdout: M}" when Holdout is
// set.
func (s Sparsitron) String() string {
	if s.Holdout == 0 {
		return "Sparsitron"
	}
	return fmt.Sprintf("Sparsitron{Holdout: %d}", s.Holdout)
}

func (s Sparsitron) spinsSolver() solve.Solver[solve.Spins] {
	return solve.Func[solve.Spins](s.SolveSpins)
}

func (s Sparsitron) oneHotSolver() solve.Solver[solve.OneHot] {
	return solve.Func[solve.OneHot](s.SolveOneHot)
}

// SolveSpins runs Sparsitron on an l1 problem of the Ising path with l1
// radius p.Radius. The features must lie in [−1, 1]. w receives the selected
// candidate; its value on entry (a warm start for other backends) is
// ignored, since Sparsitron always starts from the uniform weights. p is not
// modified. The problem is validated as by EntropicMirror.SolveSpins;
// features outside [−1, 1], a negative Holdout, and row weights other than 0
// and 1 are errors as well, and w is then left as it was. Rows of weight 0
// are skipped (so CrossValidation's folds work); the others keep their
// order. A problem without rows (or without rows of weight 1) sets w = 0
// with Converged true. Once ctx is done, SolveSpins returns
// ctx.Err() within a few thousand rows, leaving the best candidate so far
// in w.
func (s Sparsitron) SolveSpins(ctx context.Context, p *solve.Problem[solve.Spins], w []float64) (solve.Stats, error) {
	st, err := solveSparsitron(ctx, s, p, w)
	return solve.Ended(ctx, st, err), err
}

// SolveOneHot runs Sparsitron on a one-hot problem of the pairwise path with
// the l1 radius p.Radius·√K, the l1 ball that contains the problem's l2,1
// ball (2kλ for the learners' radius 2λ√k). Validation, warm starts,
// cancellation and the Stats are as for SolveSpins; the Z entries must lie
// in [0, K).
func (s Sparsitron) SolveOneHot(ctx context.Context, p *solve.Problem[solve.OneHot], w []float64) (solve.Stats, error) {
	st, err := solveSparsitron(ctx, s, p, w)
	return solve.Ended(ctx, st, err), err
}

// sparsitronHoldout returns M, the rows held out for selection out of n.
func sparsitronHoldout(holdout, n int) int {
	m := holdout
	if m == 0 {
		m = max(200, n/100)
	}
	return min(m, n/2)
}

// solveSparsitron validates p, splits its rows, runs the algorithm and
// reports the Stats.
func solveSparsitron[F solve.Layout](ctx context.Context, s Sparsitron, p *solve.Problem[F], w []float64) (solve.Stats, error) {
	if s.Holdout < 0 {
		return solve.Stats{}, fmt.Errorf("pairwise: Sparsitron: Holdout = %d, want ≥ 0 (0 for max{200, N/100})", s.Holdout)
	}
	if err := checkProblem(p, w); err != nil {
		return solve.Stats{}, err
	}
	if ctx == nil {
		return solve.Stats{}, nilContext("Sparsitron")
	}
	if err := ctx.Err(); err != nil {
		return solve.Stats{}, err
	}
	zeros := 0
	for m, c := range p.C {
		if c == 0 {
			zeros++
		} else if c != 1 {
			return solve.Stats{}, fmt.Errorf("pairwise: Sparsitron: row weight C[%d] = %v: Sparsitron is an online algorithm on unweighted i.i.d. rows; pass unweighted samples", m, c)
		}
	}
	rows, err := sparseDesign(p.X)
	if err != nil {
		return solve.Stats{}, err
	}
	y := p.Y
	if zeros > 0 {
		// Rows of weight zero are absent (the training folds of
		// CrossValidation): the others keep their order.
		rows, y = rows.without(p.C, p.Y, zeros)
	}
	n := len(y)
	if n == 0 {
		clear(w)
		return solve.Stats{Converged: true}, nil
	}
	lambda := p.Radius * math.Sqrt(float64(p.X.GroupSize()))
	m := sparsitronHoldout(s.Holdout, n)
	st, err := sparsitronRun(ctx, rows, y, n-m, p.X.Dim(), lambda, w)
	if err != nil {
		return st, err
	}
	// The certificate at the returned w, over all N rows.
	g, u, r := make([]float64, p.X.Dim()), make([]float64, p.X.Len()), make([]float64, p.X.Len())
	st.Loss = solve.Evaluate(p, w, g, u, r)
	st.Gap = solve.Gap(g, w, 1, lambda)
	st.Converged = st.Gap <= p.Tol
	return st, nil
}

// sparseRows is a design in compressed row form with the same number of
// nonzeros in every row: row m has the entries (idx[m*nnz+e], val[m*nnz+e]),
// e < nnz, each coordinate at most once; val is nil when every entry is 1.
type sparseRows struct {
	nnz int
	idx []int32
	val []float64
}

// without returns the rows m with c[m] != 0 and their labels; zeros is the
// number of the others.
func (sr sparseRows) without(c, y []float64, zeros int) (sparseRows, []float64) {
	keep := len(y) - zeros
	out := sparseRows{nnz: sr.nnz, idx: make([]int32, 0, keep*sr.nnz)}
	if sr.val != nil {
		out.val = make([]float64, 0, keep*sr.nnz)
	}
	yk := make([]float64, 0, keep)
	for m, cm := range c {
		if cm == 0 {
			continue
		}
		out.idx = append(out.idx, sr.idx[m*sr.nnz:(m+1)*sr.nnz]...)
		if sr.val != nil {
			out.val = append(out.val, sr.val[m*sr.nnz:(m+1)*sr.nnz]...)
		}
		yk = append(yk, y[m])
	}
	return out, yk
}

// sparseDesign returns the rows of a layout in compressed form: Groups
// entries of value 1 a row for OneHot (the bias group at its state 0), Cols
// entries for Spins (the bias column as 1). It returns an error for a Spins
// feature outside [−1, 1], where Hedge's losses would leave [0, 1].
func sparseDesign[F solve.Layout](x F) (sparseRows, error) {
	switch x := any(x).(type) {
	case solve.Spins:
		rows := x.Len()
		sr := sparseRows{nnz: x.Cols, idx: make([]int32, rows*x.Cols), val: make([]float64, rows*x.Cols)}
		for m := 0; m < rows; m++ {
			for j := 0; j < x.Cols; j++ {
				v := x.X[m*x.Cols+j]
				if j == x.Bias {
					v = 1
				}
				if v < -1 || v > 1 {
					return sparseRows{}, fmt.Errorf("pairwise: Sparsitron: feature X[%d] (row %d, column %d) = %v, want a value in [-1, 1]", m*x.Cols+j, m, j, v)
				}
				sr.idx[m*x.Cols+j] = int32(j)
				sr.val[m*x.Cols+j] = v
			}
		}
		return sr, nil
	case solve.OneHot:
		rows := x.Len()
		sr := sparseRows{nnz: x.Groups, idx: make([]int32, rows*x.Groups)}
		for m := 0; m < rows; m++ {
			for g := 0; g < x.Groups; g++ {
				a := int(x.Z[m*x.Groups+g])
				if g == x.Bias {
					a = 0
				}
				sr.idx[m*x.Groups+g] = int32(g*x.K + a)
			}
		}
		return sr, nil
	}
	panic("unreachable")
}

// Housekeeping of sparsitronRun.
const (
	// sparsitronRefresh is how often (in rows) the incrementally updated
	// normaliser and held-out margins are recomputed from scratch, so that
	// rounding cannot accumulate; it is also how often ctx is polled.
	sparsitronRefresh = 1024
	// sparsitronRescale bounds the exponent of the stored weights: when
	// the largest |h_i| and the shift s differ by more than this at a
	// refresh, s moves to it, so that e^{±h−s} neither overflows nor, for
	// the largest weights, underflows. Between refreshes |h_i| grows by at
	// most sparsitronRefresh·c/2 ≤ √(sparsitronRefresh·ln(2d))/2 (c ≤
	// √(ln(2d)/T) and T ≥ the rows seen), about 60 for d up to 10⁶, so the
	// exponents stay below 400.
	sparsitronRescale = 300
)

// sparsitronRun runs Sparsitron on the first t rows of the design and selects
// on the remaining ones, writing the selected λ·(p⁺ − p⁻) into w (length d).
//
// The Hedge weights are kept in closed form. A coordinate i of x that is
// zero in a row has the loss ½ on both of its experts, a common factor that
// the normalisation removes, so after any number of rows
//
//	W⁺_i ∝ e^{−h_i},  W⁻_i ∝ e^{+h_i},   h_i = (c/2)·Σ_t (σ_t − ŷ^t)·x^t_i,   c = −ln β,
//
// and a row changes only the h_i of its nonzero coordinates (one a group for
// one-hot rows). With v_i = e^{−h_i−s} − e^{h_i−s} and
// Z = Σ_i e^{−h_i−s} + e^{h_i−s} for a shift s, p⁺_i − p⁻_i = v_i/Z, so the
// margins are ⟨p, x̂⟩ = ⟨v, x⟩/Z.
//
// # Selection
//
// The selection is exact but lazy. The risk of candidate t is
// R(t) = Σ_j f(q_j) over the M held-out rows, with f(q) = σ(−q)²,
// q_j = y_j·λ·U_j/Z and U_j = ⟨v, x^j⟩. At an anchor candidate t₀ the
// risk is computed exactly, one exponential a held-out row, and with it
// f′_j = f′(q_j(t₀)). For a later candidate, Taylor's theorem with
// |f″| ≤ riskCurvature = C brackets the risk:
//
//	|R(t) − R(t₀) − Σ_j f′_j Δq_j| ≤ (C/2)·Σ_j Δq_j²,
//	Δq_j = ρ·q_j(t₀) + κ·y_j·⟨Δv, x^j⟩,   ρ = Z₀/Z − 1,  κ = λ/Z,  Δv = v − v(t₀),
//
// and both sums are kept up to date in O(1) a coordinate that a row
// touches: Σ_j f′_j Δq_j = ρ·A + κ·⟨Δv, G⟩ exactly, and
// Σ_j Δq_j² = ρ²·S + 2ρκ·⟨Δv, G₂⟩ + κ²·Σ_j ⟨Δv, x^j⟩², whose last sum is at
// most nnz·Σ_i H_ii Δv_i² (Cauchy–Schwarz over the nnz nonzeros of a row),
// with A = Σ_j f′_j q_j(t₀), S = Σ_j q_j(t₀)², G = Σ_j f′_j y_j x^j,
// G₂ = Σ_j q_j(t₀) y_j x^j and H_ii = Σ_j (x^j_i)² over the held-out rows.
//
// The best candidate so far is kept with an interval that holds its risk. A
// candidate whose bracket lies above that interval cannot be the best and
// is skipped; one whose bracket lies below it is the new best; only the
// others become anchors and get their exact risk (and, when that still falls
// inside the best's interval, the best gets its exact risk too). The
// selected candidate is therefore the one of smallest exact risk, as in
// Klivans and Meka (the first one on ties), while the exponentials are spent
// on the few candidates that are close calls: 3 to 4% of them on the
// paper's grid.
func sparsitronRun(ctx context.Context, rows sparseRows, y []float64, t, d int, lambda float64, w []float64) (solve.Stats, error) {
	n := len(y)
	nnz := rows.nnz
	hold := n - t
	c := math.Log1p(math.Sqrt(math.Log(float64(2*d)) / float64(t))) // −ln β
	half := c / 2

	h := make([]float64, d)
	ep := make([]float64, d) // e^{−h−s}: W⁺ up to the common factor
	em := make([]float64, d) // e^{h−s}:  W⁻
	v := make([]float64, d)  // ep − em
	best := make([]float64, d)
	shift := 0.0
	var z float64 // Z
	refresh := func() {
		z = 0
		for i := range h {
			ep[i] = math.Exp(-h[i] - shift)
			em[i] = math.Exp(h[i] - shift)
			v[i] = ep[i] - em[i]
			z += ep[i] + em[i]
		}
	}
	refresh()

	// The held-out rows and what the brackets need of them.
	hIdx := rows.idx[t*nnz:]
	var hVal []float64
	if rows.val != nil {
		hVal = rows.val[t*nnz:]
	}
	yh := y[t:]
	// H_ii, G, G₂ and Δv.
	hdiag, g1, g2, dv0 := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
	for e, i := range hIdx {
		x := 1.0
		if hVal != nil {
			x = hVal[e]
		}
		hdiag[i] += x * x
	}
	// exact returns the held-out risk of the candidate (vv, zz); with
	// anchor set it also records the Taylor data of the brackets.
	var r0, sumA, sumS, z0, dotG, dotG2, quadH float64
	anchored := false
	exact := func(vv []float64, zz float64, anchor bool) float64 {
		scale := lambda / zz
		risk, a, sq := 0.0, 0.0, 0.0
		if anchor {
			clear(g1)
			clear(g2)
		}
		for j := 0; j < hold; j++ {
			idx := hIdx[j*nnz : (j+1)*nnz]
			u := 0.0
			if hVal == nil {
				for _, i := range idx {
					u += vv[i]
				}
			} else {
				for e, i := range idx {
					u += vv[i] * hVal[j*nnz+e]
				}
			}
			q := yh[j] * scale * u
			s := 1 / (1 + math.Exp(q))
			risk += s * s
			if !anchor {
				continue
			}
			f1 := -2 * s * s * (1 - s)
			a += f1 * q
			sq += q * q
			c1, c2 := f1*yh[j], q*yh[j]
			for e, i := range idx {
				x := 1.0
				if hVal != nil {
					x = hVal[j*nnz+e]
				}
				g1[i] += c1 * x
				g2[i] += c2 * x
			}
		}
		if anchor {
			anchored = true
			r0, sumA, sumS, z0 = risk, a, sq, zz
			dotG, dotG2, quadH = 0, 0, 0
			clear(dv0)
		}
		return risk
	}

	quad := riskCurvature / 2
	slack := 1e-11 * float64(hold) // for the rounding of the brackets' sums
	// The best candidate so far, and an interval that holds its risk.
	bestLo, bestHi, bestZ := math.Inf(1), math.Inf(1), z
	for step := 0; step < t; step++ {
		if step > 0 && step%sparsitronRefresh == 0 {
			if err := ctx.Err(); err != nil {
				sparsitronPoint(w, best, lambda/bestZ)
				return solve.Stats{Iterations: step, Gap: math.Inf(1)}, err
			}
			top := 0.0
			for _, x := range h {
				top = max(top, math.Abs(x))
			}
			if top-shift > sparsitronRescale || shift-top > sparsitronRescale {
				shift = top
			}
			refresh()
			anchored = false // v moved by rounding, untracked
		}
		// The candidate λ·p^{step+1}.
		switch {
		case hold == 0:
			if step == 0 {
				bestZ = z
				copy(best, v)
			}
		case anchored:
			rho, kappa := z0/z-1, lambda/z
			lin := rho*sumA + kappa*dotG
			sq := max(0, rho*rho*sumS+2*rho*kappa*dotG2+kappa*kappa*quadH)
			lo := r0 + lin - quad*sq - slack
			hi := r0 + lin + quad*sq + slack
			if sparsitronVerify != nil {
				sparsitronVerify(lo, hi, exact(v, z, false))
			}
			if lo >= bestHi { // not below the best: skip
				break
			}
			if hi < bestLo { // surely below the best
				bestLo, bestHi, bestZ = lo, hi, z
				copy(best, v)
				break
			}
			fallthrough
		default:
			r := exact(v, z, true)
			if r >= bestLo && r < bestHi { // a close call: settle the best's risk
				rb := exact(best, bestZ, false)
				bestLo, bestHi = rb, rb
			}
			if r < bestLo {
				bestLo, bestHi, bestZ = r, r, z
				copy(best, v)
			}
		}
		// The training row: its margin, then the Hedge update of the
		// coordinates it touches.
		off := step * nnz
		idx := rows.idx[off : off+nnz]
		dot := 0.0
		if rows.val == nil {
			for _, i := range idx {
				dot += v[i]
			}
		} else {
			for e, i := range idx {
				dot += v[i] * rows.val[off+e]
			}
		}
		r := solve.Sigmoid(lambda*dot/z) - (y[step]+1)/2
		for e, i := range idx {
			x := 1.0
			if rows.val != nil {
				x = rows.val[off+e]
			}
			if x == 0 {
				continue
			}
			dh := half * r * x
			h[i] += dh
			// e^{∓h} move by the factor e^{∓dh}; refresh recomputes them
			// from h, so the rounding of the products cannot accumulate.
			f := expSmall(dh)
			np, nm := ep[i]/f, em[i]*f
			dv := (np - nm) - v[i]
			z += (np + nm) - (ep[i] + em[i])
			ep[i], em[i], v[i] = np, nm, np-nm
			if anchored {
				dotG += dv * g1[i]
				dotG2 += dv * g2[i]
				old := dv0[i]
				dv0[i] += dv
				quadH += float64(nnz) * hdiag[i] * (dv0[i]*dv0[i] - old*old)
			}
		}
	}
	sparsitronPoint(w, best, lambda/bestZ)
	return solve.Stats{Iterations: t}, nil
}

// expSmall returns e^x, by its Taylor series through x⁷ when |x| < 1/32
// (the truncation error, below x⁸/8! < 1e-16 relative, is under an ulp) and
// by math.Exp otherwise: Sparsitron's factors e^{dh} are that close to 1
// unless T is tiny.
func expSmall(x float64) float64 {
	if math.Abs(x) >= 1.0/32 {
		return math.Exp(x)
	}
	return 1 + x*(1+x*(1.0/2+x*(1.0/6+x*(1.0/24+x*(1.0/120+x*(1.0/720+x*(1.0/5040)))))))
}

// sparsitronVerify, when set (by tests), is called for every candidate
// that is bracketed instead of anchored, with its bracket and its exact risk.
var sparsitronVerify func(lo, hi, exact float64)

// riskCurvature bounds |f″| for f(q) = σ(−q)², the held-out risk of one row:
// with s = σ(−q), f″ = 2s²(1 − s)(2 − 3s), whose largest size over
// s ∈ [0, 1] is about 0.154 (at s ≈ 0.39); the tests check the bound on a
// fine grid.
const riskCurvature = 0.16

// sparsitronPoint sets w = scale·v, the point λ·(p⁺ − p⁻) for scale = λ/Z.
func sparsitronPoint(w, v []float64, scale float64) {
	for i, x := range v {
		w[i] = scale * x
	}
}
