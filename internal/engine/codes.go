package engine

import (
	"math"
	"math/bits"
)

// Fast kernels for the margins and gradients of the per-node regressions.
//
// Every design the learners build is a function of the samples' states: the
// row x_m of node i's design is [z_-i, 1] as spins ±1 (Algorithm 1) or as
// one-hot vectors (Algorithm 2). So ⟨w, x_m⟩ is a sum over variables of a
// term that depends only on the state z_mj, and a few variables can share
// one table. groupCodes cuts the n variables into groups of v consecutive
// variables and stores, for every row and group, the code of the group's
// states, Σ_t z_{m,j0+t}·k^t (plus the group's table offset). Then
//
//	⟨w, x_m⟩ = Σ_g T_g[code_mg],   T_g[c] = Σ_t f_{j0+t}(digit_t(c)),
//
// with f_j(a) the contribution of variable j in state a: ±w_j for spins,
// w(j, a) for one-hot rows, and the bias term (w_i, or w(i, 0)) for node i
// whatever its state. A margin costs n/v table reads instead of n
// multiply-adds, and the tables, k^v entries a group, are rebuilt from w in
// O(n·k^v/v) per call. The gradient Σ_m r_m x_m is the same in reverse: r_m
// is added into a histogram cell per group (H_g[code_mg] += r_m), and the
// histograms are summed over all digits but one to give Σ_{m: z_mj = a} r_m
// for every variable j and state a, from which both layouts read their
// gradient. These are exactly the gathers and scatter-adds of one-hot rows,
// batched v variables at a time; for v = 1 they are the plain ones.
//
// The plain implementations, solve.Spins and solve.OneHot, stay the
// reference: kernels_test.go checks both kernels against them.

// maxGroupTable bounds the entries of one group's table: a table of 256
// float64s (2 KiB) per group keeps the tables of a 100-variable Ising
// problem (13 groups) in the 32 KiB level-one cache; BenchmarkKernels
// measured 256 against 16 and 1024 (see BENCHMARKS.md).
const maxGroupTable = 256

// maxCodedTables bounds the entries of all tables together, so that codes
// with their offsets fit in a uint16. Larger problems (n·k above 65536)
// use the plain kernels, except the Ising path's, whose rows stay bits in
// the wide layout (newWideLayout) and whose working sets are coded.
const maxCodedTables = 1 << 16

// groupCodes holds the samples as group codes, shared read-only by the
// regressions of all nodes (and value pairs).
type groupCodes struct {
	n, k   int
	per    int      // variables per group; the last group may hold fewer
	groups int      // ceil(n/per)
	off    []int    // off[g]: first table entry of group g; off[groups] = total
	codes  []uint16 // rows × groups: off[g] + Σ_t z_{m, g·per+t}·k^t
	// codes8 are the codes of a working set's restricted design
	// (screenWork.encode: k = 2, eight variables a group, off[g] = 256·g)
	// without their offsets, one byte a code: half the memory of codes,
	// which at n = 5,000 and N = 10^5 are 10 to 30 MB a worker. The
	// kernels add 256·g as they read group g (rowMargin8, scatterRows8).
	codes8 []uint8
	rows   int
	// blocks are the rows as bits (Rows.Bits) when the codes are not
	// held for all rows (codes nil): a design over them encodes its rows'
	// codes as it passes over them (bits.go), unless held says otherwise.
	blocks []uint64
	// held, when set (a bit layout of eight variables a group), encodes
	// the byte codes of all rows from blocks on the first pass of a
	// streamed design that reads codes, and keeps them for every later
	// pass of any design over gc (see heldCodes).
	held *heldCodes
}

// groupSize returns the number of variables per group for n variables with
// alphabet k: the largest v with k^v ≤ limit, reduced until the n/v tables
// of k^v entries fit in maxCodedTables; 0 if even v = 1 does not fit.
func groupSize(n, k, limit int) int {
	v, size := 1, k
	for size*k <= limit && v < n {
		v++
		size *= k
	}
	for v >= 1 {
		groups := (n + v - 1) / v
		if groups*size <= maxCodedTables {
			return v
		}
		v--
		size /= k
	}
	return 0
}

