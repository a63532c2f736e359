package pairwise

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// allStates returns every state of [k]^n in lexicographic order.
func allStates(n, k int) [][]int {
	total := 1
	for i := 0; i < n; i++ {
		total *= k
	}
	out := make([][]int, total)
	z := make([]int, n)
	for x := range out {
		out[x] = append([]int(nil), z...)
		for i := n - 1; i >= 0; i-- {
			z[i]++
			if z[i] < k {
				break
			}
			z[i] = 0
		}
	}
	return out
}

// mtRandomModel returns a model on n variables with alphabet k whose pairs
// are coupled with probability density by matrices with uniform entries in
// [-1, 1], not centred, and whose fields are uniform in [-1, 1].
func mtRandomModel(t *testing.T, rng *rand.Rand, n, k int, density float64) *Model {
	t.Helper()
	m, err := NewModel(n, k)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		theta := make([]float64, k)
		for a := range theta {
			theta[a] = 2*rng.Float64() - 1
		}
		if err := m.SetField(i, theta); err != nil {
			t.Fatal(err)
		}
		for j := i + 1; j < n; j++ {
			if rng.Float64() >= density {
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

// checkSameDistribution fails t unless LogWeight under got and want differ by
// one constant on every state, up to tol.
func checkSameDistribution(t *testing.T, got, want *Model, tol float64) {
	t.Helper()
	if got.Vars() != want.Vars() || got.Alphabet() != want.Alphabet() {
		t.Fatalf("n, k = %d, %d, want %d, %d", got.Vars(), got.Alphabet(), want.Vars(), want.Alphabet())
	}
	states := allStates(want.Vars(), want.Alphabet())
	shift := got.LogWeight(states[0]) - want.LogWeight(states[0])
	for _, z := range states {
		if d := got.LogWeight(z) - want.LogWeight(z); math.Abs(d-shift) > tol {
			t.Fatalf("state %v: log-weights differ by %v, by %v at state %v", z, d, shift, states[0])
		}
	}
}

// emptySym is a 0×0 symmetric matrix, which mat cannot build.
type emptySym struct{}

func (emptySym) Dims() (int, int)    { return 0, 0 }
func (emptySym) At(i, j int) float64 { panic(mat.ErrIndexOutOfRange) }
func (e emptySym) T() mat.Matrix     { return e }
func (emptySym) SymmetricDim() int   { return 0 }

// checkErr fails t unless err contains every string of want.
func checkErr(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
}

func TestModelConstructorErrors(t *testing.T) {
	t.Parallel()
	a := mat.NewSymDense(3, []float64{0, 1, 0, 1, 0, 2, 0, 2, 0})
	for _, test := range []struct {
		name string
		make func() (*Model, error)
		want []string
	}{
		{"n 0", func() (*Model, error) { return NewModel(0, 2) }, []string{"pairwise: NewModel:", "n = 0"}},
		{"k 1", func() (*Model, error) { return NewModel(3, 1) }, []string{"k = 1, want at least 2"}},
		{"k too large", func() (*Model, error) { return NewModel(3, MaxAlphabet+1) }, []string{"exceeds the limit"}},
		{"nil matrix", func() (*Model, error) { return NewIsing(nil, nil) }, []string{"pairwise: NewIsing:", "nil"}},
		{"empty matrix", func() (*Model, error) { return NewIsing(emptySym{}, nil) }, []string{"empty"}},
		{"diagonal", func() (*Model, error) {
			return NewIsing(mat.NewSymDense(2, []float64{0, 1, 1, 0.5}), nil)
		}, []string{"A[1][1] = 0.5, want a zero diagonal"}},
		{"theta length", func() (*Model, error) { return NewIsing(a, []float64{1, 2}) }, []string{"len(theta) = 2, want 3"}},
		{"NaN coupling", func() (*Model, error) {
			return NewIsing(mat.NewSymDense(2, []float64{0, math.NaN(), math.NaN(), 0}), nil)
		}, []string{"A[0][1] = NaN"}},
		{"Inf coupling", func() (*Model, error) {
			return NewIsing(mat.NewSymDense(2, []float64{0, math.Inf(-1), math.Inf(-1), 0}), nil)
		}, []string{"A[0][1] = -Inf"}},
		{"NaN theta", func() (*Model, error) { return NewIsing(a, []float64{0, math.NaN(), 0}) }, []string{"theta[1] = NaN"}},
		{"Inf theta", func() (*Model, error) { return NewIsing(a, []float64{0, 0, math.Inf(1)}) }, []string{"theta[2] = +Inf"}},
	} {
		t.Run(test.name, func(t *testing.T) {
			m, err := test.make()
			checkErr(t, err, test.want...)
			if m != nil {
				t.Error("non-nil model with an error")
			}
		})
	}
}

func TestModelSetCouplingAndFieldErrors(t *testing.T) {
	t.Parallel()
	m := mtRandomModel(t, rand.New(rand.NewPCG(1, 2)), 3, 3, 1)
	before := m.Clone()
	good := mat.NewDense(3, 3, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9})
	bad := mat.NewDense(3, 3, []float64{1, 2, 3, 4, 5, 6, 7, 8, math.NaN()})
	for _, test := range []struct {
		name string
		err  error
		want []string
	}{
		{"i == j", m.SetCoupling(1, 1, good), []string{"pairwise: SetCoupling(1, 1): i == j"}},
		{"negative index", m.SetCoupling(-1, 1, good), []string{"SetCoupling(-1, 1): index out of range [0, 3)"}},
		{"index too large", m.SetCoupling(0, 3, good), []string{"SetCoupling(0, 3): index out of range"}},
		{"nil matrix", m.SetCoupling(0, 1, nil), []string{"nil matrix"}},
		{"wrong rows", m.SetCoupling(0, 1, mat.NewDense(2, 3, nil)), []string{"matrix is 2×3, want 3×3"}},
		{"wrong columns", m.SetCoupling(0, 1, mat.NewDense(3, 4, nil)), []string{"matrix is 3×4, want 3×3"}},
		{"NaN entry", m.SetCoupling(0, 1, bad), []string{"W(2, 2) = NaN, want a finite number"}},
		{"Inf entry", m.SetCoupling(0, 2, mat.NewDense(3, 3, []float64{0, math.Inf(1), 0, 0, 0, 0, 0, 0, 0})), []string{"W(0, 1) = +Inf"}},
		{"field index", m.SetField(3, []float64{0, 0, 0}), []string{"pairwise: SetField(3): index out of range [0, 3)"}},
		{"field negative index", m.SetField(-1, []float64{0, 0, 0}), []string{"SetField(-1): index out of range"}},
		{"field length", m.SetField(0, []float64{0, 0}), []string{"len(theta) = 2, want k = 3"}},
		{"field NaN", m.SetField(0, []float64{0, math.NaN(), 0}), []string{"theta[1] = NaN"}},
		{"field Inf", m.SetField(2, []float64{0, 0, math.Inf(-1)}), []string{"theta[2] = -Inf"}},
	} {
		t.Run(test.name, func(t *testing.T) {
			checkErr(t, test.err, test.want...)
		})
	}
	// A failed call leaves the model unchanged.
	for i := 0; i < 3; i++ {
		if !scalarsEqual(m.Field(i), before.Field(i), 0) {
			t.Errorf("Field(%d) = %v after failed calls, want %v", i, m.Field(i), before.Field(i))
		}
		for j := 0; j < 3; j++ {
			if !mat.Equal(m.Coupling(i, j), before.Coupling(i, j)) {
				t.Errorf("Coupling(%d, %d) changed by failed calls", i, j)
			}
		}
	}
}

// scalarsEqual reports whether x and y have equal lengths and entries within
// tol (absolute or relative).
func scalarsEqual(x, y []float64, tol float64) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if !scalar.EqualWithinAbsOrRel(x[i], y[i], tol, tol) {
			return false
		}
	}
	return true
}

