package pairwise

import (
	"context"
	"fmt"
)

// Missing is the value that At, Row and Rows return for a missing value,
// and that NewIncompleteSamples takes in a row.
//
// A survey has unanswered questions, an alignment has gaps that are not a
// state, a log has fields that were not recorded. Samples can hold such
// missing values: the CSV readers read the markers "NA" and the empty field
// as missing (CSVOptions.Missing changes the markers), NewIncompleteSamples
// takes Missing (-1) in a row, and At and Row return Missing for them.
// Samples store a missing value as the state k, one past the alphabet, so
// that complete samples cost nothing more, and a missing value never reads
// as a real state.
//
// The learners (Learn, LearnIsing, LearnPairwise) take incomplete samples
// and handle them by a MissingRule (WithMissing):
//
//   - AvailableCase, the default for binary data (k = 2) in Learn and
//     LearnIsing: the Ising path (Algorithm 1) with each node's regression
//     on the rows that observe that node, a missing neighbour entering as
//     the spin 0, the value that says nothing on the ±1 scale. The edge
//     test uses the same rows: the Wald statistics those of each node's
//     fit; the refit those that observe the node, a missing screened
//     neighbour j entering as its expected value under node j's own fit,
//     tanh(θ̂_j + Σ_k Â_jk x_k) without node i, and the neighbours whose
//     refit statistic falls below the screen dropped backwards; the EBIC
//     graph's comparison the rows that observe the node and both graphs'
//     neighbours, its global test those that observe both variables of a
//     pair. A node keeps about as many rows as it has observed values.
//     The price: where a neighbour j of i is missing, j's own neighbours
//     tell about z_i, a dependence that the first stage's 0 does not
//     remove; with a large missing share and large N that can put pairs
//     two steps apart through the screen, and the refit's expected values
//     and backward drops remove most but not all of them. docs/missing
//     compares it with the complete data and the other rules.
//   - MissingAsState, the default for k > 2 and in LearnPairwise: a
//     missing value is a state of its own, k, while the learner runs.
//     Every node's regressions keep every row: a predictor's missing value
//     enters as its own indicator, so the rows where some other variable
//     is missing still inform node i. The learner is Algorithm 2 on the
//     alphabet k+1 (for k = 2 too, so binary data with missing values take
//     the pairwise path), and the result is the restriction to the k real
//     states: the couplings W_ij(a, b) and the fields θ_i(a) for a, b < k,
//     centred again. It keeps every row in every regression; listwise
//     deletion keeps only the complete rows, (1-p)^n of them for a share p
//     of values missing at random (0.9^49 = 0.6% of the rows of a 7×7 grid
//     at p = 0.1). The price: the pairs of values (a, missing) are
//     regressions too, the edge test looks at the couplings of the missing
//     state as well, and when whether a value is missing depends on
//     another variable (data not missing at random) that dependence can
//     show as an edge.
//   - ListwiseDeletion: the rows with a missing value are dropped
//     (DropIncomplete) and the complete rows are learned as usual.
//
// See docs/missing for the study that compares the rules. Result.Missing
// reports the rule, the number of missing values and the rows dropped.
// The bootstrap and the group comparison of package psych do not take
// incomplete samples: drop the incomplete rows first, or resample the
// complete ones. LearnNodes and LearnShard take them with AvailableCase
// only.
const Missing = -1

// Incomplete reports whether s holds a missing value.
func (s *Samples) Incomplete() bool { return s.incomplete }

// MissingCount returns the number of missing values of s, each counted with
// the weight of its row (for unweighted samples, the number of missing
// values); 0 for complete samples.
func (s *Samples) MissingCount() float64 {
	if !s.incomplete {
		return 0
	}
	total := 0.0
	for m := 0; m < s.rows; m++ {
		if c := s.missingIn(m); c > 0 {
			total += float64(c) * s.Weight(m)
		}
	}
	return total
}

// missingIn returns the number of missing values of stored row m.
func (s *Samples) missingIn(m int) int {
	c, off := 0, m*s.n
	if s.bits != nil {
		return 0 // bit samples are complete
	}
	if s.b8 != nil {
		for _, v := range s.b8[off : off+s.n] {
			if int(v) == s.k {
				c++
			}
		}
		return c
	}
	for _, v := range s.b16[off : off+s.n] {
		if int(v) == s.k {
			c++
		}
	}
	return c
}

