package pairwise

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mrfkit/pairwise/solve"
)

// TestCancelLatency measures how long LearnContext takes to return after its
// context is cancelled, on a tuning-free fit (no λ, no η) of a k = 6, n = 30
// model from N = 5000 samples, cancelled at several points of the fit. It
// is a measurement for issue 18 (an interrupt should stop any fit within a
// second), run only with PAIRWISE_CANCEL_LATENCY=1; it fails when a fit does
// not return ctx.Err() or takes more than maxLatency after the cancel.
func TestCancelLatency(t *testing.T) {
	if os.Getenv("PAIRWISE_CANCEL_LATENCY") == "" {
		t.Skip("a measurement: set PAIRWISE_CANCEL_LATENCY=1")
	}
	const maxLatency = 5 * time.Second
	src := rand.NewPCG(18, 1)
	m := gridPotts(5, 6, 6, 0.3, rand.New(src))
	g, err := NewGibbsSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.Sample(src, 5000)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := Learn(s); err != nil {
		t.Fatal(err)
	}
	full := time.Since(start)
	t.Logf("uncancelled fit: %v", full)
	for _, frac := range []float64{0.05, 0.25, 0.5, 0.75, 0.95} {
		ctx, cancel := context.WithCancel(context.Background())
		at := time.Duration(frac * float64(full))
		timer := time.AfterFunc(at, cancel)
		begin := time.Now()
		_, err := LearnContext(ctx, s)
		end := time.Now()
		timer.Stop()
		cancel()
		if err == nil {
			t.Logf("cancel at %v (%.0f%%): the fit finished first, in %v", at, 100*frac, end.Sub(begin))
			continue
		}
		latency := end.Sub(begin.Add(at))
		t.Logf("cancel at %v (%.0f%%): returned %v after the cancel", at, 100*frac, latency)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancel at %v: error %v, want context.Canceled", at, err)
		}
		if latency > maxLatency {
			t.Errorf("cancel at %v: returned %v after the cancel, more than %v", at, latency, maxLatency)
		}
	}
}

// TestNilContextAndReader: a nil context or a nil reader is an error that
// names the function, not a panic (issue 30). Packages psych and protein
// check their own (TestNilContext there).
func TestNilContextAndReader(t *testing.T) {
	var ctx context.Context // nil
	s, err := NewSamples(2, [][]int{{0, 1, 1}, {1, 1, 0}, {1, 0, 1}, {0, 0, 0}, {0, 1, 0}})
	if err != nil {
		t.Fatal(err)
	}
	s3, err := NewSamples(3, [][]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	part, err := LearnShard(s, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	problem := &solve.Problem[solve.Spins]{X: solve.Spins{X: []float64{1, 1, -1, 1}, Cols: 2, Bias: 1}, Y: []float64{1, -1}, Radius: 1, Settings: solve.Settings{Tol: 1e-6}}
	for _, tc := range []struct {
		fn  string
		err func() error
	}{
		{"LearnContext", func() error { return second(LearnContext(ctx, s)) }},
		{"LearnIsingContext", func() error { return second(LearnIsingContext(ctx, s)) }},
		{"LearnPairwiseContext", func() error { return second(LearnPairwiseContext(ctx, s3)) }},
		{"LearnShardContext", func() error { return second(LearnShardContext(ctx, s, 0, 1)) }},
		{"LearnNodesContext", func() error { return second(LearnNodesContext(ctx, s, []int{0})) }},
		{"MergePartialsContext", func() error { return second(MergePartialsContext(ctx, s, 1, part)) }},
		{"LearnContactsContext", func() error { return second(LearnContactsContext(ctx, s3)) }},
		{"Accelerated", func() error { return second(Accelerated{}.SolveSpins(ctx, problem, make([]float64, 2))) }},
		{"EntropicMirror", func() error { return second(EntropicMirror{}.SolveSpins(ctx, problem, make([]float64, 2))) }},
		{"GroupMirror", func() error { return second(GroupMirror{}.SolveSpins(ctx, problem, make([]float64, 2))) }},
		{"Sparsitron", func() error { return second(Sparsitron{}.SolveSpins(ctx, problem, make([]float64, 2))) }},
		{"ReadCSV", func() error { return second(ReadCSV(nil)) }},
		{"ReadHistogramCSV", func() error { return second(ReadHistogramCSV(nil)) }},
		{"ReadCSVCompact", func() error { return second(ReadCSVCompact(nil)) }},
		{"ReadHistogramCSVCompact", func() error { return second(ReadHistogramCSVCompact(nil)) }},
		{"ReadCSVWith", func() error { return second(ReadCSVWith(nil, CSVOptions{})) }},
		{"ReadModel", func() error { return second(ReadModel(nil)) }},
		{"ReadPartial", func() error { return second(ReadPartial(nil)) }},
	} {
		t.Run(tc.fn, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("panic: %v", r)
				}
			}()
			err := tc.err()
			if err == nil || !strings.HasPrefix(err.Error(), "pairwise: "+tc.fn+": nil ") {
				t.Errorf("error %v, want one that starts \"pairwise: %s: nil \"", err, tc.fn)
			}
		})
	}
}
