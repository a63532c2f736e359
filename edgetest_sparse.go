package pairwise

import (
	"context"
	"math"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/internal/selection"
	"gonum.org/v1/gonum/stat/distuv"
)

// The Ising edge test without n × n arrays (issue 33). From
// selection.WaldDenseMax spins on, on complete samples, each node's
// statistics are made in its support model (internal/selection,
// wald_support.go): node i's entry of spin j, (Â_ij, SE), is a function of
// node i's fit and column j alone. The dense test (WaldTest.run) keeps all
// of them, two arrays of 4n floats a node and the n × n scores, 1.27 GB
// at n = 3,000. The sparse test keeps, of each node's n entries, those
// that can matter, and shows that the others cannot (F is the floor
// selection.SparseFloorAt(n): 2.5 up to about 1,000 spins, then rising
// so that about selection.SparseChance = 12.5 null spins a node reach it,
// 3.23 at 10,000 spins; a node keeps its neighbours and those few, not a
// share of n):
//
//   - A pair's statistic is the normal score (TScore ≤ t) of the ratio
//     |d_i + d_j| / (se_i + se_j) under the Average rule, of one side's
//     ratio under And and Or; by the mediant inequality each is at most
//     max(|d_i|/se_i, |d_j|/se_j). Node i keeps (first pass, as it is
//     fitted) the spins whose own ratio reaches F (less a margin for
//     rounding) and those whose standard error is 0 with an estimate that
//     is not (where the bound fails). Every pair whose statistic reaches F
//     has a kept side; the others are certified below it.
//   - A kept side's partner entry (node j's entry of i) is computed in a
//     second pass with the columns asked for only (selection.SupportSubset,
//     the same bits as the first pass's), so every candidate pair's
//     statistic is exact. From 128 distinct rows a spin (sparseKeepsAll:
//     the 16·n² bytes at most the packed samples' size) each node keeps
//     all n entries its first pass computes anyway, and the second pass,
//     the passes below and Tuning's accessors read them instead: at 10⁶
//     rows a pass over the rows costs seconds a node, as much as the
//     first.
//   - The stages after the statistics need no pair below F. The gap
//     rule's floor z₁ and z*(α) lie above 4 from 257 spins on; the mixture
//     cut's EM leaves the pairs below F out of its sums (counting them;
//     selection.FitEdgeMixtureFloor: their posteriors are about 1e-10 at
//     most) in both tests, so the two agree; when a rule would read a
//     statistic below F (no candidate between F and z₁, or a mixture whose
//     posterior stays above 1/2 down to F) the test rebuilds the dense
//     arrays and runs the dense test (sparseFallback).
//   - MinEdgeWeight is the least q·SE over all pairs. Each node keeps, as
//     it is fitted, lower bounds (float32, rounded down) of its
//     sparseLowKeep least standard errors and one floor below all its
//     others, O(n) in all. After the candidates' least exact value is
//     known, a node whose floor times the least quantile reaches it
//     bounds every pair that neither side lists; the few others are
//     recomputed in a streamed pass, one node's n entries at a time. The
//     pairs whose bound falls below the candidates' least get their exact
//     entries, and enter the minimum when the bound of the dense n × n
//     sketch that the test kept before (made now from those entries)
//     falls below it too, so that the minimum is the same to the bit
//     (sparseMinThreshold).
//   - Tuning's accessors read the kept entries and compute any other on
//     demand (selection.SupportSubset on the node's fit), the same bits.
//
// The test runs over all nodes, with the rows split among the workers or
// not (the passes after the fits cut the rows into the fits' chunks,
// summed in the same order: engine.RunChunks), in one process or in
// shards: a shard runs the first pass of its nodes and its Partial
// carries their sides and F (shard.go, format pairwise-partial/4, or /5
// with every node's n entries); the merge
// rebuilds the engine's data from the samples and runs runSparse, whose
// second pass fetches the partner entries that no shard kept (a shard
// leaves no request for another shard's nodes, sparseRun.elsewhere;
// where the shards kept every node's n entries, sparseKeepsAll, the parts
// carry them and the merge reads them), so
// the sides after it and the result are one process's, bit for bit
// (TestShardedSparseIdentical). The dense test's mixture applies the same
// floor on this path, so a shard with another backend, which keeps the
// dense test, agrees too. Its memory is O(n·d) on top of the samples
// (bit samples are read as bits, with one row-major copy of them,
// never unpacked into bytes: TestLearnBitsNoUnpack), so
// Learn and the shards take it past MaxLearnEntries.
// TestSparseEdgeTestMatchesDense, TestSparseEdgeTestRowSplit and
// TestSparseMinEdgeWeightBound hold the two tests to the same bits.

// sparseKeep returns the ratio from which a node keeps a side at the floor
// F: F less a relative 1e-9, so that no pair whose computed statistic
// reaches F is lost to the rounding of the averages.
func sparseKeep(floor float64) float64 { return floor * (1 - 1e-9) }

