package psych_test

import (
	"fmt"
	"log"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/psych"
)

// IsingFit's rule (glmnet's penalised path, EBIC with γ = 0.25, the AND
// rule, every nonzero coefficient an edge) on a chain of six binary items
// (true weight 2 on IsingFit's 0/1 scale, four times the Ising coupling
// 0.5), against the default's edge test: with 1000 people both find the
// chain and nothing else, with weights printed on IsingFit's scale.
func ExampleIsingFit() {
	a := mat.NewSymDense(6, nil)
	for i := 0; i+1 < 6; i++ {
		a.SetSym(i, i+1, 0.5)
	}
	m, err := pairwise.NewIsing(a, nil)
	if err != nil {
		log.Fatal(err)
	}
	ex, err := pairwise.NewExactSampler(m)
	if err != nil {
		log.Fatal(err)
	}
	s, err := ex.Sample(rand.NewPCG(1, 2), 1000)
	if err != nil {
		log.Fatal(err)
	}
	for _, mode := range []struct {
		name string
		opts []pairwise.Option
	}{{"IsingFit", psych.IsingFit()}, {"default", nil}} {
		res, err := pairwise.Learn(s, mode.opts...)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s:", mode.name)
		for _, e := range res.SignedEdges() {
			fmt.Printf(" %d-%d %.1f", e.I, e.J, 4*e.Weight)
		}
		fmt.Println()
	}
	// Output:
	// IsingFit: 0-1 1.8 1-2 1.8 2-3 2.0 3-4 1.6 4-5 2.0
	// default: 0-1 1.6 1-2 1.7 2-3 2.2 3-4 1.7 4-5 1.9
}
