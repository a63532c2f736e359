package pairwise

import (
	"math"
	"slices"
)

// nodeEst holds the estimates Ŵ_ij(a, b) of one node i's own regressions,
// before symmetrisation, for every j: the blocks that differ, bit for bit,
// from the node's fill block are listed (at, increasing), and every other
// block equals fill. A node of Algorithm 1 has a handful of nonzero
// coefficients among n − 1, so this holds about d blocks a node where the
// dense layout held n (800 MB at n = 5,000, k = 2; see BENCHMARKS.md,
// Memory). Block i, the node's own, follows the same rule. fill and the
// listed blocks are never changed in place once the nodeEst is built, so
// fill may be shared.
//
// A listed block is held as its k² numbers, row-major, in v, except on
// the Ising path (k = 2, a fill of the form [[a, −a], [−a, a]], see
// isingForm): there a block of that form, bit for bit, is held as its one
// number a (Algorithm 1's Â_ij), a third of the bytes with the index, and
// the few listed blocks of another form (the node's own zero block, those
// a constant column zeroes) whole in odd and oddV. Read a block with
// block or blockTo, never from v.
type nodeEst struct {
	k    int
	fill []float64 // k² numbers: the block of every j not listed
	at   []int32   // the listed j, increasing
	// v holds, for listed block x, its k² numbers v[x*k² + a*k + b] =
	// Ŵ_{i,at[x]}(a, b), or with form the one number v[x] (0 for an odd
	// block).
	v []float64
	// form, when set, is the signs of the blocks held as one number
	// (block = form·v[x]); odd lists the listed blocks that are not of
	// that form, increasing, and oddV their k² numbers each.
	form []int8
	odd  []int32
	oddV []float64
}

// maxOdd is the most blocks of another form that a nodeEst with a form
// holds apart; past it (many constant columns) it holds every block whole.
const maxOdd = 8

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

// newNodeEst returns the estimates of a node whose every block is fill;
// with a fill of the Ising form (k = 2), its blocks of that form are held
// as one number.
func newNodeEst(k int, fill []float64) *nodeEst {
	e := &nodeEst{k: k, fill: fill}
	if k == 2 && len(fill) == 4 && ofForm(fill, isingForm) {
		e.form = isingForm
	}
	return e
}

// ofForm reports whether blk is form·blk[0] bit for bit (a −1 entry the
// negation of blk[0], which flips the sign of a zero).
func ofForm(blk []float64, form []int8) bool {
	if len(blk) != len(form) {
		return false
	}
	a := math.Float64bits(blk[0])
	for y, f := range form {
		want := a
		if f < 0 {
			want ^= 1 << 63
		}
		if math.Float64bits(blk[y]) != want {
			return false
		}
	}
	return true
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
	switch {
	case e.form == nil:
		e.v = append(e.v, blk...)
	case ofForm(blk, e.form):
		e.v = append(e.v, blk[0])
	default:
		e.v = append(e.v, 0)
		e.odd = append(e.odd, int32(j))
		e.oddV = append(e.oddV, blk...)
		if len(e.odd) > maxOdd {
			e.whole()
		}
	}
}

// whole makes e hold every listed block as its k² numbers (no form).
func (e *nodeEst) whole() {
	if e.form == nil {
		return
	}
	kk := e.k * e.k
	v := make([]float64, 0, len(e.at)*kk)
	for _, j := range e.at {
		v = append(v, e.block(int(j))...)
	}
	e.v, e.form, e.odd, e.oddV = v, nil, nil, nil
}

// find returns the index of j among the listed blocks, and whether it is
// listed.
func (e *nodeEst) find(j int) (int, bool) {
	return slices.BinarySearch(e.at, int32(j))
}

// block returns Ŵ_ij as k² numbers, row-major: the nodeEst's own storage
// (or its fill), which the caller must not change, or a new slice for a
// block held as one number. Loops over many blocks use blockTo.
func (e *nodeEst) block(j int) []float64 {
	return e.blockTo(nil, j)
}

// blockTo is block, with a block held as one number written into buf's
// storage when it holds k² numbers (a new slice otherwise): with a buffer
// on the caller's stack it allocates nothing.
func (e *nodeEst) blockTo(buf []float64, j int) []float64 {
	x, ok := e.find(j)
	if !ok {
		return e.fill
	}
	kk := e.k * e.k
	if e.form == nil {
		return e.v[x*kk : (x+1)*kk : (x+1)*kk]
	}
	if o, odd := slices.BinarySearch(e.odd, int32(j)); odd {
		return e.oddV[o*kk : (o+1)*kk : (o+1)*kk]
	}
	if cap(buf) < kk {
		buf = make([]float64, kk)
	}
	buf = buf[:kk]
	a := e.v[x]
	for y, f := range e.form {
		buf[y] = a
		if f < 0 {
			buf[y] = -a
		}
	}
	return buf
}

// set sets block j to blk (copied), listing it or not as push does. A
// nodeEst with a form is first made to hold its blocks whole (set is for
// the rare edits of constant columns).
func (e *nodeEst) set(j int, blk []float64) {
	e.whole()
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
	e.fill, e.at, e.v, e.form, e.odd, e.oddV = zeroBlock(e.k), nil, nil, nil, nil, nil
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
	var buf [4]float64
	for _, j := range e.at {
		copy(d[int(j)*kk:(int(j)+1)*kk], e.blockTo(buf[:0], int(j)))
	}
	return d
}

// wellFormed reports whether e's storage is consistent for n nodes: every
// listed index in range and increasing, v, odd and oddV of their lengths.
func (e *nodeEst) wellFormed(n int) bool {
	kk := e.k * e.k
	if len(e.fill) != kk {
		return false
	}
	for x, j := range e.at {
		if j < 0 || int(j) >= n || (x > 0 && j <= e.at[x-1]) {
			return false
		}
	}
	if e.form == nil {
		return len(e.v) == len(e.at)*kk && e.odd == nil
	}
	return len(e.form) == kk && len(e.v) == len(e.at) && len(e.oddV) == len(e.odd)*kk
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
