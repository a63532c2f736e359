package pairwise

import (
	"context"
	"errors"
	"math"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/solve"
)

// mirrorGeometry is one of the paper's two mirror maps as the AdaptiveMirror
// schedule sees it. Its state z is a point of the map's domain (the simplex
// Δ_{2d+1} for the entropic map, the unit l2,1 ball for the group map), with
// linear coordinates (v, or u) in which points can be mixed, and the point w
// of the radius-R ball that it represents, linear in those coordinates.
type mirrorGeometry interface {
	// size returns the length of the linear coordinates.
	size() int
	// linear writes the linear coordinates of z into dst.
	linear(dst []float64)
	// setLinear moves z to the point with linear coordinates src.
	setLinear(src []float64)
	// toW writes the w that the linear coordinates src represent.
	toW(w, src []float64)
	// propose computes the mirror step from z with step size γ and the
	// gradient g (in w coordinates) into the candidate z', writes its
	// linear coordinates into lin, and returns D(z', z), the Bregman
	// divergence of the map.
	propose(lin, g []float64, gamma float64) float64
	// accept makes the candidate the current z.
	accept()
}

// adaptiveMirror is the AdaptiveMirror schedule: accelerated mirror descent
// with the backend's own map, in the form of Tseng (2008, Algorithm 1; also
// Auslender and Teboulle 2006). With x the returned sequence and z the
// mirror sequence, each step is
//
//	y  = (1 − θ)x + θz,
//	z⁺ = argmin_{z'} ⟨∇L(y), z'⟩ + Lθ·D(z', z)      (the mirror step, γ = 1/(Lθ)),
//	x⁺ = (1 − θ)x + θz⁺,
//
// with θ = 1/t, t = 1 at the start and t⁺ = (1 + √(1 + 4(L⁺/L)t²))/2, which gives
// L(x_k) − L* = O(L·D(x*, z_0)/k²) when the loss is L-smooth for the norm in
// which the map is 1-strongly convex (l1 on the simplex for the entropy,
// l2,1 on the unit ball for the group map; Ben-Tal and Nemirovski 5.3.3).
// L is found by backtracking: the step is accepted when the descent test
//
//	L(x⁺) − L(y) − ⟨∇L(y), x⁺ − y⟩ ≤ Lθ²·D(z⁺, z)
//
// holds (its left side computed row by row, see logisticBregman), which
// suffices because x⁺ − y = θ(z⁺ − z) and D(z⁺, z) ≥ ½‖z⁺ − z‖²; L shrinks by
// lShrink before each step and doubles on a failure, never beyond the global
// bound R²/4·max_m ‖x_m‖²_*. When the loss increases, the momentum restarts
// from x (O'Donoghue and Candès), which makes the method linear near a
// strongly convex optimum. It stops when the duality-gap certificate at x is
// below Tol. Margins are linear in w, so a step costs one Margins (of z⁺) and
// one Gradient (at y), plus the certificate's Gradient every few steps.
func adaptiveMirror[F solve.Layout](ctx context.Context, p *solve.Problem[F], w []float64, run mdRun, geo mirrorGeometry) (solve.Stats, error) {
	d, n, gs, radius := p.X.Dim(), p.X.Len(), p.X.GroupSize(), p.Radius
	y, cw := p.Y, run.cw
	ns := geo.size()
	buf := make([]float64, 3*d+3*ns+7*n)
	take := func(k int) []float64 { s := buf[:k:k]; buf = buf[k:]; return s }
	gy, gx, wz := take(d), take(d), take(d)
	xs, zs, zn := take(ns), take(ns), take(ns) // linear coordinates of x, z, z⁺
	ux, uz, uzn, uy, uxn, res := take(n), take(n), take(n), take(n), take(n), take(n)
	sig := take(n)

	gradAt := func(g, u []float64) {
		engine.LogisticResiduals(res, sig, u, y, cw)
		p.X.Gradient(g, res)
	}
	geo.linear(zs)
	copy(xs, zs)
	geo.toW(w, xs) // x = z: the start (w itself, or its image in the map's domain)
	p.X.Margins(ux, w)
	copy(uz, ux)
	lossX := engine.LogisticLoss(ux, y, cw)
	gradAt(gx, ux)
	gap := solve.Gap(gx, w, gs, radius)

	lmax := 0.25 * radius * radius * maxDualRowNormSq(p.X)
	lmin := lmax * 1e-12
	lip := lmax
	t, fresh := 1.0, true // t of the last step; fresh: the next step has θ = 1
	it := 0
	for gap > p.Tol && it < run.iters {
		if it%engine.CtxEvery == engine.CtxEvery-1 {
			if err := ctx.Err(); err != nil {
				return solve.Stats{Iterations: it, Loss: lossX, Gap: math.Inf(1)}, err
			}
		}
		it++
		lt := max(lip*engine.LShrink, lmin)
		var tn, theta float64
		for {
			tn = 1
			if !fresh {
				tn = (1 + math.Sqrt(1+4*(lt/lip)*t*t)) / 2
			}
			theta = 1 / tn
			for m := range uy {
				uy[m] = (1-theta)*ux[m] + theta*uz[m]
			}
			gradAt(gy, uy)
			div := geo.propose(zn, gy, 1/(lt*theta))
			geo.toW(wz, zn)
			p.X.Margins(uzn, wz)
			for m := range uxn {
				uxn[m] = (1-theta)*ux[m] + theta*uzn[m]
			}
			if lt >= lmax || engine.LogisticBregman(uxn, uy, sig, y, cw) <= lt*theta*theta*div {
				break
			}
			lt = min(2*lt, lmax)
		}
		geo.accept()
		for i := range xs {
			xs[i] = (1-theta)*xs[i] + theta*zn[i]
		}
		zs, zn = zn, zs
		ux, uxn = uxn, ux
		uz, uzn = uzn, uz
		lip = lt
		lossNew := engine.LogisticLoss(ux, y, cw)
		if lossNew > lossX {
			// Function restart: continue from x with fresh momentum.
			geo.setLinear(xs)
			copy(zs, xs)
			copy(uz, ux)
			fresh = true
		} else {
			t, fresh = tn, false
		}
		lossX = lossNew
		if it%4 == 0 || it == run.iters {
			geo.toW(w, xs)
			gradAt(gx, ux)
			gap = solve.Gap(gx, w, gs, radius)
			if math.IsNaN(gap) {
				return solve.Stats{Iterations: it, Gap: gap}, errors.New("pairwise: the solver produced NaN")
			}
		}
	}
	geo.toW(w, xs)
	gradAt(gx, ux)
	gap = solve.Gap(gx, w, gs, radius)
	return solve.Stats{Iterations: it, Loss: engine.LogisticLoss(ux, y, cw), Gap: gap, Converged: gap <= p.Tol}, nil
}

