package engine

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise/solve"
)

// The unconstrained problems: a Task whose rows are read one at a time as
// dense vectors (Task.Each), fitted with radius +Inf, is the maximum
// likelihood estimate of its logistic regression, found by Newton's method.
// The learners' edge test refits each Ising node this way on the spins it
// screened (a handful), and reads the standard errors off the inverse of
// the Fisher information at the estimate (InverseFisher).

// Settings of the unconstrained Newton method.
const (
	// mleDecrement is the Newton decrement gᵀH⁻¹g (twice the loss a full
	// Newton step would still gain, per unit of weight) below which the
	// full step is taken and the fit stops: the step is then of order
	// 1e-6 and, Newton converging quadratically, the error after it of
	// order 1e-12. Above it the gain, 5e-13 or more, is well clear of the
	// loss's rounding (about 1e-16 times the loss), so the line search can
	// see it.
	mleDecrement = 1e-12
	// mleReuse is the decrement below which the final full step makes
	// no pass at the estimate: the Hessian and loss of the last iterate,
	// a step of |step| ≤ √(dec/λ_min) (1e-7 for λ_min ≥ 1e-2) away,
	// stand for them; the Hessian's entries move by about that relative
	// amount and the loss by dec/2 ≤ 5e-17, far below what a standard
	// error or a criterion can see. Newton's decrements fall about as
	// 1e-2, 1e-5, 1e-9, 1e-18 on the refits of the edge test, so the
	// last step mostly qualifies: a fifth of the refits' passes (one of
	// five) is saved.
	mleReuse = 1e-16
	// mleMaxWeight bounds a coefficient: beyond it (logit units) the data
	// separate the labels and there is no finite estimate.
	mleMaxWeight = 20
	// mleSteps bounds the Newton steps.
	mleSteps = 50
)

// errNoMLE reports that the maximum likelihood estimate does not exist or
// was not reached: separated labels, a singular Hessian, or a line search
// that found no decrease.
var errNoMLE = errors.New("pairwise: no finite maximum likelihood estimate (separated labels or a singular Hessian)")

// RowEach calls f with every distinct design vector x (length Dim) and the
// total weights cNeg and cPos of its rows labelled −1 and +1 (either may be
// 0); f must neither keep nor change x. The two labels of a design row share its margin,
// its sigmoids and its term of the Hessian, so that a table of patterns
// (the refits' spins) costs one term a pattern, not one a label.
type RowEach func(f func(x []float64, cNeg, cPos float64))

// mle fits the unconstrained logistic regression of t (t.Each, t.Dim rows
// of the design) from w by damped Newton steps, into w. The Stats' Gap is
// half the last Newton decrement, the second-order estimate of L(w) − L*;
// Converged reports that it fell below mleDecrement/2 with every
// coefficient finite and within mleMaxWeight. A failure leaves w as it was
// and returns errNoMLE.
func (e *Driver) mle(ctx context.Context, t *Task, w []float64) (solve.Stats, error) {
	e.fisher, e.fisherW = nil, nil
	p := len(w)
	total := 0.0
	t.Each(func(_ []float64, cn, cp float64) { total += cn + cp })
	if total <= 0 {
		clear(w)
		return solve.Stats{Converged: true}, nil
	}
	v := append([]float64(nil), w...)
	loss := func(v []float64) float64 {
		l := 0.0
		t.Each(func(x []float64, cn, cp float64) {
			_, _, spPos, spNeg := logisticPair(floats.Dot(v, x))
			l += pairLoss(cn, cp, spNeg, spPos)
		})
		return l / total
	}
	// h, g hold the Hessian and gradient at v; the first trial point of
	// each line search is evaluated with its Hessian and gradient in one
	// pass (fisherLoss) into h2, g2, which are swapped in when the point
	// is taken, as it nearly always is: one pass a Newton step instead of
	// two. The values are those of separate passes, bit for bit.
	h, g := mat.NewSymDense(p, nil), make([]float64, p)
	h2, g2 := mat.NewSymDense(p, nil), make([]float64, p)
	step, next := make([]float64, p), make([]float64, p)
	var chol spdFactor
	cur := fisherLoss(t, v, total, h, g)
	for it := 0; it < mleSteps; it++ {
		if err := ctx.Err(); err != nil {
			return solve.Stats{Iterations: it, Loss: cur, Gap: math.Inf(1)}, err
		}
		if !chol.factor(h) {
			return solve.Stats{Iterations: it}, errNoMLE
		}
		chol.solveVec(step, g)
		// Once the decrement is below mleDecrement the full step is taken
		// and the estimate is final: near rounding level the loss is too
		// flat for a line search to tell one point from another. The
		// Hessian for InverseFisher and the loss are then those at the
		// estimate, from one more pass, unless the decrement is below
		// mleReuse: the step, |step| ≤ √(dec/λ_min(h)), is then so short
		// that h and the loss at v serve (see mleReuse).
		if dec := floats.Dot(g, step); dec < mleDecrement {
			floats.Sub(v, step)
			if floats.Norm(v, math.Inf(1)) > mleMaxWeight {
				return solve.Stats{Iterations: it + 1}, errNoMLE
			}
			copy(w, v)
			l := cur
			if dec < mleReuse {
				h2 = h
			} else {
				l = fisherLoss(t, v, total, h2, g2)
			}
			e.fisher, e.fisherW = h2, slices.Clone(v)
			return solve.Stats{Iterations: it + 1, Loss: l, Gap: dec / 2, Converged: true}, nil
		}
		// Otherwise a damped step: halve it until the loss does not grow.
		s := 1.0
		var nl float64
		fresh := false // h2, g2 hold the derivatives at next
		for half := 0; ; half++ {
			floats.AddScaledTo(next, v, -s, step)
			if half == 0 {
				nl, fresh = fisherLoss(t, next, total, h2, g2), true
			} else {
				nl, fresh = loss(next), false
			}
			if nl <= cur {
				break
			}
			if half == 30 {
				return solve.Stats{Iterations: it + 1}, errNoMLE
			}
			s /= 2
		}
		copy(v, next)
		cur = nl
		if floats.Norm(v, math.Inf(1)) > mleMaxWeight {
			return solve.Stats{Iterations: it + 1}, errNoMLE // a separating predictor
		}
		if fresh {
			h, h2, g, g2 = h2, h, g2, g
		} else {
			fisherLoss(t, v, total, h, g)
		}
	}
	return solve.Stats{Iterations: mleSteps}, errNoMLE
}

