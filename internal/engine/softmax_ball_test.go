package engine

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// projectGroupsRef is an implementation of the Euclidean projection onto
// the l2,1 ball independent of ProjectBall: the group norms are projected
// onto the l1 ball by sorting (Duchi et al. 2008's rule: τ from the largest
// r with v_(r) > (Σ_{s≤r} v_(s) − R)/r), and each group is rescaled. The
// groups are the parameter blocks of par's variables other than node i,
// each of gs entries of w.
func projectGroupsRef(w []float64, n, gs, i int, radius float64) {
	norms := make([]float64, n)
	total := 0.0
	for j := 0; j < n; j++ {
		if j == i {
			continue
		}
		ss := 0.0
		for _, v := range w[j*gs : (j+1)*gs] {
			ss += v * v
		}
		norms[j] = math.Sqrt(ss)
		total += norms[j]
	}
	if total <= radius {
		return
	}
	sorted := slices.Clone(norms)
	sort.Sort(sort.Reverse(sort.Float64Slice(sorted)))
	tau, cum := 0.0, 0.0
	for r, v := range sorted {
		cum += v
		if t := (cum - radius) / float64(r+1); v > t {
			tau = t
		}
	}
	for j := 0; j < n; j++ {
		if j == i {
			continue
		}
		scale := 0.0
		if norms[j] > tau {
			scale = (norms[j] - tau) / norms[j]
		}
		for x := j * gs; x < (j+1)*gs; x++ {
			w[x] *= scale
		}
	}
}

// ballRef minimises softmaxRef over the l2,1 ball by accelerated projected
// gradient (FISTA with a restart whenever the objective rises), a fixed
// step 1/L with L the Gershgorin bound of the Hessian at the start
// (softmax losses have Hessians bounded by their value at any point up to
// the curvature of the log-sum-exp, ≤ 1/2 per unit of a row's feature
// norm: the bound is doubled for safety), the brute-force reference.
func ballRef(s *Rows, p *Softmax, iters int) ([]float64, float64) {
	n, k := s.N, s.K
	K := k - p.First
	par := softmaxParamsIn(n, k, p.Node, p.First, p.InputFirst)
	d := len(par)
	dim := SoftmaxDim(n, k, p.First)
	w := make([]float64, dim)
	g := make([]float64, dim)
	h := make([]float64, d*d)
	softmaxRef(s, p, w, par, g, h)
	L := 0.0
	for a := 0; a < d; a++ {
		row := 0.0
		for b := 0; b < d; b++ {
			row += math.Abs(h[a*d+b])
		}
		L = math.Max(L, row)
	}
	L *= 2
	y := slices.Clone(w)
	prev := slices.Clone(w)
	t := 1.0
	fPrev := math.Inf(1)
	for it := 0; it < iters; it++ {
		softmaxRef(s, p, y, par, g, nil)
		copy(prev, w)
		for _, x := range par {
			w[x] = y[x] - g[x]/L
		}
		projectGroupsRef(w, n, k*K, p.Node, p.Radius)
		f := softmaxRef(s, p, w, par, g, nil)
		if f > fPrev {
			t = 1 // restart the momentum
			copy(y, w)
			fPrev = f
			continue
		}
		fPrev = f
		tNext := (1 + math.Sqrt(1+4*t*t)) / 2
		for _, x := range par {
			y[x] = w[x] + (t-1)/tNext*(w[x]-prev[x])
		}
		t = tNext
	}
	return w, softmaxRef(s, p, w, par, g, nil)
}

