package pairwise_test

import (
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"strings"

	"gonum.org/v1/gonum/graph/topo"
	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise"
)

// A model in the model JSON format: read it, change it, write it back.
func ExampleReadModel() {
	const in = `{
  "n": 3,
  "k": 2,
  "names": ["smoker", "cough", "fever"],
  "couplings": [
    {"i": 0, "j": 1, "w": [[0.5, -0.5], [-0.5, 0.5]]}
  ],
  "fields": [[-0.1, 0.1], [0, 0], [0, 0]]
}`
	m, err := pairwise.ReadModel(strings.NewReader(in))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Names(), m.Edges())
	if err := m.SetField(2, []float64{0.25, -0.25}); err != nil {
		log.Fatal(err)
	}
	if err := m.WriteModel(os.Stdout); err != nil {
		log.Fatal(err)
	}

	// A mistake is reported with its place in the file.
	_, err = pairwise.ReadModel(strings.NewReader(`{"n": 2, "k": 2, "couplings": [{"i": 0, "j": 1, "w": [[1, 0]]}], "fields": [[0, 0], [0, 0]]}`))
	fmt.Println(err)
	// Output:
	// [smoker cough fever] [{0 1 0.5}]
	// {
	//   "n": 3,
	//   "k": 2,
	//   "names": ["smoker", "cough", "fever"],
	//   "couplings": [
	//     {"i": 0, "j": 1, "w": [[0.5, -0.5], [-0.5, 0.5]]}
	//   ],
	//   "fields": [
	//     [-0.1, 0.1],
	//     [0, 0],
	//     [0.25, -0.25]
	//   ]
	// }
	// pairwise: ReadModel: line 1, column 32: couplings[0].w: 1 rows, want k = 2
}

// Result.Graph hands the learned graph to gonum's graph algorithms; here,
// the connected components of what was learned from 5000 samples of a
// model with two independent blocks.
func ExampleResult_Graph() {
	m, err := pairwise.ReadModel(strings.NewReader(`{"n": 5, "k": 2,
  "couplings": [
    {"i": 0, "j": 1, "w": [[0.6, -0.6], [-0.6, 0.6]]},
    {"i": 1, "j": 2, "w": [[-0.5, 0.5], [0.5, -0.5]]},
    {"i": 3, "j": 4, "w": [[0.7, -0.7], [-0.7, 0.7]]}
  ],
  "fields": [[0, 0], [0, 0], [0, 0], [0, 0], [0, 0]]}`))
	if err != nil {
		log.Fatal(err)
	}
	sampler, err := pairwise.NewExactSampler(m)
	if err != nil {
		log.Fatal(err)
	}
	s, err := sampler.Sample(rand.NewPCG(1, 2), 5000)
	if err != nil {
		log.Fatal(err)
	}
	res, err := pairwise.Learn(s, pairwise.WithWidth(1.5), pairwise.WithMinEdgeWeight(0.4))
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range topo.ConnectedComponents(res.Graph()) {
		fmt.Println(len(c), "variables")
	}
	// Unordered output:
	// 3 variables
	// 2 variables
}

// ReadCSVCompact merges identical lines into counts while it reads.
func ExampleReadCSVCompact() {
	s, err := pairwise.ReadCSVCompact(strings.NewReader("a,b\n0,1\n1,1\n0,1\n0,1\n"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.Len(), "distinct rows of", s.TotalWeight(), "samples")
	if err := s.WriteCSV(os.Stdout); err != nil {
		log.Fatal(err)
	}
	// Output:
	// 2 distinct rows of 4 samples
	// count,a,b
	// 3,0,1
	// 1,1,1
}

// Write a learned graph for Graphviz: each edge is labelled with its Ising
// coupling Â_ij, blue when positive and red when negative, as wide as its
// weight. "neato -Tsvg chain.dot > chain.svg" draws it. WriteEdgesCSV and
// WriteEdgesJSON write the same edges as tables.
func ExampleResult_WriteDOT() {
	a := mat.NewSymDense(3, nil)
	a.SetSym(0, 1, 0.8)
	a.SetSym(1, 2, -0.4)
	m, err := pairwise.NewIsing(a, make([]float64, 3))
	if err != nil {
		log.Fatal(err)
	}
	sampler, err := pairwise.NewExactSampler(m)
	if err != nil {
		log.Fatal(err)
	}
	s, err := sampler.Sample(rand.NewPCG(1, 2), 20000)
	if err != nil {
		log.Fatal(err)
	}
	if s, err = s.WithNames([]string{"smoker", "cough", "short breath"}); err != nil {
		log.Fatal(err)
	}
	res, err := pairwise.Learn(s, pairwise.WithWidth(m.Width()), pairwise.WithMinEdgeWeight(0.4))
	if err != nil {
		log.Fatal(err)
	}
	if err := res.WriteDOT(os.Stdout); err != nil {
		log.Fatal(err)
	}
	// Output:
	// strict graph pairwise {
	//   graph [
	//     layout=neato
	//     overlap=false
	//     splines=true
	//   ];
	//   node [
	//     shape=ellipse
	//     fontname=Helvetica
	//   ];
	//   edge [
	//     fontname=Helvetica
	//     fontsize=10
	//   ];
	//
	//   // Node definitions.
	//   smoker;
	//   cough;
	//   "short breath";
	//
	//   // Edge definitions.
	//   smoker -- cough [
	//     penwidth=5.00
	//     color="#2166ac"
	//     label=0.80
	//     tooltip="smoker -- cough: A = 0.8017"
	//   ];
	//   cough -- "short breath" [
	//     penwidth=2.98
	//     color="#b2182b"
	//     label=-0.40
	//     tooltip="cough -- short breath: A = -0.3963"
	//   ];
	// }
}
