package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mrfkit/pairwise/solve"
)

// TestNewtonCertified runs newton alone on pair regressions whose optimum
// is interior and checks the certificate and the optimum against the
// reference solver at a tight tolerance (the same bound as above).
func TestNewtonCertified(t *testing.T) {
	s := chainRows(9, 4, 5000, 0.4, 13)
	const tol = 1e-10
	const radius = 20.0 // far outside the optimum: Newton's own ground
	e := testEngine(s, false, tol, new(Work))
	if !e.Data.newton {
		t.Fatal("the 3×3 grid with k = 4 should take Newton steps")
	}
	i := 4
	tasks, _, _ := e.PairTasks(i)
	var task *Task
	for x := range tasks {
		if tasks[x].Alpha == 1 && tasks[x].Beta == 3 {
			task = &tasks[x]
		}
	}
	w := make([]float64, 9*4)
	st, err := e.Fit(context.Background(), task, task.C, radius, w)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Converged || st.Gap > tol || st.Iterations > 10 {
		t.Errorf("newton: %+v, want a certificate within 10 steps", st)
	}
	z, y, c, _ := gatherRows(e.Data.Rows, rowsWith(e.Data.Rows, i, 1), rowsWith(e.Data.Rows, i, 3), true)
	p := &solve.Problem[solve.OneHot]{X: solve.OneHot{Z: z, Groups: 9, K: 4, Bias: i}, Y: y, C: c, Radius: radius, Settings: solve.Settings{Tol: tol, MaxIter: 100000}}
	// The reference: first-order steps alone on the plain layout.
	cw := make([]float64, len(y))
	for m := range cw {
		cw[m] = 1 / float64(len(y))
	}
	wr := make([]float64, 9*4)
	ref := &Regression{X: p.X, Y: y, CW: cw, Radius: radius, Tol: tol, MaxIter: 100000, Trace: 9}
	if st, err := FISTA(context.Background(), ref, wr, new(FistaWork)); err != nil || !st.Converged {
		t.Fatal(st, err)
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
func testEngine(s *Rows, ising bool, tol float64, wk *Work) *Driver {
	b := Backend{Fast: true}
	return &Driver{Backend: b, Data: NewData(s, b, ising, 1, DefaultSplit), Settings: solve.Settings{Tol: tol, MaxIter: 20000}, Work: wk}
}

// chainRows returns count rows of n states over k values drawn along a
// chain: z_0 uniform, then z_j = z_{j-1} with probability stay and uniform
// otherwise, so that neighbours are dependent as in the learners' models.
func chainRows(n, k, count int, stay float64, seed uint64) *Rows {
	r := rand.New(rand.NewPCG(seed, uint64(n*k)))
	z := make([]uint8, count*n)
	for m := 0; m < count; m++ {
		row := z[m*n : (m+1)*n]
		row[0] = uint8(r.IntN(k))
		for j := 1; j < n; j++ {
			if r.Float64() < stay {
				row[j] = row[j-1]
			} else {
				row[j] = uint8(r.IntN(k))
			}
		}
	}
	return &Rows{N: n, K: k, Count: count, States: z}
}

// rowsWith lists the rows of s with z_i = a and a positive weight.
func rowsWith(s *Rows, i, a int) []int32 {
	var rows []int32
	for r := 0; r < s.Count; r++ {
		if int(s.States[r*s.N+i]) == a && s.Weight(r) > 0 {
			rows = append(rows, int32(r))
		}
	}
	return rows
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

// poison fills every scratch buffer of wk (to its capacity) with NaN.
func poison(wk *Work) {
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
		s := chainRows(12, 2, 3000, 0.3, 19)
		const radius = 2.0 // binding: the face steps run
		e := testEngine(s, true, 1e-6, nil)
		solveNode := func(i int, wk *Work) []float64 {
			e.Work = wk
			task := e.SpinTask(i)
			w := make([]float64, s.N)
			if _, err := e.Fit(context.Background(), &task, task.C, radius, w); err != nil {
				t.Fatal(err)
			}
			return w
		}
		for i := 0; i < s.N; i++ {
			fresh := solveNode(i, new(Work))
			dirty := new(Work)
			for j := 0; j < s.N; j++ {
				solveNode((i+j+1)%s.N, dirty)
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
		s := chainRows(6, 3, 3000, 0.3, 21)
		radius := 2 * 0.5 * math.Sqrt(3)
		e := testEngine(s, false, 1e-6, nil)
		solveAll := func(i int, wk *Work) []float64 {
			e.Work = wk
			tasks, _, _ := e.PairTasks(i)
			var out []float64
			for x := range tasks {
				w := make([]float64, s.N*3)
				if _, err := e.Fit(context.Background(), &tasks[x], tasks[x].C, radius, w); err != nil {
					t.Fatal(err)
				}
				out = append(out, w...)
			}
			return out
		}
		for i := 0; i < s.N; i++ {
			fresh := solveAll(i, new(Work))
			dirty := new(Work)
			solveAll((i+1)%s.N, dirty)
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

// TestPlanReferencePairs checks the reference value (the heaviest, found
// here by summing the weights directly) and the pairs formed with it: with
// value 0 skipped and value 4 absent, node 0's reference pairs are (r, β)
// for the other values with rows, in order, and the pair with 4 has one
// label, the reference's.
func TestPlanReferencePairs(t *testing.T) {
	const k = 5
	// Node 0 takes 3 rows of value 1 (weight 0.5 each), 2 of value 2
	// (weight 1 each), 1 of value 3 (weight 3), 2 of value 0 (weight 9).
	vals := []uint8{1, 1, 1, 2, 2, 3, 0, 0}
	wts := []float64{0.5, 0.5, 0.5, 1, 1, 3, 9, 9}
	z := make([]uint8, 0, 2*len(vals))
	for m, v := range vals {
		z = append(z, v, uint8(m%k))
	}
	rows := &Rows{N: 2, K: k, Count: len(vals), States: z, Weights: wts}
	e := testEngine(rows, false, 1e-6, new(Work))
	skip := []bool{true, false, false, false, false}
	weight := make([]float64, k)
	for m, v := range vals {
		weight[v] += wts[m]
	}
	want := -1
	for a := 1; a < k; a++ {
		if want < 0 || weight[a] > weight[want] {
			want = a
		}
	}
	pl := e.PlanReferencePairs(0, skip)
	if pl.Ref != want || want != 3 {
		t.Fatalf("reference %d, want %d (the heaviest value but the skipped 0)", pl.Ref, want)
	}
	if fmt.Sprint(pl.Pairs) != "[[1 3] [2 3]]" {
		t.Errorf("pairs %v, want [[1 3] [2 3]]", pl.Pairs)
	}
	if fmt.Sprint(pl.OneLabel) != fmt.Sprint([][2]int{{3*k + 4, 1}}) || pl.Empty != 0 {
		t.Errorf("one-label pairs %v, empty %d; want (3, 4) with the label of 3, none empty", pl.OneLabel, pl.Empty)
	}
	// The reference's rows are in every pair's task, with label +1 as α.
	for p := range pl.Pairs {
		task := e.Task(pl, p)
		n3 := 0
		for m, r := range task.Rows {
			if vals[r] == 3 {
				n3++
				if task.Y[m] != -1 {
					t.Errorf("pair %v: the reference's row %d has label %v, want -1 (β)", pl.Pairs[p], r, task.Y[m])
				}
			}
		}
		if n3 != 1 {
			t.Errorf("pair %v: %d rows of the reference, want 1", pl.Pairs[p], n3)
		}
	}
	if pp := e.PlanPairs(0, skip); pp.Ref != -1 || len(pp.Pairs) != 3 {
		t.Errorf("PlanPairs: ref %d, %d pairs; want -1 and 3", pp.Ref, len(pp.Pairs))
	}
}
