package engine

import (
	"context"
	"errors"
	"math"

	"github.com/mrfkit/pairwise/solve"
)

// Design is what fista needs of a design: the methods of the solve
// layouts. solve.Spins, solve.OneHot and *codedDesign have them.
type Design interface {
	Dim() int
	GroupSize() int
	Margins(dst, w []float64)
	Gradient(dst, r []float64)
}

// Regression is one constrained logistic regression for fista: minimise
//
//	F(w) = Σ_m ĉ_m ln(1 + exp(−y_m ⟨w, x_m⟩)) + (ρ/2)·‖w − w_free‖₂²
//
// subject to ‖w‖ ≤ radius, with the normalised weights ĉ (Σ ĉ = 1),
// trace = Σ ĉ_m ‖x_m‖₂², and ρ = Ridge ≥ 0 a ridge (L2) term on every
// coordinate but those of group Free (the bias: w_free is w on that group,
// zero elsewhere). The ridge is part of the problem: the loss, the
// gradient, the curvature bounds, the Newton Hessians and the duality-gap
// certificate all include it, so the certificate bounds F(ŵ) − F* (the
// Frank–Wolfe gap ⟨∇F(w), w⟩ + radius·‖∇F(w)‖_* is a bound for any convex
// differentiable F on the ball).
type Regression struct {
	X       Design
	Y, CW   []float64 // the labels ±1 and the normalised weights ĉ (Σ ĉ = 1)
	Radius  float64
	Ridge   float64 // ρ ≥ 0, in the units of the normalised loss
	Free    int     // the group the ridge leaves out (the bias); −1 for none
	Tol     float64 // the certificate's target
	MaxIter int
	Trace   float64 // Σ ĉ_m ‖x_m‖₂²: the bound (1/4)·Trace on the curvature
	// For the Ising path's face steps (faceNewton): the second moment
	// Σ ĉ_m z_m z_mᵀ (covN×covN) and the means Σ ĉ_m z_m of the spins,
	// shared by all nodes, and the node (the bias column).
	cov, mean []float64
	covN      int
	bias      int
}

// Tuning of the face steps of fista: one is tried once the certificate
// (or its cheap estimate) is below faceGap, and again at most every
// faceEvery iterations.
const (
	faceGap   = 1e-2
	faceEvery = 4
)

// eps is the machine epsilon of float64.
const eps = 0x1p-52

// FistaWork holds the buffers of fista so that the regressions of one
// worker reuse them; the zero value is ready to use. Its seven row buffers
// (float64 a row each) are also the row scratch of the steps that run
// before fista (newton, isingMM) or inside it (faceNewton), which borrow
// them, so that a worker holds seven of them in all: on large N they are
// most of the learner's memory.
type FistaWork struct {
	buf  []float64 // the d-vectors
	rbuf []float64 // the row buffers
	face faceWork
	qp   []float64 // scratch of isingStart
}

// take returns the buffers of fista for dimension d and n rows.
func (ws *FistaWork) take(d, ng, n int) (vecs [5][]float64, scratch []float64, rows [7][]float64) {
	need := 5*d + ng
	if cap(ws.buf) < need {
		ws.buf = make([]float64, need)
	}
	buf := ws.buf[:need]
	cut := func(k int) []float64 { s := buf[:k:k]; buf = buf[k:]; return s }
	for i := range vecs {
		vecs[i] = cut(d)
	}
	scratch = cut(ng)
	return vecs, scratch, ws.rows(n)
}

// rows returns the seven row buffers of length n. Their contents are
// whatever the last user left.
func (ws *FistaWork) rows(n int) (rows [7][]float64) {
	if cap(ws.rbuf) < 7*n {
		ws.rbuf = make([]float64, 7*n)
	}
	for i := range rows {
		rows[i] = ws.rbuf[i*n : (i+1)*n : (i+1)*n]
	}
	return rows
}

