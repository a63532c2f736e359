package engine

import (
	"context"
	"errors"
	"math"
	"math/bits"
	"slices"
	"sort"

	"github.com/mrfkit/pairwise/solve"
)

// Working-set screening of the Ising path (issue 21). A node of Algorithm 1
// has a handful of neighbours among n − 1 variables, but every pass of the
// full problem reads all of them, and the majorise–minimise start works in
// the n-dimensional metric of the spins' second moment (O(n²) a product).
// With screening, Driver.Fit solves node i's problem on a working set S of
// variables (the bias, the warm start's support and the largest entries of
// the full gradient), with every other coefficient held at zero, and then
// checks the full problem: one pass over all variables gives the full
// gradient g at the restricted solution w, and the full certificate
//
//	Gap(w) = ⟨g, w⟩ + R·‖g‖_∞ = Gap_S(w) + R·(max_{j∉S} |g_j| − max_{j∈S} |g_j|)₊,
//
// where Gap_S is the restricted problem's, bounds F(w) − F* of the full
// problem (the Frank–Wolfe gap holds for any convex differentiable F on the
// ball). When it is above the tolerance, the variables outside S whose
// |g_j| exceeds the dual bound max_{j∈S} |g_j| by enough to matter join S
// (the largest first) and the restricted problem is solved again from w.
// The Stats that Fit returns are the full problem's: the certificate is
// computed on all variables, never on the restricted problem alone.
//
// While S grows, each restricted problem is solved only to a tenth of the
// full gap that the last check found (its solution is the start of the
// next round); once no variable joins, to half the tolerance.
//
// A restricted problem is the same Regression on a coded design of its
// variables, with the second moment and means of its spins under the
// fit's weights for the majorise–minimise start and the face steps'
// preconditioner: s×s for s variables, where the unscreened path reads the
// n×n moments (O(N·n²) to compute, n² floats to hold). Both come from the
// states held as bits (Data.bitBlocks, N/8 bytes a variable; S's columns
// gathered into the worker's scratch): a moment is a count of differing
// bits, the group codes are transposed bytes, and the gradient at a cold
// start, −½·Σ ĉ_m y_m x_m, is a count too, so that a cold fit's first
// check costs no pass over the rows. The ridge,
// when there is one, is the same term on the restricted coordinates (zero
// elsewhere, so it adds nothing off S). With a row team the restricted
// design splits its passes over the rows too.

// DefaultScreen is the least number of variables from which Driver.Fit
// solves the Ising path's regressions on working sets (see Data.SetScreen).
// Below it, a pass over all variables costs little more than one over a
// working set, and the check passes that screening adds are not repaid:
// on random 4-regular Ising models with N = 1e4 and the paper's λ, all
// nodes fitted with and without screening took 0.8–1.4 times as long at
// n = 200, about the same at n = 300 and two thirds at n = 400.
const DefaultScreen = 400

// Tuning of the working sets.
const (
	// screenStart is the number of variables, beyond the bias and the
	// warm start's support, that the first working set takes from the
	// largest entries of the gradient at the start. Measured in
	// instructions (cachegrind) on 50 nodes of the study's random
	// 4-regular model with n = 5,000, N = 10^4 and the paper's λ: 8 took
	// 4% fewer than 16 in the fits, 4 about 2% fewer than 8; a larger
	// first set (64 to 160) made larger working sets and cost more. At
	// n = 1000, with the checks of the time, 16 was about as fast as 8 to
	// 64, and 10–20% faster than 8 with rounds of n/16.
	screenStart = 8
	// screenGrow and screenAdd bound the variables a later round adds:
	// screenGrow times those already in S, or screenAdd if more. Each
	// round costs a check, a pass over all n variables. While that pass
	// scattered every group's codes (25 ms at n = 5,000, N = 10^4) n/16
	// a round was best; its row tables (blockSums, 2.5 ms) make rounds
	// cheap and large working sets the cost. Instruction counts
	// (cachegrind) on the study's random 4-regular models, N = 10^4, the
	// paper's λ: on 20 nodes at n = 5,000, n/16, n/32, n/40, n/48, n/56,
	// n/64 and n/128 took 9.3, 8.3, 7.7, 6.9, 7.3, 7.2 and 8.4 G (2.6 full
	// checks a node at n/48, and working sets of 183 variables at the
	// end, 330 at n/16); on 50 nodes, a fixed 100 took the same as n/48
	// (17.8 G); on 100 nodes at n = 1,000, 64, 100 and 150 took 25.7,
	// 25.4 and 28.0 G, against 28.1 for n/48 and 26.0 for n/16; at
	// n = 500, 100 took 5% fewer than n/48. What a round should add
	// follows the supports (150 to 300 variables at the paper's λ), not
	// n. screenGrow 1 and 3 were within 1% of 2.
	screenGrow = 2
	screenAdd  = 100
	// screenInner is the fraction of the tolerance to which the last
	// restricted problem is solved, so that the variables outside S
	// have the rest of it.
	screenInner = 0.5
	// screenRel is the fraction of the full gap to which the restricted
	// problem is solved while the working set is still growing: its
	// solution is only the start of the next round.
	screenRel = 0.1
	// screenDense is the fraction of the variables beyond which the
	// working set gives way to the full problem (solved by FISTA without
	// the moments' preconditioner): its moments (s²/2 counts) and codes
	// would cost more than they save. At n = 500 and the paper's λ most
	// nodes' supports hold 100 to 160 variables; with a quarter, four
	// nodes in five fell back and fitted about a fifth slower than with
	// a half.
	screenDense = 0.5
)

