package pairwise

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

// TestLearnWide learns nodes of n = 32,800 spins, past the 32,768 from
// which not one spin a group fits the engine's tables, so that its fits use
// the wide layout (the full design from the bits alone; its margins by
// bitMargins). Spin 1 copies spin 0 in 90% of the 300 rows and the rest
// are fair coins, so nodes 0 and 1 must list each other as their largest
// coupling, with |Â_01| ≥ η/2 (a conditional log-odds of ln 9 ≈ 2.2 where
// λ = 1 allows ‖w‖₁ ≤ 2), and every fit must be certified.
func TestLearnWide(t *testing.T) {
	if testing.Short() {
		t.Skip("13 MB of CSV")
	}
	const n, rows = 32800, 300
	r := rand.New(rand.NewPCG(5, 6))
	var buf bytes.Buffer
	line := make([]byte, 2*n)
	for range rows {
		for j := range n {
			line[2*j], line[2*j+1] = '0'+byte(r.IntN(2)), ','
		}
		if r.Float64() < 0.9 {
			line[2] = line[0]
		} else {
			line[2] = '0' + '1' - line[0]
		}
		line[2*n-1] = '\n'
		buf.Write(line)
	}
	s, err := ReadCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	const eta = 0.2
	p, err := LearnNodes(s, []int{0, 1, 2, 5000, n - 1}, WithWidth(1), WithMinEdgeWeight(eta), WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	for _, pn := range p.nodes {
		if !pn.fit.Converged {
			t.Errorf("node %d: not certified: %+v", pn.node, pn.fit)
		}
		if pn.node > 1 {
			continue
		}
		other := 1 - pn.node
		var buf [4]float64
		best, bestJ := 0.0, -1
		for _, j := range pn.est.At {
			if int(j) == pn.node {
				continue
			}
			// The Ising block [[a, −a], [−a, a]] of Â = a.
			if a := math.Abs(pn.est.BlockTo(buf[:], int(j))[3]); a > best {
				best, bestJ = a, int(j)
			}
		}
		if bestJ != other || best < eta/2 {
			t.Errorf("node %d: largest coupling %v with %d, want at least %v with %d", pn.node, best, bestJ, eta/2, other)
		}
	}
}
