package pairwise

import (
	"context"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// WaldTest is the edge test that chooses the learned graph when the minimum
// edge weight η is not given (WithMinEdgeWeight): a Wald test of every
// pair's debiased estimate, with a family-wise false-edge rate α, and, by
// default, two stages that go beyond the paper to recover weak edges at
// small N. Its zero value is the default test; choose another with
// WithEdgeTest.
//
// The test: each node's regressions are refitted by one Newton step from
// the constrained solution ŵ (the debiased estimate d = ŵ − H⁻¹∇L(ŵ),
// which removes the shrinkage of the constraint), the sandwich covariance
// H⁻¹JH⁻¹/N of d gives a standard error for every entry of Ŵ_ij, and the
// pair's statistic is max over entries (a, b) of |Ŵ_ij(a, b)|/SE(a, b). It
// is compared with
//
//	z*(α) = Φ⁻¹(1 − α/(2M)),
//
// with M = k² times the number of pairs for k > 2 and M = the number of
// pairs for k = 2 (the Bonferroni correction over the entries of all W_ij;
// for k = 2 the four entries share one |value| and one standard error).
// Under the Average rule of WithSymmetrization the two nodes' debiased
// estimates are averaged and SE is the average of their standard errors (a
// bound that holds whatever their correlation); under And both nodes'
// estimates must pass, under Or one of them (M doubles). This is the Wald
// test of the low-dimensional debiased estimator (van de Geer, Bühlmann,
// Ritov and Dezeure 2014) with a Bonferroni threshold; as N grows, the power
// to detect an edge of weight η goes to one while the false-edge rate stays
// below α. Every pair that reaches z*(α) is an edge; when none does, the
// graph is empty, so a model with no edge gets a false edge with probability
// at most about α whatever the stages below do.
//
// The refit stage (Ising data; off with NoRefit) keeps, for each node, the
// spins whose pair statistic reaches 1.5 (or z₁ below, if lower), refits the
// node's logistic regression on them alone without constraint, and tests
// those pairs again with the refit's estimate and its model-based standard
// error (the inverse Fisher information); pairs below the screen are not
// edges. Dropping the spins that are not neighbours removes their share of
// the neighbours' variance, so weak edges stand further from the rest. The
// screen makes the refit's statistics a selected sample, so α is no longer
// exact.
//
// Below z*(α) a cut decides. The mixture (Ising data; off with NoMixture)
// fits the two-group model of EdgeMixture to the pairs' statistics — a
// half-normal law for the pairs that are not edges, the law the statistics
// follow under the null, and a lognormal one, fitted by EM, for the edges —
// and keeps a pair when its posterior probability of being an edge exceeds
// 1/2 (Efron's local false discovery rate below 1/2, with the theoretical
// null). The pairs at z*(α) are what place the lognormal, so the mixture
// decides only when at least five of them reach it. Otherwise the gap rule
// (off with NoGap) sorts the statistics in decreasing order,
// z_(1) ≥ z_(2) ≥ …, and cuts at the widest gap z_(c) − z_(c+1) among the
// cuts that keep every statistic ≥ z*(α) and none below
// z₁ = Φ⁻¹(1 − 1/(2M)), the level that one of the M null statistics is
// expected to exceed. With both off, z*(α) alone cuts.
//
// The stages were chosen by measurement on the paper's models and others,
// not derived; docs/tuning has the study that chose them, its figures and
// its command. The test counts each unit of sample weight as one
// observation: N is Samples.TotalWeight. For samples weighted by
// probabilities (summing to 1) that is wrong, and WithMinEdgeWeight must be
// given. Result.Tuning reports the critical value, the threshold used, the
// statistics and the mixture.
type WaldTest struct {
	// FalseEdgeRate is α, in (0, 1); zero means DefaultFalseEdgeRate.
	FalseEdgeRate float64
	// NoRefit turns the Ising refit stage off.
	NoRefit bool
	// NoMixture turns the mixture cut off (the gap rule, or z*(α), cuts).
	NoMixture bool
	// NoGap turns the gap rule off.
	NoGap bool

	sym Symmetrization // the learner's rule, set when the test runs
}

// rate returns α.
func (t WaldTest) rate() float64 {
	if t.FalseEdgeRate == 0 {
		return DefaultFalseEdgeRate
	}
	return t.FalseEdgeRate
}

// String returns the test's settings, "WaldTest" for the default.
func (t WaldTest) String() string {
	s := "WaldTest"
	sep := "{"
	add := func(part string) {
		s += sep + part
		sep = ", "
	}
	if t.FalseEdgeRate != 0 {
		add(fmt.Sprintf("FalseEdgeRate: %v", t.FalseEdgeRate))
	}
	if t.NoRefit {
		add("NoRefit")
	}
	if t.NoMixture {
		add("NoMixture")
	}
	if t.NoGap {
		add("NoGap")
	}
	if sep == ", " {
		s += "}"
	}
	return s
}

// run is the stage that chooses the graph when η was not given: every
// pair's statistic from the debiased estimates and standard errors of the
// nodes' fits (laid out like Result.est), the Ising refit of the screened
// pairs on s, then the cut. res holds every pair with a nonzero estimate;
// the pairs that fail the test leave its Edges and Model, and
// res.MinEdgeWeight becomes η̂.
func (t WaldTest) run(ctx context.Context, s *Samples, res *Result, tun *Tuning, debias, stdErrs [][]float64, workers int) error {
	n, k := tun.n, tun.k
	alpha := t.rate()
	tun.FalseEdgeRate = alpha
	pairs := n * (n - 1) / 2
	// k = 2: the four entries have one |value| and one SE. With one
	// variable there is no pair to test; the critical value is that of one
	// test, so that it stays finite.
	tests := float64(max(pairs, 1))
	if k > 2 {
		tests *= float64(k * k)
	}
	if t.sym == Or {
		tests *= 2
	}
	tun.Critical = -distuv.UnitNormal.Quantile(alpha / (2 * tests))
	tun.scores = make([]float64, n*n)
	tun.debias = make([][]float64, n)
	tun.stdErrs = make([][]float64, n)
	kk := k * k
	nodes := res.Nodes
	for i := range debias {
		tun.debias[i], tun.stdErrs[i] = debias[i], stdErrs[i]
		if tun.debias[i] == nil {
			// No regression of node i had both labels (a constant
			// variable, LearnPairwise's closed form): nothing to test.
			tun.debias[i], tun.stdErrs[i] = make([]float64, n*kk), make([]float64, n*kk)
		}
	}
	// zeroConstant sets the statistics of the pairs of a constant variable
	// to 0 (degenerate.go): the data cannot show an edge there.
	zeroConstant := func() {
		for i := range nodes {
			for j := range nodes {
				if i != j && (nodes[i].Constant || nodes[j].Constant) {
					clear(tun.debias[i][j*kk : (j+1)*kk])
					clear(tun.stdErrs[i][j*kk : (j+1)*kk])
				}
			}
		}
	}
	zeroConstant()
	scores := make([]float64, 0, pairs)
	minSEs := make([]float64, 0, pairs)
	ij := make([][2]int, 0, pairs)
	// score returns pair (i, j)'s statistic and smallest standard error
	// under the symmetrisation rule.
	score := func(i, j int) (score, minSE float64) {
		if nodes[i].Constant || nodes[j].Constant {
			return 0, math.Inf(1)
		}
		di, si := tun.debias[i][j*kk:(j+1)*kk], tun.stdErrs[i][j*kk:(j+1)*kk]
		dj, sj := tun.debias[j][i*kk:(i+1)*kk], tun.stdErrs[j][i*kk:(i+1)*kk]
		switch t.sym {
		case And, Or:
			zi, mi := maxZ(di, si, nil, nil, k)
			zj, mj := maxZ(dj, sj, nil, nil, k)
			if t.sym == Or {
				return math.Max(zi, zj), math.Min(mi, mj)
			}
			return math.Min(zi, zj), math.Max(mi, mj)
		}
		return maxZ(di, si, dj, sj, k)
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			z, minSE := score(i, j)
			tun.scores[i*n+j], tun.scores[j*n+i] = z, z
			scores, minSEs, ij = append(scores, z), append(minSEs, minSE), append(ij, [2]int{i, j})
		}
	}
	lowest := max(0, -distuv.UnitNormal.Quantile(1/(2*tests))) // not -0 for one test
	// gapScores are the statistics the gap rule sees: after the refit,
	// the pairs that were not screened count as zero.
	gapScores := scores
	if k == 2 && !t.NoRefit {
		screen := math.Min(refitScreen, lowest)
		d, se, screened, err := refitAll(ctx, s, tun.scores, screen, workers)
		if err != nil {
			return err
		}
		for i := range d {
			if d[i] == nil {
				continue
			}
			// The first stage stands for the pairs node i did not refit.
			for j := 0; j < n; j++ {
				if screened[i*n+j] {
					copy(tun.debias[i][j*kk:(j+1)*kk], d[i][j*kk:(j+1)*kk])
					copy(tun.stdErrs[i][j*kk:(j+1)*kk], se[i][j*kk:(j+1)*kk])
				}
			}
		}
		gapScores = make([]float64, len(scores))
		for p, e := range ij {
			if !screened[e[0]*n+e[1]] {
				continue
			}
			z, minSE := score(e[0], e[1])
			tun.scores[e[0]*n+e[1]], tun.scores[e[1]*n+e[0]] = z, z
			minSEs[p], gapScores[p] = minSE, z
		}
		tun.Refit, tun.Screen = true, screen
		zeroConstant()
	}
	tun.Threshold = tun.Critical
	mixed := false
	if k == 2 && !t.NoMixture {
		// The mixture sees every pair's statistic: the refit's for the
		// screened pairs, the first stage's for the others (which are
		// not edges whatever it says: they are zero in gapScores).
		mixScores := make([]float64, len(scores))
		for p, e := range ij {
			mixScores[p] = tun.scores[e[0]*n+e[1]]
		}
		tun.Threshold, mixed = mixtureCut(tun, gapScores, mixScores, lowest)
	}
	if !mixed && !t.NoGap {
		tun.Lowest = lowest
		tun.Threshold = gapThreshold(gapScores, tun.Lowest, tun.Critical)
	}
	minThreshold := math.Inf(1)
	keep := make(map[[2]int]bool)
	for p, z := range gapScores {
		minThreshold = math.Min(minThreshold, tun.Threshold*minSEs[p])
		if z >= tun.Threshold {
			keep[ij[p]] = true
		}
	}
	edges := res.Edges[:0]
	for _, e := range res.Edges {
		if keep[[2]int{e.I, e.J}] {
			edges = append(edges, e)
		} else {
			res.Model.setCoupling(e.I, e.J, make([]float64, kk))
		}
	}
	res.Edges = edges
	res.MinEdgeWeight = 2 * minThreshold
	if math.IsInf(minThreshold, 1) {
		res.MinEdgeWeight = 0 // no pair could be tested
	}
	return nil
}

