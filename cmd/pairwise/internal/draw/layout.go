package draw

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/iterator"
	"gonum.org/v1/gonum/graph/layout"
	"gonum.org/v1/gonum/graph/simple"
)

// layoutJSON is the file of node positions that "pairwise network" writes
// with -layout-out and reads with -layout: one entry a node, by name, with
// x and y in [0, 1] (y down). A file written for one network fixes the
// picture of another on the same items, so that the two can be compared.
type layoutJSON struct {
	Nodes []layoutNode `json:"nodes"`
}

// layoutNode is one node's position.
type layoutNode struct {
	Name string  `json:"name"`
	X    float64 `json:"x"`
	Y    float64 `json:"y"`
}

// Edge is one edge of a network: nodes I and J, indices into the names,
// and a signed weight (drawn by its sign and |weight|; 0 is not drawn).
type Edge struct {
	I, J   int
	Weight float64
}

// Parameters of SpringLayout's run of gonum's EadesR2.
const (
	springUpdates   = 500  // steps of the layout
	springRate      = 0.02 // step size of each update (0.1 throws nodes to infinity)
	springRepulsion = 1    // strength of the repulsion between every two nodes
	springCohesion  = 0.02 // weight of the pull between components, relative to the strongest edge
)

// SpringLayout places the n nodes of the network with a force-directed
// layout, as qgraph's "spring" layout does, here gonum's
// graph/layout.EadesR2 (Eades 1984): every two nodes repel, and every edge
// pulls its ends together as a spring whose strength is |w| relative to
// the largest |w| (edges of weight 0, NaN or ±Inf, loops and edges outside
// 0 ≤ I, J < n are left out). A weak spring (springCohesion) between every
// two nodes of different components keeps nodes without edges and
// separate components in the picture. Starting positions come from seed
// and the graph is walked in node order, so the layout is the same, to the
// last bit, for the same seed and network. The result is turned so that
// its widest spread lies along x, and scaled into [0, 1]² (y down); n ≤ 0
// gives no positions and a single node sits in the middle.
func SpringLayout(n int, edges []Edge, seed uint64) [][2]float64 {
	if n <= 0 {
		return nil
	}
	if n == 1 {
		return [][2]float64{{0.5, 0.5}}
	}
	g := newSpringGraph(n, edges)
	eades := layout.EadesR2{
		Updates:   springUpdates,
		Repulsion: springRepulsion,
		Rate:      springRate,
		Theta:     0, // exact repulsion: n is the number of items, small
		Src:       rand.NewPCG(seed, 0x5eed),
	}
	opt := layout.NewOptimizerR2(g, eades.Update)
	var pos, next [][2]float64
	for opt.Update() {
		// A step too long (two nodes very close repel hard) can throw a
		// node to infinity, and the next update would build gonum's
		// Barnes-Hut tree on a NaN and never return; stop at the last
		// finite positions instead.
		next = next[:0]
		finite := true
		for i := 0; i < n; i++ {
			c := opt.Coord2(int64(i))
			finite = finite && isFiniteFloat(c.X) && isFiniteFloat(c.Y)
			next = append(next, [2]float64{c.X, c.Y})
		}
		if !finite {
			break
		}
		pos, next = next, pos
	}
	if pos == nil {
		// No step was finite: the nodes on a circle, in order.
		pos = make([][2]float64, n)
		for i := range pos {
			a := 2 * math.Pi * float64(i) / float64(n)
			pos[i] = [2]float64{math.Cos(a), math.Sin(a)}
		}
	}
	return normalizeLayout(principalAxes(pos))
}

// springGraph is the weighted graph that SpringLayout hands to EadesR2:
// nodes 0 to n−1; each edge with weight its |w| over the largest |w|, and
// every two nodes of different connected components joined with weight
// springCohesion, a weak pull that keeps nodes without edges and separate
// components in the picture without pulling the nodes of one component
// together. It lists nodes and neighbours in increasing order (gonum's
// simple graphs list them in map order), which makes the layout a
// function of the seed.
type springGraph struct {
	n      int
	weight []float64 // n×n, row-major; 0 for no edge
	nodes  []graph.Node
	from   [][]graph.Node // the neighbours of each node, in order
}

// newSpringGraph returns the graph of n nodes with the given edges.
func newSpringGraph(n int, edges []Edge) *springGraph {
	ok := func(e Edge) bool {
		return e.I >= 0 && e.I < n && e.J >= 0 && e.J < n && e.I != e.J && e.Weight != 0 && isFiniteFloat(e.Weight)
	}
	maxW := 0.0
	for _, e := range edges {
		if ok(e) {
			maxW = math.Max(maxW, math.Abs(e.Weight))
		}
	}
	// The components, by union-find.
	comp := make([]int, n)
	for i := range comp {
		comp[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if comp[i] != i {
			comp[i] = find(comp[i])
		}
		return comp[i]
	}
	g := &springGraph{n: n, weight: make([]float64, n*n), nodes: make([]graph.Node, n), from: make([][]graph.Node, n)}
	for _, e := range edges {
		if ok(e) {
			w := math.Abs(e.Weight) / maxW
			g.weight[e.I*n+e.J] += w
			g.weight[e.J*n+e.I] += w
			comp[find(e.I)] = find(e.J)
		}
	}
	for i := range g.nodes {
		g.nodes[i] = simple.Node(i)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i != j && find(i) != find(j) {
				g.weight[i*n+j] = springCohesion
			}
			if g.weight[i*n+j] != 0 {
				g.from[i] = append(g.from[i], g.nodes[j])
			}
		}
	}
	return g
}

func (g *springGraph) has(id int64) bool { return id >= 0 && id < int64(g.n) }

