package pairwise

import (
	"fmt"
	"math"
)

// Symmetrization is the rule that combines the two estimates of a coupling,
// Ŵ_ij from node i's regression and Ŵ_ji^T from node j's.
type Symmetrization int

const (
	// Average keeps (Ŵ_ij + Ŵ_ji^T)/2 and the edge when its weight is at
	// least η/2. This is the default.
	Average Symmetrization = iota
	// And keeps the edge only when both estimates reach η/2 (the weights
	// are still the average).
	And
	// Or keeps the edge when either estimate reaches η/2 (the weights are
	// still the average).
	Or
)

// String returns the rule's name.
func (s Symmetrization) String() string {
	switch s {
	case Average:
		return "average"
	case And:
		return "and"
	case Or:
		return "or"
	}
	return fmt.Sprintf("Symmetrization(%d)", int(s))
}

// combineNodes returns a pair's statistic under the And or Or rule from
// its two nodes' own statistics z, smallest standard errors se and their
// degrees of freedom nu: the smaller statistic for And, the larger for Or,
// with the larger standard error for And and the smaller for Or.
func combineNodes(sym Symmetrization, zi, sei, nui, zj, sej, nuj float64) (z, se, nu float64) {
	se, nu = sej, nuj
	if (sym == Or && sei < sej) || (sym == And && sei > sej) {
		se, nu = sei, nui
	}
	if sym == Or {
		return math.Max(zi, zj), se, nu
	}
	return math.Min(zi, zj), se, nu
}
