package pairwise

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/internal/selection"
)

// randomSpinCSV returns rows × n random states 0/1 (P(1) = 0.3) as CSV
// text without a header.
func randomSpinCSV(rows, n int, r *rand.Rand) string {
	var sb strings.Builder
	for m := 0; m < rows; m++ {
		for i := 0; i < n; i++ {
			if i > 0 {
				sb.WriteByte(',')
			}
			v := 0
			if r.IntN(10) < 3 {
				v = 1
			}
			sb.WriteString(strconv.Itoa(v))
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// noUnpack returns the stages' data of bit samples whose Unpack fails
// the test: a stage that reads them must read the bits (issue 33).
func noUnpack(t *testing.T, s *Samples) *selection.Data {
	t.Helper()
	d := s.stages()
	if d.Bits == nil || d.RowBits == nil || d.Bytes != nil {
		t.Fatal("the samples are not bits: the test would compare bytes with bytes")
	}
	d.Unpack = func() []uint8 {
		t.Fatal("a stage unpacked the bit samples into bytes")
		return nil
	}
	return d
}

// TestRowBits checks the row-major bits of bit samples (Samples.rowBits,
// a 64×64 transpose a block) against the rows read one by one, and
// Data.Row and Data.At against the bytes, on sizes that cut the blocks
// of 64 rows and of 64 variables (1 to 130 variables, 1 to 200 rows).
func TestRowBits(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 7))
	for _, sz := range [][2]int{{1, 1}, {70, 1}, {5, 63}, {64, 64}, {200, 130}, {129, 65}} {
		rows, n := sz[0], sz[1]
		t.Run(fmt.Sprintf("%dx%d", rows, n), func(t *testing.T) {
			bits, byts := readBoth(t, randomSpinCSV(rows, n, r), CSVOptions{}, true, true)
			d, want := noUnpack(t, bits), byts.stages()
			rb, w := d.RowBits(), (n+63)/64
			if len(rb) != rows*w {
				t.Fatalf("%d words, want %d", len(rb), rows*w)
			}
			buf := make([]uint8, n)
			for m := 0; m < rows; m++ {
				row := d.Row(buf, m)
				for j := 0; j < n; j++ {
					z := byts.b8[m*n+j]
					if b := uint8(rb[m*w+j/64] >> (j % 64) & 1); b != z {
						t.Fatalf("row %d, variable %d: bit %d, want %d", m, j, b, z)
					}
					if row[j] != z || d.At(m, j) != z || want.At(m, j) != z {
						t.Fatalf("row %d, variable %d: Row %d, At %d, want %d", m, j, row[j], d.At(m, j), z)
					}
				}
				for j := n; j < 64*w; j++ {
					if rb[m*w+j/64]>>(j%64)&1 != 0 {
						t.Fatalf("row %d: bit %d past n = %d set", m, j, n)
					}
				}
			}
		})
	}
}

// TestSupportSubsetBits checks that the support model's sums read from
// bit samples (row-major bits, selection.Data.RowBits) are those read
// from the same rows as bytes, to the bit, for all spins (russianAll,
// from the bits' 8×8 transposes) and for subsets (russianChunk's loop),
// and that they never unpack the bits: 77 spins (a word of 64 and 13
// past it, five past the last block of eight) and 300 rows (a block of
// 64 cut), supports of 0, 3, 8 and 11 spins, weights with zeros.
func TestSupportSubsetBits(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 8))
	const n, rows = 77, 300
	bits, byts := readBoth(t, randomSpinCSV(rows, n, r), CSVOptions{}, true, true)
	for _, support := range []int{0, 3, 8, 11} {
		for _, bias := range []int{0, 40, n - 1} {
			t.Run(fmt.Sprintf("support=%d/bias=%d", support, bias), func(t *testing.T) {
				w := randomSupport(r, n, bias, support)
				task := &engine.Task{Bias: bias, Y: make([]float64, rows), C: make([]float64, rows)}
				for m := range rows {
					task.Y[m] = float64(2*int(byts.b8[m*n+bias]) - 1)
					if r.IntN(10) > 0 {
						task.C[m] = r.Float64()
					}
				}
				d := noUnpack(t, bits)
				u, uw := make([]float64, rows), make([]float64, rows)
				a, sd, dof := selection.SupportNode(d, task, w, u, nil)
				wa, wsd, wdof := selection.SupportNode(byts.stages(), task, w, uw, nil)
				if dof != wdof {
					t.Errorf("dof = %v, want %v", dof, wdof)
				}
				for m := range u {
					if u[m] != uw[m] {
						t.Fatalf("margin of row %d: %v, want %v", m, u[m], uw[m])
					}
				}
				for c := range wa {
					if a[c] != wa[c] || sd[c] != wsd[c] {
						t.Errorf("spin %d: %v, %v; from bytes %v, %v", c, a[c], sd[c], wa[c], wsd[c])
					}
				}
				for range 5 {
					js := r.Perm(n)[:1+r.IntN(n/2)]
					sa, ss, _ := selection.SupportNode(d, task, w, u, js)
					for x, c := range js {
						if sa[x] != wa[c] || ss[x] != wsd[c] {
							t.Errorf("spin %d of subset %v: %v, %v; from bytes %v, %v", c, js, sa[x], ss[x], wa[c], wsd[c])
						}
					}
				}
			})
		}
	}
}

