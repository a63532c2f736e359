package pairwise

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
)

// ReadCSV reads unweighted samples from r, one sample a line of n
// comma-separated integers. The values are either
//
//   - states: integers 0..255, with alphabet size k = largest value + 1,
//     but at least 2; or
//   - spins: every value is -1 or +1 and -1 appears; then k = 2, spin -1 is
//     state 0 and +1 is state 1, as in NewSpinSamples and NewIsing;
//
// or a missing value: the field "NA" or an empty field (see Missing for
// how the learners handle them).
//
// Data whose values are all 1 read the same both ways (state 1, k = 2).
// The alphabet size is not stored in the file, so states above the largest
// one seen are lost: WriteCSV then ReadCSV gives back the same rows, but with
// k = largest state + 1. Reading the alphabet from the data is a guess:
// one mistyped value ("2" in a file of 0s and 1s) changes k, and a scale
// written 1..6 has an empty state 0. StateNotes reports both; ReadCSVWith
// takes the alphabet (CSVOptions.Alphabet, or the list of states
// CSVOptions.States) and then refuses any other value at its line and
// column, and takes other missing-value markers (CSVOptions.Missing).
//
// The format is deliberately plain (ReadHistogramCSV shares it):
//
//   - Spaces and tabs around a field are ignored. Lines end in "\n" or
//     "\r\n"; the last line may lack its end. A UTF-8 byte order mark at the
//     start of the input is skipped.
//   - The first line is a header of column names when any of its fields is
//     not a value (not an integer or a missing-value marker, or for the
//     count column of a histogram not a number); a line of data with an NA
//     is data. Every field of a header must then be a name: non-empty and
//     not a value. A name may be wrapped in double quotes, which are removed
//     with the spaces around them; names cannot contain commas or double
//     quotes (there is no escaping). Variable names must be distinct. Names
//     returns them.
//   - Every line has as many fields as the first one.
//   - Blank lines (only spaces) are allowed at the end of the input only; a
//     blank line followed by more data is an error, since it usually means
//     that files were concatenated or damaged.
//
// ReadCSV returns a *ParseError naming the line (1-based, the header
// counts), the column (1-based) and quoting the field for a field that is
// not an integer (or a marker), a negative value other than -1, a value
// above MaxLearnAlphabet-1 = 255, a state 255 and a missing value in one
// file (k = 256 leaves no room for the missing state), a mix of -1 with values other than ±1 (naming where each
// was seen), or a bad header name; a *ParseError naming the line (Column 0)
// for a line with the wrong number of fields or a blank line before the end;
// an error naming the line for a read error of r; an error matching
// ErrNoSamples for input without any sample line (empty, blank or header
// only); and an error for a nil r. It never truncates
// a line, however long. It reads r once, streaming, and stores the values
// compactly as it goes; it does not close r.
//
// Memory: the values are stored in chunks, never copied into a growing
// slice. When r can tell how many bytes it has left (a regular *os.File, or
// a reader with a Len method such as *bytes.Reader), the storage is sized
// once from the bytes per line of the first lines, so that reading needs
// about the compact size of the samples (one byte a value for k ≤ 256) plus
// 10%; otherwise the chunks are joined at the end, which needs about twice
// that for a moment. ReadCSVCompact needs less when lines repeat. Binary
// data (every value 0 or 1, or ±1, and none missing) of at least 2^25
// values are stored as bits, an eighth of that, written as the lines are
// read: the reader keeps bits until it meets another value, and then turns
// what it has read into bytes (an input whose size says it is smaller is
// stored as bytes from the start). The learners' Ising path reads the bits
// directly; other readers of the samples unpack them into bytes once.
func ReadCSV(r io.Reader) (*Samples, error) {
	return readCSV(r, "ReadCSV", false)
}

// ReadHistogramCSV reads weighted samples from r, one distinct observation a
// line as "count,z_1,...,z_n", in the format of ReadCSV. The values
// z follow the rules of ReadCSV (states or spins, decided on the whole
// file). A count is any finite nonnegative number in Go syntax, such as 3,
// 2.5 or 1e6: integer counts of a histogram, or non-integer weights such as
// exact probabilities. Rows of count zero are kept but carry no weight. The
// returned samples are weighted: Weight(m) is the count of line m.
//
// In a header line the first field names the count column; it is ignored
// (Names returns the n variable names only) and may repeat a variable name.
//
// ReadHistogramCSV returns the errors of ReadCSV and a *ParseError for a
// count that is not a number, negative, NaN or infinite (column 1) and for a
// line with fewer than two fields (Column 0), and an error when the counts
// sum to zero or overflow to infinity.
func ReadHistogramCSV(r io.Reader) (*Samples, error) {
	return readCSV(r, "ReadHistogramCSV", true)
}

