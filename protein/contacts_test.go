package protein

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise"
)

// randomPotts returns a model on n variables with k states whose pairs are
// each coupled with probability p, entries uniform in [-1, 1).
func randomPotts(t *testing.T, rng *rand.Rand, n, k int, p float64) *pairwise.Model {
	t.Helper()
	m, err := pairwise.NewModel(n, k)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		f := make([]float64, k)
		for a := range f {
			f[a] = 2*rng.Float64() - 1
		}
		if err := m.SetField(i, f); err != nil {
			t.Fatal(err)
		}
		for j := i + 1; j < n; j++ {
			if rng.Float64() >= p {
				continue
			}
			w := mat.NewDense(k, k, nil)
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					w.Set(a, b, 2*rng.Float64()-1)
				}
			}
			if err := m.SetCoupling(i, j, w); err != nil {
				t.Fatal(err)
			}
		}
	}
	return m
}

// refScores is the reference: the centred block as H W H with the
// centring matrix H = I - 11ᵀ/k, its norm over the kept states, and the APC
// written out pair by pair.
func refScores(m *pairwise.Model, ignoreGap, apc bool) *mat.Dense {
	n, k := m.Vars(), m.Alphabet()
	h := mat.NewDense(k, k, nil)
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			h.Set(a, b, -1/float64(k))
		}
		h.Set(a, a, 1-1/float64(k))
	}
	s := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i == j {
				continue
			}
			var c mat.Dense
			c.Product(h, m.Coupling(i, j), h)
			first := 0
			if ignoreGap {
				first = 1
			}
			s.Set(i, j, mat.Norm(c.Slice(first, k, first, k), 2))
		}
	}
	if !apc {
		return s
	}
	out := mat.NewDense(n, n, nil)
	rowMean := func(i int) float64 {
		sum := 0.0
		for j := 0; j < n; j++ {
			if j != i {
				sum += s.At(i, j)
			}
		}
		return sum / float64(n-1)
	}
	all := 0.0
	for i := 0; i < n; i++ {
		all += rowMean(i)
	}
	all /= float64(n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i != j {
				out.Set(i, j, s.At(i, j)-rowMean(i)*rowMean(j)/all)
			}
		}
	}
	return out
}

func TestContactScoresClosedForm(t *testing.T) {
	// k = 2, W_01 = [[c, 0], [0, 0]]: centred it is c/4·[[1, -1], [-1, 1]],
	// of Frobenius norm c/2, and c/4 without the gap (state 0).
	const c = 3.0
	m, _ := pairwise.NewModel(3, 2)
	if err := m.SetCoupling(0, 1, mat.NewDense(2, 2, []float64{c, 0, 0, 0})); err != nil {
		t.Fatal(err)
	}
	// W_12 = [[0, d], [0, 0]] centres to d/4·[[1, -1], [-1, 1]] up to sign:
	// norm d/2; W_02 is separable (a row constant), norm 0.
	const d = -2.0
	if err := m.SetCoupling(1, 2, mat.NewDense(2, 2, []float64{0, d, 0, 0})); err != nil {
		t.Fatal(err)
	}
	if err := m.SetCoupling(0, 2, mat.NewDense(2, 2, []float64{5, 5, -1, -1})); err != nil {
		t.Fatal(err)
	}
	raw, err := ContactScores(m, ContactAPC(false))
	if err != nil {
		t.Fatal(err)
	}
	x, y, z := c/2, 0.0, math.Abs(d)/2
	for _, e := range []struct {
		i, j int
		want float64
	}{{0, 1, x}, {0, 2, y}, {1, 2, z}, {1, 0, x}, {0, 0, 0}} {
		if got := raw.At(e.i, e.j); !scalar.EqualWithinAbsOrRel(got, e.want, 1e-14, 1e-14) {
			t.Errorf("S_%d%d = %v, want %v", e.i, e.j, got, e.want)
		}
	}
	noGap, _ := ContactScores(m, ContactAPC(false), ContactIgnoreGap(true))
	if got := noGap.At(0, 1); !scalar.EqualWithinAbsOrRel(got, c/4, 1e-14, 1e-14) {
		t.Errorf("S_01 without the gap = %v, want %v", got, c/4)
	}
	// APC for three variables: S_i· = mean of the two other scores, S_·· the
	// mean of the three.
	apc, _ := ContactScores(m)
	all := (x + y + z) / 3
	m0, m1, m2 := (x+y)/2, (x+z)/2, (y+z)/2
	for _, e := range []struct {
		i, j int
		want float64
	}{{0, 1, x - m0*m1/all}, {0, 2, y - m0*m2/all}, {1, 2, z - m1*m2/all}} {
		if got := apc.At(e.i, e.j); !scalar.EqualWithinAbsOrRel(got, e.want, 1e-14, 1e-14) {
			t.Errorf("APC_%d%d = %v, want %v", e.i, e.j, got, e.want)
		}
	}
}

func TestContactScoresReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 3))
	for _, test := range []struct{ n, k int }{{2, 2}, {3, 3}, {6, 4}, {9, 21}} {
		m := randomPotts(t, rng, test.n, test.k, 0.7)
		for _, ignoreGap := range []bool{false, true} {
			for _, apc := range []bool{false, true} {
				got, err := ContactScores(m, ContactIgnoreGap(ignoreGap), ContactAPC(apc))
				if err != nil {
					t.Fatal(err)
				}
				want := refScores(m, ignoreGap, apc && test.n >= 3)
				for i := 0; i < test.n; i++ {
					for j := 0; j < test.n; j++ {
						if !scalar.EqualWithinAbsOrRel(got.At(i, j), want.At(i, j), 1e-12, 1e-12) {
							t.Fatalf("n=%d k=%d gap=%t apc=%t: S_%d%d = %v, want %v", test.n, test.k, ignoreGap, apc, i, j, got.At(i, j), want.At(i, j))
						}
					}
				}
			}
		}
	}
}

func TestContactScoresGaugeInvariance(t *testing.T) {
	// Adding u_a to row a and v_b to column b of every block, taken out of
	// the fields, is the same distribution; its scores must not change.
	rng := rand.New(rand.NewPCG(19, 4))
	const n, k = 7, 5
	m := randomPotts(t, rng, n, k, 0.8)
	g := m.Clone()
	for i := 0; i < n; i++ {
		for _, j := range g.Neighbors(i) {
			if j <= i {
				continue
			}
			w := g.Coupling(i, j)
			fi, fj := g.Field(i), g.Field(j)
			for a := 0; a < k; a++ {
				u, v := 4*rng.Float64()-2, 4*rng.Float64()-2
				for b := 0; b < k; b++ {
					w.Set(a, b, w.At(a, b)+u)
					w.Set(b, a, w.At(b, a)+v)
				}
				fi[a] -= u
				fj[a] -= v
			}
			if err := g.SetCoupling(i, j, w); err != nil {
				t.Fatal(err)
			}
			if err := g.SetField(i, fi); err != nil {
				t.Fatal(err)
			}
			if err := g.SetField(j, fj); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The change is a gauge change: log-weights agree on random states.
	z := make([]int, n)
	for r := 0; r < 100; r++ {
		for i := range z {
			z[i] = rng.IntN(k)
		}
		if d := m.LogWeight(z) - g.LogWeight(z); math.Abs(d) > 1e-9 {
			t.Fatalf("log-weights differ by %v: not a gauge change", d)
		}
	}
	for _, ignoreGap := range []bool{false, true} {
		for _, apc := range []bool{false, true} {
			a, _ := ContactScores(m, ContactIgnoreGap(ignoreGap), ContactAPC(apc))
			b, _ := ContactScores(g, ContactIgnoreGap(ignoreGap), ContactAPC(apc))
			// Also the library's centred model.
			c, _ := ContactScores(m.Centered(), ContactIgnoreGap(ignoreGap), ContactAPC(apc))
			if !mat.EqualApprox(a, b, 1e-12) || !mat.EqualApprox(a, c, 1e-12) {
				t.Errorf("gap=%t apc=%t: scores changed under a gauge change", ignoreGap, apc)
			}
		}
	}
}

func TestContactScoresEdgeCases(t *testing.T) {
	if _, err := ContactScores(nil); err == nil {
		t.Error("nil model: no error")
	}
	m, _ := pairwise.NewModel(4, 3)
	s, err := ContactScores(m)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(s, mat.NewSymDense(4, nil)) {
		t.Errorf("no couplings: scores %v, want zeros", mat.Formatted(s))
	}
	one, _ := pairwise.NewModel(1, 2)
	if s, err := ContactScores(one); err != nil || s.SymmetricDim() != 1 || s.At(0, 0) != 0 {
		t.Errorf("n = 1: %v, %v", s, err)
	}
}

func TestRankContactsAndPrecision(t *testing.T) {
	s := mat.NewSymDense(5, nil)
	s.SetSym(0, 4, 0.9)
	s.SetSym(1, 2, 0.8) // separation 1
	s.SetSym(0, 3, 0.7)
	s.SetSym(2, 4, math.NaN())
	s.SetSym(1, 4, -0.1)
	ranked := RankContacts(s, 2)
	want := []Contact{{0, 4, 0.9}, {0, 3, 0.7}, {0, 2, 0}, {1, 3, 0}, {1, 4, -0.1}, {2, 4, math.NaN()}}
	if len(ranked) != len(want) {
		t.Fatalf("ranked %v, want %v", ranked, want)
	}
	for x := range want {
		r, w := ranked[x], want[x]
		if r.I != w.I || r.J != w.J || !(r.Score == w.Score || math.IsNaN(r.Score) && math.IsNaN(w.Score)) {
			t.Errorf("ranked[%d] = %v, want %v", x, r, w)
		}
	}
	if n := len(RankContacts(s, 0)); n != 10 {
		t.Errorf("separation 0: %d pairs, want all 10", n)
	}
	truth := map[[2]int]bool{{0, 4}: true, {1, 3}: true}
	isContact := func(i, j int) bool { return truth[[2]int{i, j}] }
	for _, test := range []struct {
		top  int
		want float64
	}{{1, 1}, {2, 0.5}, {4, 0.5}, {6, 2.0 / 6}, {100, 2.0 / 6}} {
		if got := ContactPrecision(ranked, test.top, isContact); got != test.want {
			t.Errorf("precision at %d = %v, want %v", test.top, got, test.want)
		}
	}
	if got := ContactPrecision(ranked, 0, isContact); !math.IsNaN(got) {
		t.Errorf("precision at 0 = %v, want NaN", got)
	}
	if got := ContactPrecision(nil, 3, isContact); !math.IsNaN(got) {
		t.Errorf("precision of nothing = %v, want NaN", got)
	}
}

func TestMutationEffects(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 5))
	const n, k = 6, 4
	m := randomPotts(t, rng, n, k, 0.6)
	z := []int{0, 3, 1, 2, 2, 1}
	e, err := MutationEffects(m, z)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := e.Dims(); r != n || c != k {
		t.Fatalf("dims %d×%d, want %d×%d", r, c, n, k)
	}
	base := m.LogWeight(z)
	y := make([]int, n)
	for i := 0; i < n; i++ {
		for a := 0; a < k; a++ {
			copy(y, z)
			y[i] = a
			if want := m.LogWeight(y) - base; !scalar.EqualWithinAbsOrRel(e.At(i, a), want, 1e-12, 1e-12) {
				t.Errorf("effect (%d, %d) = %v, want %v", i, a, e.At(i, a), want)
			}
		}
		if e.At(i, z[i]) != 0 {
			t.Errorf("effect of z_%d itself = %v, want 0", i, e.At(i, z[i]))
		}
	}
	for _, bad := range [][]int{{0, 1}, {0, 0, 0, 0, 0, 4}, {-1, 0, 0, 0, 0, 0}} {
		if _, err := MutationEffects(m, bad); err == nil {
			t.Errorf("z = %v: no error", bad)
		}
	}
	if _, err := MutationEffects(nil, z); err == nil {
		t.Error("nil model: no error")
	}
}

