package engine

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// softmaxRef is an implementation of the softmax regression's objective
// independent of the engine's tables: explicit loops over rows, variables
// and classes, with the parameters indexed as in softmax.go. It returns F
// and fills g (∇F) and, when h is not nil, the dense Hessian over the
// parameters par (the indices of w that are parameters).
func softmaxRef(s *Rows, p *Softmax, w []float64, par []int, g, h []float64) float64 {
	n, k, i, first := s.N, s.K, p.Node, p.First
	K := k - first
	clear(g)
	if h != nil {
		clear(h)
	}
	pos := make(map[int]int, len(par))
	for x, v := range par {
		pos[v] = x
	}
	C, loss := 0.0, 0.0
	u := make([]float64, K)
	pr := make([]float64, K)
	idx := make([]int, n) // the coupling row each variable reads in this row
	for m := 0; m < s.Count; m++ {
		z := s.States[m*n : (m+1)*n]
		y := int(z[i]) - first
		c := s.Weight(m)
		if y < 0 || c <= 0 {
			continue
		}
		C += c
		for j := 0; j < n; j++ {
			a := int(z[j])
			if j == i {
				a = 0
			}
			idx[j] = (j*k + a) * K
		}
		for cl := 0; cl < K; cl++ {
			u[cl] = 0
			for j := 0; j < n; j++ {
				u[cl] += w[idx[j]+cl]
			}
		}
		mx := math.Inf(-1)
		for _, v := range u {
			mx = math.Max(mx, v)
		}
		zs := 0.0
		for cl, v := range u {
			pr[cl] = math.Exp(v - mx)
			zs += pr[cl]
		}
		for cl := range pr {
			pr[cl] /= zs
		}
		loss += c * (math.Log(zs) + mx - u[y])
		for j := 0; j < n; j++ {
			for cl := 0; cl < K; cl++ {
				r := pr[cl]
				if cl == y {
					r--
				}
				g[idx[j]+cl] += c * r
			}
		}
		if h != nil {
			d := len(par)
			for j1 := 0; j1 < n; j1++ {
				for c1 := 0; c1 < K; c1++ {
					a, ok := pos[idx[j1]+c1]
					if !ok {
						continue // not a parameter (InputFirst)
					}
					for j2 := 0; j2 < n; j2++ {
						for c2 := 0; c2 < K; c2++ {
							b, ok := pos[idx[j2]+c2]
							if !ok {
								continue
							}
							v := -pr[c1] * pr[c2]
							if c1 == c2 {
								v += pr[c1]
							}
							h[a*d+b] += c * v
						}
					}
				}
			}
		}
	}
	pen := 0.0
	for _, x := range par {
		r := p.Ridge
		if x/K/k == i {
			r = p.FieldRidge
		}
		pen += r * w[x] * w[x]
		g[x] += r * w[x]
		if h != nil {
			h[pos[x]*len(par)+pos[x]] += r
		}
	}
	for x := range g {
		g[x] /= C
	}
	for x := range h {
		h[x] /= C
	}
	return (loss + pen/2) / C
}

// softmaxParams lists the indices of w that are parameters: every coupling
// row of the other variables, and the node's state-0 row (the fields).
func softmaxParams(n, k, i, first int) []int {
	return softmaxParamsIn(n, k, i, first, 0)
}

// softmaxParamsIn is softmaxParams without the coupling rows of the states
// below in (Softmax.InputFirst): the restricted problem's parameters, the
// other coordinates of w removed from it (held at zero).
func softmaxParamsIn(n, k, i, first, in int) []int {
	K := k - first
	var par []int
	for j := 0; j < n; j++ {
		for a := 0; a < k; a++ {
			if j == i && a != 0 || j != i && a < in {
				continue
			}
			for c := 0; c < K; c++ {
				par = append(par, (j*k+a)*K+c)
			}
		}
	}
	return par
}

// newtonSoftmax minimises softmaxRef by dense Newton steps (Gaussian
// elimination), the brute-force reference minimiser.
func newtonSoftmax(s *Rows, p *Softmax) ([]float64, float64) {
	n, k := s.N, s.K
	par := softmaxParamsIn(n, k, p.Node, p.First, p.InputFirst)
	d := len(par)
	w := make([]float64, SoftmaxDim(n, k, p.First))
	g := make([]float64, len(w))
	h := make([]float64, d*d)
	for step := 0; step < 30; step++ {
		softmaxRef(s, p, w, par, g, h)
		gp := make([]float64, d)
		for x, q := range par {
			gp[x] = g[q]
		}
		v := denseNewtonStep(h, gp, d)
		for x, q := range par {
			w[q] += v[x]
		}
	}
	return w, softmaxRef(s, p, w, par, g, nil)
}

