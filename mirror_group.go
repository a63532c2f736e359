package pairwise

import (
	"context"
	"math"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/solve"
)

// GroupMirror is the group-norm mirror descent of Algorithm 4 for the
// l2,1-constrained regressions of the pairwise path; with groups of size one
// it also solves the l1 regressions of the Ising path. Its zero value runs the
// Adaptive schedule.
//
// With the Paper schedule it is Algorithm 4 line by line on the unit l2,1
// ball after rescaling (w = W21·u with W21 = Radius): the mirror map is
// Φ(u) = (e ln n / p)·‖u‖_{2,p}^p with p = 1 + 1/ln n for n ≥ 3 groups, the
// step is γ = (1/(2W21))·√(e ln n / T), the constrained update of line 8 is
// solved exactly (Φ and the constraint depend on u only through the group
// norms, so each group points along its θ_j and the norms solve a concave
// one-dimensional problem in the budget's multiplier, found by Newton's
// method to machine precision), and the result
// is the averaged iterate times W21. For n ≤ 2 groups that map is not valid
// (the paper's footnote); following Ben-Tal and Nemirovski, Section 5.3.3.3,
// it then uses p = 2 and Φ(u) = (n/2)·‖u‖²₂, the Euclidean map (projected
// gradient with the exact projection onto the l2,1 ball), with the step
// (1/(2W21))·√(n/T). See Schedule for Adaptive.
//
// A GroupMirror holds only its settings; it is safe for concurrent use, each
// call allocating its own buffers.
type GroupMirror struct {
	// Schedule is Adaptive (the zero value) or Paper.
	Schedule Schedule
	// T is the number of iterations of the Paper schedule; zero means
	// the solver's MaxIterations.
	T int
}

var _ Solver = GroupMirror{}

// SolveSpins solves an l1-constrained problem as an l2,1 problem with groups
// of size one: Algorithm 4 with n = d groups under the Paper schedule (w = 0
// starts at Algorithm 4's constant point, any other w at w itself), its
// group-norm map with adaptive steps with Adaptive. Validation, warm starts,
// cancellation and the Stats are as for EntropicMirror.SolveSpins.
func (g GroupMirror) SolveSpins(ctx context.Context, p *solve.Problem[solve.Spins], w []float64) (solve.Stats, error) {
	return solveGroup(ctx, g, p, w)
}

// SolveOneHot solves an l2,1-constrained problem: Algorithm 4 with the
// Paper schedule, its group-norm map with adaptive steps with Adaptive. Validation,
// warm starts, cancellation and the Stats are as for
// EntropicMirror.SolveSpins; the Z entries must lie in [0, K).
func (g GroupMirror) SolveOneHot(ctx context.Context, p *solve.Problem[solve.OneHot], w []float64) (solve.Stats, error) {
	return solveGroup(ctx, g, p, w)
}

// String returns the backend's name, followed by its settings unless they are
// the defaults: "GroupMirror", "GroupMirror{Schedule: Paper}".
func (g GroupMirror) String() string { return backendString("GroupMirror", g.Schedule, g.T) }

func (g GroupMirror) spinsSolver() solve.Solver[solve.Spins] {
	return solve.Func[solve.Spins](g.SolveSpins)
}
func (g GroupMirror) oneHotSolver() solve.Solver[solve.OneHot] {
	return solve.Func[solve.OneHot](g.SolveOneHot)
}

// solveGroup is GroupMirror for either layout.
func solveGroup[F solve.Layout](ctx context.Context, g GroupMirror, p *solve.Problem[F], w []float64) (solve.Stats, error) {
	return solveMirror(ctx, "GroupMirror", g.Schedule, g.T, p, w, groupPaper[F],
		func() mirrorGeometry { return newGroupGeometry(w, p.X.GroupSize(), p.Radius) })
}

// groupMap is the mirror map of Algorithm 4 on R^{n×k} (n groups),
//
//	Φ(u) = (c/p)·Σ_j ‖u_j‖₂^p,
//
// with p = 1 + 1/ln n and c = e·ln n for n ≥ 3 (equation (Phi_def) of the
// paper). For n ≤ 2 that p is not in (1, 2] (p ≥ 2.44 at n = 2, undefined at
// n = 1); following Ben-Tal and Nemirovski, Section 5.3.3.3, whose
// ω(x) = (1/(pγ))Σ‖x_j‖^p has γ = 1 for n = 1 and 1/2 for n = 2, we use p = 2
// and c = n: the Euclidean map (n/2)‖u‖², which is 1-strongly convex for the
// l2,1 norm because ‖u‖²_{2,1} ≤ n‖u‖²₂. q = 1/(p − 1).
type groupMap struct{ c, p, q float64 }

