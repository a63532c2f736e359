package pairwise

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/internal/selection"
)

// TestSupportSubsetExact checks that selection.SupportSubset gives, for
// every spin, the values of selection.WaldSupport (which TestWaldSupport
// checks against the definitions) and that a spin's values do not depend,
// to the bit, on which other spins are asked for: the sparse edge test computes a pair's partner
// entry in a second pass with a few columns, and its result must be that
// of the dense test, not close to it. Random spins, weights with zeros,
// supports of 0, 3, 8 and 11 spins (no group, one, a full one, two).
// All spins go through russianAll's batched loop, a subset through
// russianChunk's loop: with 20 spins and 300 rows, the support of 0 has
// one code of 38 groups of rows (five batches of russianRows), the
// others several codes, and four spins past the last full block of
// eight.
func TestSupportSubsetExact(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 1))
	const n, rows = 20, 300
	for _, support := range []int{0, 3, 8, 11} {
		for _, bias := range []int{0, 7, n - 1} {
			t.Run(fmt.Sprintf("support=%d/bias=%d", support, bias), func(t *testing.T) {
				s := randomSamples(t, rows, n, 2, r)
				w := randomSupport(r, n, bias, support)
				task := &engine.Task{Bias: bias, Y: make([]float64, rows), C: make([]float64, rows)}
				u := make([]float64, rows)
				for m := range u {
					task.Y[m] = float64(2*int(s.b8[m*n+bias]) - 1)
					for c, v := range w {
						x := float64(2*int(s.b8[m*n+c]) - 1)
						if c == bias {
							x = 1
						}
						u[m] += v * x
					}
					if r.IntN(10) > 0 {
						task.C[m] = r.Float64()
					}
				}
				total := engine.WeightSum(task.C, rows)
				d, se, df := selection.WaldSupport(s.stages(), task, w, u, total)
				a, sd, dof := selection.SupportSubset(s.stages(), task, w, u, total, nil)
				if dof != df[0] {
					t.Errorf("dof = %v, want %v", dof, df[0])
				}
				for c := 0; c < n; c++ {
					// Two summation orders (sign patterns of floats,
					// and the bytes' tables): equal to rounding.
					if !relClose(a[c], d[4*c]) || !relClose(sd[c], se[4*c]) {
						t.Errorf("spin %d: all spins: %v, %v; WaldSupport: %v, %v", c, a[c], sd[c], d[4*c], se[4*c])
					}
				}
				for range 5 {
					js := r.Perm(n)[:1+r.IntN(n/2)]
					sa, ss, sdof := selection.SupportSubset(s.stages(), task, w, u, total, js)
					if sdof != dof {
						t.Errorf("subset dof = %v, want %v", sdof, dof)
					}
					for x, c := range js {
						if sa[x] != a[c] || ss[x] != sd[c] {
							t.Errorf("spin %d of subset %v: %v, %v; all spins: %v, %v", c, js, sa[x], ss[x], a[c], sd[c])
						}
					}
				}
			})
		}
	}
}

// randomSupport returns node bias's coefficients for the support tests:
// its own in ±0.5, and up to support+1 others drawn at random (none when
// support is 0), each in ±0.5.
func randomSupport(r *rand.Rand, n, bias, support int) []float64 {
	w := make([]float64, n)
	w[bias] = r.Float64() - 0.5
	for _, c := range r.Perm(n)[:support+1] {
		if c != bias && support > 0 {
			w[c] = r.Float64() - 0.5
		}
	}
	return w
}
