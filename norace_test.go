//go:build !race

package pairwise

import "testing"

// raceEnabled is true when the tests are built with the race detector
// (go test -race).
const raceEnabled = false

// skipUnderRace skips a long statistical test when the race detector is on
// (see race_test.go); without it, it does nothing.
func skipUnderRace(t *testing.T) { t.Helper() }
