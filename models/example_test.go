package models_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/models"
)

// The diamond of the paper's Figure 1 breaks the incoherence condition at
// its hubs, and Algorithm 1 learns it all the same: λ is its width, η its
// edge weight.
func ExampleNewDiamond() {
	const n, a = 8, 0.25
	m, err := models.NewDiamond(n, a)
	if err != nil {
		fmt.Println(err)
		return
	}
	inc, err := models.Incoherence(m, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	closed, _ := models.DiamondIncoherence(n, a)
	fmt.Printf("width %.2f, η %.2f, incoherence at the hub %.3f (closed form %.3f)\n", m.Width(), m.MinEdgeWeight(), inc, closed)

	ex, err := pairwise.NewExactSampler(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := ex.Sample(rand.NewPCG(1, 2), 20000)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := pairwise.Learn(s, pairwise.WithWidth(m.Width()), pairwise.WithMinEdgeWeight(m.MinEdgeWeight()))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d of %d edges learned\n", len(res.Edges), len(m.Edges()))
	// Output:
	// width 1.50, η 0.25, incoherence at the hub 1.174 (closed form 1.174)
	// 12 of 12 edges learned
}

// The grid of the paper's Figure 2 with k = 4 states: centred checkerboard
// couplings of weight θ on the 12 edges of a 3×3 grid.
func ExampleNewGridPotts() {
	m, err := models.NewGridPotts(3, 3, 4, 0.2, rand.NewPCG(1, 0))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("n = %d, k = %d, %d edges, width %.1f, η %.1f\n", m.Vars(), m.Alphabet(), len(m.Edges()), m.Width(), m.MinEdgeWeight())
	fmt.Println(m.Coupling(0, 1).RawMatrix().Data[:4])
	// Output:
	// n = 9, k = 4, 12 edges, width 0.8, η 0.2
	// [0.2 -0.2 0.2 -0.2]
}
