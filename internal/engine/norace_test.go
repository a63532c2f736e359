//go:build !race

package engine

import "testing"

// skipUnderRace skips a test under the race detector (see race_test.go);
// without it, it does nothing.
func skipUnderRace(t *testing.T) { t.Helper() }

const raceEnabled = false
