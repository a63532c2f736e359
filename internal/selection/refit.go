package selection

import (
	"context"
	"math"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/internal/estimates"
)

// The second stage of the Ising edge test (WithRefit). The first stage's
// statistics come from debiased estimates in node i's regression on all
// n-1 other spins; most of those spins are not neighbours, and their
// correlation with the neighbours inflates the neighbours' variances. The
// second stage keeps, for node i, the spins j whose pair statistic passed
// a loose screen (RefitScreen), refits node i's logistic regression on
// them alone without any constraint (the maximum likelihood estimate, by
// Newton's method), and tests each screened pair again with the refit's
// estimate and its model-based standard error, the inverse Fisher
// information: the node's conditional law is exactly logistic in its
// neighbours, so that variance is the right one when the screen kept them.

// RefitScreen is the first-stage statistic a pair needs to enter the refit.
// Chosen by measurement (docs/tuning): 1.5 and 2 were tried on the study's
// seeds 0-19 and 1.5 kept on seeds 20-99 and shared/bench's data, which
// took no part in the choice.
const RefitScreen = 1.5

// RefitSpins returns node i's unconstrained logistic regression on the spins
// nb (and an intercept) over all rows of s, weighted by the rows' weights,
// in the layout of WaldSpins (4 entries a neighbour, the Ising form
// [[a, -a], [-a, a]] with Â_ij = w_j/2), with the model-based standard
// errors sqrt((H⁻¹)_jj / N)/2, N the total weight, and its degrees of
// freedom N − (len(nb) + 1) (small_samples.go, in this package). ok is false when the
// maximum likelihood estimate does not exist or was not reached (a
// separating spin, a singular Hessian): the caller then keeps the first
// stage.
//
// With missing spins (AvailableCase) refitSpinsImputed runs instead: the
// rows are those that observe z_i, N their weight, a missing spin j of nb
// takes its expected value under node j's first-stage fit (SpinImputer),
// and the fit drops spins backwards: the spins of nb whose refit statistic
// |Â_ij|/SE is below RefitScreen leave (their entries stay 0, not an edge
// from node i) and the fit runs again on the rest. The first stage, whose
// missing neighbours enter as 0, screens spurious spins two steps away
// (when a neighbour is missing, its neighbours tell of it); the expected
// value puts that information back in the neighbour's column. Measured
// with the study's models and samples (removed values of the test helper
// removeAtRandom), exact recoveries: 7×7 grid, 10% missing, N = 2000, 10
// seeds: a refit on the rows that observe i and every spin of nb, with
// the backward drops, 6; with the expected values 10 (N = 1000: 0 and 3);
// diamond, 30% missing, N = 2000, 8 seeds: 1 and 4 (N = 10000: 7 and 8);
// the refit on those rows without the backward drops had recovered 2 of
// 6 at N = 10000 (FP 2.8, FN 2.3 a run), and missing spins read as 0 in the
// refit gave 11.7 false edges a run there.
func RefitSpins(ctx context.Context, s *Data, i int, nb []int) (d, se []float64, df float64, ok bool) {
	return refitSpinsImputed(ctx, s, i, nb, nil, nil)
}

// refitSpinsImputed is RefitSpins with, for samples with missing values,
// the values of the missing spins (imp; nil: the rows that observe every
// spin of the fit), started from start (RefitSpinsFrom; nil for zero).
func refitSpinsImputed(ctx context.Context, s *Data, i int, nb []int, imp *SpinImputer, start []float64) (d, se []float64, df float64, ok bool) {
	if !s.Incomplete {
		return RefitSpinsFrom(ctx, s, i, nb, MaxRefitTable, start)
	}
	// Missing values: the spins whose refit statistic falls below the
	// screen leave, and the refit runs again on the rest, until every
	// spin left passes (or none would). A refit without an estimate
	// (separated labels) ends the loop with the last one that had one.
	for {
		dn, sn, dfn, okn := refitSpinsData(ctx, s, i, nb, newRefitImputed(s, i, nb, imp), start)
		if !okn {
			return d, se, df, ok // the last fit that had an estimate, if any
		}
		d, se, df, ok = dn, sn, dfn, okn
		var keep []int
		for _, j := range nb {
			if se[4*j] > 0 && math.Abs(d[4*j])/se[4*j] >= RefitScreen {
				keep = append(keep, j)
			}
		}
		if len(keep) == len(nb) || len(keep) == 0 {
			return
		}
		nb = keep
	}
}

