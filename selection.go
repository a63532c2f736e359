package pairwise

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/mrfkit/pairwise/internal/selection"
)

// Learning without λ and η.
//
// The paper's guarantees assume a known upper bound λ on the width and a
// known lower bound η on the smallest edge weight; a user with real data
// knows neither. When WithWidth (or WithRadius) is not given, the learners
// choose the width of every node's regressions from the data with a
// Selection rule (EBIC{Gamma: 0.25} by default, CrossValidation on request).
// When WithMinEdgeWeight is not given, they decide which pairs are edges with
// a Wald test of every pair at a family-wise false-edge rate
// (WithFalseEdgeRate) instead of the threshold η/2. Result.Tuning reports
// what was chosen. With both WithWidth and WithMinEdgeWeight, the learners
// are exactly the paper's algorithms and none of this runs.
//
// The two choices are separate because they serve different ends. The
// width sets the shrinkage of the estimates, so it decides the weights in
// Result.Model and, when η is given, which of them pass η/2. The edge test
// does not depend on the width: it is made on the debiased estimates, one
// Newton step from the constrained solution, whose standard errors are
// known. On the models of docs/tuning the test recovers the graph wherever
// the oracle given the true λ and η does (and, on the Potts grids, at sample
// sizes where the oracle's radius 2λ√k still lets false edges through).

// Selection is a rule that chooses, node by node, the width λ_i of the
// constraint radius (2λ_i for Algorithm 1, 2λ_i√k for Algorithm 2) when
// WithWidth is not given: EBIC (the default, EBIC{Gamma: DefaultGamma}) or
// CrossValidation. Both search a grid of candidate widths (DefaultWidths
// unless given), warm-starting every regression from its solution at the
// nearest width already tried: from the width nearest 0.4, two grid widths
// up, then one grid width at a time upward while the criterion improves and
// the constraint binds (once it no longer binds, larger widths give the same
// fit), or every other grid width downward when the first step up does not
// improve; then the two neighbours of the best width. On the default grid
// that is 0.4, 0.8, then steps of √2 up or of 2 down. The width chosen is
// the best of those visited: the grid's best wherever the criterion falls
// and then rises along the grid. Upward steps of 2 all the way (the search
// until 2026-11-29) found the same graphs on every run of docs/tuning's
// models and cost the default half as much CPU again at n = 1,000 spins
// (BENCHMARKS.md, Scaling).
// A node's fits along the search use a duality-gap tolerance up to 100 times
// looser than WithTolerance (0.25/N for EBIC, which moves the criterion by
// less than half a nat; 1e-5 for CrossValidation); the final fit at the
// chosen width uses WithTolerance.
//
// Measured cost (BenchmarkSelection, see the README): EBIC with the edge test
// costs a few times one fit with the width given; CrossValidation K+1 times
// more.
type Selection interface {
	// String returns the rule's name and settings.
	String() string

	spec() (selection.Spec, error)
}

// Compile-time checks that both rules are Selections.
var (
	_ Selection = CrossValidation{}
	_ Selection = EBIC{}
)

// Defaults of the selection rules.
const (
	// DefaultFolds is the number of folds of CrossValidation{}.
	DefaultFolds = 5
	// DefaultGamma is the γ of the default Selection, EBIC{Gamma:
	// DefaultGamma}: IsingFit's default (van Borkulo et al. 2014).
	DefaultGamma = 0.25
	// DefaultFalseEdgeRate is the default α of WithFalseEdgeRate: the
	// Bonferroni level above which every pair is an edge, which bounds
	// the probability that the Wald test gives a model with no edge one
	// (asymptotically); the EBIC graph stage's test of independence runs
	// at α/2, which bounds the probability that the stage adds one:
	// together at most about 1.5α. With the gap rule of WithEdgeGap,
	// 0.01 recovered more graphs exactly than 0.05 on the models of
	// docs/tuning.
	DefaultFalseEdgeRate = 0.01
)

