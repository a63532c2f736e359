package pairwise

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mrfkit/pairwise/solve"
)

// spLabels draws y = ±1 with P(y = 1) = σ(u_m) for the margins u of a planted
// w, so that the data follow the logistic model Sparsitron assumes.
func spLabels[F solve.Layout](rng *rand.Rand, p *solve.Problem[F], planted []float64) {
	u := make([]float64, p.X.Len())
	p.X.Margins(u, planted)
	p.Y = make([]float64, len(u))
	for m, um := range u {
		p.Y[m] = -1
		if rng.Float64() < solve.Sigmoid(um) {
			p.Y[m] = 1
		}
	}
}

// spSpins returns an l1 problem with n rows of d random ±1 features (column
// bias read as 1) and labels from a planted w with ‖w‖₁ = radius/2.
func spSpins(rng *rand.Rand, n, d, bias int, radius float64) *solve.Problem[solve.Spins] {
	x := make([]float64, n*d)
	for i := range x {
		x[i] = float64(2*rng.IntN(2) - 1)
	}
	p := &solve.Problem[solve.Spins]{X: solve.Spins{X: x, Cols: d, Bias: bias}, Radius: radius}
	planted := make([]float64, d)
	for j := range planted {
		planted[j] = rng.NormFloat64()
	}
	s := radius / 2 / solve.Norm(planted, 1)
	for j := range planted {
		planted[j] *= s
	}
	spLabels(rng, p, planted)
	return p
}

// spOneHot is spSpins for a one-hot design of groups×k.
func spOneHot(rng *rand.Rand, n, groups, k, bias int, radius float64) *solve.Problem[solve.OneHot] {
	z := make([]uint8, n*groups)
	for i := range z {
		z[i] = uint8(rng.IntN(k))
	}
	p := &solve.Problem[solve.OneHot]{X: solve.OneHot{Z: z, Groups: groups, K: k, Bias: bias}, Radius: radius}
	planted := make([]float64, groups*k)
	for j := range planted {
		planted[j] = rng.NormFloat64()
	}
	s := radius / 2 / solve.Norm(planted, k)
	for j := range planted {
		planted[j] *= s
	}
	spLabels(rng, p, planted)
	return p
}

