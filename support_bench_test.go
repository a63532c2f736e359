package pairwise

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/internal/selection"
)

// BenchmarkSupportAll times the sparse edge test's first pass on one node
// (selection.SupportSubset over all n spins) by n, on random spins with
// N = 10⁴ rows and a support of 9 spins beside the bias (two groups of
// eight columns, as most nodes of the 4-regular models at the default's
// widths have). The bits/ lines read the same rows as bit samples
// (selection.Data.RowBits, made before the timing: issue 33's pass
// without the unpacked bytes).
func BenchmarkSupportAll(b *testing.B) {
	for _, tc := range []struct {
		n    int
		bits bool
	}{{1000, false}, {3000, false}, {1000, true}, {3000, true}} {
		n := tc.n
		name := "n=" + strconv.Itoa(n)
		if tc.bits {
			name = "bits/" + name
		}
		b.Run(name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(33, 2))
			const rows = 10000
			s := randomSamples(b, rows, n, 2, r)
			w := make([]float64, n)
			for _, c := range r.Perm(n)[:10] {
				w[c] = r.Float64() - 0.5
			}
			task := &engine.Task{Bias: 0, Y: make([]float64, rows), C: make([]float64, rows)}
			w[0] = 0.1
			u := make([]float64, rows)
			for m := range u {
				task.Y[m] = float64(2*int(s.b8[m*n]) - 1)
				task.C[m] = 1
			}
			data := s.stages()
			if tc.bits {
				c := *s
				c.bits = engine.PackBits(&engine.Rows{N: n, K: 2, Count: rows, States: s.b8})
				c.b8, c.lazy = nil, new(lazyBytes)
				data = c.stages()
				data.RowBits()
			}
			selection.SupportMargins(data, 0, w, u)
			total := float64(rows)
			b.ReportAllocs()
			for b.Loop() {
				selection.SupportSubset(data, task, w, u, total, nil)
			}
		})
	}
}

// BenchmarkSupportSubset times the sparse edge test's second pass on one
// node (selection.SupportSubset for a list of spins) on bit samples of
// n = 1,000 spins and N = 10⁴ rows: a support of 10 spins (the 4-regular
// models at 10⁴ rows) or 133 (their mean at 10⁶ rows, issue 33's merge),
// and 20 or 150 spins asked for.
func BenchmarkSupportSubset(b *testing.B) {
	for _, tc := range []struct{ support, asked int }{{10, 20}, {133, 150}} {
		b.Run("support="+strconv.Itoa(tc.support)+"/asked="+strconv.Itoa(tc.asked), func(b *testing.B) {
			r := rand.New(rand.NewPCG(33, 3))
			const n, rows = 1000, 10000
			s := randomSamples(b, rows, n, 2, r)
			w := make([]float64, n)
			for _, c := range r.Perm(n)[:tc.support] {
				w[c] = r.Float64() - 0.5
			}
			w[0] = 0.1
			js := r.Perm(n)[:tc.asked]
			task := &engine.Task{Bias: 0, Y: make([]float64, rows), C: make([]float64, rows)}
			u := make([]float64, rows)
			for m := range u {
				task.Y[m] = float64(2*int(s.b8[m*n]) - 1)
				task.C[m] = 1
			}
			c := *s
			c.bits = engine.PackBits(&engine.Rows{N: n, K: 2, Count: rows, States: s.b8})
			c.b8, c.lazy = nil, new(lazyBytes)
			data := c.stages()
			data.RowBits()
			selection.SupportMargins(data, 0, w, u)
			b.ReportAllocs()
			for b.Loop() {
				selection.SupportSubset(data, task, w, u, float64(rows), js)
			}
		})
	}
}