// TestWritePlmcCouplings checks the layout without a focus (columns
// numbered from 1, letters "-"), with the input's column numbers when
// columns are dropped, and the errors.
func TestWritePlmcCouplings(t *testing.T) {
	a, err := ReadAlignment(strings.NewReader(">a\nMK-L\n>b\nMR-L\n>c\nMRAL\n"), AlignMaxColumnGaps(0.5))
	if err != nil {
		t.Fatal(err)
	}
	scores := mat.NewSymDense(3, []float64{0, 2, -1, 2, 0, 0.5, -1, 0.5, 0})
	var b strings.Builder
	if err := WritePlmcCouplings(&b, a, scores); err != nil {
		t.Fatal(err)
	}
	// The gap column 3 is dropped: the columns are 1, 2 and 4.
	if want := "1 - 2 - 0 2.000000\n1 - 4 - 0 -1.000000\n2 - 4 - 0 0.500000\n"; b.String() != want {
		t.Errorf("got\n%swant\n%s", b.String(), want)
	}
	if err := WritePlmcCouplings(&b, a, mat.NewSymDense(2, nil)); err == nil || !strings.Contains(err.Error(), "2×2 scores for 3 columns") {
		t.Errorf("wrong size: %v", err)
	}
	if err := WritePlmcCouplings(failWriter{}, a, scores); err == nil || err.Error() != "disk full" {
		t.Errorf("failing writer: %v", err)
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }
