package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// gzipped returns content compressed as gzip writes it.
func gzipped(t *testing.T, content string) string {
	t.Helper()
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	if _, err := z.Write([]byte(content)); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestGzipInputs: a gzip-compressed alignment or samples file, whatever
// its name, gives what the plain file gives; a truncated or broken one is
// an error naming the file, never a panic.
func TestGzipInputs(t *testing.T) {
	dir := t.TempDir()
	fasta := contactsFASTA(300, 6, 11)
	r := rand.New(rand.NewPCG(12, 13))
	var csv strings.Builder
	csv.WriteString("a,b,c,d\n")
	for range 300 {
		x := r.IntN(2)
		y := x
		if r.Float64() < 0.2 {
			y = 1 - x
		}
		fmt.Fprintf(&csv, "%d,%d,%d,%d\n", x, y, r.IntN(2), r.IntN(2))
	}
	for _, c := range []struct {
		name, content string
		args          []string
	}{
		{"toy.fasta", fasta, []string{"contacts", "-quiet", "-alphabet", "rna"}},
		{"toy.csv", csv.String(), []string{"learn", "-quiet"}},
	} {
		plain := writeFile(t, dir, c.name, c.content)
		z := gzipped(t, c.content)
		want := runOK(t, append(c.args, plain)...)
		for _, name := range []string{c.name + ".gz", "noext_" + c.name} {
			if got := runOK(t, append(c.args, writeFile(t, dir, name, z))...); got != want {
				t.Errorf("%s: output differs from the plain file's:\n%.300s\nwant\n%.300s", name, got, want)
			}
		}
		for _, bad := range []string{z[:len(z)/2], z[:5]} {
			path := writeFile(t, dir, "bad_"+c.name+".gz", bad)
			code, _, stderr := runCmd(t, append(c.args, path)...)
			if code != 1 || !strings.Contains(stderr, path) {
				t.Errorf("%s cut to %d bytes: exit %d, stderr %q; want 1 and the file named", c.name, len(bad), code, stderr)
			}
		}
	}
}