// RefitSpinsFrom is RefitSpins on complete samples, gathering patterns up
// to maxTable screened spins (tests compare the two ways of reading the
// data), started from start when it is not nil: node i's coefficients in
// its own layout (start[j] = ŵ_j for the spin j, start[i] the bias), of
// which the refit takes those of nb (non-finite entries count as 0). The
// fit is the engine's: an unconstrained task (radius +Inf) that Driver.Fit
// solves by Newton's method, read through the patterns or the rows. The
// estimate does not depend on the start beyond the Newton method's
// stopping rule (the error after its last full step is of order 1e-12,
// mle.go); a good start saves steps.
func RefitSpinsFrom(ctx context.Context, s *Data, i int, nb []int, maxTable int, start []float64) (d, se []float64, df float64, ok bool) {
	return refitSpinsData(ctx, s, i, nb, newRefitData(s, i, nb, nb, maxTable), start)
}

// refitSpinsData is RefitSpinsFrom on the rows data gives.
func refitSpinsData(ctx context.Context, s *Data, i int, nb []int, data *refitData, start []float64) (d, se []float64, df float64, ok bool) {
	n, p := s.N, len(nb)+1
	total := data.total
	if total <= 0 {
		return nil, nil, 0, false
	}
	task := &engine.Task{Bias: i, Each: data.each, Patterns: data.keys}
	w := make([]float64, p)
	if start != nil {
		w[0] = finiteOr0(start[i])
		for a, j := range nb {
			w[a+1] = finiteOr0(start[j])
		}
	}
	var e engine.Driver
	if st, err := e.Fit(ctx, task, nil, math.Inf(1), w); err != nil || !st.Converged {
		return nil, nil, 0, false
	}
	// The standard errors at the estimate: the inverse Fisher information.
	inv, ok := e.InverseFisher(task, w) // the Hessian of the fit's last pass
	if !ok {
		return nil, nil, 0, false
	}
	d = make([]float64, 4*n)
	se = make([]float64, 4*n)
	for a, j := range nb {
		setIsingEntry(d, se, j, w[a+1]/2, sandwichSE(inv.At(a+1, a+1), total)/2)
	}
	return d, se, total - float64(p), true
}

// refitData is what node i's refit reads: the rows of s seen through the
// spins (x_i, x_nb) as ±1, with their weights. The loss depends on the
// data only through the distinct patterns of those spins, and with up to
// MaxRefitTable screened spins the patterns of x_nb (at most 2^len(nb), far
// fewer than the rows at large N) are gathered once, each kept as its bits
// (x_nb[a] in bit a) and the total weights of its rows with x_i = −1 and
// +1, about a megabyte at most: the two labels of a pattern share its
// margin, its sigmoids and its term of the Hessian (engine.RowEach). With
// more spins the rows are read directly on every pass. Either way the
// refit keeps no copy of the data (the memory bound of a 10^6-row file
// holds).
type refitData struct {
	s  *Data
	i  int
	nb []int
	// need are the variables a row must observe, besides i, to enter
	// when s has missing values (available cases); total is the weight
	// of the rows that enter.
	need  []int
	total float64
	// imp, when set, gives the values of the missing spins of nb (the
	// rows then need only observe i).
	imp *SpinImputer
	// keys and cs hold the patterns of x_nb and the weights of their rows
	// with x_i = −1 and +1 (cs[2m], cs[2m+1]); nil when the rows are read.
	keys []uint32
	cs   []float64
	xs   []float64 // the design row (1, x_nb) of each pattern, len(nb)+1 numbers a pattern
	x    []float64 // scratch design row (1, x_nb)
}

// MaxRefitTable is the number of screened spins up to which refitData
// gathers patterns: a table of 2^15 entries and at most 2^15 patterns.
const MaxRefitTable = 15

