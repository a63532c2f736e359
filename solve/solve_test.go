package solve

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// dense materialises a design row by row, independently of Margins and
// Gradient: Spins rows with the Bias column read as 1, one-hot rows with the
// Bias group read as state 0.
func denseSpins(s Spins) [][]float64 {
	rows := make([][]float64, s.Len())
	for m := range rows {
		rows[m] = append([]float64(nil), s.X[m*s.Cols:(m+1)*s.Cols]...)
		if s.Bias >= 0 {
			rows[m][s.Bias] = 1
		}
	}
	return rows
}

func denseOneHot(o OneHot) [][]float64 {
	rows := make([][]float64, o.Len())
	for m := range rows {
		rows[m] = make([]float64, o.Dim())
		for j := 0; j < o.Groups; j++ {
			a := int(o.Z[m*o.Groups+j])
			if j == o.Bias {
				a = 0
			}
			rows[m][j*o.K+a] = 1
		}
	}
	return rows
}

func randVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

// checkLayout compares Margins and Gradient with the dense design. 1e-12:
// sums of at most a few hundred O(1) products.
func checkLayout[F Layout](t *testing.T, name string, x F, rows [][]float64, rng *rand.Rand) {
	t.Helper()
	if x.Len() != len(rows) {
		t.Fatalf("%s: Len %d, want %d", name, x.Len(), len(rows))
	}
	w := randVec(rng, x.Dim())
	u := make([]float64, x.Len())
	x.Margins(u, w)
	for m, row := range rows {
		want := 0.0
		for j, v := range row {
			want += v * w[j]
		}
		if math.Abs(u[m]-want) > 1e-12 {
			t.Fatalf("%s: margin %d = %v, want %v", name, m, u[m], want)
		}
	}
	r := randVec(rng, x.Len())
	r[0] = 0 // rows with a zero residual are skipped
	g := randVec(rng, x.Dim())
	x.Gradient(g, r)
	for j := range g {
		want := 0.0
		for m, row := range rows {
			want += r[m] * row[j]
		}
		if math.Abs(g[j]-want) > 1e-12 {
			t.Fatalf("%s: gradient %d = %v, want %v", name, j, g[j], want)
		}
	}
}

func TestSpinsLayout(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, d := range []int{1, 3, 7, 16} {
		for _, bias := range []int{-1, 0, d / 2, d - 1} {
			n := 5 + rng.IntN(40)
			x := make([]float64, n*d)
			for i := range x {
				if rng.IntN(2) == 0 {
					x[i] = float64(2*rng.IntN(2) - 1) // the Ising case
				} else {
					x[i] = rng.NormFloat64() // any real features
				}
			}
			s := Spins{X: x, Cols: d, Bias: bias}
			if s.Dim() != d || s.GroupSize() != 1 {
				t.Fatalf("Dim %d GroupSize %d", s.Dim(), s.GroupSize())
			}
			checkLayout(t, "spins", s, denseSpins(s), rng)
		}
	}
	if (Spins{}).Len() != 0 {
		t.Error("an empty Spins has rows")
	}
}

func TestOneHotLayout(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, groups := range []int{1, 2, 5} {
		for _, k := range []int{1, 2, 3, 6} {
			for _, bias := range []int{-1, 0, groups - 1} {
				n := 5 + rng.IntN(40)
				z := make([]uint8, n*groups)
				for i := range z {
					z[i] = uint8(rng.IntN(k))
					if i%groups == bias {
						z[i] = uint8(rng.IntN(256)) // the bias group reads as 0 whatever it holds
					}
				}
				o := OneHot{Z: z, Groups: groups, K: k, Bias: bias}
				if o.Dim() != groups*k || o.GroupSize() != k {
					t.Fatalf("Dim %d GroupSize %d", o.Dim(), o.GroupSize())
				}
				checkLayout(t, "onehot", o, denseOneHot(o), rng)
			}
		}
	}
	if (OneHot{K: 3}).Len() != 0 {
		t.Error("an empty OneHot has rows")
	}
}

