package pairwise_test

import (
	"context"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/models"
	"github.com/mrfkit/pairwise/solve"
)

// Build an Ising model from its coupling matrix A and field θ (Definition 1)
// and read off the quantities the paper's guarantees depend on.
func ExampleNewIsing() {
	// A chain 0 - 1 - 2 with couplings 0.5 and -0.3, and a field on node 0.
	a := mat.NewSymDense(3, []float64{
		0, 0.5, 0,
		0.5, 0, -0.3,
		0, -0.3, 0,
	})
	m, err := pairwise.NewIsing(a, []float64{0.2, 0, 0})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("n = %d, k = %d\n", m.Vars(), m.Alphabet())
	fmt.Printf("width λ = %.1f, minimum edge weight η = %.1f\n", m.Width(), m.MinEdgeWeight())
	for _, e := range m.Edges() {
		fmt.Printf("edge (%d, %d) weight %.1f\n", e.I, e.J, e.Weight)
	}
	fmt.Printf("W_01 = %v\n", mat.Formatted(m.Coupling(0, 1), mat.Prefix("       "), mat.Squeeze()))
	// Output:
	// n = 3, k = 2
	// width λ = 0.8, minimum edge weight η = 0.3
	// edge (0, 1) weight 0.5
	// edge (1, 2) weight 0.3
	// W_01 = ⎡ 0.5  -0.5⎤
	//        ⎣-0.5   0.5⎦
}

// Build a k-ary model coupling by coupling, and draw exact samples from it.
// The same source state always gives the same samples.
func ExampleNewExactSampler() {
	m, err := pairwise.NewModel(4, 3)
	if err != nil {
		log.Fatal(err)
	}
	// W_01 rewards equal values of Z_0 and Z_1.
	w := mat.NewDense(3, 3, []float64{
		1, 0, 0,
		0, 1, 0,
		0, 0, 1,
	})
	if err := m.SetCoupling(0, 1, w); err != nil {
		log.Fatal(err)
	}
	sampler, err := pairwise.NewExactSampler(m)
	if err != nil {
		log.Fatal(err)
	}
	s, err := sampler.Sample(rand.NewPCG(1, 2), 10000)
	if err != nil {
		log.Fatal(err)
	}
	equal := 0
	for r := 0; r < s.Len(); r++ {
		if s.At(r, 0) == s.At(r, 1) {
			equal++
		}
	}
	// P(Z_0 = Z_1) = 3e / (3e + 6) ≈ 0.576.
	fmt.Printf("%d samples of %d variables; Z_0 = Z_1 in %.2f of them\n", s.Len(), s.Vars(), float64(equal)/float64(s.Len()))
	// Output:
	// 10000 samples of 4 variables; Z_0 = Z_1 in 0.58 of them
}

// Read samples from CSV: one observation a line, spins ±1 or states 0..k-1,
// with an optional header of names.
func ExampleReadCSV() {
	data := `smoker,cough,fever
1,1,-1
-1,-1,-1
1,1,1
`
	s, err := pairwise.ReadCSV(strings.NewReader(data))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d samples, n = %d, k = %d; row 0 as states: %d %d %d\n",
		s.Len(), s.Vars(), s.Alphabet(), s.At(0, 0), s.At(0, 1), s.At(0, 2))
	// Output:
	// 3 samples, n = 3, k = 2; row 0 as states: 1 1 0
}

// Learn a model with the paper's algorithm, λ and η known, and print the
// learned graph with the signed couplings: for k = 2 the learned Ŵ_IJ has
// the Ising form [[A, −A], [−A, A]], and A_IJ keeps the sign that
// Edge.Weight (|A_IJ|) drops. This is the README's first example.
func ExampleLearn() {
	// A chain 0 - 1 - 2 - 3 whose middle coupling is negative.
	m, err := pairwise.NewIsing(mat.NewSymDense(4, []float64{
		0, 0.6, 0, 0,
		0.6, 0, -0.5, 0,
		0, -0.5, 0, 0.4,
		0, 0, 0.4, 0,
	}), nil)
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
	res, err := pairwise.Learn(s, pairwise.WithWidth(m.Width()), pairwise.WithMinEdgeWeight(0.4))
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range res.Edges {
		a := res.Model.Coupling(e.I, e.J).At(1, 1) // the signed coupling A_IJ
		fmt.Printf("%d %d %.1f\n", e.I, e.J, a)
	}
	// Output:
	// 0 1 0.6
	// 1 2 -0.5
	// 2 3 0.4
}

// Learn the paper's diamond graph, which violates the incoherence condition
// of earlier guarantees, with Algorithm 1.
func ExampleLearnIsing() {
	m, err := models.NewDiamond(10, 0.2)
	if err != nil {
		log.Fatal(err)
	}
	sampler, err := pairwise.NewExactSampler(m)
	if err != nil {
		log.Fatal(err)
	}
	s, err := sampler.Sample(rand.NewPCG(1, 2), 10000)
	if err != nil {
		log.Fatal(err)
	}
	res, err := pairwise.LearnIsing(s, pairwise.WithWidth(m.Width()), pairwise.WithMinEdgeWeight(0.2))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("true edges %d, learned edges %d\n", len(m.Edges()), len(res.Edges))
	fmt.Printf("learned (0, 1) with weight %.1f\n", res.Edges[0].Weight)
	// Output:
	// true edges 16, learned edges 16
	// learned (0, 1) with weight 0.2
}

