package models

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/internal/brute"
	"gonum.org/v1/gonum/mat"
)

// bruteIncoherence computes the incoherence value at node i straight from
// the definitions, independently of fisherIsing and DiamondIncoherence: the
// exact probabilities of every state by brute.Enumerate (from LogWeight), the
// conditional P(z_i = 1 | z_−i) from LogWeight of the two completions, the
// Fisher information Σ_z P(z)·p(1 − p)·x xᵀ with x = [z_−i as spins, 1] (or
// without the bias), and Q_{jS}·Q_SS⁻¹ by a general inverse.
func bruteIncoherence(t *testing.T, m *pairwise.Model, i int, bias bool) float64 {
	t.Helper()
	n := m.Vars()
	states, probs, _, err := brute.Enumerate(m.Vars(), m.Alphabet(), m.LogWeight)
	if err != nil {
		t.Fatal(err)
	}
	var coords []int // variables j ≠ i, then −1 for the bias
	for j := 0; j < n; j++ {
		if j != i {
			coords = append(coords, j)
		}
	}
	if bias {
		coords = append(coords, -1)
	}
	d := len(coords)
	q := mat.NewDense(d, d, nil)
	for x, z := range states {
		zz := append([]int(nil), z...)
		zz[i] = 1
		up := m.LogWeight(zz)
		zz[i] = 0
		down := m.LogWeight(zz)
		p := 1 / (1 + math.Exp(down-up))
		feat := make([]float64, d)
		for c, j := range coords {
			feat[c] = 1
			if j >= 0 {
				feat[c] = float64(2*z[j] - 1)
			}
		}
		for r := 0; r < d; r++ {
			for c := 0; c < d; c++ {
				q.Set(r, c, q.At(r, c)+probs[x]*p*(1-p)*feat[r]*feat[c])
			}
		}
	}
	a, _, err := m.Ising()
	if err != nil {
		t.Fatal(err)
	}
	var s, sc []int // positions in coords
	for c, j := range coords {
		if j < 0 || a.At(i, j) != 0 {
			s = append(s, c)
		} else {
			sc = append(sc, c)
		}
	}
	qss := mat.NewDense(len(s), len(s), nil)
	for r, jr := range s {
		for c, jc := range s {
			qss.Set(r, c, q.At(jr, jc))
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(qss); err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for _, j := range sc {
		row := mat.NewDense(1, len(s), nil)
		for c, l := range s {
			row.Set(0, c, q.At(j, l))
		}
		var prod mat.Dense
		prod.Mul(row, &inv)
		l1 := 0.0
		for c := range s {
			l1 += math.Abs(prod.At(0, c))
		}
		worst = math.Max(worst, l1)
	}
	return worst
}

// TestIncoherence checks Incoherence and DiamondIncoherence against the
// brute-force computation. All three are exact computations of the same
// number by different arithmetic (Gray-code energies with a running
// maximum, a closed form with log-binomial weights, LogWeight and a general
// inverse), so they agree to rounding: 1e-10 on values of order one.
func TestIncoherence(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	random := func(n int, density, scale, field float64) *pairwise.Model {
		a := mat.NewSymDense(n, nil)
		theta := make([]float64, n)
		for j := 0; j < n; j++ {
			theta[j] = field * (2*rng.Float64() - 1)
			for l := j + 1; l < n; l++ {
				if rng.Float64() < density {
					a.SetSym(j, l, scale*(2*rng.Float64()-1))
				}
			}
		}
		m, err := pairwise.NewIsing(a, theta)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	cases := []struct {
		name string
		m    *pairwise.Model
		node int
	}{
		{"random/n=6/fields", random(6, 0.5, 0.8, 0.5), 2},
		{"random/n=7/fields", random(7, 0.4, 1.0, 0.3), 0},
		{"random/n=5/zero-field", random(5, 0.6, 0.7, 0), 4},
		{"grid/3x3", gridIsing(t, rng, 0.2, 0.6), 4},
		{"diamond/n=6", diamond(t, 6, 0.3), 0},
		{"diamond/n=9/middle", diamond(t, 9, 0.2), 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Incoherence(tc.m, tc.node)
			if err != nil {
				t.Fatal(err)
			}
			want := bruteIncoherence(t, tc.m, tc.node, true)
			if math.Abs(got-want) > 1e-10 {
				t.Errorf("Incoherence = %.15g, brute force %.15g", got, want)
			}
			if want == 0 {
				t.Errorf("the case has a zero value and tests nothing")
			}
		})
	}
	// With zero fields the bias does not change the value: RWL10's
	// definition, x = z_−i without the bias, gives the same number.
	for _, n := range []int{4, 7} {
		m := diamond(t, n, 0.25)
		with, without := bruteIncoherence(t, m, 0, true), bruteIncoherence(t, m, 0, false)
		if math.Abs(with-without) > 1e-12 {
			t.Errorf("diamond n=%d: %.15g with the bias, %.15g without", n, with, without)
		}
	}
	// The closed form for the diamond, for both signs of a.
	for _, n := range []int{3, 4, 5, 8, 11} {
		for _, a := range []float64{0.1, 0.3, -0.2} {
			m, err := NewDiamond(n, a)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Incoherence(m, 0)
			if err != nil {
				t.Fatal(err)
			}
			got, err := DiamondIncoherence(n, a)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-want) > 1e-10 {
				t.Errorf("DiamondIncoherence(%d, %v) = %.15g, enumeration %.15g", n, a, got, want)
			}
		}
	}
}

// TestDiamondIncoherenceGrows checks the shape of the paper's Figure 1
// (middle): the value grows with n and with a, from below 1 at n = 3 to
// above 1 by n = 60, so the incoherence condition fails on large diamonds.
// Only the monotonicity and the crossing are checked, not values.
func TestDiamondIncoherenceGrows(t *testing.T) {
	for _, a := range []float64{0.1, 0.2, 0.3} {
		prev := 0.0
		for n := 3; n <= 60; n++ {
			v, err := DiamondIncoherence(n, a)
			if err != nil {
				t.Fatal(err)
			}
			if !(v > prev) {
				t.Fatalf("a = %v: value %v at n = %d is not above %v at n = %d", a, v, n, prev, n-1)
			}
			prev = v
		}
		if v3, _ := DiamondIncoherence(3, a); v3 >= 1 {
			t.Errorf("a = %v, n = 3: %v, want below 1", a, v3)
		}
		if prev <= 1 {
			t.Errorf("a = %v, n = 60: %v, want above 1", a, prev)
		}
	}
	for n := 4; n <= 30; n += 13 {
		lo, _ := DiamondIncoherence(n, 0.1)
		hi, _ := DiamondIncoherence(n, 0.3)
		if !(hi > lo) {
			t.Errorf("n = %d: %v at a = 0.3 not above %v at a = 0.1", n, hi, lo)
		}
	}
}

// TestIncoherenceErrors checks the errors for bad arguments.
func TestIncoherenceErrors(t *testing.T) {
	potts, _ := pairwise.NewModel(3, 3)
	big, _ := pairwise.NewModel(MaxIncoherenceVars+1, 2)
	small := diamond(t, 4, 0.2)
	cases := []struct {
		name   string
		f      func() (float64, error)
		substr string
	}{
		{"nil model", func() (float64, error) { return Incoherence(nil, 0) }, "nil model"},
		{"k = 3", func() (float64, error) { return Incoherence(potts, 0) }, "k = 3"},
		{"node out of range", func() (float64, error) { return Incoherence(small, 4) }, "node 4"},
		{"negative node", func() (float64, error) { return Incoherence(small, -1) }, "node -1"},
		{"too many variables", func() (float64, error) { return Incoherence(big, 0) }, "n = 25"},
		{"diamond n = 2", func() (float64, error) { return DiamondIncoherence(2, 0.2) }, "n = 2"},
		{"diamond a = 0", func() (float64, error) { return DiamondIncoherence(5, 0) }, "a = 0"},
		{"diamond a = NaN", func() (float64, error) { return DiamondIncoherence(5, math.NaN()) }, "NaN"},
	}
	for _, tc := range cases {
		_, err := tc.f()
		if err == nil || !strings.HasPrefix(err.Error(), "models: ") || !strings.Contains(err.Error(), tc.substr) {
			t.Errorf("%s: error %v, want one naming %q", tc.name, err, tc.substr)
		}
	}
	// A node without non-neighbours has nothing to be incoherent with.
	full := mat.NewSymDense(3, []float64{0, 0.3, 0.2, 0.3, 0, 0.1, 0.2, 0.1, 0})
	m, err := pairwise.NewIsing(full, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := Incoherence(m, 1); err != nil || v != 0 {
		t.Errorf("complete graph: %v, %v; want 0", v, err)
	}
}

// diamond is NewDiamond(n, a), which TestNewDiamondSparse checks against
// NewIsing of the dense A.
func diamond(t *testing.T, n int, a float64) *pairwise.Model {
	t.Helper()
	m, err := NewDiamond(n, a)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// gridIsing returns a 3×3 Ising grid with zero fields and couplings of
// random sign and magnitude in [lo, hi), built by NewIsing from a dense A.
func gridIsing(t *testing.T, r *rand.Rand, lo, hi float64) *pairwise.Model {
	t.Helper()
	const side = 3
	a := mat.NewSymDense(side*side, nil)
	for v := 0; v < side*side; v++ {
		for _, u := range []int{v + 1, v + side} {
			if (u == v+1 && v%side == side-1) || u >= side*side {
				continue
			}
			w := lo + (hi-lo)*r.Float64()
			if r.IntN(2) == 0 {
				w = -w
			}
			a.SetSym(v, u, w)
		}
	}
	m, err := pairwise.NewIsing(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
