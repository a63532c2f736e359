package pairwise

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// SignedEdges returns the learned graph r.Edges with each Weight replaced
// by the signed summary of SignedEdges, computed on r.Model's coupling.
func (r *Result) SignedEdges() []Edge {
	if r == nil || r.Model == nil {
		return nil
	}
	out := make([]Edge, len(r.Edges))
	for e, ed := range r.Edges {
		out[e] = Edge{I: ed.I, J: ed.J, Weight: SignedWeight(r.Model.Coupling(ed.I, ed.J))}
	}
	return out
}

// SignedEdges returns the edges of m (as Model.Edges: I < J, sorted) with
// Weight replaced by the signed summary SignedWeight of W_IJ: one signed
// number an edge, for network pictures and for centrality indices such as
// expected influence. It returns nil for a nil model.
func SignedEdges(m *Model) []Edge {
	if m == nil {
		return nil
	}
	edges := m.Edges()
	for e := range edges {
		edges[e].Weight = SignedWeight(m.Coupling(edges[e].I, edges[e].J))
	}
	return edges
}

// SignedWeight returns one signed number for a k×k coupling block W: the
// coefficient β of its linear-by-linear (uniform) association with the
// centred, spin-like scores s_a = 2a − (k−1) (−1, +1 for k = 2; −2, 0, 2 for
// k = 3),
//
//	β = Σ_{a,b} W(a,b) s_a s_b / (Σ_a s_a²)².
//
// β is the least-squares fit of W(a,b) ≈ β s_a s_b + r_a + c_b (the scores are
// centred, so row and column effects, which are fields in disguise, do not
// change it), and W(a,b) = β s_a s_b gives β back exactly. For k = 2 it is
// the Ising coupling A of NewIsing (W = [[A, −A], [−A, A]] gives A, so
// |β| = Edge.Weight); for k > 2 the log odds ratio of adjacent answers
// a, a+1 and b, b+1 is 4β under a purely linear-by-linear block. It is
// meant for ordinal items, whose states are ordered answers: positive
// when higher answers on one item go with higher answers on the other.
// For nominal states the sign has no meaning, and a block without a linear
// part (such as the Potts block of a checkerboard grid) gives β ≈ 0.
//
// It returns NaN for a matrix that is not square or smaller than 2×2, and
// NaN when W has a NaN entry.
func SignedWeight(w mat.Matrix) float64 {
	k, c := w.Dims()
	if k != c || k < 2 {
		return math.NaN()
	}
	var num, den float64
	for a := 0; a < k; a++ {
		sa := float64(2*a - (k - 1))
		den += sa * sa
		for b := 0; b < k; b++ {
			num += w.At(a, b) * sa * float64(2*b-(k-1))
		}
	}
	return num / (den * den)
}