func newGroupMap(n int) groupMap {
	if n <= 2 {
		return groupMap{c: float64(n), p: 2, q: 1}
	}
	ln := math.Log(float64(n))
	return groupMap{c: math.E * ln, p: 1 + 1/ln, q: ln}
}

// gradient sets dst = ∇Φ(u): dst_j = c·‖u_j‖^{p−2}·u_j (0 where u_j = 0,
// the limit since p > 1).
func (m groupMap) gradient(dst, u []float64, gs int) {
	for j := 0; j < len(u); j += gs {
		ss := 0.0
		for _, x := range u[j : j+gs] {
			ss += x * x
		}
		f := 0.0
		if ss > 0 {
			f = m.c * math.Pow(ss, (m.p-2)/2)
		}
		for i := j; i < j+gs; i++ {
			dst[i] = f * u[i]
		}
	}
}

// groupMirrorStep sets u to the exact solution of Algorithm 4, line 8,
//
//	u = argmin_{‖u‖_{2,1} ≤ 1} Φ(u) − ⟨θ, u⟩,   θ = ∇Φ(u^t) − γ g^t,
//
// given θ; a (length n = len(θ)/gs) is scratch. It returns the multiplier τ.
//
// Derivation. Φ depends on u only through the group norms ρ_j = ‖u_j‖₂, and
// so does the constraint Σ_j ρ_j ≤ 1. For fixed ρ_j, ⟨θ_j, u_j⟩ is largest
// when u_j points along θ_j, u_j = ρ_j θ_j/‖θ_j‖, where it equals ρ_j a_j with
// a_j = ‖θ_j‖. The problem is therefore the 1-D concave problem over the
// group norms
//
//	max_ρ Σ_j ρ_j a_j − (c/p) Σ_j ρ_j^p   s.t.  Σ_j ρ_j ≤ 1,  ρ ≥ 0.
//
// With a multiplier τ ≥ 0 for the budget, the KKT conditions read
// a_j − c ρ_j^{p−1} = τ where ρ_j > 0 and a_j ≤ τ where ρ_j = 0, that is
//
//	ρ_j(τ) = ((a_j − τ)_+ / c)^{1/(p−1)},
//
// with τ(1 − Σρ_j) = 0. If Σ_j ρ_j(0) ≤ 1, τ = 0 (the unconstrained
// minimiser, u = ∇Φ*(θ), is feasible). Otherwise τ solves Σ_j ρ_j(τ) = 1 on
// (0, max a_j). S(τ) = Σρ_j(τ) is decreasing, and h(τ) = S(τ)^{p−1} is the
// l_q norm (q = 1/(p−1) ≥ 1) of the vector ((a_j − τ)_+/c)_j, a convex
// nondecreasing function of convex functions of τ, hence convex and
// decreasing. Newton's method on h(τ) = 1 from τ = 0 therefore increases τ
// monotonically to the root without overshooting (each tangent lies below
// h), it is exact after one step when a single group is active, and it
// stops when τ no longer increases in floating point: machine precision.
// A last rescaling of ρ by 1/Σρ (a change in the last digit) makes the
// result feasible. For p = 2 this is the Euclidean projection of θ/c onto
// the l2,1 ball. The cost is O(nk) per Newton step.
func (m groupMap) groupMirrorStep(u, theta []float64, gs int, a []float64) float64 {
	ng := len(theta) / gs
	a = a[:ng]
	s0 := 0.0
	for j := range a {
		ss := 0.0
		for _, x := range theta[j*gs : (j+1)*gs] {
			ss += x * x
		}
		a[j] = math.Sqrt(ss)
		s0 += math.Pow(a[j]/m.c, m.q)
	}
	tau := 0.0
	if s0 > 1 {
		tau = m.threshold(a)
	}
	sum := 0.0
	for j, aj := range a {
		rho := 0.0
		if aj > tau {
			rho = math.Pow((aj-tau)/m.c, m.q)
		}
		sum += rho
		a[j] = rho // a now holds ρ
	}
	fix := 1.0
	if sum > 1 {
		fix = 1 / sum
	}
	for j := 0; j < ng; j++ {
		tj := theta[j*gs : (j+1)*gs]
		uj := u[j*gs : (j+1)*gs]
		nrm := 0.0
		for _, x := range tj {
			nrm += x * x
		}
		nrm = math.Sqrt(nrm)
		f := 0.0
		if a[j] > 0 && nrm > 0 {
			f = fix * a[j] / nrm
		}
		for i, x := range tj {
			uj[i] = f * x
		}
	}
	return tau
}