// newGroupCodes encodes the samples (k ≤ 256) with per variables a group. It
// returns nil when the tables would not fit (see maxCodedTables).
func newGroupCodes(s *Rows, per int) *groupCodes {
	n, k := s.N, s.K
	if s.States == nil || per < 1 {
		return nil
	}
	groups := (n + per - 1) / per
	gc := &groupCodes{n: n, k: k, per: per, groups: groups, rows: s.Count, off: make([]int, groups+1)}
	for g := 0; g < groups; g++ {
		size := 1
		for j := g * per; j < min(n, (g+1)*per); j++ {
			size *= k
		}
		gc.off[g+1] = gc.off[g] + size
	}
	if gc.off[groups] > maxCodedTables {
		return nil
	}
	gc.codes = make([]uint16, s.Count*groups)
	for m := 0; m < s.Count; m++ {
		row := s.States[m*n : (m+1)*n]
		out := gc.codes[m*groups : (m+1)*groups]
		for g := range out {
			lo, hi := g*per, min(n, (g+1)*per)
			c := 0
			for j := hi - 1; j >= lo; j-- {
				c = c*k + int(row[j])
			}
			out[g] = uint16(gc.off[g] + c)
		}
	}
	return gc
}

// gatherRows appends the codes of the listed rows, in order, to dst.
func (gc *groupCodes) gatherRows(dst []uint16, rows []int32) []uint16 {
	g := gc.groups
	for _, m := range rows {
		dst = append(dst, gc.codes[int(m)*g:int(m+1)*g]...)
	}
	return dst
}

// codedDesign is the design of one regression over group codes: node bias's
// Regression on [z_-bias, 1], as spins (dimension n, one coordinate a
// variable, x = ±1 and the bias column 1) or one-hot (dimension n·k, row
// bias the bias row read as state 0). It implements the methods of the
// solve layouts (Dim, GroupSize, Margins, Gradient) with the same meaning;
// scratch makes it unsafe for concurrent use.
type codedDesign struct {
	gc     *groupCodes
	codes  []uint16 // rows × gc.groups; nil when streamed or bytes
	codes8 []uint8  // rows × gc.groups without the offsets (gc.codes8), or nil
	rows   int
	// stream: the codes are encoded from gc.blocks a chunk of streamRows
	// rows at a time, on every pass, into sbuf[c] for the pass's chunk c
	// (the worker's, Work.sbuf).
	stream bool
	// bits, when set, are the rows in the layout of Rows.Bits (k = 2,
	// spins), from which the gradient passes sum the residuals by row
	// tables (bitRows) instead of scattering them by codes: a streamed
	// design's (gc.blocks) and a screened fit's full design (fitScreened).
	bits []uint64
	// bsums are the chunks' sums of a gradient pass from the bits (n + 1
	// each: bitRows), the worker's (Work.bsums) or the design's own.
	bsums *[][]float64
	// nz, delta and base are a wide design's margins (gc.groups = 0, see
	// newWideLayout), set by Margins and marginsBound before their pass:
	// the variables j with w_j ≠ 0 off the bias, f_j(1) − f_j(0) for
	// each, and Σ_j f_j(0).
	nz    []int
	delta []float64
	base  float64
	sbuf  *[][]uint16
	bias  int
	spins bool
	// scores, when set, make the design scored (the ordinal model): x_mj
	// = scores[j·k + z_mj] for j ≠ bias, one coordinate a variable as for
	// spins, l1 constrained; nil otherwise (Data.SetScores).
	scores []float64
	f      []float64 // n×k: f_j(a), then the per-state gradient sums
	tab    []float64 // the tables, or the histograms: full[:gc.off[gc.groups]]
	// full is tab at its full size, so that indexing it with a uint16 code
	// needs no bounds check.
	full *[maxCodedTables]float64

	// Row splitting (rowsplit.go, set by split): with a team, the passes
	// over the rows run in chunks of chunkRows rows on the team; hist[c]
	// is the histogram of chunk c+1 (chunk 0 uses full), part holds two
	// partial sums a chunk, and the pass's arguments wait in the fields
	// below for runChunk, a method value made once. Without a team there
	// is one chunk, all the rows.
	team       *rowTeam
	chunkRows  int
	chunks     int
	hist       []*[maxCodedTables]float64
	part       []float64
	part0      [2]float64 // part without a team
	runChunkFn func(int)
	op         chunkOp
	dst, r     []float64
	b, sig     []float64
	u, y, cw   []float64
}

// chunkOp is the pass that runChunk performs on a chunk of rows.
type chunkOp uint8

const (
	opMargins         chunkOp = iota // gatherMargins into dst
	opMarginsBound                   // marginsBoundRows into dst, part
	opHistograms                     // scatterRows of r
	opResidualScatter                // residualRows of u into r, sig
	opBregman                        // logisticBregman(dst, b, sig, y, cw) into part
	opLoss                           // logisticLoss(u, y, cw) into part
	opCurvature                      // curvature(dst, u, y, cw) into part
)

