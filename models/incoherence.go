package models

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise"
)

// MaxIncoherenceVars is the largest number of variables for which
// Incoherence enumerates the 2^n states.
const MaxIncoherenceVars = 24

// Incoherence returns the incoherence value at node i of an Ising model
// (k = 2), the quantity of the incoherence condition of Ravikumar, Wainwright
// and Lafferty, "High-dimensional Ising model selection using l1-regularized
// logistic regression" (Annals of Statistics, 2010), Assumption A2:
//
//	max_{j ∈ S^c} ‖Q*_{jS} (Q*_{SS})⁻¹‖₁,
//
// the l∞ operator norm of Q*_{S^c S}(Q*_{SS})⁻¹. Q* is the Fisher information
// of node i's logistic regression at the truth,
//
//	Q* = E[σ′(⟨w*, x⟩) x xᵀ],   x = [z_{−i}, 1],   w* = [2A_{i,−i}, 2θ_i],
//
// with σ′(u) = σ(u)(1 − σ(u)) (P(z_i | z_{−i}) = σ(z_i⟨w*, x⟩), Fact 1), S the
// support of w* (the neighbours of i, and the bias coordinate, which the
// learners never threshold) and S^c the other variables. Their guarantee for
// l1-regularised logistic regression needs a value of at most 1 − α for some
// α > 0; the paper's Figure 1 shows graphs where it exceeds 1 and
// Algorithm 1 still recovers the graph. A value of 0 means S^c is empty or
// uncorrelated with S under the weights σ′.
//
// RWL10 treat zero fields and x = z_{−i}. With a zero field the bias row of
// Q* is zero off the diagonal (σ′ is even and the distribution symmetric
// under z → −z, so E[σ′·z_j] = 0), and the value is theirs exactly; the bias
// only matters for models with fields.
//
// The expectation is exact: Incoherence enumerates the 2^n states (Gray code
// order, O(2^n·n²) time), so it returns an error for n > MaxIncoherenceVars,
// and also for k ≠ 2, i out of range, or a singular Q*_{SS} (which does not
// happen for finite couplings). For the paper's diamond graph at any size,
// DiamondIncoherence gives the same value from a closed form. The model is
// not modified.
func Incoherence(m *pairwise.Model, i int) (float64, error) {
	if m == nil {
		return 0, errors.New("models: Incoherence: nil model")
	}
	if m.Alphabet() != 2 {
		return 0, fmt.Errorf("models: Incoherence: alphabet size k = %d, want 2 (an Ising model)", m.Alphabet())
	}
	n := m.Vars()
	if i < 0 || i >= n {
		return 0, fmt.Errorf("models: Incoherence: node %d out of range [0, %d)", i, n)
	}
	if n > MaxIncoherenceVars {
		return 0, fmt.Errorf("models: Incoherence: n = %d variables, more than the %d whose 2^n states can be enumerated", n, MaxIncoherenceVars)
	}
	a, theta, err := m.Ising()
	if err != nil {
		return 0, err
	}
	q := fisherIsing(a, theta, i)
	// Coordinates of x: the variables j ≠ i in order, then the bias (index
	// i of q holds the bias, since z_i itself is not a feature).
	var s, sc []int
	for j := 0; j < n; j++ {
		if j == i || a.At(i, j) != 0 {
			s = append(s, j) // j == i is the bias coordinate
		} else {
			sc = append(sc, j)
		}
	}
	return incoherenceFromFisher(q, s, sc)
}

// fisherIsing returns Q* = E[σ′(⟨w*, x⟩) x xᵀ] for node i of the Ising model
// with couplings a and fields theta as an n×n matrix, the bias coordinate
// taking the place of z_i (row and column i). It enumerates the 2^n states
// in Gray code order: each step flips one spin, updating the energy
// E(z) = Σ_{j<l} A_jl z_j z_l + Σ_j θ_j z_j and the local fields
// f_l = Σ_j A_lj z_j in O(n). The probabilities exp(E − E_max) are
// accumulated with a running maximum, so nothing overflows.
func fisherIsing(a *mat.SymDense, theta []float64, i int) *mat.SymDense {
	n := len(theta)
	z := make([]float64, n)
	f := make([]float64, n)
	energy := 0.0
	for j := range z { // start at z = (−1, ..., −1)
		z[j] = -1
		energy -= theta[j]
	}
	for j := 0; j < n; j++ {
		for l := 0; l < n; l++ {
			f[j] -= a.At(j, l)
		}
	}
	for j := 0; j < n; j++ {
		for l := j + 1; l < n; l++ {
			energy += a.At(j, l)
		}
	}
	acc := make([]float64, n*n) // Σ_z e^{E−top} σ′ x xᵀ
	total, top := 0.0, energy
	x := make([]float64, n)
	for t := 0; ; t++ {
		if energy > top { // rescale the sums to the new maximum
			s := math.Exp(top - energy)
			for e := range acc {
				acc[e] *= s
			}
			total *= s
			top = energy
		}
		p := math.Exp(energy - top)
		u := 2 * (f[i] + theta[i])
		sg := 1 / (1 + math.Exp(-u))
		wt := p * sg * (1 - sg)
		total += p
		copy(x, z)
		x[i] = 1
		for j := 0; j < n; j++ {
			wj := wt * x[j]
			row := acc[j*n : (j+1)*n]
			for l := j; l < n; l++ {
				row[l] += wj * x[l]
			}
		}
		if t+1 == 1<<n {
			break
		}
		// Gray code: the next state flips the spin of the lowest set bit of
		// t+1.
		j := 0
		for (t+1)>>j&1 == 0 {
			j++
		}
		old := z[j]
		energy -= 2 * old * (f[j] + theta[j])
		z[j] = -old
		for l := 0; l < n; l++ {
			f[l] -= 2 * old * a.At(l, j)
		}
	}
	q := mat.NewSymDense(n, nil)
	for j := 0; j < n; j++ {
		for l := j; l < n; l++ {
			q.SetSym(j, l, acc[j*n+l]/total)
		}
	}
	return q
}

