package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/encoding"
	"gonum.org/v1/gonum/graph/encoding/dot"
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise"
)

// isingCoupling returns A_ij of a k = 2 coupling matrix W_ij: the part of W
// that is not a field, (W00 - W01 - W10 + W11)/4, which is A_ij for the
// Ising form [[A, -A], [-A, A]] the learners return.
func isingCoupling(w mat.Matrix) float64 {
	return (w.At(0, 0) - w.At(0, 1) - w.At(1, 0) + w.At(1, 1)) / 4
}

// writeEdgesCSV writes one line per learned edge: the two variable names,
// the weight max_{a,b} |Ŵ_ij(a, b)|, and for k = 2 the signed coupling Â_ij,
// for k > 2 the k×k entries Ŵ_ij(a, b) as columns w_a_b.
func writeEdgesCSV(w io.Writer, res *pairwise.Result, names []string) error {
	k := res.Model.Alphabet()
	line := []byte("source,target,weight")
	if k == 2 {
		line = append(line, ",coupling"...)
	} else {
		for a := 0; a < k; a++ {
			for b := 0; b < k; b++ {
				line = fmt.Appendf(line, ",w_%d_%d", a, b)
			}
		}
	}
	line = append(line, '\n')
	if _, err := w.Write(line); err != nil {
		return err
	}
	for _, e := range res.Edges {
		line = append(line[:0], names[e.I]...)
		line = append(line, ',')
		line = append(line, names[e.J]...)
		line = append(line, ',')
		line = strconv.AppendFloat(line, e.Weight, 'g', -1, 64)
		wij := res.Model.Coupling(e.I, e.J)
		if k == 2 {
			line = append(line, ',')
			line = strconv.AppendFloat(line, isingCoupling(wij), 'g', -1, 64)
		} else {
			for _, v := range wij.RawMatrix().Data {
				line = append(line, ',')
				line = strconv.AppendFloat(line, v, 'g', -1, 64)
			}
		}
		line = append(line, '\n')
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}

// edgeJSON is one learned edge in the json output.
type edgeJSON struct {
	Source   string      `json:"source"`
	Target   string      `json:"target"`
	I        int         `json:"i"`
	J        int         `json:"j"`
	Weight   float64     `json:"weight"`
	Coupling *float64    `json:"coupling,omitempty"` // k = 2: Â_ij
	W        [][]float64 `json:"w,omitempty"`        // k > 2: Ŵ_ij
	Score    *float64    `json:"score,omitempty"`    // the edge test's statistic, when it ran
}

// tuningJSON is what the tuning-free learner chose, in the json output.
type tuningJSON struct {
	Selection     string    `json:"selection,omitempty"`       // the rule that chose the widths
	Widths        []float64 `json:"widths,omitempty"`          // each node's λ_i
	FalseEdgeRate float64   `json:"false_edge_rate,omitempty"` // α of the edge test
	Critical      float64   `json:"critical,omitempty"`        // Bonferroni's z*(α)
	Threshold     float64   `json:"threshold,omitempty"`       // the statistic an edge needed
	Lowest        float64   `json:"lowest,omitempty"`          // the gap rule's floor z₁
	Refit         bool      `json:"refit,omitempty"`           // whether the Ising refit stage ran
	Screen        float64   `json:"screen,omitempty"`          // the statistic a pair needed to be refit
	Mixture       *mixJSON  `json:"mixture,omitempty"`         // the two-group fit that cut the Ising statistics
	GlobalP       *float64  `json:"global_p,omitempty"`        // p-value of the small-sample stage's test of independence
	EBICGraph     bool      `json:"ebic_graph,omitempty"`      // whether the small-sample stage chose the EBIC graph
}

// mixJSON is pairwise.EdgeMixture in the json output.
type mixJSON struct {
	EdgeShare float64 `json:"edge_share"` // π̂₁, the share of pairs that are edges
	LogMean   float64 `json:"log_mean"`   // mean of log z over the edges
	LogSD     float64 `json:"log_sd"`     // standard deviation of log z over the edges
}

// writeEdgesJSON writes the learned graph as one JSON object: sizes, names,
// the number of samples (the total weight) and of stored rows, the λ and η
// the learner used (absent when not finite), what the tuning-free learner
// chose (absent when λ and η were given), and the edges, one a line, each
// with the variable names and indices, the weight, the signed coupling Â_ij
// (k = 2) or the matrix Ŵ_ij (k > 2), and the edge test's statistic when
// the test chose the graph.
func writeEdgesJSON(w io.Writer, res *pairwise.Result, names []string, s sampleCounts) error {
	k := res.Model.Alphabet()
	var b []byte
	add := func(key string, v any) error {
		j, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b = append(b, "  \""+key+"\": "...)
		b = append(b, j...)
		b = append(b, ",\n"...)
		return nil
	}
	b = append(b, "{\n"...)
	for _, kv := range []struct {
		key string
		v   any
	}{
		{"n", res.Model.Vars()}, {"k", k}, {"names", names},
		{"samples", s.TotalWeight()}, {"rows", s.Len()},
		{"width", finite(res.Width)}, {"min_edge_weight", finite(res.MinEdgeWeight)},
	} {
		if err := add(kv.key, kv.v); err != nil {
			return err
		}
	}
	tu := res.Tuning
	if tu != nil {
		tj := tuningJSON{FalseEdgeRate: tu.FalseEdgeRate, Critical: tu.Critical, Threshold: tu.Threshold, Lowest: tu.Lowest, Refit: tu.Refit, Screen: tu.Screen, EBICGraph: tu.EBICGraph}
		if p := tu.GlobalP; !math.IsNaN(p) && tu.FalseEdgeRate > 0 {
			tj.GlobalP = &p
		}
		if mx := tu.Mixture; mx != nil {
			tj.Mixture = &mixJSON{EdgeShare: mx.EdgeShare, LogMean: mx.LogMean, LogSD: mx.LogSD}
		}
		if tu.Selection != nil {
			tj.Selection = tu.Selection.String()
			for _, f := range res.Nodes {
				tj.Widths = append(tj.Widths, f.Width)
			}
		}
		if err := add("tuning", tj); err != nil {
			return err
		}
	}
	b = append(b, "  \"edges\": ["...)
	for x, e := range res.Edges {
		ej := edgeJSON{Source: names[e.I], Target: names[e.J], I: e.I, J: e.J, Weight: e.Weight}
		if tu != nil && tu.FalseEdgeRate > 0 {
			ej.Score = finite(tu.Score(e.I, e.J))
		}
		wij := res.Model.Coupling(e.I, e.J)
		if k == 2 {
			a := isingCoupling(wij)
			ej.Coupling = &a
		} else {
			ej.W = make([][]float64, k)
			for a := range ej.W {
				ej.W[a] = wij.RawRowView(a)
			}
		}
		j, err := json.Marshal(ej)
		if err != nil {
			return err
		}
		if x > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    "...)
		b = append(b, j...)
	}
	if len(res.Edges) > 0 {
		b = append(b, "\n  "...)
	}
	b = append(b, "]\n}\n"...)
	_, err := w.Write(b)
	return err
}

// finite returns &v, or nil for NaN and ±Inf, which JSON cannot hold.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// Colours of the DOT edges: blue for a positive Ising coupling (aligned
// spins), red for a negative one, grey for k > 2 where a coupling has no
// single sign.
const (
	positiveColor = "#2166ac"
	negativeColor = "#b2182b"
	neutralColor  = "#555555"
)

// dotGraph is the learned graph prepared for gonum's DOT encoder: named
// nodes and edges with Graphviz attributes.
type dotGraph struct {
	*simple.WeightedUndirectedGraph
}

// DOTID names the graph.
func (dotGraph) DOTID() string { return "pairwise" }

// DOTAttributers sets graph-wide attributes: the neato layout, which suits
// undirected graphs, without overlapping nodes.
func (dotGraph) DOTAttributers() (g, n, e encoding.Attributer) {
	return attrs{{Key: "layout", Value: "neato"}, {Key: "overlap", Value: "false"}, {Key: "splines", Value: "true"}},
		attrs{{Key: "shape", Value: "ellipse"}, {Key: "fontname", Value: "Helvetica"}},
		attrs{{Key: "fontname", Value: "Helvetica"}, {Key: "fontsize", Value: "10"}}
}

type attrs []encoding.Attribute

func (a attrs) Attributes() []encoding.Attribute { return a }

// dotNode is variable id, shown by its name.
type dotNode struct {
	id   int64
	name string
}

func (n dotNode) ID() int64      { return n.id }
func (n dotNode) DOTID() string  { return n.name }
func (n dotNode) String() string { return n.name }

// dotEdge is a learned edge with its drawing attributes.
type dotEdge struct {
	f, t  dotNode
	w     float64
	attrs attrs
}

func (e dotEdge) From() graph.Node         { return e.f }
func (e dotEdge) To() graph.Node           { return e.t }
func (e dotEdge) ReversedEdge() graph.Edge { e.f, e.t = e.t, e.f; return e }
func (e dotEdge) Weight() float64          { return e.w }
func (e dotEdge) Attributes() []encoding.Attribute {
	return e.attrs
}

// writeDOT writes the learned graph in Graphviz DOT with gonum's encoder:
// one node per variable, named by its variable name, and one edge per
// learned edge, labelled with Â_ij (k = 2) or the weight (k > 2), as wide as
// its weight relative to the strongest edge (penwidth 1 to 5), and for
// k = 2 blue when Â_ij > 0 and red when Â_ij < 0.
func writeDOT(w io.Writer, res *pairwise.Result, names []string) error {
	g := dotGraph{simple.NewWeightedUndirectedGraph(0, math.Inf(1))}
	nodes := make([]dotNode, len(names))
	for i, name := range names {
		nodes[i] = dotNode{id: int64(i), name: name}
		g.AddNode(nodes[i])
	}
	maxW := 0.0
	for _, e := range res.Edges {
		maxW = math.Max(maxW, e.Weight)
	}
	k := res.Model.Alphabet()
	for _, e := range res.Edges {
		color, label, tip := neutralColor, fmt.Sprintf("%.2f", e.Weight), fmt.Sprintf("%s -- %s: weight %.4g", names[e.I], names[e.J], e.Weight)
		if k == 2 {
			a := isingCoupling(res.Model.Coupling(e.I, e.J))
			color = positiveColor
			if a < 0 {
				color = negativeColor
			}
			label = fmt.Sprintf("%.2f", a)
			tip = fmt.Sprintf("%s -- %s: A = %.4g", names[e.I], names[e.J], a)
		}
		width := 1.0
		if maxW > 0 {
			width += 4 * e.Weight / maxW
		}
		g.SetWeightedEdge(dotEdge{f: nodes[e.I], t: nodes[e.J], w: e.Weight, attrs: attrs{
			{Key: "penwidth", Value: strconv.FormatFloat(width, 'f', 2, 64)},
			{Key: "color", Value: color},
			{Key: "label", Value: label},
			{Key: "tooltip", Value: tip},
		}})
	}
	b, err := dot.Marshal(g, "", "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
