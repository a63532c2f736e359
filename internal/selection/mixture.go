package selection

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// Mixture is the fitted two-group model of EdgeMixture, whose fields it
// shares.
type Mixture struct {
	EdgeShare      float64
	LogMean, LogSD float64
	Iterations     int
}

const (
	// MixtureMinLogSD is the floor of the lognormal's LogSD: with one or
	// two edges the maximum-likelihood spread would otherwise collapse
	// onto them. On the log scale 0.1 is a tenth of an e-fold, narrower
	// than the spread of any study's edge statistics.
	MixtureMinLogSD = 0.1
	// MixtureMaxIter bounds the EM iterations; the fits of the study
	// converge in tens to a few hundred.
	MixtureMaxIter = 2000
	// mixtureTol is the change of (π₁, LogMean, LogSD) below which EM
	// stops.
	mixtureTol = 1e-10
)

// logHalfNormal and logLognormal are the log densities of the mixture's
// two groups at z > 0 (lz = log z).
func logHalfNormal(z float64) float64 {
	return math.Log(2) - z*z/2 - halfLog2Pi
}

func logLognormal(z, lz, mu, sd float64) float64 {
	return logLognormalLog(lz, mu, sd, math.Log(sd))
}

// logLognormalLog is logLognormal with ln sd given: EM's E-step evaluates
// it for every statistic at one (mu, sd), and the two logarithms a call
// (ln sd and ln 2π, which Go does not fold) were most of the mixture fit's
// time, 8% of a `pairwise bootstrap -fix` resample. The same numbers in
// the same order: the results are identical.
func logLognormalLog(lz, mu, sd, logSD float64) float64 {
	d := (lz - mu) / sd
	return -d*d/2 - logSD - halfLog2Pi - lz
}

// halfLog2Pi is ln(2π)/2.
var halfLog2Pi = 0.5 * math.Log(2*math.Pi)

// Posterior returns the probability under the mixture that a pair with
// statistic z is an edge: 0 for z ≤ 0 (the lognormal has no mass there),
// 1 for z = +Inf, NaN for NaN.
func (m *Mixture) Posterior(z float64) float64 {
	switch {
	case math.IsNaN(z):
		return math.NaN()
	case z <= 0 || m.EdgeShare <= 0:
		return 0
	case math.IsInf(z, 1):
		return 1
	}
	lo := math.Log(m.EdgeShare) + logLognormal(z, math.Log(z), m.LogMean, m.LogSD) -
		math.Log1p(-m.EdgeShare) - logHalfNormal(z)
	return 1 / (1 + math.Exp(-lo))
}

// FitEdgeMixture fits the EdgeMixture to the finite, positive-or-zero
// statistics z by maximum likelihood with EM (Dempster, Laird and Rubin
// 1977), starting from the split at init: the statistics ≥ init as edges.
// Non-finite statistics take no part. It reports false when no finite
// statistic reaches init or the fit loses every edge.
func FitEdgeMixture(z []float64, init float64) (Mixture, bool) {
	return FitEdgeMixtureFloor(z, init, 0, 0)
}

// SparseFloor is the least floor of the sparse Ising edge test (issue 33;
// package pairwise's edgetest_sparse.go): the statistic below which that
// test keeps no pair, and the floor of the mixture's EM on the path where
// it runs (the support model's, more than WaldDenseMax complete spins), in
// the dense test too, so that the two agree. SparseFloorAt raises it with
// the number of spins. It lies below the gap rule's z₁ and z*(α) there
// (z₁ is 4.0 at 257 spins, 5.3 at 3,000); about 1.2% of the null pairs
// reach it.
const SparseFloor = 2.5

// SparseChance is the number of null spins a node keeps by chance in the
// sparse edge test from about 1,000 spins on (SparseFloorAt): the spins
// whose ratio |Â_ij|/SE reaches the floor under the null, (n − 1) times a
// two-sided normal tail. At SparseFloor that is 1.24% of the others, 12.4
// at n = 1,000.
const SparseChance = 12.5

