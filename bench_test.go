package pairwise

import (
	"math/rand/v2"
	"strconv"
	"testing"
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

// BenchmarkLearnIsingByN measures LearnIsing against n at fixed N = 1e4 and
// bounded degree (issue 21): Ising grids of 500, 1000, 2000 and 5000 nodes
// (20×25, 25×40, 40×50, 50×100; degree at most 4, |A_ij| uniform in
// [0.2, 0.5) with random signs), Gibbs samples, the true λ and η, one
// worker. The time exponent against n between 500 and 5000 is the slope of
// ns/op on log-log axes.
func BenchmarkLearnIsingByN(b *testing.B) {
	const count = 10000
	for _, g := range [][2]int{{20, 25}, {25, 40}, {40, 50}, {50, 100}} {
		m := gridIsing(g[0], g[1], rand.New(rand.NewPCG(uint64(g[0]*g[1]), 21)), 0.2, 0.5)
		grid := "grid=" + strconv.Itoa(g[0]) + "x" + strconv.Itoa(g[1])
		b.Run(grid+"/n="+strconv.Itoa(g[0]*g[1])+"/N="+strconv.Itoa(count), func(b *testing.B) {
			s := benchSamples(b, grid, m, count)
			benchLearn(b, s, LearnIsing, WithWidth(m.Width()), WithMinEdgeWeight(m.MinEdgeWeight()), WithWorkers(1))
		})
	}
}

// BenchmarkLearnKaryDefault measures the tuning-free Learn (no λ, no η) on
// the nominal scale at k > 2, where the per-node fits are followed by the
// edge test's debiased blocks and their covariances (the grouped
// statistic): the paper's 3×3 Potts grid (couplings ±0.2) at k = 4 and 6,
// N = 1e4, and a questionnaire-shaped null, 25 independent items of six
// skewed answers at N = 2500; one worker.
func BenchmarkLearnKaryDefault(b *testing.B) {
	for _, k := range []int{4, 6} {
		m := gridPotts(3, 3, k, 0.2, rand.New(rand.NewPCG(uint64(k), 7)))
		grid := "grid=3x3/k=" + strconv.Itoa(k)
		b.Run(grid+"/N=10000", func(b *testing.B) {
			s := benchSamples(b, grid, m, 10000)
			benchLearn(b, s, Learn, WithScale(Nominal), WithWorkers(1))
		})
	}
	b.Run("items=25/k=6/N=2500", func(b *testing.B) {
		s := skewedNullSamples(b, 25, 6, 2500, rand.New(rand.NewPCG(25, 6)))
		benchLearn(b, s, Learn, WithScale(Nominal), WithWorkers(1))
	})
}
