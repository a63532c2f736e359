package selection

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/internal/estimates"
)

// The edge test of the ordinal model (engine.Data.SetScores). Node i's
// value pair (α, β) regresses [z_i = α] against [z_i = β] on the scores
// x_j = s_j(z_j) of the other variables, and under the model
// W_ij(a, b) = w_ij·s_i(a)·s_j(b) its coefficient of z_j is
// Δ_αβ·w_ij, Δ_αβ = s_i(α) − s_i(β). Each pair's debiased coefficient
// (the one Newton step of WaldSpins) divided by Δ_αβ estimates w_ij; the
// test's estimate is their average with weights
//
//	c_αβ ∝ Δ_αβ²·N_α·N_β/(N_α + N_β)
//
// (N_a the weight of the rows with z_i = a), the inverse of the pair's
// variance up to the spread of the scores: a pair of distant answers, or
// of two common ones, says most about w_ij. A row enters the k − 1 pairs
// of its value of z_i, so, as in WaldOneHot, the influences of its pairs
// are added before their variance is taken.
//
// Pairs whose rarer value has too few rows for n coefficients
// (EnoughEvents) take no part in the test: a rare answer leaves out its
// own pairs, not the variable, and as a neighbour it is one more value of
// a score, not a coefficient.

// OrdinalPairWeights returns the weights c_αβ (summing to 1) of node i's
// value pairs tasks, over those for which use(t) is true (all when use is
// nil); every weight is 0 when none is used.
func OrdinalPairWeights(tasks []engine.Task, scores []float64, k int, use func(t int) bool) []float64 {
	c := make([]float64, len(tasks))
	sum := 0.0
	for t := range tasks {
		if use != nil && !use(t) {
			continue
		}
		task := &tasks[t]
		var na, nb float64
		for m, y := range task.Y {
			w := 1.0
			if task.C != nil {
				w = task.C[m]
			}
			if y > 0 {
				na += w
			} else {
				nb += w
			}
		}
		i := task.Bias
		delta := scores[i*k+task.Alpha] - scores[i*k+task.Beta]
		if na+nb > 0 {
			c[t] = delta * delta * na * nb / (na + nb)
		}
		sum += c[t]
	}
	if sum > 0 {
		for t := range c {
			c[t] /= sum
		}
	}
	return c
}

// WaldScores returns node i's debiased Ŵ_ij(a, b) = ŵ_ij·s_i(a)·s_j(b)
// and their sandwich standard errors, laid out like the root's per-node
// estimates (estimates.OrdinalLayout), and the degrees of freedom of each
// value of z_i: the fewest N_αβ − n among the pairs the test uses, the
// same for every value (0 when it uses none: the test cannot use node i).
// tasks are node i's value pairs with rows of both values, ws their
// solutions, design gives a task's design and scores are s_j(a) (n×k). It
// returns nils without tasks.
func WaldScores(s *Data, i int, tasks []engine.Task, ws [][]float64, design func(*engine.Task) engine.Design, scores []float64) (d, se, df []float64) {
	if len(tasks) == 0 {
		return nil, nil, nil
	}
	w, sd, nu := waldScores(s, i, tasks, ws, design, scores)
	df = make([]float64, s.K)
	for a := range df {
		df[a] = nu
	}
	return estimates.OrdinalLayout(i, s.N, s.K, w, scores, false), estimates.OrdinalLayout(i, s.N, s.K, sd, scores, true), df
}

// waldScores is WaldScores with one coupling and one standard error a
// variable.
func waldScores(s *Data, i int, tasks []engine.Task, ws [][]float64, design func(*engine.Task) engine.Design, scores []float64) (d, se []float64, df float64) {
	n, k := s.N, s.K
	p := float64(n) // n − 1 scores and the bias
	use := func(t int) bool {
		task := &tasks[t]
		return EnoughEvents(minorityWeight(task), p) && scores[i*k+task.Alpha] != scores[i*k+task.Beta]
	}
	c := OrdinalPairWeights(tasks, scores, k, use)
	d = make([]float64, n)
	se = make([]float64, n)
	df = math.Inf(1)
	all := 0.0
	for m := 0; m < s.Count; m++ {
		all += s.Weight(m)
	}
	states := s.States()
	inf := make([]float64, s.Count*n) // Σ over a row's pairs of its influence, in units of all
	used := false
	var u []float64
	for t := range tasks {
		if c[t] == 0 {
			continue
		}
		used = true
		task := &tasks[t]
		rows := len(task.Y)
		total := engine.WeightSum(task.C, rows)
		df = math.Min(df, total-p)
		delta := scores[i*k+task.Alpha] - scores[i*k+task.Beta]
		if cap(u) < rows {
			u = make([]float64, rows)
		}
		u = u[:rows]
		design(task).Margins(u, ws[t])
		// The design rows (bias column i = 1), H and g under ĉ = c/total.
		x := mat.NewDense(rows, n, nil)
		h := mat.NewSymDense(n, nil)
		g := make([]float64, n)
		res := make([]float64, rows)
		xr := x.RawMatrix().Data
		for r := 0; r < rows; r++ {
			m := int(task.Rows[r])
			row := xr[r*n : (r+1)*n]
			for j, z := range states[m*n : (m+1)*n] {
				row[j] = scores[j*k+int(z)]
			}
			row[i] = 1
			ch, sm, alpha, _ := WaldRow(task, u, total, r)
			res[r] = sm
			if ch == 0 {
				continue
			}
			h.SymRankOne(h, alpha, mat.NewVecDense(n, row))
			for j, v := range row {
				g[j] += ch * sm * v
			}
		}
		hinv := invertSym(h)
		var step mat.VecDense
		step.MulVec(hinv, mat.NewVecDense(n, g))
		f := c[t] / delta
		for j := 0; j < n; j++ {
			if j != i {
				d[j] += f * (ws[t][j] - step.AtVec(j))
			}
		}
		// Influences: row r's is hc1·s_r·(all/total)·(c/Δ)·H⁻¹x_r.
		var phi mat.Dense
		phi.Mul(x, hinv)
		pr := phi.RawMatrix()
		scale := HC1Factor(total, p) * (all / total) * f
		for r := 0; r < rows; r++ {
			m := int(task.Rows[r])
			a := scale * res[r]
			dst := inf[m*n : (m+1)*n]
			for j, v := range pr.Data[r*pr.Stride : r*pr.Stride+n] {
				dst[j] += a * v
			}
		}
	}
	if !used || !(all > 0) {
		return d, se, 0
	}
	sum := make([]float64, n)
	sumSq := make([]float64, n)
	for m := 0; m < s.Count; m++ {
		ch := s.Weight(m) / all
		if ch == 0 {
			continue
		}
		for j, v := range inf[m*n : (m+1)*n] {
			sum[j] += ch * v
			sumSq[j] += ch * v * v
		}
	}
	for j := range se {
		if j != i {
			se[j] = sandwichSE(sumSq[j]-sum[j]*sum[j], all)
		}
	}
	return d, se, math.Max(df, 0)
}
