package selection

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// The mixed model: ordered answers among unordered ones. Each variable is
// ordinal, with the scores s_j(a) of the ordinal model, or nominal, with
// one indicator a value. Node i's conditional law is
//
//	P(z_i = a | z_−i) ∝ exp(θ_a + R_i(a)ᵀ Σ_{j≠i} B_ij X_j(z_j)),
//
// where R_i(a) = s_i(a) (one number) for an ordinal node and the indicators
// of the values z_i takes but the first for a nominal one, and X_j likewise
// for the neighbour j. The couplings W_ij(a, b) = R_i(a)ᵀ B_ij X_j(b) are
// the ordinal model's w_ij·s_i(a)·s_j(b) between two ordinal variables, a
// vector of one coupling a value of the nominal variable times the
// ordinal one's scores between the two kinds (the nominal side's
// coefficients multiply the other's scores, as in the ordinal model), and
// the full block of Algorithm 2 between two nominal variables: the model
// of mixed graphical models fitted node by node (Haslbeck and Waldorp's
// mgm, with the adjacent-category logit for ordered answers). B_ij has
// dim R_i × dim X_j entries, the same numbers as B_ji transposed: in
// indicator coding both nodes estimate the same parameters, so a pair has
// one Wald statistic of that many degrees of freedom from either node.
//
// MixedRefit fits the law without constraint by maximum likelihood on all
// rows (Newton's method on the concave mean log-likelihood, as
// OrdinalRefit), with, where the estimate does not exist (answers
// separated by the others, common with rare values of a nominal
// variable), a ridge on the couplings.

// MixedVars describes the variables of the mixed model: Nominal[j] for the
// nominal ones, Scores (n×k) for the others, and the values each takes.
type MixedVars struct {
	N, K    int
	Scores  []float64
	Nominal []bool
	// Values[j] are the values variable j takes in rows of positive
	// weight, in increasing order; slot[j*K+a] is a's place in them, −1
	// for a value it never takes.
	Values [][]int
	slot   []int
}

// NewMixedVars returns the description of s's variables under scores and
// nominal (both indexed by variable).
func NewMixedVars(s *Data, scores []float64, nominal []bool) *MixedVars {
	n, k := s.N, s.K
	seen := make([]bool, n*k)
	states := s.States()
	for m := 0; m < s.Count; m++ {
		if s.Weight(m) == 0 {
			continue
		}
		for j, a := range states[m*n : (m+1)*n] {
			if int(a) < k {
				seen[j*k+int(a)] = true
			}
		}
	}
	v := &MixedVars{N: n, K: k, Scores: scores, Nominal: nominal, Values: make([][]int, n), slot: make([]int, n*k)}
	for j := 0; j < n; j++ {
		for a := 0; a < k; a++ {
			v.slot[j*k+a] = -1
			if seen[j*k+a] {
				v.slot[j*k+a] = len(v.Values[j])
				v.Values[j] = append(v.Values[j], a)
			}
		}
	}
	return v
}

// XDim returns the columns variable j adds to a node's design: one for an
// ordinal variable, its values less one for a nominal variable, none for
// a variable with one value (or none).
func (v *MixedVars) XDim(j int) int {
	switch {
	case len(v.Values[j]) < 2:
		return 0
	case v.Nominal[j]:
		return len(v.Values[j]) - 1
	}
	return 1
}

// RDim returns the rows of node i's coupling blocks: one for an ordinal
// node, the values it takes less one for a nominal node.
func (v *MixedVars) RDim(i int) int {
	if v.Nominal[i] {
		return max(len(v.Values[i])-1, 0)
	}
	return 1
}

// R returns R_i(a), the response features of value a of node i (length
// RDim(i)), into dst: s_i(a) for an ordinal node, the indicator of a among
// the values but the first for a nominal one (all zero for the first value
// and for a value never taken).
func (v *MixedVars) R(dst []float64, i, a int) []float64 { return v.coding(dst, i, a, v.RDim(i)) }

// X returns X_j(b), the design columns of value b of variable j (length
// XDim(j)), into dst: as R.
func (v *MixedVars) X(dst []float64, j, b int) []float64 { return v.coding(dst, j, b, v.XDim(j)) }

