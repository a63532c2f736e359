package pairwise

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/internal/selection"
)

// waldModelReference returns the one-step debiased estimate of coefficient
// c (a column of s, not the bias) in the logistic regression of node
// task.Bias on the columns model (the bias first), started from w (zero
// outside the support), and its sandwich variance, from the definitions:
// the design matrix written out row by row, H, J and g summed entry by
// entry, and the system solved by an LU factorisation (gonum's Dense
// Solve), not the block inverse of selection.WaldSupport.
func waldModelReference(s *Samples, task *engine.Task, w, u []float64, total float64, model []int, c int) (d, v float64) {
	n, q := s.n, len(model)
	h, j := mat.NewDense(q, q, nil), mat.NewDense(q, q, nil)
	g := mat.NewVecDense(q, nil)
	z := make([]float64, q)
	for m := range task.Y {
		ch, sm, alpha, beta := selection.WaldRow(task, u, total, m)
		if ch == 0 {
			continue
		}
		for a, col := range model {
			z[a] = float64(2*int(s.b8[m*n+col]) - 1)
			if col == task.Bias {
				z[a] = 1
			}
		}
		for a := range q {
			g.SetVec(a, g.AtVec(a)+ch*sm*z[a])
			for b := range q {
				h.Set(a, b, h.At(a, b)+alpha*z[a]*z[b])
				j.Set(a, b, j.At(a, b)+beta*z[a]*z[b])
			}
		}
	}
	var delta mat.VecDense
	if err := delta.SolveVec(h, g); err != nil {
		panic(err)
	}
	var hinv, cov mat.Dense
	if err := hinv.Inverse(h); err != nil {
		panic(err)
	}
	cov.Product(&hinv, j, &hinv)
	at := -1
	for a, col := range model {
		if col == c {
			at = a
		}
	}
	dl := delta.AtVec(at)
	return w[c] - dl, (cov.At(at, at) - dl*dl) / total
}

// TestWaldSupport checks the support model's statistics (selection.WaldSupport)
// against waldModelReference: a spin of the support in the regression on
// the support, any other spin j in the regression on the support and j.
// The spins are random, the margins those of a random w with a few nonzero
// coefficients (supports of 0, 3, 8 and 11 spins: one group of eight, a
// full one, a partial second), the weights random with zeros. Both compute
// the same quantities by different routes (block inverse and pattern sums
// against an LU solve of the written-out sums) from sums of 300 terms, in
// systems of at most 13 unknowns with condition numbers near 1 (random
// spins are nearly orthogonal): they agree to about 1e-14 relative; 1e-9
// leaves room and still fails on any wrong term.
func TestWaldSupport(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 1))
	const n, rows = 20, 300
	for _, support := range []int{0, 3, 8, 11} {
		for _, bias := range []int{0, 7, n - 1} {
			t.Run(fmt.Sprintf("support=%d/bias=%d", support, bias), func(t *testing.T) {
				s := randomSamples(t, rows, n, 2, r)
				w := make([]float64, n)
				w[bias] = r.Float64() - 0.5
				for _, c := range r.Perm(n)[:support+1] {
					if c != bias && support > 0 {
						w[c] = r.Float64() - 0.5
					}
				}
				var model []int // the bias, then the support in order
				model = append(model, bias)
				for c, v := range w {
					if c != bias && v != 0 {
						model = append(model, c)
					}
				}
				task := &engine.Task{Bias: bias, Y: make([]float64, rows), C: make([]float64, rows)}
				u := make([]float64, rows)
				for m := range u {
					task.Y[m] = float64(2*int(s.b8[m*n+bias]) - 1)
					for c, v := range w {
						x := float64(2*int(s.b8[m*n+c]) - 1)
						if c == bias {
							x = 1
						}
						u[m] += v * x
					}
					if r.IntN(10) > 0 {
						task.C[m] = r.Float64()
					}
				}
				total := engine.WeightSum(task.C, rows)
				d, se, df := selection.WaldSupport(s.stages(), task, w, u, total)
				p := float64(len(model))
				if want := total - p - 1; df[0] != want || df[1] != want {
					t.Errorf("df = %v, want %v twice", df, want)
				}
				hc1 := selection.HC1Factor(total, p+1)
				for c := 0; c < n; c++ {
					if c == bias {
						continue
					}
					m := model
					if w[c] == 0 {
						m = append(append([]int(nil), model...), c)
					}
					wd, wv := waldModelReference(s, task, w, u, total, m, c)
					wantD, wantSE := wd/2, hc1*math.Sqrt(wv)/2
					if !relClose(d[4*c], wantD) || !relClose(se[4*c], wantSE) {
						t.Errorf("spin %d (in support %v): d, se = %v, %v, want %v, %v", c, w[c] != 0, d[4*c], se[4*c], wantD, wantSE)
					}
					if d[4*c+1] != -d[4*c] || d[4*c+3] != d[4*c] || se[4*c+2] != se[4*c] {
						t.Errorf("spin %d: not in the Ising form: %v %v", c, d[4*c:4*c+4], se[4*c:4*c+4])
					}
				}
			})
		}
	}
}

