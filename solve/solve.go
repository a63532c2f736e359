// Package solve defines the constrained logistic regressions that the
// learners of package pairwise solve once per node (and per value pair), and
// the generic Solver interface a backend implements.
//
// Each problem is the weighted empirical logistic loss of the paper,
//
//	L(w) = Σ_m c_m ln(1 + exp(-y_m ⟨w, x_m⟩)) / Σ_m c_m,   ‖w‖ ≤ R,
//
// where the norm is the l1 norm for the Spins layout (Algorithm 1, equation
// (3); groups of size one) and the l2,1 group norm for the OneHot layout
// (Algorithm 2, equation (8); one group of k coordinates per variable). The
// layouts describe the design x_m without materialising it.
//
// Package pairwise chooses its built-in backends without type arguments
// (pairwise.WithSolver); this package is for compiled Go callers who bring
// their own solver. It is not meant to be imported into a notebook
// interpreter, which cannot import generic interfaces.
package solve

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// Layout is the set of feature layouts a Problem can have.
type Layout interface {
	Spins | OneHot

	// Len returns the number of rows (observations) of the design.
	Len() int
	// Dim returns the dimension of w.
	Dim() int
	// GroupSize returns the number of coordinates of w in one group of the
	// constraint norm: 1 for l1, k for l2,1.
	GroupSize() int
	// Margins sets dst[m] = ⟨w, x_m⟩ for every row m.
	Margins(dst, w []float64)
	// Gradient sets dst = Σ_m r_m x_m (dst has length Dim).
	Gradient(dst, r []float64)
}

// Spins is the dense ±1 layout of Algorithm 1. Row m of the design is row m of
// the Len×Cols row-major matrix X, except that column Bias reads as the
// constant 1: for node i of an Ising model X holds all spins and Bias = i, so
// x_m = [z_-i, 1] without a copy per node, and w_i is the field coordinate.
// Bias < 0 means no column is replaced.
type Spins struct {
	X    []float64 // Len*Cols, row-major; entries ±1 for Ising data
	Cols int
	Bias int
}

// Len returns the number of rows.
func (s Spins) Len() int {
	if s.Cols == 0 {
		return 0
	}
	return len(s.X) / s.Cols
}

// Dim returns Cols.
func (s Spins) Dim() int { return s.Cols }

// GroupSize returns 1: the constraint is the l1 norm.
func (s Spins) GroupSize() int { return 1 }

// Margins sets dst[m] = ⟨w, x_m⟩. The dot products run four accumulators
// wide; X streams from memory once.
func (s Spins) Margins(dst, w []float64) {
	c := s.Cols
	w = w[:c]
	for m := range dst {
		row := s.X[m*c : m*c+c]
		ww := w[:len(row)]
		var s0, s1, s2, s3 float64
		for len(row) >= 4 && len(ww) >= 4 {
			s0 += row[0] * ww[0]
			s1 += row[1] * ww[1]
			s2 += row[2] * ww[2]
			s3 += row[3] * ww[3]
			row, ww = row[4:], ww[4:]
		}
		for j, v := range row {
			s0 += v * ww[j]
		}
		sum := (s0 + s1) + (s2 + s3)
		if s.Bias >= 0 {
			sum += w[s.Bias] * (1 - s.X[m*c+s.Bias])
		}
		dst[m] = sum
	}
}

// Gradient sets dst = Σ_m r_m x_m. Rows are added four at a time, so dst
// is loaded and stored once per four rows.
func (s Spins) Gradient(dst, r []float64) {
	clear(dst)
	c := s.Cols
	dst = dst[:c]
	bias := 0.0
	m := 0
	for ; m+4 <= len(r); m += 4 {
		r0, r1, r2, r3 := r[m], r[m+1], r[m+2], r[m+3]
		bias += (r0 + r1) + (r2 + r3)
		x0 := s.X[m*c : m*c+c]
		x1 := s.X[(m+1)*c : (m+1)*c+c][:len(x0)]
		x2 := s.X[(m+2)*c : (m+2)*c+c][:len(x0)]
		x3 := s.X[(m+3)*c : (m+3)*c+c][:len(x0)]
		d := dst[:len(x0)]
		for j, v := range x0 {
			d[j] += r0*v + r1*x1[j] + r2*x2[j] + r3*x3[j]
		}
	}
	for ; m < len(r); m++ {
		rm := r[m]
		bias += rm
		row := s.X[m*c : m*c+c]
		d := dst[:len(row)]
		for j, v := range row {
			d[j] += rm * v
		}
	}
	if s.Bias >= 0 {
		dst[s.Bias] = bias
	}
}

// OneHot is the one-hot layout of Algorithm 2. Row m of the design is the
// one-hot encoding of the Len×Groups row-major states Z: group j of x_m is the
// standard basis vector e_{Z[m*Groups+j]} in R^K, and group Bias reads as the
// constant state 0 (the paper's [z_-i, 1] with its bias row). w is stored
// row-major as Groups×K: w[j*K+a] = w(j, a). Each row of the design has
// exactly Groups ones, so margins are gathers and the gradient a scatter-add.
type OneHot struct {
	Z      []uint8 // Len*Groups states in [0, K)
	Groups int
	K      int
	Bias   int // group read as state 0; < 0 for none
}