func TestModelCouplingTranspose(t *testing.T) {
	t.Parallel()
	m, err := NewModel(4, 3)
	if err != nil {
		t.Fatal(err)
	}
	w := mat.NewDense(3, 3, []float64{1, 2, 3, 4, 5, 6, 7, 8, -9})
	if err := m.SetCoupling(2, 0, w); err != nil {
		t.Fatal(err)
	}
	w.Set(0, 0, 100) // SetCoupling copies its input
	want := mat.NewDense(3, 3, []float64{1, 2, 3, 4, 5, 6, 7, 8, -9})
	if got := m.Coupling(2, 0); !mat.Equal(got, want) {
		t.Errorf("Coupling(2, 0) = %v, want %v", mat.Formatted(got), mat.Formatted(want))
	}
	if got := m.Coupling(0, 2); !mat.Equal(got, want.T()) {
		t.Errorf("Coupling(0, 2) = %v, want the transpose %v", mat.Formatted(got), mat.Formatted(want.T()))
	}
	m.Coupling(0, 2).Set(0, 0, 42) // Coupling returns a copy
	if got := m.Coupling(0, 2).At(0, 0); got != 1 {
		t.Errorf("Coupling(0, 2)(0, 0) = %v after changing a copy, want 1", got)
	}
	if got := m.Coupling(1, 1); !mat.Equal(got, mat.NewDense(3, 3, nil)) {
		t.Errorf("Coupling(1, 1) = %v, want zero", mat.Formatted(got))
	}
	// Setting the other orientation replaces the pair.
	v := mat.NewDense(3, 3, []float64{0, 1, 0, 0, 0, 0, 0, 0, 0})
	if err := m.SetCoupling(0, 2, v); err != nil {
		t.Fatal(err)
	}
	if got := m.Coupling(2, 0); !mat.Equal(got, v.T()) {
		t.Errorf("Coupling(2, 0) = %v, want %v", mat.Formatted(got), mat.Formatted(v.T()))
	}
	if got := m.Edges(); len(got) != 1 || got[0] != (Edge{I: 0, J: 2, Weight: 1}) {
		t.Errorf("Edges() = %v, want [{0 2 1}]", got)
	}
	// A zero matrix removes the edge.
	if err := m.SetCoupling(2, 0, mat.NewDense(3, 3, nil)); err != nil {
		t.Fatal(err)
	}
	if got := m.Edges(); len(got) != 0 {
		t.Errorf("Edges() = %v after a zero coupling, want none", got)
	}
	if got := m.Neighbors(0); len(got) != 0 {
		t.Errorf("Neighbors(0) = %v after a zero coupling, want none", got)
	}
	if m.MinEdgeWeight() != 0 || m.Width() != 0 {
		t.Errorf("MinEdgeWeight, Width = %v, %v without edges or fields, want 0, 0", m.MinEdgeWeight(), m.Width())
	}
}

