package pairwise

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise/solve"
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

// waldSpins returns the debiased Â_ij of node i = task.bias and their
// standard errors, in the Ising form [[a, -a], [-a, a]] laid out like
// Result.est (4 entries per neighbour j), for the solution w of node i's
// regression on s. u (one entry a row of the task) is scratch for the
// margins.
func waldSpins(s *Samples, task *pathTask, w, u []float64) (d, se []float64) {
	n, i, rows := s.n, task.bias, len(task.y)
	total := weightSum(task.c, rows)
	u = u[:rows]
	task.x.Margins(u, w)
	// A has rows √(ĉ v) x_m and B rows √ĉ s_m x_m, so that H = AᵀA and
	// Σ ĉ s² x xᵀ = BᵀB; both are accumulated through blas64's Dsyrk a
	// block of rows at a time, so that the memory does not grow with N.
	const block = 512
	a := make([]float64, block*n)
	b := make([]float64, block*n)
	g := make([]float64, n)
	h, j := mat.NewSymDense(n, nil), mat.NewSymDense(n, nil)
	for lo := 0; lo < rows; lo += block {
		hi := min(lo+block, rows)
		for m := lo; m < hi; m++ {
			c := 1.0
			if task.c != nil {
				c = task.c[m]
			}
			ar, br := a[(m-lo)*n:(m-lo+1)*n], b[(m-lo)*n:(m-lo+1)*n]
			if c == 0 {
				clear(ar)
				clear(br)
				continue
			}
			ch := c / total
			y := task.y[m]
			sg := solve.Sigmoid(u[m])
			sm := -y * solve.Sigmoid(-y*u[m])
			av, bv := math.Sqrt(ch*sg*(1-sg)), math.Sqrt(ch)*sm
			row := s.b8[m*n : (m+1)*n]
			for j, z := range row {
				xv := float64(2*int(z) - 1)
				if j == i {
					xv = 1
				}
				ar[j] = av * xv
				br[j] = bv * xv
				g[j] += ch * sm * xv
			}
		}
		blas64.Syrk(blas.Trans, 1, blas64.General{Rows: hi - lo, Cols: n, Stride: n, Data: a[:(hi-lo)*n]}, 1, h.RawSymmetric())
		blas64.Syrk(blas.Trans, 1, blas64.General{Rows: hi - lo, Cols: n, Stride: n, Data: b[:(hi-lo)*n]}, 1, j.RawSymmetric())
	}
	hinv := invertSym(h)
	delta := mat.NewVecDense(n, nil)
	delta.MulVec(hinv, mat.NewVecDense(n, g))
	var jh mat.Dense
	jh.Mul(j, hinv)
	d = make([]float64, 4*n)
	se = make([]float64, 4*n)
	for c := 0; c < n; c++ {
		if c == i {
			continue
		}
		v := 0.0
		for r := 0; r < n; r++ {
			v += hinv.At(c, r) * jh.At(r, c)
		}
		dl := delta.AtVec(c)
		v = (v - dl*dl) / total
		av := (w[c] - dl) / 2 // Â_ij = d_j/2 as in Algorithm 1
		sv := math.Sqrt(math.Max(v, 0)) / 2
		d[4*c], d[4*c+1], d[4*c+2], d[4*c+3] = av, -av, -av, av
		se[4*c], se[4*c+1], se[4*c+2], se[4*c+3] = sv, sv, sv, sv
	}
	return d, se
}

// invertSym returns the inverse of the symmetric positive semi-definite h,
// adding the smallest ridge ε·tr(h)/dim (ε = 1e-12, 1e-10, ...) that makes
// the Cholesky factorisation succeed. A direction without data (a state that
// never occurs) has zero curvature; the ridge leaves it decoupled from the
// others, and its influence stays zero since no observation points along it.
func invertSym(h *mat.SymDense) *mat.SymDense {
	dim := h.SymmetricDim()
	var chol mat.Cholesky
	inv := mat.NewSymDense(dim, nil)
	if chol.Factorize(h) {
		if err := chol.InverseTo(inv); err == nil || isCondition(err) {
			return inv
		}
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
		if chol.Factorize(r) {
			if err := chol.InverseTo(inv); err == nil || isCondition(err) {
				return inv
			}
		}
	}
}

func isCondition(err error) bool {
	_, ok := err.(mat.Condition)
	return ok
}

// waldOneHot returns node i's debiased Ŵ_ij(a, b) (the map of Algorithm 2,
// equation (9) and the average over β, applied to the debiased value-pair
// solutions) and their sandwich standard errors, laid out like Result.est.
// tasks are node i's value pairs with both labels and ws their solutions;
// pairs without data contribute zero, as in LearnPairwise.
//
// The regressions are handled in reference coding: the coordinates (j, b)
// for j ≠ i and b = 1..k-1 and one intercept, D = (n-1)(k-1) + 1 of them,
// in which H is invertible whenever every state occurs; the centred U of
// equation (9) is a linear function of them.
func waldOneHot(s *Samples, i int, tasks []pathTask, ws [][]float64) (d, se []float64) {
	n, k := s.n, s.k
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
		row := s.b8[m*n : (m+1)*n]
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
	resid := make([][]float64, len(tasks)) // by sample row
	var act []int
	u := make([]float64, 0)
	uc := make([]float64, n*k)
	for t := range tasks {
		task := &tasks[t]
		byPair[task.alpha*k+task.beta] = t
		rows := len(task.y)
		total := weightSum(task.c, rows)
		totals[t] = total
		if cap(u) < rows {
			u = make([]float64, rows)
		}
		u = u[:rows]
		task.x.Margins(u, ws[t])
		h := make([]float64, dim*dim)
		g := make([]float64, dim)
		resid[t] = make([]float64, s.rows)
		for r := 0; r < rows; r++ {
			c := 1.0
			if task.c != nil {
				c = task.c[r]
			}
			ch := c / total
			y := task.y[r]
			sg := solve.Sigmoid(u[r])
			sm := -y * solve.Sigmoid(-y*u[r])
			m := int(task.rows[r])
			resid[t][m] = sm
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
				d[j*kk+task.alpha*k+b] += v
				d[j*kk+task.beta*k+b] -= v
			}
		}
	}
	// The influence of each observation on Ŵ_i, summed over its pairs.
	sum := make([]float64, n*kk)
	sumSq := make([]float64, n*kk)
	inf := make([]float64, n*kk)
	q := make([]float64, dim)
	all := 0.0
	for m := 0; m < s.rows; m++ {
		c := 1.0
		if s.weights != nil {
			c = s.weights[m]
		}
		if c == 0 {
			continue
		}
		all += c
		a := int(s.b8[m*n+i])
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
			coef := resid[t][m] / totals[t]
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
	}
	if all > 0 {
		for x := range se {
			se[x] = math.Sqrt(math.Max(sumSq[x]-sum[x]*sum[x]/all, 0))
		}
	}
	return d, se
}
