package pairwise

import (
	"math"

	"gonum.org/v1/gonum/graph/simple"
)

// Graph returns the learned graph Ĝ as a gonum weighted undirected graph, so
// that gonum's graph algorithms (graph/topo, graph/path, graph/community,
// graph/network, ...) run on what was learned. Node v is variable v, with
// ID 0..n-1; every variable is a node, including those without an edge. Each
// element of r.Edges is an edge of weight Edge.Weight = max_{a,b} |Ŵ_IJ(a, b)|
// (|Â_IJ| for k = 2): the strength of the coupling, not a distance. The
// graph's weight for a missing edge is +Inf and for a node with itself 0, the
// convention of gonum's path package; for shortest paths along strong
// couplings, build a graph with weights such as 1/Weight or
// -log(Weight/max). The graph is a new value: changing it does not change r.
func (r *Result) Graph() *simple.WeightedUndirectedGraph {
	n := r.n
	if r.Model != nil {
		n = r.Model.n
	}
	return edgesGraph(n, r.Edges)
}

// Graph returns the graph of m as a gonum weighted undirected graph: node
// IDs 0..n-1, one edge per pair with W_ij ≠ 0 weighted by
// max_{a,b} |W_ij(a, b)| (see Edges), as Result.Graph does for a learned
// graph.
func (m *Model) Graph() *simple.WeightedUndirectedGraph {
	return edgesGraph(m.n, m.Edges())
}

func edgesGraph(n int, edges []Edge) *simple.WeightedUndirectedGraph {
	g := simple.NewWeightedUndirectedGraph(0, math.Inf(1))
	for v := 0; v < n; v++ {
		g.AddNode(simple.Node(v))
	}
	for _, e := range edges {
		g.SetWeightedEdge(simple.WeightedEdge{F: simple.Node(e.I), T: simple.Node(e.J), W: e.Weight})
	}
	return g
}
