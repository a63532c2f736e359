package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"math/rand/v2"

	"github.com/mrfkit/pairwise"
	"gonum.org/v1/gonum/mat"
)

// TestTuningStudy runs the tuning study end to end on one small cell (the
// diamond at N = 2000, 2 seeds, three methods) with -export, and checks what
// it writes: one CSV line a run, the report's sections, a figure, and the
// exported data set, whose spins and truth must match the study's model.
func TestTuningStudy(t *testing.T) {
	dir := t.TempDir()
	runOK(t, "tuning", "-models", "diamond", "-N", "2000", "-seeds", "2",
		"-methods", "oracle,default,bonferroni", "-export", filepath.Join(dir, "data"), "-out", dir)
	rows := readCSV(t, filepath.Join(dir, "recovery.csv"))
	if len(rows) != 1+2*3 {
		t.Fatalf("recovery.csv: %d lines, want a header and 6 runs", len(rows))
	}
	methods := map[string]int{}
	for _, r := range rows[1:] {
		if r[0] != "diamond" || r[3] != "2000" {
			t.Errorf("row %v: want the diamond at N = 2000", r)
		}
		methods[r[5]]++
		fp, _ := strconv.Atoi(r[7])
		fn, _ := strconv.Atoi(r[8])
		if exact := r[6] == "true"; exact != (fp == 0 && fn == 0) {
			t.Errorf("row %v: exact %v with %d false positives, %d false negatives", r, exact, fp, fn)
		}
	}
	for _, m := range []string{"oracle", "default", "bonferroni"} {
		if methods[m] != 2 {
			t.Errorf("method %s: %d runs, want 2", m, methods[m])
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "recovery.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## diamond", "| 2000 |", "**bonferroni**", "criterion"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("recovery.md lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "diamond.png")); err != nil {
		t.Error(err)
	}

	// The exported data: 2000 rows of 10 spins ±1, and the truth's 16 edges.
	data := readCSV(t, filepath.Join(dir, "data", "diamond_N2000_seed1.csv"))
	if len(data) != 2000 || len(data[0]) != 10 {
		t.Fatalf("exported data: %d rows of %d columns, want 2000 of 10", len(data), len(data[0]))
	}
	for _, r := range data {
		for _, v := range r {
			if v != "1" && v != "-1" {
				t.Fatalf("exported spin %q, want ±1", v)
			}
		}
	}
	var truth struct {
		Kind  string      `json:"kind"`
		N     int         `json:"n"`
		Edges [][2]int    `json:"edges"`
		A     [][]float64 `json:"A"`
	}
	readJSON(t, filepath.Join(dir, "data", "diamond.truth.json"), &truth)
	if truth.Kind != "ising" || truth.N != 10 || len(truth.Edges) != 16 || len(truth.A) != 10 {
		t.Errorf("truth: kind %q, n %d, %d edges, A %d rows; want ising, 10, 16, 10", truth.Kind, truth.N, len(truth.Edges), len(truth.A))
	}
	for _, e := range truth.Edges {
		if truth.A[e[0]][e[1]] != 0.2 {
			t.Errorf("edge %v: A = %g, want the diamond's 0.2", e, truth.A[e[0]][e[1]])
		}
	}
}

// TestTuningExportPotts checks the export of a k-ary data set in
// shared/bench's pairwise layout: values 0..k-1, and a truth whose W_ij
// are the model's couplings.
func TestTuningExportPotts(t *testing.T) {
	dir := t.TempDir()
	runOK(t, "tuning", "-models", "grid-k4", "-N", "300", "-seeds", "1",
		"-methods", "oracle", "-export", filepath.Join(dir, "data"), "-out", dir)
	data := readCSV(t, filepath.Join(dir, "data", "grid-k4_N300_seed0.csv"))
	seen := map[string]bool{}
	for _, r := range data {
		if len(r) != 9 {
			t.Fatalf("row of %d columns, want 9", len(r))
		}
		for _, v := range r {
			seen[v] = true
		}
	}
	if len(data) != 300 || len(seen) != 4 || !seen["0"] || !seen["3"] {
		t.Errorf("exported data: %d rows with values %v, want 300 rows of 0..3", len(data), seen)
	}
	var truth struct {
		Kind  string   `json:"kind"`
		K     int      `json:"k"`
		Edges [][2]int `json:"edges"`
		W     []struct {
			I, J int
			W    [][]float64
		} `json:"W"`
	}
	readJSON(t, filepath.Join(dir, "data", "grid-k4.truth.json"), &truth)
	m, err := tuningModels[2].build()
	if err != nil || tuningModels[2].name != "grid-k4" {
		t.Fatalf("tuningModels[2] is %q (%v), want grid-k4", tuningModels[2].name, err)
	}
	if truth.Kind != "pairwise" || truth.K != 4 || len(truth.W) != len(m.Edges()) || len(truth.Edges) != len(m.Edges()) {
		t.Fatalf("truth: kind %q, k %d, %d couplings; want pairwise, 4, %d", truth.Kind, truth.K, len(truth.W), len(m.Edges()))
	}
	for _, w := range truth.W {
		c := m.Coupling(w.I, w.J)
		for a := 0; a < 4; a++ {
			for b := 0; b < 4; b++ {
				if w.W[a][b] != c.At(a, b) {
					t.Fatalf("W_%d%d(%d, %d) = %g, model has %g", w.I, w.J, a, b, w.W[a][b], c.At(a, b))
				}
			}
		}
	}
}

// TestTuningBench checks -bench on a hand-made results file: two data sets
// exported by the study, a baseline that recovers both under thr and
// neither under supp. The table must hold every method, and the summary's
// verdicts must follow from the default's recoveries, which the study's
// own CSV gives for the same files.
func TestTuningBench(t *testing.T) {
	dir := t.TempDir()
	study := filepath.Join(dir, "study")
	runOK(t, "tuning", "-models", "grid-k2", "-N", "700", "-seeds", "2",
		"-methods", "default", "-export", filepath.Join(dir, "data"), "-out", study)
	exact := 0
	for _, r := range readCSV(t, filepath.Join(study, "recovery.csv"))[1:] {
		if r[6] == "true" {
			exact++
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "results"), 0o755); err != nil {
		t.Fatal(err)
	}
	var lines strings.Builder
	for seed := 0; seed < 2; seed++ {
		fmt.Fprintf(&lines, `{"method": "sk_cv", "data": "grid-k2_N700_seed%d.csv", "model": "grid-k2", "N": 700, "wall_s": 1.5, `+
			`"rules": {"thr_and": {"exact": true, "fp": 0, "fn": 0}, "supp_and": {"exact": false, "fp": 3, "fn": 0}}}`+"\n", seed)
	}
	if err := os.WriteFile(filepath.Join(dir, "results", "grid.jsonl"), []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	runOK(t, "tuning", "-bench", dir, "-methods", "default,nogap", "-out", out)
	md, err := os.ReadFile(filepath.Join(out, "baselines.md"))
	if err != nil {
		t.Fatal(err)
	}
	vsThr, vsSupp := "**behind**", "ahead"
	if exact == 2 {
		vsThr = "level"
	}
	if exact == 0 {
		vsSupp = "level"
	}
	// The paired counts: sk_cv's thr recovers both data sets, its supp none.
	vsThr += fmt.Sprintf(" (0:%d, p %.2g)", 2-exact, mcnemar(0, 2-exact))
	vsSupp += fmt.Sprintf(" (%d:0, p %.2g)", exact, mcnemar(exact, 0))
	for _, want := range []string{
		fmt.Sprintf("| grid-k2 | 700 | %d/2 ", exact),
		"| sk_cv 2/2 (FP+FN 0.00) | " + vsThr + " | sk_cv 0/2 (FP+FN 3.00) | " + vsSupp + " |",
		"| grid-k2 | 700 | **pairwise default** | " + strconv.Itoa(exact) + "/2 |",
		"| grid-k2 | 700 | pairwise nogap |",
		"| grid-k2 | 700 | sk_cv | 2/2 | 0.00 / 0.00 | 0/2 | 3.00 / 0.00 | 1.5 |",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("baselines.md lacks %q:\n%s", want, md)
		}
	}

	// -bench runs only what needs no truth.
	code, _, stderr := runCmd(t, "tuning", "-bench", dir, "-methods", "oracle", "-out", out)
	if code != 1 || !strings.Contains(stderr, "tuning-free") {
		t.Errorf("-bench -methods oracle: exit %d, stderr %q; want exit 1 naming the tuning-free methods", code, stderr)
	}
}

// readJSON decodes the JSON file at path into v.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestTuningModels checks every model of the study against its
// description: its size, its number of edges, and for the drawn ones that
// the couplings lie in ±[0.2, 0.5).
func TestTuningModels(t *testing.T) {
	want := map[string][3]int{ // n, k, edges
		"diamond": {10, 2, 16}, "grid-k2": {9, 2, 12}, "grid-k4": {9, 4, 12}, "grid-k6": {9, 6, 12},
		"grid7x7": {49, 2, 84}, "regular30": {30, 2, 45},
		"sparse12": {12, 2, 1}, "star15": {15, 2, 4}, "random40": {40, 2, 20},
	}
	if len(tuningModels) != len(want) {
		t.Errorf("%d models, want %d", len(tuningModels), len(want))
	}
	for _, tm := range tuningModels {
		m, err := tm.build()
		if err != nil {
			t.Fatalf("%s: %v", tm.name, err)
		}
		w, ok := want[tm.name]
		if !ok {
			t.Errorf("unexpected model %q", tm.name)
			continue
		}
		edges := m.Edges()
		if m.Vars() != w[0] || m.Alphabet() != w[1] || len(edges) != w[2] {
			t.Errorf("%s: n = %d, k = %d, %d edges; want %v", tm.name, m.Vars(), m.Alphabet(), len(edges), w)
		}
		if tm.name == "star15" || tm.name == "random40" || tm.name == "grid7x7" || tm.name == "regular30" {
			a, _, err := m.Ising()
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range edges {
				if v := math.Abs(a.At(e.I, e.J)); v < 0.2 || v >= 0.5 {
					t.Errorf("%s: |A_%d%d| = %g, want in [0.2, 0.5)", tm.name, e.I, e.J, v)
				}
			}
		}
	}
	if _, err := tuningRandomIsing(4, 7, 0.2, 0.5, 1); err == nil {
		t.Error("7 edges on 4 nodes: no error")
	}
}

// TestMcNemar checks the exact McNemar p-values against hand-computed
// binomial tails: with a+b discordant pairs, p = 2·Σ_{x ≤ min} C(a+b, x)/2^(a+b).
func TestMcNemar(t *testing.T) {
	for _, c := range []struct {
		a, b int
		want float64
	}{
		{0, 0, 1},
		{0, 3, 2.0 / 8},            // 2·(1/8)
		{3, 0, 2.0 / 8},            // symmetric
		{1, 5, 2 * 7.0 / 64},       // 2·(1+6)/64
		{2, 2, 1},                  // 2·11/16 > 1
		{0, 10, 2.0 / 1024},        // 2/2^10
		{3, 12, 2 * 576.0 / 32768}, // 2·(1+15+105+455)/2^15
	} {
		if got := mcnemar(c.a, c.b); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("mcnemar(%d, %d) = %.15g, want %.15g", c.a, c.b, got, c.want)
		}
	}
	x := map[string]bool{"a": true, "b": true, "c": false, "d": false, "e": true}
	y := map[string]bool{"a": true, "b": false, "c": true, "d": false, "f": true}
	if a, b, p := pairedExact(x, y); a != 1 || b != 1 || p != 1 {
		t.Errorf("pairedExact = %d, %d, %g; want 1, 1, 1 (e and f ran on one side only)", a, b, p)
	}
}

// TestTuningIsingSparse checks the model tuningIsing builds coupling by
// coupling against NewIsing of the dense A drawn the same way: the same
// couplings for every pair, the same edges and the same λ.
func TestTuningIsingSparse(t *testing.T) {
	const n = 30
	var edges [][2]int
	r := rand.New(rand.NewPCG(8, 9))
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if r.IntN(6) == 0 {
				edges = append(edges, [2]int{i, j})
			}
		}
	}
	got, err := tuningIsing(n, edges, 0.2, 0.5, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	a := mat.NewSymDense(n, nil)
	dr := rand.New(rand.NewPCG(1, 2))
	for _, e := range edges {
		v := 0.2 + 0.3*dr.Float64()
		if dr.IntN(2) == 0 {
			v = -v
		}
		a.SetSym(e[0], e[1], v)
	}
	want, err := pairwise.NewIsing(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if !mat.Equal(got.Coupling(i, j), want.Coupling(i, j)) {
				t.Fatalf("W_%d%d = %v, NewIsing's %v", i, j, mat.Formatted(got.Coupling(i, j)), mat.Formatted(want.Coupling(i, j)))
			}
		}
	}
	if len(got.Edges()) != len(edges) || got.Width() != want.Width() {
		t.Errorf("%d edges and λ = %v, want %d and %v", len(got.Edges()), got.Width(), len(edges), want.Width())
	}
}
