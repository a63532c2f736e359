package engine

import (
	"context"
	"math"

	"github.com/mrfkit/pairwise/solve"
)

// Newton's method for the small one-hot regressions of the pairwise path.
//
// On the pairwise path the l2,1 constraint is rarely active at the optimum
// (its radius 2λ√k is loose for the value-pair regressions: on the 3×3 grid
// with k = 6 and N = 50000, 1 regression in 135 ends on the boundary), so
// the problem is an unconstrained logistic regression, where Newton's method
// converges quadratically: about five steps where fista needs thirty. A
// step needs the Hessian Σ_m ĉ_m σ′_m x_m x_mᵀ, which for one-hot rows with
// n ones costs n(n+1)/2 additions a row, and a d×d Cholesky factorisation
// (d = n·k); both are cheap for the small n of the paper's k-ary
// experiments, and newPairFast uses Newton only where they are
// (useNewton). A step that would leave the ball, or fail to decrease the
// loss, hands the problem over to fista, which handles the constraint; the
// stopping rule is the same duality-gap certificate either way.

// useNewton reports whether Newton steps pay on one-hot regressions with n
// variables in groups of codes, alphabet k, by a rough cost model: a
// Newton step (about six fista iterations saved) must cost no more than
// those iterations, counting the Hessian's n(n+1)/2 additions a row against
// an iteration's 2·groups table reads and updates plus about 30 operations
// for the exponential and the rest (the profile of the 3×3 grid with k = 6);
// and the factorisation of the d×d Hessian must stay small (d ≤ 256).
func useNewton(n, k, groups int) bool {
	return n*(n+1)/2 <= 6*(2*groups+30) && n*k <= 256
}

// newtonWork is the scratch of newton.
type newtonWork struct {
	hess            []float64 // d×d
	g, v, wt        []float64 // d
	res, sig, u, du []float64 // rows, borrowed from a fistaWork
	un              []float64 // rows, borrowed
}

// grow sizes the d-vectors and takes the row buffers from fw, which fista
// will overwrite: whatever newton leaves there is not read again.
func (nw *newtonWork) grow(d, rows int, fw *FistaWork) {
	grow := func(s []float64, l int) []float64 {
		if cap(s) < l {
			return make([]float64, l)
		}
		return s[:l]
	}
	nw.hess = grow(nw.hess, d*d)
	nw.g, nw.v, nw.wt = grow(nw.g, d), grow(nw.v, d), grow(nw.wt, d)
	r := fw.rows(rows)
	nw.res, nw.sig, nw.u, nw.du, nw.un = r[0], r[1], r[2], r[3], r[4]
}

// maxNewtonSteps bounds the Newton steps before newton hands over to fista.
// From the learners' starts five to seven steps reach the tolerance.
const maxNewtonSteps = 25