// coding returns variable j's d numbers for value a, as R and X.
func (v *MixedVars) coding(dst []float64, j, a, d int) []float64 {
	dst = append(dst[:0], make([]float64, d)...)
	switch {
	case d == 0:
	case !v.Nominal[j]:
		dst[0] = v.Scores[j*v.K+a]
	default:
		if x := v.slot[j*v.K+a]; x > 0 {
			dst[x-1] = 1
		}
	}
	return dst
}

// MixedFit is node i's refit in the mixed model.
type MixedFit struct {
	Node int
	// Cols are the neighbours in the design, Off[t] the first column of
	// Cols[t] and P the columns in all.
	Cols []int
	Off  []int
	P    int
	// RDim is the rows of the couplings (MixedVars.RDim), NA the values
	// node i takes.
	RDim, NA int
	// Par holds the fields of the values but the first, then the
	// couplings B, row r of them (P numbers) at NA − 1 + r·P.
	Par []float64
	// Inv is the inverse of the Fisher information of the mean
	// log-likelihood: Inv/Total estimates Par's covariance.
	Inv *mat.SymDense
	// Total is the rows' weight, DF = Total − len(Par) the degrees of
	// freedom, MeanLL the mean log-likelihood (with the ridge's penalty
	// when Ridge > 0).
	Total, DF, MeanLL float64
	// Ridge is the penalty ρ·‖B‖²/2 on the summed log-likelihood that the
	// fit needed (0: the maximum likelihood estimate).
	Ridge float64
}

// mixedRefitMaxIter bounds the Newton steps.
const mixedRefitMaxIter = 100

// mixedSeparation bounds the log-odds ratio a coupling of an
// unpenalised refit may give between its feature's extremes: e^20 is
// 5·10⁸, beyond what any sample of questionnaire or survey size can
// measure and far beyond the couplings such data show (a few units), so a
// fit that reaches it is taken to be running off to infinity (separated
// values) and refitted with the ridge.
const mixedSeparation = 20.0

// MixedRidge is the ridge MixedRefit falls back on where the maximum
// likelihood estimate does not exist: ρ = 1, the weight of one row's
// information about a coupling of size 1, small against the Total rows
// that inform a coupling that exists.
const MixedRidge = 1.0

