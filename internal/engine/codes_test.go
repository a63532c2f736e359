package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mrfkit/pairwise/solve"
)

// randomSamples returns rows of uniform random states.
func randomSamples(t testing.TB, rows, n, k int, r *rand.Rand) *Rows {
	t.Helper()
	z := make([]uint8, rows*n)
	for x := range z {
		z[x] = uint8(r.IntN(k))
	}
	return &Rows{N: n, K: k, Count: rows, States: z}
}

// TestCodedDesignMatchesReference checks the table kernels against the plain
// layouts of package solve (the reference) on random states and weights,
// for every grouping from one variable a group to the largest tables, with
// the bias in the first, a middle and the last group; spins for k = 2 and
// for k = 3, where state 2 is a missing spin that the plain layout holds
// as 0. The two sum the same
// terms in different orders; with |w|, |r| ≤ 1 and at most n·k terms a sum,
// the difference is a few ulps of n·k, far below 1e-12.
func TestCodedDesignMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct{ n, k, rows int }{
		{1, 2, 7}, {3, 2, 50}, {17, 2, 300}, {13, 3, 200}, {9, 6, 300}, {5, 21, 100}, {4, 256, 50},
	} {
		s := randomSamples(t, tc.rows, tc.n, tc.k, r)
		for _, limit := range []int{tc.k, 16, 256, 1024} {
			per := groupSize(tc.n, tc.k, limit)
			gc := newGroupCodes(s, per)
			if gc == nil {
				t.Fatalf("n=%d k=%d: no codes for %d variables a group", tc.n, tc.k, per)
			}
			for _, bias := range []int{0, tc.n / 2, tc.n - 1} {
				for _, spins := range []bool{true, false} {
					if spins && tc.k > 3 {
						continue // k = 3: state 2 is a missing spin, 0 (Rows)
					}
					name := fmt.Sprintf("n=%d/k=%d/per=%d/bias=%d/spins=%v", tc.n, tc.k, per, bias, spins)
					t.Run(name, func(t *testing.T) {
						checkCodedDesign(t, s, gc, bias, spins, r)
					})
				}
			}
		}
	}
}

func checkCodedDesign(t *testing.T, s *Rows, gc *groupCodes, bias int, spins bool, r *rand.Rand) {
	t.Helper()
	n, k, rows := s.N, s.K, s.Count
	var ref interface {
		Margins(dst, w []float64)
		Gradient(dst, r []float64)
		Dim() int
	}
	if spins {
		ref = solve.Spins{X: encodeSpins(s), Cols: n, Bias: bias}
	} else {
		ref = solve.OneHot{Z: s.States, Groups: n, K: k, Bias: bias}
	}
	d := newCodedDesign(gc, gc.codes, bias, spins, nil, nil)
	if d.Dim() != ref.Dim() {
		t.Fatalf("Dim = %d, want %d", d.Dim(), ref.Dim())
	}
	w := make([]float64, ref.Dim())
	for j := range w {
		w[j] = 2*r.Float64() - 1
	}
	res := make([]float64, rows)
	for m := range res {
		res[m] = 2*r.Float64() - 1
	}
	got, want := make([]float64, rows), make([]float64, rows)
	d.Margins(got, w)
	ref.Margins(want, w)
	if e := maxDiff(got, want); e > 1e-12 {
		t.Errorf("margins differ by %.3g", e)
	}
	gg, gw := make([]float64, ref.Dim()), make([]float64, ref.Dim())
	for j := range gg {
		gg[j] = math.NaN() // Gradient must overwrite every entry
	}
	d.Gradient(gg, res)
	ref.Gradient(gw, res)
	if e := maxDiff(gg, gw); !(e <= 1e-12) {
		t.Errorf("gradients differ by %.3g", e)
	}
}

func maxDiff(a, b []float64) float64 {
	mx := 0.0
	for i := range a {
		d := math.Abs(a[i] - b[i])
		if math.IsNaN(d) {
			return math.NaN()
		}
		mx = math.Max(mx, d)
	}
	return mx
}

func TestGroupSize(t *testing.T) {
	for _, tc := range []struct{ n, k, limit, want int }{
		{100, 2, 256, 8},
		{9, 6, 256, 3},
		{50, 21, 256, 1},
		{50, 21, 512, 2},
		{3, 2, 256, 3},       // never more variables than there are
		{30000, 2, 256, 2},   // 15000 groups of 4 entries fit, 3750 of 256 do not
		{70000, 2, 256, 0},   // even one variable a group overflows the uint16 codes
		{1000, 256, 256, 0},  // 256000 entries
		{200, 256, 65536, 1}, // 51200 entries fit one variable a group
		{2040, 2, 256, 8},    // 255 groups of 256 entries
		{2100, 2, 256, 7},    // 300 groups of 128
		{100000, 2, 256, 0},
	} {
		got := groupSize(tc.n, tc.k, tc.limit)
		if got != tc.want {
			t.Errorf("groupSize(%d, %d, %d) = %d, want %d", tc.n, tc.k, tc.limit, got, tc.want)
		}
	}
}