// TestSoftmaxBallMatchesReference checks the constrained softmax fit
// against ballRef on tiny problems, at radii that cut the unconstrained
// minimiser's l2,1 norm to a half and to a tenth (so the constraint is
// active): the coefficients agree to 1e-6, the fit lies in the ball, and
// its certificate bounds its true suboptimality against the reference's
// objective. Both are solved to the last digits of F (gap 1e-15): F is
// μ-strongly convex with μ = min(ρ, ρ_h)/C ≥ 0.018 here (100 rows), so a
// difference of a few ulp of F moves the coefficients by at most
// √(2·1e-15/μ) ≈ 3e-7; they agreed to 7e-8 or better when written. A group size of k·K' = 420 (k = 21, the sparse rows) and of
// 12 and 9 (the dense codes) are covered, and a case with the gap's
// couplings held at zero (InputFirst = 1, the reference restricted to the
// other coordinates: the certificate's conjugate then reads only theirs).
// Seconds of single-goroutine reference iterations: skipped under the
// race detector.
func TestSoftmaxBallMatchesReference(t *testing.T) {
	skipUnderRace(t)
	for _, tc := range []struct {
		n, k, first, i int
		rho            float64
		iters, in      int
	}{{3, 4, 1, 1, 2, 20000, 0}, {4, 4, 1, 0, 4, 20000, 0}, {4, 3, 0, 2, 2, 20000, 0}, {3, 21, 1, 0, 4, 5000, 0}, {4, 4, 1, 2, 2, 20000, 1}} {
		s := weightedChain(tc.n, tc.k, 100, 11)
		if tc.in > 0 {
			s = gappyChain(tc.n, tc.k, 100, 11)
		}
		p := &Softmax{Node: tc.i, First: tc.first, Ridge: tc.rho, FieldRidge: 2, Tol: 1e-15, MaxIter: 20000, InputFirst: tc.in}
		e := testEngine(s, false, p.Tol, new(Work))
		free := make([]float64, SoftmaxDim(tc.n, tc.k, tc.first))
		if _, err := e.FitSoftmax(context.Background(), p, free); err != nil {
			t.Fatal(err)
		}
		norm := SoftmaxGroupNorm(free, tc.n, tc.k, tc.first, tc.i)
		for _, frac := range []float64{0.5, 0.1} {
			p.Radius = frac * norm
			ref, fRef := ballRef(s, p, tc.iters)
			w := make([]float64, len(free))
			st, err := e.FitSoftmax(context.Background(), p, w)
			if err != nil || !st.Converged {
				t.Fatalf("%+v at %g of the norm: %+v, %v", tc, frac, st, err)
			}
			if got := SoftmaxGroupNorm(w, tc.n, tc.k, tc.first, tc.i); got > p.Radius*(1+1e-12) {
				t.Errorf("%+v at %g: ‖W‖_{2,1} = %v outside the radius %v", tc, frac, got, p.Radius)
			}
			par := softmaxParamsIn(tc.n, tc.k, tc.i, tc.first, tc.in)
			f := softmaxRef(s, p, w, par, make([]float64, len(w)), nil)
			if f-fRef > st.Gap+1e-12 {
				t.Errorf("%+v at %g: F(ŵ) − F(reference) = %.3g exceeds the certificate %.3g", tc, frac, f-fRef, st.Gap)
			}
			if d := maxDiff(w, ref); d > 1e-6 {
				t.Errorf("%+v at %g: coefficients differ from the reference by %.3g (F %v, reference %v, gap %.3g)", tc, frac, d, f, fRef, st.Gap)
			}
			// The same radius set by Shrink, from the unconstrained fit
			// inside FitSoftmax.
			q := *p
			q.Radius, q.Shrink = 0, frac
			clear(w)
			if st, err := e.FitSoftmax(context.Background(), &q, w); err != nil || !st.Converged {
				t.Fatalf("%+v shrink %g: %+v, %v", tc, frac, st, err)
			}
			if d := maxDiff(w, ref); d > 1e-6 {
				t.Errorf("%+v shrink %g: coefficients differ from the reference by %.3g", tc, frac, d)
			}
		}
	}
}

