package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mrfkit/pairwise/solve"
)

// treeRows returns count exact samples (states 0, 1) of a zero-field Ising
// model on a random tree over n spins: spin j > 0 hangs from a parent drawn
// among the (at most) ten spins before it and copies it with probability
// stay_j ∈ [0.65, 0.9) (else it flips), so that each node's regression has
// a handful of true neighbours: a sparse truth.
func treeRows(n, count int, seed uint64) *Rows {
	r := rand.New(rand.NewPCG(seed, 1))
	parent, stay := make([]int, n), make([]float64, n)
	for j := 1; j < n; j++ {
		parent[j] = j - 1 - r.IntN(min(j, 10))
		stay[j] = 0.65 + 0.25*r.Float64()
	}
	z := make([]uint8, count*n)
	for m := range count {
		row := z[m*n : (m+1)*n]
		row[0] = uint8(r.IntN(2))
		for j := 1; j < n; j++ {
			row[j] = row[parent[j]]
			if r.Float64() >= stay[j] {
				row[j] ^= 1
			}
		}
	}
	return &Rows{N: n, K: 2, Count: count, States: z}
}

// factorRows returns count samples of n spins that share three hidden ±1
// factors: spin j copies factor j mod 3 with probability p_j ∈ [0.6, 0.8)
// and is its opposite otherwise, and every third row also flips a random
// tenth of the spins. Every spin depends on the n/3 others of its factor,
// weakly: a dense truth, whose regressions have many small coefficients.
func factorRows(n, count int, seed uint64) *Rows {
	r := rand.New(rand.NewPCG(seed, 2))
	p := make([]float64, n)
	for j := range p {
		p[j] = 0.6 + 0.2*r.Float64()
	}
	z := make([]uint8, count*n)
	for m := range count {
		var h [3]uint8
		for f := range h {
			h[f] = uint8(r.IntN(2))
		}
		row := z[m*n : (m+1)*n]
		for j := range row {
			row[j] = h[j%3]
			if r.Float64() >= p[j] {
				row[j] ^= 1
			}
			if m%3 == 0 && r.IntN(10) == 0 {
				row[j] ^= 1
			}
		}
	}
	return &Rows{N: n, K: 2, Count: count, States: z}
}

// fitNode fits node i of e's data at the radius from a copy of start (nil
// for 0) with the given row weights (nil for the task's own), and returns
// the solution and its Stats.
func fitNode(t testing.TB, e *Driver, i int, radius float64, start, c []float64) ([]float64, solve.Stats) {
	t.Helper()
	task := e.SpinTask(i)
	w := make([]float64, e.Data.Rows.N)
	copy(w, start)
	if c == nil {
		c = task.C
	}
	st, err := e.Fit(context.Background(), &task, c, radius, w)
	if err != nil {
		t.Fatal(err)
	}
	return w, st
}

