package pairwise

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkDefaultFile runs the tuning-free default (no λ, no η) on the file
// named by PAIRWISE_BENCH_FILE (a CSV of spins, as "pairwise learn" reads
// it), one worker, to profile where the default's time goes on a large
// model (issue 21): go test -run '^$' -bench DefaultFile -benchtime 1x
// -cpuprofile cpu.out. It is skipped without the variable. With
// PAIRWISE_BENCH_SPLIT=v the rows are split among the workers from v rows
// in chunks of v.
func BenchmarkDefaultFile(b *testing.B) {
	path := os.Getenv("PAIRWISE_BENCH_FILE")
	if path == "" {
		b.Skip("PAIRWISE_BENCH_FILE not set")
	}
	s := readBenchFile(b, path, CSVOptions{})
	opts := []Option{WithWorkers(benchWorkers())}
	if v, err := strconv.Atoi(os.Getenv("PAIRWISE_BENCH_SPLIT")); err == nil && v > 0 {
		// The rows split among the workers from v rows, in chunks of v
		// (a long recording's path, on a smaller file).
		opts = append(opts, withRowSplit(v, v))
	}
	for b.Loop() {
		res, err := Learn(s, opts...)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(res.Edges)), "edges")
		if st, ok := res.Tuning.sparse.(*sparseStore); ok {
			// The work of MinEdgeWeight's bound (sparseMinThreshold).
			b.ReportMetric(float64(st.stats.open), "open-nodes")
			b.ReportMetric(float64(st.stats.fetched), "fetched-pairs")
			b.ReportMetric(float64(st.stats.suspects), "flagged-pairs")
		}
	}
}

// benchWorkers is PAIRWISE_BENCH_WORKERS (default 1): the workers of
// BenchmarkDefaultFile, so that the profile can match a 2-worker run.
func benchWorkers() int {
	if w, err := strconv.Atoi(os.Getenv("PAIRWISE_BENCH_WORKERS")); err == nil && w > 0 {
		return w
	}
	return 1
}

// readBenchFile reads the file a file benchmark names, as ReadCSVWith
// with o (CSVOptions{Compact: true} is the command's reading), and fails
// the benchmark on an error.
func readBenchFile(b *testing.B, path string, o CSVOptions) *Samples {
	b.Helper()
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	s, err := ReadCSVWith(f, o)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkMergeFile merges the parts that "pairwise learn -shard i/m"
// wrote for the file PAIRWISE_BENCH_FILE, listed (comma-separated) in
// PAIRWISE_BENCH_PARTS, as "pairwise merge -data" does: the file read as
// its distinct rows (CSVOptions.Compact, the command's reading, which the
// parts' fingerprint records), PAIRWISE_BENCH_WORKERS workers. Reading
// is outside the timing; with -cpuprofile it shows where the merge's
// global stage goes (for the tuning-free default past 256 spins, the
// sparse edge test's second pass, cut and bounds, and the global test of
// independence).
func BenchmarkMergeFile(b *testing.B) {
	path, list := os.Getenv("PAIRWISE_BENCH_FILE"), os.Getenv("PAIRWISE_BENCH_PARTS")
	if path == "" || list == "" {
		b.Skip("PAIRWISE_BENCH_FILE or PAIRWISE_BENCH_PARTS not set")
	}
	s := readBenchFile(b, path, CSVOptions{Compact: true})
	var parts []*Partial
	for _, name := range strings.Split(list, ",") {
		pf, err := os.Open(name)
		if err != nil {
			b.Fatal(err)
		}
		p, err := ReadPartial(pf)
		pf.Close()
		if err != nil {
			b.Fatal(err)
		}
		parts = append(parts, p)
	}
	b.ResetTimer()
	for b.Loop() {
		res, err := MergePartialsContext(context.Background(), s, benchWorkers(), parts...)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(res.Edges)), "edges")
	}
}

// BenchmarkIndependenceFile times the global test of independence of the
// tuning-free default's EBIC graph stage on the file PAIRWISE_BENCH_FILE
// (read as the command reads it, its distinct rows, so unit weights) with
// PAIRWISE_BENCH_WORKERS workers: the pair counts of every two spins from
// the packed bits (sparseIndependenceP), O(N·n²/64) popcounts. Reading is
// outside the timing. It reports the p-value's pairs.
func BenchmarkIndependenceFile(b *testing.B) {
	path := os.Getenv("PAIRWISE_BENCH_FILE")
	if path == "" {
		b.Skip("PAIRWISE_BENCH_FILE not set")
	}
	s := readBenchFile(b, path, CSVOptions{Compact: true})
	counts := valueWeights(s)
	for b.Loop() {
		_, pairs := sparseIndependenceP(s, counts, s.TotalWeight(), benchWorkers())
		b.ReportMetric(float64(pairs), "pairs")
	}
}
