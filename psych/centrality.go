package psych

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/mrfkit/pairwise"
)

// Centrality holds the node centrality indices of a weighted network, one
// entry a node, as psychological-network software (qgraph, bootnet) reports
// them. With w_ij the weight of edge {i, j} (signed or not; 0 for a pair
// without an edge):
//
//   - Strength_i = Σ_j |w_ij|, qgraph's "Strength" (its OutDegree with
//     α = 1 and posfun = abs).
//   - ExpectedInfluence_i = Σ_j w_ij, qgraph's one-step expected influence
//     (Robinaugh, Millner and McNally 2016): negative edges subtract. For
//     unsigned weights it equals Strength.
//   - Closeness_i = 1 / Σ_j d(i, j), the sum over the nodes j ≠ i that i
//     can reach, with d the shortest-path distance when edge {i, j} has
//     length 1/|w_ij| (Opsahl, Agneessens and Skvoretz 2010, α = 1), as
//     qgraph::centrality computes it through igraph's closeness (igraph ≥
//     1.3 sums over reachable nodes only). A node without any edge has
//     closeness NaN. qgraph's centrality_auto instead reports closeness
//     only on the largest connected component, NA elsewhere; on a connected
//     network the two agree.
//   - Betweenness_i = Σ_{s<t, s,t ≠ i} σ_st(i)/σ_st, over unordered pairs,
//     with σ_st the number of shortest paths (lengths 1/|w|) between s
//     and t and σ_st(i) those through i: the value qgraph's centrality_auto
//     and centralityTable print. qgraph::centrality, which bootnet uses,
//     counts ordered pairs and gives twice this; correlations (the CS
//     coefficient) are the same either way. Two paths are tied when their
//     lengths agree to a relative 1e-10 (igraph compares with a tolerance too).
//
// The JSON form writes NaN (the closeness of an isolated node) as null.
type Centrality struct {
	Strength          []float64 `json:"strength"`
	ExpectedInfluence []float64 `json:"expected_influence"`
	Closeness         []float64 `json:"closeness"`
	Betweenness       []float64 `json:"betweenness"`
}

// MarshalJSON writes c with NaN and infinite entries as null, which
// encoding/json cannot write as numbers.
func (c *Centrality) MarshalJSON() ([]byte, error) {
	return marshalNaN(struct {
		Strength          []jsonFloat `json:"strength"`
		ExpectedInfluence []jsonFloat `json:"expected_influence"`
		Closeness         []jsonFloat `json:"closeness"`
		Betweenness       []jsonFloat `json:"betweenness"`
	}{jsonFloats(c.Strength), jsonFloats(c.ExpectedInfluence), jsonFloats(c.Closeness), jsonFloats(c.Betweenness)})
}

// The centrality indices, in the order of centralityNames.
const (
	strengthIndex = iota
	expectedInfluenceIndex
	closenessIndex
	betweennessIndex
	numCentrality
)

// centralityNames are bootnet's names of the centrality indices.
var centralityNames = [numCentrality]string{"strength", "expectedInfluence", "closeness", "betweenness"}

// index returns the index number i (strengthIndex, ...) of c.
func (c *Centrality) index(i int) []float64 {
	switch i {
	case strengthIndex:
		return c.Strength
	case expectedInfluenceIndex:
		return c.ExpectedInfluence
	case closenessIndex:
		return c.Closeness
	default:
		return c.Betweenness
	}
}

// NewCentrality returns the centrality indices (see Centrality) of the
// network on nodes 0..n-1 with the given edges. Weights may be signed, such
// as those of pairwise.SignedEdges, or unsigned, such as
// pairwise.Result.Edges (max |W_ij|); an edge of weight 0 is no edge, as in
// qgraph. The edges are not modified.
//
// It returns an error for n < 1, an edge with I or J outside [0, n) or I == J,
// a pair given twice (in either order), or a NaN or infinite weight.
func NewCentrality(n int, edges []pairwise.Edge) (*Centrality, error) {
	if n < 1 {
		return nil, fmt.Errorf("psych: NewCentrality: n = %d nodes, want at least 1", n)
	}
	seen := make(map[[2]int]bool, len(edges))
	for e, ed := range edges {
		if ed.I < 0 || ed.I >= n || ed.J < 0 || ed.J >= n || ed.I == ed.J {
			return nil, fmt.Errorf("psych: NewCentrality: edge %d joins %d and %d, want two distinct nodes in [0, %d)", e, ed.I, ed.J, n)
		}
		if math.IsNaN(ed.Weight) || math.IsInf(ed.Weight, 0) {
			return nil, fmt.Errorf("psych: NewCentrality: edge %d (%d, %d) has weight %v", e, ed.I, ed.J, ed.Weight)
		}
		key := [2]int{min(ed.I, ed.J), max(ed.I, ed.J)}
		if seen[key] {
			return nil, fmt.Errorf("psych: NewCentrality: edge %d repeats the pair (%d, %d)", e, key[0], key[1])
		}
		seen[key] = true
	}
	return centrality(n, edges), nil
}

// centrality computes the indices of valid edges.
func centrality(n int, edges []pairwise.Edge) *Centrality {
	c := &Centrality{
		Strength:          make([]float64, n),
		ExpectedInfluence: make([]float64, n),
		Closeness:         make([]float64, n),
		Betweenness:       make([]float64, n),
	}
	deg := make([]int, n)
	for _, e := range edges {
		if e.Weight == 0 {
			continue
		}
		c.Strength[e.I] += math.Abs(e.Weight)
		c.Strength[e.J] += math.Abs(e.Weight)
		c.ExpectedInfluence[e.I] += e.Weight
		c.ExpectedInfluence[e.J] += e.Weight
		deg[e.I]++
		deg[e.J]++
	}
	// Sums run in node order, not in the map order of gonum's
	// network.Closeness and BetweennessWeighted, so that the indices are
	// reproducible to the last bit.
	dist := shortestPaths(n, edges)
	for u := range dist {
		var sum float64
		for v := range dist[u] {
			if v != u && !math.IsInf(dist[u][v], 1) {
				sum += dist[u][v]
			}
		}
		c.Closeness[u] = 1 / sum
		if deg[u] == 0 {
			c.Closeness[u] = math.NaN()
		}
	}
	brandes(n, edges, dist, c.Betweenness)
	return c
}

