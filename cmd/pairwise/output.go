package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

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
	for x := 0; x < k*k && k > 2; x++ {
		line = fmt.Appendf(line, ",w_%d_%d", x/k, x%k)
	}
	if k == 2 {
		line = append(line, ",coupling"...)
	}
	for _, e := range res.Edges {
		line = append(append(append(append(line, '\n'), names[e.I]...), ','), names[e.J]...)
		wij := res.Model.Coupling(e.I, e.J)
		values := append([]float64{e.Weight}, wij.RawMatrix().Data...)
		if k == 2 {
			values = append(values[:1], isingCoupling(wij))
		}
		for _, v := range values {
			line = strconv.AppendFloat(append(line, ','), v, 'g', -1, 64)
		}
	}
	_, err := w.Write(append(line, '\n'))
	return err
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
	GlobalP       *float64  `json:"global_p,omitempty"`        // p-value of the small-sample stage's test of independence
	EBICGraph     bool      `json:"ebic_graph,omitempty"`      // whether the small-sample stage chose the EBIC graph
	// Mixture is the two-group fit that cut the Ising statistics: π̂₁, the
	// share of pairs that are edges, and the mean and standard deviation
	// of log z over the edges.
	Mixture *struct {
		EdgeShare float64 `json:"edge_share"`
		LogMean   float64 `json:"log_mean"`
		LogSD     float64 `json:"log_sd"`
	} `json:"mixture,omitempty"`
}

// writeEdgesJSON writes the learned graph as one JSON object: sizes, names,
// the number of samples (the total weight) and of stored rows, the λ and η
// the learner used (absent when not finite), what the tuning-free learner
// chose (absent when λ and η were given), and the edges, one a line, each
// with the variable names and indices, the weight, the signed coupling Â_ij
// (k = 2) or the matrix Ŵ_ij (k > 2), and the edge test's statistic when
// the test chose the graph.
func writeEdgesJSON(w io.Writer, res *pairwise.Result, names []string, s sampleCounts) error {
	k, tu := res.Model.Alphabet(), res.Tuning
	fields := []any{"n", res.Model.Vars(), "k", k, "names", names, "samples", s.TotalWeight(), "rows", s.Len(),
		"width", finite(res.Width), "min_edge_weight", finite(res.MinEdgeWeight)}
	if tu != nil {
		tj := tuningJSON{FalseEdgeRate: tu.FalseEdgeRate, Critical: tu.Critical, Threshold: tu.Threshold, Lowest: tu.Lowest, Refit: tu.Refit, Screen: tu.Screen, EBICGraph: tu.EBICGraph}
		if p := tu.GlobalP; !math.IsNaN(p) && tu.FalseEdgeRate > 0 {
			tj.GlobalP = &p
		}
		if mx := tu.Mixture; mx != nil {
			tj.Mixture = &struct {
				EdgeShare float64 `json:"edge_share"`
				LogMean   float64 `json:"log_mean"`
				LogSD     float64 `json:"log_sd"`
			}{mx.EdgeShare, mx.LogMean, mx.LogSD}
		}
		if tu.Selection != nil {
			tj.Selection = tu.Selection.String()
			for _, f := range res.Nodes {
				tj.Widths = append(tj.Widths, f.Width)
			}
		}
		fields = append(fields, "tuning", tj)
	}
	b := []byte("{\n")
	for x := 0; x < len(fields); x += 2 {
		j, err := json.Marshal(fields[x+1])
		if err != nil {
			return err
		}
		b = fmt.Appendf(b, "  %q: %s,\n", fields[x], j)
	}
	b = append(b, "  \"edges\": ["...)
	for x, e := range res.Edges {
		ej := edgeJSON{Source: names[e.I], Target: names[e.J], I: e.I, J: e.J, Weight: e.Weight}
		if tu != nil && tu.FalseEdgeRate > 0 {
			ej.Score = finite(tu.Score(e.I, e.J))
		}
		if wij := res.Model.Coupling(e.I, e.J); k == 2 {
			a := isingCoupling(wij)
			ej.Coupling = &a
		} else {
			for a := 0; a < k; a++ {
				ej.W = append(ej.W, wij.RawRowView(a))
			}
		}
		j, err := json.Marshal(ej)
		if err != nil {
			return err
		}
		b = append(append(b, ",\n    "[1-min(x, 1):]...), j...)
	}
	if len(res.Edges) > 0 {
		b = append(b, "\n  "...)
	}
	_, err := w.Write(append(b, "]\n}\n"...))
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

// dotPlain matches the DOT IDs that need no quotes: an identifier or a
// numeral of the DOT language (graphviz.org/doc/info/lang.html).
var dotPlain = regexp.MustCompile(`^([a-zA-Z\x{80}-\x{ff}_][0-9a-zA-Z\x{80}-\x{ff}_]*|-?(\.[0-9]+|[0-9]+(\.[0-9]*)?))$`)

// dotID returns s as a DOT ID: as it is when the language allows, else
// quoted (keywords too).
func dotID(s string) string {
	if dotPlain.MatchString(s) && !strings.Contains(" node edge graph digraph subgraph strict ", " "+strings.ToLower(s)+" ") {
		return s
	}
	return strconv.Quote(s)
}

// writeDOT writes the learned graph in Graphviz DOT: the neato layout
// without overlapping nodes, one node per variable, named by its variable
// name, and one edge per learned edge, labelled with Â_ij (k = 2) or the
// weight (k > 2), as wide as its weight relative to the strongest edge
// (penwidth 1 to 5), and for k = 2 blue when Â_ij > 0 and red when
// Â_ij < 0.
func writeDOT(w io.Writer, res *pairwise.Result, names []string) error {
	var b strings.Builder
	b.WriteString("strict graph pairwise {\n  graph [\n    layout=neato\n    overlap=false\n    splines=true\n  ];\n" +
		"  node [\n    shape=ellipse\n    fontname=Helvetica\n  ];\n  edge [\n    fontname=Helvetica\n    fontsize=10\n  ];\n\n  // Node definitions.\n")
	for _, name := range names {
		fmt.Fprintf(&b, "  %s;\n", dotID(name))
	}
	maxW := 0.0
	for _, e := range res.Edges {
		maxW = math.Max(maxW, e.Weight)
	}
	if len(res.Edges) > 0 {
		b.WriteString("\n  // Edge definitions.\n")
	}
	for _, e := range res.Edges {
		color, label, tip := neutralColor, fmt.Sprintf("%.2f", e.Weight), fmt.Sprintf("%s -- %s: weight %.4g", names[e.I], names[e.J], e.Weight)
		if res.Model.Alphabet() == 2 {
			a := isingCoupling(res.Model.Coupling(e.I, e.J))
			if color = positiveColor; a < 0 {
				color = negativeColor
			}
			label, tip = fmt.Sprintf("%.2f", a), fmt.Sprintf("%s -- %s: A = %.4g", names[e.I], names[e.J], a)
		}
		width := 1.0
		if maxW > 0 {
			width += 4 * e.Weight / maxW
		}
		fmt.Fprintf(&b, "  %s -- %s [\n    penwidth=%.2f\n    color=%s\n    label=%s\n    tooltip=%s\n  ];\n",
			dotID(names[e.I]), dotID(names[e.J]), width, dotID(color), dotID(label), dotID(tip))
	}
	_, err := io.WriteString(w, b.String()+"}\n")
	return err
}
