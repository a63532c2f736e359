package protein

import (
	"bytes"
	"compress/gzip"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The toy family of ../testdata/align in its three formats; all read to the
// same alignment.
var toyFiles = []struct {
	file   string
	format AlignmentFormat
}{
	{"family.fasta", FormatFASTA},
	{"family.a3m", FormatA2M},
	{"family.sto", FormatStockholm},
}

// toySeqs are the sequences of the toy family as ReadAlignment encodes
// them: lowercase letters of the FASTA file read as residues, the X of seq5
// as a gap, A3M inserts removed.
var toySeqs = []string{
	"MKVLAT-GDEHL",
	"MKVIAT-GDEHL",
	"MKVLSTAGDEHI",
	"MRVLAT-GNEHL",
	"MKILGTAGD-HL",
	"-KVLAT-GDEH-",
}

func TestReadAlignmentToy(t *testing.T) {
	for _, f := range toyFiles {
		for _, explicit := range []bool{false, true} {
			var opts []AlignmentOption
			if explicit {
				opts = append(opts, AlignFormat(f.format))
			}
			a, err := ReadAlignmentFile(filepath.Join("..", "testdata", "align", f.file), opts...)
			if err != nil {
				t.Fatalf("%s: %v", f.file, err)
			}
			r := a.Report()
			if r.Format != f.format {
				t.Errorf("%s: format %v, want %v", f.file, r.Format, f.format)
			}
			if a.Len() != 6 || a.Vars() != 12 || len(a.Alphabet()) != 21 {
				t.Fatalf("%s: %d sequences × %d columns over %d letters, want 6 × 12 over 21", f.file, a.Len(), a.Vars(), len(a.Alphabet()))
			}
			for s, want := range toySeqs {
				if got := a.Sequence(s); got != want {
					t.Errorf("%s: sequence %d = %s, want %s", f.file, s, got, want)
				}
			}
			if r.Unknown["X"] != 1 || r.UnknownSeqs != 1 || len(r.Unknown) != 1 {
				t.Errorf("%s: unknown letters %v in %d sequences, want X once in 1", f.file, r.Unknown, r.UnknownSeqs)
			}
			wantInserts := 0
			if f.format == FormatA2M {
				wantInserts = 5 // "wwy" and "gg"
			}
			if r.InsertsRemoved != wantInserts {
				t.Errorf("%s: %d inserts removed, want %d", f.file, r.InsertsRemoved, wantInserts)
			}
			if got := a.Name(2); !strings.HasPrefix(got, "seq3") {
				t.Errorf("%s: name 2 = %q", f.file, got)
			}
			// The state of a residue is its place in the alphabet.
			if got, want := a.At(0, 0), strings.IndexByte(ProteinAlphabet, 'M'); got != want {
				t.Errorf("%s: At(0, 0) = %d, want %d (M)", f.file, got, want)
			}
			if a.Focus() != -1 || !reflect.DeepEqual(a.Columns()[:3], []int{1, 2, 3}) {
				t.Errorf("%s: focus %d, columns %v, want -1 and 1, 2, 3, ...", f.file, a.Focus(), a.Columns())
			}
		}
	}
}

func TestReadAlignmentFocus(t *testing.T) {
	for _, f := range toyFiles {
		a, err := ReadAlignmentFile(filepath.Join("..", "testdata", "align", f.file), AlignFocus("FOCUS_TOY"))
		if err != nil {
			t.Fatalf("%s: %v", f.file, err)
		}
		// Column 7 is a gap in the focus; residues are numbered from 11.
		want := []int{11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21}
		if !reflect.DeepEqual(a.Columns(), want) {
			t.Errorf("%s: columns %v, want %v", f.file, a.Columns(), want)
		}
		if src := a.SourceColumns(); src[5] != 5 || src[6] != 7 {
			t.Errorf("%s: source columns %v skip the wrong column", f.file, src)
		}
		names := a.VarNames()
		if names[0] != "M11" || names[10] != "L21" {
			t.Errorf("%s: names %v", f.file, names)
		}
		r := a.Report()
		if r.DroppedFocus != 1 || r.Focus != a.Name(0) || r.FocusFirstIndex != 11 || a.Focus() != 0 {
			t.Errorf("%s: report %+v, focus %d", f.file, r, a.Focus())
		}
		s, err := a.Samples(nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s.Names(), names) || s.Len() != 6 || s.Vars() != 11 || s.Alphabet() != 21 {
			t.Errorf("%s: samples %d×%d k=%d names %v", f.file, s.Len(), s.Vars(), s.Alphabet(), s.Names())
		}
		if got := s.At(2, 4); got != a.At(2, 4) {
			t.Errorf("samples At(2, 4) = %d, want %d", got, a.At(2, 4))
		}
	}
}

func TestReadAlignmentFocusNumbering(t *testing.T) {
	// The focus has a lowercase residue (dropped column, but counted), a
	// gap (dropped, not counted) and an unknown letter (a residue, dropped
	// as its state is the gap). In A2M the lowercase letter is an insert,
	// removed from every sequence but still counted in the numbering.
	for _, test := range []struct {
		in      string
		opts    []AlignmentOption
		columns []int
		source  []int
		names   []string
	}{
		{
			in:      ">P/5-12\nAcD-EXF\n>Q\nACDEEEF\n",
			opts:    []AlignmentOption{AlignFocus("P")},
			columns: []int{5, 7, 8, 10},
			source:  []int{0, 2, 4, 6},
			names:   []string{"A5", "D7", "E8", "F10"},
		},
		{
			in:      ">P/5-12\nAcD-EXF\n>Q\nAcDEEEF\n",
			opts:    []AlignmentOption{AlignFocus("P"), AlignFormat(FormatA2M)},
			columns: []int{5, 7, 8, 10},
			source:  []int{0, 1, 3, 5},
			names:   []string{"A5", "D7", "E8", "F10"},
		},
		{
			// No "/start": numbering from 1; an exact name wins over a
			// prefix.
			in:      ">P/7\nAA\n>P\n-A\n",
			opts:    []AlignmentOption{AlignFocus("P")},
			columns: []int{1},
			source:  []int{1},
			names:   []string{"A1"},
		},
		{
			in:      ">P/7\nAA\n>P\n-A\n",
			opts:    []AlignmentOption{AlignFocus("P/7")},
			columns: []int{7, 8},
			source:  []int{0, 1},
			names:   []string{"A7", "A8"},
		},
		{
			// A caller's alphabet: '_' is the gap, '*' not a letter A-Z.
			in:      ">p/3-5\n_*^^\n>q\n**^_\n",
			opts:    []AlignmentOption{AlignFocus("p"), AlignAlphabet("_*^")},
			columns: []int{3, 4, 5},
			source:  []int{1, 2, 3},
			names:   []string{"col3", "col4", "col5"},
		},
	} {
		a, err := ReadAlignment(strings.NewReader(test.in), test.opts...)
		if err != nil {
			t.Fatalf("%q: %v", test.in, err)
		}
		if !reflect.DeepEqual(a.Columns(), test.columns) || !reflect.DeepEqual(a.SourceColumns(), test.source) || !reflect.DeepEqual(a.VarNames(), test.names) {
			t.Errorf("%q: columns %v, source %v, names %v; want %v, %v, %v", test.in, a.Columns(), a.SourceColumns(), a.VarNames(), test.columns, test.source, test.names)
		}
	}
}

func TestReadAlignmentAlphabetsAndFilters(t *testing.T) {
	// RNA: '.' is a gap; T is unknown; lowercase read as uppercase.
	a, err := ReadAlignment(strings.NewReader(">r1\nAC.GU\n>r2\nacTgu\n>r3\nAAAAA\n"), AlignAlphabet(RNAAlphabet))
	if err != nil {
		t.Fatal(err)
	}
	if a.Sequence(0) != "AC-GU" || a.Sequence(1) != "AC-GU" || a.Report().Unknown["T"] != 1 {
		t.Errorf("RNA: %s %s %v", a.Sequence(0), a.Sequence(1), a.Report())
	}
	// Dropping sequences with unknown letters, as plmc does.
	a, err = ReadAlignment(strings.NewReader(">r1\nAC.GU\n>r2\nacTgu\n>r3\nAAAAA\n"), AlignAlphabet(RNAAlphabet), AlignUnknownLetters(UnknownDropsSequence))
	if err != nil {
		t.Fatal(err)
	}
	if a.Len() != 2 || a.Name(1) != "r3" || a.Report().DroppedUnknown != 1 {
		t.Errorf("drop unknown: %d sequences %v, report %v", a.Len(), a.Names(), a.Report())
	}
	// A caller's alphabet with '.' as its gap (plmc's RNA example): '-' is
	// then unknown.
	a, err = ReadAlignment(strings.NewReader(">r1\nAC.GU\n>r2\nAC-GU\n>r3\nACAGU\n"), AlignAlphabet(".ACGU"))
	if err != nil {
		t.Fatal(err)
	}
	if a.At(0, 2) != 0 || a.At(1, 2) != 0 || a.Report().Unknown["-"] != 1 {
		t.Errorf("alphabet .ACGU: %v", a.Report())
	}

	// Filters: sequence s3 has 3 gaps of 5 (60%); after dropping it,
	// column 5 has 2 gaps of 3 (67%) and column 4 one (33%).
	in := ">s1\nACDE-\n>s2\nACD--\n>s3\nA---E\n>s4\nACDEF\n"
	a, err = ReadAlignment(strings.NewReader(in), AlignMaxSequenceGaps(0.5), AlignMaxColumnGaps(0.5))
	if err != nil {
		t.Fatal(err)
	}
	if a.Len() != 3 || a.Vars() != 4 || !reflect.DeepEqual(a.Columns(), []int{1, 2, 3, 4}) {
		t.Errorf("filters: %d × %d, columns %v", a.Len(), a.Vars(), a.Columns())
	}
	if r := a.Report(); r.DroppedSeqGaps != 1 || r.DroppedColGaps != 1 {
		t.Errorf("filters: report %v", r)
	}
	// At the boundary a fraction equal to the limit is kept.
	a, err = ReadAlignment(strings.NewReader(in), AlignMaxSequenceGaps(0.6))
	if err != nil || a.Len() != 4 {
		t.Errorf("sequence gaps 0.6: %v, want all 4 sequences kept", err)
	}

	// Weighted samples carry the weights.
	w := []float64{0.5, 1, 0.25}
	a, _ = ReadAlignment(strings.NewReader(in), AlignMaxSequenceGaps(0.5))
	s, err := a.Samples(w)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Weights(), w) || s.TotalWeight() != 1.75 {
		t.Errorf("weights %v, total %v", s.Weights(), s.TotalWeight())
	}
	if _, err := a.Samples([]float64{1}); err == nil {
		t.Error("Samples with 1 weight for 3 sequences: no error")
	}
	if _, err := a.Samples([]float64{1, math.NaN(), 1}); err == nil {
		t.Error("Samples with a NaN weight: no error")
	}
}