// TestBregmanBound checks that bregmanBound bounds logisticBregman from
// above, within its ratio, and tightly for small steps, on random margins
// and steps of every size. The 1e-12 allows for the rounding of the sums.
func TestBregmanBound(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, scale := range []float64{1e-6, 1e-3, 0.05, 0.3, 1, 3, 30} {
		const n = 1000
		a, b, sig, y, cw, res := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		for m := range b {
			b[m] = 10 * (2*r.Float64() - 1)
			a[m] = b[m] + scale*(2*r.Float64()-1)
			y[m] = float64(2*r.IntN(2) - 1)
			cw[m] = 1.0 / n
		}
		LogisticResiduals(res, sig, b, y, cw)
		exact := LogisticBregman(a, b, sig, y, cw)
		bound, ratio := bregmanBound(a, b, sig, y, cw)
		if bound < exact*(1-1e-12) {
			t.Errorf("step %g: bound %.6g below the divergence %.6g", scale, bound, exact)
		}
		if bound > exact*ratio*(1+1e-12) {
			t.Errorf("step %g: bound %.6g above the divergence %.6g times the ratio %.6g", scale, bound, exact, ratio)
		}
		// For |δ| ≤ 1e-3 the bound exceeds D by a factor below
		// e^{|δ|}(1 + 0.91|δ|) < 1.002.
		if scale <= 1e-3 && bound > exact*1.002 {
			t.Errorf("step %g: bound %.6g, divergence %.6g: looser than 0.2%%", scale, bound, exact)
		}
	}
}

// TestFastResiduals checks fastResiduals against logisticResiduals, the
// reference, to 4 ulp of the residuals' scale: they differ only in the
// exponential (3 ulp) and in the order of a product.
func TestFastResiduals(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n = 10000
	u, y, cw := make([]float64, n), make([]float64, n), make([]float64, n)
	for m := range u {
		u[m] = 40 * (2*r.Float64() - 1) * r.Float64() * r.Float64()
		y[m] = float64(2*r.IntN(2) - 1)
		cw[m] = r.Float64()
	}
	u[0], u[1], u[2] = 0, 800, -800
	rr, sr, rf, sf := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	LogisticResiduals(rr, sr, u, y, cw)
	fastResiduals(rf, sf, u, y, cw)
	for m := range u {
		if math.Abs(rf[m]-rr[m]) > 4*0x1p-52*math.Abs(rr[m]) || math.Abs(sf[m]-sr[m]) > 4*0x1p-52*math.Abs(sr[m]) {
			t.Fatalf("row %d (u = %v, y = %v): residual %v, want %v; σ %v, want %v", m, u[m], y[m], rf[m], rr[m], sf[m], sr[m])
		}
	}
}

// TestCodedDesignFused checks the fused kernels against the separate ones:
// residualGradient against fastResiduals and Gradient (the same sums in the
// same order, so equal to the last bit), marginsBound against Margins and
// bregmanBound.
func TestCodedDesignFused(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		n, k  int
		spins bool
	}{{20, 2, true}, {9, 6, false}, {7, 21, false}} {
		s := randomSamples(t, 700, tc.n, tc.k, r)
		gc := newGroupCodes(s, groupSize(tc.n, tc.k, maxGroupTable))
		d := newCodedDesign(gc, gc.codes, 1, tc.spins, nil, nil)
		rows, dim := s.Count, d.Dim()
		u, b, y, cw, w := make([]float64, rows), make([]float64, rows), make([]float64, rows), make([]float64, rows), make([]float64, dim)
		for m := range u {
			u[m] = 6 * (2*r.Float64() - 1)
			b[m] = u[m] + 0.3*(2*r.Float64()-1)
			y[m] = float64(2*r.IntN(2) - 1)
			cw[m] = 1 / float64(rows)
		}
		for j := range w {
			w[j] = 0.3 * (2*r.Float64() - 1)
		}
		r1, s1, g1 := make([]float64, rows), make([]float64, rows), make([]float64, dim)
		r2, s2, g2 := make([]float64, rows), make([]float64, rows), make([]float64, dim)
		fastResiduals(r1, s1, u, y, cw)
		d.Gradient(g1, r1)
		d.residualGradient(g2, r2, s2, u, y, cw)
		for j := range g1 {
			if g1[j] != g2[j] {
				t.Fatalf("n=%d k=%d: residualGradient differs at %d: %v, want %v", tc.n, tc.k, j, g2[j], g1[j])
			}
		}
		m1, m2 := make([]float64, rows), make([]float64, rows)
		d.Margins(m1, w)
		hi1, ratio1 := bregmanBound(m1, b, s1, y, cw)
		hi2, ratio2 := d.marginsBound(m2, w, b, s1, y, cw)
		if maxDiff(m1, m2) != 0 || hi1 != hi2 || ratio1 != ratio2 {
			t.Errorf("n=%d k=%d: marginsBound = (%v, %v), want (%v, %v)", tc.n, tc.k, hi2, ratio2, hi1, ratio1)
		}
	}
}

