package pairwise

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/internal/selection"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// waldChunkSyrk is the reference for selection.WaldChunk: the moments as rank-one
// updates, H = AᵀA and J = BᵀB with rows √α_m x_m and √ĉ_m s_m x_m of A
// and B, through blas64's Dsyrk.
func waldChunkSyrk(s *Samples, task *engine.Task, u []float64, total float64, lo, hi int) selection.WaldMoments {
	n, i := s.n, task.Bias
	rows := hi - lo
	a := make([]float64, rows*n)
	b := make([]float64, rows*n)
	wm := selection.WaldMoments{H: make([]float64, n*n), J: make([]float64, n*n), G: make([]float64, n)}
	for m := lo; m < hi; m++ {
		ch, sm, alpha, _ := selection.WaldRow(task, u, total, m)
		if ch == 0 {
			continue
		}
		av, bv := math.Sqrt(alpha), math.Sqrt(ch)*sm
		for k, z := range s.b8[m*n : (m+1)*n] {
			xv := float64(2*int(z) - 1)
			if k == i {
				xv = 1
			}
			a[(m-lo)*n+k] = av * xv
			b[(m-lo)*n+k] = bv * xv
			wm.G[k] += ch * sm * xv
		}
	}
	h := blas64.Symmetric{N: n, Stride: n, Data: wm.H, Uplo: blas.Upper}
	j := blas64.Symmetric{N: n, Stride: n, Data: wm.J, Uplo: blas.Upper}
	blas64.Syrk(blas.Trans, 1, blas64.General{Rows: rows, Cols: n, Stride: n, Data: a}, 0, h)
	blas64.Syrk(blas.Trans, 1, blas64.General{Rows: rows, Cols: n, Stride: n, Data: b}, 0, j)
	return wm
}

// TestWaldChunk checks the pattern sums of selection.WaldChunk against the rank-one
// updates of waldChunkSyrk on random spins, margins and weights (zero
// weights included), for n from 1 to 21 (groups of eight and a partial
// last group) and the bias in each place. Both sum the same products in
// different orders; the entries are sums of at most 400 terms of size
// ≤ 1/4 · 1/400, so they agree to a few ulps, far below 1e-13.
func TestWaldChunk(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	// 10, 17, 25 and 26 end in a group that takes a remainder of one
	// or two variables.
	for _, n := range []int{1, 3, 8, 9, 10, 17, 21, 25, 26} {
		for _, bias := range []int{0, n / 2, n - 1} {
			t.Run(fmt.Sprintf("n=%d/bias=%d", n, bias), func(t *testing.T) {
				const rows = 400
				s := randomSamples(t, rows, n, 2, r)
				task, u, total := supportTask(s, bias, r)
				got := selection.WaldChunk(s.stages(), task, u, total, 17, rows)
				want := waldChunkSyrk(s, task, u, total, 17, rows)
				for j := 0; j < n; j++ {
					for k := j; k < n; k++ {
						if d := math.Abs(got.H[j*n+k] - want.H[j*n+k]); d > 1e-13 {
							t.Fatalf("H[%d][%d] = %v, want %v", j, k, got.H[j*n+k], want.H[j*n+k])
						}
						if d := math.Abs(got.J[j*n+k] - want.J[j*n+k]); d > 1e-13 {
							t.Fatalf("J[%d][%d] = %v, want %v", j, k, got.J[j*n+k], want.J[j*n+k])
						}
					}
				}
				if d := maxDiff(got.G, want.G); d > 1e-13 {
					t.Fatalf("g differs by %g", d)
				}
			})
		}
	}
}

