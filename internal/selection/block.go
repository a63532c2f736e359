package selection

import (
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// The grouped statistic of the k-ary edge test (k > 2, nominal scale).
//
// A pair (i, j) is an edge when its block W_ij ≠ 0. Testing each of the
// block's k² entries on its own and keeping the largest |Ŵ/SE| spreads the
// test's power: a coupling spread over many entries shows in none, and the
// Bonferroni count grows by k² a pair. The Wald statistic of the whole
// block,
//
//	W = ŵᵀ Σ̂⁺ ŵ,
//
// with ŵ the block's admitted entries and Σ̂⁺ the pseudo-inverse of their
// sandwich covariance, follows the χ² law with r = rank(Σ̂) degrees of
// freedom when W_ij = 0 (for a regression of N − p degrees of freedom,
// W/r follows Fisher's F(r, N − p) law, the grouped form of the t law of
// TScore). Ŵ_ij is doubly centred (its rows and its columns sum to zero),
// so r ≤ (k − 1)², and the covariance is kept in reduced coordinates: the
// entries (a, b) with a, b ≥ 1.

// MaxBlockReduced bounds (k − 1)², the side of a block's covariance: the
// grouped statistic needs n·(k−1)⁴ numbers a node and as many operations a
// row, which at k = 10 (6,561 a block) is already more than the node's fit.
// Above it the edge test keeps the largest entry (WaldOneHot without
// block).
const MaxBlockReduced = 81

// MaxBlockNumbers bounds n²(k − 1)⁴, the covariances of every node's
// blocks that the test keeps at once (2^25 numbers, 256 MB).
const MaxBlockNumbers = 1 << 25

// BlockOK reports whether the grouped statistic is computed for n
// variables of k values.
func BlockOK(n, k int) bool {
	r := float64((k - 1) * (k - 1))
	return k > 2 && r <= MaxBlockReduced && float64(n)*float64(n)*r*r <= MaxBlockNumbers
}

// BlockWald returns the Wald statistic W = ŵᵀ Σ̂⁺ ŵ of the interaction
// contrasts of the k×k block d (row-major) on the values rows × cols, and
// r, the rank of their covariance. cov is the block's covariance in
// reduced coordinates (WaldOneHot).
//
// The contrasts are the block's entries on rows × cols centred again over
// those rows and those columns, (C_A Ŵ C_B)(a, b) for a in A = rows and b
// in B = cols, C the centring matrix: (|A| − 1)(|B| − 1) of them, all zero
// when W_ij = 0. Centring over the admitted values only makes the
// statistic blind to a shift of a whole row or column of the block, which
// is what a rare value's coefficient, poorly estimated and far from its
// normal law, adds through the centring of equation (9); without it such a
// null pair reached z = 7 on independent items (k = 6, N = 1000).
//
// The pseudo-inverse drops the directions whose variance is below 1e-10 of
// the largest: those the centring fixes (rounding only). Fewer than two
// rows or columns, a non-finite entry or a zero covariance give W = 0 and
// r = 0.
func BlockWald(d, cov []float64, rows, cols []bool, k int) (w float64, rank int) {
	var as, bs []int
	for a := 0; a < k; a++ {
		if rows[a] {
			as = append(as, a)
		}
		if cols[a] {
			bs = append(bs, a)
		}
	}
	if len(as) < 2 || len(bs) < 2 {
		return 0, 0
	}
	red := (k - 1) * (k - 1)
	m := len(as) * len(bs)
	idx := make([]int, 0, m)
	for _, a := range as {
		for _, b := range bs {
			x := a*k + b
			if math.IsNaN(d[x]) || math.IsInf(d[x], 0) {
				return 0, 0
			}
			idx = append(idx, x)
		}
	}
	// T maps the reduced coordinates to the entries: (a, b) with a, b ≥ 1
	// is itself, (0, b) = −Σ_a (a, b), (a, 0) = −Σ_b (a, b), (0, 0) =
	// Σ (a, b). P centres the entries over as and over bs; PT maps the
	// reduced coordinates to the contrasts.
	t := mat.NewDense(m, red, nil)
	for row, x := range idx {
		a, b := x/k, x%k
		for ra := 1; ra < k; ra++ {
			for rb := 1; rb < k; rb++ {
				var v float64
				switch {
				case a > 0 && b > 0:
					if ra == a && rb == b {
						v = 1
					}
				case a == 0 && b > 0:
					if rb == b {
						v = -1
					}
				case a > 0 && b == 0:
					if ra == a {
						v = -1
					}
				default:
					v = 1
				}
				if v != 0 {
					t.Set(row, (ra-1)*(k-1)+rb-1, v)
				}
			}
		}
	}
	nb := len(bs)
	p := mat.NewDense(m, m, nil)
	fa, fb := 1/float64(len(as)), 1/float64(nb)
	for x := 0; x < m; x++ {
		for y := 0; y < m; y++ {
			ca, cb := -fa, -fb
			if x/nb == y/nb {
				ca = 1 - fa
			}
			if x%nb == y%nb {
				cb = 1 - fb
			}
			p.Set(x, y, ca*cb)
		}
	}
	var pt mat.Dense
	pt.Mul(p, t)
	var ptc, s mat.Dense
	ptc.Mul(&pt, mat.NewSymDense(red, cov))
	s.Mul(&ptc, pt.T())
	sym := mat.NewSymDense(m, nil)
	for x := 0; x < m; x++ {
		for y := x; y < m; y++ {
			v := (s.At(x, y) + s.At(y, x)) / 2
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, 0
			}
			sym.SetSym(x, y, v)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, true) {
		return 0, 0
	}
	vals := eig.Values(nil)
	top := 0.0
	for _, v := range vals {
		top = math.Max(top, v)
	}
	if !(top > 0) {
		return 0, 0
	}
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	ds := make([]float64, m)
	for row, x := range idx {
		ds[row] = d[x]
	}
	dv := make([]float64, m)
	mat.NewVecDense(m, dv).MulVec(p, mat.NewVecDense(m, ds))
	for l, v := range vals {
		if v <= 1e-10*top {
			continue
		}
		q := 0.0
		for row := range dv {
			q += vecs.At(row, l) * dv[row]
		}
		w += q * q / v
		rank++
	}
	return w, rank
}

// BlockScore returns the normal score of a Wald statistic w of rank r from
// regressions of df degrees of freedom: z with 2(1 − Φ(z)) = p, p the
// probability that F(r, df)·r (χ²_r when df is at least normalDF) exceeds
// w. At r = 1 it is TScore(√w, df). It returns 0 for w ≤ 0, r = 0 or df ≤ 0,
// NaN for NaN, and caps z at maxNormalScore where p underflows.
func BlockScore(w float64, r int, df float64) float64 {
	switch {
	case math.IsNaN(w):
		return w
	case !(w > 0) || r <= 0 || !(df > 0):
		return 0
	}
	var p float64
	if df >= normalDF {
		p = distuv.ChiSquared{K: float64(r)}.Survival(w)
	} else {
		// P(F > x) = I_{ν/(ν + r·x)}(ν/2, r/2), from the incomplete beta
		// function itself: distuv.F's Survival is 1 − CDF, which stops at
		// 1e-16 and would tie every strong pair at z = 8.29.
		x := w / float64(r)
		p = mathext.RegIncBeta(df/2, float64(r)/2, df/(df+float64(r)*x))
	}
	if !(p > 0) {
		return maxNormalScore
	}
	if p >= 1 {
		return 0
	}
	return math.Min(-distuv.UnitNormal.Quantile(p/2), maxNormalScore)
}

// BlockValues returns the values of the grouped statistic's contrasts
// for a pair of variables with value weights ci and cj among total: the
// largest product set rows × cols found by dropping, while some cell of it
// has an expected count under independence below CochranHigh
// (CochranEntry), the rarer of its rarest row and its rarest column (the
// row on a tie). Values of zero weight are never in it. On a product set
// every cell passes; the contrasts of BlockWald need one.
func BlockValues(ci, cj []float64, total float64) (rows, cols []bool) {
	rows, cols = make([]bool, len(ci)), make([]bool, len(cj))
	for a, c := range ci {
		rows[a] = c > 0
	}
	for b, c := range cj {
		cols[b] = c > 0
	}
	rarest := func(in []bool, c []float64) int {
		at := -1
		for x, ok := range in {
			if ok && (at < 0 || c[x] < c[at]) {
				at = x
			}
		}
		return at
	}
	for {
		a, b := rarest(rows, ci), rarest(cols, cj)
		if a < 0 || b < 0 || CochranEntry(ci[a], cj[b], total) {
			return rows, cols
		}
		if ci[a] <= cj[b] {
			rows[a] = false
		} else {
			cols[b] = false
		}
	}
}
