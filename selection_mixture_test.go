package pairwise

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mrfkit/pairwise/internal/selection"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// drawMixture draws m statistics from the two-group model: with
// probability share a lognormal edge statistic exp(N(mu, sd²)), else a
// half-normal null |N(0, 1)|. edge reports which.
func drawMixture(r *rand.Rand, m int, share, mu, sd float64) (z []float64, edge []bool) {
	z, edge = make([]float64, m), make([]bool, m)
	for i := range z {
		if r.Float64() < share {
			z[i], edge[i] = math.Exp(mu+sd*r.NormFloat64()), true
		} else {
			z[i] = math.Abs(r.NormFloat64())
		}
	}
	return z, edge
}

// TestEdgeMixtureRecoversParameters fits the mixture to 20000 statistics
// drawn from it. With the groups this far apart (edges near e^1.6 ≈ 5, the
// nulls below 3) the fit is nearly that of labelled data: standard errors
// about √(π(1−π)/m) = 0.0021 for the share, sd/√(πm) = 0.0067 for the log
// mean and sd/√(2πm) = 0.0047 for the log sd. The tolerances are about
// five of them.
func TestEdgeMixtureRecoversParameters(t *testing.T) {
	const share, mu, sd = 0.1, 1.6, 0.3
	z, _ := drawMixture(rand.New(rand.NewPCG(3, 1)), 20000, share, mu, sd)
	fit, ok := selection.FitEdgeMixture(z, 2.5)
	if !ok {
		t.Fatal("fit failed")
	}
	if math.Abs(fit.EdgeShare-share) > 0.01 || math.Abs(fit.LogMean-mu) > 0.03 || math.Abs(fit.LogSD-sd) > 0.025 {
		t.Errorf("fit %+v, want share %g, log mean %g, log sd %g", fit, share, mu, sd)
	}
	t.Logf("fit %+v", fit)
	if fit.Iterations >= selection.MixtureMaxIter {
		t.Errorf("EM did not converge in %d iterations", fit.Iterations)
	}
}

// TestEdgeMixtureMaximisesLikelihood checks EM against a brute-force search
// of the likelihood on a small sample: no point of a grid over (π₁, μ, σ)
// may do better than the fit (which maximises over a continuum containing
// the grid), and the fit must beat its own small perturbations (a local
// maximum, not a saddle or a stall).
func TestEdgeMixtureMaximisesLikelihood(t *testing.T) {
	skipUnderRace(t) // a numerical check, 3 to 5 s under -race; the learner's goroutines are raced by the other tests
	for seed := uint64(0); seed < 2; seed++ {
		z, _ := drawMixture(rand.New(rand.NewPCG(seed, 2)), 60, 0.3, 1.2, 0.35)
		fit, ok := selection.FitEdgeMixture(z, 2)
		if !ok {
			t.Fatalf("seed %d: fit failed", seed)
		}
		best := fit.LogLikelihood(z)
		var grid selection.Mixture
		for p := 0.02; p < 0.99; p += 0.02 {
			for m := 0.0; m <= 3; m += 0.05 {
				for s := selection.MixtureMinLogSD; s <= 1.5; s += 0.05 {
					grid.EdgeShare, grid.LogMean, grid.LogSD = p, m, s
					if ll := grid.LogLikelihood(z); ll > best+1e-9 {
						t.Fatalf("seed %d: grid point %+v has log-likelihood %g, above the fit's %g (%+v)", seed, grid, ll, best, fit)
					}
				}
			}
		}
		for _, d := range []selection.Mixture{{EdgeShare: 1e-4}, {EdgeShare: -1e-4}, {LogMean: 1e-4}, {LogMean: -1e-4}, {LogSD: 1e-4}, {LogSD: -1e-4}} {
			q := fit
			q.EdgeShare += d.EdgeShare
			q.LogMean += d.LogMean
			q.LogSD += d.LogSD
			if q.LogSD < selection.MixtureMinLogSD {
				continue
			}
			if ll := q.LogLikelihood(z); ll > best+1e-9 {
				t.Errorf("seed %d: perturbed fit %+v has log-likelihood %g, above the fit's %g", seed, q, ll, best)
			}
		}
	}
}

