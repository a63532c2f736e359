package selection

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// fullBlock returns the doubly centred k×k block whose entries (a, b),
// a, b ≥ 1, are u (row-major): row 0 and column 0 are minus the sums of
// the others.
func fullBlock(u []float64, k int) []float64 {
	d := make([]float64, k*k)
	for a := 1; a < k; a++ {
		for b := 1; b < k; b++ {
			v := u[(a-1)*(k-1)+b-1]
			d[a*k+b] = v
			d[b] -= v
			d[a*k] -= v
			d[0] += v
		}
	}
	return d
}

// randomSPD returns a random r×r covariance, row-major: AᵀA/r + I/10.
func randomSPD(r int, rng *rand.Rand) []float64 {
	a := mat.NewDense(r, r, nil)
	for x := 0; x < r; x++ {
		for y := 0; y < r; y++ {
			a.Set(x, y, rng.NormFloat64())
		}
	}
	var c mat.Dense
	c.Mul(a.T(), a)
	out := make([]float64, r*r)
	for x := 0; x < r; x++ {
		for y := 0; y < r; y++ {
			out[x*r+y] = c.At(x, y) / float64(r)
			if x == y {
				out[x*r+y] += 0.1
			}
		}
	}
	return out
}

func all(k int) []bool {
	v := make([]bool, k)
	for x := range v {
		v[x] = true
	}
	return v
}

// TestBlockWaldFullRank checks BlockWald on a doubly centred block with
// every value in its set against the Wald statistic of its reduced
// coordinates computed independently, uᵀC⁻¹u by a Cholesky solve: the
// contrasts of a block already centred are the block itself, and its
// covariance has full rank (k − 1)². Agreement to 1e-8 relative: both
// are a few dozen well-conditioned operations.
func TestBlockWaldFullRank(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 1))
	for _, k := range []int{3, 4, 6} {
		r := (k - 1) * (k - 1)
		cov := randomSPD(r, rng)
		u := make([]float64, r)
		for x := range u {
			u[x] = rng.NormFloat64()
		}
		var ch mat.Cholesky
		if !ch.Factorize(mat.NewSymDense(r, cov)) {
			t.Fatal("not SPD")
		}
		var sol mat.VecDense
		if err := ch.SolveVecTo(&sol, mat.NewVecDense(r, u)); err != nil {
			t.Fatal(err)
		}
		want := mat.Dot(mat.NewVecDense(r, u), &sol)
		got, rank := BlockWald(fullBlock(u, k), cov, all(k), all(k), k)
		if rank != r || math.Abs(got-want) > 1e-8*want {
			t.Errorf("k=%d: W = %v rank %d, want %v rank %d", k, got, rank, want, r)
		}
	}
}

// TestBlockWaldShift checks what the contrasts are for: on a subset of
// the values, adding a constant to a whole row or column of the block
// (what a rare value's coefficient adds through the centring) leaves W
// unchanged, and the rank is (|A| − 1)(|B| − 1).
func TestBlockWaldShift(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	k := 5
	r := (k - 1) * (k - 1)
	cov := randomSPD(r, rng)
	u := make([]float64, r)
	for x := range u {
		u[x] = rng.NormFloat64()
	}
	d := fullBlock(u, k)
	rows := []bool{true, true, false, true, true}
	cols := []bool{true, false, true, true, false}
	w0, rank := BlockWald(d, cov, rows, cols, k)
	if rank != 3*2 {
		t.Errorf("rank %d, want 6", rank)
	}
	shifted := append([]float64(nil), d...)
	for b := 0; b < k; b++ {
		shifted[3*k+b] += 2.5 // row 3
	}
	for a := 0; a < k; a++ {
		shifted[a*k+2] -= 1.5 // column 2
	}
	w1, _ := BlockWald(shifted, cov, rows, cols, k)
	if math.Abs(w1-w0) > 1e-9*w0 {
		t.Errorf("W = %v after shifting a row and a column, want %v", w1, w0)
	}
	if w, rank := BlockWald(d, cov, []bool{true, false, false, false, false}, all(k), k); w != 0 || rank != 0 {
		t.Errorf("one row: W = %v rank %d, want 0, 0", w, rank)
	}
	nan := append([]float64(nil), d...)
	nan[k+1] = math.NaN()
	if w, rank := BlockWald(nan, cov, all(k), all(k), k); w != 0 || rank != 0 {
		t.Errorf("NaN entry: W = %v rank %d, want 0, 0", w, rank)
	}
}

