package pairwise

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
)

// Sampler draws samples z ∈ [k]^n from the distribution of a Model.
type Sampler interface {
	// Sample returns count samples drawn with randomness from src. The same
	// src state gives the same samples. It returns an error for a nil src or
	// count < 1.
	Sample(src rand.Source, count int) (*Samples, error)
}

var (
	_ Sampler = (*ExactSampler)(nil)
	_ Sampler = (*GibbsSampler)(nil)
)

// ExactSampler draws exact independent samples from a Model by variable
// elimination. It is the sampler to use whenever the model is small or thin
// enough: chains, trees, the diamond graph of any size, Ising grids up to
// about 16×16, the paper's 3×3 grid at k = 6. Samples are i.i.d. draws from
// P(z) exactly, with no burn-in or mixing-time question to answer.
//
// NewExactSampler sums the variables out one at a time (sum-product over the
// factors exp(W_ij) and exp(θ_i), in log space) along a min-fill elimination
// order. When variable v is eliminated, the variables it is still coupled to,
// directly or through earlier eliminations, form its separator S_v, and the
// sampler keeps the conditional table P(z_v | z_{S_v}) as cumulative
// probabilities: k^(|S_v|+1) float64 entries. A draw visits the variables in
// reverse elimination order and takes z_v from the row of its table selected
// by the already drawn z_{S_v}, so it costs O(Σ_v (|S_v| + k)) plus one
// uniform number per variable, whatever the number of states k^n.
//
// The table sizes depend on the treewidth of the graph, not on n: a chain or
// tree has separators of one variable, the diamond graph of two, an r×c grid
// of 1 to 1.4 times min(r, c) (min-fill is greedy: 13 for the 10×10 grid,
// whose tables hold 66 thousand entries in all). NewExactSampler refuses,
// before allocating any table, a model whose largest table would exceed
// MaxExactTable entries or whose tables together would exceed
// MaxExactTotal; use a GibbsSampler for those. Near the limits, building
// takes seconds (a 16×16 Ising grid: 44 million entries, about 3 s).
//
// An ExactSampler copies what it needs from the model: later changes to the
// model do not affect it. Its Sample method is safe for concurrent use with
// distinct sources.
type ExactSampler struct {
	n, k   int
	order  []int32 // order[t] is the variable eliminated at step t
	sepOff []int   // the separator of step t is seps[sepOff[t]:sepOff[t+1]], ascending
	seps   []int32
	tabOff []int     // the table of step t is cdf[tabOff[t]:tabOff[t+1]]
	cdf    []float64 // row s (the separator's values, first variable slowest) holds P(z_v ≤ a | s)
	logZ   float64   // log of the partition function Σ_z exp(LogWeight(z))
}