// maxDualRowNormSq returns max_m ‖x_m‖²_* for the dual of the constraint
// norm (l∞ for l1, the largest group l2 norm for l2,1): 1 for ±1 spins and
// for one-hot rows.
func maxDualRowNormSq[F solve.Layout](x F) float64 {
	switch x := any(x).(type) {
	case solve.Spins:
		mx := 0.0
		if x.Bias >= 0 {
			mx = 1
		}
		for j, v := range x.X {
			if j%x.Cols != x.Bias {
				mx = max(mx, v*v)
			}
		}
		return max(mx, math.SmallestNonzeroFloat64)
	case solve.OneHot:
		return 1
	}
	panic("unreachable")
}

// solveMirror runs a mirror backend's schedule on p from w: the paper's
// fixed schedule (paper), or the adaptive one in the backend's geometry
// (made only when the warm start is not already certified).
func solveMirror[F solve.Layout](ctx context.Context, name string, s Schedule, t int, p *solve.Problem[F], w []float64,
	paper func(context.Context, *solve.Problem[F], []float64, mdRun) (solve.Stats, error), geometry func() mirrorGeometry) (solve.Stats, error) {
	run, st, done, err := startSolve(ctx, name, s, t, p, w)
	switch {
	case done || err != nil:
	case s == Paper:
		st, err = paper(ctx, p, w, run)
	default:
		var ok bool
		if st, ok = warmCertified(p, w, run); !ok {
			st, err = adaptiveMirror(ctx, p, w, run, geometry())
		}
	}
	return solve.Ended(ctx, st, err), err
}

// warmCertified reports whether the warm start w already has a certificate
// below Tol, with its Stats. The mirror maps test a warm start as given
// before mapping it into their domain, which may not hold it exactly (the
// entropic map mixes it with the uniform point), so that a solve handed its
// own answer returns at once.
func warmCertified[F solve.Layout](p *solve.Problem[F], w []float64, run mdRun) (solve.Stats, bool) {
	if isZeroVec(w) {
		return solve.Stats{}, false
	}
	n := p.X.Len()
	u, r := make([]float64, n), make([]float64, n)
	g := make([]float64, len(w))
	p.X.Margins(u, w)
	engine.LogisticResiduals(r, nil, u, p.Y, run.cw)
	p.X.Gradient(g, r)
	gap := solve.Gap(g, w, p.X.GroupSize(), p.Radius)
	if !(gap <= p.Tol) {
		return solve.Stats{}, false
	}
	return solve.Stats{Loss: engine.LogisticLoss(u, p.Y, run.cw), Gap: gap, Converged: true}, true
}

// isZeroVec reports whether every entry of w is zero.
func isZeroVec(w []float64) bool {
	for _, v := range w {
		if v != 0 {
			return false
		}
	}
	return true
}
