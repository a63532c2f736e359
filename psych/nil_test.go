package psych

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mrfkit/pairwise"
)

// TestNilContext: a nil context is an error that names the function, not a
// panic (issue 30).
func TestNilContext(t *testing.T) {
	var ctx context.Context // nil
	s, err := pairwise.NewSamples(2, [][]int{{0, 1, 1}, {1, 1, 0}, {1, 0, 1}, {0, 0, 0}, {0, 1, 0}})
	if err != nil {
		t.Fatal(err)
	}
	_, errB := Bootstrap(ctx, s, rand.NewPCG(1, 2), BootstrapOptions{Resamples: 2})
	_, errC := CompareGroups(ctx, s, s, rand.NewPCG(1, 2), CompareOptions{Permutations: 2})
	for fn, err := range map[string]error{"Bootstrap": errB, "CompareGroups": errC} {
		if err == nil || !strings.HasPrefix(err.Error(), "psych: "+fn+": nil context") {
			t.Errorf("%s: error %v, want one that starts \"psych: %s: nil context\"", fn, err, fn)
		}
	}
}
