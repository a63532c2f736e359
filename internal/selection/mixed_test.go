package selection

import (
	"math"
	"math/rand/v2"
	"testing"
)

// coupledData returns skewedData's rows with variable 1 made to follow
// variable 0 in half of the rows (so that the refits have a coupling to
// estimate), and the scores.
func coupledData(n, k, rows int, r *rand.Rand) (*Data, []float64) {
	s, scores := skewedData(n, k, rows, r)
	for m := 0; m < rows; m++ {
		if r.IntN(2) == 0 {
			s.Bytes[m*n+1] = s.Bytes[m*n]
		}
	}
	return s, scores
}

// allCols returns the variables other than i.
func allCols(n, i int) []int {
	var cols []int
	for j := 0; j < n; j++ {
		if j != i {
			cols = append(cols, j)
		}
	}
	return cols
}

// TestMixedRefitOrdinal checks MixedRefit with no nominal variable against
// OrdinalRefit, a separate implementation of the same likelihood (its
// fields, couplings and standard errors): both are Newton solves to a
// decrement of 1e-12, so they agree to about 1e-6; the check allows 1e-6
// relative.
func TestMixedRefitOrdinal(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 1))
	const n, k = 5, 4
	s, scores := coupledData(n, k, 800, r)
	v := NewMixedVars(s, scores, make([]bool, n))
	for i := 0; i < n; i++ {
		w, se, theta, df, ok := OrdinalRefit(s, i, scores)
		f, ok2 := MixedRefit(s, i, v, allCols(n, i), nil, 1e-12, 0)
		if !ok || !ok2 {
			t.Fatalf("node %d: ok %v, %v", i, ok, ok2)
		}
		if f.DF != df {
			t.Errorf("node %d: df %v, want %v", i, f.DF, df)
		}
		_, lse, lth := f.Layout(v)
		for a := 0; a < k; a++ {
			if !relClose(lth[a], theta[a], 1e-6) && !(math.IsNaN(lth[a]) && math.IsNaN(theta[a])) {
				t.Errorf("node %d: θ(%d) = %v, want %v", i, a, lth[a], theta[a])
			}
		}
		for t2, j := range f.Cols {
			b, cov := f.Block(t2, v)
			if !relClose(b[0], w[j], 1e-6) || !relClose(math.Sqrt(cov.At(0, 0)), se[j], 1e-6) {
				t.Errorf("node %d, %d: w %v ± %v, want %v ± %v", i, j, b[0], math.Sqrt(cov.At(0, 0)), w[j], se[j])
			}
			// The layout's entry (k−1, k−1) has |s_i·s_j| = 1: the
			// coupling's own standard error.
			if got := lse[j*k*k+(k-1)*k+k-1]; !relClose(got, se[j], 1e-6) {
				t.Errorf("node %d, %d: layout SE %v, want %v", i, j, got, se[j])
			}
		}
	}
}

func relClose(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

// TestMixedBinaryNominal checks that declaring a two-valued variable
// nominal changes nothing but the coding: its indicator's coupling is
// twice its spin's (s = ±1), with twice the standard error, so every
// Wald statistic and the log-likelihood are the same (to 1e-6).
func TestMixedBinaryNominal(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 2))
	const n, k = 4, 3
	s, scores := coupledData(n, k, 600, r)
	for m := 0; m < s.Count; m++ { // variable 2 binary: values 0 and 2
		if s.Bytes[m*n+2] == 1 {
			s.Bytes[m*n+2] = 0
		}
	}
	nom := make([]bool, n)
	vo := NewMixedVars(s, scores, nom)
	nom = []bool{false, false, true, false}
	vm := NewMixedVars(s, scores, nom)
	for i := 0; i < n; i++ {
		fo, ok := MixedRefit(s, i, vo, allCols(n, i), nil, 1e-12, 0)
		fm, ok2 := MixedRefit(s, i, vm, allCols(n, i), nil, 1e-12, 0)
		if !ok || !ok2 {
			t.Fatalf("node %d: ok %v %v", i, ok, ok2)
		}
		if !relClose(fo.MeanLL, fm.MeanLL, 1e-9) {
			t.Errorf("node %d: log-likelihood %v against %v", i, fm.MeanLL, fo.MeanLL)
		}
		for x := range fo.Cols {
			bo, co := fo.Block(x, vo)
			bm, cm := fm.Block(x, vm)
			wo, _ := MixedWald(bo, co)
			wm, _ := MixedWald(bm, cm)
			if !relClose(wm, wo, 1e-6) {
				t.Errorf("node %d, neighbour %d: Wald %v, ordinal coding %v", i, fo.Cols[x], wm, wo)
			}
		}
	}
}

