package selection

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// The ordinal model's refit: node i's conditional law under W_ij(a, b) =
// w_ij·s_i(a)·s_j(b),
//
//	P(z_i = a | z_−i) = exp(θ_a + s_i(a)·η) / Σ_b exp(θ_b + s_i(b)·η),
//	η = Σ_{j≠i} w_ij·s_j(z_j),
//
// fitted without constraint by maximum likelihood on all rows at once (the
// adjacent-category logit model of ordered answers), one softmax over the
// answers that z_i takes. Its parameters are the couplings w_ij and the
// fields θ_a of those answers but the first (θ of the first is 0). With
// weights ĉ_m = c_m/N, the gradient of the mean log-likelihood is
//
//	∂/∂θ_a = Σ ĉ ([z_i = a] − p_a),   ∂/∂w_j = Σ ĉ x_j (s(z_i) − E s),
//
// and its negative Hessian, the Fisher information F, has the blocks
// diag(p) − ppᵀ (fields), x_j·p_a(s_a − E s) (field a, coupling j) and
// x xᵀ·Var s (couplings), summed with the same weights (E and Var under
// p). The standard error of ŵ_ij is √((F⁻¹)_jj/N), as in the Ising
// refit (refit.go), and the degrees of freedom N − (n − 1) − (answers − 1).

// ordinalRefitTol is the refit's stopping rule: the predicted gain in mean
// log-likelihood of one more Newton step below 1e-12.
const ordinalRefitTol = 1e-12

// ordinalPathTol is the stopping rule of the EBIC paths' refits
// (ordinal_ebic.go), which need the log-likelihood only: at 1e-9 its
// error, N·1e-9, is far below the criterion's steps of ln N.
const ordinalPathTol = 1e-9

// ordinalRefitMaxIter bounds the Newton steps: from zero, a well-posed
// fit converges in 5 to 8.
const ordinalRefitMaxIter = 50

// OrdinalRefit returns node i's refitted couplings ŵ_ij (one a variable, 0
// at i), their standard errors, its fields θ̂_i(a) (k of them: 0 for the
// first answer z_i takes, NaN for the answers it never takes) and the
// degrees of freedom, for the scores s_j(a) (n×k); ok is false when the
// maximum likelihood estimate does not exist or was not reached
// (separated answers: a coupling runs off to infinity), when node i takes
// fewer than two answers, or when there are no more rows than parameters.
func OrdinalRefit(s *Data, i int, scores []float64) (w, se, theta []float64, df float64, ok bool) {
	cols := make([]int, 0, s.N-1)
	for j := 0; j < s.N; j++ {
		if j != i {
			cols = append(cols, j)
		}
	}
	w, se, theta, df, _, ok = ordinalRefit(s, i, scores, cols, nil, ordinalRefitTol)
	return w, se, theta, df, ok
}