// DefaultWidths returns the default grid of candidate widths of the selection
// rules: λ = 0.05·2^{g/2} for g = 0..16, that is 0.05 to 12.8 in steps of √2.
// The widths of the paper's experiments (0.8 to 3.2) lie well inside it.
func DefaultWidths() []float64 {
	w := make([]float64, 17)
	for g := range w {
		w[g] = 0.05 * math.Pow(2, float64(g)/2)
	}
	return w
}

// CrossValidation chooses each node's width by K-fold cross-validation of the
// node's held-out conditional log-likelihood: for every candidate width λ and
// every fold, the node's regressions are fitted on the other folds and their
// logistic loss (the negative log of the conditional probability of z_i given
// z_-i for the Ising path; the sum over value pairs α < β of the pair losses
// for the pairwise path) is measured on the fold; the width with the smallest
// total held-out loss wins, and the node is then fitted on all samples at that
// width, warm-started from the average of the fold solutions. This is the
// rule of glmnet's cv.glmnet (lambda.min) and of mgm's nodewise CV (Haslbeck
// and Waldorp 2020), with the paper's constraint radius in place of a
// penalty.
//
// Folds are deterministic: sample m (in the order of the Samples) goes to
// fold m mod K, so samples drawn i.i.d. give random folds and a file sorted by
// some variable gives stratified ones. For weighted samples whose weights
// are all whole numbers (histogram counts), the counts are split: the
// observations are numbered in row order, observation t in fold t mod K; other
// weights are kept whole, each row in fold m mod K.
//
// The cost is K fits per candidate width (each warm-started, so cheaper than
// a cold fit) plus one fit on all samples; Result.Nodes counts every
// iteration.
type CrossValidation struct {
	// Folds is K, at least 2; zero means DefaultFolds. The samples must
	// have at least K rows (K observations for counts).
	Folds int
	// Widths are the candidate widths λ, positive and finite; nil means
	// DefaultWidths. They are sorted increasing before use.
	Widths []float64
}

// String returns "CrossValidation{Folds: K}", with the widths when they are
// not the default.
func (cv CrossValidation) String() string {
	k := cv.Folds
	if k == 0 {
		k = DefaultFolds
	}
	return "CrossValidation{Folds: " + strconv.Itoa(k) + widthsString(cv.Widths) + "}"
}

func (cv CrossValidation) spec() (selection.Spec, error) {
	k := cv.Folds
	if k == 0 {
		k = DefaultFolds
	}
	if k < 2 {
		return selection.Spec{}, &OptionError{Option: "WithSelection", Value: cv, Reason: "want at least 2 folds"}
	}
	w, err := checkWidths(cv, cv.Widths)
	return selection.Spec{Folds: k, Widths: w}, err
}

// EBIC chooses each node's width by the extended Bayesian information
// criterion of Foygel and Drton (2010) on the node's regressions fitted to
// all samples, the default rule of IsingFit (van Borkulo et al. 2014):
//
//	EBIC(λ) = 2N·L(ŵ_λ) + |ŵ_λ|₀·(ln N + 2γ ln d),
//
// where L is the node's empirical logistic loss (for the pairwise path, the
// sum over value pairs of each pair's loss weighted by its share of the
// samples), N the number of samples (the total weight), |ŵ_λ|₀ the number of
// nonzero coupling coefficients (groups count k-1 each on the pairwise path)
// and d the number of candidate coefficients, n-1 for the Ising path and
// (n-1)(k-1) per value pair otherwise. γ = 0 is BIC; larger γ favours
// sparser fits. It costs one fit per candidate width, against K+1 for
// CrossValidation.
//
// The count |ŵ|₀ needs exact zeros, which the Adaptive schedule of the
// built-in backends gives (its iterates are Euclidean projections onto the
// constraint ball); the Paper and AdaptiveMirror schedules never give exact
// zeros, and EBIC then degenerates to choosing the smallest width.
type EBIC struct {
	// Gamma is γ ≥ 0; IsingFit uses 0.25.
	Gamma float64
	// Widths are the candidate widths λ; nil means DefaultWidths.
	Widths []float64
}

