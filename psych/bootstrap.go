package psych

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/mrfkit/pairwise"
)

// Defaults of BootstrapOptions, bootnet's (Epskamp, Borsboom and Fried 2018).
const (
	// DefaultBootstrapResamples is the default number of resamples of each
	// kind, nonparametric and case-dropping.
	DefaultBootstrapResamples = 1000
	// DefaultIntervalLevel is the default coverage of the percentile
	// intervals.
	DefaultIntervalLevel = 0.95
	// DefaultStabilityCorrelation is the correlation with the full-data
	// estimate that a case-dropping resample must exceed to count as
	// stable, and DefaultStabilityCertainty the share of resamples that
	// must be stable at a drop proportion: the CS coefficient's 0.7 and 95%.
	DefaultStabilityCorrelation = 0.7
	DefaultStabilityCertainty   = 0.95
)

// DefaultDropProportions returns bootnet's default shares of cases dropped
// by the case-dropping bootstrap: ten levels evenly spaced from 0.05 to 0.75
// (R's seq(caseMin = 0.05, caseMax = 0.75, length = caseN = 10), a step of
// 0.7/9, not 0.05).
func DefaultDropProportions() []float64 {
	p := make([]float64, 10)
	for i := range p {
		p[i] = 0.05 + 0.7*float64(i)/9
	}
	return p
}

// bootStatistics are the statistics whose stability the case-dropping
// bootstrap measures, with bootnet's names: the edge weights, then the
// centrality indices in the order of centralityNames.
var bootStatistics = [1 + numCentrality]string{"edge", "strength", "expectedInfluence", "closeness", "betweenness"}

// BootstrapOptions configures Bootstrap. The zero value runs bootnet's
// defaults with the library's default learner.
type BootstrapOptions struct {
	// Resamples is the number of nonparametric resamples (N observations
	// drawn with replacement), and CaseDrops the number of case-dropping
	// resamples (subsets drawn without replacement). Zero means
	// DefaultBootstrapResamples; a negative value skips that kind.
	Resamples, CaseDrops int
	// DropProportions are the shares of the N observations that the
	// case-dropping resamples drop, each in (0, 1); nil means
	// DefaultDropProportions. Case-dropping resample c drops proportion
	// DropProportions[c mod L] (L levels), so the levels get equal numbers
	// of resamples (bootnet draws each resample's level at random). A
	// subset keeps round((1 − p)·N) observations, rounded half to even as
	// R's round does.
	DropProportions []float64
	// Level is the coverage of the percentile intervals, in (0, 1); zero
	// means DefaultIntervalLevel.
	Level float64
	// MinCorrelation and Certainty define the CS coefficient (see
	// CorrelationStability); zero means DefaultStabilityCorrelation and
	// DefaultStabilityCertainty.
	MinCorrelation, Certainty float64
	// Options are passed to the learner (pairwise.Learn) for the full-data
	// fit and every resample: pairwise.WithWidth and
	// pairwise.WithMinEdgeWeight for given λ and η, or nothing for the
	// tuning-free default. For k > 2 every resample keeps the full-data
	// fit's model: its Scale (pairwise.WithScale) and the variables it
	// fitted as nominal (pairwise.WithNominalVariables), as bootnet keeps
	// its estimator. pairwise.WithWorkers and pairwise.WithProgress
	// in Options are overridden: resamples run in parallel, one goroutine
	// a fit.
	Options []pairwise.Option
	// FixTuning, when set, fits every resample with the widths λ̂_i that
	// the learner chose on the full data (pairwise.NodeFit.Width, given as
	// pairwise.WithNodeWidths before Options, so that a λ in Options still
	// wins):
	// a fit skips the search for the widths, but not the rule that makes a
	// pair an edge, which runs on every resample as on the full data (the
	// default's edge test, or the IsingFit rule, or η/2 when Options give
	// η). The full-data network is therefore the one the learner gives
	// without FixTuning; it is refitted at λ̂_i like the resamples, so that
	// both are compared alike. The intervals no longer include the
	// variability of the widths, which bootnet's rerun of the whole
	// estimation does. Every resample's regressions start from the
	// full-data solutions at the same widths (pairwise.WithKeepSolutions,
	// pairwise.WithWarmStart); they are still solved to the
	// learner's tolerance, so the start changes the iterations, not the
	// estimates beyond that tolerance. Off by default. For scale, 25 binary items and 2500
	// people, one fit (the study's questionnaire truth, seed 1): the
	// default took 0.43 s, with its widths fixed 0.19 s (the same 58
	// edges), with the widths and η̂ fixed 0.08 s (39 edges: η̂/2 on the
	// shrunk estimates is not the edge test, which is why η̂ is not fixed).
	FixTuning bool
	// Workers is the number of goroutines that fit resamples in parallel;
	// zero means runtime.GOMAXPROCS(0). Results do not depend on it.
	Workers int
	// Progress, when not nil, is called with the number of resamples done
	// and the total, once at the start and after every resample, from one
	// goroutine at a time, in increasing order of done.
	Progress func(done, total int)
}

