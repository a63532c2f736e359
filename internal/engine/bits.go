package engine

import "sync"

// Binary rows held as bits (issue 21's memory). Rows.Bits packs the states
// of binary rows (K = 2) in blocks of 64 rows: word x·N + j holds, in bit
// r, the state of variable j in row 64x + r (bits past the last row are
// 0). The layout has three readers, and serves each with words read in
// order:
//
//   - a reader of rows (package pairwise's CSV reader writes it a row at a
//     time; a row is one bit of N consecutive words);
//   - the group codes of the Ising path: a group's variables are
//     consecutive words of a block, so the codes of 64 rows are a byte
//     transpose and eight 8×8 bit transposes a group (blockCodes). The
//     screened fits hold the full design's codes for all rows only once
//     a fit has fallen back to the full problem, whose margins passes
//     read them, and only as bytes (eight spins a group, heldCodes: one
//     more copy of the samples' size); with fewer spins a group those
//     passes encode streamRows rows at a time (encodeBlockRows,
//     codedDesign.streamRows). A working set's codes are made from the
//     blocks (screenWork.encode);
//   - the gradients of the full design (the screened fits' checks, the
//     fallback's passes): row tables a block, eight look-ups a variable's
//     word (blockSums, columnSums);
//   - the screened fits' counts of differing bits (screen.go): the start
//     gradient reads the blocks in order, and the first working set's
//     columns are gathered into the worker's scratch for its moments.
//
// With byte states (Rows.States) the screened fits read the same layout,
// packed once from the states (Data.bitBlocks), so both representations
// give the same numbers: every sum over rows is taken in the same order.

// streamRows is the number of rows whose codes a streamed pass encodes at a
// time: 512 rows of 625 groups (n = 5000) are 640 kB of codes, in the
// second-level cache with the blocks they come from.
const streamRows = 512

// blockWords returns the number of 64-row blocks of count rows.
func blockWords(count int) int { return (count + 63) / 64 }

// PackBits returns the states of binary rows (K = 2; a state other than 0
// counts as 1) in the layout of Rows.Bits.
func PackBits(r *Rows) []uint64 {
	n := r.N
	b := make([]uint64, blockWords(r.Count)*n)
	for m := 0; m < r.Count; m++ {
		blk, bit := b[(m/64)*n:(m/64+1)*n], uint64(1)<<(m%64)
		for j, v := range r.States[m*n : (m+1)*n] {
			if v != 0 {
				blk[j] |= bit
			}
		}
	}
	return b
}

// unpackBits returns the states of Count rows of N variables held in the
// layout of Rows.Bits, one byte a state.
func unpackBits(bits []uint64, n, count int) []uint8 {
	z := make([]uint8, count*n)
	for m := 0; m < count; m++ {
		blk, sh := bits[(m/64)*n:(m/64+1)*n], uint(m%64)
		row := z[m*n : (m+1)*n]
		for j, w := range blk {
			row[j] = uint8(w >> sh & 1)
		}
	}
	return z
}

// states returns the rows' states one byte a value: Rows.States, or, for
// rows given as bits only, a copy unpacked on the first call (paths other
// than the screened Ising fits read bytes).
func (d *Data) states() []uint8 {
	if d.Rows.States != nil {
		return d.Rows.States
	}
	d.statesOnce.Do(func() {
		d.unpacked = unpackBits(d.Rows.Bits, d.Rows.N, d.Rows.Count)
	})
	return d.unpacked
}

// bitBlocks returns the rows in the layout of Rows.Bits: Rows.Bits, or
// packed from the states on the first call (n·N/8 bytes).
func (d *Data) bitBlocks() []uint64 {
	if d.Rows.Bits != nil {
		return d.Rows.Bits
	}
	d.blocksOnce.Do(func() { d.blocks = PackBits(d.Rows) })
	return d.blocks
}

// newWideLayout returns the layout of n > 32,768 spins, whose group codes
// would not fit maxCodedTables even at one variable a group: no groups, the
// rows as bits alone (blocks, the layout of Rows.Bits). Its designs sum the
// gradient's residuals by row tables (bitRows) and make the margins from
// the bits (bitMargins); the working sets of the screened fits, at most
// maxScreenSet variables, have codes of their own. Only screened fits can
// use it (Driver.Fit returns ErrWide for the others).
func newWideLayout(n, count int, blocks []uint64) *groupCodes {
	return &groupCodes{n: n, k: 2, rows: count, off: []int{0}, blocks: blocks}
}