// maxScreenSet is the most variables a working set holds: its codes,
// eight variables a group and a table of 256 cells each, must fit
// maxCodedTables (256 groups). A set that would grow past it (n above
// 4,096 with screenDense) gives way to the full problem, as a dense one
// does.
const maxScreenSet = 8 * maxCodedTables / 256

// byteCodesRows is the least number of rows from which a working set's
// codes are bytes (groupCodes.codes8) instead of 16-bit codes: half the
// memory (at n = 5,000 and N = 10^5 a worker's codes are 10 to 30 MB, and
// two workers' codes were most of what the fit held beside the samples),
// for more instructions in the passes, where they read a group's offset
// (cachegrind, the study's 4-regular models at N = 10^4 and the paper's
// λ, all fits on bytes: 10% more at n = 500 over 100 nodes, 3% more at
// n = 5,000 over 50 nodes). Below it the codes of a working set are at
// most 32 MB (256 groups of 2^16 rows) and usually a few.
const byteCodesRows = 1 << 16

// screenMoments is the most variables of a working set for which build
// makes their second moments (s²/2 counts of differing bits, N/64 words
// each), which precondition the face steps of the restricted problems and
// start the cold ones (isingMM). Past it the counts cost more than the
// iterations they save. In instructions (cachegrind) on the study's
// 4-regular models with N = 10^4 and the paper's λ, against moments for
// every working set: at n = 500 (100 nodes) 256 took the same, 128 0.7%
// more, 64 and 32 1.6% fewer; at n = 1,000 (100 nodes) 64 and 32 7.7%
// fewer; at n = 5,000 (50 nodes, working sets of 110 to 500 variables)
// 256, 128, 64, 32 and 16 took 3%, 9%, 13%, 13% and 13% fewer. The
// first working set (the start's 9 variables) keeps them.
const screenMoments = 64

// screenWork is the scratch of the screened fits of a worker.
type screenWork struct {
	cols []int     // the working set S: variables in the order they joined (the bias first)
	pos  []int32   // pos[j]: the index of variable j in cols, −1 outside S
	cov  []float64 // s×s: Σ ĉ_m z_ma z_mb over S, under the fit's weights
	// spare is the buffer the next cov is built in (the last one's
	// entries are copied over).
	spare []float64
	mean  []float64 // Σ ĉ_m z_ma
	covS  int       // the variables cov and mean cover
	colS  int       // the variables build has brought in
	// uniform is the common weight ĉ_m of the fit's rows of nonzero
	// weight, or 0 when those differ (sums of weights are then taken bit
	// by bit); mask has the bits of the rows of nonzero weight, nil when
	// all rows have one. Cross-validation folds weigh their rows 0 or 1.
	uniform float64
	mask    []uint64
	maskBuf []uint64
	xor     []uint64 // scratch of a bit column
	// colBuf holds the bit columns of S's first covS variables, in the
	// order of cols, words of them a variable, for the moments.
	colBuf []uint64
	counts []int // startGradient's counts of differing bits
	gc     groupCodes
	f      []float64
	full   *[maxCodedTables]float64
	ws     []float64 // w on S
	g      []float64 // the full gradient
	cand   []int
	// The reference of boundedCheck: the full gradient gRef and the
	// residuals rRef of the last full check (refOK), of this fit or of an
	// earlier fit of the same problem but for the radius (refData,
	// refBias, refY and refCW say which; see carryReference).
	gRef, rRef  []float64
	refOK       bool
	refData     *Data
	refBias     int
	refY, refCW []float64
	boundRef    float64   // max_{j∈S} |gRef_j| at the reference
	gS          []float64 // the restricted gradient
	suspects    []int
	susSums     []float64 // the suspects' sums of residuals
	bounded     int       // the checks boundedCheck made, for the tests
	stats       screenStats
}

