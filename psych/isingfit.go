package psych

import (
	"math"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/solve"
)

// IsingFitMinEdgeWeight is the minimum edge weight η that IsingFit sets:
// twice the smallest positive float64, so that η/2 is the smallest positive
// float64 and a pair passes the threshold η/2 exactly when its estimate is
// not zero. pairwise.Result.MinEdgeWeight reports it (about 1e-323), as it
// does when the default learner's EBIC graph stage chose the graph
// (pairwise.Tuning.EBICGraph), whose pairs pass no threshold either.
const IsingFitMinEdgeWeight = 2 * math.SmallestNonzeroFloat64

// IsingFit returns the options that make the learners estimate a network
// the way R's IsingFit 0.4 (van Borkulo et al., Scientific Reports 2014)
// does, for users who must match a published analysis. Use it as
// pairwise.Learn(s, psych.IsingFit()...); IsingFitGamma sets EBIC's γ.
//
// For each item i with both answers in at least two rows, it fits the
// logistic regression of item i on the other such items the way IsingFit
// does with glmnet's defaults:
//
//   - the answers are 0/1; each predictor is centred and scaled to unit
//     variance (glmnet's standardize = TRUE: population variance under
//     the row weights), the intercept is not penalised, and the penalty
//     is λ Σ_j |β̃_j| on the standardised coefficients, with the loss the
//     mean negative log-likelihood;
//   - along glmnet's path: 100 penalties from λ_max (the smallest that
//     zeroes every coefficient) down to λ_max·10⁻⁴ (·10⁻² when there are
//     fewer rows than predictors), evenly spaced on the log scale, each
//     fit warm-started from the previous one, and the path ended early
//     as glmnet ends it (from the fifth penalty on, once the fraction of
//     deviance explained grows by less than 10⁻⁵ or exceeds 0.999);
//   - it keeps the penalty of lowest EBIC = −2 log L + J log N +
//     2γ J log(p), with log L the log-likelihood summed over the N rows,
//     J the nonzero coefficients, p the number of predictors (the items
//     analysed minus one) and γ = 0.25; on a tie the larger penalty (the
//     first on the path, as R's which.min).
//
// A pair is an edge when both items' chosen regressions give it a nonzero
// coefficient (the AND rule, pairwise.And), and its weight is the average
// of the two (IsingFit's AND = TRUE; append
// pairwise.WithSymmetrization(pairwise.Or) for AND = FALSE, whose weight
// is the average with a zero counted). There is no edge test and no
// threshold: pairwise.WithMinEdgeWeight is IsingFitMinEdgeWeight.
//
// The regressions are fitted by this package's own coordinate descent
// (Newton steps on the log-likelihood, each solved by cyclic coordinate
// descent with soft thresholding, as glmnet does), given to the learner
// as its Ising solver (pairwise.WithSpinSolver) with the constraint
// radius set out of reach (pairwise.WithRadius(math.MaxFloat64)), so that
// no ℓ1 ball of the paper binds: Result.Radius reports that radius and
// Result.Width is NaN. Each node's NodeFit.Iterations counts the sweeps of
// coordinate descent along its path, NodeFit.Gap is NaN (a penalised fit
// has no certificate for the constrained problem), and NodeFit.Converged
// says every penalty of the path converged. The solver stops at a tighter
// tolerance than glmnet's default (thresh = 10⁻⁷ of the null deviance), so
// a coefficient near zero may be zero in one and not the other; the
// repository's docs/psych/isingfit-match.md measures the agreement with R's
// IsingFit on real questionnaires.
//
// Weights are on the pairwise package's scale: the learned coupling Â_ij
// (pairwise.Model, pairwise.SignedEdges) is a quarter of IsingFit's weight,
// which is the coefficient of 0/1 answers (P ∝ exp(Σ β_ij x_i x_j + ...)):
// β_ij = 4·Â_ij. IsingFit's thresholds τ_i (the intercepts) follow from the
// fields: τ_i = 2θ̂_i − 2Σ_j Â_ij.
//
// How it differs from IsingFit itself:
//
//   - IsingFit stops on missing answers; here a missing answer is an
//     error of the learner too, unless the rows with one are dropped
//     first (pairwise.WithMissing(pairwise.ListwiseDeletion)).
//   - IsingFit leaves the items whose rarer answer has at most one row out
//     of the network (no edges, thresholds ±Inf); here they have no edge
//     either and their field is the log-odds of their answers (a constant
//     item is handled as the learner handles any, NodeFit.Constant).
//   - Row weights (pairwise.NewWeightedSamples, merged rows) count as
//     that many rows: N is the total weight, and the path is glmnet's
//     with those weights, which for counts is the fit on the rows
//     repeated.
//   - Only binary items (k = 2): for k > 2 the learner returns an error,
//     as IsingFit does.
//
// How it differs from the default (no options): the default replaces the
// nonzero rule by a Wald test of the debiased estimates at a family-wise
// false-edge rate (pairwise.WaldTest), which keeps fewer false edges. Where
// the test has too few observations to find most of the pairs this rule
// selects (a few hundred people on 25 items), the default's EBIC graph
// stage adds the pairs of a similar rule on its constrained fits to the
// test's, when a global test rejects independence and (unless the test
// found nothing) BIC prefers the union; docs/psych compares the two modes
// at N = 100 to 2500.
//
// Options after it win where they overlap, but a solver (WithSolver,
// WithSpinSolver), a width or radius (WithWidth, WithNodeWidths,
// WithRadius) or an edge test replaces IsingFit's fits or rule: only
// WithWorkers, WithProgress, WithMissing and WithSymmetrization are meant
// to follow it.
func IsingFit() []pairwise.Option {
	return IsingFitGamma(pairwise.DefaultGamma)
}

// IsingFitGamma returns IsingFit's options with EBIC's parameter γ
// (IsingFit's gamma; 0 is BIC) in place of 0.25. A γ that is negative,
// +Inf or NaN makes the learner return an error.
func IsingFitGamma(gamma float64) []pairwise.Option {
	return []pairwise.Option{
		pairwise.WithSpinSolver(isingFitPath{gamma: gamma}),
		pairwise.WithOneHotSolver(solve.Func[solve.OneHot](isingFitOneHot)),
		pairwise.WithRadius(math.MaxFloat64),
		pairwise.WithSymmetrization(pairwise.And),
		pairwise.WithMinEdgeWeight(IsingFitMinEdgeWeight),
	}
}
