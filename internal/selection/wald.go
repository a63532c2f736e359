package selection

import (
	"encoding/binary"
	"math"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise/internal/engine"
)

// The edge test of WithFalseEdgeRate. For a regression with loss
// L(w) = Σ_m ĉ_m ℓ(y_m⟨w, x_m⟩), ĉ_m = c_m/Σc, at the constrained solution ŵ:
//
//	H = Σ ĉ_m σ(u_m)σ(-u_m) x_m x_mᵀ,   s_m = -y_m σ(-y_m u_m),   g = Σ ĉ_m s_m x_m,
//
// the debiased estimate is d = ŵ − H⁻¹g (one Newton step towards the
// unconstrained minimiser), and, counting every unit of weight as one
// observation (N = Σc), its sandwich covariance is
//
//	Cov(d) ≈ H⁻¹ (Σ ĉ_m (s_m x_m − g)(s_m x_m − g)ᵀ) H⁻¹ / N,
//
// the empirical variance of the influence H⁻¹(s_m x_m − g)/N of each
// observation. For the pairwise path the estimate of Ŵ_ij is a linear map of
// all value pairs' solutions, and one observation enters the k-1 pairs of
// its value of z_i, so the influences of the pairs are added per observation
// before their variance is taken.
//
// Finite samples (small-samples.go): a regression of p coefficients fitted to
// N observations leaves N − p degrees of freedom; each regression's influences
// are scaled by √(N/(N − p)) (the HC1 correction of the sandwich, which
// removes its first-order downward bias, as s² = RSS/(N − p) does for least
// squares), and the functions return N − p, for every value of z_i, so that
// the edge test can refer the statistics to Student's t law with that many
// degrees of freedom. With N ≤ p the degrees of freedom are ≤ 0: the
// regression interpolates its data and the test cannot use it.

// WaldSpins returns the debiased Â_ij of node i = task.Bias and their
// standard errors, in the Ising form [[a, -a], [-a, a]] laid out like
// Result.est (4 entries per neighbour j), for the solution w of node i's
// regression on s, and the regression's degrees of freedom N − n for both
// values of z_i (df). u (one entry a row of the task) is scratch for the
// margins. When the task's design splits its rows (rowsplit.go), the
// moments are summed chunk by chunk on its team and added in chunk order.
//
// With missing spins (available cases, AvailableCase) the task weighs only
// the rows where z_i is observed, N is their weight, and a missing
// neighbour enters x as 0, as in the fit. It returns nils when no row
// observes z_i.
func WaldSpins(s *Data, task *engine.Task, w, u []float64) (d, se, df []float64) {
	n, i, rows := s.N, task.Bias, len(task.Y)
	total := engine.WeightSum(task.C, rows)
	if !(total > 0) {
		// No row observes z_i (every value of a column missing): nothing
		// to test.
		return nil, nil, nil
	}
	u = u[:rows]
	task.X.Margins(u, w)
	size, chunks := engine.Chunking(task.X, rows)
	parts := make([]WaldMoments, chunks)
	chunk := WaldChunk
	if s.Incomplete {
		chunk = WaldChunkMissing // a missing spin is 0: no sign patterns
	}
	work := func(c int) {
		lo := c * size
		parts[c] = chunk(s, task, u, total, lo, min(lo+size, rows))
	}
	engine.RunChunks(task.X, chunks, work)
	h, j := mat.NewSymDense(n, nil), mat.NewSymDense(n, nil)
	g := make([]float64, n)
	for _, p := range parts {
		for x := range g {
			g[x] += p.G[x]
		}
		hr, jr := h.RawSymmetric().Data, j.RawSymmetric().Data
		for x := range hr {
			hr[x] += p.H[x]
			jr[x] += p.J[x]
		}
	}
	hinv := invertSym(h)
	delta := mat.NewVecDense(n, nil)
	delta.MulVec(hinv, mat.NewVecDense(n, g))
	// The sandwich's diagonal, (H⁻¹ J H⁻¹)_cc = Σ_r H⁻¹_cr (J H⁻¹)_rc, on
	// the full arrays of both (gonum's product of two SymDense reads them
	// entry by entry, which cost more than the test's moments at small N).
	hf, jf := symFull(hinv), symFull(j)
	jh := make([]float64, n*n) // J H⁻¹, row-major
	for r := 0; r < n; r++ {
		dst := jh[r*n : (r+1)*n]
		for x, v := range jf[r*n : (r+1)*n] {
			if v != 0 {
				floats.AddScaled(dst, v, hf[x*n:(x+1)*n])
			}
		}
	}
	d = make([]float64, 4*n)
	se = make([]float64, 4*n)
	dof := total - float64(n) // n − 1 couplings and the bias
	hc1 := HC1Factor(total, float64(n))
	if !EnoughEvents(minorityWeight(task), float64(n)) {
		dof = 0 // too few of the rarer label: the test cannot use it
	}
	for c := 0; c < n; c++ {
		if c == i {
			continue
		}
		v := 0.0
		for r, hv := range hf[c*n : (c+1)*n] {
			v += hv * jh[r*n+c]
		}
		dl := delta.AtVec(c)
		// Â_ij = d_j/2 as in Algorithm 1; the variance is (v − dl²)/N,
		// whose root is taken before the division so that N far below 1
		// (weights of 1e-300) cannot overflow it.
		setIsingEntry(d, se, c, (w[c]-dl)/2, hc1*sandwichSE(v-dl*dl, total)/2)
	}
	return d, se, []float64{dof, dof}
}

