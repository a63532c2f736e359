package pairwise

import (
	"context"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// edgeTest is the stage that chooses the graph when η was not given (see
// WithFalseEdgeRate): every pair's statistic from the debiased estimates
// and standard errors that fitNode prepared, the Ising path's refit of the
// screened pairs, then the cut (the Bonferroni critical value, the gap
// rule or the mixture). res holds every pair with a nonzero estimate; the
// pairs that fail the test leave its Edges and Model, and
// res.MinEdgeWeight becomes η̂.
func (r *run) edgeTest(ctx context.Context, res *Result, tun *Tuning) error {
	n, k := tun.n, tun.k
	tun.FalseEdgeRate = r.cfg.alpha
	pairs := n * (n - 1) / 2
	tests := float64(pairs) // k = 2: the four entries have one |value| and one SE
	if k > 2 {
		tests *= float64(k * k)
	}
	if r.cfg.symmetric == Or {
		tests *= 2
	}
	tun.Critical = -distuv.UnitNormal.Quantile(r.cfg.alpha / (2 * tests))
	tun.scores = make([]float64, n*n)
	tun.debias = make([][]float64, n)
	tun.stdErrs = make([][]float64, n)
	for i := range r.nodes {
		tun.debias[i] = r.nodes[i].d
		tun.stdErrs[i] = r.nodes[i].se
	}
	kk := k * k
	scores := make([]float64, 0, pairs)
	minSEs := make([]float64, 0, pairs)
	ij := make([][2]int, 0, pairs)
	// score returns pair (i, j)'s statistic and smallest standard error
	// under the symmetrisation rule.
	score := func(i, j int) (score, minSE float64) {
		di, si := tun.debias[i][j*kk:(j+1)*kk], tun.stdErrs[i][j*kk:(j+1)*kk]
		dj, sj := tun.debias[j][i*kk:(i+1)*kk], tun.stdErrs[j][i*kk:(i+1)*kk]
		switch r.cfg.symmetric {
		case And, Or:
			zi, mi := maxZ(di, si, nil, nil, k)
			zj, mj := maxZ(dj, sj, nil, nil, k)
			if r.cfg.symmetric == Or {
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
	lowest := -distuv.UnitNormal.Quantile(1 / (2 * tests))
	// gapScores are the statistics the gap rule sees: after the refit,
	// the pairs that were not screened count as zero.
	gapScores := scores
	if k == 2 && !r.cfg.noRefit {
		screen := math.Min(refitScreen, lowest)
		d, se, screened, err := refitAll(ctx, r.s, tun.scores, screen, r.cfg.workers)
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
	}
	tun.Threshold = tun.Critical
	mixed := false
	if k == 2 && !r.cfg.noMixture {
		// The mixture sees every pair's statistic: the refit's for the
		// screened pairs, the first stage's for the others (which are
		// not edges whatever it says: they are zero in gapScores).
		mixScores := make([]float64, len(scores))
		for p, e := range ij {
			mixScores[p] = tun.scores[e[0]*n+e[1]]
		}
		tun.Threshold, mixed = mixtureCut(tun, gapScores, mixScores, lowest)
	}
	if !mixed && !r.cfg.noGap {
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
	return nil
}
