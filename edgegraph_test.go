package pairwise

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/mrfkit/pairwise/internal/selection"
	"gonum.org/v1/gonum/mat"
)

// TestHyperChiMoments checks the closed-form mean and variance of Pearson's
// chi-square of a 2×2 table under the hypergeometric law against the law
// itself, enumerated: P(X = x) = C(r, x)·C(N − r, c − x)/C(N, c) for the
// count x of the (1, 1) cell, and N·r² = N(N·x − r·c)²/(r(N − r)c(N − c)).
func TestHyperChiMoments(t *testing.T) {
	for _, c := range []struct{ total, r, c int }{{4, 2, 2}, {20, 10, 10}, {20, 5, 12}, {37, 3, 30}, {100, 20, 50}, {250, 120, 7}} {
		nn, r, cc := float64(c.total), float64(c.r), float64(c.c)
		lchoose := func(a, b int) float64 {
			x, _ := math.Lgamma(float64(a + 1))
			y, _ := math.Lgamma(float64(b + 1))
			z, _ := math.Lgamma(float64(a - b + 1))
			return x - y - z
		}
		var m1, m2 float64
		for x := max(0, c.c-(c.total-c.r)); x <= min(c.r, c.c); x++ {
			p := math.Exp(lchoose(c.r, x) + lchoose(c.total-c.r, c.c-x) - lchoose(c.total, c.c))
			d := nn*float64(x) - r*cc
			chi := nn * d * d / (r * (nn - r) * cc * (nn - cc))
			m1 += p * chi
			m2 += p * chi * chi
		}
		wantVar := m2 - m1*m1
		mean, variance := selection.HyperChiMoments(nn, r, cc)
		if math.Abs(mean-m1) > 1e-9*m1 || math.Abs(variance-wantVar) > 1e-8*math.Max(wantVar, 1) {
			t.Errorf("N = %d, r = %d, c = %d: mean %.12g, variance %.12g; enumerated %.12g, %.12g", c.total, c.r, c.c, mean, variance, m1, wantVar)
		}
	}
}

// TestIndependenceStat checks the global test's statistic against the
// pairs' tables counted directly, and its mean and variance against the
// permutation law they claim to describe: every column shuffled on its own
// (which keeps the margins and makes the columns independent), 4000 times.
// The sample mean and variance of T over the shuffles must match the
// closed forms within 4 and 8 Monte Carlo standard errors; a missing
// covariance between pairs that share a variable would show as a variance
// off by far more.
func TestIndependenceStat(t *testing.T) {
	const n, rows = 6, 60
	r := rand.New(rand.NewPCG(3, 4))
	data := make([][]int, rows)
	for m := range data {
		data[m] = make([]int, n)
		for j := range data[m] {
			if r.Float64() < 0.3+0.08*float64(j) {
				data[m][j] = 1
			}
		}
	}
	s, err := NewSamples(2, data)
	if err != nil {
		t.Fatal(err)
	}
	counts := valueWeights(s)
	stat, mean, variance, pairs := selection.IndependenceStat(s.stages(), counts, s.TotalWeight())
	// Direct: Pearson's chi-square of every pair's 2×2 table that passes
	// Cochran's rule (every expected count at least 5).
	want, wantPairs := 0.0, 0
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			var tab [2][2]float64
			for _, row := range data {
				tab[row[i]][row[j]]++
			}
			chi, ok := 0.0, true
			for a := 0; a < 2; a++ {
				for b := 0; b < 2; b++ {
					e := (tab[a][0] + tab[a][1]) * (tab[0][b] + tab[1][b]) / rows
					if e < 5 {
						ok = false
					}
					chi += (tab[a][b] - e) * (tab[a][b] - e) / e
				}
			}
			if ok {
				want += chi
				wantPairs++
			}
		}
	}
	if pairs != wantPairs || wantPairs < 10 || math.Abs(stat-want) > 1e-9*want {
		t.Fatalf("T = %g over %d pairs, want %g over %d (of 15)", stat, pairs, want, wantPairs)
	}
	const shuffles = 4000
	var s1, s2 float64
	cols := make([][]int, n)
	for j := range cols {
		cols[j] = make([]int, rows)
		for m := range data {
			cols[j][m] = data[m][j]
		}
	}
	perm := make([][]int, rows)
	for m := range perm {
		perm[m] = make([]int, n)
	}
	for range shuffles {
		for j := range cols {
			r.Shuffle(rows, func(a, b int) { cols[j][a], cols[j][b] = cols[j][b], cols[j][a] })
			for m := range perm {
				perm[m][j] = cols[j][m]
			}
		}
		ps, err := NewSamples(2, perm)
		if err != nil {
			t.Fatal(err)
		}
		v, _, _, _ := selection.IndependenceStat(ps.stages(), counts, ps.TotalWeight())
		s1 += v
		s2 += v * v
	}
	mc := s1 / shuffles
	mcVar := s2/shuffles - mc*mc
	// Standard errors: of the mean √(Var/R); of the variance about
	// Var·√(2/R) for a law near the chi-square (its kurtosis is modest
	// with every expected count at least 5).
	if math.Abs(mc-mean) > 4*math.Sqrt(variance/shuffles) {
		t.Errorf("mean of T: %g over %d shuffles, closed form %g", mc, shuffles, mean)
	}
	if math.Abs(mcVar-variance) > 8*variance*math.Sqrt(2.0/shuffles) {
		t.Errorf("variance of T: %g over %d shuffles, closed form %g", mcVar, shuffles, variance)
	}
}