// TestCholesky checks cholesky and cholSolve on a random positive definite
// matrix against the residual of the solution: ‖Ax − b‖ within 1e-10 of
// ‖b‖ for a matrix of condition number about 1e3 (the regularisation adds
// 1e-10 of the largest diagonal entry, a relative change of the same size).
func TestCholesky(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	const d = 40
	a := make([]float64, d*d)
	for i := 0; i < d; i++ {
		for k := 0; k < d; k++ {
			a[i*d+k] = r.NormFloat64()
		}
	}
	spd := make([]float64, d*d) // AᵀA + I
	for i := 0; i < d; i++ {
		for k := 0; k < d; k++ {
			s := 0.0
			for l := 0; l < d; l++ {
				s += a[l*d+i] * a[l*d+k]
			}
			if i == k {
				s++
			}
			spd[i*d+k] = s
		}
	}
	f := append([]float64(nil), spd...)
	if !cholesky(f, d) {
		t.Fatal("cholesky failed on a positive definite matrix")
	}
	b := make([]float64, d)
	for i := range b {
		b[i] = r.NormFloat64()
	}
	x := append([]float64(nil), b...)
	cholSolve(f, d, x)
	worst, nb := 0.0, 0.0
	for i := 0; i < d; i++ {
		s := 0.0
		for k := 0; k < d; k++ {
			s += spd[i*d+k] * x[k]
		}
		worst = math.Max(worst, math.Abs(s-b[i]))
		nb = math.Max(nb, math.Abs(b[i]))
	}
	if worst > 1e-10*nb*float64(d) {
		t.Errorf("max |Ax − b| = %.3g, want ≤ %.3g", worst, 1e-10*nb*float64(d))
	}
	neg := []float64{1, 2, 0, 1} // upper triangle of [[1, 2], [2, 1]], indefinite
	if cholesky(neg, 2) {
		t.Error("cholesky accepted an indefinite matrix")
	}
}

// TestSpinMoments checks the blas64 second moment against a direct sum.
func TestSpinMoments(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	s := randomSamples(t, 1300, 13, 2, r) // more rows than one block of 512
	cw := make([]float64, s.Count)
	for m := range cw {
		cw[m] = r.Float64()
	}
	cov, mean := spinMoments(s, cw)
	for j := 0; j < s.N; j++ {
		mj := 0.0
		for m := 0; m < s.Count; m++ {
			mj += cw[m] * float64(2*int(s.States[m*s.N+j])-1)
		}
		if math.Abs(mj-mean[j]) > 1e-12*float64(s.Count) {
			t.Errorf("mean[%d] = %v, want %v", j, mean[j], mj)
		}
		for k := 0; k < s.N; k++ {
			c := 0.0
			for m := 0; m < s.Count; m++ {
				c += cw[m] * float64((2*int(s.States[m*s.N+j])-1)*(2*int(s.States[m*s.N+k])-1))
			}
			if math.Abs(c-cov[j*s.N+k]) > 1e-12*float64(s.Count) {
				t.Errorf("cov[%d][%d] = %v, want %v", j, k, cov[j*s.N+k], c)
			}
		}
	}
}

// byteCodes returns a copy of gc (k = 2, eight variables a group) with
// its codes as bytes, the offsets 256·g taken off.
func byteCodes(gc *groupCodes) *groupCodes {
	bc := *gc
	bc.codes, bc.codes8 = nil, make([]uint8, len(gc.codes))
	for x, c := range gc.codes {
		bc.codes8[x] = uint8(int(c) - 256*(x%gc.groups))
	}
	return &bc
}