// String returns "EBIC{Gamma: γ}", with the widths when they are not the
// default.
func (e EBIC) String() string {
	return "EBIC{Gamma: " + strconv.FormatFloat(e.Gamma, 'g', -1, 64) + widthsString(e.Widths) + "}"
}

func (e EBIC) spec() (selection.Spec, error) {
	if math.IsNaN(e.Gamma) || math.IsInf(e.Gamma, 0) || e.Gamma < 0 {
		return selection.Spec{}, &OptionError{Option: "WithSelection", Value: e, Reason: "want a finite γ ≥ 0"}
	}
	w, err := checkWidths(e, e.Widths)
	return selection.Spec{EBIC: true, Gamma: e.Gamma, Widths: w}, err
}

func checkWidths(s Selection, widths []float64) ([]float64, error) {
	if widths == nil {
		return DefaultWidths(), nil
	}
	if len(widths) == 0 {
		return nil, &OptionError{Option: "WithSelection", Value: s, Reason: "empty width grid"}
	}
	w := append([]float64(nil), widths...)
	for x, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
			return nil, &OptionError{Option: "WithSelection", Value: s, Reason: fmt.Sprintf("width %d is %v, want a finite positive number", x, v)}
		}
	}
	sort.Float64s(w)
	return w, nil
}

func widthsString(w []float64) string {
	if w == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(", Widths: [")
	for x, v := range w {
		if x > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatFloat(v, 'g', 4, 64))
	}
	b.WriteByte(']')
	return b.String()
}