// TestIndependenceLevel: on independent data the global test rejects at
// level α = 0.01 in about 1% of runs, also for skewed items and at the
// smallest N at which its pairs pass Cochran's rule. 1000 runs a cell; a
// test of level α exceeds 20 rejections with probability 0.1% (binomial),
// one of level 0.03 (a variance a third too small gives about that)
// reaches 20 with probability 98%.
func TestIndependenceLevel(t *testing.T) {
	skipUnderRace(t)
	for _, c := range []struct {
		n, N int
		p1   float64
	}{{3, 40, 0.5}, {10, 60, 0.5}, {20, 100, 0.3}, {8, 300, 0.15}} {
		r := rand.New(rand.NewPCG(uint64(c.n), uint64(c.N)))
		rejected := 0
		data := make([][]int, c.N)
		for m := range data {
			data[m] = make([]int, c.n)
		}
		for range 1000 {
			for m := range data {
				for j := range data[m] {
					data[m][j] = 0
					if r.Float64() < c.p1 {
						data[m][j] = 1
					}
				}
			}
			s, err := NewSamples(2, data)
			if err != nil {
				t.Fatal(err)
			}
			if p, _ := selection.IndependenceP(s.stages(), valueWeights(s), s.TotalWeight()); p < 0.01 {
				rejected++
			}
		}
		t.Logf("n = %d, N = %d, P(1) = %g: %d of 1000 rejected", c.n, c.N, c.p1, rejected)
		if rejected > 20 {
			t.Errorf("n = %d, N = %d, P(1) = %g: the test of level 0.01 rejected independence in %d of 1000 runs", c.n, c.N, c.p1, rejected)
		}
	}
}

// smallQuestionnaire returns a questionnaire-shaped Ising model of 10
// items: two subscales of five, each a 5-cycle with one chord (couplings
// a), one negative coupling −a/2 across, and fields that put the items'
// endorsement between about 30% and 70%.
func smallQuestionnaire(a float64) *Model {
	const n = 10
	w := mat.NewSymDense(n, nil)
	for s := 0; s < 2; s++ {
		o := 5 * s
		for x := 0; x < 5; x++ {
			w.SetSym(o+x, o+(x+1)%5, a)
		}
		w.SetSym(o, o+2, a)
	}
	w.SetSym(2, 7, -a/2)
	h := make([]float64, n)
	for i := range h {
		h[i] = []float64{-0.6, 0.3, -0.2, 0.5, -0.4}[i%5]
	}
	m, err := NewIsing(w, h)
	if err != nil {
		panic(err)
	}
	return m
}

