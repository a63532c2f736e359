package selection

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// The data's choice between the ordinal and the nominal treatment of k > 2
// states (the root's AutoScale). Each pair's table of counts n_ab (over
// the rows that observe both) is fitted by independence and by the
// linear-by-linear association model of ordered tables,
//
//	log μ_ab = λ + α_a + β_b + φ·u_a·v_b,
//
// (Agresti, Categorical Data Analysis, section 10.2; u, v the two
// variables' scores), one association parameter φ on the (r − 1)(c − 1)
// degrees of freedom of the table's association (r and c the values each
// variable takes). G² of independence measures the table's association,
// and G² of the linear-by-linear model the part of it that φ leaves; each
// minus its degrees of freedom (its mean under the smaller model) is what
// the data show beyond chance, and their difference is the linear
// association. ScaleStats sums them over the pairs.
//
// Two shapes of coupling mark the ends. The ordinal model's association
// is all linear. The nominal coupling nearest to it, the Potts model's
// δ(a, b) on m values, has the linear share ⟨δ, uvᵀ⟩²/(|δ|²|uvᵀ|²) =
// 1/(m − 1) on equally spaced scores (after centring δ's rows and
// columns): 1/2 for three values, 1/5 for six. The rule takes the
// ordinal scale when the linear association reaches the midpoint of the
// two, pair by pair weighted by the pair's association (Needed). Measured
// (linear share of the sums, and the midpoint): simulated Likert
// questionnaires (latent normal variables cut into 3 to 6 answers,
// N = 250 to 2500) 0.83 to 1.00; samples of the ordinal model 0.76 to
// 1.00; psychTools' msq 0.90 (midpoint 0.67), sai 0.92 and tai 0.94
// (0.67), bfi 0.62 (0.60), spi 0.52 (0.60, nominal: much of its
// association lies on the squares of the scores, as extreme answers to
// one item go with extreme answers to another); Potts models: this
// repository's survey (δ on three values) 0.51 (0.75), the paper's grids
// 0.04 to 0.48 (0.63 to 0.75), random blocks 0.02 to 0.43.

// ScaleSums are the sums over the pairs of variables of ScaleStats: the
// association beyond chance, Σ (G²_independence − df), and the part of it
// the linear-by-linear model leaves, Σ (G²_linear − (df − 1)).
type ScaleSums struct {
	Association, NonLinear float64
	// Needed is the linear association the ordinal scale needs:
	// Σ (G²_independence − df)·(1 + 1/(m − 1))/2 over the pairs, m the
	// fewer values of the two variables, halfway between the linear share
	// of a Potts coupling δ(a, b) on m equally spaced values, 1/(m − 1),
	// and that of the ordinal model, 1.
	Needed float64
}

// ScaleStats returns the sums of ScaleSums over all pairs of variables of
// s under scores (n×k). Each pair's table holds the rows that observe
// both (a missing value is the state k). Pairs of a variable with fewer
// than three values add nothing: two values have no order to show, and a
// Potts coupling on two values is the ordinal model's.
func ScaleStats(s *Data, scores []float64) (sums ScaleSums) {
	return ScaleStatsSkip(s, scores, nil)
}

// ScaleStatsSkip is ScaleStats without the pairs of the variables j with
// skip[j] (nil: none), those declared nominal.
func ScaleStatsSkip(s *Data, scores []float64, skip []bool) (sums ScaleSums) {
	n, k := s.N, s.K
	seen := make([][]bool, n)
	for j := range seen {
		seen[j] = make([]bool, k)
	}
	for m := 0; m < s.Count; m++ {
		if s.Weight(m) == 0 {
			continue
		}
		for j, z := range s.States()[m*n : (m+1)*n] {
			if int(z) < k { // a missing value is the state k
				seen[j][z] = true
			}
		}
	}
	values := make([]int, n)
	for j := range seen {
		for _, ok := range seen[j] {
			if ok {
				values[j]++
			}
		}
	}
	tab := make([]float64, k*k)
	states := s.States()
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if values[i] < 3 || values[j] < 3 {
				continue // a binary variable's two values have no order to show
			}
			if skip != nil && (skip[i] || skip[j]) {
				continue
			}
			df := (values[i] - 1) * (values[j] - 1)
			clear(tab)
			obs := 0.0
			for m := 0; m < s.Count; m++ {
				a, b := int(states[m*n+i]), int(states[m*n+j])
				if a < k && b < k { // the rows that observe both
					tab[a*k+b] += s.Weight(m)
					obs += s.Weight(m)
				}
			}
			if !(obs > 1) {
				continue
			}
			assoc := IndependenceG2(tab, k) - float64(df)
			sums.Association += assoc
			sums.NonLinear += LinearByLinearG2(tab, k, scores[i*k:(i+1)*k], scores[j*k:(j+1)*k]) - float64(df-1)
			m := float64(min(values[i], values[j]))
			sums.Needed += assoc * (1 + 1/(m-1)) / 2
		}
	}
	return sums
}