// screenStats counts the work of a worker's screened fits, for the tests
// and benchmarks (BenchmarkLongNodes): the fits, their restricted solves
// (rounds after the first check), the fits that fell back to the full
// problem, the iterations of the restricted solves, those iterations
// weighted by the working set's groups of codes (the table reads a row
// that their passes make, the cost a row of a restricted solve), and the
// working sets' sizes when the fits ended.
type screenStats struct {
	fits, rounds, whole int
	iters, groupIters   int
	finalSet            int
}

// SetScreen sets the least number of variables from which the Ising path's
// regressions are solved on working sets; 0 or less turns screening off.
// NewData sets DefaultScreen. It must be called before the first Fit.
func (d *Data) SetScreen(min int) { d.screenMin = min }

// screens reports whether Fit screens the Ising regressions of d.
func (d *Data) screens() bool {
	return d.gc != nil && d.ising && !d.zero && (d.wide() || d.screenMin > 0 && d.Rows.N >= d.screenMin)
}

// wide reports whether the data have the wide layout (newWideLayout), on
// which every fit is screened. A driver without data (a plain design) has
// none.
func (d *Data) wide() bool { return d != nil && d.gc != nil && d.gc.groups == 0 }

// gatherColumns sets the bit columns of S's variables from a to len(cols)
// in colBuf (words a variable, bit m%64 of word m/64 the state of row m),
// from the blocks of n variables: one pass over the blocks for all of
// them.
func (sw *screenWork) gatherColumns(blocks []uint64, n, words, a int) {
	s := len(sw.cols)
	if cap(sw.colBuf) < s*words {
		// A quarter to spare: at N = 10^5 a column is 12.5 kB, and the
		// largest working sets (600 variables) would hold 7.5 MB unused
		// with a doubling.
		sw.colBuf = append(make([]uint64, 0, s*words+s*words/4), sw.colBuf[:a*words]...)
	}
	sw.colBuf = sw.colBuf[:s*words]
	cols := sw.cols[a:]
	for x := 0; x < words; x++ {
		blk := blocks[x*n : (x+1)*n]
		for t, j := range cols {
			sw.colBuf[(a+t)*words+x] = blk[j]
		}
	}
}

// reset empties the working set for a fit of node bias among n variables
// with normalised row weights cw.
func (sw *screenWork) reset(n, bias int, cw []float64) {
	if cap(sw.pos) < n {
		sw.pos = make([]int32, n)
	}
	sw.pos = sw.pos[:n]
	for j := range sw.pos {
		sw.pos[j] = -1
	}
	sw.cols = sw.cols[:0]
	sw.covS, sw.colS = 0, 0
	sw.uniform, sw.mask = 0, nil
	zeros := false
	for _, v := range cw {
		switch {
		case v == 0:
			zeros = true
		case sw.uniform == 0:
			sw.uniform = v
		case v != sw.uniform:
			sw.uniform = -1
		}
	}
	if sw.uniform < 0 {
		sw.uniform = 0
	}
	if sw.uniform != 0 && zeros {
		words := (len(cw) + 63) / 64
		if cap(sw.maskBuf) < words {
			sw.maskBuf = make([]uint64, words)
		}
		sw.mask = sw.maskBuf[:words]
		clear(sw.mask)
		for m, v := range cw {
			if v != 0 {
				sw.mask[m/64] |= 1 << (m % 64)
			}
		}
	}
	sw.add(bias)
}

// add puts variable j into the working set.
func (sw *screenWork) add(j int) {
	sw.pos[j] = int32(len(sw.cols))
	sw.cols = append(sw.cols, j)
}

// weightOf returns Σ ĉ_m over the rows whose bit is set in the words.
func (sw *screenWork) weightOf(words []uint64, cw []float64) float64 {
	if sw.uniform != 0 {
		return sw.uniform * float64(sw.count(words))
	}
	s := 0.0
	for wd, x := range words {
		for x != 0 {
			s += cw[wd*64+bits.TrailingZeros64(x)]
			x &= x - 1
		}
	}
	return s
}

// count returns the number of rows of nonzero weight whose bit is set in
// the words.
func (sw *screenWork) count(words []uint64) int {
	c := 0
	if sw.mask != nil {
		for x, v := range words {
			c += bits.OnesCount64(v & sw.mask[x])
		}
		return c
	}
	for _, v := range words {
		c += bits.OnesCount64(v)
	}
	return c
}