// TestEdgeMixturePosterior checks the posterior against gonum's densities
// and the threshold against its definition: every statistic at or above the
// cut has posterior > 1/2, the next one below does not.
func TestEdgeMixturePosterior(t *testing.T) {
	m := selection.Mixture{EdgeShare: 0.2, LogMean: 1.3, LogSD: 0.4}
	ln := distuv.LogNormal{Mu: m.LogMean, Sigma: m.LogSD}
	for _, z := range []float64{0.5, 1, 2, 2.5, 3, 4, 8} {
		a := m.EdgeShare * ln.Prob(z)
		b := (1 - m.EdgeShare) * 2 * distuv.UnitNormal.Prob(z)
		if got, want := m.Posterior(z), a/(a+b); math.Abs(got-want) > 1e-12 {
			t.Errorf("Posterior(%g) = %g, want %g", z, got, want)
		}
	}
	if m.Posterior(0) != 0 || m.Posterior(math.Inf(1)) != 1 || !math.IsNaN(m.Posterior(math.NaN())) {
		t.Errorf("Posterior at 0, +Inf, NaN: %g %g %g", m.Posterior(0), m.Posterior(math.Inf(1)), m.Posterior(math.NaN()))
	}
	z, _ := drawMixture(rand.New(rand.NewPCG(5, 5)), 200, 0.2, 1.3, 0.4)
	cut := selection.MixtureThreshold(z, &m, math.Inf(1))
	below := math.Inf(-1)
	for _, v := range z {
		if v >= cut && m.Posterior(v) <= 0.5 {
			t.Errorf("statistic %g ≥ cut %g has posterior %g", v, cut, m.Posterior(v))
		}
		if v < cut {
			below = math.Max(below, v)
		}
	}
	if m.Posterior(below) > 0.5 {
		t.Errorf("largest statistic below the cut %g, %g, has posterior %g > 1/2", cut, below, m.Posterior(below))
	}
}

// TestEdgeMixtureOddInputs: no statistic at init, every statistic an edge,
// a single pair, zeros, infinities and NaN must give a finite fit or a
// reported failure, never NaN parameters or a panic.
func TestEdgeMixtureOddInputs(t *testing.T) {
	cases := []struct {
		name string
		z    []float64
		init float64
		ok   bool
	}{
		{"none at init", []float64{0.1, 0.5, 1}, 2, false},
		{"empty", nil, 2, false},
		{"one pair", []float64{5}, 0, true},
		{"all edges", []float64{4, 5, 6}, 2, true},
		{"zeros", []float64{0, 0, 0, 3}, 2, true},
		{"inf and nan", []float64{math.Inf(1), math.NaN(), 0.3, 4, 1}, 2, true},
		{"only inf", []float64{math.Inf(1), math.Inf(1)}, 2, false},
	}
	for _, tc := range cases {
		fit, ok := selection.FitEdgeMixture(tc.z, tc.init)
		if ok != tc.ok {
			t.Errorf("%s: ok = %v, want %v (%+v)", tc.name, ok, tc.ok, fit)
			continue
		}
		if !ok {
			continue
		}
		for _, v := range []float64{fit.EdgeShare, fit.LogMean, fit.LogSD} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%s: fit %+v", tc.name, fit)
			}
		}
		if fit.EdgeShare <= 0 || fit.EdgeShare >= 1 || fit.LogSD < selection.MixtureMinLogSD {
			t.Errorf("%s: fit %+v out of its domain", tc.name, fit)
		}
		if got := selection.MixtureThreshold(tc.z, &fit, math.Inf(1)); math.IsNaN(got) {
			t.Errorf("%s: threshold NaN", tc.name)
		}
	}
}

// TestEdgeMixtureSmallSamples checks what the mixture cut is for: on the
// diamond at N = 500 (edge statistics about 2 to 6, spread over the range
// where the gap rule must guess) it misclassifies far fewer pairs than the
// gap rule on the same data. Over these 40 seeds the totals are 66
// against 105 false plus missed edges (the study's 100 seeds: 1.80 against
// 2.98 a run); a rule no better than the gap would give about equal
// totals, so the bound, at most 0.8 times the gap's (84), is far from
// chance and 18 errors from the measured count. The exact recoveries must
// not drop by more than 2 of 40 (measured: 7 against 5).
func TestEdgeMixtureSmallSamples(t *testing.T) {
	skipUnderRace(t)
	m := diamondIsing(10, 0.2)
	var errMix, errGap, exMix, exGap int
	for r := 0; r < 40; r++ {
		s := exactDraws(t, m, 500, uint64(800+r))
		// The EBIC graph stage, which may replace either cut's graph, is
		// off: this test is about the cuts.
		mix, err := Learn(s, WithEBICGraph(false))
		if err != nil {
			t.Fatal(err)
		}
		gap, err := Learn(s, WithEdgeMixture(false), WithEBICGraph(false))
		if err != nil {
			t.Fatal(err)
		}
		if mix.Tuning.Mixture == nil && mix.Tuning.Threshold != gap.Tuning.Threshold {
			t.Errorf("run %d: no mixture reported but threshold %g, not the gap rule's %g", r, mix.Tuning.Threshold, gap.Tuning.Threshold)
		}
		if gap.Tuning.Mixture != nil {
			t.Errorf("run %d: mixture reported with WithEdgeMixture(false)", r)
		}
		fp, fn := edgeErrors(m, mix.Edges)
		errMix += fp + fn
		if fp+fn == 0 {
			exMix++
		}
		fp, fn = edgeErrors(m, gap.Edges)
		errGap += fp + fn
		if fp+fn == 0 {
			exGap++
		}
	}
	t.Logf("40 runs: mixture %d errors, %d exact; gap rule %d errors, %d exact", errMix, exMix, errGap, exGap)
	if float64(errMix) > 0.8*float64(errGap) || exMix < exGap-2 {
		t.Errorf("mixture: %d false+missed edges and %d exact; gap rule: %d and %d", errMix, exMix, errGap, exGap)
	}
}

