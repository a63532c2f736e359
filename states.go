package pairwise

import (
	"fmt"
	"strings"
)

// DefaultMissing are the markers of a missing value that the CSV readers
// take by default: "NA" and the empty field.
var DefaultMissing = []string{"NA", ""}

// placeholderMissing stores a missing value while the alphabet is read
// from the data; finish turns it into the state k. No state can be 255
// then: the reader refuses a file with both.
const placeholderMissing = 255

// rareCount is the "handful": a state seen in fewer values than this, in a
// file where a state has on average twenty times more (see StateNotes),
// is reported.
const rareCount = 5

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
