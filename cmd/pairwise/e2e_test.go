package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/encoding"
	"gonum.org/v1/gonum/graph/encoding/dot"
	"gonum.org/v1/gonum/graph/simple"

	"github.com/mrfkit/pairwise"
)

// buildCommand builds the pairwise command into a temporary directory and
// returns the path of the binary.
func buildCommand(t *testing.T) string {
	t.Helper()
	// The go command on the path, as the go command itself finds it
	// (runtime.GOROOT is deprecated: it names the build's root, which a
	// test binary may not run beside).
	goTool := "go"
	bin := filepath.Join(t.TempDir(), "pairwise")
	out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runBinary runs the built command and fails t unless it exits 0.
func runBinary(t *testing.T, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("pairwise %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// decodedGraph receives a DOT file through gonum's decoder: nodes keep their
// DOT IDs and edges their attributes.
type decodedGraph struct {
	*simple.UndirectedGraph
	graphAttrs, nodeAttrs, edgeAttrs encoding.Attributes
}

func newDecodedGraph() *decodedGraph {
	return &decodedGraph{UndirectedGraph: simple.NewUndirectedGraph()}
}

func (g *decodedGraph) NewNode() graph.Node {
	return &decodedNode{Node: g.UndirectedGraph.NewNode()}
}

func (g *decodedGraph) NewEdge(from, to graph.Node) graph.Edge {
	return &decodedEdge{Edge: g.UndirectedGraph.NewEdge(from, to)}
}

func (g *decodedGraph) DOTAttributeSetters() (graph, node, edge encoding.AttributeSetter) {
	return &g.graphAttrs, &g.nodeAttrs, &g.edgeAttrs
}

type decodedNode struct {
	graph.Node
	name string
	encoding.Attributes
}

func (n *decodedNode) SetDOTID(id string) { n.name = id }

type decodedEdge struct {
	graph.Edge
	encoding.Attributes
}

func (e *decodedEdge) attr(key string) string {
	for _, a := range e.Attributes {
		if a.Key == key {
			return a.Value
		}
	}
	return ""
}

// dotEdges parses DOT text with gonum's decoder and returns its edges as
// "a--b" keys (names sorted) with their label values.
func dotEdges(t *testing.T, text string) map[string]float64 {
	t.Helper()
	g := newDecodedGraph()
	if err := dot.Unmarshal([]byte(text), g); err != nil {
		t.Fatalf("dot.Unmarshal: %v\n%s", err, text)
	}
	edges := map[string]float64{}
	for _, e := range graph.EdgesOf(g.Edges()) {
		de := e.(*decodedEdge)
		a, b := de.From().(*decodedNode).name, de.To().(*decodedNode).name
		label, err := strconv.ParseFloat(de.attr("label"), 64)
		if err != nil {
			t.Fatalf("edge %s--%s: label %q is not a number", a, b, de.attr("label"))
		}
		if c := de.attr("color"); (label > 0) != (c == positiveColor) || c == "" {
			t.Errorf("edge %s--%s: colour %q for the coupling %v", a, b, c, label)
		}
		edges[edgeKey(a, b)] = label
	}
	return edges
}

func edgeKey(a, b string) string {
	if b < a {
		a, b = b, a
	}
	return a + "--" + b
}

// modelEdges returns the edges of a model as "a--b" keys with A_ij.
func modelEdges(m *pairwise.Model) map[string]float64 {
	names := m.Names()
	edges := map[string]float64{}
	for _, e := range m.Edges() {
		edges[edgeKey(names[e.I], names[e.J])] = isingCoupling(m.Coupling(e.I, e.J))
	}
	return edges
}

func readModelFile(t *testing.T, path string) *pairwise.Model {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := pairwise.ReadModel(f)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestEndToEnd runs the built command as a user would: learn the 3×3 Ising
// grid of testdata/grid.csv (3000 samples) into a model and a DOT picture,
// draw 20000 exact samples of the learned model, learn again, and compare.
//
// Why the graphs must agree: with λ = 2.5 and η = 0.4, bounds on the true
// width 2.22 and minimum edge weight 0.42, learning this grid recovered the
// true graph from 40 of 40 independent sample sets at N = 2000 and 4000
// (and 38 of 40 at N = 1000), and relearning from 20000 samples of the
// learned model gave the same graph in 40 of 40 (scratch runs while writing
// this test). The data and seeds here are fixed, so the test is
// deterministic; those rates say that it passes because recovery works at
// this size, with a margin of 3 in N, not by luck of a seed.
func TestEndToEnd(t *testing.T) {
	t.Parallel()
	bin := buildCommand(t)
	dir := t.TempDir()
	data := filepath.Join(testdataDir, "grid.csv")
	lam, eta := strconv.FormatFloat(gridLambda, 'g', -1, 64), strconv.FormatFloat(gridEta, 'g', -1, 64)
	m1, dot1 := filepath.Join(dir, "m1.json"), filepath.Join(dir, "g1.dot")
	samples := filepath.Join(dir, "s.csv")

	runBinary(t, bin, "learn", "-lambda", lam, "-eta", eta, "-format", "dot", "-o", dot1, "-model-out", m1, data)
	runBinary(t, bin, "sample", "-n", "20000", "-seed", "3", "-o", samples, m1)
	dot2 := runBinary(t, bin, "learn", "-quiet", "-lambda", lam, "-eta", eta, "-format", "dot", samples)
	edgesCSV := runBinary(t, bin, "learn", "-quiet", "-lambda", lam, "-eta", eta, data)

	text1, err := os.ReadFile(dot1)
	if err != nil {
		t.Fatal(err)
	}
	g1, g2 := dotEdges(t, string(text1)), dotEdges(t, dot2)
	truth := modelEdges(readModelFile(t, filepath.Join(testdataDir, "grid.model.json")))
	learned := modelEdges(readModelFile(t, m1))
	if k1, kt := sortedKeys(g1), sortedKeys(truth); !slices.Equal(k1, kt) {
		t.Errorf("graph learned from grid.csv\n\t%v\nwant the true grid\n\t%v", k1, kt)
	}
	if k1, k2 := sortedKeys(g1), sortedKeys(g2); !slices.Equal(k1, k2) {
		t.Errorf("graph relearned from samples of the learned model\n\t%v\nwant the first learned graph\n\t%v", k2, k1)
	}
	for key, a := range learned {
		// The DOT label is Â_ij to two decimals.
		if got := g1[key]; math.Abs(got-a) > 0.005+1e-9 {
			t.Errorf("%s: DOT label %v, want Â = %.4f to two decimals", key, got, a)
		}
		// 3000 samples estimate each coupling with a standard error of
		// about 0.05 here; 0.2 is four of them, and half of η.
		if d := math.Abs(a - truth[key]); d > 0.2 {
			t.Errorf("%s: learned Â = %.3f, true A = %.3f", key, a, truth[key])
		}
	}

	// The CSV edges name the same edges with the model's couplings.
	rows, err := csv.NewReader(strings.NewReader(edgesCSV)).ReadAll()
	if err != nil {
		t.Fatalf("edges CSV: %v\n%s", err, edgesCSV)
	}
	if want := []string{"source", "target", "weight", "coupling"}; !slices.Equal(rows[0], want) {
		t.Errorf("edges CSV header %q, want %q", rows[0], want)
	}
	for _, r := range rows[1:] {
		a, err := strconv.ParseFloat(r[3], 64)
		if err != nil || a != learned[edgeKey(r[0], r[1])] {
			t.Errorf("edges CSV row %q: coupling %v, want %v", r, a, learned[edgeKey(r[0], r[1])])
		}
	}
	if len(rows)-1 != len(learned) {
		t.Errorf("edges CSV has %d edges, want %d", len(rows)-1, len(learned))
	}
}

// TestLearnHistogramJSON learns the k = 3 survey histogram in-process and
// checks the JSON edges against the true model: the graph, and each learned
// W_ij within 0.25 of the truth in every entry. With λ = 2.4 and η = 0.6
// (bounds on the true width 2.38 and minimum edge weight 0.64) the graph was
// recovered from 40 of 40 sample sets at N = 1500, 3000 and 5000 in scratch
// runs; the file has N = 5000. The entries' standard errors are about 0.05
// at this N, so 0.25 leaves a wide margin while still catching a wrong sign
// or a misplaced matrix (entries are ±0.8, ±0.64, ∓0.4, ∓0.32).
func TestLearnHistogramJSON(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCmd(t, "learn", "-quiet", "-histogram", "-lambda", fmt.Sprint(surveyLambda), "-eta", fmt.Sprint(surveyEta), "-format", "json", filepath.Join(testdataDir, "survey.csv"))
	if code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr)
	}
	var got struct {
		N, K    int
		Names   []string
		Samples float64
		Edges   []struct {
			Source, Target string
			I, J           int
			Weight         float64
			W              [][]float64
		}
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("json output: %v\n%s", err, stdout)
	}
	truth := readModelFile(t, filepath.Join(testdataDir, "survey.model.json"))
	if got.N != 6 || got.K != 3 || got.Samples != surveySamples || !slices.Equal(got.Names, truth.Names()) {
		t.Errorf("n, k, samples, names = %d, %d, %v, %q", got.N, got.K, got.Samples, got.Names)
	}
	want := truth.Edges()
	if len(got.Edges) != len(want) {
		t.Fatalf("%d edges, want %d", len(got.Edges), len(want))
	}
	for x, e := range got.Edges {
		if e.I != want[x].I || e.J != want[x].J || e.Source != got.Names[e.I] || e.Target != got.Names[e.J] {
			t.Errorf("edge %d: %s--%s (%d, %d), want (%d, %d)", x, e.Source, e.Target, e.I, e.J, want[x].I, want[x].J)
			continue
		}
		w := truth.Coupling(e.I, e.J)
		for a := 0; a < 3; a++ {
			for b := 0; b < 3; b++ {
				if d := math.Abs(e.W[a][b] - w.At(a, b)); d > 0.25 {
					t.Errorf("edge %s--%s: W(%d, %d) = %.3f, true %.3f", e.Source, e.Target, a, b, e.W[a][b], w.At(a, b))
				}
			}
		}
	}
}

// TestLearnPipe learns from standard input into a model on standard output
// and samples from that model read from standard input, in-process: the
// "-" arguments of the README's pipeline.
func TestLearnPipe(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testdataDir, "grid.csv"))
	if err != nil {
		t.Fatal(err)
	}
	old := stdin
	defer func() { stdin = old }()
	stdin = bytes.NewReader(data)
	code, model, stderr := runCmd(t, "learn", "-quiet", "-lambda", "2.5", "-eta", "0.4", "-format", "model", "-")
	if code != 0 {
		t.Fatalf("learn: exit code %d: %s", code, stderr)
	}
	stdin = strings.NewReader(model)
	code, out, stderr := runCmd(t, "sample", "-n", "5", "-spins", "-seed", "9", "-")
	if code != 0 {
		t.Fatalf("sample: exit code %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 6 || lines[0] != "a1,a2,a3,b1,b2,b3,c1,c2,c3" {
		t.Fatalf("sample output:\n%s\nwant a header and 5 lines", out)
	}
	for _, l := range lines[1:] {
		for _, v := range strings.Split(l, ",") {
			if v != "1" && v != "-1" {
				t.Fatalf("line %q: value %q, want spins", l, v)
			}
		}
	}
	// The same seed gives the same samples, exact sampling in chunks
	// included.
	stdin = strings.NewReader(model)
	if _, again, _ := runCmd(t, "sample", "-n", "5", "-spins", "-seed", "9", "-"); again != out {
		t.Errorf("a second run with the same seed wrote\n%s\nwant\n%s", again, out)
	}
}

// TestSampleChunks checks that exact samples drawn in chunks, as the
// command draws them, are the rows one large draw gives, and that Gibbs
// sampling runs and honours the seed.
func TestSampleChunks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	modelPath := filepath.Join(testdataDir, "grid.model.json")
	n := sampleChunk + 10 // two chunks
	one := filepath.Join(dir, "one.csv")
	if code, _, stderr := runCmd(t, "sample", "-n", strconv.Itoa(n), "-seed", "5", "-o", one, modelPath); code != 0 {
		t.Fatal(stderr)
	}
	got, err := os.ReadFile(one)
	if err != nil {
		t.Fatal(err)
	}
	e, err := pairwise.NewExactSampler(readModelFile(t, modelPath))
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.Sample(newSeedSource(5), n)
	if err != nil {
		t.Fatal(err)
	}
	named, err := s.WithNames(readModelFile(t, modelPath).Names())
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := named.WriteCSV(&want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("chunked exact samples differ from one draw of %d", n)
	}

	gibbs := func() string {
		code, out, stderr := runCmd(t, "sample", "-gibbs", "-burnin", "50", "-thin", "2", "-chains", "2", "-n", "30", "-seed", "4", modelPath)
		if code != 0 {
			t.Fatal(stderr)
		}
		return out
	}
	g1, g2 := gibbs(), gibbs()
	if g1 != g2 || strings.Count(g1, "\n") != 31 {
		t.Errorf("Gibbs samples: %d lines, reproducible %t; want a header and 30 lines, the same twice", strings.Count(g1, "\n"), g1 == g2)
	}
}