// byteRows returns the rows with their states as bytes (see states).
func (d *Data) byteRows() *Rows {
	if d.Rows.States != nil {
		return d.Rows
	}
	r := *d.Rows
	r.States = d.states()
	return &r
}

// spinCodes returns the codes of the Ising design of all rows: gc.codes,
// nil when the screened fits stream them from the bits (streamRows), or,
// for bit rows fitted unscreened, encoded from the bits on the first call.
func (d *Data) spinCodes() []uint16 {
	if d.Rows.States != nil || d.screens() {
		return d.gc.codes
	}
	d.codesOnce.Do(func() {
		gc := d.gc
		gc.codes = make([]uint16, gc.rows*gc.groups)
		encodeBlockRows(gc.codes, gc.blocks, gc, 0, gc.rows)
	})
	return d.gc.codes
}

// heldCodes are the byte codes (groupCodes.codes8's layout) of all rows of
// a bit layout of eight variables a group, encoded from its blocks on the
// first call of get and kept: one more copy of the samples, N·n/8 bytes,
// as the bits are. The passes of the full problem's margins, which a
// screened fit makes when it falls back to the full problem (fitScreened),
// then read them instead of encoding streamRows rows at a time on every
// pass. That encoding was most of such a pass, and on long recordings the
// fallback is common: at a fixed radius a node's support grows with the
// rows (issue 33: on the 4-regular model of n = 1,000 with the paper's
// λ, 115 couplings a node at N = 10⁴, 373 at 3·10⁵, where three nodes in
// ten fell back). The sums are the same as the streamed passes', bit for
// bit (rowMargin8 and scatterRows8 add in rowMargin's and scatterRows'
// order). Layouts of fewer variables a group (n past 2,048) keep
// streaming: their 16-bit codes would cost more than twice the bits.
type heldCodes struct {
	once   sync.Once
	codes8 []uint8
}

// get returns the codes of all rows of gc, encoding them on the first
// call; safe for concurrent use.
func (h *heldCodes) get(gc *groupCodes) []uint8 {
	h.once.Do(func() { h.codes8 = encodeBlockBytes(gc) })
	return h.codes8
}

// encodeBlockBytes returns the byte codes (without their groups' offsets)
// of all rows of a bit layout of eight variables a group, rows × groups,
// as screenWork.encode makes a working set's.
func encodeBlockBytes(gc *groupCodes) []uint8 {
	n, per, groups, count := gc.n, gc.per, gc.groups, gc.rows
	out := make([]uint8, count*groups)
	for x := range blockWords(count) {
		blk := gc.blocks[x*n : (x+1)*n]
		for g := range groups {
			vs := blockCodes(blk[g*per : min(n, (g+1)*per)])
			for b, v := range vs {
				m0 := x*64 + b*8
				if m0 >= count {
					break
				}
				putCodes8(out[m0*groups+g:], groups, v, min(8, count-m0))
			}
		}
	}
	return out
}

// encodeBlockRows sets dst (rows lo..hi−1 × gc.groups) to the group codes
// (k = 2, gc.per ≤ 8 variables a group) of rows lo..hi−1 of blocks, the
// layout of Rows.Bits over gc.n variables: for each group and eight rows,
// the group's bytes of those rows form an 8×8 bit matrix whose transpose
// holds the rows' codes (as screenWork.encode).
func encodeBlockRows(dst []uint16, blocks []uint64, gc *groupCodes, lo, hi int) {
	n, per, groups := gc.n, gc.per, gc.groups
	for x := lo / 64; x*64 < hi; x++ {
		blk := blocks[x*n : (x+1)*n]
		for g := 0; g < groups; g++ {
			vs := blockCodes(blk[g*per : min(n, (g+1)*per)])
			base := uint16(gc.off[g])
			for b, t := range subBlocks(x, lo, hi) {
				v, r0 := vs[b], x*64+b*8
				if t.all() {
					out := dst[(r0-lo)*groups+g:]
					for r := 0; r < 8; r++ {
						out[r*groups] = base + uint16(v>>(8*r)&0xff)
					}
					continue
				}
				for r := t.lo; r < t.hi; r++ {
					dst[(r0+r-lo)*groups+g] = base + uint16(v>>(8*r)&0xff)
				}
			}
		}
	}
}