// BootstrapEdge is one pair I < J of a nonparametric bootstrap: its signed
// weight (pairwise.Result.SignedEdges) in the full-data estimate, 0 when
// the pair is not an edge there, and over the resamples the mean weight,
// the percentile interval [Lower, Upper] (resamples without the edge count
// as weight 0, as in bootnet) and the share of resamples in which the pair
// is an edge; without nonparametric resamples the summaries are NaN (null
// in JSON).
type BootstrapEdge struct {
	I        int     `json:"i"`
	J        int     `json:"j"`
	Weight   float64 `json:"weight"`
	Mean     float64 `json:"mean"`
	Lower    float64 `json:"lower"`
	Upper    float64 `json:"upper"`
	Selected float64 `json:"selected"`
}

// MarshalJSON writes e with NaN (the summaries without resamples) as null.
func (e BootstrapEdge) MarshalJSON() ([]byte, error) {
	return marshalNaN(struct {
		I        int       `json:"i"`
		J        int       `json:"j"`
		Weight   jsonFloat `json:"weight"`
		Mean     jsonFloat `json:"mean"`
		Lower    jsonFloat `json:"lower"`
		Upper    jsonFloat `json:"upper"`
		Selected jsonFloat `json:"selected"`
	}{e.I, e.J, jsonFloat(e.Weight), jsonFloat(e.Mean), jsonFloat(e.Lower), jsonFloat(e.Upper), jsonFloat(e.Selected)})
}

// BootstrapNode is one centrality index of one node in a nonparametric
// bootstrap: its full-data value and, over the resamples where it is
// finite (closeness is NaN for a node without edges), the mean and the
// percentile interval; NaN when there is none. The JSON form writes NaN as
// null.
type BootstrapNode struct {
	Node      int     `json:"node"`
	Statistic string  `json:"statistic"`
	Value     float64 `json:"value"`
	Mean      float64 `json:"mean"`
	Lower     float64 `json:"lower"`
	Upper     float64 `json:"upper"`
}

// MarshalJSON writes b with NaN as null.
func (b BootstrapNode) MarshalJSON() ([]byte, error) {
	return marshalNaN(struct {
		Node      int       `json:"node"`
		Statistic string    `json:"statistic"`
		Value     jsonFloat `json:"value"`
		Mean      jsonFloat `json:"mean"`
		Lower     jsonFloat `json:"lower"`
		Upper     jsonFloat `json:"upper"`
	}{b.Node, b.Statistic, jsonFloat(b.Value), jsonFloat(b.Mean), jsonFloat(b.Lower), jsonFloat(b.Upper)})
}

// CaseDropResample is one case-dropping resample: the share of observations
// it dropped and, for each of CaseDropResult.Statistics, the correlation
// of its estimate with the full-data estimate (see CorrelationStability;
// NaN when undefined, written as null in JSON).
type CaseDropResample struct {
	Drop         float64   `json:"drop"`
	Correlations []float64 `json:"correlations"`
}

// MarshalJSON writes c with NaN as null.
func (c CaseDropResample) MarshalJSON() ([]byte, error) {
	return marshalNaN(struct {
		Drop         float64     `json:"drop"`
		Correlations []jsonFloat `json:"correlations"`
	}{c.Drop, jsonFloats(c.Correlations)})
}

// CaseDropLevel summarises the resamples of one drop proportion: how many
// there were and, for each of CaseDropResult.Statistics, the share of those
// with a defined correlation that exceeded MinCorrelation (NaN, written as
// null, when none was defined).
type CaseDropLevel struct {
	Drop      float64   `json:"drop"`
	Resamples int       `json:"resamples"`
	Stable    []float64 `json:"stable"`
}

// MarshalJSON writes l with NaN as null.
func (l CaseDropLevel) MarshalJSON() ([]byte, error) {
	return marshalNaN(struct {
		Drop      float64     `json:"drop"`
		Resamples int         `json:"resamples"`
		Stable    []jsonFloat `json:"stable"`
	}{l.Drop, l.Resamples, jsonFloats(l.Stable)})
}

