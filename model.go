package pairwise

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/mrfkit/pairwise/internal/estimates"
	"gonum.org/v1/gonum/mat"
)

// Model is a discrete pairwise graphical model D(W, Θ) of Definition 2 of the
// paper: n variables Z_1..Z_n with states 0..k-1 and
//
//	P(Z = z) ∝ exp(Σ_{i<j} W_ij(z_i, z_j) + Σ_i θ_i(z_i)).
//
// The couplings W_ij are k×k matrices with W_ji = W_ij^T; a Model stores each
// pair once per orientation and keeps the two consistent. The fields θ_i are
// vectors of length k. An Ising model (Definition 1) is the case k = 2, built
// by NewIsing.
//
// A Model is not safe for concurrent mutation; concurrent reads (Conditional,
// LogWeight, samplers) are safe once it is built.
type Model struct {
	n, k  int
	theta []float64    // n*k, theta[i*k+a] = θ_i(a)
	adj   [][]neighbor // adj[i] sorted by j; w holds W_ij row-major
	names []string     // variable names, or nil (modeljson.go)
}

// neighbor is one coupling seen from node i: w[a*k+b] = W_ij(a, b).
type neighbor struct {
	j int
	w []float64
}

// Edge is an undirected edge I < J of a model or of a learned graph, with
// Weight = max_{a,b} |W_IJ(a, b)| (|A_IJ| for an Ising model), the quantity the
// paper thresholds at η/2.
type Edge struct {
	I, J   int
	Weight float64
}

// NewModel returns a model on n variables with alphabet size k, no couplings
// and zero fields (the uniform distribution on [k]^n). It returns an error if
// n < 1, k < 2, k > MaxAlphabet, or the n·k fields alone exceed
// MaxModelEntries.
func NewModel(n, k int) (*Model, error) {
	if n < 1 {
		return nil, fmt.Errorf("pairwise: NewModel: n = %d variables, want at least 1", n)
	}
	if k < 2 || k > MaxAlphabet {
		return nil, &AlphabetError{Func: "NewModel", K: k, Min: 2, Max: MaxAlphabet}
	}
	if err := checkModelSize("NewModel", n, k, 0); err != nil {
		return nil, err
	}
	return &Model{n: n, k: k, theta: make([]float64, n*k), adj: make([][]neighbor, n)}, nil
}

// checkModelSize returns an error when a model of n variables, k states and
// the given number of coupled pairs would hold more than MaxModelEntries
// entries. It computes in float64, so that no product overflows.
func checkModelSize(fn string, n, k, pairs int) error {
	entries := float64(n)*float64(k) + 2*float64(pairs)*float64(k)*float64(k)
	if entries > MaxModelEntries {
		return fmt.Errorf("pairwise: %s: n = %d variables, k = %d states and %d coupled pairs need %.3g entries, more than MaxModelEntries = %d (%d GiB)",
			fn, n, k, pairs, entries, MaxModelEntries, MaxModelEntries*8>>30)
	}
	return nil
}

