package selection

import (
	"context"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// The EBIC graph of the ordinal model: the small-sample stage of the Ising
// path (ebic_graph.go, steps 1 to 4) carried over to the ordinal model's
// nodes, with each step's choice kept (the level α/2, IsingFit's γ = 0.25
// and AND rule, the half rule, BIC on refitted likelihoods); none of them
// was chosen on ordinal data.
//
//  1. The global test of independence is Mantel's: T = Σ (N − 1)·r_ij² over
//     the pairs of variables that take two answers or more, r_ij the
//     correlation of their scores. Under independence each term has mean 1
//     given the margins and is asymptotically χ²₁, and two terms are
//     uncorrelated (as on the Ising path); T is referred to χ² with as many
//     degrees of freedom as terms.
//  2. G_A: each node's neighbourhood is chosen by EBIC (Foygel and Drton
//     2010, γ = 0.25, IsingFit's), −2N·L + |J|·ln N + 2γ|J|·ln(n − 1), over
//     the nested sets of its |J| = 0, 1, 2, … variables of largest Wald
//     statistic in the node's full refit, each refitted without
//     constraint (OrdinalRefit on the set): a path ordered by the data, as
//     the lasso's is, on the model the test uses. The path stops where the
//     refit has no estimate or three steps past the smallest criterion.
//     G_A holds the pairs both nodes choose. The paths cost a few refits a
//     node, up to several times the whole fit at N = 2500; they are run
//     only when some pair that G_W lacks passes EBIC's penalty of one
//     coefficient in both nodes' full refits (z² ≥ ln N + 2γ·ln(n − 1), a
//     pair EBIC would keep when dropping one variable at a time from the
//     full models). When there is none, G_W stands: the screen is ours, a
//     shortcut, measured on the Likert study's msq and sai truths: the same
//     numbers of edges and of true edges as with the paths in all 60 runs
//     (N = 250, 500 and 2500, 5 seeds each), in a third of their time at
//     N = 2500.
//  3. and 4. as on the Ising path (chooseUnion), the refits' deviances
//     those of the ordinal model.

// ordinalGamma is EBIC's γ for the nodes' paths, IsingFit's.
const ordinalGamma = 0.25

// ordinalPathPatience is the number of steps the EBIC path of a node goes
// past its smallest criterion before it stops.
const ordinalPathPatience = 3

// OrdinalIndependenceP returns the p-value of Mantel's global test of
// independence of the variables of s on their scores (n×k, OrdinalRefit's)
// and the number of pairs in it: step 1 above. It returns 1 and 0 when no
// pair has two variables that vary.
func OrdinalIndependenceP(s *Data, scores []float64) (p float64, pairs int) {
	n, k := s.N, s.K
	states := s.States()
	mean := make([]float64, n)
	total := 0.0
	for m := 0; m < s.Count; m++ {
		c := s.Weight(m)
		if c == 0 {
			continue
		}
		total += c
		for j, a := range states[m*n : (m+1)*n] {
			mean[j] += c * scores[j*k+int(a)]
		}
	}
	if !(total > 1) {
		return 1, 0
	}
	for j := range mean {
		mean[j] /= total
	}
	cross := make([]float64, n*n) // upper triangle and diagonal
	x := make([]float64, n)
	for m := 0; m < s.Count; m++ {
		c := s.Weight(m)
		if c == 0 {
			continue
		}
		for j, a := range states[m*n : (m+1)*n] {
			x[j] = scores[j*k+int(a)] - mean[j]
		}
		for i, xi := range x {
			if xi == 0 {
				continue
			}
			row := cross[i*n:]
			f := c * xi
			for j := i; j < n; j++ {
				row[j] += f * x[j]
			}
		}
	}
	stat := 0.0
	for i := 0; i < n; i++ {
		vi := cross[i*n+i]
		if !(vi > 1e-12*total) {
			continue
		}
		for j := i + 1; j < n; j++ {
			vj := cross[j*n+j]
			if !(vj > 1e-12*total) {
				continue
			}
			r := cross[i*n+j] / math.Sqrt(vi*vj)
			stat += (total - 1) * r * r
			pairs++
		}
	}
	if pairs == 0 {
		return 1, 0
	}
	return distuv.ChiSquared{K: float64(pairs)}.Survival(stat), pairs
}

// OrdinalEBICGraph runs steps 2 to 4 above: z[i][j] is node i's Wald
// statistic of its coupling to j in its full refit (the path's order),
// keep holds G_W (pairs i < j), excluded the pairs G_A may not hold. It
// returns the learned graph and whether it is G_U; once ctx is done it
// returns ctx.Err().
func OrdinalEBICGraph(ctx context.Context, s *Data, scores []float64, z [][]float64, keep map[[2]int]bool, excluded func(i, j int) bool, workers int) (map[[2]int]bool, bool, error) {
	return pathEBICGraph(ctx, s, ordinalPath(s, scores), z, keep, excluded, workers)
}

// MixedEBICGraph is OrdinalEBICGraph on the mixed model (mixed.go): each
// node's path adds its neighbours one variable at a time (all of a
// nominal variable's columns at once), refitted by MixedRefit without
// ridge, and EBIC counts the couplings a step adds in its ln N term
// (dim R_i × dim X_j: one between ordinal variables, as on the ordinal
// scale) and the variables in its 2γ·ln(n − 1) term (the neighbourhoods
// it chooses among).
func MixedEBICGraph(ctx context.Context, s *Data, v *MixedVars, z [][]float64, keep map[[2]int]bool, excluded func(i, j int) bool, workers int) (map[[2]int]bool, bool, error) {
	return pathEBICGraph(ctx, s, mixedPath(s, v), z, keep, excluded, workers)
}

// pathRefit refits node i on the variables cols for an EBIC path, from
// prev, the fit of the path's previous step (nil at its start), to the
// decrement tol. It returns the mean log-likelihood, the couplings in the
// fit, the state the next step starts from, and false when the fit has no
// estimate.
type pathRefit func(i int, cols []int, prev any, tol float64) (ll float64, params int, next any, ok bool)

// ordinalPath is pathRefit on the ordinal model: ordinalRefit, warm-started
// from the previous step's fields and couplings.
func ordinalPath(s *Data, scores []float64) pathRefit {
	return func(i int, cols []int, prev any, tol float64) (float64, int, any, bool) {
		start, _ := prev.([]float64)
		w, _, theta, _, ll, ok := ordinalRefit(s, i, scores, cols, start, tol)
		if !ok {
			return 0, 0, nil, false
		}
		// The next fit starts from this one: its fields, then its
		// couplings in the path's order.
		next := make([]float64, 0, len(theta)+len(cols))
		for _, v := range theta {
			if !math.IsNaN(v) {
				next = append(next, v)
			}
		}
		next = next[1:] // the first answer's field is 0, not a parameter
		for _, j := range cols {
			next = append(next, w[j])
		}
		return ll, len(cols), next, true
	}
}

// mixedPath is pathRefit on the mixed model.
func mixedPath(s *Data, v *MixedVars) pathRefit {
	return func(i int, cols []int, prev any, tol float64) (float64, int, any, bool) {
		p, _ := prev.(*MixedFit)
		f, ok := MixedRefit(s, i, v, cols, p, tol, 0)
		if !ok {
			return 0, 0, nil, false
		}
		return f.MeanLL, f.RDim * f.P, f, true
	}
}

// pathEBICGraph runs steps 2 to 4 above with the node refits of fit.
func pathEBICGraph(ctx context.Context, s *Data, fit pathRefit, z [][]float64, keep map[[2]int]bool, excluded func(i, j int) bool, workers int) (map[[2]int]bool, bool, error) {
	n := s.N
	// The screen: when the test already keeps every pair whose Wald
	// statistic passes EBIC's penalty of one coefficient in both nodes'
	// full refits, z² ≥ ln N + 2γ·ln(n − 1) (the pairs EBIC would not drop
	// from the full models one at a time), G_W stands without the paths.
	pen := math.Log(s.Total) + 2*ordinalGamma*math.Log(float64(max(n-1, 1)))
	supported := false
	for i := 0; i < n && !supported; i++ {
		for j := i + 1; j < n; j++ {
			if !excluded(i, j) && z[i][j]*z[i][j] >= pen && z[j][i]*z[j][i] >= pen && !keep[[2]int{i, j}] {
				supported = true
				break
			}
		}
	}
	if !supported && len(keep) > 0 {
		return keep, false, nil
	}
	chosen := make([][]bool, n)
	if err := eachIndex(ctx, workers, n, func(i int) {
		chosen[i] = ebicNeighbours(s, i, fit, z[i])
	}); err != nil {
		return nil, false, err
	}
	union := make(map[[2]int]bool, len(keep))
	for e := range keep {
		union[e] = true
	}
	and, confirmed := 0, 0
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if excluded(i, j) || chosen[i] == nil || chosen[j] == nil || !chosen[i][j] || !chosen[j][i] {
				continue
			}
			and++
			if keep[[2]int{i, j}] {
				confirmed++
			}
			union[[2]int{i, j}] = true
		}
	}
	dev := func(_ context.Context, i int, nb, _ []int) (float64, bool) {
		ll, _, _, ok := fit(i, nb, nil, ordinalPathTol)
		return -2 * s.Total * ll, ok
	}
	return chooseUnion(ctx, n, s.Total, keep, union, and, confirmed, dev, nil, workers)
}

// ebicNeighbours returns node i's neighbourhood chosen by EBIC on the
// path of step 2 (chosen[j] true for the neighbours j), nil when not even
// the empty set could be fitted.
func ebicNeighbours(s *Data, i int, fit pathRefit, zi []float64) []bool {
	n := s.N
	order := make([]int, 0, n-1)
	for j := 0; j < n; j++ {
		if j != i && zi[j] > 0 {
			order = append(order, j)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return zi[order[a]] > zi[order[b]] })
	logN, logP := math.Log(s.Total), math.Log(float64(max(n-1, 1)))
	best, bestM := math.Inf(1), -1
	var prev any
	for m := 0; m <= len(order); m++ {
		if m > bestM+ordinalPathPatience && bestM >= 0 {
			break
		}
		ll, params, next, ok := fit(i, order[:m], prev, ordinalPathTol)
		if !ok {
			break
		}
		prev = next
		ebic := -2*s.Total*ll + float64(params)*logN + 2*ordinalGamma*float64(m)*logP
		if ebic < best {
			best, bestM = ebic, m
		}
	}
	if bestM < 0 {
		return nil
	}
	chosen := make([]bool, n)
	for _, j := range order[:bestM] {
		chosen[j] = true
	}
	return chosen
}
