package pairwise

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// Benchmarks, one function per family. Sub-benchmark names give the model
// and its size; samplers report samples/s next to ns/op.

// benchSamplerModel is a model of a given size for the sampler benchmarks.
type benchSamplerModel struct {
	name string
	m    *Model
}

func benchSamplerModels() []benchSamplerModel {
	r := func(s uint64) *rand.Rand { return rand.New(rand.NewPCG(s, 99)) }
	return []benchSamplerModel{
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
	for _, bm := range []benchSamplerModel{{"grid=10x10/k=2", m}, {"grid=10x10/k=4", mk}} {
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
