package selection

import (
	"encoding/binary"
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise/internal/engine"
)

// The support-model test (wald_support.go) for a subset of the spins
// (issue 33). WaldSupport's moments of a spin j outside the support A are
// sums over the rows of values of column j alone (the sign-pattern sums
// V_c[j], their contraction, g_j), each taken in the same order whatever
// the other columns are. SupportSubset computes them for the columns of A
// and a list of other spins only, with the same arithmetic column by
// column, so that a spin's statistic is the same bits whether it was
// computed with all n spins (the edge test's first pass) or with a few
// (the second pass, which fetches the partner entries of the pairs the
// first pass kept, and Tuning's accessors): TestSupportSubsetExact holds
// the two to equality. Its cost is O(N·(|A| + |js|)) a node, against
// WaldSupport's O(N·n).

// SupportCoefficients returns the number of coefficients of node i's
// regressions in its support model (solution w): the bias, the spins
// with ŵ_j ≠ 0 and the spin tested. The events rule of its statistics
// (EnoughEvents) counts them, and so does the learner's SmallSample
// warning.
func SupportCoefficients(w []float64, i int) float64 {
	c := 2.0
	for j, v := range w {
		if j != i && v != 0 {
			c++
		}
	}
	return c
}

// SupportCoefficientsAt is SupportCoefficients for a solution given by
// the places of its nonzero coefficients (the bias i among them or not):
// the same count without an n-vector (the merge of shards reads the
// solutions so, a node at a time).
func SupportCoefficientsAt(nonzero []int32, i int) float64 {
	c := 2.0
	for _, j := range nonzero {
		if int(j) != i {
			c++
		}
	}
	return c
}

// SupportSubset returns node i's Ising estimates a (Â_ij, the value that
// WaldSupport writes in the form [[a, −a], [−a, a]]) and their standard
// errors sd for the spins js (all n when js is nil; i's own entry is 0),
// and the degrees of freedom of both values of z_i, at the margins u of
// w (u_m = ⟨w, x_m⟩) and the total weight total > 0 of the task's rows.
// js need not be sorted and may hold i or spins of the support.
func SupportSubset(s *Data, task *engine.Task, w, u []float64, total float64, js []int) (a, sd []float64, dof float64) {
	n, i, rows := s.N, task.Bias, len(task.Y)
	cols := []int{i} // A: the bias (x_i = 1), then the support
	for c, v := range w {
		if c != i && v != 0 {
			cols = append(cols, c)
		}
	}
	p := len(cols)
	// all: the columns whose moments are summed, in increasing order; pos
	// maps a column to its place in all.
	var all []int
	pos := make([]int32, n)
	if js == nil {
		all = make([]int, n)
		for c := range all {
			all[c], pos[c] = c, int32(c)
		}
	} else {
		for c := range pos {
			pos[c] = -1
		}
		for _, c := range cols {
			pos[c] = 0
		}
		for _, c := range js {
			pos[c] = 0
		}
		for c, v := range pos {
			if v == 0 {
				pos[c] = int32(len(all))
				all = append(all, c)
			}
		}
	}
	L := len(all)
	size, chunks := engine.Chunking(task.X, rows)
	parts := make([]supportMoments, chunks)
	engine.RunChunks(task.X, chunks, func(c int) {
		lo := c * size
		parts[c] = russianChunk(s, task, cols, all, u, total, lo, min(lo+size, rows))
	})
	ha, ja := make([]float64, p*L), make([]float64, p*L)
	g := make([]float64, L)
	hjj, jjj := 0.0, 0.0
	for _, pt := range parts {
		floats.Add(ha, pt.H)
		floats.Add(ja, pt.J)
		floats.Add(g, pt.G)
		hjj += pt.Hd
		jjj += pt.Jd
	}
	haa, jaa := mat.NewSymDense(p, nil), mat.NewSymDense(p, nil)
	ga := make([]float64, p)
	for x, ca := range cols {
		ga[x] = g[pos[ca]]
		for b := x; b < p; b++ {
			haa.SetSym(x, b, ha[x*L+int(pos[cols[b]])])
			jaa.SetSym(x, b, ja[x*L+int(pos[cols[b]])])
		}
	}
	hinv := invertSym(haa)
	var delta, jh mat.Dense
	delta.Mul(hinv, mat.NewVecDense(p, ga))
	jh.Mul(jaa, hinv)
	dof = total - float64(p+1)
	hc1 := HC1Factor(total, float64(p+1))
	if !EnoughEvents(minorityWeight(task), SupportCoefficients(w, i)) { // p + 1
		dof = 0
	}
	// The values of every column summed, then those asked for.
	va, vs := make([]float64, L), make([]float64, L)
	inA := make([]bool, L)
	for x, c := range cols {
		inA[pos[c]] = true
		if x == 0 {
			continue
		}
		v := 0.0
		for r := 0; r < p; r++ {
			v += hinv.At(x, r) * jh.At(r, x)
		}
		dl := delta.At(x, 0)
		va[pos[c]], vs[pos[c]] = (w[c]-dl)/2, hc1*sandwichSE(v-dl*dl, total)/2
	}
	hAj, jAj, b, jb := make([]float64, p), make([]float64, p), make([]float64, p), make([]float64, p)
	bv, jbv := mat.NewVecDense(p, b), mat.NewVecDense(p, jb)
	hAjv := mat.NewVecDense(p, hAj) // a view of hAj, set column by column
	for t := range all {
		if inA[t] {
			continue
		}
		for x := range cols {
			hAj[x], jAj[x] = ha[x*L+t], ja[x*L+t]
		}
		bv.MulVec(hinv, hAjv)
		sc := hjj - floats.Dot(hAj, b)
		if !(sc > 1e-12*hjj) {
			continue // j lies in the span of A's columns: no test (zero)
		}
		dl := (g[t] - floats.Dot(b, ga)) / sc
		jbv.MulVec(jaa, bv)
		q := (jjj - 2*floats.Dot(b, jAj) + floats.Dot(b, jb)) / (sc * sc)
		va[t], vs[t] = -dl/2, hc1*sandwichSE(q-dl*dl, total)/2
	}
	if js == nil {
		return va, vs, dof
	}
	a, sd = make([]float64, len(js)), make([]float64, len(js))
	for x, c := range js {
		a[x], sd[x] = va[pos[c]], vs[pos[c]]
	}
	return a, sd, dof
}