// regularRows returns count Gibbs samples (states 0, 1) of a zero-field
// Ising model on a random 4-regular graph over n spins (the pairing model,
// redrawn until simple) with |A_ij| ~ U[0.2, 0.5) and random signs, the
// models of the scaling study (study regular), and the paper's width
// λ = max_i Σ_j |A_ij|: 100 chains from uniform starts, 300 sweeps of
// burn-in, then a sample every 10 sweeps.
func regularRows(n, count int, seed uint64) (*Rows, float64) {
	r := rand.New(rand.NewPCG(seed, 3))
	type nb struct {
		j int
		a float64
	}
	var adj [][]nb
	for {
		stubs := make([]int, 0, 4*n)
		for v := range n {
			stubs = append(stubs, v, v, v, v)
		}
		r.Shuffle(len(stubs), func(a, b int) { stubs[a], stubs[b] = stubs[b], stubs[a] })
		adj = make([][]nb, n)
		seen := map[[2]int]bool{}
		ok := true
		for x := 0; x < len(stubs) && ok; x += 2 {
			a, b := min(stubs[x], stubs[x+1]), max(stubs[x], stubs[x+1])
			ok = a != b && !seen[[2]int{a, b}]
			seen[[2]int{a, b}] = true
			v := 0.2 + 0.3*r.Float64()
			if r.IntN(2) == 0 {
				v = -v
			}
			adj[a], adj[b] = append(adj[a], nb{b, v}), append(adj[b], nb{a, v})
		}
		if ok {
			break
		}
	}
	lambda := 0.0
	for _, row := range adj {
		s := 0.0
		for _, e := range row {
			s += math.Abs(e.a)
		}
		lambda = max(lambda, s)
	}
	const chains, burn, thin = 100, 300, 10
	z := make([]uint8, count*n)
	spin := make([]float64, n)
	sweep := func() {
		for i := range spin {
			f := 0.0
			for _, e := range adj[i] {
				f += e.a * spin[e.j]
			}
			// P(z_i = +1 | rest) = σ(2f).
			if r.Float64() < 1/(1+math.Exp(-2*f)) {
				spin[i] = 1
			} else {
				spin[i] = -1
			}
		}
	}
	per := (count + chains - 1) / chains
	for m := 0; m < count; m++ {
		if m%per == 0 {
			for i := range spin {
				spin[i] = float64(2*r.IntN(2) - 1)
			}
			for range burn {
				sweep()
			}
		}
		for range thin {
			sweep()
		}
		for i, v := range spin {
			if v > 0 {
				z[m*n+i] = 1
			}
		}
	}
	return &Rows{N: n, K: 2, Count: count, States: z}, lambda
}

// BenchmarkScreenNode measures one Ising node's fit, unscreened and
// screened, on random 4-regular models (regularRows, N = 1e4) at the
// paper's radius 2λ, where supports hold about a hundred variables, for
// n = 200, 300, 400 and 1000: where screening starts to pay
// (DefaultScreen). Each iteration fits the next node (37 apart); the
// unscreened fits' n×n moments and the screened fits' bit columns,
// computed once for all nodes, are built before the timer starts.
func BenchmarkScreenNode(b *testing.B) {
	for _, n := range []int{200, 300, 400, 1000} {
		s, lambda := regularRows(n, 10000, uint64(n))
		for _, screen := range []int{0, 1} {
			name := fmt.Sprintf("n=%d/screen=off", n)
			if screen > 0 {
				name = fmt.Sprintf("n=%d/screen=on", n)
			}
			b.Run(name, func(b *testing.B) {
				e := testEngine(s, true, 1e-6, new(Work))
				e.Data.SetScreen(screen)
				if screen == 0 {
					e.Data.moments()
				} else {
					e.Data.bitBlocks()
				}
				i, iters := 0, 0
				for b.Loop() {
					_, st := fitNode(b, e, i%s.N, 2*lambda, nil, nil)
					iters += st.Iterations
					if !st.Converged {
						b.Fatal(st)
					}
					i += 37
				}
				b.ReportMetric(float64(iters)/float64(b.N), "iters/op")
			})
		}
	}
}

// screenDrivers returns two drivers over s with tolerance tol: one that
// never screens and one that screens every Ising regression (from n = 1
// on), with the rows split among workers goroutines per split.
func screenDrivers(s *Rows, tol, ridge float64, split Split, workers int) (plain, scr *Driver) {
	b := Backend{Fast: true}
	mk := func(screen int) *Driver {
		d := NewData(s, b, true, workers, split)
		d.SetScreen(screen)
		return &Driver{Backend: b, Data: d, Settings: solve.Settings{Tol: tol, MaxIter: 20000}, Work: new(Work), Ridge: ridge}
	}
	return mk(0), mk(1)
}

