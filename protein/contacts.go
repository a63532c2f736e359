package protein

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/internal/dca"
	"gonum.org/v1/gonum/mat"
)

// ContactOption configures ContactScores. Options are applied in order;
// where an option is repeated, the last one wins.
type ContactOption interface {
	applyContact(*contactConfig)
}

type contactOptionFunc func(*contactConfig)

func (f contactOptionFunc) applyContact(c *contactConfig) { f(c) }

type contactConfig struct {
	ignoreGap bool
	apc       bool
}

// ContactIgnoreGap leaves the gap, state 0, out of the norm when on: the
// coupling block is centred over all k states and its gap row and column
// are then dropped, as plmDCA and EVcouplings score protein models. The
// default is off (all k states).
func ContactIgnoreGap(on bool) ContactOption {
	return contactOptionFunc(func(c *contactConfig) { c.ignoreGap = on })
}

// ContactAPC turns the average product correction on or off. The default is
// on.
func ContactAPC(on bool) ContactOption {
	return contactOptionFunc(func(c *contactConfig) { c.apc = on })
}

// ContactScores returns the n×n symmetric matrix of coupling scores of m,
// the standard contact predictor of direct coupling analysis. For each pair
// i ≠ j the score is the Frobenius norm of W_ij in the zero-sum gauge,
//
//	S_ij = ‖W'_ij‖_F,   W'_ij(a, b) = W_ij(a, b) - r_a - c_b + g,
//
// with r, c and g the row, column and grand means of W_ij over all k
// states (as pairwise.Model.Centered centres it), the sums running over the states
// 1..k-1 only with ContactIgnoreGap. The zero-sum gauge makes the score
// depend on the distribution only: constants added to a row or a column of
// a block and taken out of a field leave it unchanged. Then, unless
// ContactAPC(false), the average product correction removes the part of
// the scores explained by how strongly each column couples overall:
//
//	APC_ij = S_ij - S_i· S_j· / S_··,
//
// with S_i· the mean of S_ij over j ≠ i and S_·· the mean over all pairs
// i ≠ j. The diagonal is zero. When every score is zero (a model without
// couplings) or n < 3, the correction is not applied, as it is then 0/0 or
// removes everything.
//
// ContactScores returns an error for a nil model. Scores are finite for
// any pairwise.Model (its couplings are finite).
func ContactScores(m *pairwise.Model, opts ...ContactOption) (*mat.SymDense, error) {
	if m == nil {
		return nil, errors.New("protein: ContactScores: nil model")
	}
	cfg := contactConfig{apc: true}
	for x, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("protein: ContactScores: option %d is nil", x)
		}
		o.applyContact(&cfg)
	}
	n, k := m.Vars(), m.Alphabet()
	s := mat.NewSymDense(n, nil)
	row := make([]float64, k)
	col := make([]float64, k)
	first := 0
	if cfg.ignoreGap {
		first = 1
	}
	for i := 0; i < n; i++ {
		for _, j := range m.Neighbors(i) {
			if j <= i {
				continue
			}
			w := m.Coupling(i, j).RawMatrix().Data
			s.SetSym(i, j, dca.CentredNorm(w, k, first, row, col))
		}
	}
	if cfg.apc {
		dca.APC(s)
	}
	return s, nil
}

// Contact is a pair of variables I < J with a score, an entry of a ranked
// contact list.
type Contact struct {
	I, J  int
	Score float64
}

// RankContacts returns the pairs I < J of scores with J - I ≥ minSeparation
// (the sequence separation; contact predictions usually take 6, or 1 for
// every pair), sorted by decreasing score, ties by (I, J). NaN scores come
// last. minSeparation below 1 counts as 1. scores is not modified.
func RankContacts(scores mat.Symmetric, minSeparation int) []Contact {
	n := scores.SymmetricDim()
	minSeparation = max(minSeparation, 1)
	var out []Contact
	for i := 0; i < n; i++ {
		for j := i + minSeparation; j < n; j++ {
			out = append(out, Contact{I: i, J: j, Score: scores.At(i, j)})
		}
	}
	sort.SliceStable(out, func(x, y int) bool {
		a, b := out[x].Score, out[y].Score
		if math.IsNaN(b) {
			return !math.IsNaN(a)
		}
		return a > b
	})
	return out
}

