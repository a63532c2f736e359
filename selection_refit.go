package pairwise

import (
	"context"
	"math"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise/solve"
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

// refitDecrement is the Newton decrement gᵀH⁻¹g (twice the loss a full
// Newton step would still gain, per unit of weight) below which the refit
// takes the full step and stops: the step is then of order 1e-6 and, Newton
// converging quadratically, the error after it of order 1e-12. Above it the
// gain, 5e-13 or more, is well clear of the loss's rounding (about 1e-16
// times the loss), so the line search can see it.
const refitDecrement = 1e-12

// refitMaxWeight bounds a refit coefficient (twice |Â_ij|): beyond it the
// data separate node i's values and there is no finite estimate.
const refitMaxWeight = 20

// refitChunk is the number of rows whose design rows refitSpins stacks
// before one symmetric rank-k update of the Hessian.
const refitChunk = 1024

// refitSpins returns node i's unconstrained logistic regression on the spins
// nb (and an intercept) over all rows of s, weighted by the rows' weights,
// in the layout of waldSpins (4 entries a neighbour, the Ising form
// [[a, -a], [-a, a]] with Â_ij = w_j/2), with the model-based standard
// errors sqrt((H⁻¹)_jj / N)/2, N the total weight. ok is false when the
// maximum likelihood estimate does not exist or was not reached (a
// separating spin, a singular Hessian): the caller then keeps the first
// stage.
func refitSpins(ctx context.Context, s *Samples, i int, nb []int) (d, se []float64, ok bool) {
	return refitSpinsTable(ctx, s, i, nb, maxRefitTable)
}

// refitSpinsTable is refitSpins gathering patterns up to maxTable screened
// spins (tests compare the two ways of reading the data).
func refitSpinsTable(ctx context.Context, s *Samples, i int, nb []int, maxTable int) (d, se []float64, ok bool) {
	n, p := s.n, len(nb)+1
	total := s.total
	if total <= 0 {
		return nil, nil, false
	}
	data := newRefitData(s, i, nb, maxTable)
	w := make([]float64, p)
	step := make([]float64, p)
	z := mat.NewDense(refitChunk, p, nil)
	// loss returns the weighted mean logistic loss at v.
	loss := func(v []float64) float64 {
		l := 0.0
		data.each(func(x []float64, y, c float64) {
			l += c * solve.Softplus(-y*floats.Dot(v, x))
		})
		return l / total
	}
	var chol mat.Cholesky
	h := mat.NewSymDense(p, nil)
	g := make([]float64, p)
	next := make([]float64, p)
	cur := loss(w)
	const maxNewton = 50
	// hessian sets h to H = Σ ĉ σ(u)σ(-u) x xᵀ and g to
	// Σ ĉ (-y σ(-y u)) x at v, ĉ = c/N.
	hessian := func(v []float64) {
		h.Zero()
		clear(g)
		r := 0
		flush := func() {
			if r > 0 {
				h.SymRankK(h, 1, z.Slice(0, r, 0, p).T())
				r = 0
			}
		}
		data.each(func(x []float64, y, c float64) {
			u := floats.Dot(v, x)
			ch := c / total
			sg := solve.Sigmoid(u)
			floats.AddScaled(g, -y*solve.Sigmoid(-y*u)*ch, x)
			floats.ScaleTo(z.RawRowView(r), math.Sqrt(ch*sg*(1-sg)), x)
			if r++; r == refitChunk {
				flush()
			}
		})
		flush()
	}
	sv, gv := mat.NewVecDense(p, step), mat.NewVecDense(p, g)
	for it := 0; it < maxNewton; it++ {
		if ctx.Err() != nil {
			return nil, nil, false
		}
		hessian(w)
		if !chol.Factorize(h) {
			return nil, nil, false
		}
		if err := chol.SolveVecTo(sv, gv); err != nil && !isCondition(err) {
			return nil, nil, false
		}
		// The Newton decrement gᵀH⁻¹g is twice the loss a full step would
		// gain. Once it is below refitDecrement the full step is taken and
		// the estimate is final: near rounding level the loss is too flat
		// for a line search to tell one point from another.
		if floats.Dot(g, step) < refitDecrement {
			floats.Sub(w, step)
			if floats.Norm(w, math.Inf(1)) > refitMaxWeight {
				return nil, nil, false
			}
			// The standard errors at the final estimate.
			hessian(w)
			if !chol.Factorize(h) {
				return nil, nil, false
			}
			var inv mat.SymDense
			if err := chol.InverseTo(&inv); err != nil && !isCondition(err) {
				return nil, nil, false
			}
			d = make([]float64, 4*n)
			se = make([]float64, 4*n)
			for a, j := range nb {
				setIsingEntry(d, se, j, w[a+1]/2, math.Sqrt(math.Max(inv.At(a+1, a+1), 0)/total)/2)
			}
			return d, se, true
		}
		// Otherwise a damped step: halve it until the loss does not grow.
		t := 1.0
		var nl float64
		for half := 0; ; half++ {
			floats.AddScaledTo(next, w, -t, step)
			nl = loss(next)
			if nl <= cur {
				break
			}
			if half == 30 {
				return nil, nil, false
			}
			t /= 2
		}
		copy(w, next)
		cur = nl
		if floats.Norm(w, math.Inf(1)) > refitMaxWeight {
			return nil, nil, false // a separating spin: no finite estimate
		}
	}
	return nil, nil, false
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
// failed or screened nothing) and which pairs were screened; once ctx is
// done it stops and returns ctx.Err().
func refitAll(ctx context.Context, s *Samples, scores []float64, screen float64, workers int) (d, se [][]float64, screened []bool, err error) {
	n := s.n
	d, se = make([][]float64, n), make([][]float64, n)
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
				if di, si, ok := refitSpins(ctx, s, i, nbs[i]); ok {
					d[i], se[i] = di, si
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
		return nil, nil, nil, err
	}
	return d, se, screened, nil
}