// Learn the paper's 3x3 grid with k = 4 with Algorithm 2.
func ExampleLearnPairwise() {
	m, err := models.NewGridPotts(3, 3, 4, 0.2, rand.NewPCG(1, 1))
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
	res, err := pairwise.LearnPairwise(s,
		pairwise.WithWidth(m.Width()), pairwise.WithMinEdgeWeight(0.2), pairwise.WithWorkers(2))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("λ = %.1f; true edges %d, learned edges %d\n", m.Width(), len(m.Edges()), len(res.Edges))
	// Output:
	// λ = 0.8; true edges 12, learned edges 12
}

// Choose the solver: GroupMirror also solves the l1 problems of the Ising
// path, and the paper's fixed-T schedule is available for reproduction.
func ExampleWithSolver() {
	m, err := models.NewDiamond(6, 0.3)
	if err != nil {
		log.Fatal(err)
	}
	sampler, err := pairwise.NewExactSampler(m)
	if err != nil {
		log.Fatal(err)
	}
	s, err := sampler.Sample(rand.NewPCG(3, 4), 5000)
	if err != nil {
		log.Fatal(err)
	}
	for _, solver := range []pairwise.Solver{
		pairwise.EntropicMirror{},
		pairwise.GroupMirror{},
	} {
		res, err := pairwise.LearnIsing(s,
			pairwise.WithWidth(m.Width()), pairwise.WithMinEdgeWeight(0.3), pairwise.WithSolver(solver))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %d edges, converged %v\n", solver, len(res.Edges), res.Nodes[0].Converged)
	}
	// Output:
	// EntropicMirror: 8 edges, converged true
	// GroupMirror: 8 edges, converged true
}

// Compare the paper's learner with Sparsitron, its baseline in Figure 2, on
// the same samples of the 3x3 grid (k = 2): the mirror-descent learner
// reaches the graph from fewer samples.
func ExampleSparsitron() {
	m, err := models.NewGridPotts(3, 3, 2, 0.2, rand.NewPCG(1, 1))
	if err != nil {
		log.Fatal(err)
	}
	sampler, err := pairwise.NewExactSampler(m)
	if err != nil {
		log.Fatal(err)
	}
	s, err := sampler.Sample(rand.NewPCG(5, 6), 2000)
	if err != nil {
		log.Fatal(err)
	}
	for _, solver := range []pairwise.Solver{pairwise.GroupMirror{}, pairwise.Sparsitron{}} {
		res, err := pairwise.LearnPairwise(s,
			pairwise.WithWidth(m.Width()), pairwise.WithMinEdgeWeight(0.2), pairwise.WithSolver(solver))
		if err != nil {
			log.Fatal(err)
		}
		found := 0
		for _, e := range res.Edges {
			if mat.Norm(m.Coupling(e.I, e.J), math.Inf(1)) > 0 {
				found++
			}
		}
		fmt.Printf("%v: %d of the %d true edges, %d false\n", solver, found, len(m.Edges()), len(res.Edges)-found)
	}
	// Output:
	// GroupMirror: 12 of the 12 true edges, 0 false
	// Sparsitron: 8 of the 12 true edges, 0 false
}

// countingSolver is a caller's own solver of the Ising path's l1 problems:
// it counts the regressions it is handed and solves them with Accelerated.
type countingSolver struct{ calls *atomic.Int64 }

func (c countingSolver) Solve(ctx context.Context, p *solve.Problem[solve.Spins], w []float64) (solve.Stats, error) {
	c.calls.Add(1)
	return pairwise.Accelerated{}.SolveSpins(ctx, p, w)
}

// Plug your own solver into the learners: wrapped in Custom, it solves
// every regression of the default path, where the width λ_i of each node
// is chosen by EBIC along a path of widths and the graph by the edge test.
func ExampleCustom() {
	m, err := models.NewDiamond(6, 0.3)
	if err != nil {
		log.Fatal(err)
	}
	sampler, err := pairwise.NewExactSampler(m)
	if err != nil {
		log.Fatal(err)
	}
	s, err := sampler.Sample(rand.NewPCG(3, 4), 5000)
	if err != nil {
		log.Fatal(err)
	}
	var calls atomic.Int64
	mine := pairwise.Custom{Name: "counting", Spins: countingSolver{&calls}}
	res, err := pairwise.Learn(s, pairwise.WithSolver(mine), pairwise.WithWorkers(2))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d edges of %d; %s solved %d regressions for %d nodes\n",
		len(res.Edges), len(m.Edges()), mine, calls.Load(), s.Vars())
	// Output:
	// 8 edges of 8; counting solved 26 regressions for 6 nodes
}