// blockCodes returns the codes of a group's 64 rows of a block, ws its
// words (at most 8 variables): byte r of element b is the code of row
// 8b + r, bit t of it variable t's state. The words, as an 8×8 matrix of
// bytes, are transposed (three rounds of swapping halves), so that
// element b holds byte b of every word, the states of rows 8b..8b+7;
// then each element's 8×8 bit matrix is transposed (transpose8).
func blockCodes(ws []uint64) [8]uint64 {
	var w [8]uint64
	copy(w[:], ws)
	w0, w1, w2, w3, w4, w5, w6, w7 := w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]
	const m4, m2, m1 = 0x00000000ffffffff, 0x0000ffff0000ffff, 0x00ff00ff00ff00ff
	w0, w4 = w0&m4|w4<<32, w0>>32|w4&^m4
	w1, w5 = w1&m4|w5<<32, w1>>32|w5&^m4
	w2, w6 = w2&m4|w6<<32, w2>>32|w6&^m4
	w3, w7 = w3&m4|w7<<32, w3>>32|w7&^m4
	w0, w2 = w0&m2|(w2&m2)<<16, (w0>>16)&m2|w2&^m2
	w1, w3 = w1&m2|(w3&m2)<<16, (w1>>16)&m2|w3&^m2
	w4, w6 = w4&m2|(w6&m2)<<16, (w4>>16)&m2|w6&^m2
	w5, w7 = w5&m2|(w7&m2)<<16, (w5>>16)&m2|w7&^m2
	w0, w1 = w0&m1|(w1&m1)<<8, (w0>>8)&m1|w1&^m1
	w2, w3 = w2&m1|(w3&m1)<<8, (w2>>8)&m1|w3&^m1
	w4, w5 = w4&m1|(w5&m1)<<8, (w4>>8)&m1|w5&^m1
	w6, w7 = w6&m1|(w7&m1)<<8, (w6>>8)&m1|w7&^m1
	return [8]uint64{Transpose8(w0), Transpose8(w1), Transpose8(w2), Transpose8(w3),
		Transpose8(w4), Transpose8(w5), Transpose8(w6), Transpose8(w7)}
}

// blockSums adds to s[j] the sum of r_m over the rows m in lo..hi−1 whose
// state of variable j is 1, for the n variables of blocks (the layout of
// Rows.Bits), and returns Σ r_m over those rows: the gradient of the full
// Ising design from the bits, g_j = 2·s_j − Σ r_m, for the gradient passes
// of a design that has bits (codedDesign.bitRows: the screened fits'
// checks). It turns the tables around. The group codes' passes make each
// row's code of every group of variables and add r_m into a table a group
// (scatterBlockRows in the tests, as the check's pass did); blockSums
// makes, for each block of 64 rows, eight tables of 256 cells, the sums
// of r over every subset of eight consecutive rows (rowTables: 255
// additions a table), and then reads each variable's word of the block as
// eight bytes, one cell of each table (the method of four Russians). A
// block costs 2,040 additions and eight look-ups a variable, all in the
// first-level cache, with no codes made and no store to a table a row: at
// n = 5,000 about a tenth of the time of scatterBlockRows (BENCHMARKS.md,
// Scaling). The sums are taken in a fixed order (the block's eight table
// cells in pairs, then block after block), so they depend on lo and hi
// alone.
func blockSums(s, r []float64, blocks []uint64, n, lo, hi int) float64 {
	var t [8][256]float64
	var rr [64]float64
	total := 0.0
	s = s[:n]
	for x := lo / 64; x*64 < hi; x++ {
		total += blockRows(&rr, r, x, lo, hi)
		rowTables(&t, &rr)
		blk := blocks[x*n : (x+1)*n]
		// Each word's eight bytes (rows 8b..8b+7 in byte b) read table
		// b, summed in pairs.
		t0, t1, t2, t3, t4, t5, t6, t7 := &t[0], &t[1], &t[2], &t[3], &t[4], &t[5], &t[6], &t[7]
		for j, w := range blk {
			a, b := uint32(w), uint32(w>>32)
			s[j] += ((t0[uint8(a)] + t1[uint8(a>>8)]) + (t2[uint8(a>>16)] + t3[a>>24])) +
				((t4[uint8(b)] + t5[uint8(b>>8)]) + (t6[uint8(b>>16)] + t7[b>>24]))
		}
	}
	return total
}