// IndependenceG2 returns G² of independence on the k×k table tab.
func IndependenceG2(tab []float64, k int) float64 {
	row, col := make([]float64, k), make([]float64, k)
	total := 0.0
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			row[a] += tab[a*k+b]
			col[b] += tab[a*k+b]
			total += tab[a*k+b]
		}
	}
	g2 := 0.0
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			if n := tab[a*k+b]; n > 0 {
				g2 += n * math.Log(n*total/(row[a]*col[b]))
			}
		}
	}
	return 2 * g2
}

// lblMaxIter bounds the fitting cycles of LinearByLinearG2; lblTol is the
// relative change of the margins and of the association's sufficient
// statistic at which it stops.
const (
	lblMaxIter = 500
	lblTol     = 1e-10
)

// LinearByLinearG2 returns the lack of fit G² of the linear-by-linear
// association model (see ScaleStats) on the k×k table tab (tab[a*k+b]
// the count of z_i = a, z_j = b), with row scores u and column scores v,
// over the rows and columns of positive count.
func LinearByLinearG2(tab []float64, k int, u, v []float64) float64 {
	return ProductTermsG2(tab, k, [][2][]float64{{u, v}})
}

// ProductTermsG2 returns the lack of fit G² on the k×k table tab of the
// log-linear model with row and column effects and one association term
// φ_t·x_t(a)·y_t(b) for each term t = (x_t, y_t). The fit alternates
// iterative proportional fitting of the two margins with a Newton step on
// each φ_t towards Σ μ x_t y_t = Σ n x_t y_t, the likelihood equations of
// the model, until the margins and those sums change by less than lblTol
// of the total.
func ProductTermsG2(tab []float64, k int, terms [][2][]float64) float64 {
	return productTermsG2(tab, k, terms, lblTol, lblMaxIter)
}

// productTermsG2 is ProductTermsG2 with the stopping rule tol and at
// most maxIter cycles.
func productTermsG2(tab []float64, k int, terms [][2][]float64, tol float64, maxIter int) float64 {
	row, col := make([]float64, k), make([]float64, k)
	total := 0.0
	target := make([]float64, len(terms))
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			x := tab[a*k+b]
			row[a] += x
			col[b] += x
			total += x
			for t, xy := range terms {
				target[t] += x * xy[0][a] * xy[1][b]
			}
		}
	}
	if !(total > 0) {
		return 0
	}
	mu := make([]float64, k*k)
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			if row[a] > 0 && col[b] > 0 {
				mu[a*k+b] = row[a] * col[b] / total
			}
		}
	}
	fitted := make([]float64, k)
	for it := 0; it < maxIter; it++ {
		change := 0.0
		for t, xy := range terms {
			u, v := xy[0], xy[1]
			// Newton on φ_t: d/dφ Σ μ uv = Σ μ (uv)².
			var s1, s2 float64
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					w := u[a] * v[b]
					s1 += mu[a*k+b] * w
					s2 += mu[a*k+b] * w * w
				}
			}
			change = math.Max(change, math.Abs(target[t]-s1)/total)
			if !(s2 > 0) {
				continue
			}
			step := math.Max(-1, math.Min(1, (target[t]-s1)/s2)) // damped far from the fit
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					mu[a*k+b] *= math.Exp(step * u[a] * v[b])
				}
			}
		}
		// Proportional fitting of the rows, then the columns.
		for pass := 0; pass < 2; pass++ {
			clear(fitted)
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					if pass == 0 {
						fitted[a] += mu[a*k+b]
					} else {
						fitted[b] += mu[a*k+b]
					}
				}
			}
			want := row
			if pass == 1 {
				want = col
			}
			for x := range fitted {
				if fitted[x] > 0 {
					change = math.Max(change, math.Abs(fitted[x]-want[x])/total)
				}
			}
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					x := a
					if pass == 1 {
						x = b
					}
					if fitted[x] > 0 {
						mu[a*k+b] *= want[x] / fitted[x]
					}
				}
			}
		}
		if change < tol {
			break
		}
	}
	g2 := 0.0
	for x, n := range tab {
		if n > 0 && mu[x] > 0 {
			g2 += n * math.Log(n/mu[x])
		}
	}
	return math.Max(2*g2, 0)
}

