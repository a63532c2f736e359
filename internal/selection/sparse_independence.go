package selection

import "gonum.org/v1/gonum/stat/distuv"

// IndependencePRows is IndependenceP for complete samples of unit weights
// with the counts of the pairs' tables given a spin at a time, so that the
// test holds O(n) of them, not the n×n array of IndependenceStat (issue
// 33): ones(i, dst) sets dst[j], j > i, to the number of rows with z_i =
// z_j = 1 (dst has n entries; those up to i are not read). The pairs are
// added in IndependenceStat's order, so the p-value is the same bits.
func IndependencePRows(n int, counts [][]float64, total float64, ones func(i int, dst []float64)) (p float64, pairs int) {
	var stat, mean, variance float64
	row := make([]float64, n)
	for i := 0; i < n; i++ {
		r := counts[i][1]
		if r <= 0 || r >= total {
			continue
		}
		filled := false
		for j := i + 1; j < n; j++ {
			c := counts[j][1]
			if c <= 0 || c >= total || !CochranOK(counts[i], counts[j], total) {
				continue
			}
			if !filled {
				ones(i, row)
				filled = true
			}
			x, m, v := pairChi(total, r, c, row[j])
			stat += x
			mean += m
			variance += v
			pairs++
		}
	}
	if pairs == 0 || !(variance > 0) {
		return 1, pairs
	}
	scale := variance / (2 * mean)
	return distuv.ChiSquared{K: 2 * mean * mean / variance}.Survival(stat / scale), pairs
}
