package main

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise"
)

// TestLikertScore checks F1, precision and recall on hand-made edge lists.
func TestLikertScore(t *testing.T) {
	truth := [][2]int{{0, 1}, {1, 2}, {2, 3}}
	for _, tc := range []struct {
		name             string
		learned          [][2]int
		tp, fp, fn       int
		f1, prec, recall float64 // NaN: undefined
	}{
		// (1,0) is the true (0,1) written backwards; (0,2) is false; (1,2) missed.
		{"mixed", [][2]int{{1, 0}, {0, 2}, {2, 3}}, 2, 1, 1, 4.0 / 6, 2.0 / 3, 2.0 / 3},
		{"exact", [][2]int{{2, 3}, {0, 1}, {1, 2}}, 3, 0, 0, 1, 1, 1},
		{"empty", nil, 0, 0, 3, 0, math.NaN(), 0},
		// a repeated pair counts once
		{"repeat", [][2]int{{0, 1}, {1, 0}, {0, 3}}, 1, 1, 2, 2.0 / 5, 1.0 / 2, 1.0 / 3},
	} {
		r, err := likertScore(4, truth, tc.learned)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if r.tp != tc.tp || r.fp != tc.fp || r.fn != tc.fn {
			t.Errorf("%s: TP, FP, FN = %d, %d, %d; want %d, %d, %d", tc.name, r.tp, r.fp, r.fn, tc.tp, tc.fp, tc.fn)
		}
		for _, v := range []struct {
			what      string
			got, want float64
		}{{"F1", r.f1, tc.f1}, {"precision", r.precision, tc.prec}, {"recall", r.recall, tc.recall}} {
			if math.IsNaN(v.want) != math.IsNaN(v.got) || (!math.IsNaN(v.want) && math.Abs(v.got-v.want) > 1e-12) {
				t.Errorf("%s: %s = %v, want %v", tc.name, v.what, v.got, v.want)
			}
		}
	}
	if _, err := likertScore(4, truth, [][2]int{{0, 4}}); err == nil {
		t.Error("an edge outside 0..p-1: no error")
	}
	if _, err := likertScore(4, truth, [][2]int{{2, 2}}); err == nil {
		t.Error("an edge on the diagonal: no error")
	}
	// The printed line and the table's reader agree.
	r, _ := likertScore(4, truth, [][2]int{{1, 0}, {0, 2}, {2, 3}})
	r.family, r.questionnaire, r.N, r.seed, r.method, r.seconds = "latent", "tiny", 100, 1, "categorical", 0.5
	rows, err := readLikertResults(strings.NewReader(likertHeader+"\n"+r.String()+"\n"), "test")
	if err != nil || len(rows) != 1 || rows[0].tp != 2 || math.Abs(rows[0].f1-0.6667) > 1e-4 {
		t.Fatalf("read back %+v, %v; want one row with TP 2 and F1 0.6667", rows, err)
	}
	if md := likertSummary(rows); !strings.Contains(md, "| 100 | categorical | 1 | 0.667 | 0.667 | 0.667 |") {
		t.Errorf("summary lacks the run's line:\n%s", md)
	}
}

// TestMedianCut checks the dichotomisation's cut, ties included.
func TestMedianCut(t *testing.T) {
	for _, tc := range []struct {
		counts []int
		want   int
	}{
		{[]int{10, 50, 30, 10}, 2}, // ≥1: 90%, ≥2: 40%, ≥3: 10%
		{[]int{25, 25, 25, 25}, 2},
		{[]int{50, 0, 50}, 1},      // ≥1 and ≥2 both split 50/50: the smallest
		{[]int{90, 5, 3, 2}, 1},    // a rare upper tail: the best is still ≥1
		{[]int{1, 2, 3, 4, 90}, 4}, // a rare lower tail
	} {
		if got := medianCut(tc.counts); got != tc.want {
			t.Errorf("medianCut(%v) = %d, want %d", tc.counts, got, tc.want)
		}
	}
}

// tinySpec is a chain of four 4-point items with partial correlation 0.4
// between neighbours, the middle answers common and the extremes rare.
func tinySpec() *likertSpec {
	pcor := make([][]float64, 4)
	props := make([][]float64, 4)
	for i := range pcor {
		pcor[i] = make([]float64, 4)
		props[i] = []float64{0.05, 0.35, 0.45, 0.15}
	}
	for i := 0; i+1 < 4; i++ {
		pcor[i][i+1], pcor[i+1][i] = 0.4, 0.4
	}
	return &likertSpec{Name: "tiny", Items: []string{"a", "b", "c", "d"}, K: 4, Rows: 1000, Props: props, Pcor: pcor}
}

