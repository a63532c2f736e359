// Package estimates holds the per-node estimates Ŵ_ij(a, b) of the
// learners' regressions before they are symmetrised (Algorithm 1's
// Â_ij = ŵ_j/2, Algorithm 2's centred blocks), stored sparsely: one Node a
// regression node, listing only the blocks that differ from a fill block.
// It is a stage below the root package and never imports it.
package estimates

import (
	"math"
	"slices"

	"github.com/mrfkit/pairwise/internal/dca"
)

// Node holds the estimates Ŵ_ij(a, b) of one node i's own regressions,
// before symmetrisation, for every j: the blocks that differ, bit for bit,
// from the node's fill block are listed (At, increasing), and every other
// block equals Fill. A node of Algorithm 1 has a handful of nonzero
// coefficients among n − 1, so this holds about d blocks a node where the
// dense layout held n (800 MB at n = 5,000, k = 2; see BENCHMARKS.md,
// Memory). Block i, the node's own, follows the same rule. fill and the
// listed blocks are never changed in place once the Node is built, so
// fill may be shared.
//
// A listed block is held as its k² numbers, row-major, in V, except on
// the Ising path (k = 2, a fill of the form [[a, −a], [−a, a]], see
// IsingForm): there a block of that form, bit for bit, is held as its one
// number a (Algorithm 1's Â_ij), a third of the bytes with the index, and
// the few listed blocks of another form (the node's own zero block, those
// a constant column zeroes) whole in odd and oddV. Read a block with
// Block or BlockTo, never from V.
type Node struct {
	K    int
	Fill []float64 // k² numbers: the block of every j not listed
	At   []int32   // the listed j, increasing
	// V holds, for listed block x, its k² numbers V[x*k² + a*k + b] =
	// Ŵ_{i,at[x]}(a, b), or with form the one number v[x] (0 for an odd
	// block).
	V []float64
	// form, when set, is the signs of the blocks held as one number
	// (block = form·v[x]); odd lists the listed blocks that are not of
	// that form, increasing, and oddV their k² numbers each.
	form []int8
	odd  []int32
	oddV []float64
}

// maxOdd is the most blocks of another form that a Node with a form
// holds apart; past it (many constant columns) it holds every block whole.
const maxOdd = 8

// The fills the learners use: zero for the pairwise path, and for the
// Ising path the block [[a, -a], [-a, a]] of a = +0, which is
// [[+0, -0], [-0, +0]].
var (
	zeroFill2 = []float64{0, 0, 0, 0}
	IsingFill = []float64{0, math.Copysign(0, -1), math.Copysign(0, -1), 0}
)

// IsingForm is the form of the Ising path's blocks: Â_ij in
// [[a, -a], [-a, a]].
var IsingForm = []int8{1, -1, -1, 1}

// ZeroBlock returns a block of k² zeros (+0).
func ZeroBlock(k int) []float64 {
	if k == 2 {
		return zeroFill2
	}
	return make([]float64, k*k)
}

