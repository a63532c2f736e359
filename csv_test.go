package pairwise

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// csvWant is the expected content of samples read from CSV.
type csvWant struct {
	k       int
	rows    [][]int
	weights []float64 // nil for unweighted samples
	names   []string
}

// checkSamples fails t unless s holds exactly want.
func checkSamples(t *testing.T, s *Samples, want csvWant) {
	t.Helper()
	if s.Alphabet() != want.k {
		t.Errorf("Alphabet() = %d, want %d", s.Alphabet(), want.k)
	}
	if s.Len() != len(want.rows) {
		t.Fatalf("Len() = %d, want %d", s.Len(), len(want.rows))
	}
	if s.Vars() != len(want.rows[0]) {
		t.Fatalf("Vars() = %d, want %d", s.Vars(), len(want.rows[0]))
	}
	if got := s.Rows(); !reflect.DeepEqual(got, want.rows) {
		t.Errorf("rows = %v, want %v", got, want.rows)
	}
	if s.Weighted() != (want.weights != nil) {
		t.Errorf("Weighted() = %t, want %t", s.Weighted(), want.weights != nil)
	}
	total := float64(len(want.rows))
	if want.weights != nil {
		total = 0
		for m, w := range want.weights {
			total += w
			if s.Weight(m) != w {
				t.Errorf("Weight(%d) = %v, want %v", m, s.Weight(m), w)
			}
		}
	}
	if s.TotalWeight() != total {
		t.Errorf("TotalWeight() = %v, want %v", s.TotalWeight(), total)
	}
	if got := s.Names(); !reflect.DeepEqual(got, want.names) {
		t.Errorf("Names() = %q, want %q", got, want.names)
	}
}

func TestReadCSV(t *testing.T) {
	t.Parallel()
	wide := make([]string, 5000) // longer than bufio's default 4096-byte buffer
	wideRow := make([]int, len(wide))
	for i := range wide {
		wide[i] = strconv.Itoa(i % 3)
		wideRow[i] = i % 3
	}
	for _, test := range []struct {
		name string
		in   string
		want csvWant
	}{
		{
			name: "states",
			in:   "0,1,2\n2,1,0\n0,0,0\n",
			want: csvWant{k: 3, rows: [][]int{{0, 1, 2}, {2, 1, 0}, {0, 0, 0}}},
		},
		{
			name: "no final newline",
			in:   "0,1\n1,0",
			want: csvWant{k: 2, rows: [][]int{{0, 1}, {1, 0}}},
		},
		{
			name: "all zero has k 2",
			in:   "0,0\n0,0\n",
			want: csvWant{k: 2, rows: [][]int{{0, 0}, {0, 0}}},
		},
		{
			name: "all one reads as state 1",
			in:   "1,1\n",
			want: csvWant{k: 2, rows: [][]int{{1, 1}}},
		},
		{
			name: "spins",
			in:   "-1,1,+1\n1,-1,-1\n",
			want: csvWant{k: 2, rows: [][]int{{0, 1, 1}, {1, 0, 0}}},
		},
		{
			name: "all minus one",
			in:   "-1\n-1\n",
			want: csvWant{k: 2, rows: [][]int{{0}, {0}}},
		},
		{
			name: "header",
			in:   "a,b,c\n0,1,3\n",
			want: csvWant{k: 4, rows: [][]int{{0, 1, 3}}, names: []string{"a", "b", "c"}},
		},
		{
			name: "quoted header and spaces",
			in:   ` "x 1" , y,"z"` + "\n 1 ,\t0, 1 \n",
			want: csvWant{k: 2, rows: [][]int{{1, 0, 1}}, names: []string{"x 1", "y", "z"}},
		},
		{
			name: "header with spins",
			in:   "s1,s2\n-1,1\n",
			want: csvWant{k: 2, rows: [][]int{{0, 1}}, names: []string{"s1", "s2"}},
		},
		{
			name: "CRLF",
			in:   "a,b\r\n0,2\r\n1,1\r\n",
			want: csvWant{k: 3, rows: [][]int{{0, 2}, {1, 1}}, names: []string{"a", "b"}},
		},
		{
			name: "trailing blank lines",
			in:   "0,1\n1,1\n\n  \r\n\n",
			want: csvWant{k: 2, rows: [][]int{{0, 1}, {1, 1}}},
		},
		{
			name: "byte order mark",
			in:   "\ufeffa,b\n0,1\n",
			want: csvWant{k: 2, rows: [][]int{{0, 1}}, names: []string{"a", "b"}},
		},
		{
			name: "one column",
			in:   "4\n0\n",
			want: csvWant{k: 5, rows: [][]int{{4}, {0}}},
		},
		{
			name: "leading zeros and signs",
			in:   "007,+2,-0\n",
			want: csvWant{k: 8, rows: [][]int{{7, 2, 0}}},
		},
		{
			name: "two-byte states",
			in:   "0,300\n255,256\n",
			want: csvWant{k: 301, rows: [][]int{{0, 300}, {255, 256}}},
		},
		{
			name: "largest state",
			in:   "65535\n",
			want: csvWant{k: MaxAlphabet, rows: [][]int{{65535}}},
		},
		{
			name: "long line",
			in:   strings.Join(wide, ",") + "\n" + strings.Join(wide, ",") + "\n",
			want: csvWant{k: 3, rows: [][]int{wideRow, wideRow}},
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			s, err := ReadCSV(strings.NewReader(test.in))
			if err != nil {
				t.Fatalf("ReadCSV: %v", err)
			}
			checkSamples(t, s, test.want)
		})
	}
}

