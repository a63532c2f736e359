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
// solve with the same Adaptive method (a caller's solver disables the fast
// path): the reference for the fast path.
func plainOptions() []Option {
	return []Option{
		WithSpinSolver(solve.Func[solve.Spins](EntropicMirror{}.SolveSpins)),
		WithOneHotSolver(solve.Func[solve.OneHot](GroupMirror{}.SolveOneHot)),
	}
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
	for i := range got.est {
		worst = math.Max(worst, maxDiff(got.est[i], ref.est[i]))
	}
	t.Logf("max estimate difference %.3g", worst)
	if worst > 2e-3 {
		t.Errorf("estimates differ by %.3g, want ≤ 2e-3", worst)
	}
	checkGraph(t, ref.Edges, got.Edges)
}

// TestNewtonCertified runs newton alone on pair regressions whose optimum
// is interior and checks the certificate and the optimum against the
// reference solver at a tight tolerance (the same bound as above).
func TestNewtonCertified(t *testing.T) {
	m := gridPotts(3, 3, 4, 0.3, rand.New(rand.NewPCG(12, 1)))
	s := drawExact(t, m, 5000, rand.NewPCG(13, 1))
	const tol = 1e-10
	radius := 2 * 3 * m.Width() * 2
	e := testEngine(s, false, tol, new(work))
	if !e.d.newton {
		t.Fatal("the 3×3 grid with k = 4 should take Newton steps")
	}
	i := 4
	tasks, _, _ := e.pairTasks(i)
	var task *pathTask
	for x := range tasks {
		if tasks[x].alpha == 1 && tasks[x].beta == 3 {
			task = &tasks[x]
		}
	}
	w := make([]float64, 9*4)
	st, err := e.fit(context.Background(), task, task.c, radius, w)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Converged || st.Gap > tol || st.Iterations > 10 {
		t.Errorf("newton: %+v, want a certificate within 10 steps", st)
	}
	z, y, c, _ := gatherRows(e.d.s, rowsWith(e.d.s, i, 1), rowsWith(e.d.s, i, 3), true)
	p := &solve.Problem[solve.OneHot]{X: solve.OneHot{Z: z, Groups: 9, K: 4, Bias: i}, Y: y, C: c, Radius: radius, Tol: tol, MaxIter: 100000}
	wr := make([]float64, 9*4)
	if _, err := (GroupMirror{}).SolveOneHot(context.Background(), p, wr); err != nil {
		t.Fatal(err)
	}
	// Compare the margins (the coefficients are not identifiable).
	u1, u2 := make([]float64, len(y)), make([]float64, len(y))
	p.X.Margins(u1, w)
	p.X.Margins(u2, wr)
	if e := maxDiff(u1, u2); e > 1e-3 {
		t.Errorf("margins differ from the reference optimum by %.3g", e)
	}
	if l1, l2 := solve.Loss(p, w), solve.Loss(p, wr); math.Abs(l1-l2) > 2*tol {
		t.Errorf("loss %v, reference %v", l1, l2)
	}
}

// testEngine returns a driver with the default backend over s, on the
// scratch wk.
func testEngine(s *Samples, ising bool, tol float64, wk *work) *engine {
	cfg := defaultConfig()
	b := cfg.backend()
	return &engine{b: b, d: newNodeData(s, b, ising, 1), tol: tol, maxIter: cfg.maxIter, work: wk}
}

