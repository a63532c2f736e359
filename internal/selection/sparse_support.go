package selection

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise/internal/engine"
)

// The support-model test (wald_support.go) for a subset of the spins
// (issue 33). WaldSupport's moments of a spin j outside the support A are
// sums over the rows of values of column j alone (the sign-pattern sums
// V_c[j], their contraction, g_j), each taken in the same order whatever
// the other columns are. SupportSubset computes them for the columns of A
// and a list of other spins only, with the same arithmetic column by
// column, so that a spin's statistic is the same bits whether it was
// computed with all n spins (the edge test's first pass) or with a few
// (the second pass, which fetches the partner entries of the pairs the
// first pass kept, and Tuning's accessors): TestSupportSubsetExact holds
// the two to equality. Its cost is O(N·(|A| + |js|)) a node, against
// WaldSupport's O(N·n).

// SupportSubset returns node i's Ising estimates a (Â_ij, the value that
// WaldSupport writes in the form [[a, −a], [−a, a]]) and their standard
// errors sd for the spins js (all n when js is nil; i's own entry is 0),
// and the degrees of freedom of both values of z_i, at the margins u of
// w (u_m = ⟨w, x_m⟩) and the total weight total > 0 of the task's rows.
// js need not be sorted and may hold i or spins of the support.
func SupportSubset(s *Data, task *engine.Task, w, u []float64, total float64, js []int) (a, sd []float64, dof float64) {
	n, i, rows := s.N, task.Bias, len(task.Y)
	cols := []int{i} // A: the bias (x_i = 1), then the support
	for c, v := range w {
		if c != i && v != 0 {
			cols = append(cols, c)
		}
	}
	p := len(cols)
	// all: the columns whose moments are summed, in increasing order; pos
	// maps a column to its place in all.
	var all []int
	pos := make([]int32, n)
	if js == nil {
		all = make([]int, n)
		for c := range all {
			all[c], pos[c] = c, int32(c)
		}
	} else {
		for c := range pos {
			pos[c] = -1
		}
		for _, c := range cols {
			pos[c] = 0
		}
		for _, c := range js {
			pos[c] = 0
		}
		for c, v := range pos {
			if v == 0 {
				pos[c] = int32(len(all))
				all = append(all, c)
			}
		}
	}
	L := len(all)
	size, chunks := engine.Chunking(task.X, rows)
	parts := make([]supportMoments, chunks)
	engine.RunChunks(task.X, chunks, func(c int) {
		lo := c * size
		parts[c] = subsetChunk(s, task, cols, all, u, total, lo, min(lo+size, rows))
	})
	ha, ja := make([]float64, p*L), make([]float64, p*L)
	g := make([]float64, L)
	hjj, jjj := 0.0, 0.0
	for _, pt := range parts {
		floats.Add(ha, pt.H)
		floats.Add(ja, pt.J)
		floats.Add(g, pt.G)
		hjj += pt.Hd
		jjj += pt.Jd
	}
	haa, jaa := mat.NewSymDense(p, nil), mat.NewSymDense(p, nil)
	ga := make([]float64, p)
	for x, ca := range cols {
		ga[x] = g[pos[ca]]
		for b := x; b < p; b++ {
			haa.SetSym(x, b, ha[x*L+int(pos[cols[b]])])
			jaa.SetSym(x, b, ja[x*L+int(pos[cols[b]])])
		}
	}
	hinv := invertSym(haa)
	var delta, jh mat.Dense
	delta.Mul(hinv, mat.NewVecDense(p, ga))
	jh.Mul(jaa, hinv)
	dof = total - float64(p+1)
	hc1 := HC1Factor(total, float64(p+1))
	if !EnoughEvents(minorityWeight(task), float64(p+1)) {
		dof = 0
	}
	// The values of every column summed, then those asked for.
	va, vs := make([]float64, L), make([]float64, L)
	inA := make([]bool, L)
	for x, c := range cols {
		inA[pos[c]] = true
		if x == 0 {
			continue
		}
		v := 0.0
		for r := 0; r < p; r++ {
			v += hinv.At(x, r) * jh.At(r, x)
		}
		dl := delta.At(x, 0)
		va[pos[c]], vs[pos[c]] = (w[c]-dl)/2, hc1*sandwichSE(v-dl*dl, total)/2
	}
	hAj, jAj, b, jb := make([]float64, p), make([]float64, p), make([]float64, p), make([]float64, p)
	bv, jbv := mat.NewVecDense(p, b), mat.NewVecDense(p, jb)
	for t := range all {
		if inA[t] {
			continue
		}
		for x := range cols {
			hAj[x], jAj[x] = ha[x*L+t], ja[x*L+t]
		}
		bv.MulVec(hinv, mat.NewVecDense(p, hAj))
		sc := hjj - floats.Dot(hAj, b)
		if !(sc > 1e-12*hjj) {
			continue // j lies in the span of A's columns: no test (zero)
		}
		dl := (g[t] - floats.Dot(b, ga)) / sc
		jbv.MulVec(jaa, bv)
		q := (jjj - 2*floats.Dot(b, jAj) + floats.Dot(b, jb)) / (sc * sc)
		va[t], vs[t] = -dl/2, hc1*sandwichSE(q-dl*dl, total)/2
	}
	if js == nil {
		return va, vs, dof
	}
	a, sd = make([]float64, len(js)), make([]float64, len(js))
	for x, c := range js {
		a[x], sd[x] = va[pos[c]], vs[pos[c]]
	}
	return a, sd, dof
}