// SupportNode is SupportSubset with the margins made here (u is scratch of
// one entry a row): nil values and NaN degrees of freedom when the task's
// rows weigh nothing.
func SupportNode(s *Data, task *engine.Task, w, u []float64, js []int) (a, sd []float64, dof float64) {
	rows := len(task.Y)
	total := engine.WeightSum(task.C, rows)
	if !(total > 0) {
		return nil, nil, math.NaN()
	}
	u = u[:rows]
	SupportMargins(s, task.Bias, w, u)
	return SupportSubset(s, task, w, u, total, js)
}

// SupportMargins sets u[m] = ⟨w, x_m⟩ for node i's Ising design on the
// complete samples s (x_mi = 1, the bias; x_mj = ±1) from w's nonzero
// coefficients, in increasing order of the variable: O(N·p) for a support
// of p, where the design's full margins read every variable's codes (12%
// of the support-model test's time at n = 3,000, and most of its second
// pass's, which asks for a few columns). WaldSpinsSupport and SupportNode
// both take their margins here, so the dense and the sparse tests read the
// same bits.
func SupportMargins(s *Data, i int, w, u []float64) {
	var cols []int
	for c, v := range w {
		if v != 0 {
			cols = append(cols, c)
		}
	}
	sr := s.spinRows()
	for m := range u {
		t := 0.0
		for _, c := range cols {
			if c == i {
				t += w[c]
			} else {
				t += w[c] * float64(2*sr.at(m, c)-1)
			}
		}
		u[m] = t
	}
}

