package pairwise

import (
	"errors"
	"fmt"
	"strconv"
)

// OptionError reports an option called with a value it does not accept,
// for example WithWidth(-1). The learners (Learn, LearnIsing,
// LearnPairwise and their Context variants) return it before any work, and
// when several options are invalid they return every OptionError joined
// with errors.Join; errors.As finds the first one. NewGibbsSampler returns
// it for its GibbsOptions the same way.
//
// Option is the option's function name ("WithWidth", "WithSelection",
// "GibbsThin"), Value the argument it was called with, of the argument's
// type (a float64 for WithWidth, an int for WithWorkers, the Selection for
// WithSelection), and Reason what a valid value is. Func is the function
// that checked the option when its name is part of the message
// ("NewGibbsSampler"), and empty for the learners' options. The text is
//
//	pairwise: WithWidth(-1): the width bound λ must be a finite positive number
//	pairwise: NewGibbsSampler: GibbsThin(0): want at least 1 sweep between kept samples
//
// A program with its own names for the options (a command's flags, a
// form's fields) can restate it with errors.As:
//
//	var oe *pairwise.OptionError
//	if errors.As(err, &oe) && oe.Option == "WithWidth" {
//		fmt.Printf("-lambda %v: %s\n", oe.Value, oe.Reason)
//	}
type OptionError struct {
	Func   string // the checking function when the message names it, else ""
	Option string // the option's name, such as "WithWidth"
	Value  any    // the value the option was called with
	Reason string // what is wrong, or what a valid value is
}

// Error returns "pairwise: [Func: ]Option(Value): Reason".
func (e *OptionError) Error() string {
	if e.Func != "" {
		return fmt.Sprintf("pairwise: %s: %s(%v): %s", e.Func, e.Option, e.Value, e.Reason)
	}
	return fmt.Sprintf("pairwise: %s(%v): %s", e.Option, e.Value, e.Reason)
}

// ParseError reports a problem at a place in a text input: a field of a
// CSV file (ReadCSV, ReadHistogramCSV and their Compact variants) or a value
// of a model JSON file (ReadModel). Line and Column are 1-based; the
// header line of a CSV file counts as line 1, and ReadModel counts columns
// in bytes. Column is 0 for a problem with a whole line (a CSV line with the
// wrong number of fields, a blank line before more data).
//
// Value is the offending text as it stands in the input, without the
// spaces around it (the CSV field "x" of "0, x"); it is empty for a problem
// with a whole line and for ReadModel, whose problems are with structure
// more than text. Path is the JSON path of the value (ReadModel only, such
// as "couplings[1].w[0]"; empty at the top level). Reason says what is
// wrong; with a Column it quotes the value where the text does, and
// without one it continues the sentence "line L ..." ("has 3 fields, want
// 2"). Func is the reader that found the problem.
//
// The readers do not know the file's name: File is empty and Error reads
//
//	pairwise: ReadCSV: line 3, column 2: "x" is not an integer
//	pairwise: ReadCSV: line 4 has 2 fields, want 3
//	pairwise: ReadModel: line 6, column 5: couplings[1].w[0]: 3 entries, want k = 2
//
// A caller that opened the file may set File; Error then names the file in
// place of the package and the reader, as a compiler names a place:
//
//	data.csv: line 3, column 2: "x" is not an integer
//
// Errors of the reader itself (an io.Reader that fails) and problems of the
// input as a whole (no sample at all, counts summing to zero) are not
// ParseErrors.
type ParseError struct {
	Func   string // the reader, such as "ReadCSV"
	File   string // the file's name, set by a caller that knows it; "" by the readers
	Line   int    // 1-based line
	Column int    // 1-based column (a CSV field, or a byte for ReadModel); 0 for a whole line
	Path   string // the JSON path of the value (ReadModel), or ""
	Value  string // the offending text, or ""
	Reason string // what is wrong
}

