package pairwise

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// samplerTestModel is a named model for the sampler tests and benchmarks.
type samplerTestModel struct {
	name string
	m    *Model
}

// smallSamplerModels are models small enough to enumerate (at most 3^9 =
// 19683 states), covering k = 2 and k > 2, fields, non-centred couplings,
// several components and n = 1.
func smallSamplerModels() []samplerTestModel {
	r := func(s uint64) *rand.Rand { return rand.New(rand.NewPCG(s, 1)) }
	disconnected := randomCouplingModel(7, 3, [][2]int{{0, 1}, {1, 2}, {0, 2}, {3, 4}, {4, 5}}, r(5), 1, 0.5)
	single, _ := NewModel(1, 3)
	_ = single.SetField(0, []float64{0.3, -1.2, 0.5})
	chain := randomCouplingModel(8, 2, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}}, r(9), 1.5, 1)
	// A "broken wheel": a 6-cycle and a hub on every other node, so the
	// elimination has fill edges and messages over two variables.
	wheel := randomCouplingModel(7, 2, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {0, 5}, {0, 6}, {2, 6}, {4, 6}}, r(10), 1, 0.3)
	return []samplerTestModel{
		{"grid3x3/k=2/random", randomCouplingModel(9, 2, gridEdges(3, 3), r(1), 1, 0)},
		{"grid3x3/k=3/random", randomCouplingModel(9, 3, gridEdges(3, 3), r(2), 1, 0)},
		{"grid3x3/k=2/ising", gridIsing(3, 3, r(3), 0.2, 0.5)},
		{"grid3x3/k=2/fields", randomCouplingModel(9, 2, gridEdges(3, 3), r(4), 0.8, 1.5)},
		{"grid2x3/k=4/potts", gridPotts(2, 3, 4, 0.4, r(6))},
		{"grid2x3/k=3/clock", gridPotts(2, 3, 3, 0.6, r(7))},
		{"noncentred/k=4", randomCouplingModel(6, 4, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {1, 4}, {4, 5}, {5, 2}}, r(8), 2, 1)},
		{"disconnected/k=3", disconnected},
		{"n=1/k=3", single},
		{"complete5/k=3", randomCouplingModel(5, 3, completeEdges(5), r(11), 1, 0.5)},
		{"chain8/k=2", chain},
		{"wheel7/k=2", wheel},
		{"diamond8", diamondIsing(8, 0.4)},
		{"pair/k=20", randomCouplingModel(2, 20, [][2]int{{0, 1}}, r(12), 2, 1)},
	}
}

// TestEnumerate checks the brute-force reference itself on a two-variable
// model whose probabilities are known in closed form.
func TestEnumerate(t *testing.T) {
	m, _ := NewModel(2, 2)
	_ = m.SetCoupling(0, 1, mat.NewDense(2, 2, []float64{0, 0, 0, 1}))
	_ = m.SetField(0, []float64{0, math.Log(2)})
	states, probs, logZ := enumerateLogZ(m)
	// Weights: z = 00: 1, 01: 1, 10: 2, 11: 2e; Z = 4 + 2e.
	wantStates := [][]int{{0, 0}, {0, 1}, {1, 0}, {1, 1}}
	z := 4 + 2*math.E
	wantProbs := []float64{1 / z, 1 / z, 2 / z, 2 * math.E / z}
	for t2 := range wantStates {
		if !slices.Equal(states[t2], wantStates[t2]) {
			t.Fatalf("state %d = %v, want %v", t2, states[t2], wantStates[t2])
		}
		// 1e-15: a few roundings of numbers below 1.
		if math.Abs(probs[t2]-wantProbs[t2]) > 1e-15 {
			t.Errorf("P(%v) = %v, want %v", states[t2], probs[t2], wantProbs[t2])
		}
	}
	if math.Abs(logZ-math.Log(z)) > 1e-14 {
		t.Errorf("log Z = %v, want %v", logZ, math.Log(z))
	}
}

