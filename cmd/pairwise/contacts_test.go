package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mrfkit/pairwise/protein"
	"gonum.org/v1/gonum/mat"
)

// contactsFASTA returns an aligned FASTA of count RNA sequences of length
// l in which column i+1 copies column i in most sequences for even i, so
// that the pairs (i, i+1), i even, are coupled.
func contactsFASTA(count, l int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 3))
	const letters = "ACGU"
	var b strings.Builder
	for s := 0; s < count; s++ {
		fmt.Fprintf(&b, ">seq%d\n", s)
		row := make([]byte, l)
		for i := 0; i < l; i++ {
			row[i] = letters[r.IntN(4)]
			if i%2 == 1 && r.Float64() < 0.8 {
				row[i] = row[i-1]
			}
		}
		b.Write(row)
		b.WriteByte('\n')
	}
	return b.String()
}

// TestContactsCommand runs the command on a small RNA alignment with a
// known coupling pattern: the CSV ranks the coupled pairs first, the plmc
// layout lists every pair once, and the PNG is written.
func TestContactsCommand(t *testing.T) {
	dir := t.TempDir()
	aln := writeFile(t, dir, "toy.fasta", contactsFASTA(400, 8, 1))
	out := runOK(t, "contacts", "-quiet", "-alphabet", "rna", "-top", "4", aln)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "i,j,score" || len(lines) != 5 {
		t.Fatalf("csv output:\n%s", out)
	}
	want := map[string]bool{"col1,col2": true, "col3,col4": true, "col5,col6": true, "col7,col8": true}
	for _, ln := range lines[1:] {
		f := strings.Split(ln, ",")
		if !want[f[0]+","+f[1]] {
			t.Errorf("ranked pair %s is not one of the coupled pairs", ln)
		}
	}
	png := filepath.Join(dir, "map.png")
	out = runOK(t, "contacts", "-quiet", "-alphabet", "-ACGU", "-layout", "plmc", "-png", png, aln)
	if n := len(strings.Split(strings.TrimSpace(out), "\n")); n != 8*7/2 {
		t.Errorf("plmc layout: %d lines, want %d", n, 8*7/2)
	}
	if f := strings.Fields(strings.Split(out, "\n")[0]); len(f) != 6 || f[0] != "1" || f[1] != "-" || f[2] != "2" || f[4] != "0" {
		t.Errorf("plmc layout line %q, want 1 - 2 - 0 SCORE", f)
	}
	if b, err := os.ReadFile(png); err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
		t.Errorf("PNG not written: %v", err)
	}
}

// TestContactsGapInputs checks -gap-inputs=false on the toy alignment with
// a gap in a tenth of its cells: the scores differ from the default's (a
// gap is then no input of the other columns' regressions) and the coupled
// pairs are still ranked first.
func TestContactsGapInputs(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(4, 5))
	b := []byte(contactsFASTA(400, 8, 2))
	for x, line := 0, 0; x < len(b); x++ {
		switch {
		case b[x] == '\n':
			line++
		case line%2 == 1 && r.Float64() < 0.1:
			b[x] = '-'
		}
	}
	aln := writeFile(t, dir, "gappy.fasta", string(b))
	def := runOK(t, "contacts", "-quiet", "-alphabet", "-ACGU", aln)
	off := runOK(t, "contacts", "-quiet", "-alphabet", "-ACGU", "-gap-inputs=false", aln)
	if def == off {
		t.Error("-gap-inputs=false wrote the default's scores")
	}
	lines := strings.Split(strings.TrimSpace(off), "\n")
	want := map[string]bool{"col1,col2": true, "col3,col4": true, "col5,col6": true, "col7,col8": true}
	for _, ln := range lines[1:5] {
		f := strings.Split(ln, ",")
		if !want[f[0]+","+f[1]] {
			t.Errorf("ranked pair %s is not one of the coupled pairs", ln)
		}
	}
}

