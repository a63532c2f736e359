package protein

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// DefaultSmoothSeparation is the smallest separation |i − j| of the
// neighbouring pairs that SmoothScores averages: 6, the separation from
// which the contact benchmarks of docs/contacts rank pairs. Closer pairs
// score high because the chain joins them, not because they touch.
const DefaultSmoothSeparation = 6

// SmoothDepth is the depth below which AutoSmoothAlpha smooths: 20
// effective sequences a column (Neff/L). Chosen on the 56 family rows of
// docs/contacts' benchmark (below it SmoothScores with α = 1 raised the
// precision of the top L pairs on 31 of 43, at or above it lowered it on
// 5 of 13), then written down before 16 fresh families were run, on
// which the rule was at least the unsmoothed scores' precision at top
// L/5, L/2 and L and at plmc's top L on 14 of 16 against 10; it then
// failed its confirmation on two more fresh sets (9 and 8 families: below
// the unsmoothed scores at top L and L/2), so pairwise contacts no longer
// applies it by default.
const SmoothDepth = 20

// AutoSmoothAlpha returns the α of SmoothScores for an alignment of
// columns columns and neff effective sequences (Reweight's Neff, or the
// number of sequences without reweighting): 1 when neff/columns is below
// SmoothDepth, else 0 (no smoothing): pairwise contacts -smooth auto,
// not its default. A NaN neff, or columns ≤ 0, gives 0.
func AutoSmoothAlpha(neff float64, columns int) float64 {
	if columns <= 0 || !(neff/float64(columns) < SmoothDepth) {
		return 0
	}
	return 1
}

// SmoothScores returns the contact scores s with each pair's score raised
// by alpha times the mean score of its neighbouring pairs, a spatial prior
// on the contact map that is not part of direct coupling analysis:
//
//	S'_ij = S_ij + α · mean{ S_{i+a, j+b} : a, b ∈ {−1, 0, 1}, (a, b) ≠ (0, 0), |(j+b) − (i+a)| ≥ minSep }
//
// over the neighbours inside the matrix; a pair without such a neighbour
// keeps its score. Residues in contact come in patches (a pair of strands,
// two packed helices), so a true contact's neighbours tend to score high
// too, while a pair that scores high by chance has neighbours that score
// high by chance only. Neighbours are adjacent rows and columns of s: when
// the alignment's columns skip residues (Alignment.Columns), adjacent rows
// can be residues apart.
//
// Beyond the paper and beyond direct coupling analysis. Measured in
// docs/contacts ("A spatial prior on the score map"): with α = 1 on the
// APC scores of LearnContacts, the precision of the top L pairs rose on
// the benchmark's shallow families (Neff/L below 20: 31 of 43 up, 7 down,
// mean +0.04) and fell a little on deep ones. The rule drawn from that,
// AutoSmoothAlpha, then passed on 16 families that took no part in it and
// failed on 17 more in two fresh sets (on a few families it cuts the
// precision badly, one of them by lifting a block of mostly-gap columns),
// so it is an option (pairwise contacts -smooth auto), not the default;
// LearnContacts' own scores are not smoothed.
//
// The result is a new matrix; s is not changed. The diagonal is zero. An
// error is returned for a nil or empty s, an alpha that is negative, NaN or
// infinite, a minSep below 1, or a NaN or infinite score (named by its
// pair). α = 0 returns a copy of s.
func SmoothScores(s mat.Symmetric, alpha float64, minSep int) (*mat.SymDense, error) {
	if s == nil {
		return nil, errors.New("protein: SmoothScores: nil scores")
	}
	n := s.SymmetricDim()
	if n == 0 {
		return nil, errors.New("protein: SmoothScores: empty scores")
	}
	if !(alpha >= 0) || math.IsInf(alpha, 1) {
		return nil, fmt.Errorf("protein: SmoothScores: alpha = %v, want a finite number ≥ 0", alpha)
	}
	if minSep < 1 {
		return nil, fmt.Errorf("protein: SmoothScores: minSep = %d, want at least 1", minSep)
	}
	out := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			// Every pair is a centre once: a NaN or infinite score is
			// found here before the result is returned.
			v := s.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("protein: SmoothScores: score of pair (%d, %d) is %v", i, j, v)
			}
			sum, count := 0.0, 0
			for a := -1; a <= 1; a++ {
				for b := -1; b <= 1; b++ {
					p, q := i+a, j+b
					if (a == 0 && b == 0) || p < 0 || q >= n || q-p < minSep {
						continue
					}
					sum += s.At(p, q)
					count++
				}
			}
			if count > 0 {
				v += alpha * sum / float64(count)
			}
			out.SetSym(i, j, v)
		}
	}
	return out, nil
}
