package pairwise

import (
	"context"
	"math"
	"slices"
	"sort"

	"github.com/mrfkit/pairwise/internal/selection"
	"gonum.org/v1/gonum/stat/distuv"
)

// run is the stage that chooses the graph when η was not given: every
// pair's statistic from the debiased estimates and standard errors of the
// nodes' fits (laid out like Result.est), the Ising refit of the screened
// pairs on s, then the cut. res holds every pair with a nonzero estimate;
// the pairs that fail the test leave its Edges and Model, and
// res.MinEdgeWeight becomes η̂.
//
// dfs[i][a] are the degrees of freedom of node i's statistics for z_i = a
// (internal/selection; nil for a node with none): every statistic enters as
// its normal score under Student's t law with those degrees of freedom.
//
// covs[i] holds the covariances of node i's blocks for the grouped
// statistic (selection.WaldOneHot with block; nil when it was not
// computed): on the nominal scale at k > 2 each pair then has one Wald
// statistic over its block (selection.BlockWald), and the Bonferroni value
// counts n(n−1)/2 tests; without them it has the largest |Ŵ/SE| of its k²
// entries and counts k² tests a pair. ordScores are the ordinal model's
// scores s_j(a) (n×k) on the ordinal scale, nil otherwise.
func (t waldRun) run(ctx context.Context, s *Samples, res *Result, tun *Tuning, debias, stdErrs, dfs, covs [][]float64, ordScores []float64, workers int) error {
	n, k := tun.n, tun.k
	alpha := t.rate()
	tun.FalseEdgeRate = alpha
	pairs := n * (n - 1) / 2
	// k = 2: the four entries have one |value| and one SE. With one
	// variable there is no pair to test; the critical value is that of one
	// test, so that it stays finite.
	tests := float64(max(pairs, 1))
	// ordinal: one statistic a pair from each node's unconstrained refit,
	// the ordinal model's or the mixed model's (with every variable
	// nominal on the nominal scale, Tuning.Mixed without Ordinal).
	ordinal := tun.Ordinal || tun.Mixed
	tun.Block = k > 2 && !ordinal && covs != nil
	for i := range debias {
		if tun.Block && debias[i] != nil && covs[i] == nil {
			tun.Block = false
		}
	}
	if k > 2 && !ordinal && !tun.Block {
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
	tun.dfs = make([][]float64, n)
	for i := range debias {
		tun.debias[i], tun.stdErrs[i], tun.dfs[i] = debias[i], stdErrs[i], dfs[i]
		if tun.debias[i] == nil {
			// No regression of node i had both labels (a constant
			// variable, LearnPairwise's closed form): nothing to test.
			tun.debias[i], tun.stdErrs[i] = make([]float64, n*kk), make([]float64, n*kk)
		}
		if tun.dfs[i] == nil {
			tun.dfs[i] = make([]float64, k)
			for a := range tun.dfs[i] {
				tun.dfs[i][a] = math.Inf(1)
			}
		}
	}
	dfOf := tun.dfOf
	// zeroConstant sets the statistics of the pairs of a constant variable
	// to 0 (constant.go): the data cannot show an edge there.
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
	// Pairs whose table fails Cochran's rule (internal/selection) score 0.
	counts := valueWeights(s)
	total := s.TotalWeight()
	// Cochran's rule: a binary pair's 2×2 table is tested whole or not at
	// all. For k > 2 it admits coefficients, not pairs: the entries (a, b)
	// of W_ij whose expected count N_a·N_b/N reaches CochranHigh enter the
	// statistic, so that a rare answer leaves out its own row or column of
	// the block, not the pair. The ordinal model's one coupling a pair has
	// no empty cells to fear.
	sparse := func(i, j int) bool { return k == 2 && !selection.CochranOK(counts[i], counts[j], total) }
	admitted := func(i, j int, transpose bool) []bool {
		if k == 2 || ordinal || tun.Block {
			return nil // the grouped statistic takes its values from selection.BlockValues
		}
		ok := make([]bool, kk)
		some := false
		for a, ca := range counts[i] {
			for b, cb := range counts[j] {
				if selection.CochranEntry(ca, cb, total) {
					x := a*k + b
					if transpose {
						x = b*k + a
					}
					ok[x], some = true, true
				}
			}
		}
		if !some {
			return make([]bool, kk) // no entry: the pair scores 0
		}
		return ok
	}
	maxZ := maxZ
	if ordinal {
		maxZ = ordinalZ
	}
	// one returns a node's own statistic of a pair (the And and Or rules):
	// on its block's values rows × cols for the grouped statistic, on the
	// entries admit admits otherwise.
	one := func(d, se, df, c []float64, rows, cols, admit []bool) (float64, float64, float64) {
		if tun.Block {
			return blockZ(d, se, df, c, nil, nil, nil, nil, k, rows, cols)
		}
		return maxZ(d, se, df, nil, nil, nil, k, admit)
	}
	scores := make([]float64, 0, pairs)
	minSEs := make([]float64, 0, pairs)
	seDFs := make([]float64, 0, pairs)
	ij := make([][2]int, 0, pairs)
	// score returns pair (i, j)'s statistic, its smallest standard error
	// and that entry's degrees of freedom under the symmetrisation rule.
	score := func(i, j int) (score, minSE, seDF float64) {
		if nodes[i].Constant || nodes[j].Constant || sparse(i, j) {
			return 0, math.Inf(1), math.Inf(1)
		}
		if tun.mixed != nil {
			return tun.mixed.z(i, j, t.sym)
		}
		di, si, fi := tun.debias[i][j*kk:(j+1)*kk], tun.stdErrs[i][j*kk:(j+1)*kk], dfOf(i, j)
		dj, sj, fj := tun.debias[j][i*kk:(i+1)*kk], tun.stdErrs[j][i*kk:(i+1)*kk], dfOf(j, i)
		admit := admitted(i, j, false)
		var ci, cj []float64
		var vi, vj []bool
		if tun.Block {
			red := (k - 1) * (k - 1) * (k - 1) * (k - 1)
			ci, cj = covs[i][j*red:(j+1)*red], covs[j][i*red:(i+1)*red]
			vi, vj = selection.BlockValues(counts[i], counts[j], total)
		}
		switch t.sym {
		case And, Or:
			zi, mi, ni := one(di, si, fi, ci, vi, vj, admit)
			zj, mj, nj := one(dj, sj, fj, cj, vj, vi, admitted(i, j, true))
			return combineNodes(t.sym, zi, mi, ni, zj, mj, nj)
		}
		if tun.Block {
			return blockZ(di, si, fi, ci, dj, sj, fj, cj, k, vi, vj)
		}
		return maxZ(di, si, fi, dj, sj, fj, k, admit)
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			z, minSE, seDF := score(i, j)
			tun.scores[i*n+j], tun.scores[j*n+i] = z, z
			scores, minSEs, seDFs, ij = append(scores, z), append(minSEs, minSE), append(seDFs, seDF), append(ij, [2]int{i, j})
		}
	}
	lowest := max(0, -distuv.UnitNormal.Quantile(1/(2*tests))) // not -0 for one test
	// gapScores are the statistics the gap rule sees: after the refit,
	// the pairs that were not screened count as zero.
	gapScores := scores
	if k == 2 && !t.NoRefit && !selection.SupportWald(s.stages(), t.dense) {
		screen := math.Min(selection.RefitScreen, lowest)
		// Each node's refit starts from its first stage: the debiased
		// couplings (ŵ_j = 2Â_ij) and the constrained fit's bias
		// (θ̂_i = ŵ_bias/2), a Newton step or two from the estimate.
		starts := make([][]float64, n)
		for i := range starts {
			st := make([]float64, n)
			for j := 0; j < n; j++ {
				if j != i {
					st[j] = 2 * tun.debias[i][j*kk]
				}
			}
			if th := res.Model.Field(i); len(th) == 2 {
				st[i] = 2 * th[1]
			}
			starts[i] = st
		}
		var imp *selection.SpinImputer
		if s.incomplete {
			// AvailableCase: missing spins take their expected value
			// under their own node's first-stage fit.
			imp = selection.NewSpinImputer(n, res.est, res.Model.theta)
		}
		d, se, df, screened, err := selection.RefitAll(ctx, s.stages(), tun.scores, screen, workers, imp, starts)
		if err != nil {
			return err
		}
		refitDF, refitted := make([][]float64, n), make([]bool, n*n)
		tun.refitDF, tun.refitted = refitDF, refitted
		for i := range d {
			if d[i] == nil {
				continue
			}
			refitDF[i] = []float64{df[i], df[i]}
			// The first stage stands for the pairs node i did not refit.
			for j := 0; j < n; j++ {
				if screened[i*n+j] {
					copy(tun.debias[i][j*kk:(j+1)*kk], d[i][j*kk:(j+1)*kk])
					copy(tun.stdErrs[i][j*kk:(j+1)*kk], se[i][j*kk:(j+1)*kk])
					refitted[i*n+j] = true
				}
			}
		}
		gapScores = make([]float64, len(scores))
		for p, e := range ij {
			if !screened[e[0]*n+e[1]] {
				continue
			}
			z, minSE, seDF := score(e[0], e[1])
			tun.scores[e[0]*n+e[1]], tun.scores[e[1]*n+e[0]] = z, z
			minSEs[p], seDFs[p], gapScores[p] = minSE, seDF, z
		}
		tun.Refit, tun.Screen = true, screen
		zeroConstant()
	}
	tun.Threshold = tun.Critical
	mixed := false
	if (k == 2 || ordinal) && !t.NoMixture {
		// The mixture sees every pair's statistic: the refit's for the
		// screened pairs, the first stage's for the others (which are
		// not edges whatever it says: they are zero in gapScores).
		mixScores := make([]float64, len(scores))
		for p, e := range ij {
			mixScores[p] = tun.scores[e[0]*n+e[1]]
		}
		var fit *selection.Mixture
		floor := 0.0
		if k == 2 && selection.SupportWald(s.stages(), t.dense) {
			floor = t.floor // as the sparse test (edgetest_sparse.go), so that the two agree
			if !(floor > 0) {
				floor = selection.SparseFloorAt(n)
			}
		}
		cut := selection.MixtureCutSettings{Lowest: lowest, Floor: floor}
		if tun.Mixed && !tun.Ordinal {
			// The multinomial default's mixture sees few pairs: no
			// pair is an edge below its own 5% test.
			cut.Least = selection.PairFloor
		}
		if tun.Threshold, fit, mixed = cut.Cut(tun.Critical, gapScores, mixScores); mixed {
			tun.Mixture = (*EdgeMixture)(fit)
		}
	}
	if !mixed && !t.NoGap {
		tun.Lowest = lowest
		tun.Threshold = gapThreshold(gapScores, tun.Lowest, tun.Critical)
	}
	minThreshold := math.Inf(1)
	keep := make(map[[2]int]bool)
	// The pairs share a few degrees of freedom (one a regression), and
	// Student's quantile is costly: it is computed once for each.
	quantiles := make(map[float64]float64)
	for p, z := range gapScores {
		// The weight at which the pair's statistic would reach the
		// threshold: its t-scale equivalent times its standard error.
		// A pair without degrees of freedom (an infinite quantile) and a
		// zero standard error bounds nothing (not NaN).
		q, ok := quantiles[seDFs[p]]
		if !ok {
			q = selection.TQuantile(tun.Threshold, seDFs[p])
			quantiles[seDFs[p]] = q
		}
		if w := q * minSEs[p]; !math.IsNaN(w) {
			minThreshold = math.Min(minThreshold, w)
		}
		if z >= tun.Threshold {
			keep[ij[p]] = true
		}
	}
	tun.GlobalP = math.NaN()
	if t.ebicStage(tun) && k == 2 && n > 1 {
		// The EBIC graph of small samples (internal/selection, ebic_graph.go).
		p, _ := selection.IndependenceP(s.stages(), counts, total)
		tun.GlobalP = p
		if p < alpha/2 {
			constant := func(i, j int) bool { return nodes[i].Constant || nodes[j].Constant }
			g, chosen, err := selection.EBICGraph(ctx, s.stages(), res.est, keep, constant, workers)
			if err != nil {
				return err
			}
			keep, tun.EBICGraph = g, chosen
		}
	}
	if ordinal && t.ebicStage(tun) && n > 1 {
		// The EBIC graph of the ordinal model (internal/selection,
		// ordinal_ebic.go): the Ising path's stage on the ordinal
		// model's refits, or on the mixed model's (mixed.go).
		var p float64
		// own is node i's own statistic of the pair (i, j), the order of
		// its EBIC path.
		own := func(i, j int) float64 {
			z, _, _ := ordinalZ(tun.debias[i][j*kk:(j+1)*kk], tun.stdErrs[i][j*kk:(j+1)*kk], dfOf(i, j), nil, nil, nil, k, nil)
			return z
		}
		if tun.mixed != nil {
			p, _ = selection.MixedIndependenceP(s.stages(), tun.mixed.v)
			own = tun.mixed.own
		} else {
			p, _ = selection.OrdinalIndependenceP(s.stages(), ordScores)
		}
		tun.GlobalP = p
		if p < alpha/2 {
			z := make([][]float64, n)
			for i := range z {
				z[i] = make([]float64, n)
				for j := range z[i] {
					if j != i && !nodes[i].Constant && !nodes[j].Constant {
						z[i][j] = own(i, j)
					}
				}
			}
			constant := func(i, j int) bool { return nodes[i].Constant || nodes[j].Constant }
			var g map[[2]int]bool
			var chosen bool
			var err error
			if tun.mixed != nil {
				g, chosen, err = selection.MixedEBICGraph(ctx, s.stages(), tun.mixed.v, z, keep, constant, workers)
			} else {
				g, chosen, err = selection.OrdinalEBICGraph(ctx, s.stages(), ordScores, z, keep, constant, workers)
			}
			if err != nil {
				return err
			}
			keep, tun.EBICGraph = g, chosen
		}
	}
	keepGraph(res, keep, minThreshold, tun.EBICGraph)
	return nil
}

