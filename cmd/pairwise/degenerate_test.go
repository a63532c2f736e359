package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestLearnDegenerateFiles runs 'pairwise learn' on the degenerate files of
// issue 18 (a constant column at k > 2, which panicked with the defaults,
// with -lambda alone and with -select cv; a one-column file, which
// panicked without -eta; identical rows; a single row) under the flags of
// every path. Each run must exit 0 with no edge at a constant column, or
// exit 1 with one line of error; never a panic.
func TestLearnDegenerateFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var constant, ident strings.Builder
	x := uint32(7)
	next := func(k int) int {
		x = x*1664525 + 1013904223
		return int(x>>16) % k
	}
	for m := 0; m < 200; m++ {
		fmt.Fprintf(&constant, "%d,1,%d,%d\n", next(3), next(3), next(3))
		ident.WriteString("0,1,1\n")
	}
	var onecol2, onecol3 strings.Builder
	for m := 0; m < 60; m++ {
		fmt.Fprintf(&onecol2, "%d\n", next(2))
		fmt.Fprintf(&onecol3, "%d\n", next(3))
	}
	files := map[string]struct {
		path     string
		constant []string // variables that must have no edge
	}{
		"constant column k=3": {writeFile(t, dir, "constant.csv", constant.String()), []string{"x2"}},
		"one column k=2":      {writeFile(t, dir, "onecol2.csv", onecol2.String()), nil},
		"one column k=3":      {writeFile(t, dir, "onecol3.csv", onecol3.String()), nil},
		"identical rows":      {writeFile(t, dir, "ident.csv", ident.String()), []string{"x1", "x2", "x3"}},
		"two identical rows":  {writeFile(t, dir, "ident2.csv", "0,1,2\n0,1,2\n"), []string{"x1", "x2", "x3"}},
		"single row":          {writeFile(t, dir, "row.csv", "1,0,1\n"), []string{"x1", "x2", "x3"}},
	}
	flagSets := [][]string{
		nil,
		{"-lambda", "1"},
		{"-eta", "0.3"},
		{"-lambda", "1", "-eta", "0.3"},
		{"-select", "cv"},
		{"-select", "cv", "-folds", "2"},
		{"-sym", "and"},
		{"-sym", "or"},
		{"-solver", "group"},
		{"-solver", "sparsitron"},
		{"-solver", "sparsitron", "-select", "cv", "-folds", "2"},
	}
	for name, f := range files {
		for _, flags := range flagSets {
			args := append(append([]string{"learn", "-quiet"}, flags...), f.path)
			code, stdout, stderr := runCmd(t, args...)
			where := fmt.Sprintf("%s, %s", name, strings.Join(flags, " "))
			switch code {
			case 0:
				for _, line := range strings.Split(strings.TrimSpace(stdout), "\n")[1:] {
					fields := strings.Split(line, ",")
					for _, c := range f.constant {
						if fields[0] == c || fields[1] == c {
							t.Errorf("%s: edge %s,%s at a constant column", where, fields[0], fields[1])
						}
					}
				}
			case 1:
				if !strings.HasPrefix(stderr, "pairwise learn: ") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || strings.Contains(stderr, "goroutine") {
					t.Errorf("%s: exit 1 with %q, want one line of error", where, stderr)
				}
			default:
				t.Errorf("%s: exit %d: %s", where, code, stderr)
			}
		}
	}
}
