package pairwise

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode"
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

// validName reports whether name can name a variable in a CSV header that
// ReadCSV reads back unchanged, and if not, why: a name must be non-empty,
// must not be an integer (which would make the header look like data), must
// not contain a comma, a double quote or a line break, and must not begin or
// end with white space.
func validName(name string) error {
	switch {
	case name == "":
		return errors.New("empty name")
	case strings.ContainsAny(name, ",\"\r\n"):
		return fmt.Errorf("name %q contains a comma, a double quote or a line break", name)
	case string(trimName([]byte(name))) != name:
		return fmt.Errorf("name %q begins or ends with white space", name)
	}
	if _, ok, _ := parseInteger([]byte(name)); ok {
		return fmt.Errorf("name %q is an integer", name)
	}
	return nil
}

// checkNames validates the variable names of n variables for fn.
func checkNames(fn string, names []string, n int) error {
	if len(names) != n {
		return fmt.Errorf("pairwise: %s: %d names for %d variables", fn, len(names), n)
	}
	seen := make(map[string]int, n)
	for i, name := range names {
		if err := validName(name); err != nil {
			return fmt.Errorf("pairwise: %s: variable %d: %w", fn, i, err)
		}
		if j, dup := seen[name]; dup {
			return fmt.Errorf("pairwise: %s: variables %d and %d have the same name %q", fn, j, i, name)
		}
		seen[name] = i
	}
	return nil
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

// csvParser holds the state of one streaming read.
type csvParser struct {
	fn    string
	hist  bool     // a count column comes first
	merge bool     // merge identical rows as they are read
	index rowIndex // the distinct rows so far, when merging

	lineNo int // current line, 1-based
	fields int // fields a line, from the first line
	header bool

	n       int
	names   []string
	store   rowStore // the values, one or two bytes each
	weights []float64
	rows    int
	maxVal  int

	// Spins or states: the first -1 and the first value other than ±1,
	// remembered to report a mix.
	minusLine, minusCol int
	otherLine, otherCol int
	otherField          string

	// The alphabet (states.go): stated (k > 0, from CSVOptions.Alphabet
	// or States) or read from the data; labels maps the fields of
	// CSVOptions.States to their states.
	k      int
	labels map[string]int
	// The missing-value markers; anyMarker is false when a field that
	// starts like an integer cannot be one.
	markers     [][]byte
	anyMarker   bool
	limit       int // the largest k read from the data
	missingCode int // the stored missing value: k, or placeholderMissing
	missLine    int // the first missing value, or 0
	missCol     int
	seen        []stateSeen // per stored value, when the alphabet is read from the data
	cells       int         // values read (not missing)
}

func readCSV(r io.Reader, fn string, hist bool) (*Samples, error) {
	return readCSVWith(r, fn, hist, false)
}

func readCSVWith(r io.Reader, fn string, hist, merge bool) (*Samples, error) {
	return readCSVOpts(r, fn, CSVOptions{Histogram: hist, Compact: merge})
}

func readCSVOpts(r io.Reader, fn string, o CSVOptions) (*Samples, error) {
	if r == nil {
		return nil, fmt.Errorf("pairwise: %s: nil reader", fn)
	}
	p := &csvParser{fn: fn, hist: o.Histogram, merge: o.Compact}
	if err := p.configure(o); err != nil {
		return nil, err
	}
	p.store.remaining = remainingBytes(r)
	// Binary data are stored as bits until a value other than 0 and 1
	// (see bitMinValues); a stated alphabet of more states never is, nor
	// an input too short to hold bitMinValues values (each takes at least
	// two bytes, "0,").
	p.store.bits = p.k <= 2 && (p.store.remaining == nil || p.store.remaining()/2+1 >= int64(bitMinValues))
	lr := lineReader{br: bufio.NewReader(r)}
	blank := 0 // line number of the first blank line not yet followed by data
	for {
		line, ok, err := lr.next()
		if err != nil {
			return nil, fmt.Errorf("pairwise: %s: line %d: %w", fn, lr.line, err)
		}
		if !ok {
			break
		}
		p.lineNo = lr.line
		if p.lineNo == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		if len(bytes.TrimSpace(line)) == 0 {
			if blank == 0 {
				blank = p.lineNo
			}
			continue
		}
		if blank != 0 {
			return nil, &ParseError{Func: fn, Line: blank, Reason: "is blank, and blank lines are allowed only at the end of the input"}
		}
		p.store.bytesRead += int64(len(line)) + 1
		if err := p.parseLine(line); err != nil {
			return nil, err
		}
	}
	return p.finish()
}

// errorAt returns a ParseError at column col of the current line (0 for the
// whole line), quoting value.
func (p *csvParser) errorAt(col int, value []byte, format string, args ...any) error {
	return &ParseError{Func: p.fn, Line: p.lineNo, Column: col, Value: string(value), Reason: fmt.Sprintf(format, args...)}
}

// parseLine handles one non-blank line.
func (p *csvParser) parseLine(line []byte) error {
	nf := bytes.Count(line, []byte{','}) + 1
	if p.fields == 0 {
		if p.hist && nf < 2 {
			return p.errorAt(0, nil, "has %d field, want at least 2 (a count and one variable)", nf)
		}
		p.fields = nf
		p.n = nf
		if p.hist {
			p.n--
		}
		p.store.n = p.n
		if col, name := p.firstName(line); col > 0 {
			p.header = true
			return p.parseHeader(line, col, name)
		}
	} else if nf != p.fields {
		return p.errorAt(0, nil, "has %d fields, want %d", nf, p.fields)
	}
	p.store.beginRow()
	for col := 1; col <= p.fields; col++ {
		field := line
		if c := bytes.IndexByte(line, ','); c >= 0 {
			field, line = line[:c], line[c+1:]
		}
		field = bytes.TrimSpace(field)
		if p.hist && col == 1 {
			if err := p.parseCount(field); err != nil {
				return err
			}
			continue
		}
		if err := p.parseValue(field, col); err != nil {
			return err
		}
	}
	if p.merge {
		w := 1.0
		if p.hist {
			w = p.weights[p.rows]
		}
		if r, dup := p.index.add(&p.store, p.rows); dup {
			p.weights[r] += w
			p.weights = p.weights[:p.rows]
			p.store.dropRow()
			return nil
		}
		if !p.hist {
			p.weights = append(p.weights, w)
		}
	}
	p.store.endRow()
	p.rows++
	return nil
}

// firstName returns the column and text of the first field of line that is
// not a value, or 0 when every field is one: the first line is a header when
// it has such a field.
func (p *csvParser) firstName(line []byte) (col int, field []byte) {
	for c, f := range bytes.Split(line, []byte{','}) {
		if f = bytes.TrimSpace(f); !p.isValue(f, c+1) {
			return c + 1, f
		}
	}
	return 0, nil
}

// isValue reports whether field could be data in column col.
func (p *csvParser) isValue(field []byte, col int) bool {
	if p.hist && col == 1 {
		_, err := strconv.ParseFloat(string(field), 64)
		return err == nil || isRangeErr(err)
	}
	if p.isMarker(field) {
		return true
	}
	if p.labels != nil {
		_, ok := p.labels[string(field)]
		return ok
	}
	_, ok, _ := parseInteger(field)
	return ok
}

func isRangeErr(err error) bool {
	e, ok := err.(*strconv.NumError)
	return ok && e.Err == strconv.ErrRange
}

// parseHeader reads the names of a header line; nameCol and name are its first
// field that is not a value, quoted in errors.
func (p *csvParser) parseHeader(line []byte, nameCol int, name []byte) error {
	seen := make(map[string]int)
	for col, field := range bytes.Split(line, []byte{','}) {
		col++
		orig := field
		field = trimName(field)
		if len(field) >= 2 && field[0] == '"' && field[len(field)-1] == '"' {
			field = trimName(field[1 : len(field)-1])
		}
		switch {
		case len(field) == 0:
			return p.errorAt(col, bytes.TrimSpace(orig), "%q: empty name in the header line", orig)
		case bytes.IndexByte(field, '"') >= 0:
			return p.errorAt(col, bytes.TrimSpace(orig), "%q: a name cannot contain a double quote", orig)
		case !(p.hist && col == 1) && p.isMarker(field):
			return p.errorAt(col, bytes.TrimSpace(orig), "%q is a missing-value marker in the header line (column %d, %q, is not a value, which makes the first line a header of names)",
				orig, nameCol, name)
		case p.isValue(field, col):
			return p.errorAt(col, bytes.TrimSpace(orig), "%q is a number in the header line (column %d, %q, is not a number, which makes the first line a header of names)",
				orig, nameCol, name)
		}
		if p.hist && col == 1 {
			continue // the name of the count column
		}
		name := string(field)
		if c, dup := seen[name]; dup {
			return p.errorAt(col, field, "duplicate name %q (also column %d)", name, c)
		}
		seen[name] = col
		p.names = append(p.names, name)
	}
	return nil
}

// trimName removes spaces and byte order marks around a name, so that a
// name written by WriteCSV reads back unchanged.
func trimName(b []byte) []byte {
	return bytes.TrimFunc(b, func(r rune) bool { return r == '\ufeff' || unicode.IsSpace(r) })
}

// parseInteger parses [+-]?[0-9]+. ok is false when field is not of that
// form; big is true when its magnitude exceeds MaxAlphabet (v is then
// meaningless).
func parseInteger(field []byte) (v int, ok, big bool) {
	neg := false
	if len(field) > 0 && (field[0] == '+' || field[0] == '-') {
		neg = field[0] == '-'
		field = field[1:]
	}
	if len(field) == 0 {
		return 0, false, false
	}
	for _, c := range field {
		if c < '0' || c > '9' {
			return 0, false, false
		}
		if !big {
			v = 10*v + int(c-'0')
			big = v > MaxAlphabet
		}
	}
	if neg {
		v = -v
	}
	return v, true, big
}

func (p *csvParser) parseValue(field []byte, col int) error {
	if (p.anyMarker || len(field) == 0 || field[0] > '9' || field[0] < '0' && field[0] != '-' && field[0] != '+') && p.isMarker(field) {
		return p.pushMissing(field, col)
	}
	if p.labels != nil {
		v, ok := p.labels[string(field)]
		if !ok {
			return p.errorAt(col, field, "%q is not one of the %d states listed (CSVOptions.States)", field, p.k)
		}
		p.push(v)
		return nil
	}
	v, ok, big := parseInteger(field)
	switch {
	case !ok:
		return p.errorAt(col, field, "%q is not an integer%s", field, p.markerHint())
	case p.k > 0 && (big && field[0] != '-' || v >= p.k):
		return p.errorAt(col, field, "%q is outside the alphabet 0..%d of k = %d states stated for the file", field, p.k-1, p.k)
	case big && field[0] != '-' || v >= p.limit:
		return p.errorAt(col, field, "%q exceeds the largest state %d: the learners take k ≤ %d states", field, p.limit-1, p.limit)
	case big || v < -1:
		return p.errorAt(col, field, "%q is negative, want a state 0..k-1 or a spin -1 or +1", field)
	case v == -1 && p.k > 2:
		return p.errorAt(col, field, "%q is a spin, but the file's alphabet is stated as k = %d states 0..%d", field, p.k, p.k-1)
	case v == placeholderMissing && p.k == 0 && p.missLine != 0:
		return p.errorAt(col, field, "%q is a state, and line %d, column %d has a missing value: states 0..255 and a missing value need 257 values, more than the learners' %d", field, p.missLine, p.missCol, MaxLearnAlphabet)
	}
	switch v {
	case -1:
		if p.otherLine != 0 {
			return p.errorAt(col, field, "%q is a spin, but line %d, column %d has the state %q; want all spins ±1 or all states 0..k-1",
				field, p.otherLine, p.otherCol, p.otherField)
		}
		if p.minusLine == 0 {
			p.minusLine, p.minusCol = p.lineNo, col
		}
		v = 0 // spin -1 is state 0; no state 0 can occur with it
	case 1:
		// State 1 and spin +1 are the same stored value.
	default:
		if p.minusLine != 0 {
			return p.errorAt(col, field, "%q is a state, but line %d, column %d has the spin -1; want all spins ±1 or all states 0..k-1",
				field, p.minusLine, p.minusCol)
		}
		if p.otherLine == 0 {
			p.otherLine, p.otherCol, p.otherField = p.lineNo, col, string(field)
		}
	}
	p.maxVal = max(p.maxVal, v)
	if p.seen != nil {
		p.noteValue(v, field, col)
	}
	p.push(v)
	return nil
}

// push stores the value v of the current row.
func (p *csvParser) push(v int) {
	wide := p.store.wide
	p.store.push(v)
	if !wide && p.store.wide && p.merge {
		// The stored rows are the same numbers, now two bytes wide.
		p.index.rehash(&p.store, len(p.index.slots))
	}
}

func (p *csvParser) parseCount(field []byte) error {
	c, err := strconv.ParseFloat(string(field), 64)
	switch {
	case err != nil && p.isMarker(field):
		return p.errorAt(1, field, "count %q is missing: every line of a histogram needs its count", field)
	case err != nil && !isRangeErr(err):
		return p.errorAt(1, field, "count %q is not a number", field)
	case math.IsNaN(c) || math.IsInf(c, 0):
		return p.errorAt(1, field, "count %q is not a finite number", field)
	case c < 0:
		return p.errorAt(1, field, "count %q is negative", field)
	}
	p.weights = append(p.weights, c+0) // +0 turns -0 into 0
	return nil
}

func (p *csvParser) finish() (*Samples, error) {
	if p.rows == 0 {
		if p.header {
			return nil, errorOf(ErrNoSamples, "pairwise: %s: no samples in input, only a header line", p.fn)
		}
		return nil, errorOf(ErrNoSamples, "pairwise: %s: no samples in input", p.fn)
	}
	k := max(p.maxVal+1, 2)
	if p.minusLine != 0 {
		k = 2
	}
	if p.k > 0 {
		k = p.k
	}
	s := &Samples{n: p.n, k: k, rows: p.rows, total: float64(p.rows), names: p.names}
	if p.store.bits && k == 2 && p.missLine == 0 && p.n*p.rows >= bitMinValues {
		s.bits, s.lazy = p.store.joinBits(), new(lazyBytes)
	} else {
		if p.store.bits {
			p.store.unbit()
		}
		s.b8, s.b16 = p.store.join()
	}
	s.incomplete = p.missLine != 0
	if s.incomplete && p.missingCode != k {
		// The placeholder becomes the state k, one past the alphabet.
		for x, v := range s.b8 {
			if int(v) == p.missingCode {
				s.b8[x] = uint8(k)
			}
		}
	}
	s.notes, s.hasNotes = p.stateNotes(k), true
	s.merged = p.merge && p.index.complete
	if p.hist || p.merge {
		total := 0.0
		for _, c := range p.weights {
			total += c
		}
		if total == 0 {
			return nil, fmt.Errorf("pairwise: %s: every count is zero, want a positive total", p.fn)
		}
		if math.IsInf(total, 0) {
			return nil, fmt.Errorf("pairwise: %s: the counts sum to %v, want a finite total", p.fn, total)
		}
		s.weights = p.weights
		s.total = total
	}
	return s, nil
}

// remainingBytes returns a function reporting how many bytes r has left to
// read, when r can tell: a regular *os.File, or a reader with a Len method
// such as *bytes.Reader or *strings.Reader. It returns nil otherwise. The
// readers use it only to size their storage.
func remainingBytes(r io.Reader) func() int64 {
	switch v := r.(type) {
	case interface{ Len() int }:
		return func() int64 { return int64(v.Len()) }
	case *os.File:
		fi, err := v.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return nil
		}
		return func() int64 {
			off, err := v.Seek(0, io.SeekCurrent)
			if err != nil {
				return 0
			}
			return fi.Size() - off
		}
	}
	return nil
}

// lineReader returns the lines of a bufio.Reader of any length, without the
// "\n" or "\r\n" ending.
type lineReader struct {
	br   *bufio.Reader
	buf  []byte
	line int // number of the line last returned
	eof  bool
}

// next returns the next line, valid until the following call; ok is false at
// the end of the input.
func (lr *lineReader) next() (line []byte, ok bool, err error) {
	if lr.eof {
		return nil, false, nil
	}
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.br.ReadSlice('\n')
		switch err {
		case bufio.ErrBufferFull:
			lr.buf = append(lr.buf, chunk...)
			continue
		case nil:
		case io.EOF:
			lr.eof = true
			if len(chunk) == 0 && len(lr.buf) == 0 {
				return nil, false, nil
			}
		default:
			lr.line++
			return nil, false, err
		}
		lr.line++
		if len(lr.buf) > 0 {
			lr.buf = append(lr.buf, chunk...)
			chunk = lr.buf
		}
		chunk = bytes.TrimSuffix(chunk, []byte{'\n'})
		chunk = bytes.TrimSuffix(chunk, []byte{'\r'})
		return chunk, true, nil
	}
}
