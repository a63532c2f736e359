package engine

import (
	"context"
	"errors"
	"math"
)

// A node's multinomial (softmax) regression, the conditional likelihood of
// pseudo-likelihood methods for Potts models: for node i and the rows m
// where z_mi is one of the classes First..k−1, with K' = k − First classes,
//
//	P(z_mi = First+c | z_m,−i) = exp(u_mc) / Σ_c' exp(u_mc'),
//	u_mc = h_c + Σ_{j≠i} W_j(z_mj, c),
//
// fitted on every such row with its weight by minimising
//
//	F(W) = [ Σ_m c_m (ln Σ_c' exp(u_mc') − u_m,y_m) + (ρ/2)‖W‖² + (ρ_h/2)‖h‖² ] / C
//
// (C = Σ_m c_m over those rows, ρ = Ridge on the couplings, ρ_h =
// FieldRidge on the fields h). One problem a node, in place of the k'−1
// value-pair regressions of the reference-pair path.
//
// Layout: w[(j·k + a)·K' + c] is W_j(a, c), the coupling of variable j in
// state a to class c; node i's own variable holds the fields in its state 0
// row, w[(i·k)·K' + c] = h_c, and its other rows are not parameters (kept
// at 0). A margin is a sum over variables of a vector that depends only on
// z_mj, so the kernels are those of the value pairs' codes (codes.go) with
// vector-valued tables: T_g[code] = Σ_t W_{j0+t}(digit_t(code), ·), read
// once per group and row, and the gradient scatters each row's residual
// vector into the histogram cell of its code, summed into the variables'
// marginals afterwards.
//
// Certificate: with ρ, ρ_h > 0 the Fenchel dual of F at the dual point of
// the current residuals, v_m = p_m − e_{y_m}, is
//
//	D = [ Σ_m c_m H(p_m) − ‖G_W‖²/(2ρ) − ‖G_h‖²/(2ρ_h) ] / C,
//
// with H the entropy of the fitted conditional and G = Σ_m c_m x_m ⊗ v_m the
// loss gradient, split into couplings and fields. P − D ≥ F(W) − F* ≥ 0 is
// the duality gap; the solver (limited-memory BFGS with a backtracking
// line search) stops once it is at most Tol.

// Softmax is node Node's multinomial regression.
type Softmax struct {
	Node  int
	First int // the classes are the states First..k−1; rows where z_i < First are left out
	// Ridge and FieldRidge are ρ > 0 and ρ_h > 0, in the units of the row
	// weights (effective sequences).
	Ridge, FieldRidge float64
	Tol               float64 // the duality gap's target, on F
	MaxIter           int     // iterations of the quasi-Newton method
	// Pairs is the number of the quasi-Newton method's correction pairs,
	// at most 50; 0 for a number that follows the problem's size.
	Pairs int
	// Radius is R of the l2,1 constraint Σ_{j≠i} ‖W_j‖_F ≤ R on the
	// couplings (each W_j the k×K' block of variable j; the fields are
	// not constrained), kept beside the ridge; 0 or +Inf for none (NaN
	// and negative radii are errors). See softmax_ball.go.
	Radius float64
	// Shrink, when Radius is 0 and Shrink is in (0, 1), sets the radius
	// to Shrink times ‖W‖_{2,1} of the unconstrained fit (which the
	// constrained one starts from); 0 for none, other values are errors.
	Shrink float64
	// InputFirst is the first state of the other variables that is an
	// input: the couplings W_j(a, ·), j ≠ i, of the states a < InputFirst
	// are held at zero (a gap at j then contributes nothing to node i's
	// margins, as plmc's -g has it), and F, its gradient and the duality
	// gap are those of the problem restricted to the other coefficients.
	// 0 (the default) for every state; at most k.
	InputFirst int
}

// SoftmaxStats reports how a softmax fit ended.
type SoftmaxStats struct {
	Iter, Evals int     // iterations and passes over the rows
	Objective   float64 // F at the returned w
	Gap         float64 // the duality gap P − D at the returned w
	Converged   bool    // Gap ≤ Tol
	Rows        int     // distinct rows fitted
	Weight      float64 // C, their total weight
}

