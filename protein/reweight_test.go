package protein

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// alignmentOf builds an Alignment from codes for tests.
func alignmentOf(alphabet string, n, l int, codes []uint8) *Alignment {
	a := &Alignment{alphabet: alphabet, n: n, l: l, codes: codes, focus: -1}
	for s := 0; s < n; s++ {
		a.names = append(a.names, "s"+strconv.Itoa(s))
		a.lines = append(a.lines, s+1)
	}
	for i := 0; i < l; i++ {
		a.columns = append(a.columns, i+1)
		a.source = append(a.source, i)
	}
	return a
}

// bruteNeighbors is the reference: the identity of every ordered pair
// counted column by column, as plmc's weights.c does.
func bruteNeighbors(codes []uint8, n, l int, theta float64) []int {
	out := make([]int, n)
	for s := 0; s < n; s++ {
		for t := 0; t < n; t++ {
			id := 0
			for i := 0; i < l; i++ {
				if codes[s*l+i] == codes[t*l+i] {
					id++
				}
			}
			if float64(id) >= theta*float64(l)-1e-9 {
				out[s]++
			}
		}
	}
	return out
}

// familyCodes draws a synthetic protein-like family of n sequences of
// length l over k states: clusters of about 20 close relatives (8% of
// columns changed from their centre) around centres that differ from a
// common ancestor in a column-dependent fraction (20% to 90%) of columns,
// with column-specific preferred states and some gaps. Pairs within a
// cluster are mostly above 80% identity, pairs across clusters mostly
// below, as in a real family.
func familyCodes(rng *rand.Rand, n, l, k int) []uint8 {
	root := make([]uint8, l)
	rate := make([]float64, l)
	pref := make([][4]uint8, l)
	for i := range root {
		root[i] = uint8(1 + rng.IntN(k-1))
		rate[i] = 0.2 + 0.7*rng.Float64()
		for x := range pref[i] {
			pref[i][x] = uint8(rng.IntN(k)) // state 0 is the gap
		}
	}
	mutate := func(dst, src []uint8, p func(i int) float64) {
		for i := range dst {
			dst[i] = src[i]
			if rng.Float64() < p(i) {
				if rng.IntN(2) == 0 {
					dst[i] = pref[i][rng.IntN(4)]
				} else {
					dst[i] = uint8(rng.IntN(k))
				}
			}
		}
	}
	codes := make([]uint8, n*l)
	centre := make([]uint8, l)
	for s := 0; s < n; s++ {
		if s%20 == 0 {
			mutate(centre, root, func(i int) float64 { return rate[i] })
		}
		mutate(codes[s*l:(s+1)*l], centre, func(int) float64 { return 0.08 })
	}
	return codes
}

func TestReweightBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 1))
	for _, test := range []struct {
		n, l, k int
	}{
		{1, 5, 21}, {2, 1, 2}, {7, 3, 3}, {40, 10, 2}, {50, 20, 5}, {60, 63, 21},
		{60, 64, 21}, {70, 65, 21}, {90, 130, 21}, {80, 200, 21}, {45, 70, 9}, {30, 100, 200},
	} {
		for _, family := range []bool{false, true} {
			var codes []uint8
			if family {
				if test.k < 3 {
					continue
				}
				codes = familyCodes(rng, test.n, test.l, test.k)
			} else {
				// Few states and repeated rows make many neighbours.
				codes = make([]uint8, test.n*test.l)
				for s := 0; s < test.n; s++ {
					if s > 0 && rng.IntN(4) == 0 {
						copy(codes[s*test.l:(s+1)*test.l], codes[(s-1)*test.l:s*test.l])
						codes[s*test.l+rng.IntN(test.l)] = uint8(rng.IntN(test.k))
						continue
					}
					for i := 0; i < test.l; i++ {
						codes[s*test.l+i] = uint8(rng.IntN(min(test.k, 3)))
					}
				}
			}
			alphabet := strings.Repeat("A", test.k) // only its length counts here
			a := alignmentOf(alphabet, test.n, test.l, codes)
			for _, theta := range []float64{0, 0.3, 0.5, 0.8, 0.95, 1} {
				want := bruteNeighbors(codes, test.n, test.l, theta)
				for _, workers := range []int{1, 3} {
					w, err := Reweight(a, ReweightIdentity(theta), ReweightWorkers(workers))
					if err != nil {
						t.Fatal(err)
					}
					neff := 0.0
					for s := range want {
						if w.Neighbors[s] != want[s] {
							t.Fatalf("n=%d l=%d k=%d family=%t θ=%v workers=%d: sequence %d has %d neighbours, want %d",
								test.n, test.l, test.k, family, theta, workers, s, w.Neighbors[s], want[s])
						}
						if w.Weights[s] != 1/float64(want[s]) {
							t.Fatalf("weight %d = %v, want 1/%d", s, w.Weights[s], want[s])
						}
						neff += 1 / float64(want[s])
					}
					if math.Abs(w.Neff-neff) > 1e-12*neff {
						t.Errorf("Neff = %v, want %v", w.Neff, neff)
					}
				}
			}
		}
	}
}