// threshold returns the τ > 0 with Σ_j ((a_j − τ)_+/c)^q = 1, given that the
// sum exceeds 1 at τ = 0, by Newton's method on h(τ) = S(τ)^{1/q} (see
// groupMirrorStep): h'(τ) = −S^{1/q−1}·Σ_j φ_j^{q−1}/c with φ_j = (a_j−τ)_+/c,
// so the Newton step is τ += (h − 1)·c·S/(h·Σφ_j^{q−1}).
func (m groupMap) threshold(a []float64) float64 {
	tau := 0.0
	for range 200 { // a handful suffice; 200 is a guard against a NaN loop
		s, dsum := 0.0, 0.0
		for _, aj := range a {
			if aj > tau {
				phi := (aj - tau) / m.c
				pq1 := math.Pow(phi, m.q-1)
				s += pq1 * phi
				dsum += pq1
			}
		}
		h := math.Pow(s, 1/m.q)
		if !(h > 1) || dsum == 0 {
			return tau
		}
		next := tau + (h-1)*m.c*s/(h*dsum)
		if !(next > tau) {
			return tau
		}
		tau = next
	}
	return tau
}

// groupPaper is the Paper schedule of GroupMirror: Algorithm 4 of the
// paper's appendix on any layout (groups of size one for Spins), with the
// exact update of groupMirrorStep. The comments give the algorithm's line
// numbers (algorithm2e numbers the "end" lines too).
//
// Line 2, x̂ = x·W21, is not materialised: with w = W21·u, ⟨u, x̂⟩ = ⟨w, x⟩
// and the gradient of line 7 is W21·∇L(w). Line 4 starts at the constant
// point 1/(n√k) (‖u‖_{2,1} = 1, on the boundary) when w = 0, the learners'
// start; any other warm start (already scaled into the ball) starts at
// u = w/W21, which the map allows since Φ is finite and differentiable on
// the whole ball.
//
// By the mirror descent bound (Bubeck, Theorem 4.2, with a general step and
// start), L(w̄) − L* ≤ D/(γT) + γG²/2, where G = W21·max_m ‖x_m‖_{2,∞} bounds
// ‖∇_u L‖_{2,∞} and D = D_Φ(u*, u¹) is the Bregman divergence from the
// start, for a Φ that is 1-strongly convex for ‖·‖_{2,1} on the unit ball
// (Ben-Tal and Nemirovski, Section 5.3.3.3). Algorithm 4's start is not the
// minimiser of Φ, so D ≤ Φ(u*) + ‖∇Φ(u¹)‖_{2,∞}·‖u* − u¹‖_{2,1}
// ≤ c/p + 2c·n^{1−p} (= c/p + 2c/e for n ≥ 3). With the step of line 5 and
// ‖x_m‖_{2,∞} = 1 (one-hot rows, ±1 rows) the bound is
// W21·√(c/T)·(2D/c + 1/4), the O(1)·W21·√(ln n / T) of Lemma 4.
func groupPaper[F solve.Layout](ctx context.Context, p *solve.Problem[F], w []float64, run mdRun) (solve.Stats, error) {
	d, n, gs := p.X.Dim(), p.X.Len(), p.X.GroupSize()
	ng := d / gs
	gm := newGroupMap(ng)
	w21 := p.Radius
	steps := run.iters
	buf := make([]float64, 4*d+ng+2*n)
	take := func(k int) []float64 { s := buf[:k:k]; buf = buf[k:]; return s }
	u, theta, avg, g := take(d), take(d), take(d), take(d)
	scratch := take(ng)
	mu, r := take(n), take(n)

	// Line 4.
	zero := true
	for _, x := range w {
		zero = zero && x == 0
	}
	for j := range u {
		if zero {
			u[j] = 1 / (float64(ng) * math.Sqrt(float64(gs)))
		} else {
			u[j] = w[j] / w21
		}
	}
	// Line 5 (c = e ln n for n ≥ 3).
	gamma := 1 / (2 * w21) * math.Sqrt(gm.c/float64(steps))

	for t := 1; t <= steps; t++ {
		if t%engine.CtxEvery == 0 {
			if err := ctx.Err(); err != nil {
				for j := range w {
					w[j] = w21 * u[j]
				}
				return solve.Stats{Iterations: t - 1, Gap: math.Inf(1)}, err
			}
		}
		// Line 10 sums w^1, ..., w^T.
		for j, x := range u {
			avg[j] += x
		}
		// Line 7: the gradient in u is W21·∇L(W21·u).
		for j := range w {
			w[j] = w21 * u[j]
		}
		p.X.Margins(mu, w)
		engine.LogisticResiduals(r, nil, mu, p.Y, run.cw)
		p.X.Gradient(g, r)
		// Line 8: θ = ∇Φ(u^t) − γ g^t, then the exact constrained update.
		gm.gradient(theta, u, gs)
		for j := range theta {
			theta[j] -= gamma * w21 * g[j]
		}
		gm.groupMirrorStep(u, theta, gs, scratch)
	}
	// Line 10: w̄ = (Σ_t u^t / T)·W21.
	for j := range w {
		w[j] = avg[j] / float64(steps) * w21
	}
	loss := solve.Evaluate(p, w, g, mu, r)
	gap := solve.Gap(g, w, gs, p.Radius)
	return solve.Stats{Iterations: steps, Loss: loss, Gap: gap, Converged: gap <= p.Tol}, nil
}