// newCodedDesign returns the design of node bias over codes (rows ×
// gc.groups, from gc or gathered from it). f (length n·k, grown when short)
// and full (allocated when nil) are scratch.
func newCodedDesign(gc *groupCodes, codes []uint16, bias int, spins bool, f []float64, full *[maxCodedTables]float64) *codedDesign {
	if cap(f) < gc.n*gc.k {
		f = make([]float64, gc.n*gc.k)
	}
	if full == nil {
		full = new([maxCodedTables]float64)
	}
	d := &codedDesign{gc: gc, codes: codes, bias: bias, spins: spins,
		f: f[:gc.n*gc.k], tab: full[:gc.off[gc.groups]], full: full}
	if gc.groups > 0 { // a wide layout's design is streamed (newStreamedDesign)
		d.rows = len(codes) / gc.groups
	}
	d.part, d.chunks = d.part0[:], 1
	return d
}

// newByteDesign returns the design of node bias over gc.codes8 (see
// groupCodes), as newCodedDesign does over 16-bit codes.
func newByteDesign(gc *groupCodes, bias int, spins bool, f []float64, full *[maxCodedTables]float64) *codedDesign {
	d := newCodedDesign(gc, nil, bias, spins, f, full)
	d.codes8, d.rows = gc.codes8, len(gc.codes8)/gc.groups
	return d
}

// newStreamedDesign returns the design of node bias over all rows of gc,
// whose codes are encoded from gc.blocks as each pass reaches them, into
// the buffers of sbuf (one a chunk of the pass, grown as needed). f and
// full are as for newCodedDesign.
func newStreamedDesign(gc *groupCodes, bias int, spins bool, f []float64, full *[maxCodedTables]float64, sbuf *[][]uint16) *codedDesign {
	d := newCodedDesign(gc, nil, bias, spins, f, full)
	// A wide layout has no codes to stream: its margins come from the
	// bits (gatherRowMargins).
	d.rows, d.stream, d.sbuf, d.bits = gc.rows, gc.groups > 0, sbuf, gc.blocks
	d.growStreamBuffers()
	return d
}

// growStreamBuffers makes a buffer of codes for each chunk of a pass, so
// that the chunks, run concurrently, write their own.
func (d *codedDesign) growStreamBuffers() {
	if !d.stream {
		return
	}
	size := min(streamRows, d.rows) * d.gc.groups
	for len(*d.sbuf) < d.chunks {
		*d.sbuf = append(*d.sbuf, nil)
	}
	for c := range d.chunks {
		if cap((*d.sbuf)[c]) < size {
			(*d.sbuf)[c] = make([]uint16, size)
		}
	}
}

// Len returns the number of rows.
func (d *codedDesign) Len() int { return d.rows }

// Dim returns n for spins and scores, and n·k for one-hot rows.
func (d *codedDesign) Dim() int {
	if d.spins || d.scores != nil {
		return d.gc.n
	}
	return d.gc.n * d.gc.k
}

// GroupSize returns 1 for spins and scores (l1) and k for one-hot rows
// (l2,1).
func (d *codedDesign) GroupSize() int {
	if d.spins || d.scores != nil {
		return 1
	}
	return d.gc.k
}

// split makes the passes over the rows run in chunks on team (see
// rowsplit.go); hist keeps the chunks' histograms for reuse by later
// designs. The chunks depend on the number of rows alone, so results do
// not depend on the team's size.
func (d *codedDesign) split(team *rowTeam, hist *[]*[maxCodedTables]float64) {
	d.team = team
	d.chunkRows, d.chunks = rowChunks(d.Len(), team.chunk)
	for len(*hist) < d.chunks-1 {
		*hist = append(*hist, new([maxCodedTables]float64))
	}
	d.hist = (*hist)[:d.chunks-1]
	d.part = make([]float64, 2*d.chunks)
	d.runChunkFn = d.runChunk
	d.growStreamBuffers()
}

// pass runs op over all rows: on the team in chunks, or in one piece.
func (d *codedDesign) pass(op chunkOp) {
	d.op = op
	if d.team == nil {
		d.runRows(op, d.full, 0, d.Len(), 0)
		return
	}
	d.team.run(d.chunks, d.runChunkFn)
}

// runChunk runs the pass in progress on chunk c.
func (d *codedDesign) runChunk(c int) {
	lo := c * d.chunkRows
	hi := min(lo+d.chunkRows, d.Len())
	tab := d.full
	if c > 0 {
		tab = d.hist[c-1]
	}
	d.runRows(d.op, tab, lo, hi, c)
}