// CaseDropResult is the case-dropping part of a bootstrap.
type CaseDropResult struct {
	// Statistics names the statistics, bootnet's: "edge" (the n(n−1)/2
	// signed pair weights, 0 for a pair without an edge), "strength",
	// "expectedInfluence", "closeness" and "betweenness" (see Centrality).
	Statistics []string `json:"statistics"`
	// MinCorrelation and Certainty are the thresholds of the CS coefficient.
	MinCorrelation float64 `json:"min_correlation"`
	Certainty      float64 `json:"certainty"`
	// CS is the correlation-stability coefficient of each statistic, in the
	// order of Statistics (see CorrelationStability).
	CS []float64 `json:"cs"`
	// Levels summarises each drop proportion, in increasing order.
	Levels []CaseDropLevel `json:"levels"`
	// Resamples holds every resample, in order: the data of the plot of
	// correlation against the share of cases dropped.
	Resamples []CaseDropResample `json:"resamples"`
}

// BootstrapResult is what Bootstrap returns.
type BootstrapResult struct {
	// Vars, Alphabet and Names describe the items (Names nil without names).
	Vars     int      `json:"n"`
	Alphabet int      `json:"k"`
	Names    []string `json:"names,omitempty"`
	// Observations is N, the number of observations resampled.
	Observations int `json:"observations"`
	// Resamples is the number of nonparametric resamples and Level the
	// coverage of their intervals.
	Resamples int     `json:"resamples"`
	Level     float64 `json:"level"`
	// Fit is the full-data estimate that the resamples are compared with.
	Fit *pairwise.Result `json:"-"`
	// Edges holds every pair I < J, sorted by (I, J); Nodes holds, for
	// each centrality index (strength, expectedInfluence, closeness,
	// betweenness) and each node, one entry. Both are empty without
	// nonparametric resamples, except for the full-data values.
	Edges []BootstrapEdge `json:"edges"`
	Nodes []BootstrapNode `json:"nodes"`
	// CaseDrop is nil without case-dropping resamples.
	CaseDrop *CaseDropResult `json:"case_drop,omitempty"`
}

// networkFit learns a network from samples and returns its signed edges.
// Bootstrap and CompareGroups take it as a parameter internally so that
// tests can run them with a deterministic fake learner.
type networkFit func(ctx context.Context, s *pairwise.Samples) ([]pairwise.Edge, error)

// learnerFit is the networkFit of pairwise.LearnContext with opts (one goroutine a
// fit, no progress report).
func learnerFit(opts []pairwise.Option) networkFit {
	o := append(slices.Clip(opts), pairwise.WithWorkers(1), pairwise.WithProgress(nil))
	return func(ctx context.Context, s *pairwise.Samples) ([]pairwise.Edge, error) {
		r, err := pairwise.LearnContext(ctx, s, o...)
		if err != nil {
			return nil, err
		}
		return r.SignedEdges(), nil
	}
}

