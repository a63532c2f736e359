package selection

import (
	"context"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/mrfkit/pairwise/internal/brute"
)

// bitData returns the complete spin samples states (rows × n, 0 or 1) with
// the weights (nil for 1) as bit samples only, the layout of Data.Bits.
func bitData(states [][]uint8, weights []float64) *Data {
	n, rows := len(states[0]), len(states)
	d := &Data{N: n, K: 2, Count: rows, Weights: weights, Bits: make([]uint64, (rows+63)/64*n)}
	for m, row := range states {
		for j, z := range row {
			d.Bits[(m/64)*n+j] |= uint64(z) << (m % 64)
		}
		if weights != nil {
			d.Total += weights[m]
		} else {
			d.Total++
		}
	}
	return d
}

// randomStates returns rows × n independent fair spins (0 or 1).
func randomStates(rng *rand.Rand, n, rows int) [][]uint8 {
	states := make([][]uint8, rows)
	for m := range states {
		states[m] = make([]uint8, n)
		for j := range states[m] {
			states[m][j] = uint8(rng.IntN(2))
		}
	}
	return states
}

// isingSamples draws rows from the Ising model on n spins with couplings A
// (A[j][l], j < l) and fields theta, P(x) ∝ exp(Σ θ_j x_j + Σ A_jl x_j x_l),
// x = ±1, by exact enumeration (internal/brute).
func isingSamples(t *testing.T, rng *rand.Rand, n, rows int, theta []float64, A [][]float64) [][]uint8 {
	t.Helper()
	states, probs, _, err := brute.Enumerate(n, 2, func(z []int) float64 {
		e := 0.0
		for j := 0; j < n; j++ {
			e += theta[j] * float64(2*z[j]-1)
			for l := j + 1; l < n; l++ {
				e += A[j][l] * float64(2*z[j]-1) * float64(2*z[l]-1)
			}
		}
		return e
	})
	if err != nil {
		t.Fatal(err)
	}
	cum := make([]float64, len(probs))
	acc := 0.0
	for x, p := range probs {
		acc += p
		cum[x] = acc
	}
	out := make([][]uint8, rows)
	for m := range out {
		u := rng.Float64() * acc
		x := 0
		for x < len(cum)-1 && cum[x] < u {
			x++
		}
		row := make([]uint8, n)
		for j, z := range states[x] {
			row[j] = uint8(z)
		}
		out[m] = row
	}
	return out
}

// chainModel returns a chain of n spins with couplings ±c between
// neighbours and small fields.
func chainModel(rng *rand.Rand, n int, c float64) ([]float64, [][]float64) {
	theta := make([]float64, n)
	A := make([][]float64, n)
	for j := range A {
		A[j] = make([]float64, n)
		theta[j] = 0.2 * (rng.Float64() - 0.5)
	}
	for j := 0; j+1 < n; j++ {
		A[j][j+1] = c
		if rng.IntN(2) == 0 {
			A[j][j+1] = -c
		}
	}
	return theta, A
}

// TestBitDerivatives checks the tables' gradient and Hessian against a
// plain sum over the rows (math.Exp, one row at a time), with weights and a
// last block of fewer than 64 rows. The entries are sums of at most a few
// thousand terms of size 1/N: rounding leaves them within 1e-13.
func TestBitDerivatives(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, rows := range []int{1, 63, 64, 200, 1000} {
		for _, weighted := range []bool{false, true} {
			n := 9
			states := randomStates(rng, n, rows)
			var weights []float64
			if weighted {
				weights = make([]float64, rows)
				for m := range weights {
					weights[m] = float64(rng.IntN(4)) // some 0
				}
				weights[0] = 1
			}
			s := bitData(states, weights)
			i, nb := 3, []int{0, 2, 5, 6, 8}
			w := []float64{0.3, 0, -0.7, 0.4, 0, 1.1} // the intercept, then nb; two zeros
			g, h, ok := bitDerivatives(context.Background(), s, i, nb, w)
			if !ok {
				t.Fatal("bitDerivatives: not ok")
			}
			p := len(nb) + 1
			wantG, wantH := make([]float64, p), make([]float64, p*p)
			x := make([]float64, p)
			for m, row := range states {
				c := 1.0
				if weights != nil {
					c = weights[m]
				}
				x[0] = 1
				for a, j := range nb {
					x[a+1] = float64(2*int(row[j]) - 1)
				}
				u := 0.0
				for a := range x {
					u += w[a] * x[a]
				}
				y := float64(2*int(row[i]) - 1)
				r := -y / (1 + math.Exp(y*u)) // −y σ(−y u)
				a := 1 / (1 + math.Exp(-u)) / (1 + math.Exp(u))
				for b := range x {
					wantG[b] += c / s.Total * r * x[b]
					for e := range x {
						wantH[b*p+e] += c / s.Total * a * x[b] * x[e]
					}
				}
			}
			for b := 0; b < p; b++ {
				if math.Abs(g[b]-wantG[b]) > 1e-13 {
					t.Errorf("rows %d weighted %v: g[%d] = %.17g, want %.17g", rows, weighted, b, g[b], wantG[b])
				}
				for e := 0; e < p; e++ {
					if math.Abs(h.At(b, e)-wantH[b*p+e]) > 1e-13 {
						t.Errorf("rows %d weighted %v: H[%d][%d] = %.17g, want %.17g", rows, weighted, b, e, h.At(b, e), wantH[b*p+e])
					}
				}
			}
		}
	}
}