// CentralityOf returns the centrality indices of the graph r learned, with
// the signed weights of pairwise.Result.SignedEdges (see Centrality): for
// k = 2 the Ising couplings Â_IJ, for k > 2 the linear-by-linear summary of
// each block. For the unsigned weights max |Ŵ_IJ| call NewCentrality with
// r.Edges. It returns an error for a nil r or one without a model.
func CentralityOf(r *pairwise.Result) (*Centrality, error) {
	if r == nil || r.Model == nil {
		return nil, fmt.Errorf("psych: CentralityOf: no learned model")
	}
	return NewCentrality(r.Model.Vars(), r.SignedEdges())
}

// jsonFloat is a float64 that encodes NaN and ±Inf as JSON null.
type jsonFloat float64

// MarshalJSON writes f as encoding/json writes a float64, or null.
func (f jsonFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(v)
}

// jsonFloats converts x for marshalNaN.
func jsonFloats(x []float64) []jsonFloat {
	if x == nil {
		return nil
	}
	out := make([]jsonFloat, len(x))
	for i, v := range x {
		out[i] = jsonFloat(v)
	}
	return out
}

// marshalNaN marshals v, a struct whose possibly-NaN fields are jsonFloat.
func marshalNaN(v any) ([]byte, error) { return json.Marshal(v) }

// shortestPaths returns the shortest-path distances between all nodes when
// edge {i, j} of nonzero weight has length 1/|w_ij| (+Inf between nodes
// that no path joins): Dijkstra's method from every node on the dense
// n × n length matrix, O(n³) in all. It stands for gonum's
// path.DijkstraAllPaths, which TestShortestPaths keeps as its reference:
// on the bootstrap's 25-node networks gonum's graph of maps took 2.4 ms a
// network, 3% of a resample of `pairwise bootstrap -fix` (profile of 200 +
// 200 resamples of the psych study's 2500-person file), where the matrix
// takes microseconds.
func shortestPaths(n int, edges []pairwise.Edge) [][]float64 {
	inf := math.Inf(1)
	length := make([]float64, n*n)
	for x := range length {
		length[x] = inf
	}
	for _, e := range edges {
		if e.Weight != 0 {
			l := 1 / math.Abs(e.Weight)
			length[e.I*n+e.J], length[e.J*n+e.I] = l, l
		}
	}
	dist := make([][]float64, n)
	done := make([]bool, n)
	for s := range dist {
		d := make([]float64, n)
		for v := range d {
			d[v] = inf
		}
		d[s] = 0
		clear(done)
		for {
			u := -1
			for v, dv := range d {
				if !done[v] && !math.IsInf(dv, 1) && (u < 0 || dv < d[u]) {
					u = v
				}
			}
			if u < 0 {
				break
			}
			done[u] = true
			for v, l := range length[u*n : (u+1)*n] {
				if !done[v] && d[u]+l < d[v] {
					d[v] = d[u] + l
				}
			}
		}
		dist[s] = d
	}
	return dist
}

// brandes adds to betw the betweenness of every node (unordered pairs) by
// Brandes' accumulation over the shortest-path distances dist: for each
// source s, σ_s(v) counts the shortest paths from s to v through the
// predecessors u with dist(s,u) + ℓ(u,v) = dist(s,v), and the dependencies
// δ_s(v) = Σ_{w: v precedes w} σ_s(v)/σ_s(w)·(1 + δ_s(w)) are added in order
// of decreasing distance.
func brandes(n int, edges []pairwise.Edge, dist [][]float64, betw []float64) {
	type arc struct {
		to  int
		len float64
	}
	adj := make([][]arc, n)
	for _, e := range edges {
		if e.Weight != 0 {
			l := 1 / math.Abs(e.Weight)
			adj[e.I] = append(adj[e.I], arc{e.J, l})
			adj[e.J] = append(adj[e.J], arc{e.I, l})
		}
	}
	tied := func(a, b float64) bool { return math.Abs(a-b) <= 1e-10*math.Max(math.Abs(a), math.Abs(b)) }
	order := make([]int, 0, n)
	sigma := make([]float64, n)
	delta := make([]float64, n)
	for s := 0; s < n; s++ {
		d := dist[s]
		order = order[:0]
		for v := 0; v < n; v++ {
			if !math.IsInf(d[v], 1) {
				order = append(order, v)
			}
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(d[a], d[b]) })
		for _, v := range order {
			sigma[v], delta[v] = 0, 0
		}
		sigma[s] = 1
		for _, v := range order {
			if v == s {
				continue
			}
			for _, a := range adj[v] {
				if u := a.to; u != v && tied(d[u]+a.len, d[v]) && d[u] < d[v] {
					sigma[v] += sigma[u]
				}
			}
		}
		for k := len(order) - 1; k >= 0; k-- {
			w := order[k]
			for _, a := range adj[w] {
				if v := a.to; tied(d[v]+a.len, d[w]) && d[v] < d[w] {
					delta[v] += sigma[v] / sigma[w] * (1 + delta[w])
				}
			}
			if w != s {
				// Each unordered pair is met from both ends.
				betw[w] += delta[w] / 2
			}
		}
	}
}