// Len returns the number of rows.
func (o OneHot) Len() int {
	if o.Groups == 0 {
		return 0
	}
	return len(o.Z) / o.Groups
}

// Dim returns Groups*K.
func (o OneHot) Dim() int { return o.Groups * o.K }

// GroupSize returns K: the constraint is the l2,1 norm over the rows of w.
func (o OneHot) GroupSize() int { return o.K }

// Margins sets dst[m] = ⟨w, x_m⟩ = Σ_j w(j, Z[m, j]).
func (o OneHot) Margins(dst, w []float64) {
	g, k, b := o.Groups, o.K, o.bias()
	for m := range dst {
		row := o.Z[m*g : m*g+g]
		sum, off := 0.0, 0
		if b >= 0 {
			for _, a := range row[:b] {
				sum += w[off+int(a)]
				off += k
			}
			sum += w[off] // the bias group reads as state 0
			off += k
			row = row[b+1:]
		}
		for _, a := range row {
			sum += w[off+int(a)]
			off += k
		}
		dst[m] = sum
	}
}

// Gradient sets dst = Σ_m r_m x_m, a scatter-add of r_m into the coordinates
// (j, Z[m, j]).
func (o OneHot) Gradient(dst, r []float64) {
	clear(dst)
	g, k, b := o.Groups, o.K, o.bias()
	bias := 0.0
	for m, rm := range r {
		row := o.Z[m*g : m*g+g]
		off := 0
		if b >= 0 {
			bias += rm
			for _, a := range row[:b] {
				dst[off+int(a)] += rm
				off += k
			}
			off += k
			row = row[b+1:]
		}
		for _, a := range row {
			dst[off+int(a)] += rm
			off += k
		}
	}
	if b >= 0 {
		dst[b*k] += bias // the bias group reads as state 0
	}
}

// bias returns Bias, or -1 when no group is the bias group.
func (o OneHot) bias() int {
	if o.Bias >= o.Groups {
		return -1
	}
	return o.Bias
}

// Problem is one constrained logistic regression: minimise L(w) subject to
// ‖w‖ ≤ Radius (l1 for Spins, l2,1 for OneHot). The data (the design, the
// labels, the weights and the radius) are the problem; Settings, embedded,
// say how far to solve it.
type Problem[F Layout] struct {
	X F
	// Y holds the labels y_m ∈ {-1, +1}, one a row.
	Y []float64
	// C holds the non-negative row weights c_m; nil weighs every row
	// equally. The loss is normalised by Σ_m c_m.
	C []float64
	// Radius is the constraint radius R > 0: 2λ for Algorithm 1, 2λ√k for
	// Algorithm 2.
	Radius float64
	// Settings are the stopping rule: p.Tol and p.MaxIter read them.
	Settings
}

// Settings say how far a solver goes, apart from the problem it solves (as
// gonum's optimize.Settings).
type Settings struct {
	// Tol is the target bound on L(w) - L*, certified by the duality gap
	// (see Gap). A solver stops once the certificate is below Tol, with
	// Status GapBelowTol.
	Tol float64
	// MaxIter caps the iterations; a solver that reaches it returns its
	// iterate with Status IterationLimit (Converged false) in its Stats.
	// Zero means the solver's default.
	MaxIter int
}

// Stats describes how a solve ended.
type Stats struct {
	Iterations int
	Loss       float64 // L(w) at the returned w
	Gap        float64 // the certificate: L(w) - L* <= Gap
	Converged  bool    // Gap <= Tol
	// Status says why the solve stopped (as gonum's optimize.Status);
	// Converged is Status == GapBelowTol. Backends that leave it
	// NotTerminated get it filled in by Ended.
	Status Status
}

// Status is the reason a solve stopped.
type Status int

const (
	// NotTerminated: the Stats do not say (the zero value).
	NotTerminated Status = iota
	// GapBelowTol: the duality-gap certificate proves L(w) − L* ≤ Tol.
	GapBelowTol
	// IterationLimit: MaxIter (or a fixed schedule's T) ran out before
	// the certificate reached Tol; w is the last feasible iterate.
	IterationLimit
	// Cancelled: the context was done; w is the last feasible iterate.
	Cancelled
	// Failure: the method could not go on (NaN, no finite estimate).
	Failure
)