// Error returns the message described on ParseError: the place, then the
// reason.
func (e *ParseError) Error() string {
	b := make([]byte, 0, 64+len(e.Reason))
	if e.File != "" {
		b = append(b, e.File...)
		b = append(b, ": "...)
	} else {
		b = append(b, "pairwise: "...)
		b = append(b, e.Func...)
		b = append(b, ": "...)
	}
	b = append(b, "line "...)
	b = strconv.AppendInt(b, int64(e.Line), 10)
	if e.Column == 0 {
		b = append(b, ' ')
		return string(append(b, e.Reason...))
	}
	b = append(b, ", column "...)
	b = strconv.AppendInt(b, int64(e.Column), 10)
	b = append(b, ": "...)
	if e.Path != "" {
		b = append(b, e.Path...)
		b = append(b, ": "...)
	}
	return string(append(b, e.Reason...))
}

// AlphabetError reports samples or a model whose alphabet size K is outside
// the range Min..Max that the function Func accepts: LearnIsing needs
// K = 2 (Min = Max = 2; use Learn or LearnPairwise for k > 2),
// LearnPairwise at most 256 (Max = 256), and the constructors of Samples
// and Model 2 to MaxAlphabet. A caller can recode the data into fewer
// states, or choose the learner from K:
//
//	var ae *pairwise.AlphabetError
//	if errors.As(err, &ae) && ae.Func == "LearnIsing" {
//		res, err = pairwise.LearnPairwise(s, opts...)
//	}
type AlphabetError struct {
	Func     string // the function that refused, such as "LearnIsing"
	K        int    // the alphabet size it was given
	Min, Max int    // the sizes it accepts
}

// Error returns "pairwise: Func: alphabet size k = K, ..." with what Func
// takes.
func (e *AlphabetError) Error() string {
	switch {
	case e.K < e.Min:
		return fmt.Sprintf("pairwise: %s: alphabet size k = %d, want at least %d", e.Func, e.K, e.Min)
	case e.Min == e.Max:
		msg := fmt.Sprintf("pairwise: %s: alphabet size k = %d, want %d", e.Func, e.K, e.Min)
		if e.Func == "LearnIsing" {
			msg += " (use LearnPairwise or Learn)"
		}
		return msg
	case e.Max == MaxAlphabet:
		return fmt.Sprintf("pairwise: %s: alphabet size k = %d exceeds the limit %d", e.Func, e.K, e.Max)
	}
	return fmt.Sprintf("pairwise: %s: alphabet size k = %d, the learner supports at most %d", e.Func, e.K, e.Max)
}

var (
	// ErrNoSamples matches, with errors.Is, the errors for data without a
	// single sample: input of the CSV readers that is empty, blank or only
	// a header line; NewSamples and its variants given no rows; and the
	// learners given samples of no rows or zero total weight. The texts
	// name the function ("pairwise: ReadCSV: no samples in input, only a
	// header line").
	ErrNoSamples = errors.New("pairwise: no samples")

	// ErrEdgeTestTooLarge matches, with errors.Is, the errors of the
	// learners when η is not given and the edge test that would choose
	// the edges needs more memory than it may use: on k-ary data (k > 2)
	// when its inverse Hessians (which grow like k⁴n²) exceed what a
	// worker may use, and for any k when its dense n·n·k² arrays exceed
	// MaxLearnEntries (not on complete binary samples learned by Learn or
	// LearnIsing, in one process or in shards with the default backend,
	// whose test follows the graph).
	// Giving the minimum edge weight with WithMinEdgeWeight avoids the
	// test and lifts both limits. The text says how much the test would
	// need and, for binary samples, why the dense test runs.
	ErrEdgeTestTooLarge = errors.New("pairwise: the edge test needs too much memory; give WithMinEdgeWeight")
)

// nilContext is the error of a function fn given a nil context.Context.
// A nil context is refused, as net/http refuses it, rather than taken for
// context.Background(): a caller who meant to pass a cancellable one (an
// unset field, say) learns of it at once instead of finding later that
// cancelling does nothing.
func nilContext(fn string) error {
	return fmt.Errorf("pairwise: %s: nil context (pass context.Background() for none)", fn)
}

// kindError is an error with its own text that errors.Is matches to the
// sentinel kind, so that a message keeps its detail (the function, the
// numbers) and still has a kind a caller can test.
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

// errorOf returns an error reading fmt.Sprintf(format, args...) that
// errors.Is matches to kind.
func errorOf(kind error, format string, args ...any) error {
	return &kindError{msg: fmt.Sprintf(format, args...), kind: kind}
}
