package psych

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/mrfkit/pairwise"
)

// DefaultPermutations is the default number of permutations of
// CompareGroups.
const DefaultPermutations = 1000

// Correction is a correction of per-edge p-values for testing every pair.
type Correction int

const (
	// Holm is Holm's step-down correction (R's p.adjust "holm"): it keeps
	// the family-wise error rate, the chance of any false difference.
	Holm Correction = iota
	// BenjaminiHochberg is the step-up correction of Benjamini and
	// Hochberg (R's p.adjust "BH"): it keeps the false discovery rate.
	BenjaminiHochberg
	// NoCorrection leaves the p-values as they are (NetworkComparisonTest's
	// default, "none").
	NoCorrection
)

// String returns "Holm", "BenjaminiHochberg" or "NoCorrection".
func (c Correction) String() string {
	switch c {
	case Holm:
		return "Holm"
	case BenjaminiHochberg:
		return "BenjaminiHochberg"
	case NoCorrection:
		return "NoCorrection"
	}
	return fmt.Sprintf("Correction(%d)", int(c))
}

// CompareOptions configures CompareGroups. The zero value runs
// DefaultPermutations permutations with Holm's correction and the library's
// default learner.
type CompareOptions struct {
	// Permutations is the number of random relabellings; zero means
	// DefaultPermutations. The smallest p-value possible is
	// 1/(Permutations + 1), so with Holm's correction over the
	// M = n(n−1)/2 pairs an edge can reach level α only with at least
	// M/α − 1 permutations (5999 for 25 items at α = 0.05; NCT's default
	// of 100 cannot).
	Permutations int
	// Correction adjusts the per-edge p-values (Holm by default).
	Correction Correction
	// SignedStrength compares the global expected influence Σ_{i<j} w_ij
	// instead of the global strength Σ_{i<j} |w_ij| (NetworkComparisonTest's
	// abs = FALSE).
	SignedStrength bool
	// Options are passed to the learner (pairwise.Learn) for every fit;
	// pairwise.WithWorkers and pairwise.WithProgress in Options are
	// overridden, as in BootstrapOptions.
	Options []pairwise.Option
	// Workers is the number of goroutines that run permutations in
	// parallel; zero means runtime.GOMAXPROCS(0). Results do not depend on
	// it.
	Workers int
	// Progress, when not nil, is called with the number of permutations
	// done and the total, once at the start and after every permutation,
	// from one goroutine at a time, in increasing order of done.
	Progress func(done, total int)
}

// EdgeDifference is the test of one pair I < J: its signed weights
// (pairwise.Result.SignedEdges; 0 when the pair is not an edge) in the two
// groups' networks, the statistic Difference = |Weight1 − Weight2|, its
// permutation p-value P and the p-value adjusted by the Correction over all
// pairs.
type EdgeDifference struct {
	I          int     `json:"i"`
	J          int     `json:"j"`
	Weight1    float64 `json:"weight1"`
	Weight2    float64 `json:"weight2"`
	Difference float64 `json:"difference"`
	P          float64 `json:"p"`
	Adjusted   float64 `json:"p_adjusted"`
}

// Comparison is what CompareGroups returns.
type Comparison struct {
	// Vars is n; Observations the numbers of observations of the groups.
	Vars         int    `json:"n"`
	Observations [2]int `json:"observations"`
	// Permutations is the number of relabellings and Correction the
	// correction of the per-edge p-values.
	Permutations int    `json:"permutations"`
	Correction   string `json:"correction"`
	// MaxDifference is the statistic M = max_{i<j} |w1_ij − w2_ij| of
	// network structure invariance and MaxDifferenceP its p-value.
	MaxDifference  float64 `json:"max_difference"`
	MaxDifferenceP float64 `json:"max_difference_p"`
	// Strength holds the global strength Σ_{i<j} |w_ij| of each group (the
	// signed sum with SignedStrength), StrengthDifference the statistic
	// S = |Strength[0] − Strength[1]| of global strength invariance and
	// StrengthP its p-value.
	Strength           [2]float64 `json:"strength"`
	StrengthDifference float64    `json:"strength_difference"`
	StrengthP          float64    `json:"strength_p"`
	// Edges holds every pair I < J, sorted by (I, J).
	Edges []EdgeDifference `json:"edges"`
	// PermutedMax and PermutedStrength are M and S of each permutation, in
	// order: their null distributions.
	PermutedMax      []float64 `json:"permuted_max"`
	PermutedStrength []float64 `json:"permuted_strength"`
	// Fits are the two groups' networks as learned.
	Fits [2]*pairwise.Result `json:"-"`
}