// sparseRows holds every row as the list of its variables that are not in
// their column's reference state (the state of largest weight), each as
// the one-hot index j·k + a: a margin is the reference states' sum, the
// same for every row, plus the listed variables' differences from it, so
// the softmax kernels read only the listed entries (in a protein
// alignment, about half of them). Used when the codes hold one variable a
// group (k^2 > maxGroupTable, as at k = 21).
type sparseRows struct {
	ref   []uint8  // n: each variable's reference state
	start []int32  // rows+1: row m's entries are idx[start[m]:start[m+1]]
	idx   []uint16 // j·k + a
	bound int      // 1 + the largest entry (0 with none): a table of bound·K' numbers holds every row
}

// sparseRowsOf returns the data's sparse rows, built on first use, or nil
// when a group holds more than one variable.
func (d *Data) sparseRowsOf() *sparseRows {
	if d.gc == nil || d.gc.per != 1 || d.Rows.States == nil || d.Rows.N*d.Rows.K > 1<<16 {
		return nil
	}
	d.sparseOnce.Do(func() {
		r := d.Rows
		n, k := r.N, r.K
		wt := make([]float64, n*k)
		for m := 0; m < r.Count; m++ {
			c := r.Weight(m)
			for j, z := range r.States[m*n : (m+1)*n] {
				wt[j*k+int(z)] += c
			}
		}
		sp := &sparseRows{ref: make([]uint8, n), start: make([]int32, r.Count+1)}
		for j := 0; j < n; j++ {
			best := 0
			for a := 1; a < k; a++ {
				if wt[j*k+a] > wt[j*k+best] {
					best = a
				}
			}
			sp.ref[j] = uint8(best)
		}
		for m := 0; m < r.Count; m++ {
			for j, z := range r.States[m*n : (m+1)*n] {
				if z != sp.ref[j] {
					sp.idx = append(sp.idx, uint16(j*k+int(z)))
				}
			}
			sp.start[m+1] = int32(len(sp.idx))
		}
		for _, e := range sp.idx {
			sp.bound = max(sp.bound, int(e)+1)
		}
		d.sparse = sp
	})
	return d.sparse
}

// softmaxMemory is the most correction pairs of the quasi-Newton method:
// each is two vectors of the node's dimension n·k·K', held in float32
// (only the search direction is built from them: the objective, the
// gradient and the gap are float64). On a deep family's columns the fit
// needs many iterations, and more pairs cut them: 6, 20, 30 and 50 pairs
// took 81, 57, 49 and 42 iterations a column on PF00072's first 50
// columns (N = 15,260), 113 → 57 on all of PF00072 with 6 → 50 pairs
// (docs/contacts).
const softmaxMemory = 50

// softmaxPairs returns the correction pairs of a node's fit: as many as
// keep the two-loop recursion's work, 4·pairs·dim multiply-adds an
// iteration, at most the pass over the rows' entries (entries·K' for the
// margins and as many for the gradient), between 6 and softmaxMemory. On
// a shallow, long family (L = 256, N = 437) the pairs save few iterations
// (22.5 → 18.7 a column with 6 → 50) and the recursion would cost more than
// the rows.
func softmaxPairs(entries, K, dim int) int {
	return max(6, min(softmaxMemory, entries*K/(2*dim)))
}

// softmaxWork is a worker's scratch for the softmax fits.
type softmaxWork struct {
	tab, hist     []float64 // codes×K': the vector tables and histograms
	grad, g, gTry []float64 // dim: loss gradient, ∇F at w and at the trial
	wTry, dir     []float64
	s, yv         [softmaxMemory][]float32 // the pairs, allocated as they are first stored
	rho, alpha    [softmaxMemory]float64
	yy            [softmaxMemory]float64 // yᵀy of each stored pair
	rows          []int32
	lab           []uint8
	cw            []float64
	u, p          []float64 // K'
	fContrib      []float64 // k·K': one variable's contributions while building
	ent           float64   // Σ_m c_m H(p_m) of the last evaluation
	norms, fsave  []float64 // the l2,1 constraint's scratch: n group norms, K' fields
}

