package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mrfkit/pairwise/protein"
	"gonum.org/v1/gonum/mat"
)

// readTiny reads a FASTA alignment in the given alphabet (gap first).
func readTiny(t *testing.T, alphabet string, seqs ...string) *protein.Alignment {
	t.Helper()
	var b strings.Builder
	for i, s := range seqs {
		b.WriteString(">s" + string(rune('a'+i)) + "\n" + s + "\n")
	}
	a, err := protein.ReadAlignment(strings.NewReader(b.String()), protein.AlignAlphabet(alphabet))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestMeanfieldClosedForm: two columns over the alphabet "-A" (one state a
// column beside the gap), so that C is 2×2 and its inverse is written by
// hand: e_12 = -(C⁻¹)_12 = C_12 / (C_11 C_22 - C_12²), with the mixed
// frequencies counted by hand from the four sequences.
func TestMeanfieldClosedForm(t *testing.T) {
	a := readTiny(t, "-A", "AA", "AA", "A-", "--")
	w := []float64{1, 0.5, 1, 2}
	const lambda, q = 0.3, 2.0
	// Weighted counts, total 4.5: column 1 is A in sequences 1-3 (2.5),
	// column 2 in 1-2 (1.5), both in 1-2 (1.5).
	f1 := (1-lambda)*2.5/4.5 + lambda/q
	f2 := (1-lambda)*1.5/4.5 + lambda/q
	f12 := (1-lambda)*1.5/4.5 + lambda/(q*q)
	c11, c22, c12 := f1-f1*f1, f2-f2*f2, f12-f1*f2
	c, err := mfCovariance(a, w, lambda)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []struct{ got, want float64 }{{c.At(0, 0), c11}, {c.At(1, 1), c22}, {c.At(0, 1), c12}} {
		if math.Abs(x.got-x.want) > 1e-15 {
			t.Errorf("C entry %v, want %v", x.got, x.want)
		}
	}
	if err := mfInvertInPlace(c); err != nil {
		t.Fatal(err)
	}
	det := c11*c22 - c12*c12
	want := [3]float64{c22 / det, c11 / det, -c12 / det}
	got := [3]float64{c.At(0, 0), c.At(1, 1), c.At(0, 1)}
	for x := range want {
		// The entries are O(10); double rounding of a 2×2 Cholesky.
		if math.Abs(got[x]-want[x]) > 1e-12*math.Abs(want[x]) {
			t.Errorf("inverse entry %d = %v, want %v", x, got[x], want[x])
		}
	}
	if e := -c.At(0, 1); math.Abs(e-c12/det) > 1e-12*math.Abs(e) || e <= 0 {
		t.Errorf("e_12 = %v, want %v (positive: the columns' A go together)", e, c12/det)
	}
}

// TestMeanfieldAgainstDenseRoute builds C a second way, from the one-hot
// design matrix X (N × L(k-1)) by matrix products, C = (1-λ)XᵀWX/ΣW + λP −
// mmᵀ with P the pseudocount's second moments and m the mixed means,
// inverts it by LU (mat.Inverse, not Cholesky), and scores the pairs by
// projecting each block onto the zero-sum subspace (Q e Q with Q = I -
// 11ᵀ/q) and a direct APC; all must agree with mfCovariance,
// mfInvertInPlace and mfScores.
func TestMeanfieldAgainstDenseRoute(t *testing.T) {
	seqs := []string{"AB-AB", "ABBA-", "BAAB-", "AA-BB", "-BABA", "BBAAB", "AB-BA", "BA-AB", "AAB-A", "B-ABB", "ABABA"}
	a := readTiny(t, "-AB", seqs...)
	w := []float64{1, 0.5, 0.25, 1, 1, 2, 0.5, 1, 1, 0.75, 1}
	const lambda = 0.5
	n, l, k := a.Len(), a.Vars(), 3
	q := k - 1
	d := l * q
	x := mat.NewDense(n, d, nil)
	wx := mat.NewDense(n, d, nil)
	total := 0.0
	for s := 0; s < n; s++ {
		total += w[s]
		for i := 0; i < l; i++ {
			if v := a.At(s, i); v > 0 {
				x.Set(s, i*q+v-1, 1)
				wx.Set(s, i*q+v-1, w[s])
			}
		}
	}
	var m2 mat.Dense
	m2.Mul(x.T(), wx)
	m2.Scale((1-lambda)/total, &m2)
	mean := mat.NewVecDense(d, nil)
	for u := 0; u < d; u++ {
		mean.SetVec(u, (1-lambda)*mat.Sum(wx.ColView(u))/total+lambda/float64(k))
	}
	want := mat.NewDense(d, d, nil)
	for u := 0; u < d; u++ {
		for v := 0; v < d; v++ {
			var p float64
			switch {
			case u/q != v/q:
				p = lambda / float64(k*k)
			case u == v:
				p = lambda / float64(k)
			}
			second := m2.At(u, v) + p
			if u/q == v/q && u != v {
				second = 0 // two states of one column never co-occur
			}
			want.Set(u, v, second-mean.AtVec(u)*mean.AtVec(v))
		}
	}
	c, err := mfCovariance(a, w, lambda)
	if err != nil {
		t.Fatal(err)
	}
	for u := 0; u < d; u++ {
		for v := 0; v < d; v++ {
			if g, e := c.At(u, v), want.At(u, v); math.Abs(g-e) > 1e-14 {
				t.Fatalf("C(%d,%d) = %v, dense route %v", u, v, g, e)
			}
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(want); err != nil {
		t.Fatal(err)
	}
	keep := mat.NewSymDense(d, nil)
	keep.CopySym(c)
	if err := mfInvertInPlace(c); err != nil {
		t.Fatal(err)
	}
	// The inverse's entries are O(10-100) here; the tolerance is relative
	// to its largest, many orders above double rounding of a 10×10 solve.
	big := mat.Norm(&inv, math.Inf(1))
	for u := 0; u < d; u++ {
		for v := 0; v < d; v++ {
			if g, e := c.At(u, v), inv.At(u, v); math.Abs(g-e) > 1e-10*big {
				t.Fatalf("C⁻¹(%d,%d): Cholesky %v, LU %v", u, v, g, e)
			}
		}
	}
	if r := mfIdentityError(keep, c); r > 1e-10 {
		t.Errorf("max |C·C⁻¹ - I| = %v", r)
	}
	// Scores by projection, then APC written out.
	proj := mat.NewDense(q, q, nil)
	for i := 0; i < q; i++ {
		for j := 0; j < q; j++ {
			v := -1 / float64(q)
			if i == j {
				v++
			}
			proj.Set(i, j, v)
		}
	}
	raw := mat.NewDense(l, l, nil)
	for i := 0; i < l; i++ {
		for j := 0; j < l; j++ {
			if i == j {
				continue
			}
			e := mat.NewDense(q, q, nil)
			for s := 0; s < q; s++ {
				for r := 0; r < q; r++ {
					e.Set(s, r, -inv.At(i*q+s, j*q+r))
				}
			}
			var g, h mat.Dense
			g.Mul(proj, e)
			h.Mul(&g, proj)
			raw.Set(i, j, mat.Norm(&h, 2))
		}
	}
	rowMean := make([]float64, l)
	all := 0.0
	for i := 0; i < l; i++ {
		rowMean[i] = mat.Sum(raw.RowView(i)) / float64(l-1)
		all += mat.Sum(raw.RowView(i))
	}
	all /= float64(l * (l - 1))
	got := mfScores(c, l, q)
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			e := raw.At(i, j) - rowMean[i]*rowMean[j]/all
			if g := got.At(i, j); math.Abs(g-e) > 1e-9*big {
				t.Errorf("score(%d,%d) = %v, projection route %v", i, j, g, e)
			}
		}
	}
}

// TestMeanfieldErrors: caller mistakes are errors, not panics.
func TestMeanfieldErrors(t *testing.T) {
	a := readTiny(t, "-AB", "AB", "BA")
	if _, err := mfCovariance(a, nil, 0); err == nil {
		t.Error("pseudocount 0 accepted")
	}
	if _, err := mfCovariance(a, nil, 1); err == nil {
		t.Error("pseudocount 1 accepted")
	}
	if _, err := mfCovariance(a, []float64{0, 0}, 0.5); err == nil {
		t.Error("zero weights accepted")
	}
	if _, err := mfCovariance(a, []float64{1}, 0.5); err == nil {
		t.Error("one weight for two sequences accepted")
	}
	bad := mat.NewSymDense(2, []float64{1, 2, 2, 1}) // eigenvalues 3, -1
	if err := mfInvertInPlace(bad); err == nil {
		t.Error("an indefinite matrix was inverted")
	}
	var out, errw bytes.Buffer
	if code := run([]string{"meanfield", "-pc", "1.5", "x.fasta"}, &out, &errw); code == 0 {
		t.Error("-pc 1.5 accepted")
	}
}

// TestMeanfieldCommand runs the command on a small protein alignment and
// reads its CSV back as structprec score and the ensemble script read it:
// every pair once, named colN, ranked by score, the strongest pair the
// two columns that copy each other.
func TestMeanfieldCommand(t *testing.T) {
	dir := t.TempDir()
	seqs := []string{"ACDEFG", "ACDKFH", "WCDEYG", "WCEKYH", "ACEEFG", "WCDKYH", "ACDEFH", "WCEEYG", "AC-KFG", "WCDEYH"}
	var b strings.Builder
	for i, s := range seqs {
		b.WriteString(">s" + string(rune('a'+i)) + "\n" + s + "\n")
	}
	in := filepath.Join(dir, "a.fasta")
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	outPath := filepath.Join(dir, "a.csv")
	var out, errw bytes.Buffer
	if code := run([]string{"meanfield", "-o", outPath, in}, &out, &errw); code != 0 {
		t.Fatalf("exit %d: %s", code, errw.String())
	}
	data, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if lines[0] != "i,j,score" || len(lines) != 1+6*5/2 {
		t.Fatalf("header %q, %d lines", lines[0], len(lines))
	}
	// Columns 1 (A/W) and 5 (F/Y) copy each other in every sequence.
	if !strings.HasPrefix(lines[1], "col1,col5,") {
		t.Errorf("best pair %q, want col1,col5", lines[1])
	}
	pairs, err := readScores(strings.NewReader(string(data)), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 15 {
		t.Errorf("structprec reads %d pairs, want 15", len(pairs))
	}
}
