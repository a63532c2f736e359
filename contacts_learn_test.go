package pairwise

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/mrfkit/pairwise/internal/dca"
	"gonum.org/v1/gonum/mat"
)

// contactFamily returns a synthetic family with known contacts: n columns
// over k = 5 states (state 0 the gap, rare: field −2), with couplings on
// the pairs (i, i+3) for even i only, each a random k×k block of scale
// 0.8 on the states 1..4, and fields that make state 4 rare (−2.5) in every
// third column, so that the regressions meet rare states. It returns the
// model and the true pairs.
func contactFamily(t *testing.T, n int, seed uint64) (*Model, map[[2]int]bool) {
	t.Helper()
	const k = 5
	rng := rand.New(rand.NewPCG(seed, 11))
	m, err := NewModel(n, k)
	if err != nil {
		t.Fatal(err)
	}
	truth := map[[2]int]bool{}
	for i := 0; i+3 < n; i += 2 {
		w := mat.NewDense(k, k, nil)
		for a := 1; a < k; a++ {
			for b := 1; b < k; b++ {
				w.Set(a, b, 0.8*rng.NormFloat64())
			}
		}
		if err := m.SetCoupling(i, i+3, w); err != nil {
			t.Fatal(err)
		}
		truth[[2]int{i, i + 3}] = true
	}
	for i := 0; i < n; i++ {
		f := []float64{-2, 0, 0, 0, 0}
		if i%3 == 0 {
			f[4] = -2.5
		}
		if err := m.SetField(i, f); err != nil {
			t.Fatal(err)
		}
	}
	return m, truth
}

// contactSamples draws count Gibbs samples of contactFamily(t, n, seed)
// from the source PCG(s1, s2) and returns them with the true pairs.
func contactSamples(t *testing.T, n int, seed uint64, count int, s1, s2 uint64) (*Samples, map[[2]int]bool) {
	t.Helper()
	m, truth := contactFamily(t, n, seed)
	g, err := NewGibbsSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.Sample(rand.NewPCG(s1, s2), count)
	if err != nil {
		t.Fatal(err)
	}
	return s, truth
}

// topPrecision returns the fraction of the top pairs i < j, ranked by
// decreasing score with ties in (i, j) order, that are in truth: what
// protein.ContactPrecision of protein.RankContacts(scores, 1) gives, which
// the root's tests cannot import.
func topPrecision(scores mat.Symmetric, top int, truth map[[2]int]bool) float64 {
	n := scores.SymmetricDim()
	var pairs [][2]int
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			pairs = append(pairs, [2]int{i, j})
		}
	}
	sort.SliceStable(pairs, func(x, y int) bool {
		return scores.At(pairs[x][0], pairs[x][1]) > scores.At(pairs[y][0], pairs[y][1])
	})
	top = min(top, len(pairs))
	hits := 0
	for _, p := range pairs[:top] {
		if truth[p] {
			hits++
		}
	}
	return float64(hits) / float64(top)
}

// TestLearnContactsRanksTruePairs learns a small synthetic family back
// from Gibbs samples with the value-pair regressions (WithReferencePairs
// given: the softmax is not used) and checks that the top-T ranked pairs (T
// the number of true pairs) are mostly true. The seeds are fixed; the bound 0.8 is
// below what the defaults reach here (all of them) by two pairs of slack
// for the sampler's noise, and far above chance (T of n(n−1)/2 pairs, 0.07).
func TestLearnContactsRanksTruePairs(t *testing.T) {
	const n, count = 16, 3000
	s, truth := contactSamples(t, n, 3, count, 5, 6)
	cm, err := LearnContacts(s, WithWorkers(2), WithReferencePairs(true))
	if err != nil {
		t.Fatal(err)
	}
	if cm.Softmax || cm.Ridge != DefaultContactRidge || cm.Width != DefaultContactWidth || !cm.IgnoreGap || cm.Neff != count {
		t.Errorf("ContactMap reports ρ %v, λ %v, gap ignored %v, Neff %v; want the defaults and %d", cm.Ridge, cm.Width, cm.IgnoreGap, cm.Neff, count)
	}
	for _, nf := range cm.Nodes {
		// The default fits reference pairs: k' = 4 states scored, 3 a node.
		if !nf.Converged || nf.Regressions != 3 {
			t.Errorf("node %d: %+v, want 3 converged regressions", nf.Node, nf)
		}
	}
	top := len(truth)
	p := topPrecision(cm.Scores, top, truth)
	if p < 0.8 {
		t.Errorf("top-%d precision %.2f, want at least 0.8", top, p)
	}
	// Raw and Scores differ by the correction only.
	if mat.EqualApprox(cm.Raw, cm.Scores, 1e-12) {
		t.Error("Scores equal Raw: the APC was not applied")
	}
}