// Bootstrap measures how far a learned network can be trusted, as bootnet
// does for psychological networks (Epskamp, Borsboom and Fried, "Estimating
// psychological networks and their accuracy", Behavior Research Methods
// 2018):
//
//   - the nonparametric bootstrap refits the network on Resamples resamples
//     of the N observations drawn with replacement, and reports for every
//     pair the percentile interval of its signed weight
//     (pairwise.Result.SignedEdges) and how often it is an edge, and for
//     every node intervals of its centrality indices (Centrality);
//   - the case-dropping bootstrap refits it on CaseDrops subsets that drop a
//     share p of the observations (DropProportions), correlates each
//     subset's edge weights and centrality indices with those of the
//     full-data fit, and reports the CS coefficient of each statistic
//     (CorrelationStability): Epskamp et al. advise CS ≥ 0.25 at the least
//     and preferably ≥ 0.5 before interpreting an order of centrality.
//
// A resample is never copied out of s: it is the distinct rows of s with
// the resample's counts as weights (a multinomial draw for the nonparametric
// bootstrap, 0/1 counts of a subset for case dropping), given to the
// learner as weighted samples. Weighted s (histograms) must therefore have
// whole-number weights, each unit of weight one observation; the learners
// count each unit of weight as an observation, so a resample is the same
// data set a resampled file would be.
//
// The full-data fit runs first with opts.Workers goroutines, then the
// resamples run in parallel, one goroutine a fit. Resample r draws its
// randomness from a PCG source seeded by two numbers that Bootstrap takes
// from src in resample order before any fit starts, so the result depends on
// src and opts but not on the number of workers or on scheduling. Once ctx is
// done, Bootstrap returns ctx.Err() promptly.
//
// It returns an error for a nil ctx, s or src, for samples with missing
// values (drop the incomplete rows first), for weights that are not whole
// numbers, for an invalid option (naming it), and the first error of a fit.
func Bootstrap(ctx context.Context, s *pairwise.Samples, src rand.Source, opts BootstrapOptions) (*BootstrapResult, error) {
	if ctx == nil {
		return nil, errors.New("psych: Bootstrap: nil context (pass context.Background() for none)")
	}
	if s == nil {
		return nil, fmt.Errorf("psych: Bootstrap: nil samples")
	}
	workers := opts.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if workers < 1 {
		return nil, fmt.Errorf("psych: Bootstrap: Workers = %d, want at least 1", opts.Workers)
	}
	tab, err := newObsTable("Bootstrap", s)
	if err != nil {
		return nil, err
	}
	full := tab.samples(tab.counts(nil, 0, tab.groupEnd[0]))
	user := slices.Clip(opts.Options)
	fitOpts := append(slices.Clip(user), pairwise.WithWorkers(workers), pairwise.WithProgress(nil))
	fitRes, err := pairwise.LearnContext(ctx, full, fitOpts...)
	if err != nil {
		return nil, err
	}
	user = keepModel(user, fitRes, s.Alphabet())
	if opts.FixTuning {
		var fixed []pairwise.Option
		widths := make([]float64, len(fitRes.Nodes))
		for i, f := range fitRes.Nodes {
			widths[i] = f.Width
		}
		if len(widths) > 0 && !slices.Contains(widths, 0) {
			fixed = append(fixed, pairwise.WithNodeWidths(widths)) // each node's λ̂_i
		} else if w := fitRes.Width; w > 0 && !math.IsInf(w, 0) {
			fixed = append(fixed, pairwise.WithWidth(w))
		}
		user = append(fixed, user...)
		if fitRes, err = pairwise.LearnContext(ctx, full, append(slices.Clip(user), pairwise.WithWorkers(workers), pairwise.WithProgress(nil), pairwise.WithKeepSolutions())...); err != nil {
			return nil, err
		}
		// Every resample's regressions start from the full-data
		// solutions at the same widths, a short way from their own.
		user = append(user, pairwise.WithWarmStart(fitRes))
	}
	out, err := bootstrapWith(ctx, tab, fitRes.SignedEdges(), src, opts, workers, learnerFit(user))
	if err != nil {
		return nil, err
	}
	out.Fit = fitRes
	out.Alphabet = s.Alphabet()
	out.Names = s.Names()
	return out, nil
}

// keepModel returns the options of every resample: the user's, and for
// k > 2 states the model of the full-data fit, its scale and the variables
// it fitted as nominal (declared or found), so that a resample does not
// switch model on a thin margin of AutoScale's check.
func keepModel(user []pairwise.Option, full *pairwise.Result, k int) []pairwise.Option {
	if k <= 2 {
		return user
	}
	user = append(slices.Clip(user), pairwise.WithScale(full.Scale))
	if len(full.Nominal) > 0 {
		user = append(user, pairwise.WithNominalVariables(full.Nominal...))
	}
	return user
}