// russianChunk returns SupportChunk's moments for the columns all
// (increasing, holding cols) by the method of four Russians on the states'
// bytes (issue 33: the support-model moments were half the default's time
// at n = 3,000). For each group of eight spins of A (as SupportChunk) the
// rows are taken code by code (the pattern c of the group's spins,
// increasing; rows in order within a code), eight at a time: three
// tables of 256 cells hold the sums of α, β and ĉ·s over every subset of
// the eight rows, and each column's eight states, read as the bits of a
// byte, pick one cell of each. So the sums S_c[j] of α (and β) over the
// rows of code c with z_j = 1 cost one look-up a column and eight rows
// where SupportChunk adds a row of n floats three times a row; then
// V_c[j] = 2·S_c[j] − Σ_{m∈c} α_m as x_mj = ±1, and g_j likewise (with
// the first group). A
// column's sums depend on its own states only, in a fixed order, so any
// subset of the columns gives the same bits (TestSupportSubsetExact): all
// n columns (the first pass) go through russianAll, a subset column by
// column here. The states must be 0 or 1 (complete Ising samples, as the
// support model's). Bit samples are read as row-major bits
// (Data.RowBits: a group's eight bytes of states come from 8×8
// transposes of the rows' words, groupBits), never unpacked into bytes:
// the same indexes, so the same sums (TestSupportSubsetBits).
func russianChunk(s *Data, task *engine.Task, cols, all []int, u []float64, total float64, lo, hi int) supportMoments {
	n, i, p, L := s.N, task.Bias, len(cols), len(all)
	sr := s.spinRows()
	sm := supportMoments{H: make([]float64, p*L), J: make([]float64, p*L), G: make([]float64, L)}
	// The rows of weight and, per group, the same rows sorted by code
	// (a stable counting sort: rows in order within a code, as appends
	// code by code would give): pooled, as they are O(N) a call, 50 MB
	// of garbage a node at 10⁵ rows (issue 33).
	sc := russianScratchPool.Get().(*russianScratch)
	defer russianScratchPool.Put(sc)
	rws0 := sc.rows[:0]
	for m := lo; m < hi; m++ {
		ch, sg, alpha, beta := WaldRow(task, u, total, m)
		if ch == 0 {
			continue
		}
		rws0 = append(rws0, rowW{int32(m), alpha, beta, ch * sg})
		sm.Hd += alpha
		sm.Jd += beta
	}
	sc.rows = rws0
	sc.wordList = sc.wordList[:0]
	if L < n && sr.rb != nil {
		// The words (64 spins each) that hold the columns asked for.
		for _, c := range all {
			if wd := int32(c >> 6); len(sc.wordList) == 0 || sc.wordList[len(sc.wordList)-1] != wd {
				sc.wordList = append(sc.wordList, wd)
			}
		}
	}
	if cap(sc.sorted) < len(rws0) {
		sc.sorted = make([]rowW, len(rws0))
		sc.codes = make([]uint8, len(rws0))
	}
	sorted, codeOf := sc.sorted[:len(rws0)], sc.codes[:len(rws0)]
	zero := make([]uint8, n)
	contiguous := L == n // all is 0..n-1
	bias, hasBias := slices.BinarySearch(all, i)
	const per = 8
	var bt *russianBatch
	if contiguous {
		bt = russianBatchPool.Get().(*russianBatch)
		defer russianBatchPool.Put(bt)
	}
	for gr := 0; gr*per < p; gr++ {
		gcols := cols[gr*per : min((gr+1)*per, p)]
		size := len(gcols)
		codes := 1 << size
		withG := gr == 0 // g once, with the first group
		var start [257]int
		for x, rw := range rws0 {
			code := 0
			for t, c := range gcols {
				b := sr.at(int(rw.m), c)
				if c == i {
					b = 1
				}
				code |= b << t
			}
			codeOf[x] = uint8(code)
			start[code+1]++
		}
		for c := 0; c < codes; c++ {
			start[c+1] += start[c]
		}
		byCode := make([][]rowW, codes)
		for c := range byCode {
			byCode[c] = sorted[start[c]:start[c]:start[c+1]]
		}
		for x, rw := range rws0 {
			byCode[codeOf[x]] = append(byCode[codeOf[x]], rw)
		}
		// S_c[j] of α, then of β, made V_c[j] in place below (the
		// layout of SupportChunk's table); pooled, as a node's tables
		// are megabytes at n = 3,000.
		bufp := russianPool.Get().(*[]float64)
		if cap(*bufp) < 2*codes*L {
			*bufp = make([]float64, 2*codes*L)
		}
		tab := (*bufp)[:2*codes*L]
		clear(tab)
		half := codes * L
		sa, sb := tab[:half], tab[half:]
		sumA, sumB := make([]float64, codes), make([]float64, codes)
		sumG := 0.0
		var ta, tb, tg [256]float64
		var rws [8][]uint8
		var ms [8]int32
		// On bit samples a group's bytes of states come from the
		// transposes of the words that hold the columns asked for
		// (groupWords), as russianAll's do from all of them: the same
		// indexes as one bit at a time, for a transpose a word where
		// gathering cost eight loads a column (issue 33: the merge's
		// second pass at 10⁶ rows). A word's transposes cost about four
		// columns' gathers
		// (BenchmarkSupportSubset: 133 spins in A and 150 asked for
		// among 1,000 took 0.46 of the gathers' time, 10 and 20 took 1.27
		// of it), so they are used from four columns a word.
		var xs []uint64
		if !contiguous && sr.rb != nil && L >= 4*len(sc.wordList) {
			xs = sc.words(sr.w)
		}
		if contiguous {
			var g []float64
			if withG {
				g = sm.G
			}
			sumG += russianAll(&sr, byCode, sa, sb, g, sumA, sumB, bt)
		} else {
			for c, rs := range byCode {
				dA, dB := sa[c*L:(c+1)*L], sb[c*L:(c+1)*L]
				for g0 := 0; g0 < len(rs); g0 += 8 {
					grp := rs[g0:min(g0+8, len(rs))]
					russianTables(grp, &sr, zero, &rws, &ms, &ta, &tb, &tg)
					sumA[c] += ta[255]
					sumB[c] += tb[255]
					sumG += tg[255]
					if xs != nil {
						sr.groupWords(xs, &ms, sc.wordList)
					}
					// Column by column (russianAll takes all n at once).
					for t := 0; t < L; t++ {
						col := all[t]
						var idx uint8
						switch {
						case sr.rb == nil:
							idx = rws[0][col] | rws[1][col]<<1 | rws[2][col]<<2 | rws[3][col]<<3 |
								rws[4][col]<<4 | rws[5][col]<<5 | rws[6][col]<<6 | rws[7][col]<<7
						case xs != nil:
							idx = uint8(xs[col>>3] >> (8 * uint(col&7)))
						default:
							idx = sr.groupAt(&ms, col)
						}
						dA[t] += ta[idx]
						dB[t] += tb[idx]
						if withG {
							sm.G[t] += tg[idx]
						}
					}
				}
			}
		}
		if hasBias {
			// x_i = 1 in every row: the bias column's sums are the
			// whole sums, whatever z_i (and 2·S − S = S exactly).
			for c := 0; c < codes; c++ {
				sa[c*L+bias], sb[c*L+bias] = sumA[c], sumB[c]
			}
			if withG {
				sm.G[bias] = sumG
			}
		}
		// V_c = 2·S_c − Σ_c α (H's then J's, SupportChunk's layout), g.
		for c := 0; c < codes; c++ {
			va, vb := sa[c*L:(c+1)*L], sb[c*L:(c+1)*L]
			for t := range va {
				va[t] = 2*va[t] - sumA[c]
				vb[t] = 2*vb[t] - sumB[c]
			}
		}
		if withG {
			for t := range sm.G {
				sm.G[t] = 2*sm.G[t] - sumG
			}
		}
		scratch := make([]float64, 2*L)
		waldContract(sm.H[gr*per*L:], L, tab[:half], size, L, false, scratch[:L], scratch[L:])
		waldContract(sm.J[gr*per*L:], L, tab[half:], size, L, false, scratch[:L], scratch[L:])
		russianPool.Put(bufp)
	}
	return sm
}