func TestReadAlignmentErrors(t *testing.T) {
	for _, test := range []struct {
		name string
		in   string
		opts []AlignmentOption
		want string // a substring of the error
	}{
		{"empty", "", nil, "no sequences in input"},
		{"blank", "\n  \n", nil, "no sequences in input"},
		{"unknown format", "\nhello\n", nil, "line 2: unknown format"},
		{"ragged FASTA", ">a\nAC\n>b\nA\n", nil, `line 3: sequence "b": ragged alignment: 1 letters, want 2 as sequence "a" (line 1)`},
		{"ragged A3M", ">a\nACd\n>b\nA\n", nil, `line 3: sequence "b": ragged alignment: 1 match columns`},
		{"name without sequence", ">a\n>b\nAC\n", nil, `line 1: sequence "a": name without sequence`},
		{"last name without sequence", ">a\nAC\n\n>b\n\n", nil, `line 4: sequence "b": name without sequence`},
		{"empty name", ">a\nAC\n> \nAC\n", nil, "line 3: empty name"},
		{"empty A2M sequence", ">a\nAC\n>b\nac..\n", []AlignmentOption{AlignFormat(FormatA2M)}, `line 3: sequence "b": empty sequence`},
		{"FASTA wanted", "# STOCKHOLM 1.0\n//\n", []AlignmentOption{AlignFormat(FormatFASTA)}, "line 1"},
		{"Stockholm wanted", ">a\nAC\n", []AlignmentOption{AlignFormat(FormatStockholm)}, `line 1: ">a": want the header`},
		{"focus missing", ">a\nAC\n>b\nAC\n", []AlignmentOption{AlignFocus("c")}, `no sequence is named "c"`},
		{"focus ambiguous", ">a/1-2\nAC\n>a/5-6\nAC\n", []AlignmentOption{AlignFocus("a")}, `line 3: sequence "a/5-6": focus "a" is ambiguous`},
		{"focus all gaps", ">a\n--\n>b\nAC\n", []AlignmentOption{AlignFocus("a")}, `line 1: sequence "a": the focus sequence has no uppercase letter`},
		{"focus unknown dropped", ">a\nAX\n>b\nAC\n", []AlignmentOption{AlignFocus("a"), AlignUnknownLetters(UnknownDropsSequence)}, `line 1: sequence "a": the focus sequence has letters outside`},
		{"gap column", ">a\nA-C\n>b\nC.D\n", nil, "column 2 (input column 2) has only gaps"},
		{"gap column after filter", ">a\nA-C\n>b\nC-D\n>c\n---\n", []AlignmentOption{AlignMaxSequenceGaps(0.5)}, "column 2 (input column 2) has only gaps in the 2 sequences"},
		{"unknown makes a gap column", ">a\nAX\n>b\nCB\n", nil, "column 2 (input column 2) has only gaps"},
		{"nothing left", ">a\nAX\n>b\nCB\n", []AlignmentOption{AlignUnknownLetters(UnknownDropsSequence)}, "no sequences left of 2"},
		{"no columns left", ">a\nA-\n>b\n-C\n", []AlignmentOption{AlignMaxColumnGaps(0.2)}, "no columns left of 2"},
		{"Stockholm no terminator", "# STOCKHOLM 1.0\na AC\nb AC\n", nil, `line 3: no "//"`},
		{"Stockholm name only", "# STOCKHOLM 1.0\na AC\nb\n//\n", nil, `line 3: sequence "b": name without sequence`},
		{"Stockholm ragged", "# STOCKHOLM 1.0\na AC\nb AC\n\na D\n//\n", nil, `line 3: sequence "b": ragged alignment: 2 letters, want 3 as sequence "a" (line 2)`},
		{"Stockholm empty", "# STOCKHOLM 1.0\n#=GF ID x\n//\n", nil, "line 3: no sequences in input"},
		{"bad alphabet lowercase", ">a\nA\n", []AlignmentOption{AlignAlphabet("-ab")}, `AlignAlphabet("-ab"): letter 1 ('a') is lowercase`},
		{"bad alphabet repeat", ">a\nA\n", []AlignmentOption{AlignAlphabet("-AA")}, "appears twice"},
		{"bad alphabet short", ">a\nA\n", []AlignmentOption{AlignAlphabet("-")}, "1 letters, want at least 2"},
		{"bad fraction", ">a\nA\n", []AlignmentOption{AlignMaxColumnGaps(1.5)}, "AlignMaxColumnGaps(1.5)"},
		{"bad fraction NaN", ">a\nA\n", []AlignmentOption{AlignMaxSequenceGaps(math.NaN())}, "AlignMaxSequenceGaps(NaN)"},
		{"bad format", ">a\nA\n", []AlignmentOption{AlignFormat(7)}, "AlignFormat(7)"},
		{"bad policy", ">a\nA\n", []AlignmentOption{AlignUnknownLetters(3)}, "AlignUnknownLetters(3)"},
		{"empty focus", ">a\nA\n", []AlignmentOption{AlignFocus(" ")}, `AlignFocus(" "): empty name`},
		{"nil option", ">a\nA\n", []AlignmentOption{nil}, "option 0 is nil"},
	} {
		a, err := ReadAlignment(strings.NewReader(test.in), test.opts...)
		if err == nil {
			t.Errorf("%s: no error, read %d sequences", test.name, a.Len())
			continue
		}
		if !strings.HasPrefix(err.Error(), "protein: ReadAlignment: ") || !strings.Contains(err.Error(), test.want) {
			t.Errorf("%s: error %q, want it to contain %q", test.name, err, test.want)
		}
	}

	// The file name is in the error, and the error is an *AlignmentError.
	dir := t.TempDir()
	name := filepath.Join(dir, "bad.fasta")
	if err := os.WriteFile(name, []byte(">a\nAC\n>b\nA\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := ReadAlignmentFile(name)
	var ae *AlignmentError
	if !errors.As(err, &ae) || ae.File != name || ae.Line != 3 || ae.Sequence != "b" || !strings.Contains(err.Error(), name+": line 3") {
		t.Errorf("file error %v (%+v)", err, ae)
	}
	if _, err := ReadAlignmentFile(filepath.Join(dir, "missing.fasta")); err == nil || !strings.HasPrefix(err.Error(), "protein: ") {
		t.Errorf("missing file: %v", err)
	}
}

// plmcExample returns the path of one of plmc's example alignments, or
// skips the test when the benchmark directory is not there (it is not part
// of the repository).
func plmcExample(t testing.TB, name string) string {
	path := filepath.Join("..", "shared", "bench", "plmc", "example", name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("plmc example %s not present", path)
	}
	return path
}

// TestReadAlignmentPlmcExamples reads plmc's example alignments with the
// settings of plmc's README and compares the numbers of sequences and
// columns with those plmc prints, and the effective number of sequences
// with plmc's "Effective number of samples" line (printed to one decimal,
// hence the tolerance 0.05; every per-sequence weight was also found equal
// to plmc's --save-weights output when this test was written). The reference numbers were printed by plmc built from
// ../shared/bench/plmc/src with "make all":
//
//	plmc -le 16 -lh 0.01 -m 1 -g -f DYR_ECOLI DHFR.a2m
//	  3616 valid sequences out of 3629; 159 sites out of 171;
//	  Effective number of samples: 1568.1
//	plmc -a .ACGU -le 20 -lh 0.01 -m 1 RF00162.fasta
//	  4757 valid sequences out of 4757; 107 sites; Neff 585.7
//	plmc -a _*^ -le 1 -lh 1 -m 1 potts3.a2m
//	  500 valid sequences out of 500; 60 sites; Neff 396.1
func TestReadAlignmentPlmcExamples(t *testing.T) {
	for _, test := range []struct {
		file       string
		opts       []AlignmentOption
		n, l, read int
		neff       float64
	}{
		{"protein/DHFR.a2m", []AlignmentOption{AlignFocus("DYR_ECOLI"), AlignUnknownLetters(UnknownDropsSequence)}, 3616, 159, 171, 1568.1},
		{"RNA/RF00162.fasta", []AlignmentOption{AlignAlphabet(RNAAlphabet)}, 4757, 107, 107, 585.7},
		{"RNA/RF00162.fasta", []AlignmentOption{AlignAlphabet(".ACGU")}, 4757, 107, 107, 585.7},
		{"potts/potts3.a2m", []AlignmentOption{AlignAlphabet("_*^")}, 500, 60, 60, 396.1},
	} {
		a, err := ReadAlignmentFile(plmcExample(t, test.file), test.opts...)
		if err != nil {
			t.Fatal(err)
		}
		if a.Len() != test.n || a.Vars() != test.l || a.Report().ColumnsRead != test.read {
			t.Errorf("%s: %d sequences × %d of %d columns, want %d × %d of %d (plmc)", test.file, a.Len(), a.Vars(), a.Report().ColumnsRead, test.n, test.l, test.read)
		}
		w, err := Reweight(a)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(w.Neff-test.neff) > 0.05 {
			t.Errorf("%s: Neff = %.3f, want plmc's %.1f", test.file, w.Neff, test.neff)
		}
	}

	// DHFR's focus DYR_ECOLI/1-159 has 159 residues and 12 gap columns;
	// plmc numbers its columns up to 171 (start + 0-based input column, as
	// in its couplings file), we 1..159.
	a, err := ReadAlignmentFile(plmcExample(t, "protein/DHFR.a2m"), AlignFocus("DYR_ECOLI"))
	if err != nil {
		t.Fatal(err)
	}
	cols, src := a.Columns(), a.SourceColumns()
	for i := range cols {
		if cols[i] != i+1 {
			t.Fatalf("DHFR column %d numbered %d, want %d", i, cols[i], i+1)
		}
	}
	if src[len(src)-1]+1 != 171 {
		t.Errorf("DHFR: plmc's number of the last column = %d, want 171", src[len(src)-1]+1)
	}
	if r := a.Report(); a.Len() != 3629 || r.Unknown["X"] != 18 || r.UnknownSeqs != 13 {
		t.Errorf("DHFR with X read as gaps: %d sequences, report %v; want 3629 and X×18 in 13", a.Len(), r)
	}
}

// FuzzReadAlignment feeds ReadAlignment arbitrary bytes in every format and
// checks that it returns an alignment that holds together or an error, never
// a panic.
func FuzzReadAlignment(f *testing.F) {
	for _, tf := range toyFiles {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "align", tf.file))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(0))
		f.Add(b, uint8(0x1f))
		var z bytes.Buffer // the same file compressed
		zw := gzip.NewWriter(&z)
		zw.Write(b)
		zw.Close()
		f.Add(z.Bytes(), uint8(0))
	}
	for _, s := range []string{
		"", "\n", "hello", ">a\nAC\n>b\nA\n", ">a\n>b\nAC\n", ">\nAC", ">a\nAC\n>b\nac..\n",
		">a/1-2\nAC\n>a/5-6\nAC\n", ">a\nA-C\n>b\nC.D\n", ">a\nAX\n>b\nCB\n", ">P/5-12\nAcD-EXF\n>Q\nAcDEEEF\n",
		"# STOCKHOLM 1.0\na AC\nb AC\n", "# STOCKHOLM 1.0\na AC\nb\n//\n", "# STOCKHOLM 1.0\na AC\nb AC\n\na D\n//\n",
		"# STOCKHOLM 1.0\n#=GF ID x\n//\n", "# STOCKHOLM 1.0\na/3-4 A-C\nb .CD\n#=GC RF xx.\n//\n",
		"\xef\xbb\xbf>a\r\nAC\r\n>b\r\nCA\r\n", ">p/3-5\n_*^^\n>q\n**^_\n",
		"#4\t1\n>a\nAcDE\n>b\tx\t0.5\nA-DE\n", "ACD-\nA.DE\n\nacde\n", "ACD\nAC\n", "AC\n>a\nAC\n", "#x\n#y\n", "_*^\n*^_\n",
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(0xff))
	}
	f.Fuzz(func(t *testing.T, in []byte, flags uint8) {
		format := AlignmentFormat(flags & 3)
		if flags&128 != 0 {
			format = FormatPSICOV
		}
		opts := []AlignmentOption{AlignFormat(format)}
		if flags&4 != 0 {
			opts = append(opts, AlignFocus("a"))
		}
		if flags&8 != 0 {
			opts = append(opts, AlignUnknownLetters(UnknownDropsSequence))
		}
		if flags&16 != 0 {
			opts = append(opts, AlignMaxSequenceGaps(0.5), AlignMaxColumnGaps(0.5))
		}
		switch flags >> 5 & 3 {
		case 1:
			opts = append(opts, AlignAlphabet(RNAAlphabet))
		case 2:
			opts = append(opts, AlignAlphabet("_*^"))
		}
		a, err := ReadAlignment(strings.NewReader(string(in)), opts...)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "protein: ReadAlignment: ") {
				t.Fatalf("error without prefix: %v", err)
			}
			return
		}
		n, l, k := a.Len(), a.Vars(), len(a.Alphabet())
		if n < 1 || l < 1 || len(a.Names()) != n || len(a.Columns()) != l || len(a.SourceColumns()) != l {
			t.Fatalf("%d × %d with %d names, %d columns", n, l, len(a.Names()), len(a.Columns()))
		}
		cols := a.Columns()
		for i := 1; i < l; i++ {
			if cols[i] <= cols[i-1] {
				t.Fatalf("columns not increasing: %v", cols)
			}
		}
		for i := 0; i < l; i++ {
			gaps := 0
			for s := 0; s < n; s++ {
				v := a.At(s, i)
				if v < 0 || v >= k {
					t.Fatalf("state %d outside [0, %d)", v, k)
				}
				if v == 0 {
					gaps++
				}
			}
			if gaps == n {
				t.Fatalf("column %d has only gaps", i)
			}
		}
		if _, err := a.Samples(nil); err != nil {
			t.Fatalf("Samples: %v", err)
		}
		if _, err := Reweight(a); err != nil {
			t.Fatalf("Reweight: %v", err)
		}
	})
}

