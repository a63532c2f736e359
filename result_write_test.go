package pairwise

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/graph/formats/dot"
	"gonum.org/v1/gonum/graph/formats/dot/ast"
	"gonum.org/v1/gonum/mat"
)

// learnedChain learns the chain 0 - 1 - 2 - 3 (couplings 0.6, -0.5, 0.4)
// from 4000 exact samples, with λ and η given unless tuningFree; names
// are set on the model when given.
func learnedChain(t *testing.T, tuningFree bool, names ...string) (*Result, *Samples) {
	t.Helper()
	a := mat.NewSymDense(4, nil)
	a.SetSym(0, 1, 0.6)
	a.SetSym(1, 2, -0.5)
	a.SetSym(2, 3, 0.4)
	m, err := NewIsing(a, make([]float64, 4))
	if err != nil {
		t.Fatal(err)
	}
	sampler, err := NewExactSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sampler.Sample(rand.NewPCG(3, 4), 4000)
	if err != nil {
		t.Fatal(err)
	}
	opts := []Option{WithWorkers(1)}
	if !tuningFree {
		opts = append(opts, WithWidth(m.Width()), WithMinEdgeWeight(0.3))
	}
	res, err := Learn(s, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Edges) != 3 {
		t.Fatalf("learned %d edges, want the chain's 3", len(res.Edges))
	}
	if names != nil {
		if err := res.Model.SetNames(names); err != nil {
			t.Fatal(err)
		}
	}
	return res, s
}

// closedA is A_ij of [[A, -A], [-A, A]] by the closed form, independent of
// SignedWeight.
func closedA(w mat.Matrix) float64 { return (w.At(0, 0) - w.At(0, 1) - w.At(1, 0) + w.At(1, 1)) / 4 }

