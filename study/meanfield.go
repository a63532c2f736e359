package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"time"

	"github.com/mrfkit/pairwise/internal/dca"
	"github.com/mrfkit/pairwise/protein"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// meanfieldUsage is the help of "meanfield".
const meanfieldUsage = `Usage: go run . meanfield [flags] ALIGNMENT      (from study/)

Mean-field (Gaussian) direct coupling analysis, a second estimator class
beside the pseudo-likelihood of pairwise contacts (issue 32; docs/contacts,
"A second estimator: mean-field couplings, measured"). The alignment is read
and reweighted as pairwise contacts reads it by default (protein.ReadAlignment
with its defaults, protein.Reweight at identity -theta). Then:

  f_i(a), f_ij(a,b)  one-hot frequencies of the weighted sequences, mixed with
                     the uniform distribution at weight -pc (λ):
                     (1-λ)f_i(a) + λ/q and (1-λ)f_ij(a,b) + λ/q² for i ≠ j,
                     q = 21 states (the gap and the 20 amino acids);
  C                  C_{ia,jb} = f_ij(a,b) - f_i(a)f_j(b) over the 20 amino
                     acids a, b (the gap is the dropped gauge state: its
                     couplings are zero), f_ii(a,b) = f_i(a)δ_ab: an
                     (L·20)×(L·20) symmetric positive definite matrix,
                     inverted in place by its Cholesky factor (LAPACK's
                     potrf/potri in gonum): memory (L·20)²·8 bytes, once;
  e_ij(a,b)          = -(C⁻¹)_{ia,jb};
  score              the Frobenius norm of e_ij in the zero-sum gauge over
                     the 20 amino acids (gap excluded, as pairwise contacts
                     scores a pair), then the average product correction.

The output is pairwise contacts' CSV: i,j,score for every pair, the best
first, columns named as pairwise contacts names them (col1, col2, ...
without a focus), so that structprec score and
scripts/contacts_ensemble.py read it unchanged.

Examples:
  go run . meanfield -o PF00014.mf.csv PF00014.fasta
  go run . meanfield -check PF00014.fasta     # also max |C·C⁻¹ - I| on stderr
`

// mfDefaultPseudocount is the weight λ of the uniform distribution in the
// frequencies, mfDCA's standard (Morcos et al. 2011: λ = Meff, i.e. half
// of the mass to the pseudocount).
const mfDefaultPseudocount = 0.5

// runMeanfield is the meanfield command.
func runMeanfield(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("meanfield", meanfieldUsage, stderr)
	theta := fs.Float64("theta", protein.DefaultIdentity, "identity threshold of the reweighting, in (0, 1]; 0 for none")
	pc := fs.Float64("pc", mfDefaultPseudocount, "pseudocount weight λ in (0, 1): the frequencies are (1-λ)·f + λ·uniform")
	out := fs.String("o", "", "output CSV (standard output when empty or -)")
	workers := fs.Int("workers", 2, "threads of the linear algebra (GOMAXPROCS)")
	check := fs.Bool("check", false, "keep a copy of C and print max |C·C⁻¹ - I| (twice the memory, one more product)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("want one ALIGNMENT, got %d arguments", fs.NArg())
	}
	switch {
	case !(*pc > 0 && *pc < 1):
		return fmt.Errorf("-pc %v: want a number in (0, 1)", *pc)
	case !(*theta >= 0 && *theta <= 1):
		return fmt.Errorf("-theta %v: want a number in [0, 1]", *theta)
	case *workers < 1:
		return fmt.Errorf("-workers %d: want 1 or more", *workers)
	}
	runtime.GOMAXPROCS(*workers)
	a, err := protein.ReadAlignmentFile(fs.Arg(0))
	if err != nil {
		return err
	}
	if a.Vars() < 2 {
		return fmt.Errorf("%s: %d column(s), need at least 2", fs.Arg(0), a.Vars())
	}
	weights, err := identityWeights(a, *theta)
	if err != nil {
		return err
	}
	t0 := time.Now()
	c, err := mfCovariance(a, weights, *pc)
	if err != nil {
		return err
	}
	var keep *mat.SymDense
	if *check {
		keep = mat.NewSymDense(c.SymmetricDim(), nil)
		keep.CopySym(c)
	}
	tc := time.Since(t0)
	if err := mfInvertInPlace(c); err != nil {
		return err
	}
	ti := time.Since(t0) - tc
	if keep != nil {
		fmt.Fprintf(stderr, "meanfield: dim %d, max |C·C⁻¹ - I| = %.3g\n", c.SymmetricDim(), mfIdentityError(keep, c))
		keep = nil
	}
	scores := mfScores(c, a.Vars(), len(a.Alphabet())-1)
	c = nil
	fmt.Fprintf(stderr, "meanfield: %d sequences, %d columns; C %.1f s, inverse %.1f s, all %.1f s\n", a.Len(), a.Vars(), tc.Seconds(), ti.Seconds(), time.Since(t0).Seconds())
	return writeContactCSV(*out, stdout, a.VarNames(), scores)
}

// alignmentView is what the mean-field estimator reads of an alignment
// (*protein.Alignment has it).
type alignmentView interface {
	Len() int
	Vars() int
	Alphabet() string
	At(s, i int) int
}