// TestSoftmaxBallLimits checks the constraint's two ends: a radius beyond
// the unconstrained minimiser's norm (and 0 or +Inf, no constraint) leaves
// the fit bit-identical to the unconstrained one; a tiny radius keeps one
// group, that of the partner whose loss gradient is largest at the fields
// alone (the first-order optimality of the linear term over the ball), in
// the direction opposite to that gradient.
func TestSoftmaxBallLimits(t *testing.T) {
	const n, k, first, i = 6, 5, 1, 2
	s := weightedChain(n, k, 400, 7)
	p := &Softmax{Node: i, First: first, Ridge: 2, FieldRidge: 1, Tol: 1e-10, MaxIter: 5000}
	e := testEngine(s, false, p.Tol, new(Work))
	dim := SoftmaxDim(n, k, first)
	free := make([]float64, dim)
	stFree, err := e.FitSoftmax(context.Background(), p, free)
	if err != nil || !stFree.Converged {
		t.Fatal(stFree, err)
	}
	norm := SoftmaxGroupNorm(free, n, k, first, i)
	for _, r := range []float64{0, math.Inf(1), 1.5 * norm} {
		q := *p
		q.Radius = r
		w := make([]float64, dim)
		st, err := e.FitSoftmax(context.Background(), &q, w)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(w, free) || st != stFree {
			t.Errorf("radius %v: the fit differs from the unconstrained one (%+v against %+v)", r, st, stFree)
		}
	}
	for _, r := range []float64{math.NaN(), -1} {
		q := *p
		q.Radius = r
		if _, err := e.FitSoftmax(context.Background(), &q, make([]float64, dim)); err == nil {
			t.Errorf("radius %v: no error", r)
		}
	}
	for _, f := range []float64{math.NaN(), -0.5, 1, 2} {
		q := *p
		q.Shrink = f
		if _, err := e.FitSoftmax(context.Background(), &q, make([]float64, dim)); err == nil {
			t.Errorf("shrink %v: no error", f)
		}
	}
	q := *p
	q.Radius = 1e-7
	w := make([]float64, dim)
	st, err := e.FitSoftmax(context.Background(), &q, w)
	if err != nil || !st.Converged {
		t.Fatal(st, err)
	}
	// The loss gradient at the fields alone (couplings zeroed).
	gs := k * (k - first)
	w0 := make([]float64, dim)
	copy(w0[i*gs:i*gs+k-first], w[i*gs:i*gs+k-first])
	par := softmaxParams(n, k, i, first)
	g := make([]float64, dim)
	softmaxRef(s, &q, w0, par, g, nil)
	best, bestNorm := -1, 0.0
	for j := 0; j < n; j++ {
		if j == i {
			continue
		}
		if v := math.Sqrt(dot(g[j*gs:(j+1)*gs], g[j*gs:(j+1)*gs])); v > bestNorm {
			best, bestNorm = j, v
		}
	}
	for j := 0; j < n; j++ {
		if j == i {
			continue
		}
		blk := w[j*gs : (j+1)*gs]
		nj := math.Sqrt(dot(blk, blk))
		if j != best {
			if nj > 1e-12 {
				t.Errorf("tiny radius: group %d (not the largest gradient's, %d) has norm %.3g", j, best, nj)
			}
			continue
		}
		if math.Abs(nj-q.Radius) > 1e-9*q.Radius {
			t.Errorf("tiny radius: active group's norm %v, radius %v", nj, q.Radius)
		}
		if cos := -dot(blk, g[j*gs:(j+1)*gs]) / (nj * bestNorm); cos < 1-1e-6 {
			t.Errorf("tiny radius: the active group's direction has cosine %v with −gradient", cos)
		}
	}
}

// TestSoftmaxBallGap checks the constrained certificate at random feasible
// points: it is at least the true suboptimality F(w) − F* (F* from the
// converged fit, itself certified to 1e-12) and equals the unconstrained
// gap when the gradient's scaled group norms fit in the ball (τ = 0).
func TestSoftmaxBallGap(t *testing.T) {
	const n, k, first, i = 5, 4, 1, 3
	s := weightedChain(n, k, 300, 5)
	p := &Softmax{Node: i, First: first, Ridge: 3, FieldRidge: 1, Tol: 1e-12, MaxIter: 20000}
	e := testEngine(s, false, p.Tol, new(Work))
	dim := SoftmaxDim(n, k, first)
	free := make([]float64, dim)
	if _, err := e.FitSoftmax(context.Background(), p, free); err != nil {
		t.Fatal(err)
	}
	p.Radius = 0.4 * SoftmaxGroupNorm(free, n, k, first, i)
	opt := make([]float64, dim)
	st, err := e.FitSoftmax(context.Background(), p, opt)
	if err != nil || !st.Converged {
		t.Fatal(st, err)
	}
	fStar := st.Objective
	ws := e.Work.sm
	r := rand.New(rand.NewPCG(9, 9))
	par := softmaxParams(n, k, i, first)
	g := make([]float64, dim)
	for trial := 0; trial < 20; trial++ {
		w := make([]float64, dim)
		for _, x := range par {
			w[x] = opt[x] + 0.3*r.NormFloat64()
		}
		ws.projectBall(w, i, k, k-first, p.Radius)
		f, gapFree := e.softmaxEval(p, w, g, ws, st.Weight)
		gap := softmaxBallGap(p, f, ws.grad, ws.ent, st.Weight, n, k, ws.norms)
		if f-fStar > gap+1e-12 {
			t.Errorf("trial %d: F − F* = %.3g above the gap %.3g", trial, f-fStar, gap)
		}
		if gap > gapFree+1e-12 {
			t.Errorf("trial %d: constrained gap %.3g above the unconstrained %.3g", trial, gap, gapFree)
		}
	}
	// A radius the scaled gradient norms fit in: the two gaps agree.
	q := *p
	q.Radius = 1e9
	f, gapFree := e.softmaxEval(&q, opt, g, ws, st.Weight)
	if gap := softmaxBallGap(&q, f, ws.grad, ws.ent, st.Weight, n, k, ws.norms); math.Abs(gap-gapFree) > 1e-12 {
		t.Errorf("inactive: constrained gap %v, unconstrained %v", gap, gapFree)
	}
}
