package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mrfkit/pairwise/solve"
)

// TestPackBits checks that PackBits and unpackBits are inverse on row counts
// that end inside and at the end of a 64-row block, and that the bits past
// the last row are 0.
func TestPackBits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, count := range []int{1, 63, 64, 65, 200} {
		s := randomSamples(t, count, 13, 2, r)
		b := PackBits(s)
		if len(b) != blockWords(count)*s.N {
			t.Fatalf("N=%d: %d words, want %d", count, len(b), blockWords(count)*s.N)
		}
		for x := count; x < 64*blockWords(count); x++ {
			for j := range s.N {
				if b[(x/64)*s.N+j]>>(x%64)&1 != 0 {
					t.Fatalf("N=%d: row %d past the end has a bit set", count, x)
				}
			}
		}
		z := unpackBits(b, s.N, count)
		for x := range z {
			if z[x] != s.States[x] {
				t.Fatalf("N=%d: value %d unpacks to %d, want %d", count, x, z[x], s.States[x])
			}
		}
	}
}

// TestEncodeBlockRows checks the codes encoded from bits, and the
// histograms scattered from them, for any range of rows, against
// newGroupCodes on the byte states, encoded row by row (and scatterRows on
// its codes): every group size from 1 to 8 variables (partial last
// groups), ranges that start and end inside a byte and a word of the
// blocks, within one byte, at a byte's ends and across words.
func TestEncodeBlockRows(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, count := range []int{1, 61, 64, 203, 700} {
		s := randomSamples(t, count, 43, 2, r)
		bits := &Rows{N: s.N, K: 2, Count: count, Bits: PackBits(s)}
		for per := 1; per <= 8; per++ {
			want := newGroupCodes(s, per)
			gc := newBitLayout(bits, per)
			if gc.groups != want.groups || fmt.Sprint(gc.off) != fmt.Sprint(want.off) {
				t.Fatalf("N=%d, per %d: groups %d, offsets %v; want %d, %v", count, per, gc.groups, gc.off, want.groups, want.off)
			}
			// Fixed ranges (those past the rows left out) that start and
			// end in the same sub-block, at its ends, in the same and in
			// the next block, then random ones.
			ranges := [][2]int{{3, 5}, {0, 1}, {7, 8}, {3, 8}, {8, 16}, {5, 13}, {61, 67}, {63, 64}, {64, 65}, {13, 130}, {60, 203}}
			for range 5 {
				lo := r.IntN(count)
				hi := lo + 1 + r.IntN(count-lo)
				if r.IntN(3) == 0 {
					lo, hi = 0, count
				}
				ranges = append(ranges, [2]int{lo, hi})
			}
			for _, lh := range ranges {
				lo, hi := lh[0], lh[1]
				if hi > count {
					continue
				}
				got := make([]uint16, (hi-lo)*gc.groups)
				encodeBlockRows(got, gc.blocks, gc, lo, hi)
				for x, c := range got {
					if w := want.codes[lo*gc.groups+x]; c != w {
						t.Fatalf("N=%d, per %d, rows %d..%d: code %d is %d, want %d", count, per, lo, hi, x, c, w)
					}
				}
				// The histograms scattered from the bits and from the
				// codes: the same bits.
				res := make([]float64, count)
				for m := range res {
					res[m] = r.NormFloat64()
				}
				var hb, hc [maxCodedTables]float64
				scatterBlockRows(&hb, res, gc, lo, hi)
				d := newCodedDesign(want, want.codes, 0, true, nil, nil)
				d.scatterRows(&hc, res[lo:hi], want.codes[lo*want.groups:])
				for c := range hb {
					if hb[c] != hc[c] {
						t.Fatalf("N=%d, per %d, rows %d..%d: cell %d is %v, want %v", count, per, lo, hi, c, hb[c], hc[c])
					}
				}
			}
		}
	}
}

