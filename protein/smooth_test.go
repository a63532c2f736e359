package protein

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSmoothScoresByHand checks SmoothScores on a 5×5 matrix with
// S_ij = 10i + j (i < j) and minSep 2, every neighbour counted by hand.
func TestSmoothScoresByHand(t *testing.T) {
	s := mat.NewSymDense(5, nil)
	for i := 0; i < 5; i++ {
		for j := i + 1; j < 5; j++ {
			s.SetSym(i, j, float64(10*i+j))
		}
	}
	got, err := SmoothScores(s, 0.5, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		i, j int
		want float64
	}{
		// (1,3): neighbours (0,2)=2, (0,3)=3, (0,4)=4, (1,4)=14, (2,4)=24;
		// (1,2) and (2,3) are at separation 1, (2,2) on the diagonal.
		{1, 3, 13 + 0.5*47.0/5},
		// (0,4): (0,3)=3, (1,3)=13, (1,4)=14; the rest outside.
		{0, 4, 4 + 0.5*30.0/3},
		// (0,1): (0,2)=2 only.
		{0, 1, 1 + 0.5*2},
		// (3,4): (2,4)=24 only.
		{3, 4, 34 + 0.5*24},
		// (2,4): (1,3)=13, (1,4)=14; (2,3), (3,4) at separation 1, the rest outside.
		{2, 4, 24 + 0.5*27.0/2},
	} {
		if g := got.At(c.i, c.j); math.Abs(g-c.want) > 1e-12 {
			t.Errorf("S'(%d,%d) = %v, want %v", c.i, c.j, g, c.want)
		}
		if got.At(c.j, c.i) != got.At(c.i, c.j) {
			t.Errorf("S' not symmetric at (%d,%d)", c.i, c.j)
		}
	}
	for i := 0; i < 5; i++ {
		if got.At(i, i) != 0 {
			t.Errorf("diagonal %d = %v", i, got.At(i, i))
		}
	}
	if s.At(1, 3) != 13 {
		t.Errorf("input changed: S(1,3) = %v", s.At(1, 3))
	}
	same, err := SmoothScores(s, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(same, s) {
		t.Error("alpha = 0 does not return the scores")
	}
}

// TestSmoothScoresPatches plants patches of contacts, 3×3 blocks of pairs
// along a diagonal as a pair of strands gives, in a map of unit Gaussian
// noise whose signal alone is too weak to rank them first: the top pairs
// must be more often true after smoothing. Fixed seeds; 20 maps; the
// smoothed precision must be higher on at least 17 of them (under the null
// of no effect the number higher is at most Binomial(20, 1/2), and 17 or
// more has probability 0.0013).
func TestSmoothScoresPatches(t *testing.T) {
	const n, patches, signal = 80, 8, 1.2
	better := 0
	var before, after float64
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 32))
		s := mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				s.SetSym(i, j, rng.NormFloat64())
			}
		}
		truth := map[[2]int]bool{}
		for len(truth) < patches*9 {
			i, j := rng.IntN(n-2), rng.IntN(n-2)
			if j-i < 10 {
				continue
			}
			clash := false
			for a := -1; a <= 3; a++ {
				for b := -1; b <= 3; b++ {
					clash = clash || truth[[2]int{i + a, j + b}]
				}
			}
			if clash {
				continue
			}
			for a := 0; a < 3; a++ {
				for b := 0; b < 3; b++ {
					truth[[2]int{i + a, j + b}] = true
					s.SetSym(i+a, j+b, s.At(i+a, j+b)+signal)
				}
			}
		}
		sm, err := SmoothScores(s, 1, DefaultSmoothSeparation)
		if err != nil {
			t.Fatal(err)
		}
		p0, p1 := topPrecision(s, truth, patches*9), topPrecision(sm, truth, patches*9)
		before += p0 / 20
		after += p1 / 20
		if p1 > p0 {
			better++
		}
	}
	t.Logf("precision of the top %d pairs: %.3f before, %.3f after; better on %d of 20", patches*9, before, after, better)
	if better < 17 {
		t.Errorf("smoothing raised the precision on %d of 20 maps, want at least 17", better)
	}
}

// topPrecision is the share of true pairs among the top pairs at
// separation ≥ DefaultSmoothSeparation.
func topPrecision(s mat.Symmetric, truth map[[2]int]bool, top int) float64 {
	ranked := RankContacts(s, DefaultSmoothSeparation)
	hit := 0
	for _, c := range ranked[:top] {
		if truth[[2]int{c.I, c.J}] {
			hit++
		}
	}
	return float64(hit) / float64(top)
}

type emptySym struct{}

func (emptySym) Dims() (int, int)    { return 0, 0 }
func (emptySym) At(i, j int) float64 { panic("empty") }
func (emptySym) T() mat.Matrix       { return emptySym{} }
func (emptySym) SymmetricDim() int   { return 0 }

func TestSmoothScoresErrors(t *testing.T) {
	ok := mat.NewSymDense(3, []float64{0, 1, 2, 1, 0, 3, 2, 3, 0})
	bad := mat.NewSymDense(3, nil)
	bad.CopySym(ok)
	bad.SetSym(0, 2, math.NaN())
	for name, c := range map[string]struct {
		s      mat.Symmetric
		alpha  float64
		minSep int
	}{
		"nil":       {nil, 1, 6},
		"empty":     {emptySym{}, 1, 6},
		"negative":  {ok, -1, 6},
		"NaN alpha": {ok, math.NaN(), 6},
		"Inf alpha": {ok, math.Inf(1), 6},
		"minSep 0":  {ok, 1, 0},
		"NaN score": {bad, 1, 1},
	} {
		if _, err := SmoothScores(c.s, c.alpha, c.minSep); err == nil {
			t.Errorf("%s: no error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

func TestAutoSmoothAlpha(t *testing.T) {
	for _, c := range []struct {
		neff    float64
		columns int
		want    float64
	}{
		{1000, 100, 1}, // 10 a column
		{1999.9, 100, 1},
		{2000, 100, 0}, // 20 a column: not below
		{50000, 100, 0},
		{math.NaN(), 100, 0},
		{100, 0, 0},
		{100, -3, 0},
		{0, 10, 1},
	} {
		if got := AutoSmoothAlpha(c.neff, c.columns); got != c.want {
			t.Errorf("AutoSmoothAlpha(%v, %d) = %v, want %v", c.neff, c.columns, got, c.want)
		}
	}
}