// CompareGroups tests whether two samples of the same n items come from
// the same network, by the permutation test of NetworkComparisonTest (van
// Borkulo et al., "Comparing network structures on three aspects: a
// permutation test", Psychological Methods 2022). The network of each
// group is learned (signed weights w of pairwise.Result.SignedEdges, 0 for
// a pair without an edge), and three statistics compare them:
//
//   - M = max_{i<j} |w1_ij − w2_ij|, network structure invariance;
//   - S = |Σ_{i<j} |w1_ij| − Σ_{i<j} |w2_ij||, global strength invariance
//     (signed sums with SignedStrength);
//   - |w1_ij − w2_ij| for every pair, edge invariance.
//
// Under the null hypothesis the group labels are exchangeable: each
// permutation pools the N1 + N2 observations, draws N1 of them without
// replacement as group 1 and leaves the rest as group 2, relearns both
// networks and recomputes the statistics. A p-value is (the number of
// permutations whose statistic is at least the observed one, plus 1) over
// (Permutations + 1), as NetworkComparisonTest computes it; the per-edge
// p-values are then adjusted over the n(n−1)/2 pairs by the Correction.
// Unlike NetworkComparisonTest with binary data, a permutation is never
// redrawn when an item is constant in a group: the learner accepts such
// data.
//
// As in Bootstrap, the groups and their permutations are weighted views of
// the pooled distinct rows (weights must be whole numbers); the items'
// alphabet is the larger of the two samples'. Permutation r draws its
// randomness from a PCG source seeded by two numbers taken from src in order
// before any fit, so the result depends on src and opts but not on the
// number of workers. Once ctx is done, CompareGroups returns ctx.Err()
// promptly.
//
// It returns an error for a nil ctx, nil samples or src, samples with
// missing values (drop the incomplete rows first), samples with different
// numbers of variables, fewer than 2 observations in a group, weights that
// are not whole numbers, an invalid option, and the first error of a fit.
func CompareGroups(ctx context.Context, a, b *pairwise.Samples, src rand.Source, opts CompareOptions) (*Comparison, error) {
	if ctx == nil {
		return nil, errors.New("psych: CompareGroups: nil context (pass context.Background() for none)")
	}
	workers := opts.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if workers < 1 {
		return nil, fmt.Errorf("psych: CompareGroups: Workers = %d, want at least 1", opts.Workers)
	}
	tab, err := newObsTable("CompareGroups", a, b)
	if err != nil {
		return nil, err
	}
	var fits [2]*pairwise.Result
	var edges [2][]pairwise.Edge
	o := append(slices.Clip(opts.Options), pairwise.WithWorkers(workers), pairwise.WithProgress(nil))
	for g := range fits {
		from := 0
		if g == 1 {
			from = tab.groupEnd[0]
		}
		if fits[g], err = pairwise.LearnContext(ctx, tab.samples(tab.counts(nil, from, tab.groupEnd[g])), o...); err != nil {
			return nil, err
		}
		edges[g] = fits[g].SignedEdges()
	}
	c, err := compareWith(ctx, tab, edges, src, opts, workers, learnerFit(opts.Options))
	if err != nil {
		return nil, err
	}
	c.Fits = fits
	return c, nil
}

