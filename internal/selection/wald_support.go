package selection

import (
	"gonum.org/v1/gonum/floats"

	"github.com/mrfkit/pairwise/internal/engine"
)

// The edge test's first stage at scale. WaldSpins forms node i's moments H
// and J over all n coefficients, about N·n²/8 additions a node and an n×n
// inversion, so that the test of all nodes costs O(N·n³): at n = 1,000 and
// N = 10⁴ it took far longer than the fits. A node with d neighbours needs
// only its support. From WaldDenseMax variables on, node i's test is made
// in the support model instead: with A the bias and the spins j with
// ŵ_j ≠ 0 (the constrained fit's support),
//
//   - a spin j of A is tested by the one-step debiased estimate of the
//     regression on A, d_A = ŵ_A − H_AA⁻¹ g_A, with its sandwich variance
//     (H_AA⁻¹ J_AA H_AA⁻¹ − δδᵀ)/N, δ = H_AA⁻¹ g_A;
//   - any other spin j is tested in the regression on A ∪ {j}, one Newton
//     step from (ŵ_A, 0). By the block inverse, with b = H_AA⁻¹ H_Aj and
//     the Schur complement s = H_jj − H_jA b, the step in j is
//     δ_j = (g_j − bᵀg_A)/s, d_j = −δ_j, and the row of (H_{A∪j})⁻¹ for
//     j is θ = (−b, 1)/s, so Var(d_j) = (θᵀ J_{A∪j} θ − δ_j²)/N with
//     θᵀJθ = (J_jj − 2bᵀJ_Aj + bᵀJ_AA b)/s².
//
// Every moment it needs lies in the rows of H and J for the columns of A
// (H_A·, J_A·, p × n with p = |A|) and in g: with the sign patterns of the
// spins of A in groups of eight (as WaldChunk), about 2·N·n additions a
// group of A, O(N·n) a node for a bounded support. The regressions have
// p + 1 coefficients at most, which sets the degrees of freedom N − p − 1,
// the HC1 factor and the events rule (small_samples.go, in this package).
//
// This is the low-dimensional test of a coefficient given the selected
// neighbourhood, not the full regression's: when A holds the true
// neighbourhood, node i's law given A is exactly logistic and the
// statistic of a spin outside it is asymptotically standard normal. It
// also drops the variance that the n − 1 − p other spins add to each
// estimate (about a factor 1 + n/N), which is what the refit stage does
// for the screened pairs. Below WaldDenseMax the full regression's test
// runs as before, so that the stages tuned on the models of docs/tuning
// (all with fewer variables) see the statistics they were tuned on.

// WaldDenseMax is the number of variables up to which the Ising edge test
// forms node i's moments over all n coefficients (WaldSpins); above it,
// over the support (WaldSpinsSupport). At n = 256 and N = 10⁴ the dense
// moments cost about 8·10⁷ additions and a 256×256 inversion a node.
const WaldDenseMax = 256

// SupportWald reports whether the Ising edge test on s is made in the
// nodes' support models: more than dense (WaldDenseMax but in tests)
// variables and no missing value (missing spins enter as 0, which the sign patterns do not cover).
// The refit stage then does not run: the support model is already the
// regression on the likely neighbours that it would fit.
func SupportWald(s *Data, dense int) bool {
	return s.N > dense && !s.Incomplete
}

// WaldSpinsSupport is WaldSpins in the support model (see above), for
// complete samples: the debiased Â_ij of node i = task.Bias and their
// standard errors in the Ising form, and the degrees of freedom N − p − 1
// for both values of z_i. u is scratch for the margins (one entry a row).
func WaldSpinsSupport(s *Data, task *engine.Task, w, u []float64) (d, se, df []float64) {
	rows := len(task.Y)
	total := engine.WeightSum(task.C, rows)
	if !(total > 0) {
		return nil, nil, nil
	}
	u = u[:rows]
	SupportMargins(s, task.Bias, w, u)
	return WaldSupport(s, task, w, u, total)
}

// WaldSupport is WaldSpinsSupport at the margins u (u_m = ⟨w, x_m⟩) and
// the total weight total > 0 of the task's rows.
func WaldSupport(s *Data, task *engine.Task, w, u []float64, total float64) (d, se, df []float64) {
	// SupportSubset's sums (sparse_support.go), so that the dense test
	// and the sparse one read the same bits.
	a, sd, dof := SupportSubset(s, task, w, u, total, nil)
	n := s.N
	d, se = make([]float64, 4*n), make([]float64, 4*n)
	for j := range a {
		if j != task.Bias {
			setIsingEntry(d, se, j, a[j], sd[j])
		}
	}
	return d, se, []float64{dof, dof}
}

// supportMoments are the sums over some rows that WaldSpinsSupport needs:
// the rows of H and J for the columns of A (p × n, row-major), g, and the
// diagonal entries Σα_m and Σβ_m that every spin shares.
type supportMoments struct {
	H, J, G []float64
	Hd, Jd  float64
}

// SupportChunk returns the moments of rows lo..hi-1 of the task for the
// columns cols: the rows of H = Σ α_m x_m x_mᵀ and J = Σ β_m x_m x_mᵀ for
// those columns. As in WaldChunk, the columns of A go in groups of eight,
// and for each group the sums V_c = Σ α_m x_m over the rows of sign
// pattern c on the group are accumulated (two scaled additions of length
// n a row and group); row t of the group is then Σ_c s_t(c) V_c, whole
// rows contracted as WaldChunk's triangles (waldContract).
func SupportChunk(s *Data, task *engine.Task, cols []int, u []float64, total float64, lo, hi int) supportMoments {
	n, i, p := s.N, task.Bias, len(cols)
	const per = 8
	groups := (p + per - 1) / per
	tab := make([][]float64, groups)
	for gr := range tab {
		tab[gr] = make([]float64, 2*(1<<min(per, p-gr*per))*n) // H's then J's
	}
	sm := supportMoments{H: make([]float64, p*n), J: make([]float64, p*n), G: make([]float64, n)}
	x := make([]float64, n)
	states := s.States() // complete data (supportWald): every state 0 or 1
	for m := lo; m < hi; m++ {
		ch, sg, alpha, beta := WaldRow(task, u, total, m)
		if ch == 0 {
			continue
		}
		row := spinDesignRow(x, states, n, i, m)
		floats.AddScaled(sm.G, ch*sg, x)
		sm.Hd += alpha
		sm.Jd += beta
		for gr := range tab {
			code := 0 // the bits of the group's columns, x = +1 set (as in waldChunk, no branch)
			for t, c := range cols[gr*per : min((gr+1)*per, p)] {
				b := int(row[c] & 1)
				if c == i {
					b = 1
				}
				code |= b << t
			}
			half := len(tab[gr]) / 2
			floats.AddScaled(tab[gr][code*n:(code+1)*n], alpha, x)
			floats.AddScaled(tab[gr][half+code*n:half+(code+1)*n], beta, x)
		}
	}
	scratch := make([]float64, 2*n)
	for gr, v := range tab {
		size, half := min(per, p-gr*per), len(v)/2
		waldContract(sm.H[gr*per*n:], n, v[:half], size, n, false, scratch[:n], scratch[n:])
		waldContract(sm.J[gr*per*n:], n, v[half:], size, n, false, scratch[:n], scratch[n:])
	}
	return sm
}