func growF(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

// SoftmaxDim returns the length of the parameter vector of a node's
// softmax regression: n·k·K' with K' = k − first.
func SoftmaxDim(n, k, first int) int { return n * k * (k - first) }

// FitSoftmax fits p from the start w (length SoftmaxDim; the non-parameter
// entries of node p.Node's own rows are set to 0) into w. It needs the
// fast backend's codes and byte states; ctx is checked every iteration.
func (e *Driver) FitSoftmax(ctx context.Context, p *Softmax, w []float64) (SoftmaxStats, error) {
	d := e.Data
	if d.gc == nil || d.gc.codes == nil || d.Rows.States == nil {
		return SoftmaxStats{}, errors.New("pairwise: the softmax regression needs the Accelerated backend's coded rows")
	}
	if !(p.Ridge > 0) || !(p.FieldRidge > 0) || math.IsInf(p.Ridge, 1) || math.IsInf(p.FieldRidge, 1) {
		return SoftmaxStats{}, errors.New("pairwise: the softmax regression needs finite positive ridges on couplings and fields")
	}
	if !(p.Radius >= 0) {
		return SoftmaxStats{}, errors.New("pairwise: the softmax regression's l2,1 radius must be 0 (none), positive or +Inf")
	}
	if !(p.Shrink >= 0 && p.Shrink < 1) {
		return SoftmaxStats{}, errors.New("pairwise: the softmax regression's shrink factor must be in [0, 1)")
	}
	gc := d.gc
	n, k := gc.n, gc.k
	if p.InputFirst < 0 || p.InputFirst > k {
		return SoftmaxStats{}, errors.New("pairwise: the softmax regression's first input state must be in [0, k]")
	}
	i, first := p.Node, p.First
	K := k - first
	if i < 0 || i >= n || first < 0 || K < 2 {
		return SoftmaxStats{}, errors.New("pairwise: softmax regression: bad node or classes")
	}
	dim := n * k * K
	if len(w) != dim {
		return SoftmaxStats{}, errors.New("pairwise: softmax regression: start of the wrong length")
	}
	if e.Work.sm == nil {
		e.Work.sm = &softmaxWork{}
	}
	ws := e.Work.sm
	// The node's rows: z_i a class, positive weight.
	ws.rows, ws.lab, ws.cw = ws.rows[:0], ws.lab[:0], ws.cw[:0]
	C := 0.0
	states := d.Rows.States
	for m := 0; m < d.Rows.Count; m++ {
		z := int(states[m*n+i])
		c := d.Rows.Weight(m)
		if z < first || !(c > 0) {
			continue
		}
		ws.rows = append(ws.rows, int32(m))
		ws.lab = append(ws.lab, uint8(z-first))
		ws.cw = append(ws.cw, c)
		C += c
	}
	st := SoftmaxStats{Rows: len(ws.rows), Weight: C}
	for a := 1; a < k; a++ {
		clear(w[(i*k+a)*K : (i*k+a+1)*K])
	}
	// The states that are not inputs: zero, and kept there by their zero
	// gradient (softmaxFinish), since every step of the solvers is a
	// combination of gradients and of differences of iterates.
	for j := 0; j < n; j++ {
		if j != i {
			clear(w[j*k*K : (j*k+p.InputFirst)*K])
		}
	}
	if len(ws.rows) == 0 {
		clear(w)
		st.Converged = true
		return st, nil
	}
	total := gc.off[gc.groups]
	ws.tab = growF(ws.tab, total*K)
	ws.hist = growF(ws.hist, total*K)
	ws.grad = growF(ws.grad, dim)
	ws.g = growF(ws.g, dim)
	ws.gTry = growF(ws.gTry, dim)
	ws.wTry = growF(ws.wTry, dim)
	ws.dir = growF(ws.dir, dim)
	ws.u = growF(ws.u, K)
	ws.p = growF(ws.p, K)
	ws.fContrib = growF(ws.fContrib, k*K)
	entries := len(ws.rows) * gc.groups
	if sp := d.sparseRowsOf(); sp != nil {
		entries = 0
		for _, m := range ws.rows {
			entries += int(sp.start[m+1] - sp.start[m])
		}
	}
	M := softmaxPairs(entries, K, dim)
	if p.Pairs > 0 {
		M = min(p.Pairs, softmaxMemory)
	}

	if (p.Radius > 0 && !math.IsInf(p.Radius, 1)) || (p.Radius == 0 && p.Shrink > 0) {
		return e.fitSoftmaxBall(ctx, p, w, ws, C, M, st)
	}
	return e.softmaxQuasiNewton(ctx, p, w, ws, C, M, st)
}

// softmaxQuasiNewton minimises F from w (in place) by limited-memory BFGS
// with M correction pairs, to the duality gap p.Tol or p.MaxIter
// iterations; st holds the rows' counts on entry.
func (e *Driver) softmaxQuasiNewton(ctx context.Context, p *Softmax, w []float64, ws *softmaxWork, C float64, M int, st SoftmaxStats) (SoftmaxStats, error) {
	f, gap := e.softmaxEval(p, w, ws.g, ws, C)
	st.Evals++
	hist := 0 // correction pairs held
	next := 0 // slot of the next pair
	for st.Iter = 0; ; st.Iter++ {
		st.Objective, st.Gap = f, gap
		if gap <= p.Tol {
			st.Converged = true
			return st, nil
		}
		if st.Iter >= p.MaxIter {
			return st, nil
		}
		if err := ctx.Err(); err != nil {
			return st, err
		}
		// Two-loop recursion: dir = −H·g.
		ws.twoLoop(hist, next, M)
		slope := dot(ws.g, ws.dir)
		if !(slope < 0) {
			// Not a descent direction (curvature lost): restart from the
			// gradient.
			hist = 0
			scale := 1 / math.Max(math.Sqrt(dot(ws.g, ws.g)), 1e-300)
			for x := range ws.dir {
				ws.dir[x] = -scale * ws.g[x]
			}
			slope = dot(ws.g, ws.dir)
		}
		// Backtracking (Armijo) line search from the unit step.
		step := 1.0
		var fTry, gapTry float64
		ok := false
		for ls := 0; ls < 40; ls++ {
			for x := range w {
				ws.wTry[x] = w[x] + step*ws.dir[x]
			}
			fTry, gapTry = e.softmaxEval(p, ws.wTry, ws.gTry, ws, C)
			st.Evals++
			if fTry <= f+1e-4*step*slope {
				ok = true
				break
			}
			step /= 2
		}
		if !ok || f-fTry <= 4*eps*math.Abs(f) {
			// No decrease beyond rounding: w is as good as this method
			// gets in floating point (the gap says how good).
			if ok && fTry < f {
				copy(w, ws.wTry)
				st.Objective, st.Gap = fTry, gapTry
				st.Converged = gapTry <= p.Tol
			}
			return st, nil
		}
		hist, next = ws.storePair(w, hist, next, M)
		copy(w, ws.wTry)
		copy(ws.g, ws.gTry)
		f, gap = fTry, gapTry
	}
}

// twoLoop sets ws.dir = −H·ws.g, H the limited-memory BFGS inverse Hessian
// of the hist pairs held (next the slot of the next pair, M the ring's
// size); with no pair, a unit-length move against the gradient.
func (ws *softmaxWork) twoLoop(hist, next, M int) {
	copy(ws.dir, ws.g)
	for x := 0; x < hist; x++ {
		s := (next - 1 - x + M) % M
		a := ws.rho[s] * dot32(ws.s[s], ws.dir)
		ws.alpha[s] = a
		axpy32(-a, ws.yv[s], ws.dir)
	}
	gamma := 1.0
	if hist > 0 {
		s := (next - 1 + M) % M
		gamma = 1 / (ws.rho[s] * ws.yy[s])
	} else {
		// First step: a unit-length move.
		gamma = 1 / math.Max(math.Sqrt(dot(ws.g, ws.g)), 1e-300)
	}
	for x := range ws.dir {
		ws.dir[x] *= gamma
	}
	for x := hist - 1; x >= 0; x-- {
		s := (next - 1 - x + M) % M
		b := ws.rho[s] * dot32(ws.yv[s], ws.dir)
		axpy32(ws.alpha[s]-b, ws.s[s], ws.dir)
	}
	for x := range ws.dir {
		ws.dir[x] = -ws.dir[x]
	}
}

// storePair stores the correction pair s = ws.wTry − w, y = ws.gTry − ws.g
// in slot next when its curvature sᵀy is positive, and returns the pairs
// held and the next slot.
func (ws *softmaxWork) storePair(w []float64, hist, next, M int) (int, int) {
	// The pair as stored (float32): ρ = 1/(sᵀy) of the stored vectors
	// keeps the update positive definite whatever the rounding.
	s := next
	ws.s[s] = growF32(ws.s[s], len(w))
	ws.yv[s] = growF32(ws.yv[s], len(w))
	ys, yy := 0.0, 0.0
	for x := range w {
		sx := float32(ws.wTry[x] - w[x])
		yx := float32(ws.gTry[x] - ws.g[x])
		ws.s[s][x], ws.yv[s][x] = sx, yx
		ys += float64(sx) * float64(yx)
		yy += float64(yx) * float64(yx)
	}
	if ys > 1e-300 && yy > 0 {
		ws.rho[s] = 1 / ys
		ws.yy[s] = yy
		next = (next + 1) % M
		hist = min(hist+1, M)
	}
	return hist, next
}

// addVec adds src to dst (len(src) ≥ len(dst)), four entries at a time:
// the inner loop of the softmax kernels, one table row or histogram cell
// of K' classes.
func addVec(dst, src []float64) {
	src = src[:len(dst)]
	x := 0
	for ; x+4 <= len(dst); x += 4 {
		d := dst[x : x+4 : x+4]
		s := src[x : x+4 : x+4]
		d[0] += s[0]
		d[1] += s[1]
		d[2] += s[2]
		d[3] += s[3]
	}
	for ; x < len(dst); x++ {
		dst[x] += src[x]
	}
}

// dot returns Σ a·b, in four partial sums (a chain of additions one
// after another would wait on each).
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	x := 0
	for ; x+4 <= len(a); x += 4 {
		s0 += a[x] * b[x]
		s1 += a[x+1] * b[x+1]
		s2 += a[x+2] * b[x+2]
		s3 += a[x+3] * b[x+3]
	}
	for ; x < len(a); x++ {
		s0 += a[x] * b[x]
	}
	return (s0 + s1) + (s2 + s3)
}

