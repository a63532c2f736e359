package pairwise

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"testing"
	"time"
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
