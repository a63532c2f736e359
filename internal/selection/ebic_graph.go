package selection

import (
	"context"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/internal/estimates"
)

// The EBIC graph: the stage of the Ising edge test for small samples
// (WaldTest.NoEBICGraph, WithEBICGraph). It goes beyond the paper and beyond
// the test's Bonferroni guarantee; docs/psych/power.md has the measurement
// that motivated it, on truths that took no part in choosing it.
//
// Why. The Wald test needs each node's regression on all n − 1 other spins
// to be inside its asymptotic regime. With few observations (on 25
// questionnaire items: a few hundred people) the debiased estimates'
// standard errors are so wide that hardly a pair reaches the Bonferroni
// value, and below two observations of the rarer label per coefficient the
// test cannot be used at all (small_samples.go, in this package): on the questionnaire-shaped
// networks of the psych study at N = 100 it found no edge in 20 of 20 runs,
// where IsingFit's rule (a pair is an edge when both nodes' EBIC-selected ℓ1
// fits keep it) found a sixth of the true edges with a precision of 0.75.
// The learner has already made those fits: their And graph G_A is at hand.
// What is missing is a way to decide when to believe it rather than the
// test's graph G_W, without giving up the test's guarantee on independent
// data or its exact recoveries where it has the power.
//
// The stage runs on Ising data when the widths were chosen by EBIC (the
// default Selection), after the test has chosen G_W:
//
//  1. A global test of independence at level α/2 (α the test's
//     FalseEdgeRate): T = Σ N·r_ij² over the pairs whose 2×2 table passes
//     Cochran's rule (r_ij the correlation of spins i and j: N·r_ij² is
//     Pearson's chi-square of the table). Given the margins, independent
//     spins make each table hypergeometric, so the mean and the variance of
//     every term are known exactly (HyperChiMoments), and the terms are
//     uncorrelated: two pairs that share spin i are independent given spin
//     i, and each term's conditional mean does not depend on it. T is
//     referred to the scaled chi-square law with that mean and variance
//     (Satterthwaite 1946). Unless it rejects, G_W stands. The law is an
//     approximation: on independent data (4000 runs a cell, n = 5 to 30,
//     N = 50 to 1000, P(1) = 0.3 and 0.5) the test at level 0.01 rejected
//     in 0.8% to 1.4% of runs, at 0.005 in 0.3% to 0.8%. Hence α/2: the
//     stage adds an edge to independent data in at most about α/2 of runs,
//     and with the Wald test's own α a model with no edge is learned with
//     one with probability at most about 1.5α.
//  2. G_A is the set of pairs whose coupling both nodes' constrained fits
//     keep nonzero (but pairs of a constant variable). If it adds nothing
//     to G_W, G_W stands. If G_W is empty, the graph is G_U = G_W ∪ G_A:
//     the global test has rejected the empty graph, and G_A is the
//     estimate there is.
//  3. If the Wald test kept at least half of G_A's pairs, G_W stands: a test
//     that finds most of the pairs the EBIC fits select has the power to
//     judge the others, and its verdict is the one with a false-edge rate.
//     (As N grows the test finds every edge while the EBIC fits keep a
//     growing number of weak nonzero couplings: on the diamond at N = 10⁴
//     G_W is the 16 edges and G_A holds 22 to 31 pairs. Step 4 is the
//     guard there.)
//  4. Otherwise the test finds less than half of what the fits select, and
//     the two candidate graphs are compared by BIC (Schwarz 1978) on the
//     nodes' conditional likelihoods refitted without constraint on their
//     neighbours in each graph (the maximum likelihood estimates of the
//     refit stage):
//
//     BIC(G) = Σ_i [2N·L_i(G) + deg_i(G)·ln N];
//
//     G_U is the learned graph when its BIC is the smaller. When a refit
//     has no finite estimate (separated labels), G_W stands. BIC, not the
//     EBIC that chose the widths: the comparison is between two graphs, not
//     a search over the subsets of a size, whose number EBIC's γ term
//     (Chen and Chen 2008) accounts for. BIC's penalty grows with ln N
//     while a false edge's gain in likelihood does not, so as N grows G_U
//     wins only when G_A's extra pairs carry real evidence. On bit
//     samples the refits on G_U are first spared where they cannot
//     matter: a bound on each node's deviance reduction from one pass at
//     its refit on G_W (ebic_bound.go) shows, when the bounds add up to
//     less than the penalty of G_U's extra pairs, that the refits would
//     keep G_W, and G_W stands without them (the same graph; at N = 10⁶
//     rows the refits on G_U's forty-odd spins a node cost more than the
//     fits).
//
// None of this is a test of each pair: the pairs the stage adds carry no
// false-edge rate, as IsingFit's do not. Tuning.EBICGraph says when the
// stage chose the graph and Tuning.GlobalP gives the global test's p-value;
// the command prints both.