// TestMixedIndependence checks the global test: with no nominal variable
// it is Mantel's (OrdinalIndependenceP, to 1e-12), and with three nominal
// variables among ten on independent skewed answers (k = 5, N = 250, 400
// data sets) it rejects at 5% in 5% ± 3.3% of them (3 binomial standard
// errors).
func TestMixedIndependence(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 3))
	s, scores := coupledData(6, 4, 300, r)
	p1, n1 := OrdinalIndependenceP(s, scores)
	p2, n2 := MixedIndependenceP(s, NewMixedVars(s, scores, make([]bool, 6)))
	if n1 != n2 || math.Abs(p1-p2) > 1e-12 {
		t.Errorf("all ordinal: p %v on %d pairs, Mantel's %v on %d", p2, n2, p1, n1)
	}
	const sets = 400
	rejected := 0
	nom := make([]bool, 10)
	nom[0], nom[4], nom[7] = true, true, true
	for x := 0; x < sets; x++ {
		s, scores := skewedData(10, 5, 250, r)
		if p, _ := MixedIndependenceP(s, NewMixedVars(s, scores, nom)); p < 0.05 {
			rejected++
		}
	}
	if rate := float64(rejected) / sets; math.Abs(rate-0.05) > 0.033 {
		t.Errorf("rejected %d of %d independent data sets at 5%%", rejected, sets)
	}
	t.Logf("rejected %d of %d at 5%%", rejected, sets)
}

// scrambledData returns rows of n = 8 answers on k = 5 values: a chain
// 1–2–3 of noisy copies (±1), variable 0 a noisy copy of variable 1 whose
// codes are then permuted by perm, and four independent variables.
func scrambledData(rows int, perm []int, r *rand.Rand) (*Data, []float64) {
	const n, k = 8, 5
	z := make([]uint8, rows*n)
	noisy := func(a int) int { return min(max(a+r.IntN(3)-1, 0), k-1) }
	for m := 0; m < rows; m++ {
		row := z[m*n : (m+1)*n]
		a := r.IntN(k)
		row[1] = uint8(a)
		row[2] = uint8(noisy(a))
		row[3] = uint8(noisy(int(row[2])))
		row[0] = uint8(perm[noisy(a)])
		for j := 4; j < n; j++ {
			row[j] = uint8(r.IntN(k))
		}
	}
	scores := make([]float64, n*k)
	for j := 0; j < n; j++ {
		for a := 0; a < k; a++ {
			scores[j*k+a] = 2*float64(a)/float64(k-1) - 1
		}
	}
	return &Data{N: n, K: k, Count: rows, Total: float64(rows), Bytes: z}, scores
}

// TestUnorderedVariables checks AutoScale's search for unordered
// variables on scrambledData (N = 500, ten seeds each): a variable whose
// codes are a permutation with rank correlation 0 of an ordered one is
// found in every seed and nothing else is; with its codes in order
// nothing is found in any seed; declared, it is not reported again; and
// when more variables qualify than maxVars the answer is nil.
func TestUnorderedVariables(t *testing.T) {
	scrambled := []int{2, 0, 4, 1, 3} // Spearman correlation 0 with the identity
	for seed := uint64(1); seed <= 10; seed++ {
		r := rand.New(rand.NewPCG(seed, 17))
		s, scores := scrambledData(500, scrambled, r)
		if got := UnorderedVariables(s, scores, 0.01, 2, nil); len(got) != 1 || got[0] != 0 {
			t.Errorf("seed %d: scrambled codes: found %v, want [0]", seed, got)
		}
		if got := UnorderedVariables(s, scores, 0.01, 0, nil); got != nil {
			t.Errorf("seed %d: maxVars 0: found %v, want nil", seed, got)
		}
		if got := UnorderedVariables(s, scores, 0.01, 2, []bool{true, false, false, false, false, false, false, false}); got != nil {
			t.Errorf("seed %d: variable 0 declared: found %v, want nil", seed, got)
		}
		s, scores = scrambledData(500, []int{0, 1, 2, 3, 4}, r)
		if got := UnorderedVariables(s, scores, 0.01, 2, nil); got != nil {
			t.Errorf("seed %d: ordered codes: found %v, want none", seed, got)
		}
	}
}
