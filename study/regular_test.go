package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mrfkit/pairwise"
)

// TestRegular writes a small random 4-regular model's samples and reads
// them back: the CSV holds N rows of n spins, and the truth has n, the
// n·d/2 edges of the graph, each variable in d of them, with couplings in
// [lo, hi) in magnitude, symmetric A, and λ and η as gen.py defines them.
func TestRegular(t *testing.T) {
	out := filepath.Join(t.TempDir(), "reg")
	runOK(t, "regular", "-n", "20", "-N", "50", "-out", out)
	f, err := os.Open(out + ".csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := pairwise.ReadCSV(f)
	if err != nil {
		t.Fatal(err)
	}
	if s.Vars() != 20 || s.Len() != 50 || s.Alphabet() != 2 {
		t.Fatalf("read %d rows of %d variables over %d states, want 50 of 20 over 2", s.Len(), s.Vars(), s.Alphabet())
	}
	b, err := os.ReadFile(out + ".truth.json")
	if err != nil {
		t.Fatal(err)
	}
	var truth struct {
		N         int          `json:"n"`
		Kind      string       `json:"kind"`
		Edges     [][2]int     `json:"edges"`
		A         [][]float64  `json:"A"`
		Couplings [][3]float64 `json:"couplings"`
		Theta     []float64    `json:"theta"`
		Lambda    float64      `json:"lambda"`
		Eta       float64      `json:"eta"`
	}
	if err := json.Unmarshal(b, &truth); err != nil {
		t.Fatal(err)
	}
	if truth.N != 20 || truth.Kind != "ising" || len(truth.Edges) != 40 {
		t.Fatalf("truth: n = %d, kind %q, %d edges; want 20, ising, 40", truth.N, truth.Kind, len(truth.Edges))
	}
	deg := make([]int, 20)
	lambda, eta := 0.0, 1.0
	for _, e := range truth.Edges {
		deg[e[0]]++
		deg[e[1]]++
		a := truth.A[e[0]][e[1]]
		if a != truth.A[e[1]][e[0]] || abs(a) < 0.2 || abs(a) >= 0.5 {
			t.Errorf("edge %v: A = %v, %v", e, a, truth.A[e[1]][e[0]])
		}
		eta = min(eta, abs(a))
	}
	for i, row := range truth.A {
		sum := 0.0
		for _, a := range row {
			sum += abs(a)
		}
		lambda = max(lambda, sum)
		if deg[i] != 4 {
			t.Errorf("variable %d has degree %d", i, deg[i])
		}
	}
	// The list of couplings is the dense A's upper triangle, edge for edge.
	if len(truth.Couplings) != len(truth.Edges) || len(truth.Theta) != 20 {
		t.Fatalf("%d couplings for %d edges, %d fields", len(truth.Couplings), len(truth.Edges), len(truth.Theta))
	}
	for x, c := range truth.Couplings {
		i, j := int(c[0]), int(c[1])
		if [2]int{i, j} != truth.Edges[x] || c[2] != truth.A[i][j] {
			t.Errorf("coupling %d: %v, edge %v with A = %v", x, c, truth.Edges[x], truth.A[i][j])
		}
	}
	if abs(lambda-truth.Lambda) > 1e-12 || eta != truth.Eta {
		t.Errorf("lambda %v, eta %v; the couplings give %v and %v", truth.Lambda, truth.Eta, lambda, eta)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