// FISTA is the Adaptive schedule (see Schedule and accelerated, which runs
// it on the layouts of package solve) on a linearDesign with reusable
// buffers: the learners' fast path runs it on the table kernels of
// codedDesign, where it also takes the face steps of faceNewton. Besides
// the steps accelerated describes, it takes a free certificate at the
// extrapolated point and decides most sufficient-decrease tests by the
// bounds of bregmanBound. w is the warm start (scaled onto the ball when
// outside it) and receives the solution. Nothing is allocated once ws has
// grown to the problem's size.
func FISTA(ctx context.Context, p *Regression, w []float64, ws *FistaWork) (solve.Stats, error) {
	d, gs, radius := p.X.Dim(), p.X.GroupSize(), p.Radius
	y, cw := p.Y, p.CW
	n := len(y)
	if nrm := solve.Norm(w, gs); nrm > radius {
		scale := radius / nrm
		for j := range w {
			w[j] *= scale
		}
		ProjectBall(w, gs, radius, nil)
	}
	vecs, scratch, rows := ws.take(d, d/gs, n)
	x, xp, yv, xn, gx, gy := w, vecs[0], vecs[1], vecs[2], vecs[3], vecs[4]
	ux, uxp, uy, un, res, sx, sy := rows[0], rows[1], rows[2], rows[3], rows[4], rows[5], rows[6]

	// The coded design fuses the residuals into its gradient and the
	// Bregman bound into its margins (one pass over the rows for each).
	cd, fused := p.X.(*codedDesign)
	// grad sets g = ∇F at the point w whose margins are u.
	grad := func(g, sig, u, w []float64) {
		if fused {
			cd.residualGradient(g, res, sig, u, y, cw)
		} else {
			fastResiduals(res, sig, u, y, cw)
			p.X.Gradient(g, res)
		}
		p.ridgeGradient(g, w)
	}
	// The row sums below, split over the rows with the design's passes
	// when it splits them (rowsplit.go).
	loss := func(u, w []float64) float64 {
		if fused {
			return cd.loss(u, y, cw) + p.ridgeValue(w)
		}
		return LogisticLoss(u, y, cw) + p.ridgeValue(w)
	}
	// bregman is the Bregman divergence of F between a and b: the
	// logistic part's from the margins, plus (ρ/2)‖a − b‖² off the free
	// group (rb).
	bregman := func(a, b, sig []float64, rb float64) float64 {
		if fused {
			return cd.bregman(a, b, sig, y, cw) + rb
		}
		return LogisticBregman(a, b, sig, y, cw) + rb
	}
	p.X.Margins(ux, x)
	grad(gx, sx, ux, x)
	gap := solve.Gap(gx, x, gs, radius)
	gxOK := true

	lmax := 0.25*p.Trace + p.Ridge
	lmin := lmax * 1e-12
	lip := lmax
	if g2 := Dot(gx, gx); g2 > 0 && gap > p.Tol {
		p.X.Margins(un, gx)
		c := 0.0
		if fused {
			c = cd.Curvature(un, ux, y, cw)
		} else {
			c = Curvature(un, ux, y, cw)
		}
		c += 2 * p.ridgeDist(gx, nil)
		lip = min(max(c/g2, lmin), lmax)
	}
	t := 1.0
	copy(xp, x)
	copy(uxp, ux)
	it := 0
	faceOK := fused // face steps (faceNewton) on the coded designs
	faceNext := 0
	for !(gxOK && gap <= p.Tol) && it < p.MaxIter {
		if it%CtxEvery == CtxEvery-1 {
			if err := ctx.Err(); err != nil {
				CopyBack(w, x)
				return solve.Stats{Iterations: it, Loss: loss(ux, x), Gap: math.Inf(1)}, err
			}
		}
		it++
		lt := max(lip*LShrink, lmin)
		var tn, dx2 float64
		beta, gyOK := -1.0, false
		for {
			tn = (1 + math.Sqrt(1+4*(lt/lip)*t*t)) / 2
			b := (t - 1) / tn
			if !gyOK || b != beta {
				beta = b
				if beta == 0 {
					copy(yv, x)
					copy(uy, ux)
					if gxOK {
						copy(gy, gx)
						copy(sy, sx)
					} else {
						grad(gy, sy, uy, yv)
					}
				} else {
					for j := range yv {
						yv[j] = x[j] + beta*(x[j]-xp[j])
					}
					for m := range uy {
						uy[m] = ux[m] + beta*(ux[m]-uxp[m])
					}
					grad(gy, sy, uy, yv)
				}
				gyOK = true
				// A free certificate: ∇L(y) is known, and when y is
				// feasible (always inside the ball, often on its face
				// at the end) Gap(∇L(y), y) bounds L(y) − L*.
				if beta != 0 && solve.Norm(yv, gs) <= radius*(1+4*eps) {
					if g := solve.Gap(gy, yv, gs, radius); g <= p.Tol {
						CopyBack(w, yv)
						return solve.Stats{Iterations: it, Loss: loss(uy, yv), Gap: g, Converged: true}, nil
					}
				}
			}
			inv := 1 / lt
			for j := range xn {
				xn[j] = yv[j] - inv*gy[j]
			}
			ProjectBall(xn, gs, radius, scratch)
			var hi, ratio float64
			if fused {
				hi, ratio = cd.marginsBound(un, xn, uy, sy, y, cw)
			} else {
				p.X.Margins(un, xn)
				hi, ratio = bregmanBound(un, uy, sy, y, cw)
			}
			dx2 = 0
			for j := range xn {
				dx2 += (xn[j] - yv[j]) * (xn[j] - yv[j])
			}
			// The sufficient-decrease test, decided by bounds on the
			// Bregman divergence where they suffice (see bregmanBound);
			// the ridge's divergence rb is exact.
			if lt >= lmax {
				break
			}
			rb := p.ridgeDist(xn, yv)
			hi += rb
			thr := 0.5 * lt * dx2
			if hi <= thr || (hi <= thr*ratio && bregman(un, uy, sy, rb) <= thr) {
				break
			}
			lt = min(2*lt, lmax)
		}
		restart := 0.0
		for j := range xn {
			restart += (yv[j] - xn[j]) * (xn[j] - x[j])
		}
		est := solve.Gap(gy, xn, gs, radius) + 2*radius*lt*math.Sqrt(dx2)
		x, xp, xn = xn, x, xp
		ux, uxp, un = un, ux, uxp
		lip = lt
		if restart > 0 {
			t = 1
		} else {
			t = tn
		}
		gxOK = false
		if est <= p.Tol || it%GapEvery == 0 || it == p.MaxIter || (faceOK && est <= faceGap && it >= faceNext) {
			grad(gx, sx, ux, x)
			gap = solve.Gap(gx, x, gs, radius)
			gxOK = true
			if math.IsNaN(gap) {
				CopyBack(w, x)
				return solve.Stats{Iterations: it, Gap: gap}, errors.New("pairwise: the solver produced NaN")
			}
			// Near the optimum of an l1 problem, a Newton step on the
			// face (faceNewton) replaces the slow end of the first-order
			// run; the momentum restarts from its point.
			if faceOK && gap > p.Tol && gap <= faceGap && it >= faceNext {
				faceNext = it + faceEvery
				// The face step borrows the rows that the next iteration
				// recomputes (uy, sy, un, res); uxp stays for when it fails.
				if g, ok := faceNewton(p, cd, x, ux, gx, sx, &ws.face, [3][]float64{uy, res, un}, sy); ok {
					gap = g
					copy(xp, x)
					copy(uxp, ux)
					t = 1
				}
			}
		}
	}
	if !gxOK {
		grad(gx, sx, ux, x)
		gap = solve.Gap(gx, x, gs, radius)
	}
	CopyBack(w, x)
	return solve.Stats{
		Iterations: it,
		Loss:       loss(ux, x),
		Gap:        gap,
		Converged:  gap <= p.Tol,
	}, nil
}

