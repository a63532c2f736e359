package pairwise

import (
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/mrfkit/pairwise/internal/selection"
)

// Samples holds N observations z^1..z^N of n variables with states 0..k-1,
// optionally weighted. Storage is compact: one byte a value when k <= 256, two
// bytes otherwise, row-major; the CSV readers store large binary data
// (k = 2, no missing value, at least 2^25 values) as bits, one bit a value,
// which the learners' Ising path reads directly. A weight per stored row lets one row stand for
// many identical observations (a histogram count) or for an exact
// probability (tests weight every state of a small model by P(z)); the
// learners minimise the weighted empirical loss Σ_m c_m ℓ(z^m) / Σ_m c_m.
//
// Samples are immutable once built and safe for concurrent reads.
type Samples struct {
	n, k int
	rows int
	b8   []uint8  // rows*n when k <= 256
	b16  []uint16 // rows*n when k > 256
	// bits holds the rows of large binary data instead of b8 (b8 and b16
	// nil): 64-row blocks of n words, word x·n + j bit r the state of
	// variable j in row 64x + r (engine.Rows.Bits); lazy unpacks them
	// into bytes for the readers that need bytes (states8).
	bits    []uint64
	lazy    *lazyBytes
	weights []float64 // nil for unweighted samples
	total   float64   // Σ weights, or rows
	names   []string  // column names from a CSV header, or nil
	merged  bool      // no two rows are equal: made by Compact or a merging reader (compact.go)
	// incomplete reports a missing value somewhere; a missing value is
	// stored as the state k, one past the alphabet (missing.go).
	incomplete bool
	// notes are the suspicious states a CSV reader found, with their
	// places in the file; nil otherwise (StateNotes computes them).
	notes    []StateNote
	hasNotes bool // notes were computed by the reader (or the alphabet was stated)
}

// NewSamples returns unweighted samples over the alphabet 0..k-1 from rows,
// one observation a row. It returns an error naming the row and column for a
// ragged row or a value outside [0, k), and an error for k < 2, no rows or
// zero-length rows. rows is copied.
func NewSamples(k int, rows [][]int) (*Samples, error) {
	return newSamples("NewSamples", k, rows, nil)
}

// NewSpinSamples returns Ising samples (k = 2) from rows of spins ±1; spin -1
// is stored as state 0 and +1 as state 1, as NewIsing does. It returns an error
// naming the row and column of any value other than -1 or +1.
func NewSpinSamples(rows [][]int) (*Samples, error) {
	states := make([][]int, len(rows))
	for m, row := range rows {
		states[m] = make([]int, len(row))
		for i, v := range row {
			switch v {
			case -1:
				states[m][i] = 0
			case 1:
				states[m][i] = 1
			default:
				return nil, fmt.Errorf("pairwise: NewSpinSamples: row %d, column %d: value %d, want -1 or +1", m, i, v)
			}
		}
	}
	return newSamples("NewSpinSamples", 2, states, nil)
}

// NewWeightedSamples returns samples whose row m carries weight weights[m]:
// a histogram count, or an exact probability. Weights must be finite and
// non-negative with a positive sum; rows of weight zero are kept but do not
// count. It returns an error naming the row of a bad weight, and the errors of
// NewSamples.
func NewWeightedSamples(k int, rows [][]int, weights []float64) (*Samples, error) {
	if len(weights) != len(rows) {
		return nil, fmt.Errorf("pairwise: NewWeightedSamples: %d weights for %d rows", len(weights), len(rows))
	}
	return newSamples("NewWeightedSamples", k, rows, weights)
}

