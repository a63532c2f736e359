package pairwise

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
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
			s, err := readWideCSV(strings.NewReader(test.in))
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
		empty bool     // the error matches ErrNoSamples
	}{
		{name: "empty", in: "", want: []string{"ReadCSV", "no samples"}, empty: true},
		{name: "blank only", in: "\n \r\n\n", want: []string{"no samples"}, empty: true},
		{name: "header only", in: "a,b\n", want: []string{"no samples", "header"}, empty: true},
		{name: "ragged", in: "0,1,1\n1,0,0\n0,1,1\n1,1\n0,0,0\n", want: []string{"line 4 has 2 fields, want 3"}},
		{name: "ragged under header", in: "a,b,c,d\n0,1,1,0\n1,1,0\n", want: []string{"line 3 has 3 fields, want 4"}},
		{name: "too many fields", in: "0,1\n0,1,1\n", want: []string{"line 2 has 3 fields, want 2"}},
		{name: "letter", in: "0,1\n1,0\n1,x\n", want: []string{`pairwise: ReadCSV: line 3, column 2: "x" is not an integer`}},
		{name: "decimal", in: "0,1\n1.0,0\n", want: []string{`line 2, column 1: "1.0" is not an integer`}},
		{name: "na in a count-free file is fine, x is not", in: "0,NA,0\n0,x,0\n", want: []string{`line 2, column 2: "x" is not an integer (a missing value is written "NA" or "")`}},
		{name: "trailing comma", in: "0,1\n0,1,\n", want: []string{"line 2 has 3 fields, want 2"}},
		{name: "space inside", in: "0,1\n0,1 1\n", want: []string{`line 2, column 2: "1 1" is not an integer`}},
		{name: "sign only", in: "0,1\n-,1\n", want: []string{`line 2, column 1: "-" is not an integer`}},
		{name: "state too large", in: "0,1\n0,256\n", want: []string{`line 2, column 2: "256" exceeds the largest state 255: the learners take k ≤ 256 states`}},
		{name: "state 255 and a missing value", in: "0,255\n0,NA\n", want: []string{`line 2, column 2: "NA" is a missing value, and the file has the state 255`}},
		{name: "missing value and state 255", in: "0,\n255,1\n", want: []string{`line 2, column 1: "255" is a state, and line 1, column 2 has a missing value`}},
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
			if got := errors.Is(err, ErrNoSamples); got != test.empty {
				t.Errorf("errors.Is(err, ErrNoSamples) = %t, want %t", got, test.empty)
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
		{name: "empty count", in: "1,0\n,1\n", want: []string{`line 2, column 1: count "" is missing`}},
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
			if got := errors.Is(err, ErrNoSamples); got != test.empty {
				t.Errorf("errors.Is(err, ErrNoSamples) = %t, want %t", got, test.empty)
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
		return readWideHistogramCSV(&buf)
	}
	return readWideCSV(&buf)
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
	missing := false
	for m := 0; m < s.Len(); m++ {
		w := s.Weight(m)
		if !(w >= 0) || math.IsInf(w, 0) {
			t.Fatalf("Weight(%d) = %v", m, w)
		}
		total += w
		for i := 0; i < s.Vars(); i++ {
			v := s.At(m, i)
			if v == Missing {
				missing = true
				continue
			}
			if v < 0 || v >= s.Alphabet() {
				t.Fatalf("At(%d, %d) = %d outside [0, %d)", m, i, v, s.Alphabet())
			}
		}
	}
	if missing != s.Incomplete() {
		t.Fatalf("Incomplete() = %t, but a missing value found: %t", s.Incomplete(), missing)
	}
	if !(total > 0) || math.IsInf(total, 0) || total != s.TotalWeight() {
		t.Fatalf("weights sum to %v, TotalWeight() = %v", total, s.TotalWeight())
	}
}

// csvSeeds are fuzzing seeds for both readers.
var csvSeeds = []string{
	"NA,1\n0,NA\n,1\n",
	"a,b\n-1,NA\n1,\n",
	"0,254\nNA,0\n",
	"0,255\nNA,0\n",
	"q1,q2\n1,6\n NA ,3\n",
	"3,NA,1\n2,1,\n",
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

// compactCases are inputs for the merging readers: each must read as the
// plain reader followed by Compact.
var compactCases = []struct {
	name string
	in   string
	hist bool
}{
	{name: "repeats", in: "0,1,2\n2,1,0\n0,1,2\n0,0,0\n2,1,0\n0,1,2\n"},
	{name: "no repeats", in: "a,b\n0,1\n1,0\n"},
	{name: "spins", in: "x,y\n-1,1\n1,1\n-1,1\n"},
	{name: "one column", in: "4\n0\n4\n4\n"},
	// Rows switch from one to two bytes a value in the middle of line 4,
	// after rows 1 and 2 have been indexed.
	{name: "two-byte states", in: "0,255\n1,2\n0,255\n300,255\n1,2\n0,255\n300,255\n"},
	// Adjacent rows compared after widening (found by FuzzReadCSVCompact:
	// the two scratch keys of the index once shared memory).
	{name: "widening after a repeat", in: "0,255\n0,255\n0,1000\n0,255"},
	{name: "histogram", in: "count,a,b\n2,0,1\n0.5,1,1\n3,0,1\n0,1,1\n0,2,2\n", hist: true},
	{name: "histogram two-byte", in: "1,0,9\n2,500,0\n4,0,9\n", hist: true},
	{name: "long line", in: strings.Repeat(strings.Repeat("1,", 3000)+"0\n", 3), hist: false},
}

func TestReadCSVCompact(t *testing.T) {
	t.Parallel()
	// Many distinct rows, each repeated, grow the hash index several times.
	var many strings.Builder
	for rep := 0; rep < 3; rep++ {
		for m := 0; m < 3000; m++ {
			fmt.Fprintf(&many, "%d,%d,%d\n", m%7, (m/7)%11, m/77)
		}
	}
	cases := append(compactCases[:len(compactCases):len(compactCases)], struct {
		name string
		in   string
		hist bool
	}{name: "index grows", in: many.String()})
	for _, test := range cases {
		t.Run(test.name, func(t *testing.T) {
			read, readCompact, fn := readWideCSV, readWideCSVCompact, "ReadCSVCompact"
			if test.hist {
				read, readCompact, fn = readWideHistogramCSV, readWideHistogramCSVCompact, "ReadHistogramCSVCompact"
			}
			plain, err := read(strings.NewReader(test.in))
			if err != nil {
				t.Fatal(err)
			}
			want := wantOf(plain.Compact())
			got, err := readCompact(strings.NewReader(test.in))
			if err != nil {
				t.Fatalf("%s: %v", fn, err)
			}
			checkSamples(t, got, want)
			if got.Len() >= plain.Len() && plain.Len() > len(want.rows) {
				t.Errorf("%d rows stored, want fewer than the %d lines", got.Len(), plain.Len())
			}
		})
	}
	if s, err := ReadCSVCompact(strings.NewReader(many.String())); err != nil || s.Len() != 3000 || s.TotalWeight() != 9000 {
		t.Errorf("index grows: %v, want 3000 distinct rows of total weight 9000", err)
	}
}

// The merging readers report the errors of the plain ones, under their own
// name.
func TestReadCSVCompactErrors(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		name string
		in   string
		hist bool
		want string
	}{
		{name: "ragged", in: "0,1\n0,1\n1\n", want: "pairwise: ReadCSVCompact: line 3 has 1 fields, want 2"},
		{name: "letter", in: "0,1\n0,1\n1,x\n", want: `pairwise: ReadCSVCompact: line 3, column 2: "x" is not an integer`},
		{name: "empty", in: "", want: "pairwise: ReadCSVCompact: no samples in input"},
		{name: "header only", in: "a,b\n", want: "only a header line"},
		{name: "negative count", in: "1,0\n1,0\n-1,0\n", hist: true, want: `pairwise: ReadHistogramCSVCompact: line 3, column 1: count "-1" is negative`},
		{name: "zero total", in: "0,0\n0,0\n", hist: true, want: "every count is zero"},
		{name: "merged sum overflows", in: "1e308,0\n1e308,0\n", hist: true, want: "sum to +Inf"},
	} {
		t.Run(test.name, func(t *testing.T) {
			read := ReadCSVCompact
			if test.hist {
				read = ReadHistogramCSVCompact
			}
			s, err := read(strings.NewReader(test.in))
			if err == nil || !strings.Contains(err.Error(), test.want) {
				t.Errorf("error %v (samples %v), want one containing %q", err, s, test.want)
			}
		})
	}
}

func FuzzReadCSVCompact(f *testing.F) {
	for _, s := range csvSeeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	for _, c := range compactCases {
		f.Add([]byte(c.in), c.hist)
	}
	f.Fuzz(func(t *testing.T, data []byte, hist bool) {
		read, readCompact, fn, compactFn := ReadCSV, ReadCSVCompact, "ReadCSV", "ReadCSVCompact"
		if hist {
			read, readCompact, fn, compactFn = ReadHistogramCSV, ReadHistogramCSVCompact, "ReadHistogramCSV", "ReadHistogramCSVCompact"
		}
		got, err := readCompact(bytes.NewReader(data))
		plain, perr := read(bytes.NewReader(data))
		if perr != nil {
			// Merging can only turn an overflowing total into an
			// overflowing merged count, reported the same way.
			want := strings.Replace(perr.Error(), fn+":", compactFn+":", 1)
			if err == nil || err.Error() != want {
				t.Fatalf("%s: error %v, want %q", compactFn, err, want)
			}
			return
		}
		if err != nil {
			t.Fatalf("%s: %v, but %s reads the input", compactFn, err, fn)
		}
		checkReadValid(t, got)
		checkSamples(t, got, wantOf(plain.Compact()))
	})
}

func TestSamplesWithNames(t *testing.T) {
	t.Parallel()
	s, err := NewWeightedSamples(3, [][]int{{0, 2}, {1, 1}}, []float64{2, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	named, err := s.WithNames([]string{"left", "right"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Names() != nil {
		t.Errorf("the receiver got names %q", s.Names())
	}
	var buf bytes.Buffer
	if err := named.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	if want := "count,left,right\n2,0,2\n0.5,1,1\n"; buf.String() != want {
		t.Errorf("WriteCSV wrote %q, want %q", buf.String(), want)
	}
	back, err := ReadHistogramCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	checkSamples(t, back, wantOf(named))
	unnamed, err := named.WithNames(nil)
	if err != nil || unnamed.Names() != nil {
		t.Errorf("WithNames(nil): %v, names %q, want none", err, unnamed.Names())
	}
	for _, bad := range []struct {
		names []string
		want  string
	}{
		{[]string{"a"}, "pairwise: WithNames: 1 names for 2 variables"},
		{[]string{"a", "a"}, `variables 0 and 1 have the same name "a"`},
		{[]string{"a", "12"}, `variable 1: name "12" is an integer`},
		{[]string{"a,b", "c"}, "contains a comma"},
	} {
		if _, err := s.WithNames(bad.names); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("WithNames(%q) = %v, want an error containing %q", bad.names, err, bad.want)
		}
	}
}

// largeCSV returns a CSV text of rows random rows of n states below k (row
// m repeats row m-half when repeat is set, so that identical rows lie
// chunks apart), and the rows themselves.
func largeCSV(rows, n, k int, repeat bool, seed uint64) (string, [][]int) {
	r := rand.New(rand.NewPCG(seed, 3))
	var b strings.Builder
	want := make([][]int, rows)
	for m := range want {
		if repeat && m >= rows/2 {
			want[m] = want[m-rows/2]
		} else {
			want[m] = make([]int, n)
			for i := range want[m] {
				want[m][i] = r.IntN(k)
			}
		}
		for i, v := range want[m] {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(v))
		}
		b.WriteByte('\n')
	}
	return b.String(), want
}

// onlyReader hides every method of a reader but Read, as a pipe would.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// TestReadCSVStorage reads inputs larger than one storage chunk through
// every kind of reader the storage treats differently (size known from Len
// or from a file, size unknown), with the alphabet widening to two bytes
// after several chunks, lines growing longer than the first ones (so the
// size estimate falls short), and identical rows far apart for the merging
// reader.
func TestReadCSVStorage(t *testing.T) {
	t.Parallel()
	// 12000 rows of 7 values fill the first chunk of 65536 values and
	// start a second one.
	short, shortRows := largeCSV(12000, 7, 3, false, 1)
	long, longRows := largeCSV(12000, 7, 1000, false, 2) // states up to 999: lines 3 times longer
	wide := short + long                                 // widens to two bytes at row 12000
	wideRows := append(shortRows[:len(shortRows):len(shortRows)], longRows...)
	rep, repRows := largeCSV(24000, 7, 10, true, 3)
	file := filepath.Join(t.TempDir(), "wide.csv")
	if err := os.WriteFile(file, []byte(wide), 0o644); err != nil {
		t.Fatal(err)
	}
	open := func(t *testing.T) io.Reader {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	for _, test := range []struct {
		name string
		in   func(t *testing.T) io.Reader
		want [][]int
	}{
		{"short, size known", func(*testing.T) io.Reader { return strings.NewReader(short) }, shortRows},
		{"short, size unknown", func(*testing.T) io.Reader { return onlyReader{strings.NewReader(short)} }, shortRows},
		{"widening, size known", func(*testing.T) io.Reader { return strings.NewReader(wide) }, wideRows},
		{"widening, size unknown", func(*testing.T) io.Reader { return onlyReader{strings.NewReader(wide)} }, wideRows},
		{"widening, file", open, wideRows},
		{"repeats, size known", func(*testing.T) io.Reader { return strings.NewReader(rep) }, repRows},
	} {
		t.Run(test.name, func(t *testing.T) {
			s, err := readWideCSV(test.in(t))
			if err != nil {
				t.Fatal(err)
			}
			k := 0
			for _, row := range test.want {
				k = max(k, slices.Max(row)+1)
			}
			checkSamples(t, s, csvWant{k: k, rows: test.want})

			// The merging reader gives the compacted rows, whatever the
			// chunk boundaries.
			c, err := readWideCSVCompact(test.in(t))
			if err != nil {
				t.Fatal(err)
			}
			checkSamples(t, c, wantOf(s.Compact()))
			if c.Compact() != c {
				t.Error("Compact of compacted samples made a copy")
			}
		})
	}
}

// TestReadCSVMemory checks that reading an input of known size allocates
// about the compact size of the samples once, not the several copies that
// growing one slice leaves behind. It is not parallel: it measures the
// process's allocations.
func TestReadCSVMemory(t *testing.T) {
	in, _ := largeCSV(60000, 20, 2, false, 4)
	compact := 60000 * 20.0
	for _, test := range []struct {
		name  string
		r     func() io.Reader
		limit float64 // allowed bytes allocated, as a multiple of compact
	}{
		// One chunk sized from the estimate, 10% margin, plus the first
		// chunk and the line buffer.
		{"size known", func() io.Reader { return strings.NewReader(in) }, 1.25},
		// Chunks doubling (the last up to half empty) and joined at the
		// end: about 2 to 3 times.
		{"size unknown", func() io.Reader { return onlyReader{strings.NewReader(in)} }, 3.5},
	} {
		r := test.r()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s, err := ReadCSV(r)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		got := float64(after.TotalAlloc-before.TotalAlloc) / compact
		t.Logf("%s: allocated %.2f times the compact size", test.name, got)
		if got > test.limit {
			t.Errorf("%s: ReadCSV allocated %.2f times the compact size of %d rows, want at most %.2f", test.name, got, s.Len(), test.limit)
		}
	}
}

// readWide reads as ReadCSV (hist: ReadHistogramCSV; merge: the Compact
// variants) with the alphabet read from the data up to MaxAlphabet, so
// that the two-byte storage is tested.
func readWide(r io.Reader, hist, merge bool) (*Samples, error) {
	fn := map[[2]bool]string{{false, false}: "ReadCSV", {true, false}: "ReadHistogramCSV", {false, true}: "ReadCSVCompact", {true, true}: "ReadHistogramCSVCompact"}[[2]bool{hist, merge}]
	return readCSVOpts(r, fn, CSVOptions{Histogram: hist, Compact: merge, limit: MaxAlphabet})
}

func readWideCSV(r io.Reader) (*Samples, error)                 { return readWide(r, false, false) }
func readWideHistogramCSV(r io.Reader) (*Samples, error)        { return readWide(r, true, false) }
func readWideCSVCompact(r io.Reader) (*Samples, error)          { return readWide(r, false, true) }
func readWideHistogramCSVCompact(r io.Reader) (*Samples, error) { return readWide(r, true, true) }

// FuzzReadCSVWith reads the input with missing-value markers and a stated
// alphabet drawn from the fuzzer's bytes, and checks what ReadCSVWith
// promises: no panic; an error with the prefix, or samples that are valid,
// have the stated k, hold a missing value exactly where a marker stood
// (compared with reading the same input with the markers as states of a
// list), and survive a round trip through WriteCSV.
func FuzzReadCSVWith(f *testing.F) {
	for _, s := range csvSeeds {
		f.Add([]byte(s), uint8(0), "NA", false)
		f.Add([]byte(s), uint8(3), "", true)
	}
	f.Add([]byte("0,1\n-99,1\n"), uint8(2), "-99", false)
	f.Add([]byte("1,2\n2,1\nx,1\n"), uint8(0), "x", true)
	f.Fuzz(func(t *testing.T, data []byte, k uint8, marker string, compact bool) {
		o := CSVOptions{Missing: []string{marker}, Compact: compact}
		if k >= 2 {
			o.Alphabet = int(k)
		}
		s, err := ReadCSVWith(bytes.NewReader(data), o)
		if err != nil {
			if s != nil {
				t.Fatalf("non-nil samples with error %v", err)
			}
			if !strings.HasPrefix(err.Error(), "pairwise: ReadCSVWith: ") {
				t.Fatalf("error %q lacks the package prefix", err)
			}
			return
		}
		checkReadValid(t, s)
		if o.Alphabet > 0 && s.Alphabet() != o.Alphabet {
			t.Fatalf("Alphabet() = %d, stated %d", s.Alphabet(), o.Alphabet)
		}
		if o.Alphabet > 0 && s.StateNotes() != nil {
			t.Fatalf("notes %v with a stated alphabet", s.StateNotes())
		}
		for _, n := range s.StateNotes() {
			if n.State < 0 || n.State >= s.Alphabet() || n.Count >= rareCount || len(n.Places) > n.Count {
				t.Fatalf("note %+v", n)
			}
		}
		var buf bytes.Buffer
		if err := s.WriteCSV(&buf); err != nil {
			t.Fatal(err)
		}
		// Read back with the markers it was read with; WriteCSV writes a
		// missing value as NA, so NA is one more when there are any. A
		// variable named NA and a missing value NA would be the same text:
		// such a file is not written back.
		markers := append([]string(nil), o.Missing...)
		for _, m := range markers {
			// A marker that is the text of a state ("0" while "00" was
			// read as state 0) would turn the written state into a
			// missing value: such a file is not written back either.
			if v, err := strconv.Atoi(m); err == nil && v >= 0 && v < s.Alphabet() && strconv.Itoa(v) == m {
				return
			}
		}
		if s.Incomplete() {
			if slices.Contains(s.Names(), "NA") {
				return
			}
			markers = append(markers, "NA")
		}
		back, err := ReadCSVWith(&buf, CSVOptions{Histogram: s.Weighted(), Alphabet: s.Alphabet(), Missing: markers})
		if err != nil {
			t.Fatalf("round trip: %v\n%s", err, buf.Bytes())
		}
		checkSamples(t, back, wantOf(s))
		if back.Incomplete() != s.Incomplete() {
			t.Fatalf("round trip: Incomplete() = %t, want %t", back.Incomplete(), s.Incomplete())
		}
	})
}