// literalSparsitron is Klivans and Meka's Sparsitron transcribed line by
// line, with explicit weights on the 2d experts of x̂ = [x, −x]: for each
// training row, p = W/‖W‖₁, the held-out risk of λp, the loss vector
// ℓ = ½(1 + (σ(λ⟨p, x̂⟩) − ŷ)·x̂) and W_i ← W_i·β^{ℓ_i}; it returns λ·(p⁺ − p⁻)
// for the candidate of smallest risk (the first one on ties).
func literalSparsitron(x [][]float64, y []float64, lambda float64, hold int) []float64 {
	n, d := len(x), len(x[0])
	t := n - hold
	hat := func(row []float64) []float64 { // x̂ = [x, −x]
		h := make([]float64, 2*d)
		for i, v := range row {
			h[i], h[d+i] = v, -v
		}
		return h
	}
	dot := func(a, b []float64) float64 {
		s := 0.0
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	W := make([]float64, 2*d)
	for i := range W {
		W[i] = 1
	}
	beta := 1 / (1 + math.Sqrt(math.Log(float64(2*d))/float64(t)))
	var bestP []float64
	bestRisk := math.Inf(1)
	for s := 0; s < t; s++ {
		sum := 0.0
		for _, v := range W {
			sum += v
		}
		p := make([]float64, 2*d)
		for i := range p {
			p[i] = W[i] / sum
		}
		risk := 0.0
		for j := t; j < n; j++ {
			e := 1/(1+math.Exp(-lambda*dot(p, hat(x[j])))) - (y[j]+1)/2
			risk += e * e
		}
		risk /= float64(hold)
		if risk < bestRisk {
			bestRisk, bestP = risk, p
		}
		xs := hat(x[s])
		r := 1/(1+math.Exp(-lambda*dot(p, xs))) - (y[s]+1)/2
		for i := range W {
			W[i] *= math.Pow(beta, (1+r*xs[i])/2)
		}
	}
	w := make([]float64, d)
	for i := range w {
		w[i] = lambda * (bestP[i] - bestP[d+i])
	}
	return w
}

// TestSparsitronLiteral checks the closed-form, incrementally updated
// implementation against the literal transcription on small problems. The
// two compute the same iterates by different arithmetic (explicit β^ℓ
// products and full sums against log-domain weights and incremental
// margins), so they agree to rounding: 1e-9 relative to λ is a thousand
// times the drift of a few hundred updates, and far below the differences
// between consecutive candidates, so the same candidate must be selected.
func TestSparsitronLiteral(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 17))
	cases := []struct {
		name    string
		holdout int
		spins   *solve.Problem[solve.Spins]
		oneHot  *solve.Problem[solve.OneHot]
	}{
		{name: "spins/bias", spins: spSpins(rng, 300, 6, 2, 3)},
		{name: "spins/no-bias", spins: spSpins(rng, 250, 5, -1, 2)},
		{name: "spins/holdout=7", holdout: 7, spins: spSpins(rng, 120, 4, 0, 1)},
		{name: "onehot/k=3", oneHot: spOneHot(rng, 300, 4, 3, 1, 2)},
		{name: "onehot/k=4/holdout=40", holdout: 40, oneHot: spOneHot(rng, 260, 3, 4, 0, 3)},
		{name: "onehot/k=2/no-bias", oneHot: spOneHot(rng, 200, 5, 2, -1, 4)},
		// Long enough to cross the periodic refresh (every 1024 rows) and
		// for most candidates to be ruled out by the lazy bound.
		{name: "onehot/k=4/long", oneHot: spOneHot(rng, 3000, 5, 4, 2, 4)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := Sparsitron{Holdout: tc.holdout}
			var (
				got, want []float64
				err       error
				st        solve.Stats
			)
			if tc.spins != nil {
				p := tc.spins
				got = make([]float64, p.X.Dim())
				st, err = s.SolveSpins(context.Background(), p, got)
				want = literalSparsitron(mdDense(p), p.Y, p.Radius, sparsitronHoldout(tc.holdout, p.X.Len()))
			} else {
				p := tc.oneHot
				got = make([]float64, p.X.Dim())
				st, err = s.SolveOneHot(context.Background(), p, got)
				lambda := p.Radius * math.Sqrt(float64(p.X.K))
				want = literalSparsitron(mdDense(p), p.Y, lambda, sparsitronHoldout(tc.holdout, p.X.Len()))
			}
			if err != nil {
				t.Fatal(err)
			}
			scale := 0.0
			for _, v := range want {
				scale = math.Max(scale, math.Abs(v))
			}
			if scale == 0 {
				t.Fatal("the literal transcription selected the uniform start; the case tests nothing")
			}
			for i := range want {
				if math.Abs(got[i]-want[i]) > 1e-9*scale {
					t.Fatalf("w[%d] = %.15g, literal transcription %.15g\ngot  %v\nwant %v", i, got[i], want[i], got, want)
				}
			}
			if st.Iterations == 0 || !(st.Gap >= 0) || !(st.Loss > 0) {
				t.Errorf("stats %+v: want T iterations, a loss and a non-negative gap", st)
			}
		})
	}
}