// newton runs Newton steps with a backtracking line search on p from w
// (scaled into the ball first), where active holds, for every row, the n
// coordinates of w that the row's one-hot vector selects. It returns
// done = true with the Stats once the duality gap certifies p.Tol;
// otherwise (a step leaves the ball, makes no progress, or the steps run
// out) it returns done = false with w a feasible point no worse than the
// start and the steps taken, and the caller continues with fista.
func newton(ctx context.Context, p *Regression, active []uint16, nv int, w []float64, nw *newtonWork, fw *FistaWork) (st solve.Stats, done bool, err error) {
	d, gs, radius := p.X.Dim(), p.X.GroupSize(), p.Radius
	y, cw := p.Y, p.CW
	rows := len(y)
	if nrm := solve.Norm(w, gs); nrm > radius {
		for j := range w {
			w[j] *= radius / nrm
		}
		ProjectBall(w, gs, radius, nil)
	}
	nw.grow(d, rows, fw)
	h, g, v := nw.hess, nw.g, nw.v
	res, sig, u, du, un := nw.res, nw.sig, nw.u, nw.du, nw.un
	p.X.Margins(u, w)
	prevGap := math.Inf(1)
	factored := false
	for step := 0; ; step++ {
		if err := ctx.Err(); err != nil {
			return solve.Stats{Iterations: step, Loss: LogisticLoss(u, y, cw) + p.ridgeValue(w), Gap: math.Inf(1)}, false, err
		}
		fastResiduals(res, sig, u, y, cw)
		p.X.Gradient(g, res)
		p.ridgeGradient(g, w)
		gap := solve.Gap(g, w, gs, radius)
		if gap <= p.Tol {
			return solve.Stats{Iterations: step, Loss: LogisticLoss(u, y, cw) + p.ridgeValue(w), Gap: gap, Converged: true}, true, nil
		}
		if step == maxNewtonSteps || step >= p.MaxIter {
			return solve.Stats{Iterations: step}, false, nil
		}
		// The factor of the last Hessian is reused while the steps keep
		// cutting the gap a hundredfold: near the optimum the Hessian
		// barely changes, and the certificate guards the result.
		if !factored || gap > 1e-2*prevGap {
			hessian(h, active, nv, sig, cw, d, p)
			if !cholesky(h, d) {
				return solve.Stats{Iterations: step}, false, nil
			}
			factored = true
		}
		prevGap = gap
		for j := range v {
			v[j] = -g[j]
		}
		cholSolve(h, d, v)
		gv := Dot(g, v) // < 0 for a descent direction
		if !(gv < 0) {
			return solve.Stats{Iterations: step}, false, nil
		}
		p.X.Margins(du, v)
		// Backtracking (Armijo with c = 1/4): with δ the margin change,
		// L(w + v) − L(w) = ⟨g, v⟩ + Σ ĉ_m D_m(δ_m), so the test is
		// Σ ĉ D ≤ (3/4)·|⟨g, v⟩|, decided by bregmanBound where it can.
		// v and du are halved together.
		accepted := false
		for try := range 30 {
			if try > 0 {
				for j := range v {
					v[j] *= 0.5
				}
				for m := range du {
					du[m] *= 0.5
				}
			}
			if solve.Norm(addTo(nw.wt, w, v), gs) > radius {
				// The constraint may bind: fista takes over from w.
				return solve.Stats{Iterations: step}, false, nil
			}
			for m := range un {
				un[m] = u[m] + du[m]
			}
			thr := 0.75 * -Dot(g, v)
			rb := p.ridgeDist(v, nil) // the ridge's exact part
			hi, ratio := bregmanBound(un, u, sig, y, cw)
			hi += rb
			if hi <= thr || (hi <= thr*ratio && LogisticBregman(un, u, sig, y, cw)+rb <= thr) {
				accepted = true
				break
			}
		}
		if !accepted {
			return solve.Stats{Iterations: step}, false, nil
		}
		for j := range w {
			w[j] += v[j]
		}
		p.X.Margins(u, w)
	}
}

// addTo sets dst = a + b and returns it.
func addTo(dst, a, b []float64) []float64 {
	for j := range dst {
		dst[j] = a[j] + b[j]
	}
	return dst
}

// hessian sets the upper triangle of h (d×d, row-major) to
// Σ_m ĉ_m σ′_m x_m x_mᵀ, where x_m has ones at the nv coordinates
// active[m·nv:(m+1)·nv] (increasing) and σ′_m = s(1 − s) with s = sig_m.
// Coordinates that no row selects get a unit diagonal, which decouples
// them (their gradient is zero).
//
// With a ridge (p.Ridge > 0) the diagonal off p's free group gains ρ, and a
// coordinate that no row selects then keeps ρ alone: the Hessian of F.
func hessian(h []float64, active []uint16, nv int, sig, cw []float64, d int, p *Regression) {
	clear(h)
	for m, s := range sig {
		c := cw[m] * s * (1 - s)
		if c == 0 {
			continue
		}
		row := active[m*nv : (m+1)*nv]
		for a, ia := range row {
			hr := h[int(ia)*d : int(ia+1)*d]
			for _, ib := range row[a:] {
				hr[ib] += c
			}
		}
	}
	if p != nil && p.Ridge > 0 {
		lo, hi := p.freeRange()
		for j := 0; j < d; j++ {
			if j < lo || j >= hi {
				h[j*d+j] += p.Ridge
			}
		}
	}
	for j := 0; j < d; j++ {
		if h[j*d+j] == 0 {
			h[j*d+j] = 1
		}
	}
}

