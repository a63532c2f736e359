package pairwise

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestNewSamplesErrors(t *testing.T) {
	t.Parallel()
	for _, test := range []struct {
		name string
		make func() (*Samples, error)
		want []string // substrings of the error text
	}{
		{
			name: "k 1",
			make: func() (*Samples, error) { return NewSamples(1, [][]int{{0}}) },
			want: []string{"pairwise: NewSamples:", "alphabet size k = 1, want at least 2"},
		},
		{
			name: "k 0 weighted",
			make: func() (*Samples, error) { return NewWeightedSamples(0, [][]int{{0}}, []float64{1}) },
			want: []string{"pairwise: NewWeightedSamples:", "k = 0"},
		},
		{
			name: "k too large",
			make: func() (*Samples, error) { return NewSamples(MaxAlphabet+1, [][]int{{0}}) },
			want: []string{"exceeds the limit 65536"},
		},
		{
			name: "no rows",
			make: func() (*Samples, error) { return NewSamples(2, nil) },
			want: []string{"no rows"},
		},
		{
			name: "no spin rows",
			make: func() (*Samples, error) { return NewSpinSamples([][]int{}) },
			want: []string{"pairwise: NewSpinSamples:", "no rows"},
		},
		{
			name: "empty row",
			make: func() (*Samples, error) { return NewSamples(2, [][]int{{}, {}}) },
			want: []string{"row 0 is empty"},
		},
		{
			name: "ragged",
			make: func() (*Samples, error) { return NewSamples(2, [][]int{{0, 1}, {1, 1}, {1}}) },
			want: []string{"row 2 has 1 values, want 2"},
		},
		{
			name: "ragged spins",
			make: func() (*Samples, error) { return NewSpinSamples([][]int{{1, 1}, {-1, 1, 1}}) },
			want: []string{"row 1 has 3 values, want 2"},
		},
		{
			name: "value out of range",
			make: func() (*Samples, error) { return NewSamples(3, [][]int{{0, 1}, {1, 3}}) },
			want: []string{"row 1, column 1: value 3 outside [0, 3)"},
		},
		{
			name: "negative value",
			make: func() (*Samples, error) { return NewSamples(3, [][]int{{-1, 1}}) },
			want: []string{"row 0, column 0: value -1 outside [0, 3)"},
		},
		{
			name: "bad spin",
			make: func() (*Samples, error) { return NewSpinSamples([][]int{{1, -1}, {1, 0}}) },
			want: []string{"row 1, column 1: value 0, want -1 or +1"},
		},
		{
			name: "weights length",
			make: func() (*Samples, error) { return NewWeightedSamples(2, [][]int{{0}, {1}, {1}}, []float64{1, 2}) },
			want: []string{"2 weights for 3 rows"},
		},
		{
			name: "negative weight",
			make: func() (*Samples, error) { return NewWeightedSamples(2, [][]int{{0}, {1}}, []float64{1, -1}) },
			want: []string{"row 1: weight -1 is negative"},
		},
		{
			name: "NaN weight",
			make: func() (*Samples, error) { return NewWeightedSamples(2, [][]int{{0}, {1}}, []float64{math.NaN(), 1}) },
			want: []string{"row 0: weight NaN, want a finite number"},
		},
		{
			name: "Inf weight",
			make: func() (*Samples, error) { return NewWeightedSamples(2, [][]int{{0}, {1}}, []float64{1, math.Inf(1)}) },
			want: []string{"row 1: weight +Inf, want a finite number"},
		},
		{
			name: "zero weights",
			make: func() (*Samples, error) { return NewWeightedSamples(2, [][]int{{0}, {1}}, []float64{0, 0}) },
			want: []string{"the weights sum to 0, want a positive finite total"},
		},
		{
			name: "weights overflow",
			make: func() (*Samples, error) {
				return NewWeightedSamples(2, [][]int{{0}, {1}}, []float64{math.MaxFloat64, math.MaxFloat64})
			},
			want: []string{"the weights sum to +Inf"},
		},
		{
			name: "bad value before bad weight",
			make: func() (*Samples, error) { return NewWeightedSamples(2, [][]int{{0}, {2}}, []float64{-1, 1}) },
			want: []string{"row 1, column 0: value 2 outside [0, 2)"},
		},
		{
			name: "bytes k 1",
			make: func() (*Samples, error) { return NewSamplesBytes(1, 1, []byte{0}, nil) },
			want: []string{"pairwise: NewSamplesBytes:", "k = 1, want at least 2"},
		},
		{
			name: "bytes no rows",
			make: func() (*Samples, error) { return NewSamplesBytes(2, 3, nil, nil) },
			want: []string{"pairwise: NewSamplesBytes: no rows"},
		},
		{
			name: "bytes n 0",
			make: func() (*Samples, error) { return NewSamplesBytes(2, 0, []byte{0}, nil) },
			want: []string{"n = 0 variables"},
		},
		{
			name: "bytes ragged",
			make: func() (*Samples, error) { return NewSamplesBytes(2, 2, []byte{0, 1, 1}, nil) },
			want: []string{"3 states are not rows of n = 2"},
		},
		{
			name: "bytes value",
			make: func() (*Samples, error) { return NewSamplesBytes(3, 2, []byte{0, 1, 2, 3}, nil) },
			want: []string{"row 1, column 1: value 3 outside [0, 3)"},
		},
		{
			name: "bytes weights length",
			make: func() (*Samples, error) { return NewSamplesBytes(2, 1, []byte{0, 1}, []float64{1}) },
			want: []string{"1 weights for 2 rows"},
		},
		{
			name: "bytes NaN weight",
			make: func() (*Samples, error) { return NewSamplesBytes(2, 1, []byte{0, 1}, []float64{1, math.NaN()}) },
			want: []string{"pairwise: NewSamplesBytes: row 1: weight NaN"},
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			s, err := test.make()
			if err == nil {
				t.Fatalf("got %d rows, want an error", s.Len())
			}
			if s != nil {
				t.Errorf("non-nil samples with error %v", err)
			}
			for _, w := range test.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestSamplesAccessors(t *testing.T) {
	t.Parallel()
	rows := [][]int{{0, 2, 1}, {1, 1, 1}, {2, 0, 0}, {0, 2, 1}}
	s, err := NewSamples(3, rows)
	if err != nil {
		t.Fatal(err)
	}
	rows[0][0] = 2 // NewSamples copies its input
	if s.At(0, 0) != 0 {
		t.Errorf("At(0, 0) = %d after changing the input, want 0", s.At(0, 0))
	}
	rows[0][0] = 0
	if s.Len() != 4 || s.Vars() != 3 || s.Alphabet() != 3 {
		t.Errorf("Len, Vars, Alphabet = %d, %d, %d, want 4, 3, 3", s.Len(), s.Vars(), s.Alphabet())
	}
	if s.Weighted() || s.TotalWeight() != 4 || s.Names() != nil {
		t.Errorf("Weighted, TotalWeight, Names = %t, %v, %q, want false, 4, nil", s.Weighted(), s.TotalWeight(), s.Names())
	}
	for m, row := range rows {
		if s.Weight(m) != 1 {
			t.Errorf("Weight(%d) = %v, want 1", m, s.Weight(m))
		}
		for i, v := range row {
			if s.At(m, i) != v {
				t.Errorf("At(%d, %d) = %d, want %d", m, i, s.At(m, i), v)
			}
		}
	}
	dst := make([]int, 1, 10)
	got := s.Row(dst, 2)
	if !reflect.DeepEqual(got, rows[2]) || &got[0] != &dst[0] {
		t.Errorf("Row(dst, 2) = %v (reused dst: %t), want %v in dst", got, &got[0] == &dst[0], rows[2])
	}
	if got := s.Rows(); !reflect.DeepEqual(got, rows) {
		t.Errorf("Rows() = %v, want %v", got, rows)
	}
	if got := s.Weights(); !reflect.DeepEqual(got, []float64{1, 1, 1, 1}) {
		t.Errorf("Weights() = %v, want all 1", got)
	}

	weights := []float64{0.5, 0, 2, 1.5}
	w, err := NewWeightedSamples(3, rows, weights)
	if err != nil {
		t.Fatal(err)
	}
	weights[0] = 100 // NewWeightedSamples copies its input
	if !w.Weighted() || w.TotalWeight() != 4 {
		t.Errorf("Weighted, TotalWeight = %t, %v, want true, 4", w.Weighted(), w.TotalWeight())
	}
	if got := w.Weights(); !reflect.DeepEqual(got, []float64{0.5, 0, 2, 1.5}) {
		t.Errorf("Weights() = %v, want [0.5 0 2 1.5]", got)
	}

	sp, err := NewSpinSamples([][]int{{-1, 1}, {1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if got := sp.Rows(); sp.Alphabet() != 2 || !reflect.DeepEqual(got, [][]int{{0, 1}, {1, 1}}) {
		t.Errorf("spin samples: k = %d, rows %v, want 2, [[0 1] [1 1]]", sp.Alphabet(), got)
	}
}

func TestSamplesPanics(t *testing.T) {
	t.Parallel()
	s, err := NewSamples(2, [][]int{{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, test := range []struct {
		name string
		f    func()
	}{
		{"At row", func() { s.At(1, 0) }},
		{"At negative row", func() { s.At(-1, 0) }},
		{"At column", func() { s.At(0, 2) }},
		{"Weight", func() { s.Weight(1) }},
		{"Row", func() { s.Row(nil, 1) }},
	} {
		t.Run(test.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil {
					t.Error("no panic")
				}
			}()
			test.f()
		})
	}
}

func TestSamplesWideAlphabet(t *testing.T) {
	t.Parallel()
	for _, k := range []int{256, 257, 300, MaxAlphabet} {
		rows := [][]int{{0, k - 1}, {k / 2, 255}, {k - 1, 0}}
		s, err := NewSamples(k, rows)
		if err != nil {
			t.Fatalf("k = %d: %v", k, err)
		}
		if got := s.Rows(); !reflect.DeepEqual(got, rows) {
			t.Errorf("k = %d: rows %v, want %v", k, got, rows)
		}
		if wide := s.b16 != nil; wide != (k > 256) || (s.b8 != nil) == wide {
			t.Errorf("k = %d: two-byte storage %t, want %t", k, wide, k > 256)
		}
	}
}

func TestCompact(t *testing.T) {
	t.Parallel()
	must := func(s *Samples, err error) *Samples {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	named := must(ReadCSV(strings.NewReader("a,b\n1,0\n0,1\n1,0\n")))
	for _, test := range []struct {
		name string
		s    *Samples
		want csvWant
	}{
		{
			name: "counts in order of first appearance",
			s:    must(NewSamples(3, [][]int{{2, 1}, {0, 0}, {2, 1}, {1, 1}, {0, 0}, {2, 1}})),
			want: csvWant{k: 3, rows: [][]int{{2, 1}, {0, 0}, {1, 1}}, weights: []float64{3, 2, 1}},
		},
		{
			name: "no duplicates",
			s:    must(NewSamples(4, [][]int{{0}, {1}})),
			want: csvWant{k: 4, rows: [][]int{{0}, {1}}, weights: []float64{1, 1}},
		},
		{
			name: "weights summed, zero kept",
			s:    must(NewWeightedSamples(2, [][]int{{0, 1}, {1, 1}, {0, 1}, {1, 0}}, []float64{0.5, 0, 2, 1})),
			want: csvWant{k: 2, rows: [][]int{{0, 1}, {1, 1}, {1, 0}}, weights: []float64{2.5, 0, 1}},
		},
		{
			name: "k 300",
			s:    must(NewSamples(300, [][]int{{299, 1}, {1, 299}, {299, 1}, {256, 1}, {0, 1}})),
			want: csvWant{k: 300, rows: [][]int{{299, 1}, {1, 299}, {256, 1}, {0, 1}}, weights: []float64{2, 1, 1, 1}},
		},
		{
			name: "names kept",
			s:    named,
			want: csvWant{k: 2, rows: [][]int{{1, 0}, {0, 1}}, weights: []float64{2, 1}, names: []string{"a", "b"}},
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			before := wantOf(test.s)
			c := test.s.Compact()
			checkSamples(t, c, test.want)
			if c.TotalWeight() != test.s.TotalWeight() {
				t.Errorf("TotalWeight() = %v, want %v as before", c.TotalWeight(), test.s.TotalWeight())
			}
			checkSamples(t, test.s, before) // the receiver is unchanged
		})
	}
}

func TestSamplesNamesCopy(t *testing.T) {
	t.Parallel()
	s, err := ReadCSV(strings.NewReader("a,b\n0,1\n"))
	if err != nil {
		t.Fatal(err)
	}
	s.Names()[0] = "changed"
	if got := s.Names(); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("Names() = %q after changing a returned copy, want [a b]", got)
	}
}

// TestNewSamplesBytes checks that states given as bytes make the same
// samples as the same rows given to NewSamples and NewWeightedSamples, and
// that z and the weights are copied.
func TestNewSamplesBytes(t *testing.T) {
	rows := [][]int{{0, 2, 1}, {1, 1, 0}, {2, 0, 2}, {0, 0, 1}}
	z := []byte{0, 2, 1, 1, 1, 0, 2, 0, 2, 0, 0, 1}
	w := []float64{1, 0.5, 2, 0.25}
	for _, k := range []int{3, 300} { // one byte a state, and two
		want, err := NewWeightedSamples(k, rows, w)
		if err != nil {
			t.Fatal(err)
		}
		got, err := NewSamplesBytes(k, 3, z, w)
		if err != nil {
			t.Fatal(err)
		}
		z[0], w[0] = 2, 9 // the samples hold copies
		if !reflect.DeepEqual(got.Rows(), want.Rows()) || got.Alphabet() != k || got.TotalWeight() != want.TotalWeight() || got.Weight(0) != 1 {
			t.Errorf("k = %d: rows %v, k %d, total %v; want %v, %d, %v", k, got.Rows(), got.Alphabet(), got.TotalWeight(), want.Rows(), k, want.TotalWeight())
		}
		z[0], w[0] = 0, 1
		plain, err := NewSamplesBytes(k, 3, z, nil)
		if err != nil {
			t.Fatal(err)
		}
		if plain.TotalWeight() != 4 || plain.Weight(2) != 1 {
			t.Errorf("k = %d without weights: total %v, weight %v; want 4 and 1", k, plain.TotalWeight(), plain.Weight(2))
		}
	}
}
