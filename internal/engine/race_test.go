//go:build race

package engine

import "testing"

// skipUnderRace skips a single-goroutine numerical check when the race
// detector is on: it makes such a check several times slower and finds
// nothing in it; the tests that split rows among goroutines
// (TestScreenRowSplit, the row-split tests) always run. CI runs the
// package without -race as well, where every test runs.
const raceEnabled = true

func skipUnderRace(t *testing.T) {
	t.Helper()
	t.Skip("a single-goroutine numerical check: it runs without -race (see skipUnderRace)")
}