// cholesky factors the symmetric matrix whose upper triangle is in h
// (d×d, row-major) as UᵀU in place, after adding ρ = 1e-10 times the
// largest diagonal entry to the diagonal: the one-hot Hessian is singular
// (shifting a group's coefficients by a constant moves the bias alone), and
// the gradient lies in its range, so the regularised solve returns a
// Newton direction up to a relative 1e-10 in the range. It reports false if
// a pivot is not positive.
func cholesky(h []float64, d int) bool {
	mx := 0.0
	for j := 0; j < d; j++ {
		mx = max(mx, h[j*d+j])
	}
	rho := 1e-10 * mx
	for j := 0; j < d; j++ {
		h[j*d+j] += rho
	}
	for j := 0; j < d; j++ {
		rj := h[j*d : (j+1)*d]
		s := rj[j]
		for i := 0; i < j; i++ {
			s -= h[i*d+j] * h[i*d+j]
		}
		if !(s > 0) {
			return false
		}
		rj[j] = math.Sqrt(s)
		inv := 1 / rj[j]
		for c := j + 1; c < d; c++ {
			s := rj[c]
			for i := 0; i < j; i++ {
				s -= h[i*d+j] * h[i*d+c]
			}
			rj[c] = s * inv
		}
	}
	return true
}

// cholSolve solves UᵀU x = b in place for the factor U of cholesky.
func cholSolve(u []float64, d int, b []float64) {
	for j := 0; j < d; j++ { // Uᵀ z = b
		s := b[j]
		for i := 0; i < j; i++ {
			s -= u[i*d+j] * b[i]
		}
		b[j] = s / u[j*d+j]
	}
	for j := d - 1; j >= 0; j-- { // U x = z
		s := b[j]
		for c := j + 1; c < d; c++ {
			s -= u[j*d+c] * b[c]
		}
		b[j] = s / u[j*d+j]
	}
}

// faceWork is the scratch of faceNewton.
type faceWork struct {
	v, p, q, rr, z, gz, a []float64 // d
	hu, hr, uz, sz        []float64 // rows, borrowed from fista's buffers
	face                  []int     // the groups of the support
	norms                 []float64 // their norms
	m                     []float64 // |S|×|S| preconditioner factor
	ms, mr                []float64 // M⁻¹s and M⁻¹r, on S
	zbuf                  []float64
}

// zv returns scratch of length d for the preconditioned residual.
func (fw *faceWork) zv(d int) []float64 {
	if cap(fw.zbuf) < d {
		fw.zbuf = make([]float64, d)
	}
	return fw.zbuf[:d]
}

// facePreconditioner factors M = c̄·C_S + ρI, with C the second moment
// Σ ĉ_m x_m x_mᵀ of node p.bias's design (from the shared p.cov and
// p.mean), S the face and c̄ = Σ ĉ_m σ′_m the mean curvature at the current
// point: the Hessian with its curvatures replaced by their mean, which the
// learners' data make a close approximation. When onFace it also stores
// M⁻¹s for the projection. It reports false when the factorisation fails.
func (fw *faceWork) facePreconditioner(p *Regression, sig []float64, face []int, onFace bool) bool {
	ns := len(face)
	cbar := 0.0
	for m, s := range sig {
		cbar += p.CW[m] * s * (1 - s)
	}
	if cap(fw.m) < ns*ns {
		fw.m = make([]float64, ns*ns)
	}
	if cap(fw.ms) < ns {
		fw.ms, fw.mr = make([]float64, ns), make([]float64, ns)
	}
	m := fw.m[:ns*ns]
	n, bias := p.covN, p.bias
	for x, j := range face {
		for y, k := range face[x:] {
			var c float64
			switch {
			case j == bias && k == bias:
				c = 1
			case j == bias:
				c = p.mean[k]
			case k == bias:
				c = p.mean[j]
			default:
				c = p.cov[j*n+k]
			}
			m[x*ns+x+y] = cbar * c
		}
	}
	if !cholesky(m, ns) {
		return false
	}
	if onFace {
		ms := fw.ms[:ns]
		for x, j := range face {
			ms[x] = math.Copysign(1, fw.a[j])
		}
		cholSolve(m, ns, ms)
	}
	return true
}

func (fw *faceWork) grow(d int) {
	grow := func(s []float64, l int) []float64 {
		if cap(s) < l {
			return make([]float64, l)
		}
		return s[:l]
	}
	fw.v, fw.p, fw.q, fw.rr, fw.z, fw.gz, fw.a = grow(fw.v, d), grow(fw.p, d), grow(fw.q, d), grow(fw.rr, d), grow(fw.z, d), grow(fw.gz, d), grow(fw.a, d)
}

