package engine

import (
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
