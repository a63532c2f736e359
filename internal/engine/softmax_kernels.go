package engine

import (
	"math"
	"math/rand/v2"
)

// The softmax's two row kernels on sparse rows (a row is the list of its
// one-hot entries j·k + a, each reading a table row of K' numbers):
//
//	gather:  u = base + Σ_{e ∈ row} tab[e]        (the row's margins)
//	scatter: hist[e] += r  for every e ∈ row       (its residual, into the gradient's cells)
//
// Written with the K' numbers in blocks of eight (then four), held in
// registers across the row's entries (gather8, scatter8, ...: SSE2
// assembly on amd64, two numbers an instruction; Go loops elsewhere or
// with the purego tag; on CPUs with AVX2, blocks of twenty first, the
// K' = 20 of a protein family in one pass, four numbers an instruction),
// so that the gather's sums are never stored until
// the row ends and the scatter loads its residual once a block; addVec, a
// table row added into a slice, reads and writes both for every entry.
// gatherRowRef and scatterRowRef are the explicit loops the tests compare
// them with. Sums are taken in the same order (entry by entry) as the
// explicit loops, so all give the same bits.

// gatherRow sets u = base + Σ_{e ∈ row} tab[e·K : e·K+K], K = len(u). It
// panics, as an index out of range does, if an entry's table row is not
// inside tab.
func gatherRow(u, base, tab []float64, row []uint16) {
	checkRow(tab, row, len(u))
	gatherRowIn(u, base, tab, row)
}

// gatherRowIn is gatherRow for a row whose entries the caller has checked
// (checkRow, or once for all rows as softmaxSparse does): the block
// kernels index without bounds checks.
func gatherRowIn(u, base, tab []float64, row []uint16) {
	K := len(u)
	base = base[:K]
	if len(row) == 0 {
		copy(u, base)
		return
	}
	c := 0
	if useAVX2 {
		for ; c+20 <= K; c += 20 {
			gather20avx(&u[c], &base[c], &tab[c], K*8, row)
		}
	}
	for ; c+8 <= K; c += 8 {
		gather8(&u[c], &base[c], &tab[c], K*8, row)
	}
	if c+4 <= K {
		gather4(&u[c], &base[c], &tab[c], K*8, row)
		c += 4
	}
	for ; c < K; c++ {
		a := base[c]
		for _, e := range row {
			a += tab[int(e)*K+c]
		}
		u[c] = a
	}
}

// scatterRow adds r (K = len(r) numbers) into hist[e·K : e·K+K] for every
// entry e of row. It panics if an entry's cells are not inside hist.
func scatterRow(hist, r []float64, row []uint16) {
	checkRow(hist, row, len(r))
	scatterRowIn(hist, r, row)
}

// scatterRowIn is scatterRow for a row whose entries the caller has
// checked.
func scatterRowIn(hist, r []float64, row []uint16) {
	K := len(r)
	if len(row) == 0 {
		return
	}
	c := 0
	if useAVX2 {
		for ; c+20 <= K; c += 20 {
			scatter20avx(&hist[c], &r[c], K*8, row)
		}
	}
	for ; c+8 <= K; c += 8 {
		scatter8(&hist[c], &r[c], K*8, row)
	}
	if c+4 <= K {
		scatter4(&hist[c], &r[c], K*8, row)
		c += 4
	}
	for ; c < K; c++ {
		v := r[c]
		for _, e := range row {
			hist[int(e)*K+c] += v
		}
	}
}

// checkRow panics unless every entry e of row has its K numbers inside t:
// the block kernels (assembly on amd64) index without bounds checks.
func checkRow(t []float64, row []uint16, K int) {
	mx := uint16(0)
	for _, e := range row {
		mx = max(mx, e)
	}
	if len(row) > 0 && (int(mx)+1)*K > len(t) {
		panic("engine: softmax row entry out of range")
	}
}

// gatherRowRef is gatherRow with explicit loops.
func gatherRowRef(u, base, tab []float64, row []uint16) {
	K := len(u)
	for c := 0; c < K; c++ {
		a := base[c]
		for _, e := range row {
			a += tab[int(e)*K+c]
		}
		u[c] = a
	}
}

// scatterRowRef is scatterRow with explicit loops.
func scatterRowRef(hist, r []float64, row []uint16) {
	K := len(r)
	for _, e := range row {
		for c := 0; c < K; c++ {
			hist[int(e)*K+c] += r[c]
		}
	}
}

// expInPlace sets x[t] = math.Exp(x[t]) for every t, with the same bits:
// four at a time by exp4blocks where useExpAVX is set, math.Exp for the
// rest and for any block of four holding a number outside |x| ≤ 708.
func expInPlace(x []float64) {
	t := 0
	if useExpAVX {
		for t+4 <= len(x) {
			t += 4 * exp4blocks(&x[t], (len(x)-t)/4)
			if t+4 <= len(x) {
				// Stopped at a block with a number out of the kernel's range.
				for e := t; e < t+4; e++ {
					x[e] = math.Exp(x[e])
				}
				t += 4
			}
		}
	}
	for ; t < len(x); t++ {
		x[t] = math.Exp(x[t])
	}
}

// expKernelOK reports whether exp4blocks gives math.Exp's bits on this
// machine, on numbers spread over its range [−708, 708], the softmax's
// usual [−40, 0], halfway points of x·log2(e) where the rounding of the
// exponent decides, and ±0: the kernel repeats the standard library's
// amd64 Exp step by step, and this keeps a change there from changing our
// bits silently (the scalar math.Exp is then used).
func expKernelOK() bool {
	r := rand.New(rand.NewPCG(32, 4))
	xs := make([]float64, 0, 4096)
	for len(xs) < 1024 {
		xs = append(xs, -708+1416*r.Float64(), -40*r.Float64())
	}
	for e := -1000; e <= 1000; e += 7 {
		h := (float64(e) + 0.5) * math.Ln2
		xs = append(xs, h, math.Nextafter(h, 0), math.Nextafter(h, math.Inf(1)))
	}
	xs = append(xs, 0, math.Copysign(0, -1), 708, -708, 1e-300, -1e-300)
	for len(xs)%4 != 0 {
		xs = append(xs, 0)
	}
	got := append([]float64(nil), xs...)
	if exp4blocks(&got[0], len(got)/4) != len(got)/4 {
		return false
	}
	for t, x := range xs {
		if math.Float64bits(got[t]) != math.Float64bits(math.Exp(x)) {
			return false
		}
	}
	return true
}
