package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise"
)

// writeBenchFiles writes exact samples of a 3-node Ising chain (A_01 = 0.6,
// A_12 = −0.5) as ../shared/bench writes them (spins ±1, no header) and its
// truth JSON, and returns their paths.
func writeBenchFiles(t *testing.T, count int) (csv, truth string) {
	t.Helper()
	a := mat.NewSymDense(3, []float64{0, 0.6, 0, 0.6, 0, -0.5, 0, -0.5, 0})
	m, err := pairwise.NewIsing(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	es, err := pairwise.NewExactSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := es.Sample(rand.NewPCG(1, 2), count)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for r := 0; r < s.Len(); r++ {
		for j := 0; j < 3; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprint(&b, 2*s.At(r, j)-1)
		}
		b.WriteByte('\n')
	}
	dir := t.TempDir()
	csv, truth = filepath.Join(dir, "chain_N.csv"), filepath.Join(dir, "chain.truth.json")
	if err := os.WriteFile(csv, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tj := `{"name": "chain3", "kind": "ising", "n": 3, "k": 2, "edges": [[0, 1], [1, 2]],
		"lambda": 1.1, "eta": 0.5, "A": [[0, 0.6, 0], [0.6, 0, -0.5], [0, -0.5, 0]], "theta": [0, 0, 0]}`
	if err := os.WriteFile(truth, []byte(tj), 0o644); err != nil {
		t.Fatal(err)
	}
	return csv, truth
}

// TestCompare runs the compare command on a chain that 20000 samples
// recover (the estimation error of each A_ij is about 0.02, far below
// η/2 = 0.25), and checks the JSON line: the baselines' field names, the
// recovery under every rule, and a weight error of the size the sample
// size allows (below 0.1).
func TestCompare(t *testing.T) {
	csv, truth := writeBenchFiles(t, 20000)
	var out, errb bytes.Buffer
	if code := run([]string{"compare", "-workers", "2", csv, truth}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var line map[string]any
	if err := json.Unmarshal(out.Bytes(), &line); err != nil {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	for _, f := range []string{"method", "data", "model", "n", "k", "N", "wall_s", "threads", "exact_recovery", "fp", "fn", "max_abs_weight_error", "rules"} {
		if _, ok := line[f]; !ok {
			t.Errorf("field %q missing from %s", f, out.String())
		}
	}
	if line["exact_recovery"] != true || line["N"] != 20000.0 || line["threads"] != 2.0 {
		t.Errorf("got %s, want exact recovery of 20000 samples with 2 threads", out.String())
	}
	if e := line["max_abs_weight_error"].(float64); !(e < 0.1) {
		t.Errorf("max weight error %v, want below 0.1", e)
	}
	rules := line["rules"].(map[string]any)
	for _, r := range []string{"average", "thr_and", "thr_or"} {
		if rules[r].(map[string]any)["exact"] != true {
			t.Errorf("rule %s not exact: %v", r, rules[r])
		}
	}
}

func TestCompareErrors(t *testing.T) {
	csv, truth := writeBenchFiles(t, 100)
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"n": 3, "k": 2, "lambda": -1, "eta": 0.5, "A": [[0,0,0],[0,0,0],[0,0,0]]}`), 0o644)
	four := filepath.Join(t.TempDir(), "four.json")
	os.WriteFile(four, []byte(`{"n": 4, "k": 2, "lambda": 1, "eta": 0.5, "A": [[0,0,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0]]}`), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", csv}, "want DATA.csv and TRUTH.json"},
		{[]string{"compare", "-workers", "0", csv, truth}, "-workers 0"},
		{[]string{"compare", csv, bad}, "lambda = -1"},
		{[]string{"compare", csv, four}, "says n = 4"},
		{[]string{"compare", csv + ".missing", truth}, "no such file"},
	} {
		var out, errb bytes.Buffer
		if code := run(tc.args, &out, &errb); code == 0 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want an error mentioning %q", tc.args, code, errb.String(), tc.want)
		}
	}
}
