// Package brute lists every state of a small discrete model with its
// exact probability, the brute-force reference the tests of the learners,
// the samplers and the incoherence hold their results against.
package brute

import (
	"fmt"
	"math"
)

// MaxStates bounds the number of states Enumerate accepts (about 100 MB of
// state vectors); larger models need the exact sampler's tables instead.
const MaxStates = 1 << 20

// Enumerate returns every z in {0..k-1}^n, the last variable fastest, with its
// probability P(z) = exp(logWeight(z)) / Z and log Z. It returns an error
// when k^n exceeds MaxStates. logWeight must not keep z.
func Enumerate(n, k int, logWeight func(z []int) float64) (states [][]int, probs []float64, logZ float64, err error) {
	total := 1
	for i := 0; i < n; i++ {
		total *= k
		if total > MaxStates {
			return nil, nil, 0, fmt.Errorf("brute: k^n = %d^%d states, more than %d", k, n, MaxStates)
		}
	}
	states = make([][]int, total)
	probs = make([]float64, total)
	z := make([]int, n)
	mx := math.Inf(-1)
	for t := range states {
		states[t] = append([]int(nil), z...)
		probs[t] = logWeight(z)
		mx = math.Max(mx, probs[t])
		for i := n - 1; i >= 0; i-- { // odometer, last variable fastest
			z[i]++
			if z[i] < k {
				break
			}
			z[i] = 0
		}
	}
	sum := 0.0
	for t, lw := range probs {
		probs[t] = math.Exp(lw - mx)
		sum += probs[t]
	}
	for t := range probs {
		probs[t] /= sum
	}
	return states, probs, mx + math.Log(sum), nil
}
