package pairwise

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// exactSamples weights every state of m by its exact probability, so that the
// empirical loss of every regression is the population loss.
func exactSamples(t *testing.T, m *Model) *Samples {
	t.Helper()
	states, probs := enumerate(m)
	s, err := NewWeightedSamples(m.Alphabet(), states, probs)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// randomModel returns a model on n variables with k states, random couplings
// on every pair with probability density, entries uniform in [-scale, scale],
// and random fields; it is not centred.
func randomModel(t *testing.T, n, k int, density, scale float64, r *rand.Rand) *Model {
	t.Helper()
	m, err := NewModel(n, k)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		f := make([]float64, k)
		for a := range f {
			f[a] = scale * (2*r.Float64() - 1)
		}
		if err := m.SetField(i, f); err != nil {
			t.Fatal(err)
		}
		for j := i + 1; j < n; j++ {
			if r.Float64() >= density {
				continue
			}
			w := mat.NewDense(k, k, nil)
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					w.Set(a, b, scale*(2*r.Float64()-1))
				}
			}
			if err := m.SetCoupling(i, j, w); err != nil {
				t.Fatal(err)
			}
		}
	}
	return m
}

// maxCouplingError returns max over i≠j, a, b of |W_ij(a,b) - Ŵ_ij(a,b)|
// between two models, and the same for the fields.
func maxCouplingError(truth, got *Model) (coupling, field float64) {
	n, k := truth.Vars(), truth.Alphabet()
	for i := 0; i < n; i++ {
		for a := 0; a < k; a++ {
			field = math.Max(field, math.Abs(truth.theta[i*k+a]-got.theta[i*k+a]))
		}
		for j := 0; j < n; j++ {
			if i == j {
				continue
			}
			w, g := truth.coupling(i, j), got.coupling(i, j)
			for x := 0; x < k*k; x++ {
				var wv, gv float64
				if w != nil {
					wv = w[x]
				}
				if g != nil {
					gv = g[x]
				}
				coupling = math.Max(coupling, math.Abs(wv-gv))
			}
		}
	}
	return coupling, field
}

// TestLearnExactDistribution checks Facts 1 and 2, the centring of equation
// (9) and the averaging over β exactly: when every state is weighted by its
// exact probability, the empirical loss is the population loss, whose
// minimiser is the true centred parameter (the conditional model is well
// specified). With a radius far above the width the constraint is inactive,
// so the learners must return the centred truth. The tolerance 1e-4 leaves
// room for the solver's 1e-12 loss tolerance: the loss is strongly convex on
// the centred parameters here (every state has probability at least
// e^{-2λ}/k^n), and an error δ in the parameters costs about μδ²/2 ≥ 1e-12
// only for δ ≳ 1e-5.
func TestLearnExactDistribution(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	cases := []struct {
		name       string
		n, k       int
		pairwise   bool
		density    float64
		scale      float64
		learnWidth float64 // multiple of the true width
	}{
		{"ising/n=4", 4, 2, false, 1, 0.4, 3},
		{"ising/n=6", 6, 2, false, 0.7, 0.3, 3},
		{"pairwise/k=2/n=4", 4, 2, true, 1, 0.4, 3},
		{"pairwise/k=3/n=4", 4, 3, true, 1, 0.3, 3},
		{"pairwise/k=4/n=3", 3, 4, true, 1, 0.3, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := randomModel(t, tc.n, tc.k, tc.density, tc.scale, r)
			truth := m.Centered()
			s := exactSamples(t, m)
			opts := []Option{
				WithWidth(tc.learnWidth * truth.Width()),
				WithMinEdgeWeight(1e-3),
				WithTolerance(1e-12),
				WithMaxIterations(200000),
			}
			var res *Result
			var err error
			if tc.pairwise {
				res, err = LearnPairwise(s, opts...)
			} else {
				res, err = LearnIsing(s, opts...)
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range res.Nodes {
				if !f.Converged {
					t.Errorf("node %d did not converge: %+v", f.Node, f)
				}
			}
			ce, fe := maxCouplingError(truth, res.Model)
			if ce > 1e-4 || fe > 1e-4 {
				t.Errorf("max coupling error %.3g, max field error %.3g, want both ≤ 1e-4", ce, fe)
			}
			// Every node's own estimate, not only the average, is exact.
			for i := 0; i < tc.n; i++ {
				for j := 0; j < tc.n; j++ {
					if i == j {
						continue
					}
					want := truth.Coupling(i, j)
					if got := res.Estimate(i, j); !mat.EqualApprox(got, want, 1e-4) {
						t.Errorf("Estimate(%d, %d) = %v, want %v", i, j, mat.Formatted(got), mat.Formatted(want))
					}
				}
			}
		})
	}
}