// fisherLoss sets h to the Hessian H = Σ ĉ σ(u)σ(−u) x xᵀ and g to the
// gradient Σ ĉ (−y σ(−y u)) x of t's loss at v, ĉ = c/total (only the
// upper triangle of h is written, as SymDense keeps it), and returns the
// loss at v, Σ c ln(1 + e^{−y u})/total, summed in the order of mle's
// loss: each design row's numbers for both labels come from one
// exponential (logisticPair), and its two labels add one term to the
// Hessian, whose weight σ(u)σ(−u) does not depend on the label. Each row's
// weighted outer product is added to the upper triangle of h directly, a
// row of the triangle at a time: the refits have a handful of columns,
// where a symmetric rank-k update of stacked rows (the earlier way) spent
// more on its calls and the rows' square roots than on the sums.
func fisherLoss(t *Task, v []float64, total float64, h *mat.SymDense, g []float64) float64 {
	if t.Patterns != nil && len(g) >= 2 && len(g) <= 17 {
		return fisherPatterns(t, v, total, h, g)
	}
	p := len(g)
	h.Zero()
	clear(g)
	raw := h.RawSymmetric()
	hd, st := raw.Data, raw.Stride
	l := 0.0
	t.Each(func(x []float64, cn, cp float64) {
		u := floats.Dot(v, x)
		sg, sgm, spPos, spNeg := logisticPair(u)
		l += pairLoss(cn, cp, spNeg, spPos)
		// ∂/∂u: −σ(−u) for a label +1, σ(u) for −1.
		floats.AddScaled(g, (cn*sg-cp*sgm)/total, x)
		a := (cn + cp) / total * sg * sgm
		x = x[:p]
		for r, xr := range x {
			if xr == 0 {
				continue
			}
			s := a * xr
			row := hd[r*st+r : r*st+p]
			for c, xc := range x[r:] {
				row[c] += s * xc
			}
		}
	})
	return l / total
}

// pairLoss returns cNeg·spNeg + cPos·spPos, leaving out a label of zero
// weight (whose softplus may be +Inf at an infinite margin).
func pairLoss(cNeg, cPos, spNeg, spPos float64) float64 {
	l := 0.0
	if cNeg != 0 {
		l += cNeg * spNeg
	}
	if cPos != 0 {
		l += cPos * spPos
	}
	return l
}

// InverseFisher is the package's InverseFisher, reading the Hessian that
// the driver's last unconstrained fit computed at its estimate when w is
// that estimate, unchanged (or at its last iterate, a step shorter than
// mleReuse allows away: see mle).
func (e *Driver) InverseFisher(t *Task, w []float64) (*mat.SymDense, bool) {
	if e.fisher == nil || !slices.Equal(w, e.fisherW) {
		return InverseFisher(t, w)
	}
	return inverseOf(e.fisher)
}