func TestWriteEdgesCSVIsing(t *testing.T) {
	res, _ := learnedChain(t, false)
	var b bytes.Buffer
	if err := res.WriteEdgesCSV(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if lines[0] != "source,target,weight,coupling" || len(lines) != 1+len(res.Edges) {
		t.Fatalf("header %q and %d lines, want the Ising header and %d edges", lines[0], len(lines)-1, len(res.Edges))
	}
	for x, e := range res.Edges {
		f := strings.Split(lines[1+x], ",")
		if f[0] != fmt.Sprintf("x%d", e.I+1) || f[1] != fmt.Sprintf("x%d", e.J+1) {
			t.Errorf("line %d names %s, %s, want x%d, x%d (no names set)", x+2, f[0], f[1], e.I+1, e.J+1)
		}
		w, _ := strconv.ParseFloat(f[2], 64)
		a, _ := strconv.ParseFloat(f[3], 64)
		wantA := closedA(res.Model.Coupling(e.I, e.J))
		if w != e.Weight || a != wantA || math.Abs(a) != e.Weight {
			t.Errorf("line %d: weight %v, coupling %v; want %v and Â = %v with |Â| the weight", x+2, w, a, e.Weight, wantA)
		}
	}
	// The chain's signs survive: Â_12 < 0 < Â_01.
	if !strings.Contains(lines[2], ",-") || strings.Contains(lines[1], ",-") {
		t.Errorf("signs of the couplings lost: %q, %q", lines[1], lines[2])
	}
}

func TestWriteEdgesCSVPotts(t *testing.T) {
	m := gridPotts(2, 2, 4, 0.5, rand.New(rand.NewPCG(1, 1)))
	sampler, err := NewExactSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sampler.Sample(rand.NewPCG(1, 2), 3000)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Learn(s, WithWidth(m.Width()), WithMinEdgeWeight(0.3), WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Model.SetNames([]string{"a", "b", "c", "d"}); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := res.WriteEdgesCSV(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := "source,target,weight"
	for a := 0; a < 4; a++ {
		for b := 0; b < 4; b++ {
			want += fmt.Sprintf(",w_%d_%d", a, b)
		}
	}
	if lines[0] != want {
		t.Fatalf("header %q, want %q", lines[0], want)
	}
	if len(lines) != 1+len(res.Edges) || len(res.Edges) == 0 {
		t.Fatalf("%d lines for %d edges", len(lines)-1, len(res.Edges))
	}
	names := []string{"a", "b", "c", "d"}
	for x, e := range res.Edges {
		f := strings.Split(lines[1+x], ",")
		if f[0] != names[e.I] || f[1] != names[e.J] || len(f) != 19 {
			t.Fatalf("line %d: %q", x+2, lines[1+x])
		}
		w := res.Model.Coupling(e.I, e.J)
		for c := 0; c < 16; c++ {
			if v, _ := strconv.ParseFloat(f[3+c], 64); v != w.At(c/4, c%4) {
				t.Errorf("edge (%d, %d): w_%d_%d = %v, want %v", e.I, e.J, c/4, c%4, v, w.At(c/4, c%4))
			}
		}
	}
}

func TestWriteEdgesJSON(t *testing.T) {
	for _, tuningFree := range []bool{false, true} {
		res, s := learnedChain(t, tuningFree, "smoke", "cough", "fever", "rest")
		var b bytes.Buffer
		if err := res.WriteEdgesJSON(&b, s.TotalWeight(), s.Len()); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			N, K    int
			Names   []string
			Samples float64
			Rows    int
			Width   *float64
			Tuning  *struct {
				Selection     string
				Widths        []float64
				FalseEdgeRate float64 `json:"false_edge_rate"`
				Threshold     float64
			}
			Edges []struct {
				Source, Target string
				I, J           int
				Weight         float64
				Coupling       *float64
				W              [][]float64
				Score          *float64
			}
		}
		if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatalf("tuning-free %v: %v\n%s", tuningFree, err, b.String())
		}
		if doc.N != 4 || doc.K != 2 || doc.Names[2] != "fever" || doc.Samples != s.TotalWeight() || doc.Rows != s.Len() || len(doc.Edges) != len(res.Edges) {
			t.Fatalf("tuning-free %v: header %+v", tuningFree, doc)
		}
		if (doc.Tuning != nil) != tuningFree || (doc.Width != nil) != (!math.IsNaN(res.Width)) {
			t.Errorf("tuning-free %v: tuning %v, width %v (Result width %v)", tuningFree, doc.Tuning, doc.Width, res.Width)
		}
		if tuningFree && (doc.Tuning.FalseEdgeRate != res.Tuning.FalseEdgeRate || len(doc.Tuning.Widths) != 4 || doc.Tuning.Selection == "") {
			t.Errorf("tuning %+v, want α = %v and four widths", doc.Tuning, res.Tuning.FalseEdgeRate)
		}
		for x, e := range res.Edges {
			d := doc.Edges[x]
			if d.I != e.I || d.J != e.J || d.Source != doc.Names[e.I] || d.Target != doc.Names[e.J] || d.Weight != e.Weight || d.W != nil {
				t.Errorf("edge %d: %+v, want %+v", x, d, e)
			}
			if d.Coupling == nil || *d.Coupling != closedA(res.Model.Coupling(e.I, e.J)) {
				t.Errorf("edge %d: coupling %v, want %v", x, d.Coupling, closedA(res.Model.Coupling(e.I, e.J)))
			}
			if (d.Score != nil) != tuningFree || (tuningFree && *d.Score != res.Tuning.Score(e.I, e.J)) {
				t.Errorf("tuning-free %v, edge %d: score %v", tuningFree, x, d.Score)
			}
		}
	}
}

// dotAttrs returns the attributes of a DOT statement's list as a map.
func dotAttrs(list []*ast.Attr) map[string]string {
	m := map[string]string{}
	for _, a := range list {
		m[a.Key] = a.Val
	}
	return m
}

func TestWriteDOT(t *testing.T) {
	// Names a DOT ID cannot hold bare: a keyword, a space, a hyphen.
	names := []string{"node", "short breath", "x-ray", "fever"}
	res, _ := learnedChain(t, false, names...)
	var b bytes.Buffer
	if err := res.WriteDOT(&b); err != nil {
		t.Fatal(err)
	}
	file, err := dot.ParseString(b.String())
	if err != nil {
		t.Fatalf("not DOT: %v\n%s", err, b.String())
	}
	g := file.Graphs[0]
	if !g.Strict || g.Directed || g.ID != "pairwise" {
		t.Errorf("graph %q strict %v directed %v", g.ID, g.Strict, g.Directed)
	}
	unquote := func(s string) string {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
		return s
	}
	var nodes []string
	maxW := 0.0
	for _, e := range res.Edges {
		maxW = math.Max(maxW, e.Weight)
	}
	edges := 0
	for _, st := range g.Stmts {
		switch st := st.(type) {
		case *ast.NodeStmt:
			nodes = append(nodes, unquote(st.Node.ID))
		case *ast.EdgeStmt:
			e := res.Edges[edges]
			edges++
			from, to := unquote(st.From.(*ast.Node).ID), unquote(st.To.Vertex.(*ast.Node).ID)
			if from != names[e.I] || to != names[e.J] {
				t.Errorf("edge %d joins %q and %q, want %q and %q", edges, from, to, names[e.I], names[e.J])
			}
			at := dotAttrs(st.Attrs)
			a := closedA(res.Model.Coupling(e.I, e.J))
			wantColor := "#2166ac"
			if a < 0 {
				wantColor = "#b2182b"
			}
			if got := unquote(at["color"]); got != wantColor {
				t.Errorf("edge %d: colour %q for Â = %v", edges, got, a)
			}
			if got := unquote(at["label"]); got != fmt.Sprintf("%.2f", a) {
				t.Errorf("edge %d: label %q for Â = %v", edges, got, a)
			}
			if pw, _ := strconv.ParseFloat(at["penwidth"], 64); math.Abs(pw-(1+4*e.Weight/maxW)) > 0.005 {
				t.Errorf("edge %d: penwidth %v, want 1 + 4·%v/%v", edges, pw, e.Weight, maxW)
			}
		}
	}
	if strings.Join(nodes, "|") != strings.Join(names, "|") || edges != len(res.Edges) {
		t.Errorf("nodes %q and %d edges, want %q and %d", nodes, edges, names, len(res.Edges))
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteEdgesErrors(t *testing.T) {
	res, s := learnedChain(t, false)
	for name, write := range map[string]func(r *Result) error{
		"WriteEdgesCSV":  func(r *Result) error { return r.WriteEdgesCSV(failWriter{}) },
		"WriteEdgesJSON": func(r *Result) error { return r.WriteEdgesJSON(failWriter{}, s.TotalWeight(), s.Len()) },
		"WriteDOT":       func(r *Result) error { return r.WriteDOT(failWriter{}) },
	} {
		if err := write(res); err == nil || err.Error() != "disk full" {
			t.Errorf("%s: %v, want the writer's error", name, err)
		}
		if err := write(&Result{}); err == nil || !strings.Contains(err.Error(), name+": no learned model") {
			t.Errorf("%s of an empty Result: %v", name, err)
		}
	}
}