func TestReadCSVErrors(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		name  string
		in    string
		want  []string // substrings of the error text
		empty bool     // the error matches errEmpty
	}{
		{name: "empty", in: "", want: []string{"ReadCSV", "no samples"}, empty: true},
		{name: "blank only", in: "\n \r\n\n", want: []string{"no samples"}, empty: true},
		{name: "header only", in: "a,b\n", want: []string{"no samples", "header"}, empty: true},
		{name: "ragged", in: "0,1,1\n1,0,0\n0,1,1\n1,1\n0,0,0\n", want: []string{"line 4 has 2 fields, want 3"}},
		{name: "ragged under header", in: "a,b,c,d\n0,1,1,0\n1,1,0\n", want: []string{"line 3 has 3 fields, want 4"}},
		{name: "too many fields", in: "0,1\n0,1,1\n", want: []string{"line 2 has 3 fields, want 2"}},
		{name: "letter", in: "0,1\n1,0\n1,x\n", want: []string{`pairwise: ReadCSV: line 3, column 2: "x" is not an integer`}},
		{name: "decimal", in: "0,1\n1.0,0\n", want: []string{`line 2, column 1: "1.0" is not an integer`}},
		{name: "empty field", in: "0,1,0\n0,,0\n", want: []string{`line 2, column 2: "" is not an integer`}},
		{name: "trailing comma", in: "0,1\n0,1,\n", want: []string{"line 2 has 3 fields, want 2"}},
		{name: "space inside", in: "0,1\n0,1 1\n", want: []string{`line 2, column 2: "1 1" is not an integer`}},
		{name: "sign only", in: "0,1\n-,1\n", want: []string{`line 2, column 1: "-" is not an integer`}},
		{name: "state too large", in: "0,1\n0,65536\n", want: []string{`line 2, column 2: "65536" exceeds the largest state 65535`}},
		{name: "huge number", in: "0,1\n0,99999999999999999999999\n", want: []string{`line 2, column 2: "99999999999999999999999" exceeds`}},
		{name: "minus two", in: "0,1\n-2,1\n", want: []string{`line 2, column 1: "-2" is negative`}},
		{name: "huge negative", in: "0,1\n-99999999999999999999999,1\n", want: []string{`line 2, column 1: "-99999999999999999999999" is negative`}},
		{name: "spin then state 2", in: "-1,1\n1,2\n", want: []string{`line 2, column 2: "2" is a state`, "line 1, column 1 has the spin -1"}},
		{name: "state 0 then spin", in: "1,0\n-1,1\n", want: []string{`line 2, column 1: "-1" is a spin`, `line 1, column 2 has the state "0"`}},
		{name: "mix in one line", in: "a,b\n0,-1\n", want: []string{`line 2, column 2: "-1" is a spin`, "line 2, column 1"}},
		{name: "blank line in the middle", in: "0,1\n\n1,0\n", want: []string{"line 2 is blank"}},
		{name: "leading blank line", in: "\n0,1\n", want: []string{"line 1 is blank"}},
		{name: "duplicate names", in: "a,b,a\n0,1,0\n", want: []string{`line 1, column 3: duplicate name "a" (also column 1)`}},
		{name: "empty name", in: "a,,c\n0,1,0\n", want: []string{"line 1, column 2", "empty name"}},
		{name: "quoted empty name", in: `a,"",c` + "\n0,1,0\n", want: []string{"line 1, column 2", "empty name"}},
		{name: "number in header", in: "a,1\n0,1\n", want: []string{`line 1, column 2: "1" is a number in the header`}},
		{name: "letter in first line", in: "0,x\n0,1\n", want: []string{`line 1, column 1: "0" is a number in the header`, `column 2, "x", is not a number`}},
		{name: "quote in name", in: `a,b"c` + "\n0,1\n", want: []string{"line 1, column 2", "double quote"}},
		{name: "bare CR line ends", in: "0,1\r1,0\r", want: []string{`line 1, column 1: "0" is a number in the header`, `column 2, "1\r1", is not a number`}},
	} {
		t.Run(test.name, func(t *testing.T) {
			s, err := ReadCSV(strings.NewReader(test.in))
			if err == nil {
				t.Fatalf("ReadCSV(%q) = %d rows, want an error", test.in, s.Len())
			}
			for _, w := range test.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if !strings.HasPrefix(err.Error(), "pairwise: ReadCSV: ") {
				t.Errorf("error %q lacks the prefix %q", err, "pairwise: ReadCSV: ")
			}
			if got := errors.Is(err, errEmpty); got != test.empty {
				t.Errorf("errors.Is(err, errEmpty) = %t, want %t", got, test.empty)
			}
		})
	}
}