// NewIsing returns the Ising model D(A, θ) of Definition 1 as a pairwise model
// with k = 2, following the paper's Remark: spin -1 is state 0 and +1 is state
// 1, W_ij = [[A_ij, -A_ij], [-A_ij, A_ij]] and θ_i = [-θ_i, θ_i]. The diagonal
// of a must be zero. theta may be nil for a zero field; otherwise its length
// must be the order of a. NewIsing returns an error for an empty matrix, a
// nonzero diagonal, a wrong-sized theta, a NaN or infinite entry, or more
// nonzero entries than MaxModelEntries allows (2n + 8 entries a coupled
// pair; the error comes before the model grows beyond it).
func NewIsing(a mat.Symmetric, theta []float64) (*Model, error) {
	if a == nil {
		return nil, errors.New("pairwise: NewIsing: nil coupling matrix")
	}
	n := a.SymmetricDim()
	if n < 1 {
		return nil, errors.New("pairwise: NewIsing: empty coupling matrix")
	}
	if theta != nil && len(theta) != n {
		return nil, fmt.Errorf("pairwise: NewIsing: len(theta) = %d, want %d (the order of A)", len(theta), n)
	}
	m, err := NewModel(n, 2)
	if err != nil {
		return nil, fmt.Errorf("pairwise: NewIsing: %w", err)
	}
	pairs := 0
	for i := 0; i < n; i++ {
		if v := a.At(i, i); v != 0 {
			return nil, fmt.Errorf("pairwise: NewIsing: A[%d][%d] = %v, want a zero diagonal", i, i, v)
		}
		for j := i + 1; j < n; j++ {
			v := a.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("pairwise: NewIsing: A[%d][%d] = %v, want a finite number", i, j, v)
			}
			if v != 0 {
				if pairs++; 2*n+8*pairs > MaxModelEntries {
					return nil, fmt.Errorf("pairwise: NewIsing: more than %d coupled pairs at n = %d need more than MaxModelEntries = %d entries", pairs-1, n, MaxModelEntries)
				}
				m.setCoupling(i, j, []float64{v, -v, -v, v})
			}
		}
		if theta != nil {
			t := theta[i]
			if math.IsNaN(t) || math.IsInf(t, 0) {
				return nil, fmt.Errorf("pairwise: NewIsing: theta[%d] = %v, want a finite number", i, t)
			}
			m.theta[2*i] = -t
			m.theta[2*i+1] = t
		}
	}
	return m, nil
}

// Vars returns n, the number of variables.
func (m *Model) Vars() int { return m.n }

// Alphabet returns k, the alphabet size.
func (m *Model) Alphabet() int { return m.k }

// SetCoupling sets W_ij to the k×k matrix w and W_ji to its transpose. A zero
// matrix removes the edge. It returns an error if i or j is out of range, i == j,
// w is not k×k, or w has a NaN or infinite entry; the model is then unchanged.
func (m *Model) SetCoupling(i, j int, w mat.Matrix) error {
	if i < 0 || i >= m.n || j < 0 || j >= m.n {
		return fmt.Errorf("pairwise: SetCoupling(%d, %d): index out of range [0, %d)", i, j, m.n)
	}
	if i == j {
		return fmt.Errorf("pairwise: SetCoupling(%d, %d): i == j, a variable has no coupling with itself (use SetField)", i, j)
	}
	if w == nil {
		return fmt.Errorf("pairwise: SetCoupling(%d, %d): nil matrix", i, j)
	}
	r, c := w.Dims()
	if r != m.k || c != m.k {
		return fmt.Errorf("pairwise: SetCoupling(%d, %d): matrix is %d×%d, want %d×%d", i, j, r, c, m.k, m.k)
	}
	k := m.k
	data := make([]float64, k*k)
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			v := w.At(a, b)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("pairwise: SetCoupling(%d, %d): W(%d, %d) = %v, want a finite number", i, j, a, b, v)
			}
			data[a*k+b] = v
		}
	}
	m.setCoupling(i, j, data)
	return nil
}

// setCoupling stores W_ij = w (row-major, k*k, taken over) and W_ji = w^T, or
// removes the pair when w is all zero.
func (m *Model) setCoupling(i, j int, w []float64) {
	zero := true
	for _, v := range w {
		if v != 0 {
			zero = false
			break
		}
	}
	if zero {
		m.adj[i] = removeNeighbor(m.adj[i], j)
		m.adj[j] = removeNeighbor(m.adj[j], i)
		return
	}
	k := m.k
	wt := make([]float64, k*k)
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			wt[b*k+a] = w[a*k+b]
		}
	}
	m.adj[i] = putNeighbor(m.adj[i], j, w)
	m.adj[j] = putNeighbor(m.adj[j], i, wt)
}

