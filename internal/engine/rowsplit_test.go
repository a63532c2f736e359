package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// kernelVectors returns random row vectors for the passes of a design of
// rows rows: residuals res, labels y = ±1, weights cw summing to about ½,
// margins base in (−1.5, 1.5) and σ values sigB in (0, ½).
func kernelVectors(r *rand.Rand, rows int) (res, y, cw, base, sigB []float64) {
	vec := func(f func() float64) []float64 {
		v := make([]float64, rows)
		for m := range v {
			v[m] = f()
		}
		return v
	}
	res = vec(func() float64 { return r.Float64() - 0.5 })
	y = vec(func() float64 { return float64(2*r.IntN(2) - 1) })
	cw = vec(func() float64 { return r.Float64() / float64(rows) })
	base = vec(func() float64 { return 3 * (r.Float64() - 0.5) })
	sigB = vec(func() float64 { return r.Float64() / 2 })
	return res, y, cw, base, sigB
}

// splitAll splits the passes of every design among a team of workers, in
// chunks of at least 97 rows, each with histograms of its own; the team
// stops when the test ends.
func splitAll(tb testing.TB, workers int, designs ...*codedDesign) {
	team := newRowTeam(workers, 97)
	tb.Cleanup(team.stop)
	for _, d := range designs {
		var hist []*[maxCodedTables]float64
		d.split(team, &hist)
	}
}

// TestRowSplitKernels checks the row-split passes of codedDesign against
// the unsplit ones: the margins are the same numbers (each row is computed
// alone), the sums over rows (gradients, the Bregman bound) differ only by
// the order in which chunk sums are added, a few ulps of sums of at most
// rows·n terms of size ≤ 1, far below 1e-10 (1e-12 relative for the row
// sums of the loss, the Bregman divergence and the curvature, whose terms
// are positive); and the split results are
// the same bits whatever the size of the team, since the chunks depend on
// the rows alone.
func TestRowSplitKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for _, tc := range []struct {
		n, k, rows int
		spins      bool
	}{{20, 2, 3001, true}, {7, 3, 2500, false}} {
		t.Run(fmt.Sprintf("n=%d/k=%d", tc.n, tc.k), func(t *testing.T) {
			s := randomSamples(t, tc.rows, tc.n, tc.k, r)
			gc := newGroupCodes(s, groupSize(tc.n, tc.k, maxGroupTable))
			plain := newCodedDesign(gc, gc.codes, 2, tc.spins, nil, nil)
			d := plain.Dim()
			w, g := make([]float64, d), make([]float64, d)
			for j := range w {
				w[j] = r.Float64() - 0.5
			}
			rows := tc.rows
			res, y, cw, base, sigB := kernelVectors(r, rows)

			type outcome struct {
				margins, grad, rgrad, r, sig []float64
				hi, ratio                    float64
				sums                         [3]float64 // bregman, loss, curvature
			}
			run := func(x *codedDesign) outcome {
				var o outcome
				o.margins = make([]float64, rows)
				x.Margins(o.margins, w)
				x.Gradient(g, res)
				o.grad = append([]float64(nil), g...)
				o.r, o.sig = make([]float64, rows), make([]float64, rows)
				x.residualGradient(g, o.r, o.sig, base, y, cw)
				o.rgrad = append([]float64(nil), g...)
				u := make([]float64, rows)
				o.hi, o.ratio = x.marginsBound(u, w, base, sigB, y, cw)
				for m := range u {
					if u[m] != o.margins[m] {
						t.Fatalf("marginsBound's margin %d = %v, Margins gave %v", m, u[m], o.margins[m])
					}
				}
				o.sums = [3]float64{x.bregman(o.margins, base, sigB, y, cw), x.loss(base, y, cw), x.Curvature(o.margins, base, y, cw)}
				return o
			}
			want := run(plain)
			var first *outcome
			for _, workers := range []int{1, 2, 3, 5} {
				team := newRowTeam(workers, 97)
				var hist []*[maxCodedTables]float64
				x := newCodedDesign(gc, gc.codes, 2, tc.spins, nil, nil)
				x.split(team, &hist)
				if x.chunks < 2 {
					t.Fatalf("%d chunks; the test needs several", x.chunks)
				}
				got := run(x)
				team.stop()
				for m := range rows {
					if got.margins[m] != want.margins[m] || got.r[m] != want.r[m] || got.sig[m] != want.sig[m] {
						t.Fatalf("workers %d, row %d: margins, residuals or σ differ from the unsplit pass", workers, m)
					}
				}
				if e := maxDiff(got.grad, want.grad); e > 1e-10 {
					t.Errorf("workers %d: gradient differs by %g", workers, e)
				}
				if e := maxDiff(got.rgrad, want.rgrad); e > 1e-10 {
					t.Errorf("workers %d: residual gradient differs by %g", workers, e)
				}
				if math.Abs(got.hi-want.hi) > 1e-10*want.hi || got.ratio != want.ratio {
					t.Errorf("workers %d: bound (%v, %v), unsplit (%v, %v)", workers, got.hi, got.ratio, want.hi, want.ratio)
				}
				for x := range got.sums {
					if math.Abs(got.sums[x]-want.sums[x]) > 1e-12*math.Abs(want.sums[x]) {
						t.Errorf("workers %d: row sum %d = %v, unsplit %v", workers, x, got.sums[x], want.sums[x])
					}
				}
				if first == nil {
					first = &got
					continue
				}
				if got.sums != first.sums {
					t.Fatalf("workers %d: row sums %v, one worker %v", workers, got.sums, first.sums)
				}
				for j := range g {
					if got.grad[j] != first.grad[j] || got.rgrad[j] != first.rgrad[j] {
						t.Fatalf("workers %d: gradient %d differs from one worker's", workers, j)
					}
				}
				if got.hi != first.hi {
					t.Fatalf("workers %d: bound %v, one worker %v", workers, got.hi, first.hi)
				}
			}
		})
	}
}