func TestReadHistogramCSV(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		name string
		in   string
		want csvWant
	}{
		{
			name: "integer counts",
			in:   "3,0,1\n1,2,2\n",
			want: csvWant{k: 3, rows: [][]int{{0, 1}, {2, 2}}, weights: []float64{3, 1}},
		},
		{
			name: "non-integer weights",
			in:   "0.25,0\n0.75,1\n",
			want: csvWant{k: 2, rows: [][]int{{0}, {1}}, weights: []float64{0.25, 0.75}},
		},
		{
			name: "exponent and zero count",
			in:   "1e3,1,0\n0,0,0\n-0,1,1\n",
			want: csvWant{k: 2, rows: [][]int{{1, 0}, {0, 0}, {1, 1}}, weights: []float64{1000, 0, 0}},
		},
		{
			name: "spins with header",
			in:   "n, s1, s2\r\n2,-1,1\r\n5, 1,1\r\n",
			want: csvWant{k: 2, rows: [][]int{{0, 1}, {1, 1}}, weights: []float64{2, 5}, names: []string{"s1", "s2"}},
		},
		{
			name: "count column named like a variable",
			in:   "count,count,x\n1,0,4\n",
			want: csvWant{k: 5, rows: [][]int{{0, 4}}, weights: []float64{1}, names: []string{"count", "x"}},
		},
		{
			name: "trailing blank line",
			in:   "2,0\n\n",
			want: csvWant{k: 2, rows: [][]int{{0}}, weights: []float64{2}},
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			s, err := ReadHistogramCSV(strings.NewReader(test.in))
			if err != nil {
				t.Fatalf("ReadHistogramCSV: %v", err)
			}
			checkSamples(t, s, test.want)
		})
	}
}

