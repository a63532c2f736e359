package engine

import (
	"context"
	"math"
)

// The softmax regression with the l2,1 constraint of the paper's
// Algorithm 2 kept beside the ridge: minimise F(W) (softmax.go) subject to
//
//	‖W‖_{2,1} = Σ_{j≠i} ‖W_j‖_F ≤ R,
//
// W_j the k×K' block of partner j's one-hot coefficients (the fields h
// are not constrained), as Algorithm 2 bounds Σ_j ‖w(j, :)‖_2 ≤ 2λ√k of a
// value pair's regression.
//
// Certificate: the Fenchel dual of the constrained problem at the same
// dual point as the unconstrained one (the residuals v_m = p_m − e_{y_m}),
//
//	D = [ Σ_m c_m H(p_m) − φ*(−G_W) − ‖G_h‖²/(2ρ_h) ] / C,
//
// with φ(W) = (ρ/2)‖W‖² + ι{‖W‖_{2,1} ≤ R} in place of the ridge alone.
// Its conjugate is computed exactly: φ*(V) = sup over the ball of ⟨V, W⟩ −
// (ρ/2)‖W‖² is attained at W_j = t_j V_j/‖V_j‖ with t_j = (‖V_j‖/ρ − τ)_+
// and τ ≥ 0 the least value with Σ_j t_j ≤ R (the l1 projection's
// threshold, L1Threshold), so φ*(V) = Σ_j (‖V_j‖ t_j − ρ t_j²/2). When
// Σ_j ‖V_j‖/ρ ≤ R, τ = 0 and φ* = ‖V‖²/(2ρ): the unconstrained dual, of
// which this one is never below. P − D ≥ F(W) − F* ≥ 0 at every feasible
// W, and it vanishes at the constrained minimiser.
//
// Solver: the unconstrained quasi-Newton fit first (its minimiser is the
// answer when it lies in the ball, and the constraint is then certified by
// the unconstrained gap, an upper bound of the constrained one); otherwise
// from its projection onto the ball (ProjectBall), each iteration tries
// the projected quasi-Newton step P(w − H·g) − w, H kept from the
// unconstrained fit's pairs and updated, and falls back to the spectral
// projected gradient step P(w − α·g) − w (Barzilai–Borwein α; Birgin,
// Martínez and Raydan 2000), both with a nonmonotone Armijo search over
// the last ten values, to the constrained gap p.Tol.

// softmaxBallMemory is the number of past objective values the nonmonotone
// line search compares with.
const softmaxBallMemory = 10

// fitSoftmaxBall is FitSoftmax with the l2,1 constraint of radius
// p.Radius (finite and positive), or of p.Shrink times the unconstrained
// fit's norm.
func (e *Driver) fitSoftmaxBall(ctx context.Context, p *Softmax, w []float64, ws *softmaxWork, C float64, M int, st SoftmaxStats) (SoftmaxStats, error) {
	n, k := e.Data.gc.n, e.Data.gc.k
	K := k - p.First
	st, err := e.softmaxQuasiNewton(ctx, p, w, ws, C, M, st)
	if err != nil {
		return st, err
	}
	ws.norms = growF(ws.norms, n)
	ws.fsave = growF(ws.fsave, K)
	norm := SoftmaxGroupNorm(w, n, k, p.First, p.Node)
	if p.Radius == 0 {
		q := *p
		q.Radius = p.Shrink * norm
		if !(q.Radius > 0) {
			return st, nil // no coupling to shrink
		}
		p = &q
	}
	if norm <= p.Radius {
		return st, nil
	}
	qnIter := st.Iter
	st.Converged = false
	ws.projectBall(w, p.Node, k, K, p.Radius)
	f, _ := e.softmaxEval(p, w, ws.g, ws, C)
	st.Evals++
	gap := softmaxBallGap(p, f, ws.grad, ws.ent, C, n, k, ws.norms)
	// The first step's length: the inverse of the largest move of the
	// projected gradient step of unit length.
	for x := range w {
		ws.dir[x] = w[x] - ws.g[x]
	}
	ws.projectBall(ws.dir, p.Node, k, K, p.Radius)
	mv := 0.0
	for x := range w {
		mv = math.Max(mv, math.Abs(ws.dir[x]-w[x]))
	}
	alpha := 1 / math.Max(mv, 1e-300)
	const alphaMin, alphaMax = 1e-10, 1e10
	var past [softmaxBallMemory]float64
	for x := range past {
		past[x] = f
	}
	// Pairs of this phase only: carrying over the unconstrained fit's
	// (the same F's curvature) took more iterations in BenchmarkSoftmax
	// (43, 73 and 169 against 51, 80 and 111 at its three sizes).
	hist, next := 0, 0
	for it := 0; ; it++ {
		st.Iter = qnIter + it
		st.Objective, st.Gap = f, gap
		if gap <= p.Tol {
			st.Converged = true
			return st, nil
		}
		if it >= p.MaxIter {
			return st, nil
		}
		if err := ctx.Err(); err != nil {
			return st, err
		}
		fmax := past[0]
		for _, v := range past[1:] {
			fmax = math.Max(fmax, v)
		}
		fTry, ok := 0.0, false
		if hist > 0 {
			// The projected quasi-Newton step: dir = P(w − H·g) − w, taken
			// when it descends and an Armijo search along it succeeds in
			// a few halvings (near the minimiser the active face is
			// smooth and the step is nearly the manifold's Newton step).
			ws.twoLoop(hist, next, M)
			e.projectStep(p, w, ws, k, K)
			if slope := dot(ws.g, ws.dir); slope < 0 {
				fTry, ok = e.searchBall(p, w, ws, C, f, fmax, slope, 6, &st)
			}
		}
		if !ok {
			// The spectral projected gradient step: dir = P(w − α·g) − w.
			for x := range w {
				ws.dir[x] = -alpha * ws.g[x]
			}
			e.projectStep(p, w, ws, k, K)
			slope := dot(ws.g, ws.dir)
			if !(slope < 0) {
				// No descent left beyond rounding: the gap says how good w is.
				return st, nil
			}
			if fTry, ok = e.searchBall(p, w, ws, C, f, fmax, slope, 40, &st); !ok {
				return st, nil
			}
		}
		gapTry := softmaxBallGap(p, fTry, ws.grad, ws.ent, C, n, k, ws.norms)
		// Barzilai–Borwein: α = sᵀs/sᵀy.
		ss, sy := 0.0, 0.0
		for x := range w {
			sx := ws.wTry[x] - w[x]
			ss += sx * sx
			sy += sx * (ws.gTry[x] - ws.g[x])
		}
		if sy > 0 {
			alpha = min(alphaMax, max(alphaMin, ss/sy))
		} else {
			alpha = alphaMax
		}
		hist, next = ws.storePair(w, hist, next, M)
		copy(w, ws.wTry)
		copy(ws.g, ws.gTry)
		f, gap = fTry, gapTry
		past[it%softmaxBallMemory] = f
	}
}

