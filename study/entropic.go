package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/mrfkit/pairwise/protein"
	"gonum.org/v1/gonum/mat"
)

// entropicUsage is the help of "entropic".
const entropicUsage = `Usage: go run . entropic [flags] ALIGNMENT RAW.csv      (from study/)

The entropic correction in place of the average product correction (issue
32; docs/contacts, "The entropic correction, measured"). RAW.csv is what
pairwise contacts -apc=false -o writes for ALIGNMENT: F_ij, the Frobenius
score of every pair i < j before any background correction. The alignment
is read and reweighted as pairwise contacts reads it by default
(protein.ReadAlignment with its defaults, protein.Reweight at identity
-theta). Then:

  f_i(a)   the weighted frequency of state a in column i, over all the
           sequences (the weights' sum in the denominator, no pseudocount);
  s_i      the entropy of column i, -Σ_a f_i(a) ln f_i(a) (0 ln 0 = 0), the
           sum over the 20 amino acids only (-states 20, the default: the gap
           counts in the denominator but is not a term, as the score leaves
           the gap out of its norm) or over the 21 states with the gap one of
           them (-states 21);
  α        the least-squares fit of F_ij ≈ α·√(s_i s_j) over all pairs i < j
           (through the origin): α = Σ F_ij √(s_i s_j) / Σ s_i s_j, 0 when
           every column has zero entropy;
  EC_ij    = F_ij - α·√(s_i s_j).

(The form of Vorberg, Seemayer and Söding 2018, CCMgen's entropy
correction.) The log's base cancels: α absorbs it.

The output is pairwise contacts' CSV: i,j,score for every pair, the best
first, columns named as RAW.csv names them, so that structprec score and
scripts/contacts_ensemble.py read it unchanged. α and the entropies' range
go to standard error.

Examples:
  pairwise contacts -apc=false -o PF00014.raw.csv PF00014.fasta
  go run . entropic -o PF00014.ec.csv PF00014.fasta PF00014.raw.csv
  go run . entropic -states 21 -o PF00014.ec21.csv PF00014.fasta PF00014.raw.csv
`

// runEntropic is the entropic command.
func runEntropic(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("entropic", entropicUsage, stderr)
	theta := fs.Float64("theta", protein.DefaultIdentity, "identity threshold of the reweighting, in (0, 1]; 0 for none")
	states := fs.Int("states", 20, "states in the entropy: 20 (the amino acids, gap not a term) or 21 (the gap a state)")
	out := fs.String("o", "", "output CSV (standard output when empty or -)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return fmt.Errorf("want ALIGNMENT and RAW.csv, got %d arguments", fs.NArg())
	}
	switch {
	case *states != 20 && *states != 21:
		return fmt.Errorf("-states %d: want 20 or 21", *states)
	case !(*theta >= 0 && *theta <= 1):
		return fmt.Errorf("-theta %v: want a number in [0, 1]", *theta)
	}
	a, err := protein.ReadAlignmentFile(fs.Arg(0))
	if err != nil {
		return err
	}
	if len(a.Alphabet()) != 21 {
		return fmt.Errorf("%s: alphabet of %d states, want the gap and the 20 amino acids", fs.Arg(0), len(a.Alphabet()))
	}
	weights, err := identityWeights(a, *theta)
	if err != nil {
		return err
	}
	s, err := columnEntropies(a, weights, *states == 21)
	if err != nil {
		return err
	}
	names := a.VarNames()
	f, err := os.Open(fs.Arg(1))
	if err != nil {
		return err
	}
	raw, err := readPairCSV(f, names)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(1), err)
	}
	alpha, ec := entropicCorrection(raw, s)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range s {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	rEnt, rAPC := backgroundCorrelations(raw, s)
	fmt.Fprintf(stderr, "entropic: %d columns, %d states, entropies %.3g to %.3g nats, alpha = %.6g; over the pairs, r(F, √(s_i s_j)) = %.3f, r(F, APC term) = %.3f\n", len(s), *states, lo, hi, alpha, rEnt, rAPC)
	return writeContactCSV(*out, stdout, names, ec)
}

// columnEntropies returns the entropy (nats) of each column of a, from the
// frequencies of its sequences weighted by weights (nil: all 1) over all
// the sequences. State 0 is the gap: with gapTerm it is one of the terms,
// without it only states 1..k-1 are, the gap still counted in the
// denominator. It returns an error when the weights are not one a sequence
// or do not sum to a positive finite total (an empty alignment included).
func columnEntropies(a alignmentView, weights []float64, gapTerm bool) ([]float64, error) {
	n, l, k := a.Len(), a.Vars(), len(a.Alphabet())
	if weights != nil && len(weights) != n {
		return nil, fmt.Errorf("%d weights for %d sequences", len(weights), n)
	}
	counts := make([]float64, l*k)
	total := 0.0
	for s := 0; s < n; s++ {
		w := 1.0
		if weights != nil {
			w = weights[s]
		}
		if !(w >= 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("weight %d is %v: want a finite number >= 0", s, w)
		}
		total += w
		for i := 0; i < l; i++ {
			counts[i*k+a.At(s, i)] += w
		}
	}
	if !(total > 0) || math.IsInf(total, 0) {
		return nil, fmt.Errorf("weights sum to %v: want a positive finite total", total)
	}
	first := 1
	if gapTerm {
		first = 0
	}
	out := make([]float64, l)
	for i := range out {
		h := 0.0
		for v := first; v < k; v++ {
			if p := counts[i*k+v] / total; p > 0 {
				h -= p * math.Log(p)
			}
		}
		out[i] = h
	}
	return out, nil
}