// TestExactSamplerMatchesEnumeration checks variable elimination against
// brute force: log Z, and the probability of every state computed from the
// conditional tables by the chain rule.
func TestExactSamplerMatchesEnumeration(t *testing.T) {
	for _, tc := range smallSamplerModels() {
		t.Run(tc.name, func(t *testing.T) {
			states, probs, logZ := enumerateLogZ(tc.m)
			e, err := NewExactSampler(tc.m)
			if err != nil {
				t.Fatal(err)
			}
			// 1e-10: both sides add a few dozen terms of size at most ~30
			// in log space; rounding is ~1e-14.
			if d := math.Abs(e.logZ - logZ); d > 1e-10*math.Max(1, math.Abs(logZ)) {
				t.Errorf("log Z = %.15g, brute force %.15g (diff %.3g)", e.logZ, logZ, d)
			}
			// 1e-12 in probability: a table entry is a difference of two
			// cumulative sums below 1, exact to ~1e-16 each, and a
			// probability is a product of at most 9 of them.
			worst := 0.0
			for s, z := range states {
				p := math.Exp(e.logProb(z))
				worst = math.Max(worst, math.Abs(p-probs[s]))
				if math.Abs(p-probs[s]) > 1e-12 {
					t.Fatalf("P(%v) = %.15g from the tables, brute force %.15g", z, p, probs[s])
				}
			}
			t.Logf("%d states, elimination width %d, max |ΔP| = %.2g", len(states), e.width(), worst)
		})
	}
}

// gridLogZ returns log Z of a model on a rows×cols grid (node r*cols + c,
// couplings only between grid neighbours) by a transfer computation over
// the frontier of the last cols sites in row-major order: an algorithm
// independent of the sampler's elimination, costing n·k^(cols+1).
func gridLogZ(m *Model, rows, cols int) float64 {
	k := m.Alphabet()
	size := 1
	pow := make([]int, cols) // digit d of a frontier index has weight pow[d]
	for d := range pow {
		pow[d] = size
		size *= k
	}
	f := make([]float64, size)
	for s := range f {
		f[s] = math.Inf(-1)
	}
	f[0] = 0 // before any site, the frontier holds dummy zeros
	next := make([]float64, size)
	terms := make([]float64, k)
	for p := 0; p < rows*cols; p++ {
		r, c := p/cols, p%cols
		d := c // site p replaces site p-cols in digit p mod cols
		theta := m.Field(p)
		var left, up *mat.Dense
		if c > 0 {
			left = m.Coupling(p-1, p)
		}
		if r > 0 {
			up = m.Coupling(p-cols, p)
		}
		for s := range next {
			x := s / pow[d] % k // the value of site p
			base := s - x*pow[d]
			w := theta[x]
			if left != nil {
				w += left.At(s/pow[(c-1)]%k, x)
			}
			mx := math.Inf(-1)
			for y := 0; y < k; y++ { // the value of site p-cols, summed out
				terms[y] = f[base+y*pow[d]]
				if up != nil {
					terms[y] += up.At(y, x)
				}
				mx = math.Max(mx, terms[y])
			}
			if math.IsInf(mx, -1) {
				next[s] = mx
				continue
			}
			sum := 0.0
			for _, v := range terms {
				sum += math.Exp(v - mx)
			}
			next[s] = w + mx + math.Log(sum)
		}
		f, next = next, f
	}
	mx := math.Inf(-1)
	for _, v := range f {
		mx = math.Max(mx, v)
	}
	sum := 0.0
	for _, v := range f {
		sum += math.Exp(v - mx)
	}
	return mx + math.Log(sum)
}