// startGradient sets g to the gradient at w = 0 of node i's problem when
// the rows' weights take one nonzero value (uniform), from the bit
// columns, and reports whether it did. At 0 every residual is −ĉ_m y_m/2,
// so g_j = −(ĉ/2)·Σ y_m x_mj over the rows of nonzero weight, and with
// y_m x_mj = 1 − 2·(s_mi xor s_mj) that is a count of differing bits:
// N/64 word operations a variable where a pass over the rows costs N
// table updates a group of variables. The counts are exact, so g is the
// pass's up to its rounding.
//
// The blocks are read in order, each counted against variable i's word
// of the block; counts[i] counts i's set bits (i against 0).
func (sw *screenWork) startGradient(g []float64, d *Data, i int) bool {
	if sw.uniform == 0 {
		return false
	}
	blocks := d.bitBlocks()
	n, words := len(g), blockWords(d.Rows.Count)
	if cap(sw.counts) < n {
		sw.counts = make([]int, n)
	}
	counts := sw.counts[:n]
	clear(counts)
	rows := 0 // the rows with y = +1
	for x := 0; x < words; x++ {
		blk := blocks[x*n : (x+1)*n]
		cs := counts[:len(blk)]
		ci := blk[i]
		if sw.mask == nil {
			// Every row counts: the plain xor, four words a step.
			rows += bits.OnesCount64(ci)
			j := 0
			for ; j+4 <= len(blk); j += 4 {
				v := blk[j : j+4 : j+4]
				c := cs[j : j+4 : j+4]
				c[0] += bits.OnesCount64(ci ^ v[0])
				c[1] += bits.OnesCount64(ci ^ v[1])
				c[2] += bits.OnesCount64(ci ^ v[2])
				c[3] += bits.OnesCount64(ci ^ v[3])
			}
			for ; j < len(blk); j++ {
				cs[j] += bits.OnesCount64(ci ^ blk[j])
			}
			continue
		}
		mk := sw.mask[x]
		rows += bits.OnesCount64(ci & mk)
		for j, v := range blk {
			cs[j] += bits.OnesCount64((ci ^ v) & mk)
		}
	}
	all := d.Rows.Count
	if sw.mask != nil {
		all = 0
		for _, v := range sw.mask {
			all += bits.OnesCount64(v)
		}
	}
	h := sw.uniform / 2
	for j := range g {
		if j == i {
			g[j] = -h * float64(2*rows-all)
			continue
		}
		g[j] = -h * float64(all-2*counts[j])
	}
	return true
}

// xorCount returns count of the bits where a and b differ (a ^ b).
func (sw *screenWork) xorCount(a, b []uint64) int {
	b = b[:len(a)]
	c := 0
	if sw.mask != nil {
		m := sw.mask[:len(a)]
		for x, v := range a {
			c += bits.OnesCount64((v ^ b[x]) & m[x])
		}
		return c
	}
	for x, v := range a {
		c += bits.OnesCount64(v ^ b[x])
	}
	return c
}

// xorBuf returns the scratch bit column.
func (sw *screenWork) xorBuf(words int) []uint64 {
	if cap(sw.xor) < words {
		sw.xor = make([]uint64, words)
	}
	return sw.xor[:words]
}

// build brings the restricted data up to the working set: the moments of
// the variables that joined since the last build, from their bit columns,
// while S has at most screenMoments variables, and the group codes of all
// of S.
func (sw *screenWork) build(d *Data, cw []float64) {
	s := len(sw.cols)
	old := sw.colS
	if old == s {
		return
	}
	words, blocks := blockWords(d.Rows.Count), d.bitBlocks()
	sw.colS = s
	if s > screenMoments || sw.covS != old {
		// Past screenMoments variables the moments are not made (nor
		// ever again in this fit): the restricted problems are solved
		// without the face steps' preconditioner.
		sw.encode(blocks, d.Rows.N, words, d.Rows.Count, d.Rows.Count >= d.byteCodesFrom)
		return
	}
	sw.gatherColumns(blocks, d.Rows.N, words, old)
	column := func(a int) []uint64 { return sw.colBuf[a*words : (a+1)*words] }
	// The moments: the old block kept, the new rows and columns computed.
	if cap(sw.spare) < s*s {
		sw.spare = make([]float64, s*s, s*s+s*s/4)
	}
	cov := sw.spare[:s*s]
	for a := 0; a < old; a++ {
		copy(cov[a*s:a*s+old], sw.cov[a*old:(a+1)*old])
	}
	if cap(sw.mean) < s {
		sw.mean = append(make([]float64, 0, 2*s), sw.mean[:old]...)
	}
	sw.mean = sw.mean[:s]
	xor := sw.xorBuf(words)
	for a := old; a < s; a++ {
		za := column(a)
		// With z = 2s − 1: Σ ĉ z_a = 2·Σ ĉ s_a − 1 and z_a z_b =
		// 1 − 2·(s_a xor s_b).
		sw.mean[a] = 2*sw.weightOf(za, cw) - 1
		for b := 0; b <= a; b++ {
			zb := column(b)
			var c float64
			if sw.uniform != 0 {
				// weightOf of the xor, without writing it.
				c = 1 - 2*(sw.uniform*float64(sw.xorCount(za, zb)))
			} else {
				for x := range xor {
					xor[x] = za[x] ^ zb[x]
				}
				c = 1 - 2*sw.weightOf(xor, cw)
			}
			cov[a*s+b], cov[b*s+a] = c, c
		}
	}
	sw.cov, sw.spare, sw.covS = cov, sw.cov, s
	sw.encode(blocks, d.Rows.N, words, d.Rows.Count, d.Rows.Count >= d.byteCodesFrom)
}