// NewExactSampler returns an exact sampler for m. It returns an error for a
// nil model, for a model whose conditional tables exceed MaxExactTable or
// MaxExactTotal (checked before any table is allocated; the error names the
// model size and the table size), and for a model whose log-weights overflow
// float64.
func NewExactSampler(m *Model) (*ExactSampler, error) {
	const fn = "NewExactSampler"
	if m == nil {
		return nil, errors.New("pairwise: NewExactSampler: nil model")
	}
	n, k := m.n, m.k
	el, err := eliminationOrder(m, MaxExactTable, MaxExactTotal)
	if err != nil {
		return nil, fmt.Errorf("pairwise: %s: %w", fn, err)
	}
	e := &ExactSampler{
		n:      n,
		k:      k,
		order:  make([]int32, n),
		sepOff: make([]int, n+1),
		tabOff: make([]int, n+1),
	}
	pos := make([]int, n) // pos[v] is the step at which v is eliminated
	for t, v := range el.order {
		e.order[t] = int32(v)
		pos[v] = t
	}
	for t, s := range el.seps {
		for _, u := range s {
			e.seps = append(e.seps, int32(u))
		}
		e.sepOff[t+1] = len(e.seps)
		e.tabOff[t+1] = e.tabOff[t] + el.sizes[t]
	}
	e.cdf = make([]float64, e.tabOff[n])

	// Bucket elimination: every factor goes to the bucket of its first
	// eliminated variable, whose separator (plus itself) covers its scope.
	buckets := make([][]factor, n)
	for i := 0; i < n; i++ {
		for _, nb := range m.adj[i] {
			if nb.j > i {
				f := factor{vars: []int{i, nb.j}, logv: nb.w}
				t := min(pos[i], pos[nb.j])
				buckets[t] = append(buckets[t], f)
			}
		}
	}
	var strides, digits []int
	for t := 0; t < n; t++ {
		v := int(e.order[t])
		sep := el.seps[t]
		tab := e.cdf[e.tabOff[t]:e.tabOff[t+1]]
		theta := m.theta[v*k : (v+1)*k]
		for r := 0; r < len(tab); r += k {
			copy(tab[r:r+k], theta)
		}
		// Table digits: sep[0] (slowest), ..., sep[len-1], v (fastest).
		nd := len(sep) + 1
		strides = grow(strides, nd)
		digits = grow(digits, nd)
		for _, f := range buckets[t] {
			for d := range strides[:nd] {
				strides[d] = 0
			}
			st := 1
			for q := len(f.vars) - 1; q >= 0; q-- {
				u := f.vars[q]
				d := len(sep) // u == v
				if u != v {
					d = sort.Search(len(sep), func(x int) bool { return sep[x] >= u })
				}
				strides[d] = st
				st *= k
			}
			addFactor(tab, f.logv, k, strides[:nd], digits[:nd])
		}
		buckets[t] = nil
		// Turn every row into P(z_v ≤ a | s) and the log-sum-exp of the row
		// into the message over the separator (the factor left behind).
		msg := make([]float64, len(tab)/k)
		for s := range msg {
			row := tab[s*k : (s+1)*k]
			mx := math.Inf(-1)
			for _, x := range row {
				mx = math.Max(mx, x)
			}
			if math.IsInf(mx, 0) || math.IsNaN(mx) {
				return nil, fmt.Errorf("pairwise: %s: the log-weights of variable %d overflow float64 (%v)", fn, v, mx)
			}
			sum := 0.0
			for a, x := range row {
				sum += math.Exp(x - mx)
				row[a] = sum
			}
			for a := range row {
				row[a] /= sum
			}
			row[k-1] = 1 // exactly, so that a uniform u < 1 always finds a state
			msg[s] = mx + math.Log(sum)
		}
		if len(sep) == 0 {
			e.logZ += msg[0]
			continue
		}
		next := n
		for _, u := range sep {
			next = min(next, pos[u])
		}
		buckets[next] = append(buckets[next], factor{vars: sep, logv: msg})
	}
	if math.IsInf(e.logZ, 0) || math.IsNaN(e.logZ) {
		return nil, fmt.Errorf("pairwise: %s: the log partition function overflows float64 (%v)", fn, e.logZ)
	}
	return e, nil
}

// factor is a table of log-values over vars, row-major with vars[0] slowest.
type factor struct {
	vars []int
	logv []float64
}

// addFactor adds to every entry of tab, whose nd = len(strides) digits of
// base k run slowest first, the entry of f at Σ_d digit_d·strides[d].
func addFactor(tab, f []float64, k int, strides, digits []int) {
	nd := len(strides)
	for d := range digits {
		digits[d] = 0
	}
	off := 0
	last := strides[nd-1]
	for r := 0; r < len(tab); r += k {
		o := off
		for a := 0; a < k; a++ {
			tab[r+a] += f[o]
			o += last
		}
		for d := nd - 2; d >= 0; d-- { // odometer over the separator digits
			digits[d]++
			off += strides[d]
			if digits[d] < k {
				break
			}
			digits[d] = 0
			off -= k * strides[d]
		}
	}
}

func grow(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}

// Sample returns count exact independent samples of the model. Row m is the
// m-th draw; each draw takes n uniform numbers from src, in reverse
// elimination order. It returns an error for a nil src, count < 1 or
// count·n > MaxSampleValues.
func (e *ExactSampler) Sample(src rand.Source, count int) (*Samples, error) {
	if err := checkSampleArgs("ExactSampler", src, count, e.n); err != nil {
		return nil, err
	}
	r := rand.New(src)
	s := newSamplesBuffer(e.n, e.k, count)
	z := make([]int, e.n)
	for m := 0; m < count; m++ {
		e.draw(z, r)
		for i, a := range z {
			s.set(m, i, a)
		}
	}
	return s, nil
}

