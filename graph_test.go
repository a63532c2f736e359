package pairwise

import (
	"math"
	"slices"
	"sort"
	"testing"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/path"
	"gonum.org/v1/gonum/graph/topo"
	"gonum.org/v1/gonum/mat"
)

// TestResultGraph learns a model with three connected components (a chain
// 0-1-2, an edge 3-4 and an isolated node 5) from its exact distribution,
// where the learned graph is the true one, and runs gonum's algorithms on
// Result.Graph: the components must be the true ones and the shortest path
// from 0 to 2 must run through 1 with the sum of the two learned weights.
func TestResultGraph(t *testing.T) {
	t.Parallel()
	a := mat.NewSymDense(6, nil)
	a.SetSym(0, 1, 0.6)
	a.SetSym(1, 2, -0.4)
	a.SetSym(3, 4, 0.5)
	m, err := NewIsing(a, []float64{0.1, 0, -0.2, 0, 0, 0.3})
	if err != nil {
		t.Fatal(err)
	}
	res, err := LearnIsing(exactSamples(t, m), WithWidth(1.5), WithMinEdgeWeight(0.4))
	if err != nil {
		t.Fatal(err)
	}
	checkGraph(t, m.Edges(), res.Edges)

	g := res.Graph()
	if got := g.Nodes().Len(); got != 6 {
		t.Fatalf("%d nodes, want 6 (every variable, including the isolated one)", got)
	}
	if got := g.Edges().Len(); got != len(res.Edges) {
		t.Fatalf("%d edges, want %d", got, len(res.Edges))
	}
	for _, e := range res.Edges {
		w, ok := g.Weight(int64(e.I), int64(e.J))
		if !ok || w != e.Weight {
			t.Errorf("Weight(%d, %d) = %v, %t, want %v", e.I, e.J, w, ok, e.Weight)
		}
	}
	if w, ok := g.Weight(0, 3); ok || !math.IsInf(w, 1) {
		t.Errorf("Weight(0, 3) = %v, %t for a missing edge, want +Inf, false", w, ok)
	}

	var comps [][]int64
	for _, c := range topo.ConnectedComponents(g) {
		ids := nodeIDs(c)
		slices.Sort(ids) // a component's nodes come in no fixed order
		comps = append(comps, ids)
	}
	sort.Slice(comps, func(x, y int) bool { return comps[x][0] < comps[y][0] })
	want := [][]int64{{0, 1, 2}, {3, 4}, {5}}
	if !slices.EqualFunc(comps, want, slices.Equal[[]int64]) {
		t.Errorf("connected components %v, want %v", comps, want)
	}

	shortest := path.DijkstraFrom(g.Node(0), g)
	route, dist := shortest.To(2)
	w01, _ := g.Weight(0, 1)
	w12, _ := g.Weight(1, 2)
	if got := nodeIDs(route); !slices.Equal(got, []int64{0, 1, 2}) || dist != w01+w12 {
		t.Errorf("path 0 to 2: %v of length %v, want [0 1 2] of length %v", got, dist, w01+w12)
	}
	if _, dist := shortest.To(5); !math.IsInf(dist, 1) {
		t.Errorf("distance 0 to 5 = %v, want +Inf (another component)", dist)
	}

	// The model's own graph has the model's edges.
	mg := m.Graph()
	for _, e := range m.Edges() {
		if w, ok := mg.Weight(int64(e.I), int64(e.J)); !ok || w != e.Weight {
			t.Errorf("Model.Graph: Weight(%d, %d) = %v, %t, want %v", e.I, e.J, w, ok, e.Weight)
		}
	}
	if mg.Nodes().Len() != 6 || mg.Edges().Len() != 3 {
		t.Errorf("Model.Graph: %d nodes, %d edges, want 6, 3", mg.Nodes().Len(), mg.Edges().Len())
	}
}

// nodeIDs returns the IDs of nodes, in order.
func nodeIDs(nodes []graph.Node) []int64 {
	ids := make([]int64, len(nodes))
	for x, v := range nodes {
		ids[x] = v.ID()
	}
	return ids
}
