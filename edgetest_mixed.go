package pairwise

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise/internal/selection"
)

// The mixed model's pair statistics for the edge test (WithNominalVariables;
// internal/selection, mixed.go).

// mixedTest is the edge test's view of the mixed model's refits
// (WithNominalVariables): v the variables, fits[i] node i's refit (nil
// where it has none).
type mixedTest struct {
	v    *selection.MixedVars
	fits []*selection.MixedFit
}

// block returns node i's couplings to j, their covariance and its
// degrees of freedom; nil when node i has no refit or j adds no column.
func (m *mixedTest) block(i, j int) ([]float64, *mat.SymDense, float64) {
	f := m.fits[i]
	if f == nil {
		return nil, nil, 0
	}
	t, ok := slices.BinarySearch(f.Cols, j)
	if !ok || m.v.XDim(j) == 0 || f.RDim == 0 {
		return nil, nil, 0
	}
	b, cov := f.Block(t, m.v)
	return b, cov, f.DF
}

// score returns the normal score of the Wald statistic of couplings b with
// covariance cov from regressions of df degrees of freedom (Student's t
// for one coupling, Fisher's F for more: selection.BlockScore), and the
// smallest standard error among them.
func mixedScore(b []float64, cov *mat.SymDense, df float64) (z, minSE float64) {
	minSE = math.Inf(1)
	for x := range b {
		minSE = math.Min(minSE, math.Sqrt(math.Max(cov.At(x, x), 0)))
	}
	if len(b) == 1 {
		if b[0] == 0 || !(minSE > 0) {
			return 0, math.Inf(1)
		}
		return selection.TScore(math.Abs(b[0])/minSE, df), minSE
	}
	w, rank := selection.MixedWald(b, cov)
	return selection.BlockScore(w, rank, df), minSE
}

// own returns node i's own statistic of the pair (i, j).
func (m *mixedTest) own(i, j int) float64 {
	b, cov, df := m.block(i, j)
	if b == nil {
		return 0
	}
	z, _ := mixedScore(b, cov, df)
	return z
}

// z returns the pair's statistic under the symmetrisation rule, its
// smallest standard error and their degrees of freedom, as maxZ: the
// smaller (And) or larger (Or) of the two nodes' statistics, or for
// Average the statistic of the two nodes' couplings averaged, with their
// covariances averaged (their standard errors, for one coupling, as on
// the ordinal scale): conservative, the two being positively correlated.
func (m *mixedTest) z(i, j int, sym Symmetrization) (z, minSE, seDF float64) {
	bi, ci, fi := m.block(i, j)
	bj, cj, fj := m.block(j, i)
	if bi == nil || bj == nil || len(bi) != len(bj) {
		return 0, math.Inf(1), math.Inf(1)
	}
	switch sym {
	case And, Or:
		zi, mi := mixedScore(bi, ci, fi)
		zj, mj := mixedScore(bj, cj, fj)
		return combineNodes(sym, zi, mi, fi, zj, mj, fj)
	}
	df := math.Min(fi, fj)
	if len(bi) == 1 {
		d := (bi[0] + bj[0]) / 2
		se := (math.Sqrt(math.Max(ci.At(0, 0), 0)) + math.Sqrt(math.Max(cj.At(0, 0), 0))) / 2
		if d == 0 || !(se > 0) {
			return 0, math.Inf(1), math.Inf(1)
		}
		return selection.TScore(math.Abs(d)/se, df), se, df
	}
	// Node j's couplings in node i's coordinates: the same numbers, the
	// block transposed when both variables are nominal.
	perm := make([]int, len(bi))
	for x := range perm {
		perm[x] = x
	}
	if m.v.Nominal[i] && m.v.Nominal[j] {
		ri, rj := m.v.RDim(i), m.v.RDim(j)
		for r := 0; r < ri; r++ {
			for c := 0; c < rj; c++ {
				perm[r*rj+c] = c*ri + r
			}
		}
	}
	d := make([]float64, len(bi))
	cov := mat.NewSymDense(len(bi), nil)
	for x := range d {
		d[x] = (bi[x] + bj[perm[x]]) / 2
		for y := x; y < len(d); y++ {
			cov.SetSym(x, y, (ci.At(x, y)+cj.At(perm[x], perm[y]))/2)
		}
	}
	z, minSE = mixedScore(d, cov, df)
	return z, minSE, df
}
