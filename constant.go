package pairwise

import (
	"github.com/mrfkit/pairwise/internal/estimates"
)

// Degenerate data. A variable that takes the same value v in every row of
// positive weight (a survey question everyone answered alike, a conserved
// column of an alignment, every column when all rows are identical) is
// legal data, but the data say nothing about how it depends on the others:
//
//   - In every other node's regression its feature is constant, so it
//     duplicates the bias: the fit is the same whatever part of the bias it
//     carries, and the coefficient the solver leaves on it is arbitrary.
//     Only the sum θ̂_j(a) + Ŵ_jc(a, v) is determined.
//   - Its own regressions have one label (or none): the likelihood grows
//     without bound along the bias, so the constrained solution puts the
//     whole radius on the bias (LearnPairwise's closed form for one-label
//     pairs; the solver's optimum on the Ising path), and the coefficients
//     on the other variables are zero at the optimum.
//
// foldConstant makes both explicit after the nodes are fitted and before the
// estimates are assembled: for every constant variable c (at value v) and
// every other node j, Ŵ_jc(:, v) is moved into θ̂_j (the conditional law of
// z_j given the rest is unchanged on every state the data hold), Ŵ_jc is set
// to zero, and the estimates of a constant node's own regressions are set to
// zero. The fields are centred again. NodeFit.Constant records it, and the
// edge test gives the pairs of a constant variable the statistic 0.
//
// With missing values (AvailableCase) a variable is constant when all its
// observed values are one value, or when it has none (its regression has
// no row). Its feature is then v where it is observed and 0 where it is
// missing, so the fold is exact on the rows that observe it only; the
// pairs are not edges either way.
//
// est, fields and nodes are the learners' (est[i].block(j)[a*k + b] is
// Ŵ_ij(a, b) from node i, fields[i*k + a] is θ̂_i(a)); s are the samples the
// nodes were fitted on.
func foldConstant(s *Samples, est []*estimates.Node, fields []float64, nodes []NodeFit) {
	n, k := s.n, s.k
	zero := estimates.ZeroBlock(k)
	value := constantValues(s)
	found := false
	for c := range value {
		if value[c] != -1 {
			nodes[c].Constant = true
			found = true
		}
	}
	if !found {
		return
	}
	for j := 0; j < n; j++ {
		if est[j] == nil {
			continue
		}
		for c := 0; c < n; c++ {
			v := value[c]
			if c == j || v < 0 {
				continue
			}
			w := est[j].Block(c)
			for a := 0; a < k; a++ {
				fields[j*k+a] += w[a*k+v]
			}
			est[j].Set(c, zero)
		}
		if value[j] != -1 {
			est[j].ClearAll()
		}
		estimates.Centre(fields[j*k : (j+1)*k])
	}
}

// constantValues returns, for every variable, the value it takes in every
// row of positive weight, or -1 when it takes two or more. For samples
// with missing values (learned by AvailableCase) the missing values are
// left out: a variable is constant when its observed values are one value,
// and a variable without any observed value is noValue.
func constantValues(s *Samples) []int {
	n := s.n
	value := make([]int, n)
	for i := range value {
		value[i] = noValue
	}
	still := n
	for m := 0; m < s.rows && still > 0; m++ {
		if s.weights != nil && s.weights[m] == 0 {
			continue
		}
		for i, v := range value {
			x := s.At(m, i)
			switch {
			case x == Missing || v == -1 || v == x:
			case v == noValue:
				value[i] = x
			default:
				value[i] = -1
				still--
			}
		}
	}
	return value
}

// noValue is constantValues' mark of a variable that is never observed.
const noValue = -2
