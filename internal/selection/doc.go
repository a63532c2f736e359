// Package selection holds the stages that choose what the paper leaves to
// its reader, λ and η, from the data; the root package's Selection,
// WaldTest and Tuning are their public face and run them.
//
// Before and during the fits (per node):
//   - path.go: the width path, the search along a grid of widths λ for
//     the one EBIC or cross-validation prefers (RunPath, Spec, Folds);
//   - wald.go and wald_support.go: the debiased estimates Ŵ_ij(a, b) and
//     their sandwich standard errors, from the full design (WaldSpins,
//     WaldOneHot) or, with many variables, from a node's likely support
//     (WaldSpinsSupport).
//
// After the fits (over the pairs):
//   - refit.go: the Ising edge test's second stage, each node refitted
//     unconstrained on the pairs its first stage screened (RefitAll);
//   - mixture.go: the two-group model whose posterior cuts the refit's
//     statistics (MixtureCut);
//   - ebic_graph.go: with few observations, a global test of independence
//     and the EBIC graph (IndependenceP, EBICGraph);
//   - small_samples.go: the rules that say when the data are too few for
//     a statistic (EnoughEvents, CochranOK, HC1Factor, TScore).
//
// The stages read the samples as Data, the rows as the engine holds them,
// and never import the root package: data flow down the layers.
package selection