// keepGraph ends the edge test (dense and sparse): the edges of res that
// keep does not hold leave the Result and the Model, and MinEdgeWeight
// becomes η̂ = 2·minThreshold (0 when no pair could be tested), or
// nonzeroMinEdgeWeight when the EBIC graph chose the pairs.
func keepGraph(res *Result, keep map[[2]int]bool, minThreshold float64, ebicGraph bool) {
	kk := res.Model.k * res.Model.k
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
	if ebicGraph {
		// The EBIC graph's pairs pass no threshold: as in IsingFit, every
		// nonzero estimate the And rule keeps is an edge.
		res.MinEdgeWeight = nonzeroMinEdgeWeight
	}
}

// nonzeroMinEdgeWeight is the minimum edge weight of a graph whose pairs
// pass no threshold (the EBIC graph): twice the smallest positive float64,
// so that η/2 is the smallest positive float64 and a pair passes it exactly
// when its estimate is not zero. IsingFit's rule in psych gives the learner
// the same η through WithMinEdgeWeight; the root keeps its own name for it
// so that it never reaches up into the packages that use it.
const nonzeroMinEdgeWeight = 2 * math.SmallestNonzeroFloat64

// ebicStage reports whether the EBIC graph stage runs: the test does not
// turn it off and the widths were chosen by EBIC.
func (t WaldTest) ebicStage(tun *Tuning) bool {
	_, ok := tun.Selection.(EBIC)
	return ok && !t.NoEBICGraph
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

// blockZ is maxZ for the grouped statistic: the normal score
// (selection.BlockScore) of the Wald statistic of the interaction
// contrasts (selection.BlockWald) on the values rows × cols
// (selection.BlockValues) of node i's block (dj == nil) or of the average
// of node i's block and node j's transposed one, whose covariance is taken
// as the average of the two (ci and cj in reduced coordinates,
// selection.WaldOneHot). The average's true covariance is never larger,
// (Σ_i + Σ_j)/2 − Cov(Ŵ_i − Ŵ_jᵀ)/4, so the statistic errs towards no
// edge, as maxZ's averaged standard errors do. A row or column without
// degrees of freedom (no value pair of its value was used: WaldOneHot) is
// zero and measures nothing: it leaves the set. The degrees of freedom are
// the fewest of the rows' and columns' left; it returns the smallest
// standard error of the entries, as maxZ.
func blockZ(di, si, fi, ci, dj, sj, fj, cj []float64, k int, rows, cols []bool) (z, minSE, seDF float64) {
	minSE, seDF = math.Inf(1), math.Inf(1)
	kk := k * k
	d, c := di, ci
	if dj != nil {
		d = make([]float64, kk)
		for a := 0; a < k; a++ {
			for b := 0; b < k; b++ {
				d[a*k+b] = (di[a*k+b] + dj[b*k+a]) / 2
			}
		}
		r := k - 1
		c = make([]float64, len(ci))
		// (a, b) of node j's reduced block is (b, a) of node i's.
		tr := func(x int) int { return (x%r)*r + x/r }
		for x := 0; x < r*r; x++ {
			for y := 0; y < r*r; y++ {
				c[x*r*r+y] = (ci[x*r*r+y] + cj[tr(x)*r*r+tr(y)]) / 2
			}
		}
	}
	rows, cols = slices.Clone(rows), slices.Clone(cols)
	df := math.Inf(1)
	for a := range rows {
		if rows[a] = rows[a] && fi[a] > 0; rows[a] {
			df = math.Min(df, fi[a])
		}
	}
	if dj != nil {
		for b := range cols {
			if cols[b] = cols[b] && fj[b] > 0; cols[b] {
				df = math.Min(df, fj[b])
			}
		}
	}
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			if !rows[a] || !cols[b] {
				continue
			}
			se, f := si[a*k+b], fi[a]
			if dj != nil {
				se = (se + sj[b*k+a]) / 2
				f = math.Min(f, fj[b])
			}
			if se < minSE {
				minSE, seDF = se, f
			}
		}
	}
	w, rank := selection.BlockWald(d, c, rows, cols, k)
	return selection.BlockScore(w, rank, df), minSE, seDF
}