// sparseSide is one node's kept entries: spins js (increasing) with the
// Ising estimate a (Â_ij) and standard error sd, the degrees of freedom of
// both values of z_i (NaN for a node without statistics, whose entries
// are all 0 as in the dense test), and the node's solution (nonzero
// coefficients, the bias among them) for the entries computed later.
type sparseSide struct {
	js    []int32
	a, sd []float64
	dof   float64
	zero  bool
	wIdx  []int32
	wVal  []float64
	// lowJs (increasing) and lowB hold the lower bounds of the node's
	// least standard errors (floorBound), low a bound of all its others
	// (+Inf when it lists every spin, 0 for a node without statistics).
	lowJs []int32
	lowB  []float32
	low   float32
	// allA and allSd hold the node's n entries (overflow dropped, its own
	// 0) when the first pass kept them all (sparseRun.all), nil
	// otherwise: fetch reads them instead of computing them again.
	allA, allSd []float64
}

// sparseLowKeep is the number of least standard errors a node keeps for
// MinEdgeWeight's bound (sparseSide.lowJs): 32 a node, 256 bytes.
const sparseLowKeep = 32

// bound returns a lower bound of floorBound of node i's standard error of
// spin j ≠ i from what the first pass kept.
func (s *sparseSide) bound(j int) float32 {
	if s.zero {
		return 0
	}
	if x, ok := slices.BinarySearch(s.lowJs, int32(j)); ok {
		return s.lowB[x]
	}
	return s.low
}

// lowHeap keeps the least m bounds of a node's spins, a max-heap on b.
type lowHeap struct {
	m  int
	js []int32
	b  []float32
}

// push offers spin j's bound v.
func (h *lowHeap) push(j int, v float32) {
	if len(h.b) == h.m {
		if v >= h.b[0] {
			return
		}
		h.b[0], h.js[0] = v, int32(j)
		h.down()
		return
	}
	h.b, h.js = append(h.b, v), append(h.js, int32(j))
	for x := len(h.b) - 1; x > 0; {
		p := (x - 1) / 2
		if h.b[p] >= h.b[x] {
			break
		}
		h.b[p], h.b[x] = h.b[x], h.b[p]
		h.js[p], h.js[x] = h.js[x], h.js[p]
		x = p
	}
}

// down restores the heap from its root.
func (h *lowHeap) down() {
	for x := 0; ; {
		l, big := 2*x+1, x
		if l < len(h.b) && h.b[l] > h.b[big] {
			big = l
		}
		if l+1 < len(h.b) && h.b[l+1] > h.b[big] {
			big = l + 1
		}
		if big == x {
			return
		}
		h.b[x], h.b[big] = h.b[big], h.b[x]
		h.js[x], h.js[big] = h.js[big], h.js[x]
		x = big
	}
}

// setLow keeps in s the least keep bounds of h (which holds keep+1 of
// them when the node has more spins) and the largest as the floor of the
// others.
func (s *sparseSide) setLow(h *lowHeap, keep int) {
	s.low = float32(math.Inf(1))
	if len(h.b) > keep {
		s.low = h.b[0]
		h.b[0], h.js[0] = h.b[len(h.b)-1], h.js[len(h.js)-1]
		h.b, h.js = h.b[:len(h.b)-1], h.js[:len(h.js)-1]
	}
	idx := make([]int, len(h.js))
	for x := range idx {
		idx[x] = x
	}
	slices.SortFunc(idx, func(p, q int) int { return int(h.js[p]) - int(h.js[q]) })
	s.lowJs, s.lowB = make([]int32, len(idx)), make([]float32, len(idx))
	for x, y := range idx {
		s.lowJs[x], s.lowB[x] = h.js[y], h.b[y]
	}
}

// clone returns a copy of s that shares no slice with it (a shard's
// Partial owns its nodes' sides).
func (s *sparseSide) clone() *sparseSide {
	c := *s
	c.js, c.a, c.sd = slices.Clone(s.js), slices.Clone(s.a), slices.Clone(s.sd)
	c.wIdx, c.wVal = slices.Clone(s.wIdx), slices.Clone(s.wVal)
	c.lowJs, c.lowB = slices.Clone(s.lowJs), slices.Clone(s.lowB)
	c.allA, c.allSd = slices.Clone(s.allA), slices.Clone(s.allSd)
	return &c
}

// find returns the place of spin j in js and whether it is kept.
func (sd *sparseSide) find(j int) (int, bool) {
	return slices.BinarySearch(sd.js, int32(j))
}

// add merges entries of spins js (not kept yet, any order) into new
// arrays: the old ones may be shared with a Partial (MergePartials' sides
// are its parts' until the second pass adds to them), which must not
// change.
func (s *sparseSide) add(js []int, a, sd []float64) {
	type ent struct {
		j     int32
		a, sd float64
	}
	all := make([]ent, 0, len(s.js)+len(js))
	for x, j := range s.js {
		all = append(all, ent{j, s.a[x], s.sd[x]})
	}
	for x, j := range js {
		all = append(all, ent{int32(j), a[x], sd[x]})
	}
	slices.SortFunc(all, func(p, q ent) int { return int(p.j) - int(q.j) })
	s.js, s.a, s.sd = make([]int32, 0, len(all)), make([]float64, 0, len(all)), make([]float64, 0, len(all))
	for _, e := range all {
		s.js = append(s.js, e.j)
		s.a = append(s.a, e.a)
		s.sd = append(s.sd, e.sd)
	}
}

// dense returns the node's solution as a vector of n coefficients.
func (s *sparseSide) dense(n int) []float64 {
	w := make([]float64, n)
	for x, c := range s.wIdx {
		w[c] = s.wVal[x]
	}
	return w
}