// encode sets the group codes (k = 2, eight variables a group) of the
// working set's variables (see groupCodes) from the rows' bit blocks
// (the layout of Rows.Bits over n variables), block by block: a group's
// eight words of a block, gathered from it, are transposed into the codes
// of its 64 rows (blockCodes), a few word operations a code. Reading the
// blocks in order keeps each in the cache while all groups read it, and
// needs no copy of the working set's columns (s·N/8 bytes, 7.8 MB for
// 500 variables at N = 10^5). The codes are bytes (gc.codes8) when bytes
// is set, 16-bit codes with their offsets (gc.codes) otherwise; the
// other is nil.
func (sw *screenWork) encode(blocks []uint64, n, words, count int, bytes bool) {
	s := len(sw.cols)
	const per = 8
	gc := &sw.gc
	gc.n, gc.k, gc.per, gc.rows = s, 2, per, count
	gc.groups = (s + per - 1) / per
	groups := gc.groups
	gc.off = append(gc.off[:0], 0)
	for g := 0; g < groups; g++ {
		gc.off = append(gc.off, gc.off[g]+1<<(min(s, (g+1)*per)-g*per))
	}
	size := count * groups
	var c16 []uint16
	var c8 []uint8
	if bytes {
		if cap(gc.codes8) < size {
			gc.codes8 = make([]uint8, size)
		}
		gc.codes8, gc.codes = gc.codes8[:size], nil
		c8 = gc.codes8
	} else {
		if cap(gc.codes) < size {
			gc.codes = make([]uint16, size)
		}
		gc.codes, gc.codes8 = gc.codes[:size], nil
		c16 = gc.codes
	}
	for x := 0; x < words; x++ {
		blk := blocks[x*n : (x+1)*n]
		for g := 0; g < groups; g++ {
			var ws [per]uint64
			for t, j := range sw.cols[g*per : min(s, (g+1)*per)] {
				ws[t] = blk[j]
			}
			vs := blockCodes(ws[:])
			base := uint16(gc.off[g])
			for b, v := range vs {
				// Row m0+r's code of group g is byte r of v.
				m0 := x*64 + b*8
				if m0 >= count {
					break
				}
				rows := min(8, count-m0)
				if bytes {
					putCodes8(c8[m0*groups+g:], groups, v, rows)
				} else {
					putCodes16(c16[m0*groups+g:], groups, v, base, rows)
				}
			}
		}
	}
}

// putCodes16 sets out[r·stride] = base + byte r of v for the first rows
// bytes of v (at most 8).
func putCodes16(out []uint16, stride int, v uint64, base uint16, rows int) {
	for r := range rows {
		out[r*stride] = base + uint16(v>>(8*r)&0xff)
	}
}

// putCodes8 sets out[r·stride] = byte r of v for the first rows bytes of v
// (at most 8).
func putCodes8(out []uint8, stride int, v uint64, rows int) {
	for r := range rows {
		out[r*stride] = uint8(v >> (8 * r))
	}
}

// Transpose8 transposes the 8×8 bit matrix whose row i is byte i of x
// (bit j its column j): bit j of byte i moves to bit i of byte j (Hacker's
// Delight, section 7-3). The engine's byte codes and the edge test's
// support moments (internal/selection) read bits through it.
func Transpose8(x uint64) uint64 {
	t := (x ^ (x >> 7)) & 0x00aa00aa00aa00aa
	x ^= t ^ (t << 7)
	t = (x ^ (x >> 14)) & 0x0000cccc0000cccc
	x ^= t ^ (t << 14)
	t = (x ^ (x >> 28)) & 0x00000000f0f0f0f0
	return x ^ t ^ (t << 28)
}

