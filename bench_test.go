package pairwise

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/mrfkit/pairwise/solve"
)

// Benchmarks, one function per family. Sub-benchmark names give the model
// and its size; samplers report samples/s next to ns/op.

// benchSamplerModels are the models of the sampler benchmarks, by size.
func benchSamplerModels() []samplerTestModel {
	r := func(s uint64) *rand.Rand { return rand.New(rand.NewPCG(s, 99)) }
	return []samplerTestModel{
		{"grid=3x3/k=6", gridPotts(3, 3, 6, 0.2, r(1))}, // the paper's k-ary experiment
		{"diamond/n=50", diamondIsing(50, 0.2)},         // the paper's Ising experiment
		{"grid=10x10/k=2", gridIsing(10, 10, r(2), 0.2, 0.5)},
	}
}

// reportSamples reports the sampling rate of a benchmark that draws count
// samples per iteration.
func reportSamples(b *testing.B, count int) {
	b.ReportMetric(float64(count)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}

// BenchmarkSamplerExactBuild measures NewExactSampler: the elimination order
// and the conditional tables.
func BenchmarkSamplerExactBuild(b *testing.B) {
	for _, bm := range benchSamplerModels() {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := NewExactSampler(bm.m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSamplerExact measures ExactSampler.Sample, count samples per
// iteration, construction excluded.
func BenchmarkSamplerExact(b *testing.B) {
	const count = 10000
	for _, bm := range benchSamplerModels() {
		b.Run(bm.name+"/count="+strconv.Itoa(count), func(b *testing.B) {
			e, err := NewExactSampler(bm.m)
			if err != nil {
				b.Fatal(err)
			}
			src := rand.NewPCG(1, 2)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Sample(src, count); err != nil {
					b.Fatal(err)
				}
			}
			reportSamples(b, count)
		})
	}
}

// BenchmarkSamplerGibbs measures GibbsSampler.Sample with the default
// burn-in, thinning and chains on the 10×10 Ising grid, with one worker and
// with four; the burn-in of the 4 chains is part of every iteration.
func BenchmarkSamplerGibbs(b *testing.B) {
	const count = 1000
	m := gridIsing(10, 10, rand.New(rand.NewPCG(2, 99)), 0.2, 0.5)
	mk := gridPotts(10, 10, 4, 0.2, rand.New(rand.NewPCG(3, 99)))
	for _, bm := range []samplerTestModel{{"grid=10x10/k=2", m}, {"grid=10x10/k=4", mk}} {
		for _, p := range []int{1, 4} {
			b.Run(bm.name+"/count="+strconv.Itoa(count)+"/workers="+strconv.Itoa(p), func(b *testing.B) {
				g, err := NewGibbsSampler(bm.m, GibbsWorkers(p))
				if err != nil {
					b.Fatal(err)
				}
				src := rand.NewPCG(1, 2)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := g.Sample(src, count); err != nil {
						b.Fatal(err)
					}
				}
				reportSamples(b, count)
			})
		}
	}
}

// benchData caches the data sets of the learner benchmarks: drawing 1e5
// samples of a 15×15 grid takes longer than learning from them.
var benchData = map[string]*Samples{}

// benchSamples returns count samples of m, drawn once per name: exact
// samples when the exact sampler accepts m, Gibbs samples (default burn-in
// and thinning) otherwise.
func benchSamples(b *testing.B, name string, m *Model, count int) *Samples {
	b.Helper()
	key := name + "/N=" + strconv.Itoa(count)
	if s, ok := benchData[key]; ok {
		return s
	}
	var smp Sampler
	if es, err := NewExactSampler(m); err == nil {
		smp = es
	} else if smp, err = NewGibbsSampler(m); err != nil {
		b.Fatal(err)
	}
	s, err := smp.Sample(rand.NewPCG(2019, uint64(count)), count)
	if err != nil {
		b.Fatal(err)
	}
	benchData[key] = s
	return s
}

// benchLearn runs learn on s in a b.Loop and reports the rate in
// samples·nodes/s (the work of a sweep of n regressions over N rows; it is
// flat in n and N when the cost is linear in both), the solver iterations
// of one run, and the bytes allocated per sample.
func benchLearn(b *testing.B, s *Samples, learn func(*Samples, ...Option) (*Result, error), opts ...Option) {
	b.Helper()
	b.ReportAllocs()
	var res *Result
	for b.Loop() {
		var err error
		if res, err = learn(s, opts...); err != nil {
			b.Fatal(err)
		}
	}
	iters := 0
	for _, f := range res.Nodes {
		iters += f.Iterations
	}
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(s.TotalWeight()*float64(s.n)/sec, "samples·nodes/s")
	b.ReportMetric(float64(iters), "iters/op")
}

// BenchmarkLearnIsing measures LearnIsing on Ising grids (|A_ij| uniform in
// [0.2, 0.5) with random signs, the models of ../shared/bench) with the true
// λ and η, one worker, for n = 16, 49, 100, 225 and N = 1e3, 1e4, 1e5; and
// the 10×10 grid with two workers.
func BenchmarkLearnIsing(b *testing.B) {
	type icase struct {
		side    int
		count   int
		workers int
	}
	var cases []icase
	for _, side := range []int{4, 7, 10, 15} {
		for _, count := range []int{1000, 10000, 100000} {
			cases = append(cases, icase{side, count, 1})
		}
	}
	cases = append(cases, icase{10, 10000, 2}, icase{10, 100000, 2}, icase{7, 100000, 2})
	for _, c := range cases {
		m := gridIsing(c.side, c.side, rand.New(rand.NewPCG(uint64(c.side), 99)), 0.2, 0.5)
		grid := "grid=" + strconv.Itoa(c.side) + "x" + strconv.Itoa(c.side)
		name := grid + "/n=" + strconv.Itoa(c.side*c.side) + "/N=" + strconv.Itoa(c.count) + "/workers=" + strconv.Itoa(c.workers)
		b.Run(name, func(b *testing.B) {
			s := benchSamples(b, grid, m, c.count)
			benchLearn(b, s, LearnIsing, WithWidth(m.Width()), WithMinEdgeWeight(m.MinEdgeWeight()), WithWorkers(c.workers))
		})
	}
}

// BenchmarkLearnPairwise measures LearnPairwise with the true λ and η on
// k-ary grids (gridPotts, couplings ±0.2 as in the paper's 3×3 experiment):
// the 3×3 grid at k = 2, 4, 6 and N = 1e4, 5e4, the 5×5 grid at k = 4, and
// an alignment-sized problem, n = 50 variables (a 5×10 grid) over k = 21
// states at N = 1e4 (Gibbs samples).
func BenchmarkLearnPairwise(b *testing.B) {
	type pcase struct {
		rows, cols, k int
		counts        []int
		workers       int
	}
	for _, pc := range []pcase{
		{3, 3, 2, []int{10000, 50000}, 1},
		{3, 3, 4, []int{10000, 50000}, 1},
		{3, 3, 6, []int{10000, 50000}, 1},
		{3, 3, 6, []int{50000}, 2},
		{5, 5, 4, []int{10000}, 1},
		{5, 10, 21, []int{10000}, 2},
	} {
		m := gridPotts(pc.rows, pc.cols, pc.k, 0.2, rand.New(rand.NewPCG(uint64(pc.k), 7)))
		grid := "grid=" + strconv.Itoa(pc.rows) + "x" + strconv.Itoa(pc.cols) + "/k=" + strconv.Itoa(pc.k)
		for _, count := range pc.counts {
			b.Run(grid+"/N="+strconv.Itoa(count)+"/workers="+strconv.Itoa(pc.workers), func(b *testing.B) {
				s := benchSamples(b, grid, m, count)
				benchLearn(b, s, LearnPairwise, WithWidth(m.Width()), WithMinEdgeWeight(m.MinEdgeWeight()), WithWorkers(pc.workers))
			})
		}
	}
}

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
			z = encodeSpins(s).x
			ref = solve.Spins{X: z, Cols: kc.n, Bias: 0}
		} else {
			ref = solve.OneHot{Z: s.b8, Groups: kc.n, K: kc.k, Bias: 0}
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