// TestLearnDiamond is the paper's first experiment at one point: the diamond
// graph with n = 10 and a = 0.2 violates incoherence, yet N = 4000 exact
// samples with λ = (n-2)a and η = a recover it. The paper's authors report a
// max error of 0.065 here; we require the paper's own criterion, an error
// below η/2 = 0.1, and the exact graph. The seed is fixed; the margin between
// 0.065 and 0.1 is what makes this a stable test rather than a coin flip.
func TestLearnDiamond(t *testing.T) {
	const n, a, N = 10, 0.2, 4000
	m := diamondIsing(n, a)
	s := drawExact(t, m, N, rand.NewPCG(2019, 1))
	res, err := LearnIsing(s, WithWidth(float64(n-2)*a), WithMinEdgeWeight(a), WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	ce, _ := maxCouplingError(m, res.Model)
	aTruth, _, _ := m.Ising()
	maxErr := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i != j {
				maxErr = math.Max(maxErr, math.Abs(res.Estimate(i, j).At(1, 1)-aTruth.At(i, j)))
			}
		}
	}
	t.Logf("max |Â - A| = %.4f (per-node), %.4f (symmetrised model)", maxErr, ce)
	if maxErr >= a/2 {
		t.Errorf("max |Â_ij - A_ij| = %.4f, want < a/2 = %.2f", maxErr, a/2)
	}
	checkGraph(t, m.Edges(), res.Edges)
}

// TestLearnGridPotts is the paper's second experiment at one point: the 3x3
// grid with k = 4, θ = 0.2 (checkerboard couplings with random signs), λ the
// true width and η = θ. The issue that asked for this test expected exact
// recovery at N = 6000, where the authors report a max weight error of
// 0.135. That error is above η/2 = 0.1, and with Algorithm 2's radius
// 2λ√k = 3.2 solved exactly we measured exact recovery in 0 of 20 seeded runs
// at N = 6000 (all failures false edges of weight 0.10-0.12), 14 of 20 at
// N = 10000 and 20 of 20 at N = 20000. With the smaller radius 2λ = 1.6
// (WithRadius), whose shrinkage removes those false edges, it was 19 of 20
// at N = 6000. So the test checks recovery at N = 6000 with radius 2λ and at
// N = 20000 with the paper's radius, where recovery is the rule rather than
// luck, and at N = 6000 with the paper's radius that the weight error is of
// the size the authors report (below 0.2; our median there is about 0.14).
func TestLearnGridPotts(t *testing.T) {
	skipUnderRace(t)
	const k, theta = 4, 0.2
	m := gridPotts(3, 3, k, theta, rand.New(rand.NewPCG(4, 4)))
	lambda := m.Width()
	for _, tc := range []struct {
		N       int
		radius  float64 // 0: the paper's 2λ√k
		recover bool
	}{{6000, 0, false}, {6000, 2 * lambda, true}, {20000, 0, true}} {
		s := drawExact(t, m, tc.N, rand.NewPCG(2019, uint64(tc.N)))
		opts := []Option{WithWidth(lambda), WithMinEdgeWeight(theta), WithWorkers(2)}
		if tc.radius > 0 {
			opts = append(opts, WithRadius(tc.radius))
		}
		res, err := LearnPairwise(s, opts...)
		if err != nil {
			t.Fatal(err)
		}
		maxErr := 0.0
		for i := 0; i < 9; i++ {
			for j := 0; j < 9; j++ {
				if i != j {
					maxErr = math.Max(maxErr, maxEntryDiff(res.Estimate(i, j), m.Coupling(i, j)))
				}
			}
		}
		t.Logf("N = %d, radius %.2f: max_ij ‖W_ij - Ŵ_ij‖∞ = %.4f, %d edges learned", tc.N, res.Radius, maxErr, len(res.Edges))
		// The radius 2λ leaves the true parameter of the centre node
		// outside the ball (‖w*‖_{2,1} = 3.2 there), so its estimates are
		// shrunk by design; the error bound is a claim only for the
		// paper's radius.
		if tc.radius == 0 && maxErr > 0.2 {
			t.Errorf("N = %d: max weight error %.4f, want below 0.2", tc.N, maxErr)
		}
		if tc.recover {
			checkGraph(t, m.Edges(), res.Edges)
		}
	}
}