// ridgeGradient adds ρ·w, off the free group, to the gradient g.
func (p *Regression) ridgeGradient(g, w []float64) {
	if p.Ridge == 0 {
		return
	}
	lo, hi := p.freeRange()
	for j, v := range w {
		if j < lo || j >= hi {
			g[j] += p.Ridge * v
		}
	}
}

// ridgeValue returns (ρ/2)·‖w‖² off the free group.
func (p *Regression) ridgeValue(w []float64) float64 {
	return p.ridgeDist(w, nil)
}

// ridgeDist returns (ρ/2)·‖a − b‖² off the free group (b nil for 0): the
// ridge's Bregman divergence between a and b.
func (p *Regression) ridgeDist(a, b []float64) float64 {
	if p.Ridge == 0 {
		return 0
	}
	lo, hi := p.freeRange()
	s := 0.0
	for j, v := range a {
		if j >= lo && j < hi {
			continue
		}
		if b != nil {
			v -= b[j]
		}
		s += v * v
	}
	return 0.5 * p.Ridge * s
}

// freeRange returns the coordinates [lo, hi) of the free group (empty when
// Free < 0).
func (p *Regression) freeRange() (lo, hi int) {
	if p.Free < 0 {
		return 0, 0
	}
	gs := p.X.GroupSize()
	return p.Free * gs, (p.Free + 1) * gs
}

// fastResiduals is logisticResiduals with the exponential of expTable
// written out (the compiler does not inline it), one division a row and no
// branch on the sign: r_m = −ĉ_m y_m σ(b_m) with b_m = −y_m u_m, and
// sig_m = σ(−|b_m|).
func fastResiduals(r, sig, u, y, cw []float64) {
	r, sig, y, cw = r[:len(u)], sig[:len(u)], y[:len(u)], cw[:len(u)]
	for m, um := range u {
		b := -y[m] * um
		x := -math.Abs(b)
		// e = expTable(x), see there.
		z := x*expLog2e64 + expShifter
		nb := int64(math.Float64bits(z))
		z -= expShifter
		t := x - z*expLn2Hi64 - z*expLn2Lo64
		e := exp2Table[nb&63] * (1 + t*(1+t*(1.0/2+t*(1.0/6+t*(1.0/24+t*(1.0/120)))))) *
			math.Float64frombits(uint64(nb>>6+1023)<<52)
		if x < -708 {
			e = 0
		}
		q := 1 / (1 + e) // σ(|b|)
		small := e * q   // σ(−|b|)
		// σ(b) is q for b > 0 and small otherwise (both are 1/2 at 0).
		sb := small + (q-small)*(0.5+math.Copysign(0.5, b))
		r[m] = -cw[m] * y[m] * sb
		sig[m] = small
	}
}

