package main

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise"
)

// largeVars is the number of variables of the generated files: a 10×10
// Ising grid.
const largeVars = 100

// writeLargeCSV writes rows exact samples of a 10×10 Ising grid (couplings
// |A_ij| uniform in [0.2, 0.4] with random signs, no field) to a CSV file of
// states 0/1 with a header, 2 bytes a value, and returns its path. The
// samples are drawn and written in chunks, so generating needs little
// memory.
func writeLargeCSV(b *testing.B, dir string, rows int) string {
	b.Helper()
	r := rand.New(rand.NewPCG(10, 10))
	a := mat.NewSymDense(largeVars, nil)
	for v := 0; v < largeVars; v++ {
		for _, u := range []int{v + 1, v + 10} {
			if (u == v+1 && v%10 == 9) || u >= largeVars {
				continue
			}
			w := 0.2 + 0.2*r.Float64()
			if r.IntN(2) == 0 {
				w = -w
			}
			a.SetSym(v, u, w)
		}
	}
	m, err := pairwise.NewIsing(a, nil)
	if err != nil {
		b.Fatal(err)
	}
	e, err := pairwise.NewExactSampler(m)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "large.csv")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	names := defaultNames(largeVars)
	fmt.Fprintln(w, strings.Join(names, ","))
	src := rand.NewPCG(1, 2)
	line := make([]byte, 0, 2*largeVars)
	var row []int
	for done := 0; done < rows; {
		c := min(1<<14, rows-done)
		s, err := e.Sample(src, c)
		if err != nil {
			b.Fatal(err)
		}
		for m := 0; m < c; m++ {
			row = s.Row(row, m)
			line = line[:0]
			for i, v := range row {
				if i > 0 {
					line = append(line, ',')
				}
				line = strconv.AppendInt(line, int64(v), 10)
			}
			line = append(line, '\n')
			w.Write(line)
		}
		done += c
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	return path
}

// procStatus returns a field of /proc/self/status in bytes (Linux).
func procStatus(field string) (int64, bool) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// memPeak measures the memory of f: the peak resident set size of the
// process while f runs (VmHWM after resetting it through
// /proc/self/clear_refs) above the resident size before, and the peak of
// the Go heap's live and not yet collected objects, sampled every
// millisecond. ok is false where /proc cannot do this.
func memPeak(f func()) (rss, heap int64, ok bool) {
	runtime.GC()
	debug.FreeOSMemory()
	before, ok1 := procStatus("VmRSS")
	ok2 := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	var peakHeap int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// runtime/metrics reads the heap without stopping the world, as
		// runtime.ReadMemStats would every millisecond, which delays the
		// collector and inflates the very peak being measured.
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peakHeap = max(peakHeap, int64(sample[0].Value.Uint64()))
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(stop)
	wg.Wait()
	hwm, ok3 := procStatus("VmHWM")
	return hwm - before, peakHeap, ok1 && ok2 && ok3
}

// BenchmarkLargeCSV measures time and peak memory of reading and learning
// from a generated CSV file of rows × 100 binary variables (2 bytes a value
// in the file, 1 byte a value in compact Samples). It reports the peak
// resident memory above the process's size before the run, and the peak Go
// heap, each as a multiple of the compact size rows×100 bytes:
//
//   - read: pairwise.ReadCSV (every row kept);
//   - read-merge: pairwise.ReadCSVCompact (identical rows merged);
//   - learn: the command "pairwise learn" with -lambda and -eta (the
//     paper's algorithm), run to convergence;
//   - learn-default: "pairwise learn" without them (λ and η chosen from
//     the data).
//
// Both learn stages use the command's defaults otherwise (all cores; from
// 2^18 rows the workers split the rows of each regression rather than the
// nodes, see the package's rowsplit.go). Run the largest size alone, once,
// for example
//
//	go test ./cmd/pairwise -run '^$' -bench 'LargeCSV/rows=1000000' -benchtime 1x
//
// which writes a 200 MB file into a temporary directory and takes about
// five minutes on 2 cores, most of it in learn-default.
func BenchmarkLargeCSV(b *testing.B) {
	for _, rows := range []int{10000, 100000, 1000000} {
		b.Run("rows="+strconv.Itoa(rows), func(b *testing.B) {
			path := writeLargeCSV(b, b.TempDir(), rows)
			compact := float64(rows * largeVars)
			for _, stage := range []struct {
				name string
				run  func() error
			}{
				{"read", func() error { return readFile(path, pairwise.ReadCSV) }},
				{"read-merge", func() error { return readFile(path, pairwise.ReadCSVCompact) }},
				{"learn", func() error {
					return learnQuiet("-lambda", "1.6", "-eta", "0.2", path)
				}},
				{"learn-default", func() error { return learnQuiet(path) }},
			} {
				b.Run(stage.name, func(b *testing.B) {
					b.ReportAllocs()
					var rss, heap int64
					ok := true
					for b.Loop() {
						var err error
						r, h, o := memPeak(func() { err = stage.run() })
						if err != nil {
							b.Fatal(err)
						}
						rss, heap, ok = max(rss, r), max(heap, h), ok && o
					}
					b.ReportMetric(float64(heap)/compact, "heap/compact")
					if ok {
						b.ReportMetric(float64(rss)/compact, "rss/compact")
						b.ReportMetric(float64(rss)/1e6, "rss-MB")
					}
				})
			}
		})
	}
}

// learnQuiet runs "pairwise learn -quiet -o /dev/null" with args.
func learnQuiet(args ...string) error {
	args = append([]string{"learn", "-quiet", "-o", os.DevNull}, args...)
	if code := run(args, io.Discard, io.Discard); code != 0 {
		return fmt.Errorf("exit code %d", code)
	}
	return nil
}

func readFile(path string, read func(io.Reader) (*pairwise.Samples, error)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	s, err := read(f)
	if err != nil {
		return err
	}
	runtime.KeepAlive(s)
	return nil
}
