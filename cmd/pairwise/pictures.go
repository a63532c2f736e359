package main

import (
	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/cmd/pairwise/internal/draw"
	"github.com/mrfkit/pairwise/protein"
	"github.com/mrfkit/pairwise/psych"
)

// The pictures take plain data (internal/draw knows no type of the
// library); these turn the library's results into it.

// drawEdges returns the signed edges as the drawing's edges.
func drawEdges(edges []pairwise.Edge) []draw.Edge {
	out := make([]draw.Edge, len(edges))
	for i, e := range edges {
		out[i] = draw.Edge{I: e.I, J: e.J, Weight: e.Weight}
	}
	return out
}

// drawIntervals returns the nonparametric part of a bootstrap as the
// interval plot's data.
func drawIntervals(res *psych.BootstrapResult) draw.Intervals {
	iv := draw.Intervals{Names: res.Names, Resamples: res.Resamples, Level: res.Level, Pairs: make([]draw.Interval, len(res.Edges))}
	for i, e := range res.Edges {
		iv.Pairs[i] = draw.Interval{I: e.I, J: e.J, Weight: e.Weight, Mean: e.Mean, Lower: e.Lower, Upper: e.Upper, Selected: e.Selected}
	}
	return iv
}

// drawStability returns the case-dropping part of a bootstrap as the
// stability plot's data.
func drawStability(res *psych.BootstrapResult) draw.Stability {
	cd := res.CaseDrop
	st := draw.Stability{Statistics: cd.Statistics, CS: cd.CS, MinCorrelation: cd.MinCorrelation, Resamples: make([]draw.StabilityResample, len(cd.Resamples))}
	for _, l := range cd.Levels {
		st.Drops = append(st.Drops, l.Drop)
	}
	for i, r := range cd.Resamples {
		st.Resamples[i] = draw.StabilityResample{Drop: r.Drop, Correlations: r.Correlations}
	}
	return st
}

// drawMarks returns the pairs of contacts as the contact map's marks.
func drawMarks(contacts []protein.Contact) [][2]int {
	out := make([][2]int, len(contacts))
	for i, c := range contacts {
		out[i] = [2]int{c.I, c.J}
	}
	return out
}