// dropOverflow is selection.DropOverflow on one entry.
func dropOverflow(a, sd float64) (float64, float64) {
	if math.IsNaN(a) || math.IsInf(a, 0) || math.IsNaN(sd) || math.IsInf(sd, 0) {
		return 0, 0
	}
	return a, sd
}

// floorBound returns the largest float32 not above v ≥ 0.
func floorBound(v float64) float32 {
	f := float32(v)
	if float64(f) > v {
		f = math.Nextafter32(f, float32(math.Inf(-1)))
	}
	return f
}

// sparseRun is the sparse test's state during a learner call: each node's
// side, written by the worker fitting it.
type sparseRun struct {
	n     int
	sides []sparseSide
	// floor is the test's floor F (selection.SparseFloorAt), keep the
	// ratio from which a node keeps a spin (sparseKeep).
	floor, keep float64
	// all is set when each node keeps its n entries (sparseKeepsAll).
	all bool
	env sparseEnv
	// stats counts the work of MinEdgeWeight's bound, for the tests.
	stats sparseStats
	// The partner entries asked for during the first pass: a node that
	// keeps spin j before node j's first pass leaves its index in
	// asked[j], and node j keeps its entries of those spins from the n
	// it computes anyway, so that the second pass fetches only the
	// partners of nodes already done (done[j]). Under mu.
	mu    sync.Mutex
	done  []bool
	asked [][]int32
}

// sparseEnv is what the sparse test needs of its learner call: the
// samples as given, the fitted rows of the statistics, the workers, a
// loop over the nodes on them (each with a driver, without progress
// reports) and a driver for one call with its release.
type sparseEnv struct {
	s       *Samples
	data    *selection.Data
	workers int
	each    func(ctx context.Context, f func(e *engine.Driver, i int)) error
	driver  func() (*engine.Driver, func())
	// lowKeep is the number of least standard errors a node keeps
	// (sparseLowKeep when 0).
	lowKeep int
	// floor is the test's floor F (selection.SparseFloorAt(n) when 0).
	floor float64
	// all decides whether a node keeps its n entries: sparseKeepsAll
	// when 0, always when > 0, never when < 0 (tests).
	all int
}

// sparseAllRows is the least number of rows a spin from which the first
// pass keeps every node's n entries (sparseKeepsAll).
const sparseAllRows = 128

// sparseKeepsAll reports whether the first pass keeps each node's n
// entries on n spins and rows (distinct) rows: when their 16·n² bytes
// are at most the packed samples' rows·n/8, so that they at most double
// the samples' memory (16 MB at n = 1,000, against 125 MB of bits at 10⁶
// rows). The entries of a pair that no side kept are then read, not
// computed again over all rows: the second pass, MinEdgeWeight's
// streamed pass, the fallback and Tuning's accessors cost no pass over
// the rows, and the parts of the sharded pipeline carry them so that the
// merge needs none either (issue 33: at 10⁶ rows × 1,000 spins that pass
// was the merge). Below that many rows a pass is cheap beside the fits,
// and the test keeps its O(n·d) memory.
func sparseKeepsAll(n, rows int) bool {
	return rows >= sparseAllRows*n
}

// sparseStats counts what sparseMinThreshold did: the nodes recomputed
// in its streamed pass, the pairs whose exact entries it fetched, those
// that the dense sketch's bound flags, and whether one of them lowered
// the candidates' minimum.
type sparseStats struct {
	open, fetched, suspects int
	lowered, streamed       bool // the streamed pass lowered it
}

// newSparseRun returns the sparse test's state for n nodes.
func newSparseRun(n int, env sparseEnv) *sparseRun {
	if env.lowKeep <= 0 {
		env.lowKeep = sparseLowKeep
	}
	if !(env.floor > 0) {
		env.floor = selection.SparseFloorAt(n)
	}
	all := env.all > 0
	if env.all == 0 && env.data != nil {
		all = sparseKeepsAll(n, env.data.Count)
	}
	return &sparseRun{n: n, sides: make([]sparseSide, n), env: env, all: all,
		floor: env.floor, keep: sparseKeep(env.floor),
		done: make([]bool, n), asked: make([][]int32, n)}
}

// elsewhere marks every node not in only (a shard's nodes, increasing)
// as done, so that the first pass leaves no request for a node whose
// first pass runs in another shard: the merge's second pass fetches those
// partner entries, the same bits (selection.SupportSubset), so that the
// sides after it, and the result, do not depend on the sharding.
func (sr *sparseRun) elsewhere(only []int) {
	for i := range sr.done {
		_, mine := slices.BinarySearch(only, i)
		sr.done[i] = !mine
	}
}

