package pairwise

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// withBitMin sets bitMinValues for one test (restored after it). Tests that
// call it must not run in parallel.
func withBitMin(t *testing.T, v int) {
	t.Helper()
	old := bitMinValues
	bitMinValues = v
	t.Cleanup(func() { bitMinValues = old })
}

// readBoth reads text with o twice, storing binary data as bits and as
// bytes, and checks that the first is stored as bits when wantBits. The
// bytes are read with the input's size known, so that the reader never
// stores bits (see readCSVOpts): the reference owes nothing to the bit
// store. sized tells whether the reader of bits knows the size.
func readBoth(t *testing.T, text string, o CSVOptions, sized, wantBits bool) (bits, byts *Samples) {
	t.Helper()
	read := func(min int) *Samples {
		withBitMin(t, min)
		var r io.Reader = strings.NewReader(text)
		if !sized && min == 1 {
			r = struct{ io.Reader }{r} // the size of the input unknown
		}
		s, err := ReadCSVWith(r, o)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	bits, byts = read(1), read(math.MaxInt)
	if (bits.bits != nil) != wantBits || byts.bits != nil {
		t.Fatalf("bits stored: %v and %v, want %v and false", bits.bits != nil, byts.bits != nil, wantBits)
	}
	return bits, byts
}

// checkSameSamples compares everything the readers of two samples see.
func checkSameSamples(t *testing.T, a, b *Samples) {
	t.Helper()
	if a.Len() != b.Len() || a.Vars() != b.Vars() || a.Alphabet() != b.Alphabet() || a.Weighted() != b.Weighted() ||
		a.TotalWeight() != b.TotalWeight() || !slices.Equal(a.Names(), b.Names()) || !slices.Equal(a.weights, b.weights) {
		t.Fatalf("sizes, alphabet, names or weights differ: %d×%d k=%d %v, %d×%d k=%d %v", a.Len(), a.Vars(), a.Alphabet(), a.weights, b.Len(), b.Vars(), b.Alphabet(), b.weights)
	}
	if !reflect.DeepEqual(a.Rows(), b.Rows()) {
		t.Fatal("the rows differ")
	}
	for m := range a.Len() {
		for i := range a.Vars() {
			if a.At(m, i) != b.At(m, i) {
				t.Fatalf("At(%d, %d): %d, want %d", m, i, a.At(m, i), b.At(m, i))
			}
		}
	}
	if !bytes.Equal(a.states8(), b.states8()) {
		t.Fatal("the unpacked states differ")
	}
	if fingerprint(a) != fingerprint(b) {
		t.Fatal("the fingerprints differ")
	}
	var wa, wb bytes.Buffer
	if err := a.WriteCSV(&wa); err != nil {
		t.Fatal(err)
	}
	if err := b.WriteCSV(&wb); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(wa.Bytes(), wb.Bytes()) {
		t.Fatal("WriteCSV differs")
	}
	ca, cb := a.Compact(), b.Compact()
	if !reflect.DeepEqual(ca.Rows(), cb.Rows()) || !slices.Equal(ca.weights, cb.weights) {
		t.Fatal("Compact differs")
	}
	ma, ia := mergeRows(a)
	mb, ib := mergeRows(b)
	if !reflect.DeepEqual(ma.Rows(), mb.Rows()) || !slices.Equal(ia, ib) {
		t.Fatal("mergeRows differs")
	}
}

// TestReadCSVBits reads binary files with the samples stored as bits (the
// threshold lowered to one value) and as bytes, and checks that the two
// are the same samples to every reader: rows, At, the bytes, the shards'
// fingerprint, WriteCSV, Compact and the learners' merge. The files: 0/1
// states and ±1 spins, with and without a header, row counts that end
// inside and at the end of a 64-row block, a quarter of the rows repeated,
// read plain, merging, as histograms, with the input's size known and not
// (the store sized from it, or grown). A file that turns out not binary on
// its last line or has a missing value is stored as bytes, the same rows
// as without bits.
func TestReadCSVBits(t *testing.T) {
	skipUnderRace(t) // one goroutine reads
	r := rand.New(rand.NewPCG(5, 6))
	const n = 70
	for _, count := range []int{1, 63, 64, 65, 300} {
		rows := make([][]int, count)
		for m := range rows {
			if m > 0 && r.IntN(4) == 0 {
				rows[m] = rows[r.IntN(m)]
				continue
			}
			rows[m] = make([]int, n)
			for i := range rows[m] {
				rows[m][i] = r.IntN(2)
			}
		}
		for _, spins := range []bool{false, true} {
			for _, hist := range []bool{false, true} {
				var sb strings.Builder
				if count%2 == 1 {
					if hist {
						sb.WriteString("count,")
					}
					for i := range n {
						fmt.Fprintf(&sb, "v%d", i)
						if i < n-1 {
							sb.WriteByte(',')
						}
					}
					sb.WriteByte('\n')
				}
				for m, row := range rows {
					if hist {
						fmt.Fprintf(&sb, "%d,", 1+m%3)
					}
					for i, v := range row {
						if spins {
							v = 2*v - 1
						}
						fmt.Fprintf(&sb, "%d", v)
						if i < n-1 {
							sb.WriteByte(',')
						}
					}
					sb.WriteByte('\n')
				}
				text := sb.String()
				for _, compact := range []bool{false, true} {
					for _, sized := range []bool{false, true} {
						name := fmt.Sprintf("N=%d/spins=%v/hist=%v/compact=%v/sized=%v", count, spins, hist, compact, sized)
						t.Run(name, func(t *testing.T) {
							o := CSVOptions{Histogram: hist, Compact: compact}
							a, b := readBoth(t, text, o, sized, true)
							checkSameSamples(t, a, b)
							// Not binary on the last line: bytes.
							last := strings.LastIndexByte(text[:len(text)-1], ',')
							two := text[:last+1] + "2\n"
							if spins {
								two = text[:last+1] + "3\n" // a mix of spins and states: an error
								if _, err := ReadCSVWith(strings.NewReader(two), o); err == nil {
									t.Fatal("a mix of spins and states was read")
								}
								return
							}
							a, b = readBoth(t, two, o, sized, false)
							checkSameSamples(t, a, b)
							if a.Alphabet() != 3 {
								t.Fatalf("k = %d, want 3", a.Alphabet())
							}
							// A missing value: bytes.
							na := text[:last+1] + "NA\n"
							a, b = readBoth(t, na, o, sized, false)
							checkSameSamples(t, a, b)
							if !a.incomplete {
								t.Fatal("the missing value was lost")
							}
						})
					}
				}
			}
		}
	}
}

// TestLearnBitsIdentical learns from samples stored as bits and as bytes
// (the same CSV text) and checks that the results are the same bits: the
// Ising learner with λ and η given, screened from the first variable on
// and not, with the rows split among the workers and not; its shards and
// their merge against the one-process result on the bytes; and the
// tuning-free learner, whose edge test reads the bytes that bit samples
// unpack.
func TestLearnBitsIdentical(t *testing.T) {
	m := gridIsing(5, 6, rand.New(rand.NewPCG(31, 1)), 0.2, 0.5)
	s := drawExact(t, m, 2000, rand.NewPCG(31, 2))
	var buf bytes.Buffer
	if err := s.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	bits, byts := readBoth(t, buf.String(), CSVOptions{}, true, true)
	if r, err := newRun("test", bits, []Option{WithWidth(1), WithMinEdgeWeight(0.1)}, true); err != nil || r.d.Rows.Bits == nil {
		t.Fatalf("the engine does not get the bits (%v): the test would compare bytes with bytes", err)
	}
	given := []Option{WithWidth(m.Width()), WithMinEdgeWeight(m.MinEdgeWeight()), WithWorkers(2)}
	_, _, split := splitSize()
	for _, tc := range []struct {
		name string
		opts []Option
	}{
		{"screened", append(given, withScreen(1))},
		{"unscreened", append(given, withScreen(0))},
		{"screened/split", append(given, withScreen(1), split)},
		{"unscreened/split", append(given, withScreen(0), split)},
		{"default", []Option{WithWorkers(2)}},
		// The edge test in each node's support model, which large files
		// (more than selection.WaldDenseMax spins, most often bits) take.
		{"default/support-test", []Option{WithWorkers(2), withWaldDense(1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.HasPrefix(tc.name, "screened") {
				skipUnderRace(t) // the screened fits exercise the workers and the row split
			}
			want, err := LearnIsing(byts, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			got, err := LearnIsing(bits, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			checkSameResult(t, want, got)
			if len(want.Edges) == 0 {
				t.Fatal("no edge learned: the comparison is empty")
			}
			if tc.name != "screened" {
				return
			}
			parts := make([]*Partial, 3)
			for i := range parts {
				p, err := LearnShard(bits, i, len(parts), tc.opts...)
				if err != nil {
					t.Fatal(err)
				}
				parts[i] = roundTrip(t, p)
			}
			merged, err := MergePartialsContext(context.Background(), byts, 1, parts...)
			if err != nil {
				t.Fatal(err)
			}
			checkSameResult(t, want, merged)
		})
	}
}

// TestValueWeightsBits checks that the value weights of bit samples (read
// a row at a time) equal those of the same rows read as bytes, with merged
// rows' weights, and that counting them leaves the bits packed: the
// learners' warnings run at the end of every fit, and an unpacked copy of
// n = 5,000 × N = 10^5 bits is 500 MB.
func TestValueWeightsBits(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var sb strings.Builder
	for m := 0; m < 300; m++ {
		for i := 0; i < 37; i++ {
			if i > 0 {
				sb.WriteByte(',')
			}
			v := 0
			if r.IntN(4) == 0 || (m%7 == 0 && i < 3) {
				v = 1
			}
			sb.WriteString(strconv.Itoa(v))
		}
		sb.WriteByte('\n')
	}
	for _, compact := range []bool{false, true} {
		bits, byts := readBoth(t, sb.String(), CSVOptions{Compact: compact}, true, true)
		got, want := valueWeights(bits), valueWeights(byts)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("compact %v: value weights %v, want %v", compact, got, want)
		}
		if bits.lazy.b8 != nil {
			t.Fatalf("compact %v: valueWeights unpacked the bits", compact)
		}
	}
}