// mfCovariance returns the connected correlation matrix C of the one-hot
// states 1..k-1 of a (state 0, the gap, dropped as the gauge state), from
// the frequencies of the sequences weighted by weights (nil: all 1) mixed
// with the uniform distribution over the k states at weight lambda. Entry
// (i(k-1)+a-1, j(k-1)+b-1) is C_ij(a, b). It returns an error when the
// weights do not sum to a positive finite total or lambda is outside (0, 1).
func mfCovariance(a alignmentView, weights []float64, lambda float64) (*mat.SymDense, error) {
	n, l, k := a.Len(), a.Vars(), len(a.Alphabet())
	if !(lambda > 0 && lambda < 1) {
		return nil, fmt.Errorf("pseudocount %v: want (0, 1)", lambda)
	}
	if k < 2 {
		return nil, errors.New("alphabet of fewer than 2 states")
	}
	if weights != nil && len(weights) != n {
		return nil, fmt.Errorf("%d weights for %d sequences", len(weights), n)
	}
	q := k - 1
	d := l * q
	c := mat.NewSymDense(d, nil)
	raw := c.RawSymmetric()
	fi := make([]float64, d)
	total := 0.0
	idx := make([]int, l)
	for s := 0; s < n; s++ {
		w := 1.0
		if weights != nil {
			w = weights[s]
		}
		if w == 0 {
			continue
		}
		total += w
		m := 0
		for i := 0; i < l; i++ {
			if v := a.At(s, i); v > 0 {
				idx[m] = i*q + v - 1
				m++
			}
		}
		// idx is increasing: the upper triangle is row idx[x], column idx[y], y ≥ x.
		for x := 0; x < m; x++ {
			r := raw.Data[idx[x]*raw.Stride:]
			fi[idx[x]] += w
			for _, y := range idx[x+1 : m] {
				r[y] += w
			}
		}
	}
	if !(total > 0) || math.IsInf(total, 0) {
		return nil, fmt.Errorf("weights sum to %v: want a positive finite total", total)
	}
	fk := float64(k)
	for u := range fi {
		fi[u] = (1-lambda)*fi[u]/total + lambda/fk
	}
	pair := lambda / (fk * fk)
	for u := 0; u < d; u++ {
		r := raw.Data[u*raw.Stride:]
		iu := u / q
		for v := u; v < d; v++ {
			if v/q == iu {
				// Diagonal block: f_ii(a, b) = f_i(a)δ_ab, as mixed.
				if v == u {
					r[v] = fi[u] - fi[u]*fi[u]
				} else {
					r[v] = -fi[u] * fi[v]
				}
				continue
			}
			r[v] = (1-lambda)*r[v]/total + pair - fi[u]*fi[v]
		}
	}
	return c, nil
}

// mfInvertInPlace overwrites the symmetric positive definite c with its
// inverse, through its Cholesky factor in c's own storage (no second
// matrix). It returns an error, c then undefined, when c is not positive
// definite.
func mfInvertInPlace(c *mat.SymDense) error {
	raw := c.RawSymmetric()
	if raw.Uplo != blas.Upper {
		return errors.New("want upper storage")
	}
	t, ok := lapack64.Potrf(raw)
	if !ok {
		return errors.New("the correlation matrix C is not positive definite (Cholesky failed)")
	}
	if _, ok := lapack64.Potri(t); !ok {
		return errors.New("the correlation matrix C is singular (Cholesky inverse failed)")
	}
	return nil
}

// mfIdentityError returns max |C·X - I| over all entries, X the computed
// inverse (both symmetric).
func mfIdentityError(c, x *mat.SymDense) float64 {
	d := c.SymmetricDim()
	var p mat.Dense
	p.Mul(c, x)
	worst := 0.0
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			v := p.At(i, j)
			if i == j {
				v--
			}
			worst = math.Max(worst, math.Abs(v))
		}
	}
	return worst
}

// mfScores returns the L×L contact scores from the inverse correlation
// matrix inv (q states a column): the Frobenius norm of the block e_ij =
// -inv_ij in the zero-sum gauge over its q states, then the average product
// correction (S_ij - S_i·S_j·/S_··, the means over the other columns and
// over all pairs, as pairwise contacts applies it). The diagonal is zero.
func mfScores(inv mat.Symmetric, l, q int) *mat.SymDense {
	s := mat.NewSymDense(l, nil)
	blk := make([]float64, q*q)
	row, col := make([]float64, q), make([]float64, q)
	for i := 0; i < l; i++ {
		for j := i + 1; j < l; j++ {
			for a := 0; a < q; a++ {
				for b := 0; b < q; b++ {
					blk[a*q+b] = -inv.At(i*q+a, j*q+b)
				}
			}
			s.SetSym(i, j, dca.ZeroSumNorm(blk, q, 0, row, col))
		}
	}
	dca.APC(s)
	return s
}

// writeContactCSV writes every pair i < j of scores ranked as pairwise
// contacts -o ranks them (protein.RankContacts, separation 1), in its
// format "name_i,name_j,score" (%.6g) under the header i,j,score.
func writeContactCSV(out string, stdout io.Writer, names []string, scores mat.Symmetric) error {
	f, done, err := outputFile(out, stdout)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "i,j,score")
	for _, c := range protein.RankContacts(scores, 1) {
		fmt.Fprintf(w, "%s,%s,%.6g\n", names[c.I], names[c.J], c.Score)
	}
	if err := w.Flush(); err != nil {
		done()
		return err
	}
	return done()
}

// identityWeights returns the weights of a's sequences as pairwise
// contacts makes them: the inverse size of each sequence's neighbourhood
// at identity theta (protein.Reweight), or nil (every sequence 1) when
// theta is 0.
func identityWeights(a *protein.Alignment, theta float64) ([]float64, error) {
	if theta == 0 {
		return nil, nil
	}
	w, err := protein.Reweight(a, protein.ReweightIdentity(theta))
	if err != nil {
		return nil, err
	}
	return w.Weights, nil
}