func putNeighbor(list []neighbor, j int, w []float64) []neighbor {
	p := sort.Search(len(list), func(x int) bool { return list[x].j >= j })
	if p < len(list) && list[p].j == j {
		list[p].w = w
		return list
	}
	list = append(list, neighbor{})
	copy(list[p+1:], list[p:])
	list[p] = neighbor{j: j, w: w}
	return list
}

func removeNeighbor(list []neighbor, j int) []neighbor {
	p := sort.Search(len(list), func(x int) bool { return list[x].j >= j })
	if p < len(list) && list[p].j == j {
		return append(list[:p], list[p+1:]...)
	}
	return list
}

// coupling returns the stored row-major W_ij, or nil when i and j are not
// coupled.
func (m *Model) coupling(i, j int) []float64 {
	list := m.adj[i]
	p := sort.Search(len(list), func(x int) bool { return list[x].j >= j })
	if p < len(list) && list[p].j == j {
		return list[p].w
	}
	return nil
}

// Coupling returns a copy of W_ij as a k×k matrix (all zero when i and j are
// not coupled, including i == j). It panics if i or j is out of range.
func (m *Model) Coupling(i, j int) *mat.Dense {
	m.checkIndex(i)
	m.checkIndex(j)
	d := mat.NewDense(m.k, m.k, nil)
	if w := m.coupling(i, j); w != nil {
		copy(d.RawMatrix().Data, w)
	}
	return d
}

// Neighbors returns the variables j coupled to i (W_ij != 0), in increasing
// order. It panics if i is out of range.
func (m *Model) Neighbors(i int) []int {
	m.checkIndex(i)
	out := make([]int, len(m.adj[i]))
	for x, nb := range m.adj[i] {
		out[x] = nb.j
	}
	return out
}

// SetField sets θ_i. It returns an error if i is out of range, len(theta) != k,
// or theta has a NaN or infinite entry.
func (m *Model) SetField(i int, theta []float64) error {
	if i < 0 || i >= m.n {
		return fmt.Errorf("pairwise: SetField(%d): index out of range [0, %d)", i, m.n)
	}
	if len(theta) != m.k {
		return fmt.Errorf("pairwise: SetField(%d): len(theta) = %d, want k = %d", i, len(theta), m.k)
	}
	for a, v := range theta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("pairwise: SetField(%d): theta[%d] = %v, want a finite number", i, a, v)
		}
	}
	copy(m.theta[i*m.k:(i+1)*m.k], theta)
	return nil
}

// Field returns a copy of θ_i. It panics if i is out of range.
func (m *Model) Field(i int) []float64 {
	m.checkIndex(i)
	return append([]float64(nil), m.theta[i*m.k:(i+1)*m.k]...)
}

func (m *Model) checkIndex(i int) {
	if i < 0 || i >= m.n {
		panic(fmt.Sprintf("pairwise: variable index %d out of range [0, %d)", i, m.n))
	}
}

// Width returns the model width of Definition 2,
//
//	λ(W, Θ) = max_{i,a} ( Σ_{j≠i} max_b |W_ij(a, b)| + |θ_i(a)| ),
//
// computed on the couplings and fields as stored. For a model built by
// NewIsing this equals Definition 1, max_i Σ_j |A_ij| + |θ_i|. The paper's
// guarantees assume centred couplings; call Centered first to get the width
// of the canonical parametrisation.
func (m *Model) Width() float64 {
	k := m.k
	width := 0.0
	row := make([]float64, k)
	for i := 0; i < m.n; i++ {
		for a := 0; a < k; a++ {
			row[a] = math.Abs(m.theta[i*k+a])
		}
		for _, nb := range m.adj[i] {
			for a := 0; a < k; a++ {
				mx := 0.0
				for _, v := range nb.w[a*k : (a+1)*k] {
					mx = math.Max(mx, math.Abs(v))
				}
				row[a] += mx
			}
		}
		for _, v := range row {
			width = math.Max(width, v)
		}
	}
	return width
}

