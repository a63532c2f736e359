package pairwise

import (
	"math"
	"os"
	"strconv"
	"testing"
)

// BenchmarkFixedFile runs the fit with λ and η given (PAIRWISE_BENCH_LAMBDA,
// PAIRWISE_BENCH_ETA) on the file named by PAIRWISE_BENCH_FILE, with
// PAIRWISE_BENCH_WORKERS workers, to profile a long recording (issue 33):
// go test -run '^$' -bench FixedFile -benchtime 1x -cpuprofile cpu.out. It
// is skipped without the variables. PAIRWISE_BENCH_SPLIT=v splits the rows
// among the workers from v rows in chunks of v, as BenchmarkDefaultFile;
// PAIRWISE_BENCH_SPLIT=off never splits them (the nodes are then shared
// among the workers, whatever the number of rows). It reports the solver's
// iterations a node and the time a row and node.
func BenchmarkFixedFile(b *testing.B) {
	path := os.Getenv("PAIRWISE_BENCH_FILE")
	lambda, errL := strconv.ParseFloat(os.Getenv("PAIRWISE_BENCH_LAMBDA"), 64)
	eta, errE := strconv.ParseFloat(os.Getenv("PAIRWISE_BENCH_ETA"), 64)
	if path == "" || errL != nil || errE != nil {
		b.Skip("PAIRWISE_BENCH_FILE, PAIRWISE_BENCH_LAMBDA or PAIRWISE_BENCH_ETA not set")
	}
	s := readBenchFile(b, path, CSVOptions{})
	opts := []Option{WithWorkers(benchWorkers()), WithWidth(lambda), WithMinEdgeWeight(eta)}
	switch v := os.Getenv("PAIRWISE_BENCH_SPLIT"); v {
	case "":
	case "off":
		opts = append(opts, withRowSplit(math.MaxInt, math.MaxInt))
	default:
		rows, err := strconv.Atoi(v)
		if err != nil || rows <= 0 {
			b.Fatalf("PAIRWISE_BENCH_SPLIT=%q: want a number of rows or off", v)
		}
		opts = append(opts, withRowSplit(rows, rows))
	}
	b.ResetTimer()
	for b.Loop() {
		res, err := Learn(s, opts...)
		if err != nil {
			b.Fatal(err)
		}
		iters := 0
		for _, nf := range res.Nodes {
			iters += nf.Iterations
		}
		b.ReportMetric(float64(len(res.Edges)), "edges")
		b.ReportMetric(float64(iters)/float64(len(res.Nodes)), "iters/node")
		// The size of the supports (couplings ≠ 0 a node) and the l1 norm
		// of the couplings (Σ_j |w_j| = 2·Σ_j |Â_ij|, the bias left out):
		// the radius binds when the norm reaches it.
		var supp, l1 float64
		for _, e := range res.est {
			for x := range e.At {
				if a := e.Block(int(e.At[x]))[0]; a != 0 {
					supp++
					l1 += 2 * math.Abs(a)
				}
			}
		}
		b.ReportMetric(supp/float64(len(res.est)), "support/node")
		b.ReportMetric(l1/float64(len(res.est)), "l1/node")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(s.Vars())/float64(s.Len()), "ns/row/node")
}
