package pairwise

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/mrfkit/pairwise/internal/lines"
)

// CSVOptions configures ReadCSVWith. The zero value reads as ReadCSV does:
// the alphabet from the data, "NA" and the empty field as missing values.
type CSVOptions struct {
	// Histogram reads lines "count,z_1,...,z_n", as ReadHistogramCSV.
	Histogram bool
	// Compact merges identical rows while reading, as ReadCSVCompact.
	Compact bool
	// Alphabet states the alphabet size k, 2 to MaxAlphabet: every value
	// must be a state 0..k-1 (or, for k = 2, a spin ±1), and any other is
	// a *ParseError naming its line and column. The samples have k states
	// even when some never occur. 0 (the default) reads k from the data:
	// the largest value + 1, at most MaxLearnAlphabet, and StateNotes then
	// reports the states that look like mistakes.
	Alphabet int
	// States lists the states as they are written, in order: the field
	// States[a] is state a and k = len(States). {"1", ..., "6"} reads a
	// Likert scale written 1..6 as the states 0..5, {"A", "C", "G", "T"}
	// reads letters. A field that is not listed (and not a missing-value
	// marker) is a *ParseError. Give Alphabet or States, not both; the
	// entries must be distinct, non-empty, without commas, and not
	// missing-value markers.
	States []string
	// Missing lists the markers of a missing value, compared with a field
	// after the spaces around it are removed. nil (the default) means
	// {"NA", ""}: the text NA and the empty field. An empty, non-nil slice
	// means no marker: every field must then be a value. A marker may be
	// a number ("-99"); it then never reads as a value.
	Missing []string

	// limit replaces MaxLearnAlphabet as the largest k read from the
	// data, for the tests of the two-byte storage.
	limit int
}

// configure applies o to the parser.
func (p *csvParser) configure(o CSVOptions) error {
	markers := o.Missing
	if markers == nil {
		markers = DefaultMissing
	}
	for _, m := range markers {
		m = strings.TrimSpace(m)
		if strings.ContainsAny(m, ",\r\n") {
			return fmt.Errorf("pairwise: %s: missing-value marker %q contains a comma or a line break", p.fn, m)
		}
		p.markers = append(p.markers, []byte(m))
		if len(m) > 0 && (m[0] >= '0' && m[0] <= '9' || m[0] == '-' || m[0] == '+') {
			p.anyMarker = true
		}
	}
	switch {
	case o.Alphabet != 0 && o.States != nil:
		return fmt.Errorf("pairwise: %s: give the alphabet size (Alphabet = %d) or the list of states (%d States), not both", p.fn, o.Alphabet, len(o.States))
	case o.Alphabet != 0:
		if o.Alphabet < 2 || o.Alphabet > MaxAlphabet {
			return &AlphabetError{Func: p.fn, K: o.Alphabet, Min: 2, Max: MaxAlphabet}
		}
		p.k = o.Alphabet
	case o.States != nil:
		if len(o.States) < 2 || len(o.States) > MaxAlphabet {
			return &AlphabetError{Func: p.fn, K: len(o.States), Min: 2, Max: MaxAlphabet}
		}
		p.labels = make(map[string]int, len(o.States))
		for a, st := range o.States {
			st = strings.TrimSpace(st)
			switch {
			case st == "" || strings.ContainsAny(st, ",\r\n"):
				return fmt.Errorf("pairwise: %s: state %d, %q: want a non-empty field without commas", p.fn, a, st)
			case p.isMarker([]byte(st)):
				return fmt.Errorf("pairwise: %s: state %d, %q, is a missing-value marker", p.fn, a, st)
			}
			if b, dup := p.labels[st]; dup {
				return fmt.Errorf("pairwise: %s: states %d and %d are both %q", p.fn, b, a, st)
			}
			p.labels[st] = a
		}
		p.k = len(o.States)
	}
	p.limit = MaxLearnAlphabet
	if o.limit > 0 {
		p.limit = o.limit
	}
	if p.k > 0 {
		p.missingCode = p.k
	} else {
		p.missingCode = placeholderMissing
		p.seen = make([]stateSeen, 0, 16)
	}
	return nil
}

// isMarker reports whether field marks a missing value.
func (p *csvParser) isMarker(field []byte) bool {
	for _, m := range p.markers {
		if bytes.Equal(field, m) {
			return true
		}
	}
	return false
}

// markerHint says, for a field that is neither a value nor a marker, which
// markers mean a missing value.
func (p *csvParser) markerHint() string {
	if len(p.markers) == 0 {
		return " (no missing-value marker is set)"
	}
	q := make([]string, len(p.markers))
	for x, m := range p.markers {
		q[x] = strconv.Quote(string(m))
	}
	return " (a missing value is written " + strings.Join(q, " or ") + ")"
}

// pushMissing stores a missing value at column col of the current line.
func (p *csvParser) pushMissing(field []byte, col int) error {
	if p.k == 0 && p.maxVal >= placeholderMissing {
		return p.errorAt(col, field, "%q is a missing value, and the file has the state 255: states 0..255 and a missing value need 257 values, more than the learners' %d", field, MaxLearnAlphabet)
	}
	if p.k == MaxAlphabet {
		return p.errorAt(col, field, "%q is a missing value, and the stated alphabet of k = %d states leaves no room for one", field, MaxAlphabet)
	}
	if p.missLine == 0 {
		p.missLine, p.missCol = p.lineNo, col
	}
	p.push(p.missingCode)
	return nil
}

// stateSeen counts the values read in one state and remembers where the
// first ones were.
type stateSeen struct {
	count  int
	text   string // the first field in this state
	places [rareCount - 1]Place
}

// noteValue counts the value v, read from field at column col.
func (p *csvParser) noteValue(v int, field []byte, col int) {
	for len(p.seen) <= v {
		p.seen = append(p.seen, stateSeen{})
	}
	st := &p.seen[v]
	if st.count == 0 {
		st.text = string(field)
	}
	if st.count < len(st.places) {
		st.places[st.count] = Place{Line: p.lineNo, Column: col}
	}
	st.count++
	p.cells++
}

// stateNotes returns the notes on the k states read (nil when the alphabet
// was stated).
func (p *csvParser) stateNotes(k int) []StateNote {
	if p.seen == nil {
		return nil
	}
	counts := make([]int, k)
	for v := range counts {
		if v < len(p.seen) {
			counts[v] = p.seen[v].count
		}
	}
	return notesFrom(counts, p.cells, func(v int) (string, []Place) {
		st := p.seen[v]
		return st.text, st.places[:min(st.count, len(st.places))]
	})
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
	lr := lines.NewReader(bufio.NewReader(r))
	blank := 0 // line number of the first blank line not yet followed by data
	for {
		line, ok, err := lr.Next()
		if err != nil {
			return nil, fmt.Errorf("pairwise: %s: line %d: %w", fn, lr.Line(), err)
		}
		if !ok {
			break
		}
		p.lineNo = lr.Line()
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
