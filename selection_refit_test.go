package pairwise

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mrfkit/pairwise/internal/estimates"
	"github.com/mrfkit/pairwise/internal/selection"
	"github.com/mrfkit/pairwise/solve"
)

// TestRefitSpinsClosedForm checks the refit against the closed form of a
// saturated model: with one spin x_j besides the intercept, node i's
// logistic regression fits each of the two groups x_j = ±1 exactly, so with
// p_± the fraction of x_i = +1 in group ± (of n_± rows) the margins are
// u_± = logit(p_±), the coefficient is (u_+ − u_−)/2, Â_ij half of that,
// and the inverse Fisher information gives var(u_±) = 1/(n_± p_±(1 − p_±)),
// so SE(Â_ij) = sqrt(var(u_+) + var(u_−))/4.
func TestRefitSpinsClosedForm(t *testing.T) {
	// Counts of (x_0, x_1): (+,+) 30, (−,+) 10, (+,−) 12, (−,−) 28, weighted
	// and as repeated rows; node 0 on spin 1.
	counts := map[[2]int]int{{1, 1}: 30, {-1, 1}: 10, {1, -1}: 12, {-1, -1}: 28}
	var rows, wrows [][]int
	var weights []float64
	for xy, c := range counts {
		for range c {
			rows = append(rows, []int{xy[0], xy[1], 1})
		}
		wrows = append(wrows, []int{xy[0], xy[1], 1})
		weights = append(weights, float64(c))
	}
	logit := func(p float64) float64 { return math.Log(p / (1 - p)) }
	pPlus, pMinus := 30.0/40, 12.0/40
	want := (logit(pPlus) - logit(pMinus)) / 4
	wantSE := math.Sqrt(1/(40*pPlus*(1-pPlus))+1/(40*pMinus*(1-pMinus))) / 4
	plain, err := NewSpinSamples(rows)
	if err != nil {
		t.Fatal(err)
	}
	weighted, err := NewWeightedSamples(2, spinsToStates(wrows), weights)
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*Samples{"rows": plain, "weights": weighted} {
		d, se, _, ok := selection.RefitSpins(context.Background(), s.stages(), 0, []int{1})
		if !ok {
			t.Fatalf("%s: refit failed", name)
		}
		if math.Abs(d[4]-want) > 1e-8 || math.Abs(se[4]-wantSE) > 1e-8 {
			t.Errorf("%s: Â_01 = %.10g ± %.10g, want %.10g ± %.10g", name, d[4], se[4], want, wantSE)
		}
		if d[5] != -d[4] || d[6] != -d[4] || d[7] != d[4] || se[5] != se[4] {
			t.Errorf("%s: entries %v, want the Ising form [a, -a, -a, a]", name, d[4:8])
		}
		for _, c := range []int{0, 1, 2, 3, 8, 9, 10, 11} {
			if d[c] != 0 || se[c] != 0 {
				t.Errorf("%s: entry %d of a spin not refit is %g ± %g, want 0", name, c, d[c], se[c])
			}
		}
	}
}

// spinsToStates maps spins ±1 to states 0/1 (−1 ↦ 0), as NewSpinSamples
// does.
func spinsToStates(rows [][]int) [][]int {
	out := make([][]int, len(rows))
	for m, r := range rows {
		out[m] = make([]int, len(r))
		for i, v := range r {
			out[m][i] = (v + 1) / 2
		}
	}
	return out
}