// incoherenceFromFisher returns max_{j ∈ sc} ‖Q_{jS} Q_{SS}⁻¹‖₁ for the
// index sets s and sc of the symmetric q.
func incoherenceFromFisher(q mat.Symmetric, s, sc []int) (float64, error) {
	if len(sc) == 0 || len(s) == 0 {
		return 0, nil
	}
	qss := mat.NewSymDense(len(s), nil)
	for x, j := range s {
		for y, l := range s[x:] {
			qss.SetSym(x, x+y, q.At(j, l))
		}
	}
	qsc := mat.NewDense(len(s), len(sc), nil)
	for x, j := range s {
		for y, l := range sc {
			qsc.Set(x, y, q.At(j, l))
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(qss) {
		return 0, errors.New("models: Incoherence: the Fisher information Q*_SS is singular")
	}
	// Column y of Q_SS⁻¹ Q_{S,S^c} is (Q_{jS} Q_SS⁻¹)ᵀ for j = sc[y].
	var sol mat.Dense
	if err := chol.SolveTo(&sol, qsc); err != nil {
		return 0, fmt.Errorf("models: Incoherence: %v", err)
	}
	worst := 0.0
	for y := range sc {
		l1 := 0.0
		for x := range s {
			l1 += math.Abs(sol.At(x, y))
		}
		worst = math.Max(worst, l1)
	}
	return worst, nil
}

// DiamondIncoherence returns the incoherence value (see Incoherence) at node
// 0, a hub, of the diamond graph NewDiamond(n, a): the paper's Figure 1. It
// uses a closed form valid for every n ≥ 3, not an enumeration.
//
// Derivation. With s = n − 2 middle nodes, S is the middle nodes (and the
// bias, whose row of Q* vanishes: the field is zero) and S^c = {n − 1}, the
// other hub. Given the hubs h₀, h₁, the middle spins are independent with
// P(z_m = 1) = e^{ac}/(2 cosh(ac)), c = h₀ + h₁, and the hubs have weights
// ∝ (2 cosh(ac))^s; the number K of middle spins at +1 is Binomial, and the
// margin of node 0 is 2aM with M = 2K − s. By exchangeability of the middle
// nodes, Q*_{SS} = (α − β)I + β11ᵀ and Q*_{n−1,S} = γ1ᵀ with
//
//	α = E[σ′(2aM)],   β = E[σ′(2aM)·(M² − s)/(s(s − 1))],   γ = E[σ′(2aM)·h₁·M/s]
//
// (E[z_j z_l | K] and E[z_l | K] for j ≠ l), so Q*_{SS}1 = (α + (s − 1)β)1 and
// the value is s·|γ|/(α + (s − 1)β). The sums over K use log-binomial
// weights, so large n is fine.
//
// It returns an error for n < 3 or a NaN, infinite or zero a, as NewDiamond
// does.
func DiamondIncoherence(n int, a float64) (float64, error) {
	if n < 3 {
		return 0, fmt.Errorf("models: DiamondIncoherence: n = %d, want at least 3", n)
	}
	if math.IsNaN(a) || math.IsInf(a, 0) || a == 0 {
		return 0, fmt.Errorf("models: DiamondIncoherence: a = %v, want a finite nonzero weight", a)
	}
	s := n - 2
	fs := float64(s)
	lgs, _ := math.Lgamma(fs + 1)
	// log weights of the hub configurations, normalised below
	type hubs struct{ h1, c float64 }
	configs := []hubs{{1, 2}, {-1, 0}, {1, 0}, {-1, -2}} // (h₀, h₁) = (1,1), (1,−1), (−1,1), (−1,−1)
	logw := make([]float64, len(configs))
	top := math.Inf(-1)
	for x, h := range configs {
		logw[x] = fs * math.Log(2*math.Cosh(a*h.c))
		top = math.Max(top, logw[x])
	}
	norm := 0.0
	for x := range logw {
		norm += math.Exp(logw[x] - top)
	}
	var alpha, beta, gamma float64
	for x, h := range configs {
		ph := math.Exp(logw[x]-top) / norm
		// log P(z_m = ±1 | hubs)
		lp := a*h.c - math.Log(2*math.Cosh(a*h.c))
		lm := -a*h.c - math.Log(2*math.Cosh(a*h.c))
		for k := 0; k <= s; k++ {
			lk, _ := math.Lgamma(float64(k) + 1)
			lr, _ := math.Lgamma(fs - float64(k) + 1)
			pk := ph * math.Exp(lgs-lk-lr+float64(k)*lp+(fs-float64(k))*lm)
			mm := float64(2*k - s)
			sg := 1 / (1 + math.Exp(-2*a*mm))
			d := pk * sg * (1 - sg)
			alpha += d
			if s > 1 {
				beta += d * (mm*mm - fs) / (fs * (fs - 1))
			}
			gamma += d * h.h1 * mm / fs
		}
	}
	return fs * math.Abs(gamma) / (alpha + (fs-1)*beta), nil
}
