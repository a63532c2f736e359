package pairwise

import (
	"context"
	"math"
	"sync"

	"github.com/mrfkit/pairwise/internal/engine"
)

// The second stage of the Ising edge test (WithRefit). The first stage's
// statistics come from debiased estimates in node i's regression on all
// n-1 other spins; most of those spins are not neighbours, and their
// correlation with the neighbours inflates the neighbours' variances. The
// second stage keeps, for node i, the spins j whose pair statistic passed
// a loose screen (refitScreen), refits node i's logistic regression on
// them alone without any constraint (the maximum likelihood estimate, by
// Newton's method), and tests each screened pair again with the refit's
// estimate and its model-based standard error, the inverse Fisher
// information: the node's conditional law is exactly logistic in its
// neighbours, so that variance is the right one when the screen kept them.

// refitScreen is the first-stage statistic a pair needs to enter the refit.
// Chosen by measurement (docs/tuning): 1.5 and 2 were tried on the study's
// seeds 0-19 and 1.5 kept on seeds 20-99 and shared/bench's data, which
// took no part in the choice.
const refitScreen = 1.5

// refitSpins returns node i's unconstrained logistic regression on the spins
// nb (and an intercept) over all rows of s, weighted by the rows' weights,
// in the layout of waldSpins (4 entries a neighbour, the Ising form
// [[a, -a], [-a, a]] with Â_ij = w_j/2), with the model-based standard
// errors sqrt((H⁻¹)_jj / N)/2, N the total weight, and its degrees of
// freedom N − (len(nb) + 1) (small_samples.go). ok is false when the
// maximum likelihood estimate does not exist or was not reached (a
// separating spin, a singular Hessian): the caller then keeps the first
// stage.
//
// With missing spins (AvailableCase) the rows are those where z_i and
// every spin of the fit are observed, N their weight, and the fit drops
// spins backwards: the spins of nb whose refit statistic |Â_ij|/SE is
// below refitScreen leave (their entries stay 0, not an edge from node i)
// and the fit runs again on the rows that observe the rest. A spurious
// screened spin costs a share p of the rows, and the first stage, whose
// missing neighbours enter as 0, screens spurious spins two steps away
// (when a neighbour is missing, its neighbours tell of it): on the
// diamond (n = 10, 30% missing, N = 10000, 6 seeds) the plain refit
// recovered 2 graphs (FP 2.8, FN 2.3 a run), the backward one 5 (FP 0.17,
// FN 0.17); with 10% missing at N = 1000, 1 and 4 of 8.
func refitSpins(ctx context.Context, s *Samples, i int, nb []int) (d, se []float64, df float64, ok bool) {
	if !s.incomplete {
		return refitSpinsTable(ctx, s, i, nb, maxRefitTable)
	}
	// Missing values: every screened spin costs the rows that miss it, a
	// share p of them. The spins whose refit statistic falls below the
	// screen leave, and the refit runs again on the rows that observe
	// the rest, until every spin left passes (or none would). A refit
	// without an estimate (fewer rows, separated labels) ends the loop
	// with the last one that had one.
	for {
		dn, sn, dfn, okn := refitSpinsTable(ctx, s, i, nb, maxRefitTable)
		if !okn {
			return d, se, df, ok // the last fit that had an estimate, if any
		}
		d, se, df, ok = dn, sn, dfn, okn
		var keep []int
		for _, j := range nb {
			if se[4*j] > 0 && math.Abs(d[4*j])/se[4*j] >= refitScreen {
				keep = append(keep, j)
			}
		}
		if len(keep) == len(nb) || len(keep) == 0 {
			return
		}
		nb = keep
	}
}

// refitSpinsTable is refitSpins gathering patterns up to maxTable screened
// spins (tests compare the two ways of reading the data). The fit is the
// engine's: an unconstrained task (radius +Inf) that Driver.Fit solves by
// Newton's method, read through the patterns or the rows.
func refitSpinsTable(ctx context.Context, s *Samples, i int, nb []int, maxTable int) (d, se []float64, df float64, ok bool) {
	n, p := s.n, len(nb)+1
	data := newRefitData(s, i, nb, nb, maxTable)
	total := data.total
	if total <= 0 {
		return nil, nil, 0, false
	}
	task := &engine.Task{Bias: i, Each: data.each}
	w := make([]float64, p)
	var e engine.Driver
	if st, err := e.Fit(ctx, task, nil, math.Inf(1), w); err != nil || !st.Converged {
		return nil, nil, 0, false
	}
	// The standard errors at the estimate: the inverse Fisher information.
	inv, ok := engine.InverseFisher(task, w)
	if !ok {
		return nil, nil, 0, false
	}
	d = make([]float64, 4*n)
	se = make([]float64, 4*n)
	for a, j := range nb {
		setIsingEntry(d, se, j, w[a+1]/2, math.Sqrt(math.Max(inv.At(a+1, a+1), 0)/total)/2)
	}
	return d, se, total - float64(p), true
}