// TestLearnContactsMatchesLearnPairwise checks LearnContacts's raw scores,
// computed node by node without a model, against the per-node estimates
// that LearnPairwise keeps (Result.Estimate) with the same options and the
// gap kept: the raw score of (i, j) must be the mean of the zero-sum norms
// of node i's Ŵ_ij and node j's Ŵ_ji.
func TestLearnContactsMatchesLearnPairwise(t *testing.T) {
	const n, count = 8, 800
	s, _ := contactSamples(t, n, 4, count, 7, 8)
	opts := []Option{WithRidge(3), WithWidth(5), WithIgnoreGap(false), WithTolerance(1e-10), WithWorkers(1)}
	cm, err := LearnContacts(s, append(opts, WithReferencePairs(false))...)
	if err != nil {
		t.Fatal(err)
	}
	res, err := LearnPairwise(s, append(opts, WithMinEdgeWeight(math.SmallestNonzeroFloat64))...)
	if err != nil {
		t.Fatal(err)
	}
	k := 5
	row, col := make([]float64, k), make([]float64, k)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			eij := res.Estimate(i, j) // node i's Ŵ_ij
			eji := res.Estimate(j, i)
			want := (dca.ZeroSumNorm(eij.RawMatrix().Data, k, 0, row, col) + dca.ZeroSumNorm(eji.RawMatrix().Data, k, 0, row, col)) / 2
			if got := cm.Raw.At(i, j); math.Abs(got-want) > 1e-5*(1+want) {
				t.Errorf("raw score (%d, %d) = %v, LearnPairwise's estimates give %v", i, j, got, want)
			}
		}
	}
}

func TestLearnContactsErrors(t *testing.T) {
	s2, err := NewSamples(2, [][]int{{0, 1, 1}, {1, 0, 1}, {1, 1, 0}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LearnContacts(nil); err == nil {
		t.Error("nil samples: no error")
	}
	if _, err := LearnContacts(s2); err == nil {
		t.Error("k = 2 with the gap ignored: no error")
	}
	if _, err := LearnContacts(s2, WithIgnoreGap(false)); err != nil {
		t.Errorf("k = 2 with the gap kept: %v", err)
	}
	if _, err := LearnContacts(s2, WithIgnoreGap(false), WithRidge(-1)); err == nil {
		t.Error("negative ridge: no error")
	}
	if _, err := LearnContacts(s2, WithIgnoreGap(false), WithSolver(GroupMirror{})); err == nil {
		t.Error("ridge with another backend: no error")
	}
	// Cancellation: a family large enough to take a while returns
	// promptly once the context is cancelled.
	s, _ := contactSamples(t, 40, 9, 4000, 1, 2)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	start := time.Now()
	_, err = LearnContactsContext(ctx, s, WithWorkers(1))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancelled after 50 ms, returned after %v", d)
	}
}

// TestLearnContactsReferencePairs checks WithReferencePairs against all
// pairs: on the family of TestLearnContactsRanksTruePairs (which checks
// the default, reference pairs) all pairs must rank the true pairs as
// well (the same bound, for the same reasons), and with two states scored
// (k = 3, the gap ignored) its single value pair is the single pair of
// Algorithm 2, so the raw scores must agree with the default's to the
// solver's tolerance: the averaged block of equation (9) has rows ±U/2,
// the reference block rows 0 and −U, equal once centred.
func TestLearnContactsReferencePairs(t *testing.T) {
	const n, count = 16, 3000
	s, truth := contactSamples(t, n, 3, count, 5, 6)
	cm, err := LearnContacts(s, WithWorkers(2), WithReferencePairs(false))
	if err != nil {
		t.Fatal(err)
	}
	for _, nf := range cm.Nodes {
		// k' = 4 states scored: all 6 pairs a node.
		if !nf.Converged || nf.Regressions != 6 {
			t.Errorf("node %d: %+v, want 6 converged regressions", nf.Node, nf)
		}
	}
	top := len(truth)
	p := topPrecision(cm.Scores, top, truth)
	if p < 0.8 {
		t.Errorf("top-%d precision %.2f with all pairs, want at least 0.8", top, p)
	}

	// Three states, the gap (0) ignored: one value pair, (1, 2).
	rng := rand.New(rand.NewPCG(9, 10))
	rows := make([][]int, 400)
	for r := range rows {
		rows[r] = make([]int, 5)
		for j := range rows[r] {
			rows[r][j] = rng.IntN(3)
		}
		rows[r][1] = rows[r][0] // a dependent pair, so that scores differ
		if rng.IntN(4) == 0 {
			rows[r][1] = 1 + rng.IntN(2)
		}
	}
	s3, err := NewSamples(3, rows)
	if err != nil {
		t.Fatal(err)
	}
	opts := []Option{WithTolerance(1e-11), WithWorkers(1)}
	all, err := LearnContacts(s3, append(opts, WithReferencePairs(false))...)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := LearnContacts(s3, append(opts, WithReferencePairs(true))...)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		for j := i + 1; j < 5; j++ {
			a, b := all.Raw.At(i, j), ref.Raw.At(i, j)
			if math.Abs(a-b) > 1e-5*(1+a) {
				t.Errorf("raw score (%d, %d): %v with all pairs, %v with the reference pair", i, j, a, b)
			}
		}
	}
	if all.Raw.At(0, 1) < 5*all.Raw.At(2, 3) {
		t.Errorf("the dependent pair's raw score %v is not far above an independent one's %v", all.Raw.At(0, 1), all.Raw.At(2, 3))
	}
}