func randProblem(rng *rand.Rand, n, d int, weighted bool) *Problem[Spins] {
	x := make([]float64, n*d)
	for i := range x {
		x[i] = float64(2*rng.IntN(2) - 1)
	}
	p := &Problem[Spins]{X: Spins{X: x, Cols: d, Bias: 0}, Y: make([]float64, n), Radius: 2}
	for m := range p.Y {
		p.Y[m] = float64(2*rng.IntN(2) - 1)
	}
	if weighted {
		p.C = make([]float64, n)
		for m := range p.C {
			p.C[m] = rng.Float64() * 3
		}
		p.C[1] = 0
	}
	return p
}

// TestEvaluate checks Evaluate against Loss, its scratch outputs against
// their documentation, and its gradient against central differences: with
// h = 1e-5 the truncation error is about h²·|L”'| ≤ 1e-10 and the rounding
// about 1e-16/h ≈ 1e-11, so 1e-8 has a wide margin.
func TestEvaluate(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, weighted := range []bool{false, true} {
		p := randProblem(rng, 60, 5, weighted)
		w := randVec(rng, 5)
		g := make([]float64, 5)
		u, r := make([]float64, 60), make([]float64, 60)
		loss := Evaluate(p, w, g, u, r)
		if l := Loss(p, w); math.Abs(l-loss) > 1e-15 {
			t.Errorf("Evaluate %v, Loss %v", loss, l)
		}
		total := 60.0
		if weighted {
			total = 0
			for _, c := range p.C {
				total += c
			}
		}
		rows := denseSpins(p.X)
		manual := 0.0
		for m, row := range rows {
			um := 0.0
			for j, v := range row {
				um += v * w[j]
			}
			c := 1.0
			if weighted {
				c = p.C[m]
			}
			manual += c * math.Log(1+math.Exp(-p.Y[m]*um)) / total
			if math.Abs(u[m]-um) > 1e-12 {
				t.Errorf("u[%d] = %v, want the margin %v", m, u[m], um)
			}
			want := c * (1/(1+math.Exp(-p.Y[m]*um)) - 1) * p.Y[m] / total
			if math.Abs(r[m]-want) > 1e-15 {
				t.Errorf("r[%d] = %v, want %v", m, r[m], want)
			}
		}
		if math.Abs(manual-loss) > 1e-13 {
			t.Errorf("loss %v, by hand %v", loss, manual)
		}
		const h = 1e-5
		for j := range w {
			wp, wm := append([]float64(nil), w...), append([]float64(nil), w...)
			wp[j] += h
			wm[j] -= h
			fd := (Loss(p, wp) - Loss(p, wm)) / (2 * h)
			if math.Abs(fd-g[j]) > 1e-8 {
				t.Errorf("weighted=%v: ∂L/∂w_%d = %v, finite difference %v", weighted, j, g[j], fd)
			}
		}
	}
}

// TestGapBoundsSuboptimality: on two-dimensional problems L* can be bounded
// by brute force. The minimum over a fine grid of the ball is ≥ L*, so
// Gap(w) ≥ L(w) − L* implies Gap(w) ≥ L(w) − min_grid; 1e-12 for rounding.
// The ball is the l1 diamond for Spins and the disc (one group of K = 2) for
// OneHot.
func TestGapBoundsSuboptimality(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, radius := range []float64{0.3, 3} {
		sp := randProblem(rng, 40, 2, true)
		sp.X.Bias = -1
		sp.Radius = radius
		z := make([]uint8, 40)
		for i := range z {
			z[i] = uint8(rng.IntN(2))
		}
		oh := &Problem[OneHot]{X: OneHot{Z: z, Groups: 1, K: 2, Bias: -1}, Y: sp.Y, C: sp.C, Radius: radius}

		const steps = 150
		minSp, minOh := math.Inf(1), math.Inf(1)
		for i := -steps; i <= steps; i++ {
			for k := -steps; k <= steps; k++ {
				w := []float64{radius * float64(i) / steps, radius * float64(k) / steps}
				if Norm(w, 1) <= radius {
					minSp = math.Min(minSp, Loss(sp, w))
				}
				if Norm(w, 2) <= radius {
					minOh = math.Min(minOh, Loss(oh, w))
				}
			}
		}
		g := make([]float64, 2)
		u, r := make([]float64, 40), make([]float64, 40)
		for trial := 0; trial < 200; trial++ {
			w := randVec(rng, 2)
			s := radius * rng.Float64() / Norm(w, 1)
			w[0], w[1] = w[0]*s, w[1]*s
			l := Evaluate(sp, w, g, u, r)
			if gap := Gap(g, w, 1, radius); gap < l-minSp-1e-12 || gap < -1e-15 {
				t.Fatalf("spins R=%g: gap %g < L(w) − min %g", radius, gap, l-minSp)
			}
			s = radius * rng.Float64() / Norm(w, 2)
			w[0], w[1] = w[0]*s, w[1]*s
			l = Evaluate(oh, w, g, u, r)
			if gap := Gap(g, w, 2, radius); gap < l-minOh-1e-12 || gap < -1e-15 {
				t.Fatalf("onehot R=%g: gap %g < L(w) − min %g", radius, gap, l-minOh)
			}
		}
	}
}

