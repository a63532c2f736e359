package models

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise"
)

// NewGridPotts returns the model of the paper's second experiment: a
// rows×cols grid (node r*cols + c) with alphabet k, zero fields, and on every
// grid edge the checkerboard coupling
//
//	W_ij(a, b) = s_ij · θ · (-1)^{a+b},
//
// with a random sign s_ij = ±1 per edge drawn from src. Every row and column of
// W_ij sums to zero for even k, so the model is centred, its width is θ times
// the largest degree and its minimum edge weight is θ. For k = 2 this is the
// Ising grid with A_ij = s_ij θ. It returns an error for rows or cols < 1,
// odd k or k < 2, a NaN, infinite or non-positive θ, a nil src, or a model
// larger than MaxModelEntries.
func NewGridPotts(rows, cols, k int, theta float64, src rand.Source) (*pairwise.Model, error) {
	if rows < 1 || cols < 1 {
		return nil, fmt.Errorf("models: NewGridPotts: grid %d×%d, want at least 1×1", rows, cols)
	}
	if k < 2 || k%2 != 0 {
		return nil, fmt.Errorf("models: NewGridPotts: alphabet size k = %d, want an even k ≥ 2 (checkerboard couplings are centred only for even k)", k)
	}
	if math.IsNaN(theta) || math.IsInf(theta, 0) || theta <= 0 {
		return nil, fmt.Errorf("models: NewGridPotts: θ = %v, want a finite positive number", theta)
	}
	if src == nil {
		return nil, errors.New("models: NewGridPotts: nil random source")
	}
	if float64(rows)*float64(cols) > pairwise.MaxModelEntries {
		return nil, fmt.Errorf("models: NewGridPotts: grid %d×%d has more variables than MaxModelEntries = %d allows", rows, cols, pairwise.MaxModelEntries)
	}
	if err := checkSize("NewGridPotts", rows*cols, k, rows*(cols-1)+cols*(rows-1)); err != nil {
		return nil, err
	}
	rnd := rand.New(src)
	m, err := pairwise.NewModel(rows*cols, k)
	if err != nil {
		return nil, err
	}
	w := mat.NewDense(k, k, nil)
	couple := func(i, j int) {
		s := 1.0
		if rnd.IntN(2) == 0 {
			s = -1
		}
		for a := 0; a < k; a++ {
			for b := 0; b < k; b++ {
				v := s * theta
				if (a+b)%2 == 1 {
					v = -v
				}
				w.Set(a, b, v)
			}
		}
		// Cannot fail: indices and sizes are valid by construction.
		_ = m.SetCoupling(i, j, w)
	}
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			v := r*cols + c
			if c+1 < cols {
				couple(v, v+1)
			}
			if r+1 < rows {
				couple(v, v+cols)
			}
		}
	}
	return m, nil
}

// NewDiamond returns the Ising model of the paper's first experiment: n nodes,
// node 0 and node n-1 each joined to every node 1..n-2, so 2(n-2) edges, all
// with weight A_ij = a, and zero field. Its width is (n-2)|a| (at the two
// hubs). The paper (Figure 1) shows that its incoherence value at a hub grows
// past 1 with n and a, so the incoherence condition of Ravikumar, Wainwright
// and Lafferty (2010) fails, while Algorithm 1 still learns it. It returns an error
// for n < 3, a NaN, infinite or zero a, or a model larger than
// MaxModelEntries.
func NewDiamond(n int, a float64) (*pairwise.Model, error) {
	if n < 3 {
		return nil, fmt.Errorf("models: NewDiamond: n = %d, want at least 3", n)
	}
	if math.IsNaN(a) || math.IsInf(a, 0) || a == 0 {
		return nil, fmt.Errorf("models: NewDiamond: a = %v, want a finite nonzero weight", a)
	}
	// The couplings of NewIsing's form, set one by one: a dense A would
	// take n² entries for 2(n-2) edges.
	if err := checkSize("NewDiamond", n, 2, 2*(n-2)); err != nil {
		return nil, err
	}
	m, err := pairwise.NewModel(n, 2)
	if err != nil {
		return nil, err
	}
	w := mat.NewDense(2, 2, []float64{a, -a, -a, a})
	for j := 1; j < n-1; j++ {
		// Cannot fail: indices and sizes are valid by construction.
		_ = m.SetCoupling(0, j, w)
		_ = m.SetCoupling(j, n-1, w)
	}
	return m, nil
}

// checkSize returns an error when a model of n variables, k states and the
// given number of coupled pairs would hold more than
// pairwise.MaxModelEntries entries, before any of it is allocated (NewModel
// checks the fields, SetCoupling does not count). It computes in float64,
// so that no product overflows.
func checkSize(fn string, n, k, pairs int) error {
	entries := float64(n)*float64(k) + 2*float64(pairs)*float64(k)*float64(k)
	if entries > pairwise.MaxModelEntries {
		return fmt.Errorf("models: %s: n = %d variables, k = %d states and %d coupled pairs need %.3g entries, more than MaxModelEntries = %d (%d GiB)",
			fn, n, k, pairs, entries, pairwise.MaxModelEntries, pairwise.MaxModelEntries*8>>30)
	}
	return nil
}