// plainCertificate returns F(w) and the Frank–Wolfe gap ⟨∇F(w), w⟩ +
// R·‖∇F(w)‖_∞ of node i's full problem on the rows s with row weights c
// (nil for 1) and ridge ρ (in the units of the weights, as Driver.Ridge),
// computed on the plain ±1 design with math.Exp: independently of the
// coded kernels, of fista and of the working sets.
func plainCertificate(s *Rows, i int, c []float64, ridge, radius float64, w []float64) (f, gap float64) {
	n := s.N
	total := WeightSum(c, s.Count)
	g := make([]float64, n)
	x := make([]float64, n)
	for m := 0; m < s.Count; m++ {
		cm := 1.0
		if c != nil {
			cm = c[m]
		}
		cm /= total
		row := s.States[m*n : (m+1)*n]
		y := float64(2*int(row[i]) - 1)
		u := 0.0
		for j := range n {
			x[j] = float64(2*int(row[j]) - 1)
			if j == i {
				x[j] = 1
			}
			u += w[j] * x[j]
		}
		b := -y * u
		f += cm * (math.Max(b, 0) + math.Log1p(math.Exp(-math.Abs(b))))
		sg := 1 / (1 + math.Exp(-b)) // σ(−y u)
		for j := range n {
			g[j] -= cm * y * sg * x[j]
		}
	}
	rho := ridge / total
	for j := range n {
		if j != i {
			f += 0.5 * rho * w[j] * w[j]
			g[j] += rho * w[j]
		}
	}
	return f, solve.Gap(g, w, 1, radius)
}

// supportDiff returns the coordinates where a and b disagree on whether
// |w_j| > tau, leaving out those where ref is within a factor 2 of tau
// (where two solutions within the tolerance may fall on either side).
func supportDiff(a, b, ref []float64, tau float64) []int {
	var diff []int
	for j := range a {
		if r := math.Abs(ref[j]); r > tau/2 && r < 2*tau {
			continue
		}
		if (math.Abs(a[j]) > tau) != (math.Abs(b[j]) > tau) {
			diff = append(diff, j)
		}
	}
	return diff
}

// checkScreened fits node i at the radius from start (nil for 0) with row
// weights c (nil for the task's own) with both drivers, and checks the
// screened fit against the unscreened one and the plain certificate: both
// certified at the tolerance; the screened Stats are the full problem's
// (its loss and gap are those plainCertificate computes, to the rounding of
// sums of N terms); the objectives agree within the tolerance (both are
// within it of the optimum); the certificate is honest: F(ŵ) − F(w_ref) is
// at most the reported gap, w_ref the unscreened fit at tolerance 1e-12;
// and the supports above 0.01 agree. It returns the screened solution.
func checkScreened(t *testing.T, plain, scr *Driver, i int, radius float64, start, c []float64) []float64 {
	t.Helper()
	s := plain.Data.Rows
	tol := scr.Tol
	wu, su := fitNode(t, plain, i, radius, start, c)
	ws, ss := fitNode(t, scr, i, radius, start, c)
	if !su.Converged || !ss.Converged || ss.Gap > tol {
		t.Fatalf("node %d, radius %g: unscreened %+v, screened %+v", i, radius, su, ss)
	}
	f, gap := plainCertificate(s, i, c, scr.Ridge, radius, ws)
	// Rounding: the loss and gradient are sums of N terms of size ≤ 1
	// computed in different orders; 1e-11 is a hundred times their
	// rounding at N ≤ 1e4.
	if math.Abs(f-ss.Loss) > 1e-11 || math.Abs(gap-ss.Gap) > 1e-11 {
		t.Errorf("node %d, radius %g: screened Stats loss %.15g gap %.3g, the full problem's %.15g and %.3g", i, radius, ss.Loss, ss.Gap, f, gap)
	}
	fu, _ := plainCertificate(s, i, c, scr.Ridge, radius, wu)
	if math.Abs(f-fu) > tol {
		t.Errorf("node %d, radius %g: objective %.15g screened, %.15g unscreened", i, radius, f, fu)
	}
	ref := *plain
	ref.Tol = 1e-12
	wr, sr := fitNode(t, &ref, i, radius, wu, c)
	if !sr.Converged {
		t.Fatalf("node %d, radius %g: the reference fit %+v", i, radius, sr)
	}
	fr, _ := plainCertificate(s, i, c, scr.Ridge, radius, wr)
	if f-fr > ss.Gap+1e-12 {
		t.Errorf("node %d, radius %g: F(ŵ) − F(w_ref) = %.3g above the certificate %.3g", i, radius, f-fr, ss.Gap)
	}
	if d := supportDiff(ws, wu, wr, 0.01); len(d) > 0 {
		t.Errorf("node %d, radius %g: supports above 0.01 differ at %v", i, radius, d)
	}
	return ws
}

