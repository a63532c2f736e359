package pairwise

import (
	"fmt"
)

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