// NewIncompleteSamples returns samples over the alphabet 0..k-1 from rows in
// which Missing (-1) marks a missing value; weights, when not nil, gives a
// weight a row as NewWeightedSamples does. It returns the errors of
// NewWeightedSamples (a value outside [0, k) other than Missing among
// them). rows and weights are copied. Samples without any missing value are
// the same as those of NewSamples or NewWeightedSamples.
func NewIncompleteSamples(k int, rows [][]int, weights []float64) (*Samples, error) {
	const fn = "NewIncompleteSamples"
	if k < 2 || k > MaxAlphabet {
		return nil, &AlphabetError{Func: fn, K: k, Min: 2, Max: MaxAlphabet}
	}
	if weights != nil && len(weights) != len(rows) {
		return nil, fmt.Errorf("pairwise: %s: %d weights for %d rows", fn, len(weights), len(rows))
	}
	if len(rows) == 0 {
		return nil, errorOf(ErrNoSamples, "pairwise: %s: no rows", fn)
	}
	n := len(rows[0])
	if n == 0 {
		return nil, fmt.Errorf("pairwise: %s: row 0 is empty, want at least one variable", fn)
	}
	incomplete := false
	for m, row := range rows {
		if len(row) != n {
			return nil, fmt.Errorf("pairwise: %s: row %d has %d values, want %d (the length of row 0)", fn, m, len(row), n)
		}
		for i, v := range row {
			switch {
			case v == Missing && k == MaxAlphabet:
				return nil, fmt.Errorf("pairwise: %s: row %d, column %d: a missing value, and k = %d states leave no room for one", fn, m, i, k)
			case v == Missing:
				incomplete = true
			case v < 0 || v >= k:
				return nil, fmt.Errorf("pairwise: %s: row %d, column %d: value %d outside [0, %d), and not Missing (-1)", fn, m, i, v, k)
			}
		}
	}
	// The stored missing value k needs two bytes when k = 256.
	s := newSamplesBuffer(n, k+boolInt(incomplete), len(rows))
	s.k, s.incomplete = k, incomplete
	for m, row := range rows {
		for i, v := range row {
			if v == Missing {
				v = k
			}
			s.set(m, i, v)
		}
	}
	if weights != nil {
		if err := s.setWeights(fn, weights); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// DropIncomplete returns the rows of s without a missing value (listwise
// deletion), with their weights and s's names, and the number of stored
// rows it dropped. Complete samples are returned as they are, with 0. It
// returns an error matching ErrNoSamples when every row of positive weight
// has a missing value.
func (s *Samples) DropIncomplete() (*Samples, int, error) {
	if !s.incomplete {
		return s, 0, nil
	}
	c := &Samples{n: s.n, k: s.k, names: s.names, merged: s.merged}
	var keep []int
	for m := 0; m < s.rows; m++ {
		if s.missingIn(m) == 0 {
			keep = append(keep, m)
		}
	}
	dropped := s.rows - len(keep)
	c.rows = len(keep)
	if s.weights != nil {
		c.weights = make([]float64, 0, len(keep))
	}
	for _, m := range keep {
		off := m * s.n
		if s.b16 == nil {
			c.b8 = s.appendRow8(c.b8, m)
		} else {
			c.b16 = append(c.b16, s.b16[off:off+s.n]...)
		}
		if s.weights != nil {
			c.weights = append(c.weights, s.weights[m])
			c.total += s.weights[m]
		}
	}
	if s.weights == nil {
		c.total = float64(c.rows)
	}
	if c.rows == 0 || c.total <= 0 {
		return nil, dropped, errorOf(ErrNoSamples, "pairwise: DropIncomplete: every one of the %d rows has a missing value", s.rows)
	}
	if c.b16 != nil && c.k <= 256 {
		// Only the missing state k = 256 needed two bytes.
		c.b8 = make([]uint8, len(c.b16))
		for x, v := range c.b16 {
			c.b8[x] = uint8(v)
		}
		c.b16 = nil
	}
	return c, dropped, nil
}

// withMissingState returns s with its missing values read as the state k of
// the alphabet 0..k: complete samples, sharing s's storage.
func (s *Samples) withMissingState() *Samples {
	c := *s
	c.k, c.incomplete = s.k+1, false
	c.notes, c.hasNotes = nil, false
	if c.b16 != nil && c.k <= 256 {
		c.b8 = make([]uint8, len(c.b16))
		for x, v := range c.b16 {
			c.b8[x] = uint8(v)
		}
		c.b16 = nil
	}
	return &c
}

// checkComplete returns an error for incomplete samples, for the functions
// that do not take them.
func checkComplete(fn string, s *Samples) error {
	if s != nil && s.incomplete {
		return fmt.Errorf("pairwise: %s: the samples have %v missing values; drop the incomplete rows first (DropIncomplete)", fn, s.MissingCount())
	}
	return nil
}

// MissingRule is how the learners handle missing values (see Missing).
type MissingRule int

const (
	// MissingAsState learns with a missing value as a state of its own
	// and reports the couplings of the real states. It is the default
	// for k > 2, and in LearnPairwise.
	MissingAsState MissingRule = iota
	// ListwiseDeletion drops the rows with a missing value.
	ListwiseDeletion
	// AvailableCase learns binary data (k = 2) on the Ising path with
	// each node's regression on the rows where that node is observed, a
	// missing neighbour entering as the spin 0. It is the default for
	// k = 2 in Learn and LearnIsing; LearnPairwise and k > 2 refuse it
	// with an error.
	AvailableCase
)

// String returns the rule's name.
func (r MissingRule) String() string {
	switch r {
	case MissingAsState:
		return "missing as a state"
	case ListwiseDeletion:
		return "listwise deletion"
	case AvailableCase:
		return "available cases"
	}
	return fmt.Sprintf("MissingRule(%d)", int(r))
}

// WithMissing sets how the learners handle missing values in the samples
// (see Missing); it has no effect on complete samples. Without it, Learn
// and LearnIsing use AvailableCase on binary data (k = 2), and
// MissingAsState otherwise (k > 2, or LearnPairwise). Repeating it keeps
// the last rule; a rule that is not one of the three is an OptionError.
func WithMissing(rule MissingRule) Option {
	return optionFunc(func(c *config) {
		if rule != MissingAsState && rule != ListwiseDeletion && rule != AvailableCase {
			c.optionError("WithMissing", rule, "want MissingAsState, ListwiseDeletion or AvailableCase")
			return
		}
		c.missing, c.missingSet = rule, true
	})
}

// MissingReport says how a learner handled the missing values of its
// samples (Result.Missing).
type MissingReport struct {
	Rule MissingRule
	// Values is the number of missing values, each counted with the
	// weight of its row.
	Values float64
	// Rows is the number of rows with a missing value, and Dropped
	// those the rule dropped (all of them for ListwiseDeletion, none for
	// MissingAsState and AvailableCase), each counted with its weight (a
	// histogram's count).
	Rows, Dropped float64
}

// learnIncomplete is the learners on incomplete samples: fn is the learner
// called (its name for errors), learn the one that fits complete samples.
func learnIncomplete(ctx context.Context, fn string, s *Samples, opts []Option) (*Result, error) {
	cfg, err := prepare(fn, s, opts)
	if err != nil {
		return nil, err
	}
	if fn == "LearnIsing" && s.k != 2 {
		return nil, &AlphabetError{Func: fn, K: s.k, Min: 2, Max: 2}
	}
	rule := cfg.missingRule(fn == "LearnPairwise", s.k)
	rep := missingReport(s, rule)
	if rule == AvailableCase {
		switch {
		case s.k != 2:
			return nil, fmt.Errorf("pairwise: %s: WithMissing(AvailableCase) takes binary data (k = 2), not k = %d: use MissingAsState or ListwiseDeletion", fn, s.k)
		case fn == "LearnPairwise":
			return nil, fmt.Errorf("pairwise: %s: WithMissing(AvailableCase) runs the Ising path (Algorithm 1): use Learn or LearnIsing, or MissingAsState", fn)
		}
		f, err := fitIsing(ctx, fn, s, opts, nil)
		if err != nil {
			return nil, err
		}
		res, err := f.r.assemble(ctx, 2, f.est, f.fields, f.nodes, f.radius)
		if err != nil {
			return nil, err
		}
		res.Missing = rep
		return res, nil
	}
	if rule == ListwiseDeletion {
		c, _, err := s.DropIncomplete()
		if err != nil {
			return nil, fmt.Errorf("pairwise: %s: with ListwiseDeletion: %w", fn, err)
		}
		rep.Dropped = rep.Rows
		var res *Result
		switch fn {
		case "LearnIsing":
			res, err = LearnIsingContext(ctx, c, opts...)
		case "LearnPairwise":
			res, err = LearnPairwiseContext(ctx, c, opts...)
		default:
			res, err = LearnContext(ctx, c, opts...)
		}
		if err != nil {
			return nil, err
		}
		res.Missing = rep
		return res, nil
	}
	if s.k+1 > MaxLearnAlphabet {
		return nil, fmt.Errorf("pairwise: %s: k = %d states and a missing state need %d states, more than the learners' %d: use WithMissing(ListwiseDeletion)", fn, s.k, s.k+1, MaxLearnAlphabet)
	}
	aug, err := LearnPairwiseContext(ctx, s.withMissingState(), opts...)
	if err != nil {
		return nil, err
	}
	res := restrictStates(aug, s.k)
	res.Missing = rep
	return res, nil
}

// missingReport returns the report of rule on s, before any row is
// dropped.
func missingReport(s *Samples, rule MissingRule) *MissingReport {
	rep := &MissingReport{Rule: rule, Values: s.MissingCount()}
	for m := 0; m < s.rows; m++ {
		if s.missingIn(m) > 0 {
			rep.Rows += s.Weight(m)
		}
	}
	return rep
}

// missingRule returns the rule of WithMissing, or when it was not given
// the default for incomplete samples with k states: AvailableCase for
// binary data, unless the learner runs Algorithm 2 (algorithm2:
// LearnPairwise), and MissingAsState for k > 2 (docs/missing has the
// measurements).
func (c *config) missingRule(algorithm2 bool, k int) MissingRule {
	switch {
	case c.missingSet:
		return c.missing
	case k == 2 && !algorithm2:
		return AvailableCase
	}
	return MissingAsState
}

// restrictStates returns the result aug of a fit on the alphabet 0..k
// (state k the missing state) restricted to the states 0..k-1: every
// estimate and coupling keeps its k×k block, centred again, and every
// field its first k entries, centred. The edges are aug's; their weights
// are those of the restricted couplings. Tuning, when set, is aug's and
// describes the test on the k+1 states.
func restrictStates(aug *Result, k int) *Result {
	n, ka := aug.n, aug.k
	kk := k * k
	res := *aug
	res.n, res.k = n, k
	res.est = make([]*nodeEst, n)
	restrict := func(src []float64) []float64 {
		dst := make([]float64, kk)
		for a := 0; a < k; a++ {
			copy(dst[a*k:(a+1)*k], src[a*ka:a*ka+k])
		}
		centreBlock(dst, k)
		return dst
	}
	for i, ae := range aug.est {
		if ae == nil {
			continue
		}
		// Every unlisted block is aug's fill, so restricting the fill
		// once gives each of them.
		e := newNodeEst(k, restrict(ae.fill))
		for _, j := range ae.at {
			e.push(int(j), restrict(ae.block(int(j))))
		}
		res.est[i] = e
	}
	m, _ := NewModel(n, k)
	m.names = aug.Model.names
	for i := 0; i < n; i++ {
		f := aug.Model.theta[i*ka : i*ka+k]
		mean := 0.0
		for _, v := range f {
			mean += v
		}
		mean /= float64(k)
		for a, v := range f {
			m.theta[i*k+a] = v - mean
		}
	}
	res.Edges = make([]Edge, 0, len(aug.Edges))
	for _, e := range aug.Edges {
		src := aug.Model.coupling(e.I, e.J)
		w := make([]float64, kk)
		for a := 0; a < k; a++ {
			copy(w[a*k:(a+1)*k], src[a*ka:a*ka+k])
		}
		centreBlock(w, k)
		weight := maxAbs(w)
		if !(weight > 0) {
			continue
		}
		m.setCoupling(e.I, e.J, w)
		res.Edges = append(res.Edges, Edge{I: e.I, J: e.J, Weight: weight})
	}
	res.Model = m
	return &res
}

// centreBlock centres the rows and columns of the k×k block w (the gauge
// of a coupling whose other states were removed); for k = 2 it gives the
// Ising form [[A, -A], [-A, A]].
func centreBlock(w []float64, k int) {
	if k == 2 {
		// The centred 2×2 block is exactly [[A, -A], [-A, A]], with A
		// the mean of the entries signed by the Ising form.
		a := (w[0] - w[1] - w[2] + w[3]) / 4
		w[0], w[1], w[2], w[3] = a, -a, -a, a
		return
	}
	row, col := make([]float64, k), make([]float64, k)
	g := blockSums(w, k, row, col) // contacts.go
	fk := float64(k)
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			w[a*k+b] += g/(fk*fk) - row[a]/fk - col[b]/fk
		}
	}
}

// MaxLearnAlphabet is the largest alphabet size k the learners take
// (Learn, LearnPairwise), and the largest that the CSV readers read unless
// the alphabet is stated (CSVOptions.Alphabet): a value above 255 in a file
// is an error at its line and column rather than a fit that fails later.
// Samples and Model themselves hold up to MaxAlphabet states.
const MaxLearnAlphabet = 256