// IndependenceP returns the p-value of the global test of independence of
// the spins of s (k = 2) and the number of pairs that entered it: step 1
// above. counts are the value weights (valueWeights) and total the samples'
// total weight N. It returns 1 and 0 when no pair passes Cochran's rule
// (then nothing can be said).
func IndependenceP(s *Data, counts [][]float64, total float64) (p float64, pairs int) {
	stat, mean, variance, pairs := IndependenceStat(s, counts, total)
	if pairs == 0 || !(variance > 0) {
		return 1, pairs
	}
	scale := variance / (2 * mean)
	return distuv.ChiSquared{K: 2 * mean * mean / variance}.Survival(stat / scale), pairs
}

// IndependenceStat returns T = Σ N·r_ij² over the pairs whose table passes
// Cochran's rule, its mean and variance given the margins under
// independence, and the number of those pairs.
func IndependenceStat(s *Data, counts [][]float64, total float64) (stat, mean, variance float64, pairs int) {
	if s.Incomplete {
		return independenceStatMissing(s)
	}
	n := s.N
	// ones[i*n+j], i < j: the weight of the rows with z_i = z_j = 1.
	ones := make([]float64, n*n)
	idx := make([]int, 0, n)
	buf := make([]uint8, n)
	for m := 0; m < s.Count; m++ {
		c := s.Weight(m)
		if c == 0 {
			continue
		}
		idx = idx[:0]
		for i, z := range s.Row(buf, m) {
			if z == 1 {
				idx = append(idx, i)
			}
		}
		for x, i := range idx {
			row := ones[i*n:]
			for _, j := range idx[x+1:] {
				row[j] += c
			}
		}
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			r, c := counts[i][1], counts[j][1]
			if r <= 0 || c <= 0 || r >= total || c >= total || !CochranOK(counts[i], counts[j], total) {
				continue
			}
			x, m, v := pairChi(total, r, c, ones[i*n+j])
			stat += x
			mean += m
			variance += v
			pairs++
		}
	}
	return stat, mean, variance, pairs
}

// pairChi returns one pair's Pearson chi-square on its 2×2 table (total
// rows, r and c of them with the first and the second spin up, n11 with
// both) and the exact mean and variance of that statistic under the
// hypergeometric law with those margins (HyperChiMoments).
func pairChi(total, r, c, n11 float64) (stat, mean, variance float64) {
	d := total*n11 - r*c
	stat = total * d * d / (r * (total - r) * c * (total - c))
	mean, variance = HyperChiMoments(total, r, c)
	return stat, mean, variance
}

// independenceStatMissing is IndependenceStat for samples with missing
// values (AvailableCase): each pair's table holds the rows that observe
// both of its variables, with its own total and margins.
func independenceStatMissing(s *Data) (stat, mean, variance float64, pairs int) {
	n := s.N
	// For i < j over the rows that observe both: both[i*n+j] their
	// weight, ones their weight with z_i = z_j = 1; first[i*n+j] the
	// weight with z_i = 1, first[j*n+i] that with z_j = 1.
	both, ones, first := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
	obs := make([]int, 0, n)
	for m := 0; m < s.Count; m++ {
		c := s.Weight(m)
		if c == 0 {
			continue
		}
		row := s.States()[m*n : (m+1)*n]
		obs = obs[:0]
		for i, z := range row {
			if z < 2 {
				obs = append(obs, i)
			}
		}
		for x, i := range obs {
			zi := row[i]
			for _, j := range obs[x+1:] {
				zj := row[j]
				both[i*n+j] += c
				if zi == 1 {
					first[i*n+j] += c
				}
				if zj == 1 {
					first[j*n+i] += c
				}
				if zi == 1 && zj == 1 {
					ones[i*n+j] += c
				}
			}
		}
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			total, r, c := both[i*n+j], first[i*n+j], first[j*n+i]
			if r <= 0 || c <= 0 || r >= total || c >= total || !(total > 3) ||
				!CochranOK([]float64{total - r, r}, []float64{total - c, c}, total) {
				continue
			}
			x, m, v := pairChi(total, r, c, ones[i*n+j])
			stat += x
			mean += m
			variance += v
			pairs++
		}
	}
	return stat, mean, variance, pairs
}