// runRows runs op on rows lo..hi-1, with tab the chunk's histograms and c
// its index into part.
func (d *codedDesign) runRows(op chunkOp, tab *[maxCodedTables]float64, lo, hi, c int) {
	g := d.gc.groups
	rc := rowCodes{c16: d.codes, c8: d.codes8}
	switch {
	case d.bits != nil && (op == opHistograms || op == opResidualScatter):
		d.bitRows(op, (*d.bsums)[c], lo, hi)
		return
	case d.stream && op <= opResidualScatter:
		if d.gc.held == nil {
			d.streamRows(op, tab, lo, hi, c)
			return
		}
		// The codes of all rows, held as bytes: the kernels of byte
		// codes give the same sums as those of the streamed 16-bit
		// codes (rowMargin8, scatterRows8).
		rc = rowCodes{c8: d.gc.held.get(d.gc)}
	}
	if op <= opResidualScatter || op == opMarginsBound {
		rc = rc.from(lo * g)
		if op == opMarginsBound {
			d.part[2*c], d.part[2*c+1] = d.marginsBoundRows(lo, hi, rc, 0, 0)
			return
		}
		d.codeRows(op, tab, lo, hi, rc)
		return
	}
	switch op {
	case opBregman:
		d.part[2*c] = LogisticBregman(d.dst[lo:hi], d.b[lo:hi], d.sig[lo:hi], d.y[lo:hi], d.cw[lo:hi])
	case opLoss:
		d.part[2*c] = LogisticLoss(d.u[lo:hi], d.y[lo:hi], d.cw[lo:hi])
	case opCurvature:
		d.part[2*c] = Curvature(d.dst[lo:hi], d.u[lo:hi], d.y[lo:hi], d.cw[lo:hi])
	}
}

// rowCodes are the codes of consecutive rows, of one of two kinds: 16-bit
// codes with their groups' offsets (c16), or bytes without them (c8, see
// groupCodes.codes8). The other is nil.
type rowCodes struct {
	c16 []uint16
	c8  []uint8
}

// from returns the codes from index i on.
func (rc rowCodes) from(i int) rowCodes {
	if rc.c8 != nil {
		return rowCodes{c8: rc.c8[i:]}
	}
	return rowCodes{c16: rc.c16[i:]}
}

// codeRows runs a pass op that reads codes (opMargins, opHistograms,
// opResidualScatter) on rows lo..hi-1, whose codes rc begins with.
func (d *codedDesign) codeRows(op chunkOp, tab *[maxCodedTables]float64, lo, hi int, rc rowCodes) {
	switch op {
	case opMargins:
		d.gatherRowMargins(d.dst[lo:hi], lo, rc)
	case opHistograms:
		d.scatterRowCodes(tab, d.r[lo:hi], rc)
	case opResidualScatter:
		d.residualRows(tab, lo, hi, rc)
	}
}

// gatherRowMargins is gatherMargins of either kind of codes, or, for a
// wide design (no groups), bitMargins of the rows from lo on.
func (d *codedDesign) gatherRowMargins(dst []float64, lo int, rc rowCodes) {
	if d.gc.groups == 0 {
		d.bitMargins(dst, lo)
		return
	}
	if rc.c8 == nil {
		d.gatherMargins(dst, rc.c16)
		return
	}
	g, tab := d.gc.groups, d.full
	for m := range dst {
		dst[m] = rowMargin8(tab, rc.c8[m*g:m*g+g])
	}
}

// scatterRowCodes is scatterRows of either kind of codes.
func (d *codedDesign) scatterRowCodes(tab *[maxCodedTables]float64, r []float64, rc rowCodes) {
	if rc.c8 == nil {
		d.scatterRows(tab, r, rc.c16)
		return
	}
	d.scatterRows8(tab, r, rc.c8)
}

// streamRows runs a pass op that reads codes on rows lo..hi-1 of a
// streamed design, streamRows rows at a time: their codes are encoded
// into chunk c's buffer, then read as codeRows reads held codes. The rows
// are visited in the same order, and the sums of opMarginsBound carried
// from piece to piece, so the results are those of the held codes.
func (d *codedDesign) streamRows(op chunkOp, tab *[maxCodedTables]float64, lo, hi, c int) {
	buf := (*d.sbuf)[c]
	var s, dmax float64
	for a := lo; a < hi; a += streamRows {
		b := min(a+streamRows, hi)
		codes := buf[:(b-a)*d.gc.groups]
		encodeBlockRows(codes, d.gc.blocks, d.gc, a, b)
		if op == opMarginsBound {
			s, dmax = d.marginsBoundRows(a, b, rowCodes{c16: codes}, s, dmax)
			continue
		}
		d.codeRows(op, tab, a, b, rowCodes{c16: codes})
	}
	if op == opMarginsBound {
		d.part[2*c], d.part[2*c+1] = s, dmax
	}
}

