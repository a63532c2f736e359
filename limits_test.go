package pairwise

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// hugeSym is a mat.Symmetric that claims an order no memory can hold; it
// allocates nothing.
type hugeSym struct{ n int }

func (h hugeSym) Dims() (int, int)    { return h.n, h.n }
func (h hugeSym) At(i, j int) float64 { return 0 }
func (h hugeSym) T() mat.Matrix       { return h }
func (h hugeSym) SymmetricDim() int   { return h.n }
func (h hugeSym) String() string      { return "hugeSym" }

// TestConstructorLimits checks that the constructors refuse, with an error
// and before allocating, the sizes that would exhaust memory, and still
// build the sizes just inside their limits' reach.
func TestConstructorLimits(t *testing.T) {
	src := rand.NewPCG(1, 2)
	wantErr := func(name string, err error, sub string) {
		t.Helper()
		if err == nil || !strings.HasPrefix(err.Error(), "pairwise: ") || !strings.Contains(err.Error(), sub) {
			t.Errorf("%s: error %v, want one mentioning %q", name, err, sub)
		}
	}
	_, err := NewModel(1<<40, 2)
	wantErr("NewModel(1<<40, 2)", err, "MaxModelEntries")
	_, err = NewModel(MaxModelEntries/2+1, 2)
	wantErr("NewModel(MaxModelEntries/2+1, 2)", err, "MaxModelEntries")
	_, err = NewModel(math.MaxInt, MaxAlphabet)
	wantErr("NewModel(MaxInt, MaxAlphabet)", err, "MaxModelEntries")
	_, err = NewIsing(hugeSym{1 << 40}, nil)
	wantErr("NewIsing of order 1<<40", err, "MaxModelEntries")
	m, err := NewModel(10, 2)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := NewExactSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ex.Sample(src, 1<<40)
	wantErr("ExactSampler.Sample(1<<40)", err, "MaxSampleValues")
	g, err := NewGibbsSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Sample(src, MaxSampleValues/10+1)
	wantErr("GibbsSampler.Sample(MaxSampleValues/10+1)", err, "MaxSampleValues")

	// Without η the learners refuse n·n·k² > MaxLearnEntries before
	// fitting (the edge test's arrays are dense); with η the estimates are
	// sparse, and a shard of the same samples learns, and its part
	// decodes.
	row := make([]int, 16385)
	row[7] = 1
	s, err := NewSamples(2, [][]int{row, make([]int, 16385), row})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Learn(s, WithWidth(1))
	wantErr("Learn n=16385 k=2 without η", err, "MaxLearnEntries")
	// The error says how to lift the limit: give η (issue 30).
	wantErr("Learn n=16385 k=2 without η", err, "give the minimum edge weight with WithMinEdgeWeight")
	if !errors.Is(err, ErrEdgeTestTooLarge) {
		t.Errorf("Learn n=16385 k=2 without η: %v does not match ErrEdgeTestTooLarge", err)
	}
	_, err = LearnShard(s, 0, 1000)
	wantErr("LearnShard n=16385 k=2 without η", err, "MaxLearnEntries")
	wantErr("LearnShard n=16385 k=2 without η", err, "WithMinEdgeWeight")
	part, err := LearnShard(s, 0, 1000, WithWidth(1), WithMinEdgeWeight(0.1))
	if err != nil {
		t.Fatalf("LearnShard n=16385 k=2 with η: %v", err)
	}
	data, err := json.Marshal(part)
	if err != nil {
		t.Fatal(err)
	}
	var back Partial
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatalf("the part of n = 16385 with η does not decode: %v", err)
	}
	if _, err := MergePartials(&back); err == nil {
		t.Error("Merge of one of 1000 shards succeeded")
	}
}

// TestWeightedSamplesRejectNonFinite checks that NaN, infinite and negative
// weights, and weights whose sum overflows, are errors naming the row.
func TestWeightedSamplesRejectNonFinite(t *testing.T) {
	rows := [][]int{{0, 1}, {1, 0}, {1, 1}}
	for _, w := range [][]float64{
		{1, math.NaN(), 1},
		{1, math.Inf(1), 1},
		{1, math.Inf(-1), 1},
		{1, -1, 1},
		{0, 0, 0},
		{math.MaxFloat64, math.MaxFloat64, 1},
	} {
		_, err := NewWeightedSamples(2, rows, w)
		if err == nil || !strings.HasPrefix(err.Error(), "pairwise: ") {
			t.Errorf("weights %v: error %v, want one", w, err)
		}
	}
}