// subsetChunk is SupportChunk for the columns all (increasing, holding
// cols): the rows of H and J for the columns of A, and g, over those
// columns only, with SupportChunk's arithmetic column by column.
func subsetChunk(s *Data, task *engine.Task, cols, all []int, u []float64, total float64, lo, hi int) supportMoments {
	n, i, p, L := s.N, task.Bias, len(cols), len(all)
	const per = 8
	groups := (p + per - 1) / per
	tab := make([][]float64, groups)
	for gr := range tab {
		tab[gr] = make([]float64, 2*(1<<min(per, p-gr*per))*L) // H's then J's
	}
	sm := supportMoments{H: make([]float64, p*L), J: make([]float64, p*L), G: make([]float64, L)}
	x := make([]float64, L)
	states := s.States()
	bias, hasBias := slices.BinarySearch(all, i)
	for m := lo; m < hi; m++ {
		ch, sg, alpha, beta := WaldRow(task, u, total, m)
		if ch == 0 {
			continue
		}
		row := states[m*n : (m+1)*n]
		for t, c := range all {
			x[t] = float64(2*int(row[c]&1) - 1)
		}
		if hasBias {
			x[bias] = 1
		}
		floats.AddScaled(sm.G, ch*sg, x)
		sm.Hd += alpha
		sm.Jd += beta
		for gr := range tab {
			code := 0
			for t, c := range cols[gr*per : min((gr+1)*per, p)] {
				b := int(row[c] & 1)
				if c == i {
					b = 1
				}
				code |= b << t
			}
			half := len(tab[gr]) / 2
			floats.AddScaled(tab[gr][code*L:(code+1)*L], alpha, x)
			floats.AddScaled(tab[gr][half+code*L:half+(code+1)*L], beta, x)
		}
	}
	scratch := make([]float64, 2*L)
	for gr, v := range tab {
		size, half := min(per, p-gr*per), len(v)/2
		waldContract(sm.H[gr*per*L:], L, v[:half], size, L, false, scratch[:L], scratch[L:])
		waldContract(sm.J[gr*per*L:], L, v[half:], size, L, false, scratch[:L], scratch[L:])
	}
	return sm
}

// SupportNode is SupportSubset with the margins made here (u is scratch of
// one entry a row): nil values and NaN degrees of freedom when the task's
// rows weigh nothing.
func SupportNode(s *Data, task *engine.Task, w, u []float64, js []int) (a, sd []float64, dof float64) {
	rows := len(task.Y)
	total := engine.WeightSum(task.C, rows)
	if !(total > 0) {
		return nil, nil, math.NaN()
	}
	u = u[:rows]
	task.X.Margins(u, w)
	return SupportSubset(s, task, w, u, total, js)
}
