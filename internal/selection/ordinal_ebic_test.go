package selection

import (
	"math"
	"math/rand/v2"
	"testing"
)

// skewedData returns rows of n independent answers on k values, each
// variable with its own skewed law (weights 1, 2, 4, … shuffled), and the
// scores 2a/(k − 1) − 1.
func skewedData(n, k, rows int, r *rand.Rand) (*Data, []float64) {
	laws := make([][]float64, n)
	for j := range laws {
		w := make([]float64, k)
		sum := 0.0
		for a := range w {
			w[a] = math.Pow(2, float64(a))
			sum += w[a]
		}
		r.Shuffle(k, func(a, b int) { w[a], w[b] = w[b], w[a] })
		for a := range w {
			w[a] /= sum
		}
		laws[j] = w
	}
	z := make([]uint8, rows*n)
	for m := 0; m < rows; m++ {
		for j := 0; j < n; j++ {
			u, a := r.Float64(), 0
			for ; a < k-1 && u >= laws[j][a]; a++ {
				u -= laws[j][a]
			}
			z[m*n+j] = uint8(a)
		}
	}
	scores := make([]float64, n*k)
	for j := 0; j < n; j++ {
		for a := 0; a < k; a++ {
			scores[j*k+a] = 2*float64(a)/float64(k-1) - 1
		}
	}
	return &Data{N: n, K: k, Count: rows, Total: float64(rows), Bytes: z}, scores
}

// TestOrdinalIndependenceNull checks Mantel's global test on independent
// skewed answers (n = 10, k = 5, N = 250): over 400 data sets it rejects at
// 5% in 5% ± 3.3% of them (3 binomial standard errors) and at 1% in at most
// 2.5%. The ordinal EBIC graph runs only when it rejects at α/2, so this is
// the rate at which that stage can add edges to independent data.
func TestOrdinalIndependenceNull(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 5))
	const sets = 400
	at5, at1 := 0, 0
	for x := 0; x < sets; x++ {
		s, scores := skewedData(10, 5, 250, r)
		p, pairs := OrdinalIndependenceP(s, scores)
		if pairs != 45 {
			t.Fatalf("%d pairs, want 45", pairs)
		}
		if p < 0.05 {
			at5++
		}
		if p < 0.01 {
			at1++
		}
	}
	if f := float64(at5) / sets; math.Abs(f-0.05) > 0.033 {
		t.Errorf("rejected at 5%% in %.3f of null sets", f)
	}
	if f := float64(at1) / sets; f > 0.025 {
		t.Errorf("rejected at 1%% in %.3f of null sets", f)
	}
}

// TestOrdinalRefitEmpty checks the refit on no variable against its closed
// form: the fields are the log-odds of the answers' frequencies against
// the first answer's, and the mean log-likelihood is Σ p̂ log p̂.
func TestOrdinalRefitEmpty(t *testing.T) {
	s, scores := skewedData(3, 4, 500, rand.New(rand.NewPCG(2, 2)))
	freq := make([]float64, 4)
	for m := 0; m < s.Count; m++ {
		freq[s.Bytes[m*3+1]]++
	}
	_, _, theta, df, ll, ok := ordinalRefit(s, 1, scores, []int{}, nil, ordinalRefitTol)
	if !ok {
		t.Fatal("no fit")
	}
	first := -1
	want := 0.0
	for a, f := range freq {
		if f == 0 {
			continue
		}
		if first < 0 {
			first = a
		}
		p := f / 500
		want += p * math.Log(p)
		if got, w := theta[a], math.Log(f/freq[first]); math.Abs(got-w) > 1e-7 {
			t.Errorf("θ(%d) = %v, want %v", a, got, w)
		}
	}
	if math.Abs(ll-want) > 1e-9 {
		t.Errorf("mean log-likelihood %v, want %v", ll, want)
	}
	if df != 500-3 {
		t.Errorf("df %v, want 497", df)
	}
}