// TestBitRowsFitIdentical fits Ising nodes on the same rows given as bytes
// and as bits only: screened (the full design's codes streamed from the
// bits) and unscreened (codes encoded from the bits), with the rows split
// among 1 and 2 workers or not, cold and warm, with a fold's weights (the
// moments' weighted sums) and a ridge. Every solution and its Stats must be
// the same bits: the two representations feed the same sums in the same
// order. A third set of fits holds the working sets' codes as bytes
// (Data.byteCodesFrom 0) on the bits, against 16-bit codes on the bytes,
// and a fourth the wide layout of more than 32,768 spins (no groups: the
// full design's margins from the bits), forced on these 90.
// Under the race detector only the fits split among two workers
// run (see skipUnderRace), on one node.
func TestBitRowsFitIdentical(t *testing.T) {
	s := treeRows(90, 2100, 11)
	bits := &Rows{N: s.N, K: 2, Count: s.Count, Bits: PackBits(s)}
	fold := make([]float64, s.Count)
	for m := range fold {
		if m%5 != 2 {
			fold[m] = 1
		}
	}
	splits := []struct {
		split   Split
		workers int
	}{{DefaultSplit, 1}, {Split{Min: 1000, Chunk: 300}, 1}, {Split{Min: 1000, Chunk: 300}, 2}}
	// screen 2: screened, the working sets' codes bytes (byteCodesFrom 0), on
	// the bits only, so that the bytes are checked against 16-bit codes.
	// screen 3: the wide layout (newWideLayout) forced on the bits.
	for _, screen := range []int{0, 1, 2, 3} {
		for _, sp := range splits {
			for _, ridge := range []float64{0, 30} {
				name := fmt.Sprintf("screen=%d/chunk=%d/workers=%d/ridge=%v", screen, sp.split.Chunk, sp.workers, ridge)
				t.Run(name, func(t *testing.T) {
					if sp.workers == 1 {
						skipUnderRace(t)
					}
					mk := func(rows *Rows) *Driver {
						b := Backend{Fast: true}
						d := NewData(rows, b, true, sp.workers, sp.split)
						d.SetScreen(min(screen, 1))
						if screen == 2 && rows.Bits != nil {
							d.byteCodesFrom = 0
						}
						if screen == 3 && rows.Bits != nil {
							d.gc = newWideLayout(rows.N, rows.Count, rows.Bits)
						}
						return &Driver{Backend: b, Data: d, Settings: solve.Settings{Tol: 1e-8, MaxIter: 20000}, Work: new(Work), Ridge: ridge}
					}
					eb, ep := mk(s), mk(bits)
					defer eb.Data.Stop()
					defer ep.Data.Stop()
					if ep.Data.Rows.States != nil {
						t.Fatal("the bit rows were unpacked")
					}
					nodes := []int{0, 45, 89}
					if raceEnabled {
						nodes = nodes[:1]
					}
					for _, i := range nodes {
						for _, c := range [][]float64{nil, fold} {
							var wb, wp []float64
							for _, radius := range []float64{0.5, 2, 1} {
								var sb, sp solve.Stats
								wb, sb = fitNode(t, eb, i, radius, wb, c)
								wp, sp = fitNode(t, ep, i, radius, wp, c)
								if screen == 3 {
									// The wide design's margins add the
									// variables in another order (bitMargins),
									// so the fits from the bits differ by
									// rounding: both must be certified, and
									// their losses then differ by at most
									// the tolerance of either gap, 1e-8.
									if !sb.Converged || !sp.Converged || math.Abs(sb.Loss-sp.Loss) > 1e-8 {
										t.Fatalf("node %d, radius %v: stats %+v from the wide bits, %+v from bytes", i, radius, sp, sb)
									}
									continue
								}
								if sb != sp {
									t.Fatalf("node %d, radius %v: stats %+v from bits, %+v from bytes", i, radius, sp, sb)
								}
								for j := range wb {
									if wb[j] != wp[j] {
										t.Fatalf("node %d, radius %v, coordinate %d: %v from bits, %v from bytes", i, radius, j, wp[j], wb[j])
									}
								}
							}
						}
					}
					if screen > 0 && ep.Data.gc.codes != nil {
						t.Fatal("the screened fits held the codes of all rows")
					}
				})
			}
		}
	}
}

