// Package openblas measures the Dgemm of BenchmarkKernels (the gradients of
// all n nodes at once, Zᵀ·R with Z and R both N×n) through gonum's blas64
// with gonum's own implementation and with OpenBLAS, via gonum's netlib
// binding (cgo). It is a module of its own so that the library does not
// depend on cgo or netlib. Run it with
//
//	CGO_LDFLAGS=-lopenblas OPENBLAS_NUM_THREADS=1 go test -bench . -benchtime 20x
//
// after apt-get install libopenblas-dev. The rates are comparable with
// BenchmarkKernels' dgemm-all-nodes lines of the main module run at the same
// time.
package openblas

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/netlib/blas/netlib"
)

func BenchmarkDgemmAllNodes(b *testing.B) {
	for _, shape := range []struct{ n, N int }{{100, 10000}, {225, 100000}} {
		r := rand.New(rand.NewPCG(1, uint64(shape.n)))
		z := make([]float64, shape.N*shape.n)
		res := make([]float64, shape.N*shape.n)
		for i := range z {
			z[i] = float64(2*r.IntN(2) - 1)
			res[i] = r.Float64() - 0.5
		}
		za := blas64.General{Rows: shape.N, Cols: shape.n, Stride: shape.n, Data: z}
		ra := blas64.General{Rows: shape.N, Cols: shape.n, Stride: shape.n, Data: res}
		ga := blas64.General{Rows: shape.n, Cols: shape.n, Stride: shape.n, Data: make([]float64, shape.n*shape.n)}
		for _, impl := range []struct {
			name string
			f    blas.Float64
		}{{"gonum", gonum.Implementation{}}, {"openblas", netlib.Implementation{}}} {
			name := "n=" + strconv.Itoa(shape.n) + "/N=" + strconv.Itoa(shape.N) + "/blas=" + impl.name
			b.Run(name, func(b *testing.B) {
				blas64.Use(impl.f)
				defer blas64.Use(gonum.Implementation{})
				for b.Loop() {
					blas64.Gemm(blas.Trans, blas.NoTrans, 1, za, ra, 0, ga)
				}
				flops := 2 * float64(shape.N) * float64(shape.n) * float64(shape.n)
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(shape.n), "ns/node")
			})
		}
	}
}
