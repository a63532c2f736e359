package engine

import (
	"math"

	"github.com/mrfkit/pairwise/solve"
)

// Numerics shared by every method: the logistic loss and its derivatives
// from the margins, and the exact Euclidean projection onto the constraint
// balls.

// CtxEvery is how often (in iterations) the solvers poll ctx.Err.
const CtxEvery = 8

// Tuning of the Adaptive schedule.
const (
	// LShrink multiplies the smoothness estimate L before every step, so
	// that L can follow the curvature down as the iterates settle
	// (Scheinberg–Goldfarb–Bai); a failed sufficient-decrease test doubles
	// it. 0.9 costs one failed test in about seven steps.
	LShrink = 0.9
	// GapEvery forces a certificate at least this often, whatever the
	// cheap estimate says.
	GapEvery = 32
)

// CopyBack copies x into w unless they are the same slice.
func CopyBack(w, x []float64) {
	if len(w) > 0 && &w[0] == &x[0] {
		return
	}
	copy(w, x)
}

// Dot returns Σ a_i b_i over the length of a.
func Dot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// LogisticResiduals sets r_m = ∂/∂u_m of ĉ_m ln(1 + e^{−y_m u_m}), that is
// −ĉ_m y_m σ(b_m) with b_m = −y_m u_m, so that ∇L = Σ r_m x_m, and
// sig_m = σ(−|b_m|) ≤ 1/2 (accurate to the last digit even where σ(b_m)
// rounds to 1) for logisticBregman. sig may be nil.
func LogisticResiduals(r, sig, u, y, cw []float64) {
	for m, um := range u {
		b := -y[m] * um
		e := math.Exp(-math.Abs(b))
		small := e / (1 + e)
		s := small
		if b > 0 {
			s = 1 / (1 + e)
		}
		r[m] = -cw[m] * y[m] * s
		if sig != nil {
			sig[m] = small
		}
	}
}

// LogisticLoss returns Σ ĉ_m ln(1 + e^{−y_m u_m}), each term by
// softplusFast (within a few ulp of solve.Softplus, at a third of its
// cost).
func LogisticLoss(u, y, cw []float64) float64 {
	s := 0.0
	for m, um := range u {
		if cw[m] != 0 {
			s += cw[m] * softplusFast(-y[m]*um)
		}
	}
	return s
}

// Curvature returns Σ ĉ_m σ′(y_m u_m) v_m², the second derivative of L along
// a direction whose margins are v, at margins u; σ′(x) = e/(1 + e)² with
// e = e^{−|x|} by expTable (one exponential and one division a row).
func Curvature(v, u, y, cw []float64) float64 {
	s := 0.0
	for m, um := range u {
		// σ′(y_m u_m) = e/(1 + e)² with e = e^{−|u_m|}, for y_m = ±1.
		e := expTable(-math.Abs(y[m] * um))
		q := 1 / (1 + e)
		s += cw[m] * e * q * q * v[m] * v[m]
	}
	return s
}

// LogisticBregman returns L(a) − L(b) − ⟨∇L(b), a − b⟩ for the points whose
// margins are a and b, computed row by row by softplusBregman; sig holds
// σ(−|y_m b_m|) from logisticResiduals at b.
func LogisticBregman(a, b, sig, y, cw []float64) float64 {
	s := 0.0
	for m, am := range a {
		if cw[m] != 0 {
			s += cw[m] * SoftplusBregman(-y[m]*b[m], sig[m], -y[m]*(am-b[m]))
		}
	}
	return s
}