// gapThreshold returns the threshold of the edge test on the pairs'
// statistics z: the Bonferroni critical value hi when no statistic reaches
// it (the graph is empty) or when no statistic lies in [lo, hi); otherwise
// the statistic z_(c) just above the widest gap z_(c) − z_(c+1) of the
// statistics sorted in decreasing order, over the cuts c that keep every
// statistic ≥ hi and none below lo (z_(P+1) = 0 below the smallest). Ties
// go to the higher cut (fewer edges). NaN statistics take no part.
func gapThreshold(z []float64, lo, hi float64) float64 {
	zs := make([]float64, 0, len(z))
	for _, v := range z {
		if !math.IsNaN(v) {
			zs = append(zs, v)
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(zs)))
	c := sort.Search(len(zs), func(i int) bool { return zs[i] < hi })
	if c == 0 {
		return hi
	}
	best, cut := -1.0, c
	for ; c <= len(zs) && zs[c-1] >= lo; c++ {
		next := 0.0
		if c < len(zs) {
			next = zs[c]
		}
		if g := zs[c-1] - next; g > best {
			best, cut = g, c
		}
	}
	if zs[cut-1] >= hi {
		return hi
	}
	return zs[cut-1]
}

// maxZ returns max over entries (a, b) of |d(a, b)|/se(a, b) and the smallest
// se, for one node's estimate (dj == nil) or for the average of node i's
// estimate and node j's transposed one. An entry with zero standard error
// counts as zero whatever the estimate: the sandwich variance is zero only
// when every observation has the same influence on the estimate (a
// handful of rows, such as two that mirror each other), which says that the
// data cannot measure the estimate's error, not that it has none.
func maxZ(di, si, dj, sj []float64, k int) (z, minSE float64) {
	minSE = math.Inf(1)
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			d, se := di[a*k+b], si[a*k+b]
			if dj != nil {
				d = (d + dj[b*k+a]) / 2
				se = (se + sj[b*k+a]) / 2
			}
			minSE = math.Min(minSE, se)
			var v float64
			switch {
			case d == 0, se == 0:
			default:
				v = math.Abs(d) / se
			}
			z = math.Max(z, v)
		}
	}
	return z, minSE
}