// refitData is what node i's refit reads: the rows of s seen through the
// spins (x_i, x_nb) as ±1, with their weights. The loss depends on the
// data only through the distinct patterns of those spins, and with up to
// maxRefitTable screened spins the patterns (at most 2^(1+len(nb)), far
// fewer than the rows at large N) are gathered once, each kept as its bits
// (x_i in bit 0, x_nb[a] in bit a+1) and its total weight, about a
// megabyte at most; with more spins the rows are read directly on every
// pass. Either way the refit keeps no copy of the data (the memory bound
// of a 10^6-row file holds).
type refitData struct {
	s  *Samples
	i  int
	nb []int
	// need are the variables a row must observe, besides i, to enter
	// when s has missing values (available cases); total is the weight
	// of the rows that enter.
	need  []int
	total float64
	// keys and cs hold the patterns and their weights; nil when the rows
	// are read.
	keys []uint32
	cs   []float64
	x    []float64 // scratch design row (1, x_nb)
}

// maxRefitTable is the number of screened spins up to which refitData
// gathers patterns: a table of 2^16 entries and at most 2^16 patterns.
const maxRefitTable = 15

// newRefitData gathers the patterns when nb has at most maxTable spins.
// With missing values in s, only the rows that observe i and every variable
// of need enter (need holds nb).
func newRefitData(s *Samples, i int, nb, need []int, maxTable int) *refitData {
	n, p := s.n, len(nb)+1
	d := &refitData{s: s, i: i, nb: nb, x: make([]float64, p)}
	if s.incomplete {
		d.need = append([]int{i}, need...)
	}
	d.total = s.total
	if s.incomplete {
		d.total = 0
		for m := 0; m < s.rows; m++ {
			d.total += d.weight(m)
		}
	}
	if len(nb) > maxTable {
		return d
	}
	table := make([]int32, 1<<p)
	for x := range table {
		table[x] = -1
	}
	d.keys = []uint32{}
	for m := 0; m < s.rows; m++ {
		c := d.weight(m)
		if c == 0 {
			continue
		}
		b := s.b8[m*n : (m+1)*n]
		key := uint32(b[i])
		for a, j := range nb {
			key |= uint32(b[j]) << (a + 1)
		}
		if at := table[key]; at >= 0 {
			d.cs[at] += c
			continue
		}
		table[key] = int32(len(d.keys))
		d.keys, d.cs = append(d.keys, key), append(d.cs, c)
	}
	return d
}

// weight returns row m's weight, 0 when it misses a variable of need.
func (d *refitData) weight(m int) float64 {
	if d.need != nil {
		row := d.s.b8[m*d.s.n : (m+1)*d.s.n]
		for _, j := range d.need {
			if row[j] > 1 {
				return 0
			}
		}
	}
	if d.s.weights != nil {
		return d.s.weights[m]
	}
	return 1
}

// each calls f with every pattern's (or row's) design row (1, x_nb), x_i
// and weight. f must not keep x.
func (d *refitData) each(f func(x []float64, y, c float64)) {
	x := d.x
	x[0] = 1
	if d.keys != nil {
		for m, key := range d.keys {
			for a := range d.nb {
				x[a+1] = float64(int(key>>(a+1)&1)*2 - 1)
			}
			f(x, float64(int(key&1)*2-1), d.cs[m])
		}
		return
	}
	n := d.s.n
	for m := 0; m < d.s.rows; m++ {
		c := d.weight(m)
		if c == 0 {
			continue
		}
		b := d.s.b8[m*n : (m+1)*n]
		for a, j := range d.nb {
			x[a+1] = spin(b[j])
		}
		f(x, spin(b[d.i]), c)
	}
}

// refitAll runs refitSpins for every node on the pairs whose first-stage
// statistic (scores, n×n) reaches screen, on up to workers goroutines, and
// returns each node's estimates and standard errors (nil where the refit
// failed or screened nothing), their degrees of freedom and which pairs
// were screened; once ctx is done it stops and returns ctx.Err().
func refitAll(ctx context.Context, s *Samples, scores []float64, screen float64, workers int) (d, se [][]float64, df []float64, screened []bool, err error) {
	n := s.n
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
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(1, min(workers, n)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if len(nbs[i]) == 0 || ctx.Err() != nil {
					continue
				}
				if di, si, dfi, ok := refitSpins(ctx, s, i, nbs[i]); ok {
					d[i], se[i], df[i] = di, si, dfi
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, nil, err
	}
	return d, se, df, screened, nil
}