// russianScratch is russianChunk's O(N) scratch: the rows of weight,
// those rows sorted by code and their codes.
type russianScratch struct {
	rows, sorted []rowW
	codes        []uint8
	// wordList holds the words of a subset's columns (increasing), xs
	// their bytes of states in a group of eight rows (groupWords).
	wordList []int32
	xs       []uint64
}

// words returns the scratch of groupWords for rows of w words.
func (sc *russianScratch) words(w int) []uint64 {
	if cap(sc.xs) < 8*w {
		sc.xs = make([]uint64, 8*w)
	}
	return sc.xs[:8*w]
}

var russianScratchPool = sync.Pool{New: func() any { return new(russianScratch) }}

// rowW is a row of weight and its weights in the support model's sums.
type rowW struct {
	m               int32
	alpha, beta, gs float64
}

// russianRows is the number of row groups (eight rows each) whose tables
// russianAll holds at once: 8 groups' three tables are 48 KB, within a
// core's second-level cache.
const russianRows = 8

// russianBatch is russianAll's scratch: the tables of russianRows groups
// of eight rows and those rows' states.
type russianBatch struct {
	ta, tb, tg [russianRows][256]float64
	rows       [russianRows][8][]uint8
	ms         [russianRows][8]int32
	xs         [russianRows][]uint64
}

