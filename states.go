package pairwise

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
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

// DefaultMissing are the markers of a missing value that the CSV readers
// take by default: "NA" and the empty field.
var DefaultMissing = []string{"NA", ""}

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

// placeholderMissing stores a missing value while the alphabet is read
// from the data; finish turns it into the state k. No state can be 255
// then: the reader refuses a file with both.
const placeholderMissing = 255

// rareCount is the "handful": a state seen in fewer values than this, in a
// file where a state has on average twenty times more (see StateNotes),
// is reported.
const rareCount = 5

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

// Place is where a value is: its line and column (1-based, the header
// counts) in the file a CSV reader read, or, for samples made otherwise,
// Line the row m+1 and Column the variable i+1.
type Place struct {
	Line, Column int
}

// StateNote reports a state of the alphabet that looks like a mistake in
// the data rather than a value of the variables (see StateNotes).
type StateNote struct {
	State int // the state, 0..k-1
	// Value is the state as the file wrote it (the first time), such as
	// "2" or, for spins, "-1"; "" for a state that never occurs.
	Value string
	// Count is the number of values in this state (0: it never occurs).
	Count int
	// Places are the first places of its values, at most four.
	Places []Place
}

// String describes the note in a sentence, such as
// `state 2 ("2") occurs once: line 2386, column 4` or
// `state 0 never occurs`.
func (n StateNote) String() string {
	if n.Count == 0 {
		return fmt.Sprintf("state %d never occurs", n.State)
	}
	times := "once"
	if n.Count > 1 {
		times = fmt.Sprintf("%d times", n.Count)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "state %d (%q) occurs %s:", n.State, n.Value, times)
	for x, pl := range n.Places {
		if x > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, " line %d, column %d", pl.Line, pl.Column)
	}
	return b.String()
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

// notesFrom applies the rules of StateNotes to the counts of the states;
// at returns a state's text and first places.
func notesFrom(counts []int, cells int, at func(v int) (string, []Place)) []StateNote {
	k := len(counts)
	var notes []StateNote
	for v, c := range counts {
		switch {
		case c == 0:
			notes = append(notes, StateNote{State: v})
		case c < rareCount && 20*c*k <= cells:
			text, places := at(v)
			notes = append(notes, StateNote{State: v, Value: text, Count: c, Places: append([]Place(nil), places...)})
		}
	}
	return notes
}