// draw fills z with one exact sample (ancestral sampling in reverse
// elimination order).
func (e *ExactSampler) draw(z []int, r *rand.Rand) {
	k := e.k
	for t := e.n - 1; t >= 0; t-- {
		row := 0
		for _, u := range e.seps[e.sepOff[t]:e.sepOff[t+1]] {
			row = row*k + z[u]
		}
		off := e.tabOff[t] + row*k
		u := r.Float64()
		if k == 2 {
			// Branch-free: the comparison is a coin flip the CPU cannot predict.
			a := 0
			if u >= e.cdf[off] {
				a = 1
			}
			z[e.order[t]] = a
			continue
		}
		z[e.order[t]] = searchCDF(e.cdf[off:off+k], u)
	}
}

// searchCDF returns the first a with u < cdf[a]; cdf[len-1] must be 1 and
// u in [0, 1). States of probability zero are never returned.
func searchCDF(cdf []float64, u float64) int {
	if len(cdf) <= 16 {
		for a, c := range cdf {
			if u < c {
				return a
			}
		}
		return len(cdf) - 1
	}
	lo, hi := 0, len(cdf)-1
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if u < cdf[mid] {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// logProb returns log P(z) computed from the conditional tables, the chain
// rule along the elimination order. For tests.
func (e *ExactSampler) logProb(z []int) float64 {
	k := e.k
	lp := 0.0
	for t := 0; t < e.n; t++ {
		row := 0
		for _, u := range e.seps[e.sepOff[t]:e.sepOff[t+1]] {
			row = row*k + z[u]
		}
		off := e.tabOff[t] + row*k
		a := z[e.order[t]]
		p := e.cdf[off+a]
		if a > 0 {
			p -= e.cdf[off+a-1]
		}
		lp += math.Log(p)
	}
	return lp
}

// width returns the largest separator size of the elimination order.
func (e *ExactSampler) width() int {
	w := 0
	for t := 0; t < e.n; t++ {
		w = max(w, e.sepOff[t+1]-e.sepOff[t])
	}
	return w
}

// checkSampleArgs validates the arguments of a Sample method.
func checkSampleArgs(typ string, src rand.Source, count, n int) error {
	if src == nil {
		return fmt.Errorf("pairwise: %s.Sample: nil random source", typ)
	}
	if count < 1 {
		return fmt.Errorf("pairwise: %s.Sample: count = %d, want at least 1", typ, count)
	}
	if float64(count)*float64(n) > MaxSampleValues {
		return fmt.Errorf("pairwise: %s.Sample: count = %d samples of %d variables exceed MaxSampleValues = %d values", typ, count, n, MaxSampleValues)
	}
	return nil
}

// elimination is the symbolic phase of variable elimination: the order, the
// separator of every step (ascending) and its table size k^(|sep|+1).
type elimination struct {
	order []int
	seps  [][]int
	sizes []int
}

// eliminationOrder computes a min-fill elimination order of the interaction
// graph of m, ties broken by the smaller degree and then the smaller index,
// so the order is deterministic. It works on the graph alone and returns an
// error, before any table is built, as soon as the next variable would need
// a table of more than maxTable entries or the tables together more than
// maxTotal.
//
// A variable's fill is the number of pairs of its neighbours that are not
// yet adjacent: the edges its elimination adds. Only the neighbours of the
// eliminated variable and the common neighbours of each added pair change
// fill or degree, so only those are re-scored.
func eliminationOrder(m *Model, maxTable, maxTotal int) (*elimination, error) {
	n, k := m.n, m.k
	// maxDeg is the largest separator whose table k^(maxDeg+1) fits.
	maxDeg := -1
	for size := k; size <= maxTable; size *= k {
		maxDeg++
		if size > maxTable/k {
			break
		}
	}
	g := elimGraph{
		adj:  make([][]int32, n),
		deg:  make([]int, n),
		dead: make([]bool, n),
	}
	for i := 0; i < n; i++ {
		g.adj[i] = make([]int32, len(m.adj[i]))
		for x, nb := range m.adj[i] {
			g.adj[i][x] = int32(nb.j)
		}
		g.deg[i] = len(m.adj[i])
	}
	var h elimHeap
	score := func(v int) elimKey {
		fill := math.MaxInt
		if g.deg[v] <= maxDeg {
			fill = g.fill(v)
		}
		return elimKey{fill: fill, deg: g.deg[v], v: v}
	}
	cur := make([]elimKey, n)
	for v := 0; v < n; v++ {
		cur[v] = score(v)
		h = append(h, cur[v])
	}
	heap.Init(&h)

	el := &elimination{order: make([]int, 0, n), seps: make([][]int, 0, n), sizes: make([]int, 0, n)}
	total, largest := 0, 0 // entries so far; the largest table is k^largest
	dirty := make([]bool, n)
	var touched []int
	for len(el.order) < n {
		key := heap.Pop(&h).(elimKey)
		v := key.v
		if g.dead[v] || key != cur[v] {
			continue // a stale entry
		}
		if key.fill == math.MaxInt {
			return nil, fmt.Errorf("the model (n = %d variables, k = %d) needs a conditional table of %s entries "+
				"(variable %d with a separator of %d variables after %d of %d eliminations), more than MaxExactTable = %d; "+
				"use a GibbsSampler", n, k, powString(k, key.deg+1), v, key.deg, len(el.order), n, maxTable)
		}
		size := 1
		for i := 0; i <= key.deg; i++ {
			size *= k
		}
		largest = max(largest, key.deg+1)
		total += size
		if total > maxTotal {
			return nil, fmt.Errorf("the model (n = %d variables, k = %d) needs conditional tables of more than %d entries "+
				"in total (the first %d of %d variables, the largest of %s entries), more than MaxExactTotal = %d; "+
				"use a GibbsSampler", n, k, total, len(el.order)+1, n, powString(k, largest), maxTotal)
		}
		sep := g.liveNeighbors(v)
		el.order = append(el.order, v)
		el.seps = append(el.seps, sep)
		el.sizes = append(el.sizes, size)

		// Eliminate v: connect its neighbours pairwise, then remove it.
		touched = touched[:0]
		mark := func(u int) {
			if !dirty[u] {
				dirty[u] = true
				touched = append(touched, u)
			}
		}
		g.dead[v] = true
		for _, u := range sep {
			g.deg[u]--
			mark(u)
		}
		for x, a := range sep {
			for _, b := range sep[x+1:] {
				if g.adjacent(a, b) {
					continue
				}
				g.addEdge(a, b)
				g.commonNeighbors(a, b, mark)
			}
		}
		for _, u := range touched {
			dirty[u] = false
			g.compact(u)
			if s := score(u); s != cur[u] {
				cur[u] = s
				heap.Push(&h, s)
			}
		}
	}
	return el, nil
}

// powString formats k^p exactly when it fits in an int, and as k^p otherwise.
func powString(k, p int) string {
	v := 1
	for i := 0; i < p; i++ {
		if v > math.MaxInt/k {
			return fmt.Sprintf("%d^%d", k, p)
		}
		v *= k
	}
	return fmt.Sprintf("%d^%d = %d", k, p, v)
}

// elimGraph is the interaction graph during elimination. Adjacency lists are
// ascending and may hold eliminated vertices, which are skipped and
// compacted away lazily so that removing a leaf of a hub costs O(1).
type elimGraph struct {
	adj  [][]int32
	deg  []int // live neighbours
	dead []bool
}

func (g *elimGraph) liveNeighbors(v int) []int {
	out := make([]int, 0, g.deg[v])
	for _, u := range g.adj[v] {
		if !g.dead[u] {
			out = append(out, int(u))
		}
	}
	return out
}

func (g *elimGraph) adjacent(a, b int) bool {
	l := g.adj[a]
	p := sort.Search(len(l), func(x int) bool { return int(l[x]) >= b })
	return p < len(l) && int(l[p]) == b
}

func (g *elimGraph) insert(a, b int) {
	l := g.adj[a]
	p := sort.Search(len(l), func(x int) bool { return int(l[x]) >= b })
	l = append(l, 0)
	copy(l[p+1:], l[p:])
	l[p] = int32(b)
	g.adj[a] = l
}

func (g *elimGraph) addEdge(a, b int) {
	g.insert(a, b)
	g.insert(b, a)
	g.deg[a]++
	g.deg[b]++
}

// fill returns the number of non-adjacent pairs of live neighbours of v.
func (g *elimGraph) fill(v int) int {
	nb := g.liveNeighbors(v)
	f := 0
	for x, a := range nb {
		for _, b := range nb[x+1:] {
			if !g.adjacent(a, b) {
				f++
			}
		}
	}
	return f
}

// commonNeighbors calls f for every live vertex adjacent to both a and b.
func (g *elimGraph) commonNeighbors(a, b int, f func(int)) {
	la, lb := g.adj[a], g.adj[b]
	for x, y := 0, 0; x < len(la) && y < len(lb); {
		switch {
		case la[x] < lb[y]:
			x++
		case la[x] > lb[y]:
			y++
		default:
			if !g.dead[la[x]] {
				f(int(la[x]))
			}
			x++
			y++
		}
	}
}

// compact drops eliminated vertices from the list of u once they are the
// majority, keeping the total cost of removals linear.
func (g *elimGraph) compact(u int) {
	l := g.adj[u]
	if len(l) <= 2*g.deg[u]+8 {
		return
	}
	out := l[:0]
	for _, w := range l {
		if !g.dead[w] {
			out = append(out, w)
		}
	}
	g.adj[u] = out
}

// elimKey orders candidates by fill, then degree, then index.
type elimKey struct {
	fill, deg, v int
}

func (a elimKey) less(b elimKey) bool {
	if a.fill != b.fill {
		return a.fill < b.fill
	}
	if a.deg != b.deg {
		return a.deg < b.deg
	}
	return a.v < b.v
}

// elimHeap is a min-heap of candidate keys with lazy deletion.
type elimHeap []elimKey

func (h elimHeap) Len() int           { return len(h) }
func (h elimHeap) Less(i, j int) bool { return h[i].less(h[j]) }
func (h elimHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *elimHeap) Push(x any)        { *h = append(*h, x.(elimKey)) }
func (h *elimHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Defaults of the Gibbs sampler options.
const (
	// DefaultGibbsBurnIn is the default number of sweeps a chain runs before
	// its first kept sample. 1000 sweeps are ample for the moderate widths
	// (λ up to about 1) of the paper's experiments; strongly coupled models
	// need more.
	DefaultGibbsBurnIn = 1000
	// DefaultGibbsThin is the default number of sweeps between two kept
	// samples of a chain; it brings the correlation between consecutive
	// samples of a weakly coupled model close to zero at a tenth of the
	// cost of keeping every sweep's state.
	DefaultGibbsThin = 10
	// DefaultGibbsChains is the default number of independent chains: enough
	// to use a few cores and to mix starting points, few enough that the
	// burn-in, paid once per chain, stays a small part of the work.
	DefaultGibbsChains = 4
)

// GibbsSampler draws approximate samples from a Model by single-site Gibbs
// sampling. It is the sampler for models too wide for an ExactSampler
// (large grids, dense graphs); when an ExactSampler can be built, prefer it.
//
// Each chain starts from a state drawn uniformly at random and runs
// systematic-scan sweeps: variables 0..n-1 in turn, each redrawn from its
// exact conditional P(z_i | z_-i) ∝ exp(Σ_j W_ij(·, z_j) + θ_i(·)) (Fact 2 of
// the paper; the logistic function of Fact 1 when k = 2). A chain discards
// its first GibbsBurnIn sweeps, then keeps its state once every GibbsThin
// sweeps.
//
// The samples are only as good as the chain's mixing, and that is the
// user's to choose: the mixing time grows with the coupling strength, up to
// exponentially in the width λ of Definitions 1 and 2 (an Ising grid slows
// down sharply near |A_ij| ≈ 0.44, and a model with two strongly coupled
// modes may keep a chain in one of them for the whole run). The burn-in must
// exceed the mixing time so that a chain forgets its uniform start; the
// thinning should be about the autocorrelation time so that kept samples are
// nearly independent (samples kept closer than that still have the right
// distribution, but count for fewer independent draws). Several chains help
// to detect a chain stuck in one mode and run in parallel. Check the
// settings against an ExactSampler on a smaller model of the same kind.
//
// Sample splits count over the chains: row m comes from chain m mod C as
// its (m div C)-th kept sample, C the number of chains. Every chain draws
// its own seed from the caller's source, in chain order, before any chain
// runs, so the samples depend on the source and the options but not on the
// number of workers or on scheduling.
//
// A GibbsSampler copies what it needs from the model: later changes to the
// model do not affect it. Its Sample method is safe for concurrent use with
// distinct sources.
type GibbsSampler struct {
	n, k  int
	theta []float64 // theta[i*k+a] = θ_i(a); for k = 2, theta[i] = θ_i(1) - θ_i(0)
	start []int     // the neighbours of i are nbr[start[i]:start[i+1]]
	nbr   []int32
	// w holds, for edge e of variable i to j = nbr[e], the k×k block
	// w[e*k*k+b*k+a] = W_ij(a, b): the logits of i given z_j = b are
	// contiguous. For k = 2 it holds w[2e+b] = W_ij(1, b) - W_ij(0, b).
	w []float64
	// tabOff[i] >= 0 when the conditionals of i are precomputed for every
	// configuration c of its neighbours (c = Σ z_j k^(position from the
	// end), in nbr order): for k = 2, tab[tabOff[i]+c] = 1 + exp(-d_i);
	// otherwise tab[tabOff[i]+c*k:][:k] holds the cumulative weights. The
	// values are bit for bit those the direct path computes.
	tabOff []int
	tab    []float64

	burnIn, thin, chains, workers int
}

// Bounds on the precomputed Gibbs conditionals: a variable gets a table when
// it has at most gibbsSiteTable entries, while the total stays within
// gibbsTotalTable (16 MiB); the other variables compute theirs on the fly.
const (
	gibbsSiteTable  = 1 << 10
	gibbsTotalTable = 1 << 21
)

// GibbsOption configures NewGibbsSampler. Options are applied in order;
// where an option is repeated, the last one wins. Invalid values are
// reported as errors by NewGibbsSampler, naming the option.
type GibbsOption interface {
	applyGibbs(*gibbsConfig)
}

type gibbsOptionFunc func(*gibbsConfig)

func (f gibbsOptionFunc) applyGibbs(c *gibbsConfig) { f(c) }

type gibbsConfig struct {
	burnIn, thin, chains, workers int
	errs                          []error
}

// setAtLeast sets *dst to v, the value of option name, when v ≥ least, and
// otherwise records an OptionError, "pairwise: NewGibbsSampler: name(v):
// want at least least unit".
func (c *gibbsConfig) setAtLeast(dst *int, v, least int, name, unit string) {
	if v < least {
		c.errs = append(c.errs, &OptionError{Func: "NewGibbsSampler", Option: name, Value: v, Reason: fmt.Sprintf("want at least %d %s", least, unit)})
		return
	}
	*dst = v
}

// GibbsBurnIn sets the number of sweeps every chain runs, from its uniform
// random start, before it keeps a sample. It must exceed the chain's mixing
// time, which grows with the width λ. sweeps must be at least 0; the default
// is DefaultGibbsBurnIn.
func GibbsBurnIn(sweeps int) GibbsOption {
	return gibbsOptionFunc(func(c *gibbsConfig) {
		c.setAtLeast(&c.burnIn, sweeps, 0, "GibbsBurnIn", "sweeps")
	})
}

// GibbsThin sets the number of sweeps between two kept samples of a chain;
// 1 keeps the state after every sweep. Thinning reduces the autocorrelation
// of the kept samples. sweeps must be at least 1; the default is
// DefaultGibbsThin.
func GibbsThin(sweeps int) GibbsOption {
	return gibbsOptionFunc(func(c *gibbsConfig) {
		c.setAtLeast(&c.thin, sweeps, 1, "GibbsThin", "sweep between kept samples")
	})
}

// GibbsChains sets the number of independent chains. Each pays the burn-in;
// the samples depend on this number. c must be at least 1; the default is
// DefaultGibbsChains.
func GibbsChains(c int) GibbsOption {
	return gibbsOptionFunc(func(g *gibbsConfig) {
		g.setAtLeast(&g.chains, c, 1, "GibbsChains", "chain")
	})
}

// GibbsWorkers sets the number of goroutines that run chains in parallel
// (at most one per chain is used). The samples do not depend on p. p must
// be at least 1; the default is runtime.GOMAXPROCS(0) at the time of Sample.
func GibbsWorkers(p int) GibbsOption {
	return gibbsOptionFunc(func(c *gibbsConfig) {
		c.setAtLeast(&c.workers, p, 1, "GibbsWorkers", "worker")
	})
}

// NewGibbsSampler returns a Gibbs sampler for m configured by opts (see
// GibbsBurnIn, GibbsThin, GibbsChains and GibbsWorkers). It returns an error
// for a nil model, a nil option, or an invalid option value, naming the
// option (an *OptionError; several are joined with errors.Join).
func NewGibbsSampler(m *Model, opts ...GibbsOption) (*GibbsSampler, error) {
	const fn = "NewGibbsSampler"
	if m == nil {
		return nil, errors.New("pairwise: NewGibbsSampler: nil model")
	}
	cfg := gibbsConfig{burnIn: DefaultGibbsBurnIn, thin: DefaultGibbsThin, chains: DefaultGibbsChains}
	for x, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("pairwise: %s: option %d is nil", fn, x)
		}
		o.applyGibbs(&cfg)
	}
	if len(cfg.errs) > 0 {
		return nil, errors.Join(cfg.errs...) // OptionErrors, each naming fn
	}
	n, k := m.n, m.k
	g := &GibbsSampler{
		n: n, k: k,
		start:  make([]int, n+1),
		burnIn: cfg.burnIn, thin: cfg.thin, chains: cfg.chains, workers: cfg.workers,
	}
	for i := 0; i < n; i++ {
		g.start[i+1] = g.start[i] + len(m.adj[i])
	}
	g.nbr = make([]int32, g.start[n])
	if k == 2 {
		g.theta = make([]float64, n)
		g.w = make([]float64, 2*g.start[n])
	} else {
		g.theta = append([]float64(nil), m.theta...)
		g.w = make([]float64, k*k*g.start[n])
	}
	for i := 0; i < n; i++ {
		if k == 2 {
			g.theta[i] = m.theta[2*i+1] - m.theta[2*i]
		}
		for x, nb := range m.adj[i] {
			e := g.start[i] + x
			g.nbr[e] = int32(nb.j)
			if k == 2 {
				g.w[2*e] = nb.w[2] - nb.w[0]   // W_ij(1, 0) - W_ij(0, 0)
				g.w[2*e+1] = nb.w[3] - nb.w[1] // W_ij(1, 1) - W_ij(0, 1)
				continue
			}
			blk := g.w[e*k*k : (e+1)*k*k]
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					blk[b*k+a] = nb.w[a*k+b]
				}
			}
		}
	}
	g.buildTables()
	return g, nil
}

