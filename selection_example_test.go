package pairwise_test

import (
	"fmt"
	"log"
	"math/rand/v2"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/models"
)

// Learn a graph without knowing the width λ or the minimum edge weight η:
// the widths are chosen node by node by EBIC and the edges by a Wald test at
// a 1% family-wise false-edge rate; on Ising data a second stage refits each
// node on the pairs that pass a screen, and a two-group mixture fitted to
// the statistics cuts them where an edge becomes more likely than not.
// Result.Tuning and NodeFit.Width report what was chosen.
func ExampleLearn_tuningFree() {
	model, err := models.NewDiamond(10, 0.2) // hubs 0 and 9, width 1.6, η = 0.2
	if err != nil {
		log.Fatal(err)
	}
	sampler, err := pairwise.NewExactSampler(model)
	if err != nil {
		log.Fatal(err)
	}
	samples, err := sampler.Sample(rand.NewPCG(1, 2), 5000)
	if err != nil {
		log.Fatal(err)
	}

	res, err := pairwise.Learn(samples) // no WithWidth, no WithMinEdgeWeight
	if err != nil {
		log.Fatal(err)
	}
	same := len(res.Edges) == len(model.Edges())
	for x, e := range res.Edges {
		same = same && e.I == model.Edges()[x].I && e.J == model.Edges()[x].J
	}
	fmt.Printf("selection: %v, edge test at α = %g\n", res.Tuning.Selection, res.Tuning.FalseEdgeRate)
	fmt.Printf("refit on the pairs scoring ≥ %g: %v\n", res.Tuning.Screen, res.Tuning.Refit)
	fmt.Printf("mixture: %.2f of the pairs are edges\n", res.Tuning.Mixture.EdgeShare) // 16 of 45 = 0.36
	fmt.Printf("learned %d edges, the true graph: %v\n", len(res.Edges), same)
	fmt.Printf("hub widths above the other nodes': %v\n", res.Nodes[0].Width > res.Nodes[4].Width && res.Nodes[9].Width > res.Nodes[4].Width)
	// Output:
	// selection: EBIC{Gamma: 0.25}, edge test at α = 0.01
	// refit on the pairs scoring ≥ 1.5: true
	// mixture: 0.36 of the pairs are edges
	// learned 16 edges, the true graph: true
	// hub widths above the other nodes': true
}