// symFull returns the symmetric a as a full row-major array.
func symFull(a *mat.SymDense) []float64 {
	n := a.SymmetricDim()
	raw := a.RawSymmetric()
	f := make([]float64, n*n)
	for r := 0; r < n; r++ {
		for c := r; c < n; c++ {
			v := raw.Data[r*raw.Stride+c]
			f[r*n+c], f[c*n+r] = v, v
		}
	}
	return f
}

// sandwichSE returns √(max(v, 0)/total), the standard error of a sandwich
// variance v of one observation over total observations, as
// √max(v, 0)/√total: the quotient v/total overflows when total is tiny
// (every weight 1e-300, FuzzLearn's input weights1e300) where the roots
// do not.
func sandwichSE(v, total float64) float64 {
	return math.Sqrt(math.Max(v, 0)) / math.Sqrt(total)
}

// setIsingEntry writes neighbour j's estimate a and standard error sd in
// the Ising form [[a, -a], [-a, a]] that Result.est uses (4 entries a
// neighbour).
func setIsingEntry(d, se []float64, j int, a, sd float64) {
	d[4*j], d[4*j+1], d[4*j+2], d[4*j+3] = a, -a, -a, a
	se[4*j], se[4*j+1], se[4*j+2], se[4*j+3] = sd, sd, sd, sd
}

// WaldMoments are the sums over some rows that WaldSpins needs: the upper
// triangles of H and of Σ ĉ s² x xᵀ (n×n, row-major) and g.
type WaldMoments struct {
	H, J, G []float64
}