// TestLearnContactsSoftmax runs the default, WithSoftmax, on the family of
// TestLearnContactsRanksTruePairs (k = 5: the softmax kernels on codes of
// three variables a group) and checks what it reports and that it ranks
// the true pairs as well: the same bound 0.8 for the same reason. It also
// checks that WithRidge overrides DefaultSoftmaxRidge and that a bad field
// ridge is an error.
func TestLearnContactsSoftmax(t *testing.T) {
	const n, count = 16, 3000
	s, truth := contactSamples(t, n, 3, count, 5, 6)
	cm, err := LearnContacts(s, WithWorkers(2)) // the softmax is the default
	if err != nil {
		t.Fatal(err)
	}
	if !cm.Softmax || cm.Ridge != DefaultSoftmaxRidge || cm.FieldRidge != DefaultSoftmaxFieldRidge || !cm.IgnoreGap || cm.Width != 0 {
		t.Errorf("ContactMap reports softmax %v, ρ %v, ρ_h %v, gap ignored %v; want the softmax defaults", cm.Softmax, cm.Ridge, cm.FieldRidge, cm.IgnoreGap)
	}
	for _, nf := range cm.Nodes {
		if !nf.Converged || nf.Regressions != 1 || !(nf.Gap <= DefaultSoftmaxTolerance) {
			t.Errorf("node %d: %+v, want one regression certified to %g", nf.Node, nf, DefaultSoftmaxTolerance)
		}
	}
	if p := topPrecision(cm.Scores, len(truth), truth); p < 0.8 {
		t.Errorf("top-%d precision %.2f, want at least 0.8", len(truth), p)
	}
	cm2, err := LearnContacts(s, WithWorkers(2), WithSoftmax(true), WithRidge(5), WithFieldRidge(2))
	if err != nil {
		t.Fatal(err)
	}
	if cm2.Ridge != 5 || cm2.FieldRidge != 2 {
		t.Errorf("ρ %v, ρ_h %v, want 5 and 2", cm2.Ridge, cm2.FieldRidge)
	}
	for _, bad := range []Option{WithFieldRidge(0), WithFieldRidge(math.NaN()), WithRidge(0)} {
		if _, err := LearnContacts(s, WithSoftmax(true), bad); err == nil {
			t.Errorf("softmax with a zero or NaN ridge: no error")
		}
	}
	// WithSoftmax(false) is the value-pair path.
	vp, err := LearnContacts(s, WithWorkers(2), WithSoftmax(false))
	if err != nil {
		t.Fatal(err)
	}
	if vp.Softmax || vp.Nodes[0].Regressions != 3 {
		t.Errorf("WithSoftmax(false): softmax %v, %d regressions a node, want the 3 value pairs", vp.Softmax, vp.Nodes[0].Regressions)
	}
}