// dot32 is dot of a stored correction vector a and b.
func dot32(a []float32, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	x := 0
	for ; x+4 <= len(a); x += 4 {
		s0 += float64(a[x]) * b[x]
		s1 += float64(a[x+1]) * b[x+1]
		s2 += float64(a[x+2]) * b[x+2]
		s3 += float64(a[x+3]) * b[x+3]
	}
	for ; x < len(a); x++ {
		s0 += float64(a[x]) * b[x]
	}
	return (s0 + s1) + (s2 + s3)
}

// axpy32 adds a·x to y, x a stored correction vector: the product rounded,
// then the sum (the conversion keeps a compiler from fusing them, so the
// AVX2 loop, used where the CPU has it, gives the same bits).
func axpy32(a float64, x []float32, y []float64) {
	y = y[:len(x)]
	t := 0
	if useAVX2 && len(x) >= 4 {
		t = len(x) &^ 3
		axpy32avx(a, &x[0], &y[0], t/4)
	}
	for ; t < len(x); t++ {
		y[t] += float64(a * float64(x[t]))
	}
}

// axpy32Ref is axpy32's loop alone, for the tests.
func axpy32Ref(a float64, x []float32, y []float64) {
	for t, v := range x {
		y[t] += float64(a * float64(v))
	}
}