func TestReadHistogramCSVErrors(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		name  string
		in    string
		want  []string
		empty bool
	}{
		{name: "empty", in: "", want: []string{"no samples"}, empty: true},
		{name: "header only", in: "count,a\n", want: []string{"no samples", "header"}, empty: true},
		{name: "negative count", in: "1,0\n-2,1\n", want: []string{`line 2, column 1: count "-2" is negative`}},
		{name: "NaN count", in: "1,0\nNaN,1\n", want: []string{`line 2, column 1: count "NaN" is not a finite number`}},
		{name: "Inf count", in: "1,0\n+Inf,1\n", want: []string{`line 2, column 1: count "+Inf" is not a finite number`}},
		{name: "overflowing count", in: "1,0\n1e999,1\n", want: []string{`line 2, column 1: count "1e999" is not a finite number`}},
		{name: "letter count", in: "c,a\n1,0\nx,1\n", want: []string{`line 3, column 1: count "x" is not a number`}},
		{name: "empty count", in: "1,0\n,1\n", want: []string{`line 2, column 1: count "" is not a number`}},
		{name: "all zero", in: "0,0\n0,1\n", want: []string{"every count is zero"}},
		{name: "sum overflows", in: "1e308,0\n1e308,1\n", want: []string{"sum to +Inf"}},
		{name: "one field", in: "3\n", want: []string{"line 1 has 1 field, want at least 2"}},
		{name: "ragged", in: "1,0,1\n1,0\n", want: []string{"line 2 has 2 fields, want 3"}},
		{name: "bad value", in: "1,0,1\n1,0,y\n", want: []string{`line 2, column 3: "y" is not an integer`}},
		{name: "mixed spins", in: "1,-1,1\n1,0,1\n", want: []string{`line 2, column 2: "0" is a state`}},
		{name: "number as count name", in: "2.5,a\n1,0\n", want: []string{`line 1, column 1: "2.5" is a number in the header`}},
		{name: "duplicate variable names", in: "c,a,a\n1,0,0\n", want: []string{`line 1, column 3: duplicate name "a" (also column 2)`}},
		{name: "blank line in the middle", in: "1,0\n \n1,1\n", want: []string{"line 2 is blank"}},
	} {
		t.Run(test.name, func(t *testing.T) {
			s, err := ReadHistogramCSV(strings.NewReader(test.in))
			if err == nil {
				t.Fatalf("ReadHistogramCSV(%q) = %d rows, want an error", test.in, s.Len())
			}
			for _, w := range test.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if !strings.HasPrefix(err.Error(), "pairwise: ReadHistogramCSV: ") {
				t.Errorf("error %q lacks the prefix %q", err, "pairwise: ReadHistogramCSV: ")
			}
			if got := errors.Is(err, errEmpty); got != test.empty {
				t.Errorf("errors.Is(err, errEmpty) = %t, want %t", got, test.empty)
			}
		})
	}
}

