package main

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise"
)

// TestTypoChain is issue 31's typo chain: a chain of five binary variables
// (A_{i,i+1} = 0.5, exact samples, N = 5000) with one "2" among its 25,000
// values. Read as a state, the typo made k = 3, left two true edges out and
// exited 0. Without a stated alphabet the command now reads it as missing,
// says so at its line and column, and learns the chain exactly; with the
// alphabet stated (-k 2) the typo is an error at its line and column. Five
// seeds and three places of the typo (a middle, an end variable, the first
// row) are run.
func TestTypoChain(t *testing.T) {
	const n, N = 5, 5000
	a := mat.NewSymDense(n, nil)
	for i := 0; i+1 < n; i++ {
		a.SetSym(i, i+1, 0.5)
	}
	m, err := pairwise.NewIsing(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := pairwise.NewExactSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for seed := uint64(1); seed <= 5; seed++ {
		s, err := ex.Sample(rand.NewPCG(seed, 31), N)
		if err != nil {
			t.Fatal(err)
		}
		for _, at := range [][2]int{{2500, 2}, {4000, 4}, {0, 0}} {
			var b strings.Builder
			for r := 0; r < N; r++ {
				for i := 0; i < n; i++ {
					if i > 0 {
						b.WriteByte(',')
					}
					v := s.At(r, i)
					if r == at[0] && i == at[1] {
						v = 2
					}
					fmt.Fprint(&b, v)
				}
				b.WriteByte('\n')
			}
			name := fmt.Sprintf("chain-%d-%d.csv", seed, at[0])
			path := writeFile(t, dir, name, b.String())
			line, col := at[0]+1, at[1]+1
			code, out, stderr := runCmd(t, "learn", "-quiet", "-format", "csv", path)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", name, code, stderr)
			}
			if want := fmt.Sprintf(`state 2 ("2") occurs once: line %d, column %d (of 25000 values): read as missing`, line, col); !strings.Contains(stderr, want) {
				t.Errorf("%s: standard error does not say %q:\n%s", name, want, stderr)
			}
			if got, want := edgeList(out), "x1-x2 x2-x3 x3-x4 x4-x5"; got != want {
				t.Errorf("%s: edges %q, want the chain %q\n%s", name, got, want, stderr)
			}
			code, _, stderr = runCmd(t, "learn", "-quiet", "-k", "2", path)
			if code == 0 || !strings.Contains(stderr, fmt.Sprintf("%s: line %d, column %d", path, line, col)) {
				t.Errorf("%s with -k 2: exit %d, want an error at line %d, column %d:\n%s", name, code, line, col, stderr)
			}
		}
	}
}

// edgeList returns the edges of the command's csv output as "a-b" pairs,
// sorted and joined by spaces.
func edgeList(csv string) string {
	var edges []string
	for x, line := range strings.Split(strings.TrimSpace(csv), "\n") {
		f := strings.Split(line, ",")
		if x == 0 || len(f) < 2 {
			continue // the header
		}
		edges = append(edges, f[0]+"-"+f[1])
	}
	sort.Strings(edges)
	return strings.Join(edges, " ")
}
