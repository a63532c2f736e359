package pairwise

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mrfkit/pairwise/internal/brute"
	"gonum.org/v1/gonum/mat"
)

// Builders of the test models used by the sampler and learner tests. Node
// indices of a grid are row*cols + col; every builder is deterministic given
// its arguments (and the state of r).

// gridEdges returns the edges of a rows×cols grid, I < J, sorted by (I, J).
func gridEdges(rows, cols int) [][2]int {
	var e [][2]int
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			v := r*cols + c
			if c+1 < cols {
				e = append(e, [2]int{v, v + 1})
			}
			if r+1 < rows {
				e = append(e, [2]int{v, v + cols})
			}
		}
	}
	return e
}

// gridIsing returns the zero-field Ising model on a rows×cols grid whose
// couplings A_ij are drawn edge by edge, in the order of gridEdges, as
// |A_ij| ~ U[lo, hi) followed by a random sign (the models of the paper's
// Ising experiments and of shared/bench/gen.py).
func gridIsing(rows, cols int, r *rand.Rand, lo, hi float64) *Model {
	n := rows * cols
	a := mat.NewSymDense(n, nil)
	for _, e := range gridEdges(rows, cols) {
		v := lo + (hi-lo)*r.Float64()
		if r.IntN(2) == 0 {
			v = -v
		}
		a.SetSym(e[0], e[1], v)
	}
	m, err := NewIsing(a, nil)
	if err != nil {
		panic(err)
	}
	return m
}

// diamondIsing returns the zero-field Ising model on the diamond graph of the
// paper's Figure 1: node 0 is coupled to nodes 1..n-2, each of which is
// coupled to node n-1, all with A_ij = a. It has 2(n-2) edges and treewidth 2.
// n must be at least 3.
func diamondIsing(n int, a float64) *Model {
	if n < 3 {
		panic(fmt.Sprintf("diamondIsing: n = %d, want at least 3", n))
	}
	s := mat.NewSymDense(n, nil)
	for j := 1; j < n-1; j++ {
		s.SetSym(0, j, a)
		s.SetSym(j, n-1, a)
	}
	m, err := NewIsing(s, nil)
	if err != nil {
		panic(err)
	}
	return m
}

// gridPotts returns a zero-field k-ary model on a rows×cols grid with centred
// couplings of size theta, one random sign s = ±1 per edge (drawn in the
// order of gridEdges), as in the paper's 3×3 grid experiment (Appendix,
// entries ±0.2). For even k, W_ij is the checkerboard
//
//	W_ij(a, b) = θ·s if a+b is even, -θ·s otherwise,
//
// whose rows and columns hold k/2 entries of each sign (for k = 2 these are
// the paper's two options ±[[θ, -θ], [-θ, θ]]). No ±θ matrix has centred rows
// for odd k, so for odd k W_ij is the clock pattern
//
//	W_ij(a, b) = θ·s·cos(2π(a-b)/k),
//
// which is centred (Σ_b cos(2π(a-b)/k) = 0), symmetric, and has
// max |W_ij(a, b)| = θ on the diagonal, so η = θ as well.
func gridPotts(rows, cols, k int, theta float64, r *rand.Rand) *Model {
	m, err := NewModel(rows*cols, k)
	if err != nil {
		panic(err)
	}
	for _, e := range gridEdges(rows, cols) {
		s := 1.0
		if r.IntN(2) == 0 {
			s = -1
		}
		w := mat.NewDense(k, k, nil)
		for a := 0; a < k; a++ {
			for b := 0; b < k; b++ {
				var v float64
				switch {
				case k%2 == 0 && (a+b)%2 == 0:
					v = theta * s
				case k%2 == 0:
					v = -theta * s
				default:
					v = theta * s * math.Cos(2*math.Pi*float64(a-b)/float64(k))
				}
				w.Set(a, b, v)
			}
		}
		if err := m.SetCoupling(e[0], e[1], w); err != nil {
			panic(err)
		}
	}
	return m
}

// enumerate returns every state of m with its exact probability
// (internal/brute, from LogWeight); it panics past brute.MaxStates.
func enumerate(m *Model) (states [][]int, probs []float64) {
	states, probs, _ = enumerateLogZ(m)
	return states, probs
}

// enumerateLogZ is enumerate that also returns log Z = log Σ_z exp(LogWeight(z)).
func enumerateLogZ(m *Model) (states [][]int, probs []float64, logZ float64) {
	states, probs, logZ, err := brute.Enumerate(m.Vars(), m.Alphabet(), m.LogWeight)
	if err != nil {
		panic(err)
	}
	return states, probs, logZ
}

// randomCouplingModel returns a k-ary model on n variables with the given
// edges, every W_ij entry drawn from U[-scale, scale) (not centred) and every
// field entry from U[-fieldScale, fieldScale).
func randomCouplingModel(n, k int, edges [][2]int, r *rand.Rand, scale, fieldScale float64) *Model {
	m, err := NewModel(n, k)
	if err != nil {
		panic(err)
	}
	for _, e := range edges {
		w := mat.NewDense(k, k, nil)
		for a := 0; a < k; a++ {
			for b := 0; b < k; b++ {
				w.Set(a, b, scale*(2*r.Float64()-1))
			}
		}
		if err := m.SetCoupling(e[0], e[1], w); err != nil {
			panic(err)
		}
	}
	if fieldScale != 0 {
		f := make([]float64, k)
		for i := 0; i < n; i++ {
			for a := range f {
				f[a] = fieldScale * (2*r.Float64() - 1)
			}
			if err := m.SetField(i, f); err != nil {
				panic(err)
			}
		}
	}
	return m
}

// completeEdges returns the edges of the complete graph on n nodes.
func completeEdges(n int) [][2]int {
	var e [][2]int
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			e = append(e, [2]int{i, j})
		}
	}
	return e
}