// randomSamples returns rows of uniform random states.
func randomSamples(t testing.TB, rows, n, k int, r *rand.Rand) *Samples {
	t.Helper()
	z := make([][]int, rows)
	for m := range z {
		z[m] = make([]int, n)
		for j := range z[m] {
			z[m][j] = r.IntN(k)
		}
	}
	s, err := NewSamples(k, z)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestWaldChunkMissing checks selection.WaldChunkMissing, the moments of the Wald
// test when spins are missing (AvailableCase), against the sign patterns of
// selection.WaldChunk on complete spins, and against the definitions summed entry by
// entry (H = Σ α_m x_m x_mᵀ, J = Σ ĉ_m s_m² x_m x_mᵀ, g = Σ ĉ_m s_m x_m, a
// missing spin 0 in x_m, the bias 1) on spins with one in five missing,
// rows 17..399 of 400 with random weights (zeros included), for n from 1
// to 21 and the bias in each place. The sums are of at most 400 terms of
// size ≤ 1/4 · 1/400 in different orders: a few ulps, far below 1e-13.
func TestWaldChunkMissing(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	for _, n := range []int{1, 3, 9, 21} {
		for _, bias := range []int{0, n / 2, n - 1} {
			t.Run(fmt.Sprintf("n=%d/bias=%d", n, bias), func(t *testing.T) {
				const rows = 400
				complete := randomSamples(t, rows, n, 2, r)
				z := complete.Rows()
				for _, row := range z {
					for j := range row {
						if r.IntN(5) == 0 {
							row[j] = Missing
						}
					}
				}
				missing, err := NewIncompleteSamples(2, z, nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range []*Samples{complete, missing} {
					task := &engine.Task{Bias: bias, Y: make([]float64, rows), C: make([]float64, rows)}
					u := make([]float64, rows)
					for m := range u {
						task.Y[m] = 1
						if s.b8[m*n+bias] == 0 {
							task.Y[m] = -1
						}
						u[m] = 4 * (r.Float64() - 0.5)
						if r.IntN(10) > 0 && s.b8[m*n+bias] < 2 {
							task.C[m] = r.Float64()
						}
					}
					total := engine.WeightSum(task.C, rows)
					got := selection.WaldChunkMissing(s.stages(), task, u, total, 17, rows)
					var want selection.WaldMoments
					if s == complete {
						want = selection.WaldChunk(s.stages(), task, u, total, 17, rows)
					} else {
						want = selection.WaldMoments{H: make([]float64, n*n), J: make([]float64, n*n), G: make([]float64, n)}
						for m := 17; m < rows; m++ {
							ch, sm, alpha, beta := selection.WaldRow(task, u, total, m)
							x := make([]float64, n)
							for k := range x {
								switch v := s.At(m, k); {
								case k == bias:
									x[k] = 1
								case v == Missing:
								default:
									x[k] = float64(2*v - 1)
								}
								want.G[k] += ch * sm * x[k]
							}
							for a := 0; a < n; a++ {
								for b := a; b < n; b++ {
									want.H[a*n+b] += alpha * x[a] * x[b]
									want.J[a*n+b] += beta * x[a] * x[b]
								}
							}
						}
					}
					for a := 0; a < n; a++ {
						for b := a; b < n; b++ {
							if d := math.Abs(got.H[a*n+b] - want.H[a*n+b]); d > 1e-13 {
								t.Fatalf("incomplete %v: H[%d][%d] = %v, want %v", s.Incomplete(), a, b, got.H[a*n+b], want.H[a*n+b])
							}
							if d := math.Abs(got.J[a*n+b] - want.J[a*n+b]); d > 1e-13 {
								t.Fatalf("incomplete %v: J[%d][%d] = %v, want %v", s.Incomplete(), a, b, got.J[a*n+b], want.J[a*n+b])
							}
						}
					}
					if d := maxDiff(got.G, want.G); d > 1e-13 {
						t.Fatalf("incomplete %v: g differs by %g", s.Incomplete(), d)
					}
				}
			})
		}
	}
}

// TestGatherBits8 checks selection.GatherBits8 against the bits set one at a time, on
// every pattern and with states above 1 in the bytes (only the low bit
// counts, as in selection.WaldChunk's z&1).
func TestGatherBits8(t *testing.T) {
	for c := 0; c < 256; c++ {
		for _, high := range []uint8{0, 2, 0xfe} {
			b := make([]uint8, 8)
			for k := range b {
				b[k] = uint8(c>>k&1) | high
			}
			if got := selection.GatherBits8(b); got != c {
				t.Fatalf("pattern %08b with high bits %#x: got %08b", c, high, got)
			}
		}
	}
}
