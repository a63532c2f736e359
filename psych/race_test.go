//go:build race

package psych

import "testing"

// skipUnderRace skips a long statistical test when the race detector is on.
// Such a test learns many seeded samples to measure a rate (recoveries,
// false edges) or checks one goroutine's numbers against a reference; the
// race detector makes it several times slower and finds nothing in it that
// the concurrency tests (workers, row splitting, cancellation, progress),
// which always run, do not exercise. It still runs in full without -race:
// CI runs "go test ./..." as well as "go test -race ./...".
func skipUnderRace(t *testing.T) {
	t.Helper()
	t.Skip("a long statistical test: it runs without -race (see skipUnderRace)")
}