// BenchmarkBlockRows measures encodeBlockRows and scatterBlockRows on 2100
// rows of 200 binary variables in groups of 8, streamed streamRows rows at
// a time from row 3 (every piece starts and ends inside a sub-block).
func BenchmarkBlockRows(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	s := randomSamples(b, 2100, 200, 2, r)
	gc := newBitLayout(&Rows{N: s.N, K: 2, Count: s.Count, Bits: PackBits(s)}, 8)
	res := make([]float64, s.Count)
	for m := range res {
		res[m] = r.NormFloat64()
	}
	codes := make([]uint16, streamRows*gc.groups)
	b.Run("encode", func(b *testing.B) {
		for b.Loop() {
			for a := 3; a < s.Count; a += streamRows {
				encodeBlockRows(codes, gc.blocks, gc, a, min(a+streamRows, s.Count))
			}
		}
	})
	b.Run("scatter", func(b *testing.B) {
		var tab [maxCodedTables]float64
		for b.Loop() {
			for a := 3; a < s.Count; a += streamRows {
				scatterBlockRows(&tab, res, gc, a, min(a+streamRows, s.Count))
			}
		}
	})
}

// TestBlockSums checks the row tables' sums (blockSums, and columnSums
// against it) against the plain sum of r_m over the rows whose bit is set,
// variable by variable, for ranges that
// start and end inside a block, within a sub-block, at block ends and over
// many blocks; the total against Σ r_m over the range. The two sum in
// different orders, so they agree to rounding: 1e-12 of Σ|r_m| (about 50
// times the worst rounding of 700 terms).
func TestBlockSums(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, count := range []int{1, 63, 64, 65, 700} {
		for _, n := range []int{1, 7, 43} {
			s := randomSamples(t, count, n, 2, r)
			blocks := PackBits(s)
			res := make([]float64, count)
			for m := range res {
				res[m] = r.NormFloat64()
			}
			ranges := [][2]int{{0, count}, {3, 5}, {7, 8}, {63, 64}, {64, 65}, {13, 130}, {60, 203}}
			for range 5 {
				lo := r.IntN(count)
				ranges = append(ranges, [2]int{lo, lo + 1 + r.IntN(count-lo)})
			}
			// columnSums over all rows, of some variables in any order,
			// repeated: the same sums as blockSums's (each variable's
			// terms in the same order).
			all := make([]float64, n)
			blockSums(all, res, blocks, n, 0, count)
			cols := []int{n - 1, 0, n / 2, n - 1}
			colSums := []float64{7, 7, 7, 7, 7} // columnSums sets, not adds
			columnSums(colSums, cols, res, blocks, n)
			for a, j := range cols {
				if colSums[a] != all[j] {
					t.Fatalf("N=%d n=%d: columnSums of variable %d is %v, blockSums %v", count, n, j, colSums[a], all[j])
				}
			}
			for _, lh := range ranges {
				lo, hi := lh[0], lh[1]
				if hi > count {
					continue
				}
				got := make([]float64, n)
				for j := range got {
					got[j] = float64(j) // blockSums adds to what is there
				}
				total := blockSums(got, res, blocks, n, lo, hi)
				scale, wantTotal := 0.0, 0.0
				for m := lo; m < hi; m++ {
					scale += math.Abs(res[m])
					wantTotal += res[m]
				}
				tol := 1e-12 * scale
				if math.Abs(total-wantTotal) > tol {
					t.Fatalf("N=%d n=%d rows %d..%d: total %v, want %v", count, n, lo, hi, total, wantTotal)
				}
				for j := range got {
					want := float64(j)
					for m := lo; m < hi; m++ {
						if s.States[m*n+j] != 0 {
							want += res[m]
						}
					}
					if math.Abs(got[j]-want) > tol {
						t.Fatalf("N=%d n=%d rows %d..%d: variable %d sums %v, want %v", count, n, lo, hi, j, got[j], want)
					}
				}
			}
		}
	}
}

// TestRowTables checks every cell of the eight tables against the sum of
// its subset of rows.
func TestRowTables(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var rr [64]float64
	for i := range rr {
		rr[i] = r.NormFloat64()
	}
	var tab [8][256]float64
	for b := range tab {
		for c := range tab[b] {
			tab[b][c] = math.NaN() // every cell must be written
		}
	}
	rowTables(&tab, &rr)
	for b := range tab {
		for c, got := range tab[b] {
			want := 0.0
			for i := 0; i < 8; i++ {
				if c>>i&1 == 1 {
					want += rr[8*b+i]
				}
			}
			if math.Abs(got-want) > 1e-14 {
				t.Fatalf("table %d cell %d: %v, want %v", b, c, got, want)
			}
		}
	}
}