// newRefitData gathers the patterns when nb has at most maxTable spins.
// With missing values in s, only the rows that observe i and every variable
// of need enter (need holds nb).
func newRefitData(s *Data, i int, nb, need []int, maxTable int) *refitData {
	p := len(nb) + 1
	d := &refitData{s: s, i: i, nb: nb, x: make([]float64, p)}
	if s.Incomplete {
		d.need = append([]int{i}, need...)
	}
	d.total = s.Total
	if s.Incomplete {
		d.total = 0
		for m := 0; m < s.Count; m++ {
			d.total += d.weight(m)
		}
	}
	if len(nb) > maxTable {
		return d
	}
	table := make([]int32, 1<<(p-1))
	for x := range table {
		table[x] = -1
	}
	d.keys = []uint32{}
	add := func(m int, key uint32, label int) {
		c := d.weight(m)
		if c == 0 {
			return
		}
		at := table[key]
		if at < 0 {
			at = int32(len(d.keys))
			table[key] = at
			d.keys, d.cs = append(d.keys, key), append(d.cs, 0, 0)
		}
		d.cs[2*int(at)+label] += c
	}
	if s.bitsOnly() && d.need == nil {
		// Bit samples (complete): the words of nb and i, 64 rows at a
		// time, in the order of the rows (as each reads them).
		words := make([]uint64, len(nb))
		s.eachBitBlock(i, nb, words, func(m0, rows int, y uint64) bool {
			for r := range rows {
				key := uint32(0)
				for a, w := range words {
					key |= uint32(w>>r&1) << a
				}
				add(m0+r, key, int(y>>r&1))
			}
			return true
		})
	} else {
		for m := 0; m < s.Count; m++ {
			key := uint32(0)
			for a, j := range nb {
				key |= uint32(s.At(m, j)) << a
			}
			add(m, key, int(s.At(m, i)))
		}
	}
	// Each pattern's design row, once: every Newton pass reads them
	// (each), where building them from the keys a pass was 4% of a
	// bootstrap resample's time. At most 2^MaxRefitTable patterns of
	// MaxRefitTable + 1 numbers (4 MB); usually far fewer.
	d.xs = make([]float64, len(d.keys)*p)
	for m, key := range d.keys {
		x := d.xs[m*p : (m+1)*p]
		x[0] = 1
		for a := range nb {
			x[a+1] = float64(int(key>>a&1)*2 - 1)
		}
	}
	return d
}

// weight returns row m's weight, 0 when it misses a variable of need.
func (d *refitData) weight(m int) float64 {
	if d.need != nil {
		row := d.s.States()[m*d.s.N : (m+1)*d.s.N]
		for _, j := range d.need {
			if row[j] > 1 {
				return 0
			}
		}
	}
	if d.s.Weights != nil {
		return d.s.Weights[m]
	}
	return 1
}

// each calls f with every pattern's (or row's) design row (1, x_nb) and
// the weights of its rows with x_i = −1 and +1 (engine.RowEach). f must
// neither keep nor change x (with patterns it is d's own row, d.xs).
func (d *refitData) each(f func(x []float64, cNeg, cPos float64)) {
	x := d.x
	x[0] = 1
	if d.keys != nil {
		p := len(x)
		for m := range d.keys {
			f(d.xs[m*p:(m+1)*p:(m+1)*p], d.cs[2*m], d.cs[2*m+1])
		}
		return
	}
	n := d.s.N
	if d.s.bitsOnly() && d.need == nil {
		// Bit samples (complete): the words of nb and i, 64 rows at a
		// time, in the order of the rows.
		words := make([]uint64, len(d.nb))
		d.s.eachBitBlock(d.i, d.nb, words, func(m0, rows int, y uint64) bool {
			for r := range rows {
				c := d.weight(m0 + r)
				if c == 0 {
					continue
				}
				for a, w := range words {
					x[a+1] = float64(int(w>>r&1)*2 - 1)
				}
				if y>>r&1 == 1 {
					f(x, 0, c)
				} else {
					f(x, c, 0)
				}
			}
			return true
		})
		return
	}
	for m := 0; m < d.s.Count; m++ {
		c := d.weight(m)
		if c == 0 {
			continue
		}
		b := d.s.States()[m*n : (m+1)*n]
		for a, j := range d.nb {
			x[a+1] = engine.SpinValue(b[j])
			if b[j] > 1 && d.imp != nil {
				x[a+1] = d.imp.Value(b, d.i, j)
			}
		}
		if b[d.i] == 1 {
			f(x, 0, c)
		} else {
			f(x, c, 0)
		}
	}
}