// Node returns node id, nil outside the graph.
func (g *springGraph) Node(id int64) graph.Node {
	if !g.has(id) {
		return nil
	}
	return g.nodes[id]
}

// Nodes returns the nodes in increasing order.
func (g *springGraph) Nodes() graph.Nodes { return iterator.NewOrderedNodes(g.nodes) }

// From returns the neighbours of node id in increasing order.
func (g *springGraph) From(id int64) graph.Nodes {
	if !g.has(id) {
		return graph.Empty
	}
	return iterator.NewOrderedNodes(g.from[id])
}

// HasEdgeBetween reports whether x and y are joined.
func (g *springGraph) HasEdgeBetween(xid, yid int64) bool {
	return xid != yid && g.has(xid) && g.has(yid) && g.weight[xid*int64(g.n)+yid] != 0
}

// Edge returns the edge from u to v.
func (g *springGraph) Edge(uid, vid int64) graph.Edge { return g.WeightedEdge(uid, vid) }

// WeightedEdge returns the edge from u to v with its weight.
func (g *springGraph) WeightedEdge(uid, vid int64) graph.WeightedEdge {
	if !g.HasEdgeBetween(uid, vid) {
		return nil
	}
	return simple.WeightedEdge{F: g.nodes[uid], T: g.nodes[vid], W: g.weight[uid*int64(g.n)+vid]}
}

// Weight returns the weight between x and y, and whether they are joined
// (or the same node, of weight 0).
func (g *springGraph) Weight(xid, yid int64) (float64, bool) {
	if !g.HasEdgeBetween(xid, yid) {
		return 0, xid == yid && g.has(xid)
	}
	return g.weight[xid*int64(g.n)+yid], true
}

// principalAxes turns the positions about their centre so that their
// widest spread lies along x (a chain comes out level, not diagonal); the
// sign of each axis is chosen so that the first node is left of and above
// the centre, keeping the result deterministic.
func principalAxes(pos [][2]float64) [][2]float64 {
	var mx, my float64
	for _, p := range pos {
		mx += p[0]
		my += p[1]
	}
	mx /= float64(len(pos))
	my /= float64(len(pos))
	var sxx, syy, sxy float64
	for _, p := range pos {
		dx, dy := p[0]-mx, p[1]-my
		sxx += dx * dx
		syy += dy * dy
		sxy += dx * dy
	}
	th := 0.5 * math.Atan2(2*sxy, sxx-syy) // the direction of largest spread
	c, s := math.Cos(th), math.Sin(th)
	out := make([][2]float64, len(pos))
	for i, p := range pos {
		dx, dy := p[0]-mx, p[1]-my
		out[i] = [2]float64{c*dx + s*dy, -s*dx + c*dy}
	}
	for a := 0; a < 2; a++ {
		if len(out) > 0 && out[0][a] > 0 {
			for i := range out {
				out[i][a] = -out[i][a]
			}
		}
	}
	return out
}

// normalizeLayout scales positions into [0, 1]², centred, stretching the
// narrower axis by at most 1.5 towards the square (qgraph stretches both
// axes to fill it); a single node (or all at one point) goes to the middle.
func normalizeLayout(pos [][2]float64) [][2]float64 {
	lo := [2]float64{math.Inf(1), math.Inf(1)}
	hi := [2]float64{math.Inf(-1), math.Inf(-1)}
	for _, p := range pos {
		for a := 0; a < 2; a++ {
			lo[a], hi[a] = math.Min(lo[a], p[a]), math.Max(hi[a], p[a])
		}
	}
	big := math.Max(hi[0]-lo[0], hi[1]-lo[1])
	var span [2]float64
	for a := range span {
		span[a] = math.Max(hi[a]-lo[a], big/1.5)
	}
	out := make([][2]float64, len(pos))
	for i, p := range pos {
		for a := 0; a < 2; a++ {
			if big == 0 {
				out[i][a] = 0.5
			} else {
				out[i][a] = (p[a]-lo[a])/span[a] + (1-(hi[a]-lo[a])/span[a])/2
			}
		}
	}
	return out
}

// WriteLayout writes the positions of the named nodes as layout JSON.
func WriteLayout(w io.Writer, names []string, pos [][2]float64) error {
	l := layoutJSON{Nodes: make([]layoutNode, len(names))}
	for i, nm := range names {
		l.Nodes[i] = layoutNode{Name: nm, X: pos[i][0], Y: pos[i][1]}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(l)
}

// ReadLayout reads layout JSON and returns the positions of names, in
// their order. Every name must have a finite position; extra entries are
// ignored, so one file can fix the layout of a network on fewer items.
func ReadLayout(r io.Reader, names []string) ([][2]float64, error) {
	var l layoutJSON
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("not a layout JSON file: %v", err)
	}
	at := make(map[string][2]float64, len(l.Nodes))
	for _, nd := range l.Nodes {
		if math.IsNaN(nd.X) || math.IsInf(nd.X, 0) || math.IsNaN(nd.Y) || math.IsInf(nd.Y, 0) {
			return nil, fmt.Errorf("node %q has position (%v, %v), want finite numbers", nd.Name, nd.X, nd.Y)
		}
		if _, dup := at[nd.Name]; dup {
			return nil, fmt.Errorf("node %q is given twice", nd.Name)
		}
		at[nd.Name] = [2]float64{nd.X, nd.Y}
	}
	pos := make([][2]float64, len(names))
	for i, nm := range names {
		p, ok := at[nm]
		if !ok {
			return nil, fmt.Errorf("no position for node %q", nm)
		}
		pos[i] = p
	}
	return pos, nil
}