// NewSamplesBytes returns samples over the alphabet 0..k-1 from z, which
// holds N = len(z)/n observations z^1..z^N of n variables one after another
// (row-major, one byte a state: z[m*n+i] is the state of variable i in row
// m), the form in which a reader of large data such as a sequence alignment
// already holds them, at one byte a value where the rows of NewSamples take
// eight. weights, one per row, make weighted samples as NewWeightedSamples
// does; nil weights make unweighted samples. z and weights are copied and
// not modified.
//
// It returns an *AlphabetError for k outside [2, MaxAlphabet], an error
// matching ErrNoSamples for an empty z, an error for n < 1 or a length of z
// that is not a multiple of n, an error naming the row and column of a
// state ≥ k, and the errors of NewWeightedSamples for bad weights.
func NewSamplesBytes(k, n int, z []byte, weights []float64) (*Samples, error) {
	const fn = "NewSamplesBytes"
	if k < 2 || k > MaxAlphabet {
		return nil, &AlphabetError{Func: fn, K: k, Min: 2, Max: MaxAlphabet}
	}
	if n < 1 {
		return nil, fmt.Errorf("pairwise: %s: n = %d variables, want at least 1", fn, n)
	}
	if len(z) == 0 {
		return nil, errorOf(ErrNoSamples, "pairwise: %s: no rows", fn)
	}
	if len(z)%n != 0 {
		return nil, fmt.Errorf("pairwise: %s: %d states are not rows of n = %d", fn, len(z), n)
	}
	rows := len(z) / n
	if weights != nil && len(weights) != rows {
		return nil, fmt.Errorf("pairwise: %s: %d weights for %d rows", fn, len(weights), rows)
	}
	if k <= 255 {
		for x, v := range z {
			if int(v) >= k {
				return nil, fmt.Errorf("pairwise: %s: row %d, column %d: value %d outside [0, %d)", fn, x/n, x%n, v, k)
			}
		}
	}
	s := newSamplesBuffer(n, k, rows)
	if s.b8 != nil {
		copy(s.b8, z)
	} else {
		for x, v := range z {
			s.b16[x] = uint16(v)
		}
	}
	if weights != nil {
		if err := s.setWeights(fn, weights); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func newSamples(fn string, k int, rows [][]int, weights []float64) (*Samples, error) {
	if k < 2 || k > MaxAlphabet {
		return nil, &AlphabetError{Func: fn, K: k, Min: 2, Max: MaxAlphabet}
	}
	if len(rows) == 0 {
		return nil, errorOf(ErrNoSamples, "pairwise: %s: no rows", fn)
	}
	n := len(rows[0])
	if n == 0 {
		return nil, fmt.Errorf("pairwise: %s: row 0 is empty, want at least one variable", fn)
	}
	s := newSamplesBuffer(n, k, len(rows))
	for m, row := range rows {
		if len(row) != n {
			return nil, fmt.Errorf("pairwise: %s: row %d has %d values, want %d (the length of row 0)", fn, m, len(row), n)
		}
		for i, v := range row {
			if v < 0 || v >= k {
				return nil, fmt.Errorf("pairwise: %s: row %d, column %d: value %d outside [0, %d)", fn, m, i, v, k)
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

// bitMinValues is the least number of values (n·rows) from which the CSV
// readers keep binary data (k = 2, no missing value) as bits rather than
// one byte a value. The learners' fast Ising path reads the bits directly
// and, when it screens its regressions (n ≥ engine.DefaultScreen), never
// holds the codes of all rows: n·N/8 bytes of data instead of about
// n·N·(1 + 1/3) (the bytes, and a uint16 code for every 6 to 8 spins).
// Below it the bytes are kept: holding the codes costs little there, and
// any other reader of the samples (the edge test, Row, WriteCSV, ...)
// reads bytes, which bit samples unpack once on first use (states8),
// holding both. 2^25 values are 32 MB as bytes: n = 5000 variables from
// N = 6711 rows, n = 1000 from N = 33,555.
var bitMinValues = 1 << 25

// lazyBytes holds the bytes unpacked from bit samples, once, and the
// bits transposed into rows (rowBits), once.
type lazyBytes struct {
	once sync.Once
	b8   []uint8
	rows sync.Once
	rb   []uint64
}

// states8 returns the states one byte a value, row-major: s.b8, or for bit
// samples the bits unpacked on the first call (kept, and shared by copies
// of s); nil for two-byte samples.
func (s *Samples) states8() []uint8 {
	if s.b8 != nil || s.bits == nil {
		return s.b8
	}
	s.lazy.once.Do(func() {
		z := make([]uint8, s.rows*s.n)
		for m := 0; m < s.rows; m++ {
			s.bitRow(z[m*s.n:(m+1)*s.n], m)
		}
		s.lazy.b8 = z
	})
	return s.lazy.b8
}

// stages returns the samples as the stages below the learners read them
// (internal/selection), sharing s's storage; bit samples are unpacked into
// bytes only if a stage reads the states whole (Data.States), and the
// stages that can read bits do (Data.Bits, Data.RowBits: issue 33).
func (s *Samples) stages() *selection.Data {
	d := &selection.Data{N: s.n, K: s.k, Count: s.rows, Weights: s.weights, Total: s.total, Incomplete: s.incomplete, Bytes: s.b8, Unpack: s.states8}
	if s.b8 == nil && s.bits != nil {
		d.Bits, d.RowBits = s.bits, s.rowBits
	}
	return d
}

// rowBits returns bit samples as row-major bits, made on the first call
// (kept, and shared by copies of s): row m at words [m·W, (m+1)·W), W =
// ⌈n/64⌉, the state of variable j at bit j%64 of word m·W + j/64 (0
// past n). They take the room of the bits, n·N/8 bytes, where the bytes
// (states8) take eight times it; the sparse edge test's passes read rows
// so (selection.Data.RowBits).
func (s *Samples) rowBits() []uint64 {
	s.lazy.rows.Do(func() {
		n, w := s.n, (s.n+63)/64
		rb := make([]uint64, s.rows*w)
		var blk [64]uint64
		for x := 0; 64*x < s.rows; x++ {
			src := s.bits[x*n : (x+1)*n]
			nr := min(64, s.rows-64*x)
			for c := 0; c < w; c++ {
				clear(blk[:])
				copy(blk[:], src[64*c:min(64*c+64, n)])
				transpose64(&blk)
				for r := 0; r < nr; r++ {
					rb[(64*x+r)*w+c] = blk[r]
				}
			}
		}
		s.lazy.rb = rb
	})
	return s.lazy.rb
}

// transpose64 transposes the 64×64 bit matrix whose row i is a[i] (bit j
// its column j): bit j of a[i] moves to bit i of a[j], by swapping ever
// smaller blocks (Hacker's Delight, section 7-3).
func transpose64(a *[64]uint64) {
	m := uint64(0x00000000ffffffff)
	for j := 32; j != 0; j, m = j>>1, m^(m<<(j>>1)) {
		for k := 0; k < 64; k = (k + j + 1) &^ j {
			t := (a[k]>>j ^ a[k+j]) & m
			a[k] ^= t << j
			a[k+j] ^= t
		}
	}
}

// bitRow sets dst (length n) to row m of bit samples, one byte a value.
func (s *Samples) bitRow(dst []uint8, m int) {
	blk, sh := s.bits[(m/64)*s.n:(m/64+1)*s.n], uint(m%64)
	for j, w := range blk {
		dst[j] = uint8(w >> sh & 1)
	}
}

// appendRow8 appends row m's states to dst, one byte a value (k ≤ 256).
func (s *Samples) appendRow8(dst []uint8, m int) []uint8 {
	if s.bits != nil {
		l := len(dst)
		dst = append(dst, make([]uint8, s.n)...)
		s.bitRow(dst[l:], m)
		return dst
	}
	return append(dst, s.b8[m*s.n:(m+1)*s.n]...)
}

// newSamplesBuffer allocates zeroed, unweighted storage for rows observations.
func newSamplesBuffer(n, k, rows int) *Samples {
	s := &Samples{n: n, k: k, rows: rows, total: float64(rows)}
	if k <= 256 {
		s.b8 = make([]uint8, rows*n)
	} else {
		s.b16 = make([]uint16, rows*n)
	}
	return s
}

func (s *Samples) set(m, i, v int) {
	if s.b8 != nil {
		s.b8[m*s.n+i] = uint8(v)
	} else {
		s.b16[m*s.n+i] = uint16(v)
	}
}

// setWeights validates and takes a copy of weights (one per row).
func (s *Samples) setWeights(fn string, weights []float64) error {
	total := 0.0
	for m, c := range weights {
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return fmt.Errorf("pairwise: %s: row %d: weight %v, want a finite number", fn, m, c)
		}
		if c < 0 {
			return fmt.Errorf("pairwise: %s: row %d: weight %v is negative", fn, m, c)
		}
		total += c
	}
	if !(total > 0) || math.IsInf(total, 0) {
		return fmt.Errorf("pairwise: %s: the weights sum to %v, want a positive finite total", fn, total)
	}
	s.weights = append([]float64(nil), weights...)
	s.total = total
	return nil
}

// Len returns the number of stored rows (distinct observations for
// histogram data; N for unweighted samples).
func (s *Samples) Len() int { return s.rows }

// Vars returns n, the number of variables.
func (s *Samples) Vars() int { return s.n }

// Alphabet returns k, the alphabet size.
func (s *Samples) Alphabet() int { return s.k }

// Names returns a copy of the variable names, one for each of the n
// variables, as read from the header line of a CSV file by ReadCSV or
// ReadHistogramCSV; it returns nil when the samples have no names.
func (s *Samples) Names() []string {
	if s.names == nil {
		return nil
	}
	return append([]string(nil), s.names...)
}

// Weighted reports whether the samples carry weights.
func (s *Samples) Weighted() bool { return s.weights != nil }

// TotalWeight returns Σ_m Weight(m): N for unweighted samples, the total count
// for a histogram, 1 for exact probabilities.
func (s *Samples) TotalWeight() float64 { return s.total }

// Weight returns the weight of row m (1 for unweighted samples). It panics if
// m is out of range.
func (s *Samples) Weight(m int) float64 {
	if m < 0 || m >= s.rows {
		panic(fmt.Sprintf("pairwise: Weight: row %d out of range [0, %d)", m, s.rows))
	}
	if s.weights == nil {
		return 1
	}
	return s.weights[m]
}

// At returns the state of variable i in row m, or Missing (-1) when the
// value is missing. It panics if m or i is out of range.
func (s *Samples) At(m, i int) int {
	if m < 0 || m >= s.rows || i < 0 || i >= s.n {
		panic(fmt.Sprintf("pairwise: At(%d, %d) out of range [0, %d)×[0, %d)", m, i, s.rows, s.n))
	}
	v := 0
	if s.bits != nil {
		v = int(s.bits[(m/64)*s.n+i] >> (m % 64) & 1)
	} else if s.b8 != nil {
		v = int(s.b8[m*s.n+i])
	} else {
		v = int(s.b16[m*s.n+i])
	}
	if v == s.k {
		return Missing
	}
	return v
}

// Row writes row m into dst (grown as needed) and returns it, with Missing
// (-1) for a missing value. It panics if m is out of range.
func (s *Samples) Row(dst []int, m int) []int {
	if m < 0 || m >= s.rows {
		panic(fmt.Sprintf("pairwise: Row(%d) out of range [0, %d)", m, s.rows))
	}
	if cap(dst) < s.n {
		dst = make([]int, s.n)
	}
	dst = dst[:s.n]
	off := m * s.n
	if s.bits != nil {
		blk, sh := s.bits[(m/64)*s.n:(m/64+1)*s.n], uint(m%64)
		for i, w := range blk {
			dst[i] = int(w >> sh & 1)
		}
	} else if s.b8 != nil {
		for i, v := range s.b8[off : off+s.n] {
			dst[i] = int(v)
		}
	} else {
		for i, v := range s.b16[off : off+s.n] {
			dst[i] = int(v)
		}
	}
	if s.incomplete {
		for i, v := range dst {
			if v == s.k {
				dst[i] = Missing
			}
		}
	}
	return dst
}

// Rows returns a copy of all rows as [][]int, with Missing (-1) for a
// missing value.
func (s *Samples) Rows() [][]int {
	out := make([][]int, s.rows)
	for m := range out {
		out[m] = s.Row(nil, m)
	}
	return out
}

// Weights returns a copy of the row weights (all 1 for unweighted samples).
func (s *Samples) Weights() []float64 {
	out := make([]float64, s.rows)
	for m := range out {
		out[m] = s.Weight(m)
	}
	return out
}

// WithNames returns samples with the same rows and weights as s, sharing
// its storage (Samples are immutable), whose variables are called names:
// WriteCSV writes them as a header line and Names returns them. A nil names
// removes the names. It returns an error unless there is one name a
// variable and every name can stand in a CSV header that ReadCSV reads back
// (non-empty, not an integer, without commas, double quotes, line breaks or
// surrounding white space), and names are distinct.
func (s *Samples) WithNames(names []string) (*Samples, error) {
	c := *s
	if names == nil {
		c.names = nil
		return &c, nil
	}
	if err := checkNames("WithNames", names, s.n); err != nil {
		return nil, err
	}
	c.names = append([]string(nil), names...)
	return &c, nil
}

// StateNotes returns the states of the alphabet that look like mistakes:
//
//   - a state that never occurs in any variable (a Likert scale written
//     1..6 reads as k = 7 with state 0 empty, which changes the learned
//     graph: its value pairs have no rows and the constraint grows with
//     √k); and
//   - a state with fewer than five values in all, in data where a state
//     has on average at least twenty times more (a "2" typed in a file of
//     0s and 1s, which turns k = 2 into k = 3 and the Ising path into the
//     pairwise one).
//
// Nothing is changed: the notes say what to look at. When the alphabet is
// right, ignore them; when a state is empty because of how the file codes
// its values, read it with CSVOptions.States (or recode it); when a value
// is a typo, correct it, or mark it missing. When the alphabet was stated
// to the reader (CSVOptions.Alphabet or States), there is nothing to
// report and StateNotes returns nil. For samples read from a file the
// places are the file's; otherwise they are rows and variables. Missing
// values do not count. The notes are in order of state.
func (s *Samples) StateNotes() []StateNote {
	if s.hasNotes {
		return append([]StateNote(nil), s.notes...)
	}
	counts := make([]int, s.k)
	first := make([][]Place, s.k)
	cells := 0
	for m := 0; m < s.rows; m++ {
		if s.weights != nil && s.weights[m] == 0 {
			continue
		}
		for i := 0; i < s.n; i++ {
			v := s.At(m, i)
			if v == Missing {
				continue
			}
			counts[v]++
			cells++
			if len(first[v]) < rareCount-1 {
				first[v] = append(first[v], Place{Line: m + 1, Column: i + 1})
			}
		}
	}
	return notesFrom(counts, cells, func(v int) (string, []Place) {
		return strconv.Itoa(v), first[v]
	})
}

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
