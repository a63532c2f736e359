package pairwise

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// sameValue reports whether two option values are equal, NaN equal to NaN.
func sameValue(a, b any) bool {
	if x, ok := a.(float64); ok {
		if y, ok := b.(float64); ok && math.IsNaN(x) && math.IsNaN(y) {
			return true
		}
	}
	return reflect.DeepEqual(a, b)
}

// TestOptionErrors checks that every invalid option of the learners and of
// the Gibbs sampler gives an *OptionError naming the option and carrying
// the value it was called with, with the message the package has always
// given (the command and users read these words).
func TestOptionErrors(t *testing.T) {
	s, err := NewSamples(2, [][]int{{0, 1, 0}, {1, 1, 0}, {0, 0, 1}, {1, 0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	cv1 := CrossValidation{Folds: 1}
	emptyGrid := CrossValidation{Widths: []float64{}}
	badWidth := EBIC{Widths: []float64{1, -2}}
	for _, tc := range []struct {
		opt    Option
		option string
		value  any
		text   string
	}{
		{WithWidth(-1), "WithWidth", -1.0, "pairwise: WithWidth(-1): the width bound λ must be a finite positive number"},
		{WithWidth(math.NaN()), "WithWidth", math.NaN(), "pairwise: WithWidth(NaN): the width bound λ must be a finite positive number"},
		{WithRadius(0), "WithRadius", 0.0, "pairwise: WithRadius(0): the radius must be a finite positive number"},
		{WithMinEdgeWeight(math.Inf(1)), "WithMinEdgeWeight", math.Inf(1), "pairwise: WithMinEdgeWeight(+Inf): the edge weight bound η must be a finite positive number"},
		{WithWorkers(0), "WithWorkers", 0, "pairwise: WithWorkers(0): want at least 1 worker"},
		{WithTolerance(-1e-3), "WithTolerance", -1e-3, "pairwise: WithTolerance(-0.001): want a finite positive tolerance"},
		{WithMaxIterations(-5), "WithMaxIterations", -5, "pairwise: WithMaxIterations(-5): want at least 1 iteration"},
		{WithSymmetrization(7), "WithSymmetrization", Symmetrization(7), "pairwise: WithSymmetrization(Symmetrization(7)): unknown rule"},
		{WithFalseEdgeRate(1), "WithFalseEdgeRate", 1.0, "pairwise: WithFalseEdgeRate(1): want α in (0, 1)"},
		{WithSelection(cv1), "WithSelection", cv1, "pairwise: WithSelection(CrossValidation{Folds: 1}): want at least 2 folds"},
		{WithSelection(EBIC{Gamma: -1}), "WithSelection", EBIC{Gamma: -1}, "pairwise: WithSelection(EBIC{Gamma: -1}): want a finite γ ≥ 0"},
		{WithSelection(emptyGrid), "WithSelection", emptyGrid, "pairwise: WithSelection(CrossValidation{Folds: 5, Widths: []}): empty width grid"},
		{WithSelection(badWidth), "WithSelection", badWidth, "pairwise: WithSelection(EBIC{Gamma: 0, Widths: [1 -2]}): width 1 is -2, want a finite positive number"},
	} {
		t.Run(tc.text, func(t *testing.T) {
			_, err := Learn(s, tc.opt)
			var oe *OptionError
			if !errors.As(err, &oe) {
				t.Fatalf("error %v (%T), want an *OptionError", err, err)
			}
			if oe.Option != tc.option || !sameValue(oe.Value, tc.value) || oe.Func != "" {
				t.Errorf("OptionError{Func: %q, Option: %q, Value: %#v}, want Option %q, Value %#v and no Func", oe.Func, oe.Option, oe.Value, tc.option, tc.value)
			}
			if err.Error() != tc.text {
				t.Errorf("error text\n\t%s\nwant\n\t%s", err, tc.text)
			}
		})
	}

	// Several invalid options: every one is reported, each an OptionError.
	_, err = Learn(s, WithWidth(-1), WithWorkers(0))
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok || len(joined.Unwrap()) != 2 {
		t.Fatalf("two invalid options: error %v, want two joined", err)
	}
	for x, want := range []string{"WithWidth", "WithWorkers"} {
		var oe *OptionError
		if !errors.As(joined.Unwrap()[x], &oe) || oe.Option != want {
			t.Errorf("joined error %d: %v, want an OptionError for %s", x, joined.Unwrap()[x], want)
		}
	}

	// Errors that are not about an option are not OptionErrors.
	if _, err := Learn(nil); err == nil || errors.As(err, new(*OptionError)) {
		t.Errorf("Learn(nil): error %v, want one that is not an OptionError", err)
	}
}

// TestErrorsNameTheCall: an error names the learner the caller called
// (Learn, not the LearnIsing or LearnPairwise it hands the samples to),
// and a backend that cannot solve the pairwise path's problems is refused
// up front as an OptionError for WithSolver, with one "pairwise: " prefix,
// not at the first regression (issue 30).
func TestErrorsNameTheCall(t *testing.T) {
	s2, err := NewSamples(2, [][]int{{0, 1, 1}, {1, 1, 0}, {1, 0, 1}, {0, 0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	s3, err := NewSamples(3, [][]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	given := []Option{WithWidth(1), WithMinEdgeWeight(0.1)}
	for _, tc := range []struct {
		name string
		err  error
		text string
	}{
		{"Learn k = 2, nil option", second(Learn(s2, nil)), "pairwise: Learn: option 0 is nil"},
		{"Learn k = 3, nil option", second(Learn(s3, WithWidth(1), nil)), "pairwise: Learn: option 1 is nil"},
		{"LearnIsing, nil option", second(LearnIsing(s2, nil)), "pairwise: LearnIsing: option 0 is nil"},
		{"LearnPairwise, nil option", second(LearnPairwise(s3, nil)), "pairwise: LearnPairwise: option 0 is nil"},
		{"Learn, ridge", second(Learn(s2, WithRidge(1), WithSolver(GroupMirror{}))), "pairwise: Learn: WithRidge needs the Accelerated backend (the default)"},
	} {
		if tc.err == nil || tc.err.Error() != tc.text {
			t.Errorf("%s: error %v, want %q", tc.name, tc.err, tc.text)
		}
	}
	for _, tc := range []struct {
		name string
		err  error
		fn   string
	}{
		{"Learn k = 3", second(Learn(s3, WithSolver(EntropicMirror{}))), "Learn"},
		{"Learn k = 3, λ and η", second(Learn(s3, append(given, WithSolver(EntropicMirror{Schedule: Paper}))...)), "Learn"},
		{"LearnPairwise k = 3", second(LearnPairwise(s3, append(given, WithSolver(EntropicMirror{}))...)), "LearnPairwise"},
		{"LearnPairwise k = 2", second(LearnPairwise(s2, append(given, WithSolver(&EntropicMirror{}))...)), "LearnPairwise"},
	} {
		var oe *OptionError
		if !errors.As(tc.err, &oe) || oe.Option != "WithSolver" || oe.Func != tc.fn {
			t.Errorf("%s: error %v, want an OptionError of %s for WithSolver", tc.name, tc.err, tc.fn)
			continue
		}
		if msg := tc.err.Error(); strings.Count(msg, "pairwise: ") != 1 || strings.Contains(msg, "node") || !strings.Contains(msg, "GroupMirror") {
			t.Errorf("%s: %q, want one prefix, no node, and the backend to use", tc.name, msg)
		}
	}
	// EntropicMirror stays fine on the Ising path, and a one-hot solver of
	// the caller's own lifts the refusal.
	if _, err := Learn(s2, append(given, WithSolver(EntropicMirror{}))...); err != nil {
		t.Errorf("Learn k = 2 with EntropicMirror: %v", err)
	}
	if _, err := Learn(s3, append(given, WithSolver(EntropicMirror{}), WithOneHotSolver(GroupMirror{}.oneHotSolver()))...); err != nil {
		t.Errorf("Learn k = 3 with EntropicMirror and a one-hot solver: %v", err)
	}
}

// TestOptionPrecedence: with WithRadius the regressions use the radius
// whatever the order of WithWidth, and Result.Width says no λ was used
// (it said the λ given beside the radius); a shard and its merge report
// the same. An invalid value is an error even when a later option repeats
// it validly, as the Option doc says (issue 30).
func TestOptionPrecedence(t *testing.T) {
	m := diamondIsing(6, 0.5)
	sm, err := NewExactSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sm.Sample(rand.NewPCG(30, 6), 2000)
	if err != nil {
		t.Fatal(err)
	}
	eta := WithMinEdgeWeight(0.5)
	want, err := Learn(s, WithRadius(1), eta)
	if err != nil {
		t.Fatal(err)
	}
	for name, opts := range map[string][]Option{
		"radius, then width": {WithRadius(1), WithWidth(5), eta},
		"width, then radius": {WithWidth(5), WithRadius(1), eta},
		"node widths":        {WithNodeWidths([]float64{5, 5, 5, 5, 5, 5}), WithRadius(1), eta},
	} {
		res, err := Learn(s, opts...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !math.IsNaN(res.Width) || res.Radius != 1 {
			t.Errorf("%s: Result.Width %v, Radius %v, want NaN and 1", name, res.Width, res.Radius)
		}
		if !slices.Equal(res.Edges, want.Edges) {
			t.Errorf("%s: edges %v, want those of radius 1 alone, %v", name, res.Edges, want.Edges)
		}
		part, err := LearnShard(s, 0, 1, opts...)
		if err != nil {
			t.Fatal(err)
		}
		merged, err := MergePartials(part)
		if err != nil {
			t.Fatal(err)
		}
		if !math.IsNaN(merged.Width) || merged.Radius != 1 {
			t.Errorf("%s, merged: Result.Width %v, Radius %v, want NaN and 1", name, merged.Width, merged.Radius)
		}
	}
	if res, err := Learn(s, WithWidth(5), eta); err != nil || res.Width != 5 || res.Radius != 10 {
		t.Errorf("WithWidth(5) alone: Width %v, Radius %v, error %v; want 5, 10", res.Width, res.Radius, err)
	}

	_, err = Learn(s, WithWidth(-1), WithWidth(1))
	var oe *OptionError
	if !errors.As(err, &oe) || oe.Option != "WithWidth" || oe.Value != -1.0 {
		t.Errorf("WithWidth(-1), WithWidth(1): error %v, want the OptionError of WithWidth(-1)", err)
	}
	if res, err := Learn(s, WithWidth(2), WithWidth(1), eta); err != nil || res.Width != 1 {
		t.Errorf("WithWidth(2), WithWidth(1): Width %v, error %v; want the last, 1", res.Width, err)
	}
}

// TestGibbsOptionErrors is TestOptionErrors for the Gibbs sampler, whose
// messages name the constructor.
func TestGibbsOptionErrors(t *testing.T) {
	m, err := NewModel(2, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opt    GibbsOption
		option string
		value  int
		text   string
	}{
		{GibbsBurnIn(-1), "GibbsBurnIn", -1, "pairwise: NewGibbsSampler: GibbsBurnIn(-1): want at least 0 sweeps"},
		{GibbsThin(0), "GibbsThin", 0, "pairwise: NewGibbsSampler: GibbsThin(0): want at least 1 sweep between kept samples"},
		{GibbsChains(-2), "GibbsChains", -2, "pairwise: NewGibbsSampler: GibbsChains(-2): want at least 1 chain"},
		{GibbsWorkers(0), "GibbsWorkers", 0, "pairwise: NewGibbsSampler: GibbsWorkers(0): want at least 1 worker"},
	} {
		_, err := NewGibbsSampler(m, tc.opt)
		var oe *OptionError
		if !errors.As(err, &oe) {
			t.Errorf("%s: error %v, want an *OptionError", tc.option, err)
			continue
		}
		if oe.Func != "NewGibbsSampler" || oe.Option != tc.option || oe.Value != any(tc.value) {
			t.Errorf("%s: OptionError{Func: %q, Option: %q, Value: %#v}, want NewGibbsSampler, %s, %d", tc.option, oe.Func, oe.Option, oe.Value, tc.option, tc.value)
		}
		if err.Error() != tc.text {
			t.Errorf("error text\n\t%s\nwant\n\t%s", err, tc.text)
		}
	}
}

// TestParseErrors checks the place and the value that every positioned
// error of the CSV readers carries, the message built from them (the
// words of the package's earlier untyped errors), and the file name a
// caller may add.
func TestParseErrors(t *testing.T) {
	type read func(*strings.Reader) (*Samples, error)
	plain := map[string]read{
		"ReadCSV":        func(r *strings.Reader) (*Samples, error) { return ReadCSV(r) },
		"ReadCSVCompact": func(r *strings.Reader) (*Samples, error) { return ReadCSVCompact(r) },
	}
	hist := map[string]read{
		"ReadHistogramCSV":        func(r *strings.Reader) (*Samples, error) { return ReadHistogramCSV(r) },
		"ReadHistogramCSVCompact": func(r *strings.Reader) (*Samples, error) { return ReadHistogramCSVCompact(r) },
	}
	for _, tc := range []struct {
		name         string
		readers      map[string]read
		in           string
		line, column int
		value        string
		text         string // after "pairwise: Func: "
	}{
		{"letter", plain, "a,b\n0,1\n1, x \n", 3, 2, "x", `line 3, column 2: "x" is not an integer (a missing value is written "NA" or "")`},
		{"too large", plain, "0,1\n1,70000\n", 2, 2, "70000", `line 2, column 2: "70000" exceeds the largest state 255: the learners take k ≤ 256 states`},
		{"negative", plain, "0,1\n-2,1\n", 2, 1, "-2", `line 2, column 1: "-2" is negative, want a state 0..k-1 or a spin -1 or +1`},
		{"spin after state", plain, "1,2\n-1,1\n", 2, 1, "-1", `line 2, column 1: "-1" is a spin, but line 1, column 2 has the state "2"; want all spins ±1 or all states 0..k-1`},
		{"state after spin", plain, "-1,1\n1,2\n", 2, 2, "2", `line 2, column 2: "2" is a state, but line 1, column 1 has the spin -1; want all spins ±1 or all states 0..k-1`},
		{"ragged", plain, "0,1,1\n1,0\n", 2, 0, "", "line 2 has 2 fields, want 3"},
		{"blank line", plain, "0,1\n\n1,0\n", 2, 0, "", "line 2 is blank, and blank lines are allowed only at the end of the input"},
		{"duplicate name", plain, "a,b,a\n0,1,0\n", 1, 3, "a", `line 1, column 3: duplicate name "a" (also column 1)`},
		{"number in header", plain, "a,2\n0,1\n", 1, 2, "2", `line 1, column 2: "2" is a number in the header line (column 1, "a", is not a number, which makes the first line a header of names)`},
		{"empty name", plain, "a, ,b\n0,1,0\n", 1, 2, "", `line 1, column 2: " ": empty name in the header line`},
		{"quote in name", plain, `a,"b"c` + "\n0,1\n", 1, 2, `"b"c`, `line 1, column 2: "\"b\"c": a name cannot contain a double quote`},
		{"count not a number", hist, "2,0,1\nx,1,1\n", 2, 1, "x", `line 2, column 1: count "x" is not a number`},
		{"count infinite", hist, "2,0,1\nInf,1,1\n", 2, 1, "Inf", `line 2, column 1: count "Inf" is not a finite number`},
		{"count negative", hist, "2,0,1\n-1,1,1\n", 2, 1, "-1", `line 2, column 1: count "-1" is negative`},
		{"one field", hist, "3\n", 1, 0, "", "line 1 has 1 field, want at least 2 (a count and one variable)"},
	} {
		for fn, rd := range tc.readers {
			t.Run(tc.name+"/"+fn, func(t *testing.T) {
				_, err := rd(strings.NewReader(tc.in))
				var pe *ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("error %v (%T), want a *ParseError", err, err)
				}
				if pe.Func != fn || pe.File != "" || pe.Line != tc.line || pe.Column != tc.column || pe.Value != tc.value || pe.Path != "" {
					t.Errorf("%+v, want Func %s, Line %d, Column %d, Value %q, no File or Path", *pe, fn, tc.line, tc.column, tc.value)
				}
				if want := "pairwise: " + fn + ": " + tc.text; err.Error() != want {
					t.Errorf("error text\n\t%s\nwant\n\t%s", err, want)
				}
				pe.File = "data.csv"
				if want := "data.csv: " + tc.text; pe.Error() != want {
					t.Errorf("with File: error text\n\t%s\nwant\n\t%s", pe, want)
				}
			})
		}
	}

	// Problems of the input as a whole have no place.
	for _, in := range []string{"", "a,b\n"} {
		_, err := ReadCSV(strings.NewReader(in))
		if errors.As(err, new(*ParseError)) || !errors.Is(err, ErrNoSamples) {
			t.Errorf("ReadCSV(%q): error %v, want ErrNoSamples and no ParseError", in, err)
		}
	}
	if _, err := ReadHistogramCSV(strings.NewReader("0,1\n0,0\n")); err == nil || errors.As(err, new(*ParseError)) {
		t.Errorf("zero counts: error %v, want one that is not a ParseError", err)
	}
}

// TestModelParseErrors checks the ParseErrors of ReadModel: line, column
// (bytes) and JSON path.
func TestModelParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name         string
		in           string
		line, column int
		path, text   string
	}{
		{"wrong size", "{\"n\": 2, \"k\": 2,\n \"couplings\": [{\"i\": 0, \"j\": 1, \"w\": [[0.5, -0.5, 1], [-0.5, 0.5]]}],\n \"fields\": [[0, 0], [0, 0]]}",
			2, 16, "couplings[0].w[0]", "pairwise: ReadModel: line 2, column 16: couplings[0].w[0]: 3 entries, want k = 2"},
		{"missing member", `{"n": 2, "k": 2, "couplings": []}`, 1, 1, "", `pairwise: ReadModel: line 1, column 1: missing member "fields"`},
		{"syntax", "{\"n\": 2,\n \"k\": 2 \"couplings\": []}", 2, 9, "", "pairwise: ReadModel: line 2, column 9: malformed JSON: invalid character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadModel(strings.NewReader(tc.in))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v, want a *ParseError", err)
			}
			if pe.Func != "ReadModel" || pe.Line != tc.line || pe.Column != tc.column || pe.Path != tc.path {
				t.Errorf("%+v, want line %d, column %d, path %q", *pe, tc.line, tc.column, tc.path)
			}
			if !strings.HasPrefix(err.Error(), tc.text) {
				t.Errorf("error text\n\t%s\nwant it to start with\n\t%s", err, tc.text)
			}
		})
	}
}

// TestPreconditionErrors checks the errors a caller can act on without
// reading their text: ErrNoSamples, AlphabetError and ErrEdgeTestTooLarge,
// each with the words the package gave before they were typed.
func TestPreconditionErrors(t *testing.T) {
	rows := func(k int) [][]int { return [][]int{{0, k - 1}, {1, 0}, {k - 1, 1}} }
	k3, err := NewSamples(3, rows(3))
	if err != nil {
		t.Fatal(err)
	}
	k300, err := NewSamples(300, rows(300))
	if err != nil {
		t.Fatal(err)
	}
	k256, err := NewSamples(256, rows(256))
	if err != nil {
		t.Fatal(err)
	}

	t.Run("alphabet", func(t *testing.T) {
		for _, tc := range []struct {
			err       func() error
			fn        string
			k, lo, hi int
			text      string
		}{
			{func() error { _, err := LearnIsing(k3, WithWidth(1), WithMinEdgeWeight(0.1)); return err }, "LearnIsing", 3, 2, 2,
				"pairwise: LearnIsing: alphabet size k = 3, want 2 (use LearnPairwise or Learn)"},
			{func() error { _, err := LearnPairwise(k300, WithWidth(1), WithMinEdgeWeight(0.1)); return err }, "LearnPairwise", 300, 2, 256,
				"pairwise: LearnPairwise: alphabet size k = 300, the learner supports at most 256"},
			{func() error { _, err := NewSamples(1, [][]int{{0}}); return err }, "NewSamples", 1, 2, MaxAlphabet,
				"pairwise: NewSamples: alphabet size k = 1, want at least 2"},
			{func() error { _, err := NewWeightedSamples(MaxAlphabet+1, [][]int{{0}}, []float64{1}); return err }, "NewWeightedSamples", MaxAlphabet + 1, 2, MaxAlphabet,
				fmt.Sprintf("pairwise: NewWeightedSamples: alphabet size k = %d exceeds the limit %d", MaxAlphabet+1, MaxAlphabet)},
			{func() error { _, err := NewModel(3, 1); return err }, "NewModel", 1, 2, MaxAlphabet,
				"pairwise: NewModel: alphabet size k = 1, want at least 2"},
		} {
			err := tc.err()
			var ae *AlphabetError
			if !errors.As(err, &ae) {
				t.Errorf("%s: error %v, want an *AlphabetError", tc.fn, err)
				continue
			}
			if *ae != (AlphabetError{Func: tc.fn, K: tc.k, Min: tc.lo, Max: tc.hi}) {
				t.Errorf("%+v, want Func %s, K %d, Min %d, Max %d", *ae, tc.fn, tc.k, tc.lo, tc.hi)
			}
			if err.Error() != tc.text {
				t.Errorf("error text\n\t%s\nwant\n\t%s", err, tc.text)
			}
		}
	})

	t.Run("no samples", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			err  error
			text string
		}{
			{"Learn of no rows", second(Learn(&Samples{})), "pairwise: Learn: no samples"}, // the call made, not the path it takes
			{"LearnIsing of no rows", second(LearnIsing(&Samples{k: 2})), "pairwise: LearnIsing: no samples"},
			{"NewSamples of no rows", second(NewSamples(2, nil)), "pairwise: NewSamples: no rows"},
			{"ReadCSVCompact of a header", second(ReadCSVCompact(strings.NewReader("a,b\n"))), "pairwise: ReadCSVCompact: no samples in input, only a header line"},
		} {
			if !errors.Is(tc.err, ErrNoSamples) || tc.err.Error() != tc.text {
				t.Errorf("%s: error %v, want %q matching ErrNoSamples", tc.name, tc.err, tc.text)
			}
		}
		if _, err := NewSamples(2, [][]int{{0, 2}}); errors.Is(err, ErrNoSamples) {
			t.Errorf("a bad value: error %v matches ErrNoSamples", err)
		}
	})

	t.Run("edge test too large", func(t *testing.T) {
		// n = 2, k = 256: k(k-1)/2 inverse Hessians of side 256, 17 GB,
		// above maxWaldBytes; refused before any fit.
		_, err := Learn(k256, WithWidth(1))
		if !errors.Is(err, ErrEdgeTestTooLarge) || !strings.Contains(err.Error(), "give the minimum edge weight with WithMinEdgeWeight") {
			t.Errorf("error %v, want ErrEdgeTestTooLarge", err)
		}
		if _, err := Learn(k3, WithWidth(1)); errors.Is(err, ErrEdgeTestTooLarge) {
			t.Errorf("k = 3: error %v matches ErrEdgeTestTooLarge", err)
		}
	})
}

// second returns the error of a two-result call.
func second[T any](_ T, err error) error { return err }