// TestLearnFlags runs learn on testdata/grid.csv with each output format
// and with the flags that choose the learner, in-process: every run must
// succeed and find the 12 edges of the grid, which the data support by a
// wide margin (see TestEndToEnd), whatever backend, rule or storage.
func TestLearnFlags(t *testing.T) {
	t.Parallel()
	data := filepath.Join(testdataDir, "grid.csv")
	base := []string{"learn", "-quiet", "-lambda", "2.5", "-eta", "0.4"}
	for _, test := range []struct {
		name  string
		args  []string
		edges func(out string) int
	}{
		{"csv", base, lines},
		{"json", append(base, "-format", "json"), func(out string) int { return strings.Count(out, `"source"`) }},
		{"dot", append(base, "-format", "dot"), func(out string) int { return strings.Count(out, " -- ") / 2 }}, // edge line and tooltip
		{"model", append(base, "-format", "model"), func(out string) int { return strings.Count(out, `{"i"`) }},
		{"group solver", append(base, "-solver", "group"), lines},
		{"sparsitron", append(base, "-solver", "sparsitron"), lines},
		{"and rule", append(base, "-sym", "and"), lines},
		{"or rule", append(base, "-sym", "or"), lines},
		{"no merging", append(base, "-merge=false"), lines},
		{"one worker", append(base, "-workers", "1"), lines},
		{"radius", []string{"learn", "-quiet", "-radius", "5", "-eta", "0.4"}, lines},
		{"tolerance", append(base, "-tol", "1e-4", "-max-iter", "5000"), lines},
		{"data-driven λ and η", []string{"learn", "-quiet"}, lines},
		{"EBIC", []string{"learn", "-quiet", "-select", "ebic", "-gamma", "0.5", "-eta", "0.4"}, lines},
		{"cross-validation", []string{"learn", "-quiet", "-select", "cv", "-folds", "3", "-alpha", "0.01"}, lines},
		{"Bonferroni alone", []string{"learn", "-quiet", "-alpha", "0.05", "-gap=false"}, lines},
		{"one stage", []string{"learn", "-quiet", "-refit=false"}, lines},
		{"gap rule", []string{"learn", "-quiet", "-mixture=false"}, lines},
	} {
		t.Run(test.name, func(t *testing.T) {
			code, out, stderr := runCmd(t, append(test.args, data)...)
			if code != 0 {
				t.Fatalf("exit code %d: %s", code, stderr)
			}
			if got := test.edges(out); got != 12 {
				t.Errorf("%d edges, want the 12 of the grid:\n%s", got, out)
			}
		})
	}
}

