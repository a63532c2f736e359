package pairwise

import (
	"math"
	"slices"
)

// nodeEst holds the estimates Ŵ_ij(a, b) of one node i's own regressions,
// before symmetrisation, for every j: the blocks that differ, bit for bit,
// from the node's fill block are listed (at, increasing, and their k²
// numbers in v, row-major); every other block equals fill. A node of
// Algorithm 1 has a handful of nonzero coefficients among n − 1, so this
// holds about d blocks a node where the dense layout held n (800 MB at
// n = 5,000, k = 2; see BENCHMARKS.md, Memory). Block i, the node's own,
// follows the same rule. fill and the listed blocks are never changed in
// place once the nodeEst is built, so fill may be shared.
type nodeEst struct {
	k    int
	fill []float64 // k² numbers: the block of every j not listed
	at   []int32   // the listed j, increasing
	v    []float64 // k² numbers a listed j: v[x*k² + a*k + b] = Ŵ_{i,at[x]}(a, b)
}

// The fills the learners use: zero for the pairwise path, and for the
// Ising path the block [[a, -a], [-a, a]] of a = +0, which is
// [[+0, -0], [-0, +0]].
var (
	zeroFill2 = []float64{0, 0, 0, 0}
	isingFill = []float64{0, math.Copysign(0, -1), math.Copysign(0, -1), 0}
)

// zeroBlock returns a block of k² zeros (+0).
func zeroBlock(k int) []float64 {
	if k == 2 {
		return zeroFill2
	}
	return make([]float64, k*k)
}

// newNodeEst returns the estimates of a node whose every block is fill.
func newNodeEst(k int, fill []float64) *nodeEst {
	return &nodeEst{k: k, fill: fill}
}

// sparseEst returns the estimates of dense, laid out as
// dense[j*k*k + a*k + b] = Ŵ_ij(a, b), listing the blocks that differ from
// fill bit for bit.
func sparseEst(k int, dense, fill []float64) *nodeEst {
	e := newNodeEst(k, fill)
	kk := k * k
	for j := 0; j < len(dense)/kk; j++ {
		e.push(j, dense[j*kk:(j+1)*kk])
	}
	return e
}

// sameBlock reports whether a and b hold the same numbers bit for bit
// (telling +0 from -0 and NaNs apart by their bits).
func sameBlock(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for x := range a {
		if math.Float64bits(a[x]) != math.Float64bits(b[x]) {
			return false
		}
	}
	return true
}

// push sets block j, which must come after every listed block, to blk
// (copied); a block equal to fill is not listed.
func (e *nodeEst) push(j int, blk []float64) {
	if sameBlock(blk, e.fill) {
		return
	}
	e.at = append(e.at, int32(j))
	e.v = append(e.v, blk...)
}

// find returns the index of j among the listed blocks, and whether it is
// listed.
func (e *nodeEst) find(j int) (int, bool) {
	return slices.BinarySearch(e.at, int32(j))
}

// block returns Ŵ_ij as k² numbers, row-major. The slice is the nodeEst's
// own storage (or its fill): the caller must not change it.
func (e *nodeEst) block(j int) []float64 {
	if x, ok := e.find(j); ok {
		kk := e.k * e.k
		return e.v[x*kk : (x+1)*kk : (x+1)*kk]
	}
	return e.fill
}

// set sets block j to blk (copied), listing it or not as push does.
func (e *nodeEst) set(j int, blk []float64) {
	kk := e.k * e.k
	x, ok := e.find(j)
	switch {
	case ok && sameBlock(blk, e.fill):
		e.at = slices.Delete(e.at, x, x+1)
		e.v = slices.Delete(e.v, x*kk, (x+1)*kk)
	case ok:
		copy(e.v[x*kk:(x+1)*kk], blk)
	case !sameBlock(blk, e.fill):
		e.at = slices.Insert(e.at, x, int32(j))
		e.v = slices.Insert(e.v, x*kk, blk...)
	}
}

// clearAll sets every block to zero (+0).
func (e *nodeEst) clearAll() {
	e.fill, e.at, e.v = zeroBlock(e.k), nil, nil
}

// fillZero reports whether every number of the fill is zero (of either
// sign): the pairs of two unlisted blocks then have weight 0.
func (e *nodeEst) fillZero() bool {
	for _, v := range e.fill {
		if v != 0 {
			return false
		}
	}
	return true
}

// dense returns the estimates of n nodes in the dense layout,
// dense[j*k*k + a*k + b] = Ŵ_ij(a, b).
func (e *nodeEst) dense(n int) []float64 {
	kk := e.k * e.k
	d := make([]float64, n*kk)
	for j := 0; j < n; j++ {
		copy(d[j*kk:(j+1)*kk], e.fill)
	}
	for x, j := range e.at {
		copy(d[int(j)*kk:(int(j)+1)*kk], e.v[x*kk:(x+1)*kk])
	}
	return d
}

// isingEst returns the estimates of an Ising node i among n variables
// from its regression's solution w (w[j] for j ≠ i, the bias at w[i]):
// Â_ij = w_j/2 in the block [[Â_ij, -Â_ij], [-Â_ij, Â_ij]] (Algorithm 1,
// line 4), and the node's own block zero.
func isingEst(i, n int, w []float64) *nodeEst {
	e := newNodeEst(2, isingFill)
	var blk [4]float64
	for j := 0; j < n; j++ {
		if j == i {
			e.push(j, zeroFill2)
			continue
		}
		a := w[j] / 2
		blk[0], blk[1], blk[2], blk[3] = a, -a, -a, a
		e.push(j, blk[:])
	}
	return e
}