// MinEdgeWeight returns η(W, Θ) = min over edges of max_{a,b} |W_ij(a, b)|
// (Definition 2; min |A_ij| over edges for an Ising model), or 0 when the
// model has no edge.
func (m *Model) MinEdgeWeight() float64 {
	edges := m.Edges()
	if len(edges) == 0 {
		return 0
	}
	eta := math.Inf(1)
	for _, e := range edges {
		eta = math.Min(eta, e.Weight)
	}
	return eta
}

// Edges returns the pairs I < J with W_IJ != 0, sorted by (I, J), each with
// its weight max_{a,b} |W_IJ(a, b)|.
func (m *Model) Edges() []Edge {
	var edges []Edge
	for i := 0; i < m.n; i++ {
		for _, nb := range m.adj[i] {
			if nb.j <= i {
				continue
			}
			edges = append(edges, Edge{I: i, J: nb.j, Weight: estimates.MaxAbs(nb.w)})
		}
	}
	return edges
}

// Clone returns a deep copy of m.
func (m *Model) Clone() *Model {
	c := &Model{n: m.n, k: m.k, theta: append([]float64(nil), m.theta...), adj: make([][]neighbor, m.n), names: m.names}
	for i, list := range m.adj {
		c.adj[i] = make([]neighbor, len(list))
		for x, nb := range list {
			c.adj[i][x] = neighbor{j: nb.j, w: append([]float64(nil), nb.w...)}
		}
	}
	return c
}

// Centered returns the same distribution in the canonical parametrisation the
// paper assumes (the Remark after Definition 2): every W_ij is double centred,
//
//	W'_ij(a, b) = W_ij(a, b) - r_a - c_b + g,
//
// with r_a, c_b and g the row, column and grand means of W_ij, and the removed
// parts moved into the fields, θ_i(a) += r_a - g and θ_j(b) += c_b. Finally
// every field is centred, θ'_i(a) = θ_i(a) - mean_b θ_i(b). Each step changes
// only the normalising constant, so log P is unchanged for every state.
// Couplings that centre to zero are dropped (they were fields in disguise).
// The receiver is not modified.
func (m *Model) Centered() *Model {
	k := m.k
	c, _ := NewModel(m.n, k)
	c.names = m.names
	copy(c.theta, m.theta)
	row := make([]float64, k)
	col := make([]float64, k)
	for i := 0; i < m.n; i++ {
		for _, nb := range m.adj[i] {
			j := nb.j
			if j <= i {
				continue
			}
			for a := range row {
				row[a], col[a] = 0, 0
			}
			g := 0.0
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					v := nb.w[a*k+b]
					row[a] += v
					col[b] += v
					g += v
				}
			}
			g /= float64(k * k)
			tol := centerTol(k, estimates.MaxAbs(nb.w))
			w := make([]float64, k*k)
			for a := 0; a < k; a++ {
				row[a] /= float64(k)
				col[a] /= float64(k)
			}
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					w[a*k+b] = cleanZero(nb.w[a*k+b]-row[a]-col[b]+g, tol)
				}
				c.theta[i*k+a] += row[a] - g
				c.theta[j*k+a] += col[a]
			}
			c.setCoupling(i, j, w)
		}
	}
	for i := 0; i < m.n; i++ {
		f := c.theta[i*k : (i+1)*k]
		mean := 0.0
		for _, v := range f {
			mean += v
		}
		mean /= float64(k)
		tol := centerTol(k, estimates.MaxAbs(f))
		for a := range f {
			f[a] = cleanZero(f[a]-mean, tol)
		}
	}
	return c
}

// cleanZero maps values within rounding of zero, which centring a centred
// matrix leaves behind, to exactly zero so that Edges stays exact.
func cleanZero(v, tol float64) float64 {
	if math.Abs(v) <= tol {
		return 0
	}
	return v
}

