//go:build !race

package psych

import "testing"

// skipUnderRace skips a long statistical test when the race detector is on
// (see race_test.go); without it, it does nothing.
func skipUnderRace(t *testing.T) { t.Helper() }
