package models

import (
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise"
)

// TestConstructorLimits checks that the constructors refuse, with an error
// and before allocating, the sizes that would exhaust memory, and still
// build the sizes just inside their limits' reach.
func TestConstructorLimits(t *testing.T) {
	src := rand.NewPCG(1, 2)
	wantErr := func(name string, err error, sub string) {
		t.Helper()
		if err == nil || !strings.HasPrefix(err.Error(), "models: ") || !strings.Contains(err.Error(), sub) {
			t.Errorf("%s: error %v, want one mentioning %q", name, err, sub)
		}
	}
	var err error
	_, err = NewGridPotts(1<<40, 1<<40, 2, 0.1, src)
	wantErr("NewGridPotts 2^40×2^40", err, "MaxModelEntries")
	_, err = NewGridPotts(2, 1, pairwise.MaxAlphabet, 0.1, src) // one edge of 2^32 entries
	wantErr("NewGridPotts 2×1 k=2^16", err, "MaxModelEntries")
	_, err = NewDiamond(1<<40, 0.1)
	wantErr("NewDiamond(1<<40)", err, "MaxModelEntries")

	// Sizes that fit are still built.
	if m, err := NewDiamond(5000, 0.1); err != nil || len(m.Edges()) != 2*4998 {
		t.Errorf("NewDiamond(5000): %v", err)
	}
	if _, err := NewGridPotts(100, 100, 4, 0.1, src); err != nil {
		t.Errorf("NewGridPotts(100, 100, 4): %v", err)
	}

}

// TestNewDiamondSparse checks the diamond built coupling by coupling against
// NewIsing of the dense A, the construction it replaced.
func TestNewDiamondSparse(t *testing.T) {
	for _, n := range []int{3, 4, 9} {
		a := 0.37
		A := mat.NewSymDense(n, nil)
		for j := 1; j < n-1; j++ {
			A.SetSym(0, j, a)
			A.SetSym(j, n-1, a)
		}
		want, err := pairwise.NewIsing(A, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := NewDiamond(n, a)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if !mat.Equal(got.Coupling(i, j), want.Coupling(i, j)) {
					t.Errorf("n=%d: W_%d%d = %v, want %v", n, i, j, mat.Formatted(got.Coupling(i, j)), mat.Formatted(want.Coupling(i, j)))
				}
			}
			if f, w := got.Field(i), want.Field(i); f[0] != w[0] || f[1] != w[1] {
				t.Errorf("n=%d: field %d = %v, want %v", n, i, f, w)
			}
		}
	}
}