// fitScreened solves the Ising regression p of task t (its full coded
// design cd) on working sets from the warm start w, into w, and returns the
// full problem's Stats.
func (e *Driver) fitScreened(ctx context.Context, t *Task, cd *codedDesign, p *Regression, w []float64) (solve.Stats, error) {
	wk := e.Work
	sw := &wk.scr
	n, bias, radius := len(w), t.Bias, p.Radius
	y, cw := p.Y, p.CW
	if nrm := solve.Norm(w, 1); nrm > radius {
		scale := radius / nrm
		for j := range w {
			w[j] *= scale
		}
		ProjectBall(w, 1, radius, nil)
	}
	sw.reset(n, bias, cw)
	sw.refOK = sw.refOK && carryChecks && sw.sameProblem(e.Data, bias, y, cw, p.Ridge)
	// The checks sum the residuals from the bits by row tables, whether
	// the rows came as bits or as bytes (the same sums either way). Set
	// here, not when the design is made: only a screened fit's design
	// has every row (t.Rows == nil) and complete spins (screens).
	cd.bits = e.Data.bitBlocks()
	for j, v := range w {
		if v != 0 && j != bias {
			sw.add(j)
		}
	}
	if len(sw.cols) > maxScreenSet {
		// A start whose support would not fit a working set's codes.
		return FISTA(ctx, p, w, &wk.ws)
	}
	if cap(sw.g) < n {
		sw.g = make([]float64, n)
	}
	g := sw.g[:n]
	if sw.full == nil {
		sw.full = new([maxCodedTables]float64)
	}
	iters := 0
	var last solve.Stats // the last restricted solve's
	final := screenInner * p.Tol
	inner := final // the next restricted solve's tolerance
	for round := 0; ; round++ {
		// The restricted design of S and w on it.
		sw.build(e.Data, cw)
		s := len(sw.cols)
		rd := newCodedDesign(&sw.gc, sw.gc.codes, 0, true, sw.f, sw.full)
		if sw.gc.codes8 != nil {
			rd = newByteDesign(&sw.gc, 0, true, sw.f, sw.full)
		}
		sw.f = rd.f
		if e.Data.team != nil {
			rd.split(e.Data.team, &wk.hist)
		}
		if cap(sw.ws) < s {
			sw.ws = make([]float64, s, 2*s)
		}
		ws := sw.ws[:s]
		for a, j := range sw.cols {
			ws[a] = w[j]
		}
		if round > 0 {
			if err := ctx.Err(); err != nil {
				return solve.Stats{Iterations: iters, Loss: last.Loss, Gap: math.Inf(1)}, err
			}
			// Solve the restricted problem from w.
			q := &Regression{X: rd, Y: y, CW: cw, Radius: radius, Tol: inner,
				MaxIter: p.MaxIter - iters, Trace: float64(s), Ridge: p.Ridge, Free: 0,
				cov: sw.cov, mean: sw.mean, covN: s, bias: 0}
			if sw.covS != s {
				q.cov, q.mean = nil, nil // past screenMoments (build)
			}
			pre := 0
			if p.Ridge == 0 && isZero(ws) && q.cov != nil {
				pre = isingMM(ctx, q, rd, ws, wk)
				q.MaxIter -= pre
			}
			st, err := FISTA(ctx, q, ws, &wk.ws)
			iters += pre + st.Iterations
			sw.stats.rounds++
			sw.stats.iters += pre + st.Iterations
			sw.stats.groupIters += (pre + st.Iterations) * ((s + 7) / 8)
			last = st
			for a, j := range sw.cols {
				w[j] = ws[a]
			}
			if err != nil {
				return solve.Stats{Iterations: iters, Loss: st.Loss, Gap: math.Inf(1)}, err
			}
		}
		// The check: the full gradient at w, one pass over all variables,
		// and the full problem's certificate.
		bufs := wk.ws.rows(len(y))
		u, res, sig := bufs[0], bufs[1], bufs[2]
		cold := isZero(ws)
		if cold {
			clear(u)
		} else {
			rd.Margins(u, ws)
		}
		if !cold || !sw.startGradient(g, e.Data, bias) {
			if !sw.boundedCheck(e.Data, rd, p, g, w, u, res, sig) {
				cd.residualGradient(g, res, sig, u, y, cw)
				p.ridgeGradient(g, w)
				sw.keepReference(e.Data, bias, y, cw, g, res)
			}
		}
		gap := solve.Gap(g, w, 1, radius)
		if math.IsNaN(gap) {
			return solve.Stats{Iterations: iters, Gap: gap}, errors.New("pairwise: the solver produced NaN")
		}
		if gap <= p.Tol || iters >= p.MaxIter || (round > 0 && !last.Converged) {
			sw.stats.fits++
			sw.stats.finalSet += s
			loss := last.Loss // the restricted problem's F at w is the full one's
			if round == 0 {
				loss = rd.loss(u, y, cw) + p.ridgeValue(w)
			}
			return solve.Stats{Iterations: iters, Loss: loss, Gap: gap, Converged: gap <= p.Tol}, nil
		}
		added := sw.grow(g, w, radius, p.Tol, round == 0)
		if added < 0 || (added == 0 && round > 0 && inner == final) {
			// The working set would hold most variables, or (rounding
			// aside, impossible) the full gap exceeds the restricted one
			// with no variable to blame: solve the full problem from w.
			sw.stats.fits++
			sw.stats.whole++
			sw.stats.finalSet += n
			q := *p
			q.MaxIter -= iters
			st, err := FISTA(ctx, &q, w, &wk.ws)
			st.Iterations += iters
			return st, err
		}
		// While the working set grows, its problems are solved only as
		// far as the full gap makes worthwhile; once it stops growing, to
		// the final tolerance.
		inner = final
		if added > 0 {
			inner = max(final, screenRel*gap)
		}
	}
}

