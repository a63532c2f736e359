package pairwise

import (
	"fmt"
	"math"
	"strings"

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
//     z = Φ⁻¹(1 − T_{N−p}(−t)) (tScore), so the Bonferroni critical value,
//     the gap rule and the mixture keep their normal scale; the refit
//     stage's model-based statistics use N − (its coefficients);
//   - a regression with N ≤ p has no degrees of freedom (it can interpolate
//     its rows): its statistics are 0, and Result.Warnings says so.
//
// As N grows both factors go to 1: at N = 1000 and p = 49 the first stage's
// statistics shrink by about 3%, and the refit's, with a handful of
// coefficients, by a few tenths of a percent.

// hc1Factor returns √(N/(N − p)), the factor by which the HC1 correction
// scales a sandwich standard error of a regression of p coefficients fitted
// to a total weight N; 1 when N ≤ p (the test then does not use it).
func hc1Factor(total, p float64) float64 {
	if total <= p {
		return 1
	}
	return math.Sqrt(total / (total - p))
}

// maxNormalScore is the largest normal score tScore returns, about
// Φ⁻¹(1 − 10⁻³⁰⁸): a tail probability below the smallest float64 cannot be
// told apart.
const maxNormalScore = 37.5

// normalDF is the number of degrees of freedom from which tScore and
// tQuantile use the normal law: Student's t then differs from it by less
// than 10⁻⁶ relative in the quantiles the test uses, and gonum's t law is
// not defined for astronomically many (weights of 1e300).
const normalDF = 1e8

// tScore returns the normal score of a Wald statistic t ≥ 0 with df degrees
// of freedom: z with 1 − Φ(z) = 1 − T_df(t), T_df Student's t distribution
// function. It returns t when df is +Inf or at least normalDF (the
// asymptotic test), 0 when
// df ≤ 0 (no degrees of freedom: the data cannot measure the error) or
// t ≤ 0, and NaN for a NaN t. z < t for finite df, and z → t as df grows.
func tScore(t, df float64) float64 {
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

// tQuantile is the inverse of tScore in t: the t ≥ 0 whose normal score
// with df degrees of freedom is z ≥ 0; +Inf when df ≤ 0, z when df is
// at least normalDF.
func tQuantile(z, df float64) float64 {
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

// minEventsPerCoefficient is E, the fewest observations of a regression's
// rarer label per coefficient with which the edge test uses it: a node's
// Ising regression (n coefficients) needs min(N_0, N_1) ≥ E·n, a value pair
// (α, β) of the pairwise path (D coefficients) min(N_α, N_β) ≥ E·D, N_a the
// weight of the rows where z_i = a. Below, the maximum likelihood estimate
// that the debiased estimate steps towards does not exist with high
// probability (the data are separable: Candès and Sur 2020 place the
// transition at N = 2p for balanced labels and no signal) or its normal
// approximation fails (the events-per-variable rule of logistic regression,
// Peduzzi et al. 1996). Chosen by measurement (docs/tuning/small-samples.md).
const minEventsPerCoefficient = 2.0

// enoughEvents reports whether a regression of p coefficients whose rarer
// label has weight minority passes the rule of minEventsPerCoefficient.
func enoughEvents(minority, p float64) bool {
	return minority >= minEventsPerCoefficient*p
}

// Cochran's rule (Cochran 1954) for the k×k table of a pair (z_i, z_j),
// over the values that occur: the expected counts under independence,
// N_a·N_b/N, must all be at least cochranLow, and at most cochranShare of
// them below cochranHigh. Under the null of no edge a cell of expected count
// e is empty with probability about e^−e, and an empty cell makes the
// pair's estimate infinite (the value-pair regressions separate): the
// statistic then measures the constraint, not the data.
const (
	cochranLow   = 1
	cochranHigh  = 5
	cochranShare = 0.2
)

// cochranOK reports whether the pair of variables with value weights ci
// and cj (total N) passes Cochran's rule; values of zero weight take no
// part.
func cochranOK(ci, cj []float64, total float64) bool {
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
			if e < cochranHigh {
				low++
			}
		}
	}
	return float64(low) <= cochranShare*float64(cells)
}

// valueWeights returns, for every variable i, the total weight of the rows
// where z_i = a, laid out as w[i][a]; missing values count for no a.
//
// Bit samples are read a row at a time into one buffer, not unpacked
// whole: at n = 5,000 and N = 10^5 the bytes would be 500 MB, eight times
// the samples, at the end of a learner that held them as bits.
func valueWeights(s *Samples) [][]float64 {
	n, k := s.n, s.k
	flat := make([]float64, n*k)
	row := func(m int) []uint8 { return s.states8()[m*n : (m+1)*n] }
	if s.b8 == nil && s.bits != nil {
		buf := make([]uint8, n)
		row = func(m int) []uint8 {
			s.bitRow(buf, m)
			return buf
		}
	}
	for m := 0; m < s.rows; m++ {
		c := s.Weight(m)
		if c == 0 {
			continue
		}
		for i, z := range row(m) {
			if int(z) < k { // not a missing value (stored as k)
				flat[i*k+int(z)] += c
			}
		}
	}
	w := make([][]float64, n)
	for i := range w {
		w[i] = flat[i*k : (i+1)*k]
	}
	return w
}

// WarningKind classifies a Warning.
type WarningKind int

const (
	// SmallSample: for some pairs the data are too few for the edge test:
	// a regression of the pair's nodes has fewer than two observations of
	// its rarer label per coefficient, or the pair's table of values fails
	// Cochran's rule (docs/tuning/small-samples.md). The tuning-free test
	// gives those pairs the statistic 0, so the Wald test does not call
	// them edges whatever their dependence (on Ising data the EBIC graph
	// stage of WaldTest may still add them, untested); with η given
	// (WithMinEdgeWeight) their estimates stand but rest on too little
	// data to mean much.
	SmallSample WarningKind = iota + 1
	// ConstantVariable: some variables take one value in every row
	// (NodeFit.Constant); they have no edge and their fields sit at the
	// boundary of the constraint.
	ConstantVariable
	// NotConverged: the regressions of some nodes stopped before the
	// duality-gap certificate proved the tolerance (WithTolerance): at
	// the iteration cap (WithMaxIterations), at the end of the Paper
	// schedule's T steps, or after Sparsitron's one pass (NodeFit.Converged
	// false, NodeFit.Gap). Their estimates are not the constrained
	// estimator's to that tolerance, so the graph may differ from the one
	// a converged fit learns.
	NotConverged
)

// String returns the kind's name.
func (k WarningKind) String() string {
	switch k {
	case SmallSample:
		return "small sample"
	case ConstantVariable:
		return "constant variable"
	case NotConverged:
		return "not converged"
	}
	return fmt.Sprintf("WarningKind(%d)", int(k))
}

// Warning is one thing the data could not support, or a fit that stopped
// short, found while learning (Result.Warnings).
type Warning struct {
	Kind WarningKind
	// Nodes are the variables concerned: the constant ones, those with a
	// regression too small for the edge test, or those whose regressions
	// did not converge.
	Nodes []int
	// Pairs counts the pairs (i < j) concerned: those the edge test could
	// not use (SmallSample), those of a constant variable
	// (ConstantVariable); 0 for NotConverged.
	Pairs int
	// Message says it in a sentence, for people.
	Message string
}

// String returns the message.
func (w Warning) String() string { return w.Message }

// sampleWarnings returns the warnings of a learner's result on s: the
// variables whose regressions fail the events rule (enoughEvents), the
// pairs that fail it or Cochran's rule, and the constant variables. The
// rules depend on the value weights only, so they are the ones the edge
// test applied (waldSpins, waldOneHot, WaldTest.run); tested says whether
// it ran.
func sampleWarnings(s *Samples, nodes []NodeFit, tested bool) []Warning {
	n, k := s.n, s.k
	counts := valueWeights(s)
	total := s.TotalWeight()
	p := float64(n) // coefficients of a regression: Ising path
	if k > 2 {
		p = float64((n-1)*(k-1) + 1) // a value pair's, pairwise path
	}
	var warns []Warning
	// short[i]: some regression of node i has too few of its rarer label.
	short := make([]bool, n)
	var shortNodes, constant []int
	for i := 0; i < n; i++ {
		if nodes[i].Constant {
			constant = append(constant, i)
			continue
		}
		// The rarest value present is the rarer label of some regression
		// (its pair with any other value), and of the pairs that hold
		// value a the worst is its pair with the rarest.
		rarest := math.Inf(1)
		for _, c := range counts[i] {
			if c > 0 {
				rarest = math.Min(rarest, c)
			}
		}
		if !math.IsInf(rarest, 1) && !enoughEvents(rarest, p) {
			short[i] = true
			shortNodes = append(shortNodes, i)
		}
	}
	isConst := func(i int) bool { return nodes[i].Constant }
	small, sparse, constPairs := 0, 0, 0
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			switch {
			case isConst(i) || isConst(j):
				constPairs++
			case short[i] && short[j]:
				small++
			case !cochranOK(counts[i], counts[j], total):
				sparse++
				small++
			case short[i] || short[j]:
				// An averaged entry takes the fewer degrees of
				// freedom of its two nodes: one short node is
				// enough.
				small++
			}
		}
	}
	if small > 0 {
		what := "were not tested: the Wald test does not call them edges, whatever their dependence"
		if k == 2 {
			what += " (the EBIC graph stage may still add them, untested)"
		}
		if !tested {
			what = "rest on too little data for their estimates to mean much"
		}
		need := math.Max(4*p, cochranHigh*4)
		if k > 2 {
			need = math.Max(2*p*float64(k), cochranHigh*float64(k*k))
		}
		warns = append(warns, Warning{
			Kind:  SmallSample,
			Nodes: shortNodes,
			Pairs: small,
			Message: fmt.Sprintf("small sample: %d of the %d pairs %s (N = %.4g for n = %d variables, k = %d: %d variables have a value seen in fewer than %g rows, %g for each of the %g coefficients of a regression, and %d more pairs have a table with expected counts below Cochran's rule; with evenly spread values the edge test needs about N ≥ %.0f)",
				small, n*(n-1)/2, what, total, n, k, len(shortNodes), minEventsPerCoefficient*p, minEventsPerCoefficient, p, sparse, need),
		})
	}
	if len(constant) > 0 {
		warns = append(warns, Warning{
			Kind:  ConstantVariable,
			Nodes: constant,
			Pairs: constPairs,
			Message: fmt.Sprintf("constant variables: %d of the %d variables take one value in every row (%s); they have no edge, and their %d pairs say nothing",
				len(constant), n, listNodes(constant, 10), constPairs),
		})
	}
	return warns
}

