package psych_test

import (
	"cmp"
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/psych"
)

// The centrality indices of a triangle with one negative edge: the edge
// 0-2 is weak (length 1/0.2 = 5), so the shortest path from 0 to 2 runs
// through 1 (length 2 + 2).
func ExampleNewCentrality() {
	c, err := psych.NewCentrality(3, []pairwise.Edge{{I: 0, J: 1, Weight: 0.5}, {I: 1, J: 2, Weight: 0.5}, {I: 0, J: 2, Weight: -0.2}})
	if err != nil {
		log.Fatal(err)
	}
	for v := 0; v < 3; v++ {
		fmt.Printf("node %d: strength %.2f, expected influence %.2f, closeness %.3f, betweenness %.0f\n",
			v, c.Strength[v], c.ExpectedInfluence[v], c.Closeness[v], c.Betweenness[v])
	}
	// Output:
	// node 0: strength 0.70, expected influence 0.30, closeness 0.167, betweenness 0
	// node 1: strength 1.00, expected influence 1.00, closeness 0.250, betweenness 1
	// node 2: strength 0.70, expected influence 0.30, closeness 0.167, betweenness 0
}

// exampleModel is two clusters of three items joined by a negative edge.
func exampleModel() *pairwise.Model {
	a := mat.NewSymDense(6, nil)
	for _, e := range []struct {
		i, j int
		w    float64
	}{{0, 1, 0.6}, {1, 2, 0.5}, {0, 2, 0.4}, {3, 4, 0.6}, {4, 5, 0.5}, {2, 3, -0.4}} {
		a.SetSym(e.i, e.j, e.w)
	}
	m, err := pairwise.NewIsing(a, nil)
	if err != nil {
		log.Fatal(err)
	}
	return m
}

// The workflow's first steps: learn the network of six binary items from
// 1000 people's answers, print its signed edges, and rank the items by
// strength (CentralityOf).
func Example() {
	ex, err := pairwise.NewExactSampler(exampleModel())
	if err != nil {
		log.Fatal(err)
	}
	s, err := ex.Sample(rand.NewPCG(1, 2), 1000)
	if err != nil {
		log.Fatal(err)
	}
	res, err := pairwise.Learn(s)
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range res.SignedEdges() {
		fmt.Printf("%d-%d: %+.2f\n", e.I, e.J, e.Weight)
	}
	c, err := psych.CentralityOf(res)
	if err != nil {
		log.Fatal(err)
	}
	order := []int{0, 1, 2, 3, 4, 5}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(c.Strength[b], c.Strength[a]) })
	for _, v := range order {
		fmt.Printf("item %d: strength %.2f, expected influence %+.2f\n", v, c.Strength[v], c.ExpectedInfluence[v])
	}
	// Output:
	// 0-1: +0.57
	// 0-2: +0.30
	// 1-2: +0.54
	// 2-3: -0.33
	// 3-4: +0.53
	// 4-5: +0.45
	// item 2: strength 1.16, expected influence +0.51
	// item 1: strength 1.11, expected influence +1.11
	// item 4: strength 0.97, expected influence +0.97
	// item 0: strength 0.87, expected influence +0.87
	// item 3: strength 0.85, expected influence +0.20
	// item 5: strength 0.45, expected influence +0.45
}

// Bootstrap the network learned from 1000 answers to six binary items: 40
// nonparametric and 40 case-dropping resamples here (bootnet's defaults are
// 1000 of each), deterministic for the seed.
func ExampleBootstrap() {
	ex, err := pairwise.NewExactSampler(exampleModel())
	if err != nil {
		log.Fatal(err)
	}
	s, err := ex.Sample(rand.NewPCG(1, 2), 1000)
	if err != nil {
		log.Fatal(err)
	}
	res, err := psych.Bootstrap(context.Background(), s, rand.NewPCG(3, 4), psych.BootstrapOptions{Resamples: 40, CaseDrops: 40})
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range res.Edges {
		if e.I == 0 && e.J == 1 {
			fmt.Printf("edge 0-1 in %.0f%% of the resamples, interval above zero: %v\n", 100*e.Selected, e.Lower > 0)
		}
	}
	for i, st := range res.CaseDrop.Statistics {
		if st == "edge" {
			fmt.Printf("CS(edge) at least 0.5: %v\n", res.CaseDrop.CS[i] >= 0.5)
		}
	}
	// Output:
	// edge 0-1 in 100% of the resamples, interval above zero: true
	// CS(edge) at least 0.5: true
}

// Compare the networks of two groups of 800 people answering four items,
// whose only difference is the edge 1-2, present in the first group and
// absent in the second. With Holm's correction over the 6 pairs, an edge can
// reach 0.05 only with at least 6/0.05 − 1 = 119 permutations.
func ExampleCompareGroups() {
	a := mat.NewSymDense(4, []float64{
		0, 0.6, 0, -0.4,
		0.6, 0, 0.5, 0,
		0, 0.5, 0, 0.6,
		-0.4, 0, 0.6, 0,
	})
	m1, err := pairwise.NewIsing(a, nil)
	if err != nil {
		log.Fatal(err)
	}
	m2 := m1.Clone()
	if err := m2.SetCoupling(1, 2, mat.NewDense(2, 2, nil)); err != nil {
		log.Fatal(err)
	}
	var groups [2]*pairwise.Samples
	for g, m := range []*pairwise.Model{m1, m2} {
		ex, err := pairwise.NewExactSampler(m)
		if err != nil {
			log.Fatal(err)
		}
		if groups[g], err = ex.Sample(rand.NewPCG(uint64(g), 5), 800); err != nil {
			log.Fatal(err)
		}
	}
	c, err := psych.CompareGroups(context.Background(), groups[0], groups[1], rand.NewPCG(6, 7), psych.CompareOptions{Permutations: 119})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("largest edge difference: p = %.3f\n", c.MaxDifferenceP)
	for _, e := range c.Edges {
		if e.Adjusted <= 0.05 {
			fmt.Printf("edge %d-%d differs (Holm-adjusted p ≤ 0.05)\n", e.I, e.J)
		}
	}
	// Output:
	// largest edge difference: p = 0.008
	// edge 1-2 differs (Holm-adjusted p ≤ 0.05)
}