// TestExactSamplerLarge checks that the exact sampler handles the models the
// brief names, beyond enumeration, and that its log Z agrees with an
// independent computation.
func TestExactSamplerLarge(t *testing.T) {
	diamondLogZ := func(n int, a float64) float64 {
		// Z = Σ_{z_0, z_{n-1}} Π_j 2cosh(a(z_0 + z_{n-1}))
		//   = 2(2cosh 2a)^{n-2} + 2·2^{n-2}.
		x := math.Log(2) + float64(n-2)*math.Log(2*math.Cosh(2*a))
		y := float64(n-1) * math.Log(2)
		return math.Max(x, y) + math.Log1p(math.Exp(-math.Abs(x-y)))
	}
	r := func(s uint64) *rand.Rand { return rand.New(rand.NewPCG(s, 2)) }
	star, _ := NewModel(2000, 2)
	for j := 1; j < 2000; j++ {
		_ = star.SetCoupling(0, j, mat.NewDense(2, 2, []float64{0.3, -0.3, -0.3, 0.3}))
	}
	cases := []struct {
		name string
		m    *Model
		logZ float64 // NaN: no independent value
	}{
		{"grid3x3/k=6/checkerboard", gridPotts(3, 3, 6, 0.2, r(1)), math.NaN()},
		{"grid3x3/k=5/clock", gridPotts(3, 3, 5, 0.5, r(2)), math.NaN()},
		{"grid10x10/k=2", gridIsing(10, 10, r(3), 0.2, 0.5), math.NaN()},
		{"grid6x9/k=3", randomCouplingModel(54, 3, gridEdges(6, 9), r(4), 1, 0.5), math.NaN()},
		{"diamond/n=50", diamondIsing(50, 0.2), diamondLogZ(50, 0.2)},
		{"diamond/n=1000", diamondIsing(1000, 0.2), diamondLogZ(1000, 0.2)},
		// log Z of a star with zero fields: Σ_{z_0} Π_j 2cosh(0.3) = 2(2cosh 0.3)^1999.
		{"star/n=2000", star, math.Log(2) + 1999*math.Log(2*math.Cosh(0.3))},
	}
	grids := map[string][2]int{
		"grid3x3/k=6/checkerboard": {3, 3}, "grid3x3/k=5/clock": {3, 3},
		"grid10x10/k=2": {10, 10}, "grid6x9/k=3": {6, 9},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			e, err := NewExactSampler(tc.m)
			if err != nil {
				t.Fatal(err)
			}
			build := time.Since(start)
			want := tc.logZ
			if g, ok := grids[tc.name]; ok {
				want = gridLogZ(tc.m, g[0], g[1])
			}
			// 1e-10 relative: the two computations sum the same terms in
			// different orders; log Z is at most a few hundred.
			if d := math.Abs(e.logZ - want); d > 1e-10*math.Max(1, math.Abs(want)) {
				t.Errorf("log Z = %.15g, independent value %.15g (diff %.3g)", e.logZ, want, d)
			}
			s, err := e.Sample(rand.NewPCG(1, 2), 1000)
			if err != nil {
				t.Fatal(err)
			}
			if s.Len() != 1000 || s.Vars() != tc.m.Vars() || s.Alphabet() != tc.m.Alphabet() {
				t.Fatalf("samples %d×%d over k = %d, want 1000×%d over k = %d",
					s.Len(), s.Vars(), s.Alphabet(), tc.m.Vars(), tc.m.Alphabet())
			}
			t.Logf("n = %d, k = %d: width %d, %d table entries, built in %v",
				tc.m.Vars(), tc.m.Alphabet(), e.width(), len(e.cdf), build)
		})
	}
}

// TestExactSamplerRefuses checks that models too wide for exact sampling are
// refused quickly, before any large allocation, with an error that names the
// model size and the table size.
func TestExactSamplerRefuses(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	cases := []struct {
		name string
		m    *Model
		want []string
	}{
		{"grid30x30/k=2", gridIsing(30, 30, r, 0.2, 0.5), []string{"n = 900", "k = 2", "2^", "MaxExactTotal"}},
		{"complete40/k=2", randomCouplingModel(40, 2, completeEdges(40), r, 1, 0), []string{"n = 40", "2^40", "MaxExactTable"}},
		{"grid8x8/k=12", gridPotts(8, 8, 12, 0.2, r), []string{"n = 64", "k = 12", "12^"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			e, err := NewExactSampler(tc.m)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Fatalf("NewExactSampler succeeded with width %d; want an error", e.width())
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			// 16 MiB: the symbolic phase needs a few adjacency lists; one
			// refused table would be at least 128 MiB.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
				t.Errorf("allocated %d bytes before refusing", alloc)
			}
			// 5 s: generous for -race on a slow machine; it takes milliseconds.
			if elapsed > 5*time.Second {
				t.Errorf("took %v to refuse", elapsed)
			}
			t.Logf("refused in %v: %v", elapsed, err)
		})
	}
}

// chiSquare returns Pearson's statistic of the counts against n·probs and
// its degrees of freedom. Cells expected fewer than 5 times are pooled into
// one cell so that the chi-square approximation holds.
func chiSquare(counts []int, probs []float64, n int) (stat float64, df int) {
	var poolO, poolE float64
	cells := 0
	for s, p := range probs {
		e := p * float64(n)
		o := float64(counts[s])
		if e < 5 {
			poolO += o
			poolE += e
			continue
		}
		stat += (o - e) * (o - e) / e
		cells++
	}
	if poolE > 0 {
		stat += (poolO - poolE) * (poolO - poolE) / poolE
		cells++
	}
	return stat, cells - 1
}

