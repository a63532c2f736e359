package pairwise

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Writing a learned graph.
//
// A Result's graph Ĝ can be written as a CSV table of edges
// (WriteEdgesCSV), as one JSON document with the learner's choices
// (WriteEdgesJSON), or for Graphviz (WriteDOT). All three name the
// variables by r.Model.Names(), or x1..xn when the model has no names, and
// write the edges of r.Edges in their order (sorted by (I, J)). For k = 2
// an edge is described by its signed Ising coupling Â_ij, the SignedWeight
// of the symmetrised block [[Â, -Â], [-Â, Â]]; for k > 2, where a block has
// no single sign, by its k×k entries Ŵ_ij(a, b) (CSV, JSON) or its weight
// max_{a,b} |Ŵ_ij(a, b)| (DOT). Each returns the first write error of w,
// as w returned it; a Result without a model is an error.

// varNames returns the names of the model's variables, x1..xn without
// names.
func varNames(m *Model) []string {
	if names := m.Names(); names != nil {
		return names
	}
	names := make([]string, m.Vars())
	for i := range names {
		names[i] = fmt.Sprintf("x%d", i+1)
	}
	return names
}

// checkWritable returns the error of a Result that has nothing to write.
func (r *Result) checkWritable(fn string) error {
	if r == nil || r.Model == nil {
		return fmt.Errorf("pairwise: Result.%s: no learned model", fn)
	}
	return nil
}

// WriteEdgesCSV writes the learned graph to w as CSV, one line an edge
// after the header: the two variable names (source, target), the weight
// max_{a,b} |Ŵ_ij(a, b)| (Edge.Weight), and for k = 2 the signed coupling
// Â_ij (column "coupling"), for k > 2 the k² entries Ŵ_ij(a, b) of the
// symmetrised block (columns w_a_b, row a, column b, from w_0_0). Numbers
// are written in their shortest exact form ('g', NaN as "NaN"); without
// edges only the header is written. See the package's notes on writing a
// learned graph for the names and errors.
func (r *Result) WriteEdgesCSV(w io.Writer) error {
	if err := r.checkWritable("WriteEdgesCSV"); err != nil {
		return err
	}
	names, k := varNames(r.Model), r.Model.Alphabet()
	line := []byte("source,target,weight")
	for x := 0; x < k*k && k > 2; x++ {
		line = fmt.Appendf(line, ",w_%d_%d", x/k, x%k)
	}
	if k == 2 {
		line = append(line, ",coupling"...)
	}
	for _, e := range r.Edges {
		line = append(append(append(append(line, '\n'), names[e.I]...), ','), names[e.J]...)
		wij := r.Model.Coupling(e.I, e.J)
		values := append([]float64{e.Weight}, wij.RawMatrix().Data...)
		if k == 2 {
			values = append(values[:1], SignedWeight(wij))
		}
		for _, v := range values {
			line = strconv.AppendFloat(append(line, ','), v, 'g', -1, 64)
		}
	}
	_, err := w.Write(append(line, '\n'))
	return err
}

// edgeJSON is one learned edge in WriteEdgesJSON's document.
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

// mixtureJSON is the two-group fit that cut the Ising statistics.
type mixtureJSON struct {
	EdgeShare float64 `json:"edge_share"`
	LogMean   float64 `json:"log_mean"`
	LogSD     float64 `json:"log_sd"`
}

// tuningJSON is what the tuning-free learner chose, in WriteEdgesJSON's
// document.
type tuningJSON struct {
	Selection     string       `json:"selection,omitempty"`       // the rule that chose the widths
	Widths        []float64    `json:"widths,omitempty"`          // each node's λ_i
	FalseEdgeRate float64      `json:"false_edge_rate,omitempty"` // α of the edge test
	Critical      float64      `json:"critical,omitempty"`        // Bonferroni's z*(α)
	Threshold     float64      `json:"threshold,omitempty"`       // the statistic an edge needed
	Lowest        float64      `json:"lowest,omitempty"`          // the gap rule's floor z₁
	Refit         bool         `json:"refit,omitempty"`           // whether the Ising refit stage ran
	Screen        float64      `json:"screen,omitempty"`          // the statistic a pair needed to be refit
	GlobalP       *float64     `json:"global_p,omitempty"`        // p-value of the small-sample stage's test of independence
	EBICGraph     bool         `json:"ebic_graph,omitempty"`      // whether the small-sample stage chose the EBIC graph
	Mixture       *mixtureJSON `json:"mixture,omitempty"`         // the mixture fit, when it cut the statistics
}