// screenCase is a problem of the screening tests: a truth (treeRows or
// factorRows), n spins, the radii and nodes fitted.
type screenCase struct {
	truth string
	n     int
	radii []float64
	nodes []int
}

// rows returns the case's 2000 rows.
func (tc screenCase) rows() *Rows {
	if tc.truth == "factor" {
		return factorRows(tc.n, 2000, uint64(tc.n))
	}
	return treeRows(tc.n, 2000, uint64(tc.n))
}

// runScreenCases runs checkScreened on every radius and node of the cases,
// cold, at tolerance 1e-8.
func runScreenCases(t *testing.T, cases []screenCase) {
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/n=%d", tc.truth, tc.n), func(t *testing.T) {
			plain, scr := screenDrivers(tc.rows(), 1e-8, 0, DefaultSplit, 1)
			for _, radius := range tc.radii {
				for _, i := range tc.nodes {
					checkScreened(t, plain, scr, i, radius, nil, nil)
				}
			}
		})
	}
}

// TestScreenMatchesUnscreened compares screened and unscreened fits of
// Ising nodes on sparse (treeRows) and dense (factorRows) truths with
// n = 50 and 200, at radii where the l1 constraint binds (0.5, 2) and, at
// n = 50, where it does not (100: the unconstrained optimum, whose support
// is every variable, so that the working set gives way to the full
// problem). See checkScreened for what is checked.
func TestScreenMatchesUnscreened(t *testing.T) {
	skipUnderRace(t)
	runScreenCases(t, []screenCase{
		{"tree", 50, []float64{0.5, 2, 100}, []int{0, 25}},
		{"factor", 50, []float64{0.5, 2, 100}, []int{0, 25}},
		{"tree", 200, []float64{0.5, 2}, []int{0, 100}},
		{"factor", 200, []float64{0.5, 2}, []int{0, 100}},
	})
}

// TestScreenMatchesUnscreenedLarge is TestScreenMatchesUnscreened at
// n = 600, one node a truth (the unscreened fits' n-dimensional moments
// make it the slow part).
func TestScreenMatchesUnscreenedLarge(t *testing.T) {
	skipUnderRace(t)
	runScreenCases(t, []screenCase{
		{"tree", 600, []float64{0.5, 2}, []int{300}},
		{"factor", 600, []float64{2}, []int{300}},
	})
}

// TestScreenWarmFoldsRidge runs checkScreened along a path of radii with
// warm starts (each fit starts from the screened solution of the last, as
// the width search does), with the weights of a cross-validation fold (a
// fifth of the rows at zero), and with a ridge, on n = 200 spins.
func TestScreenWarmFoldsRidge(t *testing.T) {
	skipUnderRace(t)
	s := treeRows(200, 2000, 5)
	fold := make([]float64, s.Count)
	for m := range fold {
		if m%5 != 2 {
			fold[m] = 1
		}
	}
	for _, tc := range []struct {
		name  string
		ridge float64
		c     []float64
	}{{"path", 0, nil}, {"fold", 0, fold}, {"ridge", 40, nil}, {"ridge+fold", 40, fold}} {
		t.Run(tc.name, func(t *testing.T) {
			plain, scr := screenDrivers(s, 1e-8, tc.ridge, DefaultSplit, 1)
			for _, i := range []int{3, 150} {
				var w []float64
				for _, radius := range []float64{0.25, 0.5, 1, 2, 4} {
					w = checkScreened(t, plain, scr, i, radius, w, tc.c)
				}
				// And back down: a warm start outside the smaller ball.
				checkScreened(t, plain, scr, i, 0.75, w, tc.c)
			}
		})
	}
}

