package pairwise

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mrfkit/pairwise/solve"
)

// plainOptions route the learners through the plain layouts of package
// solve with the same accelerated method (a caller's solver, here
// Accelerated's own Solve methods, disables the engine's fast path): the
// reference for the fast path.
func plainOptions() []Option {
	return []Option{WithSolver(Custom{
		Spins:  solve.Func[solve.Spins](Accelerated{}.SolveSpins),
		OneHot: solve.Func[solve.OneHot](Accelerated{}.SolveOneHot),
	})}
}

// TestFastPathMatchesReference learns the same samples on the fast path
// (table kernels, merged rows, warm starts, Newton and face steps) and on
// the plain reference path, both certified to the tolerance tol, and
// compares every per-node estimate. Both returns are within tol in loss of
// the same optimum; the loss is strongly convex around it (curvature at
// least μ ≈ 0.01 along any direction the data see, from margins below the
// radius), so the parameters can differ by about √(2·2tol/μ) ≈ 3e-4 at
// tol = 1e-9; we allow 2e-3 and check that the graphs agree. The cases
// cover the Ising path with the constraint active and inactive, repeated
// rows (n = 4, where merging rows matters), the pairwise path with and
// without Newton steps, and weighted samples.
func TestFastPathMatchesReference(t *testing.T) {
	skipUnderRace(t) // one goroutine's numbers against a reference: see skipUnderRace
	const tol = 1e-9
	cases := []struct {
		name     string
		m        *Model
		N        int
		width    float64 // multiple of the true width
		weighted bool
	}{
		{"ising/grid=3x3/boundary", gridIsing(3, 3, rand.New(rand.NewPCG(1, 1)), 0.2, 0.5), 2000, 1, false},
		{"ising/grid=3x3/interior", gridIsing(3, 3, rand.New(rand.NewPCG(1, 1)), 0.2, 0.5), 2000, 4, false},
		{"ising/grid=2x2/repeated rows", gridIsing(2, 2, rand.New(rand.NewPCG(2, 1)), 0.2, 0.5), 2000, 1, false},
		{"ising/grid=4x4/weighted", gridIsing(4, 4, rand.New(rand.NewPCG(3, 1)), 0.2, 0.5), 1500, 1, true},
		{"pairwise/grid=3x3/k=3 (Newton)", gridPotts(3, 3, 3, 0.3, rand.New(rand.NewPCG(4, 1))), 2000, 1, false},
		{"pairwise/grid=2x2/k=4 (Newton, boundary)", gridPotts(2, 2, 4, 0.4, rand.New(rand.NewPCG(5, 1))), 3000, 0.5, false},
		{"pairwise/grid=5x5/k=3 (no Newton)", gridPotts(5, 5, 3, 0.3, rand.New(rand.NewPCG(6, 1))), 600, 1, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := drawExact(t, tc.m, tc.N, rand.NewPCG(7, uint64(tc.N)))
			if tc.weighted {
				w := make([]float64, s.rows)
				r := rand.New(rand.NewPCG(8, 8))
				for m := range w {
					w[m] = 0.5 + r.Float64()
				}
				var err error
				if s, err = NewWeightedSamples(s.k, s.Rows(), w); err != nil {
					t.Fatal(err)
				}
			}
			opts := []Option{WithWidth(tc.width * tc.m.Width()), WithMinEdgeWeight(tc.m.MinEdgeWeight()), WithTolerance(tol)}
			fast, err := Learn(s, opts...)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := Learn(s, append(opts, plainOptions()...)...)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fast.Nodes {
				if !f.Converged || f.Gap > tol {
					t.Errorf("fast path, node %d: not certified: %+v", f.Node, f)
				}
			}
			checkCloseResults(t, ref, fast)
		})
	}
}

// checkCloseResults checks that two learners certified to a tolerance of
// 1e-9 agree: per-node estimates within 2e-3 (the bound on the distance
// between two certified solutions that TestFastPathMatchesReference
// explains) and the same graph.
func checkCloseResults(t *testing.T, ref, got *Result) {
	t.Helper()
	worst := 0.0
	gd, rd := denseOf(got), denseOf(ref)
	for i := range gd {
		worst = math.Max(worst, maxDiff(gd[i], rd[i]))
	}
	t.Logf("max estimate difference %.3g", worst)
	if worst > 2e-3 {
		t.Errorf("estimates differ by %.3g, want ≤ 2e-3", worst)
	}
	checkGraph(t, ref.Edges, got.Edges)
}

// TestFastPathCancel checks that the fast paths return ctx.Err() when the
// context is cancelled mid-run.
func TestFastPathCancel(t *testing.T) {
	for _, k := range []int{2, 3} {
		t.Run(fmt.Sprintf("k=%d", k), func(t *testing.T) {
			m := gridPotts(3, 3, k, 0.3, rand.New(rand.NewPCG(14, uint64(k))))
			s := drawExact(t, m, 2000, rand.NewPCG(15, 1))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			_, err := LearnContext(ctx, s, WithWidth(m.Width()), WithMinEdgeWeight(0.3), WithProgress(func(done, _ int) {
				if done == 1 {
					cancel()
				}
			}))
			if err != context.Canceled {
				t.Errorf("got %v, want context.Canceled", err)
			}
		})
	}
}

// TestFastPathMaxIterations checks that every step of the fast path (the
// majorise–minimise and Newton steps as well as the accelerated ones)
// counts against WithMaxIterations, and that a capped run reports itself
// unconverged rather than failing.
func TestFastPathMaxIterations(t *testing.T) {
	for _, k := range []int{2, 4} {
		t.Run(fmt.Sprintf("k=%d", k), func(t *testing.T) {
			m := gridPotts(3, 3, k, 0.3, rand.New(rand.NewPCG(16, uint64(k))))
			s := drawExact(t, m, 3000, rand.NewPCG(17, 1))
			const cap = 2
			res, err := Learn(s, WithWidth(m.Width()), WithMinEdgeWeight(0.3), WithMaxIterations(cap), WithTolerance(1e-12))
			if err != nil {
				t.Fatal(err)
			}
			unconverged := 0
			for _, f := range res.Nodes {
				if f.Iterations > cap*f.Regressions {
					t.Errorf("node %d: %d iterations over %d regressions, want at most %d each", f.Node, f.Iterations, f.Regressions, cap)
				}
				if !f.Converged {
					unconverged++
				}
			}
			// A tolerance of 1e-12 is out of reach in two steps.
			if unconverged == 0 {
				t.Error("every node certified 1e-12 within two iterations; the cap is not exercised")
			}
		})
	}
}

// maxDiff returns max_i |a_i − b_i|.
func maxDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}