// weightedChain is chainRows with random weights in (0.2, 2] and, with
// gap, a fifth of node i's states set to 0 (rows the fit leaves out when
// First = 1).
func weightedChain(n, k, count int, seed uint64) *Rows {
	s := chainRows(n, k, count, 0.5, seed)
	r := rand.New(rand.NewPCG(seed, 99))
	s.Weights = make([]float64, s.Count)
	for m := range s.Weights {
		s.Weights[m] = 0.2 + 1.8*r.Float64()
	}
	return s
}

// TestSoftmaxGradient checks the table kernels' objective and gradient
// against softmaxRef at random points, and softmaxRef's gradient against
// central finite differences, for group sizes 1 (k = 21), 2 (k = 9) and 4
// (k = 4, one group holding the node itself).
func TestSoftmaxGradient(t *testing.T) {
	for _, tc := range []struct{ n, k, first, i int }{{3, 21, 1, 1}, {5, 9, 1, 2}, {4, 4, 1, 0}, {5, 3, 0, 4}} {
		s := weightedChain(tc.n, tc.k, 300, 3)
		e := testEngine(s, false, 1e-8, new(Work))
		p := &Softmax{Node: tc.i, First: tc.first, Ridge: 2, FieldRidge: 0.5, Tol: 1e-9, MaxIter: 0}
		dim := SoftmaxDim(tc.n, tc.k, tc.first)
		w := make([]float64, dim)
		st, err := e.FitSoftmax(context.Background(), p, w)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(5, uint64(tc.k)))
		par := softmaxParams(tc.n, tc.k, tc.i, tc.first)
		for x := range w {
			w[x] = 0
		}
		for _, x := range par {
			w[x] = r.NormFloat64()
		}
		g := make([]float64, dim)
		f, gap := e.softmaxEval(p, w, g, e.Work.sm, st.Weight)
		gRef := make([]float64, dim)
		fRef := softmaxRef(s, p, w, par, gRef, nil)
		if math.Abs(f-fRef) > 1e-10*math.Max(1, math.Abs(fRef)) {
			t.Errorf("%+v: F %v, reference %v", tc, f, fRef)
		}
		if d := maxDiff(g, gRef); d > 1e-10 {
			t.Errorf("%+v: gradient differs from the reference by %.3g", tc, d)
		}
		if !(gap >= 0) {
			t.Errorf("%+v: negative gap %v", tc, gap)
		}
		// Finite differences of the reference (step 1e-5: error O(h²)
		// of a function whose third derivatives are O(1)).
		const hstep = 1e-5
		tmp := make([]float64, dim)
		for _, x := range par[:min(len(par), 40)] {
			old := w[x]
			w[x] = old + hstep
			fp := softmaxRef(s, p, w, par, tmp, nil)
			w[x] = old - hstep
			fm := softmaxRef(s, p, w, par, tmp, nil)
			w[x] = old
			if fd := (fp - fm) / (2 * hstep); math.Abs(fd-gRef[x]) > 1e-7 {
				t.Errorf("%+v: coordinate %d: gradient %v, finite difference %v", tc, x, gRef[x], fd)
			}
		}
	}
}