func growF32(b []float32, n int) []float32 {
	if cap(b) < n {
		return make([]float32, n)
	}
	return b[:n]
}

// softmaxContrib returns variable j's contribution vector in state a: its
// coupling row, or the fields for the node's own variable.
func softmaxContrib(w []float64, j, a, i, k, K int) []float64 {
	if j == i {
		a = 0
	}
	return w[(j*k+a)*K : (j*k+a+1)*K]
}

// softmaxEval sets g = ∇F(w) and returns F(w) and the duality gap at w
// (see the comment at the top of the file).
func (e *Driver) softmaxEval(p *Softmax, w, g []float64, ws *softmaxWork, C float64) (float64, float64) {
	if sp := e.Data.sparseRowsOf(); sp != nil {
		loss, ent := e.softmaxSparse(p, sp, w, ws)
		ws.ent = ent
		return softmaxFinish(p, w, g, ws.grad, loss, ent, C, e.Data.gc.n, e.Data.gc.k)
	}
	gc := e.Data.gc
	n, k := gc.n, gc.k
	i := p.Node
	K := k - p.First
	tab, hist := ws.tab, ws.hist
	// Tables: T_g[c] = Σ_t W_{j0+t}(digit_t(c), ·), one variable at a time.
	for g := 0; g < gc.groups; g++ {
		t := tab[gc.off[g]*K : gc.off[g+1]*K]
		lo, hi := g*gc.per, min(n, (g+1)*gc.per)
		for a := 0; a < k; a++ {
			copy(t[a*K:(a+1)*K], softmaxContrib(w, lo, a, i, k, K))
		}
		base := k
		for j := lo + 1; j < hi; j++ {
			for a := k - 1; a >= 0; a-- {
				fa := softmaxContrib(w, j, a, i, k, K)
				dst := t[a*base*K : (a+1)*base*K]
				for c := 0; c < base; c++ {
					src := t[c*K : (c+1)*K]
					out := dst[c*K : (c+1)*K]
					for x, v := range src {
						out[x] = v + fa[x]
					}
				}
			}
			base *= k
		}
	}
	clear(hist)
	groups := gc.groups
	u, pr := ws.u, ws.p
	loss, ent := 0.0, 0.0
	for r, m := range ws.rows {
		row := gc.codes[int(m)*groups : int(m+1)*groups]
		clear(u)
		for _, code := range row {
			addVec(u, tab[int(code)*K:int(code)*K+K])
		}
		l, h := softmaxRow(u, pr, int(ws.lab[r]), ws.cw[r])
		loss += l
		ent += h
		// pr is now the residual c·(p − e_y): scatter it.
		for _, code := range row {
			addVec(hist[int(code)*K:int(code)*K+K], pr)
		}
	}
	// Marginals: grad[(j·k+a)·K + c] = Σ over the cells of j's group whose
	// digit for j is a.
	grad := ws.grad
	clear(grad)
	for gr := 0; gr < groups; gr++ {
		h := hist[gc.off[gr]*K : gc.off[gr+1]*K]
		lo, hi := gr*gc.per, min(n, (gr+1)*gc.per)
		cells := gc.off[gr+1] - gc.off[gr]
		stride := 1
		for j := lo; j < hi; j++ {
			for cell := 0; cell < cells; cell++ {
				a := (cell / stride) % k
				dst := grad[(j*k+a)*K : (j*k+a+1)*K]
				src := h[cell*K : (cell+1)*K]
				for x, v := range src {
					dst[x] += v
				}
			}
			stride *= k
		}
	}
	// The node's own variable: its rows' sums are the fields' gradient.
	fg := grad[i*k*K : (i*k+1)*K]
	for a := 1; a < k; a++ {
		row := grad[(i*k+a)*K : (i*k+a+1)*K]
		for x, v := range row {
			fg[x] += v
			row[x] = 0
		}
	}
	ws.ent = ent
	return softmaxFinish(p, w, g, grad, loss, ent, C, n, k)
}

// softmaxRow computes row r's conditional from its margins u (K'): it
// returns the row's weighted loss and entropy and leaves in pr the
// residual c·(p − e_y).
func softmaxRow(u, pr []float64, y int, c float64) (loss, ent float64) {
	pr = pr[:len(u)]
	mx := u[0]
	for _, v := range u[1:] {
		if v > mx {
			mx = v
		}
	}
	// z = Σ exp(u − mx) and su = Σ exp(u − mx)·u, so that the entropy
	// H = ln z + mx − Σ q·u needs no second pass over logarithms.
	z, su := 0.0, 0.0
	for x, v := range u {
		pr[x] = v - mx
	}
	expInPlace(pr) // math.Exp's bits, four at a time where the CPU allows
	for x, v := range u {
		ev := pr[x]
		z += ev
		su += ev * v
	}
	lz := math.Log(z) + mx
	inv := 1 / z
	ci := c * inv
	for x := range pr {
		pr[x] *= ci
	}
	pr[y] -= c
	return c * (lz - u[y]), c * (lz - su*inv)
}

// softmaxSparse is the pass over the rows of softmaxEval on sparse rows:
// it sets ws.grad to the loss gradient and returns the weighted loss and
// entropy sums.
func (e *Driver) softmaxSparse(p *Softmax, sp *sparseRows, w []float64, ws *softmaxWork) (loss, ent float64) {
	n, k := e.Data.gc.n, e.Data.gc.k
	i := p.Node
	K := k - p.First
	tab, hist := ws.tab[:n*k*K], ws.hist[:n*k*K]
	// tab(j, a) = W_j(a) − W_j(ref_j), zero for the node's own variable;
	// base = h + Σ_{j≠i} W_j(ref_j), every row's margin before its list.
	base := ws.fContrib[:K]
	copy(base, w[i*k*K:(i*k+1)*K])
	for j := 0; j < n; j++ {
		t := tab[j*k*K : (j+1)*k*K]
		if j == i {
			clear(t)
			continue
		}
		wj := w[j*k*K : (j+1)*k*K]
		ref := wj[int(sp.ref[j])*K : int(sp.ref[j]+1)*K]
		addVec(base, ref)
		for a := 0; a < k; a++ {
			src, dst := wj[a*K:(a+1)*K], t[a*K:(a+1)*K]
			for x, v := range src {
				dst[x] = v - ref[x]
			}
		}
	}
	clear(hist)
	total := ws.fContrib[K : 2*K] // Σ of the residuals over all rows
	clear(total)
	u, pr := ws.u, ws.p
	// Every entry is below n·k, so its block is inside tab and hist: checked
	// here once for all rows, where gatherRow and scatterRow would scan each
	// row twice an evaluation.
	if sp.bound > n*k {
		panic("engine: softmax sparse row entry out of range")
	}
	for r, m := range ws.rows {
		row := sp.idx[sp.start[m]:sp.start[m+1]]
		gatherRowIn(u, base, tab, row)
		l, h := softmaxRow(u, pr, int(ws.lab[r]), ws.cw[r])
		loss += l
		ent += h
		addVec(total, pr)
		scatterRowIn(hist, pr, row)
	}
	// The loss gradient: the listed cells as summed, each reference cell
	// the rest of the total; the fields the total.
	grad := ws.grad
	for j := 0; j < n; j++ {
		gj, hj := grad[j*k*K:(j+1)*k*K], hist[j*k*K:(j+1)*k*K]
		if j == i {
			clear(gj)
			copy(gj[:K], total)
			continue
		}
		copy(gj, hj)
		ref := gj[int(sp.ref[j])*K : int(sp.ref[j]+1)*K]
		copy(ref, total)
		for a := 0; a < k; a++ {
			if a == int(sp.ref[j]) {
				continue
			}
			src := hj[a*K : (a+1)*K]
			for x, v := range src {
				ref[x] -= v
			}
		}
	}
	return loss, ent
}

// softmaxFinish adds the ridges to the loss gradient grad and sets g = ∇F;
// it returns F and the duality gap. The couplings of the states below
// p.InputFirst are not parameters: their entries of grad and g are set to
// zero and left out of the gap's ‖G_W‖², so that it certifies the
// restricted problem (the conjugate of the ridge on a subspace is the
// norm of the gradient's projection onto it).
func softmaxFinish(p *Softmax, w, g, grad []float64, loss, ent, C float64, n, k int) (float64, float64) {
	i := p.Node
	K := k - p.First
	rho, rhoH := p.Ridge, p.FieldRidge
	pen, gw2, gh2 := 0.0, 0.0, 0.0
	for x, v := range grad {
		wx := w[x]
		r := rho
		if x/K/k == i {
			if x/K%k != 0 {
				g[x] = 0
				continue
			}
			r = rhoH
			gh2 += v * v
		} else if x/K%k < p.InputFirst {
			grad[x], g[x] = 0, 0
			continue
		} else {
			gw2 += v * v
		}
		pen += r * wx * wx
		g[x] = (v + r*wx) / C
	}
	fval := (loss + pen/2) / C
	dual := (ent - gw2/(2*rho) - gh2/(2*rhoH)) / C
	return fval, fval - dual
}