// centerTol bounds the rounding error of centring the rows and columns of a
// k×k matrix, or a vector of length k, whose entries are at most scale in
// magnitude: a few ulps of scale per term summed. It is relative so that
// centring neither drops a tiny genuine coupling nor keeps the rounding
// residue of a large separable one as an edge.
func centerTol(k int, scale float64) float64 {
	return 8 * float64(k) * 0x1p-52 * scale
}

// LogWeight returns Σ_{i<j} W_ij(z_i, z_j) + Σ_i θ_i(z_i), the log of the
// unnormalised probability of state z, whose values are states 0..k-1 (not
// spins: the spin -1 is the state 0). It returns NaN when z is not a state
// of the model: len(z) != n, or a value outside [0, k) (such as a spin -1,
// or a missing value). It does not modify z.
func (m *Model) LogWeight(z []int) float64 {
	if len(z) != m.n {
		return math.NaN()
	}
	k := m.k
	for _, a := range z {
		if a < 0 || a >= k {
			return math.NaN()
		}
	}
	s := 0.0
	for i, a := range z {
		s += m.theta[i*k+a]
		for _, nb := range m.adj[i] {
			if nb.j > i {
				s += nb.w[a*k+z[nb.j]]
			}
		}
	}
	return s
}

// Conditional writes into dst (grown or allocated as needed, length k) the
// conditional distribution P(Z_i = a | Z_-i = z_-i) for a = 0..k-1 and returns
// it. This is Fact 2 of the paper before restriction to a pair of values:
// P(Z_i = a | z_-i) ∝ exp(Σ_{j≠i} W_ij(a, z_j) + θ_i(a)); for an Ising model
// it is the logistic function of Fact 1. The value z[i] is ignored. It panics
// if i is out of range, len(z) != n, or a neighbour's value is outside [0, k).
func (m *Model) Conditional(dst []float64, z []int, i int) []float64 {
	m.checkIndex(i)
	if len(z) != m.n {
		panic(fmt.Sprintf("pairwise: Conditional: len(z) = %d, want %d", len(z), m.n))
	}
	k := m.k
	if cap(dst) < k {
		dst = make([]float64, k)
	}
	dst = dst[:k]
	copy(dst, m.theta[i*k:(i+1)*k])
	for _, nb := range m.adj[i] {
		b := z[nb.j]
		for a := 0; a < k; a++ {
			dst[a] += nb.w[a*k+b]
		}
	}
	softmaxInPlace(dst)
	return dst
}

// softmaxInPlace replaces x by exp(x)/Σexp(x), computed stably.
func softmaxInPlace(x []float64) {
	mx := math.Inf(-1)
	for _, v := range x {
		mx = math.Max(mx, v)
	}
	s := 0.0
	for a, v := range x {
		e := math.Exp(v - mx)
		x[a] = e
		s += e
	}
	for a := range x {
		x[a] /= s
	}
}

// Ising returns the Ising parameters A and θ of Definition 1 for a model with
// k = 2: the model is first centred (see Centered), after which every
// W_ij = [[A_ij, -A_ij], [-A_ij, A_ij]] and θ_i = [-θ_i, θ_i]. It returns an
// error if k != 2.
func (m *Model) Ising() (a *mat.SymDense, theta []float64, err error) {
	if m.k != 2 {
		return nil, nil, fmt.Errorf("pairwise: Ising: alphabet size k = %d, want 2", m.k)
	}
	c := m.Centered()
	a = mat.NewSymDense(m.n, nil)
	theta = make([]float64, m.n)
	for i := 0; i < m.n; i++ {
		theta[i] = c.theta[2*i+1]
		for _, nb := range c.adj[i] {
			if nb.j > i {
				a.SetSym(i, nb.j, nb.w[3])
			}
		}
	}
	return a, theta, nil
}