// bootstrapWith runs the resamples of Bootstrap around the full-data edges
// orig with the learner fit.
func bootstrapWith(ctx context.Context, tab *obsTable, orig []pairwise.Edge, src rand.Source, opts BootstrapOptions, workers int, fit networkFit) (*BootstrapResult, error) {
	if src == nil {
		return nil, fmt.Errorf("psych: Bootstrap: nil source")
	}
	nBoot, nDrop := defaultCount(opts.Resamples), defaultCount(opts.CaseDrops)
	level := opts.Level
	if level == 0 {
		level = DefaultIntervalLevel
	}
	if !(level > 0 && level < 1) {
		return nil, fmt.Errorf("psych: Bootstrap: Level = %v, want a value in (0, 1)", opts.Level)
	}
	minCor, certainty := opts.MinCorrelation, opts.Certainty
	if minCor == 0 {
		minCor = DefaultStabilityCorrelation
	}
	if certainty == 0 {
		certainty = DefaultStabilityCertainty
	}
	if !(minCor >= -1 && minCor < 1) {
		return nil, fmt.Errorf("psych: Bootstrap: MinCorrelation = %v, want a value in [-1, 1)", opts.MinCorrelation)
	}
	if !(certainty > 0 && certainty < 1) {
		return nil, fmt.Errorf("psych: Bootstrap: Certainty = %v, want a value in (0, 1)", opts.Certainty)
	}
	drops := opts.DropProportions
	if drops == nil {
		drops = DefaultDropProportions()
	}
	if nDrop > 0 && len(drops) == 0 {
		return nil, fmt.Errorf("psych: Bootstrap: no DropProportions")
	}
	N := tab.groupEnd[0]
	sizes := make([]int, len(drops))
	for l, p := range drops {
		if !(p > 0 && p < 1) {
			return nil, fmt.Errorf("psych: Bootstrap: DropProportions[%d] = %v, want a value in (0, 1)", l, p)
		}
		sizes[l] = int(math.RoundToEven((1 - p) * float64(N)))
		if nDrop > 0 && sizes[l] < 2 {
			return nil, fmt.Errorf("psych: Bootstrap: DropProportions[%d] = %v keeps %d of %d observations, want at least 2", l, p, sizes[l], N)
		}
	}

	n := tab.n
	origW, origC := networkStats(n, orig)
	origStats := statVectors(origW, origC)
	total := nBoot + nDrop
	seeds := make([][2]uint64, total)
	for r := range seeds {
		seeds[r] = [2]uint64{src.Uint64(), src.Uint64()}
	}

	bootW := make([][]float64, nBoot)
	bootC := make([]*Centrality, nBoot)
	dropRes := make([]CaseDropResample, nDrop)
	err := runParallel(ctx, total, workers, opts.Progress, func(ctx context.Context, r int) error {
		rng := rand.New(rand.NewPCG(seeds[r][0], seeds[r][1]))
		var counts []float64
		if r < nBoot {
			counts = tab.resampleCounts(rng, 0, N, N)
		} else {
			counts = tab.subsetCounts(rng, 0, N, sizes[(r-nBoot)%len(sizes)])
		}
		edges, err := fit(ctx, tab.samples(counts))
		if err != nil {
			return err
		}
		w, c := networkStats(n, edges)
		if r < nBoot {
			bootW[r], bootC[r] = w, c
			return nil
		}
		l := (r - nBoot) % len(sizes)
		st := statVectors(w, c)
		cor := make([]float64, len(st))
		for i := range st {
			cor[i] = stabilityCorrelation(st[i], origStats[i])
		}
		dropRes[r-nBoot] = CaseDropResample{Drop: 1 - float64(sizes[l])/float64(N), Correlations: cor}
		return nil
	})
	if err != nil {
		return nil, err
	}

	out := &BootstrapResult{Vars: n, Observations: N, Resamples: nBoot, Level: level}
	lo, hi := (1-level)/2, (1+level)/2
	buf := make([]float64, 0, nBoot)
	for i, p := 0, 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			e := BootstrapEdge{I: i, J: j, Weight: origW[p], Mean: math.NaN(), Lower: math.NaN(), Upper: math.NaN()}
			if nBoot > 0 {
				buf = buf[:0]
				sel := 0
				for _, w := range bootW {
					buf = append(buf, w[p])
					if w[p] != 0 {
						sel++
					}
				}
				e.Mean, e.Lower, e.Upper = summarize(buf, lo, hi)
				e.Selected = float64(sel) / float64(nBoot)
			}
			out.Edges = append(out.Edges, e)
			p++
		}
	}
	for ci := 0; ci < numCentrality; ci++ {
		for v := 0; v < n; v++ {
			b := BootstrapNode{Node: v, Statistic: centralityNames[ci], Value: origC.index(ci)[v], Mean: math.NaN(), Lower: math.NaN(), Upper: math.NaN()}
			if nBoot > 0 {
				buf = buf[:0]
				for _, c := range bootC {
					buf = append(buf, c.index(ci)[v])
				}
				b.Mean, b.Lower, b.Upper = summarize(buf, lo, hi)
			}
			out.Nodes = append(out.Nodes, b)
		}
	}
	if nDrop > 0 {
		out.CaseDrop = caseDropSummary(dropRes, minCor, certainty)
	}
	return out, nil
}

// caseDropSummary groups the case-dropping resamples by drop proportion and
// computes the CS coefficients.
func caseDropSummary(res []CaseDropResample, minCor, certainty float64) *CaseDropResult {
	cd := &CaseDropResult{
		Statistics:     bootStatistics[:],
		MinCorrelation: minCor,
		Certainty:      certainty,
		Resamples:      res,
	}
	var props []float64
	for _, r := range res {
		props = append(props, r.Drop)
	}
	slices.Sort(props)
	props = slices.Compact(props)
	drop := make([]float64, len(res))
	cor := make([]float64, len(res))
	for i := range bootStatistics {
		for r := range res {
			drop[r], cor[r] = res[r].Drop, res[r].Correlations[i]
		}
		cs, _ := CorrelationStability(drop, cor, minCor, certainty)
		cd.CS = append(cd.CS, cs)
	}
	for _, p := range props {
		l := CaseDropLevel{Drop: p, Stable: make([]float64, len(bootStatistics))}
		for i := range bootStatistics {
			var def, ok int
			for _, r := range res {
				if r.Drop != p {
					continue
				}
				if i == 0 {
					l.Resamples++
				}
				if c := r.Correlations[i]; !math.IsNaN(c) {
					def++
					if c > minCor {
						ok++
					}
				}
			}
			l.Stable[i] = float64(ok) / float64(def)
		}
		cd.Levels = append(cd.Levels, l)
	}
	return cd
}

