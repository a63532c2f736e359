package pairwise_test

import (
	"fmt"
	"log"

	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise"
)

// For ordinal items (k > 2) each coupling is a k×k block; SignedEdges
// summarises it by its linear-by-linear association, positive when higher
// answers go together.
func ExampleSignedEdges() {
	m, err := pairwise.NewModel(3, 3)
	if err != nil {
		log.Fatal(err)
	}
	// Items 0 and 1 agree (β = 0.3), items 1 and 2 disagree (β = -0.2):
	// W(a, b) = β·s_a·s_b with scores s = -2, 0, 2.
	for _, e := range []struct {
		i, j int
		beta float64
	}{{0, 1, 0.3}, {1, 2, -0.2}} {
		w := mat.NewDense(3, 3, nil)
		for a := 0; a < 3; a++ {
			for b := 0; b < 3; b++ {
				w.Set(a, b, e.beta*float64(2*a-2)*float64(2*b-2))
			}
		}
		if err := m.SetCoupling(e.i, e.j, w); err != nil {
			log.Fatal(err)
		}
	}
	for _, e := range pairwise.SignedEdges(m) {
		fmt.Printf("%d-%d: %+.2f\n", e.I, e.J, e.Weight)
	}
	// Output:
	// 0-1: +0.30
	// 1-2: -0.20
}