// TestEBICGraphPower: on a small questionnaire (10 items, 13 edges of
// coupling 0.2, IsingFit weight 0.8) with N = 100 people, the Wald test
// alone finds no edge in any of 10 seeded runs: too few observations for
// its regressions (internal/selection). The default, with the EBIC graph
// stage, finds 51 edges over the 10 runs, 32 of them true (precision
// 0.63, IsingFit's level at this N). The bounds, at least 20 true edges
// and a precision of at least 0.5, fail a stage that does not run or that
// admits the Or graph or every pair.
func TestEBICGraphPower(t *testing.T) {
	skipUnderRace(t)
	m := smallQuestionnaire(0.2)
	var tpOld, edgesOld, tp, edges, chosen int
	for seed := uint64(1); seed <= 10; seed++ {
		s := exactDraws(t, m, 100, seed)
		res, err := Learn(s, WithWorkers(1))
		if err != nil {
			t.Fatal(err)
		}
		old, err := Learn(s, WithWorkers(1), WithEBICGraph(false))
		if err != nil {
			t.Fatal(err)
		}
		fp, _ := edgeErrors(m, res.Edges)
		tp += len(res.Edges) - fp
		edges += len(res.Edges)
		fp, _ = edgeErrors(m, old.Edges)
		tpOld += len(old.Edges) - fp
		edgesOld += len(old.Edges)
		if res.Tuning.EBICGraph {
			chosen++
			if !(res.Tuning.GlobalP < DefaultFalseEdgeRate/2) {
				t.Errorf("seed %d: EBIC graph chosen with the global test's p = %g", seed, res.Tuning.GlobalP)
			}
			if res.MinEdgeWeight != nonzeroMinEdgeWeight {
				t.Errorf("seed %d: EBIC graph chosen, MinEdgeWeight %g, want nonzeroMinEdgeWeight", seed, res.MinEdgeWeight)
			}
		}
		if !math.IsNaN(old.Tuning.GlobalP) || old.Tuning.EBICGraph {
			t.Errorf("seed %d: with WithEBICGraph(false) GlobalP = %g, EBICGraph = %v", seed, old.Tuning.GlobalP, old.Tuning.EBICGraph)
		}
	}
	t.Logf("10 runs at N = 100: the Wald test alone %d edges (%d true); with the EBIC graph %d (%d true), chosen in %d runs", edgesOld, tpOld, edges, tp, chosen)
	if edgesOld != 0 {
		t.Errorf("the Wald test alone found %d edges; this test needs a case where it finds none", edgesOld)
	}
	if tp < 20 || float64(tp) < 0.5*float64(edges) {
		t.Errorf("with the EBIC graph: %d edges, %d true; want at least 20 true and a precision of at least 0.5", edges, tp)
	}
}

// TestEBICGraphFalseEdges: on independent data the EBIC graph stage adds
// an edge only when the global test rejects, at cells where its pairs pass
// Cochran's rule and the And graph of the EBIC fits is never empty (with
// the stage unguarded, every run there would report an edge). 30 seeded
// runs a cell, at most 3 with an edge: with the Wald test's α and the
// global test's α/2 about 1.5% of runs are expected, and a rate of 2%
// exceeds 3 of 30 with probability 0.3% (binomial).
func TestEBICGraphFalseEdges(t *testing.T) {
	skipUnderRace(t)
	for _, c := range []struct{ n, N int }{{4, 30}, {6, 40}, {10, 50}} {
		bad := falseEdgeRuns(t, 2, c.n, c.N, 30, false)
		if bad > 3 {
			t.Errorf("n = %d, N = %d: %d of 30 runs on independent data report an edge, want at most 3", c.n, c.N, bad)
		}
	}
}