// TestSparsitronRiskCurvature checks the constant of the lazy selection's
// bound: |f″| ≤ riskCurvature for f(q) = σ(−q)², with f″ from its closed form
// 2s²(1 − s)(2 − 3s), s = σ(−q), itself checked against second differences.
func TestSparsitronRiskCurvature(t *testing.T) {
	f := func(q float64) float64 { s := solve.Sigmoid(-q); return s * s }
	f2 := func(q float64) float64 { s := solve.Sigmoid(-q); return 2 * s * s * (1 - s) * (2 - 3*s) }
	worst := 0.0
	for q := -40.0; q <= 40; q += 1e-3 {
		worst = math.Max(worst, math.Abs(f2(q)))
	}
	if worst > riskCurvature || worst < 0.9*riskCurvature {
		t.Errorf("max |f″| = %v, riskCurvature = %v: the bound must hold and not be loose", worst, riskCurvature)
	}
	// The Taylor bound of the lazy selection, f(q₀+Δ) ≥ f(q₀) + f′(q₀)Δ −
	// (riskCurvature/2)Δ², holds everywhere; without the quadratic term it
	// fails where f is concave (q₀ < −ln 2).
	f1 := func(q float64) float64 { s := solve.Sigmoid(-q); return -2 * s * s * (1 - s) }
	linearFails := false
	for q0 := -10.0; q0 <= 10; q0 += 0.05 {
		for d := -6.0; d <= 6; d += 0.05 {
			lin := f(q0) + f1(q0)*d
			if f(q0+d) < lin-riskCurvature/2*d*d-1e-15 {
				t.Fatalf("Taylor bound fails at q₀ = %v, Δ = %v", q0, d)
			}
			linearFails = linearFails || f(q0+d) < lin-1e-12
		}
	}
	if !linearFails {
		t.Error("the linear term alone never overestimates: the check is too weak")
	}
	// Second differences with step 1e-3 are within 1e-6 of f″ (their error
	// is h²·max|f⁗|/12, and |f⁗| < 1).
	const step = 1e-3
	for _, q := range []float64{-3, -1, -0.4, 0, 0.3, 1.2, 4} {
		fd := (f(q+step) - 2*f(q) + f(q-step)) / (step * step)
		if math.Abs(fd-f2(q)) > 1e-6 {
			t.Errorf("f″(%v) = %v, second difference %v", q, f2(q), fd)
		}
	}
}

// TestSparsitronLazyBound checks the lazy selection's brackets directly:
// for every candidate that is bracketed rather than anchored, the exact
// held-out risk must lie in the bracket (up to rounding: 1e-9 of the M rows'
// risk, far below the gaps that decide a selection); and most candidates must
// be bracketed, or the laziness buys nothing. The confident cases put many rows where f is concave,
// where a bracket without its quadratic term would fail.
func TestSparsitronLazyBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 5))
	problems := []struct {
		name   string
		oneHot *solve.Problem[solve.OneHot]
		spins  *solve.Problem[solve.Spins]
	}{
		{name: "onehot", oneHot: spOneHot(rng, 6000, 6, 4, 1, 4)},
		{name: "spins", spins: spSpins(rng, 4000, 7, 0, 3)},
		{name: "onehot/confident", oneHot: spOneHot(rng, 6000, 6, 4, 1, 24)},
		{name: "spins/confident", spins: spSpins(rng, 4000, 7, 0, 16)},
	}
	for _, pr := range problems {
		t.Run(pr.name, func(t *testing.T) {
			calls, worst, width := 0, 0.0, 0.0
			sparsitronVerify = func(lo, hi, exact float64) {
				calls++
				worst = math.Max(worst, math.Max(lo-exact, exact-hi))
				width += hi - lo
			}
			defer func() { sparsitronVerify = nil }()
			var err error
			rows := 0
			if pr.oneHot != nil {
				rows = pr.oneHot.X.Len()
				_, err = Sparsitron{}.SolveOneHot(context.Background(), pr.oneHot, make([]float64, pr.oneHot.X.Dim()))
			} else {
				rows = pr.spins.X.Len()
				_, err = Sparsitron{}.SolveSpins(context.Background(), pr.spins, make([]float64, pr.spins.X.Dim()))
			}
			if err != nil {
				t.Fatal(err)
			}
			if worst > 1e-9*200 {
				t.Errorf("the exact risk is outside its bracket by %g", worst)
			}
			if float64(calls) < 0.5*float64(rows) {
				t.Errorf("%d of about %d candidates bracketed, want most", calls, rows)
			}
			t.Logf("%d of %d candidates bracketed, mean width %.3g", calls, rows, width/float64(calls))
		})
	}
}