// entropicCorrection returns α, the least-squares coefficient of raw_ij on
// √(s_i s_j) over the pairs i < j (through the origin; 0 when every s_i s_j
// is 0), and the corrected scores raw_ij - α√(s_i s_j) (diagonal 0).
func entropicCorrection(raw mat.Symmetric, s []float64) (float64, *mat.SymDense) {
	l := raw.SymmetricDim()
	num, den := 0.0, 0.0
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			x := math.Sqrt(s[i] * s[j])
			num += raw.At(i, j) * x
			den += s[i] * s[j]
		}
	}
	alpha := 0.0
	if den > 0 {
		alpha = num / den
	}
	out := mat.NewSymDense(l, nil)
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			out.SetSym(i, j, raw.At(i, j)-alpha*math.Sqrt(s[i]*s[j]))
		}
	}
	return alpha, out
}

// readPairCSV reads a pairwise contacts CSV (header i,j,score) whose column
// names are names, into an L×L symmetric matrix. Every pair i < j must
// appear exactly once, so that the correction is fitted over all pairs; an
// unknown name, a repeated pair, a pair of a column with itself, a score
// that is not a finite number or a missing pair is an error.
func readPairCSV(r io.Reader, names []string) (*mat.SymDense, error) {
	l := len(names)
	if l < 2 {
		return nil, fmt.Errorf("%d columns: want at least 2", l)
	}
	index := make(map[string]int, l)
	for i, n := range names {
		index[n] = i
	}
	out := mat.NewSymDense(l, nil)
	seen := make([]bool, l*l)
	pairs := 0
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || (line == 1 && t == "i,j,score") {
			continue
		}
		f := strings.Split(t, ",")
		if len(f) != 3 {
			return nil, fmt.Errorf("line %d: want name_i,name_j,score", line)
		}
		i, ok1 := index[f[0]]
		j, ok2 := index[f[1]]
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("line %d: column %q or %q is not a column of the alignment", line, f[0], f[1])
		}
		if i == j {
			return nil, fmt.Errorf("line %d: a column with itself", line)
		}
		if i > j {
			i, j = j, i
		}
		if seen[i*l+j] {
			return nil, fmt.Errorf("line %d: pair %s,%s again", line, names[i], names[j])
		}
		v, err := strconv.ParseFloat(f[2], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("line %d: score %q: want a finite number", line, f[2])
		}
		seen[i*l+j] = true
		pairs++
		out.SetSym(i, j, v)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if want := l * (l - 1) / 2; pairs != want {
		return nil, errors.New("not every pair: " + strconv.Itoa(pairs) + " of " + strconv.Itoa(want) + " (write it with -min-sep 1 and no -top)")
	}
	return out, nil
}

// backgroundCorrelations returns the Pearson correlations over the pairs
// i < j of raw_ij with √(s_i s_j), the entropic term, and with the average
// product correction's term m_i m_j / m (m_i the mean of raw over column
// i's other columns, m over all pairs): how much of the raw scores each
// background explains (a diagnostic on standard error; NaN when a term is
// constant).
func backgroundCorrelations(raw mat.Symmetric, s []float64) (float64, float64) {
	l := raw.SymmetricDim()
	m := make([]float64, l)
	total := 0.0
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			v := raw.At(i, j)
			m[i] += v
			m[j] += v
			total += v
		}
	}
	pairs := float64(l * (l - 1) / 2)
	all := total / pairs
	for i := range m {
		m[i] /= float64(l - 1)
	}
	var f, e, a []float64
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			f = append(f, raw.At(i, j))
			e = append(e, math.Sqrt(s[i]*s[j]))
			a = append(a, m[i]*m[j]/all)
		}
	}
	return pearson(f, e), pearson(f, a)
}

// pearson returns the Pearson correlation of x and y (same length; NaN
// when either is constant or empty).
func pearson(x, y []float64) float64 {
	n := float64(len(x))
	mx, my := 0.0, 0.0
	for k := range x {
		mx += x[k]
		my += y[k]
	}
	mx /= n
	my /= n
	sxy, sxx, syy := 0.0, 0.0, 0.0
	for k := range x {
		dx, dy := x[k]-mx, y[k]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	return sxy / math.Sqrt(sxx*syy)
}