// bregmanBound returns hi ≥ logisticBregman(a, b, sig, y, cw) computed
// without transcendental functions, and a ratio ≥ 1 with
// LogisticBregman ≥ hi/ratio. Row by row, with β = −y_m b_m, δ the change
// −y_m(a_m − b_m) and sp the softplus,
//
//	D = sp(β+δ) − sp(β) − sp′(β)δ = ∫₀^δ (δ−τ) sp″(β+τ) dτ,
//
// and sp″ = σ′ satisfies |(ln σ′)′| = |1 − 2σ| ≤ 1, so σ′(β)e^{−|τ|} ≤
// sp″(β+τ) ≤ σ′(β)e^{|τ|}, which gives
//
//	σ′(β)(e^{−|δ|} − 1 + |δ|) ≤ D ≤ σ′(β)(e^{|δ|} − 1 − |δ|).
//
// For |δ| ≤ 1 the Taylor remainders give e^{|δ|} − 1 − |δ| ≤
// (δ²/2)(1 + 0.91|δ|) and e^{−|δ|} − 1 + |δ| ≥ (δ²/2)(1 − |δ|/3). Always
// D ≤ δ²/8, since σ′ ≤ 1/4. σ′(β) = s(1 − s) with s = sig_m. The ratio is
// (1 + 0.91d)/(1 − d/3) for the largest |δ| = d ≤ 1 among rows whose
// bound is the Taylor one, and +Inf when some |δ| > 1 (no lower bound).
func bregmanBound(a, b, sig, y, cw []float64) (hi, ratio float64) {
	b, sig, cw = b[:len(a)], sig[:len(a)], cw[:len(a)] // y enters through sig only
	s, dmax := 0.0, 0.0
	for m, am := range a {
		d := am - b[m] // |δ| = |a_m − b_m| since y_m = ±1
		ad := math.Abs(d)
		dmax = max(dmax, ad)
		s += cw[m] * bregmanRowFactor(ad, sig[m]) * d * d
	}
	// Where the 1/4 cap binds, the Taylor bound is larger still, so the
	// ratio of the Taylor bounds covers those rows too.
	if dmax > 1 {
		return 0.5 * s, math.Inf(1)
	}
	return 0.5 * s, (1 + 0.91*dmax) / (1 - dmax/3)
}

// bregmanRowFactor returns the factor of δ² in one row's term of
// bregmanBound, for |δ| = ad and sig = σ(−|β|): σ′(β)(1 + 0.91|δ|) for
// |δ| ≤ 1, capped at 1/4 (bregmanBound halves the sum).
func bregmanRowFactor(ad, sig float64) float64 {
	bound := 0.25
	if ad <= 1 {
		bound = min(bound, sig*(1-sig)*(1+0.91*ad))
	}
	return bound
}

// exp2Table[j] = 2^(j/64).
var exp2Table = func() (t [64]float64) {
	for j := range t {
		t[j] = math.Exp2(float64(j) / 64)
	}
	return t
}()

// expTable returns e^x within 3 ulp of math.Exp for −708 ≤ x ≤ 709
// (TestExpTable); 0 below −708, where e^x is subnormal, and for NaN; +Inf
// above 709. x = (64k + j)·ln2/64 + r with |r| ≤ ln2/128, so e^x = 2^k ·
// 2^(j/64) · e^r, and e^r is its Taylor polynomial of degree 5, whose
// remainder |r|⁶/720 is below 4e-17. It is about twice as fast as math.Exp
// in the residual loop (BenchmarkRowFunctions).
func expTable(x float64) float64 {
	if !(x >= -708) {
		return 0
	}
	if x > 709 {
		return math.Inf(1)
	}
	z := x*expLog2e64 + expShifter
	n := int64(math.Float64bits(z))
	z -= expShifter
	r := x - z*expLn2Hi64 - z*expLn2Lo64
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120)))))
	return exp2Table[n&63] * p * math.Float64frombits(uint64(n>>6+1023)<<52)
}

// Constants of expTable.
const (
	expShifter = 0x1.8p52 // adding it rounds to an integer in the low bits
	expLog2e64 = 64 * math.Log2E
	expLn2Hi64 = 6.93147180369123816490e-01 / 64 // ln2 in two parts (fdlibm)
	expLn2Lo64 = 1.90821492927058770002e-10 / 64
)