// Tuning reports what a learner chose from the data: the widths when
// WithWidth was not given, the edge test when WithMinEdgeWeight was not
// given. Result.Tuning is nil when both were given.
//
// The other fields of Result then read as follows. NodeFit.Width is node i's
// chosen λ_i and Result.Width the largest of them (a width bound for the
// whole model, in the paper's sense: max over nodes). Result.Radius is NaN
// when the widths were chosen: every node used 2λ_i (or 2λ_i√k).
// When the edge test chose the graph, Result.MinEdgeWeight is
// η̂ = 2·t·SE_min, with t the test's Threshold and SE_min the smallest
// standard error of any entry of any pair: no pair whose debiased estimate
// is below η̂/2 in every entry can be an edge, the guarantee the paper's
// rule gives for η/2; when the EBIC graph stage chose the graph
// (EBICGraph), its pairs pass no threshold and Result.MinEdgeWeight is
// twice the smallest positive float64 (about 1e-323, which every nonzero
// estimate passes), as with IsingFit's rule. Result.Model holds the
// constrained (shrunk) estimates of the learned edges; Debiased gives the
// debiased ones the test used.
type Tuning struct {
	// Selection is the rule that chose the widths (NodeFit.Width holds
	// each node's λ_i); nil when WithWidth was given.
	Selection Selection
	// FalseEdgeRate is the α of the edge test and Critical its
	// Bonferroni critical value z*(α); both are zero when
	// WithMinEdgeWeight was given.
	FalseEdgeRate, Critical float64
	// Threshold is the statistic a pair needed to be an edge: Critical,
	// or less when the gap rule of WithEdgeGap or the mixture cut of
	// WithEdgeMixture lowered it (the pairs the EBIC graph stage adds,
	// when EBICGraph is true, need none). Lowest is the gap rule's floor z₁, zero
	// when that rule did not run. Both are zero when WithMinEdgeWeight
	// was given.
	Threshold, Lowest float64
	// Refit reports whether the second stage of WithRefit ran (Ising data
	// only; not on complete samples of more than 256 spins, where the
	// first stage is made in the nodes' support models), and Screen the first-stage statistic a pair needed to enter
	// it; Score, Debiased and StdErr then give the refit's values for the
	// screened pairs and the first stage's for the others.
	Refit  bool
	Screen float64
	// Mixture is the two-group model that WithEdgeMixture fitted to the
	// statistics and whose posterior chose the edges (Ising data only);
	// nil when the gap rule or Bonferroni's z*(α) alone did.
	Mixture *EdgeMixture
	// GlobalP is the p-value of the EBIC graph stage's test of
	// independence (WaldTest; Ising data with the widths chosen by EBIC,
	// and the ordinal scale, where it is Mantel's test on the scores):
	// 1 when no pair's table passes Cochran's rule, NaN when the edge test
	// ran without the stage, zero when WithMinEdgeWeight was given.
	// EBICGraph reports that the stage chose the graph: the Wald test's
	// edges and the pairs both nodes' EBIC fits keep nonzero (the And
	// rule), which pass no threshold. On the ordinal scale a node's EBIC
	// fit is the neighbourhood EBIC chooses on the path of its refits
	// (its variables by decreasing Wald statistic, refitted without
	// constraint).
	GlobalP   float64
	EBICGraph bool
	// Ordinal reports that the ordinal model was fitted (WithScale, k >
	// 2): each pair has one statistic, that of its coupling w_ij from each
	// node's unconstrained refit, and the Bonferroni value counts
	// n(n−1)/2 tests, not k² a pair; Debiased and StdErr hold
	// ŵ_ij·s_i(a)·s_j(b) and its standard error for every (a, b).
	Ordinal bool
	// Block reports that the k-ary edge test of Algorithm 2 (k > 2,
	// nominal scale; not the multinomial model, see Mixed) gave
	// each pair one statistic, the Wald χ² of its block Ŵ_ij over the
	// entries it admits (rank at most (k − 1)², the block being doubly
	// centred), as a normal score, and that the Bonferroni value counts
	// n(n−1)/2 tests. It is false where the blocks' covariances would be
	// too large ((k − 1)² > 81, or n²(k − 1)⁴ > 2^25 numbers): each pair
	// then has the largest |Ŵ/SE| of its entries and k² tests a pair.
	Block bool
	// Mixed reports that the mixed model was fitted (WithNominalVariables,
	// with Ordinal; or, without Ordinal, the nominal scale's multinomial
	// default, every variable nominal: see WithScale): each pair has one
	// statistic, the Wald χ² of its
	// couplings (1 between ordinal variables, k_j − 1 between a nominal j
	// and an ordinal one, (k_i − 1)(k_j − 1) between nominal ones) as a
	// normal score, and Debiased and StdErr hold the refit's blocks
	// (Result.Model's, before the two nodes' are averaged) and their
	// standard errors.
	Mixed bool

	n, k    int
	mixed   *mixedTest        // the mixed model's refits, when Mixed
	curves  []selection.Curve // per node, when a Selection ran
	scores  []float64         // n*n test statistics, when the edge test ran
	debias  [][]float64
	stdErrs [][]float64
	dfs     [][]float64 // per node and value of z_i: the first stage's degrees of freedom
	// refitDF[i] holds the degrees of freedom of node i's refit (one for
	// each value of z_i), which the pairs (i, j) with refitted[i*n+j] use.
	refitDF  [][]float64
	refitted []bool
	// sparse holds the sparse edge test's entries (edgetest_sparse.go)
	// in place of scores, debias and stdErrs; nil after the dense test.
	sparse pairStore
}

// pairStore answers Score, Debiased and StdErr after the sparse edge test:
// a pair's statistic (i ≠ j), and node i's entry of spin j in the Ising
// form of Result's estimates (4 values and their standard errors).
type pairStore interface {
	pairScore(i, j int) float64
	entry(i, j int) (d, se []float64)
}

// dfOf returns the degrees of freedom of node i's statistics of the pair
// (i, j), one for each value of z_i.
func (t *Tuning) dfOf(i, j int) []float64 {
	if t.refitted != nil && t.refitted[i*t.n+j] {
		return t.refitDF[i]
	}
	return t.dfs[i]
}

// Path returns the widths that node i's selection tried and the criterion
// at each (the total held-out loss per sample for CrossValidation, EBIC
// divided by N for EBIC), in increasing order of width. The rule chose the
// width of the smallest criterion. It returns nil slices when no Selection
// ran and panics if i is out of range.
func (t *Tuning) Path(i int) (widths, criterion []float64) {
	if i < 0 || i >= t.n {
		panic(fmt.Sprintf("pairwise: Tuning.Path(%d) out of range [0, %d)", i, t.n))
	}
	if t.curves == nil {
		return nil, nil
	}
	c := t.curves[i]
	return append([]float64(nil), c.Widths...), append([]float64(nil), c.Scores...)
}

