package psych

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/graph/path"
	"gonum.org/v1/gonum/graph/simple"

	"github.com/mrfkit/pairwise"
)

func checkVec(t *testing.T, name string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d values, want %d", name, len(got), len(want))
		return
	}
	for i := range want {
		if !sameFloat(got[i], want[i], 1e-12) {
			t.Errorf("%s[%d] = %v, want %v", name, i, got[i], want[i])
		}
	}
}

// TestCentralityClosedForms checks the four indices on small graphs where they
// follow by hand from the definitions (distance 1/|w|).
func TestCentralityClosedForms(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name               string
		n                  int
		edges              []pairwise.Edge
		str, ei, clo, betw []float64
	}{
		{
			// Path 0 -(0.5)- 1 -(-0.25)- 2: d01 = 2, d12 = 4, d02 = 6.
			name:  "path",
			n:     3,
			edges: []pairwise.Edge{{I: 0, J: 1, Weight: 0.5}, {I: 1, J: 2, Weight: -0.25}},
			str:   []float64{0.5, 0.75, 0.25},
			ei:    []float64{0.5, 0.25, -0.25},
			clo:   []float64{1.0 / (2 + 6), 1.0 / (2 + 4), 1.0 / (6 + 4)},
			betw:  []float64{0, 1, 0},
		},
		{
			// Star: centre 0, leaves 1..4 with weights 1, 0.5, 0.25, -1:
			// lengths 1, 2, 4, 1. The centre is on the shortest path of
			// every pair of leaves, C(4, 2) = 6; leaf i reaches leaf j at
			// ℓ_i + ℓ_j, so its distance sum is 3ℓ_i + (L - ℓ_i) + ℓ_i with
			// L = 8 the total length (the centre at ℓ_i).
			name:  "star",
			n:     5,
			edges: []pairwise.Edge{{I: 0, J: 1, Weight: 1}, {I: 0, J: 2, Weight: 0.5}, {I: 0, J: 3, Weight: 0.25}, {I: 0, J: 4, Weight: -1}},
			str:   []float64{2.75, 1, 0.5, 0.25, 1},
			ei:    []float64{0.75, 1, 0.5, 0.25, -1},
			clo:   []float64{1.0 / 8, 1.0 / (3*1 + 8), 1.0 / (3*2 + 8), 1.0 / (3*4 + 8), 1.0 / (3*1 + 8)},
			betw:  []float64{6, 0, 0, 0, 0},
		},
		{
			// Triangle with one negative edge: w01 = 0.5, w12 = 0.5,
			// w02 = -0.2 (length 5 > 2 + 2), so 0 and 2 are joined through 1.
			name:  "triangle",
			n:     3,
			edges: []pairwise.Edge{{I: 0, J: 1, Weight: 0.5}, {I: 1, J: 2, Weight: 0.5}, {I: 0, J: 2, Weight: -0.2}},
			str:   []float64{0.7, 1, 0.7},
			ei:    []float64{0.3, 1, 0.3},
			clo:   []float64{1.0 / (2 + 4), 1.0 / (2 + 2), 1.0 / (2 + 4)},
			betw:  []float64{0, 1, 0},
		},
		{
			// Square with equal weights: opposite corners have two shortest
			// paths, one through each other corner, so every node has 1/2.
			name:  "square ties",
			n:     4,
			edges: []pairwise.Edge{{I: 0, J: 1, Weight: 0.5}, {I: 1, J: 2, Weight: 0.5}, {I: 2, J: 3, Weight: 0.5}, {I: 0, J: 3, Weight: 0.5}},
			str:   []float64{1, 1, 1, 1},
			ei:    []float64{1, 1, 1, 1},
			clo:   []float64{1.0 / 8, 1.0 / 8, 1.0 / 8, 1.0 / 8},
			betw:  []float64{0.5, 0.5, 0.5, 0.5},
		},
		{
			// Two components and an isolated node (3): closeness sums over
			// the reachable nodes; the isolated node has none (NaN). Zero
			// weights are no edges.
			name:  "disconnected",
			n:     6,
			edges: []pairwise.Edge{{I: 0, J: 1, Weight: 0.5}, {I: 1, J: 2, Weight: 1}, {I: 4, J: 5, Weight: 0.25}, {I: 2, J: 3, Weight: 0}},
			str:   []float64{0.5, 1.5, 1, 0, 0.25, 0.25},
			ei:    []float64{0.5, 1.5, 1, 0, 0.25, 0.25},
			clo:   []float64{1.0 / (2 + 3), 1.0 / (2 + 1), 1.0 / (1 + 3), nan, 1.0 / 4, 1.0 / 4},
			betw:  []float64{0, 1, 0, 0, 0, 0},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewCentrality(tc.n, tc.edges)
			if err != nil {
				t.Fatal(err)
			}
			checkVec(t, "Strength", c.Strength, tc.str)
			checkVec(t, "ExpectedInfluence", c.ExpectedInfluence, tc.ei)
			checkVec(t, "Closeness", c.Closeness, tc.clo)
			checkVec(t, "Betweenness", c.Betweenness, tc.betw)
		})
	}
}