// InverseFisher returns the inverse of the Hessian of the unconstrained
// task t's loss at w (the Fisher information per unit of weight; divided by
// the total weight N it is the asymptotic covariance of the estimate), or
// false when the Hessian is singular.
func InverseFisher(t *Task, w []float64) (*mat.SymDense, bool) {
	p := len(w)
	total := 0.0
	t.Each(func(_ []float64, cn, cp float64) { total += cn + cp })
	if total <= 0 {
		return nil, false
	}
	h, g := mat.NewSymDense(p, nil), make([]float64, p)
	fisherLoss(t, w, total, h, g)
	return inverseOf(h)
}

// inverseOf returns the inverse of the Hessian h, or false when it is
// singular.
func inverseOf(h *mat.SymDense) (*mat.SymDense, bool) {
	return InverseSPD(h)
}

// fisherPatterns is fisherLoss on a task whose rows are the sign patterns
// t.Patterns (at most 16 bits): the loss and the gradient row by row as
// there, and the Hessian H = Σ_m a_m x_m x_mᵀ (a_m = ĉ_m σ(u_m)σ(−u_m),
// x_m = (1, s(key_m))) through histograms of the keys' bytes: A_γ[c], the
// sum of a over the patterns whose byte γ is c, gives the block of byte
// γ's bits and its row of the bias column, Σ_c A_γ[c] s(c) s(c)ᵀ; the
// block between bytes 0 and 1 is Σ_c s(c) V_cᵀ with V_c the sum of a·s_1
// over the patterns whose byte 0 is c. A pattern then costs one or two
// histogram additions and a vector of at most 8, where the outer product
// cost p²/2 (p up to 16): the refits' Hessians were 8% of a bootstrap
// resample. The sums run in another order than fisherLoss's: H agrees with
// it to rounding (TestFisherPatterns).
func fisherPatterns(t *Task, v []float64, total float64, h *mat.SymDense, g []float64) float64 {
	p := len(g)
	q := p - 1
	s0 := min(q, 8)
	s1 := q - s0
	// The histograms, from a pool: a refit makes four or five passes and
	// a bootstrap tens of thousands of refits, at up to 16 kB a pass.
	buf := patternPool.Get().(*[]float64)
	defer patternPool.Put(buf)
	need := 1<<s0 + 1<<s1 + (1<<s0)*s1
	if cap(*buf) < need {
		*buf = make([]float64, need)
	}
	hist := (*buf)[:need]
	clear(hist)
	a0, a1, cross := hist[:1<<s0], hist[1<<s0:1<<s0+1<<s1], hist[1<<s0+1<<s1:]
	clear(g)
	l := 0.0
	m := 0
	t.Each(func(x []float64, cn, cp float64) {
		key := t.Patterns[m]
		m++
		u := floats.Dot(v, x)
		sg, sgm, spPos, spNeg := logisticPair(u)
		l += pairLoss(cn, cp, spNeg, spPos)
		floats.AddScaled(g, (cn*sg-cp*sgm)/total, x)
		a := (cn + cp) / total * sg * sgm
		c0 := key & (1<<s0 - 1)
		a0[c0] += a
		if s1 > 0 {
			a1[key>>s0] += a
			floats.AddScaled(cross[int(c0)*s1:(int(c0)+1)*s1], a, x[1+s0:p])
		}
	})
	h.Zero()
	raw := h.RawSymmetric()
	hd, st := raw.Data, raw.Stride
	// block adds a byte's histogram: its bits are coordinates off..off+size-1.
	block := func(a []float64, off, size int) {
		for c, w := range a {
			if w == 0 {
				continue
			}
			sc := byteSigns[c*8 : c*8+size]
			if off == 1 {
				hd[0] += w // the bias's own entry, once
			}
			for r, s := range sc {
				sr := w * s
				hd[off+r] += sr // bias row
				row := hd[(off+r)*st+off+r : (off+r)*st+off+size]
				for k, sk := range sc[r:] {
					row[k] += sr * sk
				}
			}
		}
	}
	block(a0, 1, s0)
	if s1 > 0 {
		block(a1, 1+s0, s1)
		for c, w := range a0 {
			if w == 0 {
				continue // no pattern has this byte: V_c = 0
			}
			vc := cross[c*s1 : (c+1)*s1]
			for r, s := range byteSigns[c*8 : c*8+s0] {
				row := hd[(1+r)*st+1+s0 : (1+r)*st+p]
				for k, vk := range vc {
					row[k] += s * vk
				}
			}
		}
	}
	return l / total
}

// patternPool holds fisherPatterns' histograms between passes.
var patternPool = sync.Pool{New: func() any { return new([]float64) }}

// byteSigns[8c + t] is s_t(c) = ±1, bit t of the byte c.
var byteSigns = func() []float64 {
	s := make([]float64, 256*8)
	for c := range 256 {
		for t := range 8 {
			s[8*c+t] = float64(c>>t&1)*2 - 1
		}
	}
	return s
}()
