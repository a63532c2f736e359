package protein

import (
	"context"
	"strings"
	"testing"
)

// TestNilContext: a nil context or a nil reader is an error that names the
// function, not a panic (issue 30).
func TestNilContext(t *testing.T) {
	a, err := ReadAlignment(strings.NewReader(">a\nACDE\n>b\nACDF\n"))
	if err != nil {
		t.Fatal(err)
	}
	var ctx context.Context // nil
	_, errW := ReweightContext(ctx, a)
	_, errR := ReadAlignment(nil)
	for fn, err := range map[string]error{"ReweightContext": errW, "ReadAlignment": errR} {
		if err == nil || !strings.HasPrefix(err.Error(), "protein: "+fn+": nil ") {
			t.Errorf("%s: error %v, want one that starts \"protein: %s: nil \"", fn, err, fn)
		}
	}
}