// bruteCentrality computes closeness and betweenness independently of gonum:
// Floyd-Warshall distances, then σ_st by counting over nodes in order of
// distance, and σ_st(v) = σ_sv σ_vt when d(s,v) + d(v,t) = d(s,t).
func bruteCentrality(n int, edges []pairwise.Edge) (clo, betw []float64) {
	inf := math.Inf(1)
	d := make([][]float64, n)
	for i := range d {
		d[i] = make([]float64, n)
		for j := range d[i] {
			if i != j {
				d[i][j] = inf
			}
		}
	}
	for _, e := range edges {
		if e.Weight != 0 {
			d[e.I][e.J] = 1 / math.Abs(e.Weight)
			d[e.J][e.I] = d[e.I][e.J]
		}
	}
	adj := make([][]float64, n)
	for i := range adj {
		adj[i] = append([]float64(nil), d[i]...)
	}
	for k := 0; k < n; k++ {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if d[i][k]+d[k][j] < d[i][j] {
					d[i][j] = d[i][k] + d[k][j]
				}
			}
		}
	}
	const tol = 1e-9
	// sigma[s][t]: number of shortest s-t paths, by increasing d(s, ·).
	sigma := make([][]float64, n)
	for s := 0; s < n; s++ {
		sigma[s] = make([]float64, n)
		order := make([]int, 0, n)
		for v := 0; v < n; v++ {
			if !math.IsInf(d[s][v], 1) {
				order = append(order, v)
			}
		}
		for a := 0; a < len(order); a++ {
			for b := a + 1; b < len(order); b++ {
				if d[s][order[b]] < d[s][order[a]] {
					order[a], order[b] = order[b], order[a]
				}
			}
		}
		sigma[s][s] = 1
		for _, v := range order[1:] {
			for u := 0; u < n; u++ {
				if u != v && !math.IsInf(adj[u][v], 1) && math.Abs(d[s][u]+adj[u][v]-d[s][v]) < tol {
					sigma[s][v] += sigma[s][u]
				}
			}
		}
	}
	clo = make([]float64, n)
	betw = make([]float64, n)
	for v := 0; v < n; v++ {
		var sum float64
		for u := 0; u < n; u++ {
			if u != v && !math.IsInf(d[v][u], 1) {
				sum += d[v][u]
			}
		}
		clo[v] = 1 / sum
		if sum == 0 {
			clo[v] = math.NaN()
		}
		for s := 0; s < n; s++ {
			for t := s + 1; t < n; t++ {
				if s == v || t == v || math.IsInf(d[s][t], 1) {
					continue
				}
				if math.Abs(d[s][v]+d[v][t]-d[s][t]) < tol {
					betw[v] += sigma[s][v] * sigma[v][t] / sigma[s][t]
				}
			}
		}
	}
	return clo, betw
}