// stateIndex returns the enumerate index of row m of s.
func stateIndex(s *Samples, m int) int {
	t := 0
	for i := 0; i < s.Vars(); i++ {
		t = t*s.Alphabet() + s.At(m, i)
	}
	return t
}

// TestExactSamplerDistribution compares the empirical distribution of exact
// samples with the enumerated probabilities by chi-square tests, each at
// level alpha: a correct sampler fails with probability at most alpha for a
// random seed (the seeds are fixed, so the outcome is reproducible).
func TestExactSamplerDistribution(t *testing.T) {
	skipUnderRace(t)
	const alpha = 1e-6
	n := 200000
	if testing.Short() {
		n = 50000
	}
	r := func(s uint64) *rand.Rand { return rand.New(rand.NewPCG(s, 4)) }
	t.Run("grid3x3/k=2/states", func(t *testing.T) {
		m := gridIsing(3, 3, r(1), 0.2, 0.5)
		counts, limit := checkStates(t, m, n, 11, alpha)
		// Power: the same samples must reject a model with one coupling
		// changed by 0.1, a smaller error than any plausible bug.
		a, _, _ := m.Ising()
		a.SetSym(0, 1, a.At(0, 1)+0.1)
		wrong, _ := NewIsing(a, nil)
		_, wrongProbs := enumerate(wrong)
		if stat, _ := chiSquare(counts, wrongProbs, n); stat <= limit {
			t.Errorf("chi-square %.1f against a perturbed model does not exceed %.1f: the test has no power", stat, limit)
		}
	})
	t.Run("grid3x3/k=2/fields/states", func(t *testing.T) {
		checkStates(t, randomCouplingModel(9, 2, gridEdges(3, 3), r(2), 0.8, 1.5), n, 12, alpha)
	})
	t.Run("pair/k=20/states", func(t *testing.T) {
		// k > 16 takes the binary search of searchCDF.
		checkStates(t, randomCouplingModel(2, 20, [][2]int{{0, 1}}, r(3), 2, 1), n, 13, alpha)
	})
	t.Run("grid3x3/k=3/pairs", func(t *testing.T) {
		// 19683 states are too many cells for 200k samples, so test every
		// pair marginal (k² = 9 cells, 8 df); alpha is split over the 36
		// pairs (Bonferroni).
		m := randomCouplingModel(9, 3, gridEdges(3, 3), r(4), 1, 0.5)
		states, probs := enumerate(m)
		e, err := NewExactSampler(m)
		if err != nil {
			t.Fatal(err)
		}
		s, err := e.Sample(rand.NewPCG(14, 4), n)
		if err != nil {
			t.Fatal(err)
		}
		k, vars := 3, 9
		limit := distuv.ChiSquared{K: float64(k*k - 1)}.Quantile(1 - alpha/36)
		worst := 0.0
		for i := 0; i < vars; i++ {
			for j := i + 1; j < vars; j++ {
				want := make([]float64, k*k)
				for st, z := range states {
					want[z[i]*k+z[j]] += probs[st]
				}
				counts := make([]int, k*k)
				for row := 0; row < n; row++ {
					counts[s.At(row, i)*k+s.At(row, j)]++
				}
				stat, df := chiSquare(counts, want, n)
				worst = math.Max(worst, stat)
				if df != k*k-1 {
					t.Fatalf("pair (%d, %d): %d df, want %d (a pooled cell)", i, j, df, k*k-1)
				}
				if stat > limit {
					t.Errorf("pair (%d, %d): chi-square %.1f on %d df exceeds %.1f", i, j, stat, df, limit)
				}
			}
		}
		t.Logf("largest pair chi-square %.1f (limit %.1f)", worst, limit)
	})
}

// checkStates tests the state counts of n exact samples of m (drawn with
// seed) against the enumerated probabilities by a chi-square test at level
// alpha, and returns the counts and the test's limit.
func checkStates(t *testing.T, m *Model, n int, seed uint64, alpha float64) (counts []int, limit float64) {
	t.Helper()
	_, probs := enumerate(m)
	counts = sampleCounts(t, m, n, seed)
	stat, df := chiSquare(counts, probs, n)
	limit = distuv.ChiSquared{K: float64(df)}.Quantile(1 - alpha)
	t.Logf("chi-square %.1f on %d df (limit %.1f)", stat, df, limit)
	if stat > limit {
		t.Errorf("chi-square %.1f on %d df exceeds %.1f", stat, df, limit)
	}
	return counts, limit
}