// maxEntryDiff returns max_ab |a(a,b) - b(a,b)|, the paper's ‖·‖∞ of a matrix.
func maxEntryDiff(a, b mat.Matrix) float64 {
	r, c := a.Dims()
	mx := 0.0
	for x := 0; x < r; x++ {
		for y := 0; y < c; y++ {
			mx = math.Max(mx, math.Abs(a.At(x, y)-b.At(x, y)))
		}
	}
	return mx
}

func drawExact(t *testing.T, m *Model, count int, src rand.Source) *Samples {
	t.Helper()
	es, err := NewExactSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := es.Sample(src, count)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func checkGraph(t *testing.T, want, got []Edge) {
	t.Helper()
	key := func(e Edge) [2]int { return [2]int{e.I, e.J} }
	w := map[[2]int]bool{}
	for _, e := range want {
		w[key(e)] = true
	}
	g := map[[2]int]bool{}
	for _, e := range got {
		g[key(e)] = true
		if !w[key(e)] {
			t.Errorf("false edge (%d, %d) with weight %.4f", e.I, e.J, e.Weight)
		}
	}
	for _, e := range want {
		if !g[key(e)] {
			t.Errorf("missed edge (%d, %d)", e.I, e.J)
		}
	}
}

// TestLearnPairwiseMatchesIsing: on k = 2 data the two paths fit the same
// conditional model (a one-hot encoding of a binary variable is an affine
// function of its spin), so with a radius large enough that neither
// constraint binds, both return the unconstrained maximum likelihood
// estimate. They are solved to a loss tolerance of 1e-12, which bounds the
// parameter difference by about 1e-5 at this N; we allow 1e-4.
func TestLearnPairwiseMatchesIsing(t *testing.T) {
	m := gridIsing(3, 3, rand.New(rand.NewPCG(5, 5)), 0.2, 0.5)
	s := drawExact(t, m, 5000, rand.NewPCG(3, 3))
	opts := []Option{WithWidth(3 * m.Width()), WithMinEdgeWeight(0.2), WithTolerance(1e-12), WithMaxIterations(200000)}
	ri, err := LearnIsing(s, opts...)
	if err != nil {
		t.Fatal(err)
	}
	rp, err := LearnPairwise(s, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ce, fe := maxCouplingError(ri.Model, rp.Model)
	if ce > 1e-4 || fe > 1e-4 {
		t.Errorf("Ising and pairwise paths differ: couplings by %.3g, fields by %.3g", ce, fe)
	}
	checkGraph(t, ri.Edges, rp.Edges)
	if rp.Edges == nil {
		t.Error("no edges learned")
	}
}

// TestLearnWorkersDeterministic: results do not depend on the number of
// workers, to the last bit.
func TestLearnWorkersDeterministic(t *testing.T) {
	for _, k := range []int{2, 3} {
		t.Run(fmt.Sprintf("k=%d", k), func(t *testing.T) {
			m := gridPotts(3, 3, k, 0.3, rand.New(rand.NewPCG(8, uint64(k))))
			s := drawExact(t, m, 2000, rand.NewPCG(9, 9))
			var first *Result
			for _, p := range []int{1, 8} {
				res, err := Learn(s, WithWidth(m.Width()), WithMinEdgeWeight(0.3), WithWorkers(p))
				if err != nil {
					t.Fatal(err)
				}
				if first == nil {
					first = res
					continue
				}
				rd, fd := denseOf(res), denseOf(first)
				for i := range rd {
					for x := range rd[i] {
						if rd[i][x] != fd[i][x] {
							t.Fatalf("workers 1 and %d differ at node %d, entry %d", p, i, x)
						}
					}
				}
			}
		})
	}
}

func TestLearnProgressAndCancel(t *testing.T) {
	m := gridIsing(3, 3, rand.New(rand.NewPCG(5, 5)), 0.2, 0.5)
	s := drawExact(t, m, 1000, rand.NewPCG(3, 4))
	var calls [][2]int
	_, err := LearnIsing(s, WithWidth(2), WithMinEdgeWeight(0.2), WithWorkers(3), WithProgress(func(done, total int) {
		calls = append(calls, [2]int{done, total})
	}))
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 10 {
		t.Fatalf("progress called %d times, want 10: %v", len(calls), calls)
	}
	for x, c := range calls {
		if c != [2]int{x, 9} {
			t.Errorf("progress call %d = %v, want (%d, 9)", x, c, x)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := LearnIsingContext(ctx, s, WithWidth(2), WithMinEdgeWeight(0.2)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled LearnIsingContext returned %v, want context.Canceled", err)
	}
	// Cancel while running: from the progress callback after the first node.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	_, err = LearnPairwiseContext(ctx, s, WithWidth(2), WithMinEdgeWeight(0.2), WithProgress(func(done, _ int) {
		if done == 1 {
			cancel()
		}
	}))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("LearnPairwiseContext cancelled mid-run returned %v, want context.Canceled", err)
	}
}

