package pairwise

import (
	"math"
)

// The node-wise multinomial model: Learn's tuning-free default on the
// nominal scale (issue 32). Each node's conditional law is one softmax
// over the values it takes, on every other variable's indicators (one a
// value but the first), fitted without constraint by maximum likelihood
// on all rows: issue 31's mixed model (WithNominalVariables,
// internal/selection/mixed.go) with every variable nominal. Its edge test
// has one Wald statistic a pair over the (k_i − 1)(k_j − 1) couplings of
// its block, cut by the mixture, and the mixed model's EBIC graph for
// small samples. Algorithm 2's value pairs see only the rows holding one
// of the two values, under an l2,1 constraint whose width is searched;
// the softmax sees every row once, and on questionnaire-sized data it
// finds far more of the true edges at the same precision
// (docs/psych/likert.md).

// multinomialRowsPerParameter is the rows (total weight) the multinomial
// default needs for each parameter of the largest node law: below it
// Algorithm 2 stays. Chosen on the choice data (docs/learning.md).
const multinomialRowsPerParameter = 2.0

// multinomialMaxRowsPerParameter is the rows a parameter from which
// Algorithm 2 stays: with that much data its value-pair regressions have
// the rows they need, and on the Potts grids they recovered the graphs as
// well as the multinomial model (grid-k4 at N = 1,500 and 3,000, grid-k6
// at 4,000, 20 to 40 rows a parameter: 10 of 10 each way; the tuning
// study's grids, 49 to 533 rows a parameter: 160 of 160 against 159), at
// a fraction of its time on questionnaires. Below it the softmax's power
// matters: Algorithm 2 found next to nothing at 0.4 to 14 rows a parameter
// on the Likert study's files (docs/psych/likert.md) and on grid-k6 at 5
// (0 of 10 exact, 6.8 edges missed). Chosen on the Potts grids, 2026-11-29
// (docs/learning.md).
const multinomialMaxRowsPerParameter = 20.0

// maxMultinomialParams bounds the parameters of one node's law in the
// multinomial default: its Newton steps hold and factor a dense
// information matrix of that order (8 MB and about 3·10⁸ operations a
// step at 1,000), and the pass over the rows costs (k − 1)²(n − 1)²/2
// operations a row. Above it Algorithm 2 stays.
const maxMultinomialParams = 1000

// multinomialParams returns the largest number of parameters of a node's
// law in the node-wise multinomial model of s: (k_i − 1)(1 + Σ_{j≠i}
// (k_j − 1)), k_j the values variable j takes in rows of positive weight
// (its fields but the first, and one coupling a value of z_i but the
// first and a value of z_j but the first).
func multinomialParams(s *Samples) int {
	counts := valueWeights(s)
	taken := make([]int, s.n)
	sum := 0
	for j, c := range counts {
		for _, w := range c {
			if w > 0 {
				taken[j]++
			}
		}
		if taken[j] > 0 {
			sum += taken[j] - 1
		}
	}
	most := 0
	for _, t := range taken {
		if t > 1 {
			most = max(most, (t-1)*(1+sum-(t-1)))
		}
	}
	return most
}

// multinomialDefault reports whether Learn (one process) fits the
// node-wise multinomial model to s on the nominal scale under cfg: the
// tuning-free default (neither λ, η, a radius, node widths, a Selection
// nor a ridge given), with the Accelerated backend, on complete samples
// (a missing value stays a state of Algorithm 2's, MissingAsState), when
// the largest node law has at most maxMultinomialParams parameters and
// the samples' total weight gives each at least multinomialRowsPerParameter
// rows and fewer than multinomialMaxRowsPerParameter.
func multinomialDefault(s *Samples, cfg *config) bool {
	if s.k <= 2 || s.incomplete || !cfg.backend().Fast || cfg.ridgeSet || cfg.selection != nil ||
		!math.IsNaN(cfg.lambda) || !math.IsNaN(cfg.eta) || !math.IsNaN(cfg.radius) || cfg.widths != nil {
		return false
	}
	p := multinomialParams(s)
	return p > 0 && p <= maxMultinomialParams && s.total >= multinomialRowsPerParameter*float64(p) &&
		s.total < multinomialMaxRowsPerParameter*float64(p)
}

// multinomialChosen is the model as learnWith resolved it: the ordinal
// path's mixed model with every variable nominal.
func multinomialChosen() Option {
	return optionFunc(func(c *config) { c.ordinal, c.multinomial = true, true })
}