// Score returns the test statistic of the pair (i, j) under the configured
// symmetrisation: max over entries (a, b) of the normal score of
// |Ŵ_ij(a, b)|/SE(a, b) for the Average rule, the smaller (And) or larger
// (Or) of the two nodes' statistics otherwise. Where Block is true (k > 2,
// nominal scale) it is instead the normal score of the Wald χ² of the
// pair's block (z with P(|N(0, 1)| ≥ z) the χ² or F law's p-value); where
// Ordinal is true, that of the pair's one coupling. The normal score of a ratio t
// from a regression with N − p degrees of freedom is Φ⁻¹ of 1 − P(T > t), T
// Student's t with N − p degrees of freedom: a little below t, and t in the
// limit (see WaldTest, Little data). The pair is an edge when Score ≥ Threshold. An
// entry whose standard error is zero counts as 0 (a handful of rows cannot
// measure the error), and so does one from a regression with too few rows
// for the test (Result.Warnings, SmallSample); a pair whose table of values
// fails Cochran's rule scores 0, and a pair of a constant variable
// (NodeFit.Constant) scores 0, with Debiased and StdErr 0. It returns NaN
// when the edge test did not run and panics if i or j is out of range.
//
// On complete Ising samples of more than 256 spins learned in one process
// the edge test keeps only the entries of the pairs that can matter (those
// whose statistic can reach 2.5); Score, Debiased and StdErr compute any
// other from the node's fit when asked (a node's n entries at a time, about
// a fit's gradient, cached for the last 64 nodes asked), with the same
// values as the dense test's.
func (t *Tuning) Score(i, j int) float64 {
	if i < 0 || i >= t.n || j < 0 || j >= t.n {
		panic(fmt.Sprintf("pairwise: Tuning.Score(%d, %d) out of range [0, %d)", i, j, t.n))
	}
	if t.sparse != nil {
		if i == j {
			return 0
		}
		return t.sparse.pairScore(i, j)
	}
	if t.scores == nil {
		return math.NaN()
	}
	return t.scores[i*t.n+j]
}

// StdErr returns SE(Ŵ_ij(a, b)) as estimated from node i's regressions
// (the sandwich standard error of the debiased estimate, with the HC1
// factor √(N/(N − p)) of WaldTest's rule for little data; the refit's model-based one for
// the pairs it refitted), or NaN when the edge test did not run. It panics
// if an index is out of range.
func (t *Tuning) StdErr(i, j, a, b int) float64 {
	return t.entry(t.stdErrs, "StdErr", i, j, a, b)
}

// Debiased returns the debiased estimate of Ŵ_ij(a, b) from node i's
// regressions (one Newton step from the constrained solution), or NaN when
// the edge test did not run. It panics if an index is out of range.
func (t *Tuning) Debiased(i, j, a, b int) float64 {
	return t.entry(t.debias, "Debiased", i, j, a, b)
}

// entry returns node i's value of (j, a, b) in per-node estimates laid out
// like Result.est, NaN when there are none; it panics, naming the method,
// if an index is out of range.
func (t *Tuning) entry(est [][]float64, method string, i, j, a, b int) float64 {
	if i < 0 || i >= t.n || j < 0 || j >= t.n || a < 0 || a >= t.k || b < 0 || b >= t.k {
		panic(fmt.Sprintf("pairwise: Tuning.%s(%d, %d, %d, %d) out of range", method, i, j, a, b))
	}
	if t.sparse != nil {
		d, se := t.sparse.entry(i, j)
		if method == "StdErr" {
			return se[a*t.k+b]
		}
		return d[a*t.k+b]
	}
	if est == nil {
		return math.NaN()
	}
	return est[i][j*t.k*t.k+a*t.k+b]
}

