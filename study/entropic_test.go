package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// entropicCase is the hand-computed three-column case: alphabet "-AB",
// four weighted sequences (the last of weight 0, so it must count for
// nothing), total weight 6:
//
//	AAB  1     column 1: A 4, B 2            → f = 2/3, 1/3
//	ABA  3     column 2: A 1, B 3, gap 2     → f = 1/6, 1/2, gap 1/3
//	B-A  2     column 3: A 5, B 1            → f = 5/6, 1/6
//	BBB  0
func entropicCase(t *testing.T) (a alignmentView, w []float64, s20, s21 []float64) {
	a = readTiny(t, "-AB", "AAB", "ABA", "B-A", "BBB")
	w = []float64{1, 3, 2, 0}
	ln := math.Log
	s1 := -(2.0/3*ln(2.0/3) + 1.0/3*ln(1.0/3))
	s2 := -(1.0/6*ln(1.0/6) + 1.0/2*ln(1.0/2))
	s3 := -(5.0/6*ln(5.0/6) + 1.0/6*ln(1.0/6))
	s20 = []float64{s1, s2, s3}
	s21 = []float64{s1, s2 - 1.0/3*ln(1.0/3), s3} // the gap a term in column 2 only
	return a, w, s20, s21
}

// TestColumnEntropiesByHand checks both entropies against the counts above
// (to 1e-15: a handful of logs).
func TestColumnEntropiesByHand(t *testing.T) {
	a, w, s20, s21 := entropicCase(t)
	for _, c := range []struct {
		gap  bool
		want []float64
	}{{false, s20}, {true, s21}} {
		got, err := columnEntropies(a, w, c.gap)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-15 {
				t.Errorf("gap term %v, column %d: entropy %.17g, want %.17g", c.gap, i+1, got[i], c.want[i])
			}
		}
	}
	// Without weights every sequence counts 1, the last one too: column 3
	// is B, A, A, B.
	got, err := columnEntropies(a, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := math.Ln2; math.Abs(got[2]-want) > 1e-15 {
		t.Errorf("unweighted column 3: %.17g, want %.17g", got[2], want)
	}
}

// TestEntropicCorrectionByHand checks α and the corrected scores on the
// three-column case against a second route: α as the least-squares
// solution of the 3×1 system x α = F (x_p = √(s_i s_j) over the three
// pairs), solved by gonum's QR (mat.Dense.Solve), not by the normal
// equation the code uses; and α minimises the residual sum of squares.
func TestEntropicCorrectionByHand(t *testing.T) {
	a, w, s20, _ := entropicCase(t)
	s, err := columnEntropies(a, w, false)
	if err != nil {
		t.Fatal(err)
	}
	raw := mat.NewSymDense(3, []float64{
		0, 0.9, 0.2,
		0.9, 0, 0.5,
		0.2, 0.5, 0,
	})
	pairs := [][2]int{{0, 1}, {0, 2}, {1, 2}}
	x := mat.NewDense(3, 1, nil)
	f := mat.NewDense(3, 1, nil)
	for p, ij := range pairs {
		x.Set(p, 0, math.Sqrt(s20[ij[0]]*s20[ij[1]]))
		f.Set(p, 0, raw.At(ij[0], ij[1]))
	}
	var sol mat.Dense
	if err := sol.Solve(x, f); err != nil {
		t.Fatal(err)
	}
	wantAlpha := sol.At(0, 0)
	alpha, ec := entropicCorrection(raw, s)
	if math.Abs(alpha-wantAlpha) > 1e-14*math.Abs(wantAlpha) {
		t.Fatalf("alpha %.17g, want %.17g (QR least squares)", alpha, wantAlpha)
	}
	sse := func(al float64) float64 {
		v := 0.0
		for p := range pairs {
			r := f.At(p, 0) - al*x.At(p, 0)
			v += r * r
		}
		return v
	}
	if sse(alpha) >= sse(alpha*1.001) || sse(alpha) >= sse(alpha*0.999) {
		t.Errorf("alpha %.6g does not minimise the residual sum of squares", alpha)
	}
	for p, ij := range pairs {
		want := f.At(p, 0) - wantAlpha*x.At(p, 0)
		if got := ec.At(ij[0], ij[1]); math.Abs(got-want) > 1e-14 {
			t.Errorf("pair %v: %.17g, want %.17g", ij, got, want)
		}
		if ec.At(ij[0], ij[1]) != ec.At(ij[1], ij[0]) {
			t.Errorf("pair %v not symmetric", ij)
		}
	}
	// Two entropies swapped must change α: the case is not degenerate, so
	// the check above would see the columns mixed up.
	if aSwap, _ := entropicCorrection(raw, []float64{s20[1], s20[0], s20[2]}); math.Abs(aSwap-alpha) < 1e-6 {
		t.Errorf("swapping two entropies leaves alpha at %.6g: the test cannot see a swap", alpha)
	}
	// Every entropy zero: α = 0 and the scores unchanged.
	a0, ec0 := entropicCorrection(raw, []float64{0, 0, 0})
	if a0 != 0 || !mat.Equal(ec0, raw) {
		t.Errorf("zero entropies: alpha %v, scores changed", a0)
	}
}