// TestEBICGraphOff: the stage runs only on Ising data with EBIC widths;
// elsewhere GlobalP is NaN and EBICGraph false.
func TestEBICGraphOff(t *testing.T) {
	s := exactDraws(t, smallQuestionnaire(0.2), 200, 1)
	for name, opts := range map[string][]Option{
		"cross-validation": {WithSelection(CrossValidation{})},
		"width given":      {WithWidth(1)},
		"stage off":        {WithEBICGraph(false)},
	} {
		res, err := Learn(s, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if !math.IsNaN(res.Tuning.GlobalP) || res.Tuning.EBICGraph {
			t.Errorf("%s: GlobalP %g, EBICGraph %v, want NaN and false", name, res.Tuning.GlobalP, res.Tuning.EBICGraph)
		}
	}
	// Algorithm 2 has no such stage; Learn's nominal default at k > 2,
	// the multinomial model (250 rows for 14 parameters a node law:
	// within its rule), has the mixed model's (GlobalP its test's).
	u := uniformSamples(t, 3, 4, 250, 1, false)
	res, err := LearnPairwise(u)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(res.Tuning.GlobalP) || res.Tuning.EBICGraph {
		t.Errorf("k = 3: GlobalP %g, EBICGraph %v, want NaN and false", res.Tuning.GlobalP, res.Tuning.EBICGraph)
	}
	if res, err = Learn(u, WithScale(Nominal)); err != nil {
		t.Fatal(err)
	}
	if !res.Tuning.Mixed || math.IsNaN(res.Tuning.GlobalP) {
		t.Errorf("k = 3, Learn: Tuning.Mixed %v, GlobalP %g; want the multinomial model and its global test", res.Tuning.Mixed, res.Tuning.GlobalP)
	}
	res, err = Learn(s)
	if err != nil {
		t.Fatal(err)
	}
	if math.IsNaN(res.Tuning.GlobalP) {
		t.Error("default: GlobalP NaN, want the global test's p-value")
	}
	if got := (WaldTest{NoEBICGraph: true}).String(); got != "WaldTest{NoEBICGraph}" {
		t.Errorf("String: %q", got)
	}
}

// BenchmarkEBICGraph measures the tuning-free default with the EBIC graph
// stage on and off (WithEBICGraph) on a questionnaire of 25 items (five
// subscales of five, each a 5-cycle with a chord, couplings 0.2, Gibbs
// samples) at N = 100 and 250, where the stage can choose the graph, and at
// N = 2500, where it computes only the test of independence; one worker.
func BenchmarkEBICGraph(b *testing.B) {
	const n = 25
	w := mat.NewSymDense(n, nil)
	for s := 0; s < 5; s++ {
		o := 5 * s
		for x := 0; x < 5; x++ {
			w.SetSym(o+x, o+(x+1)%5, 0.2)
		}
		w.SetSym(o, o+2, 0.2)
	}
	h := make([]float64, n)
	for i := range h {
		h[i] = []float64{-0.6, 0.3, -0.2, 0.5, -0.4}[i%5]
	}
	m, err := NewIsing(w, h)
	if err != nil {
		b.Fatal(err)
	}
	for _, count := range []int{100, 250, 2500} {
		s := benchSamples(b, "questionnaire25", m, count)
		for _, on := range []bool{true, false} {
			name := "N=" + strconv.Itoa(count) + "/stage=off"
			if on {
				name = "N=" + strconv.Itoa(count) + "/stage=on"
			}
			b.Run(name, func(b *testing.B) {
				benchLearn(b, s, Learn, WithWorkers(1), WithEBICGraph(on))
			})
		}
	}
}

// irlsDeviance returns −2 Σ_m log P(z_i | z_nb) at the maximum likelihood
// estimate of node i's logistic regression on the spins nb, fitted by
// iteratively reweighted least squares on the 0/1 coding of the answers:
// the reference for the refits of the EBIC graph stage, which fit the ±1
// coding by the engine's Newton method (the deviance does not depend on
// the coding, an affine change of the covariates with an intercept).
func irlsDeviance(t *testing.T, s *Samples, i int, nb []int) float64 {
	p := len(nb) + 1
	x := func(m, c int) float64 {
		if c == 0 {
			return 1
		}
		return float64(s.b8[m*s.n+nb[c-1]])
	}
	beta := make([]float64, p)
	dev := func() float64 {
		d := 0.0
		for m := 0; m < s.rows; m++ {
			u := 0.0
			for c := range beta {
				u += beta[c] * x(m, c)
			}
			y := float64(s.b8[m*s.n+i])
			d -= 2 * s.Weight(m) * (y*u - math.Log1p(math.Exp(u)))
		}
		return d
	}
	for it := 0; it < 100; it++ {
		h := mat.NewSymDense(p, nil)
		g := mat.NewVecDense(p, nil)
		for m := 0; m < s.rows; m++ {
			u := 0.0
			for c := range beta {
				u += beta[c] * x(m, c)
			}
			mu := 1 / (1 + math.Exp(-u))
			y, c := float64(s.b8[m*s.n+i]), s.Weight(m)
			for a := 0; a < p; a++ {
				g.SetVec(a, g.AtVec(a)+c*(y-mu)*x(m, a))
				for b := a; b < p; b++ {
					h.SetSym(a, b, h.At(a, b)+c*mu*(1-mu)*x(m, a)*x(m, b))
				}
			}
		}
		var chol mat.Cholesky
		if !chol.Factorize(h) {
			t.Fatalf("node %d on %v: singular information", i, nb)
		}
		step := mat.NewVecDense(p, nil)
		if err := chol.SolveVecTo(step, g); err != nil {
			t.Fatal(err)
		}
		size := 0.0
		for a := range beta {
			beta[a] += step.AtVec(a)
			size = math.Max(size, math.Abs(step.AtVec(a)))
		}
		if size < 1e-12 {
			return dev()
		}
	}
	t.Fatalf("node %d on %v: IRLS did not converge", i, nb)
	return 0
}

// TestEBICGraphBIC checks step 4 of the stage, the choice by BIC between
// the Wald test's graph G_W and its union G_U with the And graph G_A of the
// EBIC fits, against the criterion computed here by IRLS: on the small
// questionnaire at N = 250, the runs where the global test rejects, G_W is
// not empty and holds fewer than half of G_A's pairs must learn G_U
// exactly when BIC(G_U) < BIC(G_W), and G_W otherwise. Over seeds 1 to 10
// that is 7 runs, 5 of them choosing G_U and 2 G_W; the test asks for both
// outcomes. It runs under the race detector too: the refits run on the
// learner's workers.
func TestEBICGraphBIC(t *testing.T) {
	m := smallQuestionnaire(0.2)
	step4, union := 0, 0
	for seed := uint64(1); seed <= 10; seed++ {
		s := exactDraws(t, m, 250, seed)
		res, err := Learn(s, WithWorkers(2))
		if err != nil {
			t.Fatal(err)
		}
		old, err := Learn(s, WithWorkers(2), WithEBICGraph(false))
		if err != nil {
			t.Fatal(err)
		}
		gw := map[[2]int]bool{}
		for _, e := range old.Edges {
			gw[[2]int{e.I, e.J}] = true
		}
		gu := map[[2]int]bool{}
		for e := range gw {
			gu[e] = true
		}
		and, confirmed := 0, 0
		for i := 0; i < s.n; i++ {
			for j := i + 1; j < s.n; j++ {
				if old.est[i].Block(j)[0] != 0 && old.est[j].Block(i)[0] != 0 {
					and++
					if gw[[2]int{i, j}] {
						confirmed++
					}
					gu[[2]int{i, j}] = true
				}
			}
		}
		if !(res.Tuning.GlobalP < DefaultFalseEdgeRate/2) || len(gw) == 0 || 2*confirmed >= and {
			continue
		}
		step4++
		bic := func(g map[[2]int]bool) float64 {
			total := 0.0
			for i, nb := range selection.Neighbours(s.n, g) {
				total += irlsDeviance(t, s, i, nb) + float64(len(nb))*math.Log(s.TotalWeight())
			}
			return total
		}
		want := bic(gu) < bic(gw)
		if res.Tuning.EBICGraph != want {
			t.Errorf("seed %d: EBICGraph %v, but BIC(G_U) − BIC(G_W) = %g", seed, res.Tuning.EBICGraph, bic(gu)-bic(gw))
		}
		wantEdges := gw
		if want {
			wantEdges = gu
			union++
		}
		if len(res.Edges) != len(wantEdges) {
			t.Errorf("seed %d: %d edges, want %d", seed, len(res.Edges), len(wantEdges))
		}
		for _, e := range res.Edges {
			if !wantEdges[[2]int{e.I, e.J}] {
				t.Errorf("seed %d: edge %d-%d not in the graph BIC chose", seed, e.I, e.J)
			}
		}
	}
	t.Logf("step 4 in %d of 10 runs, G_U chosen in %d", step4, union)
	if union == 0 || union == step4 {
		t.Errorf("step 4 in %d runs, G_U chosen in %d: want both outcomes", step4, union)
	}
}