// bitRows runs a gradient pass (opHistograms, opResidualScatter) on rows
// lo..hi-1 from the bits (d.bits): in place of histograms, sums keeps the
// sums of r over the rows where each variable is 1 (sums[j]) and over all
// rows (sums[n]), which gradientFromHistograms reads (see blockSums).
func (d *codedDesign) bitRows(op chunkOp, sums []float64, lo, hi int) {
	n := d.gc.n
	if op == opHistograms {
		sums[n] += blockSums(sums[:n], d.r, d.bits, n, lo, hi)
		return
	}
	r, sig, u, y, cw := d.r, d.sig, d.u, d.y, d.cw
	for a := lo; a < hi; a += streamRows {
		b := min(a+streamRows, hi)
		fastResiduals(r[a:b], sig[a:b], u[a:b], y[a:b], cw[a:b])
		sums[n] += blockSums(sums[:n], r, d.bits, n, a, b)
	}
}

// bitMargins sets dst to the margins of the rows from lo on of a wide
// design (gc.groups = 0) from the bits: Σ_j f_j(0), plus f_j(1) − f_j(0)
// for each variable j in nz whose state is 1, O(N·|nz|/64 + ones) work.
func (d *codedDesign) bitMargins(dst []float64, lo int) {
	n := d.gc.n
	for m := range dst {
		dst[m] = d.base
	}
	hi := lo + len(dst)
	for x := lo / 64; x*64 < hi; x++ {
		blk := d.bits[x*n : (x+1)*n]
		// The rows of block x within lo..hi−1, as a mask of its bits.
		mask := ^uint64(0)
		if x*64 < lo {
			mask <<= uint(lo - x*64)
		}
		if end := (x + 1) * 64; end > hi {
			mask &= ^uint64(0) >> uint(end-hi)
		}
		off := x*64 - lo
		for a, j := range d.nz {
			dv := d.delta[a]
			for v := blk[j] & mask; v != 0; v &= v - 1 {
				dst[off+bits.TrailingZeros64(v)] += dv
			}
		}
	}
}

// wideMargins sets nz, delta and base from f (fillContributions) for
// bitMargins.
func (d *codedDesign) wideMargins() {
	if d.gc.groups != 0 {
		return
	}
	f := d.f
	d.nz, d.delta, d.base = d.nz[:0], d.delta[:0], 0
	for j := range d.gc.n {
		d.base += f[2*j]
		if dv := f[2*j+1] - f[2*j]; dv != 0 {
			d.nz = append(d.nz, j)
			d.delta = append(d.delta, dv)
		}
	}
}

// sumParts returns the sum of the chunks' first partial sums, in chunk
// order.
func (d *codedDesign) sumParts() float64 {
	s := 0.0
	for c := range d.chunks {
		s += d.part[2*c]
	}
	return s
}

// bregman is logisticBregman(a, b, sig, y, cw), in chunks when the design
// splits its rows (one chunk, the plain sum, when it does not).
func (d *codedDesign) bregman(a, b, sig, y, cw []float64) float64 {
	d.dst, d.b, d.sig, d.y, d.cw = a, b, sig, y, cw
	d.pass(opBregman)
	d.dst, d.b, d.sig, d.y, d.cw = nil, nil, nil, nil, nil
	return d.sumParts()
}

// loss is logisticLoss(u, y, cw), in chunks when the design splits its
// rows.
func (d *codedDesign) loss(u, y, cw []float64) float64 {
	d.u, d.y, d.cw = u, y, cw
	d.pass(opLoss)
	d.u, d.y, d.cw = nil, nil, nil
	return d.sumParts()
}

// Curvature is curvature(v, u, y, cw), in chunks when the design splits
// its rows.
func (d *codedDesign) Curvature(v, u, y, cw []float64) float64 {
	d.dst, d.u, d.y, d.cw = v, u, y, cw
	d.pass(opCurvature)
	d.dst, d.u, d.y, d.cw = nil, nil, nil, nil
	return d.sumParts()
}

// sumHistograms adds the chunks' histograms into tab (the bit sums into
// chunk 0's), in chunk order.
func (d *codedDesign) sumHistograms() {
	if d.bits != nil {
		sums := *d.bsums
		for _, h := range sums[1:d.chunks] {
			for c, v := range h {
				sums[0][c] += v
			}
		}
		return
	}
	size := len(d.tab)
	for _, h := range d.hist {
		for c, v := range h[:size] {
			d.tab[c] += v
		}
	}
}

// clearHistograms zeroes the histograms of every chunk, or their bit sums
// (made here, n + 1 a chunk, when they are missing or short).
func (d *codedDesign) clearHistograms() {
	if d.bits != nil {
		if d.bsums == nil {
			d.bsums = new([][]float64)
		}
		sums, size := *d.bsums, d.gc.n+1
		for len(sums) < d.chunks {
			sums = append(sums, nil)
		}
		for c := range d.chunks {
			if cap(sums[c]) < size {
				sums[c] = make([]float64, size)
			}
			sums[c] = sums[c][:size]
			clear(sums[c])
		}
		*d.bsums = sums
		return
	}
	clear(d.tab)
	for _, h := range d.hist {
		clear(h[:len(d.tab)])
	}
}