// buildTables precomputes the conditionals of the variables with few
// neighbours (every variable of a grid), which saves the k exponentials of
// each update.
func (g *GibbsSampler) buildTables() {
	n, k := g.n, g.k
	per := 1 // entries per configuration of the neighbours
	if k > 2 {
		per = k
	}
	g.tabOff = make([]int, n)
	configs := make([]int, n)
	total := 0
	for i := 0; i < n; i++ {
		g.tabOff[i] = -1
		c := 1
		for e := g.start[i]; e < g.start[i+1] && c*per <= gibbsSiteTable; e++ {
			c *= k
		}
		if c*per <= gibbsSiteTable && total+c*per <= gibbsTotalTable {
			g.tabOff[i] = total
			configs[i] = c
			total += c * per
		}
	}
	g.tab = make([]float64, total)
	z := make([]int, n)
	for i := 0; i < n; i++ {
		off := g.tabOff[i]
		if off < 0 {
			continue
		}
		nb := g.nbr[g.start[i]:g.start[i+1]]
		for c := 0; c < configs[i]; c++ {
			r := c
			for x := len(nb) - 1; x >= 0; x-- { // the last neighbour is the last digit
				z[nb[x]] = r % k
				r /= k
			}
			if k == 2 {
				g.tab[off+c] = 1 + math.Exp(-g.logit2(i, z))
			} else {
				g.cumWeights(g.tab[off+c*k:off+(c+1)*k], i, z)
			}
		}
	}
}

