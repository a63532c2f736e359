package pairwise

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// withRowSplit lowers the row-splitting thresholds for one test, so that
// a few thousand rows are split into chunks of a few hundred.
func withRowSplit(t *testing.T, minRows, chunk int) {
	t.Helper()
	oldMin, oldChunk := rowSplitMin, rowChunk
	rowSplitMin, rowChunk = minRows, chunk
	t.Cleanup(func() { rowSplitMin, rowChunk = oldMin, oldChunk })
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
	withRowSplit(t, 0, 97)
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
			vec := func(f func() float64) []float64 {
				v := make([]float64, rows)
				for m := range v {
					v[m] = f()
				}
				return v
			}
			res := vec(func() float64 { return r.Float64() - 0.5 })
			y := vec(func() float64 { return float64(2*r.IntN(2) - 1) })
			cw := vec(func() float64 { return r.Float64() / float64(rows) })
			base := vec(func() float64 { return 3 * (r.Float64() - 0.5) })
			sigB := vec(func() float64 { return r.Float64() / 2 })

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
				o.sums = [3]float64{x.bregman(o.margins, base, sigB, y, cw), x.loss(base, y, cw), x.curvature(o.margins, base, y, cw)}
				return o
			}
			want := run(plain)
			var first *outcome
			for _, workers := range []int{1, 2, 3, 5} {
				team := newRowTeam(workers)
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

// TestLearnIsingRowSplit learns with the rows split among the workers
// (lowered thresholds) and checks that the estimates are the same bits for
// 1, 2 and 3 workers, that every node is certified, and that they agree
// with the node-parallel learner to what the tolerance allows (both
// certify L(ŵ) − L* ≤ 1e-9, which bounds the distance between their
// solutions as in TestFastPathMatchesReference) with the same graph; for
// the paper's algorithm (λ and η given) and for the tuning-free default.
func TestLearnIsingRowSplit(t *testing.T) {
	m := gridIsing(4, 5, rand.New(rand.NewPCG(21, 2)), 0.2, 0.5)
	s := drawExact(t, m, 6000, rand.NewPCG(22, 2))
	for _, tc := range []struct {
		name string
		opts []Option
	}{
		{"oracle", []Option{WithWidth(m.Width()), WithMinEdgeWeight(m.MinEdgeWeight()), WithTolerance(1e-9)}},
		{"default", []Option{WithTolerance(1e-9)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref, err := LearnIsing(s, append(tc.opts, WithWorkers(2))...)
			if err != nil {
				t.Fatal(err)
			}
			withRowSplit(t, 1000, 250)
			cfg := defaultConfig()
			if d := newNodeData(s, cfg.backend(), true, 2); d.team == nil {
				t.Fatal("the fast path does not split the rows of this test")
			} else {
				d.stop()
			}
			checkSplitWorkers(t, ref, LearnIsing, s, tc.opts)
		})
	}
}

// TestLearnPairwiseRowSplit is TestLearnIsingRowSplit for Algorithm 2 with
// k = 3 (the paper's λ and η, the default backend), on a model whose pairs
// take Newton steps and on one whose pairs run fista: the value pairs' rows
// are split among 1, 2 or 3 workers with the same bits, every regression is
// certified, and the estimates agree with the node-parallel learner's to
// what the tolerance allows.
func TestLearnPairwiseRowSplit(t *testing.T) {
	for _, tc := range []struct {
		name       string
		rows, cols int
	}{{"grid=3x3 (Newton)", 3, 3}, {"grid=5x5 (fista)", 5, 5}} {
		t.Run(tc.name, func(t *testing.T) {
			m := gridPotts(tc.rows, tc.cols, 3, 0.3, rand.New(rand.NewPCG(23, 3)))
			s := drawExact(t, m, 6000, rand.NewPCG(24, 3))
			opts := []Option{WithWidth(m.Width()), WithMinEdgeWeight(m.MinEdgeWeight()), WithTolerance(1e-9)}
			ref, err := LearnPairwise(s, append(opts, WithWorkers(2))...)
			if err != nil {
				t.Fatal(err)
			}
			withRowSplit(t, 1000, 250)
			if m, _ := mergeRows(s); m.rows < rowSplitMin {
				t.Fatalf("%d merged rows: the learner would not split them", m.rows)
			}
			checkSplitWorkers(t, ref, LearnPairwise, s, opts)
		})
	}
}

// checkSplitWorkers learns s with 1, 2 and 3 workers and checks that every
// node is certified, that the estimates are the same bits for every number
// of workers, and that they agree with ref, the node-parallel learner's
// result, as checkCloseResults demands.
func checkSplitWorkers(t *testing.T, ref *Result, learn func(*Samples, ...Option) (*Result, error), s *Samples, opts []Option) {
	t.Helper()
	var first *Result
	for _, p := range []int{1, 2, 3} {
		res, err := learn(s, append(opts, WithWorkers(p))...)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Nodes {
			if !f.Converged {
				t.Errorf("workers %d, node %d: not certified: %+v", p, f.Node, f)
			}
		}
		if first == nil {
			first = res
			checkCloseResults(t, ref, res)
			continue
		}
		for i := range res.est {
			for x := range res.est[i] {
				if res.est[i][x] != first.est[i][x] {
					t.Fatalf("workers 1 and %d differ at node %d, entry %d", p, i, x)
				}
			}
		}
	}
}
