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
func refitSpins(ctx context.Context, s *Samples, i int, nb []int) (d, se []float64, df float64, ok bool) {
	return refitSpinsTable(ctx, s, i, nb, maxRefitTable)
}

// refitSpinsTable is refitSpins gathering patterns up to maxTable screened
// spins (tests compare the two ways of reading the data). The fit is the
// engine's: an unconstrained task (radius +Inf) that Driver.Fit solves by
// Newton's method, read through the patterns or the rows, from zero.
func refitSpinsTable(ctx context.Context, s *Samples, i int, nb []int, maxTable int) (d, se []float64, df float64, ok bool) {
	return refitSpinsFrom(ctx, s, i, nb, maxTable, nil)
}

// refitSpinsFrom is refitSpinsTable starting from start when
// it is not nil: node i's coefficients in its own layout (start[j] = ŵ_j
// for the spin j, start[i] the bias), of which the refit takes those of nb
// (non-finite entries count as 0). The estimate does not depend on the
// start beyond the Newton method's stopping rule (the error after its last
// full step is of order 1e-12, mle.go); a good start saves steps.
func refitSpinsFrom(ctx context.Context, s *Samples, i int, nb []int, maxTable int, start []float64) (d, se []float64, df float64, ok bool) {
	n, p := s.n, len(nb)+1
	total := s.total
	if total <= 0 {
		return nil, nil, 0, false
	}
	data := newRefitData(s, i, nb, maxTable)
	task := &engine.Task{Bias: i, Each: data.each}
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
func newRefitData(s *Samples, i int, nb []int, maxTable int) *refitData {
	n, p := s.n, len(nb)+1
	d := &refitData{s: s, i: i, nb: nb, x: make([]float64, p)}
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

// weight returns row m's weight.
func (d *refitData) weight(m int) float64 {
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
			x[a+1] = float64(2*int(b[j]) - 1)
		}
		f(x, float64(2*int(b[d.i])-1), c)
	}
}

// refitAll runs refitSpins for every node on the pairs whose first-stage
// statistic (scores, n×n) reaches screen, on up to workers goroutines, and
// returns each node's estimates and standard errors (nil where the refit
// failed or screened nothing), their degrees of freedom and which pairs
// were screened; once ctx is done it stops and returns ctx.Err().
func refitAll(ctx context.Context, s *Samples, scores []float64, screen float64, workers int) (d, se [][]float64, df []float64, screened []bool, err error) {
	return refitAllFrom(ctx, s, scores, screen, workers, nil)
}

// refitAllFrom is refitAll with node i's refit started from starts[i]
// (refitSpinsFrom; starts or starts[i] nil for zero).
func refitAllFrom(ctx context.Context, s *Samples, scores []float64, screen float64, workers int, starts [][]float64) (d, se [][]float64, df []float64, screened []bool, err error) {
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
				var start []float64
				if starts != nil {
					start = starts[i]
				}
				if di, si, dfi, ok := refitSpinsFrom(ctx, s, i, nbs[i], maxRefitTable, start); ok {
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

// finiteOr0 returns v, or 0 when v is NaN or infinite.
func finiteOr0(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}