// Margins sets dst[m] = ⟨w, x_m⟩.
func (d *codedDesign) Margins(dst, w []float64) {
	d.fillContributions(w)
	d.buildTables()
	d.wideMargins()
	d.dst = dst
	d.pass(opMargins)
	d.dst = nil
}

// fillContributions sets f_j(a), the contribution of variable j in state a
// to the margin, from w.
func (d *codedDesign) fillContributions(w []float64) {
	gc, k, f := d.gc, d.gc.k, d.f
	if d.spins {
		// k = 2, or 3 with the missing spin (state 2) contributing 0.
		for j, v := range w[:gc.n] {
			f[k*j], f[k*j+1] = -v, v
			if k == 3 {
				f[k*j+2] = 0
			}
		}
		for a := 0; a < k; a++ {
			f[k*d.bias+a] = w[d.bias]
		}
		return
	}
	if d.scores != nil {
		// f_j(a) = w_j·s_j(a); the bias is w_bias whatever z_bias.
		for j, v := range w[:gc.n] {
			for a, sc := range d.scores[k*j : k*(j+1)] {
				f[k*j+a] = v * sc
			}
		}
		for a := 0; a < k; a++ {
			f[k*d.bias+a] = w[d.bias]
		}
		return
	}
	copy(f, w[:gc.n*k])
	for a := 1; a < k; a++ {
		f[d.bias*k+a] = w[d.bias*k]
	}
}

// buildTables sets T_g[c] = Σ_t f_{j0+t}(digit_t(c)) for every group, one
// variable at a time: extending the codes of t digits by a digit a adds
// f_{j0+t}(a) to each of them.
func (d *codedDesign) buildTables() {
	gc, k, f, tab := d.gc, d.gc.k, d.f, d.tab
	for g := 0; g < gc.groups; g++ {
		t := tab[gc.off[g]:gc.off[g+1]]
		lo, hi := g*gc.per, min(gc.n, (g+1)*gc.per)
		copy(t[:k], f[lo*k:(lo+1)*k])
		base := k
		for j := lo + 1; j < hi; j++ {
			fj := f[j*k : (j+1)*k]
			// Descending a: block 0 is read by the others and written last.
			for a := k - 1; a >= 0; a-- {
				fa := fj[a]
				dst := t[a*base : (a+1)*base]
				for c, v := range t[:base] {
					dst[c] = v + fa
				}
			}
			base *= k
		}
	}
}

// gatherMargins sets dst[m] = Σ_g tab[codes[m, g]], four groups at a
// time, codes beginning with dst's first row.
func (d *codedDesign) gatherMargins(dst []float64, codes []uint16) {
	g, tab := d.gc.groups, d.full
	for m := range dst {
		dst[m] = rowMargin(tab, codes[m*g:m*g+g])
	}
}

// rowMargin returns Σ_g tab[row[g]], the margin of a row of codes, four
// groups at a time.
func rowMargin(tab *[maxCodedTables]float64, row []uint16) float64 {
	var s0, s1, s2, s3 float64
	for len(row) >= 4 {
		s0 += tab[row[0]]
		s1 += tab[row[1]]
		s2 += tab[row[2]]
		s3 += tab[row[3]]
		row = row[4:]
	}
	for _, c := range row {
		s0 += tab[c]
	}
	return (s0 + s1) + (s2 + s3)
}

// rowMargin8 is rowMargin of a row of byte codes (groupCodes.codes8): the
// code of group g is 256·g + row[g]. Eight groups' tables are taken as
// one array, so that their offsets fold into the addressing (one bounds
// check eight groups). Group g is added to s_{g mod 4} in order, as in
// rowMargin, so both kinds of codes give the same margins.
func rowMargin8(tab *[maxCodedTables]float64, row []uint8) float64 {
	var s0, s1, s2, s3 float64
	t := tab[:]
	for len(row) >= 8 {
		q := (*[2048]float64)(t)
		s0 += q[row[0]]
		s1 += q[256+int(row[1])]
		s2 += q[512+int(row[2])]
		s3 += q[768+int(row[3])]
		s0 += q[1024+int(row[4])]
		s1 += q[1280+int(row[5])]
		s2 += q[1536+int(row[6])]
		s3 += q[1792+int(row[7])]
		row, t = row[8:], t[2048:]
	}
	if len(row) >= 4 {
		q := (*[1024]float64)(t)
		s0 += q[row[0]]
		s1 += q[256+int(row[1])]
		s2 += q[512+int(row[2])]
		s3 += q[768+int(row[3])]
		row, t = row[4:], t[1024:]
	}
	for _, c := range row {
		s0 += (*[256]float64)(t)[c]
		t = t[256:]
	}
	return (s0 + s1) + (s2 + s3)
}