// TestLikertTiny runs the tiny latent truth through our learner: the latent
// rows must keep the real answer proportions, and the dichotomised
// configuration must find the chain. Partial correlations of 0.4 at N =
// 2000 are far above the noise (about 1/sqrt(N) = 0.02), so F1 below 0.8
// (more than one edge wrong of three) is a failure, not bad luck.
func TestLikertTiny(t *testing.T) {
	spec := tinySpec()
	truth, sample, err := likertLatent(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(truth.Edges) != 3 {
		t.Fatalf("%d true edges, want 3", len(truth.Edges))
	}
	const N = 2000
	rows, err := sample(rand.NewPCG(1, 2), N)
	if err != nil {
		t.Fatal(err)
	}
	s, err := pairwise.NewSamples(4, rows)
	if err != nil {
		t.Fatal(err)
	}
	// A proportion's standard error is at most sqrt(0.25/2000) = 0.011: 0.04 is 3.5 of them.
	for i, q := range likertMarginals(s, 4, 4) {
		for a := range q {
			if math.Abs(q[a]-spec.Props[i][a]) > 0.04 {
				t.Errorf("item %d answer %d: proportion %.3f, want %.2f", i, a, q[a], spec.Props[i][a])
			}
		}
	}
	var te [][2]int
	for _, e := range truth.Edges {
		te = append(te, [2]int{e.I, e.J})
	}
	cs, err := likertConfigs("categorical,dichotomised")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		r, err := likertRun(s, c, te, 1)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		t.Logf("%s: F1 %.3f (TP %d, FP %d, FN %d)", c.name, r.f1, r.tp, r.fp, r.fn)
		if c.name == "dichotomised" && r.f1 < 0.8 {
			t.Errorf("dichotomised: F1 %.3f, want at least 0.8", r.f1)
		}
	}
	if _, err := likertConfigs("default,categorical,ordinal"); err != nil {
		t.Errorf("default, categorical and ordinal configurations: %v", err)
	}
	if _, err := likertConfigs("bogus"); err == nil {
		t.Error("an unknown configuration: no error")
	}
}

// TestLikertNodePL checks the pseudo-likelihood fit behind the ordinal
// truths on rows of a known linear-by-linear model (a chain of three
// 4-point items, w = 1.2 and -0.8): the estimates of node 1 must be
// within 0.15 of the truth. 0.15 is about five standard errors: the
// information on w is about N·Var(s_i | rest)·Var(s_j), here near
// 6000·0.3·0.3, so one standard error is about 1/sqrt(540) = 0.04.
func TestLikertNodePL(t *testing.T) {
	const k = 4
	s := likertScores(k)
	m, err := pairwise.NewModel(3, k)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []likertEdge{{I: 0, J: 1, Weight: 1.2}, {I: 1, J: 2, Weight: -0.8}} {
		c := mat.NewDense(k, k, nil)
		for a := range k {
			for b := range k {
				c.Set(a, b, e.Weight*s[a]*s[b])
			}
		}
		if err := m.SetCoupling(e.I, e.J, c); err != nil {
			t.Fatal(err)
		}
	}
	theta := []float64{0, 0.5, 0.8, 0.2} // answer 0 rarer than the others
	if err := m.SetField(1, theta); err != nil {
		t.Fatal(err)
	}
	ex, err := pairwise.NewExactSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	smp, err := ex.Sample(rand.NewPCG(3, 4), 6000)
	if err != nil {
		t.Fatal(err)
	}
	x := make([][]int, smp.Len())
	for r := range x {
		x[r] = []int{smp.At(r, 0), smp.At(r, 1), smp.At(r, 2)}
	}
	th, w, err := likertNodePL(x, 1, []int{0, 2}, k)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(w[0]-1.2) > 0.15 || math.Abs(w[1]+0.8) > 0.15 {
		t.Errorf("w = %.3f, %.3f; want 1.2, -0.8 within 0.15", w[0], w[1])
	}
	for a := 1; a < k; a++ { // fields are relative to θ(0) = 0; 0.3 is about five standard errors as well
		if math.Abs(th[a]-theta[a]) > 0.3 {
			t.Errorf("θ(%d) = %.3f, want %.2f within 0.3", a, th[a], theta[a])
		}
	}
}

// TestUnorderedPerm checks the scrambled codes of the mixed truths: a
// permutation of 0..k-1 with rank correlation nearest 0 (for k = 4, 5, 6
// the best possible is 0 or ±0.1: every permutation is enumerated and
// the identity, correlation 1, must not come back).
func TestUnorderedPerm(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, k := range []int{3, 4, 5, 6, 7} {
		pi := unorderedPerm(k, r)
		seen := make([]bool, k)
		d2 := 0
		for a, b := range pi {
			if b < 0 || b >= k || seen[b] {
				t.Fatalf("k = %d: %v is not a permutation", k, pi)
			}
			seen[b] = true
			d2 += (a - b) * (a - b)
		}
		rho := 1 - 6*float64(d2)/float64(k*(k*k-1))
		if math.Abs(rho) > 0.5 {
			t.Errorf("k = %d: %v has rank correlation %.2f", k, pi, rho)
		}
	}
}