// grow adds to the working set the variables outside it that the full
// gradient g at w says the restricted solution misses, those whose |g_j|
// exceeds the dual bound max_{j∈S} |g_j| (after a restricted solve, by
// more than half the slack (tol − Gap_S)/R that the restricted problem
// leaves), the largest first: at most screenStart on the first round (the
// start point), later at most screenGrow·|S| or screenAdd, whichever is
// more. It returns how many joined, or −1, for the full problem to be
// solved whole, when the set would pass screenDense of the variables or
// maxScreenSet.
func (sw *screenWork) grow(g, w []float64, radius, tol float64, first bool) int {
	n := len(g)
	bound, dot := 0.0, 0.0
	for _, j := range sw.cols {
		bound = max(bound, math.Abs(g[j]))
		dot += g[j] * w[j]
	}
	gapS := dot + radius*bound
	thr := bound
	limit := screenStart
	if !first {
		thr += max(tol-gapS, 0) / 2 / radius
		limit = max(limit, screenGrow*len(sw.cols), screenAdd)
	}
	// The candidates, the largest |g_j| first (ties by index), at most
	// limit of them: kept sorted as they come, so that a variable below
	// the limit-th costs one comparison (the first round's candidates are
	// most of the n variables, whose full sort took 1% of a node's
	// instructions at n = 5,000).
	before := func(a, b int) bool {
		ga, gb := math.Abs(g[a]), math.Abs(g[b])
		return ga > gb || ga == gb && a < b
	}
	cand := sw.cand[:0]
	for j, v := range g {
		if sw.pos[j] >= 0 || math.Abs(v) <= thr {
			continue
		}
		if len(cand) == limit && !before(j, cand[limit-1]) {
			continue
		}
		x := sort.Search(len(cand), func(x int) bool { return before(j, cand[x]) })
		if len(cand) < limit {
			cand = append(cand, 0)
		}
		copy(cand[x+1:], cand[x:len(cand)-1])
		cand[x] = j
	}
	sw.cand = cand
	if size := len(sw.cols) + len(cand); float64(size) > screenDense*float64(n) || size > maxScreenSet {
		return -1
	}
	for _, j := range cand {
		sw.add(j)
	}
	return len(cand)
}

// keepReference records the full gradient g and the residuals r of a full
// check as boundedCheck's reference.
func (sw *screenWork) keepReference(d *Data, bias int, y, cw, g, r []float64) {
	sw.gRef = append(sw.gRef[:0], g...)
	sw.rRef = append(sw.rRef[:0], r...)
	sw.refOK = true
	sw.refData, sw.refBias = d, bias
	sw.refY = append(sw.refY[:0], y...)
	sw.refCW = append(sw.refCW[:0], cw...)
	sw.boundRef = 0
	for _, j := range sw.cols {
		sw.boundRef = max(sw.boundRef, math.Abs(g[j]))
	}
}

