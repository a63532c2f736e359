package engine

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mrfkit/pairwise/solve"
)

// BenchmarkLongNodes fits the first nodes of a long recording at a fixed
// radius, on the first N rows of a file, for several N (issue 33: the
// fixed fit took 173 times as long at N = 3·10⁵ as at 10⁴). The file is
// PAIRWISE_LONG_FILE, a CSV of ±1 spins without a header, as the study
// writes it; PAIRWISE_LONG_ROWS the row counts, comma-separated (default
// 10000,30000,100000); PAIRWISE_LONG_NODES how many nodes (default 20);
// PAIRWISE_LONG_LAMBDA the width λ (radius 2λ). PAIRWISE_LONG_SPLIT=v
// splits every pass over the rows among two workers from v rows in chunks
// of v (DefaultSplit when "default"); without it one goroutine fits the
// nodes. It reports the process's CPU time a row and node, and the
// screened fits' counts (screenStats) a node: the restricted solves, the
// iterations, the groups read a row by them, the working sets' sizes, the
// fallbacks to the full problem, the solutions' nonzeros and how many lie
// inside the ball; with -test.v it logs a hash of the solutions' bits, to
// compare two builds. It is skipped without the file.
func BenchmarkLongNodes(b *testing.B) {
	path := os.Getenv("PAIRWISE_LONG_FILE")
	lambda, err := strconv.ParseFloat(os.Getenv("PAIRWISE_LONG_LAMBDA"), 64)
	if path == "" || err != nil {
		b.Skip("PAIRWISE_LONG_FILE or PAIRWISE_LONG_LAMBDA not set")
	}
	sizes := []int{10000, 30000, 100000}
	if v := os.Getenv("PAIRWISE_LONG_ROWS"); v != "" {
		sizes = sizes[:0]
		for _, f := range strings.Split(v, ",") {
			x, err := strconv.Atoi(f)
			if err != nil || x <= 0 {
				b.Fatalf("PAIRWISE_LONG_ROWS: %q", f)
			}
			sizes = append(sizes, x)
		}
	}
	nodes := 20
	if v, err := strconv.Atoi(os.Getenv("PAIRWISE_LONG_NODES")); err == nil && v > 0 {
		nodes = v
	}
	split, workers := Split{Min: math.MaxInt, Chunk: math.MaxInt}, 1
	switch v := os.Getenv("PAIRWISE_LONG_SPLIT"); v {
	case "":
	case "default":
		split, workers = DefaultSplit, 2
	default:
		x, err := strconv.Atoi(v)
		if err != nil || x <= 0 {
			b.Fatalf("PAIRWISE_LONG_SPLIT: %q", v)
		}
		split, workers = Split{Min: x, Chunk: x}, 2
	}
	states, n := readSpinCSV(b, path, sizes)
	for _, count := range sizes {
		rows := &Rows{N: n, K: 2, Count: count, States: states[:count*n]}
		rows = &Rows{N: n, K: 2, Count: count, Bits: PackBits(rows)}
		b.Run(fmt.Sprintf("N=%d", count), func(b *testing.B) {
			d := NewData(rows, Backend{Fast: true}, true, workers, split)
			defer d.Stop()
			wk := new(Work)
			e := &Driver{Backend: Backend{Fast: true}, Data: d, Settings: defaultLongSettings, Work: wk}
			var cpu time.Duration
			var iters, nnz, inside float64
			sum := fnv.New64a()
			for b.Loop() {
				wk.scr.stats = screenStats{}
				iters, nnz, inside = 0, 0, 0
				before := cpuTime()
				for i := range min(nodes, n) {
					t := e.SpinTask(i)
					w := make([]float64, n)
					st, err := e.Fit(context.Background(), &t, t.C, 2*lambda, w)
					if err != nil {
						b.Fatal(err)
					}
					iters += float64(st.Iterations)
					for _, v := range w {
						binary.Write(sum, binary.LittleEndian, math.Float64bits(v))
					}
					l1 := 0.0
					for _, v := range w {
						if v != 0 {
							nnz++
						}
						l1 += math.Abs(v)
					}
					if l1 < 2*lambda*(1-1e-6) {
						inside++ // the constraint does not bind
					}
				}
				cpu += cpuTime() - before
			}
			// The solutions' bits, to compare two builds (go test -v).
			b.Logf("N=%d: solutions' FNV-64a %016x", count, sum.Sum64())
			st, k := wk.scr.stats, float64(min(nodes, n))
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/k/float64(count), "cpu-ns/row/node")
			b.ReportMetric(float64(st.rounds)/k, "rounds/node")
			b.ReportMetric(float64(st.iters)/k, "iters/node")
			b.ReportMetric(float64(st.groupIters)/k, "group-iters/node")
			b.ReportMetric(float64(st.finalSet)/k, "set/node")
			b.ReportMetric(float64(st.whole)/k, "whole/node")
			b.ReportMetric(iters/k, "all-iters/node")
			b.ReportMetric(nnz/k, "nonzero/node")
			b.ReportMetric(inside/k, "inside/node")
			if st.groupIters > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(st.groupIters)/float64(count), "cpu-ns/row/group-iter")
			}
		})
	}
}

// defaultLongSettings are the library's default stopping rule
// (DefaultTolerance 1e-6 and DefaultMaxIterations).
var defaultLongSettings = solve.Settings{Tol: 1e-6, MaxIter: 20000}

// cpuTime returns the process's user and system time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// readSpinCSV reads the first max(sizes) rows of a CSV of ±1 spins as
// states 0/1, row after row, and the number of columns.
func readSpinCSV(b *testing.B, path string, sizes []int) ([]uint8, int) {
	most := 0
	for _, s := range sizes {
		most = max(most, s)
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	var states []uint8
	n, rows := 0, 0
	for rows < most && sc.Scan() {
		line := sc.Text()
		cols := 0
		for _, fld := range strings.Split(line, ",") {
			switch strings.TrimSpace(fld) {
			case "1":
				states = append(states, 1)
			case "-1":
				states = append(states, 0)
			default:
				b.Fatalf("%s: row %d: %q is not a spin", path, rows+1, fld)
			}
			cols++
		}
		if n == 0 {
			n = cols
		} else if cols != n {
			b.Fatalf("%s: row %d has %d columns, want %d", path, rows+1, cols, n)
		}
		rows++
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	if rows < most {
		b.Fatalf("%s: %d rows, want %d", path, rows, most)
	}
	return states, n
}