// TestScreenRowSplit screens with the rows split among the workers: the
// solutions are the same bits for 1, 2 and 3 workers (the chunks depend on
// the rows alone), and agree with the unscreened split fits as
// checkScreened requires.
func TestScreenRowSplit(t *testing.T) {
	s := treeRows(120, 3000, 9)
	split := Split{Min: 1000, Chunk: 256}
	var first [][]float64
	for _, workers := range []int{1, 2, 3} {
		plain, scr := screenDrivers(s, 1e-8, 0, split, workers)
		if !scr.Data.Split() {
			t.Fatal("the rows are not split")
		}
		var got [][]float64
		for _, i := range []int{0, 60} {
			for _, radius := range []float64{0.5, 2} {
				if workers == 1 {
					got = append(got, checkScreened(t, plain, scr, i, radius, nil, nil))
				} else {
					w, _ := fitNode(t, scr, i, radius, nil, nil)
					got = append(got, w)
				}
			}
		}
		plain.Data.Stop()
		scr.Data.Stop()
		if first == nil {
			first = got
			continue
		}
		for x := range got {
			for j := range got[x] {
				if got[x][j] != first[x][j] {
					t.Fatalf("%d workers, fit %d, coordinate %d: %v, with one worker %v", workers, x, j, got[x][j], first[x][j])
				}
			}
		}
	}
}

// countingContext is a context whose Err reports cancellation from its
// limit-th call on: every place the driver polls ctx can be made the one
// that sees the cancel.
type countingContext struct {
	context.Context
	calls, limit int
}

func (c *countingContext) Err() error {
	c.calls++
	if c.calls > c.limit {
		return context.Canceled
	}
	return nil
}

// TestScreenCancel cancels a screened fit at each of its polls of ctx in
// turn: the fit returns context.Canceled with the Cancelled status and w
// feasible, or, when no later poll comes before the certificate, a
// certified solution; without a cancel it completes.
func TestScreenCancel(t *testing.T) {
	s := treeRows(200, 2000, 11)
	_, scr := screenDrivers(s, 1e-8, 0, DefaultSplit, 1)
	const radius = 2.0
	cancelled := 0
	for limit := 0; ; limit++ {
		ctx := &countingContext{Context: context.Background(), limit: limit}
		task := scr.SpinTask(7)
		w := make([]float64, s.N)
		st, err := scr.Fit(ctx, &task, task.C, radius, w)
		if err == nil {
			if !st.Converged {
				t.Fatalf("poll %d: %+v without an error", limit, st)
			}
			if ctx.calls <= limit { // never cancelled: the fit is done
				break
			}
			continue
		}
		cancelled++
		if err != context.Canceled || st.Status != solve.Cancelled {
			t.Fatalf("cancelled at poll %d: %+v, %v", limit, st, err)
		}
		if nrm := solve.Norm(w, 1); nrm > radius*(1+1e-12) {
			t.Fatalf("cancelled at poll %d: ‖w‖₁ = %v outside the ball", limit, nrm)
		}
	}
	if cancelled == 0 {
		t.Fatal("no cancel was seen")
	}
}