func TestReweightThreshold(t *testing.T) {
	// θ = 0.8 of L = 100 columns needs 80 identical columns, not 81 (the
	// product 0.8·100 is not exactly 80 in floating point).
	codes := make([]uint8, 2*100)
	for i := 0; i < 20; i++ {
		codes[100+i] = 1
	}
	a := alignmentOf(ProteinAlphabet, 2, 100, codes)
	w, err := Reweight(a)
	if err != nil {
		t.Fatal(err)
	}
	if w.MinIdentical != 80 || w.Neighbors[0] != 2 {
		t.Errorf("MinIdentical = %d, neighbours %v; want 80 and 2 (80 of 100 columns identical)", w.MinIdentical, w.Neighbors)
	}
	codes[100+20] = 1
	if w, _ = Reweight(a); w.Neighbors[0] != 1 || w.Neff != 2 {
		t.Errorf("79 identical columns: neighbours %v, Neff %v; want 1 and 2", w.Neighbors, w.Neff)
	}
}

func TestReweightErrors(t *testing.T) {
	a := alignmentOf(ProteinAlphabet, 2, 3, make([]uint8, 6))
	for _, test := range []struct {
		opts []ReweightOption
		want string
	}{
		{[]ReweightOption{ReweightIdentity(1.5)}, "ReweightIdentity(1.5)"},
		{[]ReweightOption{ReweightIdentity(math.NaN())}, "ReweightIdentity(NaN)"},
		{[]ReweightOption{ReweightWorkers(0)}, "ReweightWorkers(0)"},
		{[]ReweightOption{nil}, "option 0 is nil"},
	} {
		_, err := Reweight(a, test.opts...)
		if err == nil || !strings.Contains(err.Error(), test.want) || !strings.HasPrefix(err.Error(), "protein: ") {
			t.Errorf("error %v, want one containing %q", err, test.want)
		}
	}
	if _, err := Reweight(nil); err == nil {
		t.Error("nil alignment: no error")
	}
}

func TestReweightContextAndProgress(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 2))
	const n, l = 3000, 50
	a := alignmentOf(ProteinAlphabet, n, l, familyCodes(rng, n, l, 21))
	var calls, last atomic.Int64
	_, err := Reweight(a, ReweightWorkers(2), ReweightProgress(func(done, total int) {
		if int64(done) < last.Load() {
			t.Errorf("progress went back from %d to %d", last.Load(), done)
		}
		last.Store(int64(done))
		calls.Add(1)
		if total != n*(n-1)/2 {
			t.Errorf("total = %d, want %d", total, n*(n-1)/2)
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	if last.Load() != n*(n-1)/2 || calls.Load() < 2 {
		t.Errorf("progress ended at %d after %d calls, want %d", last.Load(), calls.Load(), n*(n-1)/2)
	}

	ctx, cancel := context.WithCancel(context.Background())
	_, err = ReweightContext(ctx, a, ReweightProgress(func(done, total int) { cancel() }))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v, want context.Canceled", err)
	}
}

// BenchmarkReweight times the neighbour count on synthetic protein-like
// families (familyCodes) of length 200 with k = 21. The 1e5 case is the
// target of issue 19 (at most 10 s on 2 cores); run it alone with
//
//	go test -run XXX -bench 'Reweight/n=100000_' -benchtime 1x .
func BenchmarkReweight(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run("n="+strconv.Itoa(n)+"_L=200", func(b *testing.B) {
			rng := rand.New(rand.NewPCG(19, uint64(n)))
			a := alignmentOf(ProteinAlphabet, n, 200, familyCodes(rng, n, 200, 21))
			b.ReportAllocs()
			var w *SequenceWeights
			for b.Loop() {
				var err error
				if w, err = Reweight(a); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(w.Neff, "Neff")
		})
	}
}