var russianBatchPool = sync.Pool{New: func() any { return new(russianBatch) }}

// russianAll is russianChunk's inner loop over all n columns (all =
// 0..n−1): for each code c (rows byCode[c], eight at a time), S_c[j] of α
// into sa[c·n+j], of β into sb, and of ĉ·s into g when g is not nil;
// sumA[c] and sumB[c] get the codes' whole sums and it returns that of
// ĉ·s. It adds, to each cell, the same table entries in the same order
// as russianChunk's loop for a subset of the columns (group after group
// of the code's rows, each cell from 0), so that both give the same bits
// (TestSupportSubsetExact: all n spins go through russianAll, a
// subset through the loop). It keeps four columns' sums in registers
// across russianRows groups where that loop loads and stores them at
// every group: a node's moments over all spins (BenchmarkSupportAll,
// n = 3,000, N = 10⁴, 10 spins in the support) took 0.32 G instructions
// against 0.43 G (cachegrind), the sparse edge test's first pass.
func russianAll(sr *spinRows, byCode [][]rowW, sa, sb, g, sumA, sumB []float64, bt *russianBatch) float64 {
	n := sr.n
	zero := make([]uint8, n) // the rows that a last group lacks
	sumG := 0.0
	var xs [russianRows]uint64
	for c, rs := range byCode {
		dA, dB := sa[c*n:(c+1)*n], sb[c*n:(c+1)*n]
		for b0 := 0; b0 < len(rs); b0 += 8 * russianRows {
			nq := 0
			for g0 := b0; g0 < min(b0+8*russianRows, len(rs)); g0 += 8 {
				grp := rs[g0:min(g0+8, len(rs))]
				ta, tb, tg := &bt.ta[nq], &bt.tb[nq], &bt.tg[nq]
				russianTables(grp, sr, zero, &bt.rows[nq], &bt.ms[nq], ta, tb, tg)
				sumA[c] += ta[255]
				sumB[c] += tb[255]
				sumG += tg[255]
				nq++
			}
			// Each group's bytes of states for all columns, then the sums
			// column by column over the groups.
			blocks := n / 8
			for q := 0; q < nq; q++ {
				if cap(bt.xs[q]) < blocks {
					bt.xs[q] = make([]uint64, blocks)
				}
				if sr.rb == nil {
					russianBytes(bt.xs[q][:blocks], &bt.rows[q])
				} else {
					sr.groupBits(bt.xs[q][:blocks], &bt.ms[q])
				}
			}
			t := 0
			for ; t+8 <= n; t += 8 {
				for q := 0; q < nq; q++ {
					xs[q] = bt.xs[q][t/8]
				}
				for h := 0; h < 8; h += 4 {
					a := dA[t+h : t+h+4 : t+h+4]
					b := dB[t+h : t+h+4 : t+h+4]
					a0, a1, a2, a3 := a[0], a[1], a[2], a[3]
					b0, b1, b2, b3 := b[0], b[1], b[2], b[3]
					if g == nil {
						for q := 0; q < nq; q++ {
							x := xs[q] >> (8 * h)
							ta, tb := &bt.ta[q], &bt.tb[q]
							i0, i1, i2, i3 := uint8(x), uint8(x>>8), uint8(x>>16), uint8(x>>24)
							a0 += ta[i0]
							a1 += ta[i1]
							a2 += ta[i2]
							a3 += ta[i3]
							b0 += tb[i0]
							b1 += tb[i1]
							b2 += tb[i2]
							b3 += tb[i3]
						}
					} else {
						gg := g[t+h : t+h+4 : t+h+4]
						g0, g1, g2, g3 := gg[0], gg[1], gg[2], gg[3]
						for q := 0; q < nq; q++ {
							x := xs[q] >> (8 * h)
							ta, tb, tg := &bt.ta[q], &bt.tb[q], &bt.tg[q]
							i0, i1, i2, i3 := uint8(x), uint8(x>>8), uint8(x>>16), uint8(x>>24)
							a0 += ta[i0]
							a1 += ta[i1]
							a2 += ta[i2]
							a3 += ta[i3]
							b0 += tb[i0]
							b1 += tb[i1]
							b2 += tb[i2]
							b3 += tb[i3]
							g0 += tg[i0]
							g1 += tg[i1]
							g2 += tg[i2]
							g3 += tg[i3]
						}
						gg[0], gg[1], gg[2], gg[3] = g0, g1, g2, g3
					}
					a[0], a[1], a[2], a[3] = a0, a1, a2, a3
					b[0], b[1], b[2], b[3] = b0, b1, b2, b3
				}
			}
			for ; t < n; t++ {
				for q := 0; q < nq; q++ {
					var idx uint8
					if sr.rb == nil {
						rw := &bt.rows[q]
						idx = rw[0][t] | rw[1][t]<<1 | rw[2][t]<<2 | rw[3][t]<<3 |
							rw[4][t]<<4 | rw[5][t]<<5 | rw[6][t]<<6 | rw[7][t]<<7
					} else {
						idx = sr.groupAt(&bt.ms[q], t)
					}
					dA[t] += bt.ta[q][idx]
					dB[t] += bt.tb[q][idx]
					if g != nil {
						g[t] += bt.tg[q][idx]
					}
				}
			}
		}
	}
	return sumG
}