// TestCurvatureRadius checks t·β(t) > q at the returned t and not just
// below it, and β against its integral ∫₀¹ (1 − s) e^{−st} ds by the
// midpoint rule.
func TestCurvatureRadius(t *testing.T) {
	for _, tt := range []float64{1e-6, 1e-3, 0.1, 1, 5, 40} {
		const steps = 100000
		sum := 0.0
		for k := 0; k < steps; k++ {
			s := (float64(k) + 0.5) / steps
			sum += (1 - s) * math.Exp(-s*tt)
		}
		if got, want := curvatureFactor(tt), sum/steps; math.Abs(got-want) > 1e-9 {
			t.Errorf("β(%g) = %.12g, the integral %.12g", tt, got, want)
		}
	}
	for _, q := range []float64{0, 1e-8, 0.01, 0.3, 0.9, 0.999} {
		r, ok := curvatureRadius(q)
		if !ok {
			t.Fatalf("q = %g: no radius", q)
		}
		if q == 0 {
			if r != 0 {
				t.Errorf("q = 0: t = %g, want 0", r)
			}
			continue
		}
		if r*curvatureFactor(r) <= q {
			t.Errorf("q = %g: t = %g gives t·β(t) = %g, not above q", q, r, r*curvatureFactor(r))
		}
		if s := r * (1 - 1e-9); q > 0 && s*curvatureFactor(s) > q {
			t.Errorf("q = %g: t = %g is not the least", q, r)
		}
	}
	for _, q := range []float64{1, 2, math.NaN(), math.Inf(1), -1} {
		if _, ok := curvatureRadius(q); ok {
			t.Errorf("q = %g: a radius where there is none", q)
		}
	}
}

// TestReductionBound checks the certificate against the refits it stands
// for: on exact samples of 12-spin chains, node i's deviance reduction
// devW − devU (the engine's unconstrained refits on nbW and nbU) never
// exceeds the bound, whether nbU adds only non-neighbours (chance
// reductions) or also a true neighbour that nbW lacks (a real one, which
// the bound must then exceed). At N = 20,000 with only chance spins added
// the bound must also be useful: below ln N a coefficient, as the penalty
// of step 4 counts them, in every case (it is a few times the score
// statistic, whose mean is the number of added spins).
func TestReductionBound(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	n := 12
	useful, cases, checked, real := 0, 0, 0, 0
	for seed := 0; seed < 6; seed++ {
		theta, A := chainModel(rng, n, 0.5)
		for _, rows := range []int{300, 2000, 20000} {
			states := isingSamples(t, rng, n, rows, theta, A)
			s := bitData(states, nil)
			i := 5
			for _, tc := range []struct {
				nbW, nbU []int
				chance   bool
			}{
				{[]int{4, 6}, []int{1, 4, 6, 9}, true},
				{[]int{4, 6}, []int{0, 1, 2, 4, 6, 8, 9, 10, 11}, true},
				{[]int{4}, []int{4, 6, 9}, false}, // 6 is a neighbour
				{[]int{4, 6}, []int{3, 4, 6, 7}, true},
				{[]int{}, []int{3, 7}, false}, // 3 and 7 tell of 4 and 6
			} {
				bound, ok := reductionBound(ctx, s, i, tc.nbW, tc.nbU)
				dW, okW := refitDeviance(ctx, s, i, tc.nbW, tc.nbU)
				dU, okU := refitDeviance(ctx, s, i, tc.nbU, tc.nbU)
				if !okW || !okU {
					continue
				}
				red := dW - dU
				if ok {
					checked++
					if !tc.chance {
						real++
					}
				}
				if ok && red > bound*(1+1e-9)+1e-9 {
					t.Errorf("seed %d N %d %v→%v: reduction %g above the bound %g", seed, rows, tc.nbW, tc.nbU, red, bound)
				}
				if tc.chance && rows == 20000 {
					cases++
					if ok && bound < float64(len(tc.nbU)-len(tc.nbW))*math.Log(s.Total) {
						useful++
					} else {
						t.Logf("seed %d %v→%v: bound %g (ok %v), reduction %g", seed, tc.nbW, tc.nbU, bound, ok, red)
					}
				}
			}
		}
	}
	t.Logf("%d cases with a bound, %d of them adding a neighbour", checked, real)
	if real == 0 {
		t.Error("no bound where a neighbour is added: the check above never saw a real reduction")
	}
	if useful < cases {
		t.Errorf("the bound is below ln N a coefficient in %d of %d chance cases at N = 20000", useful, cases)
	}
}

// TestChooseUnionBound checks that step 4 gives the same graph with the
// certificate as with the refits alone, on chains whose G_W is the truth
// or misses an edge, and whose G_A adds chance pairs or the missing edge,
// and that the certificate decided some of them (those at large N, where
// it is meant to save the refits).
func TestChooseUnionBound(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 6))
	n := 12
	decided, unions := 0, 0
	for seed := 0; seed < 4; seed++ {
		theta, A := chainModel(rng, n, 0.4)
		truth := map[[2]int]bool{}
		for j := 0; j+1 < n; j++ {
			truth[[2]int{j, j + 1}] = true
		}
		for _, rows := range []int{200, 1000, 20000} {
			s := bitData(isingSamples(t, rng, n, rows, theta, A), nil)
			for _, miss := range []bool{false, true} {
				keep := map[[2]int]bool{}
				for e := range truth {
					keep[e] = true
				}
				if miss {
					delete(keep, [2]int{4, 5})
				}
				union := map[[2]int]bool{}
				for e := range keep {
					union[e] = true
				}
				for len(union) < len(keep)+6 {
					j, l := rng.IntN(n), rng.IntN(n)
					if j < l && l > j+1 {
						union[[2]int{j, l}] = true
					}
				}
				if miss {
					union[[2]int{4, 5}] = true
				}
				and := len(union) - len(keep)
				var calls atomic.Int64
				dev := func(ctx context.Context, i int, nb, need []int) (float64, bool) {
					calls.Add(1)
					return refitDeviance(ctx, s, i, nb, need)
				}
				bound := func(ctx context.Context, i int, nbW, nbU []int) (float64, bool) {
					return reductionBound(ctx, s, i, nbW, nbU)
				}
				// Bounds for half of the nodes only: the others are
				// refitted first.
				half := func(ctx context.Context, i int, nbW, nbU []int) (float64, bool) {
					if i%2 == 0 {
						return 0, false
					}
					return reductionBound(ctx, s, i, nbW, nbU)
				}
				plain, pu, err := chooseUnion(ctx, n, s.Total, keep, union, and, 0, dev, nil, 2)
				if err != nil {
					t.Fatal(err)
				}
				all := calls.Swap(0)
				if pu {
					unions++
				}
				for name, b := range map[string]func(context.Context, int, []int, []int) (float64, bool){"every node": bound, "half": half} {
					cert, cu, err := chooseUnion(ctx, n, s.Total, keep, union, and, 0, dev, b, 2)
					if err != nil {
						t.Fatal(err)
					}
					if pu != cu || len(plain) != len(cert) {
						t.Errorf("seed %d N %d miss %v, bounds for %s: union %v, %v with the refits alone", seed, rows, miss, name, cu, pu)
					}
					if c := calls.Swap(0); c < all {
						decided++
						if pu {
							t.Errorf("seed %d N %d miss %v, bounds for %s: refits saved where they chose G_U", seed, rows, miss, name)
						}
					}
				}
			}
		}
	}
	t.Logf("%d of 24 cases chose G_U; the bounds saved refits in %d of 48", unions, decided)
	if unions == 0 {
		t.Error("no case chose G_U: the comparison above never saw one")
	}
	// The chance-only cases at N = 20000 (4 seeds, both ways), at least.
	if decided < 8 {
		t.Errorf("the bounds saved refits in %d cases, want at least the 8 chance-only ones at N = 20000", decided)
	}
}

// BenchmarkRefitRows times node i's unconstrained refit on 40 spins read
// from bit samples row by row (past MaxRefitTable, so without patterns),
// 20,000 rows: the refits of step 4 when the certificate cannot decide,
// and the edge test's refits of hubs.
func BenchmarkRefitRows(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	n, rows := 64, 20000
	states := randomStates(rng, n, rows)
	s := bitData(states, nil)
	nb := make([]int, 40)
	for a := range nb {
		nb[a] = a + 1
	}
	b.ResetTimer()
	for range b.N {
		if _, ok := refitDeviance(context.Background(), s, 0, nb, nb); !ok {
			b.Fatal("no estimate")
		}
	}
}

// BenchmarkRefitPatterns times node i's unconstrained refit on 4 spins of
// bit samples, 100,000 rows, whose rows are gathered once into a table of
// their patterns (newRefitData): the refits on G_W of the EBIC graph's
// bounds, and the edge test's refits.
func BenchmarkRefitPatterns(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	n, rows := 64, 100000
	states := randomStates(rng, n, rows)
	s := bitData(states, nil)
	nb := []int{3, 17, 40, 63}
	b.ResetTimer()
	for range b.N {
		if _, ok := refitDeviance(context.Background(), s, 0, nb, nb); !ok {
			b.Fatal("no estimate")
		}
	}
}