// relClose reports whether a and b agree to 1e-9 relative.
func relClose(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// withWaldDense sets the most spins of the full-model Ising edge test
// (selection.WaldDenseMax): tests lower it to run the support-model test on small
// models.
func withWaldDense(max int) Option {
	return optionFunc(func(c *config) { c.waldDense = max })
}

// TestSupportWaldLearn runs the tuning-free default with the edge test in
// the nodes' support models (the path of complete samples of more than
// selection.WaldDenseMax spins) on small models. With edges: the diamond and a 4×4
// grid at N = 5000 (exact draws, the seed of TestTuningFreeRecovery), which
// the full-model test recovers exactly; the support test must too, without
// the refit stage, and every learned pair must be one that reached the
// threshold. Without edges: 40 independent samples of 12 uniform spins,
// N = 1000; the test's family-wise rate is about 1.5α = 0.015 (see
// DefaultFalseEdgeRate), 0.6 runs of 40 expected, and more than 4 (a
// binomial tail below 1e-3 at that rate) says the null statistics are not
// standard normal (standard errors shrunk by a third gave 19 of 40). There
// EBIC keeps about half the spins in each node's support, so this checks
// mostly the statistics of the support; TestWaldSupport checks both kinds
// against their definitions.
func TestSupportWaldLearn(t *testing.T) {
	skipUnderRace(t)
	for _, tc := range []struct {
		name string
		m    *Model
	}{
		{"diamond", diamondIsing(10, 0.2)},
		{"grid 4x4", gridIsing(4, 4, rand.New(rand.NewPCG(21, 3)), 0.2, 0.5)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := exactDraws(t, tc.m, 5000, 7)
			res, err := Learn(s, withWaldDense(0))
			if err != nil {
				t.Fatal(err)
			}
			if fp, fn := edgeErrors(tc.m, res.Edges); fp+fn > 0 {
				t.Errorf("%d false positives, %d false negatives", fp, fn)
			}
			tu := res.Tuning
			if tu.Refit {
				t.Error("the refit stage ran after the support-model test")
			}
			for i := 0; i < s.Vars(); i++ {
				for j := i + 1; j < s.Vars(); j++ {
					in := res.Model.coupling(i, j) != nil
					if in != (tu.Score(i, j) >= tu.Threshold) {
						t.Errorf("pair (%d, %d): score %.3g, threshold %.3g, in the graph %v", i, j, tu.Score(i, j), tu.Threshold, in)
					}
				}
			}
		})
	}
	t.Run("independent", func(t *testing.T) {
		m, _ := NewModel(12, 2)
		bad := 0
		for r := 0; r < 40; r++ {
			s := exactDraws(t, m, 1000, uint64(500+r))
			res, err := Learn(s, withWaldDense(0))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Edges) > 0 {
				bad++
			}
		}
		t.Logf("runs with a false edge: %d of 40", bad)
		if bad > 4 {
			t.Errorf("%d of 40 runs on independent spins learned an edge, want at most 4", bad)
		}
	})
}

// supportTask returns a task of node bias on s (rows of n spins) with
// margins u of random size and random weights, one in ten zero, and their
// total: the tasks of TestWaldChunk and TestSupportChunk.
func supportTask(s *Samples, bias int, r *rand.Rand) (*engine.Task, []float64, float64) {
	n, rows := s.n, s.Len()
	task := &engine.Task{Bias: bias, Y: make([]float64, rows), C: make([]float64, rows)}
	u := make([]float64, rows)
	for m := range u {
		task.Y[m] = float64(2*int(s.b8[m*n+bias]) - 1)
		u[m] = 4 * (r.Float64() - 0.5)
		if r.IntN(10) > 0 {
			task.C[m] = r.Float64()
		}
	}
	return task, u, engine.WeightSum(task.C, rows)
}