// logit2 returns d_i = θ_i(1) - θ_i(0) + Σ_j W_ij(1, z_j) - W_ij(0, z_j),
// so that P(z_i = 1 | z_-i) = σ(d_i) (Fact 1). k = 2 only.
func (g *GibbsSampler) logit2(i int, z []int) float64 {
	d := g.theta[i]
	for e := g.start[i]; e < g.start[i+1]; e++ {
		d += g.w[2*e+z[g.nbr[e]]]
	}
	return d
}

// cumWeights writes into cum (length k) the cumulative sums of
// exp(l_a - max_b l_b), l_a = θ_i(a) + Σ_j W_ij(a, z_j) the logits of
// P(z_i = a | z_-i) (Fact 2), so that cum[k-1] is their total.
func (g *GibbsSampler) cumWeights(cum []float64, i int, z []int) {
	k := g.k
	kk := k * k
	copy(cum, g.theta[i*k:(i+1)*k])
	for e := g.start[i]; e < g.start[i+1]; e++ {
		b := z[g.nbr[e]]
		col := g.w[e*kk+b*k : e*kk+b*k+k]
		for a, v := range col {
			cum[a] += v
		}
	}
	mx := math.Inf(-1)
	for _, v := range cum {
		mx = math.Max(mx, v)
	}
	sum := 0.0
	for a, v := range cum {
		sum += math.Exp(v - mx)
		cum[a] = sum
	}
}

