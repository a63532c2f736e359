package pairwise

import (
	"context"
	"errors"
	"math"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/solve"
)

// EntropicMirror is the simplex-entropy mirror descent of Algorithm 3 for the
// l1-constrained regressions of the Ising path. Its zero value runs the
// Adaptive schedule.
//
// With the Paper schedule it is Algorithm 3 line by line: the doubling trick
// maps the l1 ball of radius W1 = Radius onto the simplex Δ_{2d+1}
// (x̂ = [x, −x, 0]·W1), the negative entropy is the mirror map, the
// projection is a normalisation, the step is γ = (1/(2W1))·√(2 ln(2d+1)/T),
// and the result is the averaged iterate mapped back,
// w̄ = (v̄_{1:d} − v̄_{d+1:2d})·W1. See Schedule for Adaptive.
//
// The l2,1 problems of the pairwise path (k > 2) are outside its reach:
// SolveOneHot returns an error unless the groups have size one, and the
// learners refuse it on the pairwise path before any fit, with an
// OptionError for WithSolver.
//
// An EntropicMirror holds only its settings; it is safe for concurrent use,
// each call allocating its own buffers.
type EntropicMirror struct {
	// Schedule is Adaptive (the zero value) or Paper.
	Schedule Schedule
	// T is the number of iterations of the Paper schedule; zero means
	// the solver's MaxIterations.
	T int
}

var _ Solver = EntropicMirror{}

// isEntropic reports whether b is an EntropicMirror, which the pairwise
// path cannot use (newRun refuses it up front).
func isEntropic(b Solver) bool {
	switch b.(type) {
	case EntropicMirror, *EntropicMirror:
		return true
	}
	return false
}

// errEntropicGroups is returned by EntropicMirror.SolveOneHot for k > 1.
var errEntropicGroups = errors.New("pairwise: EntropicMirror solves the l1 problems of the Ising path; use GroupMirror for l2,1 (k > 2)")

// SolveSpins solves an l1-constrained problem: Algorithm 3 with the Paper
// schedule, its entropic map with adaptive steps with Adaptive (see
// Schedule).
//
// w is the warm start and receives the solution; p is not modified. w is
// read as a point of the l1 ball: an infeasible w is first scaled onto the
// ball. A w whose certificate is already below Tol is returned at once
// (Adaptive). Otherwise w = 0 gives Algorithm 3's uniform start, and any
// other w enters as the simplex point that represents it, mixed with the
// uniform point by weight 1 − ‖w‖₁/R ≥ 1/2 (w is first shrunk to half the
// radius if needed), so that every coordinate stays positive. The problem is
// validated
// first: a nil p, a radius that is not finite and positive, a negative or
// NaN Tol, a negative MaxIter, a layout whose shape does not match Y, C or
// w, non-finite features, labels other than ±1, negative or non-finite
// weights, and non-finite entries of w are errors, and w is left as it was.
// A problem without rows (or whose weights are all zero) has the constant
// loss 0: w is set to 0 and the Stats report Loss 0, Gap 0, Converged true.
// Once ctx is done, SolveSpins returns ctx.Err() within a few iterations,
// leaving the current feasible iterate in w. Reaching MaxIter (or T) is not
// an error: the Stats say Converged false.
func (e EntropicMirror) SolveSpins(ctx context.Context, p *solve.Problem[solve.Spins], w []float64) (solve.Stats, error) {
	return solveEntropic(ctx, e, p, w)
}

// SolveOneHot solves a one-hot problem whose groups have size one (K = 1),
// which is an l1 problem, as SolveSpins does. For K > 1 the constraint is
// the l2,1 norm, which this backend does not handle: it returns an error
// (use GroupMirror).
func (e EntropicMirror) SolveOneHot(ctx context.Context, p *solve.Problem[solve.OneHot], w []float64) (solve.Stats, error) {
	if p != nil && p.X.GroupSize() != 1 {
		return solve.Stats{}, errEntropicGroups
	}
	return solveEntropic(ctx, e, p, w)
}

// String returns the backend's name, followed by its settings unless they are
// the defaults: "EntropicMirror", "EntropicMirror{Schedule: Paper, T: 1000}".
func (e EntropicMirror) String() string { return backendString("EntropicMirror", e.Schedule, e.T) }

func (e EntropicMirror) spinsSolver() solve.Solver[solve.Spins] {
	return solve.Func[solve.Spins](e.SolveSpins)
}
func (e EntropicMirror) oneHotSolver() solve.Solver[solve.OneHot] {
	return solve.Func[solve.OneHot](e.SolveOneHot)
}