// Tuning of faceNewton.
const (
	// faceMaxCG caps the conjugate-gradient iterations of a face step;
	// each costs one Margins and one Gradient, without exponentials. With
	// the Ising path's preconditioner CG needs 3 to 5; without one (one-hot
	// rows) it often reaches the cap (a Jacobi preconditioner, tried on
	// the n = 50, k = 21 benchmark, made it worse).
	faceMaxCG = 20
	// faceCGTol is the relative residual at which CG stops: a Newton
	// direction accurate to 1e-3 cuts a gap of 1e-4 to about 1e-7.
	faceCGTol = 1e-3
)

// faceNewton tries one Newton step on the face of the constraint ball that
// x lies on. Let G be the groups of the support of x (coordinates for l1,
// rows of w for l2,1), a_g = x_g/‖x_g‖ and, when ‖x‖ = R, μ ≥ 0 the
// multiplier that best fits ∇_g L = −μ a_g. The step solves
//
//	min_v ⟨∇L, v⟩ + ½ vᵀ (∇²L + μ Σ_g (I − a_g a_gᵀ)/‖x_g‖) v
//	s.t. v_g = 0 off G,  Σ_g ⟨a_g, v_g⟩ = 0 when ‖x‖ = R,
//
// the Newton step on the Lagrangian tangent to the face (the second term is
// the curvature of the group norms; it vanishes for groups of size one), by
// projected conjugate gradients with ∇²L v = Xᵀ(ĉ σ′ ⊙ X v) from the
// design's kernels (σ′ from sig, the σ(−|b|) at x). For l1 the step stops
// where a coordinate would change sign (that coordinate leaves the
// support); for l2,1 a point outside the ball is projected back. On the
// optimal face this is Newton's method, which equalises the gradient over
// the support and so closes the Frank–Wolfe gap that first-order steps
// close slowly. It returns the gap at the new point z with z, its margins
// and gradient in x, ux and gx (and σ(−|b|) in sig), or ok = false, leaving
// everything unchanged, when z would not decrease the loss. rows are three
// row buffers and sz a fourth that it may overwrite; sz receives σ(−|b|)
// at z, which it then copies into sig.
func faceNewton(p *Regression, cd *codedDesign, x, ux, gx, sig []float64, fw *faceWork, rows [3][]float64, sz []float64) (gap float64, ok bool) {
	d, radius, gs := len(x), p.Radius, cd.GroupSize()
	y, cw := p.Y, p.CW
	fw.grow(d)
	// hr holds the Hessian products' row weights during CG and the
	// residuals at z after it.
	fw.hu, fw.hr, fw.uz, fw.sz = rows[0], rows[1], rows[2], sz
	v, pp, q, rr, a := fw.v, fw.p, fw.q, fw.rr, fw.a
	face, norms := fw.face[:0], fw.norms[:0]
	total := 0.0
	clear(a)
	for g := 0; g < d/gs; g++ {
		ss := 0.0
		for _, xj := range x[g*gs : (g+1)*gs] {
			ss += xj * xj
		}
		if ss == 0 {
			continue
		}
		nrm := math.Sqrt(ss)
		face, norms = append(face, g), append(norms, nrm)
		total += nrm
		for j := g * gs; j < (g+1)*gs; j++ {
			a[j] = x[j] / nrm
		}
	}
	fw.face, fw.norms = face, norms
	if len(face) == 0 {
		return 0, false
	}
	onFace := total >= radius*(1-1e-9)
	mu := 0.0
	if onFace {
		mu = max(0, -Dot(gx, a)/float64(len(face)))
	}
	// project removes the component along a (Σ_g ⟨a_g, v_g⟩ = 0), whose
	// squared norm is |G|.
	project := func(b []float64) {
		if onFace {
			s := Dot(a, b) / float64(len(face))
			for _, g := range face {
				for j := g * gs; j < (g+1)*gs; j++ {
					b[j] -= s * a[j]
				}
			}
		}
	}
	// hv sets out = the Lagrangian Hessian times b, on G (b is zero off G).
	hv := func(out, b []float64) {
		cd.Margins(fw.hu, b)
		for m, s := range sig {
			fw.hr[m] = cw[m] * s * (1 - s) * fw.hu[m]
		}
		cd.Gradient(fw.gz, fw.hr)
		p.ridgeGradient(fw.gz, b) // the ridge's Hessian ρI, off the free group
		clear(out)
		for x, g := range face {
			lo, hi := g*gs, (g+1)*gs
			copy(out[lo:hi], fw.gz[lo:hi])
			if gs > 1 && mu > 0 {
				ab := 0.0
				for j := lo; j < hi; j++ {
					ab += a[j] * b[j]
				}
				c := mu / norms[x]
				for j := lo; j < hi; j++ {
					out[j] += c * (b[j] - a[j]*ab)
				}
			}
		}
	}
	// precond sets zz = P(M⁻¹ r): with the Ising path's preconditioner
	// (see facePreconditioner) projected in the M-metric onto the face,
	// else the plain projection.
	pre := gs == 1 && p.cov != nil && fw.facePreconditioner(p, sig, face, onFace)
	precond := func(zz, r []float64) {
		if !pre {
			copy(zz, r)
			project(zz)
			return
		}
		mr := fw.mr[:len(face)]
		for x, j := range face {
			mr[x] = r[j]
		}
		cholSolve(fw.m, len(face), mr)
		if onFace {
			sr, ss := 0.0, 0.0
			for x, j := range face {
				sr += a[j] * mr[x]
				ss += a[j] * fw.ms[x]
			}
			for x := range mr {
				mr[x] -= fw.ms[x] * sr / ss
			}
		}
		clear(zz) // off the face too: zz becomes the CG direction
		for x, j := range face {
			zz[j] = mr[x]
		}
	}
	// Projected (preconditioned) CG on H v = −∇L over the face, from
	// v = 0; every direction satisfies the face constraint.
	zv := fw.zv(d)
	clear(v)
	clear(rr)
	for _, g := range face {
		for j := g * gs; j < (g+1)*gs; j++ {
			rr[j] = -gx[j]
		}
	}
	precond(zv, rr)
	copy(pp, zv)
	rs := Dot(rr, zv)
	stop := faceCGTol * faceCGTol * rs
	for it := 0; it < faceMaxCG && rs > stop; it++ {
		hv(q, pp)
		pq := Dot(pp, q)
		if !(pq > 0) {
			break
		}
		al := rs / pq
		for _, g := range face {
			for j := g * gs; j < (g+1)*gs; j++ {
				v[j] += al * pp[j]
				rr[j] -= al * q[j]
			}
		}
		precond(zv, rr)
		rn := Dot(rr, zv)
		for _, g := range face {
			for j := g * gs; j < (g+1)*gs; j++ {
				pp[j] = zv[j] + rn/rs*pp[j]
			}
		}
		rs = rn
	}
	if !(Dot(gx, v) < 0) {
		return 0, false
	}
	t, hit := 1.0, -1
	if gs == 1 { // the largest step ≤ 1 that changes no sign
		for _, j := range face {
			if v[j]*x[j] < 0 && -x[j]/v[j] < t {
				t, hit = -x[j]/v[j], j
			}
		}
	}
	z := fw.z
	for j := range z {
		z[j] = x[j] + t*v[j]
	}
	if hit >= 0 {
		z[hit] = 0
	}
	if solve.Norm(z, gs) > radius {
		ProjectBall(z, gs, radius, nil)
	}
	uz := fw.uz
	cd.Margins(uz, z)
	// F(z) − F(x) = ⟨∇F(x), z − x⟩ + Σ ĉ D + (ρ/2)‖z − x‖² (the ridge's
	// part off the free group), accurate where it is tiny.
	dec := cd.bregman(uz, ux, sig, y, cw) + p.ridgeDist(z, x)
	for j := range z {
		dec += gx[j] * (z[j] - x[j])
	}
	if !(dec <= 0) {
		return 0, false
	}
	cd.residualGradient(fw.gz, fw.hr, fw.sz, uz, y, cw)
	p.ridgeGradient(fw.gz, z)
	copy(x, z)
	copy(ux, uz)
	copy(gx, fw.gz)
	copy(sig, fw.sz)
	return solve.Gap(gx, x, gs, radius), true
}