// MixedRefit fits node i's law on the neighbours cols (none may be i) of
// v, from prev (a fit of node i on a prefix of cols, whose fields and
// couplings start the fit, the new columns' from 0: a warm start along a
// path of growing cols; nil to start from 0),
// to a Newton decrement below tol, with the ridge ρ on the couplings (0
// for none). ok is false when node i takes fewer than two values, when
// there are no more rows than parameters, or when the fit did not
// converge (a coupling running off to infinity without a ridge).
func MixedRefit(s *Data, i int, v *MixedVars, cols []int, prev *MixedFit, tol, ridge float64) (*MixedFit, bool) {
	n, k := s.N, s.K
	states := s.States()
	na := len(v.Values[i])
	if na < 2 {
		return nil, false
	}
	f := &MixedFit{Node: i, Cols: cols, Off: make([]int, len(cols)), RDim: v.RDim(i), NA: na, Ridge: ridge}
	xdim := make([]int, len(cols)) // read in the pass over the rows
	for t, j := range cols {
		f.Off[t], xdim[t] = f.P, v.XDim(j)
		f.P += xdim[t]
	}
	total := 0.0
	for m := 0; m < s.Count; m++ {
		total += s.Weight(m)
	}
	fd := na - 1
	dim := fd + f.RDim*f.P
	if !(total > float64(dim)) {
		return nil, false
	}
	f.Total, f.DF = total, total-float64(dim)
	// R(x) for the values x = 0..na−1 node i takes.
	rf := make([][]float64, na)
	for x, a := range v.Values[i] {
		rf[x] = v.R(nil, i, a)
	}
	par := make([]float64, dim)
	if prev != nil && prev.Node == i && prev.RDim == f.RDim && prev.NA == na && len(prev.Cols) <= len(cols) && slices.Equal(prev.Cols, cols[:len(prev.Cols)]) {
		copy(par, prev.Par[:fd])
		for r := 0; r < f.RDim; r++ {
			copy(par[fd+r*f.P:], prev.Par[fd+r*prev.P:fd+(r+1)*prev.P])
		}
	}
	pen := ridge / total
	idx := make([]int, 0, len(cols))
	val := make([]float64, 0, len(cols))
	g := make([]float64, f.RDim)
	p := make([]float64, na)
	er := make([]float64, f.RDim)
	cov := make([]float64, f.RDim*f.RDim)
	grad := make([]float64, dim)
	info := mat.NewSymDense(dim, nil)
	pass := func(par []float64, deriv bool) float64 {
		ll := 0.0
		if deriv {
			clear(grad)
			info.Zero()
		}
		raw := info.RawSymmetric().Data
		for m := 0; m < s.Count; m++ {
			c := s.Weight(m)
			if c == 0 {
				continue
			}
			c /= total
			row := states[m*n : (m+1)*n]
			idx, val = idx[:0], val[:0]
			for t, j := range cols {
				b := int(row[j])
				switch {
				case xdim[t] == 0:
				case !v.Nominal[j]:
					idx, val = append(idx, f.Off[t]), append(val, v.Scores[j*k+b])
				default:
					if x := v.slot[j*k+b]; x > 0 {
						idx, val = append(idx, f.Off[t]+x-1), append(val, 1)
					}
				}
			}
			for r := range g {
				g[r] = 0
				br := par[fd+r*f.P:]
				for u, col := range idx {
					g[r] += br[col] * val[u]
				}
			}
			top := math.Inf(-1)
			for x := range p {
				e := 0.0
				if x > 0 {
					e = par[x-1]
				}
				for r, rv := range rf[x] {
					e += rv * g[r]
				}
				p[x] = e
				top = math.Max(top, e)
			}
			z := v.slot[i*k+int(row[i])]
			zv := p[z]
			sum := 0.0
			for x := range p {
				p[x] = math.Exp(p[x] - top)
				sum += p[x]
			}
			ll += c * (zv - top - math.Log(sum))
			if !deriv {
				continue
			}
			for x := range p {
				p[x] /= sum
			}
			for r := range er {
				er[r] = 0
				for x := range p {
					er[r] += p[x] * rf[x][r]
				}
			}
			for r := range er {
				for q := r; q < len(er); q++ {
					e := 0.0
					for x := range p {
						e += p[x] * rf[x][r] * rf[x][q]
					}
					cov[r*len(er)+q] = e - er[r]*er[q]
				}
			}
			// Fields.
			for x := 1; x < na; x++ {
				ind := 0.0
				if x == z {
					ind = 1
				}
				grad[x-1] += c * (ind - p[x])
				rx := raw[(x-1)*dim:]
				for y := x; y < na; y++ {
					e := -p[x] * p[y]
					if y == x {
						e += p[x]
					}
					rx[y-1] += c * e
				}
				for r := range er {
					cross := c * p[x] * (rf[x][r] - er[r])
					if cross == 0 {
						continue
					}
					base := fd + r*f.P
					for u, col := range idx {
						rx[base+col] += cross * val[u]
					}
				}
			}
			// Couplings.
			for r := range er {
				res := c * (rf[z][r] - er[r])
				base := fd + r*f.P
				for u, col := range idx {
					grad[base+col] += res * val[u]
				}
				for q := r; q < len(er); q++ {
					cv := c * cov[r*len(er)+q]
					if cv == 0 {
						continue
					}
					bq := fd + q*f.P
					for u, cu := range idx {
						a := base + cu
						fu := cv * val[u]
						for w, cw := range idx {
							if q == r && w < u {
								continue
							}
							b := bq + cw
							if a <= b {
								raw[a*dim+b] += fu * val[w]
							} else {
								raw[b*dim+a] += fu * val[w]
							}
						}
					}
				}
			}
		}
		if pen > 0 {
			for d := fd; d < dim; d++ {
				ll -= pen * par[d] * par[d] / 2
				if deriv {
					grad[d] -= pen * par[d]
					raw[d*dim+d] += pen
				}
			}
		}
		return ll
	}
	ll, converged := newtonAscent(pass, par, grad, info, tol, mixedRefitMaxIter)
	var chol mat.Cholesky
	if !converged || !chol.Factorize(info) {
		return nil, false
	}
	inv := mat.NewSymDense(dim, nil)
	if err := chol.InverseTo(inv); err != nil {
		return nil, false
	}
	for _, x := range par {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, false
		}
	}
	if ridge == 0 {
		// Separation: Newton's decrement falls below tol while a coupling
		// runs off to infinity, slowly (each step gains less), so the
		// stop is no proof that the estimate exists. A coupling whose
		// log-odds between its feature's extremes exceeds
		// mixedSeparation is taken as one running off.
		for t, j := range cols {
			span := 1.0 // an indicator
			if !v.Nominal[j] {
				lo, hi := math.Inf(1), math.Inf(-1)
				for _, a := range v.Values[j] {
					lo, hi = math.Min(lo, v.Scores[j*k+a]), math.Max(hi, v.Scores[j*k+a])
				}
				span = hi - lo
			}
			for r := 0; r < f.RDim; r++ {
				for c := 0; c < v.XDim(j); c++ {
					if math.Abs(par[fd+r*f.P+f.Off[t]+c])*span > mixedSeparation {
						return nil, false
					}
				}
			}
		}
	}
	f.Par, f.Inv, f.MeanLL = par, inv, ll
	return f, true
}