// boundedCheck sets g to the full gradient at w (margins u on the working
// set's design rd) without a pass over all variables when the reference
// of the last full check allows it, and reports whether it did; res and
// sig receive the residuals at w. With r the residuals at w and r' those
// of the reference, every spin x_mj is ±1, so for each variable
//
//	|g_j − g'_j| = |Σ_m (r_m − r'_m) x_mj| ≤ D = Σ_m |r_m − r'_m|,
//
// and a variable outside S with |g'_j| + D ≤ max_{a∈S} |g_a| can neither
// raise the certificate's ‖g‖_∞ nor join the working set (grow admits only
// variables above that bound): its entry keeps g'_j, exact enough for
// both uses. The others (the suspects) get their exact gradient from
// their bit columns, 2·Σ_{m: s_mj = 1} r_m − Σ_m r_m, by the row tables
// of the full check (columnSums: eight look-ups a 64-row block). On the
// last rounds of a fit, when the working set has stopped growing, D is
// about 1e-4 against bounds of about 5e-3, and a handful of the 1000
// variables of the n = 1000 study are suspects; while the set grows, most
// are, and the full pass is taken (BENCHMARKS.md, Scaling). The
// certificate is the full problem's either way.
func (sw *screenWork) boundedCheck(d *Data, rd *codedDesign, p *Regression, g, w, u, res, sig []float64) bool {
	if !sw.refOK || !boundedChecks {
		return false
	}
	s, n := len(sw.cols), len(g)
	fastResiduals(res, sig, u, p.Y, p.CW)
	dr, rsum := 0.0, 0.0
	for m, r := range res {
		dr += math.Abs(r - sw.rRef[m])
		rsum += r
	}
	// The rounding of the sums of N terms (Σ ĉ_m = 1 bounds |r|'s sum).
	dr += 2 * float64(len(res)) * eps
	if dr >= sw.boundRef {
		return false // every variable would be a suspect
	}
	if cap(sw.gS) < s {
		sw.gS = make([]float64, s)
	}
	gS := sw.gS[:s]
	rd.Gradient(gS, res)
	copy(g, sw.gRef)
	for a, j := range sw.cols {
		g[j] = gS[a]
	}
	p.ridgeGradient(g, w) // w is zero off S
	bound := 0.0
	for _, j := range sw.cols {
		bound = max(bound, math.Abs(g[j]))
	}
	// The suspects' sums cost the row tables (about 32 additions a row)
	// and N/8 look-ups a suspect, a full pass N/8 look-ups a variable:
	// past n/16 suspects the bound has said too little to be worth it.
	limit := max(1, n/16)
	sus := sw.suspects[:0]
	for j, gj := range sw.gRef {
		if sw.pos[j] < 0 && math.Abs(gj)+dr > bound {
			if len(sus) == limit {
				sw.suspects = sus
				return false
			}
			sus = append(sus, j)
		}
	}
	sw.suspects = sus
	if cap(sw.susSums) < len(sus) {
		sw.susSums = make([]float64, len(sus), 2*len(sus))
	}
	sums := sw.susSums[:len(sus)]
	columnSums(sums, sus, res, d.bitBlocks(), n)
	for a, j := range sus {
		g[j] = 2*sums[a] - rsum
	}
	sw.bounded++
	return true
}

// boundedChecks turns boundedCheck on; the tests compare with it off.
var boundedChecks = true

// carryChecks lets a fit's first check use the reference of the last full
// check of an earlier fit of the same problem (sameProblem): the widths of
// a node's selection path (internal/selection, RunPath) and its final fit
// differ only in the radius, and each starts from a solution of another
// width, whose residuals are those of that fit's last checks or close to
// them. boundedCheck's bound |g_j − g'_j| ≤ Σ_m |r_m − r'_m| holds for any
// two points of the same loss, whatever the radius, so the first check of
// the next width costs the working set's gradient and the suspects' sums
// instead of a pass over all variables; when the start is too far from
// the reference the bound says so and the full pass is taken, as within a
// fit. The tests compare with it off.
var carryChecks = true

// sameProblem reports whether the reference was taken on the loss that a
// fit of node bias on d with labels y and normalised weights cw minimises:
// the same data, node, labels and weights (compared by value, so that a
// caller's reused buffers cannot pass for the same problem), and no ridge
// (with one, a variable that left the working set between two fits would
// keep the ridge term of its old coefficient in the reference's gradient,
// which the bound does not cover).
func (sw *screenWork) sameProblem(d *Data, bias int, y, cw []float64, ridge float64) bool {
	return ridge == 0 && sw.refData == d && sw.refBias == bias && len(sw.gRef) == d.Rows.N &&
		slices.Equal(sw.refY, y) && slices.Equal(sw.refCW, cw)
}