// columnSums sets dst[a] to the sum of r_m over all rows m (len(r) of
// them) whose state of variable cols[a] is 1, by the row tables of
// blockSums: for a few variables of many (the suspects of the screened
// fits' bounded check) eight look-ups a block and variable cost less than
// an addition a set bit, whose loop over the bits the processor cannot
// predict.
func columnSums(dst []float64, cols []int, r []float64, blocks []uint64, n int) {
	var t [8][256]float64
	var rr [64]float64
	dst = dst[:len(cols)]
	clear(dst)
	for x := 0; x*64 < len(r); x++ {
		blockRows(&rr, r, x, 0, len(r))
		rowTables(&t, &rr)
		blk := blocks[x*n : (x+1)*n]
		t0, t1, t2, t3, t4, t5, t6, t7 := &t[0], &t[1], &t[2], &t[3], &t[4], &t[5], &t[6], &t[7]
		for c, j := range cols {
			a, b := uint32(blk[j]), uint32(blk[j]>>32)
			dst[c] += ((t0[uint8(a)] + t1[uint8(a>>8)]) + (t2[uint8(a>>16)] + t3[a>>24])) +
				((t4[uint8(b)] + t5[uint8(b>>8)]) + (t6[uint8(b>>16)] + t7[b>>24]))
		}
	}
}

// blockRows sets rr to the values of r of the rows of 64-row block x that
// lie in lo..hi−1, 0 for the others, and returns their sum.
func blockRows(rr *[64]float64, r []float64, x, lo, hi int) float64 {
	a, b := max(lo, x*64), min(hi, x*64+64)
	clear(rr[:])
	copy(rr[a-x*64:], r[a:b])
	total := 0.0
	for _, v := range rr {
		total += v
	}
	return total
}

// rowTables sets t[b][c] to the sum of rr[8b+i] over the bits i set in c,
// for the eight sub-blocks b of a 64-row block: each table is doubled
// bit by bit (cells 2^i..2^(i+1)−1 are cells 0..2^i−1 plus rr[8b+i]).
func rowTables(t *[8][256]float64, rr *[64]float64) {
	for b := range t {
		tb := &t[b]
		tb[0] = 0
		for i := 0; i < 8; i++ {
			v, h := rr[8*b+i], 1<<i
			lo, hi := tb[:h], tb[h:2*h]
			for c, x := range lo {
				hi[c] = x + v
			}
		}
	}
}

// subRows is the part of an 8-row sub-block in a range of rows: its rows
// lo..hi−1 (0 ≤ lo < hi ≤ 8).
type subRows struct{ lo, hi int }

// all reports whether the range holds all eight rows of the sub-block.
func (t subRows) all() bool { return t.lo == 0 && t.hi == 8 }

// subBlocks yields, in increasing order, the 8-row sub-blocks b of 64-row
// block x (rows 64x + 8b .. 64x + 8b + 7) that overlap rows lo..hi−1, with
// the part of each that lies in the range (rows 64x + 8b + t, t in
// lo..hi−1 of the subRows): all eight rows but in the range's first and
// last sub-blocks. It is the walk of encodeBlockRows (and of the tests'
// scatterBlockRows), whose blockCodes hold a block's codes eight rows an
// element.
func subBlocks(x, lo, hi int) func(yield func(int, subRows) bool) {
	return func(yield func(int, subRows) bool) {
		base := x * 64
		for b := max(lo-base, 0) / 8; b < 8; b++ {
			r0 := base + b*8
			if r0 >= hi {
				return
			}
			if !yield(b, subRows{max(lo-r0, 0), min(hi-r0, 8)}) {
				return
			}
		}
	}
}

// newBitLayout returns the group layout (without codes) of the Ising
// design of rows given as bits, per variables a group, its codes to be
// streamed from the bits or encoded from them (spinCodes); nil when the
// tables would not fit or per > 8.
func newBitLayout(r *Rows, per int) *groupCodes {
	n := r.N
	if per < 1 || per > 8 {
		return nil
	}
	groups := (n + per - 1) / per
	gc := &groupCodes{n: n, k: 2, per: per, groups: groups, rows: r.Count, off: make([]int, groups+1), blocks: r.Bits}
	if per == 8 {
		gc.held = new(heldCodes)
	}
	for g := 0; g < groups; g++ {
		gc.off[g+1] = gc.off[g] + 1<<(min(n, (g+1)*per)-g*per)
	}
	if gc.off[groups] > maxCodedTables {
		return nil
	}
	return gc
}