// ordinalRefit is OrdinalRefit on the variables cols (none may be i),
// which also returns the mean log-likelihood of the
// fit, Σ ĉ_m log P(z_mi | z_m,−i) with ĉ = c/N. Newton starts from start
// when it is not nil: θ̂ of the answers but the first, in their order, then
// the couplings of the first len(start) − (answers − 1) variables of cols
// (the others from 0), as a warm start along a path of growing cols. It
// stops when the Newton decrement's half, the predicted gain in mean
// log-likelihood, is below tol.
func ordinalRefit(s *Data, i int, scores []float64, cols []int, start []float64, tol float64) (w, se, theta []float64, df, meanLL float64, ok bool) {
	n, k := s.N, s.K
	states := s.States()
	// The answers node i takes, and the design's columns: the other
	// variables.
	seen := make([]bool, k)
	total := 0.0
	for m := 0; m < s.Count; m++ {
		if c := s.Weight(m); c > 0 {
			seen[states[m*n+i]] = true
			total += c
		}
	}
	var answers []int
	for a, ok := range seen {
		if ok {
			answers = append(answers, a)
		}
	}
	na := len(answers)
	if na < 2 {
		return nil, nil, nil, 0, 0, false
	}
	slot := make([]int, k) // the answer's position in answers
	for x, a := range answers {
		slot[a] = x
	}
	nc := len(cols)
	dim := (na - 1) + nc // fields of answers[1:], then couplings
	if !(total > float64(dim)) {
		return nil, nil, nil, 0, 0, false
	}
	si := make([]float64, na)
	for x, a := range answers {
		si[x] = scores[i*k+a]
	}
	par := make([]float64, dim)
	if len(start) <= dim {
		copy(par, start)
	}
	x := make([]float64, nc)
	p := make([]float64, na)
	grad := make([]float64, dim)
	info := mat.NewSymDense(dim, nil)
	// pass computes the mean log-likelihood at par, and with deriv its
	// gradient and information.
	pass := func(par []float64, deriv bool) float64 {
		ll := 0.0
		if deriv {
			clear(grad)
			info.Zero()
		}
		raw := info.RawSymmetric().Data
		for m := 0; m < s.Count; m++ {
			c := s.Weight(m)
			if c == 0 {
				continue
			}
			c /= total
			row := states[m*n : (m+1)*n]
			eta := 0.0
			for t, j := range cols {
				x[t] = scores[j*k+int(row[j])]
				eta += par[na-1+t] * x[t]
			}
			top := math.Inf(-1)
			for a := range p {
				v := si[a] * eta
				if a > 0 {
					v += par[a-1]
				}
				p[a] = v
				top = math.Max(top, v)
			}
			sum := 0.0
			for a := range p {
				p[a] = math.Exp(p[a] - top)
				sum += p[a]
			}
			z := slot[row[i]]
			zv := si[z] * eta
			if z > 0 {
				zv += par[z-1]
			}
			ll += c * (zv - top - math.Log(sum))
			if !deriv {
				continue
			}
			es, es2 := 0.0, 0.0
			for a := range p {
				p[a] /= sum
				es += p[a] * si[a]
				es2 += p[a] * si[a] * si[a]
			}
			vs := es2 - es*es
			r := si[z] - es
			for a := 1; a < na; a++ {
				ind := 0.0
				if a == z {
					ind = 1
				}
				grad[a-1] += c * (ind - p[a])
				ra := raw[(a-1)*dim:]
				for b := a; b < na; b++ {
					v := -p[a] * p[b]
					if b == a {
						v += p[a]
					}
					ra[b-1] += c * v
				}
				cross := c * p[a] * (si[a] - es)
				for t := range x {
					ra[na-1+t] += cross * x[t]
				}
			}
			for t, xt := range x {
				grad[na-1+t] += c * xt * r
				rt := raw[(na-1+t)*dim:]
				f := c * vs * xt
				for u := t; u < nc; u++ {
					rt[na-1+u] += f * x[u]
				}
			}
		}
		return ll
	}
	ll, converged := newtonAscent(pass, par, grad, info, tol, ordinalRefitMaxIter)
	var chol mat.Cholesky
	if !converged || !chol.Factorize(info) {
		return nil, nil, nil, 0, 0, false
	}
	var inv mat.SymDense
	if err := chol.InverseTo(&inv); err != nil {
		return nil, nil, nil, 0, 0, false
	}
	w = make([]float64, n)
	se = make([]float64, n)
	for t, j := range cols {
		d := na - 1 + t
		w[j] = par[d]
		se[j] = sandwichSE(inv.At(d, d), total)
		if math.IsNaN(w[j]) || math.IsInf(se[j], 0) || math.IsNaN(se[j]) {
			return nil, nil, nil, 0, 0, false
		}
	}
	theta = make([]float64, k)
	for a := range theta {
		theta[a] = math.NaN()
	}
	theta[answers[0]] = 0
	for x, a := range answers[1:] {
		theta[a] = par[x]
	}
	return w, se, theta, total - float64(dim), ll, true
}

// newtonAscent maximises the concave mean log-likelihood that pass
// computes at a point (with deriv, also its gradient into grad and its
// information, the negative Hessian, into info) by Newton's method from
// par, backtracking until the gain reaches a quarter of the predicted
// one, and stops when the Newton decrement's half, the predicted gain of
// one more step, is below tol. It leaves par at the last iterate, grad and
// info evaluated there, and returns the log-likelihood there and whether
// the stopping rule was met within maxIter steps (false too when the
// information is not positive definite or a step cannot gain).
func newtonAscent(pass func(par []float64, deriv bool) float64, par, grad []float64, info *mat.SymDense, tol float64, maxIter int) (float64, bool) {
	dim := len(par)
	var chol mat.Cholesky
	step := make([]float64, dim)
	trial := make([]float64, dim)
	ll := pass(par, true)
	for it := 0; it < maxIter; it++ {
		if !chol.Factorize(info) {
			return ll, false
		}
		if err := chol.SolveVecTo(mat.NewVecDense(dim, step), mat.NewVecDense(dim, grad)); err != nil {
			return ll, false
		}
		dec := 0.0 // the Newton decrement λ², twice the predicted gain
		for d := range step {
			dec += step[d] * grad[d]
		}
		if dec/2 < tol {
			return ll, true
		}
		// Backtracking on the log-likelihood (concave).
		t := 1.0
		for ; t > 1e-10; t /= 2 {
			for d := range trial {
				trial[d] = par[d] + t*step[d]
			}
			if v := pass(trial, false); v >= ll+0.25*t*dec {
				break
			}
		}
		if t <= 1e-10 {
			return ll, false
		}
		copy(par, trial)
		ll = pass(par, true)
	}
	return ll, false
}
