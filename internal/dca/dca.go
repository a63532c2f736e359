// Package dca holds the scores of direct coupling analysis that package
// pairwise (LearnContacts, the gauge of a missing value's couplings) and
// package protein (ContactScores) share: the sums and Frobenius norms of a
// k×k coupling block W_ij in the zero-sum gauge, and the average product
// correction of a matrix of scores. Blocks are row-major []float64 of
// length k·k, w[a*k+b] = W_ij(a, b); nothing here imports the public
// packages.
package dca

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// BlockSums sets row[a] and col[b] to the row and column sums of the k×k
// row-major block w and returns the sum of all its entries. row and col
// have length k; w is not modified.
func BlockSums(w []float64, k int, row, col []float64) float64 {
	clear(row)
	clear(col)
	g := 0.0
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			v := w[a*k+b]
			row[a] += v
			col[b] += v
			g += v
		}
	}
	return g
}

// CentredNorm returns the Frobenius norm, over states first..k-1, of the
// k×k row-major block w with its rows and columns centred over all k
// states (as Model.Centered centres it): the sum of squares of
// w(a, b) - r_a - c_b + g over a, b ≥ first, with r, c and g the row,
// column and grand means over all k states. row and col are scratch of
// length k; w is not modified. A NaN entry gives NaN.
func CentredNorm(w []float64, k, first int, row, col []float64) float64 {
	g := BlockSums(w, k, row, col)
	fk := float64(k)
	g /= fk * fk
	for a := range row {
		row[a] /= fk
		col[a] /= fk
	}
	sum := 0.0
	for a := first; a < k; a++ {
		for b := first; b < k; b++ {
			v := w[a*k+b] - row[a] - col[b] + g
			sum += v * v
		}
	}
	return math.Sqrt(sum)
}

// ZeroSumNorm returns the Frobenius norm of the k×k block w (row-major)
// restricted to the states first..k-1 and centred over them: w(a, b) −
// r_a − c_b + g with the row, column and grand means over those states
// only (unlike CentredNorm, which centres over all k). row and col are
// scratch of length k; w is not modified. A NaN entry gives NaN.
func ZeroSumNorm(w []float64, k, first int, row, col []float64) float64 {
	q := float64(k - first)
	clear(row)
	clear(col)
	g := 0.0
	for a := first; a < k; a++ {
		for b := first; b < k; b++ {
			v := w[a*k+b]
			row[a] += v
			col[b] += v
			g += v
		}
	}
	g /= q * q
	s := 0.0
	for a := first; a < k; a++ {
		for b := first; b < k; b++ {
			v := w[a*k+b] - row[a]/q - col[b]/q + g
			s += v * v
		}
	}
	return math.Sqrt(s)
}

// APC replaces the off-diagonal scores of s by their average product
// corrected values, in place:
//
//	S_ij - S_i· S_j· / S_··,
//
// with S_i· the mean of S_ij over j ≠ i and S_·· the mean over all pairs
// i ≠ j; the diagonal is left as it is. When n < 3, or when the scores sum
// to zero, s is left unchanged, as the correction is then 0/0 or removes
// everything. A NaN score makes every corrected score NaN.
func APC(s *mat.SymDense) {
	n := s.SymmetricDim()
	if n < 3 {
		return
	}
	mean := make([]float64, n)
	total := 0.0
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			v := s.At(i, j)
			mean[i] += v
			mean[j] += v
			total += v
		}
	}
	if total == 0 {
		return
	}
	all := total / float64(n*(n-1)/2)
	for i := range mean {
		mean[i] /= float64(n - 1)
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			s.SetSym(i, j, s.At(i, j)-mean[i]*mean[j]/all)
		}
	}
}