// groupGeometry is the map of Algorithm 4: Φ(u) = (c/p)·Σ_j ‖u_j‖^p on the
// unit l2,1 ball, w = R·u (groupMap; groups of size one give the l1 ball).
type groupGeometry struct {
	gm         groupMap
	gs         int
	r          float64
	u, un      []float64
	grad, th   []float64
	scratch    []float64
	phiU, phiN float64
}

func newGroupGeometry(w []float64, gs int, r float64) *groupGeometry {
	d := len(w)
	g := &groupGeometry{
		gm: newGroupMap(d / gs), gs: gs, r: r,
		u: make([]float64, d), un: make([]float64, d),
		grad: make([]float64, d), th: make([]float64, d), scratch: make([]float64, d/gs),
	}
	for j, x := range w {
		g.u[j] = x / r
	}
	g.phiU = g.phi(g.u)
	return g
}

func (g *groupGeometry) phi(u []float64) float64 {
	s := 0.0
	for j := 0; j < len(u); j += g.gs {
		ss := 0.0
		for _, x := range u[j : j+g.gs] {
			ss += x * x
		}
		s += math.Pow(ss, g.gm.p/2)
	}
	return g.gm.c / g.gm.p * s
}

func (g *groupGeometry) size() int               { return len(g.u) }
func (g *groupGeometry) linear(dst []float64)    { copy(dst, g.u) }
func (g *groupGeometry) setLinear(src []float64) { copy(g.u, src); g.phiU = g.phi(g.u) }

func (g *groupGeometry) toW(w, u []float64) {
	for j, x := range u {
		w[j] = g.r * x
	}
}

// propose is line 8 of Algorithm 4 with step γ: the exact
// argmin_{‖u'‖_{2,1} ≤ 1} Φ(u') − ⟨∇Φ(u) − γ·R·g, u'⟩ of groupMirrorStep;
// the divergence is D_Φ(u', u) = Φ(u') − Φ(u) − ⟨∇Φ(u), u' − u⟩.
func (g *groupGeometry) propose(lin, grad []float64, gamma float64) float64 {
	g.gm.gradient(g.grad, g.u, g.gs)
	for j := range g.th {
		g.th[j] = g.grad[j] - gamma*g.r*grad[j]
	}
	g.gm.groupMirrorStep(g.un, g.th, g.gs, g.scratch)
	g.phiN = g.phi(g.un)
	div := g.phiN - g.phiU
	for j := range g.un {
		div -= g.grad[j] * (g.un[j] - g.u[j])
	}
	copy(lin, g.un)
	return max(div, 0)
}

func (g *groupGeometry) accept() {
	g.u, g.un = g.un, g.u
	g.phiU = g.phiN
}