// HyperChiMoments returns the mean and variance of Pearson's chi-square
// N·r² of a 2×2 table with margins r and c (the weights of value 1 of the
// two variables) and total N > 3, when the table is hypergeometric (the
// variables independent given the margins): N·r² = N/(N − 1)·U², U the
// standardised count of the (1, 1) cell, so the mean is N/(N − 1) and the
// variance (N/(N − 1))²·(κ + 2), κ the hypergeometric law's excess
// kurtosis (the closed form for population N, r successes, c draws).
func HyperChiMoments(total, r, c float64) (mean, variance float64) {
	nn := total
	f := nn / (nn - 1)
	kurt := ((nn-1)*nn*nn*(nn*(nn+1)-6*r*(nn-r)-6*c*(nn-c)) + 6*c*r*(nn-r)*(nn-c)*(5*nn-6)) /
		(c * r * (nn - r) * (nn - c) * (nn - 2) * (nn - 3))
	return f, f * f * (kurt + 2)
}

// EBICGraph runs steps 2 to 4 above: keep holds G_W (pairs i < j), est
// the nodes' constrained estimates (Result.est) and
// excluded the pairs G_A may not hold. It returns the learned graph and
// whether it is G_U; once ctx is done it returns ctx.Err().
func EBICGraph(ctx context.Context, s *Data, est []*estimates.Node, keep map[[2]int]bool, excluded func(i, j int) bool, workers int) (map[[2]int]bool, bool, error) {
	n := s.N
	union := make(map[[2]int]bool, len(keep))
	for e := range keep {
		union[e] = true
	}
	var bi, bj [4]float64 // the blocks of the Ising form (estimates.BlockTo)
	add := func(i, j int) {
		if union[[2]int{i, j}] || excluded(i, j) {
			return
		}
		if estimates.MaxAbs(est[i].BlockTo(bi[:0], j)) > 0 && estimates.MaxAbs(est[j].BlockTo(bj[:0], i)) > 0 {
			union[[2]int{i, j}] = true
		}
	}
	for i := 0; i < n; i++ {
		if est[i].FillZero() {
			// Only the listed spins can be nonzero: O(n·d), not O(n²).
			for _, j := range est[i].At {
				if int(j) > i {
					add(i, int(j))
				}
			}
			continue
		}
		for j := i + 1; j < n; j++ {
			add(i, j)
		}
	}
	// confirmed counts the pairs of G_A that the Wald test kept.
	and, confirmed := len(union)-len(keep), 0
	for e := range keep {
		i, j := e[0], e[1]
		if estimates.MaxAbs(est[i].BlockTo(bi[:0], j)) > 0 && estimates.MaxAbs(est[j].BlockTo(bj[:0], i)) > 0 && !excluded(i, j) {
			and++
			confirmed++
		}
	}
	dev := func(ctx context.Context, i int, nb, need []int) (float64, bool) {
		return refitDeviance(ctx, s, i, nb, need)
	}
	bound := func(ctx context.Context, i int, nbW, nbU []int) (float64, bool) {
		return reductionBound(ctx, s, i, nbW, nbU)
	}
	return chooseUnion(ctx, n, s.Total, keep, union, and, confirmed, dev, bound, workers)
}