// WaldChunk returns the moments of rows lo..hi-1 of the task: with
// α_m = ĉ_m σ(u_m)σ(−u_m) and β_m = ĉ_m s_m², H = Σ α_m x_m x_mᵀ and
// J = Σ β_m x_m x_mᵀ. Every x_m is ±1, so the rows of H for the variables
// of a group G of eight columns (the last of up to ten) are Σ_c s_G(c) ⊗ V_c, where c runs over the
// 256 sign patterns of G, s_G(c) ∈ {±1}⁸ is the pattern and V_c = Σ_{m: x_m
// has pattern c on G} α_m x_m. The V_c are accumulated row by row (one
// scaled add of the columns from G on, through gonum's floats), which
// costs about n²/16 additions a row against the n²/2 of a rank-one update
// (waldChunkSyrk, the reference, TestWaldChunk), and then contracted with
// the patterns by folding each group's table (waldContract: about 510
// vector additions a group, where summing every row's 256 patterns
// directly took 2048); likewise J with β.
func WaldChunk(s *Data, task *engine.Task, u []float64, total float64, lo, hi int) WaldMoments {
	n, i := s.N, task.Bias
	const per = 8 // variables a group: 256 patterns
	groups := (n + per - 1) / per
	if n > per && n%per != 0 && n%per <= 2 {
		// The last group takes a remainder of one or two variables (up
		// to 1024 patterns of 10): a group of one or two costs a row two
		// calls of floats.AddScaled on a vector or two, which cost more
		// than their additions (BenchmarkWaldChunk at n = 25: 8, 8, 9
		// instead of 8, 8, 8, 1 took 4.5% fewer instructions, and 0.61
		// to 0.93 of the time in three interleaved pairs).
		groups--
	}
	gsize := func(g int) int {
		if g == groups-1 {
			return n - g*per
		}
		return per
	}
	voff := make([]int, groups+1) // group g: 2^size patterns × (n − g·per) columns
	for g := 0; g < groups; g++ {
		voff[g+1] = voff[g] + (1<<gsize(g))*(n-g*per)
	}
	buf := waldPool.Get().(*[]float64)
	defer waldPool.Put(buf)
	if cap(*buf) < 2*voff[groups] {
		*buf = make([]float64, 2*voff[groups])
	}
	vh, vj := (*buf)[:voff[groups]], (*buf)[voff[groups]:2*voff[groups]]
	clear(vh)
	clear(vj)
	wm := WaldMoments{H: make([]float64, n*n), J: make([]float64, n*n), G: make([]float64, n)}
	x := make([]float64, n)
	states := s.States() // complete data: every state 0 or 1
	for m := lo; m < hi; m++ {
		ch, sm, alpha, beta := WaldRow(task, u, total, m)
		if ch == 0 {
			continue
		}
		row := spinDesignRow(x, states, n, i, m)
		floats.AddScaled(wm.G, ch*sm, x)
		for g := 0; g < groups; g++ {
			lo := g * per
			hiG := lo + gsize(g)
			code, t := 0, lo
			if hiG-lo >= 8 {
				code, t = GatherBits8(row[lo:lo+8]), lo+8
			}
			for ; t < hiG; t++ {
				code |= int(row[t]&1) << (t - lo)
			}
			if i >= lo && i < hiG {
				code |= 1 << (i - lo) // the bias column is +1
			}
			w := n - lo
			off := voff[g] + code*w
			floats.AddScaled(vh[off:off+w], alpha, x[lo:])
			floats.AddScaled(vj[off:off+w], beta, x[lo:])
		}
	}
	// Row j = lo + t of group g, columns k ≥ j: Σ_c s_t(c) V_c[k]
	// (waldContract, which folds the tables in place).
	scratch := make([]float64, 2*n)
	for g := 0; g < groups; g++ {
		lo, w := g*per, n-g*per
		size := gsize(g)
		tab := voff[g] + (1<<size)*w
		waldContract(wm.H[lo*n+lo:], n, vh[voff[g]:tab], size, w, true, scratch[:w], scratch[n:n+w])
		waldContract(wm.J[lo*n+lo:], n, vj[voff[g]:tab], size, w, true, scratch[:w], scratch[n:n+w])
	}
	return wm
}

// GatherBits8 returns the eight bytes of b (each 0 or 1 in its low bit)
// as the bits of one byte, b[t] in bit t: one load, a mask and a multiply
// whose partial products put byte t's bit at bit 56 + t, where a loop took
// eight shifts and ors (19% of WaldChunk, 5% of a bootstrap resample, by
// the profile of 200 + 200 resamples of the psych file).
func GatherBits8(b []uint8) int {
	v := binary.LittleEndian.Uint64(b) & 0x0101010101010101
	return int(v * 0x0102040810204080 >> 56)
}