// TestLearnContactsSoftmaxRadius checks the l2,1 constraint of the softmax
// path: a radius beyond every node's unconstrained norm gives the default's
// scores bit for bit; a radius that binds changes them, keeps every node
// certified, and ranks the true pairs of the synthetic family as the
// default's bound asks (0.8; its couplings are strong, so a mild shrink
// keeps them on top); and NaN, infinite, zero, negative radii and shrink
// factors outside (0, 1) are option errors.
func TestLearnContactsSoftmaxRadius(t *testing.T) {
	const n, count = 12, 2000
	s, truth := contactSamples(t, n, 3, count, 5, 7)
	def, err := LearnContacts(s, WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	wide, err := LearnContacts(s, WithWorkers(2), WithSoftmaxRadius(1e6))
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(def.Raw, wide.Raw) {
		t.Error("a radius no node reaches changed the scores")
	}
	for _, opt := range []Option{WithSoftmaxRadius(2), WithSoftmaxShrink(0.7)} {
		cm, err := LearnContacts(s, WithWorkers(2), opt)
		if err != nil {
			t.Fatal(err)
		}
		if cm.SoftmaxRadius == 0 && cm.SoftmaxShrink == 0 {
			t.Errorf("ContactMap reports no constraint (radius %v, shrink %v)", cm.SoftmaxRadius, cm.SoftmaxShrink)
		}
		if mat.Equal(def.Raw, cm.Raw) {
			t.Error("a binding radius left the scores as they were")
		}
		for _, nf := range cm.Nodes {
			if !nf.Converged || !(nf.Gap <= DefaultSoftmaxTolerance) {
				t.Errorf("node %d: %+v, want a fit certified to %g", nf.Node, nf, DefaultSoftmaxTolerance)
			}
		}
		if p := topPrecision(cm.Scores, len(truth), truth); p < 0.8 {
			t.Errorf("top-%d precision %.2f, want at least 0.8", len(truth), p)
		}
	}
	for _, bad := range []Option{WithSoftmaxRadius(math.NaN()), WithSoftmaxRadius(math.Inf(1)), WithSoftmaxRadius(0), WithSoftmaxRadius(-1),
		WithSoftmaxShrink(math.NaN()), WithSoftmaxShrink(0), WithSoftmaxShrink(1), WithSoftmaxShrink(-0.5)} {
		if _, err := LearnContacts(s, bad); err == nil {
			t.Error("a bad radius or shrink factor: no error")
		}
	}
}

// TestLearnContactsGapInputs checks WithGapInputs(false), the gap of the
// other columns held out of each softmax regression's inputs: on samples
// without a gap it gives the default's scores bit for bit (a state never
// seen has a zero gradient, so its couplings stay at zero either way); on
// the synthetic family, whose gap is rare but present, it changes them,
// reports itself, certifies every node and ranks the true pairs as the
// default's bound asks (0.8). The engine's tests check the restricted fit
// against a dense Newton minimiser.
func TestLearnContactsGapInputs(t *testing.T) {
	const n, count = 12, 2000
	s, truth := contactSamples(t, n, 3, count, 5, 8)
	def, err := LearnContacts(s, WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	off, err := LearnContacts(s, WithWorkers(2), WithGapInputs(false))
	if err != nil {
		t.Fatal(err)
	}
	if def.NoGapInputs || !off.NoGapInputs {
		t.Errorf("NoGapInputs %v by default and %v with WithGapInputs(false)", def.NoGapInputs, off.NoGapInputs)
	}
	if mat.Equal(def.Raw, off.Raw) {
		t.Error("holding the gap's couplings at zero left the scores as they were")
	}
	for _, nf := range off.Nodes {
		if !nf.Converged || !(nf.Gap <= DefaultSoftmaxTolerance) {
			t.Errorf("node %d: %+v, want a fit certified to %g", nf.Node, nf, DefaultSoftmaxTolerance)
		}
	}
	if p := topPrecision(off.Scores, len(truth), truth); p < 0.8 {
		t.Errorf("top-%d precision %.2f, want at least 0.8", len(truth), p)
	}
	// The same rows with every gap read as state 1: no gap left.
	rows := s.Rows()
	for _, r := range rows {
		for j, v := range r {
			if v == 0 {
				r[j] = 1
			}
		}
	}
	ng, err := NewSamples(s.k, rows)
	if err != nil {
		t.Fatal(err)
	}
	a, err := LearnContacts(ng, WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	b, err := LearnContacts(ng, WithWorkers(2), WithGapInputs(false))
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(a.Raw, b.Raw) {
		t.Error("without a gap in the samples, WithGapInputs(false) changed the scores")
	}
	// The value-pair path ignores it.
	if vp, err := LearnContacts(s, WithWorkers(2), WithSoftmax(false), WithGapInputs(false)); err != nil || vp.NoGapInputs {
		t.Errorf("value pairs: NoGapInputs %v, %v", vp != nil && vp.NoGapInputs, err)
	}
}