// TestContactsSmooth checks -smooth against protein.SmoothScores applied
// to the unsmoothed scores as the CSV prints them (six significant digits,
// hence the tolerance), that bad -smooth values are errors, that the
// default smooths nothing, and that -smooth auto smooths a shallow
// alignment and not a deep one.
func TestContactsSmooth(t *testing.T) {
	dir := t.TempDir()
	aln := writeFile(t, dir, "toy.fasta", contactsFASTA(400, 8, 3))
	read := func(out string) map[[2]int]float64 {
		m := map[[2]int]float64{}
		for _, ln := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			f := strings.Split(ln, ",")
			var i, j int
			var v float64
			if _, err := fmt.Sscanf(f[0]+" "+f[1]+" "+f[2], "col%d col%d %g", &i, &j, &v); err != nil {
				t.Fatalf("line %q: %v", ln, err)
			}
			m[[2]int{min(i, j) - 1, max(i, j) - 1}] = v
		}
		return m
	}
	def := read(runOK(t, "contacts", "-quiet", "-alphabet", "-ACGU", "-smooth", "0", aln))
	s := mat.NewSymDense(8, nil)
	for p, v := range def {
		s.SetSym(p[0], p[1], v)
	}
	want, err := protein.SmoothScores(s, 0.7, 2)
	if err != nil {
		t.Fatal(err)
	}
	got := read(runOK(t, "contacts", "-quiet", "-alphabet", "-ACGU", "-smooth", "0.7", "-smooth-sep", "2", aln))
	if len(got) != 28 {
		t.Fatalf("%d pairs, want 28", len(got))
	}
	changed := 0
	for p, v := range got {
		if w := want.At(p[0], p[1]); math.Abs(v-w) > 1e-5*(1+math.Abs(w)) {
			t.Errorf("pair %v: %v, want %v", p, v, w)
		}
		if v != def[p] {
			changed++
		}
	}
	if changed == 0 {
		t.Error("-smooth 0.7 changed no score")
	}
	for _, bad := range [][]string{{"-smooth", "-1"}, {"-smooth", "NaN"}, {"-smooth", "yes"}, {"-smooth", "1", "-smooth-sep", "0"}} {
		args := append([]string{"contacts", "-quiet", "-alphabet", "-ACGU"}, bad...)
		if code, _, stderr := runCmd(t, append(args, aln)...); code != 1 || !strings.Contains(stderr, bad[len(bad)-2]) {
			t.Errorf("%v: exit %d, stderr %q", bad, code, stderr)
		}
	}
	// auto: the toy alignment has 400 sequences of 8 columns (Neff/L well
	// above protein.SmoothDepth: no smoothing); 40 sequences without
	// reweighting (-theta 0: Neff = 40, 5 a column) are below it: α = 1.
	if auto := runOK(t, "contacts", "-quiet", "-alphabet", "-ACGU", "-smooth", "auto", aln); auto != runOK(t, "contacts", "-quiet", "-alphabet", "-ACGU", "-smooth", "0", aln) {
		t.Error("-smooth auto smoothed a deep alignment")
	}
	shallow := writeFile(t, dir, "shallow.fasta", contactsFASTA(40, 8, 3))
	if def := runOK(t, "contacts", "-quiet", "-alphabet", "-ACGU", "-theta", "0", "-smooth-sep", "2", shallow); def != runOK(t, "contacts", "-quiet", "-alphabet", "-ACGU", "-theta", "0", "-smooth", "0", shallow) {
		t.Error("the default smoothed a shallow alignment")
	}
	auto := runOK(t, "contacts", "-quiet", "-alphabet", "-ACGU", "-theta", "0", "-smooth", "auto", "-smooth-sep", "2", shallow)
	one := runOK(t, "contacts", "-quiet", "-alphabet", "-ACGU", "-theta", "0", "-smooth", "1", "-smooth-sep", "2", shallow)
	if auto != one {
		t.Error("-smooth auto on a shallow alignment differs from -smooth 1")
	}
	if auto == runOK(t, "contacts", "-quiet", "-alphabet", "-ACGU", "-theta", "0", "-smooth", "0", shallow) {
		t.Error("-smooth auto did not smooth a shallow alignment")
	}
}