// String returns the status's name.
func (s Status) String() string {
	switch s {
	case NotTerminated:
		return "NotTerminated"
	case GapBelowTol:
		return "GapBelowTol"
	case IterationLimit:
		return "IterationLimit"
	case Cancelled:
		return "Cancelled"
	case Failure:
		return "Failure"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Ended returns st with its Status filled in from how the solve returned,
// unless the backend set it: Cancelled when err is ctx's, Failure for any
// other error, GapBelowTol when Converged, IterationLimit otherwise.
func Ended(ctx context.Context, st Stats, err error) Stats {
	if st.Status != NotTerminated {
		return st
	}
	switch {
	case err != nil && ctx != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()):
		st.Status = Cancelled
	case err != nil:
		st.Status = Failure
	case st.Converged:
		st.Status = GapBelowTol
	default:
		st.Status = IterationLimit
	}
	return st
}

// Solver is a backend for problems of layout F. Solve starts from w (a warm
// start; zero is always feasible), leaves the solution in w, and returns how
// it ended. It must return ctx.Err() promptly once ctx is done, and must not
// keep p or w after it returns.
type Solver[F Layout] interface {
	Solve(ctx context.Context, p *Problem[F], w []float64) (Stats, error)
}

// Func adapts a function or method value to Solver, so that a backend with
// methods for several layouts (pairwise.GroupMirror has SolveSpins and
// SolveOneHot) can serve as the Solver of each:
//
//	var s solve.Solver[solve.Spins] = solve.Func[solve.Spins](pairwise.GroupMirror{}.SolveSpins)
type Func[F Layout] func(ctx context.Context, p *Problem[F], w []float64) (Stats, error)

// Solve calls f.
func (f Func[F]) Solve(ctx context.Context, p *Problem[F], w []float64) (Stats, error) {
	return f(ctx, p, w)
}

// Loss returns L(w), the weighted mean logistic loss. It allocates; solvers
// keep their own buffers and use Evaluate.
func Loss[F Layout](p *Problem[F], w []float64) float64 {
	u := make([]float64, p.X.Len())
	p.X.Margins(u, w)
	return lossFromMargins(p, u)
}

// lossFromMargins returns Σ c_m ln(1+exp(-y_m u_m)) / Σ c_m.
func lossFromMargins[F Layout](p *Problem[F], u []float64) float64 {
	s, total := 0.0, 0.0
	for m, um := range u {
		c := 1.0
		if p.C != nil {
			c = p.C[m]
		}
		s += c * Softplus(-p.Y[m]*um)
		total += c
	}
	return s / total
}

// Evaluate returns L(w) and writes ∇L(w) into grad, using u and r (length
// Len) as scratch: afterwards u holds the margins and r the residuals
// c_m (σ(y_m u_m) - 1) y_m / Σc.
func Evaluate[F Layout](p *Problem[F], w, grad, u, r []float64) float64 {
	p.X.Margins(u, w)
	total := 0.0
	if p.C == nil {
		total = float64(len(u))
	} else {
		for _, c := range p.C {
			total += c
		}
	}
	loss := 0.0
	for m, um := range u {
		c := 1.0
		if p.C != nil {
			c = p.C[m]
		}
		y := p.Y[m]
		loss += c * Softplus(-y*um)
		// d/du ln(1+exp(-y u)) = -y σ(-y u)
		r[m] = -c * y * Sigmoid(-y*um) / total
	}
	p.X.Gradient(grad, r)
	return loss / total
}

// Gap returns the Frank-Wolfe duality gap at a feasible w with gradient g,
//
//	gap = ⟨g, w⟩ + R·‖g‖_*,
//
// where ‖·‖_* is the dual norm of the constraint: l∞ for l1 (group size 1),
// the largest group l2 norm for l2,1. By convexity, for every feasible v,
// L(v) ≥ L(w) + ⟨g, v - w⟩ ≥ L(w) - ⟨g, w⟩ - R‖g‖_*, so L(w) - L* ≤ gap.
func Gap(g, w []float64, groupSize int, radius float64) float64 {
	dot := 0.0
	for j := range g {
		dot += g[j] * w[j]
	}
	return dot + radius*DualNorm(g, groupSize)
}

// DualNorm returns max over groups of the l2 norm of g's groups of the given
// size (l∞ when groupSize is 1).
func DualNorm(g []float64, groupSize int) float64 {
	mx := 0.0
	if groupSize == 1 {
		for _, v := range g {
			mx = math.Max(mx, math.Abs(v))
		}
		return mx
	}
	for s := 0; s < len(g); s += groupSize {
		ss := 0.0
		for _, v := range g[s : s+groupSize] {
			ss += v * v
		}
		mx = math.Max(mx, ss)
	}
	return math.Sqrt(mx)
}

// Norm returns the constraint norm of w: l1 for group size 1, l2,1 otherwise.
func Norm(w []float64, groupSize int) float64 {
	s := 0.0
	if groupSize == 1 {
		for _, v := range w {
			s += math.Abs(v)
		}
		return s
	}
	for a := 0; a < len(w); a += groupSize {
		ss := 0.0
		for _, v := range w[a : a+groupSize] {
			ss += v * v
		}
		s += math.Sqrt(ss)
	}
	return s
}

// Sigmoid returns σ(x) = 1/(1+e^{-x}) without overflow.
func Sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// Softplus returns ln(1+e^x) without overflow.
func Softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}