// ReadCSVCompact reads samples in the format of ReadCSV and merges identical
// rows as it reads: the result equals ReadCSV(r) followed by Compact (one
// row per distinct observation, in order of first appearance, weighted by
// its count), but the uncompacted rows are never held in memory. It needs
// the distinct rows (one byte a value for k ≤ 256), a float64 count and 8 to
// 16 bytes of hash index a distinct row. When rows repeat (few variables,
// strong couplings, binned data) that is much less than ReadCSV needs, and
// the learners run faster on the merged rows; when every row is distinct it
// is 16 to 24 bytes a row more. It returns the errors of ReadCSV, with the
// prefix "pairwise: ReadCSVCompact: ".
func ReadCSVCompact(r io.Reader) (*Samples, error) {
	return readCSVWith(r, "ReadCSVCompact", false, true)
}

// ReadHistogramCSVCompact reads a histogram in the format of
// ReadHistogramCSV and merges the lines with identical observations as it
// reads, summing their counts: the result equals ReadHistogramCSV(r)
// followed by Compact. It returns the errors of ReadHistogramCSV, with the
// prefix "pairwise: ReadHistogramCSVCompact: ".
func ReadHistogramCSVCompact(r io.Reader) (*Samples, error) {
	return readCSVWith(r, "ReadHistogramCSVCompact", true, true)
}

// WriteCSV writes s to w in the format its readers read back:
//
//   - unweighted samples as one line of states "z_1,...,z_n" a row, read
//     back by ReadCSV;
//   - weighted samples (Weighted reports true) as "count,z_1,...,z_n", one
//     line a stored row in order, with the weight written exactly (the
//     shortest decimal that parses back to the same float64), read back by
//     ReadHistogramCSV.
//
// Values are always written as states 0..k-1, never as spins, and a
// missing value as NA. When s has
// names (see Names) a header line comes first; for weighted samples its first
// field is "count". Lines end in "\n". WriteCSV returns the first write error
// of w.
func (s *Samples) WriteCSV(w io.Writer) error {
	bw := bufio.NewWriter(w)
	weighted := s.weights != nil
	var line []byte
	if s.names != nil {
		if weighted {
			line = append(line, "count"...)
		}
		for i, name := range s.names {
			if i > 0 || weighted {
				line = append(line, ',')
			}
			line = append(line, name...)
		}
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return fmt.Errorf("pairwise: WriteCSV: %w", err)
		}
	}
	for m := 0; m < s.rows; m++ {
		line = line[:0]
		if weighted {
			line = appendCount(line, s.weights[m])
		}
		off := m * s.n
		for i := 0; i < s.n; i++ {
			if i > 0 || weighted {
				line = append(line, ',')
			}
			var v int
			if s.bits != nil {
				v = int(s.bits[(m/64)*s.n+i] >> (m % 64) & 1)
			} else if s.b8 != nil {
				v = int(s.b8[off+i])
			} else {
				v = int(s.b16[off+i])
			}
			if v == s.k {
				line = append(line, "NA"...) // a missing value
				continue
			}
			line = strconv.AppendInt(line, int64(v), 10)
		}
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return fmt.Errorf("pairwise: WriteCSV: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("pairwise: WriteCSV: %w", err)
	}
	return nil
}

// appendCount appends c exactly: as a plain integer when it is one of
// moderate size, otherwise in the shortest form that round-trips.
func appendCount(dst []byte, c float64) []byte {
	if c == math.Trunc(c) && math.Abs(c) < 1e15 {
		return strconv.AppendFloat(dst, c, 'f', -1, 64)
	}
	return strconv.AppendFloat(dst, c, 'g', -1, 64)
}

func readCSV(r io.Reader, fn string, hist bool) (*Samples, error) {
	return readCSVWith(r, fn, hist, false)
}

func readCSVWith(r io.Reader, fn string, hist, merge bool) (*Samples, error) {
	return readCSVOpts(r, fn, CSVOptions{Histogram: hist, Compact: merge})
}

// ReadCSVWith reads samples from r in the format of ReadCSV (or of
// ReadHistogramCSV with o.Histogram, merged as ReadCSVCompact with
// o.Compact), with the alphabet and the missing-value markers of o. It
// returns the errors of those readers, with the prefix
// "pairwise: ReadCSVWith: ", a *ParseError at the line and column of a
// value outside a stated alphabet, and an error for options that
// contradict each other.
func ReadCSVWith(r io.Reader, o CSVOptions) (*Samples, error) {
	return readCSVOpts(r, "ReadCSVWith", o)
}
