package pairwise

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestNodeWidths: WithNodeWidths with every λ_i = λ is WithWidth(λ) to the
// last bit (the same radius 2λ or 2λ√k for every regression, from the same
// start); with the widths a tuning-free fit chose it reproduces that fit's
// estimates to what two certificates of 1e-9 allow (the bound
// checkCloseResults explains), and bad widths are errors.
func TestNodeWidths(t *testing.T) {
	for _, k := range []int{2, 3} {
		m := gridPotts(3, 3, k, 0.3, rand.New(rand.NewPCG(31, uint64(k))))
		s := drawExact(t, m, 3000, rand.NewPCG(32, uint64(k)))
		lam := m.Width()
		same := make([]float64, s.n)
		for i := range same {
			same[i] = lam
		}
		eta := WithMinEdgeWeight(m.MinEdgeWeight())
		a, err := Learn(s, WithWidth(lam), eta)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Learn(s, WithNodeWidths(same), eta)
		if err != nil {
			t.Fatal(err)
		}
		ad, bd := denseOf(a), denseOf(b)
		for i := range ad {
			for x := range ad[i] {
				if ad[i][x] != bd[i][x] {
					t.Fatalf("k=%d: node %d entry %d: %v with WithWidth, %v with WithNodeWidths", k, i, x, ad[i][x], bd[i][x])
				}
			}
			if b.Nodes[i].Width != lam {
				t.Errorf("k=%d: NodeFit.Width = %v, want %v", k, b.Nodes[i].Width, lam)
			}
		}
		if b.Width != lam || !math.IsNaN(b.Radius) {
			t.Errorf("k=%d: Result.Width %v, Radius %v; want %v and NaN", k, b.Width, b.Radius, lam)
		}
		// A Selection given keeps Algorithm 2's width search on the
		// nominal scale (the default there fits the multinomial model,
		// with no width).
		def, err := Learn(s, WithTolerance(1e-9), WithSelection(EBIC{Gamma: DefaultGamma}))
		if err != nil {
			t.Fatal(err)
		}
		chosen := make([]float64, s.n)
		for i, f := range def.Nodes {
			chosen[i] = f.Width
		}
		re, err := Learn(s, WithNodeWidths(chosen), WithTolerance(1e-9))
		if err != nil {
			t.Fatal(err)
		}
		checkCloseResults(t, def, re)
	}
	s := drawExact(t, diamondIsing(5, 0.2), 500, rand.NewPCG(33, 1))
	for _, bad := range [][]float64{{1, 1}, {1, 1, 1, 1, math.NaN()}, {1, 1, 1, -1, 1}, nil} {
		if _, err := Learn(s, WithNodeWidths(bad)); err == nil || !strings.Contains(err.Error(), "WithNodeWidths") {
			t.Errorf("WithNodeWidths(%v): error %v, want one naming the option", bad, err)
		}
	}
}

// TestNodeWidthsLastWins: of WithWidth and WithNodeWidths the last wins.
func TestNodeWidthsLastWins(t *testing.T) {
	s := drawExact(t, diamondIsing(5, 0.2), 800, rand.NewPCG(34, 1))
	ws := []float64{0.3, 0.4, 0.5, 0.6, 0.7}
	a, err := Learn(s, WithWidth(1), WithNodeWidths(ws), WithMinEdgeWeight(0.2))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Learn(s, WithNodeWidths(ws), WithWidth(1), WithMinEdgeWeight(0.2))
	if err != nil {
		t.Fatal(err)
	}
	if a.Nodes[3].Width != 0.6 || b.Width != 1 || b.Nodes[3].Width != 0 {
		t.Errorf("node widths then width: %v; width then node widths: %v, %v", a.Nodes[3].Width, b.Width, b.Nodes[3].Width)
	}
}
