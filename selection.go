package pairwise

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/mrfkit/pairwise/solve"
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
// nearest width already tried: from the width nearest 0.4, every other grid
// width upward while the criterion improves and the constraint binds (once
// it no longer binds, larger widths give the same fit), or downward when the
// first step up does not improve; then the two neighbours of the best width.
// On the default grid that is a factor 2 between the widths visited, then √2.
// A node's fits along the search use a duality-gap tolerance up to 100 times
// looser than WithTolerance (see pathTolerance in the source); the final fit
// at the chosen width uses WithTolerance.
//
// Measured cost (BenchmarkSelection, see the README): EBIC with the edge test
// costs a few times one fit with the width given; CrossValidation K+1 times
// more.
type Selection interface {
	// String returns the rule's name and settings.
	String() string

	spec() (selSpec, error)
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
	// Bonferroni level above which every pair is an edge, so the
	// probability that a model with no edge is learned with one
	// (asymptotically). With the gap rule of WithEdgeGap, 0.01 recovered
	// more graphs exactly than 0.05 on the models of docs/tuning.
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

func (cv CrossValidation) spec() (selSpec, error) {
	k := cv.Folds
	if k == 0 {
		k = DefaultFolds
	}
	if k < 2 {
		return selSpec{}, &OptionError{Option: "WithSelection", Value: cv, Reason: "want at least 2 folds"}
	}
	w, err := checkWidths(cv, cv.Widths)
	return selSpec{folds: k, widths: w}, err
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

func (e EBIC) spec() (selSpec, error) {
	if math.IsNaN(e.Gamma) || math.IsInf(e.Gamma, 0) || e.Gamma < 0 {
		return selSpec{}, &OptionError{Option: "WithSelection", Value: e, Reason: "want a finite γ ≥ 0"}
	}
	w, err := checkWidths(e, e.Widths)
	return selSpec{ebic: true, gamma: e.Gamma, widths: w}, err
}

// selSpec is a validated Selection.
type selSpec struct {
	folds  int // K for cross-validation
	ebic   bool
	gamma  float64
	widths []float64 // sorted increasing
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

// WithSelection sets the rule that chooses each node's width when WithWidth
// is not given. A nil s restores the default, EBIC{Gamma: DefaultGamma}
// over DefaultWidths. It has no effect when WithWidth is given.
func WithSelection(s Selection) Option {
	return optionFunc(func(c *config) { c.selection = s })
}

// WithFalseEdgeRate sets α, the family-wise false-edge rate of the edge test
// used when WithMinEdgeWeight is not given: every pair whose statistic
// reaches the Bonferroni critical value z*(α) is an edge, so that a model
// with no edge is learned with a false edge with probability at most about
// α. The gap rule of WithEdgeGap (on by default) may add pairs below z*.
//
// The test: each node's regressions are refitted by one Newton step from the
// constrained solution ŵ (the debiased estimate d = ŵ − H⁻¹∇L(ŵ), which
// removes the shrinkage of the constraint), the sandwich covariance
// H⁻¹JH⁻¹/N of d gives a standard error for every entry of Ŵ_ij, and the
// pair's statistic is max over entries (a, b) of |Ŵ_ij(a, b)|/SE(a, b). It
// is compared with
//
//	z*(α) = Φ⁻¹(1 − α/(2M)),
//
// with M = k² times the number of pairs for k > 2 and M = the number of
// pairs for k = 2 (the Bonferroni correction over the entries of all W_ij;
// for k = 2 the four entries share one |value| and one standard error). Under the Average rule the two
// nodes' debiased estimates are averaged and SE is the average of their
// standard errors (a bound that holds whatever their correlation); under And
// both nodes' estimates must pass, under Or one of them (M doubles). This is
// the Wald test of the low-dimensional debiased estimator (van de Geer,
// Bühlmann, Ritov and Dezeure 2014) with a Bonferroni threshold; as N grows,
// the power to detect an edge of weight η goes to one while the false-edge
// rate stays below α.
//
// The test counts each unit of sample weight as one observation: N is
// Samples.TotalWeight. For samples weighted by probabilities (summing to
// 1) that is wrong, and WithMinEdgeWeight must be given.
//
// α must be in (0, 1); the default is DefaultFalseEdgeRate. It has no effect
// when WithMinEdgeWeight is given.
func WithFalseEdgeRate(alpha float64) Option {
	return optionFunc(func(c *config) {
		if math.IsNaN(alpha) || alpha <= 0 || alpha >= 1 {
			c.optionError("WithFalseEdgeRate", alpha, "want α in (0, 1)")
			return
		}
		c.alpha = alpha
	})
}

// WithEdgeGap turns the gap rule of the edge test on (the default) or off.
// It applies to k-ary data, and to Ising data when WithEdgeMixture is off
// or when fewer than five pairs reach z*(α), too few for the mixture.
//
// The paper's models have a gap: every edge weighs at least η and every
// other pair nothing, so the pairs' statistics form two groups, the edges'
// growing like η√N and the others' staying of order one. Bonferroni's
// z*(α) alone ignores that: at small N it misses edges whose statistics
// stand clearly apart from the rest but fall short of z*. The gap rule
// sorts the statistics in decreasing order, z_(1) ≥ z_(2) ≥ …, and cuts at
// the widest gap z_(c) − z_(c+1) among the cuts that keep every statistic
// ≥ z*(α) and none below
//
//	z₁ = Φ⁻¹(1 − 1/(2M)),
//
// the level that one of the M null statistics is expected to exceed. When
// no statistic reaches z*(α) the graph is empty, so a model with no edge
// still gets a false edge with probability at most about α; otherwise up
// to about one false edge more may be let in, at most when the widest gap
// lies below a null statistic. Result.Tuning reports z₁ (Lowest) and the
// threshold used (Threshold).
//
// The rule goes beyond the paper and is not a guarantee: it was chosen by
// measurement (docs/tuning: on the six models of the study, exact recovery
// in 497 of 560 seeded runs against 464 for Bonferroni alone at α = 0.05,
// with fewer runs holding a false edge, 21 against 31; on other data sets,
// which took no part in the choice, 103 of 120 against 107).
func WithEdgeGap(on bool) Option {
	return optionFunc(func(c *config) { c.noGap = !on })
}

// WithEdgeMixture turns the mixture cut of the Ising edge test on (the
// default) or off. It applies when WithMinEdgeWeight is not given and
// k = 2; the k-ary test uses the gap rule of WithEdgeGap, and so does the
// Ising test with the mixture off.
//
// The rule fits the two-group model of EdgeMixture to the pairs'
// statistics (after the refit stage of WithRefit): a half-normal law for
// the pairs that are not edges, the law the Wald statistics follow under
// the null, and a lognormal one, fitted by EM, for the edges. Below
// Bonferroni's z*(α), a pair is an edge when its posterior probability of
// being one exceeds 1/2 (the local false discovery rate of Efron,
// Tibshirani, Storey and Tusher 2001 below 1/2, with the theoretical
// null), the Bayes rule for the number of false plus missed edges. Every
// pair that reaches z*(α) is an edge whatever the fit says, and, as with
// the gap rule, the graph is empty when none does, so a model with no
// edge keeps about α as its false-edge rate. The pairs at z*(α) are what
// place the lognormal, so the mixture decides only when at least five of
// them reach it; with fewer (a sparse or weakly coupled model) the gap
// rule of WithEdgeGap cuts instead, or z*(α) alone when that is off.
// Result.Tuning.Mixture reports the fit (nil when it did not decide) and
// Threshold the cut.
//
// The rule goes beyond the paper and is not a guarantee: it was chosen by
// measurement (docs/tuning). On 1400 seeded runs of the study's four Ising
// models (N = 500 to 20000) it was exact in 1184 against 1175 for the gap
// rule, and it missed far fewer edges: 210 against 441, for 167 false
// edges against 89. On sparse models, where the floor of five hands most
// runs to the gap rule, it was exact in 1163 of 1200 against 1166.
func WithEdgeMixture(on bool) Option {
	return optionFunc(func(c *config) { c.noMixture = !on })
}

// WithRefit turns the second stage of the Ising edge test on or off (on by
// default; it applies when WithMinEdgeWeight is not given and k = 2). The
// first stage tests every pair on debiased estimates from node i's
// regression on all the other spins. The second stage keeps, for each
// node, the spins whose pair statistic reaches 1.5 (or z₁ of WithEdgeGap
// if lower), refits the node's logistic regression on them alone without
// constraint, and tests those pairs again with the refit's estimate and its
// model-based standard error (the inverse Fisher information); pairs below
// the screen are not edges. Dropping the spins that are not neighbours
// removes their share of the neighbours' variance, so weak edges stand
// further from the rest at small N.
//
// The stage goes beyond the paper and was chosen by measurement
// (docs/tuning): on seeded runs that took no part in choosing the screen
// (the diamond and the 3x3 grid at N ≤ 2000, seeds 20-99) it raised the
// exact recoveries from 309 to 330 of 480 with as many runs holding a false
// edge (49 against 47), and on shared/bench's data from 105 to 107 of 122.
// The screen makes the refit's statistics a selected sample, so the
// family-wise false-edge rate of WithFalseEdgeRate is no longer exact; a
// model with no edge keeps its empty graph unless a refit statistic reaches
// z*(α) (TestEdgeTestFalseEdges measures that rate).
func WithRefit(on bool) Option {
	return optionFunc(func(c *config) { c.noRefit = !on })
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
// rule gives for η/2. Result.Model holds the
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
	// WithEdgeMixture lowered it. Lowest is the gap rule's floor z₁, zero
	// when that rule did not run. Both are zero when WithMinEdgeWeight
	// was given.
	Threshold, Lowest float64
	// Refit reports whether the second stage of WithRefit ran (Ising data
	// only), and Screen the first-stage statistic a pair needed to enter
	// it; Score, Debiased and StdErr then give the refit's values for the
	// screened pairs and the first stage's for the others.
	Refit  bool
	Screen float64
	// Mixture is the two-group model that WithEdgeMixture fitted to the
	// statistics and whose posterior chose the edges (Ising data only);
	// nil when the gap rule or Bonferroni's z*(α) alone did.
	Mixture *EdgeMixture

	n, k    int
	curves  []curve   // per node, when a Selection ran
	scores  []float64 // n*n test statistics, when the edge test ran
	debias  [][]float64
	stdErrs [][]float64
}

// curve is one node's selection path: the widths tried and the criterion.
type curve struct {
	widths, scores []float64
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
	return append([]float64(nil), c.widths...), append([]float64(nil), c.scores...)
}

// Score returns the test statistic of the pair (i, j) under the configured
// symmetrisation: max over entries (a, b) of |Ŵ_ij(a, b)|/SE(a, b) for the
// Average rule, the smaller (And) or larger (Or) of the two nodes' statistics
// otherwise. The pair is an edge when Score ≥ Threshold. It returns NaN when
// the edge test did not run and panics if i or j is out of range.
func (t *Tuning) Score(i, j int) float64 {
	if i < 0 || i >= t.n || j < 0 || j >= t.n {
		panic(fmt.Sprintf("pairwise: Tuning.Score(%d, %d) out of range [0, %d)", i, j, t.n))
	}
	if t.scores == nil {
		return math.NaN()
	}
	return t.scores[i*t.n+j]
}

// StdErr returns SE(Ŵ_ij(a, b)) as estimated from node i's regressions
// (the sandwich standard error of the debiased estimate), or NaN when the
// edge test did not run. It panics if an index is out of range.
func (t *Tuning) StdErr(i, j, a, b int) float64 {
	if i < 0 || i >= t.n || j < 0 || j >= t.n || a < 0 || a >= t.k || b < 0 || b >= t.k {
		panic(fmt.Sprintf("pairwise: Tuning.StdErr(%d, %d, %d, %d) out of range", i, j, a, b))
	}
	if t.stdErrs == nil {
		return math.NaN()
	}
	return t.stdErrs[i][j*t.k*t.k+a*t.k+b]
}

// Debiased returns the debiased estimate of Ŵ_ij(a, b) from node i's
// regressions (one Newton step from the constrained solution), or NaN when
// the edge test did not run. It panics if an index is out of range.
func (t *Tuning) Debiased(i, j, a, b int) float64 {
	if i < 0 || i >= t.n || j < 0 || j >= t.n || a < 0 || a >= t.k || b < 0 || b >= t.k {
		panic(fmt.Sprintf("pairwise: Tuning.Debiased(%d, %d, %d, %d) out of range", i, j, a, b))
	}
	if t.debias == nil {
		return math.NaN()
	}
	return t.debias[i][j*t.k*t.k+a*t.k+b]
}

// placeholderWidth is the width the learners see in the configuration while
// the real widths are chosen node by node. The pairwise learner puts the
// whole radius on the bias of a value pair with one label (see
// LearnPairwise); such pairs get this width.
const placeholderWidth = 1

// selector is the state of one learner run that selects λ, η or both.
type selector struct {
	s       *Samples
	spec    *selSpec // nil when λ was given
	rule    Selection
	wantEta bool
	alpha   float64
	noGap   bool
	noRefit bool
	noMix   bool
	sym     Symmetrization
	folds   *folds

	// fastSpins and fastOneHot record whether the learners would have
	// taken their fast path (the default backends).
	fastSpins, fastOneHot bool
	dataOnce              sync.Once
	d                     *selData

	once  []sync.Once
	nodes []nodeSelection

	// work pools the per-node scratch of the fast engine (selWork), so
	// that a worker reuses its row buffers from node to node; team, when
	// set by LearnIsing, splits the rows of every pass instead of the
	// nodes among the workers (rowsplit.go).
	work sync.Pool
	team *rowTeam
}

// selWork is the scratch of one node's selection on the fast engine.
type selWork struct {
	ws   fistaWork
	cw   []float64 // the fit's normalised weights
	y    []float64 // the Ising node's labels
	f    []float64 // the table kernels' scratch
	full *[maxCodedTables]float64
	hist []*[maxCodedTables]float64 // the chunks' histograms (rowsplit.go)
}

// getWork returns pooled scratch for one node.
func (sel *selector) getWork() *selWork {
	if w, ok := sel.work.Get().(*selWork); ok {
		return w
	}
	return new(selWork)
}

// nodeSelection is what the selector learned about node i. Only the worker
// fitting node i writes it.
type nodeSelection struct {
	lambda float64
	curve  curve
	// d and se hold the debiased Ŵ_ij(a, b) and its standard error, laid
	// out like Result.est; nil when η was given.
	d, se []float64
	// pairs caches the pairwise path's solutions, keyed α*k+β.
	pairs map[int]pairSolution
	err   error
}

type pairSolution struct {
	w  []float64
	st solve.Stats
}

// maxWaldBytes bounds the memory the k-ary edge test may take a worker: it
// keeps the inverse Hessian of every value pair of a node, k(k-1)/2
// matrices of side (n-1)(k-1)+1, which at k = 21 and n = 100 is 6.6 GB and
// a few hours of inversions. Above the bound the tuning-free learner
// returns an error asking for η rather than exhaust the machine's memory.
const maxWaldBytes = 4e9

// waldOneHotBytes returns the bytes of the inverse Hessians waldOneHot
// keeps for one node of n variables with k values.
func waldOneHotBytes(n, k int) float64 {
	dim := float64((n-1)*(k-1) + 1)
	return float64(k*(k-1)/2) * dim * dim * 8
}

// selectDefaults is prepare's hook: when λ or η is missing, it sets up the
// selection and routes the regressions through the selecting solvers. With
// both given it does nothing, so the paper's path is unchanged.
func (c *config) selectDefaults(fn string, s *Samples) error {
	needLambda, needEta := math.IsNaN(c.lambda) && math.IsNaN(c.radius), math.IsNaN(c.eta)
	if !needLambda && !needEta {
		return nil
	}
	if needEta && s.k > 2 {
		if b := waldOneHotBytes(s.n, s.k); b > maxWaldBytes {
			return errorOf(ErrEdgeTestTooLarge, "pairwise: %s: the edge test that chooses the edges when η is not given needs about %.1f GB a worker at n = %d, k = %d (the inverse Hessians of a node's %d value pairs), more than the %.0f GB it may use: give the minimum edge weight with WithMinEdgeWeight",
				fn, b/1e9, s.n, s.k, s.k*(s.k-1)/2, maxWaldBytes/1e9)
		}
	}
	sel := &selector{
		s:       s,
		wantEta: needEta,
		alpha:   c.alpha,
		noGap:   c.noGap,
		noRefit: c.noRefit,
		noMix:   c.noMixture,
		sym:     c.symmetric,
		once:    make([]sync.Once, s.n),
		nodes:   make([]nodeSelection, s.n),
	}
	if sel.alpha == 0 {
		sel.alpha = DefaultFalseEdgeRate
	}
	if needLambda {
		rule := c.selection
		if rule == nil {
			rule = EBIC{Gamma: DefaultGamma}
		}
		sp, err := rule.spec()
		if err != nil {
			return err
		}
		sel.spec, sel.rule = &sp, rule
		if !sp.ebic {
			f, err := makeFolds(s, sp.folds)
			if err != nil {
				return fmt.Errorf("pairwise: %s: %v: %w", fn, rule, err)
			}
			sel.folds = f
		}
		c.lambda = placeholderWidth
	}
	// Resolve the backends as the learners would, and wrap them.
	sel.fastSpins, sel.fastOneHot = c.fastSpins(), c.fastOneHot()
	spins, oneHot := c.spins, c.oneHot
	if spins == nil {
		b := c.solver
		if b == nil {
			b = EntropicMirror{}
		}
		spins = b.spinsSolver()
	}
	if oneHot == nil {
		b := c.solver
		if b == nil {
			b = GroupMirror{}
		}
		oneHot = b.oneHotSolver()
	}
	c.spins = selectingSpins{sel: sel, inner: spins}
	c.oneHot = selectingOneHot{sel: sel, inner: oneHot}
	c.sel = sel
	return nil
}

// assemble is the learners' assemble when a selector ran: the selected
// widths, and the edge test in place of the η/2 threshold when η was not
// given.
func (sel *selector) assemble(ctx context.Context, cfg *config, n, k int, est [][]float64, fields []float64, nodes []NodeFit) (*Result, error) {
	plain := *cfg
	plain.sel = nil
	tun := &Tuning{n: n, k: k}
	if sel.spec != nil {
		tun.Selection = sel.rule
		tun.curves = make([]curve, n)
		plain.lambda = 0
		for i := range nodes {
			nodes[i].Width = sel.nodes[i].lambda
			plain.lambda = math.Max(plain.lambda, sel.nodes[i].lambda)
			tun.curves[i] = sel.nodes[i].curve
		}
	}
	if !sel.wantEta {
		res, err := assemble(ctx, &plain, n, k, est, fields, nodes)
		if err != nil {
			return nil, err
		}
		res.Tuning = tun
		return res, nil
	}
	// Keep every pair with a nonzero estimate, then drop those that fail
	// the test.
	plain.eta = math.SmallestNonzeroFloat64
	plain.symmetric = Average
	res, err := assemble(ctx, &plain, n, k, est, fields, nodes)
	if err != nil {
		return nil, err
	}
	res.Tuning = tun
	tun.FalseEdgeRate = sel.alpha
	pairs := n * (n - 1) / 2
	tests := float64(pairs) // k = 2: the four entries have one |value| and one SE
	if k > 2 {
		tests *= float64(k * k)
	}
	if sel.sym == Or {
		tests *= 2
	}
	tun.Critical = -distuv.UnitNormal.Quantile(sel.alpha / (2 * tests))
	tun.scores = make([]float64, n*n)
	tun.debias = make([][]float64, n)
	tun.stdErrs = make([][]float64, n)
	for i := range sel.nodes {
		tun.debias[i] = sel.nodes[i].d
		tun.stdErrs[i] = sel.nodes[i].se
	}
	kk := k * k
	scores := make([]float64, 0, pairs)
	minSEs := make([]float64, 0, pairs)
	ij := make([][2]int, 0, pairs)
	// score returns pair (i, j)'s statistic and smallest standard error
	// under the symmetrisation rule.
	score := func(i, j int) (score, minSE float64) {
		di, si := tun.debias[i][j*kk:(j+1)*kk], tun.stdErrs[i][j*kk:(j+1)*kk]
		dj, sj := tun.debias[j][i*kk:(i+1)*kk], tun.stdErrs[j][i*kk:(i+1)*kk]
		switch sel.sym {
		case And, Or:
			zi, mi := maxZ(di, si, nil, nil, k)
			zj, mj := maxZ(dj, sj, nil, nil, k)
			if sel.sym == Or {
				return math.Max(zi, zj), math.Min(mi, mj)
			}
			return math.Min(zi, zj), math.Max(mi, mj)
		}
		return maxZ(di, si, dj, sj, k)
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			z, minSE := score(i, j)
			tun.scores[i*n+j], tun.scores[j*n+i] = z, z
			scores, minSEs, ij = append(scores, z), append(minSEs, minSE), append(ij, [2]int{i, j})
		}
	}
	lowest := -distuv.UnitNormal.Quantile(1 / (2 * tests))
	// gapScores are the statistics the gap rule sees: after the refit,
	// the pairs that were not screened count as zero.
	gapScores := scores
	if k == 2 && !sel.noRefit {
		screen := math.Min(refitScreen, lowest)
		d, se, screened, err := refitAll(ctx, sel.s, tun.scores, screen, cfg.workers)
		if err != nil {
			return nil, err
		}
		for i := range d {
			if d[i] == nil {
				continue
			}
			// The first stage stands for the pairs node i did not refit.
			for j := 0; j < n; j++ {
				if screened[i*n+j] {
					copy(tun.debias[i][j*kk:(j+1)*kk], d[i][j*kk:(j+1)*kk])
					copy(tun.stdErrs[i][j*kk:(j+1)*kk], se[i][j*kk:(j+1)*kk])
				}
			}
		}
		gapScores = make([]float64, len(scores))
		for p, e := range ij {
			if !screened[e[0]*n+e[1]] {
				continue
			}
			z, minSE := score(e[0], e[1])
			tun.scores[e[0]*n+e[1]], tun.scores[e[1]*n+e[0]] = z, z
			minSEs[p], gapScores[p] = minSE, z
		}
		tun.Refit, tun.Screen = true, screen
	}
	tun.Threshold = tun.Critical
	mixed := false
	if k == 2 && !sel.noMix {
		// The mixture sees every pair's statistic: the refit's for the
		// screened pairs, the first stage's for the others (which are
		// not edges whatever it says: they are zero in gapScores).
		mixScores := make([]float64, len(scores))
		for p, e := range ij {
			mixScores[p] = tun.scores[e[0]*n+e[1]]
		}
		tun.Threshold, mixed = mixtureCut(tun, gapScores, mixScores, lowest)
	}
	if !mixed && !sel.noGap {
		tun.Lowest = lowest
		tun.Threshold = gapThreshold(gapScores, tun.Lowest, tun.Critical)
	}
	minThreshold := math.Inf(1)
	keep := make(map[[2]int]bool)
	for p, z := range gapScores {
		minThreshold = math.Min(minThreshold, tun.Threshold*minSEs[p])
		if z >= tun.Threshold {
			keep[ij[p]] = true
		}
	}
	edges := res.Edges[:0]
	for _, e := range res.Edges {
		if keep[[2]int{e.I, e.J}] {
			edges = append(edges, e)
		} else {
			res.Model.setCoupling(e.I, e.J, make([]float64, kk))
		}
	}
	res.Edges = edges
	res.MinEdgeWeight = 2 * minThreshold
	return res, nil
}

// gapThreshold returns the threshold of the edge test on the pairs'
// statistics z: the Bonferroni critical value hi when no statistic reaches
// it (the graph is empty) or when no statistic lies in [lo, hi); otherwise
// the statistic z_(c) just above the widest gap z_(c) − z_(c+1) of the
// statistics sorted in decreasing order, over the cuts c that keep every
// statistic ≥ hi and none below lo (z_(P+1) = 0 below the smallest). Ties
// go to the higher cut (fewer edges). NaN statistics take no part.
func gapThreshold(z []float64, lo, hi float64) float64 {
	zs := make([]float64, 0, len(z))
	for _, v := range z {
		if !math.IsNaN(v) {
			zs = append(zs, v)
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(zs)))
	c := sort.Search(len(zs), func(i int) bool { return zs[i] < hi })
	if c == 0 {
		return hi
	}
	best, cut := -1.0, c
	for ; c <= len(zs) && zs[c-1] >= lo; c++ {
		next := 0.0
		if c < len(zs) {
			next = zs[c]
		}
		if g := zs[c-1] - next; g > best {
			best, cut = g, c
		}
	}
	if zs[cut-1] >= hi {
		return hi
	}
	return zs[cut-1]
}

// maxZ returns max over entries (a, b) of |d(a, b)|/se(a, b) and the smallest
// se, for one node's estimate (dj == nil) or for the average of node i's
// estimate and node j's transposed one. An entry with zero standard error
// and zero estimate counts as zero; with zero standard error and a nonzero
// estimate, as +Inf.
func maxZ(di, si, dj, sj []float64, k int) (z, minSE float64) {
	minSE = math.Inf(1)
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			d, se := di[a*k+b], si[a*k+b]
			if dj != nil {
				d = (d + dj[b*k+a]) / 2
				se = (se + sj[b*k+a]) / 2
			}
			minSE = math.Min(minSE, se)
			var v float64
			switch {
			case d == 0:
			case se == 0:
				v = math.Inf(1)
			default:
				v = math.Abs(d) / se
			}
			z = math.Max(z, v)
		}
	}
	return z, minSE
}
