package draw

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/mrfkit/pairwise"
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

// SpringLayout places the n nodes of the network with a force-directed
// layout, Fruchterman and Reingold's (1991), as qgraph's "spring" layout
// does: every pair of nodes repels with force k²/d, every edge attracts its
// ends with force |w|·d²/k (weights relative to the largest |w|), and each
// step moves a node by at most a temperature that cools from √n to 0 over
// the iterations. A weak pull towards the centre keeps nodes without
// edges and separate components in the picture. Starting positions come
// from seed, so the layout is the same for the same seed and network. It
// returns positions scaled into [0, 1]².
func SpringLayout(n int, edges []pairwise.Edge, seed uint64) [][2]float64 {
	const iters = 500
	pos := make([][2]float64, n)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	for i := range pos {
		pos[i] = [2]float64{rng.Float64() * float64(n), rng.Float64() * float64(n)}
	}
	if n < 2 {
		return normalizeLayout(pos)
	}
	maxW := 0.0
	for _, e := range edges {
		maxW = math.Max(maxW, math.Abs(e.Weight))
	}
	k := math.Sqrt(float64(n)) // √(area/n) with area n²
	centre := float64(n) / 2
	disp := make([][2]float64, n)
	for it := 0; it < iters; it++ {
		temp := math.Sqrt(float64(n)) * math.Pow(1-float64(it)/iters, 1.5)
		for i := range disp {
			disp[i] = [2]float64{0.05 * (centre - pos[i][0]), 0.05 * (centre - pos[i][1])}
		}
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				dx, dy := pos[i][0]-pos[j][0], pos[i][1]-pos[j][1]
				d := math.Max(math.Hypot(dx, dy), 1e-3)
				f := k * k / d / d
				disp[i][0] += dx * f
				disp[i][1] += dy * f
				disp[j][0] -= dx * f
				disp[j][1] -= dy * f
			}
		}
		for _, e := range edges {
			if e.Weight == 0 || maxW == 0 {
				continue
			}
			dx, dy := pos[e.I][0]-pos[e.J][0], pos[e.I][1]-pos[e.J][1]
			d := math.Hypot(dx, dy)
			f := math.Abs(e.Weight) / maxW * d / k
			disp[e.I][0] -= dx * f
			disp[e.I][1] -= dy * f
			disp[e.J][0] += dx * f
			disp[e.J][1] += dy * f
		}
		for i := range pos {
			d := math.Hypot(disp[i][0], disp[i][1])
			if d > 0 {
				step := math.Min(d, temp) / d
				pos[i][0] += disp[i][0] * step
				pos[i][1] += disp[i][1] * step
			}
		}
	}
	return normalizeLayout(principalAxes(pos))
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