// first is the first pass of node i, after its fits: all n entries in the
// support model, of which it keeps those that can matter.
func (sr *sparseRun) first(data *selection.Data, e *engine.Driver, i int, task *engine.Task, w []float64) {
	side := &sr.sides[i]
	for c, v := range w {
		if v != 0 {
			side.wIdx = append(side.wIdx, int32(c))
			side.wVal = append(side.wVal, v)
		}
	}
	a, sd, dof := selection.SupportNode(data, task, w, e.Work.RowScratch(len(task.Y)), nil)
	if a == nil {
		side.zero, side.dof = true, math.NaN()
		sr.mu.Lock()
		sr.done[i], sr.asked[i] = true, nil // a side without statistics is never fetched
		sr.mu.Unlock()
		return
	}
	side.dof = dof
	keep := sr.env.lowKeep
	h := lowHeap{m: keep + 1, js: make([]int32, 0, keep+1), b: make([]float32, 0, keep+1)}
	if sr.all {
		// Every entry, i's own 0 (SupportNode's, and dropOverflow's of it).
		side.allA, side.allSd = make([]float64, len(a)), make([]float64, len(a))
	}
	for j := range a {
		if j == i {
			continue
		}
		aj, sj := dropOverflow(a[j], sd[j])
		if sr.all {
			side.allA[j], side.allSd[j] = aj, sj
		}
		h.push(j, floorBound(sj))
		if (sj == 0 && aj != 0) || (sj > 0 && math.Abs(aj) >= sr.keep*sj) {
			side.js = append(side.js, int32(j))
			side.a = append(side.a, aj)
			side.sd = append(side.sd, sj)
		}
	}
	side.setLow(&h, keep)
	// The partner entries: ask the nodes not done for theirs of the kept
	// spins, and keep this node's entries of the spins that asked.
	sr.mu.Lock()
	sr.done[i] = true
	asked := sr.asked[i]
	sr.asked[i] = nil
	for _, j := range side.js {
		if !sr.done[j] {
			sr.asked[j] = append(sr.asked[j], int32(i))
		}
	}
	sr.mu.Unlock()
	var js []int
	var aj, sj []float64
	for _, k := range asked {
		if _, ok := side.find(int(k)); !ok {
			x, y := dropOverflow(a[k], sd[k])
			js, aj, sj = append(js, int(k)), append(aj, x), append(sj, y)
		}
	}
	if len(js) > 0 {
		side.add(js, aj, sj)
	}
}

// fetch returns node i's exact entries of spins js (all n when js is nil)
// on the worker's driver e, overflow dropped as in the first pass: read
// from the entries the first pass kept when it kept them all (the arrays
// themselves when js is nil: a caller must not write them), else
// computed over the rows.
func (sr *sparseRun) fetch(data *selection.Data, e *engine.Driver, i int, js []int) (a, sd []float64) {
	side := &sr.sides[i]
	m := len(js)
	if js == nil {
		m = sr.n
	}
	if side.zero {
		return make([]float64, m), make([]float64, m)
	}
	if side.allA != nil {
		if js == nil {
			return side.allA, side.allSd
		}
		a, sd = make([]float64, m), make([]float64, m)
		for x, j := range js {
			a[x], sd[x] = side.allA[j], side.allSd[j]
		}
		return a, sd
	}
	task := e.SpinTask(i)
	a, sd, _ = selection.SupportNode(data, &task, side.dense(sr.n), e.Work.RowScratch(len(task.Y)), js)
	for x := range a {
		a[x], sd[x] = dropOverflow(a[x], sd[x])
	}
	return a, sd
}

// fetchMissing computes, for every node j, its entries of the spins need[j]
// and keeps them.
func (sr *sparseRun) fetchMissing(ctx context.Context, need [][]int) error {
	data := sr.env.data
	return sr.env.each(ctx, func(e *engine.Driver, j int) {
		if len(need[j]) == 0 {
			return
		}
		a, sd := sr.fetch(data, e, j, need[j])
		sr.sides[j].add(need[j], a, sd)
	})
}

// sparseEntry returns node i's entry of spin j in the 4-entry Ising form
// that the dense test's arrays hold, and whether it is kept: zeros for a
// node without statistics (and i's own entry).
func (s *sparseSide) entry(i, j int) (d, se []float64, ok bool) {
	if s.zero || i == j {
		return make([]float64, 4), make([]float64, 4), true
	}
	x, ok := s.find(j)
	if !ok {
		return nil, nil, false
	}
	a, sd := s.a[x], s.sd[x]
	return []float64{a, -a, -a, a}, []float64{sd, sd, sd, sd}, true
}

// sideDF returns the degrees of freedom of a side for both values of z_i,
// +Inf for a node without statistics (the dense test's default).
func (s *sparseSide) sideDF() []float64 {
	if s.zero || math.IsNaN(s.dof) {
		return []float64{math.Inf(1), math.Inf(1)}
	}
	return []float64{s.dof, s.dof}
}

// pairScorer returns the dense test's score of a pair (i, j) of the Ising
// path from the entries of both sides: its statistic, smallest standard
// error and that entry's degrees of freedom (WaldTest.run's score).
func (t waldRun) pairScorer(nodes []NodeFit, counts [][]float64, total float64) func(di, si, fi, dj, sj, fj []float64, i, j int) (float64, float64, float64) {
	return func(di, si, fi, dj, sj, fj []float64, i, j int) (float64, float64, float64) {
		if nodes[i].Constant || nodes[j].Constant || !selection.CochranOK(counts[i], counts[j], total) {
			return 0, math.Inf(1), math.Inf(1)
		}
		switch t.sym {
		case And, Or:
			zi, mi, ni := maxZ(di, si, fi, nil, nil, nil, 2, nil)
			zj, mj, nj := maxZ(dj, sj, fj, nil, nil, nil, 2, nil)
			return combineNodes(t.sym, zi, mi, ni, zj, mj, nj)
		}
		return maxZ(di, si, fi, dj, sj, fj, 2, nil)
	}
}