// ordinalZ is maxZ for the ordinal model's blocks, whose entries
// (a, b) all hold the coupling's statistic scaled by |s_i(a)·s_j(b)|: it
// reads the entry of the largest standard error (|s_i(a)·s_j(b)| = 1), so
// that the standard error it returns is the coupling's, not that of an
// entry scaled towards 0.
func ordinalZ(di, si, fi, dj, sj, fj []float64, k int, _ []bool) (z, se, seDF float64) {
	var d float64
	df := math.Inf(1)
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			dv, sv, fv := di[a*k+b], si[a*k+b], fi[a]
			if dj != nil {
				dv = (dv + dj[b*k+a]) / 2
				sv = (sv + sj[b*k+a]) / 2
				fv = math.Min(fv, fj[b])
			}
			if sv > se {
				d, se, df = dv, sv, fv
			}
		}
	}
	if d == 0 || se == 0 {
		return 0, math.Inf(1), math.Inf(1)
	}
	return selection.TScore(math.Abs(d)/se, df), se, df
}

// maxZ returns max over entries (a, b) of the normal score (selection.TScore) of
// |d(a, b)|/se(a, b), the smallest se and that entry's degrees of freedom,
// for one node's estimate (dj == nil) or for the average of node i's
// estimate and node j's transposed one. fi[a] are the degrees of freedom of
// node i's row a (fj[b] node j's of its row b); an averaged entry takes the
// fewer of its two. An entry with zero standard error counts as zero
// whatever the estimate: the sandwich variance is zero only when every
// observation has the same influence on the estimate (a handful of rows,
// such as two that mirror each other), which says that the data cannot
// measure the estimate's error, not that it has none. admit (k×k, in node
// i's layout; nil for every entry) says which entries enter.
func maxZ(di, si, fi, dj, sj, fj []float64, k int, admit []bool) (z, minSE, seDF float64) {
	minSE, seDF = math.Inf(1), math.Inf(1)
	lastT, lastDF, lastZ := math.NaN(), math.NaN(), 0.0 // k = 2 repeats one entry
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			if admit != nil && !admit[a*k+b] {
				continue
			}
			d, se, df := di[a*k+b], si[a*k+b], fi[a]
			if dj != nil {
				d = (d + dj[b*k+a]) / 2
				se = (se + sj[b*k+a]) / 2
				df = math.Min(df, fj[b])
			}
			if se < minSE {
				minSE, seDF = se, df
			}
			var v float64
			switch {
			case d == 0, se == 0:
			default:
				t := math.Abs(d) / se
				if t != lastT || df != lastDF {
					lastT, lastDF, lastZ = t, df, selection.TScore(t, df)
				}
				v = lastZ
			}
			z = math.Max(z, v)
		}
	}
	return z, minSE, seDF
}
