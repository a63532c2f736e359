package pairwise

import (
	"fmt"
	"math"
	"sync"
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

// lazyBytes holds the bytes unpacked from bit samples, once.
type lazyBytes struct {
	once sync.Once
	b8   []uint8
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