// TestBlockWaldNull checks the law of W under the null by simulation: u
// drawn from N(0, C), W must follow χ² with (k − 1)² degrees of freedom
// on the full set: its mean within 3 standard errors of (k − 1)² over
// 4000 draws, and the share above the χ² 95% point within 0.05 ± 0.011
// (3 binomial standard errors).
func TestBlockWaldNull(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 3))
	k := 4
	r := (k - 1) * (k - 1)
	cov := randomSPD(r, rng)
	var ch mat.Cholesky
	ch.Factorize(mat.NewSymDense(r, cov))
	var l mat.TriDense
	ch.LTo(&l)
	q := distuv.ChiSquared{K: float64(r)}.Quantile(0.95)
	const draws = 4000
	sum, above := 0.0, 0
	e := make([]float64, r)
	for x := 0; x < draws; x++ {
		for y := range e {
			e[y] = rng.NormFloat64()
		}
		var u mat.VecDense
		u.MulVec(&l, mat.NewVecDense(r, e))
		w, _ := BlockWald(fullBlock(u.RawVector().Data, k), cov, all(k), all(k), k)
		sum += w
		if w > q {
			above++
		}
	}
	mean := sum / draws
	if se := math.Sqrt(2 * float64(r) / draws); math.Abs(mean-float64(r)) > 3*se {
		t.Errorf("mean W %v, want %d ± %v", mean, r, 3*se)
	}
	if share := float64(above) / draws; math.Abs(share-0.05) > 0.011 {
		t.Errorf("share above the 95%% point %v, want 0.05 ± 0.011", share)
	}
}

// TestBlockScore checks BlockScore against closed forms: at rank 1 it is
// TScore of √W (the t law's square is F(1, ν)); at the χ²_r 95% point it
// is Φ⁻¹(0.975) = 1.95996; and it is 0 without a statistic.
func TestBlockScore(t *testing.T) {
	for _, df := range []float64{math.Inf(1), 40, 8} {
		for _, tv := range []float64{0.5, 2, 4} {
			got, want := BlockScore(tv*tv, 1, df), TScore(tv, df)
			if math.Abs(got-want) > 1e-6 {
				t.Errorf("rank 1, t = %v, df = %v: %v, want TScore %v", tv, df, got, want)
			}
		}
	}
	for _, r := range []int{4, 9, 25} {
		q := distuv.ChiSquared{K: float64(r)}.Quantile(0.95)
		if got := BlockScore(q, r, math.Inf(1)); math.Abs(got-1.959964) > 1e-5 {
			t.Errorf("rank %d at the 95%% point: %v, want 1.959964", r, got)
		}
	}
	if BlockScore(0, 4, 10) != 0 || BlockScore(3, 0, 10) != 0 || BlockScore(3, 4, 0) != 0 {
		t.Error("want 0 without a statistic, a rank or degrees of freedom")
	}
	if !math.IsNaN(BlockScore(math.NaN(), 4, 10)) {
		t.Error("want NaN for NaN")
	}
	if got := BlockScore(1e6, 4, math.Inf(1)); got != maxNormalScore {
		t.Errorf("underflow: %v, want the cap %v", got, maxNormalScore)
	}
}

// TestBlockValues checks the product set of the grouped statistic: every
// cell passes Cochran's rule, the rarest value goes first, and values of
// zero weight never enter.
func TestBlockValues(t *testing.T) {
	ci := []float64{1000, 10, 500, 0}
	cj := []float64{800, 700, 3, 10}
	total := 1510.0
	rows, cols := BlockValues(ci, cj, total)
	// Column 2 (3) goes first; then row 1 (10) against column 3 (10):
	// 10·10/1510 < 5, the row on the tie; then column 3 against row 2
	// (500·10/1510 = 3.3 < 5); then 500·700/1510 passes.
	wantRows, wantCols := []bool{true, false, true, false}, []bool{true, true, false, false}
	for x := range rows {
		if rows[x] != wantRows[x] || cols[x] != wantCols[x] {
			t.Fatalf("rows %v cols %v, want %v %v", rows, cols, wantRows, wantCols)
		}
	}
	for a, ok := range rows {
		for b, okb := range cols {
			if ok && okb && !CochranEntry(ci[a], cj[b], total) {
				t.Errorf("cell (%d, %d) fails Cochran's rule", a, b)
			}
		}
	}
}
