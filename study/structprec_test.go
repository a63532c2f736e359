package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestAlignSeqsMapsAnInsertion(t *testing.T) {
	// b has an extra residue X after "ACD" and two leading residues: the
	// mapping must skip both.
	a := alignSeqs("ACDEFGHIK", "MMACDXEFGHIK")
	want := []int{2, 3, 4, 6, 7, 8, 9, 10, 11}
	for i, w := range want {
		if a.toB[i] != w {
			t.Fatalf("toB = %v, want %v", a.toB, want)
		}
	}
	if a.identical != 9 || a.aligned != 9 {
		t.Fatalf("identical %d aligned %d, want 9 and 9", a.identical, a.aligned)
	}
}

// pdbLine formats one ATOM record.
func pdbLine(serial int, atom, res string, chain string, seq int, x, y, z float64) string {
	return fmt.Sprintf("ATOM  %5d %-4s %3s %1s%4d    %8.3f%8.3f%8.3f  1.00  0.00           C", serial, " "+atom, res, chain, seq, x, y, z)
}

func TestPDBTruthUsesCBAndCAForGlycine(t *testing.T) {
	// Residues on a line, 5 Å apart in CA; residue 3 is a glycine (CA
	// used), residue 2's CB sits 10 Å off the line. Chain B is ignored.
	var b strings.Builder
	res := []string{"ALA", "SER", "GLY", "LEU"}
	serial := 1
	for i, r := range res {
		x := 5 * float64(i)
		fmt.Fprintln(&b, pdbLine(serial, "CA", r, "A", i+1, x, 0, 0))
		serial++
		if r != "GLY" {
			y := 0.5
			if i == 1 {
				y = 10
			}
			fmt.Fprintln(&b, pdbLine(serial, "CB", r, "A", i+1, x, y, 0))
			serial++
		}
	}
	fmt.Fprintln(&b, pdbLine(serial, "CA", "TRP", "B", 1, 0, 0, 0))
	rs, err := readPDBChain(strings.NewReader(b.String()), "A")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 4 || rs[2].hasCB || !rs[0].hasCB {
		t.Fatalf("residues %+v", rs)
	}
	var log bytes.Buffer
	tm := pdbTruth("ASGL", rs, 8, &log)
	// Brute force: CB (CA for G) distances.
	want := map[[2]int]bool{
		{0, 1}: false, // (0,0.5) to (5,10): 10.6
		{0, 2}: false, // 10
		{0, 3}: false, // 15
		{1, 2}: false, // (5,10) to (10,0): 11.2
		{1, 3}: false, // (5,10) to (15,0.5): 13.8
		{2, 3}: true,  // (10,0) to (15,0.5): 5.02
	}
	for p, c := range want {
		if tm.contact[p] != c || !tm.known(p[0], p[1]) {
			t.Errorf("pair %v: contact %v known %v, want %v", p, tm.contact[p], tm.known(p[0], p[1]), c)
		}
	}
}