// TestSoftmaxMatchesNewton checks FitSoftmax against the dense Newton
// minimiser of softmaxRef on tiny problems: the coefficients agree (the
// ridges make the minimiser unique), and the duality gap certificate bounds
// the true suboptimality F(ŵ) − F*. A single-goroutine numerical check
// whose dense Newton reference takes seconds at k = 21: skipped under the
// race detector.
func TestSoftmaxMatchesNewton(t *testing.T) {
	skipUnderRace(t)
	for _, tc := range []struct {
		n, k, first, i int
		rho            float64
	}{{3, 4, 1, 1, 1}, {4, 4, 1, 0, 8}, {4, 3, 0, 2, 0.5}, {3, 5, 1, 2, 30}, {2, 21, 1, 0, 4}} {
		s := weightedChain(tc.n, tc.k, 250, 11)
		p := &Softmax{Node: tc.i, First: tc.first, Ridge: tc.rho, FieldRidge: 0.1, Tol: 1e-12, MaxIter: 5000}
		ref, fRef := newtonSoftmax(s, p)
		for _, run := range []struct {
			tol   float64
			pairs int
		}{{1e-12, 0}, {1e-4, 0}, {1e-12, 1}, {1e-12, 50}} {
			// 1 and 50 pairs: the recursion's ring of pairs at its
			// smallest and largest.
			tol := run.tol
			p.Tol, p.Pairs = tol, run.pairs
			e := testEngine(s, false, tol, new(Work))
			w := make([]float64, SoftmaxDim(tc.n, tc.k, tc.first))
			st, err := e.FitSoftmax(context.Background(), p, w)
			if err != nil || !st.Converged {
				t.Fatalf("%+v tol %g pairs %d: %+v, %v", tc, tol, run.pairs, st, err)
			}
			par := softmaxParams(tc.n, tc.k, tc.i, tc.first)
			g := make([]float64, len(w))
			f := softmaxRef(s, p, w, par, g, nil)
			if f-fRef > st.Gap+1e-13 {
				t.Errorf("%+v tol %g: F(ŵ) − F* = %.3g exceeds the certificate %.3g", tc, tol, f-fRef, st.Gap)
			}
			// F is μ-strongly convex with μ = min(ρ, ρ_h)/C, so a gap
			// g bounds the distance to the minimiser by √(2g/μ).
			mu := math.Min(p.Ridge, p.FieldRidge) / st.Weight
			if d, bound := maxDiff(w, ref), math.Sqrt(2*st.Gap/mu)+1e-8; d > bound {
				t.Errorf("%+v tol %g: coefficients differ from the Newton minimiser by %.3g, beyond the gap's bound %.3g", tc, tol, d, bound)
			}
			if d := maxDiff(w, ref); tol == 1e-12 && d > 1e-4 {
				t.Errorf("%+v: coefficients differ from the Newton minimiser by %.3g", tc, d)
			}
		}
	}
}

// TestSoftmaxBinaryAgrees checks the softmax at k = 2 against the value
// pair regression of the engine (Driver.Fit, logistic with a ridge): with
// two classes the softmax's log-odds W(·, 0) − W(·, 1) is a logistic
// regression, and the ridge ρ on the two class columns, whose minimiser is
// W(·, 0) = −W(·, 1), weighs as ρ/2 on their difference. The fields' ridge
// is made negligible (the value pair's bias is not penalised).
func TestSoftmaxBinaryAgrees(t *testing.T) {
	const n, k, i, rho = 5, 2, 2, 6.0
	s := weightedChain(n, k, 400, 21)
	e := testEngine(s, false, 1e-12, new(Work))
	p := &Softmax{Node: i, First: 0, Ridge: rho, FieldRidge: 1e-6, Tol: 1e-11, MaxIter: 20000}
	w := make([]float64, SoftmaxDim(n, k, 0))
	if _, err := e.FitSoftmax(context.Background(), p, w); err != nil {
		t.Fatal(err)
	}
	e.Ridge = rho / 2
	e.Settings.Tol = 1e-10
	pl := e.PlanPairs(i, nil)
	task := e.Task(pl, 0)
	if a, b := pl.Pairs[0][0], pl.Pairs[0][1]; a != 0 || b != 1 {
		t.Fatalf("pair %d, %d", a, b)
	}
	lw := make([]float64, n*k)
	st, err := e.Fit(context.Background(), &task, task.C, 100, lw)
	if err != nil || !st.Converged {
		t.Fatalf("%+v, %v", st, err)
	}
	for j := 0; j < n; j++ {
		for a := 0; a < k; a++ {
			if j == i && a != 0 {
				continue
			}
			got := w[(j*k+a)*2] - w[(j*k+a)*2+1]
			if d := math.Abs(got - lw[j*k+a]); d > 1e-5 {
				t.Errorf("variable %d state %d: softmax log-odds %v, logistic %v", j, a, got, lw[j*k+a])
			}
		}
	}
}

// gappyChain is weightedChain with the state of the odd variables set to 0
// in about 3/5 of the rows, so that 0 (the gap) is those columns' most
// frequent state: the reference state of the sparse rows (k = 21) is then
// a state that InputFirst = 1 removes from the inputs.
func gappyChain(n, k, count int, seed uint64) *Rows {
	s := weightedChain(n, k, count, seed)
	r := rand.New(rand.NewPCG(seed, 7))
	for m := 0; m < s.Count; m++ {
		for j := 1; j < n; j += 2 {
			if r.Float64() < 0.6 {
				s.States[m*n+j] = 0
			}
		}
	}
	return s
}