func TestModelAccessorPanics(t *testing.T) {
	t.Parallel()
	m, err := NewModel(2, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, test := range []struct {
		name string
		f    func()
	}{
		{"Coupling", func() { m.Coupling(0, 2) }},
		{"Field", func() { m.Field(-1) }},
		{"Neighbors", func() { m.Neighbors(2) }},
		{"Conditional index", func() { m.Conditional(nil, []int{0, 0}, 2) }},
		{"Conditional length", func() { m.Conditional(nil, []int{0}, 0) }},
	} {
		t.Run(test.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil {
					t.Error("no panic")
				}
			}()
			test.f()
		})
	}
}

// TestLogWeightInvalid: LogWeight of a z that is no state of the model
// (a spin -1, a value ≥ k, the wrong length) is NaN, not a panic (issue
// 30), and z is not modified.
func TestLogWeightInvalid(t *testing.T) {
	t.Parallel()
	m, err := NewModel(3, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.SetCoupling(0, 2, mat.NewDense(3, 3, []float64{1, 0, 0, 0, 0, 0, 0, 0, 2})); err != nil {
		t.Fatal(err)
	}
	for _, z := range [][]int{{-1, 0, 0}, {0, 0, -1}, {3, 0, 0}, {0, 0, 3}, {0, 0, math.MaxInt}, {0, 0}, {0, 0, 0, 0}, nil, {}} {
		before := append([]int(nil), z...)
		if got := m.LogWeight(z); !math.IsNaN(got) {
			t.Errorf("LogWeight(%v) = %v, want NaN", z, got)
		}
		if !slices.Equal(z, before) {
			t.Errorf("LogWeight modified z: %v, was %v", z, before)
		}
	}
	if got := m.LogWeight([]int{2, 1, 2}); got != 2 {
		t.Errorf("LogWeight of a valid z = %v, want 2", got)
	}
}

// definitionWidth computes λ and η of Definition 2 from the accessors.
func definitionWidth(m *Model) (lambda, eta float64) {
	n, k := m.Vars(), m.Alphabet()
	eta = math.Inf(1)
	for i := 0; i < n; i++ {
		theta := m.Field(i)
		for a := 0; a < k; a++ {
			sum := math.Abs(theta[a])
			for j := 0; j < n; j++ {
				if j == i {
					continue
				}
				w := m.Coupling(i, j)
				mx := 0.0
				for b := 0; b < k; b++ {
					mx = math.Max(mx, math.Abs(w.At(a, b)))
				}
				sum += mx
			}
			lambda = math.Max(lambda, sum)
		}
		for j := i + 1; j < n; j++ {
			if w := maxAbsDense(m.Coupling(i, j)); w != 0 {
				eta = math.Min(eta, w)
			}
		}
	}
	if math.IsInf(eta, 1) {
		eta = 0
	}
	return lambda, eta
}

func maxAbsDense(w *mat.Dense) float64 {
	r, c := w.Dims()
	mx := 0.0
	for a := 0; a < r; a++ {
		for b := 0; b < c; b++ {
			mx = math.Max(mx, math.Abs(w.At(a, b)))
		}
	}
	return mx
}

func TestModelWidthAndEdges(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range []int{2, 3, 5} {
		for rep := 0; rep < 5; rep++ {
			m := mtRandomModel(t, rng, 6, k, 0.5)
			lambda, eta := definitionWidth(m)
			if got := m.Width(); !scalar.EqualWithinAbsOrRel(got, lambda, 1e-12, 1e-12) {
				t.Errorf("k = %d: Width() = %v, want %v", k, got, lambda)
			}
			if got := m.MinEdgeWeight(); got != eta {
				t.Errorf("k = %d: MinEdgeWeight() = %v, want %v", k, got, eta)
			}
			var want []Edge
			for i := 0; i < 6; i++ {
				for j := i + 1; j < 6; j++ {
					if w := maxAbsDense(m.Coupling(i, j)); w != 0 {
						want = append(want, Edge{I: i, J: j, Weight: w})
					}
				}
			}
			got := m.Edges()
			if len(got) != len(want) {
				t.Fatalf("k = %d: Edges() = %v, want %v", k, got, want)
			}
			for x := range got {
				if got[x] != want[x] {
					t.Errorf("k = %d: Edges()[%d] = %v, want %v", k, x, got[x], want[x])
				}
			}
		}
	}
}

func TestIsingWidth(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 7
	for rep := 0; rep < 10; rep++ {
		a := mat.NewSymDense(n, nil)
		theta := make([]float64, n)
		for i := 0; i < n; i++ {
			theta[i] = 2*rng.Float64() - 1
			for j := i + 1; j < n; j++ {
				if rng.Float64() < 0.4 {
					a.SetSym(i, j, 2*rng.Float64()-1)
				}
			}
		}
		m, err := NewIsing(a, theta)
		if err != nil {
			t.Fatal(err)
		}
		// Definition 1: λ = max_i Σ_j |A_ij| + |θ_i|, η = min_{A_ij != 0} |A_ij|.
		lambda, eta := 0.0, math.Inf(1)
		for i := 0; i < n; i++ {
			sum := math.Abs(theta[i])
			for j := 0; j < n; j++ {
				v := math.Abs(a.At(i, j))
				sum += v
				if v != 0 {
					eta = math.Min(eta, v)
				}
			}
			lambda = math.Max(lambda, sum)
		}
		if math.IsInf(eta, 1) {
			eta = 0
		}
		if got := m.Width(); !scalar.EqualWithinAbsOrRel(got, lambda, 1e-12, 1e-12) {
			t.Errorf("Width() = %v, want %v", got, lambda)
		}
		if got := m.MinEdgeWeight(); got != eta {
			t.Errorf("MinEdgeWeight() = %v, want %v", got, eta)
		}
		for _, e := range m.Edges() {
			if e.Weight != math.Abs(a.At(e.I, e.J)) {
				t.Errorf("edge %v: weight, want |A| = %v", e, math.Abs(a.At(e.I, e.J)))
			}
		}
	}
}

func TestModelLogWeightAndConditional(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	for _, k := range []int{2, 3, 4} {
		m := mtRandomModel(t, rng, 5, k, 0.7)
		n := m.Vars()
		for rep := 0; rep < 50; rep++ {
			z := make([]int, n)
			for i := range z {
				z[i] = rng.IntN(k)
			}
			// The energy of Definition 2, summed directly.
			want := 0.0
			for i := 0; i < n; i++ {
				want += m.Field(i)[z[i]]
				for j := i + 1; j < n; j++ {
					want += m.Coupling(i, j).At(z[i], z[j])
				}
			}
			if got := m.LogWeight(z); !scalar.EqualWithinAbsOrRel(got, want, 1e-12, 1e-12) {
				t.Fatalf("k = %d: LogWeight(%v) = %v, want %v", k, z, got, want)
			}

			i := rng.IntN(n)
			zi := z[i]
			cond := m.Conditional(nil, z, i)
			if z[i] != zi {
				t.Fatal("Conditional changed z")
			}
			// P(Z_i = a | z_-i) = exp(LogWeight(z_i = a)) / Σ_b exp(LogWeight(z_i = b)).
			w := make([]float64, k)
			for a := 0; a < k; a++ {
				z[i] = a
				w[a] = math.Exp(m.LogWeight(z))
			}
			z[i] = zi
			sum := 0.0
			for _, v := range w {
				sum += v
			}
			for a := 0; a < k; a++ {
				if !scalar.EqualWithinAbs(cond[a], w[a]/sum, 1e-12) {
					t.Errorf("k = %d: Conditional(z = %v, i = %d)[%d] = %v, want %v", k, z, i, a, cond[a], w[a]/sum)
				}
			}
			// Fact 2: restricted to {α, β} the conditional is logistic.
			alpha, beta := 0, k-1
			u := m.Field(i)[alpha] - m.Field(i)[beta]
			for j := 0; j < n; j++ {
				if j != i {
					c := m.Coupling(i, j)
					u += c.At(alpha, z[j]) - c.At(beta, z[j])
				}
			}
			if got, want := cond[alpha]/(cond[alpha]+cond[beta]), 1/(1+math.Exp(-u)); !scalar.EqualWithinAbs(got, want, 1e-12) {
				t.Errorf("k = %d: P(α | α or β) = %v, want σ(%v) = %v", k, got, u, want)
			}
			// dst is reused when large enough.
			dst := make([]float64, k)
			if got := m.Conditional(dst, z, i); &got[0] != &dst[0] {
				t.Error("Conditional did not reuse dst")
			}
		}
	}
}

// Fact 1: for an Ising model P(Z_i = +1 | x) = σ(2 Σ_j A_ij x_j + 2 θ_i).
func TestIsingConditional(t *testing.T) {
	t.Parallel()
	a := mat.NewSymDense(3, []float64{0, 0.5, -0.3, 0.5, 0, 0.8, -0.3, 0.8, 0})
	theta := []float64{0.1, -0.2, 0.3}
	m, err := NewIsing(a, theta)
	if err != nil {
		t.Fatal(err)
	}
	spin := []float64{-1, 1}
	for _, z := range allStates(3, 2) {
		for i := 0; i < 3; i++ {
			u := 2 * theta[i]
			for j := 0; j < 3; j++ {
				u += 2 * a.At(i, j) * spin[z[j]]
			}
			got := m.Conditional(nil, z, i)[1]
			if want := 1 / (1 + math.Exp(-u)); !scalar.EqualWithinAbs(got, want, 1e-12) {
				t.Errorf("z = %v, i = %d: P(+1 | x) = %v, want %v", z, i, got, want)
			}
		}
		// Definition 1: LogWeight is Σ_{i<j} A_ij z_i z_j + Σ_i θ_i z_i.
		want := 0.0
		for i := 0; i < 3; i++ {
			want += theta[i] * spin[z[i]]
			for j := i + 1; j < 3; j++ {
				want += a.At(i, j) * spin[z[i]] * spin[z[j]]
			}
		}
		if got := m.LogWeight(z); !scalar.EqualWithinAbs(got, want, 1e-12) {
			t.Errorf("LogWeight(%v) = %v, want %v", z, got, want)
		}
	}
}

func TestCentered(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 10))
	for _, test := range []struct {
		n, k int
	}{{6, 2}, {5, 3}, {4, 4}, {3, 6}} {
		for rep := 0; rep < 3; rep++ {
			m := mtRandomModel(t, rng, test.n, test.k, 0.8)
			orig := m.Clone()
			c := m.Centered()
			checkSameDistribution(t, c, m, 1e-10)
			checkSameDistribution(t, m, orig, 0) // the receiver is unchanged
			k := test.k
			for i := 0; i < test.n; i++ {
				sum := 0.0
				for _, v := range c.Field(i) {
					sum += v
				}
				if math.Abs(sum) > 1e-12 {
					t.Errorf("n, k = %d, %d: field %d sums to %v, want 0", test.n, k, i, sum)
				}
				for j := 0; j < test.n; j++ {
					w := c.Coupling(i, j)
					for a := 0; a < k; a++ {
						if r, col := mat.Sum(w.RowView(a)), mat.Sum(w.ColView(a)); math.Abs(r) > 1e-12 || math.Abs(col) > 1e-12 {
							t.Errorf("n, k = %d, %d: W_%d%d row %d sums to %v, column %d to %v, want 0", test.n, k, i, j, a, r, a, col)
						}
					}
				}
			}
			// Centring a centred model changes nothing.
			cc := c.Centered()
			for i := 0; i < test.n; i++ {
				if !scalarsEqual(cc.Field(i), c.Field(i), 1e-12) {
					t.Errorf("field %d: %v centred again, want %v", i, cc.Field(i), c.Field(i))
				}
				for j := 0; j < test.n; j++ {
					if !mat.EqualApprox(cc.Coupling(i, j), c.Coupling(i, j), 1e-12) {
						t.Errorf("W_%d%d changed when centred again", i, j)
					}
				}
			}
			if len(cc.Edges()) != len(c.Edges()) {
				t.Errorf("%d edges centred again, want %d", len(cc.Edges()), len(c.Edges()))
			}
		}
	}
}