// waldContract adds to rows t = 0..size-1 of dst (row t at
// dst[t*stride:]) the sums R_t = Σ_c s_t(c) V_c over the 2^size vectors
// V_c of length w in v (V_c at v[c*w:]), s_t(c) = +1 when bit t of c is set
// and −1 otherwise: all w entries of each row, or with upper only those
// from column t on, the upper triangle of a group of rows of a matrix
// whose first diagonal entry dst starts at (row t's entries from its
// diagonal on are dst[t*stride+t:t*stride+w]). With U_t the sum of the
// V_c whose bit t is set and S the sum of all of them, R_t = 2U_t − S.
// Taking the bits from the highest down, the table is folded in half at
// each (V_c += V_{c+2^t} for c < 2^t), which leaves the sum over the higher
// bits in the lower half: U_t is then the sum of the upper half before the
// fold, and S is V_0 after the last one. That is 2·(2^size − 1) additions
// of vectors, where summing each R_t directly takes size·2^size. v is
// overwritten; u and sum are scratch of length w.
func waldContract(dst []float64, stride int, v []float64, size, w int, upper bool, u, sum []float64) {
	first := func(t int) int { // row t's first column
		if upper {
			return t
		}
		return 0
	}
	ut := make([][]float64, size)
	for t := size - 1; t >= 0; t-- {
		half, f := 1<<t, first(t)
		clear(u[f:])
		for c := 0; c < half; c++ {
			up := v[(c+half)*w : (c+half+1)*w]
			floats.Add(u[f:], up[f:])
			floats.Add(v[c*w:(c+1)*w], up)
		}
		ut[t] = append(ut[t][:0], u[f:]...)
	}
	copy(sum, v[:w])
	for t := 0; t < size; t++ {
		f := first(t)
		row := dst[t*stride+f : t*stride+w]
		for x, uv := range ut[t] {
			row[x] += 2*uv - sum[f+x]
		}
	}
}

// WaldChunkMissing is WaldChunk for samples with missing spins, which
// enter x as 0: the sign patterns do not cover them, so H and J are
// summed as rank-k updates of blocks of rows (blas64's Dsyrk), rows
// √α_m x_m and √ĉ_m s_m x_m, about n²/2 multiply-adds a row for each.
func WaldChunkMissing(s *Data, task *engine.Task, u []float64, total float64, lo, hi int) WaldMoments {
	n, i := s.N, task.Bias
	const block = 256
	a := make([]float64, block*n)
	b := make([]float64, block*n)
	wm := WaldMoments{H: make([]float64, n*n), J: make([]float64, n*n), G: make([]float64, n)}
	h := blas64.Symmetric{N: n, Stride: n, Data: wm.H, Uplo: blas.Upper}
	j := blas64.Symmetric{N: n, Stride: n, Data: wm.J, Uplo: blas.Upper}
	r := 0
	flush := func() {
		if r > 0 {
			blas64.Syrk(blas.Trans, 1, blas64.General{Rows: r, Cols: n, Stride: n, Data: a[:r*n]}, 1, h)
			blas64.Syrk(blas.Trans, 1, blas64.General{Rows: r, Cols: n, Stride: n, Data: b[:r*n]}, 1, j)
			r = 0
		}
	}
	for m := lo; m < hi; m++ {
		ch, sm, alpha, _ := WaldRow(task, u, total, m)
		if ch == 0 {
			continue
		}
		av, bv := math.Sqrt(alpha), math.Sqrt(ch)*sm
		ar, br := a[r*n:(r+1)*n], b[r*n:(r+1)*n]
		for k, z := range s.States()[m*n : (m+1)*n] {
			xv := engine.SpinValue(z)
			if k == i {
				xv = 1
			}
			ar[k], br[k] = av*xv, bv*xv
			wm.G[k] += ch * sm * xv
		}
		if r++; r == block {
			flush()
		}
	}
	flush()
	return wm
}

// spinDesignRow sets x to row m of node i's design on complete spin
// states (n a row, every state 0 or 1): the spins as ±1 and the bias
// column i as +1. It returns the row's states.
func spinDesignRow(x []float64, states []uint8, n, i, m int) []uint8 {
	row := states[m*n : (m+1)*n]
	for k, z := range row {
		x[k] = float64(2*int(z&1) - 1)
	}
	x[i] = 1
	return row
}