// newRefitImputed returns node i's refit data on the rows that observe
// z_i, the missing spins of nb given by imp; without imp, on the rows that
// observe i and every spin of nb (newRefitData).
func newRefitImputed(s *Data, i int, nb []int, imp *SpinImputer) *refitData {
	if imp == nil {
		return newRefitData(s, i, nb, nb, MaxRefitTable)
	}
	d := newRefitData(s, i, nb, nil, -1) // the rows: imputed values have no pattern
	d.imp = imp
	return d
}

// SpinImputer gives a missing spin of the refit (AvailableCase) its
// expected value under the first stage's fit of its own node: for spin j,
// missing in row m, in node i's refit,
//
//	x̂_j = E[z_j | the other spins] = tanh(θ̂_j + Σ_{k ≠ i, j} Â_jk x_k),
//
// with node j's estimates (Â_jk = ŵ_k/2 and θ̂_j = ŵ_bias/2 of its
// regression, the logistic law of z_j given the rest being
// P(z_j | x) = σ(2 z_j (θ_j + Σ A_jk x_k))), its missing spins 0, and z_i
// left out (read as 0) so that node i's own label does not enter the value
// that predicts it. Where 0 says "no information", x̂_j carries what j's
// observed neighbours tell of it, which is what otherwise reaches node i
// through pairs two steps apart.
type SpinImputer struct {
	theta []float64   // θ̂_j
	supp  [][]int     // the k with Â_jk ≠ 0
	coef  [][]float64 // those Â_jk
}

// NewSpinImputer returns the imputer of the first stage's per-node
// estimates est (Result.est, k = 2) and fields (fields[2j+1] = θ̂_j).
func NewSpinImputer(n int, est []*estimates.Node, fields []float64) *SpinImputer {
	im := &SpinImputer{theta: make([]float64, n), supp: make([][]int, n), coef: make([][]float64, n)}
	for j := 0; j < n; j++ {
		im.theta[j] = fields[2*j+1]
		e := est[j]
		if e == nil {
			continue
		}
		var buf [4]float64
		add := func(k int) {
			if a := e.BlockTo(buf[:0], k)[0]; k != j && a != 0 {
				im.supp[j] = append(im.supp[j], k)
				im.coef[j] = append(im.coef[j], a)
			}
		}
		if e.Fill[0] != 0 {
			for k := 0; k < n; k++ {
				add(k)
			}
			continue
		}
		for _, k := range e.At { // the others hold the fill's zero
			add(int(k))
		}
	}
	return im
}

// Value returns x̂_j for the row of states row, in node i's refit.
func (im *SpinImputer) Value(row []uint8, i, j int) float64 {
	h := im.theta[j]
	for x, k := range im.supp[j] {
		if k != i {
			h += im.coef[j][x] * engine.SpinValue(row[k])
		}
	}
	return math.Tanh(h)
}

// RefitAll runs RefitSpins for every node on the pairs whose first-stage
// statistic (scores, n×n) reaches screen, on up to workers goroutines, and
// returns each node's estimates and standard errors (nil where the refit
// failed or screened nothing), their degrees of freedom and which pairs
// were screened; once ctx is done it stops and returns ctx.Err(). imp gives
// the values of missing spins (refitSpinsImputed; nil for complete
// samples), and node i's refit starts from starts[i] (RefitSpinsFrom;
// starts or starts[i] nil for zero).
func RefitAll(ctx context.Context, s *Data, scores []float64, screen float64, workers int, imp *SpinImputer, starts [][]float64) (d, se [][]float64, df []float64, screened []bool, err error) {
	n := s.N
	d, se, df = make([][]float64, n), make([][]float64, n), make([]float64, n)
	screened = make([]bool, n*n)
	nbs := make([][]int, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if j != i && scores[i*n+j] >= screen {
				nbs[i] = append(nbs[i], j)
				screened[i*n+j] = true
			}
		}
	}
	err = eachIndex(ctx, workers, n, func(i int) {
		if len(nbs[i]) == 0 {
			return
		}
		var start []float64
		if starts != nil {
			start = starts[i]
		}
		if di, si, dfi, ok := refitSpinsImputed(ctx, s, i, nbs[i], imp, start); ok {
			d[i], se[i], df[i] = di, si, dfi
		}
	})
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return d, se, df, screened, nil
}

// finiteOr0 returns v, or 0 when v is NaN or infinite.
func finiteOr0(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}
