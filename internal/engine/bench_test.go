package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/mrfkit/pairwise/solve"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// kernelCase is a design shape for the kernel benchmarks: n variables over
// k states, N rows of uniform random states (the kernels' cost does not
// depend on the values).
type kernelCase struct {
	name    string
	n, k, N int
}

var kernelCases = []kernelCase{
	{"ising/n=100/N=10000", 100, 2, 10000},
	{"ising/n=225/N=100000", 225, 2, 100000},
	{"onehot/n=9/k=6/N=16667", 9, 6, 16667},
	{"onehot/n=50/k=21/N=1000", 50, 21, 1000},
}

// reportFlops reports the rate of a kernel in dense-equivalent floating-point
// operations: what the plain kernel, or a BLAS product, executes for the
// same result (2 per row and nonzero feature).
func reportFlops(b *testing.B, flopsPerOp float64) {
	b.ReportMetric(flopsPerOp*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkKernels measures one node's margins X·w and gradient Xᵀr: the
// plain layouts of package solve (the reference), the table kernels of
// codedDesign with tables of at most 16, 256 (the default) or 1024
// entries, and, for the Ising shapes, gonum's Dgemm computing the gradients
// of all n nodes at once, Zᵀ·R (N×n by N×n; what a batched BLAS
// implementation would do), counted per node. All rates are in
// dense-equivalent GFLOP/s, so the table kernels' rate can exceed the
// machine's: they do fewer operations for the same result. Dgemm goes
// through blas64, so it measures the installed BLAS implementation (gonum's
// own unless the program calls blas64.Use).
func BenchmarkKernels(b *testing.B) {
	for _, kc := range kernelCases {
		r := rand.New(rand.NewPCG(1, uint64(kc.n)))
		s := randomSamples(b, kc.N, kc.n, kc.k, r)
		spins := kc.k == 2
		var ref interface {
			Margins(dst, w []float64)
			Gradient(dst, r []float64)
			Dim() int
		}
		var z []float64
		if spins {
			z = encodeSpins(s)
			ref = solve.Spins{X: z, Cols: kc.n, Bias: 0}
		} else {
			ref = solve.OneHot{Z: s.States, Groups: kc.n, K: kc.k, Bias: 0}
		}
		w := make([]float64, ref.Dim())
		g := make([]float64, ref.Dim())
		u := make([]float64, kc.N)
		for j := range w {
			w[j] = r.Float64()
		}
		for m := range u {
			u[m] = r.Float64()
		}
		flops := 2 * float64(kc.N) * float64(kc.n) // n nonzero features a row
		b.Run(kc.name+"/kernel=plain/op=margins", func(b *testing.B) {
			for b.Loop() {
				ref.Margins(u, w)
			}
			reportFlops(b, flops)
		})
		b.Run(kc.name+"/kernel=plain/op=gradient", func(b *testing.B) {
			for b.Loop() {
				ref.Gradient(g, u)
			}
			reportFlops(b, flops)
		})
		for _, limit := range []int{16, 256, 1024} {
			gc := newGroupCodes(s, groupSize(kc.n, kc.k, limit))
			d := newCodedDesign(gc, gc.codes, 0, spins, nil, nil)
			name := kc.name + "/kernel=table" + strconv.Itoa(limit)
			b.Run(name+"/op=margins", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					d.Margins(u, w)
				}
				reportFlops(b, flops)
			})
			b.Run(name+"/op=gradient", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					d.Gradient(g, u)
				}
				reportFlops(b, flops)
			})
		}
		if !spins {
			continue
		}
		// All nodes' gradients at once: G = Zᵀ·R, R holding one residual
		// column per node.
		res := make([]float64, kc.N*kc.n)
		for x := range res {
			res[x] = r.Float64() - 0.5
		}
		za := blas64.General{Rows: kc.N, Cols: kc.n, Stride: kc.n, Data: z}
		ra := blas64.General{Rows: kc.N, Cols: kc.n, Stride: kc.n, Data: res}
		ga := blas64.General{Rows: kc.n, Cols: kc.n, Stride: kc.n, Data: make([]float64, kc.n*kc.n)}
		b.Run(kc.name+"/kernel=dgemm-all-nodes/op=gradient", func(b *testing.B) {
			for b.Loop() {
				blas64.Gemm(blas.Trans, blas.NoTrans, 1, za, ra, 0, ga)
			}
			// One Gemm is n gradients; report the time of one.
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(kc.n), "ns/node")
			reportFlops(b, flops*float64(kc.n))
		})
	}
}