// rowsWith lists the rows of s with z_i = a and a positive weight.
func rowsWith(s *Samples, i, a int) []int32 {
	var rows []int32
	for r := 0; r < s.rows; r++ {
		if int(s.b8[r*s.n+i]) == a && s.Weight(r) > 0 {
			rows = append(rows, int32(r))
		}
	}
	return rows
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

// TestUseNewton pins the choice of the cases above: Newton steps for the
// small grids, first-order steps (with face steps) for the 5×5 grid.
func TestUseNewton(t *testing.T) {
	for _, tc := range []struct {
		n, k int
		want bool
	}{{9, 3, true}, {4, 4, true}, {9, 6, true}, {25, 3, false}, {50, 21, false}} {
		if got := useNewton(tc.n, tc.k, (tc.n+groupSize(tc.n, tc.k, maxGroupTable)-1)/groupSize(tc.n, tc.k, maxGroupTable)); got != tc.want {
			t.Errorf("useNewton(n=%d, k=%d) = %v, want %v", tc.n, tc.k, got, tc.want)
		}
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

// poison fills every scratch buffer of wk (to its capacity) with NaN.
func poison(wk *work) {
	fill := func(s []float64) {
		s = s[:cap(s)]
		for i := range s {
			s[i] = math.NaN()
		}
	}
	fill(wk.ws.buf)
	fill(wk.ws.rbuf)
	fill(wk.ws.qp)
	for _, s := range [][]float64{wk.ws.face.v, wk.ws.face.p, wk.ws.face.q, wk.ws.face.rr, wk.ws.face.z,
		wk.ws.face.gz, wk.ws.face.a, wk.ws.face.norms, wk.ws.face.m, wk.ws.face.ms, wk.ws.face.mr, wk.ws.face.zbuf,
		wk.nt.hess, wk.nt.g, wk.nt.v, wk.nt.wt,
		wk.f, wk.y, wk.cw} {
		fill(s)
	}
	if wk.full != nil {
		fill(wk.full[:])
	}
}

// TestFastPathScratchIndependent: a regression's result must not depend on
// what its reused scratch held before (the pool hands buffers to whichever
// worker asks, so a stale read would make results depend on the number of
// workers). Each node is solved with fresh scratch and with scratch that
// solved every other node and was then filled with NaN; the results must
// agree to the last bit.
func TestFastPathScratchIndependent(t *testing.T) {
	t.Run("ising", func(t *testing.T) {
		m := gridIsing(3, 4, rand.New(rand.NewPCG(18, 1)), 0.2, 0.5)
		s := drawExact(t, m, 3000, rand.NewPCG(19, 1))
		radius := 2 * m.Width()
		e := testEngine(s, true, DefaultTolerance, nil)
		solveNode := func(i int, wk *work) []float64 {
			e.work = wk
			task := e.spinTask(i)
			w := make([]float64, s.n)
			if _, err := e.fit(context.Background(), &task, task.c, radius, w); err != nil {
				t.Fatal(err)
			}
			return w
		}
		for i := 0; i < s.n; i++ {
			fresh := solveNode(i, new(work))
			dirty := new(work)
			for j := 0; j < s.n; j++ {
				solveNode((i+j+1)%s.n, dirty)
			}
			poison(dirty)
			got := solveNode(i, dirty)
			for x := range got {
				if got[x] != fresh[x] {
					t.Fatalf("node %d, coordinate %d: %v with reused scratch, %v with fresh", i, x, got[x], fresh[x])
				}
			}
		}
	})
	t.Run("pairwise", func(t *testing.T) {
		m := gridPotts(2, 3, 3, 0.3, rand.New(rand.NewPCG(20, 1)))
		s := drawExact(t, m, 3000, rand.NewPCG(21, 1))
		radius := 2 * m.Width() * math.Sqrt(3)
		e := testEngine(s, false, DefaultTolerance, nil)
		solveAll := func(i int, wk *work) []float64 {
			e.work = wk
			tasks, _, _ := e.pairTasks(i)
			var out []float64
			for x := range tasks {
				w := make([]float64, s.n*3)
				if _, err := e.fit(context.Background(), &tasks[x], tasks[x].c, radius, w); err != nil {
					t.Fatal(err)
				}
				out = append(out, w...)
			}
			return out
		}
		for i := 0; i < s.n; i++ {
			fresh := solveAll(i, new(work))
			dirty := new(work)
			solveAll((i+1)%s.n, dirty)
			poison(dirty)
			got := solveAll(i, dirty)
			for x := range got {
				if got[x] != fresh[x] {
					t.Fatalf("node %d, entry %d: %v with reused scratch, %v with fresh", i, x, got[x], fresh[x])
				}
			}
		}
	})
}