// russianBytes sets xs[b] to the states of columns 8b..8b+7 in the
// eight rows: column 8b+k in byte k, row r in bit r.
func russianBytes(xs []uint64, rows *[8][]uint8) {
	r0, r1, r2, r3, r4, r5, r6, r7 := rows[0], rows[1], rows[2], rows[3], rows[4], rows[5], rows[6], rows[7]
	for b := range xs {
		t := 8 * b
		xs[b] = binary.LittleEndian.Uint64(r0[t:]) | binary.LittleEndian.Uint64(r1[t:])<<1 |
			binary.LittleEndian.Uint64(r2[t:])<<2 | binary.LittleEndian.Uint64(r3[t:])<<3 |
			binary.LittleEndian.Uint64(r4[t:])<<4 | binary.LittleEndian.Uint64(r5[t:])<<5 |
			binary.LittleEndian.Uint64(r6[t:])<<6 | binary.LittleEndian.Uint64(r7[t:])<<7
	}
}

// russianPool holds russianChunk's tables between calls.
var russianPool = sync.Pool{New: func() any { return new([]float64) }}

// russianTables fills the tables of a group of at most eight rows (rowW,
// their weights): ta[x], tb[x] and tg[x] the sums of alpha, beta and gs
// over the rows whose bits x sets (ta[0] = 0), and rows[r] the states of
// row r of the group (zero past its end, whose weights count 0) on byte
// samples, ms[r] its index on bit samples (−1 past the end).
func russianTables(grp []rowW, sr *spinRows, zero []uint8, rows *[8][]uint8, ms *[8]int32, ta, tb, tg *[256]float64) {
	ta[0], tb[0], tg[0] = 0, 0, 0
	n := sr.n
	for r := 0; r < 8; r++ {
		var wa, wb, wg float64
		rows[r], ms[r] = zero, -1
		if r < len(grp) {
			wa, wb, wg = grp[r].alpha, grp[r].beta, grp[r].gs
			m := int(grp[r].m)
			if sr.rb == nil {
				rows[r] = sr.bytes[m*n : (m+1)*n]
			}
			ms[r] = int32(m)
		}
		h := 1 << r
		for x := 0; x < h; x++ {
			ta[h+x] = ta[x] + wa
			tb[h+x] = tb[x] + wb
			tg[h+x] = tg[x] + wg
		}
	}
}