// scatterBlockRows, the full check's pass before blockSums (kept as the
// reference of TestEncodeBlockRows and BenchmarkFullGradient), adds r_m into the histogram cell of each group's code
// of row m (tab[code_mg] += r_m), for rows lo..hi−1 of gc.blocks, without
// storing the codes: group by group, each eight rows' codes made by a
// transpose (as encodeBlockRows) and used at once. A cell belongs to one
// group, whose rows are visited in increasing order, so every cell
// receives the same additions in the same order as from the codes held
// row by row (scatterRows, residualRows), and the sums are the same bits;
// a group's table (2^per cells) stays in the first-level cache.
func scatterBlockRows(tab *[maxCodedTables]float64, r []float64, gc *groupCodes, lo, hi int) {
	n, per, blocks := gc.n, gc.per, gc.blocks
	for g := 0; g < gc.groups; g++ {
		j0, j1 := g*per, min(n, (g+1)*per)
		base := uint16(gc.off[g])
		for x := lo / 64; x*64 < hi; x++ {
			vs := blockCodes(blocks[x*n+j0 : x*n+j1])
			for b, t := range subBlocks(x, lo, hi) {
				v, r0 := vs[b], x*64+b*8
				if t.all() {
					// uint16 indexes of the 2^16-cell table: no bounds checks.
					rr := r[r0 : r0+8 : r0+8]
					tab[base+uint16(v&0xff)] += rr[0]
					tab[base+uint16(v>>8&0xff)] += rr[1]
					tab[base+uint16(v>>16&0xff)] += rr[2]
					tab[base+uint16(v>>24&0xff)] += rr[3]
					tab[base+uint16(v>>32&0xff)] += rr[4]
					tab[base+uint16(v>>40&0xff)] += rr[5]
					tab[base+uint16(v>>48&0xff)] += rr[6]
					tab[base+uint16(v>>56)] += rr[7]
					continue
				}
				for u := t.lo; u < t.hi; u++ {
					tab[base+uint16(v>>(8*u)&0xff)] += r[r0+u]
				}
			}
		}
	}
}

// TestWideMargins checks the margins of the wide layout (no groups: made
// from the bits by bitMargins) against the coded design's on the same
// rows, alone and split among a team in chunks of 97 rows (which start
// inside a 64-row block), with a w that has zeros: the same sums in another
// order, so within 1e-12 of |w|₁ (the largest a margin can be); and its
// gradient passes, which read the bits as every bit design does, the same
// bits.
func TestWideMargins(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	const n, rows = 90, 1500
	s := randomSamples(t, rows, n, 2, r)
	blocks := PackBits(s)
	gc := newGroupCodes(s, 8)
	w := make([]float64, n)
	norm := 0.0
	for j := range w {
		if r.IntN(3) > 0 {
			w[j] = r.Float64() - 0.5
			norm += math.Abs(w[j])
		}
	}
	res, y, cw, base, sigB := kernelVectors(r, rows)
	for _, workers := range []int{0, 2} {
		var sbuf [][]uint16
		want := newCodedDesign(gc, gc.codes, 5, true, nil, nil)
		want.bits = blocks
		got := newStreamedDesign(newWideLayout(n, rows, blocks), 5, true, nil, nil, &sbuf)
		if workers > 0 {
			splitAll(t, workers, want, got)
		}
		mw, mg := make([]float64, rows), make([]float64, rows)
		want.Margins(mw, w)
		got.Margins(mg, w)
		if e := maxDiff(mw, mg); e > 1e-12*norm {
			t.Errorf("workers %d: margins differ by %g", workers, e)
		}
		hw, rw := want.marginsBound(mw, w, base, sigB, y, cw)
		hg, rg := got.marginsBound(mg, w, base, sigB, y, cw)
		if e := maxDiff(mw, mg); e > 1e-12*norm || math.Abs(hw-hg) > 1e-12*hw || math.Abs(rw-rg) > 1e-12*rw {
			t.Errorf("workers %d: marginsBound (%v, %v), coded (%v, %v), margins by %g", workers, hg, rg, hw, rw, e)
		}
		gw, gg := make([]float64, n), make([]float64, n)
		want.Gradient(gw, res)
		got.Gradient(gg, res)
		for j := range gw {
			if gw[j] != gg[j] {
				t.Fatalf("workers %d: gradient %d = %v, coded design with bits %v", workers, j, gg[j], gw[j])
			}
		}
	}
}