// BenchmarkRowFunctions measures the per-row transcendental passes of the
// fits over 2500 rows of margins N(0, 2²) with random labels (random signs,
// so a branch on the sign is mispredicted half the time, as on real data):
// the exponential (math.Exp against expTable), ln(1 + x) (math.Log1p against
// log1pFast), and the passes that use them, each against its former
// implementation on math's functions (loss: solve.Softplus; curvature:
// solve.Sigmoid; bregman: softplusBregmanRef's branches).
func BenchmarkRowFunctions(b *testing.B) {
	const rows = 2500
	rng := rand.New(rand.NewPCG(1, 2))
	u, y, cw, sig, r, a := make([]float64, rows), make([]float64, rows), make([]float64, rows),
		make([]float64, rows), make([]float64, rows), make([]float64, rows)
	for m := range u {
		u[m] = 2 * rng.NormFloat64()
		y[m] = float64(2*rng.IntN(2) - 1)
		cw[m] = 1.0 / rows
		a[m] = u[m] + 0.3*rng.NormFloat64()
	}
	fastResiduals(r, sig, u, y, cw)
	sink := 0.0
	cases := []struct {
		name string
		f    func() float64
	}{
		{"exp/math", func() float64 {
			s := 0.0
			for _, v := range u {
				s += math.Exp(-math.Abs(v))
			}
			return s
		}},
		{"exp/expTable", func() float64 {
			s := 0.0
			for _, v := range u {
				s += expTable(-math.Abs(v))
			}
			return s
		}},
		{"log1p/math", func() float64 {
			s := 0.0
			for _, v := range sig {
				s += math.Log1p(v)
			}
			return s
		}},
		{"log1p/fast", func() float64 {
			s := 0.0
			for _, v := range sig {
				s += log1pFast(v)
			}
			return s
		}},
		{"loss/math", func() float64 {
			s := 0.0
			for m, v := range u {
				s += cw[m] * solve.Softplus(-y[m]*v)
			}
			return s
		}},
		{"loss/fast", func() float64 { return LogisticLoss(u, y, cw) }},
		{"curvature/math", func() float64 {
			s := 0.0
			for m, v := range u {
				sg := solve.Sigmoid(-y[m] * v)
				s += cw[m] * sg * (1 - sg) * a[m] * a[m]
			}
			return s
		}},
		{"curvature/fast", func() float64 { return Curvature(a, u, y, cw) }},
		{"bregman/math", func() float64 {
			s := 0.0
			for m, v := range a {
				s += cw[m] * softplusBregmanRef(-y[m]*u[m], sig[m], -y[m]*(v-u[m]))
			}
			return s
		}},
		{"bregman/fast", func() float64 { return LogisticBregman(a, u, sig, y, cw) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				sink += c.f()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
		})
	}
	_ = sink
}

// BenchmarkFullGradient measures the screened fits' check, the gradient of
// a node's full Ising design at N = 10^4 rows, three ways: from codes held
// in memory (scatterRows, byte samples), from codes made from the bits as
// the pass goes (scatterBlockRows), and from the bits by row tables
// (blockSums).
func BenchmarkFullGradient(b *testing.B) {
	for _, n := range []int{500, 1000, 5000} {
		const N = 10000
		r := rand.New(rand.NewPCG(1, uint64(n)))
		s := randomSamples(b, N, n, 2, r)
		bits := &Rows{N: n, K: 2, Count: N, Bits: PackBits(s)}
		per := groupSize(n, 2, 256)
		res := make([]float64, N)
		for m := range res {
			res[m] = r.NormFloat64()
		}
		name := "n=" + strconv.Itoa(n)
		b.Run(name+"/codes", func(b *testing.B) {
			gc := newGroupCodes(s, per)
			d := newCodedDesign(gc, gc.codes, 0, true, nil, nil)
			for b.Loop() {
				d.scatterRows(d.full, res, gc.codes)
			}
		})
		b.Run(name+"/scatterBlockRows", func(b *testing.B) {
			gc := newBitLayout(bits, per)
			var tab [maxCodedTables]float64
			for b.Loop() {
				scatterBlockRows(&tab, res, gc, 0, N)
			}
		})
		b.Run(name+"/blockSums", func(b *testing.B) {
			sums := make([]float64, n)
			for b.Loop() {
				blockSums(sums, res, bits.Bits, n, 0, N)
			}
		})
	}
}

// BenchmarkByteCodes times the working sets' passes (Margins, Gradient)
// over byte codes (codes8) against the same rows' 16-bit codes, for
// working sets of s variables (eight a group) at N = 10^4 rows: the byte
// codes hold half the memory; this is what their offsets cost.
func BenchmarkByteCodes(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 9))
	const rows = 10000
	for _, s := range []int{64, 256, 560} {
		z := randomSamples(b, rows, s, 2, r)
		gc := newGroupCodes(z, 8)
		bc := byteCodes(gc)
		w, g, u := make([]float64, s), make([]float64, s), make([]float64, rows)
		for j := range w {
			w[j] = r.Float64()
		}
		for m := range u {
			u[m] = r.Float64()
		}
		for _, kind := range []string{"uint16", "byte"} {
			d := newCodedDesign(gc, gc.codes, 0, true, nil, nil)
			if kind == "byte" {
				d = newByteDesign(bc, 0, true, nil, nil)
			}
			name := fmt.Sprintf("s=%d/codes=%s", s, kind)
			b.Run(name+"/op=margins", func(b *testing.B) {
				for b.Loop() {
					d.Margins(u, w)
				}
			})
			b.Run(name+"/op=gradient", func(b *testing.B) {
				for b.Loop() {
					d.Gradient(g, u)
				}
			})
		}
	}
}