// lines counts the data lines of an edges CSV.
func lines(out string) int { return strings.Count(out, "\n") - 1 }

// TestLearnJSONTuning checks that -format json reports what the tuning-free
// learner chose (the rule, each node's width, α, z*, the threshold, the
// refit's screen and the mixture fit, or with -mixture=false the gap rule's floor) and
// each edge's statistic, and that every edge's statistic reaches the threshold; with λ
// and η given, neither appears.
func TestLearnJSONTuning(t *testing.T) {
	type out struct {
		Edges []struct {
			I, J  int
			Score *float64
		}
		Tuning *struct {
			Selection                   string
			Widths                      []float64
			FalseEdgeRate               float64 `json:"false_edge_rate"`
			Critical, Threshold, Lowest float64
			Refit                       bool
			Screen                      float64
			Mixture                     *struct {
				EdgeShare float64 `json:"edge_share"`
				LogMean   float64 `json:"log_mean"`
				LogSD     float64 `json:"log_sd"`
			}
		}
	}
	path := filepath.Join(testdataDir, "grid.csv")
	var free out
	if err := json.Unmarshal([]byte(runOK(t, "learn", "-quiet", "-format", "json", path)), &free); err != nil {
		t.Fatal(err)
	}
	tu := free.Tuning
	if tu == nil || tu.Selection != "EBIC{Gamma: 0.25}" || len(tu.Widths) != 9 || tu.FalseEdgeRate != 0.01 {
		t.Fatalf("tuning %+v: want EBIC, 9 widths, α = 0.01", tu)
	}
	if !tu.Refit || tu.Screen != 1.5 {
		t.Errorf("refit %v, screen %g: want the refit stage at 1.5 on Ising data", tu.Refit, tu.Screen)
	}
	// The grid has 12 edges among 36 pairs: the fit's share must be near
	// 1/3 and its edges' statistics well above the nulls'.
	if mx := tu.Mixture; mx == nil || mx.EdgeShare < 0.2 || mx.EdgeShare > 0.5 || mx.LogMean < 1 || mx.LogSD < 0.1 || tu.Lowest != 0 || !(tu.Threshold > 0 && tu.Threshold <= tu.Critical) {
		t.Errorf("mixture %+v, floor %g, threshold %g, critical %g: want a share near 1/3, no floor, 0 < threshold ≤ critical", mx, tu.Lowest, tu.Threshold, tu.Critical)
	}
	var gap out
	if err := json.Unmarshal([]byte(runOK(t, "learn", "-quiet", "-format", "json", "-mixture=false", path)), &gap); err != nil {
		t.Fatal(err)
	}
	if tg := gap.Tuning; tg == nil || tg.Mixture != nil || !(tg.Lowest > 0 && tg.Lowest <= tg.Threshold && tg.Threshold <= tg.Critical) {
		t.Errorf("-mixture=false: tuning %+v: want no mixture and 0 < floor ≤ threshold ≤ critical", tg)
	}
	if len(free.Edges) == 0 {
		t.Fatal("no edges")
	}
	for _, e := range free.Edges {
		if e.Score == nil || *e.Score < tu.Threshold {
			t.Errorf("edge (%d, %d): score %v below the threshold %g", e.I, e.J, e.Score, tu.Threshold)
		}
	}
	var given out
	if err := json.Unmarshal([]byte(runOK(t, "learn", "-quiet", "-format", "json", "-lambda", "1", "-eta", "0.2", path)), &given); err != nil {
		t.Fatal(err)
	}
	if given.Tuning != nil || len(given.Edges) == 0 {
		t.Fatalf("with λ and η: tuning %+v, %d edges; want no tuning and some edges", given.Tuning, len(given.Edges))
	}
	for _, e := range given.Edges {
		if e.Score != nil {
			t.Errorf("with λ and η: edge (%d, %d) has a score %g", e.I, e.J, *e.Score)
		}
	}
}
