package main

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/cmd/cli"
)

var update = flag.Bool("update", false, "rewrite the example files in testdata/ of the module root")

// testdataDir is the module's testdata directory, which holds the example
// files of the README.
const testdataDir = "../../testdata"

// The example data sets of the README, generated from known models with
// fixed seeds by exampleFiles. The learning parameters below are bounds on
// the true width and minimum edge weight (printed by the generator test).
const (
	gridSamples   = 3000 // rows of testdata/grid.csv
	gridLambda    = 2.5  // ≥ the grid's width 2.22
	gridEta       = 0.4  // ≤ the grid's minimum edge weight 0.42
	surveySamples = 5000 // total count of testdata/survey.csv
	surveyLambda  = 2.4  // ≥ the survey model's width 2.38
	surveyEta     = 0.6  // ≤ its minimum edge weight 0.64
)

// gridModel is the Ising model behind testdata/grid.csv: a 3×3 grid whose
// nodes are named by row (a, b, c) and column (1, 2, 3), couplings |A_ij|
// drawn uniformly from [0.4, 0.6] with random signs, fields θ_i uniform in
// [-0.2, 0.2].
func gridModel() *pairwise.Model {
	r := rand.New(rand.NewPCG(1, 7))
	a := mat.NewSymDense(9, nil)
	for v := 0; v < 9; v++ {
		for _, u := range []int{v + 1, v + 3} {
			if (u == v+1 && v%3 == 2) || u >= 9 {
				continue
			}
			w := 0.4 + 0.2*r.Float64()
			if r.IntN(2) == 0 {
				w = -w
			}
			a.SetSym(v, u, w)
		}
	}
	theta := make([]float64, 9)
	for i := range theta {
		theta[i] = 0.2 * (2*r.Float64() - 1)
	}
	m, err := pairwise.NewIsing(a, theta)
	if err != nil {
		panic(err)
	}
	if err := m.SetNames([]string{"a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3"}); err != nil {
		panic(err)
	}
	return m
}

// surveyModel is the k = 3 model behind testdata/survey.csv: six questions
// answered 0, 1 or 2, coupled along a chain q1-q2-...-q6 plus q1-q3, each
// coupling the centred "agreement" matrix W(a, a) = θ, W(a, b) = -θ/2 with θ
// alternating between 0.8 and -0.64, and a field on q3.
func surveyModel() *pairwise.Model {
	m, err := pairwise.NewModel(6, 3)
	if err != nil {
		panic(err)
	}
	for x, e := range [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {0, 2}} {
		th := 0.8
		if x%2 == 1 {
			th = -0.64
		}
		w := mat.NewDense(3, 3, nil)
		for a := 0; a < 3; a++ {
			for b := 0; b < 3; b++ {
				if a == b {
					w.Set(a, b, th)
				} else {
					w.Set(a, b, -th/2)
				}
			}
		}
		if err := m.SetCoupling(e[0], e[1], w); err != nil {
			panic(err)
		}
	}
	if err := m.SetField(2, []float64{0.3, 0, -0.3}); err != nil {
		panic(err)
	}
	if err := m.SetNames([]string{"q1", "q2", "q3", "q4", "q5", "q6"}); err != nil {
		panic(err)
	}
	return m
}

// exampleFiles returns the contents of the example files, by name.
func exampleFiles(t *testing.T) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	model := func(name string, m *pairwise.Model) {
		var b bytes.Buffer
		if err := m.WriteModel(&b); err != nil {
			t.Fatal(err)
		}
		files[name] = b.Bytes()
	}
	draw := func(m *pairwise.Model, n int, seed uint64) *pairwise.Samples {
		e, err := pairwise.NewExactSampler(m)
		if err != nil {
			t.Fatal(err)
		}
		s, err := e.Sample(rand.NewPCG(seed, 1), n)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	grid := gridModel()
	model("grid.model.json", grid)
	// Spins ±1 with a header, as an Ising data set usually comes.
	s := draw(grid, gridSamples, 2019)
	var b bytes.Buffer
	for i, name := range grid.Names() {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(name)
	}
	b.WriteByte('\n')
	if err := cli.WriteRows(&b, s, true); err != nil {
		t.Fatal(err)
	}
	files["grid.csv"] = bytes.Clone(b.Bytes())

	survey := surveyModel()
	model("survey.model.json", survey)
	hist, err := draw(survey, surveySamples, 2020).Compact().WithNames(survey.Names())
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := hist.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	files["survey.csv"] = b.Bytes()
	return files
}

// TestExampleFiles checks that the committed example files are what their
// generator makes, so that the README's description of them stays true;
// "go test -run TestExampleFiles -update" rewrites them.
func TestExampleFiles(t *testing.T) {
	t.Parallel()
	g, s := gridModel(), surveyModel()
	t.Logf("grid: width %.4f, min edge weight %.4f; survey: width %.4f, min edge weight %.4f",
		g.Width(), g.MinEdgeWeight(), s.Width(), s.MinEdgeWeight())
	if !(g.Width() <= gridLambda && g.MinEdgeWeight() >= gridEta && s.Width() <= surveyLambda && s.MinEdgeWeight() >= surveyEta) {
		t.Errorf("the documented λ and η are not bounds on the models' width and minimum edge weight")
	}
	for name, want := range exampleFiles(t) {
		path := filepath.Join(testdataDir, name)
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -run TestExampleFiles -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what its generator makes (run go test -run TestExampleFiles -update after a deliberate change)", path)
		}
	}
}