// TestContactsErrors checks that bad alignments and flags exit 1 with one
// line naming the file and, inside it, the line.
func TestContactsErrors(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string { return writeFile(t, dir, name, content) }
	ragged := file("ragged.fasta", ">a\nACGU\n>b\nACG\n")
	nameOnly := file("name.fasta", ">a\nACGU\n>b\n")
	good := file("good.fasta", ">a\nACGU\n>b\nAGGU\n>c\nUCGA\n")
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"contacts", "-alphabet", "rna", ragged}, []string{"ragged.fasta", "line"}},
		{[]string{"contacts", "-alphabet", "rna", nameOnly}, []string{"name.fasta", "line 3"}},
		{[]string{"contacts", "-alphabet", "rna", "-focus", "zz", good}, []string{"good.fasta", "zz"}},
		{[]string{"contacts", "-format", "nexus", good}, []string{"-format"}},
		{[]string{"contacts", "-layout", "xml", good}, []string{"-layout"}},
		{[]string{"contacts", "-theta", "2", good}, []string{"-theta"}},
		{[]string{"contacts", filepath.Join(dir, "missing.fasta")}, []string{"missing.fasta", "no such file"}},
		{[]string{"contacts"}, []string{"missing the ALIGNMENT file"}},
	}
	for _, c := range cases {
		code, _, stderr := runCmd(t, c.args...)
		if code != 1 && code != 2 {
			t.Errorf("%v: exit %d, want 1", c.args, code)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr %q does not mention %q", c.args, stderr, w)
			}
		}
		if strings.Contains(stderr, "goroutine") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 && !strings.Contains(stderr, "Usage") {
			t.Errorf("%v: stderr is not one line: %q", c.args, stderr)
		}
	}
}

// TestContactsFormats reads the toy alignment as PSICOV's .aln (names
// dropped, one sequence a line) and as ColabFold's A3M (a "#" line first):
// both give the FASTA's scores, detected or named by -format.
func TestContactsFormats(t *testing.T) {
	dir := t.TempDir()
	fasta := contactsFASTA(300, 6, 7)
	var aln strings.Builder
	for _, ln := range strings.Split(strings.TrimSpace(fasta), "\n") {
		if !strings.HasPrefix(ln, ">") {
			aln.WriteString(ln + "\n")
		}
	}
	want := runOK(t, "contacts", "-quiet", "-alphabet", "rna", writeFile(t, dir, "toy.fasta", fasta))
	psicov := writeFile(t, dir, "toy.aln", aln.String())
	colab := writeFile(t, dir, "toy.a3m", "#6\t1\n"+fasta)
	for _, args := range [][]string{{psicov}, {"-format", "psicov", psicov}, {"-format", "aln", psicov}, {colab}, {"-format", "a3m", colab}} {
		got := runOK(t, append([]string{"contacts", "-quiet", "-alphabet", "rna"}, args...)...)
		if got != want {
			t.Errorf("%v: scores differ from the FASTA's:\n%.200s\nwant\n%.200s", args, got, want)
		}
	}
}

// TestContactsGappyWarning: when a quarter of the columns are more than
// half gaps the command warns, even with -quiet, and names the smoothing
// when it is on; the same alignment without the gaps draws no warning.
func TestContactsGappyWarning(t *testing.T) {
	dir := t.TempDir()
	fasta := contactsFASTA(200, 8, 9)
	var gappy strings.Builder
	for x, ln := range strings.Split(strings.TrimSpace(fasta), "\n") {
		if !strings.HasPrefix(ln, ">") && (x/2)%10 < 7 {
			ln = ln[:6] + "--" // columns 7 and 8 gaps in 70% of the sequences
		}
		gappy.WriteString(ln + "\n")
	}
	for _, c := range []struct {
		name, in string
		args     []string
		warn     []string
	}{
		{"clean", fasta, nil, nil},
		{"gappy", gappy.String(), []string{"-smooth", "0"}, []string{"warning: ", "2 of 8 columns are more than half gaps", "-max-col-gaps 0.5"}},
		{"gappy smoothed", gappy.String(), []string{"-smooth", "1"}, []string{"2 of 8 columns", "compare -smooth 0"}},
	} {
		aln := writeFile(t, dir, strings.ReplaceAll(c.name, " ", "_")+".fasta", c.in)
		code, _, stderr := runCmd(t, append(append([]string{"contacts", "-quiet", "-alphabet", "rna"}, c.args...), aln)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr)
		}
		if c.warn == nil && strings.Contains(stderr, "warning") {
			t.Errorf("%s: unexpected warning: %s", c.name, stderr)
		}
		for _, w := range c.warn {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr %q lacks %q", c.name, stderr, w)
			}
		}
		if c.name == "gappy" && strings.Contains(stderr, "-smooth 0") {
			t.Errorf("%s: names the smoothing though it is off: %s", c.name, stderr)
		}
	}
}