// failingReader returns its data, then an error.
type failingReader struct {
	data string
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestReadAlignmentReadError(t *testing.T) {
	cause := errors.New("disk on fire")
	for _, in := range []string{"", ">a\nAC\n", "# STOCKHOLM 1.0\na AC\n"} {
		_, err := ReadAlignment(&failingReader{data: in, err: cause})
		if !errors.Is(err, cause) || !strings.Contains(err.Error(), "reading: disk on fire") {
			t.Errorf("%q: error %v, want one wrapping the read error", in, err)
		}
	}
}

// TestReadAlignmentPSICOV reads PSICOV's .aln (one sequence a line, no
// names), detected and forced, and refuses a name line inside one, a space
// inside a sequence and ragged lines, naming the line.
func TestReadAlignmentPSICOV(t *testing.T) {
	const aln = "ACDEF\nAC-EF\n\nacdef\nA.DEY\n"
	for _, f := range []AlignmentFormat{FormatAuto, FormatPSICOV} {
		a, err := ReadAlignment(strings.NewReader(aln), AlignFormat(f))
		if err != nil {
			t.Fatalf("%v: %v", f, err)
		}
		if a.Len() != 4 || a.Vars() != 5 || a.Report().Format != FormatPSICOV {
			t.Fatalf("%v: %d × %d, format %v; want 4 × 5, PSICOV", f, a.Len(), a.Vars(), a.Report().Format)
		}
		if got := a.Names(); !slices.Equal(got, []string{"seq1", "seq2", "seq3", "seq4"}) {
			t.Errorf("%v: names %v", f, got)
		}
		if a.Line(3) != 5 || a.Sequence(2) != "ACDEF" || a.Sequence(3) != "A-DEY" {
			t.Errorf("%v: seq4 on line %d, seq3 %q, seq4 %q; want line 5, ACDEF, A-DEY", f, a.Line(3), a.Sequence(2), a.Sequence(3))
		}
	}
	a, err := ReadAlignment(strings.NewReader(aln), AlignFocus("seq2"))
	if err != nil || a.Vars() != 4 {
		t.Fatalf("focus seq2: %v, %d columns; want 4 (its gap dropped)", err, a.Vars())
	}
	for _, c := range []struct{ in, want string }{
		{"ACDEF\n>b\nACDEF\n", "line 2"},
		{"ACDEF\nAC EF\n", "line 2"},
		{"ACDEF\nACDE\n", "line 2"},
		{"hello world\n", "unknown format"},
		{"A1CDE\n", "unknown format"},
	} {
		_, err := ReadAlignment(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one naming %s", c.in, err, c.want)
		}
	}
	if _, err := ReadAlignment(strings.NewReader(">a\nAC\n"), AlignFormat(FormatPSICOV)); err == nil {
		t.Error("FASTA read as PSICOV: want an error")
	}
}

// TestReadAlignmentLeadingComments reads an A3M as ColabFold writes it: a
// "#lengths\tcounts" line before the first name line, tab-separated fields
// after the names. A Stockholm header is not a comment.
func TestReadAlignmentLeadingComments(t *testing.T) {
	const a3m = "#5\t1\n>101\nACDEF\n>UniRef100_X\t90\t0.508\nAC-kEF\n"
	a, err := ReadAlignment(strings.NewReader(a3m))
	if err != nil {
		t.Fatal(err)
	}
	if a.Len() != 2 || a.Vars() != 5 || a.Report().Format != FormatA2M || a.Name(0) != "101" || a.Line(0) != 2 {
		t.Fatalf("%d × %d, format %v, first %q on line %d; want 2 × 5, A2M, 101 on line 2", a.Len(), a.Vars(), a.Report().Format, a.Name(0), a.Line(0))
	}
	if _, err := ReadAlignment(strings.NewReader("#5\t1\n")); err == nil {
		t.Error("comments alone: want an error")
	}
	s, err := ReadAlignment(strings.NewReader("# STOCKHOLM 1.0\na AC\nb AD\n//\n"))
	if err != nil || s.Report().Format != FormatStockholm {
		t.Fatalf("Stockholm: %v", err)
	}
}

// TestColumnGaps counts gaps by hand: '.', '-' and an unknown letter read
// as the gap are gaps; the fractions are of all sequences, unweighted.
func TestColumnGaps(t *testing.T) {
	a, err := ReadAlignment(strings.NewReader(">a\nA-CX\n>b\nA.C-\n>c\nAAC-\n>d\n-ACD\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.25, 0.5, 0, 0.75}
	if got := a.ColumnGaps(); !slices.Equal(got, want) {
		t.Errorf("ColumnGaps = %v, want %v", got, want)
	}
}

// TestReadAlignmentGzip reads a gzip-compressed FASTA as the plain one and
// refuses a truncated one with an AlignmentError.
func TestReadAlignmentGzip(t *testing.T) {
	const fa = ">a\nACDEF\n>b\nAC-EF\n>c\nACDEY\n"
	var b strings.Builder
	z := gzip.NewWriter(&b)
	z.Write([]byte(fa))
	z.Close()
	want, err := ReadAlignment(strings.NewReader(fa))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadAlignment(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("gzip: %+v, want %+v", got, want)
	}
	for _, cut := range []int{5, b.Len() - 6} {
		_, err := ReadAlignment(strings.NewReader(b.String()[:cut]))
		var ae *AlignmentError
		if !errors.As(err, &ae) {
			t.Errorf("cut to %d bytes: error %v, want an *AlignmentError", cut, err)
		}
	}
}
