package pairwise

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mrfkit/pairwise/internal/engine"
)

// withScreen sets the least number of variables from which the Ising
// path's regressions are solved on working sets (0: never).
func withScreen(min int) Option {
	return optionFunc(func(c *config) { c.screen = min })
}

// TestLearnIsingScreened learns twelve nodes of a 20×20 Ising grid
// (n = 400, where the engine screens by default) from 3000 Gibbs samples
// with the true λ and η, with and without screening, at tolerance 1e-9,
// and checks that every node is certified and that each node's
// neighbourhood, the j with |Â_ij| ≥ η/2 (the rows of the graph before
// symmetrisation), is the same, with estimates that differ by less than
// 1e-3 (both certify L(ŵ) − L* ≤ 1e-9; the curvature of these problems on
// their support is above 0.01, so the solutions are within about
// √(2·2e-9/0.01) ≈ 6e-4 of each other).
func TestLearnIsingScreened(t *testing.T) {
	skipUnderRace(t)
	if engine.DefaultScreen > 400 {
		t.Fatalf("the test's n = 400 is below the default screening threshold %d", engine.DefaultScreen)
	}
	m := gridIsing(20, 20, rand.New(rand.NewPCG(21, 1)), 0.2, 0.5)
	g, err := NewGibbsSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.Sample(rand.NewPCG(21, 2), 3000)
	if err != nil {
		t.Fatal(err)
	}
	eta := m.MinEdgeWeight()
	opts := []Option{WithWidth(m.Width()), WithMinEdgeWeight(eta), WithTolerance(1e-9), WithWorkers(2)}
	var nodes []int
	for i := 0; i < s.n; i += 33 {
		nodes = append(nodes, i)
	}
	fit := func(screen int) *fitted {
		f, err := fitIsing(context.Background(), "test", s, append(opts, withScreen(screen)), nodes)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	plain, scr := fit(0), fit(engine.DefaultScreen)
	edges := 0
	for _, i := range nodes {
		if !plain.nodes[i].Converged || !scr.nodes[i].Converged {
			t.Fatalf("node %d: unscreened %+v, screened %+v", i, plain.nodes[i], scr.nodes[i])
		}
		for j := 0; j < s.n; j++ {
			a, b := plain.est[i].Block(j)[0], scr.est[i].Block(j)[0]
			if (math.Abs(a) >= eta/2) != (math.Abs(b) >= eta/2) {
				t.Errorf("node %d, neighbour %d: Â = %.6f unscreened, %.6f screened (η/2 = %.4f)", i, j, a, b, eta/2)
			}
			if math.Abs(a) >= eta/2 {
				edges++
			}
			if math.Abs(a-b) > 1e-3 {
				t.Errorf("node %d, neighbour %d: Â = %.6f unscreened, %.6f screened", i, j, a, b)
			}
		}
	}
	if edges == 0 {
		t.Fatal("no edges found: the comparison is empty")
	}
}

// TestLearnIsingScreenedCancel cancels a screened LearnIsing (n = 400)
// shortly after it starts: it returns context.Canceled.
func TestLearnIsingScreenedCancel(t *testing.T) {
	m := gridIsing(20, 20, rand.New(rand.NewPCG(22, 1)), 0.2, 0.5)
	g, err := NewGibbsSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.Sample(rand.NewPCG(22, 2), 2000)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var done int
	progress := WithProgress(func(d, total int) {
		if done = d; d == 5 {
			cancel()
		}
	})
	defer cancel()
	start := time.Now()
	_, err = LearnIsingContext(ctx, s, WithWidth(m.Width()), WithMinEdgeWeight(m.MinEdgeWeight()), WithWorkers(2), progress)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v after %v (%d nodes done), want context.Canceled", err, time.Since(start), done)
	}
	if done >= s.n {
		t.Fatalf("all %d nodes were fitted", done)
	}
}