// sparseStore answers Tuning's accessors after the sparse test: the kept
// entries, and any other computed on demand (a node's n entries at a time,
// cached up to sparseCache of them) under a lock.
type sparseStore struct {
	n     int
	sides []sparseSide
	// constant: the pairs of a constant variable read 0 (zeroConstant).
	constant []bool
	score    func(di, si, fi, dj, sj, fj []float64, i, j int) (float64, float64, float64)
	fetch    func(i int) (a, sd []float64)
	mu       sync.Mutex
	cache    map[int][2][]float64
	stats    sparseStats // the test's, for the tests
}

// sparseCache is the most nodes whose n entries sparseStore caches.
const sparseCache = 64

// entry returns node i's entry of spin j in the Ising form.
func (st *sparseStore) entry(i, j int) (d, se []float64) {
	if st.constant[i] || st.constant[j] {
		return make([]float64, 4), make([]float64, 4)
	}
	if d, se, ok := st.sides[i].entry(i, j); ok {
		return d, se
	}
	st.mu.Lock()
	full, ok := st.cache[i]
	if !ok {
		a, sd := st.fetch(i)
		if len(st.cache) >= sparseCache {
			for x := range st.cache {
				delete(st.cache, x)
				break
			}
		}
		full = [2][]float64{a, sd}
		st.cache[i] = full
	}
	st.mu.Unlock()
	a, sd := full[0][j], full[1][j]
	return []float64{a, -a, -a, a}, []float64{sd, sd, sd, sd}
}

// pairScore returns the statistic of the pair (i, j), i ≠ j.
func (st *sparseStore) pairScore(i, j int) float64 {
	if i > j {
		i, j = j, i
	}
	di, si := st.entry(i, j)
	dj, sj := st.entry(j, i)
	z, _, _ := st.score(di, si, st.sides[i].sideDF(), dj, sj, st.sides[j].sideDF(), i, j)
	return z
}

