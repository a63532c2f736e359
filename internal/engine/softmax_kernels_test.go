package engine

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestSoftmaxRowKernels checks gatherRow and scatterRow against their
// explicit loops, bit for bit (both sum entry by entry in the row's order),
// for K' that exercise the AVX2 blocks of twenty, the blocks of eight, the
// block of four and the remainder, on random tables and rows of random
// distinct entries: on the SSE2 kernels and, where the CPU has AVX2, on
// the AVX2 ones.
func TestSoftmaxRowKernels(t *testing.T) {
	paths := []bool{false}
	if useAVX2 {
		paths = append(paths, true)
	} else {
		t.Log("no AVX2 kernels on this machine: the SSE2 (or Go) path only")
	}
	saved := useAVX2
	defer func() { useAVX2 = saved }()
	for _, avx := range paths {
		useAVX2 = avx
		t.Run("avx2="+strconv.FormatBool(avx), testSoftmaxRowKernels)
	}
}

func testSoftmaxRowKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, K := range []int{1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 16, 20, 21, 24, 28, 40, 41, 45} {
		const cells = 300
		tab := make([]float64, cells*K)
		for x := range tab {
			tab[x] = r.NormFloat64()
		}
		base := make([]float64, K)
		res := make([]float64, K)
		for x := range base {
			base[x], res[x] = r.NormFloat64(), r.NormFloat64()
		}
		hist, histRef := make([]float64, cells*K), make([]float64, cells*K)
		for trial := 0; trial < 20; trial++ {
			row := make([]uint16, 0, 60)
			for _, e := range r.Perm(cells)[:r.IntN(60)] {
				row = append(row, uint16(e))
			}
			u, uRef := make([]float64, K), make([]float64, K)
			gatherRow(u, base, tab, row)
			gatherRowRef(uRef, base, tab, row)
			for c := range u {
				if u[c] != uRef[c] {
					t.Fatalf("K' = %d, row of %d: gather class %d: %v, reference %v", K, len(row), c, u[c], uRef[c])
				}
			}
			scatterRow(hist, res, row)
			scatterRowRef(histRef, res, row)
		}
		for x := range hist {
			if hist[x] != histRef[x] {
				t.Fatalf("K' = %d: scatter cell %d: %v, reference %v", K, x, hist[x], histRef[x])
			}
		}
	}
}

// alignmentRows returns count rows of n variables over k states shaped like
// a protein alignment's: each variable holds its own most frequent state
// with probability 1/2 and copies its left neighbour's offset otherwise
// with probability 1/4 (so neighbours are coupled), else a uniform state;
// about half of a row's entries differ from the reference states, as in
// the families of docs/contacts.
func alignmentRows(n, k, count int, seed uint64) *Rows {
	r := rand.New(rand.NewPCG(seed, uint64(n*k)))
	ref := make([]uint8, n)
	for j := range ref {
		ref[j] = uint8(r.IntN(k))
	}
	z := make([]uint8, count*n)
	for m := 0; m < count; m++ {
		row := z[m*n : (m+1)*n]
		for j := range row {
			switch u := r.Float64(); {
			case u < 0.5:
				row[j] = ref[j]
			case u < 0.75 && j > 0:
				row[j] = uint8((int(row[j-1]) + int(ref[j]) + k - int(ref[j-1])) % k)
			default:
				row[j] = uint8(r.IntN(k))
			}
		}
	}
	return &Rows{N: n, K: k, Count: count, States: z}
}

// BenchmarkSoftmax measures the softmax regression of one node of an
// alignment-shaped sample (k = 21, the gap state 0 left out of the
// classes, ρ = 16, ρ_h = 1 as LearnContacts' default) by size: "eval" is
// one pass of the objective, gradient and gap over the rows; "fit" the
// fit from zero to a gap of 10⁻².
func BenchmarkSoftmax(b *testing.B) {
	for _, sz := range []struct{ n, N int }{{50, 1000}, {100, 4000}, {110, 15000}} {
		s := alignmentRows(sz.n, 21, sz.N, 3)
		name := "n=" + strconv.Itoa(sz.n) + "/N=" + strconv.Itoa(sz.N)
		p := &Softmax{Node: sz.n / 2, First: 1, Ridge: 16, FieldRidge: 1, Tol: 1e-2, MaxIter: 5000}
		dim := SoftmaxDim(sz.n, 21, 1)
		b.Run("eval/"+name, func(b *testing.B) {
			e := testEngine(s, false, p.Tol, new(Work))
			w := make([]float64, dim)
			q := *p
			q.MaxIter = 0
			st, err := e.FitSoftmax(context.Background(), &q, w)
			if err != nil {
				b.Fatal(err)
			}
			r := rand.New(rand.NewPCG(1, 2))
			for x := range w {
				w[x] = 0.1 * r.NormFloat64()
			}
			g := make([]float64, dim)
			b.ReportAllocs()
			for b.Loop() {
				e.softmaxEval(p, w, g, e.Work.sm, st.Weight)
			}
		})
		b.Run("fit/"+name, func(b *testing.B) {
			e := testEngine(s, false, p.Tol, new(Work))
			w := make([]float64, dim)
			iters := 0
			b.ReportAllocs()
			for b.Loop() {
				clear(w)
				st, err := e.FitSoftmax(context.Background(), p, w)
				if err != nil || !st.Converged {
					b.Fatal(st, err)
				}
				iters = st.Iter
			}
			b.ReportMetric(float64(iters), "iter")
		})
		// The l2,1 constraint at half the unconstrained minimiser's
		// norm: the unconstrained fit, then the projected steps.
		b.Run("fit-ball/"+name, func(b *testing.B) {
			e := testEngine(s, false, p.Tol, new(Work))
			w := make([]float64, dim)
			if _, err := e.FitSoftmax(context.Background(), p, w); err != nil {
				b.Fatal(err)
			}
			q := *p
			q.Radius = SoftmaxGroupNorm(w, sz.n, 21, 1, q.Node) / 2
			iters := 0
			b.ReportAllocs()
			for b.Loop() {
				clear(w)
				st, err := e.FitSoftmax(context.Background(), &q, w)
				if err != nil || !st.Converged {
					b.Fatal(st, err)
				}
				iters = st.Iter
			}
			b.ReportMetric(float64(iters), "iter")
		})
	}
}