// finitePtr returns &v, or nil for NaN and ±Inf, which JSON cannot hold.
func finitePtr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// WriteEdgesJSON writes the learned graph to w as one JSON object with the
// members, in this order: "n", "k", "names", "samples" and "rows" (the
// numbers given: the samples' TotalWeight and Len, as Samples and Partial
// report them), "width" and "min_edge_weight" (the λ and η of the Result,
// null when not finite), "tuning" when the learner chose them from the
// data (r.Tuning: the Selection and each node's λ_i when a Selection ran;
// α, Bonferroni's z*(α), the threshold, the gap rule's floor, the refit's
// screen, the small-sample stage's p-value and choice, and the mixture fit
// when the edge test ran; members that do not apply are left out), and
// "edges", one edge a line: the names and indices of its variables, its
// weight, the signed coupling Â_ij ("coupling", k = 2) or the block Ŵ_ij
// ("w", k > 2, row by row), and the edge test's statistic ("score") when
// the test chose the graph. A statistic that is not finite is left out.
// See the package's notes on writing a learned graph for the names and
// errors.
func (r *Result) WriteEdgesJSON(w io.Writer, samples float64, rows int) error {
	if err := r.checkWritable("WriteEdgesJSON"); err != nil {
		return err
	}
	names, k, tu := varNames(r.Model), r.Model.Alphabet(), r.Tuning
	fields := []any{"n", r.Model.Vars(), "k", k, "names", names, "samples", finitePtr(samples), "rows", rows,
		"width", finitePtr(r.Width), "min_edge_weight", finitePtr(r.MinEdgeWeight)}
	if tu != nil {
		tj := tuningJSON{FalseEdgeRate: tu.FalseEdgeRate, Critical: tu.Critical, Threshold: tu.Threshold, Lowest: tu.Lowest, Refit: tu.Refit, Screen: tu.Screen, EBICGraph: tu.EBICGraph}
		if p := tu.GlobalP; !math.IsNaN(p) && tu.FalseEdgeRate > 0 {
			tj.GlobalP = &p
		}
		if mx := tu.Mixture; mx != nil {
			tj.Mixture = &mixtureJSON{mx.EdgeShare, mx.LogMean, mx.LogSD}
		}
		if tu.Selection != nil {
			tj.Selection = tu.Selection.String()
			for _, f := range r.Nodes {
				tj.Widths = append(tj.Widths, f.Width)
			}
		}
		fields = append(fields, "tuning", tj)
	}
	b := []byte("{\n")
	for x := 0; x < len(fields); x += 2 {
		j, err := json.Marshal(fields[x+1])
		if err != nil {
			return fmt.Errorf("pairwise: Result.WriteEdgesJSON: %w", err)
		}
		b = fmt.Appendf(b, "  %q: %s,\n", fields[x], j)
	}
	b = append(b, "  \"edges\": ["...)
	for x, e := range r.Edges {
		ej := edgeJSON{Source: names[e.I], Target: names[e.J], I: e.I, J: e.J, Weight: e.Weight}
		if tu != nil && tu.FalseEdgeRate > 0 {
			ej.Score = finitePtr(tu.Score(e.I, e.J))
		}
		if wij := r.Model.Coupling(e.I, e.J); k == 2 {
			a := SignedWeight(wij)
			ej.Coupling = &a
		} else {
			for a := 0; a < k; a++ {
				ej.W = append(ej.W, wij.RawRowView(a))
			}
		}
		j, err := json.Marshal(ej)
		if err != nil {
			return fmt.Errorf("pairwise: Result.WriteEdgesJSON: %w", err)
		}
		b = append(append(b, ",\n    "[1-min(x, 1):]...), j...)
	}
	if len(r.Edges) > 0 {
		b = append(b, "\n  "...)
	}
	_, err := w.Write(append(b, "]\n}\n"...))
	return err
}

// The colours of WriteDOT's edges: blue for a positive Ising coupling
// (aligned spins), red for a negative one, grey for k > 2, where a
// coupling has no single sign.
const (
	dotPositive = "#2166ac"
	dotNegative = "#b2182b"
	dotNeutral  = "#555555"
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

// WriteDOT writes the learned graph to w in Graphviz's DOT language, as
// the undirected graph "pairwise": the neato layout without overlapping
// nodes, one node per variable, named by its variable name (quoted when
// DOT needs it), and one edge per learned edge, labelled with Â_ij (k = 2)
// or the weight (k > 2) to two decimals, with a tooltip naming the pair,
// as wide as its weight relative to the strongest edge (penwidth 1 to 5;
// 1 when every weight is 0), and for k = 2 blue when Â_ij ≥ 0 and red when
// Â_ij < 0 (grey for k > 2). Render it with, for example, neato -Tsvg. See
// the package's notes on writing a learned graph for the names and errors.
func (r *Result) WriteDOT(w io.Writer) error {
	if err := r.checkWritable("WriteDOT"); err != nil {
		return err
	}
	names := varNames(r.Model)
	var b strings.Builder
	b.WriteString("strict graph pairwise {\n  graph [\n    layout=neato\n    overlap=false\n    splines=true\n  ];\n" +
		"  node [\n    shape=ellipse\n    fontname=Helvetica\n  ];\n  edge [\n    fontname=Helvetica\n    fontsize=10\n  ];\n\n  // Node definitions.\n")
	for _, name := range names {
		fmt.Fprintf(&b, "  %s;\n", dotID(name))
	}
	maxW := 0.0
	for _, e := range r.Edges {
		maxW = math.Max(maxW, e.Weight)
	}
	if len(r.Edges) > 0 {
		b.WriteString("\n  // Edge definitions.\n")
	}
	for _, e := range r.Edges {
		color, label, tip := dotNeutral, fmt.Sprintf("%.2f", e.Weight), fmt.Sprintf("%s -- %s: weight %.4g", names[e.I], names[e.J], e.Weight)
		if r.Model.Alphabet() == 2 {
			a := SignedWeight(r.Model.Coupling(e.I, e.J))
			if color = dotPositive; a < 0 {
				color = dotNegative
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