// TestSupportChunk checks the moments of selection.SupportChunk (the rows of H and J
// for the columns of A, contracted from the sign-pattern tables) against
// their definition summed row by row, H_ak = Σ_m α_m x_{m,A_a} x_mk, on
// random spins, margins and weights: supports of 1 to 17 columns (the bias
// alone, one partial group, one full, a full and a partial one, two full
// and one more), the bias at each end and inside, from row 17 on. Both sum
// the same products in different orders; the entries are sums of at most
// 400 terms of size at most 1/4 · 1/total, so they agree to a few ulps,
// far below 1e-13, while a wrong sign or a missing pattern moves an entry
// by one term's size, about 1e-3.
func TestSupportChunk(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	const n, rows = 21, 400
	for _, p := range []int{1, 3, 8, 9, 17} {
		for _, bias := range []int{0, n / 2, n - 1} {
			t.Run(fmt.Sprintf("p=%d/bias=%d", p, bias), func(t *testing.T) {
				s := randomSamples(t, rows, n, 2, r)
				task, u, total := supportTask(s, bias, r)
				cols := []int{bias}
				for _, c := range r.Perm(n) {
					if c != bias && len(cols) < p {
						cols = append(cols, c)
					}
				}
				got := selection.SupportChunk(s.stages(), task, cols, u, total, 17, rows)
				h, j, g := make([]float64, p*n), make([]float64, p*n), make([]float64, n)
				hd, jd := 0.0, 0.0
				x := make([]float64, n)
				for m := 17; m < rows; m++ {
					ch, sg, alpha, beta := selection.WaldRow(task, u, total, m)
					if ch == 0 {
						continue
					}
					for k := range x {
						x[k] = float64(2*int(s.b8[m*n+k]) - 1)
					}
					x[bias] = 1
					hd += alpha
					jd += beta
					for k := range x {
						g[k] += ch * sg * x[k]
					}
					for a, c := range cols {
						for k := range x {
							h[a*n+k] += alpha * x[c] * x[k]
							j[a*n+k] += beta * x[c] * x[k]
						}
					}
				}
				for e := range h {
					if d := math.Abs(got.H[e] - h[e]); d > 1e-13 {
						t.Fatalf("H[%d][%d] = %v, want %v", e/n, e%n, got.H[e], h[e])
					}
					if d := math.Abs(got.J[e] - j[e]); d > 1e-13 {
						t.Fatalf("J[%d][%d] = %v, want %v", e/n, e%n, got.J[e], j[e])
					}
				}
				if d := maxDiff(got.G, g); d > 1e-13 {
					t.Fatalf("g differs by %g", d)
				}
				if math.Abs(got.Hd-hd) > 1e-13 || math.Abs(got.Jd-jd) > 1e-13 {
					t.Fatalf("diagonal sums %v, %v, want %v, %v", got.Hd, got.Jd, hd, jd)
				}
			})
		}
	}
}

// BenchmarkSupportChunk measures selection.SupportChunk, the moments of the
// support-model edge test (one chunk: all rows, as with one worker), on
// n = 1000 random spins, the size of the default fit at n = 1000, with
// N = 10⁴ rows (that fit's) and 2000 (where contracting the pattern tables
// weighs more against the rows' additions), for supports of 3, 8 and 16
// spins with the bias (one partial group; a full and a partial one; two
// full and a partial one).
func BenchmarkSupportChunk(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 11))
	const n = 1000
	s := randomSamples(b, 10000, n, 2, r)
	task, u, total := supportTask(s, 3, r)
	for _, rows := range []int{2000, 10000} {
		for _, p := range []int{4, 9, 17} {
			cols := []int{3}
			for c := 0; len(cols) < p; c += 37 {
				cols = append(cols, c+5)
			}
			b.Run(fmt.Sprintf("N=%d/p=%d", rows, p), func(b *testing.B) {
				for b.Loop() {
					selection.SupportChunk(s.stages(), task, cols, u, total, 0, rows)
				}
			})
		}
	}
}