// TestSoftmaxExp checks expInPlace against math.Exp bit for bit, on the
// four-lane kernel (where the CPU has AVX2 and FMA) and on the scalar
// path, for lengths that leave a tail and for blocks holding numbers the
// kernel leaves to math.Exp (beyond ±708, ±Inf, NaN, subnormal results).
// It fails if the machine could run the kernel but expKernelOK refused it.
func TestSoftmaxExp(t *testing.T) {
	if useAVX2 && hasFMA() && !useExpAVX {
		t.Errorf("AVX2 and FMA present but the four-lane exponential disagrees with math.Exp")
	}
	paths := []bool{false}
	if useExpAVX {
		paths = append(paths, true)
	}
	saved := useExpAVX
	defer func() { useExpAVX = saved }()
	special := []float64{-708.5, -745.1, -800, 709.7, 710, math.Inf(1), math.Inf(-1), math.NaN(), -1e-320, 0}
	r := rand.New(rand.NewPCG(9, 10))
	for _, avx := range paths {
		useExpAVX = avx
		for _, n := range []int{0, 1, 3, 4, 5, 20, 21, 64} {
			for trial := 0; trial < 50; trial++ {
				x := make([]float64, n)
				for e := range x {
					switch u := r.Float64(); {
					case u < 0.05:
						x[e] = special[r.IntN(len(special))]
					case u < 0.5:
						x[e] = -40 * r.Float64()
					default:
						x[e] = -708 + 1416*r.Float64()
					}
				}
				got := append([]float64(nil), x...)
				expInPlace(got)
				for e, v := range x {
					if want := math.Exp(v); math.Float64bits(got[e]) != math.Float64bits(want) && !(math.IsNaN(want) && math.IsNaN(got[e])) {
						t.Fatalf("avx = %v, n = %d: exp(%v) = %v, math.Exp %v", avx, n, v, got[e], want)
					}
				}
			}
		}
	}
}

// TestSoftmaxFitSameBits fits one node's softmax regression (k = 21, the
// gap left out: K' = 20, the AVX2 kernels' block) with the AVX2 row
// kernels and exponential and with the SSE2 kernels and math.Exp, and
// requires the same iterations, objective, gap and coefficients, bit for
// bit.
func TestSoftmaxFitSameBits(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 on this machine: one path only")
	}
	s := alignmentRows(30, 21, 600, 5)
	p := &Softmax{Node: 7, First: 1, Ridge: 16, FieldRidge: 1, Tol: 1e-4, MaxIter: 500}
	dim := SoftmaxDim(30, 21, 1)
	savedA, savedE := useAVX2, useExpAVX
	defer func() { useAVX2, useExpAVX = savedA, savedE }()
	fit := func(avx bool) (SoftmaxStats, []float64) {
		useAVX2, useExpAVX = avx && savedA, avx && savedE
		e := testEngine(s, false, p.Tol, new(Work))
		w := make([]float64, dim)
		st, err := e.FitSoftmax(context.Background(), p, w)
		if err != nil || !st.Converged {
			t.Fatal(st, err)
		}
		return st, w
	}
	st0, w0 := fit(false)
	st1, w1 := fit(true)
	t.Logf("%d iterations, %d passes, gap %.2g", st0.Iter, st0.Evals, st0.Gap)
	if st0.Iter != st1.Iter || st0.Evals != st1.Evals || st0.Objective != st1.Objective || st0.Gap != st1.Gap {
		t.Fatalf("SSE2: %+v, AVX2: %+v", st0, st1)
	}
	for x := range w0 {
		if math.Float64bits(w0[x]) != math.Float64bits(w1[x]) {
			t.Fatalf("coefficient %d: SSE2 %v, AVX2 %v", x, w0[x], w1[x])
		}
	}
}

// TestSoftmaxAxpy32 checks axpy32 (AVX2 where the CPU has it) against its
// Go loop bit for bit, for lengths with and without a tail.
func TestSoftmaxAxpy32(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{0, 1, 3, 4, 7, 8, 33, 1000} {
		x := make([]float32, n)
		y := make([]float64, n)
		for e := range x {
			x[e], y[e] = float32(r.NormFloat64()), r.NormFloat64()
		}
		a := r.NormFloat64()
		got, want := append([]float64(nil), y...), append([]float64(nil), y...)
		axpy32(a, x, got)
		axpy32Ref(a, x, want)
		for e := range got {
			if math.Float64bits(got[e]) != math.Float64bits(want[e]) {
				t.Fatalf("n = %d, entry %d: %v, reference %v", n, e, got[e], want[e])
			}
		}
	}
}
