package pairwise

import (
	"math"

	"github.com/mrfkit/pairwise/solve"
)

// NodeFit describes the regressions of one node: one for the Ising path,
// one per value pair α < β for the pairwise path.
type NodeFit struct {
	Node        int
	Regressions int     // regressions solved (pairs skipped for lack of data not counted)
	Iterations  int     // total solver iterations
	Loss        float64 // largest final loss L(ŵ) among the regressions
	Gap         float64 // largest duality-gap certificate: every L(ŵ) - L* ≤ Gap
	Converged   bool    // every regression certified the tolerance
	// Status is the worst ending among the regressions (GapBelowTol, then
	// IterationLimit, Cancelled, Failure); NotTerminated when none ran.
	Status solve.Status
	Width  float64 // λ_i chosen for this node by the Selection; 0 when WithWidth was given or no width was searched (the tuning-free defaults of the ordinal scale and of the nominal scale's multinomial model refit each node without constraint)
	// EmptyPairs counts the value pairs (α, β) with no sample where z_i is α
	// or β; their U^{α,β} is taken as zero. OneLabelPairs counts the pairs
	// whose samples all have the same one of the two values; their
	// regression is solved in closed form (all of the radius on the bias).
	EmptyPairs, OneLabelPairs int
	// Constant reports a variable that takes one value in every row of
	// positive weight. The data say nothing about its dependence on the
	// others: it has no edge, its couplings are zero (what the other
	// nodes' regressions put on it is moved into their fields), and its
	// field is at the boundary of the constraint (the whole radius on
	// the bias, as for a one-label pair), so it only says which value
	// was seen.
	Constant bool
}

// noteStats folds one regression's stats into a node's fit.
func (f *NodeFit) noteStats(st solve.Stats) {
	f.Regressions++
	f.Iterations += st.Iterations
	f.Loss = math.Max(f.Loss, st.Loss)
	f.Gap = math.Max(f.Gap, st.Gap)
	if !st.Converged {
		f.Converged = false
	}
	if statusRank(st.Status) > statusRank(f.Status) {
		f.Status = st.Status
	}
}

// statusRank orders the statuses from the best ending to the worst, for
// NodeFit.Status.
func statusRank(s solve.Status) int {
	switch s {
	case solve.GapBelowTol:
		return 1
	case solve.IterationLimit:
		return 2
	case solve.Cancelled:
		return 3
	case solve.Failure:
		return 4
	}
	return 0
}