// solveEntropic is EntropicMirror for either layout.
func solveEntropic[F solve.Layout](ctx context.Context, e EntropicMirror, p *solve.Problem[F], w []float64) (solve.Stats, error) {
	return solveMirror(ctx, "EntropicMirror", e.Schedule, e.T, p, w, entropicPaper[F],
		func() mirrorGeometry { return newEntropicGeometry(w, p.Radius) })
}

// entropicPaper is the Paper schedule of EntropicMirror: Algorithm 3 of the
// paper's appendix ("Mirror descent algorithms for constrained logistic
// regression"), on any layout whose constraint is the l1 norm. The comments
// give the algorithm's line numbers (algorithm2e numbers the "end" lines
// too: line 3 ends the first loop, line 10 the second).
//
// Line 2, the doubling trick x̂ = [x, −x, 0]·W1, is not materialised: for v
// in the simplex Δ_{2d+1}, ⟨v, x̂⟩ = ⟨w, x⟩ with w = W1·(v_{1:d} − v_{d+1:2d})
// (line 12's map), so the gradient of line 7 is W1·[g, −g, 0] with g = ∇L(w);
// and (σ(⟨v, x̂⟩) − ŷ) is the residual −y σ(−y⟨w, x⟩) (times the row weight
// ĉ_m, which is 1/N in the paper) of logisticResiduals.
//
// The multiplicative update and normalisation of lines 8–9 are kept in the
// log domain: v^{t+1} ∝ v^t ⊙ exp(−γ g^t) means v^{t+1} = softmax(η^{t+1})
// with η^{t+1} = η^t − γ g^t, which is the same iterate without the
// underflow of a coordinate that is multiplied down over many steps, and
// every coordinate stays strictly positive.
//
// Line 4 starts at the uniform point, which is the image of w = 0. A warm
// start w ≠ 0 enters as v = [w⁺, w⁻, 0]/W1 + (1 − s)·uniform with
// s = ‖w‖₁/W1, the point of the simplex that represents w and is mixed with
// the uniform point by weight 1 − s; if s > 1/2, w is first shrunk to
// s = 1/2, so every coordinate is at least 1/(2(2d+1)) and the Bregman
// radius of Lemma 4 grows from ln(2d+1) to at most ln(2(2d+1)).
func entropicPaper[F solve.Layout](ctx context.Context, p *solve.Problem[F], w []float64, run mdRun) (solve.Stats, error) {
	d, n := p.X.Dim(), p.X.Len()
	w1 := p.Radius
	steps := run.iters
	nv := 2*d + 1
	buf := make([]float64, 3*nv+d+2*n)
	take := func(k int) []float64 { s := buf[:k:k]; buf = buf[k:]; return s }
	v, eta, avg := take(nv), take(nv), take(nv)
	g := take(d)
	u, r := take(n), take(n)

	// Line 4 (uniform for w = 0) with the warm start mixed in.
	entropicStart(v, w, w1)
	for i, x := range v {
		eta[i] = math.Log(x)
	}
	// Line 5: the step of Algorithm 3, in the rescaled coordinates.
	gamma := 1 / (2 * w1) * math.Sqrt(2*math.Log(float64(nv))/float64(steps))

	for t := 1; t <= steps; t++ {
		if t%engine.CtxEvery == 0 {
			if err := ctx.Err(); err != nil {
				entropicPoint(w, v, w1)
				return solve.Stats{Iterations: t - 1, Gap: math.Inf(1)}, err
			}
		}
		// Line 11 sums w^1, ..., w^T.
		for i, x := range v {
			avg[i] += x
		}
		// Line 7: g^t = W1·[∇L, −∇L, 0] at the current point.
		entropicPoint(w, v, w1)
		p.X.Margins(u, w)
		engine.LogisticResiduals(r, nil, u, p.Y, run.cw)
		p.X.Gradient(g, r)
		// Lines 8–9: coordinate-wise update and normalisation.
		top := math.Inf(-1)
		for j, gj := range g {
			eta[j] -= gamma * w1 * gj
			eta[d+j] += gamma * w1 * gj
			top = max(top, eta[j], eta[d+j])
		}
		top = max(top, eta[2*d])
		sum := 0.0
		for i, e := range eta {
			eta[i] = e - top // softmax is invariant to the shift; keeps η bounded
			v[i] = math.Exp(eta[i])
			sum += v[i]
		}
		for i := range v {
			v[i] /= sum
		}
	}
	// Lines 11–12: w̄ = (v̄_{1:d} − v̄_{d+1:2d})·W1 with v̄ the average.
	for j := range w {
		w[j] = (avg[j] - avg[d+j]) / float64(steps) * w1
	}
	loss := solve.Evaluate(p, w, g, u, r)
	gap := solve.Gap(g, w, 1, p.Radius)
	return solve.Stats{Iterations: steps, Loss: loss, Gap: gap, Converged: gap <= p.Tol}, nil
}