// TestSparsitronHoldout checks the split of the paper's Appendix:
// max{200, ⌊0.01·N⌋} rows, at most half of them.
func TestSparsitronHoldout(t *testing.T) {
	cases := []struct{ setting, n, want int }{
		{0, 1, 0},
		{0, 2, 1},
		{0, 100, 50},
		{0, 400, 200},
		{0, 1000, 200},
		{0, 20000, 200},
		{0, 20100, 201},
		{0, 100000, 1000},
		{7, 100, 7},
		{70, 100, 50},
	}
	for _, c := range cases {
		if got := sparsitronHoldout(c.setting, c.n); got != c.want {
			t.Errorf("holdout(Holdout=%d, N=%d) = %d, want %d", c.setting, c.n, got, c.want)
		}
	}
}

// TestSparsitronGap checks the reported certificate: Gap bounds L(w) − L*
// for the problem's own ball, where L* comes from GroupMirror run to a gap
// of 1e-10.
func TestSparsitronGap(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 3))
	p := spOneHot(rng, 2000, 5, 3, 2, 3)
	w := make([]float64, p.X.Dim())
	st, err := Sparsitron{}.SolveOneHot(context.Background(), p, w)
	if err != nil {
		t.Fatal(err)
	}
	q := *p
	q.Tol, q.MaxIter = 1e-10, 100000
	wOpt := make([]float64, p.X.Dim())
	opt, err := GroupMirror{}.SolveOneHot(context.Background(), &q, wOpt)
	if err != nil || !opt.Converged {
		t.Fatalf("reference solve: %+v, %v", opt, err)
	}
	lOpt := opt.Loss - opt.Gap
	if excess := solve.Loss(p, w) - lOpt; excess > st.Gap {
		t.Errorf("L(w) − L* ≥ %g exceeds the reported gap %g", excess, st.Gap)
	}
	if math.Abs(st.Loss-solve.Loss(p, w)) > 1e-12 {
		t.Errorf("Stats.Loss = %v, L(w) = %v", st.Loss, solve.Loss(p, w))
	}
	if st.Converged != (st.Gap <= p.Tol) {
		t.Errorf("Converged = %v with Gap %g and Tol %g", st.Converged, st.Gap, p.Tol)
	}
	// ‖w‖₁ ≤ λ = Radius·√K: the candidate is a point of the l1 ball.
	if nrm, lambda := solve.Norm(w, 1), p.Radius*math.Sqrt(3); nrm > lambda*(1+1e-12) {
		t.Errorf("‖w‖₁ = %v > λ = %v", nrm, lambda)
	}
}