// Gradient sets dst = Σ_m r_m x_m.
func (d *codedDesign) Gradient(dst, r []float64) {
	d.clearHistograms()
	d.r = r
	d.pass(opHistograms)
	d.r = nil
	d.sumHistograms()
	d.gradientFromHistograms(dst)
}

// gradientFromHistograms sets dst from the histograms in tab.
func (d *codedDesign) gradientFromHistograms(dst []float64) {
	gc, k, f := d.gc, d.gc.k, d.f
	if d.bits != nil {
		// tab holds the sums of r where each spin is up, and over all rows
		// (bitRows): x_mj = 2·s_mj − 1.
		n := gc.n
		sums := (*d.bsums)[0]
		total := sums[n]
		for j, s1 := range sums[:n] {
			dst[j] = 2*s1 - total
		}
		dst[d.bias] = total
		return
	}
	d.marginals()
	// f now holds S_j(a) = Σ_{m: z_mj = a} r_m.
	if d.spins {
		// A missing spin (state 2 of k = 3) adds nothing but to the bias.
		for j := range dst[:gc.n] {
			dst[j] = f[k*j+1] - f[k*j]
		}
		s := 0.0
		for a := 0; a < k; a++ {
			s += f[k*d.bias+a]
		}
		dst[d.bias] = s
		return
	}
	if d.scores != nil {
		// Σ_m r_m s_j(z_mj) = Σ_a s_j(a)·S_j(a).
		for j := range dst[:gc.n] {
			v := 0.0
			for a, sc := range d.scores[k*j : k*(j+1)] {
				v += sc * f[k*j+a]
			}
			dst[j] = v
		}
		s := 0.0
		for a := 0; a < k; a++ {
			s += f[k*d.bias+a]
		}
		dst[d.bias] = s
		return
	}
	copy(dst, f)
	s := 0.0
	for a := 0; a < k; a++ {
		s += f[d.bias*k+a]
		dst[d.bias*k+a] = 0
	}
	dst[d.bias*k] = s
}

// scatterRows adds r_m into the histograms H_g[c] (c = codes[m, g]) in
// tab, codes beginning with r's first row.
func (d *codedDesign) scatterRows(tab *[maxCodedTables]float64, r []float64, codes []uint16) {
	g := d.gc.groups
	for m, rm := range r {
		row := codes[m*g : m*g+g]
		for _, c := range row {
			tab[c] += rm
		}
	}
}

// scatterRows8 is scatterRows of byte codes (groupCodes.codes8), eight
// groups' tables at a time as in rowMargin8. Every cell receives its rows'
// residuals in row order, as in scatterRows.
func (d *codedDesign) scatterRows8(tab *[maxCodedTables]float64, r []float64, codes []uint8) {
	g := d.gc.groups
	for m, rm := range r {
		row, t := codes[m*g:m*g+g], tab[:]
		for len(row) >= 8 {
			q := (*[2048]float64)(t)
			q[row[0]] += rm
			q[256+int(row[1])] += rm
			q[512+int(row[2])] += rm
			q[768+int(row[3])] += rm
			q[1024+int(row[4])] += rm
			q[1280+int(row[5])] += rm
			q[1536+int(row[6])] += rm
			q[1792+int(row[7])] += rm
			row, t = row[8:], t[2048:]
		}
		for _, c := range row {
			(*[256]float64)(t)[c] += rm
			t = t[256:]
		}
	}
}

// marginals sets f[j·k+a] = Σ over the cells of j's group whose digit for j
// is a, from the histograms in tab.
func (d *codedDesign) marginals() {
	gc, k, f, tab := d.gc, d.gc.k, d.f, d.tab
	clear(f)
	if k == 2 && gc.per <= 8 {
		d.spinMarginals()
		return
	}
	for g := 0; g < gc.groups; g++ {
		h := tab[gc.off[g]:gc.off[g+1]]
		lo, hi := g*gc.per, min(gc.n, (g+1)*gc.per)
		stride := 1 // k^t for the digit of variable lo+t
		for j := lo; j < hi; j++ {
			fj := f[j*k : (j+1)*k]
			block := stride * k
			for start := 0; start < len(h); start += block {
				for a := 0; a < k; a++ {
					s := 0.0
					for _, v := range h[start+a*stride : start+(a+1)*stride] {
						s += v
					}
					fj[a] += s
				}
			}
			stride = block
		}
	}
}