// WritePlmcCouplings writes the coupling scores of the columns of a to w,
// one line a pair i < j in column order, in the layout of plmc's couplings
// file (its -c output), which its downstream tools read:
//
//	RES_I FOCUS_AI RES_J FOCUS_AJ 0 SCORE
//
// RES is a column's residue number (Alignment.Columns), FOCUS_A its letter
// in the focus sequence ("-" without a focus), and SCORE the pair's score
// with six decimals ('%f'), a NaN score written 0. The numbers are the
// focus sequence's own; plmc counts from its first column instead, which
// differs when the focus sequence has gaps (see Alignment.Columns). It
// returns an error unless scores has one row a column of a, and the first
// write error of w as w returned it.
func WritePlmcCouplings(w io.Writer, a *Alignment, scores mat.Symmetric) error {
	n := scores.SymmetricDim()
	if n != a.Vars() {
		return fmt.Errorf("protein: WritePlmcCouplings: %d×%d scores for %d columns", n, n, a.Vars())
	}
	num := a.Columns()
	letter := func(i int) string {
		if f := a.Focus(); f >= 0 {
			return string(a.Alphabet()[a.At(f, i)])
		}
		return "-"
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			v := scores.At(i, j)
			if math.IsNaN(v) {
				v = 0
			}
			if _, err := fmt.Fprintf(w, "%d %s %d %s 0 %f\n", num[i], letter(i), num[j], letter(j), v); err != nil {
				return err
			}
		}
	}
	return nil
}

// ContactPrecision returns the fraction of the first top pairs of ranked
// that are true contacts, isContact(I, J) reporting which are. The usual
// measures are top = L, L/2 and L/5 for L columns, on a ranking by
// RankContacts with a minimum separation. When ranked has fewer than top
// pairs, all of them are counted; it returns NaN when top < 1 or ranked is
// empty.
func ContactPrecision(ranked []Contact, top int, isContact func(i, j int) bool) float64 {
	top = min(top, len(ranked))
	if top < 1 {
		return math.NaN()
	}
	hits := 0
	for _, c := range ranked[:top] {
		if isContact(c.I, c.J) {
			hits++
		}
	}
	return float64(hits) / float64(top)
}

// MutationEffects returns the n×k matrix of the effects of every single
// substitution of the sequence z under m: entry (i, a) is
//
//	m.LogWeight(z with z_i = a) - m.LogWeight(z)
//	  = θ_i(a) - θ_i(z_i) + Σ_{j≠i} (W_ij(a, z_j) - W_ij(z_i, z_j)),
//
// the log-odds of the mutant against z (the normalising constant cancels),
// which is zero at a = z_i. It returns an error for a nil model, len(z) ≠ n
// or a state outside [0, k). z is not modified.
func MutationEffects(m *pairwise.Model, z []int) (*mat.Dense, error) {
	if m == nil {
		return nil, errors.New("protein: MutationEffects: nil model")
	}
	n, k := m.Vars(), m.Alphabet()
	if len(z) != n {
		return nil, fmt.Errorf("protein: MutationEffects: len(z) = %d, want n = %d", len(z), n)
	}
	for i, v := range z {
		if v < 0 || v >= k {
			return nil, fmt.Errorf("protein: MutationEffects: z[%d] = %d outside [0, %d)", i, v, k)
		}
	}
	out := mat.NewDense(n, k, nil)
	row := make([]float64, k)
	for i := 0; i < n; i++ {
		copy(row, m.Field(i))
		for _, j := range m.Neighbors(i) {
			w, zj := m.Coupling(i, j).RawMatrix().Data, z[j]
			for a := 0; a < k; a++ {
				row[a] += w[a*k+zj]
			}
		}
		ref := row[z[i]]
		for a := range row {
			row[a] -= ref
		}
		row[z[i]] = 0
		out.SetRow(i, row)
	}
	return out, nil
}