// TestSparsitronErrors checks that bad problems and settings are errors
// that name the problem, and that w is left as it was.
func TestSparsitronErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	good := func() *solve.Problem[solve.Spins] { return spSpins(rng, 50, 3, 0, 1) }
	cases := []struct {
		name   string
		s      Sparsitron
		edit   func(p *solve.Problem[solve.Spins]) *solve.Problem[solve.Spins]
		wLen   int
		substr string
	}{
		{"nil problem", Sparsitron{}, func(*solve.Problem[solve.Spins]) *solve.Problem[solve.Spins] { return nil }, 3, "nil problem"},
		{"negative holdout", Sparsitron{Holdout: -1}, nil, 3, "Holdout"},
		{"weighted rows", Sparsitron{}, func(p *solve.Problem[solve.Spins]) *solve.Problem[solve.Spins] {
			p.C = make([]float64, p.X.Len())
			for m := range p.C {
				p.C[m] = 1
			}
			p.C[7] = 2
			return p
		}, 3, "C[7]"},
		{"feature outside [-1, 1]", Sparsitron{}, func(p *solve.Problem[solve.Spins]) *solve.Problem[solve.Spins] {
			p.X.X[3*4+1] = 1.5
			return p
		}, 3, "row 4, column 1"},
		{"label 0", Sparsitron{}, func(p *solve.Problem[solve.Spins]) *solve.Problem[solve.Spins] {
			p.Y[5] = 0
			return p
		}, 3, "Y[5]"},
		{"zero radius", Sparsitron{}, func(p *solve.Problem[solve.Spins]) *solve.Problem[solve.Spins] {
			p.Radius = 0
			return p
		}, 3, "radius"},
		{"short w", Sparsitron{}, nil, 2, "len(w)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := good()
			if tc.edit != nil {
				p = tc.edit(p)
			}
			w := make([]float64, tc.wLen)
			for i := range w {
				w[i] = 0.125
			}
			_, err := tc.s.SolveSpins(context.Background(), p, w)
			if err == nil || !strings.HasPrefix(err.Error(), "pairwise: ") || !strings.Contains(err.Error(), tc.substr) {
				t.Fatalf("error %v, want one prefixed \"pairwise: \" naming %q", err, tc.substr)
			}
			for _, v := range w {
				if v != 0.125 {
					t.Fatalf("w changed to %v on error", w)
				}
			}
		})
	}
	// All-one weights are unweighted rows and are accepted.
	p := good()
	p.C = make([]float64, p.X.Len())
	for m := range p.C {
		p.C[m] = 1
	}
	if _, err := (Sparsitron{}).SolveSpins(context.Background(), p, make([]float64, 3)); err != nil {
		t.Errorf("unit weights: %v", err)
	}
	// Weighted samples through the learner: the error reaches the caller.
	s, err := NewWeightedSamples(2, [][]int{{0, 1}, {1, 1}, {1, 0}}, []float64{1, 2, 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LearnPairwise(s, WithWidth(1), WithMinEdgeWeight(0.1), WithSolver(Sparsitron{})); err == nil || !strings.Contains(err.Error(), "unweighted") {
		t.Errorf("LearnPairwise on weighted samples with Sparsitron: %v, want an error about weights", err)
	}
}

// TestSparsitronSmallProblems checks problems without rows and with a single
// row (nothing to select from: the uniform start, w = 0).
func TestSparsitronSmallProblems(t *testing.T) {
	empty := &solve.Problem[solve.OneHot]{X: solve.OneHot{Groups: 3, K: 2, Bias: 0}, Radius: 1}
	w := []float64{1, 2, 3, 4, 5, 6}
	st, err := Sparsitron{}.SolveOneHot(context.Background(), empty, w)
	if err != nil || !st.Converged || solve.Norm(w, 1) != 0 {
		t.Errorf("no rows: w = %v, %+v, %v; want w = 0, converged", w, st, err)
	}
	one := &solve.Problem[solve.Spins]{X: solve.Spins{X: []float64{1, -1}, Cols: 2, Bias: 0}, Y: []float64{1}, Radius: 1}
	w = []float64{0.3, 0.3}
	if _, err := (Sparsitron{}).SolveSpins(context.Background(), one, w); err != nil || w[0] != 0 || w[1] != 0 {
		t.Errorf("one row: w = %v, %v; want the uniform start 0", w, err)
	}
}

// TestSparsitronContext checks that a done context stops the solver: before
// it starts, and within the polling interval of a long pass.
func TestSparsitronContext(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	p := spOneHot(rng, 400000, 4, 2, 0, 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w := make([]float64, p.X.Dim())
	if _, err := (Sparsitron{}).SolveOneHot(ctx, p, w); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before the start: %v", err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	_, err := Sparsitron{}.SolveOneHot(ctx, p, w)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("deadline during the pass: %v, want context.DeadlineExceeded", err)
	}
	if solve.Norm(w, 1) > p.Radius*math.Sqrt(2)*(1+1e-12) {
		t.Errorf("after cancellation w = %v is not a candidate", w)
	}
}

// TestSparsitronString checks the backend's name.
func TestSparsitronString(t *testing.T) {
	if got := (Sparsitron{}).String(); got != "Sparsitron" {
		t.Errorf("String() = %q", got)
	}
	if got := (Sparsitron{Holdout: 500}).String(); got != "Sparsitron{Holdout: 500}" {
		t.Errorf("String() = %q", got)
	}
}

// TestSparsitronLearnsGrid checks Sparsitron as a learner, on the paper's
// 3×3 grid with k = 2 (θ = 0.2, zero field), through both paths: the
// pairwise path (one-hot rows, l1 radius 2kλ = 3.2), the setting of the
// paper's Figure 2, from N = 20000 exact samples, and the Ising path (±1
// rows, l1 radius 2λ = 1.6, so fewer samples suffice) from N = 10000. In the
// full reproduction (docs/reproduce) Sparsitron recovers the grid at k = 2
// in 95 of 100 runs at N = 20000 (the failures are a node whose held-out
// selection picked an early, shrunk candidate), and on 20 other seeds the
// Ising path recovered it in 20 of 20 at N = 10000: one fixed seed passes
// for the right reason. The result must also be deterministic and
// independent of the workers (checked on 2000 samples).
func TestSparsitronLearnsGrid(t *testing.T) {
	m := gridPotts(3, 3, 2, 0.2, rand.New(rand.NewPCG(11, 1)))
	sampler, err := NewExactSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	draw := func(n int, stream uint64) *Samples {
		s, err := sampler.Sample(rand.NewPCG(11, stream), n)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	opts := []Option{WithWidth(m.Width()), WithMinEdgeWeight(m.MinEdgeWeight()), WithSolver(Sparsitron{})}
	paths := []struct {
		name  string
		learn func(*Samples, ...Option) (*Result, error)
		n     int
	}{
		{"pairwise", LearnPairwise, 20000},
		{"ising", LearnIsing, 10000},
	}
	for x, path := range paths {
		t.Run(path.name, func(t *testing.T) {
			res, err := path.learn(draw(path.n, uint64(2+x)), append(opts, WithWorkers(2))...)
			if err != nil {
				t.Fatal(err)
			}
			if !sameEdges(res.Edges, m.Edges()) {
				t.Errorf("learned %v, want the grid %v", res.Edges, m.Edges())
			}
			small := draw(2000, 9)
			a, err := path.learn(small, append(opts, WithWorkers(1))...)
			if err != nil {
				t.Fatal(err)
			}
			b, err := path.learn(small, append(opts, WithWorkers(3))...)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 9; i++ {
				for j := 0; j < 9; j++ {
					ea, eb := a.Estimate(i, j).RawMatrix().Data, b.Estimate(i, j).RawMatrix().Data
					for y := range ea {
						if ea[y] != eb[y] {
							t.Fatalf("Ŵ_%d%d differs between 1 and 3 workers: %v and %v", i, j, ea, eb)
						}
					}
				}
			}
		})
	}
}

// sameEdges reports whether two graphs have the same pairs.
func sameEdges(a, b []Edge) bool {
	if len(a) != len(b) {
		return false
	}
	for x := range a {
		if a[x].I != b[x].I || a[x].J != b[x].J {
			return false
		}
	}
	return true
}

// BenchmarkSparsitron measures one regression of the paper's grid setting
// (9 groups of k = 6 states, one-hot rows), by the number of rows N. The
// "every" variant also computes the exact held-out risk of every candidate
// (through the test hook), the cost of a plain implementation of the
// selection; "lazy" is the solver as shipped.
func BenchmarkSparsitron(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		p := spOneHot(rng, n, 9, 6, 4, 2*0.8*math.Sqrt(6))
		w := make([]float64, p.X.Dim())
		for _, mode := range []string{"lazy", "every"} {
			b.Run("N="+strconv.Itoa(n)+"/selection="+mode, func(b *testing.B) {
				if mode == "every" {
					sparsitronVerify = func(float64, float64, float64) {}
					defer func() { sparsitronVerify = nil }()
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := (Sparsitron{}).SolveOneHot(context.Background(), p, w); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