// groupAt returns the states of variable j in the rows ms (row r in bit
// r, 0 for r past the group's end: ms[r] < 0) from row-major bits.
func (r *spinRows) groupAt(ms *[8]int32, j int) uint8 {
	var idx uint8
	for q, m := range ms {
		if m >= 0 {
			idx |= uint8(r.rb[int(m)*r.w+j>>6]>>uint(j&63)&1) << q
		}
	}
	return idx
}

// groupRows returns the row-major words of the rows ms (nil for r past
// the group's end: ms[r] < 0).
func (r *spinRows) groupRows(ms *[8]int32) [8][]uint64 {
	var rows [8][]uint64
	for q, m := range ms {
		if m >= 0 {
			rows[q] = r.rb[int(m)*r.w : (int(m)+1)*r.w]
		}
	}
	return rows
}

// groupBits is russianBytes on row-major bits: xs[b] the states of
// variables 8b..8b+7 in the rows ms (variable 8b+k in byte k, row r in
// bit r, 0 for r past the group's end: ms[r] < 0). Each word of the
// eight rows (64 variables) is cut into its bytes across the rows (a
// transpose of 8×8 bytes), then each byte block transposed as bits.
func (r *spinRows) groupBits(xs []uint64, ms *[8]int32) {
	rows := r.groupRows(ms)
	var a [8]uint64
	for c := 0; 8*c < len(xs); c++ {
		for q := range a {
			a[q] = 0
			if rows[q] != nil {
				a[q] = rows[q][c]
			}
		}
		// a[q] byte k → a[k] byte q.
		for q := 0; q < 4; q++ {
			t := (a[q]>>32 ^ a[q+4]) & 0x00000000ffffffff
			a[q] ^= t << 32
			a[q+4] ^= t
		}
		for _, q := range [4]int{0, 1, 4, 5} {
			t := (a[q]>>16 ^ a[q+2]) & 0x0000ffff0000ffff
			a[q] ^= t << 16
			a[q+2] ^= t
		}
		for q := 0; q < 8; q += 2 {
			t := (a[q]>>8 ^ a[q+1]) & 0x00ff00ff00ff00ff
			a[q] ^= t << 8
			a[q+1] ^= t
		}
		for k := 0; k < 8 && 8*c+k < len(xs); k++ {
			xs[8*c+k] = engine.Transpose8(a[k])
		}
	}
}

// groupWords is groupBits for the words of the rows listed in words
// (increasing): xs[8c+k], for each listed word c, the states of variables
// 8(8c+k)..8(8c+k)+7 in the rows ms; xs holds eight words a word of a
// row, and the others are left as they are. Each listed word's bytes are
// groupBits', to the bit, so a subset of the columns reads the same
// indexes as all of them (TestSupportSubsetBits).
func (r *spinRows) groupWords(xs []uint64, ms *[8]int32, words []int32) {
	rows := r.groupRows(ms)
	for _, c := range words {
		a := transposeBytes(&rows, int(c))
		for k := range a {
			xs[8*int(c)+k] = engine.Transpose8(a[k])
		}
	}
}

// transposeBytes returns word c of the eight rows (nil rows read 0) cut
// into its bytes across the rows: byte q of the result's word k is byte k
// of row q's word (a transpose of 8×8 bytes), for Transpose8 to finish.
// groupBits writes the same steps inline: the call (not inlined) cost the
// first pass about 5% (BenchmarkSupportAll, bits/n=1000: 4.94 → 5.24 ms).
func transposeBytes(rows *[8][]uint64, c int) [8]uint64 {
	var a [8]uint64
	for q := range a {
		if rows[q] != nil {
			a[q] = rows[q][c]
		}
	}
	for q := 0; q < 4; q++ {
		t := (a[q]>>32 ^ a[q+4]) & 0x00000000ffffffff
		a[q] ^= t << 32
		a[q+4] ^= t
	}
	for _, q := range [4]int{0, 1, 4, 5} {
		t := (a[q]>>16 ^ a[q+2]) & 0x0000ffff0000ffff
		a[q] ^= t << 16
		a[q+2] ^= t
	}
	for q := 0; q < 8; q += 2 {
		t := (a[q]>>8 ^ a[q+1]) & 0x00ff00ff00ff00ff
		a[q] ^= t << 8
		a[q+1] ^= t
	}
	return a
}