// Block returns the couplings B_ij of neighbour Cols[t] (RDim × XDim
// numbers, row-major) and their covariance Inv/Total over the same
// entries.
func (f *MixedFit) Block(t int, v *MixedVars) (b []float64, cov *mat.SymDense) {
	xd := v.XDim(f.Cols[t])
	fd := f.NA - 1
	d := f.RDim * xd
	b = make([]float64, d)
	at := make([]int, d)
	for r := 0; r < f.RDim; r++ {
		for c := 0; c < xd; c++ {
			at[r*xd+c] = fd + r*f.P + f.Off[t] + c
			b[r*xd+c] = f.Par[at[r*xd+c]]
		}
	}
	cov = mat.NewSymDense(d, nil)
	for x := 0; x < d; x++ {
		for y := x; y < d; y++ {
			cov.SetSym(x, y, f.Inv.At(at[x], at[y])/f.Total)
		}
	}
	return b, cov
}

// Layout returns node i's coupling blocks W_ij(a, b) = R_i(a)ᵀ B_ij X_j(b)
// in the layout of the root's estimates (n blocks of k×k, block j at
// j·k²), their standard errors (from Inv/Total, entry by entry), and node
// i's fields θ_i(a) (k: the fitted ones, the first value's 0, NaN for the
// values it never takes). A nominal side of a block is centred over the
// values it takes, as Algorithm 2's blocks are (equation (9)): on the
// neighbour's side the part it removes, R_i(a)ᵀ B_ij X̄_j, a function of
// z_i alone, moves to the fields; on node i's side it is a function of
// z_j alone, which node i's law does not see. Values a variable never
// takes keep 0 entries. Blocks between two ordinal variables are the
// ordinal model's, w_ij·s_i(a)·s_j(b).
func (f *MixedFit) Layout(v *MixedVars) (blocks, se, theta []float64) {
	n, k := v.N, v.K
	i := f.Node
	kk := k * k
	blocks, se = make([]float64, n*kk), make([]float64, n*kk)
	theta = make([]float64, k)
	for a := range theta {
		theta[a] = math.NaN()
	}
	for x, a := range v.Values[i] {
		if x == 0 {
			theta[a] = 0
		} else {
			theta[a] = f.Par[x-1]
		}
	}
	// centred returns the features of variable j's values (feat(a)),
	// centred over the values it takes when nominal, zero for the values
	// it never takes, and their mean.
	centred := func(j, d int, feat func(dst []float64, a int) []float64) (out [][]float64, mean []float64) {
		out, mean = make([][]float64, k), make([]float64, d)
		for a := 0; a < k; a++ {
			out[a] = feat(nil, a)
		}
		if !v.Nominal[j] {
			return out, mean
		}
		for _, a := range v.Values[j] {
			for r := range mean {
				mean[r] += out[a][r] / float64(len(v.Values[j]))
			}
		}
		for a := 0; a < k; a++ {
			for r := range out[a] {
				if v.slot[j*k+a] < 0 {
					out[a][r] = 0
				} else {
					out[a][r] -= mean[r]
				}
			}
		}
		return out, mean
	}
	rc, _ := centred(i, f.RDim, func(dst []float64, a int) []float64 { return v.R(dst, i, a) })
	var rv []float64
	for t, j := range f.Cols {
		xd := v.XDim(j)
		if xd == 0 {
			continue
		}
		b, cov := f.Block(t, v)
		xc, xmean := centred(j, xd, func(dst []float64, a int) []float64 { return v.X(dst, j, a) })
		blk, sblk := blocks[j*kk:(j+1)*kk], se[j*kk:(j+1)*kk]
		lin := make([]float64, len(b))
		for a := 0; a < k; a++ {
			for c := 0; c < k; c++ {
				for r := 0; r < f.RDim; r++ {
					for d := 0; d < xd; d++ {
						lin[r*xd+d] = rc[a][r] * xc[c][d]
					}
				}
				e, q := 0.0, 0.0
				for x, l := range lin {
					if l == 0 {
						continue
					}
					e += l * b[x]
					for y, m := range lin {
						q += l * cov.At(x, y) * m
					}
				}
				blk[a*k+c], sblk[a*k+c] = e, math.Sqrt(math.Max(q, 0))
			}
		}
		if v.Nominal[j] {
			// The part R_i(a)ᵀ B X̄_j that centring took from row a.
			for a := 0; a < k; a++ {
				if math.IsNaN(theta[a]) {
					continue
				}
				rv = v.R(rv, i, a)
				for r, ra := range rv {
					for d, xm := range xmean {
						theta[a] += ra * b[r*xd+d] * xm
					}
				}
			}
		}
	}
	return blocks, se, theta
}