// TestLearnBitsNoUnpack learns a sparse model of 300 spins (more than
// selection.WaldDenseMax: the sparse edge test) from bit samples with
// the tuning-free default, in one process and in shards, and checks
// that the result is that of the same rows as bytes, to the bit, and
// that no stage unpacked the bits (Samples.states8 keeps what it makes
// in lazy.b8): at 10⁶ rows of 1,000 spins those bytes were a gigabyte,
// eight times the samples (issue 33). The second model is weak enough
// that the EBIC graph stage chooses the graph, so that its refits and the
// test of independence read the bits too.
func TestLearnBitsNoUnpack(t *testing.T) {
	skipUnderRace(t) // 300 spins' fits and edge test: seconds under -race
	if testing.Short() {
		t.Skip("300 spins with the default: a few seconds")
	}
	for _, c := range []struct {
		seed      uint64
		lo, hi    float64 // the couplings' magnitudes
		rows      int
		ebicGraph bool // the EBIC graph stage chooses the graph
	}{
		{33, 0.6, 0.9, 1000, false},
		// Weak couplings, few rows: the global test of independence
		// rejects and the EBIC graph stage (its refits on the rows)
		// chooses the graph.
		{1, 0.15, 0.25, 300, true},
	} {
		r := rand.New(rand.NewPCG(c.seed, 9))
		m := sparseModel(t, 300, 2, c.lo, c.hi, r)
		s := drawExact(t, m, c.rows, rand.NewPCG(c.seed, 10))
		var buf bytes.Buffer
		if err := s.WriteCSV(&buf); err != nil {
			t.Fatal(err)
		}
		bits, byts := readBoth(t, buf.String(), CSVOptions{}, true, true)
		opts := []Option{WithWorkers(2)}
		want, err := LearnIsing(byts, opts...)
		if err != nil {
			t.Fatal(err)
		}
		got, err := LearnIsing(bits, opts...)
		if err != nil {
			t.Fatal(err)
		}
		checkSameResult(t, want, got)
		if len(want.Edges) == 0 {
			t.Fatal("no edge learned: the comparison is empty")
		}
		if want.Tuning.EBICGraph != c.ebicGraph {
			t.Fatalf("seed %d: the EBIC graph stage chose the graph: %v, want %v (the case does not test what it says)", c.seed, want.Tuning.EBICGraph, c.ebicGraph)
		}
		parts := make([]*Partial, 2)
		for i := range parts {
			if parts[i], err = LearnShard(bits, i, len(parts), opts...); err != nil {
				t.Fatal(err)
			}
		}
		merged, err := MergePartialsContext(context.Background(), bits, 2, parts...)
		if err != nil {
			t.Fatal(err)
		}
		checkSameResult(t, want, merged)
		if bits.lazy.b8 != nil {
			t.Fatalf("seed %d: the learner unpacked the bit samples into bytes", c.seed)
		}
	}
}
