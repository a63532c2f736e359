package engine

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSPDFactor checks spdFactor against gonum's mat.Cholesky, the
// factorisation it replaces: the same LAPACK calls on the same numbers, so
// the inverse and the solve must agree bit for bit, and a matrix that is
// not positive definite must be refused by both.
func TestSPDFactor(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 5, 25, 60} {
		// A Gram matrix of random ±1 rows weighted like σ′: positive
		// definite when the rows span, as the edge test's Hessians are.
		a := mat.NewSymDense(n, nil)
		x := make([]float64, n)
		for range 4 * n {
			for j := range x {
				x[j] = float64(2*rng.IntN(2) - 1)
			}
			a.SymRankOne(a, 0.05+0.2*rng.Float64(), mat.NewVecDense(n, x))
		}
		var ref mat.Cholesky
		if !ref.Factorize(a) {
			t.Fatalf("n=%d: reference factorisation failed", n)
		}
		var want mat.SymDense
		if err := ref.InverseTo(&want); err != nil {
			if _, ok := err.(mat.Condition); !ok {
				t.Fatalf("n=%d: %v", n, err)
			}
		}
		got, ok := InverseSPD(a)
		if !ok {
			t.Fatalf("n=%d: InverseSPD refused a positive definite matrix", n)
		}
		for r := 0; r < n; r++ {
			for c := 0; c < n; c++ {
				if got.At(r, c) != want.At(r, c) {
					t.Fatalf("n=%d: inverse (%d,%d) = %v, mat.Cholesky gives %v", n, r, c, got.At(r, c), want.At(r, c))
				}
			}
		}
		b := make([]float64, n)
		for j := range b {
			b[j] = rng.NormFloat64()
		}
		var wantX mat.VecDense
		if err := ref.SolveVecTo(&wantX, mat.NewVecDense(n, b)); err != nil {
			if _, ok := err.(mat.Condition); !ok {
				t.Fatal(err)
			}
		}
		var c spdFactor
		if !c.factor(a) {
			t.Fatal("factor failed")
		}
		gotX := make([]float64, n)
		c.solveVec(gotX, b)
		for j := range gotX {
			if gotX[j] != wantX.AtVec(j) {
				t.Fatalf("n=%d: solve [%d] = %v, mat.Cholesky gives %v", n, j, gotX[j], wantX.AtVec(j))
			}
		}
		// Not positive definite: one negative direction.
		bad := mat.NewSymDense(n, nil)
		bad.CopySym(a)
		bad.SetSym(n-1, n-1, -1)
		if _, ok := InverseSPD(bad); ok {
			t.Fatalf("n=%d: InverseSPD accepted an indefinite matrix", n)
		}
	}
}

// TestFisherPatterns checks fisherPatterns, the Hessian through the
// histograms of the keys' bytes, against fisherLoss's outer products on
// the same sign patterns, for every width of the refits' tables (0 to 16
// bits, so one byte, two bytes, and a partial second byte): loss and
// gradient bit for bit (the same sums), the Hessian to a relative 1e-13
// (other sums of the same terms).
func TestFisherPatterns(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for q := 1; q <= 16; q++ {
		p := q + 1
		seen := map[uint32]bool{}
		var keys []uint32
		var cs []float64
		for range min(300, 1<<q) {
			k := uint32(rng.IntN(1 << q))
			if seen[k] {
				continue
			}
			seen[k] = true
			keys = append(keys, k)
			cs = append(cs, float64(rng.IntN(3)), float64(rng.IntN(3))+0.5)
		}
		xs := make([]float64, len(keys)*p)
		for m, k := range keys {
			xs[m*p] = 1
			for a := 0; a < q; a++ {
				xs[m*p+1+a] = float64(int(k>>a&1)*2 - 1)
			}
		}
		each := func(f func(x []float64, cNeg, cPos float64)) {
			for m := range keys {
				f(xs[m*p:(m+1)*p], cs[2*m], cs[2*m+1])
			}
		}
		v := make([]float64, p)
		for j := range v {
			v[j] = rng.NormFloat64() / 2
		}
		total := 0.0
		for _, c := range cs {
			total += c
		}
		hWant, gWant := mat.NewSymDense(p, nil), make([]float64, p)
		lWant := fisherLoss(&Task{Each: each}, v, total, hWant, gWant)
		hGot, gGot := mat.NewSymDense(p, nil), make([]float64, p)
		lGot := fisherLoss(&Task{Each: each, Patterns: keys}, v, total, hGot, gGot)
		if lGot != lWant {
			t.Fatalf("q=%d: loss %v, want %v", q, lGot, lWant)
		}
		for j := range gGot {
			if gGot[j] != gWant[j] {
				t.Fatalf("q=%d: gradient [%d] %v, want %v", q, j, gGot[j], gWant[j])
			}
		}
		for r := 0; r < p; r++ {
			for c := r; c < p; c++ {
				got, want := hGot.At(r, c), hWant.At(r, c)
				if math.Abs(got-want) > 1e-13*math.Max(1, math.Abs(want)) {
					t.Fatalf("q=%d: H[%d][%d] = %v, want %v", q, r, c, got, want)
				}
			}
		}
	}
}
