package engine

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// spdFactor is the Cholesky factorisation A = UᵀU of a symmetric positive
// definite matrix, by LAPACK's Potrf through gonum's lapack64, without the
// condition estimate that mat.Cholesky.Factorize always computes (a norm
// and Dpocon: 70% of its time on the edge test's and the refits' n × n
// matrices at n = 25, by the profile of BenchmarkBootstrap/resample). The
// callers accepted any condition (a large one was only mat.Condition's
// warning), and the factor, the solves and the inverse are the same
// LAPACK calls on the same numbers, so the results are identical. The
// zero value is ready to use; it reuses its storage.
type spdFactor struct {
	u    blas64.Triangular
	data []float64
}

// factor factorises a (its upper triangle) and reports whether a is
// positive definite; when it is not, the factor must not be used.
func (c *spdFactor) factor(a *mat.SymDense) bool {
	n := a.SymmetricDim()
	if cap(c.data) < n*n {
		c.data = make([]float64, n*n)
	}
	c.data = c.data[:n*n]
	raw := a.RawSymmetric()
	for r := 0; r < n; r++ {
		copy(c.data[r*n+r:(r+1)*n], raw.Data[r*raw.Stride+r:r*raw.Stride+n])
	}
	c.u = blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: n, Data: c.data}
	_, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: c.data})
	return ok
}

// solveVec sets x = A⁻¹b (x and b may be the same slice).
func (c *spdFactor) solveVec(x, b []float64) {
	copy(x, b)
	lapack64.Potrs(c.u, blas64.General{Rows: c.u.N, Cols: 1, Stride: 1, Data: x})
}

// inverse returns A⁻¹, or false when Potri finds the factor singular.
func (c *spdFactor) inverse() (*mat.SymDense, bool) {
	n := c.u.N
	inv := mat.NewSymDense(n, nil)
	raw := inv.RawSymmetric()
	for r := 0; r < n; r++ {
		copy(raw.Data[r*raw.Stride+r:r*raw.Stride+n], c.data[r*n+r:(r+1)*n])
	}
	_, ok := lapack64.Potri(blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: raw.Stride, Data: raw.Data})
	return inv, ok
}

// InverseSPD returns the inverse of the symmetric positive definite a, or
// false when a is not positive definite (Potrf fails) or its factor is
// singular. Unlike mat.Cholesky it estimates no condition number; a
// nearly singular a gives a large, finite inverse.
func InverseSPD(a *mat.SymDense) (*mat.SymDense, bool) {
	var c spdFactor
	if !c.factor(a) {
		return nil, false
	}
	return c.inverse()
}