func TestWriteCSV(t *testing.T) {
	t.Parallel()
	states, err := NewSamples(3, [][]int{{0, 1, 2}, {2, 2, 0}})
	if err != nil {
		t.Fatal(err)
	}
	spins, err := NewSpinSamples([][]int{{-1, 1}, {1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	weighted, err := NewWeightedSamples(2, [][]int{{0, 1}, {1, 1}, {0, 0}}, []float64{3, 0.125, 1e20})
	if err != nil {
		t.Fatal(err)
	}
	named, err := ReadCSV(strings.NewReader("a, \"b\"\n0,1\n"))
	if err != nil {
		t.Fatal(err)
	}
	namedHist, err := ReadHistogramCSV(strings.NewReader("n,a,b\n2,0,1\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, test := range []struct {
		name string
		s    *Samples
		want string
	}{
		{name: "states", s: states, want: "0,1,2\n2,2,0\n"},
		{name: "spins as states", s: spins, want: "0,1\n1,1\n"},
		{name: "weighted", s: weighted, want: "3,0,1\n0.125,1,1\n1e+20,0,0\n"},
		{name: "names", s: named, want: "a,b\n0,1\n"},
		{name: "histogram names", s: namedHist, want: "count,a,b\n2,0,1\n"},
	} {
		t.Run(test.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := test.s.WriteCSV(&buf); err != nil {
				t.Fatalf("WriteCSV: %v", err)
			}
			if buf.String() != test.want {
				t.Errorf("WriteCSV wrote %q, want %q", buf.String(), test.want)
			}
		})
	}
}

// csvRoundTrip writes s and reads it back with ReadCSV or, for weighted
// samples, ReadHistogramCSV.
func csvRoundTrip(s *Samples) (*Samples, error) {
	var buf bytes.Buffer
	if err := s.WriteCSV(&buf); err != nil {
		return nil, err
	}
	if s.Weighted() {
		return ReadHistogramCSV(&buf)
	}
	return ReadCSV(&buf)
}

// wantOf describes s as a csvWant.
func wantOf(s *Samples) csvWant {
	w := csvWant{k: s.Alphabet(), rows: s.Rows(), names: s.Names()}
	if s.Weighted() {
		w.weights = s.Weights()
	}
	return w
}

func TestCSVRoundTrip(t *testing.T) {
	t.Parallel()
	big := make([][]int, 40)
	for m := range big {
		big[m] = []int{m % 7, (m * 37) % 300, 299 - m}
	}
	big[0][1] = 299 // k = 300 is the largest value + 1
	must := func(s *Samples, err error) *Samples {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, test := range []struct {
		name string
		s    *Samples
	}{
		{name: "states", s: must(NewSamples(4, [][]int{{0, 3, 1}, {2, 2, 2}, {0, 0, 3}}))},
		{name: "one variable", s: must(NewSamples(2, [][]int{{1}, {0}, {1}}))},
		{name: "spins", s: must(NewSpinSamples([][]int{{-1, 1, 1}, {-1, -1, -1}}))},
		{name: "k 300", s: must(NewSamples(300, big))},
		{name: "weighted", s: must(NewWeightedSamples(3, [][]int{{0, 2}, {1, 1}, {2, 0}}, []float64{0.1, 1.0 / 3, 0}))},
		{name: "weighted k 300", s: must(NewWeightedSamples(300, big[:3], []float64{1e-300, 7, 123456789012345678}))},
		{name: "names", s: must(ReadCSV(strings.NewReader("\ufeff \"x\" ,y z\n0,1\n1,2\n")))},
		{name: "histogram names", s: must(ReadHistogramCSV(strings.NewReader("w,count,b\n2.5,0,1\n1,1,1\n")))},
		{name: "compacted", s: must(NewSamples(3, [][]int{{0, 1}, {2, 2}, {0, 1}})).Compact()},
	} {
		t.Run(test.name, func(t *testing.T) {
			got, err := csvRoundTrip(test.s)
			if err != nil {
				t.Fatalf("round trip: %v", err)
			}
			checkSamples(t, got, wantOf(test.s))
		})
	}
}

// csvFailWriter fails every write after the first ok bytes.
type csvFailWriter struct{ ok int }

func (w *csvFailWriter) Write(p []byte) (int, error) {
	if len(p) <= w.ok {
		w.ok -= len(p)
		return len(p), nil
	}
	n := w.ok
	w.ok = 0
	return n, errors.New("disk full")
}

// csvFailReader returns its data, then an error.
type csvFailReader struct{ data string }

func (r *csvFailReader) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, errors.New("connection reset")
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestCSVIOErrors(t *testing.T) {
	t.Parallel()
	s, err := NewSamples(2, [][]int{{0, 1}, {1, 0}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.WriteCSV(&csvFailWriter{ok: 2}); err == nil || !strings.Contains(err.Error(), "pairwise: WriteCSV: disk full") {
		t.Errorf("WriteCSV to a failing writer: error %v, want one containing %q", err, "pairwise: WriteCSV: disk full")
	}
	_, err = ReadCSV(&csvFailReader{data: "0,1\n1,"})
	if err == nil || !strings.Contains(err.Error(), "pairwise: ReadCSV: line 2: connection reset") {
		t.Errorf("ReadCSV from a failing reader: error %v, want one containing %q", err, "line 2: connection reset")
	}
	_, err = ReadHistogramCSV(&csvFailReader{data: "1,0\n"})
	if err == nil || !strings.Contains(err.Error(), "connection reset") {
		t.Errorf("ReadHistogramCSV from a failing reader: error %v, want one containing %q", err, "connection reset")
	}
}

// checkReadValid fails t unless s satisfies the invariants every reader result
// must have.
func checkReadValid(t *testing.T, s *Samples) {
	t.Helper()
	if s.Len() < 1 || s.Vars() < 1 || s.Alphabet() < 2 || s.Alphabet() > MaxAlphabet {
		t.Fatalf("Len, Vars, Alphabet = %d, %d, %d", s.Len(), s.Vars(), s.Alphabet())
	}
	if names := s.Names(); names != nil && len(names) != s.Vars() {
		t.Fatalf("%d names for %d variables", len(names), s.Vars())
	}
	total := 0.0
	for m := 0; m < s.Len(); m++ {
		w := s.Weight(m)
		if !(w >= 0) || math.IsInf(w, 0) {
			t.Fatalf("Weight(%d) = %v", m, w)
		}
		total += w
		for i := 0; i < s.Vars(); i++ {
			if v := s.At(m, i); v < 0 || v >= s.Alphabet() {
				t.Fatalf("At(%d, %d) = %d outside [0, %d)", m, i, v, s.Alphabet())
			}
		}
	}
	if !(total > 0) || math.IsInf(total, 0) || total != s.TotalWeight() {
		t.Fatalf("weights sum to %v, TotalWeight() = %v", total, s.TotalWeight())
	}
}

// csvSeeds are fuzzing seeds for both readers.
var csvSeeds = []string{
	"0,1,2\n2,1,0\n",
	"a,b\n-1,1\n1,-1\n",
	"a,b\r\n0,2\r\n\r\n",
	"\ufeff\"x\",y\n3,0.5\n",
	"count,a,b\n2,0,1\n0.5,1,1\n",
	"1e3,1\n0,0\n",
	"0,300\n255,256\n",
	"1,2\n\n3,4\n",
	"NaN,1\n",
	"a,a\n0,0\n",
	"-1,2\n",
	"0,65536\n",
	"",
	"\n",
	"x\n",
	"1\r1\n",
	"\ufeff \"\ufeffa\" ,\" b \"\n1,0\n",
	"c,\"\"x\"\"\n1,0\n",
	"0x1p-2,1\n5e-324,0\n",
	"n,a\n-0,1\n1e-400,0\n2,1\n",
}

func FuzzReadCSV(f *testing.F) {
	for _, s := range csvSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadCSV(bytes.NewReader(data))
		if err != nil {
			if s != nil {
				t.Fatalf("non-nil samples with error %v", err)
			}
			if !strings.HasPrefix(err.Error(), "pairwise: ReadCSV: ") {
				t.Fatalf("error %q lacks the package prefix", err)
			}
			return
		}
		checkReadValid(t, s)
		if s.Weighted() {
			t.Fatal("ReadCSV returned weighted samples")
		}
		got, err := csvRoundTrip(s)
		if err != nil {
			t.Fatalf("round trip: %v", err)
		}
		checkSamples(t, got, wantOf(s))
	})
}

func FuzzReadHistogramCSV(f *testing.F) {
	for _, s := range csvSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadHistogramCSV(bytes.NewReader(data))
		if err != nil {
			if s != nil {
				t.Fatalf("non-nil samples with error %v", err)
			}
			if !strings.HasPrefix(err.Error(), "pairwise: ReadHistogramCSV: ") {
				t.Fatalf("error %q lacks the package prefix", err)
			}
			return
		}
		checkReadValid(t, s)
		if !s.Weighted() {
			t.Fatal("ReadHistogramCSV returned unweighted samples")
		}
		got, err := csvRoundTrip(s)
		if err != nil {
			t.Fatalf("round trip: %v", err)
		}
		checkSamples(t, got, wantOf(s))
	})
}

// The readers must not read the whole input before parsing: a reader that
// fails after the first bad line is never drained.
func TestReadCSVStreams(t *testing.T) {
	t.Parallel()
	r := io.MultiReader(strings.NewReader("0,1\nx,1\n"), &csvFailReader{})
	_, err := ReadCSV(r)
	if err == nil || !strings.Contains(err.Error(), `line 2, column 1: "x" is not an integer`) {
		t.Errorf("error %v, want the parse error of line 2 before the read error", err)
	}
}

func TestReadCSVFiles(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		file string
		read func(io.Reader) (*Samples, error)
		want csvWant
	}{
		{
			file: "spins.csv", // CRLF line ends, spins ±1
			read: ReadCSV,
			want: csvWant{
				k:     2,
				rows:  [][]int{{1, 1, 0}, {0, 0, 0}, {1, 1, 1}, {1, 0, 1}},
				names: []string{"smoker", "cough", "fever"},
			},
		},
		{
			file: "histogram.csv",
			read: ReadHistogramCSV,
			want: csvWant{
				k:       3,
				rows:    [][]int{{0, 0, 0}, {0, 1, 2}, {2, 2, 1}, {1, 0, 2}},
				weights: []float64{12, 3, 0.5, 4},
				names:   []string{"a", "b", "c"},
			},
		},
	} {
		t.Run(test.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", test.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			s, err := test.read(f)
			if err != nil {
				t.Fatal(err)
			}
			checkSamples(t, s, test.want)
		})
	}
}
