package selection

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Little data. The edge test (WaldTest) compares |Ŵ_ij(a, b)|/SE with a
// normal quantile, which is right as N grows with n and k fixed. With few
// observations a node's regression (p coefficients: n for the Ising path,
// D = (n-1)(k-1) + 1 for each value pair of the pairwise path) is fitted to
// hardly more rows than it has coefficients; the sandwich variance, an
// average of squared residual influences, is then biased down (the fit has
// used p of the N degrees of freedom to make the residuals small) and is
// itself noisy, so the ratio has heavier tails than the normal law. Measured
// on independent data (docs/tuning/small-samples.md), the uncorrected test
// called false edges in most runs at N ≤ 2n.
//
// The correction is the one linear regression has long used, applied to
// every regression the test reads:
//
//   - HC1: the influences are scaled by √(N/(N − p)), so the sandwich
//     variance divides by the residual degrees of freedom N − p and not by
//     N (MacKinnon and White 1985);
//   - each statistic t = |Ŵ|/SE is referred to Student's t law with N − p
//     degrees of freedom rather than the normal law, and enters the test as
//     the normal score of the same tail probability,
//     z = Φ⁻¹(1 − T_{N−p}(−t)) (TScore), so the Bonferroni critical value,
//     the gap rule and the mixture keep their normal scale; the refit
//     stage's model-based statistics use N − (its coefficients);
//   - a regression with N ≤ p has no degrees of freedom (it can interpolate
//     its rows): its statistics are 0, and Result.Warnings says so.
//
// As N grows both factors go to 1: at N = 1000 and p = 49 the first stage's
// statistics shrink by about 3%, and the refit's, with a handful of
// coefficients, by a few tenths of a percent.

// HC1Factor returns √(N/(N − p)), the factor by which the HC1 correction
// scales a sandwich standard error of a regression of p coefficients fitted
// to a total weight N; 1 when N ≤ p (the test then does not use it).
func HC1Factor(total, p float64) float64 {
	if total <= p {
		return 1
	}
	return math.Sqrt(total / (total - p))
}

// maxNormalScore is the largest normal score TScore returns, about
// Φ⁻¹(1 − 10⁻³⁰⁸): a tail probability below the smallest float64 cannot be
// told apart.
const maxNormalScore = 37.5

// normalDF is the number of degrees of freedom from which TScore and
// TQuantile use the normal law: Student's t then differs from it by less
// than 10⁻⁶ relative in the quantiles the test uses, and gonum's t law is
// not defined for astronomically many (weights of 1e300).
const normalDF = 1e8

// TScore returns the normal score of a Wald statistic t ≥ 0 with df degrees
// of freedom: z with 1 − Φ(z) = 1 − T_df(t), T_df Student's t distribution
// function. It returns t when df is +Inf or at least normalDF (the
// asymptotic test), 0 when
// df ≤ 0 (no degrees of freedom: the data cannot measure the error) or
// t ≤ 0, and NaN for a NaN t. z < t for finite df, and z → t as df grows.
func TScore(t, df float64) float64 {
	switch {
	case math.IsNaN(t):
		return t
	case t <= 0 || !(df > 0):
		return 0
	case df >= normalDF:
		return t
	}
	p := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(t)
	if !(p > 0) {
		return math.Min(t, maxNormalScore)
	}
	return math.Min(-distuv.UnitNormal.Quantile(p), t)
}

// TQuantile is the inverse of TScore in t: the t ≥ 0 whose normal score
// with df degrees of freedom is z ≥ 0; +Inf when df ≤ 0, z when df is
// at least normalDF.
func TQuantile(z, df float64) float64 {
	switch {
	case !(df > 0):
		return math.Inf(1)
	case df >= normalDF || z <= 0:
		return z
	}
	p := distuv.UnitNormal.CDF(-z)
	if !(p > 0) {
		return math.Inf(1)
	}
	return -distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(p)
}

// MinEventsPerCoefficient is E, the fewest observations of a regression's
// rarer label per coefficient with which the edge test uses it: a node's
// Ising regression (n coefficients) needs min(N_0, N_1) ≥ E·n, a value pair
// (α, β) of the pairwise path (D coefficients) min(N_α, N_β) ≥ E·D, N_a the
// weight of the rows where z_i = a. Below, the maximum likelihood estimate
// that the debiased estimate steps towards does not exist with high
// probability (the data are separable: Candès and Sur 2020 place the
// transition at N = 2p for balanced labels and no signal) or its normal
// approximation fails (the events-per-variable rule of logistic regression,
// Peduzzi et al. 1996). Chosen by measurement (docs/tuning/small-samples.md).
const MinEventsPerCoefficient = 2.0

// EnoughEvents reports whether a regression of p coefficients whose rarer
// label has weight minority passes the rule of MinEventsPerCoefficient.
func EnoughEvents(minority, p float64) bool {
	return minority >= MinEventsPerCoefficient*p
}

// Cochran's rule (Cochran 1954) for the k×k table of a pair (z_i, z_j),
// over the values that occur: the expected counts under independence,
// N_a·N_b/N, must all be at least cochranLow, and at most cochranShare of
// them below CochranHigh. Under the null of no edge a cell of expected count
// e is empty with probability about e^−e, and an empty cell makes the
// pair's estimate infinite (the value-pair regressions separate): the
// statistic then measures the constraint, not the data.
const (
	cochranLow   = 1
	CochranHigh  = 5
	cochranShare = 0.2
)

// CochranEntry reports whether a cell of a pair's table, of values with
// weights ca and cb among total, has the expected count under independence
// ca·cb/total of at least CochranHigh: the entries of a k > 2 block that
// the edge test admits.
func CochranEntry(ca, cb, total float64) bool {
	return ca*cb/total >= CochranHigh
}

// CochranOK reports whether the pair of variables with value weights ci
// and cj (total N) passes Cochran's rule; values of zero weight take no
// part.
func CochranOK(ci, cj []float64, total float64) bool {
	cells, low := 0, 0
	for _, a := range ci {
		if a <= 0 {
			continue
		}
		for _, b := range cj {
			if b <= 0 {
				continue
			}
			e := a * b / total
			if e < cochranLow {
				return false
			}
			cells++
			if e < CochranHigh {
				low++
			}
		}
	}
	return float64(low) <= cochranShare*float64(cells)
}