// CorrelationStability returns the CS coefficient of Epskamp, Borsboom and
// Fried (2018) from case-dropping resamples: resample r dropped the share
// drop[r] of the cases and the statistic it estimated (edge weights, or a
// centrality index over the nodes) correlates corr[r] with the full-data
// estimate. For each distinct drop proportion p, P(p) is the share of its
// resamples whose correlation exceeds minCorr, among those whose
// correlation is not NaN; CS is the largest p with P(p) > certainty, and 0
// when there is none. With minCorr = 0.7 and certainty = 0.95 this is
// bootnet's corStability, inequalities included (strict, as in bootnet:
// 19 stable resamples of 20 are not more than 95%); like it, CS is the
// largest such level even when a smaller level fails. A drop proportion
// whose correlations are all NaN has no P and never counts.
//
// It returns an error when drop and corr differ in length, for a drop
// proportion outside [0, 1) or NaN, for minCorr outside [−1, 1) and for
// certainty outside (0, 1). Empty input gives 0. The slices are not
// modified.
func CorrelationStability(drop, corr []float64, minCorr, certainty float64) (float64, error) {
	if len(drop) != len(corr) {
		return 0, fmt.Errorf("psych: CorrelationStability: %d drop proportions for %d correlations", len(drop), len(corr))
	}
	if !(minCorr >= -1 && minCorr < 1) {
		return 0, fmt.Errorf("psych: CorrelationStability: minimum correlation %v, want a value in [-1, 1)", minCorr)
	}
	if !(certainty > 0 && certainty < 1) {
		return 0, fmt.Errorf("psych: CorrelationStability: certainty %v, want a value in (0, 1)", certainty)
	}
	type tally struct{ def, ok int }
	levels := make(map[float64]*tally)
	for r, p := range drop {
		if !(p >= 0 && p < 1) {
			return 0, fmt.Errorf("psych: CorrelationStability: drop proportion %d is %v, want a value in [0, 1)", r, p)
		}
		t := levels[p]
		if t == nil {
			t = &tally{}
			levels[p] = t
		}
		if c := corr[r]; !math.IsNaN(c) {
			t.def++
			if c > minCorr {
				t.ok++
			}
		}
	}
	var cs float64
	for p, t := range levels {
		if t.def > 0 && float64(t.ok)/float64(t.def) > certainty && p > cs {
			cs = p
		}
	}
	return cs, nil
}