// placeholderWidth is the width the learners see in the configuration while
// the real widths are chosen node by node. The pairwise learner puts the
// whole radius on the bias of a value pair with one label (see
// LearnPairwise); such pairs get this width.
const placeholderWidth = 1

// maxWaldBytes bounds the memory the k-ary edge test may take a worker: it
// keeps the inverse Hessian of every value pair of a node, k(k-1)/2
// matrices of side (n-1)(k-1)+1, which at k = 21 and n = 100 is 6.6 GB and
// a few hours of inversions. Above the bound the tuning-free learner
// returns an error asking for η rather than exhaust the machine's memory.
const maxWaldBytes = 4e9

// waldOneHotBytes returns the bytes of the inverse Hessians selection.WaldOneHot
// keeps for one node of n variables with k values.
func waldOneHotBytes(n, k int) float64 {
	dim := float64((n-1)*(k-1) + 1)
	return float64(k*(k-1)/2) * dim * dim * 8
}

// EdgeMixture is the two-group model that the Ising edge test fits to its
// pairs' statistics when WithEdgeMixture is on (Efron's local false
// discovery rate, with the theoretical null). A pair that is not an edge
// has a statistic z distributed as |N(0, 1)|, the half-normal law f₀ the
// Wald statistics follow under the null; an edge's statistic follows a
// lognormal law f₁ with parameters LogMean and LogSD (log z ~ N(LogMean,
// LogSD²)); a share EdgeShare (π₁) of the pairs are edges. Given the
// fitted model, the posterior probability that a pair with statistic z is
// an edge is
//
//	π₁f₁(z) / (π₁f₁(z) + (1 − π₁)f₀(z)),
//
// and the test keeps the pairs where it exceeds 1/2: the Bayes rule for
// the number of misclassified pairs, false edges plus missed ones.
type EdgeMixture struct {
	// EdgeShare is π̂₁, the estimated share of the pairs that are edges.
	EdgeShare float64
	// LogMean and LogSD are the mean and standard deviation of log z over
	// the edges' statistics.
	LogMean, LogSD float64
	// Iterations is the number of EM iterations the fit took.
	Iterations int
}

// Posterior returns the probability under the mixture that a pair with
// statistic z is an edge: 0 for z ≤ 0 (the lognormal has no mass there),
// 1 for z = +Inf, NaN for NaN.
func (m *EdgeMixture) Posterior(z float64) float64 { return (*selection.Mixture)(m).Posterior(z) }