// TestCentralityBruteForce compares closeness and betweenness with an
// independent implementation on random signed graphs of 2 to 12 nodes.
func TestCentralityBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for trial := 0; trial < 200; trial++ {
		n := 2 + rng.IntN(11)
		p := 0.15 + 0.6*rng.Float64()
		var edges []pairwise.Edge
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				if rng.Float64() < p {
					w := 0.05 + rng.Float64()
					if trial%3 == 0 {
						w = 0.5 // equal weights: many tied shortest paths
					}
					if rng.IntN(4) == 0 {
						w = -w
					}
					edges = append(edges, pairwise.Edge{I: i, J: j, Weight: w})
				}
			}
		}
		c, err := NewCentrality(n, edges)
		if err != nil {
			t.Fatal(err)
		}
		clo, betw := bruteCentrality(n, edges)
		for v := 0; v < n; v++ {
			if !sameFloat(c.Closeness[v], clo[v], 1e-12) || !sameFloat(c.Betweenness[v], betw[v], 1e-9) {
				t.Fatalf("trial %d node %d: closeness %v betweenness %v, brute force %v %v (edges %v)",
					trial, v, c.Closeness[v], c.Betweenness[v], clo[v], betw[v], edges)
			}
		}
	}
}

func TestCentralityErrors(t *testing.T) {
	for _, tc := range []struct {
		n     int
		edges []pairwise.Edge
		want  string
	}{
		{0, nil, "n = 0"},
		{3, []pairwise.Edge{{I: 0, J: 3, Weight: 1}}, "edge 0 joins 0 and 3"},
		{3, []pairwise.Edge{{I: 1, J: 1, Weight: 1}}, "two distinct nodes"},
		{3, []pairwise.Edge{{I: 0, J: 1, Weight: math.NaN()}}, "weight NaN"},
		{3, []pairwise.Edge{{I: 0, J: 1, Weight: math.Inf(-1)}}, "weight -Inf"},
		{3, []pairwise.Edge{{I: 0, J: 1, Weight: 1}, {I: 1, J: 0, Weight: 2}}, "repeats the pair (0, 1)"},
	} {
		_, err := NewCentrality(tc.n, tc.edges)
		if err == nil || !strings.HasPrefix(err.Error(), "psych: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewCentrality(%d, %v): error %v, want one containing %q", tc.n, tc.edges, err, tc.want)
		}
	}
	if _, err := CentralityOf(&pairwise.Result{}); err == nil {
		t.Error("Centrality of an empty Result: no error")
	}
}

func TestCentralityJSON(t *testing.T) {
	c, err := NewCentrality(3, []pairwise.Edge{{I: 0, J: 1, Weight: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"strength":[0.5,0.5,0],"expected_influence":[0.5,0.5,0],"closeness":[0.5,0.5,null],"betweenness":[0,0,0]}`
	if string(b) != want {
		t.Errorf("JSON\n%s\nwant\n%s", b, want)
	}
}

// TestShortestPaths checks the dense Dijkstra of centrality against gonum's
// path.DijkstraAllPaths, the implementation it replaced, on random
// networks with isolated nodes and several components, and on tied path
// lengths. Distances are sums of the same lengths along shortest paths; two
// tied paths may add them in another order, so they agree to a relative
// 1e-12, not bit for bit.
func TestShortestPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(30)
		var edges []pairwise.Edge
		p := rng.Float64() * 0.4
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				if rng.Float64() < p {
					w := []float64{0.5, -0.25, 1}[rng.IntN(3)] // ties
					if trial%2 == 1 {
						w = rng.NormFloat64()
					}
					edges = append(edges, pairwise.Edge{I: i, J: j, Weight: w})
				}
			}
		}
		g := simple.NewWeightedUndirectedGraph(0, math.Inf(1))
		for v := 0; v < n; v++ {
			g.AddNode(simple.Node(v))
		}
		for _, e := range edges {
			if e.Weight != 0 {
				g.SetWeightedEdge(g.NewWeightedEdge(simple.Node(e.I), simple.Node(e.J), 1/math.Abs(e.Weight)))
			}
		}
		ref := path.DijkstraAllPaths(g)
		got := shortestPaths(n, edges)
		for u := 0; u < n; u++ {
			for v := 0; v < n; v++ {
				want := ref.Weight(int64(u), int64(v))
				d := got[u][v]
				if math.IsInf(want, 1) != math.IsInf(d, 1) || (!math.IsInf(want, 1) && math.Abs(d-want) > 1e-12*math.Abs(want)) {
					t.Fatalf("trial %d (n = %d): d(%d, %d) = %v, gonum's Dijkstra gives %v", trial, n, u, v, d, want)
				}
			}
		}
	}
}