// TestScreenEncode checks the working set's group codes (encode, through
// blockCodes, from the bit blocks) against newGroupCodes on the same variables copied out as
// rows: the same groups, offsets and codes, for working sets of 1 to 21
// variables (partial last groups) and row counts that end inside a byte
// and a word of the bit blocks, as 16-bit codes and as bytes (a byte plus
// its group's offset 256·g is the 16-bit code).
func TestScreenEncode(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for _, count := range []int{1, 61, 64, 203} {
		s := randomSamples(t, count, 40, 2, r)
		d := NewData(s, Backend{Fast: true}, true, 1, DefaultSplit)
		words := blockWords(count)
		for _, size := range []int{1, 7, 8, 9, 21} {
			var sw screenWork
			sw.reset(s.N, r.IntN(s.N), normalisedWeights(nil, s, nil))
			for len(sw.cols) < size {
				if j := r.IntN(s.N); sw.pos[j] < 0 {
					sw.add(j)
				}
			}
			sub := &Rows{N: size, K: 2, Count: count, States: make([]uint8, count*size)}
			for m := range count {
				for a, j := range sw.cols {
					sub.States[m*size+a] = s.States[m*s.N+j]
				}
			}
			want := newGroupCodes(sub, 8)
			for _, bytes := range []bool{false, true} {
				sw.encode(d.bitBlocks(), s.N, words, count, bytes)
				if sw.gc.groups != want.groups || fmt.Sprint(sw.gc.off) != fmt.Sprint(want.off) {
					t.Fatalf("N=%d, %d variables: groups %d, offsets %v; want %d, %v", count, size, sw.gc.groups, sw.gc.off, want.groups, want.off)
				}
				got := make([]int, len(sw.gc.codes)+len(sw.gc.codes8))
				for x, c := range sw.gc.codes {
					got[x] = int(c)
				}
				for x, c := range sw.gc.codes8 {
					got[x] = 256*(x%want.groups) + int(c)
				}
				if len(got) != len(want.codes) || (bytes != (sw.gc.codes == nil)) {
					t.Fatalf("N=%d, %d variables, bytes %v: %d 16-bit codes and %d bytes, want %d codes", count, size, bytes, len(sw.gc.codes), len(sw.gc.codes8), len(want.codes))
				}
				for x, c := range want.codes {
					if got[x] != int(c) {
						t.Fatalf("N=%d, %d variables, bytes %v: code %d is %d, want %d", count, size, bytes, x, got[x], c)
					}
				}
			}
		}
	}
}

// TestBoundedCheck fits the n = 600 tree truth's nodes screened, with the
// bounded checks (boundedCheck) and without them: the bounded checks must
// be taken (on the last rounds of most fits), and every fit must give the
// same solution to the rounding of the sums (the checks change no decision
// of the working sets: a variable they leave at its reference gradient can
// neither join nor raise the certificate), the same iterations, and a
// certificate equal to the independent plainCertificate's.
func TestBoundedCheck(t *testing.T) {
	skipUnderRace(t)
	s := treeRows(600, 2000, 600)
	_, with := screenDrivers(s, 1e-8, 0, DefaultSplit, 1)
	_, without := screenDrivers(s, 1e-8, 0, DefaultSplit, 1)
	for _, i := range []int{0, 150, 300, 450, 599} {
		for _, radius := range []float64{0.5, 2} {
			before := with.Work.scr.bounded
			wb, sb := fitNode(t, with, i, radius, nil, nil)
			boundedChecks = false
			wf, sf := fitNode(t, without, i, radius, nil, nil)
			boundedChecks = true
			if sb.Iterations != sf.Iterations || !sb.Converged || !sf.Converged {
				t.Errorf("node %d, radius %g: bounded %+v, full %+v", i, radius, sb, sf)
			}
			for j := range wb {
				if math.Abs(wb[j]-wf[j]) > 1e-12 {
					t.Fatalf("node %d, radius %g: w[%d] = %g bounded, %g full", i, radius, j, wb[j], wf[j])
				}
			}
			_, gap := plainCertificate(s, i, nil, 0, radius, wb)
			if math.Abs(gap-sb.Gap) > 1e-11 {
				t.Errorf("node %d, radius %g: certificate %.6g, the full problem's %.6g", i, radius, sb.Gap, gap)
			}
			t.Logf("node %d, radius %g: %d bounded checks", i, radius, with.Work.scr.bounded-before)
		}
	}
	if with.Work.scr.bounded == 0 || without.Work.scr.bounded != 0 {
		t.Errorf("bounded checks: %d with, %d without; want some, none", with.Work.scr.bounded, without.Work.scr.bounded)
	}
}

