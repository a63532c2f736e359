package engine

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mrfkit/pairwise/solve"
)

// ulps returns |a − b| in units of the last place of b (0 when both are
// the same value or both NaN; +Inf when exactly one is NaN or they differ
// in sign or infinity).
func ulps(a, b float64) float64 {
	switch {
	case a == b || math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0):
		return math.Inf(1)
	}
	ulp := math.Nextafter(math.Abs(b), math.Inf(1)) - math.Abs(b)
	return math.Abs(a-b) / ulp
}

// TestSigmoids checks Sigmoids against solve.Sigmoid, on both signs of u
// and y, at the branch points (±0), far in the tails, at ±Inf and NaN, and
// for labels other than ±1 (which call solve): within 4 ulp, the sum of
// expTable's 3 and the rounding of the division, and exactly at 0, ±Inf and
// NaN.
func TestSigmoids(t *testing.T) {
	us := []float64{0, math.Copysign(0, -1), 1e-300, -1e-300, 1e-9, -1e-9, 0.5, -0.5, 1, -1,
		20, -20, 36.7, -36.7, 700, -700, 746, -746, math.Inf(1), math.Inf(-1), math.NaN()}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		us = append(us, rng.NormFloat64()*8)
	}
	const tol = 4
	for _, y := range []float64{1, -1, 0.5, 0} {
		for _, u := range us {
			sg, sgy := Sigmoids(u, y)
			for _, c := range []struct {
				what      string
				got, want float64
			}{{"σ(u)", sg, solve.Sigmoid(u)}, {"σ(−yu)", sgy, solve.Sigmoid(-y * u)}} {
				e := ulps(c.got, c.want)
				special := u == 0 || math.IsInf(u, 0) || math.IsNaN(u)
				if e > tol || special && e != 0 && c.want != 0.5 {
					t.Errorf("y = %v, u = %v: %s = %v, want %v (%.1f ulp)", y, u, c.what, c.got, c.want, e)
				}
			}
		}
	}
}

// TestLog1pFast checks log1pFast against math.Log1p (itself within 1 ulp)
// on a dense grid of its range [−1/2, 1], on every table boundary and its
// neighbours, on tiny arguments (where the relative accuracy of ln(1 + x)
// ≈ x matters) and outside the range (math.Log1p itself): within 4 ulp,
// the table entry's rounding, the polynomial's and the final sum's.
func TestLog1pFast(t *testing.T) {
	var xs []float64
	for i := 0; i <= 600000; i++ {
		xs = append(xs, -0.5+1.5*float64(i)/600000)
	}
	for j := -64; j <= 128; j++ {
		for _, d := range []float64{-1.0 / 256, 0, 1.0 / 256} {
			x := float64(j)/128 + d
			xs = append(xs, math.Nextafter(x, -1), x, math.Nextafter(x, 2))
		}
	}
	for e := -300; e <= -1; e++ {
		xs = append(xs, math.Pow(2, float64(e)), -math.Pow(2, float64(e)), 0.7*math.Pow(2, float64(e)))
	}
	xs = append(xs, 0, math.Copysign(0, -1), -0.75, 3, 1e10, math.Inf(1), -1, math.NaN())
	worst := 0.0
	for _, x := range xs {
		e := ulps(log1pFast(x), math.Log1p(x))
		worst = max(worst, e)
		if e > 4 {
			t.Errorf("log1pFast(%v) = %v, want %v (%.1f ulp)", x, log1pFast(x), math.Log1p(x), e)
		}
	}
	t.Logf("worst %.2f ulp", worst)
}

// TestExpTable checks expTable against math.Exp over [−708, 709]: within 3
// ulp (the table entry, the polynomial and the product each round once);
// and its ends: 0 below −708 and for NaN, +Inf above 709.
func TestExpTable(t *testing.T) {
	worst := 0.0
	for i := 0; i <= 1000000; i++ {
		x := -708 + 1417*float64(i)/1000000
		e := ulps(expTable(x), math.Exp(x))
		worst = max(worst, e)
		if e > 3 {
			t.Fatalf("expTable(%v) = %v, want %v (%.1f ulp)", x, expTable(x), math.Exp(x), e)
		}
	}
	t.Logf("worst %.2f ulp", worst)
	for x, want := range map[float64]float64{-709: 0, math.Inf(-1): 0, math.NaN(): 0, 710: math.Inf(1), math.Inf(1): math.Inf(1), 0: 1} {
		if got := expTable(x); got != want {
			t.Errorf("expTable(%v) = %v, want %v", x, got, want)
		}
	}
}