// Sample returns count samples from the Gibbs chains (see GibbsSampler for
// the layout of the rows). It returns an error for a nil src, count < 1 or
// count·n > MaxSampleValues.
// The cost is about chains·burn-in + count·thin sweeps of O(Σ_i deg(i)·k)
// work each.
func (g *GibbsSampler) Sample(src rand.Source, count int) (*Samples, error) {
	if err := checkSampleArgs("GibbsSampler", src, count, g.n); err != nil {
		return nil, err
	}
	r := rand.New(src)
	seeds := make([][2]uint64, g.chains)
	for c := range seeds {
		seeds[c] = [2]uint64{r.Uint64(), r.Uint64()}
	}
	active := min(g.chains, count) // chains with at least one row
	workers := g.workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, active)
	s := newSamplesBuffer(g.n, g.k, count)

	var next atomic.Int64
	var wg sync.WaitGroup
	for p := 0; p < workers; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			z := make([]int, g.n)
			buf := make([]float64, g.k)
			for {
				c := int(next.Add(1) - 1)
				if c >= active {
					return
				}
				g.runChain(s, c, count, seeds[c], z, buf)
			}
		}()
	}
	wg.Wait()
	return s, nil
}

// runChain runs chain c and writes its rows c, c+C, c+2C, ... of s.
func (g *GibbsSampler) runChain(s *Samples, c, count int, seed [2]uint64, z []int, buf []float64) {
	pcg := rand.NewPCG(seed[0], seed[1])
	r := rand.New(pcg)
	for i := range z {
		z[i] = r.IntN(g.k)
	}
	for range g.burnIn {
		g.sweep(z, buf, pcg)
	}
	for m := c; m < count; m += g.chains {
		if m != c {
			for range g.thin {
				g.sweep(z, buf, pcg)
			}
		}
		for i, a := range z {
			s.set(m, i, a)
		}
	}
}