// projectStep turns the move ws.dir from w into the feasible direction
// P(w + ws.dir) − w.
func (e *Driver) projectStep(p *Softmax, w []float64, ws *softmaxWork, k, K int) {
	for x := range w {
		ws.dir[x] += w[x]
	}
	ws.projectBall(ws.dir, p.Node, k, K, p.Radius)
	for x := range w {
		ws.dir[x] -= w[x]
	}
}

// searchBall is the nonmonotone Armijo search along w + t·ws.dir from
// t = 1 (feasible for t ≤ 1, the ball being convex), at most tries
// evaluations, each step the minimiser of the quadratic through f, the
// slope and the last trial, kept within [0.1, 0.5] of the last step. On
// success ws.wTry, ws.gTry (and ws.grad, ws.ent) hold the accepted point
// and its value is returned.
func (e *Driver) searchBall(p *Softmax, w []float64, ws *softmaxWork, C, f, fmax, slope float64, tries int, st *SoftmaxStats) (float64, bool) {
	step := 1.0
	for ls := 0; ls < tries; ls++ {
		for x := range w {
			ws.wTry[x] = w[x] + step*ws.dir[x]
		}
		fTry, _ := e.softmaxEval(p, ws.wTry, ws.gTry, ws, C)
		st.Evals++
		if fTry <= fmax+1e-4*step*slope {
			return fTry, true
		}
		q := -slope * step * step / (2 * (fTry - f - step*slope))
		if !(q >= 0.1*step && q <= 0.5*step) {
			q = step / 2
		}
		step = q
	}
	return 0, false
}

// SoftmaxGroupNorm returns ‖W‖_{2,1} = Σ_{j≠i} ‖W_j‖_F of node i's softmax
// parameters w (layout of Softmax: W_j is w[j·k·K' : (j+1)·k·K'], K' =
// k − first), the fields left out.
func SoftmaxGroupNorm(w []float64, n, k, first, i int) float64 {
	gs := k * (k - first)
	total := 0.0
	for j := 0; j < n; j++ {
		if j == i {
			continue
		}
		ss := 0.0
		for _, v := range w[j*gs : (j+1)*gs] {
			ss += v * v
		}
		total += math.Sqrt(ss)
	}
	return total
}

// projectBall replaces w by its Euclidean projection onto the set of the
// constraint: the coupling blocks onto the l2,1 ball of radius R
// (ProjectBall, groups of k·K'), the fields (node i's state-0 row) kept,
// node i's other rows (zero) left as they are.
func (ws *softmaxWork) projectBall(w []float64, i, k, K int, radius float64) {
	gs := k * K
	own := w[i*gs : i*gs+K]
	copy(ws.fsave, own)
	clear(own) // node i's block has norm 0 and stays 0
	ProjectBall(w, gs, radius, ws.norms)
	copy(own, ws.fsave)
}

// softmaxBallGap returns the duality gap P − D of the constrained problem
// at a point where F = f, the loss gradient is grad and the entropy sum is
// ent (the last evaluation's; see the comment at the top of the file).
// norms is scratch of length n.
func softmaxBallGap(p *Softmax, f float64, grad []float64, ent, C float64, n, k int, norms []float64) float64 {
	i := p.Node
	K := k - p.First
	gs := k * K
	rho, rhoH := p.Ridge, p.FieldRidge
	gh2 := 0.0
	for _, v := range grad[i*gs : i*gs+K] {
		gh2 += v * v
	}
	total := 0.0
	for j := 0; j < n; j++ {
		norms[j] = 0
		if j == i {
			continue
		}
		ss := 0.0
		for _, v := range grad[j*gs : (j+1)*gs] {
			ss += v * v
		}
		norms[j] = math.Sqrt(ss) / rho
		total += norms[j]
	}
	tau := 0.0
	if total > p.Radius {
		tau = L1Threshold(norms[:n], p.Radius, total)
	}
	conj := 0.0
	for _, b := range norms[:n] {
		if t := b - tau; t > 0 {
			conj += rho * (b*t - t*t/2)
		}
	}
	dual := (ent - conj - gh2/(2*rhoH)) / C
	return f - dual
}