// New returns the estimates of a node whose every block is fill;
// with a fill of the Ising form (k = 2), its blocks of that form are held
// as one number.
func New(k int, fill []float64) *Node {
	e := &Node{K: k, Fill: fill}
	if k == 2 && len(fill) == 4 && ofForm(fill, IsingForm) {
		e.form = IsingForm
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

// Sparse returns the estimates of dense, laid out as
// dense[j*k*k + a*k + b] = Ŵ_ij(a, b), listing the blocks that differ from
// fill bit for bit.
func Sparse(k int, dense, fill []float64) *Node {
	e := New(k, fill)
	kk := k * k
	for j := 0; j < len(dense)/kk; j++ {
		e.Push(j, dense[j*kk:(j+1)*kk])
	}
	return e
}

// SameBlock reports whether a and b hold the same numbers bit for bit
// (telling +0 from -0 and NaNs apart by their bits).
func SameBlock(a, b []float64) bool {
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

// Push sets block j, which must come after every listed block, to blk
// (copied); a block equal to fill is not listed.
func (e *Node) Push(j int, blk []float64) {
	if SameBlock(blk, e.Fill) {
		return
	}
	e.At = append(e.At, int32(j))
	switch {
	case e.form == nil:
		e.V = append(e.V, blk...)
	case ofForm(blk, e.form):
		e.V = append(e.V, blk[0])
	default:
		e.V = append(e.V, 0)
		e.odd = append(e.odd, int32(j))
		e.oddV = append(e.oddV, blk...)
		if len(e.odd) > maxOdd {
			e.Whole()
		}
	}
}

// Whole makes e hold every listed block as its k² numbers (no form).
func (e *Node) Whole() {
	if e.form == nil {
		return
	}
	kk := e.K * e.K
	v := make([]float64, 0, len(e.At)*kk)
	for _, j := range e.At {
		v = append(v, e.Block(int(j))...)
	}
	e.V, e.form, e.odd, e.oddV = v, nil, nil, nil
}

// Find returns the index of j among the listed blocks, and whether it is
// listed.
func (e *Node) Find(j int) (int, bool) {
	return slices.BinarySearch(e.At, int32(j))
}

// Block returns Ŵ_ij as k² numbers, row-major: the Node's own storage
// (or its fill), which the caller must not change, or a new slice for a
// block held as one number. Loops over many blocks use BlockTo.
func (e *Node) Block(j int) []float64 {
	return e.BlockTo(nil, j)
}

// BlockTo is Block, with a block held as one number written into buf's
// storage when it holds k² numbers (a new slice otherwise): with a buffer
// on the caller's stack it allocates nothing.
func (e *Node) BlockTo(buf []float64, j int) []float64 {
	x, ok := e.Find(j)
	if !ok {
		return e.Fill
	}
	kk := e.K * e.K
	if e.form == nil {
		return e.V[x*kk : (x+1)*kk : (x+1)*kk]
	}
	if o, odd := slices.BinarySearch(e.odd, int32(j)); odd {
		return e.oddV[o*kk : (o+1)*kk : (o+1)*kk]
	}
	if cap(buf) < kk {
		buf = make([]float64, kk)
	}
	buf = buf[:kk]
	a := e.V[x]
	for y, f := range e.form {
		buf[y] = a
		if f < 0 {
			buf[y] = -a
		}
	}
	return buf
}

// Set sets block j to blk (copied), listing it or not as Push does. A
// Node with a form is first made to hold its blocks whole (Set is for
// the rare edits of constant columns).
func (e *Node) Set(j int, blk []float64) {
	e.Whole()
	kk := e.K * e.K
	x, ok := e.Find(j)
	switch {
	case ok && SameBlock(blk, e.Fill):
		e.At = slices.Delete(e.At, x, x+1)
		e.V = slices.Delete(e.V, x*kk, (x+1)*kk)
	case ok:
		copy(e.V[x*kk:(x+1)*kk], blk)
	case !SameBlock(blk, e.Fill):
		e.At = slices.Insert(e.At, x, int32(j))
		e.V = slices.Insert(e.V, x*kk, blk...)
	}
}

// ClearAll sets every block to zero (+0).
func (e *Node) ClearAll() {
	e.Fill, e.At, e.V, e.form, e.odd, e.oddV = ZeroBlock(e.K), nil, nil, nil, nil, nil
}

// FillZero reports whether every number of the fill is zero (of either
// sign): the pairs of two unlisted blocks then have weight 0.
func (e *Node) FillZero() bool {
	for _, v := range e.Fill {
		if v != 0 {
			return false
		}
	}
	return true
}

// Dense returns the estimates of n nodes in the dense layout,
// dense[j*k*k + a*k + b] = Ŵ_ij(a, b).
func (e *Node) Dense(n int) []float64 {
	kk := e.K * e.K
	d := make([]float64, n*kk)
	for j := 0; j < n; j++ {
		copy(d[j*kk:(j+1)*kk], e.Fill)
	}
	var buf [4]float64
	for _, j := range e.At {
		copy(d[int(j)*kk:(int(j)+1)*kk], e.BlockTo(buf[:0], int(j)))
	}
	return d
}

// WellFormed reports whether e's storage is consistent for n nodes: every
// listed index in range and increasing, v, odd and oddV of their lengths.
func (e *Node) WellFormed(n int) bool {
	kk := e.K * e.K
	if len(e.Fill) != kk {
		return false
	}
	for x, j := range e.At {
		if j < 0 || int(j) >= n || (x > 0 && j <= e.At[x-1]) {
			return false
		}
	}
	if e.form == nil {
		return len(e.V) == len(e.At)*kk && e.odd == nil
	}
	return len(e.form) == kk && len(e.V) == len(e.At) && len(e.oddV) == len(e.odd)*kk
}

// Ising returns the estimates of an Ising node i among n variables
// from its regression's solution w (w[j] for j ≠ i, the bias at w[i]):
// Â_ij = w_j/2 in the block [[Â_ij, -Â_ij], [-Â_ij, Â_ij]] (Algorithm 1,
// line 4), and the node's own block zero.
func Ising(i, n int, w []float64) *Node {
	e := New(2, IsingFill)
	var blk [4]float64
	for j := 0; j < n; j++ {
		if j == i {
			e.Push(j, zeroFill2)
			continue
		}
		a := w[j] / 2
		blk[0], blk[1], blk[2], blk[3] = a, -a, -a, a
		e.Push(j, blk[:])
	}
	return e
}

// MaxAbs returns max |x| over a block's numbers, the weight of an edge
// (the paper's max_{a,b} |W_ij(a, b)|); 0 for an empty block, NaN when an
// entry is NaN.
func MaxAbs(x []float64) float64 {
	mx := 0.0
	for _, v := range x {
		mx = math.Max(mx, math.Abs(v))
	}
	return mx
}

// Centre subtracts the mean of v from each entry and returns the mean.
func Centre(v []float64) float64 {
	mean := 0.0
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for a := range v {
		v[a] -= mean
	}
	return mean
}

// CentreBlock centres the rows and columns of the k×k block w (the gauge
// of a coupling whose other states were removed); for k = 2 it gives the
// Ising form [[A, -A], [-A, A]].
func CentreBlock(w []float64, k int) {
	if k == 2 {
		// The centred 2×2 block is exactly [[A, -A], [-A, A]], with A
		// the mean of the entries signed by the Ising form.
		a := (w[0] - w[1] - w[2] + w[3]) / 4
		w[0], w[1], w[2], w[3] = a, -a, -a, a
		return
	}
	row, col := make([]float64, k), make([]float64, k)
	g := dca.BlockSums(w, k, row, col)
	fk := float64(k)
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			w[a*k+b] += g/(fk*fk) - row[a]/fk - col[b]/fk
		}
	}
}