// runSparse is WaldTest.run for the Ising path on the sparse store of the
// learner call r (see above): the same edges, threshold, MinEdgeWeight and
// statistics as the dense test, with O(n·d) memory.
func (t waldRun) runSparse(ctx context.Context, sr *sparseRun, res *Result, tun *Tuning) error {
	s := sr.env.s
	n := tun.n
	alpha := t.rate()
	tun.FalseEdgeRate = alpha
	pairs := n * (n - 1) / 2
	tests := float64(max(pairs, 1))
	if t.sym == Or {
		tests *= 2
	}
	tun.Critical = -distuv.UnitNormal.Quantile(alpha / (2 * tests))
	nodes := res.Nodes
	counts := valueWeights(s)
	total := s.TotalWeight()
	score := t.pairScorer(nodes, counts, total)
	// The second pass: the partner entries of the kept sides.
	need := make([][]int, n)
	for i := range sr.sides {
		for _, j := range sr.sides[i].js {
			if _, ok := sr.sides[j].find(i); !ok && !sr.sides[j].zero {
				need[j] = append(need[j], i)
			}
		}
	}
	if err := sr.fetchMissing(ctx, need); err != nil {
		return err
	}
	// The candidates: the pairs with a kept side, in the dense test's
	// order (i < j, row by row).
	keys := make([]int64, 0)
	for i := range sr.sides {
		for _, j := range sr.sides[i].js {
			a, b := int64(min(i, int(j))), int64(max(i, int(j)))
			keys = append(keys, a*int64(n)+b)
		}
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	z := make([]float64, len(keys))
	minSEs := make([]float64, len(keys))
	seDFs := make([]float64, len(keys))
	pairOf := func(key int64) (int, int) { return int(key / int64(n)), int(key % int64(n)) }
	scoreOf := func(i, j int) (float64, float64, float64) {
		di, si, _ := sr.sides[i].entry(i, j)
		dj, sj, _ := sr.sides[j].entry(j, i)
		return score(di, si, sr.sides[i].sideDF(), dj, sj, sr.sides[j].sideDF(), i, j)
	}
	for p, key := range keys {
		i, j := pairOf(key)
		z[p], minSEs[p], seDFs[p] = scoreOf(i, j)
	}
	lowest := max(0, -distuv.UnitNormal.Quantile(1/(2*tests)))
	tun.Threshold = tun.Critical
	// above: the candidates' statistics from the floor on, decreasing.
	var above []float64
	for _, v := range z {
		if v >= sr.floor {
			above = append(above, v)
		}
	}
	slices.Sort(above)
	slices.Reverse(above)
	mixed := false
	if !t.NoMixture {
		var fit *selection.Mixture
		var th float64
		cut := selection.MixtureCutSettings{Lowest: lowest, Floor: sr.floor, Others: pairs - len(keys)}
		if th, fit, mixed = cut.Cut(tun.Critical, z, z); mixed {
			// The cut scans the statistics below z*(α) down to the
			// first more likely null; it must stop on a candidate.
			stopped := false
			for _, v := range above {
				if v < tun.Critical && fit.Posterior(v) <= 0.5 {
					stopped = true
					break
				}
			}
			if !stopped {
				return t.sparseFallback(ctx, sr, res, tun)
			}
			tun.Threshold, tun.Mixture = th, (*EdgeMixture)(fit)
		}
	}
	if !mixed && !t.NoGap {
		if len(above) > 0 && above[0] >= tun.Critical && above[len(above)-1] >= lowest {
			// The gap rule would read the largest statistic below z₁,
			// which no candidate holds.
			return t.sparseFallback(ctx, sr, res, tun)
		}
		tun.Lowest = lowest
		tun.Threshold = gapThreshold(above, tun.Lowest, tun.Critical)
	}
	if tun.Threshold < sr.floor {
		return t.sparseFallback(ctx, sr, res, tun)
	}
	keep := make(map[[2]int]bool)
	for p, v := range z {
		if v >= tun.Threshold {
			i, j := pairOf(keys[p])
			keep[[2]int{i, j}] = true
		}
	}
	excluded := func(i, j int) bool {
		return nodes[i].Constant || nodes[j].Constant || !selection.CochranOK(counts[i], counts[j], total)
	}
	constant := make([]bool, n)
	for i := range constant {
		constant[i] = nodes[i].Constant
	}
	minThreshold, err := t.sparseMinThreshold(ctx, sr, tun, keys, minSEs, seDFs, scoreOf, excluded, constant)
	if err != nil {
		return err
	}
	tun.GlobalP = math.NaN()
	if t.ebicStage(tun) && n > 1 {
		p, _ := sparseIndependenceP(s, counts, total, sr.env.workers)
		tun.GlobalP = p
		if p < alpha/2 {
			constant := func(i, j int) bool { return nodes[i].Constant || nodes[j].Constant }
			g, chosen, err := selection.EBICGraph(ctx, s.stages(), res.est, keep, constant, sr.env.workers)
			if err != nil {
				return err
			}
			keep, tun.EBICGraph = g, chosen
		}
	}
	keepGraph(res, keep, minThreshold, tun.EBICGraph)
	tun.sparse = sr.store(nodes, score)
	return nil
}

// sparseMinThreshold returns the dense test's minThreshold, the least
// TQuantile(Threshold, df)·SE over the pairs. The dense test's sketch held
// a lower bound (floorBound) of every entry's standard error, and the
// minimum was exact over the candidates and over the pairs whose bound
// lay below the candidates' least (flagged). The same pairs, less some
// that cannot be the least, are found without it:
//
//   - the pairs that a node lists among its least standard errors
//     (sparseSide.lowJs) whose bound from the lists lies below the
//     candidates' least get their exact entries, and those flagged lower
//     the least to best;
//   - a pair's bound is at least the least quantile times the lesser of
//     its sides' bounds, so a pair that neither side lists lies below
//     best only if one of its nodes is open (its floor times the least
//     quantile below best). Those nodes' n entries are computed again in
//     a streamed pass, and their pairs whose bound (exact on the open
//     side, the other's list or floor) lies below best get their exact
//     entries; those flagged enter the minimum.
//
// A pair left out has its bound, so its exact value, at least best: the
// minimum is the dense test's.
func (t waldRun) sparseMinThreshold(ctx context.Context, sr *sparseRun, tun *Tuning, keys []int64, minSEs, seDFs []float64, scoreOf func(i, j int) (float64, float64, float64), excluded func(i, j int) bool, constant []bool) (float64, error) {
	n := sr.n
	quantiles := make(map[float64]float64)
	q := func(df float64) float64 {
		v, ok := quantiles[df]
		if !ok {
			v = selection.TQuantile(tun.Threshold, df)
			quantiles[df] = v
		}
		return v
	}
	least := math.Inf(1) // the candidates' least
	for p := range keys {
		if w := q(seDFs[p]) * minSEs[p]; !math.IsNaN(w) {
			least = math.Min(least, w)
		}
	}
	// The nodes' quantiles: a pair's degrees of freedom are one side's.
	qs := make([]float64, n)
	qmin := math.Inf(1)
	for i := range qs {
		qs[i] = q(sr.sides[i].sideDF()[0])
		if !math.IsNaN(qs[i]) {
			qmin = math.Min(qmin, qs[i])
		}
	}
	isKey := func(i, j int) bool {
		_, ok := slices.BinarySearch(keys, int64(i)*int64(n)+int64(j))
		return ok
	}
	// below reports whether the pair i < j with side bounds li and lj
	// lies below v (the dense test's scan, v the candidates' least).
	below := func(i, j int, li, lj, v float64) bool {
		var qq, se float64
		switch t.sym {
		case And:
			qq, se = math.Min(qs[i], qs[j]), math.Max(li, lj)
		case Or:
			qq, se = math.Min(qs[i], qs[j]), math.Min(li, lj)
		default:
			qq, se = math.Max(qs[i], qs[j]), (li+lj)/2
		}
		if math.IsInf(qq, 1) {
			return false // the pair's quantile is infinite: it bounds nothing
		}
		return qq*se < v && !isKey(i, j) && !excluded(i, j)
	}
	// enter fetches the exact entries of the pairs (keys i·n + j, i < j)
	// and returns the least of best and their exact values over those
	// that the sketch flags.
	enter := func(pairs []int64, best float64) (float64, error) {
		slices.Sort(pairs)
		pairs = slices.Compact(pairs)
		if len(pairs) == 0 {
			return best, nil
		}
		sr.stats.fetched += len(pairs)
		need := make([][]int, n)
		for _, key := range pairs {
			i, j := int(key/int64(n)), int(key%int64(n))
			for _, ij := range [][2]int{{i, j}, {j, i}} {
				a, b := ij[0], ij[1]
				if _, ok := sr.sides[a].find(b); !ok && !sr.sides[a].zero {
					need[a] = append(need[a], b)
				}
			}
		}
		for i := range need {
			slices.Sort(need[i])
			need[i] = slices.Compact(need[i])
		}
		if err := sr.fetchMissing(ctx, need); err != nil {
			return 0, err
		}
		sketch := func(i, j int) float64 {
			_, se, _ := sr.sides[i].entry(i, j)
			return float64(floorBound(se[0]))
		}
		for _, key := range pairs {
			i, j := int(key/int64(n)), int(key%int64(n))
			if !below(i, j, sketch(i, j), sketch(j, i), least) {
				continue
			}
			sr.stats.suspects++
			_, minSE, seDF := scoreOf(i, j)
			if w := q(seDF) * minSE; !math.IsNaN(w) {
				best = math.Min(best, w)
			}
		}
		return best, nil
	}
	// The listed pairs whose bound from the lists lies below the
	// candidates' least.
	var listed []int64
	for i := range sr.sides {
		side := &sr.sides[i]
		for x, j := range side.lowJs {
			a, b := min(i, int(j)), max(i, int(j))
			li, lj := float64(side.lowB[x]), float64(sr.sides[j].bound(i))
			if a != i {
				li, lj = lj, li
			}
			if below(a, b, li, lj, least) {
				listed = append(listed, pairKey(a, b, n))
			}
		}
	}
	best, err := enter(listed, least)
	if err != nil {
		return 0, err
	}
	// The open nodes, streamed.
	open := make([]bool, n)
	for i := range sr.sides {
		// A constant variable's pairs are excluded from the minimum.
		open[i] = !constant[i] && qmin*float64(sr.sides[i].low) < best
		if open[i] {
			sr.stats.open++
		}
	}
	found := make([][]int32, n) // written by node i's worker
	err = sr.env.each(ctx, func(e *engine.Driver, i int) {
		if !open[i] {
			return
		}
		var sd []float64
		if !sr.sides[i].zero {
			_, sd = sr.fetch(sr.env.data, e, i, nil)
		}
		for j := range n {
			if j == i {
				continue
			}
			li, lj := 0.0, float64(sr.sides[j].bound(i))
			if sd != nil {
				li = float64(floorBound(sd[j]))
			}
			a, b := i, j
			if a > b {
				a, b, li, lj = j, i, lj, li
			}
			if below(a, b, li, lj, best) {
				found[i] = append(found[i], int32(j))
			}
		}
	})
	if err != nil {
		return 0, err
	}
	var streamed []int64
	for i := range found {
		for _, j := range found[i] {
			streamed = append(streamed, pairKey(i, int(j), n))
		}
	}
	low, err := enter(streamed, best)
	sr.stats.lowered, sr.stats.streamed = low < least, low < best
	return low, err
}

// pairKey returns the key i·n + j of the pair {i, j} with i < j.
func pairKey(i, j, n int) int64 {
	return int64(min(i, j))*int64(n) + int64(max(i, j))
}

// store returns the store of Tuning's accessors after the sparse test.
func (sr *sparseRun) store(nodes []NodeFit, score func(di, si, fi, dj, sj, fj []float64, i, j int) (float64, float64, float64)) *sparseStore {
	constant := make([]bool, sr.n)
	for i := range constant {
		constant[i] = nodes[i].Constant
	}
	return &sparseStore{
		n: sr.n, sides: sr.sides, constant: constant, score: score,
		cache: make(map[int][2][]float64), stats: sr.stats,
		fetch: func(i int) (a, sd []float64) {
			e, done := sr.env.driver()
			defer done()
			return sr.fetch(sr.env.data, e, i, nil)
		},
	}
}

// sparseFallback rebuilds the dense test's arrays (every node's n entries,
// a third pass) and runs the dense test: for the rare model where a rule
// reads statistics below the floor.
func (t waldRun) sparseFallback(ctx context.Context, sr *sparseRun, res *Result, tun *Tuning) error {
	n := sr.n
	debias, stdErrs, dfs := make([][]float64, n), make([][]float64, n), make([][]float64, n)
	data := sr.env.data
	err := sr.env.each(ctx, func(e *engine.Driver, i int) {
		if sr.sides[i].zero {
			return
		}
		a, sd := sr.fetch(data, e, i, nil)
		d, se := make([]float64, 4*n), make([]float64, 4*n)
		for j := range a {
			d[4*j], d[4*j+1], d[4*j+2], d[4*j+3] = a[j], -a[j], -a[j], a[j]
			se[4*j], se[4*j+1], se[4*j+2], se[4*j+3] = sd[j], sd[j], sd[j], sd[j]
		}
		debias[i], stdErrs[i], dfs[i] = d, se, sr.sides[i].sideDF()
	})
	if err != nil {
		return err
	}
	tun.Mixture, tun.Lowest = nil, 0
	return t.run(ctx, sr.env.s, res, tun, debias, stdErrs, dfs, nil, nil, sr.env.workers)
}

// sparseIndependenceP is selection.IndependenceP without its n × n array
// on complete samples whose rows all weigh 1 (unweighted, or the distinct
// rows of a file without repeats, as the command reads it): the table
// counts of spin i's pairs made from the packed bits by AND and popcount,
// the same numbers in the same order, so the same bits; with other
// weights or missing values it calls IndependenceP. The counts are made
// indepTile spins at a time (indepCounts), on workers goroutines.
func sparseIndependenceP(s *Samples, counts [][]float64, total float64, workers int) (float64, int) {
	if s.incomplete || !unitWeights(s.weights) {
		return selection.IndependenceP(s.stages(), counts, total)
	}
	n := s.n
	blocks := s.bits
	if blocks == nil {
		blocks = engine.PackBits(&engine.Rows{N: n, K: s.k, Count: s.rows, States: s.states8()})
	}
	ic := newIndepCounts(blocks, n, workers)
	return selection.IndependencePRows(n, counts, total, ic.ones)
}

// indepTile is the number of spins whose pair counts indepCounts makes in
// one pass over the bits: each word of spin j is loaded once for the
// tile's 32 spins, where a spin at a time loaded all of the bits for
// every spin (at N = 10⁶ rows × 1,000 spins, 62 MB a spin from memory).
const indepTile = 32

// indepChunk is the number of spins j a worker counts against a tile at a
// time: 32 × 512 counters of 4 bytes, 64 KB, within a core's second-level
// cache.
const indepChunk = 512

// indepSteps is the number of blocks of 64 rows whose words of a chunk's
// spins indepCounts reads for every spin of a tile before it goes on.
const indepSteps = 64

// indepCounts makes, for the global test of independence, the number of
// rows where spins i and j are both 1, for every pair j > i, from packed
// bits (64 rows a word, block x of spin j at blocks[x·n + j]), a tile of
// indepTile spins i at a time. The counts are integers, exact in any
// order, so the workers share a tile's spins j in chunks and the result
// does not depend on them.
type indepCounts struct {
	blocks  []uint64
	n, nb   int
	workers int
	lo, hi  int      // the tile: spins lo..hi−1
	words   []uint64 // the tile's bits, block-major: words[x·indepTile + t]
	tile    []int32  // tile[t·n + j], j > lo
}

func newIndepCounts(blocks []uint64, n, workers int) *indepCounts {
	nb := len(blocks) / max(n, 1)
	return &indepCounts{blocks: blocks, n: n, nb: nb, workers: max(workers, 1),
		words: make([]uint64, nb*indepTile), tile: make([]int32, indepTile*n)}
}

// ones sets dst[j], j > i, to the number of rows with z_i = z_j = 1,
// making the tile from i when i is not in the current one
// (selection.IndependencePRows asks in increasing order).
func (c *indepCounts) ones(i int, dst []float64) {
	if i < c.lo || i >= c.hi {
		c.fill(i)
	}
	row := c.tile[(i-c.lo)*c.n : (i-c.lo+1)*c.n]
	for j := i + 1; j < c.n; j++ {
		dst[j] = float64(row[j])
	}
}

// fill makes the tile of spins from..from+indepTile−1 (fewer at the end):
// every count of a tile spin t with a spin j > from (those with
// from < j ≤ t too, which ones does not read).
func (c *indepCounts) fill(from int) {
	n, nb := c.n, c.nb
	c.lo, c.hi = from, min(from+indepTile, n)
	T := c.hi - c.lo
	for x := 0; x < nb; x++ {
		copy(c.words[x*indepTile:x*indepTile+T], c.blocks[x*n+c.lo:x*n+c.hi])
	}
	first := c.lo + 1
	chunks := (n - first + indepChunk - 1) / indepChunk
	if chunks <= 0 {
		return
	}
	count := func(ch int, acc []int32) {
		j0 := first + ch*indepChunk
		j1 := min(j0+indepChunk, n)
		w := j1 - j0
		clear(acc[:T*w])
		// indepSteps blocks at a time (64 × 512 words, 256 KB, stay in
		// the second-level cache for the tile's spins), spin by spin.
		for x0 := 0; x0 < nb; x0 += indepSteps {
			x1 := min(x0+indepSteps, nb)
			for t := 0; t < T; t++ {
				a := acc[t*w : (t+1)*w]
				for x := x0; x < x1; x++ {
					wt := c.words[x*indepTile+t]
					blk := c.blocks[x*n+j0 : x*n+j1]
					a := a[:len(blk)]
					for jj, b := range blk {
						a[jj] += int32(bits.OnesCount64(wt & b))
					}
				}
			}
		}
		for t := 0; t < T; t++ {
			copy(c.tile[t*n+j0:t*n+j1], acc[t*w:(t+1)*w])
		}
	}
	workers := min(c.workers, chunks)
	if workers == 1 {
		acc := make([]int32, indepTile*indepChunk)
		for ch := 0; ch < chunks; ch++ {
			count(ch, acc)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			acc := make([]int32, indepTile*indepChunk)
			for {
				ch := int(next.Add(1)) - 1
				if ch >= chunks {
					return
				}
				count(ch, acc)
			}
		}()
	}
	wg.Wait()
}

// unitWeights reports whether every row weighs 1 (nil weights, or the
// distinct rows of a file in which no row repeats, as the command reads
// it): the co-occurrence counts are then the bits' popcounts, the same
// numbers as the weighted sums of selection.IndependenceP, which holds an
// n × n array and reads each row's pairs of ones (at n = 10,000 spins,
// 800 MB and two minutes on one core).
func unitWeights(w []float64) bool {
	for _, c := range w {
		if c != 1 {
			return false
		}
	}
	return true
}
