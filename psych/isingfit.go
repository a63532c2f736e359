package psych

import (
	"math"

	"github.com/mrfkit/pairwise"
)

// IsingFitMinEdgeWeight is the minimum edge weight η that IsingFit sets:
// twice the smallest positive float64, so that η/2 is the smallest positive
// float64 and a pair passes the threshold η/2 exactly when its estimate is
// not zero. pairwise.Result.MinEdgeWeight reports it (about 1e-323), as it
// does when the default learner's EBIC graph stage chose the graph
// (pairwise.Tuning.EBICGraph), whose pairs pass no threshold either.
const IsingFitMinEdgeWeight = 2 * math.SmallestNonzeroFloat64

// IsingFit returns the options that make the learners estimate a network
// the way R's IsingFit (van Borkulo et al., Scientific Reports 2014) does,
// for users who must match a published analysis:
//
//   - each node's width is chosen by EBIC with γ = 0.25
//     (pairwise.EBIC{Gamma: pairwise.DefaultGamma}, IsingFit's gamma =
//     0.25);
//   - a pair is an edge when both nodes' regressions give it a nonzero
//     coefficient (the And rule, IsingFit's AND = TRUE), and the edge's
//     weight is the average of the two;
//   - there is no edge test and no threshold: pairwise.WithMinEdgeWeight
//     is IsingFitMinEdgeWeight, so every nonzero coefficient counts.
//
// Use it as pairwise.Learn(s, psych.IsingFit()...), or append options to
// it; options after it win where they overlap (for example
// pairwise.WithSymmetrization(pairwise.Or) for IsingFit's AND = FALSE, or
// pairwise.WithSelection(pairwise.EBIC{Gamma: 0.5})). For k > 2
// it is the same rule on the group-lasso regressions of Algorithm 2: a pair
// is an edge when both nodes keep its k×k block nonzero, as mgm does with
// its EBIC and AND rule.
//
// How it differs from IsingFit itself. The rule and the criterion are the
// same; the fits along the path are not:
//
//   - IsingFit fits penalised logistic regressions (glmnet, ℓ1 penalty λ on
//     the coefficients, the intercept unpenalised) along glmnet's path of
//     100 penalties and picks the one with the lowest EBIC. The learners
//     here solve the constrained form of the paper, the ℓ1 norm of the
//     coefficients and the intercept within a radius 2λ_i, over the
//     widths of pairwise.DefaultWidths (a factor √2 apart, searched from
//     0.4 as pairwise.Selection describes). Each penalised solution is a
//     constrained one for some radius and the reverse, so the two paths
//     hold the same family of estimates; the grids differ (17 widths
//     against 100 penalties), the search can stop at a local minimum of
//     EBIC, and the intercept in the budget shrinks it too for items with
//     skewed answers. Expect the same graph on most pairs and a few weak
//     edges to differ.
//   - Weights are on the pairwise package's scale: for k = 2 the learned
//     coupling Â_ij (pairwise.Model, pairwise.SignedEdges) is a quarter of
//     IsingFit's weight, which is the coefficient of 0/1 answers
//     (P ∝ exp(Σ β_ij x_i x_j + ...)): β_ij = 4·Â_ij. The thresholds (τ)
//     follow the same way from the fields.
//
// How it differs from the default (no options): the default replaces the
// nonzero rule by a Wald test of the debiased estimates at a family-wise
// false-edge rate (pairwise.WaldTest), which keeps fewer false edges. Where the test
// has too few observations to find most of the pairs this rule selects (a
// few hundred people on 25 items), the default's EBIC graph stage adds this
// rule's pairs to the test's, when a global test rejects independence and
// (unless the test found nothing) BIC prefers the union; docs/psych
// compares the two modes at N = 100 to 2500.
func IsingFit() []pairwise.Option {
	return []pairwise.Option{
		pairwise.WithSelection(pairwise.EBIC{Gamma: pairwise.DefaultGamma}),
		pairwise.WithSymmetrization(pairwise.And),
		pairwise.WithMinEdgeWeight(IsingFitMinEdgeWeight),
	}
}