// SparseFloorAt returns the sparse edge test's floor F at n spins:
// SparseFloor, or the normal quantile above which SparseChance of the
// n − 1 other spins lie under the null, z(1 − SparseChance/(2(n − 1))),
// whichever is larger. It is SparseFloor up to about 1,000 spins, 2.87
// at 3,000, 3.23 at 10,000, 3.84 at 100,000: a node keeps its neighbours
// and about 12.5 spins by chance at every n, where the fixed floor kept
// 1.2% of them (n²/80 entries in all, several GB at n = 100,000). A
// floor that rises with n changes nothing that matters: the statistics
// below it would need a posterior above 1/2 in a mixture where about
// SparseChance·n/2 null pairs lie above it, and where the rules would
// read one of them the test falls back to the dense arrays. For n < 2
// it returns SparseFloor.
func SparseFloorAt(n int) float64 {
	if n < 2 {
		return SparseFloor
	}
	tail := SparseChance / (2 * float64(n-1)) // one side's
	if tail >= distuv.UnitNormal.Survival(SparseFloor) {
		return SparseFloor
	}
	return -distuv.UnitNormal.Quantile(tail)
}

// FitEdgeMixtureFloor is FitEdgeMixture on the statistics of z at or above
// floor (the others, finite and non-negative, count in the number of
// pairs but not in EM's sums) and on others more statistics below floor
// that are not in z. With floor and others 0 it is FitEdgeMixture. The
// sparse edge test (issue 33) holds the statistics of the pairs that
// reach floor only; a pair below it has posterior below about 1e-10 at
// the fits of the scaling study, so that leaving it out of the sums moves
// the fit by less than 1e-8 relative.
func FitEdgeMixtureFloor(z []float64, init, floor float64, others int) (Mixture, bool) {
	zs := make([]float64, 0, len(z))
	below := others
	for _, v := range z {
		if !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 {
			if v < floor {
				below++
				continue
			}
			zs = append(zs, v)
		}
	}
	m := float64(len(zs) + below)
	lz := make([]float64, len(zs))
	l0 := make([]float64, len(zs))
	var n1, s1, s2 float64
	for i, v := range zs {
		l0[i] = logHalfNormal(v)
		if v > 0 {
			lz[i] = math.Log(v)
		}
		if v >= init && v > 0 {
			n1++
			s1 += lz[i]
			s2 += lz[i] * lz[i]
		}
	}
	if n1 == 0 {
		return Mixture{}, false
	}
	// share keeps π₁ inside (0, 1) so that both groups stay in the model
	// (with every statistic an edge, as with one pair, π₁ = 1 − 1/(2m)).
	share := func(p float64) float64 { return math.Min(math.Max(p, 1/(2*m)), 1-1/(2*m)) }
	mu := s1 / n1
	fit := Mixture{
		EdgeShare: share(n1 / m),
		LogMean:   mu,
		LogSD:     math.Max(math.Sqrt(math.Max(s2/n1-mu*mu, 0)), MixtureMinLogSD),
	}
	for fit.Iterations < MixtureMaxIter {
		fit.Iterations++
		lp1, lp0 := math.Log(fit.EdgeShare), math.Log1p(-fit.EdgeShare)
		logSD := math.Log(fit.LogSD)
		var r0, r1, r2 float64
		for i, v := range zs {
			if v <= 0 {
				continue
			}
			lo := lp1 + logLognormalLog(lz[i], fit.LogMean, fit.LogSD, logSD) - lp0 - l0[i]
			r := 1 / (1 + math.Exp(-lo))
			r0 += r
			r1 += r * lz[i]
			r2 += r * lz[i] * lz[i]
		}
		if r0 < 1e-300 {
			return fit, false
		}
		mu := r1 / r0
		next := Mixture{
			EdgeShare:  share(r0 / m),
			LogMean:    mu,
			LogSD:      math.Max(math.Sqrt(math.Max(r2/r0-mu*mu, 0)), MixtureMinLogSD),
			Iterations: fit.Iterations,
		}
		change := math.Abs(next.EdgeShare-fit.EdgeShare) + math.Abs(next.LogMean-fit.LogMean) + math.Abs(next.LogSD-fit.LogSD)
		fit = next
		if change < mixtureTol {
			break
		}
	}
	return fit, true
}

// MixtureThreshold returns the smallest statistic of the run of largest
// statistics below the level below whose posterior under fit exceeds 1/2:
// scanning the statistics under below in decreasing order, it stops at the
// first pair more likely null than edge. It returns below when the first
// is already more likely null.
func MixtureThreshold(z []float64, fit *Mixture, below float64) float64 {
	zs := make([]float64, 0, len(z))
	for _, v := range z {
		if v < below { // NaN is not
			zs = append(zs, v)
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(zs)))
	t := below
	for _, v := range zs {
		if fit.Posterior(v) <= 0.5 {
			break
		}
		t = v
	}
	return t
}

