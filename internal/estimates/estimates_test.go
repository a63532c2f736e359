package estimates

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestNodeEstMatchesDense checks the sparse per-node estimates against the
// dense layout they replace, bit for bit: random blocks mixing +0, -0,
// NaN and other numbers, under both fills the learners use and a fill of
// nonzero numbers, read back whole (dense) and block by block, and after
// random changes of single blocks (set, ClearAll) mirrored on the dense
// copy; under the Ising fill, with blocks of its form held as one number
// and the others (odd) whole.
func TestNodeEstMatchesDense(t *testing.T) {
	negZero := math.Copysign(0, -1)
	values := []float64{0, negZero, 1.5, -2, math.NaN(), math.Inf(1)}
	r := rand.New(rand.NewPCG(21, 1))
	compact := 0 // checks of a Node holding one number a block
	defer func() {
		if compact == 0 {
			t.Error("no Node held its blocks as one number: the Ising form is not covered")
		}
	}()
	for _, k := range []int{2, 3} {
		kk := k * k
		fills := [][]float64{ZeroBlock(k), []float64{1, negZero, 2, 0, 0, 3, 0, 0, 0}[:kk]}
		if k == 2 {
			fills = append(fills, IsingFill)
		}
		for _, fill := range fills {
			for trial := 0; trial < 50; trial++ {
				n := 1 + r.IntN(12)
				dense := make([]float64, n*kk)
				for j := 0; j < n; j++ {
					blk := dense[j*kk : (j+1)*kk]
					switch r.IntN(4) {
					case 0:
						copy(blk, fill)
					case 1:
						copy(blk, fill)
						blk[r.IntN(kk)] = values[r.IntN(len(values))]
					case 2:
						// The Ising form [[a, -a], [-a, a]] (for k = 3
						// just the first entries of a block).
						a := values[r.IntN(len(values))]
						for x := range blk {
							blk[x] = a
							if x < 4 && IsingForm[x] < 0 {
								blk[x] = -a
							}
						}
					default:
						for x := range blk {
							blk[x] = values[r.IntN(len(values))]
						}
					}
				}
				e := Sparse(k, dense, fill)
				check := func(when string) {
					t.Helper()
					if got := e.Dense(n); !SameBlock(got, dense) {
						t.Fatalf("k=%d, fill %v, %s: dense %v, want %v", k, fill, when, got, dense)
					}
					for j := 0; j < n; j++ {
						if !SameBlock(e.Block(j), dense[j*kk:(j+1)*kk]) {
							t.Fatalf("k=%d, %s: block %d is %v, want %v", k, when, j, e.Block(j), dense[j*kk:(j+1)*kk])
						}
					}
					for x, j := range e.At {
						if SameBlock(e.Block(int(j)), e.Fill) || (x > 0 && e.At[x-1] >= j) {
							t.Fatalf("k=%d, %s: block %d listed out of order or equal to the fill", k, when, j)
						}
					}
					if !e.WellFormed(n) {
						t.Fatalf("k=%d, %s: storage not well formed", k, when)
					}
					// Under the Ising fill the blocks of its form are one
					// number each until too many odd blocks or a set.
					if e.form != nil {
						if k != 2 || !SameBlock(fill, IsingFill) || len(e.V) != len(e.At) || len(e.odd) > maxOdd {
							t.Fatalf("k=%d, fill %v, %s: form %v with %d numbers for %d blocks, %d odd", k, fill, when, e.form, len(e.V), len(e.At), len(e.odd))
						}
						compact++
					}
				}
				check("built")
				for range 5 {
					j := r.IntN(n)
					blk := make([]float64, kk)
					if r.IntN(2) == 0 {
						copy(blk, e.Fill)
					} else {
						for x := range blk {
							blk[x] = values[r.IntN(len(values))]
						}
					}
					e.Set(j, blk)
					copy(dense[j*kk:(j+1)*kk], blk)
					check("after set")
				}
				e.ClearAll()
				clear(dense)
				check("cleared")
			}
		}
	}
}
