package estimates

// OrdinalLayout returns node i's blocks of the ordinal model,
// W_ij(a, b) = w_j·s_i(a)·s_j(b), in the layout of the root's per-node
// estimates (n blocks of k×k, block j at j·k²; block i zero), from the
// couplings w (one a variable) and the scores s_j(a) (n×k). With abs the
// blocks hold |w_j·s_i(a)·s_j(b)|: the standard errors of the same
// entries when w holds those of the couplings.
func OrdinalLayout(i, n, k int, w, scores []float64, abs bool) []float64 {
	kk := k * k
	out := make([]float64, n*kk)
	si := scores[i*k : (i+1)*k]
	for j := 0; j < n; j++ {
		if j == i || w[j] == 0 {
			continue
		}
		sj := scores[j*k : (j+1)*k]
		blk := out[j*kk : (j+1)*kk]
		for a, x := range si {
			for b, y := range sj {
				v := w[j] * x * y
				if abs && v < 0 {
					v = -v
				}
				blk[a*k+b] = v
			}
		}
	}
	return out
}