// SoftplusBregman returns D = sp(b+δ) − sp(b) − σ(b)δ ≥ 0 for the softplus
// sp(x) = ln(1 + e^x), given s = σ(−|b|), accurately also when δ is tiny,
// where the difference cancels. D is unchanged by (b, δ) → (−b, −δ), since
// sp(x) − sp(−x) = x is linear, so b ≤ 0 and s = σ(b) ≤ 1/2 below. For
// |δ| < 0.05 it sums the Taylor series Σ_k sp⁽ᵏ⁾(b) δᵏ/k! up to δ⁶, with
// sp⁽²⁾ = a = s(1−s), sp⁽³⁾ = a(1−2s), sp⁽⁴⁾ = a(1−6a),
// sp⁽⁵⁾ = a(1−2s)(1−12a), sp⁽⁶⁾ = a(1−30a+120a²) (truncation below 1e-10
// relative); otherwise it uses sp(b+δ) − sp(b) = ln(1 + s(e^δ − 1)) (by
// expTable and log1pFast, whose few ulp the cancellation with sδ makes at
// most 1e-12 relative, far inside the Taylor branch's), or the softplus
// itself for δ ≥ 30.
func SoftplusBregman(b, s, delta float64) float64 {
	if b > 0 {
		b, delta = -b, -delta
	}
	if math.Abs(delta) < 0.05 {
		a := s * (1 - s)
		t := 1 - 2*s
		d := delta
		return a * d * d * (1.0/2 + d*(t/6+d*((1-6*a)/24+d*(t*(1-12*a)/120+d*(1-30*a+120*a*a)/720))))
	}
	if delta < 30 {
		// |δ| ≥ 0.05: e^δ − 1 loses at most 5 bits to the subtraction.
		return math.Max(0, log1pFast(s*(expTable(delta)-1))-s*delta)
	}
	return math.Max(0, solve.Softplus(b+delta)-math.Log1p(math.Exp(b))-s*delta)
}

// ProjectBall replaces x by its Euclidean projection onto the ball
// {‖x‖ ≤ R} of the l1 norm (gs = 1) or the l2,1 norm with groups of gs
// coordinates. norms is scratch of length len(x)/gs (nil allocates).
//
// The projection keeps each group's direction and moves the vector of group
// norms ρ onto the l1 ball: ρ_j ← (ρ_j − τ)_+ with τ ≥ 0 the smallest value
// with Σ(ρ_j − τ)_+ ≤ R, found exactly by Michelot's algorithm. For gs = 1
// this is the soft thresholding of Duchi et al. (2008). A final rescaling
// absorbs the rounding, so ‖x‖ ≤ R·(1 + 4ε) afterwards.
func ProjectBall(x []float64, gs int, radius float64, norms []float64) {
	ng := len(x) / gs
	if norms == nil {
		norms = make([]float64, ng)
	}
	norms = norms[:ng]
	total := 0.0
	if gs == 1 {
		for j, v := range x {
			norms[j] = math.Abs(v)
			total += norms[j]
		}
	} else {
		for j := range norms {
			ss := 0.0
			for _, v := range x[j*gs : (j+1)*gs] {
				ss += v * v
			}
			norms[j] = math.Sqrt(ss)
			total += norms[j]
		}
	}
	if total <= radius {
		return
	}
	tau := L1Threshold(norms, radius, total)
	after := 0.0
	for _, v := range norms {
		if v > tau {
			after += v - tau
		}
	}
	fix := 1.0
	if after > radius {
		fix = radius / after
	}
	for j, v := range norms {
		scale := 0.0
		if v > tau {
			scale = fix * (v - tau) / v
		}
		if gs == 1 {
			x[j] *= scale
			continue
		}
		for i := j * gs; i < (j+1)*gs; i++ {
			x[i] *= scale
		}
	}
}

// L1Threshold returns τ > 0 with Σ_j (v_j − τ)_+ = R for v ≥ 0 with
// Σ v_j = total > R, by Michelot's algorithm: τ = (Σ_A v − R)/|A| over the
// active set A, dropping from A the v_j ≤ τ until none is dropped. τ only
// grows, so A shrinks to the exact support in at most len(v) passes. v is
// not modified: A is always {j : v_j > τ}.
func L1Threshold(v []float64, radius, total float64) float64 {
	count := 0
	for _, x := range v {
		if x > 0 {
			count++
		}
	}
	tau := (total - radius) / float64(count)
	for {
		sum, k := 0.0, 0
		for _, x := range v {
			if x > tau {
				sum += x
				k++
			}
		}
		if k == count {
			return tau
		}
		next := (sum - radius) / float64(k)
		if next <= tau { // only by rounding: τ is exact to the last digits
			return tau
		}
		count, tau = k, next
	}
}