// TestByteCodes checks the byte codes of the working sets (codes8: k = 2,
// eight variables a group, the group's offset 256·g added by the kernels)
// against the 16-bit codes of the same rows: every pass must give the same
// bits, unsplit and split among a team, since the byte kernels read the
// same table cells in the same order. n = 21 makes a last group of five
// variables, n = 557 seventy groups (offsets up to 17,664).
func TestByteCodes(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 13))
	for _, n := range []int{21, 557} {
		rows := 1500
		s := randomSamples(t, rows, n, 2, r)
		gc := newGroupCodes(s, 8)
		bc := byteCodes(gc)
		for x, c := range gc.codes {
			if 256*(x%gc.groups)+int(bc.codes8[x]) != int(c) {
				t.Fatalf("n=%d: code %d = %d is not 256·g plus a byte", n, x, c)
			}
		}
		w := make([]float64, n)
		for j := range w {
			w[j] = r.Float64() - 0.5
		}
		res, y, cw, base, sigB := kernelVectors(r, rows)
		run := func(x *codedDesign) [][]float64 {
			margins, g, rg := make([]float64, rows), make([]float64, n), make([]float64, n)
			x.Margins(margins, w)
			x.Gradient(g, res)
			rr, sig := make([]float64, rows), make([]float64, rows)
			x.residualGradient(rg, rr, sig, base, y, cw)
			u := make([]float64, rows)
			hi, ratio := x.marginsBound(u, w, base, sigB, y, cw)
			return [][]float64{margins, g, rg, rr, sig, u, {hi, ratio}}
		}
		for _, workers := range []int{0, 3} {
			want, got := newCodedDesign(gc, gc.codes, 4, true, nil, nil), newByteDesign(bc, 4, true, nil, nil)
			if got.Len() != rows {
				t.Fatalf("n=%d: the byte design has %d rows, want %d", n, got.Len(), rows)
			}
			if workers > 0 {
				splitAll(t, workers, want, got)
			}
			a, b := run(want), run(got)
			for i := range a {
				for x := range a[i] {
					if a[i][x] != b[i][x] {
						t.Fatalf("n=%d, workers %d: output %d, entry %d: bytes give %v, 16-bit codes %v", n, workers, i, x, b[i][x], a[i][x])
					}
				}
			}
		}
	}
}

// TestScoredDesign checks the scored design of the ordinal model
// (Data.SetScores) against its definition, summed directly: x_mj =
// s_j(z_mj) for j ≠ bias and 1 for the bias, on random scores in [−1, 1],
// for groupings from one variable a group to the largest tables. The
// tolerance is that of TestCodedDesignMatchesReference: the same terms
// summed in another order.
func TestScoredDesign(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct{ n, k, rows int }{{1, 3, 5}, {6, 2, 40}, {9, 6, 300}, {25, 7, 200}} {
		s := randomSamples(t, tc.rows, tc.n, tc.k, r)
		scores := make([]float64, tc.n*tc.k)
		for x := range scores {
			scores[x] = 2*r.Float64() - 1
		}
		for _, limit := range []int{tc.k, 256, 1024} {
			gc := newGroupCodes(s, groupSize(tc.n, tc.k, limit))
			for _, bias := range []int{0, tc.n - 1} {
				d := newCodedDesign(gc, gc.codes, bias, false, nil, nil)
				d.scores = scores
				if d.Dim() != tc.n || d.GroupSize() != 1 {
					t.Fatalf("Dim, GroupSize = %d, %d, want %d, 1", d.Dim(), d.GroupSize(), tc.n)
				}
				x := func(m, j int) float64 {
					if j == bias {
						return 1
					}
					return scores[j*tc.k+int(s.States[m*tc.n+j])]
				}
				w := make([]float64, tc.n)
				for j := range w {
					w[j] = 2*r.Float64() - 1
				}
				res := make([]float64, tc.rows)
				for m := range res {
					res[m] = 2*r.Float64() - 1
				}
				got := make([]float64, tc.rows)
				d.Margins(got, w)
				for m := range got {
					want := 0.0
					for j := range w {
						want += w[j] * x(m, j)
					}
					if math.Abs(got[m]-want) > 1e-12 {
						t.Fatalf("n=%d k=%d bias=%d row %d: margin %v, want %v", tc.n, tc.k, bias, m, got[m], want)
					}
				}
				grad := make([]float64, tc.n)
				d.Gradient(grad, res)
				for j := range grad {
					want := 0.0
					for m := range res {
						want += res[m] * x(m, j)
					}
					if math.Abs(grad[j]-want) > 1e-11 {
						t.Fatalf("n=%d k=%d bias=%d: gradient %d = %v, want %v", tc.n, tc.k, bias, j, grad[j], want)
					}
				}
			}
		}
	}
}