// TestSoftmaxInputFirst checks the softmax with the couplings of the other
// variables' states below InputFirst held at zero (plmc's -g: a gap is no
// input) against the restricted problem, those coordinates removed: the
// fit against the dense Newton minimiser of softmaxRef over the remaining
// parameters (coefficients to 1e-4 at a gap of 1e-12, the removed ones
// exactly zero from a start of ones, F(ŵ) − F* within the certificate),
// and the kernels' F and gradient against softmaxRef at a random point of
// the restricted problem (the removed coordinates' gradient zero). Without
// the restricted ‖G_W‖² in the dual the gap would keep the removed
// coordinates' gradient and the fit would not converge. The odd
// variables' most frequent state is 0, so at k = 21 (sparse rows) their
// reference state is a removed one. Seconds of dense Newton at k = 21:
// skipped under the race detector.
func TestSoftmaxInputFirst(t *testing.T) {
	skipUnderRace(t)
	for _, tc := range []struct {
		n, k, first, i, in int
		rho                float64
	}{{3, 4, 1, 1, 1, 1}, {4, 4, 1, 0, 1, 8}, {4, 3, 0, 2, 1, 0.5}, {3, 5, 1, 2, 2, 3}, {3, 21, 1, 0, 1, 4}, {3, 21, 1, 1, 1, 4}} {
		s := gappyChain(tc.n, tc.k, 250, 13)
		p := &Softmax{Node: tc.i, First: tc.first, Ridge: tc.rho, FieldRidge: 0.1, Tol: 1e-12, MaxIter: 5000, InputFirst: tc.in}
		e := testEngine(s, false, p.Tol, new(Work))
		dim := SoftmaxDim(tc.n, tc.k, tc.first)
		K := tc.k - tc.first
		w := make([]float64, dim)
		for x := range w {
			w[x] = 1 // the fit must clear the removed coordinates of its start
		}
		st, err := e.FitSoftmax(context.Background(), p, w)
		if err != nil || !st.Converged {
			t.Fatalf("%+v: %+v, %v", tc, st, err)
		}
		if sp := e.Data.sparseRowsOf(); tc.k == 21 && (sp == nil || sp.ref[1] != 0) {
			t.Fatalf("%+v: the sparse rows are not used, or variable 1's reference state is not 0", tc)
		}
		for j := 0; j < tc.n; j++ {
			if j == tc.i {
				continue
			}
			for x := j * tc.k * K; x < (j*tc.k+tc.in)*K; x++ {
				if w[x] != 0 {
					t.Fatalf("%+v: removed coefficient %d is %v", tc, x, w[x])
				}
			}
		}
		par := softmaxParamsIn(tc.n, tc.k, tc.i, tc.first, tc.in)
		ref, fRef := newtonSoftmax(s, p)
		g := make([]float64, dim)
		f := softmaxRef(s, p, w, par, g, nil)
		if f-fRef > st.Gap+1e-13 {
			t.Errorf("%+v: F(ŵ) − F* = %.3g exceeds the certificate %.3g", tc, f-fRef, st.Gap)
		}
		if d := maxDiff(w, ref); d > 1e-4 {
			t.Errorf("%+v: coefficients differ from the restricted Newton minimiser by %.3g", tc, d)
		}
		// The kernels at a random point of the restricted problem.
		r := rand.New(rand.NewPCG(17, uint64(tc.k)))
		clear(w)
		for _, x := range par {
			w[x] = r.NormFloat64()
		}
		gk := make([]float64, dim)
		fk, gap := e.softmaxEval(p, w, gk, e.Work.sm, st.Weight)
		fr := softmaxRef(s, p, w, par, g, nil)
		if math.Abs(fk-fr) > 1e-10*math.Max(1, math.Abs(fr)) {
			t.Errorf("%+v: F %v, reference %v", tc, fk, fr)
		}
		onPar := make([]bool, dim)
		for _, x := range par {
			onPar[x] = true
		}
		for x := range gk {
			want := 0.0
			if onPar[x] {
				want = g[x]
			}
			if math.Abs(gk[x]-want) > 1e-10 {
				t.Fatalf("%+v: gradient %d is %v, restricted reference %v", tc, x, gk[x], want)
			}
		}
		if !(gap >= 0) {
			t.Errorf("%+v: negative gap %v", tc, gap)
		}
	}
}

// TestSoftmaxInputFirstErrors checks that an InputFirst outside [0, k] is
// an error.
func TestSoftmaxInputFirstErrors(t *testing.T) {
	s := weightedChain(3, 4, 50, 1)
	e := testEngine(s, false, 1e-6, new(Work))
	for _, in := range []int{-1, 5} {
		p := &Softmax{Node: 0, First: 1, Ridge: 1, FieldRidge: 1, Tol: 1e-6, MaxIter: 10, InputFirst: in}
		if _, err := e.FitSoftmax(context.Background(), p, make([]float64, SoftmaxDim(3, 4, 1))); err == nil {
			t.Errorf("InputFirst %d: no error", in)
		}
	}
}