// sampleCounts draws n exact samples of m and counts them by state index.
func sampleCounts(t *testing.T, m *Model, n int, seed uint64) []int {
	t.Helper()
	e, err := NewExactSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.Sample(rand.NewPCG(seed, 5), n)
	if err != nil {
		t.Fatal(err)
	}
	total := 1
	for i := 0; i < m.Vars(); i++ {
		total *= m.Alphabet()
	}
	counts := make([]int, total)
	for row := 0; row < n; row++ {
		counts[stateIndex(s, row)]++
	}
	return counts
}

// TestExactSamplerDeterministic checks that the samples are a function of
// the source state.
func TestExactSamplerDeterministic(t *testing.T) {
	m := gridPotts(3, 3, 4, 0.3, rand.New(rand.NewPCG(6, 6)))
	e, err := NewExactSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := e.Sample(rand.NewPCG(1, 2), 500)
	b, _ := e.Sample(rand.NewPCG(1, 2), 500)
	c, _ := e.Sample(rand.NewPCG(1, 3), 500)
	if !slices.EqualFunc(a.Rows(), b.Rows(), slices.Equal) {
		t.Error("two sources with the same seeds gave different samples")
	}
	if slices.EqualFunc(a.Rows(), c.Rows(), slices.Equal) {
		t.Error("two sources with different seeds gave the same samples")
	}
}

// exactMarginals returns the single-variable marginals P(z_i = a) (index
// i*k+a) and the pair marginals P(z_i = a, z_j = b) of the edges of m
// (index x*k*k + a*k + b for edge x of m.Edges()), by enumeration.
func exactMarginals(m *Model) (single, pair []float64) {
	states, probs := enumerate(m)
	k, edges := m.Alphabet(), m.Edges()
	single = make([]float64, m.Vars()*k)
	pair = make([]float64, len(edges)*k*k)
	for s, z := range states {
		for i, a := range z {
			single[i*k+a] += probs[s]
		}
		for x, e := range edges {
			pair[x*k*k+z[e.I]*k+z[e.J]] += probs[s]
		}
	}
	return single, pair
}