// Unordered variables among ordered ones (the root's AutoScale with the
// mixed model). A variable whose values are unordered categories written
// as numbers (a region coded 1 to 5) shows its association with an
// ordered partner through effects that are not monotone in its code. For
// each pair (i, j) the row-effects model of i on j's scores,
//
//	log μ_ab = λ + α_a + β_b + μ_a·v_b,
//
// (Agresti, section 10.2.2: i nominal, j ordered; r_i − 1 association
// parameters) fits such a table, where the linear-by-linear model, one
// parameter, cannot. The gain G²_linear − G²_row(i) less its r_i − 2 extra
// degrees of freedom is the association that needs i's values unordered;
// summed over i's partners, and divided by i's association beyond chance,
// it is the share of i's association that lies off its scores but along
// its partners'. UnorderedVariables takes a variable as unordered when
// that share is at least a half and the gain is significant (χ² on the
// summed extra degrees of freedom) at level alpha/n, one variable at a
// time, the most unordered first, each step reading only the partners not
// yet taken (a taken variable's codes would make its partners' gain
// look unordered too). Measured before the rule was fixed (its constants
// are the natural ones, not tuned): the Likert study's items (latent
// normal and ordinal-model truths, N = 250 to 2500) 0.00 to 0.08 at N =
// 2500; psychTools' bfi 0.02 to 0.20, spi 0.02 to 0.10; bfi's education
// (five levels from "some high school" to "graduate degree") 0.40; items
// whose codes were scrambled (the study's mixed truths) 0.80 to 0.94 at N
// = 1000.

// unorderedTol and unorderedMaxIter are the stopping rule of the search's
// row-effects fits: it decides a share of a half and a p-value below
// alpha/n, not a digit of G² (tol 1e-7 gave the same decisions as the
// check's 1e-10 on 49 of 49 study files; a cap of 60 cycles changed 3 of
// 53, so the cap is the check's).
const (
	unorderedTol     = 1e-7
	unorderedMaxIter = lblMaxIter
)

// UnorderedShare is the share of a variable's association beyond chance
// that must need its values unordered for UnorderedVariables to take it.
const UnorderedShare = 0.5