// TestEntropicCorrectionScale: the log's base (a common factor c on every
// s_i) does not change the corrected scores, and scaling F by c scales α
// and the scores by c.
func TestEntropicCorrectionScale(t *testing.T) {
	raw := mat.NewSymDense(4, nil)
	s := []float64{0.3, 1.1, 2.0, 0.7}
	v := 0.1
	for i := 0; i < 4; i++ {
		for j := i + 1; j < 4; j++ {
			raw.SetSym(i, j, v)
			v = math.Mod(v*7+0.13, 1)
		}
	}
	_, ec := entropicCorrection(raw, s)
	s2 := make([]float64, 4)
	for i := range s {
		s2[i] = s[i] / math.Ln2
	}
	_, ec2 := entropicCorrection(raw, s2)
	if !mat.EqualApprox(ec, ec2, 1e-14) {
		t.Error("the corrected scores depend on the log's base")
	}
}

// TestEntropicCommand runs the command end to end on a small protein
// alignment without reweighting: every pair once, the names kept, each
// score the correction of its raw score with the entropies of
// columnEntropies; and the caller's mistakes are errors.
func TestEntropicCommand(t *testing.T) {
	dir := t.TempDir()
	fasta := filepath.Join(dir, "a.fasta")
	seqs := []string{"ACDEF", "ACDEA", "GCD-F", "AWDEF", "ACKEF", "YC-EF"}
	var b strings.Builder
	for i, s := range seqs {
		b.WriteString(">s" + string(rune('a'+i)) + "\n" + s + "\n")
	}
	if err := os.WriteFile(fasta, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	l := 5
	raw := mat.NewSymDense(l, nil)
	var csv strings.Builder
	csv.WriteString("i,j,score\n")
	v := 0.37
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			raw.SetSym(i, j, v)
			csv.WriteString("col" + strconv.Itoa(j+1) + ",col" + strconv.Itoa(i+1) + "," + strconv.FormatFloat(v, 'g', -1, 64) + "\n")
			v = math.Mod(v*3.7+0.11, 1)
		}
	}
	rawPath := filepath.Join(dir, "a.raw.csv")
	if err := os.WriteFile(rawPath, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	a := readTiny(t, "-ACDEFGHIKLMNPQRSTVWY", seqs...)
	s, err := columnEntropies(a, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	_, want := entropicCorrection(raw, s)
	var out, errb bytes.Buffer
	if err := runEntropic([]string{"-theta", "0", fasta, rawPath}, &out, &errb); err != nil {
		t.Fatal(err, errb.String())
	}
	got, err := readScores(strings.NewReader(out.String()), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != l*(l-1)/2 {
		t.Fatalf("%d pairs, want %d", len(got), l*(l-1)/2)
	}
	for k, p := range got {
		if w := want.At(p.i, p.j); math.Abs(p.score-w) > 1e-5*math.Max(1, math.Abs(w)) {
			t.Errorf("pair %d,%d: %v, want %v", p.i+1, p.j+1, p.score, w)
		}
		if k > 0 && p.score > got[k-1].score {
			t.Errorf("not ranked at line %d", k+2)
		}
	}
	// The 21-state run differs (column 3 and 4 hold a gap).
	var out21 bytes.Buffer
	if err := runEntropic([]string{"-theta", "0", "-states", "21", fasta, rawPath}, &out21, &errb); err != nil {
		t.Fatal(err)
	}
	if out21.String() == out.String() {
		t.Error("-states 21 wrote the same scores as 20")
	}
	// Mistakes.
	short := filepath.Join(dir, "short.csv")
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	os.WriteFile(short, []byte(strings.Join(lines[:len(lines)-1], "\n")), 0o644)
	dup := filepath.Join(dir, "dup.csv")
	os.WriteFile(dup, []byte(csv.String()+lines[1]+"\n"), 0o644)
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte(strings.Replace(csv.String(), "col1,", "col9,", 1)), 0o644)
	nan := filepath.Join(dir, "nan.csv")
	os.WriteFile(nan, []byte("i,j,score\n"+strings.Replace(strings.Join(lines[1:], "\n"), ","+strconv.FormatFloat(0.37, 'g', -1, 64), ",NaN", 1)), 0o644)
	for _, args := range [][]string{
		{fasta},
		{"-states", "19", fasta, rawPath},
		{"-theta", "2", fasta, rawPath},
		{fasta, short},
		{fasta, dup},
		{fasta, bad},
		{fasta, nan},
		{fasta, filepath.Join(dir, "none.csv")},
	} {
		if err := runEntropic(args, &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}

// TestPearson checks the diagnostic's correlation on closed cases: a
// line (1), its reverse (-1), and a symmetric pair of points (0).
func TestPearson(t *testing.T) {
	x := []float64{1, 2, 3, 4}
	for _, c := range []struct {
		y    []float64
		want float64
	}{{[]float64{3, 5, 7, 9}, 1}, {[]float64{4, 3, 2, 1}, -1}, {[]float64{1, -1, -1, 1}, 0}} {
		if got := pearson(x, c.y); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("pearson(%v, %v) = %v, want %v", x, c.y, got, c.want)
		}
	}
	if got := pearson(x, []float64{2, 2, 2, 2}); !math.IsNaN(got) {
		t.Errorf("constant y: %v, want NaN", got)
	}
}