// TestGibbsSamplerMarginals compares the single-variable marginals and the
// pair marginals of every edge estimated by Gibbs sampling with the exact
// ones.
//
// The tolerance comes from the effective sample size. With C independent
// chains, the spread of the C per-chain estimates gives the standard error
// of the overall estimate whatever the autocorrelation within a chain (batch
// means); the test requires each error to be within 5 such standard errors
// (or 5 i.i.d. standard errors sqrt(p(1-p)/N), whichever is larger). With
// the standard error estimated from C = 40 chains the error ratio is Student
// t with 39 df, so a correct sampler exceeds 5 with probability 1.3e-5 per
// quantity, 2e-3 for the ~400 quantities here (over 20 other seeds the
// largest ratio seen was 3.6). It also checks that mixing is as good as the
// thinning is meant to make it: the estimated autocorrelation time
// τ = (batch SE / i.i.d. SE)², N/τ the effective sample size, must stay below
// 4 (for these models the estimates are 1 to 2, the spread of a variance
// estimated from 40 chains: kept samples 10 sweeps apart are nearly
// independent). A bug in the conditionals shows up as errors of 100 standard
// errors or more (checked by mutating the code while writing the test).
func TestGibbsSamplerMarginals(t *testing.T) {
	const chains = 40
	perChain := 1000
	if testing.Short() {
		perChain = 400
	}
	n := chains * perChain
	r := func(s uint64) *rand.Rand { return rand.New(rand.NewPCG(s, 7)) }
	cases := []samplerTestModel{
		{"grid3x3/k=2/ising", gridIsing(3, 3, r(1), 0.2, 0.5)},
		{"grid3x3/k=2/fields", randomCouplingModel(9, 2, gridEdges(3, 3), r(2), 0.8, 1)},
		{"grid3x3/k=3/random", randomCouplingModel(9, 3, gridEdges(3, 3), r(3), 1, 0.5)},
		{"grid2x3/k=4/potts", gridPotts(2, 3, 4, 0.4, r(4))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.m
			k, edges := m.Alphabet(), m.Edges()
			single, pair := exactMarginals(m)
			g, err := NewGibbsSampler(m, GibbsChains(chains), GibbsBurnIn(200), GibbsThin(10))
			if err != nil {
				t.Fatal(err)
			}
			s, err := g.Sample(rand.NewPCG(21, 7), n)
			if err != nil {
				t.Fatal(err)
			}
			// Per-chain indicator means; row m is from chain m mod C.
			nq := len(single) + len(pair)
			sums := make([]float64, chains*nq)
			for row := 0; row < n; row++ {
				q := sums[(row%chains)*nq : (row%chains+1)*nq]
				for i := 0; i < m.Vars(); i++ {
					q[i*k+s.At(row, i)]++
				}
				for x, e := range edges {
					q[len(single)+x*k*k+s.At(row, e.I)*k+s.At(row, e.J)]++
				}
			}
			want := append(append([]float64(nil), single...), pair...)
			worst, worstTau := 0.0, 0.0
			for q, p := range want {
				mean, sq := 0.0, 0.0
				for c := 0; c < chains; c++ {
					v := sums[c*nq+q] / float64(perChain)
					mean += v
					sq += v * v
				}
				mean /= chains
				batchVar := (sq/chains - mean*mean) * chains / (chains - 1) // of one chain's mean
				seBatch := math.Sqrt(batchVar / chains)
				seIID := math.Sqrt(p * (1 - p) / float64(n))
				tau := seBatch * seBatch / (seIID * seIID)
				worstTau = math.Max(worstTau, tau)
				if tau > 4 {
					t.Errorf("quantity %d (p = %.4f): autocorrelation time %.2f, want below 4", q, p, tau)
				}
				z := math.Abs(mean-p) / math.Max(seBatch, seIID)
				worst = math.Max(worst, z)
				if z > 5 {
					t.Errorf("quantity %d: Gibbs %.5f, exact %.5f: %.1f standard errors", q, mean, p, z)
				}
			}
			t.Logf("%d quantities: largest error %.2f standard errors, largest τ %.2f", nq, worst, worstTau)
		})
	}
}

// TestGibbsSamplerDeterministic checks that the samples depend on the
// source and the options only: not on the number of workers, and that row m
// is chain m mod C's (m div C)-th sample.
func TestGibbsSamplerDeterministic(t *testing.T) {
	r := func(s uint64) *rand.Rand { return rand.New(rand.NewPCG(s, 8)) }
	for _, tc := range []samplerTestModel{
		{"grid4x4/k=2", gridIsing(4, 4, r(1), 0.2, 0.5)},
		{"grid3x3/k=3", randomCouplingModel(9, 3, gridEdges(3, 3), r(2), 1, 0.5)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sample := func(count int, seed uint64, opts ...GibbsOption) [][]int {
				t.Helper()
				opts = append([]GibbsOption{GibbsBurnIn(20), GibbsThin(2)}, opts...)
				g, err := NewGibbsSampler(tc.m, opts...)
				if err != nil {
					t.Fatal(err)
				}
				s, err := g.Sample(rand.NewPCG(seed, 1), count)
				if err != nil {
					t.Fatal(err)
				}
				if s.Len() != count {
					t.Fatalf("%d rows, want %d", s.Len(), count)
				}
				return s.Rows()
			}
			one := sample(103, 1, GibbsWorkers(1))
			four := sample(103, 1, GibbsWorkers(4))
			def := sample(103, 1)
			if !slices.EqualFunc(one, four, slices.Equal) || !slices.EqualFunc(one, def, slices.Equal) {
				t.Error("the samples depend on the number of workers")
			}
			if again := sample(103, 1, GibbsWorkers(4)); !slices.EqualFunc(four, again, slices.Equal) {
				t.Error("two sources with the same seeds gave different samples")
			}
			if other := sample(103, 2); slices.EqualFunc(one, other, slices.Equal) {
				t.Error("two sources with different seeds gave the same samples")
			}
			// With 4 chains, the first 4 rows are every chain's first kept
			// sample whatever the count; count = 2 runs only 2 chains.
			short := sample(4, 1)
			if !slices.EqualFunc(short, one[:4], slices.Equal) {
				t.Error("rows 0..3 change with count: rows are not interleaved by chain")
			}
			if two := sample(2, 1); !slices.EqualFunc(two, one[:2], slices.Equal) {
				t.Error("count < chains changes the first rows")
			}
			// Chain c's second sample is row c + C.
			if eight := sample(8, 1, GibbsChains(4)); !slices.EqualFunc(eight, one[:8], slices.Equal) {
				t.Error("rows 4..7 are not the chains' second samples")
			}
		})
	}
}