// UnorderedVariables returns the variables of s (in increasing order)
// that the rule above takes as unordered under scores, besides those with
// declared[j] (nil: none), which count as taken from the start; at most
// maxVars of them: nil when none qualifies, and nil as well when more than maxVars
// would (then the data are not a few categories among ordered answers,
// and the scale is the whole file's to choose). Variables with fewer than
// three values are never taken (two values have no order to lose).
func UnorderedVariables(s *Data, scores []float64, alpha float64, maxVars int, declared []bool) []int {
	n, k := s.N, s.K
	states := s.States()
	values := make([]int, n)
	for j := 0; j < n; j++ {
		seen := make([]bool, k+1)
		for m := 0; m < s.Count; m++ {
			if s.Weight(m) > 0 {
				seen[states[m*n+j]] = true
			}
		}
		for _, ok := range seen[:k] {
			if ok {
				values[j]++
			}
		}
	}
	// assoc[i*n+j] is the pair's association beyond chance, lin[i*n+j]
	// the linear-by-linear model's lack of fit, and gain[i*n+j] i's
	// row-effects gain on j's scores beyond its extra degrees of freedom,
	// computed for variable i only when the bound below lets i qualify
	// (rowDone[i]).
	assoc, lin, gain := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
	rowDone := make([]bool, n)
	tables := make([][]float64, n*n) // the pairs' tables (i < j), for the row-effects fits
	ind := make([][]float64, k)
	for a := range ind {
		ind[a] = make([]float64, k)
		ind[a][a] = 1
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if values[i] < 3 || values[j] < 3 {
				continue
			}
			tab := make([]float64, k*k)
			obs := 0.0
			for m := 0; m < s.Count; m++ {
				a, b := int(states[m*n+i]), int(states[m*n+j])
				if a < k && b < k {
					tab[a*k+b] += s.Weight(m)
					obs += s.Weight(m)
				}
			}
			if !(obs > 1) {
				continue
			}
			tables[i*n+j] = tab
			df := float64((values[i] - 1) * (values[j] - 1))
			a := IndependenceG2(tab, k) - df
			l := LinearByLinearG2(tab, k, scores[i*k:(i+1)*k], scores[j*k:(j+1)*k])
			assoc[i*n+j], assoc[j*n+i] = a, a
			lin[i*n+j], lin[j*n+i] = l, l
		}
	}
	// rowGains fits the row-effects model of x on each partner's scores.
	// Its stopping rule is looser than the check's: the gain decides a
	// share of a half and a p-value below alpha/n, not a digit of G².
	rowGains := func(x int) {
		rowDone[x] = true
		for y := 0; y < n; y++ {
			tab := tables[min(x, y)*n+max(x, y)]
			if y == x || tab == nil {
				continue
			}
			var terms [][2][]float64
			for v := 1; v < k; v++ {
				if x < y {
					terms = append(terms, [2][]float64{ind[v], scores[y*k : (y+1)*k]})
				} else {
					terms = append(terms, [2][]float64{scores[y*k : (y+1)*k], ind[v]})
				}
			}
			row := productTermsG2(tab, k, terms, unorderedTol, unorderedMaxIter)
			gain[x*n+y] = math.Max(lin[x*n+y]-row, 0) - float64(values[x]-2)
		}
	}
	taken := make([]bool, n)
	copy(taken, declared)
	var out []int
	for {
		best, bestShare := -1, 0.0
		for i := 0; i < n; i++ {
			if taken[i] || values[i] < 3 {
				continue
			}
			// The gain on a partner is at most the linear model's lack
			// of fit less the extra degrees of freedom (the row-effects
			// model's is at least 0): a variable that cannot qualify on
			// that bound is not fitted.
			a, bound, df := 0.0, 0.0, 0.0
			for j := 0; j < n; j++ {
				if j == i || taken[j] || values[j] < 3 || tables[min(i, j)*n+max(i, j)] == nil {
					continue
				}
				a += assoc[i*n+j]
				bound += lin[i*n+j] - float64(values[i]-2)
				df += float64(values[i] - 2)
			}
			if !(a > 0) || !(df > 0) || bound < UnorderedShare*a {
				continue
			}
			if p := (distuv.ChiSquared{K: df}).Survival(bound + df); !(p < alpha/float64(n)) {
				continue
			}
			if !rowDone[i] {
				rowGains(i)
			}
			g := 0.0
			for j := 0; j < n; j++ {
				if j == i || taken[j] || values[j] < 3 || tables[min(i, j)*n+max(i, j)] == nil {
					continue
				}
				g += gain[i*n+j]
			}
			if g < UnorderedShare*a {
				continue
			}
			if p := (distuv.ChiSquared{K: df}).Survival(g + df); !(p < alpha/float64(n)) {
				continue
			}
			if share := g / a; share > bestShare {
				best, bestShare = i, share
			}
		}
		if best < 0 {
			break
		}
		if len(out) == maxVars {
			return nil
		}
		taken[best] = true
		out = append(out, best)
	}
	sort.Ints(out)
	return out
}