// chooseUnion runs steps 2 to 4 above once G_A is known: keep holds G_W,
// union G_U = G_W ∪ G_A, and the number of pairs of G_A and confirmed those
// of them in G_W. deviance(i, nb, need) returns 2N·L of node i's
// conditional law refitted without constraint on the neighbours nb (on the
// rows that observe need ⊇ nb when values are missing), ok false when the
// estimate does not exist. total is N. It returns the graph and whether it
// is G_U.
//
// bound, when not nil, returns an upper bound on node i's deviance
// reduction devW − devU from nbW to nbU (reductionBound), ok false when it
// has none. The nodes without one are refitted; when their reductions and
// the others' bounds add up to less than the penalty of the extra pairs,
// G_W stands without the other refits, which would have kept it too
// (ebic_bound.go). The graph is the one the refits alone give.
func chooseUnion(ctx context.Context, n int, total float64, keep, union map[[2]int]bool, and, confirmed int, deviance func(ctx context.Context, i int, nb, need []int) (float64, bool), bound func(ctx context.Context, i int, nbW, nbU []int) (float64, bool), workers int) (map[[2]int]bool, bool, error) {
	switch {
	case len(union) == len(keep):
		return keep, false, nil
	case len(keep) == 0:
		// The global test has rejected the empty graph.
		return union, true, nil
	case 2*confirmed >= and:
		// The test has the power to judge the EBIC fits' pairs.
		return keep, false, nil
	}
	nbW, nbU := Neighbours(n, keep), Neighbours(n, union)
	// Only the nodes whose neighbourhoods differ contribute to the
	// difference of the criteria.
	var changed []int
	for i := 0; i < n; i++ {
		if len(nbW[i]) != len(nbU[i]) {
			changed = append(changed, i)
		}
	}
	// BIC(G_U) − BIC(G_W): each added pair is a coefficient in both of its
	// nodes' regressions.
	penalty := 2 * float64(len(union)-len(keep)) * math.Log(total)
	// The margin of 1e-9 of the penalty stands for the rounding of the
	// bounds and of the refits' losses.
	limit := penalty * (1 - 1e-9)
	// The bounds first (ebic_bound.go): where every changed node has one
	// and they add up to less than the penalty, G_W stands.
	var bnd []float64
	var hasB []bool
	if bound != nil {
		bnd, hasB = make([]float64, len(changed)), make([]bool, len(changed))
		if err := eachIndex(ctx, workers, len(changed), func(x int) {
			i := changed[x]
			bnd[x], hasB[x] = bound(ctx, i, nbW[i], nbU[i])
		}); err != nil {
			return nil, false, err
		}
	}
	// The refits of the nodes without a bound, then, unless those
	// reductions and the others' bounds settle it, the rest.
	var first, rest []int
	for x, i := range changed {
		if hasB != nil && hasB[x] {
			rest = append(rest, i)
		} else {
			first = append(first, i)
		}
	}
	devW, devU := make([]float64, n), make([]float64, n)
	okW, okU := make([]bool, n), make([]bool, n)
	for step, nodes := range [][]int{first, rest} {
		if step == 1 && len(rest) > 0 {
			sum := 0.0
			for x, i := range changed {
				if hasB[x] {
					sum += bnd[x]
				} else {
					sum += devW[i] - devU[i]
				}
			}
			if sum < limit {
				return keep, false, nil
			}
		}
		err := eachIndex(ctx, workers, len(nodes), func(x int) {
			i := nodes[x]
			// Both on the rows that observe i and nbU[i] ⊇ nbW[i] when
			// values are missing, so that they compare.
			devW[i], okW[i] = deviance(ctx, i, nbW[i], nbU[i])
			devU[i], okU[i] = deviance(ctx, i, nbU[i], nbU[i])
		})
		if err != nil {
			return nil, false, err
		}
		for _, i := range nodes {
			if !okU[i] || !okW[i] {
				// No finite estimate (separated labels): the likelihood
				// is unbounded and the comparison meaningless; G_W stays.
				return keep, false, nil
			}
		}
	}
	diff := penalty
	for _, i := range changed {
		diff += devU[i] - devW[i]
	}
	if diff < 0 {
		return union, true, nil
	}
	return keep, false, nil
}

// Neighbours returns, for every node, its neighbours in the graph g (pairs
// i < j), in increasing order.
func Neighbours(n int, g map[[2]int]bool) [][]int {
	nb := make([][]int, n)
	for e, in := range g {
		if i, j := e[0], e[1]; in && 0 <= i && i < j && j < n {
			nb[i] = append(nb[i], j)
			nb[j] = append(nb[j], i)
		}
	}
	for _, l := range nb {
		slices.Sort(l)
	}
	return nb
}

// refitDeviance returns 2N·L of node i's logistic regression on the spins
// nb and an intercept, fitted without constraint (the maximum likelihood
// estimate, as the refit stage fits it), N the total weight; ok is false
// when the estimate does not exist or was not reached. With missing
// values (AvailableCase) the rows are those that observe z_i and every
// spin of need (which holds nb), and N is their weight, so that two fits
// on the same need compare.
func refitDeviance(ctx context.Context, s *Data, i int, nb, need []int) (float64, bool) {
	_, dev, ok := refitMLE(ctx, s, i, nb, need)
	return dev, ok
}

// refitMLE is refitDeviance that also returns the estimate, (intercept,
// w_nb).
func refitMLE(ctx context.Context, s *Data, i int, nb, need []int) (w []float64, dev float64, ok bool) {
	data := newRefitData(s, i, nb, need, MaxRefitTable)
	task := &engine.Task{Bias: i, Each: data.each, Patterns: data.keys}
	w = make([]float64, len(nb)+1)
	var e engine.Driver
	st, err := e.Fit(ctx, task, nil, math.Inf(1), w)
	if err != nil || !st.Converged {
		return nil, 0, false
	}
	return w, 2 * data.total * st.Loss, true
}
