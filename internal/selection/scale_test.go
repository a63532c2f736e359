package selection

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestLinearByLinearG2 checks the linear-by-linear fit against two
// references: a table that is the model's own expected counts (G² = 0),
// and an independent fit of the same model as a Poisson log-linear
// regression solved by Newton's method on all its parameters (intercept,
// row and column effects, φ) on random tables with empty cells. Both fits
// stop at a relative change of 1e-10; their G² agree to 1e-6.
func TestLinearByLinearG2(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	for _, k := range []int{3, 5, 7} {
		u, v := make([]float64, k), make([]float64, k)
		for a := range u {
			u[a] = float64(2*a-(k-1)) / float64(k-1)
			v[a] = u[a] * u[a] * u[a] // unequal spacing
		}
		exact := make([]float64, k*k)
		for a := 0; a < k; a++ {
			for b := 0; b < k; b++ {
				exact[a*k+b] = 100 * math.Exp(0.3*float64(a)-0.2*float64(b)+0.8*u[a]*v[b])
			}
		}
		if g2 := LinearByLinearG2(exact, k, u, v); g2 > 1e-8 {
			t.Errorf("k=%d: G² of the model's own table = %g, want 0", k, g2)
		}
		for trial := 0; trial < 3; trial++ {
			tab := make([]float64, k*k)
			for x := range tab {
				if r.Float64() < 0.15 {
					continue // an empty cell
				}
				tab[x] = float64(r.IntN(40))
			}
			got := LinearByLinearG2(tab, k, u, v)
			want := poissonLBL(t, tab, k, u, v)
			if math.Abs(got-want) > 1e-6*math.Max(1, want) {
				t.Errorf("k=%d: G² = %.10g, the Poisson fit's %.10g", k, got, want)
			}
		}
	}
}

// poissonLBL fits log μ_ab = c + α_a + β_b + φ u_a v_b (α_0 = β_0 = 0) to
// tab by Newton's method on the Poisson log-likelihood over the rows and
// columns of positive count, and returns its G².
func poissonLBL(t *testing.T, tab []float64, k int, u, v []float64) float64 {
	t.Helper()
	var rows, cols []int
	for a := 0; a < k; a++ {
		s1, s2 := 0.0, 0.0
		for b := 0; b < k; b++ {
			s1 += tab[a*k+b]
			s2 += tab[b*k+a]
		}
		if s1 > 0 {
			rows = append(rows, a)
		}
		if s2 > 0 {
			cols = append(cols, a)
		}
	}
	p := 1 + (len(rows) - 1) + (len(cols) - 1) + 1
	x := func(a, b int) []float64 { // a, b index rows, cols
		f := make([]float64, p)
		f[0] = 1
		if a > 0 {
			f[a] = 1
		}
		if b > 0 {
			f[len(rows)-1+b] = 1
		}
		f[p-1] = u[rows[a]] * v[cols[b]]
		return f
	}
	beta := make([]float64, p)
	mean := 0.0
	for _, n := range tab {
		mean += n
	}
	beta[0] = math.Log(mean / float64(len(rows)*len(cols)))
	for it := 0; it < 100; it++ {
		g := mat.NewVecDense(p, nil)
		h := mat.NewSymDense(p, nil)
		for a := range rows {
			for b := range cols {
				f := x(a, b)
				mu := math.Exp(mat.Dot(mat.NewVecDense(p, f), mat.NewVecDense(p, beta)))
				n := tab[rows[a]*k+cols[b]]
				g.AddScaledVec(g, n-mu, mat.NewVecDense(p, f))
				h.SymRankOne(h, mu, mat.NewVecDense(p, f))
			}
		}
		var step mat.VecDense
		if err := step.SolveVec(h, g); err != nil {
			t.Fatal(err)
		}
		for d := range beta {
			beta[d] += step.AtVec(d)
		}
		if mat.Norm(&step, 2) < 1e-12 {
			break
		}
	}
	g2 := 0.0
	for a := range rows {
		for b := range cols {
			n := tab[rows[a]*k+cols[b]]
			mu := math.Exp(mat.Dot(mat.NewVecDense(p, x(a, b)), mat.NewVecDense(p, beta)))
			if n > 0 {
				g2 += n * math.Log(n/mu)
			}
			g2 -= n - mu
		}
	}
	return 2 * g2
}