// TestRefitSpinsSeparation checks that a spin that separates node i's
// values (x_0 = x_1 in every row: the likelihood grows without bound along
// the coefficient) makes the refit report failure rather than return a
// huge estimate.
func TestRefitSpinsSeparation(t *testing.T) {
	s, err := NewSpinSamples([][]int{{1, 1, 1}, {-1, -1, 1}, {1, 1, -1}, {-1, -1, -1}, {1, 1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if d, _, _, ok := selection.RefitSpins(context.Background(), s.stages(), 0, []int{1, 2}); ok {
		t.Errorf("refit on a separating spin succeeded with Â_01 = %g", d[4])
	}
}

// TestRefitMatchesBruteForce checks the refit on a model with three spins
// against a direct maximisation: the log-likelihood of node 0 given spins
// 1 and 2 depends on the data only through the 8 cell counts, and its
// maximum, found by a fine coordinate search, must match the refit's
// estimates.
func TestRefitMatchesBruteForce(t *testing.T) {
	m := diamondIsing(4, 0.3) // spins 0 and 3 both joined to 1 and 2
	s := exactDraws(t, m, 3000, 11)
	d, _, _, ok := selection.RefitSpins(context.Background(), s.stages(), 0, []int{1, 2})
	if !ok {
		t.Fatal("refit failed")
	}
	// Cell counts of (x0, x1, x2).
	var cnt [2][2][2]float64
	for r := 0; r < s.Len(); r++ {
		cnt[s.At(r, 0)][s.At(r, 1)][s.At(r, 2)] += s.Weight(r)
	}
	nll := func(w [3]float64) float64 {
		l := 0.0
		for a := 0; a < 2; a++ {
			for b := 0; b < 2; b++ {
				for c := 0; c < 2; c++ {
					u := w[0] + w[1]*float64(2*b-1) + w[2]*float64(2*c-1)
					l += cnt[a][b][c] * solve.Softplus(-float64(2*a-1)*u)
				}
			}
		}
		return l
	}
	// Coordinate descent by golden-section search: independent of Newton.
	var w [3]float64
	for sweep := 0; sweep < 200; sweep++ {
		for c := range w {
			lo, hi := w[c]-2, w[c]+2
			for it := 0; it < 100; it++ {
				m1, m2 := lo+(hi-lo)*0.382, lo+(hi-lo)*0.618
				a, b := w, w
				a[c], b[c] = m1, m2
				if nll(a) < nll(b) {
					hi = m2
				} else {
					lo = m1
				}
			}
			w[c] = (lo + hi) / 2
		}
	}
	for c, j := range []int{1, 2} {
		if got, want := d[4*j], w[c+1]/2; math.Abs(got-want) > 1e-6 {
			t.Errorf("Â_0%d = %.9g, brute force %.9g", j, got, want)
		}
	}
}

// TestRefitPower checks that the refit stage adds power where the edges
// are weak: on the 7x7 grid with couplings ±U[0.2, 0.5] at N = 1000, the
// study's first 20 seeds give 12 exact recoveries with the refit and 6
// without (docs/tuning). Here 20 seeds of this package's own draws: the
// refit must recover at least 4 more graphs than the first stage alone and
// hold no more runs with a false edge plus one. Both learners see the same
// samples, so the margin is that of the discordant runs; the bound, 4, was
// set before the run from the study's margin of 6 in 20 (this run: 9
// against 2), and a refit that added nothing fails it.
func TestRefitPower(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("40 learns of a 49-node model")
	}
	m := gridIsing(7, 7, rand.New(rand.NewPCG(1, 7)), 0.2, 0.5)
	truth := map[[2]int]bool{}
	for _, e := range m.Edges() {
		truth[[2]int{e.I, e.J}] = true
	}
	var with, without, fpWith, fpWithout int
	for seed := uint64(0); seed < 20; seed++ {
		s := exactDraws(t, m, 1000, 40+seed)
		for _, on := range []bool{true, false} {
			res, err := Learn(s, WithRefit(on))
			if err != nil {
				t.Fatal(err)
			}
			fp, fn := 0, 0
			for _, e := range res.Edges {
				if !truth[[2]int{e.I, e.J}] {
					fp++
				}
			}
			fn = len(truth) - (len(res.Edges) - fp)
			if on {
				if fp+fn == 0 {
					with++
				}
				if fp > 0 {
					fpWith++
				}
				if !res.Tuning.Refit {
					t.Fatal("Tuning.Refit is false with WithRefit(true)")
				}
			} else {
				if fp+fn == 0 {
					without++
				}
				if fp > 0 {
					fpWithout++
				}
			}
		}
	}
	t.Logf("exact: refit %d, first stage %d of 20; runs with a false edge %d, %d", with, without, fpWith, fpWithout)
	if with < without+4 || fpWith > fpWithout+1 {
		t.Errorf("refit exact in %d of 20 (false edges in %d), first stage alone %d (%d): want ≥ 4 more and no more than one more run with a false edge", with, fpWith, without, fpWithout)
	}
}

// TestRefitRowsAndPatterns checks that reading the rows directly (the way
// of more than selection.MaxRefitTable screened spins) and gathering the distinct
// patterns give the same refit, on a weighted sample with repeated rows.
func TestRefitRowsAndPatterns(t *testing.T) {
	m := gridIsing(3, 3, rand.New(rand.NewPCG(3, 4)), 0.2, 0.5)
	s := exactDraws(t, m, 4000, 21)
	for _, nb := range [][]int{{1, 3}, {1, 2, 3, 4, 5, 6, 7, 8}} {
		dp, sp, _, okp := selection.RefitSpinsFrom(context.Background(), s.stages(), 0, nb, selection.MaxRefitTable, nil)
		dr, sr, _, okr := selection.RefitSpinsFrom(context.Background(), s.stages(), 0, nb, 0, nil)
		if !okp || !okr {
			t.Fatalf("nb %v: refit failed (patterns %v, rows %v)", nb, okp, okr)
		}
		for x := range dp {
			if math.Abs(dp[x]-dr[x]) > 1e-10 || math.Abs(sp[x]-sr[x]) > 1e-10 {
				t.Errorf("nb %v, entry %d: patterns %.12g ± %.12g, rows %.12g ± %.12g", nb, x, dp[x], sp[x], dr[x], sr[x])
			}
		}
	}
}

// TestRefitCancel checks that the refit stage, which runs after every
// node's fit, honours cancellation: cancelled as the last node reports
// progress, Learn must return context.Canceled rather than a result, and
// selection.RefitAll itself must stop on a done context.
func TestRefitCancel(t *testing.T) {
	m := gridIsing(3, 3, rand.New(rand.NewPCG(5, 6)), 0.2, 0.5)
	s := exactDraws(t, m, 2000, 3)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := LearnContext(ctx, s, WithProgress(func(done, total int) {
		if done == m.Vars() { // the last node; the edge test's units follow
			cancel()
		}
	}))
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Errorf("cancelled at the last node: result %v, error %v; want no result and context.Canceled", res != nil, err)
	}
	scores := make([]float64, 81)
	for x := range scores {
		scores[x] = 5 // every pair screened
	}
	if _, _, _, _, err := selection.RefitAll(ctx, s.stages(), scores, 1.5, 2, nil, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("refitAll on a done context: error %v, want context.Canceled", err)
	}
}

// TestSpinImputer checks the expected value of a missing spin against the
// formula written out: node j = 1's fit with θ̂ = 0.3, Â_10 = 0.5,
// Â_12 = −0.25 and Â_13 = 0 (not in its support), in node i = 0's refit,
// where z_0 is left out and a missing z_2 counts 0.
func TestSpinImputer(t *testing.T) {
	est := [][]float64{make([]float64, 16), make([]float64, 16), make([]float64, 16), nil}
	setA := func(j, k int, a float64) { est[j][4*k], est[j][4*k+1], est[j][4*k+2], est[j][4*k+3] = a, -a, -a, a }
	setA(1, 0, 0.5)
	setA(1, 2, -0.25)
	fields := []float64{0, 0, -0.3, 0.3, 0, 0, 0, 0}
	sparse := make([]*estimates.Node, len(est))
	for j, e := range est {
		if e != nil {
			sparse[j] = estimates.Sparse(2, e, estimates.IsingFill)
		}
	}
	im := selection.NewSpinImputer(4, sparse, fields)
	for _, c := range []struct {
		row  []uint8
		i    int
		want float64
	}{
		{[]uint8{1, 2, 1, 0}, 0, math.Tanh(0.3 - 0.25)},       // z_0 left out, z_2 = +1
		{[]uint8{0, 2, 0, 1}, 0, math.Tanh(0.3 + 0.25)},       // z_2 = −1
		{[]uint8{1, 2, 2, 1}, 0, math.Tanh(0.3)},              // z_2 missing: 0
		{[]uint8{1, 2, 1, 1}, 3, math.Tanh(0.3 + 0.5 - 0.25)}, // node 3's refit: z_0 counts
	} {
		if got := im.Value(c.row, c.i, 1); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("row %v, node %d: x̂_1 = %v, want %v", c.row, c.i, got, c.want)
		}
	}
}
