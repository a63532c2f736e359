package main

import (
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScaling runs the scaling command on made-up benchmark lines whose
// times follow exact power laws, time = c·N^0.5·n^1.5 for the Ising grids
// and c·k^2 for the 3×3 Potts grid, so that the least-squares exponents it
// prints must be those powers (to the four decimals of the ns/op values'
// rounding, far below the two decimals printed). Lines of other benchmarks,
// and a second-worker line, must be skipped by the fits but kept in the CSV
// when they are learner lines.
func TestScaling(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("goos: linux\nBenchmarkKernel/ising/n=100/N=10000-2 \t 10 \t 12345 ns/op\n")
	lines := 0
	for _, side := range []int{4, 7} {
		for _, N := range []int{1000, 10000, 100000} {
			ns := 1e3 * math.Sqrt(float64(N)) * math.Pow(float64(side*side), 1.5)
			fmt.Fprintf(&b, "BenchmarkLearnIsing/grid=%dx%d/n=%d/N=%d/workers=1-2 \t 1 \t %.1f ns/op \t 12 iters/op \t %d B/op\n", side, side, side*side, N, ns, 100*N)
			lines++
		}
	}
	for _, k := range []int{2, 4, 6} {
		fmt.Fprintf(&b, "BenchmarkLearnPairwise/grid=3x3/k=%d/N=10000/workers=1-2 \t 1 \t %.1f ns/op\n", k, 1e6*float64(k*k))
		lines++
	}
	b.WriteString("BenchmarkLearnPairwise/grid=3x3/k=6/N=10000/workers=2-2 \t 1 \t 1.0 ns/op\n")
	lines++
	in := filepath.Join(dir, "bench.txt")
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	csvPath, pngPath := filepath.Join(dir, "s.csv"), filepath.Join(dir, "s.png")
	out := runOK(t, "scaling", "-in", in, "-csv", csvPath, "-png", pngPath)
	for _, want := range []string{
		"Ising, against N, n = 16: time ∝ N^0.50", "Ising, against N, n = 49: time ∝ N^0.50",
		"Ising, against n, N = 1000: time ∝ n^1.50", "pairwise, against k, 3×3 grid, N = 10000: time ∝ k^2.00",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	csv, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if len(rows) != 1+lines || rows[0] != "family,n,k,N,workers,seconds,bytes_per_op,bytes_per_sample" {
		t.Errorf("CSV has %d lines starting %q, want a header and %d", len(rows), rows[0], lines)
	}
	if !strings.Contains(string(csv), "ising,16,2,1000,1,") || !strings.Contains(string(csv), "pairwise,9,6,10000,2,") {
		t.Errorf("CSV lacks the expected rows:\n%s", csv)
	}
	f, err := os.Open(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("figure: %v", err)
	}

	// Ising lines alone: the pairwise panel stays empty, without failing.
	ising := filepath.Join(dir, "ising.txt")
	os.WriteFile(ising, []byte("BenchmarkLearnIsing/grid=4x4/n=16/N=1000/workers=1-2 \t 1 \t 1000.0 ns/op\n"+
		"BenchmarkLearnIsing/grid=4x4/n=16/N=10000/workers=1-2 \t 1 \t 4000.0 ns/op\n"), 0o644)
	if out := runOK(t, "scaling", "-in", ising, "-csv", csvPath, "-png", pngPath); !strings.Contains(out, "N^0.60") {
		t.Errorf("Ising lines alone: output %q, want the slope log10(4) = 0.60", out)
	}

	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, []byte("PASS\n"), 0o644)
	if code, _, stderr := runCmd(t, "scaling", "-in", empty, "-csv", csvPath, "-png", pngPath); code != 1 || !strings.Contains(stderr, "no BenchmarkLearnIsing") {
		t.Errorf("no benchmark lines: exit %d, stderr %q; want 1 and a message", code, stderr)
	}
}