// WaldRow returns, for row m of the task at margins u, its normalised
// weight ĉ_m, its score s_m = −y_m σ(−y_m u_m) and the weights α_m =
// ĉ_m σ(u_m)σ(−u_m) of H and β_m = ĉ_m s_m² of J (all 0 for a row of zero
// weight).
func WaldRow(task *engine.Task, u []float64, total float64, m int) (ch, sm, alpha, beta float64) {
	c := 1.0
	if task.C != nil {
		c = task.C[m]
	}
	if c == 0 {
		return 0, 0, 0, 0
	}
	ch = c / total
	y := task.Y[m]
	sg, sgy := engine.Sigmoids(u[m], y) // one exponential for both
	sm = -y * sgy
	return ch, sm, ch * sg * (1 - sg), ch * sm * sm
}

// waldPool holds the pattern sums of WaldChunk between calls.
var waldPool = sync.Pool{New: func() any { return new([]float64) }}

// invertSym returns the inverse of the symmetric positive semi-definite h,
// adding the smallest ridge ε·tr(h)/dim (ε = 1e-12, 1e-10, ...) that makes
// the Cholesky factorisation succeed, or h's inverse conditioned (see
// maxCondition). A direction without data (a state that
// never occurs) has zero curvature; the ridge leaves it decoupled from the
// others, and its influence stays zero since no observation points along it.
func invertSym(h *mat.SymDense) *mat.SymDense {
	dim := h.SymmetricDim()
	if inv, ok := engine.InverseSPD(h); ok && conditioned(h, inv) {
		return inv
	}
	tr := 0.0
	for x := 0; x < dim; x++ {
		tr += h.At(x, x)
	}
	if tr == 0 {
		tr = 1
	}
	r := mat.NewSymDense(dim, nil)
	for eps := 1e-12; ; eps *= 100 {
		r.CopySym(h)
		for x := 0; x < dim; x++ {
			r.SetSym(x, x, r.At(x, x)+eps*tr/float64(dim))
		}
		if inv, ok := engine.InverseSPD(r); ok {
			return inv
		}
	}
}

// maxCondition bounds max_x (h⁻¹)_xx · max_y h_yy, a lower bound on the
// condition number of h, above which invertSym treats h as singular and
// adds the ridge: a direction whose curvature is 1e-12 of the largest
// comes from rows of negligible weight (weights of 1e-300 beside 1 in a
// histogram), and its inverse curvature would make the sandwich variance
// overflow.
const maxCondition = 1e12

// conditioned reports whether inv, the inverse of h, is finite and within
// maxCondition of h's largest curvature on every diagonal entry.
func conditioned(h, inv *mat.SymDense) bool {
	top := 0.0
	for x := 0; x < h.SymmetricDim(); x++ {
		top = math.Max(top, h.At(x, x))
	}
	for x := 0; x < h.SymmetricDim(); x++ {
		if c := inv.At(x, x) * top; !(c <= maxCondition) { // NaN too
			return false
		}
	}
	return true
}