// stabilityCorrelation is bootnet's cor0 on the entries where both x and y
// are finite: NaN with fewer than two such entries, 0 when either side is
// constant on them, and Pearson's correlation otherwise. bootnet discards a
// resample whose statistic has any NA (the closeness of an isolated node);
// dropping the entry keeps the resample.
func stabilityCorrelation(x, y []float64) float64 {
	var m int
	var sx, sy float64
	var x0, y0 float64
	constX, constY := true, true
	for i := range x {
		if !isFinite(x[i]) || !isFinite(y[i]) {
			continue
		}
		if m == 0 {
			x0, y0 = x[i], y[i]
		}
		constX = constX && x[i] == x0
		constY = constY && y[i] == y0
		sx += x[i]
		sy += y[i]
		m++
	}
	if m < 2 {
		return math.NaN()
	}
	if constX || constY {
		return 0
	}
	mx, my := sx/float64(m), sy/float64(m)
	var sxy, sxx, syy float64
	for i := range x {
		if !isFinite(x[i]) || !isFinite(y[i]) {
			continue
		}
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	return sxy / math.Sqrt(sxx*syy)
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// summarize returns the mean and the lo and hi quantiles (R's default type 7:
// linear interpolation between order statistics) of the finite values of x,
// NaN when there is none. x is reordered.
func summarize(x []float64, lo, hi float64) (mean, qlo, qhi float64) {
	f := x[:0]
	for _, v := range x {
		if isFinite(v) {
			f = append(f, v)
		}
	}
	if len(f) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	slices.Sort(f)
	var s float64
	for _, v := range f {
		s += v
	}
	return s / float64(len(f)), quantile7(f, lo), quantile7(f, hi)
}

// quantile7 is R's quantile type 7 of sorted x.
func quantile7(x []float64, p float64) float64 {
	h := float64(len(x)-1) * p
	i := int(math.Floor(h))
	if i >= len(x)-1 {
		return x[len(x)-1]
	}
	return x[i] + (h-float64(i))*(x[i+1]-x[i])
}

// networkStats returns the signed weights of the n(n−1)/2 pairs (i < j in
// order (0,1), (0,2), ..., 0 without an edge) and the centrality indices of
// the network of edges.
func networkStats(n int, edges []pairwise.Edge) ([]float64, *Centrality) {
	w := make([]float64, n*(n-1)/2)
	for _, e := range edges {
		i, j := min(e.I, e.J), max(e.I, e.J)
		w[pairIndex(n, i, j)] = e.Weight
	}
	return w, centrality(n, edges)
}

// pairIndex is the position of the pair i < j in the order of networkStats.
func pairIndex(n, i, j int) int { return i*(2*n-i-1)/2 + j - i - 1 }

// statVectors lists the statistics of bootStatistics.
func statVectors(w []float64, c *Centrality) [][]float64 {
	return [][]float64{w, c.Strength, c.ExpectedInfluence, c.Closeness, c.Betweenness}
}

// defaultCount applies the zero and negative rules of
// BootstrapOptions.Resamples.
func defaultCount(v int) int {
	switch {
	case v == 0:
		return DefaultBootstrapResamples
	case v < 0:
		return 0
	}
	return v
}

// obsTable holds the distinct rows of one or more samples and their
// observations: observation t is a copy of row obs[t]; the observations of
// input g are obs[groupEnd[g-1]:groupEnd[g]].
type obsTable struct {
	n, k     int
	rows     [][]int
	obs      []int32
	groupEnd []int
}

// newObsTable merges the rows of the samples (which must share n; k is the
// largest alphabet) and numbers their observations. Weights must be whole
// numbers.
func newObsTable(fn string, ss ...*pairwise.Samples) (*obsTable, error) {
	t := &obsTable{}
	index := make(map[string]int32)
	var key []byte
	row := []int(nil)
	for g, s := range ss {
		if s == nil {
			return nil, fmt.Errorf("psych: %s: nil samples", fn)
		}
		if s.Incomplete() {
			return nil, fmt.Errorf("psych: %s: the samples have %v missing values; drop the incomplete rows first (Samples.DropIncomplete)", fn, s.MissingCount())
		}
		if g == 0 {
			t.n = s.Vars()
		} else if s.Vars() != t.n {
			return nil, fmt.Errorf("psych: %s: samples %d have %d variables, samples 0 have %d", fn, g, s.Vars(), t.n)
		}
		t.k = max(t.k, s.Alphabet())
		for m := 0; m < s.Len(); m++ {
			w := s.Weight(m)
			if w != math.Trunc(w) || w > 1<<31 {
				return nil, fmt.Errorf("psych: %s: samples %d, row %d has weight %v, want a whole number of observations", fn, g, m, w)
			}
			if w == 0 {
				continue
			}
			row = s.Row(row, m)
			key = key[:0]
			for _, v := range row {
				key = binaryAppendUvarint(key, uint64(v))
			}
			id, ok := index[string(key)]
			if !ok {
				id = int32(len(t.rows))
				index[string(key)] = id
				t.rows = append(t.rows, slices.Clone(row))
			}
			for c := 0; c < int(w); c++ {
				t.obs = append(t.obs, id)
			}
		}
		t.groupEnd = append(t.groupEnd, len(t.obs))
		start := 0
		if g > 0 {
			start = t.groupEnd[g-1]
		}
		if t.groupEnd[g]-start < 2 {
			return nil, fmt.Errorf("psych: %s: samples %d hold %d observations, want at least 2", fn, g, t.groupEnd[g]-start)
		}
	}
	return t, nil
}

func binaryAppendUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// counts returns the row counts of observations obs[from:to], or of the
// listed observation positions when sel is not nil.
func (t *obsTable) counts(sel []int32, from, to int) []float64 {
	c := make([]float64, len(t.rows))
	if sel != nil {
		for _, o := range sel {
			c[t.obs[o]]++
		}
		return c
	}
	for _, r := range t.obs[from:to] {
		c[r]++
	}
	return c
}

// resampleCounts draws size observations with replacement from
// obs[from:to] and returns their row counts (a multinomial draw).
func (t *obsTable) resampleCounts(rng *rand.Rand, from, to, size int) []float64 {
	c := make([]float64, len(t.rows))
	for range size {
		c[t.obs[from+rng.IntN(to-from)]]++
	}
	return c
}

// subsetCounts draws size observations without replacement from
// obs[from:to] (a partial Fisher-Yates shuffle) and returns their row counts.
func (t *obsTable) subsetCounts(rng *rand.Rand, from, to, size int) []float64 {
	perm := slices.Clone(t.obs[from:to])
	for i := 0; i < size; i++ {
		j := i + rng.IntN(len(perm)-i)
		perm[i], perm[j] = perm[j], perm[i]
	}
	c := make([]float64, len(t.rows))
	for _, r := range perm[:size] {
		c[r]++
	}
	return c
}

// samples returns the rows with positive counts, weighted by them.
func (t *obsTable) samples(counts []float64) *pairwise.Samples {
	var rows [][]int
	var w []float64
	for r, c := range counts {
		if c > 0 {
			rows = append(rows, t.rows[r])
			w = append(w, c)
		}
	}
	s, err := pairwise.NewWeightedSamples(t.k, rows, w)
	if err != nil {
		// The rows came from valid samples and the counts are positive.
		panic("psych: internal error: " + err.Error())
	}
	return s
}

// runParallel runs job(r) for r in [0, total) on workers goroutines, reports
// progress after each job, and returns the first error (or ctx.Err() once
// ctx is done).
func runParallel(ctx context.Context, total, workers int, progress func(done, total int), job func(ctx context.Context, r int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		next     int
		done     int
		firstErr error
	)
	if progress != nil {
		progress(0, total)
	}
	var wg sync.WaitGroup
	for range min(workers, max(total, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if firstErr != nil || next >= total {
					mu.Unlock()
					return
				}
				r := next
				next++
				mu.Unlock()
				if err := ctx.Err(); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
				err := job(ctx, r)
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = err
						cancel()
					}
				} else {
					done++
					if progress != nil {
						progress(done, total)
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// WriteCSV writes the summary of b to w as one table with the header
//
//	section,statistic,node1,node2,original,mean,lower,upper,selected,drop,resamples,stable,cs
//
// and three kinds of lines: section "edge" (one a pair: nodes, full-data
// weight, bootstrap mean, interval and share selected), "node" (one a node
// and centrality index: node1, value, mean, interval), and "casedrop" (one a
// drop proportion and statistic: drop, resamples, share stable, and the
// statistic's CS coefficient). Nodes are written by name when b has names,
// else by index; fields that do not apply are empty, NaN is written "NaN".
// It returns the first write error.
func (b *BootstrapResult) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	name := func(v int) string {
		if b.Names != nil {
			return b.Names[v]
		}
		return strconv.Itoa(v)
	}
	cw.Write([]string{"section", "statistic", "node1", "node2", "original", "mean", "lower", "upper", "selected", "drop", "resamples", "stable", "cs"})
	for _, e := range b.Edges {
		cw.Write([]string{"edge", "edge", name(e.I), name(e.J), f(e.Weight), f(e.Mean), f(e.Lower), f(e.Upper), f(e.Selected), "", "", "", ""})
	}
	for _, nd := range b.Nodes {
		cw.Write([]string{"node", nd.Statistic, name(nd.Node), "", f(nd.Value), f(nd.Mean), f(nd.Lower), f(nd.Upper), "", "", "", "", ""})
	}
	if cd := b.CaseDrop; cd != nil {
		for _, l := range cd.Levels {
			for i, st := range cd.Statistics {
				cw.Write([]string{"casedrop", st, "", "", "", "", "", "", "", f(l.Drop), strconv.Itoa(l.Resamples), f(l.Stable[i]), f(cd.CS[i])})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteCaseDropCSV writes the case-dropping resamples of b to w, one line a
// resample: the header "drop,edge,strength,expectedInfluence,closeness,betweenness"
// and the share dropped with the correlation of each statistic with the
// full-data estimate (NaN written "NaN"): the data of bootnet's stability
// plot. Without case-dropping resamples it writes the header only. It
// returns the first write error.
func (b *BootstrapResult) WriteCaseDropCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(append([]string{"drop"}, bootStatistics[:]...))
	if b.CaseDrop != nil {
		rec := make([]string, 1+len(bootStatistics))
		for _, r := range b.CaseDrop.Resamples {
			rec[0] = strconv.FormatFloat(r.Drop, 'g', -1, 64)
			for i, c := range r.Correlations {
				rec[1+i] = strconv.FormatFloat(c, 'g', -1, 64)
			}
			cw.Write(rec)
		}
	}
	cw.Flush()
	return cw.Error()
}