// TestGrowCap checks that a working set never grows past maxScreenSet
// variables, whose byte codes would index past the tables (256 groups of
// 256 cells): at n = 10,000 a set of 2,040 variables that would take 100
// more gives way to the full problem (−1), long before screenDense's half
// of the variables, while one of 1,900 takes them.
func TestGrowCap(t *testing.T) {
	const n = 10000
	for _, tc := range []struct{ held, want int }{{2040, -1}, {1900, 100}} {
		var sw screenWork
		sw.reset(n, 0, []float64{1})
		for j := 1; j < tc.held; j++ {
			sw.add(j)
		}
		g, w := make([]float64, n), make([]float64, n)
		for j := n - 100; j < n; j++ {
			g[j] = 1 // outside S, above the bound max_S |g| = 0
		}
		if got := sw.grow(g, w, 1, 1e-6, false); got != tc.want {
			t.Errorf("%d variables held: grow returned %d, want %d", tc.held, got, tc.want)
		}
		if len(sw.cols) > maxScreenSet {
			t.Errorf("%d variables held: the set holds %d, past %d", tc.held, len(sw.cols), maxScreenSet)
		}
	}
}

// TestCarriedCheck fits nodes of the n = 600 tree truth along a path of
// radii, each warm-started from the last solution as the selection path
// does, with the first check of each fit allowed to use the last fit's
// reference (carryChecks) and without: the carried references must be
// taken (more bounded checks with them), and every fit must give the same
// solution to the rounding of the sums, the same iterations, and a
// certificate equal to the independent plainCertificate's. The bound
// holds whatever the radius, so a carried reference changes no decision
// of the working sets. A reference must not pass to another node, to
// other weights, or to a fit with a ridge (sameProblem).
func TestCarriedCheck(t *testing.T) {
	skipUnderRace(t)
	s := treeRows(600, 2000, 600)
	_, with := screenDrivers(s, 1e-8, 0, DefaultSplit, 1)
	_, without := screenDrivers(s, 1e-8, 0, DefaultSplit, 1)
	for _, i := range []int{0, 300, 599} {
		var wb, wf []float64
		for _, radius := range []float64{0.5, 1, 2, 1.4} {
			var sb, sf solve.Stats
			wb, sb = fitNode(t, with, i, radius, wb, nil)
			carryChecks = false
			wf, sf = fitNode(t, without, i, radius, wf, nil)
			carryChecks = true
			if sb.Iterations != sf.Iterations || !sb.Converged || !sf.Converged {
				t.Errorf("node %d, radius %g: carried %+v, fresh %+v", i, radius, sb, sf)
			}
			for j := range wb {
				if math.Abs(wb[j]-wf[j]) > 1e-12 {
					t.Fatalf("node %d, radius %g: w[%d] = %g carried, %g fresh", i, radius, j, wb[j], wf[j])
				}
			}
			_, gap := plainCertificate(s, i, nil, 0, radius, wb)
			if math.Abs(gap-sb.Gap) > 1e-11 {
				t.Errorf("node %d, radius %g: certificate %.6g, the full problem's %.6g", i, radius, sb.Gap, gap)
			}
		}
	}
	if with.Work.scr.bounded <= without.Work.scr.bounded {
		t.Errorf("bounded checks: %d carried, %d fresh; want more carried", with.Work.scr.bounded, without.Work.scr.bounded)
	}
	t.Logf("bounded checks: %d carried, %d fresh", with.Work.scr.bounded, without.Work.scr.bounded)

	sw := &with.Work.scr
	task := with.SpinTask(599)
	cw := make([]float64, len(task.Y))
	for m := range cw {
		cw[m] = 1 / float64(len(cw))
	}
	if !sw.sameProblem(with.Data, 599, task.Y, cw, 0) {
		t.Fatal("the last fit's own problem is not recognised")
	}
	other := slices.Clone(cw)
	other[0], other[1] = 0, 2/float64(len(cw))
	for name, ok := range map[string]bool{
		"another node":  sw.sameProblem(with.Data, 598, task.Y, cw, 0),
		"other weights": sw.sameProblem(with.Data, 599, task.Y, other, 0),
		"a ridge":       sw.sameProblem(with.Data, 599, task.Y, cw, 1e-3),
		"other data":    sw.sameProblem(without.Data, 599, task.Y, cw, 0),
		"other labels":  sw.sameProblem(with.Data, 599, with.SpinTask(0).Y, cw, 0),
	} {
		if ok {
			t.Errorf("a reference passed to %s", name)
		}
	}
}