// WaldTest is the edge test that chooses the learned graph when the minimum
// edge weight η is not given (WithMinEdgeWeight): a Wald test of every
// pair's debiased estimate, with a family-wise false-edge rate α, and, by
// default, stages that go beyond the paper to recover weak edges at small
// N: a refit, a mixture cut or a gap rule below the Bonferroni value, and,
// on Ising data with too few observations for the test, the EBIC graph.
// Its zero value is the default test; choose another with WithEdgeTest.
//
// The test: each node's regressions are refitted by one Newton step from
// the constrained solution ŵ (the debiased estimate d = ŵ − H⁻¹∇L(ŵ),
// which removes the shrinkage of the constraint), the sandwich covariance
// H⁻¹JH⁻¹/N of d gives a standard error for every entry of Ŵ_ij, and the
// pair's statistic is max over entries (a, b) of |Ŵ_ij(a, b)|/SE(a, b). It
// is compared with
//
//	z*(α) = Φ⁻¹(1 − α/(2M)),
//
// with M = the number of pairs for k = 2 (the four entries share one
// |value| and one standard error). For k > 2 on the nominal scale a pair
// has one statistic over its block instead (Tuning.Block): the Wald χ² of
// the block's interaction contrasts, Ŵ_ij centred again over the values
// whose cells all have expected counts of 5 or more (the rarest value
// dropped first), with the pseudo-inverse of their sandwich covariance, as
// the normal score of its χ² (or, with little data, F) tail probability;
// M is then again the number of pairs. Where the blocks' covariances would
// be too large ((k − 1)² > 81, or n²(k − 1)⁴ > 2^25 numbers) the statistic
// is the largest entry's and M is k² times the number of pairs. On the
// ordinal scale (WithScale) a pair has one coupling and one statistic.
// Under the Average rule of WithSymmetrization the two nodes' debiased
// estimates are averaged and SE is the average of their standard errors (a
// bound that holds whatever their correlation; for the block statistic the
// average of their covariances, likewise); under And both nodes'
// estimates must pass, under Or one of them (M doubles). This is the Wald
// test of the low-dimensional debiased estimator (van de Geer, Bühlmann,
// Ritov and Dezeure 2014) with a Bonferroni threshold; as N grows, the power
// to detect an edge of weight η goes to one while the false-edge rate stays
// below α. Every pair that reaches z*(α) is an edge; when none does, the
// test's graph is empty, so the test gives a model with no edge a false
// edge with probability at most about α whatever the stages below do (the
// EBIC graph stage adds at most about α/2 more; see there).
//
// The refit stage (Ising data; off with NoRefit) keeps, for each node, the
// spins whose pair statistic reaches 1.5 (or z₁ below, if lower), refits the
// node's logistic regression on them alone without constraint, and tests
// those pairs again with the refit's estimate and its model-based standard
// error (the inverse Fisher information); pairs below the screen are not
// edges. Dropping the spins that are not neighbours removes their share of
// the neighbours' variance, so weak edges stand further from the rest. The
// screen makes the refit's statistics a selected sample, so α is no longer
// exact.
//
// Many variables. From 257 variables on, on complete Ising samples, each
// node's first-stage statistics are made in its support model: a spin of the constrained
// fit's support in the regression on the support, any other spin in the
// regression on the support and that spin, instead of the regression on
// all n − 1 spins, whose moments cost O(N·n²) a node. That removes the
// non-neighbours' share of the variance as the refit does, and the refit
// stage does not run (Tuning.Refit is false; the cuts below see the first
// stage's statistics).
//
// Below z*(α) a cut decides. The mixture (Ising data; off with NoMixture)
// fits the two-group model of EdgeMixture to the pairs' statistics — a
// half-normal law for the pairs that are not edges, the law the statistics
// follow under the null, and a lognormal one, fitted by EM, for the edges —
// and keeps a pair when its posterior probability of being an edge exceeds
// 1/2 (Efron's local false discovery rate below 1/2, with the theoretical
// null). The pairs at z*(α) are what place the lognormal, so the mixture
// decides only when at least five of them reach it. Otherwise the gap rule
// (off with NoGap) sorts the statistics in decreasing order,
// z_(1) ≥ z_(2) ≥ …, and cuts at the widest gap z_(c) − z_(c+1) among the
// cuts that keep every statistic ≥ z*(α) and none below
// z₁ = Φ⁻¹(1 − 1/(2M)), the level that one of the M null statistics is
// expected to exceed. With both off, z*(α) alone cuts.
//
// Little data (docs/tuning/small-samples.md has the measurements). The normal
// law of the statistics is asymptotic; with few rows it called false edges
// in most runs on independent data. So every regression's sandwich
// variance is scaled by N/(N − p) (HC1, p its coefficients) and its
// statistics are referred to Student's t law with N − p degrees of freedom
// (entering the test as the normal score of the same tail probability:
// Tuning.Score); a regression whose rarer label is seen fewer than twice a
// coefficient, and a pair whose table of values fails Cochran's rule
// (expected counts N_a·N_b/N all ≥ 1, at most 20% below 5), are not tested:
// their pairs score 0 and are not edges, and Result.Warnings says how many.
// On adequate data the rule is idle but for the t and HC1 factors, which
// shrink the first stage's statistics by about 3% at N = 1000 and n = 49.
// Measured on independent data: at most 4 of 200 runs report an edge for
// every n ≤ 30 and N ≤ 1000 with k = 2 (7 of 200 with the EBIC graph stage
// below), at most 6 of 200 for the cells measured with k ≥ 3 (n ≤ 10,
// N ≤ 300); before, up to 200 of 200.
//
// The EBIC graph (Ising data, widths chosen by EBIC; off with
// NoEBICGraph). With few observations (on 25 questionnaire items, a few
// hundred people) the test finds few of the edges or none; the rule of
// IsingFit (a pair is an edge when both nodes' EBIC-selected fits keep it
// nonzero: G_A) finds more, at a precision of about 0.75 to 0.85. The test's
// graph G_W is replaced by G_W ∪ G_A when (1) a global test of independence
// (the sum over pairs of Pearson's chi-square of their 2×2 tables, with
// its exact mean and variance given the margins) rejects at level α/2, and
// either (2) G_W is empty (the global test has rejected the empty graph) or
// (3) G_W holds fewer than half of G_A's pairs (the test lacks the power to
// judge them) and the union has the smaller BIC of the nodes'
// conditional likelihoods refitted without constraint. On independent data
// step 1 keeps the stage from adding an edge in all but about α/2 of the
// runs; as N grows the test finds most of G_A's true pairs and step 3
// leaves its graph alone. The pairs the stage adds are not tested and
// carry no false-edge rate (Tuning.EBICGraph says when it chose the graph,
// and Result.MinEdgeWeight is then about 1e-323, which every nonzero
// estimate passes, as in IsingFit's rule). On the psych study's
// questionnaire-shaped networks of 25 items (held-out seeds) it
// chose the graph in 20 of 20 runs at N = 100 and 14 of 20 at N = 250,
// never from N = 500 on; on the models of docs/tuning, never; on
// independent data it added an edge in 0.29% of 10,800 runs (n ≤ 30,
// N ≤ 1000). docs/psych/power.md and docs/tuning/small-samples.md have
// the measurements.
//
// The stages were chosen by measurement on the paper's models and others,
// not derived; docs/tuning has the study that chose them, its figures and
// its command. The test counts each unit of sample weight as one
// observation: N is Samples.TotalWeight. For samples weighted by
// probabilities (summing to 1) that is wrong, and WithMinEdgeWeight must be
// given. Result.Tuning reports the critical value, the threshold used, the
// statistics and the mixture.
type WaldTest struct {
	// FalseEdgeRate is α, in (0, 1); zero means DefaultFalseEdgeRate.
	// It is the family-wise level of the Bonferroni test; the EBIC graph
	// stage's test of independence runs at α/2.
	FalseEdgeRate float64
	// NoRefit turns the Ising refit stage off.
	NoRefit bool
	// NoMixture turns the mixture cut off (the gap rule, or z*(α), cuts).
	NoMixture bool
	// NoGap turns the gap rule off.
	NoGap bool
	// NoEBICGraph turns the EBIC graph stage off (small samples; Ising
	// data with the widths chosen by EBIC).
	NoEBICGraph bool
}

// waldRun is a WaldTest as one learner runs it: the caller's settings
// and what the learner fixes, kept apart so that WaldTest stays the
// caller's choices only.
type waldRun struct {
	WaldTest
	sym   Symmetrization // the learner's rule
	dense int            // the learner's waldDense
	floor float64        // the learner's floorAt(n)
}

// rate returns α.
func (t WaldTest) rate() float64 {
	if t.FalseEdgeRate == 0 {
		return DefaultFalseEdgeRate
	}
	return t.FalseEdgeRate
}

// String returns the test's settings, "WaldTest" for the default.
func (t WaldTest) String() string {
	s := "WaldTest"
	sep := "{"
	add := func(part string) {
		s += sep + part
		sep = ", "
	}
	if t.FalseEdgeRate != 0 {
		add(fmt.Sprintf("FalseEdgeRate: %v", t.FalseEdgeRate))
	}
	if t.NoRefit {
		add("NoRefit")
	}
	if t.NoMixture {
		add("NoMixture")
	}
	if t.NoGap {
		add("NoGap")
	}
	if t.NoEBICGraph {
		add("NoEBICGraph")
	}
	if sep == ", " {
		s += "}"
	}
	return s
}