// entropicStart sets v ∈ Δ_{2d+1} to Algorithm 3's start for the warm start
// w (line 4's uniform point when w = 0): the simplex point that represents w
// mixed with the uniform point by weight 1 − ‖w‖₁/W1, after shrinking w to
// ‖w‖₁ ≤ W1/2, so that every coordinate is at least 1/(2(2d+1)).
func entropicStart(v, w []float64, w1 float64) {
	d := len(w)
	s := solve.Norm(w, 1) / w1
	if s > 0.5 {
		for j := range w {
			w[j] *= 0.5 / s
		}
		s = 0.5
	}
	base := (1 - s) / float64(2*d+1)
	for j, x := range w {
		v[j] = max(x, 0)/w1 + base
		v[d+j] = max(-x, 0)/w1 + base
	}
	v[2*d] = base
}

// entropicPoint sets w = W1·(v_{1:d} − v_{d+1:2d}), the point of the l1 ball
// that v ∈ Δ_{2d+1} represents (Algorithm 3, line 12).
func entropicPoint(w, v []float64, w1 float64) {
	d := len(w)
	for j := range w {
		w[j] = w1 * (v[j] - v[d+j])
	}
}

// entropicGeometry is the map of Algorithm 3: the negative entropy on the
// simplex Δ_{2d+1}, reached from the l1 ball of radius R by the doubling trick
// w = R·(v_{1:d} − v_{d+1:2d}). The state is kept as log v (see
// entropicPaper), so the mirror steps never underflow.
type entropicGeometry struct {
	d      int
	r      float64
	lv, ln []float64 // log v of z and of the candidate (normalised)
}

func newEntropicGeometry(w []float64, r float64) *entropicGeometry {
	d := len(w)
	nv := 2*d + 1
	e := &entropicGeometry{d: d, r: r, lv: make([]float64, nv), ln: make([]float64, nv)}
	// The warm start enters as in entropicPaper.
	entropicStart(e.lv, w, r)
	for i, x := range e.lv {
		e.lv[i] = math.Log(x)
	}
	return e
}

func (e *entropicGeometry) size() int { return 2*e.d + 1 }

func (e *entropicGeometry) linear(dst []float64) {
	for i, x := range e.lv {
		dst[i] = math.Exp(x)
	}
}

func (e *entropicGeometry) setLinear(src []float64) {
	sum := 0.0
	for _, x := range src {
		sum += x
	}
	for i, x := range src {
		// A convex combination of positive points is positive; the
		// floor only guards against underflow.
		e.lv[i] = math.Log(max(x/sum, math.SmallestNonzeroFloat64))
	}
}

func (e *entropicGeometry) toW(w, v []float64) {
	d := e.d
	for j := range w {
		w[j] = e.r * (v[j] - v[d+j])
	}
}

// propose is lines 8–9 of Algorithm 3 with step γ: log v' = log v − γ·ĝ with
// ĝ = R·[g, −g, 0], normalised; the divergence is KL(v'‖v).
func (e *entropicGeometry) propose(lin, g []float64, gamma float64) float64 {
	d := e.d
	top := math.Inf(-1)
	for j, gj := range g {
		e.ln[j] = e.lv[j] - gamma*e.r*gj
		e.ln[d+j] = e.lv[d+j] + gamma*e.r*gj
		top = max(top, e.ln[j], e.ln[d+j])
	}
	e.ln[2*d] = e.lv[2*d]
	top = max(top, e.ln[2*d])
	sum := 0.0
	for _, x := range e.ln {
		sum += math.Exp(x - top)
	}
	shift := top + math.Log(sum)
	kl := 0.0
	for i := range e.ln {
		e.ln[i] -= shift
		lin[i] = math.Exp(e.ln[i])
		kl += lin[i] * (e.ln[i] - e.lv[i])
	}
	return max(kl, 0)
}

func (e *entropicGeometry) accept() { e.lv, e.ln = e.ln, e.lv }