// LogLikelihood returns the log-likelihood of the finite non-negative
// statistics z under the mixture (for tests).
func (m *Mixture) LogLikelihood(z []float64) float64 {
	var ll float64
	for _, v := range z {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			continue
		}
		if v == 0 {
			ll += math.Log1p(-m.EdgeShare) + logHalfNormal(0)
			continue
		}
		a := math.Log(m.EdgeShare) + logLognormal(v, math.Log(v), m.LogMean, m.LogSD)
		b := math.Log1p(-m.EdgeShare) + logHalfNormal(v)
		hi := math.Max(a, b)
		ll += hi + math.Log(math.Exp(a-hi)+math.Exp(b-hi))
	}
	return ll
}

// mixtureMinEdges is the number of pairs that must reach z*(α) before the
// mixture cut runs. Those pairs are edges in any case, and they are what
// places the lognormal: with fewer, EM tends to spread it over the upper
// tail of the nulls' statistics, which within one run are never exactly
// half-normal, and to call a handful of nulls edges. On sparse models
// (one to four edges among 66 to 190 pairs, 50 seeds at N = 500 to 5000)
// the mixture alone was exact in 1133 of 1200 runs with 112 false edges,
// the gap rule in 1166 with 16, and the mixture behind this floor in 1163
// with 25; on the models with more edges the floor changes little
// (docs/tuning).
const mixtureMinEdges = 5

// MixtureCut returns the threshold of the Ising edge test under
// WithEdgeMixture, the fitted mixture and true, or critical (z*(α)), nil
// and false when the mixture does not decide: when fewer than
// mixtureMinEdges of the statistics reach z*(α) (with none, the graph is
// empty) or the fit fails. The cut is never above critical: a pair
// significant at the family-wise rate α is an edge whatever the fit says,
// and the mixture decides only below it. The mixture is fitted to
// mixScores from the split at lowest.
func MixtureCut(critical float64, scores, mixScores []float64, lowest float64) (float64, *Mixture, bool) {
	return MixtureCutSettings{Lowest: lowest}.Cut(critical, scores, mixScores)
}

// PairFloor is z(0.975), the normal quantile of a two-sided 5% test of one
// pair alone: the least cut of the multinomial default (package pairwise's
// multinomial.go), whose mixture is fitted to the statistics of few pairs
// (36 on a 3 × 3 grid) and can cut among the nulls (at 0.46 on one grid
// run at 5 rows a parameter). On the Likert study's choice files it never
// binds (the same F1 and edges to the last pair); on the tuning study's
// 3 × 3 Potts grid at k = 6 and N = 1,000 it took the false edges from
// 3.1 to 0.8 a run on seeds 0–9, where it was chosen, and from 0.9 to 0.4
// on seeds 10–19 (docs/learning.md).
const PairFloor = 1.959963984540054

// MixtureCutSettings say how MixtureCutSettings.Cut fits the mixture and
// places its cut. The zero value is MixtureCut's: the mixture fitted to
// every statistic from the split at 0, no least cut.
type MixtureCutSettings struct {
	// Lowest is the split from which the mixture is fitted
	// (FitEdgeMixture).
	Lowest float64
	// Floor and Others are FitEdgeMixtureFloor's: the statistics below
	// Floor enter the fit as a count, and Others more pairs, not listed,
	// lie below it (the sparse test's).
	Floor  float64
	Others int
	// Least is the least cut: no pair whose own statistic is below
	// min(Least, critical) is an edge, whatever the mixture says. Zero
	// (or NaN) sets none; PairFloor is the multinomial default's.
	Least float64
}

// Cut is MixtureCut under the settings: the threshold, the fitted
// mixture and true when the mixture decides, or critical, nil and false.
// When it decides, the threshold is the mixture's cut (MixtureThreshold)
// raised to min(s.Least, critical).
func (s MixtureCutSettings) Cut(critical float64, scores, mixScores []float64) (float64, *Mixture, bool) {
	th, fit, ok := s.cut(critical, scores, mixScores)
	if ok && s.Least > 0 { // NaN is not
		th = math.Max(th, math.Min(s.Least, critical))
	}
	return th, fit, ok
}

func (s MixtureCutSettings) cut(critical float64, scores, mixScores []float64) (float64, *Mixture, bool) {
	sure := 0
	for _, z := range scores {
		if z >= critical {
			sure++
		}
	}
	if sure < mixtureMinEdges {
		return critical, nil, false
	}
	fit, ok := FitEdgeMixtureFloor(mixScores, s.Lowest, s.Floor, s.Others)
	if !ok {
		return critical, nil, false
	}
	return MixtureThreshold(mixScores, &fit, critical), &fit, true
}