// WaldOneHot returns node i's debiased Ŵ_ij(a, b) (the map of Algorithm 2,
// equation (9) and the average over β, applied to the debiased value-pair
// solutions) and their sandwich standard errors, laid out like Result.est,
// and the degrees of freedom of each value a of z_i (df[a]): the fewest,
// N_αβ − D, among the value pairs the test uses that hold a (0 when it uses
// none of them). A value pair whose rarer value
// has too few rows for D coefficients (EnoughEvents) is left out of the
// estimate and of its influences: a rare value costs its own pairs, not
// every pair of its variable.
// tasks are node i's value pairs with both labels and ws their solutions;
// pairs without data contribute zero, as in LearnPairwise. design gives a
// task's design (Driver.Design).
//
// The regressions are handled in reference coding: the coordinates (j, b)
// for j ≠ i and b = 1..k-1 and one intercept, D = (n-1)(k-1) + 1 of them,
// in which H is invertible whenever every state occurs; the centred U of
// equation (9) is a linear function of them.
//
// With block true it also returns cov, the sandwich covariance of each
// block Ŵ_ij in the reduced coordinates of BlockWald: for every j, the
// (k−1)² × (k−1)² matrix of the entries (a, b), a, b ≥ 1, row-major, at
// cov[j·(k−1)⁴:]; the block of j = i is zero. Each block Ŵ_ij is doubly
// centred (its rows and its columns sum to zero), so those entries
// determine it. Otherwise cov is nil.
func WaldOneHot(s *Data, i int, tasks []engine.Task, ws [][]float64, design func(*engine.Task) engine.Design, block bool) (d, se, df, cov []float64) {
	n, k := s.N, s.K
	kk := k * k
	dim := (n-1)*(k-1) + 1
	ref := func(j, b int) int { // b ≥ 1
		jj := j
		if j > i {
			jj--
		}
		return jj*(k-1) + b - 1
	}
	// active appends the reference coordinates that are 1 in sample m.
	active := func(dst []int, m int) []int {
		dst = append(dst[:0], dim-1)
		row := s.States()[m*n : (m+1)*n]
		for j, b := range row {
			if j != i && b > 0 {
				dst = append(dst, ref(j, int(b)))
			}
		}
		return dst
	}
	// centre writes the centred U(j, :) of the reference coefficients q
	// into dst (n*k), for every j ≠ i.
	centre := func(dst, q []float64) {
		for j := 0; j < n; j++ {
			if j == i {
				continue
			}
			mean := 0.0
			for b := 1; b < k; b++ {
				mean += q[ref(j, b)]
			}
			mean /= float64(k)
			dst[j*k] = -mean
			for b := 1; b < k; b++ {
				dst[j*k+b] = q[ref(j, b)] - mean
			}
		}
	}
	byPair := make([]int, kk) // task index of (α, β), α < β; -1 when absent
	for x := range byPair {
		byPair[x] = -1
	}
	d = make([]float64, n*kk)
	se = make([]float64, n*kk)
	hinvs := make([][]float64, len(tasks))
	totals := make([]float64, len(tasks))
	hc1 := make([]float64, len(tasks))
	df = make([]float64, k)
	for a := range df {
		df[a] = math.Inf(1)
	}
	// resid[m*k+b] is the score s_m of row m in the pair of its own value
	// of z_i and b: a row enters only the k-1 pairs of its value, so this
	// keeps N·k numbers, not one a row for each of the k(k-1)/2 pairs.
	resid := make([]float64, s.Count*k)
	var act []int
	u := make([]float64, 0)
	uc := make([]float64, n*k)
	seen := make([]bool, k) // the values in some pair the test uses
	for t := range tasks {
		task := &tasks[t]
		if !EnoughEvents(minorityWeight(task), float64(dim)) {
			// Too few of the rarer value: the pair's coefficients are
			// left out of the test (its estimate and its influences),
			// not its values' every pair. Under the null every value
			// pair's U(j, ·) is 0, so the average over the pairs used is
			// too.
			continue
		}
		byPair[task.Alpha*k+task.Beta] = t
		rows := len(task.Y)
		total := engine.WeightSum(task.C, rows)
		totals[t] = total
		hc1[t] = HC1Factor(total, float64(dim))
		dof := total - float64(dim)
		df[task.Alpha] = math.Min(df[task.Alpha], dof)
		df[task.Beta] = math.Min(df[task.Beta], dof)
		seen[task.Alpha], seen[task.Beta] = true, true
		if cap(u) < rows {
			u = make([]float64, rows)
		}
		u = u[:rows]
		design(task).Margins(u, ws[t])
		h := make([]float64, dim*dim)
		g := make([]float64, dim)
		for r := 0; r < rows; r++ {
			c := 1.0
			if task.C != nil {
				c = task.C[r]
			}
			ch := c / total
			y := task.Y[r]
			sg, sgy := engine.Sigmoids(u[r], y)
			sm := -y * sgy
			m := int(task.Rows[r])
			other := task.Beta
			if int(s.States()[m*n+i]) == task.Beta {
				other = task.Alpha
			}
			resid[m*k+other] = sm
			act = active(act, m)
			hv := ch * sg * (1 - sg)
			for _, p := range act {
				g[p] += ch * sm
				hp := h[p*dim : (p+1)*dim]
				for _, q := range act {
					hp[q] += hv
				}
			}
		}
		hinv := invertSym(mat.NewSymDense(dim, h))
		hinvs[t] = make([]float64, dim*dim)
		for r := 0; r < dim; r++ {
			for c := 0; c < dim; c++ {
				hinvs[t][r*dim+c] = hinv.At(r, c)
			}
		}
		// d_U = centre(ŵ) − centre(H⁻¹g), added to row α and
		// subtracted from row β of Ŵ_i, over k.
		delta := make([]float64, dim)
		for r := 0; r < dim; r++ {
			for c, v := range hinvs[t][r*dim : (r+1)*dim] {
				delta[r] += v * g[c]
			}
		}
		centre(uc, delta)
		w := ws[t]
		for j := 0; j < n; j++ {
			if j == i {
				continue
			}
			mean := 0.0
			for b := 0; b < k; b++ {
				mean += w[j*k+b]
			}
			mean /= float64(k)
			for b := 0; b < k; b++ {
				v := (w[j*k+b] - mean - uc[j*k+b]) / float64(k)
				d[j*kk+task.Alpha*k+b] += v
				d[j*kk+task.Beta*k+b] -= v
			}
		}
	}
	// The influence of each observation on Ŵ_i, summed over its pairs,
	// in units of the total weight T (v̂ = T·v, weights ĉ = c/T), so that
	// T far from 1 (weights of 1e-300) overflows neither v nor c·v²:
	// Var = Σ c v² − (Σ c v)²/T = (Σ ĉ v̂² − (Σ ĉ v̂)²)/T.
	sum := make([]float64, n*kk)
	sumSq := make([]float64, n*kk)
	inf := make([]float64, n*kk)
	q := make([]float64, dim)
	r := (k - 1) * (k - 1) // reduced coordinates of a block
	var red []float64      // one row's reduced influences on a block
	// The blocks' covariances gather their rows' reduced influences, each
	// scaled by √ĉ, blockRows at a time, and add their Gram matrices by
	// the level-3 BLAS (Dsyrk) into each block's upper triangle.
	const blockRows = 128
	var chunk []float64 // blockRows × n·r
	filled := 0
	flush := func() {
		if filled == 0 {
			return
		}
		for j := 0; j < n; j++ {
			if j == i {
				continue
			}
			a := blas64.General{Rows: filled, Cols: r, Stride: n * r, Data: chunk[j*r:]}
			c := blas64.Symmetric{Uplo: blas.Upper, N: r, Stride: r, Data: cov[j*r*r : (j+1)*r*r]}
			blas64.Syrk(blas.Trans, 1, a, 1, c)
		}
		filled = 0
	}
	if block {
		cov = make([]float64, n*r*r)
		red = make([]float64, r)
		chunk = make([]float64, blockRows*n*r)
	}
	all := 0.0
	for m := 0; m < s.Count; m++ {
		all += s.Weight(m)
	}
	for m := 0; m < s.Count; m++ {
		c := s.Weight(m) / all
		if c == 0 {
			continue
		}
		a := int(s.States()[m*n+i])
		act = active(act, m)
		clear(inf)
		touched := false
		for beta := 0; beta < k; beta++ {
			if beta == a {
				continue
			}
			lo, hi := min(a, beta), max(a, beta)
			t := byPair[lo*k+hi]
			if t < 0 {
				continue
			}
			touched = true
			coef := hc1[t] * resid[m*k+beta] * (all / totals[t])
			clear(q)
			for _, p := range act {
				col := hinvs[t][p*dim : (p+1)*dim]
				for r, v := range col {
					q[r] += v
				}
			}
			centre(uc, q)
			f := coef / float64(k)
			for j := 0; j < n; j++ {
				if j == i {
					continue
				}
				for b := 0; b < k; b++ {
					v := f * uc[j*k+b]
					inf[j*kk+lo*k+b] += v
					inf[j*kk+hi*k+b] -= v
				}
			}
		}
		if !touched {
			continue
		}
		for x, v := range inf {
			if v != 0 {
				sum[x] += c * v
				sumSq[x] += c * v * v
			}
		}
		if block {
			row := chunk[filled*n*r : (filled+1)*n*r]
			sq := math.Sqrt(c)
			for j := 0; j < n; j++ {
				if j == i {
					continue
				}
				dst := row[j*r : (j+1)*r]
				reduce(dst, inf[j*kk:(j+1)*kk], k)
				for x := range dst {
					dst[x] *= sq
				}
			}
			if filled++; filled == blockRows {
				flush()
			}
		}
	}
	flush()
	if all > 0 {
		for x := range se {
			se[x] = sandwichSE(sumSq[x]-sum[x]*sum[x], all)
		}
		if block {
			// Cov = (Σ ĉ v̂v̂ᵀ − (Σ ĉ v̂)(Σ ĉ v̂)ᵀ)/T, as each entry's variance
			// above; the upper triangle was summed, the lower is its mirror.
			for j := 0; j < n; j++ {
				if j == i {
					continue
				}
				reduce(red, sum[j*kk:(j+1)*kk], k)
				cj := cov[j*r*r : (j+1)*r*r]
				addOuter(cj, red, -1)
				for x := 0; x < r; x++ {
					for y := x; y < r; y++ {
						v := cj[x*r+y] / all
						if math.IsNaN(v) || math.IsInf(v, 0) {
							v = 0
						}
						cj[x*r+y], cj[y*r+x] = v, v
					}
				}
			}
		}
	}
	for a, ok := range seen {
		if !ok {
			df[a] = 0 // no pair of value a is used: its row has no test
		}
	}
	return d, se, df, cov
}

