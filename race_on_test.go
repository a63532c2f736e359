//go:build race

package pairwise

// raceEnabled reports whether the tests run under the race detector, which
// slows the learners about tenfold: the matrix tests of degenerate data
// then run a deterministic subset of their cases (every path and every
// data set still appear), so that CI's race run stays short.
const raceEnabled = true