// MixedWald returns the Wald statistic bᵀ cov⁺ b of the couplings b with
// covariance cov and its rank, the eigenvalues of cov above 1e-10 times
// the largest (a pseudo-inverse: indicator columns of values that never
// meet leave directions the data do not inform). It returns 0, 0 for an
// empty b or a covariance without a positive eigenvalue.
func MixedWald(b []float64, cov *mat.SymDense) (w float64, rank int) {
	if len(b) == 0 {
		return 0, 0
	}
	if len(b) == 1 {
		if v := cov.At(0, 0); v > 0 {
			return b[0] * b[0] / v, 1
		}
		return 0, 0
	}
	var eig mat.EigenSym
	if !eig.Factorize(cov, true) {
		return 0, 0
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	top := 0.0
	for _, l := range vals {
		top = math.Max(top, l)
	}
	if !(top > 0) {
		return 0, 0
	}
	for x, l := range vals {
		if l <= 1e-10*top {
			continue
		}
		proj := 0.0
		for y, bv := range b {
			proj += vecs.At(y, x) * bv
		}
		w += proj * proj / l
		rank++
	}
	return w, rank
}

// MixedIndependenceP returns the p-value of the global test of
// independence of the mixed model's variables, and the number of pairs in
// it: the sum over the pairs of variables that take two values or more of
// the generalised Cochran–Mantel–Haenszel statistic that fits the pair
// (Agresti, Categorical Data Analysis, section 7.5): (N − 1)·r² on the
// scores between two ordinal variables (Mantel's, 1 degree of freedom, as
// OrdinalIndependenceP), (N − 1)·η² between a nominal and an ordinal one
// (η² the share of the ordinal scores' variance between the nominal
// values: the mean scores statistic, one degree of freedom less than its
// values) and (N − 1)/N·X² between two nominal ones (Pearson's, (r −
// 1)(c − 1)). Each term is asymptotically χ² with its degrees of freedom
// under independence and the terms are uncorrelated, so their sum is
// referred to χ² with the summed degrees of freedom.
func MixedIndependenceP(s *Data, v *MixedVars) (p float64, pairs int) {
	n, k := s.N, s.K
	states := s.States()
	total := 0.0
	for m := 0; m < s.Count; m++ {
		total += s.Weight(m)
	}
	if !(total > 1) {
		return 1, 0
	}
	tab := make([]float64, k*k)
	row, col := make([]float64, k), make([]float64, k)
	stat, df := 0.0, 0.0
	for i := 0; i < n; i++ {
		if len(v.Values[i]) < 2 {
			continue
		}
		for j := i + 1; j < n; j++ {
			if len(v.Values[j]) < 2 {
				continue
			}
			clear(tab)
			for m := 0; m < s.Count; m++ {
				a, b := int(states[m*n+i]), int(states[m*n+j])
				if c := s.Weight(m); c > 0 && a < k && b < k { // the rows that observe both
					tab[a*k+b] += c
				}
			}
			clear(row)
			clear(col)
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					row[a] += tab[a*k+b]
					col[b] += tab[a*k+b]
				}
			}
			ri, rj := len(v.Values[i]), len(v.Values[j])
			switch {
			case v.Nominal[i] && v.Nominal[j]:
				x2 := 0.0
				for _, a := range v.Values[i] {
					for _, b := range v.Values[j] {
						e := row[a] * col[b] / total
						d := tab[a*k+b] - e
						x2 += d * d / e
					}
				}
				stat += (total - 1) / total * x2
				df += float64((ri - 1) * (rj - 1))
			case !v.Nominal[i] && !v.Nominal[j]:
				stat += (total - 1) * scoreCorrelation2(tab, k, v.Scores[i*k:(i+1)*k], v.Scores[j*k:(j+1)*k], row, col, total)
				df++
			default:
				// η² of the ordinal variable's scores between the nominal
				// one's values.
				nom, ord, tr := i, j, false
				if v.Nominal[j] {
					nom, ord, tr = j, i, true
				}
				sc := v.Scores[ord*k : (ord+1)*k]
				margin, groups := col, row // the ordinal one's margin and the nominal one's
				if tr {
					margin, groups = row, col
				}
				mean := 0.0
				for b := 0; b < k; b++ {
					mean += margin[b] * sc[b]
				}
				mean /= total
				ssT := 0.0
				for b := 0; b < k; b++ {
					ssT += margin[b] * (sc[b] - mean) * (sc[b] - mean)
				}
				if !(ssT > 1e-12*total) {
					continue
				}
				ssB := 0.0
				for _, a := range v.Values[nom] {
					gm := 0.0
					for b := 0; b < k; b++ {
						c := tab[a*k+b]
						if tr {
							c = tab[b*k+a]
						}
						gm += c * sc[b]
					}
					gm /= groups[a]
					ssB += groups[a] * (gm - mean) * (gm - mean)
				}
				stat += (total - 1) * ssB / ssT
				df += float64(len(v.Values[nom]) - 1)
			}
			pairs++
		}
	}
	if pairs == 0 || !(df > 0) {
		return 1, 0
	}
	return distuv.ChiSquared{K: df}.Survival(stat), pairs
}

// scoreCorrelation2 returns r² of the scores u and v over the table tab
// with margins row and col.
func scoreCorrelation2(tab []float64, k int, u, v, row, col []float64, total float64) float64 {
	mu, mv := 0.0, 0.0
	for a := 0; a < k; a++ {
		mu += row[a] * u[a]
		mv += col[a] * v[a]
	}
	mu, mv = mu/total, mv/total
	suu, svv, suv := 0.0, 0.0, 0.0
	for a := 0; a < k; a++ {
		suu += row[a] * (u[a] - mu) * (u[a] - mu)
		svv += col[a] * (v[a] - mv) * (v[a] - mv)
		for b := 0; b < k; b++ {
			suv += tab[a*k+b] * (u[a] - mu) * (v[b] - mv)
		}
	}
	if !(suu > 1e-12*total) || !(svv > 1e-12*total) {
		return 0
	}
	return suv * suv / (suu * svv)
}