func TestNorms(t *testing.T) {
	g := []float64{3, -4, 1, 2, 0, -0.5}
	cases := []struct {
		gs         int
		norm, dual float64
	}{
		{1, 10.5, 4},                   // l1 = 3+4+1+2+0+0.5, l∞ = 4
		{2, 5 + math.Sqrt(5) + 0.5, 5}, // groups (3,-4) (1,2) (0,-0.5)
		{3, math.Sqrt(26) + math.Sqrt(4.25), math.Sqrt(26)}, // (3,-4,1) (2,0,-0.5)
		{6, math.Sqrt(9 + 16 + 1 + 4 + 0.25), math.Sqrt(30.25)},
	}
	for _, c := range cases {
		if n := Norm(g, c.gs); math.Abs(n-c.norm) > 1e-14 {
			t.Errorf("Norm(gs=%d) = %v, want %v", c.gs, n, c.norm)
		}
		if n := DualNorm(g, c.gs); math.Abs(n-c.dual) > 1e-14 {
			t.Errorf("DualNorm(gs=%d) = %v, want %v", c.gs, n, c.dual)
		}
	}
	// Gap = ⟨g, w⟩ + R‖g‖_*: by hand for w = (1, 0, 0, 0, 0, 0), R = 2.
	w := []float64{1, 0, 0, 0, 0, 0}
	if gap := Gap(g, w, 2, 2); gap != 3+2*5 {
		t.Errorf("Gap = %v, want 13", gap)
	}
}

func TestSigmoidSoftplus(t *testing.T) {
	for _, x := range []float64{-1000, -40, -1, 0, 0.5, 40, 1000} {
		s, sp := Sigmoid(x), Softplus(x)
		if math.IsNaN(s) || math.IsNaN(sp) || s < 0 || s > 1 || sp < 0 {
			t.Errorf("x=%v: σ %v, softplus %v", x, s, sp)
		}
		// σ(x) + σ(−x) = 1 and softplus(x) − softplus(−x) = x.
		if math.Abs(s+Sigmoid(-x)-1) > 1e-15 || math.Abs(sp-Softplus(-x)-x) > 1e-12*math.Max(1, math.Abs(x)) {
			t.Errorf("x=%v: symmetry fails", x)
		}
	}
	if Softplus(-1000) != 0 || Softplus(1000) != 1000 || Sigmoid(0) != 0.5 {
		t.Error("extremes")
	}
}

func TestFunc(t *testing.T) {
	called := false
	var s Solver[OneHot] = Func[OneHot](func(ctx context.Context, p *Problem[OneHot], w []float64) (Stats, error) {
		called = true
		return Stats{Iterations: 7}, nil
	})
	st, err := s.Solve(context.Background(), nil, nil)
	if !called || err != nil || st.Iterations != 7 {
		t.Errorf("Func: %v %+v %v", called, st, err)
	}
}