func TestLearnErrors(t *testing.T) {
	spins, _ := NewSpinSamples([][]int{{1, -1, 1}, {-1, -1, 1}})
	k3, _ := NewSamples(3, [][]int{{0, 1, 2}, {2, 1, 0}})
	ok := []Option{WithWidth(1), WithMinEdgeWeight(0.1)}
	cases := []struct {
		name string
		run  func() error
		want string
	}{
		{"nil samples", func() error { _, err := Learn(nil, ok...); return err }, "nil samples"},
		{"no width, too few rows", func() error { _, err := Learn(spins, WithSelection(CrossValidation{})); return err }, "fewer than the 5 folds"},
		{"NaN width", func() error { _, err := Learn(spins, WithWidth(math.NaN()), WithMinEdgeWeight(0.1)); return err }, "WithWidth(NaN)"},
		{"negative width", func() error { _, err := Learn(spins, WithWidth(-1), WithMinEdgeWeight(0.1)); return err }, "WithWidth(-1)"},
		{"infinite width", func() error { _, err := Learn(spins, WithWidth(math.Inf(1)), WithMinEdgeWeight(0.1)); return err }, "WithWidth(+Inf)"},
		{"zero eta", func() error { _, err := Learn(spins, WithWidth(1), WithMinEdgeWeight(0)); return err }, "WithMinEdgeWeight(0)"},
		{"NaN eta", func() error { _, err := Learn(spins, WithWidth(1), WithMinEdgeWeight(math.NaN())); return err }, "WithMinEdgeWeight(NaN)"},
		{"infinite eta", func() error { _, err := Learn(spins, WithWidth(1), WithMinEdgeWeight(math.Inf(-1))); return err }, "WithMinEdgeWeight(-Inf)"},
		{"workers", func() error { _, err := Learn(spins, append(ok, WithWorkers(0))...); return err }, "WithWorkers(0)"},
		{"tolerance", func() error { _, err := Learn(spins, append(ok, WithTolerance(-1))...); return err }, "WithTolerance(-1)"},
		{"iterations", func() error { _, err := Learn(spins, append(ok, WithMaxIterations(0))...); return err }, "WithMaxIterations(0)"},
		{"radius", func() error { _, err := Learn(spins, append(ok, WithRadius(math.NaN()))...); return err }, "WithRadius(NaN)"},
		{"nil option", func() error { _, err := Learn(spins, WithWidth(1), nil); return err }, "option 1 is nil"},
		{"ising on k=3", func() error { _, err := LearnIsing(k3, ok...); return err }, "k = 3, want 2"},
		{"entropic on k=3", func() error { _, err := LearnPairwise(k3, append(ok, WithSolver(EntropicMirror{}))...); return err }, "GroupMirror"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if err == nil {
				t.Fatalf("no error, want one mentioning %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "pairwise: ") {
				t.Errorf("error %q, want the prefix \"pairwise: \" and %q", err, tc.want)
			}
		})
	}
}