// Sigmoids returns σ(u) and σ(−y·u) for a label y = ±1 from one
// exponential, e^{−|u|} by expTable: both within a few ulp of what
// solve.Sigmoid returns (the same expressions of an exponential within 3
// ulp of math.Exp; TestSigmoids), at a quarter of its cost when a row
// needs both (the edge test's moments). NaN for NaN u. For a y other
// than ±1 it calls solve.Sigmoid.
func Sigmoids(u, y float64) (sg, sgy float64) {
	if y != 1 && y != -1 {
		return solve.Sigmoid(u), solve.Sigmoid(-y * u)
	}
	e := expTable(-math.Abs(u))
	if math.IsNaN(u) {
		e = u // expTable returns 0 for NaN
	}
	hi, lo := 1/(1+e), e/(1+e) // σ(|u|), σ(−|u|)
	sg, sgy = hi, lo
	if !(u >= 0) {
		sg = lo
	}
	if -y*u < 0 || math.IsNaN(u) {
		sgy = lo
	} else {
		sgy = hi
	}
	return sg, sgy
}

// log1pFast returns ln(1 + x) within a few ulp of math.Log1p
// (TestLog1pFast) for −1/2 ≤ x ≤ 1, the range of the loss's ln(1 + e^{−|u|})
// and of the Bregman divergence's ln(1 + s(e^δ − 1)); outside it (and for
// NaN) it calls math.Log1p. With c = j/128 the multiple of 1/128 nearest x,
//
//	ln(1 + x) = ln(1 + c) + ln(1 + r),   r = (x − c)/(1 + c),
//
// where x − c is exact (Sterbenz: x and c are within a factor 2, or c = 0),
// |r| ≤ 1/128, ln(1 + c) comes from a table and ln(1 + r) is its Taylor
// polynomial of degree 7 (remainder below r⁸/8 < 2e-18). For |x| < 1/256,
// c = 0 and r = x, so small arguments keep their relative accuracy. About
// BenchmarkRowFunctions.
func log1pFast(x float64) float64 {
	if !(x >= -0.5 && x <= 1) {
		return math.Log1p(x)
	}
	j := int(x*128+64.5) - 64 // round(128x), from −64 to 128
	r := (x - float64(j)*(1.0/128)) * log1pInv[j+64]
	p := r * (1 + r*(-1.0/2+r*(1.0/3+r*(-1.0/4+r*(1.0/5+r*(-1.0/6+r*(1.0/7)))))))
	return log1pTab[j+64] + p
}

// log1pTab[j+64] = ln(1 + j/128) and log1pInv[j+64] = 1/(1 + j/128), for
// j = −64 … 128.
var log1pTab, log1pInv = func() (t, inv [193]float64) {
	for j := -64; j <= 128; j++ {
		c := float64(j) / 128
		t[j+64] = math.Log1p(c)
		inv[j+64] = 1 / (1 + c)
	}
	return t, inv
}()

// softplusFast returns ln(1 + e^x) = max(x, 0) + ln(1 + e^{−|x|}) from
// expTable and log1pFast, within a few ulp of solve.Softplus without its
// branch on the sign of x (TestSoftplusFast); NaN for NaN, 0 for −∞.
func softplusFast(x float64) float64 {
	return max(x, 0) + log1pFast(expTable(-math.Abs(x)))
}

// logisticPair returns, for a margin u, σ(u), σ(−u), the loss ln(1 + e^{−u})
// of a label +1 and the loss ln(1 + e^{u}) of a label −1, from one
// exponential e^{−|u|} (expTable) and one log1pFast: the refits' two labels
// of a design row. Within a few ulp of solve.Sigmoid and solve.Softplus
// (TestLogisticPair); NaN for NaN.
func logisticPair(u float64) (sg, sgm, spPos, spNeg float64) {
	e := expTable(-math.Abs(u))
	if math.IsNaN(u) {
		e = u
	}
	hi, lo := 1/(1+e), e/(1+e) // σ(|u|), σ(−|u|)
	lp := log1pFast(e)
	sg, sgm = lo, hi
	if u >= 0 {
		sg, sgm = hi, lo
	}
	return sg, sgm, max(-u, 0) + lp, max(u, 0) + lp
}