func TestPrecisionAtCountsKnownPairsOnly(t *testing.T) {
	tm := truthMap{L: 10, contact: map[[2]int]bool{{0, 6}: true, {0, 7}: false, {1, 8}: true, {2, 9}: false}}
	tm.known = func(i, j int) bool { _, ok := tm.contact[[2]int{i, j}]; return ok }
	pairs := []scoredPair{
		{0, 1, 9},   // separation 1: not ranked
		{3, 9, 8},   // unknown truth: skipped
		{0, 7, 7},   // false
		{1, 8, 6},   // true
		{0, 6, 5},   // true
		{2, 9, 0.5}, // false
	}
	got, err := precisionAt(pairs, tm, 6, []int{1, 2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 0.5, 2.0 / 3, 0.5}
	for x := range want {
		if got[x] != want[x] {
			t.Fatalf("precision %v, want %v", got, want)
		}
	}
	if _, err := precisionAt(pairs, tm, 6, []int{5}); err == nil {
		t.Fatal("top 5 of 4 known pairs: want an error")
	}
}

func TestStructprecPrepAndScoreFiles(t *testing.T) {
	dir := t.TempDir()
	// A2M: the focus (second) has a gap in match column 3 and an insert;
	// the prepared columns are its residues A C E F.
	aln := ">s1\nAC-DEF\n>foc\nACa--EF\n>s3\nGG.-QHH\n"
	if err := os.WriteFile(filepath.Join(dir, "a.a2m"), []byte(aln), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "p.fasta")
	var stdout, stderr bytes.Buffer
	if err := runStructprec([]string{"prep", "-focus", "foc", "-o", out, filepath.Join(dir, "a.a2m")}, &stdout, &stderr); err != nil {
		t.Fatal(err, stderr.String())
	}
	got, _ := os.ReadFile(out)
	if want := ">foc\nACEF\n>s1\nACEF\n>s3\nGGHH\n"; string(got) != want {
		t.Fatalf("prepared\n%s\nwant\n%s", got, want)
	}
	// Score a plmc file and a CSV against a distance map of 10 columns:
	// the pairs at separation >= 6 are in contact when j - i = 6.
	var dist, ec, csv strings.Builder
	csv.WriteString("i,j,score\n")
	for i := 1; i <= 10; i++ {
		for j := i + 1; j <= 10; j++ {
			d := 12.0
			if j-i == 6 {
				d = 5
			}
			fmt.Fprintf(&dist, "%d %d 0 %g\n", i, j, d)
			// plmc ranks the contacts first, the CSV last.
			fmt.Fprintf(&ec, "%d A %d X 0 %g\n", i, j, 20-d)
			fmt.Fprintf(&csv, "col%d,col%d,%g\n", i, j, d)
		}
	}
	for name, body := range map[string]string{"d.dat": dist.String(), "p.ec": ec.String(), "o.csv": csv.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stdout.Reset()
	err := runStructprec([]string{"score", "-dist", filepath.Join(dir, "d.dat"), "-L", "10",
		filepath.Join(dir, "p.ec"), filepath.Join(dir, "o.csv")}, &stdout, &stderr)
	if err != nil {
		t.Fatal(err, stderr.String())
	}
	// 10 pairs at separation >= 6, 4 of them contacts; top 2, 5, 10.
	want := "# L = 10, 4 contacts at separation >= 6; top 2, 5, 10\nfile\tP(L/5)\tP(L/2)\tP(L)\n" +
		filepath.Join(dir, "p.ec") + "\t1.000\t0.800\t0.400\n" +
		filepath.Join(dir, "o.csv") + "\t0.000\t0.000\t0.400\n"
	if stdout.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", stdout.String(), want)
	}
}

// TestShallowRows checks structprec depth's draw: the first row and n − 1
// distinct others, increasing, the same for the same seed and different
// for another, and every row drawn about equally often over many seeds
// (each of the 9 others in 4 of 9 draws: 400 seeds give 178 expected,
// a binomial standard deviation of 10; the bounds are 5 of them).
func TestShallowRows(t *testing.T) {
	count := make([]int, 10)
	for seed := uint64(1); seed <= 400; seed++ {
		keep := shallowRows(10, 5, seed)
		if len(keep) != 5 || keep[0] != 0 {
			t.Fatalf("seed %d: %v, want 5 rows from row 0", seed, keep)
		}
		for x := 1; x < len(keep); x++ {
			if keep[x] <= keep[x-1] || keep[x] >= 10 {
				t.Fatalf("seed %d: %v not increasing within 0..9", seed, keep)
			}
			count[keep[x]]++
		}
	}
	for r := 1; r < 10; r++ {
		if count[r] < 128 || count[r] > 228 {
			t.Errorf("row %d drawn %d times in 400, want about 178", r, count[r])
		}
	}
	if a, b := shallowRows(100, 10, 3), shallowRows(100, 10, 3); !slices.Equal(a, b) {
		t.Errorf("same seed, different draws: %v and %v", a, b)
	}
	if a, b := shallowRows(100, 10, 3), shallowRows(100, 10, 4); slices.Equal(a, b) {
		t.Errorf("seeds 3 and 4 drew the same rows %v", a)
	}
}

// TestStructprecNeff checks structprec neff against Neff worked by hand.
// Four sequences of 5 columns: a and b identical, c sharing 3 of 5 columns
// with them (60%) and 4 of 5 with d (80%), d sharing 3 of 5 with a and b.
// At θ = 0.8 the neighbourhoods are {a, b}, {a, b}, {c, d}, {c, d}: Neff =
// 4 × 1/2 = 2. At θ = 0.5 every pair shares at least 60%: each sequence
// has all four as neighbours, Neff = 4 × 1/4 = 1.
func TestStructprecNeff(t *testing.T) {
	dir := t.TempDir()
	aln := ">a\nACDEF\n>b\nACDEF\n>c\nACDGH\n>d\nACDGY\n"
	path := filepath.Join(dir, "a.fasta")
	if err := os.WriteFile(path, []byte(aln), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := runStructprec([]string{"neff", path}, &stdout, &stderr); err != nil {
		t.Fatal(err, stderr.String())
	}
	if got, want := stdout.String(), "4 5 2.0\n"; got != want {
		t.Errorf("neff at 0.8: %q, want %q", got, want)
	}
	stdout.Reset()
	if err := runStructprec([]string{"neff", "-theta", "0.5", path}, &stdout, &stderr); err != nil {
		t.Fatal(err, stderr.String())
	}
	if got, want := stdout.String(), "4 5 1.0\n"; got != want {
		t.Errorf("neff at 0.5: %q, want %q", got, want)
	}
	if err := runStructprec([]string{"neff"}, &stdout, &stderr); err == nil {
		t.Error("neff without an alignment: no error")
	}
}

// TestInAlphabetRows checks structprec dropx's rule: a sequence holding a
// letter outside the twenty amino acids and the gap is dropped (X, B, Z,
// a digit), lowercase residues and '.' are kept, and the first row is kept
// whatever it holds.
func TestInAlphabetRows(t *testing.T) {
	recs := []seqRecord{{"focus", "ACX-"}, {"a", "AC-D"}, {"b", "ACXD"}, {"c", "ac.d"}, {"d", "BZ--"}, {"e", "WY1-"}, {"f", "wyvk"}}
	got := inAlphabetRows(recs)
	want := []int{0, 1, 3, 6}
	if len(got) != len(want) {
		t.Fatalf("kept %v, want %v", got, want)
	}
	for x := range want {
		if got[x] != want[x] {
			t.Fatalf("kept %v, want %v", got, want)
		}
	}
}

// TestDistTruthFields reads the same distances as lines "i j d" and as
// ArDCAData's "i j x d": the same contacts at the cutoff, and a line of
// two fields or a column outside 1..L is an error.
func TestDistTruthFields(t *testing.T) {
	three := "1 5 3.2\n2 7 9.5\n# comment\n3 8 7.99\n"
	four := "1 5 0.5 3.2\n2 7 1.5 9.5\n3 8 2.5 7.99\n"
	a, err := distTruth(strings.NewReader(three), 8, 8)
	if err != nil {
		t.Fatal(err)
	}
	b, err := distTruth(strings.NewReader(four), 8, 8)
	if err != nil {
		t.Fatal(err)
	}
	want := map[[2]int]bool{{0, 4}: true, {1, 6}: false, {2, 7}: true}
	for p, c := range want {
		if a.contact[p] != c || b.contact[p] != c {
			t.Errorf("pair %v: %v (3 fields), %v (4 fields), want %v", p, a.contact[p], b.contact[p], c)
		}
	}
	if len(a.contact) != 3 || len(b.contact) != 3 {
		t.Errorf("%d and %d pairs, want 3", len(a.contact), len(b.contact))
	}
	for _, bad := range []string{"1 5\n", "1 9 3.0\n", "0 4 3.0\n"} {
		if _, err := distTruth(strings.NewReader(bad), 8, 8); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestReadAlignedSeqsColabFoldHeader reads an A3M as ColabFold writes it,
// with a "#lengths\tcounts" line before the first name line, and still
// refuses a name line after unnamed (PSICOV) sequences.
func TestReadAlignedSeqsColabFoldHeader(t *testing.T) {
	recs, err := readAlignedSeqs(strings.NewReader("#5\t1\n>101\nACDEF\n>hit\t90\t0.5\nAC-EF\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].name != "101" || recs[0].seq != "ACDEF" || recs[1].name != "hit" || recs[1].seq != "AC-EF" {
		t.Fatalf("read %+v", recs)
	}
	if _, err := readAlignedSeqs(strings.NewReader("ACDEF\n>late\nACDEF\n")); err == nil {
		t.Fatal("a name line after unnamed sequences: want an error")
	}
}