// A coupling W(a, b) = u_a + v_b is a pair of fields in disguise: centring
// drops the edge and keeps the distribution, at every scale. A centred
// coupling keeps its edge however small it is.
func TestCenteredScale(t *testing.T) {
	t.Parallel()
	for _, scale := range []float64{1e-20, 1e-3, 1, 7, 1e3, 1e6} {
		m, err := NewModel(3, 3)
		if err != nil {
			t.Fatal(err)
		}
		u, v := []float64{0.5, -1, 2.1}, []float64{1, 0.25, -0.75}
		w := mat.NewDense(3, 3, nil)
		for a := range u {
			for b := range v {
				w.Set(a, b, scale*(u[a]+v[b]))
			}
		}
		if err := m.SetCoupling(0, 2, w); err != nil {
			t.Fatal(err)
		}
		c := m.Centered()
		if e := c.Edges(); len(e) != 0 {
			t.Errorf("scale %g: Centered().Edges() = %v, want none", scale, e)
		}
		checkSameDistribution(t, c, m, 1e-12*math.Max(1, scale))

		ising, err := NewIsing(mat.NewSymDense(2, []float64{0, scale, scale, 0}), nil)
		if err != nil {
			t.Fatal(err)
		}
		want := []Edge{{I: 0, J: 1, Weight: scale}}
		if got := ising.Centered().Edges(); len(got) != 1 || got[0] != want[0] {
			t.Errorf("scale %g: centred Ising coupling: Centered().Edges() = %v, want %v", scale, got, want)
		}
	}
}

func TestIsingParameters(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	for rep := 0; rep < 5; rep++ {
		m := mtRandomModel(t, rng, 6, 2, 0.6)
		a, theta, err := m.Ising()
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewIsing(a, theta)
		if err != nil {
			t.Fatalf("NewIsing(m.Ising()): %v", err)
		}
		checkSameDistribution(t, r, m, 1e-10)
		// An Ising model gives back its own parameters.
		a2, theta2, err := r.Ising()
		if err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(a2, a, 1e-12) || !scalarsEqual(theta2, theta, 1e-12) {
			t.Errorf("NewIsing(A, θ).Ising() = %v, %v, want %v, %v", mat.Formatted(a2), theta2, mat.Formatted(a), theta)
		}
	}
	for _, k := range []int{3, 4} {
		m, err := NewModel(2, k)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := m.Ising(); err == nil || !strings.Contains(err.Error(), "pairwise: Ising: alphabet size k = "+string(rune('0'+k))+", want 2") {
			t.Errorf("k = %d: Ising() error %v, want one naming k", k, err)
		}
	}
}