// TestSoftplusFast checks softplusFast against solve.Softplus on random
// arguments of every scale and the special values: within 4 ulp, and
// exactly at ±Inf, NaN and far in the tails.
func TestSoftplusFast(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	xs := []float64{0, math.Copysign(0, -1), 1e-300, -1e-300, 40, -40, 745, -745, 800, -800, 1e300, -1e300, math.Inf(1), math.Inf(-1), math.NaN()}
	for range 200000 {
		xs = append(xs, rng.NormFloat64()*math.Pow(10, 3*rng.Float64()-2))
	}
	for _, x := range xs {
		if e := ulps(softplusFast(x), solve.Softplus(x)); e > 4 {
			t.Errorf("softplusFast(%v) = %v, want %v (%.1f ulp)", x, softplusFast(x), solve.Softplus(x), e)
		}
	}
}

// softplusBregmanRef is SoftplusBregman with math.Log1p and math.Expm1,
// the reference of TestSoftplusBregmanFast.
func softplusBregmanRef(b, s, delta float64) float64 {
	if b > 0 {
		b, delta = -b, -delta
	}
	if math.Abs(delta) < 0.05 {
		return SoftplusBregman(b, s, delta)
	}
	if delta < 30 {
		return math.Max(0, math.Log1p(s*math.Expm1(delta))-s*delta)
	}
	return math.Max(0, solve.Softplus(b+delta)-math.Log1p(math.Exp(b))-s*delta)
}

// TestSoftplusBregmanFast checks SoftplusBregman's branch for |δ| ≥ 0.05
// (expTable and log1pFast) against the same formula with math.Expm1 and
// math.Log1p: within 1e-12 relative. The worst case is δ = 0.05 at b = 0,
// where ln(1 + s(e^δ − 1)) cancels against sδ by a factor of about 80 and
// e^δ − 1 loses 4.3 bits: 80 · 2^4.3 · 4 ulp ≈ 1.4e-12 at most, 1e-12
// in practice (the errors do not all add).
func TestSoftplusBregmanFast(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	worst := 0.0
	for range 200000 {
		b := rng.NormFloat64() * 6
		d := math.Copysign(0.05+rng.ExpFloat64()*[]float64{0.05, 1, 5}[rng.IntN(3)], rng.NormFloat64())
		s := solve.Sigmoid(-math.Abs(b))
		got, want := SoftplusBregman(b, s, d), softplusBregmanRef(b, s, d)
		e := math.Abs(got-want) / want
		worst = max(worst, e)
		if e > 1e-12 {
			t.Errorf("SoftplusBregman(%v, %v, %v) = %v, want %v (relative %.2g)", b, s, d, got, want, e)
		}
	}
	t.Logf("worst relative difference %.2g", worst)
}

// TestLogisticPair checks logisticPair against solve.Sigmoid and
// solve.Softplus on both signs and scales of u and at 0, ±Inf and NaN:
// within 4 ulp (see TestSigmoids), exactly at the special values.
func TestLogisticPair(t *testing.T) {
	us := []float64{0, math.Copysign(0, -1), 1e-300, -1e-300, 36.7, -36.7, 700, -700, 746, -746,
		math.Inf(1), math.Inf(-1), math.NaN()}
	rng := rand.New(rand.NewPCG(3, 9))
	for range 20000 {
		us = append(us, rng.NormFloat64()*8)
	}
	for _, u := range us {
		sg, sgm, spPos, spNeg := logisticPair(u)
		for _, c := range []struct {
			what      string
			got, want float64
		}{{"σ(u)", sg, solve.Sigmoid(u)}, {"σ(−u)", sgm, solve.Sigmoid(-u)},
			{"softplus(−u)", spPos, solve.Softplus(-u)}, {"softplus(u)", spNeg, solve.Softplus(u)}} {
			e := ulps(c.got, c.want)
			special := math.IsInf(u, 0) || math.IsNaN(u)
			if e > 4 || special && e != 0 {
				t.Errorf("u = %v: %s = %v, want %v (%.1f ulp)", u, c.what, c.got, c.want, e)
			}
		}
	}
}