// spinMarginals is marginals for k = 2 (every table 2^v ≤ 256 cells, the
// digit of variable lo+t bit t of the cell): summing each variable's two
// halves of its group's table directly reads every cell once a variable,
// v·2^v additions a group, which at small N costs far more than the pass
// over the rows. Instead a copy of the table is folded in half from the
// highest bit down (cell c += cell c + 2^t for c < 2^t): before the fold
// on bit t the table holds the sums over the higher bits, so the sums of
// its lower and upper halves are variable lo+t's S(0) and S(1). That is
// 3·(2^v − 1) additions a group.
func (d *codedDesign) spinMarginals() {
	gc, f, tab := d.gc, d.f, d.tab
	var buf [256]float64
	for g := 0; g < gc.groups; g++ {
		h := buf[:copy(buf[:], tab[gc.off[g]:gc.off[g+1]])]
		lo, hi := g*gc.per, min(gc.n, (g+1)*gc.per)
		for t := hi - lo - 1; t >= 0; t-- {
			half := 1 << t
			var s0, s1 float64
			low, up := h[:half], h[half:2*half]
			for c, v := range up {
				s0 += low[c]
				s1 += v
				low[c] += v
			}
			f[2*(lo+t)], f[2*(lo+t)+1] = s0, s1
		}
	}
}

// residualGradient is fastResiduals(r, sig, u, y, cw) followed by
// Gradient(dst, r), in one pass over the rows: each residual is added into
// the histograms as soon as it is computed. r receives the residuals too.
func (d *codedDesign) residualGradient(dst, r, sig, u, y, cw []float64) {
	d.clearHistograms()
	d.r, d.sig, d.u, d.y, d.cw = r, sig, u, y, cw
	d.pass(opResidualScatter)
	d.r, d.sig, d.u, d.y, d.cw = nil, nil, nil, nil, nil
	d.sumHistograms()
	d.gradientFromHistograms(dst)
}

// residualRows is residualGradient's pass over rows lo..hi-1 into the
// histograms tab, codes rc beginning with row lo: the residuals of a
// chunk of rows, then their scatter.
func (d *codedDesign) residualRows(tab *[maxCodedTables]float64, lo, hi int, rc rowCodes) {
	g := d.gc.groups
	base := lo
	r, sig, u, y, cw := d.r, d.sig, d.u, d.y, d.cw
	const chunk = 256 // residuals a chunk, computed by the plain loop
	for lo < hi {
		end := min(lo+chunk, hi)
		fastResiduals(r[lo:end], sig[lo:end], u[lo:end], y[lo:end], cw[lo:end])
		d.scatterRowCodes(tab, r[lo:end], rc.from((lo-base)*g))
		lo = end
	}
}

// marginsBound is Margins(dst, w) followed by bregmanBound(dst, b, sig, y,
// cw), in one pass over the rows.
func (d *codedDesign) marginsBound(dst, w, b, sig, y, cw []float64) (hi, ratio float64) {
	d.fillContributions(w)
	d.buildTables()
	d.wideMargins()
	d.dst, d.b, d.sig, d.y, d.cw = dst, b, sig, y, cw
	d.pass(opMarginsBound)
	d.dst, d.b, d.sig, d.y, d.cw = nil, nil, nil, nil, nil
	s, dmax := 0.0, 0.0
	for c := range d.chunks {
		s += d.part[2*c]
		dmax = max(dmax, d.part[2*c+1])
	}
	if dmax > 1 {
		return 0.5 * s, math.Inf(1)
	}
	return 0.5 * s, (1 + 0.91*dmax) / (1 - dmax/3)
}

// marginsBoundRows is marginsBound's pass over rows lo..hi-1, whose codes
// rc begins with: it sets their margins and returns s and dmax increased
// by the sum of their bounds (added row by row) and the largest |δ|.
func (d *codedDesign) marginsBoundRows(lo, hi int, rc rowCodes, s, dmax float64) (float64, float64) {
	g := d.gc.groups
	const chunk = 256 // margins a chunk, then their bounds
	for a := lo; a < hi; a += chunk {
		b := min(a+chunk, hi)
		dst := d.dst[a:b]
		d.gatherRowMargins(dst, a, rc.from((a-lo)*g))
		bb, sig, cw := d.b[a:b], d.sig[a:b], d.cw[a:b] // y_m = ±1 leaves |δ| unchanged
		for m, am := range dst {
			// The bound of bregmanBound, row m.
			dd := am - bb[m]
			ad := math.Abs(dd)
			dmax = max(dmax, ad)
			s += cw[m] * bregmanRowFactor(ad, sig[m]) * dd * dd
		}
	}
	return s, dmax
}