// TestEdgeMixtureFewEdges is the sparse case that set mixtureMinEdges: one
// edge (0.3) among 12 spins, 66 pairs. With a single statistic at z*, the
// lognormal fitted without the floor settles on the nulls' upper tail and
// calls some of them edges: on these 100 runs, 35 false edges. With the
// floor the gap rule cuts, and a false edge needs a null above z*(α) or a
// wide gap under one: 3 false edges on these runs. The bound, 8, leaves
// room for the gap rule's own rate of a few per hundred runs and fails the
// unguarded mixture by far.
func TestEdgeMixtureFewEdges(t *testing.T) {
	skipUnderRace(t)
	a := mat.NewSymDense(12, nil)
	a.SetSym(0, 1, 0.3)
	m, err := NewIsing(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	var fps, fns, fitted int
	for _, N := range []int{1000, 2000} {
		for r := 0; r < 50; r++ {
			res, err := Learn(exactDraws(t, m, N, uint64(900+r)))
			if err != nil {
				t.Fatal(err)
			}
			fp, fn := edgeErrors(m, res.Edges)
			fps, fns = fps+fp, fns+fn
			if res.Tuning.Mixture != nil {
				fitted++
			}
		}
	}
	t.Logf("100 runs: %d false edges, %d missed, %d mixture fits", fps, fns, fitted)
	if fps > 8 || fns > 0 || fitted > 0 {
		t.Errorf("100 runs: %d false edges (want ≤ 8), %d missed (want 0), %d mixture fits (want 0: one pair reaches z*)", fps, fns, fitted)
	}
}

// TestMixtureCutKeepsSignificant is the case of shared/bench's 3x3 grid
// (N = 1000, seed 2) that set the cut's ceiling: eleven edges whose
// statistics lie near 8.9, one at 3.89 above z* = 3.64, and 24 nulls. The
// lognormal fitted to the eleven gives the twelfth a posterior near zero,
// yet it is significant at the family-wise rate and must stay an edge.
// With no statistic at z* the graph is empty whatever the fit would say.
func TestMixtureCutKeepsSignificant(t *testing.T) {
	edges := []float64{7.48, 7.69, 7.86, 8.25, 8.6, 8.92, 9.09, 9.09, 9.28, 9.79, 12.18, 3.89}
	r := rand.New(rand.NewPCG(9, 9))
	z := append([]float64(nil), edges...)
	for range 24 {
		z = append(z, math.Min(math.Abs(r.NormFloat64()), 3))
	}
	cut, fit, ok := selection.MixtureCut(3.64, z, z, 2.29)
	if !ok || fit == nil {
		t.Fatal("no mixture fitted")
	}
	if p := fit.Posterior(3.89); p > 0.5 {
		t.Errorf("posterior of 3.89 = %g: the case needs a fit that misses it", p)
	}
	if cut > 3.89 {
		t.Errorf("cut %g drops the edge at 3.89 > z* = 3.64 (fit %+v)", cut, *fit)
	}
	low := []float64{3.5, 3.2, 1, 0.5, 0.2}
	if cut, fit, ok := selection.MixtureCut(3.64, low, low, 2.29); ok || cut != 3.64 || fit != nil {
		t.Errorf("no statistic at z*: cut %g, decided %v, mixture %v; want 3.64, false and none", cut, ok, fit)
	}
	// Four statistics at z*, one short of mixtureMinEdges: no fit.
	few := append([]float64{9, 8.5, 8, 7.5}, z[12:]...)
	if cut, fit, ok := selection.MixtureCut(3.64, few, few, 2.29); ok || cut != 3.64 || fit != nil {
		t.Errorf("four statistics at z*: cut %g, decided %v, mixture %v; want 3.64, false and none", cut, ok, fit)
	}
}