// TestSamplerErrors checks the errors for bad arguments and options.
func TestSamplerErrors(t *testing.T) {
	m := gridIsing(2, 2, rand.New(rand.NewPCG(1, 1)), 0.2, 0.5)
	if _, err := NewExactSampler(nil); err == nil {
		t.Error("NewExactSampler(nil): no error")
	}
	if _, err := NewGibbsSampler(nil); err == nil {
		t.Error("NewGibbsSampler(nil): no error")
	}
	e, err := NewExactSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGibbsSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Sampler{e, g} {
		for _, count := range []int{0, -1} {
			if _, err := s.Sample(rand.NewPCG(1, 1), count); err == nil || !strings.Contains(err.Error(), "count") {
				t.Errorf("%T.Sample(count = %d): error %v, want one about count", s, count, err)
			}
		}
		if _, err := s.Sample(nil, 10); err == nil || !strings.Contains(err.Error(), "nil random source") {
			t.Errorf("%T.Sample(nil src): error %v, want one about the source", s, err)
		}
	}
	for _, tc := range []struct {
		opt  GibbsOption
		want string
	}{
		{GibbsBurnIn(-1), "GibbsBurnIn(-1)"},
		{GibbsThin(0), "GibbsThin(0)"},
		{GibbsChains(0), "GibbsChains(0)"},
		{GibbsWorkers(0), "GibbsWorkers(0)"},
		{nil, "option 0 is nil"},
	} {
		_, err := NewGibbsSampler(m, tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "pairwise: ") {
			t.Errorf("NewGibbsSampler(%s): error %v, want one naming it", tc.want, err)
		}
	}
	// Valid edge values are accepted.
	if _, err := NewGibbsSampler(m, GibbsBurnIn(0), GibbsThin(1), GibbsChains(1), GibbsWorkers(1)); err != nil {
		t.Errorf("minimal options: %v", err)
	}
}

// TestGibbsSamplerTablesMatchDirect checks the precomputed conditionals of
// the Gibbs sampler against the direct computation it replaces: with the
// tables switched off, the same source must give the same samples bit for
// bit. The models mix variables with and without tables (the hubs of the
// diamond and the complete graph exceed gibbsSiteTable).
func TestGibbsSamplerTablesMatchDirect(t *testing.T) {
	r := func(s uint64) *rand.Rand { return rand.New(rand.NewPCG(s, 9)) }
	for _, tc := range []samplerTestModel{
		{"grid4x4/k=2/fields", randomCouplingModel(16, 2, gridEdges(4, 4), r(1), 1, 1)},
		{"diamond/n=20", diamondIsing(20, 0.15)},
		{"grid3x3/k=3", randomCouplingModel(9, 3, gridEdges(3, 3), r(2), 1, 0.5)},
		{"complete8/k=3", randomCouplingModel(8, 3, completeEdges(8), r(3), 0.3, 0.5)},
		{"n=1/k=3", randomCouplingModel(1, 3, nil, r(4), 0, 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := NewGibbsSampler(tc.m, GibbsBurnIn(10), GibbsThin(3))
			if err != nil {
				t.Fatal(err)
			}
			with, without := 0, 0
			direct := *g
			direct.tabOff = make([]int, len(g.tabOff))
			for i, off := range g.tabOff {
				direct.tabOff[i] = -1
				if off >= 0 {
					with++
				} else {
					without++
				}
			}
			a, err := g.Sample(rand.NewPCG(5, 5), 300)
			if err != nil {
				t.Fatal(err)
			}
			b, err := direct.Sample(rand.NewPCG(5, 5), 300)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(a.Rows(), b.Rows(), slices.Equal) {
				t.Error("the tables and the direct computation give different samples")
			}
			t.Logf("%d variables with tables, %d without", with, without)
		})
	}
}