// reduce writes the reduced coordinates of the k×k block v, its entries
// (a, b) with a, b ≥ 1, into dst ((k−1)², row-major).
func reduce(dst, v []float64, k int) {
	x := 0
	for a := 1; a < k; a++ {
		x += copy(dst[x:], v[a*k+1:(a+1)*k])
	}
}

// addOuter adds c·v vᵀ to the upper triangle of the r×r matrix m.
func addOuter(m, v []float64, c float64) {
	r := len(v)
	for x, vx := range v {
		if vx == 0 {
			continue
		}
		f := c * vx
		row := m[x*r : (x+1)*r]
		for y := x; y < r; y++ {
			row[y] += f * v[y]
		}
	}
}

// minorityWeight returns the weight of the task's rarer label.
func minorityWeight(task *engine.Task) float64 {
	var pos, neg float64
	for m, y := range task.Y {
		c := 1.0
		if task.C != nil {
			c = task.C[m]
		}
		if y > 0 {
			pos += c
		} else {
			neg += c
		}
	}
	return math.Min(pos, neg)
}

// DropOverflow sets to 0 every entry of a node's debiased estimates d and
// standard errors se where either is not finite, which the edge test then
// cannot use (it scores an entry of zero estimate or zero standard error
// 0). Weights many orders of magnitude apart (1 beside 1e300 in one
// sample: FuzzLearn's inputs 797c27f15dfcfad7 and 8d69a93dcbf1d52f) can
// overflow the influences of a nearly singular regression even when each
// step is scaled.
func DropOverflow(d, se []float64) {
	for x := range d {
		if math.IsNaN(d[x]) || math.IsInf(d[x], 0) || math.IsNaN(se[x]) || math.IsInf(se[x], 0) {
			d[x], se[x] = 0, 0
		}
	}
}