// convergenceWarning returns the NotConverged warning of the nodes' fits
// to the tolerance tol (0 when unknown, as in a merge of partials), and
// false when every regression certified it. solver is WithSolver's
// backend (nil for the default), for the remedy the message suggests.
func convergenceWarning(nodes []NodeFit, tol float64, solver Solver) (Warning, bool) {
	var stopped []int
	gap := 0.0
	for _, f := range nodes {
		if !f.Converged {
			stopped = append(stopped, f.Node)
			gap = math.Max(gap, f.Gap)
		}
	}
	if len(stopped) == 0 {
		return Warning{}, false
	}
	tolerance := "the tolerance"
	if tol > 0 {
		tolerance = fmt.Sprintf("the tolerance %g", tol)
	}
	why := "give more iterations (WithMaxIterations)"
	switch b := solver.(type) {
	case Sparsitron:
		why = "Sparsitron makes one pass over the rows and has no stopping rule"
	case EntropicMirror, GroupMirror:
		why = fmt.Sprintf("give more iterations (WithMaxIterations, or the Paper schedule's T) or use the default solver, Accelerated, which is much faster than %v", b)
	}
	return Warning{
		Kind:  NotConverged,
		Nodes: stopped,
		Message: fmt.Sprintf("not converged: the regressions of %d of the %d nodes (%s) stopped before the duality gap certified %s (the largest gap is %.3g), so their estimates are not the estimator's to that tolerance; %s",
			len(stopped), len(nodes), listNodes(stopped, 10), tolerance, gap, why),
	}, true
}

// listNodes returns up to max of the variables, "and m more" for the rest.
func listNodes(nodes []int, max int) string {
	var b strings.Builder
	for x, i := range nodes {
		if x == max {
			fmt.Fprintf(&b, " and %d more", len(nodes)-max)
			break
		}
		if x > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d", i)
	}
	return b.String()
}