// compareWith runs the permutations of CompareGroups around the groups'
// learned edges with the learner fit.
func compareWith(ctx context.Context, tab *obsTable, edges [2][]pairwise.Edge, src rand.Source, opts CompareOptions, workers int, fit networkFit) (*Comparison, error) {
	if src == nil {
		return nil, fmt.Errorf("psych: CompareGroups: nil source")
	}
	perms := opts.Permutations
	if perms == 0 {
		perms = DefaultPermutations
	}
	if perms < 1 {
		return nil, fmt.Errorf("psych: CompareGroups: Permutations = %d, want at least 1", opts.Permutations)
	}
	if opts.Correction < Holm || opts.Correction > NoCorrection {
		return nil, fmt.Errorf("psych: CompareGroups: unknown %v", opts.Correction)
	}
	n := tab.n
	N1, N := tab.groupEnd[0], tab.groupEnd[1]
	w1, _ := networkStats(n, edges[0])
	w2, _ := networkStats(n, edges[1])
	realD, realM, s1, s2 := differences(w1, w2, opts.SignedStrength)
	seeds := make([][2]uint64, perms)
	for r := range seeds {
		seeds[r] = [2]uint64{src.Uint64(), src.Uint64()}
	}
	permM := make([]float64, perms)
	permS := make([]float64, perms)
	exceed := make([][]int32, perms) // per permutation, the pairs whose difference reached the observed one
	err := runParallel(ctx, perms, workers, opts.Progress, func(ctx context.Context, r int) error {
		rng := rand.New(rand.NewPCG(seeds[r][0], seeds[r][1]))
		pos := make([]int32, N)
		for i := range pos {
			pos[i] = int32(i)
		}
		for i := 0; i < N1; i++ {
			j := i + rng.IntN(N-i)
			pos[i], pos[j] = pos[j], pos[i]
		}
		e1, err := fit(ctx, tab.samples(tab.counts(pos[:N1], 0, 0)))
		if err != nil {
			return err
		}
		e2, err := fit(ctx, tab.samples(tab.counts(pos[N1:], 0, 0)))
		if err != nil {
			return err
		}
		p1, _ := networkStats(n, e1)
		p2, _ := networkStats(n, e2)
		d, m, t1, t2 := differences(p1, p2, opts.SignedStrength)
		permM[r], permS[r] = m, math.Abs(t1-t2)
		for p := range d {
			if d[p] >= realD[p] {
				exceed[r] = append(exceed[r], int32(p))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	pval := func(count int) float64 { return float64(count+1) / float64(perms+1) }
	var cm, cs int
	for r := range permM {
		if permM[r] >= realM {
			cm++
		}
		if permS[r] >= math.Abs(s1-s2) {
			cs++
		}
	}
	counts := make([]int, len(realD))
	for _, ex := range exceed {
		for _, p := range ex {
			counts[p]++
		}
	}
	raw := make([]float64, len(realD))
	for p := range raw {
		raw[p] = pval(counts[p])
	}
	adj := adjustP(raw, opts.Correction)
	c := &Comparison{
		Vars:               n,
		Observations:       [2]int{N1, N - N1},
		Permutations:       perms,
		Correction:         opts.Correction.String(),
		MaxDifference:      realM,
		MaxDifferenceP:     pval(cm),
		Strength:           [2]float64{s1, s2},
		StrengthDifference: math.Abs(s1 - s2),
		StrengthP:          pval(cs),
		PermutedMax:        permM,
		PermutedStrength:   permS,
	}
	for i, p := 0, 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			c.Edges = append(c.Edges, EdgeDifference{I: i, J: j, Weight1: w1[p], Weight2: w2[p], Difference: realD[p], P: raw[p], Adjusted: adj[p]})
			p++
		}
	}
	return c, nil
}

// differences returns |w1 − w2| per pair, its maximum M, and the global
// strengths (absolute or signed sums) of the two networks.
func differences(w1, w2 []float64, signed bool) (d []float64, m, s1, s2 float64) {
	d = make([]float64, len(w1))
	for p := range w1 {
		d[p] = math.Abs(w1[p] - w2[p])
		m = max(m, d[p])
		if signed {
			s1 += w1[p]
			s2 += w2[p]
		} else {
			s1 += math.Abs(w1[p])
			s2 += math.Abs(w2[p])
		}
	}
	return d, m, s1, s2
}

// adjustP returns the p-values adjusted by c, in the order of p, as R's
// p.adjust computes them: with p_(1) ≤ … ≤ p_(m) sorted,
// Holm's adjusted p_(i) is max_{j≤i} min(1, (m−j+1)·p_(j)) and
// Benjamini-Hochberg's is min_{j≥i} min(1, m/j·p_(j)).
func adjustP(p []float64, c Correction) []float64 {
	m := len(p)
	out := slices.Clone(p)
	if c == NoCorrection || m == 0 {
		return out
	}
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case p[a] < p[b]:
			return -1
		case p[a] > p[b]:
			return 1
		}
		return 0
	})
	switch c {
	case Holm:
		run := 0.0
		for j, i := range idx {
			run = max(run, min(1, float64(m-j)*p[i]))
			out[i] = run
		}
	case BenjaminiHochberg:
		run := 1.0
		for j := m - 1; j >= 0; j-- {
			i := idx[j]
			run = min(run, min(1, float64(m)/float64(j+1)*p[i]))
			out[i] = run
		}
	}
	return out
}