// sweep redraws z_0, ..., z_{n-1} in turn from their conditionals, read
// from the precomputed tables where there are some.
func (g *GibbsSampler) sweep(z []int, buf []float64, pcg *rand.PCG) {
	k := g.k
	if k == 2 {
		for i := range z {
			var t float64 // 1 + exp(-d_i) = 1/P(z_i = 1 | z_-i)
			if off := g.tabOff[i]; off >= 0 {
				c := 0
				for _, j := range g.nbr[g.start[i]:g.start[i+1]] {
					c = c<<1 | z[j]
				}
				t = g.tab[off+c]
			} else {
				t = 1 + math.Exp(-g.logit2(i, z))
			}
			a := 0
			if uniform(pcg)*t < 1 {
				a = 1
			}
			z[i] = a
		}
		return
	}
	for i := range z {
		cum := buf
		if off := g.tabOff[i]; off >= 0 {
			c := 0
			for _, j := range g.nbr[g.start[i]:g.start[i+1]] {
				c = c*k + z[j]
			}
			cum = g.tab[off+c*k : off+(c+1)*k]
		} else {
			g.cumWeights(buf, i, z)
		}
		u := uniform(pcg) * cum[k-1]
		a := 0
		for a < k-1 && u >= cum[a] {
			a++
		}
		z[i] = a
	}
}

// uniform returns a uniform number in [0, 1) from 53 random bits, as
// rand.Rand.Float64 does, without the interface call.
func uniform(pcg *rand.PCG) float64 {
	return float64(pcg.Uint64()<<11>>11) / (1 << 53)
}
