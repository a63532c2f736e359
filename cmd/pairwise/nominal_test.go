package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// nominalCSV returns a questionnaire of three five-point items and a
// three-valued unordered category "group", with a header, where the
// group is tied to "q1" by a coupling that is not monotone in its code.
func nominalCSV() string {
	r := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	b.WriteString("q1,q2,q3,group\n")
	for m := 0; m < 600; m++ {
		g := r.IntN(3)
		q1 := r.IntN(5)
		if r.Float64() < 0.4 {
			// Groups 0 and 2 answer high, group 1 low: the tie is
			// linear in q1's answer but not monotone in the group's code.
			q1 = 3 + r.IntN(2)
			if g == 1 {
				q1 = r.IntN(2)
			}
		}
		q2 := min(max(q1+r.IntN(3)-1, 0), 4) // a linear tie
		fmt.Fprintf(&b, "%d,%d,%d,%d\n", q1, q2, r.IntN(5), g)
	}
	return b.String()
}

// TestLearnNominal runs `pairwise learn -nominal`: by header name and by
// column number it fits the mixed model and says so in the summary, and
// it finds the non-monotone tie; an unknown column and a column number out
// of range are errors naming the file and the column, and -nominal with
// -lambda, with -shard and in the bootstrap are errors, not ignored.
func TestLearnNominal(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "items.csv", nominalCSV())
	for _, list := range []string{"group", "4"} {
		code, stdout, stderr := runCmd(t, "learn", "-nominal", list, path)
		if code != 0 {
			t.Fatalf("-nominal %s: exit %d: %s", list, code, stderr)
		}
		if !strings.Contains(stderr, "scale: ordinal with 1 nominal variable(s), group:") {
			t.Errorf("-nominal %s: summary does not name the nominal variable:\n%s", list, stderr)
		}
		if !strings.Contains(stdout, "q1,group,") {
			t.Errorf("-nominal %s: no edge q1–group:\n%s", list, stdout)
		}
	}
	// Read as ordered, the group's code carries no linear tie to q1.
	if stdout := runOK(t, "learn", "-scale", "ordinal", path); strings.Contains(stdout, "q1,group,") {
		t.Errorf("-scale ordinal without -nominal found q1–group: the data do not show what -nominal adds:\n%s", stdout)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"learn", "-nominal", "nosuch", path}, `"nosuch" is neither a column`},
		{[]string{"learn", "-nominal", "9", path}, "from 1 to 4"},
		{[]string{"bootstrap", "-nominal", "group", path}, "not to the bootstrap"},
		{[]string{"learn", "-nominal", "group", "-scale", "ordinal", "-lambda", "1", path}, "tuning-free default"},
		{[]string{"learn", "-nominal", "group", "-shard", "1/2", path}, "not in shards"},
	} {
		code, _, stderr := runCmd(t, c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want an error containing %q", c.args, code, stderr, c.want)
		}
	}
}
