package protein

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/internal/lines"
)

// Alphabets of sequence alignments. The first letter of an alphabet is the
// gap, state 0; the others are states 1..k-1 in the order written.
const (
	// ProteinAlphabet is the gap and the twenty amino acids, k = 21, in the
	// order plmc, CCMpred and EVcouplings use.
	ProteinAlphabet = "-ACDEFGHIKLMNPQRSTVWY"
	// RNAAlphabet is the gap and the four ribonucleotides, k = 5.
	RNAAlphabet = "-ACGU"
	// DNAAlphabet is the gap and the four deoxyribonucleotides, k = 5.
	DNAAlphabet = "-ACGT"
)

// AlignmentFormat names a multiple sequence alignment format.
type AlignmentFormat int

const (
	// FormatAuto detects the format from the content: "# STOCKHOLM" on the
	// first line that is not blank is Stockholm; ">" starts FASTA, read as
	// FormatFASTA when all sequences have the same number of letters and as
	// FormatA2M (A3M) when they have the same number only once the insert
	// states are removed; a first line of letters of the alphabet, '-' and
	// '.' alone is FormatPSICOV. Lines starting with '#' before the first
	// sequence are comments (ColabFold's A3M starts with "#lengths\tcounts")
	// unless the first is "# STOCKHOLM".
	FormatAuto AlignmentFormat = iota
	// FormatFASTA is aligned FASTA: ">name" lines, each followed by the
	// lines of its sequence; all sequences have the same length. Lowercase
	// letters are read as their uppercase residues, as plmc reads them.
	FormatFASTA
	// FormatA2M is A2M and A3M, FASTA whose lowercase letters and '.' are
	// insert states: they are removed from every sequence before the
	// sequences (then of equal length) are aligned column by column.
	FormatA2M
	// FormatStockholm is Stockholm 1.0, Pfam's and Rfam's format: a
	// "# STOCKHOLM 1.0" header, "name sequence" lines, possibly in
	// interleaved blocks joined by name, and a "//" terminator. Markup lines
	// (#=GF, #=GS, #=GR, #=GC) and comments are ignored. Letters are read
	// as in FASTA, so Pfam's insert columns (lowercase and '.') are kept;
	// AlignFocus or AlignMaxColumnGaps drop them. Only the first alignment
	// of a file is read.
	FormatStockholm
	// FormatPSICOV is the .aln of PSICOV, CCMpred and DeepCov: one aligned
	// sequence a line, no names. Sequences are named seq1, seq2, ... in
	// their order (AlignFocus("seq1") is the first); letters are read as
	// in FASTA.
	FormatPSICOV
)

// String returns the format's name.
func (f AlignmentFormat) String() string {
	switch f {
	case FormatAuto:
		return "auto"
	case FormatFASTA:
		return "FASTA"
	case FormatA2M:
		return "A2M/A3M"
	case FormatStockholm:
		return "Stockholm"
	case FormatPSICOV:
		return "PSICOV"
	}
	return "AlignmentFormat(" + strconv.Itoa(int(f)) + ")"
}

// UnknownLetters says what ReadAlignment does with a letter outside the
// alphabet (X, B, Z, U, O, ... for proteins).
type UnknownLetters int

const (
	// UnknownAsGap reads an unknown letter as the gap (state 0) and counts
	// it in the report. It is the default.
	UnknownAsGap UnknownLetters = iota
	// UnknownDropsSequence drops every sequence with an unknown letter, as
	// plmc does; the letters are still counted in the report.
	UnknownDropsSequence
)

// AlignmentOption configures ReadAlignment. Options are applied in order;
// where an option is repeated, the last one wins. Invalid values are
// reported as errors by ReadAlignment, naming the option.
type AlignmentOption interface {
	applyAlignment(*alignConfig)
}

type alignOptionFunc func(*alignConfig)

func (f alignOptionFunc) applyAlignment(c *alignConfig) { f(c) }

type alignConfig struct {
	format       AlignmentFormat
	alphabet     string
	focus        string
	maxColGaps   float64
	maxSeqGaps   float64
	unknown      UnknownLetters
	focusGiven   bool
	alphabetErrs []error
}

func (c *alignConfig) errorf(format string, args ...any) {
	c.alphabetErrs = append(c.alphabetErrs, fmt.Errorf(format, args...))
}

// AlignFormat sets the format instead of detecting it from the content. The
// default is FormatAuto.
func AlignFormat(f AlignmentFormat) AlignmentOption {
	return alignOptionFunc(func(c *alignConfig) {
		if f < FormatAuto || f > FormatPSICOV {
			c.errorf("AlignFormat(%d): unknown format", int(f))
			return
		}
		c.format = f
	})
}

// AlignAlphabet sets the alphabet, one character a state, the gap first:
// ProteinAlphabet (the default), RNAAlphabet, DNAAlphabet, or a caller's own
// such as plmc's "_*^". Letters must be distinct printable ASCII characters
// other than lowercase letters (which mark insert states), the space, '>'
// and '#'; there must be at least 2. When the gap letter is '-' and '.' is
// not a letter of the alphabet, '.' is read as a gap too, as Stockholm
// files write gaps in insert columns.
func AlignAlphabet(letters string) AlignmentOption {
	return alignOptionFunc(func(c *alignConfig) {
		if err := checkAlphabet(letters); err != nil {
			c.errorf("AlignAlphabet(%q): %v", letters, err)
			return
		}
		c.alphabet = letters
	})
}

// AlignFocus keeps only the columns where the named focus sequence has an
// uppercase letter that is not a gap, as plmc's -f does, and numbers them
// by the focus sequence's residues. The focus is the sequence whose name
// (the first word of its name line) is name, or else the only one whose
// name is name followed by "/", as in Pfam's "DYR_ECOLI/1-159". When the
// name ends in "/start-end" (or "/start"), the residue numbers start at
// start; otherwise at 1. By default there is no focus: all columns are kept
// and numbered 1, 2, ...
func AlignFocus(name string) AlignmentOption {
	return alignOptionFunc(func(c *alignConfig) {
		if strings.TrimSpace(name) == "" {
			c.errorf("AlignFocus(%q): empty name", name)
			return
		}
		c.focus = strings.TrimSpace(name)
		c.focusGiven = true
	})
}

// AlignMaxSequenceGaps drops the sequences with more than the fraction f of
// gaps among the columns kept by the focus (before the column filter). f
// must be in [0, 1]; the default 1 keeps every sequence.
func AlignMaxSequenceGaps(f float64) AlignmentOption {
	return alignOptionFunc(func(c *alignConfig) {
		if !(f >= 0 && f <= 1) {
			c.errorf("AlignMaxSequenceGaps(%v): want a fraction in [0, 1]", f)
			return
		}
		c.maxSeqGaps = f
	})
}

// AlignMaxColumnGaps drops the columns with more than the fraction f of
// gaps among the sequences kept by the sequence filter. f must be in
// [0, 1]; the default 1 keeps every column.
func AlignMaxColumnGaps(f float64) AlignmentOption {
	return alignOptionFunc(func(c *alignConfig) {
		if !(f >= 0 && f <= 1) {
			c.errorf("AlignMaxColumnGaps(%v): want a fraction in [0, 1]", f)
			return
		}
		c.maxColGaps = f
	})
}

// AlignUnknownLetters sets what happens to letters outside the alphabet;
// the default is UnknownAsGap.
func AlignUnknownLetters(p UnknownLetters) AlignmentOption {
	return alignOptionFunc(func(c *alignConfig) {
		if p != UnknownAsGap && p != UnknownDropsSequence {
			c.errorf("AlignUnknownLetters(%d): unknown policy", int(p))
			return
		}
		c.unknown = p
	})
}

// checkAlphabet validates a caller's alphabet.
func checkAlphabet(letters string) error {
	if len(letters) < 2 {
		return fmt.Errorf("%d letters, want at least 2", len(letters))
	}
	var seen [256]bool
	for x := 0; x < len(letters); x++ {
		c := letters[x]
		switch {
		case c <= ' ' || c >= 0x7f:
			return fmt.Errorf("letter %d (%q) is not a printable ASCII character", x, c)
		case c >= 'a' && c <= 'z':
			return fmt.Errorf("letter %d (%q) is lowercase; lowercase letters are insert states", x, c)
		case c == '>' || c == '#':
			return fmt.Errorf("letter %d (%q) starts name and markup lines", x, c)
		case seen[c]:
			return fmt.Errorf("letter %q appears twice", c)
		}
		seen[c] = true
	}
	return nil
}

// AlignmentError is the error of ReadAlignment for a bad alignment. It
// names where the problem is: the file (for ReadAlignmentFile), the line
// (1-based; 0 when the problem is not on one line), and the sequence.
type AlignmentError struct {
	File     string // the file name, or ""
	Line     int    // the line, 1-based, or 0
	Sequence string // the sequence's name, or ""
	Msg      string // what is wrong
	Err      error  // the error of the reader, when reading failed; or nil
}

// Unwrap returns Err.
func (e *AlignmentError) Unwrap() error { return e.Err }

// Error returns "protein: ReadAlignment: file: line N: sequence "name": msg",
// leaving out the parts that are not known.
func (e *AlignmentError) Error() string {
	var b strings.Builder
	b.WriteString("protein: ReadAlignment: ")
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Sequence != "" {
		fmt.Fprintf(&b, "sequence %q: ", e.Sequence)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// AlignmentReport says what ReadAlignment read, dropped and mapped.
type AlignmentReport struct {
	Format          AlignmentFormat // the format read (never FormatAuto)
	SequencesRead   int             // sequences in the input
	ColumnsRead     int             // columns in the input (match states for A2M/A3M)
	InsertsRemoved  int             // A2M/A3M insert letters removed (lowercase and '.')
	Unknown         map[string]int  // letters outside the alphabet and how often each was seen
	UnknownSeqs     int             // sequences with at least one unknown letter
	DroppedUnknown  int             // sequences dropped for unknown letters (UnknownDropsSequence)
	DroppedSeqGaps  int             // sequences dropped by AlignMaxSequenceGaps
	DroppedFocus    int             // columns dropped by AlignFocus (focus lowercase or gap)
	DroppedColGaps  int             // columns dropped by AlignMaxColumnGaps
	Focus           string          // the focus sequence's name, or ""
	FocusLine       int             // the line of the focus sequence's name, or 0
	FocusFirstIndex int             // the residue number of the focus sequence's first residue (1 without a "/start" suffix)
}

// String summarises the report on one line.
func (r AlignmentReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d sequences, %d columns read", r.Format, r.SequencesRead, r.ColumnsRead)
	if r.InsertsRemoved > 0 {
		fmt.Fprintf(&b, "; %d insert letters removed", r.InsertsRemoved)
	}
	if len(r.Unknown) > 0 {
		letters := make([]string, 0, len(r.Unknown))
		for l := range r.Unknown {
			letters = append(letters, l)
		}
		sort.Strings(letters)
		b.WriteString("; unknown letters")
		for _, l := range letters {
			fmt.Fprintf(&b, " %s×%d", l, r.Unknown[l])
		}
		fmt.Fprintf(&b, " in %d sequences", r.UnknownSeqs)
	}
	if r.DroppedUnknown > 0 {
		fmt.Fprintf(&b, "; %d sequences dropped for unknown letters", r.DroppedUnknown)
	}
	if r.Focus != "" {
		fmt.Fprintf(&b, "; focus %s (line %d): %d columns dropped", r.Focus, r.FocusLine, r.DroppedFocus)
	}
	if r.DroppedSeqGaps > 0 {
		fmt.Fprintf(&b, "; %d gappy sequences dropped", r.DroppedSeqGaps)
	}
	if r.DroppedColGaps > 0 {
		fmt.Fprintf(&b, "; %d gappy columns dropped", r.DroppedColGaps)
	}
	return b.String()
}

// Alignment is a multiple sequence alignment encoded in an alphabet: N
// sequences of L columns with states 0..k-1, state 0 the gap. It is
// immutable and safe for concurrent reads.
type Alignment struct {
	alphabet string
	n, l     int
	codes    []uint8 // n*l, row-major
	names    []string
	lines    []int // the line of each sequence's name
	columns  []int // residue numbers
	source   []int // 0-based columns of the input
	focus    int
	report   AlignmentReport
}

// Len returns N, the number of sequences.
func (a *Alignment) Len() int { return a.n }

// Vars returns L, the number of columns (variables).
func (a *Alignment) Vars() int { return a.l }

// Alphabet returns the alphabet's letters, state a being letter a.
func (a *Alignment) Alphabet() string { return a.alphabet }

// Names returns a copy of the sequence names (the whole name line after
// '>' for FASTA, without surrounding white space; the name field for
// Stockholm).
func (a *Alignment) Names() []string { return append([]string(nil), a.names...) }

// Name returns the name of sequence s. It panics if s is out of range.
func (a *Alignment) Name(s int) string { return a.names[s] }

// Line returns the line of the input where sequence s was named (its first
// line for Stockholm). It panics if s is out of range.
func (a *Alignment) Line(s int) int { return a.lines[s] }

// Focus returns the index of the focus sequence (AlignFocus), or -1.
func (a *Alignment) Focus() int { return a.focus }

// At returns the state of column i in sequence s. It panics if s or i is
// out of range.
func (a *Alignment) At(s, i int) int {
	if s < 0 || s >= a.n || i < 0 || i >= a.l {
		panic(fmt.Sprintf("protein: Alignment.At(%d, %d) out of range [0, %d)×[0, %d)", s, i, a.n, a.l))
	}
	return int(a.codes[s*a.l+i])
}

// ColumnGaps returns the fraction of the sequences with a gap (state 0) in
// each column, unweighted. Columns that are mostly gaps are sequences that
// lack a segment; their gap states co-vary in blocks, which raises the
// coupling scores of whole blocks of pairs (pairwise contacts warns when a
// quarter of the columns are more than half gaps). An alignment from
// ReadAlignment has at least one sequence and one column; the zero
// Alignment gives an empty slice.
func (a *Alignment) ColumnGaps() []float64 {
	g := make([]float64, a.l)
	for s := 0; s < a.n; s++ {
		for i, v := range a.codes[s*a.l : (s+1)*a.l] {
			if v == 0 {
				g[i]++
			}
		}
	}
	for i := range g {
		g[i] /= float64(a.n)
	}
	return g
}

// Row writes the states of sequence s into dst (grown as needed) and
// returns it. It panics if s is out of range.
func (a *Alignment) Row(dst []int, s int) []int {
	if s < 0 || s >= a.n {
		panic(fmt.Sprintf("protein: Alignment.Row(%d) out of range [0, %d)", s, a.n))
	}
	if cap(dst) < a.l {
		dst = make([]int, a.l)
	}
	dst = dst[:a.l]
	for i, v := range a.codes[s*a.l : (s+1)*a.l] {
		dst[i] = int(v)
	}
	return dst
}

// Sequence returns sequence s as letters of the alphabet (unknown letters
// and lowercase letters read as described in ReadAlignment appear as the
// states they were read as). It panics if s is out of range.
func (a *Alignment) Sequence(s int) string {
	if s < 0 || s >= a.n {
		panic(fmt.Sprintf("protein: Alignment.Sequence(%d) out of range [0, %d)", s, a.n))
	}
	b := make([]byte, a.l)
	for i, v := range a.codes[s*a.l : (s+1)*a.l] {
		b[i] = a.alphabet[v]
	}
	return string(b)
}

// Columns returns a copy of the residue numbers of the columns: with a
// focus (AlignFocus), the number in the focus sequence of its residue in
// that column, counted from the "/start" of its name; without one, the
// 1-based column of the input (match columns for A2M/A3M).
//
// plmc numbers focus columns differently, as start + the 0-based column of
// the input (SourceColumns), which agrees only when the focus sequence has
// no gap in the input: on plmc's DHFR example the last residue, 159, is
// plmc's 170.
func (a *Alignment) Columns() []int { return append([]int(nil), a.columns...) }

// SourceColumns returns a copy of the 0-based columns of the input that
// were kept (match columns only for A2M/A3M).
func (a *Alignment) SourceColumns() []int { return append([]int(nil), a.source...) }

// VarNames returns names for the columns: the focus residue and its number
// ("M1", "I2", ...) with a focus, "col1", "col2", ... without one or where
// the focus letter is not one of A to Z.
func (a *Alignment) VarNames() []string {
	out := make([]string, a.l)
	for i, c := range a.columns {
		if l := a.focusLetter(i); l != 0 {
			out[i] = string(rune(l)) + strconv.Itoa(c)
		} else {
			out[i] = "col" + strconv.Itoa(c)
		}
	}
	return out
}

// focusLetter returns the focus sequence's letter in column i when it is
// one of A to Z, and 0 otherwise.
func (a *Alignment) focusLetter(i int) byte {
	if a.focus < 0 {
		return 0
	}
	if l := a.alphabet[a.codes[a.focus*a.l+i]]; l >= 'A' && l <= 'Z' {
		return l
	}
	return 0
}

// Report returns what ReadAlignment read, dropped and mapped.
func (a *Alignment) Report() AlignmentReport {
	r := a.report
	if r.Unknown != nil {
		r.Unknown = make(map[string]int, len(a.report.Unknown))
		for l, c := range a.report.Unknown {
			r.Unknown[l] = c
		}
	}
	return r
}

// Samples returns the alignment as samples of package pairwise over its
// alphabet (k = len(Alphabet())), one row a sequence at one byte a state
// (pairwise.NewSamplesBytes), named by VarNames. weights, one per sequence
// (for example Reweight's), make weighted samples as
// pairwise.NewWeightedSamples does; nil weights make unweighted samples.
// It returns an error for weights that are not one per sequence, naming
// the sequence of a NaN, infinite or negative weight, and for weights that
// do not sum to a positive finite total. weights is copied.
func (a *Alignment) Samples(weights []float64) (*pairwise.Samples, error) {
	if weights != nil {
		if err := checkWeights(weights, a.n); err != nil {
			return nil, fmt.Errorf("protein: Alignment.Samples: %v", err)
		}
	}
	s, err := pairwise.NewSamplesBytes(len(a.alphabet), a.l, a.codes, weights)
	if err != nil {
		return nil, err
	}
	return s.WithNames(a.VarNames())
}

// checkWeights checks n sequence weights as pairwise.NewWeightedSamples
// does, naming the sequence of a bad one.
func checkWeights(weights []float64, n int) error {
	if len(weights) != n {
		return fmt.Errorf("%d weights for %d sequences", len(weights), n)
	}
	total := 0.0
	for s, c := range weights {
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return fmt.Errorf("sequence %d: weight %v, want a finite number", s, c)
		}
		if c < 0 {
			return fmt.Errorf("sequence %d: weight %v is negative", s, c)
		}
		total += c
	}
	if !(total > 0) || math.IsInf(total, 0) {
		return fmt.Errorf("the weights sum to %v, want a positive finite total", total)
	}
	return nil
}

// rawSeq is one sequence as read: its name, line and letters.
type rawSeq struct {
	name    string
	line    int
	letters []byte
	raw     []byte // A2M/A3M: the letters before the insert states were removed
}

// ReadAlignmentFile opens the named file and reads it with ReadAlignment;
// errors in its content name the file.
func ReadAlignmentFile(name string, opts ...AlignmentOption) (*Alignment, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("protein: ReadAlignmentFile: %w", err)
	}
	defer f.Close()
	a, err := ReadAlignment(f, opts...)
	var ae *AlignmentError
	if errors.As(err, &ae) {
		ae.File = name
	}
	return a, err
}

// ReadAlignment reads a multiple sequence alignment from r and encodes it in
// an alphabet (AlignAlphabet; ProteinAlphabet by default). The format
// (AlignFormat) is FASTA, A2M/A3M, Stockholm or PSICOV's .aln, detected
// from the content by default.
//
// Letters are read in a fixed order of steps, each counted in Report:
//
//  1. In A2M/A3M, lowercase letters and '.' are insert states and are
//     removed from every sequence; the rest (uppercase and '-') are the
//     match columns. In FASTA and Stockholm, lowercase letters read as
//     their uppercase residues, as plmc reads them.
//  2. Letters are encoded; '.' is a gap when the alphabet's gap is '-'.
//     A letter outside the alphabet is read as a gap, or drops its
//     sequence (AlignUnknownLetters); either way it is counted.
//  3. With a focus (AlignFocus), only the columns where the focus sequence
//     has an uppercase letter that is not a gap are kept.
//  4. Sequences with more than a fraction of gaps among those columns are
//     dropped (AlignMaxSequenceGaps).
//  5. Columns with more than a fraction of gaps among the remaining
//     sequences are dropped (AlignMaxColumnGaps).
//
// ReadAlignment returns an *AlignmentError naming the line and the sequence
// for: content that is no known format, a name line without a sequence, a
// sequence that is empty (after removing insert states), sequences of
// different lengths (ragged), a Stockholm file without its "//", a focus
// name that no sequence has or that two sequences match, a focus sequence
// dropped for unknown letters, a column with only gaps after filtering
// (naming its number), and input without sequences or with nothing left
// after filtering. It returns an error naming the option for an invalid
// option, an error for a nil r, and the error of r if reading fails. It reads r to its end (to the
// "//" for Stockholm) and does not close it. Input compressed with gzip
// (starting with the bytes 0x1f 0x8b) is read decompressed.
func ReadAlignment(r io.Reader, opts ...AlignmentOption) (*Alignment, error) {
	if r == nil {
		return nil, errors.New("protein: ReadAlignment: nil reader")
	}
	cfg := alignConfig{alphabet: ProteinAlphabet, maxColGaps: 1, maxSeqGaps: 1}
	for x, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("protein: ReadAlignment: option %d is nil", x)
		}
		o.applyAlignment(&cfg)
	}
	if len(cfg.alphabetErrs) > 0 {
		return nil, fmt.Errorf("protein: ReadAlignment: %w", errors.Join(cfg.alphabetErrs...))
	}
	br := bufio.NewReaderSize(r, 1<<16)
	if b, _ := br.Peek(2); len(b) == 2 && b[0] == 0x1f && b[1] == 0x8b {
		z, err := gzip.NewReader(br)
		if err != nil {
			return nil, &AlignmentError{Msg: "reading it as gzip: " + err.Error(), Err: err}
		}
		br = bufio.NewReaderSize(z, 1<<16)
	}
	lr := lines.NewReader(br)
	seqs, format, err := parseAlignment(lr, cfg.format, cfg.alphabet)
	if err != nil {
		return nil, err
	}
	return encodeAlignment(seqs, format, &cfg)
}

// parseAlignment reads the sequences of r in the given format (detected for
// FormatAuto) and checks that they have the same length; it returns the
// format read.
func parseAlignment(lr *lines.Reader, format AlignmentFormat, alphabet string) ([]rawSeq, AlignmentFormat, error) {
	// The first line that is not blank or a comment tells the format.
	var first []byte
	for {
		line, ok, err := nextLine(lr)
		if err != nil {
			return nil, format, err
		}
		if !ok {
			return nil, format, &AlignmentError{Msg: "no sequences in input"}
		}
		if lr.Line() == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			continue
		}
		if t[0] == '#' && !bytes.HasPrefix(t, []byte("# STOCKHOLM")) && format != FormatStockholm {
			continue // a comment before the first sequence, as ColabFold's A3M header
		}
		first = t
		break
	}
	stockholm := bytes.HasPrefix(first, []byte("# STOCKHOLM"))
	fasta := first[0] == '>'
	switch format {
	case FormatAuto:
		switch {
		case stockholm:
			format = FormatStockholm
		case fasta:
		case psicovLine(first, alphabet):
			format = FormatPSICOV
		default:
			return nil, format, &AlignmentError{Line: lr.Line(), Msg: fmt.Sprintf("unknown format: %q starts neither FASTA ('>'), Stockholm (\"# STOCKHOLM 1.0\") nor a PSICOV .aln (a line of the alphabet's letters, '-' and '.')", clip(first))}
		}
	case FormatFASTA, FormatA2M:
		if !fasta {
			return nil, format, &AlignmentError{Line: lr.Line(), Msg: fmt.Sprintf("%q: want a '>' name line to start %s", clip(first), format)}
		}
	case FormatStockholm:
		if !stockholm {
			return nil, format, &AlignmentError{Line: lr.Line(), Msg: fmt.Sprintf("%q: want the header \"# STOCKHOLM 1.0\"", clip(first))}
		}
	case FormatPSICOV:
		if fasta || stockholm {
			return nil, format, &AlignmentError{Line: lr.Line(), Msg: fmt.Sprintf("%q: want a sequence line to start PSICOV's .aln (no names)", clip(first))}
		}
	}
	if format == FormatPSICOV {
		seqs, err := parsePSICOV(lr, first)
		if err != nil {
			return nil, format, err
		}
		return seqs, format, checkLengths(seqs, format)
	}
	if format == FormatStockholm {
		seqs, err := parseStockholm(lr)
		if err != nil {
			return nil, format, err
		}
		return seqs, format, checkLengths(seqs, format)
	}
	seqs, err := parseFASTA(lr, first)
	if err != nil {
		return nil, format, err
	}
	if format == FormatAuto {
		// Rows of different lengths are A3M if they have insert states.
		format = FormatFASTA
		if checkLengths(seqs, FormatFASTA) != nil && hasInserts(seqs) {
			format = FormatA2M
		}
	}
	if format == FormatA2M {
		for x := range seqs {
			s := &seqs[x]
			s.raw = s.letters
			kept := make([]byte, 0, len(s.raw))
			for _, c := range s.raw {
				if !isInsert(c) {
					kept = append(kept, c)
				}
			}
			if len(kept) == 0 {
				return nil, format, &AlignmentError{Line: s.line, Sequence: s.name, Msg: "empty sequence: only insert states (lowercase letters and '.')"}
			}
			s.letters = kept
		}
	}
	return seqs, format, checkLengths(seqs, format)
}

// psicovLine reports whether line holds only letters of alphabet (either
// case), '-' and '.': the first line of a PSICOV .aln.
func psicovLine(line []byte, alphabet string) bool {
	for _, c := range line {
		if c != '-' && c != '.' && strings.IndexByte(alphabet, c) < 0 && strings.IndexByte(alphabet, upper(c)) < 0 {
			return false
		}
	}
	return len(line) > 0
}

// upper returns the uppercase of an ASCII letter, other bytes as they are.
func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// parsePSICOV reads PSICOV's .aln from its first line on: one sequence a
// line, named seq1, seq2, ...; blank lines are skipped.
func parsePSICOV(lr *lines.Reader, first []byte) ([]rawSeq, error) {
	var seqs []rawSeq
	for line, ok := first, true; ok; {
		if t := bytes.TrimSpace(line); len(t) > 0 {
			if t[0] == '>' || t[0] == '#' {
				return nil, &AlignmentError{Line: lr.Line(), Msg: fmt.Sprintf("%q: a name or comment line inside a PSICOV .aln (one sequence a line, no names)", clip(t))}
			}
			if bytes.ContainsAny(t, " \t") {
				return nil, &AlignmentError{Line: lr.Line(), Msg: fmt.Sprintf("%q: a space inside a sequence line of a PSICOV .aln", clip(t))}
			}
			seqs = append(seqs, rawSeq{name: "seq" + strconv.Itoa(len(seqs)+1), line: lr.Line(), letters: append([]byte(nil), t...)})
		}
		var err error
		if line, ok, err = nextLine(lr); err != nil {
			return nil, err
		}
	}
	return seqs, nil
}

// hasInserts reports whether any sequence has an A2M/A3M insert state.
func hasInserts(seqs []rawSeq) bool {
	for _, s := range seqs {
		for _, c := range s.letters {
			if isInsert(c) {
				return true
			}
		}
	}
	return false
}

// isInsert reports whether c is an insert state of A2M/A3M.
func isInsert(c byte) bool { return c == '.' || (c >= 'a' && c <= 'z') }

// clip shortens a line quoted in an error.
func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// parseFASTA reads FASTA records; first is the first line that is not blank,
// a name line.
func parseFASTA(lr *lines.Reader, first []byte) ([]rawSeq, error) {
	var seqs []rawSeq
	var cur *rawSeq
	line := first
	for {
		if len(line) > 0 && line[0] == '>' {
			if err := endFASTA(cur); err != nil {
				return nil, err
			}
			name := string(bytes.TrimSpace(line[1:]))
			if name == "" {
				return nil, &AlignmentError{Line: lr.Line(), Msg: "empty name after '>'"}
			}
			seqs = append(seqs, rawSeq{name: name, line: lr.Line()})
			cur = &seqs[len(seqs)-1]
		} else {
			for _, c := range line {
				if c != ' ' && c != '\t' && c != '\r' && c != '\v' && c != '\f' {
					cur.letters = append(cur.letters, c)
				}
			}
		}
		var ok bool
		var err error
		line, ok, err = nextLine(lr)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
	}
	if err := endFASTA(cur); err != nil {
		return nil, err
	}
	return seqs, nil
}

// endFASTA checks a finished FASTA record.
func endFASTA(s *rawSeq) error {
	if s != nil && len(s.letters) == 0 {
		return &AlignmentError{Line: s.line, Sequence: s.name, Msg: "name without sequence"}
	}
	return nil
}

// nextLine returns lr's next line, valid until the following call, and a
// read error as an *AlignmentError naming the line.
func nextLine(lr *lines.Reader) ([]byte, bool, error) {
	line, ok, err := lr.Next()
	if err != nil {
		return nil, false, &AlignmentError{Line: lr.Line(), Msg: "reading: " + err.Error(), Err: err}
	}
	return line, ok, nil
}

// parseStockholm reads the body of a Stockholm file after its header, up to
// "//".
func parseStockholm(lr *lines.Reader) ([]rawSeq, error) {
	var seqs []rawSeq
	index := make(map[string]int)
	for {
		line, ok, err := nextLine(lr)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, &AlignmentError{Line: lr.Line(), Msg: "no \"//\" at the end of the Stockholm alignment (truncated file?)"}
		}
		t := bytes.TrimSpace(line)
		switch {
		case len(t) == 0 || t[0] == '#':
			continue
		case bytes.Equal(t, []byte("//")):
			if len(seqs) == 0 {
				return nil, &AlignmentError{Line: lr.Line(), Msg: "no sequences in input"}
			}
			return seqs, nil
		}
		fields := bytes.Fields(t)
		name := string(fields[0])
		if len(fields) < 2 {
			return nil, &AlignmentError{Line: lr.Line(), Sequence: name, Msg: "name without sequence"}
		}
		x, seen := index[name]
		if !seen {
			x = len(seqs)
			index[name] = x
			seqs = append(seqs, rawSeq{name: name, line: lr.Line()})
		}
		for _, f := range fields[1:] {
			seqs[x].letters = append(seqs[x].letters, f...)
		}
	}
}

// checkLengths returns an error naming the first sequence whose length
// differs from the first sequence's.
func checkLengths(seqs []rawSeq, format AlignmentFormat) error {
	if len(seqs) == 0 {
		return &AlignmentError{Msg: "no sequences in input"}
	}
	l := len(seqs[0].letters)
	what := "letters"
	if format == FormatA2M {
		what = "match columns (uppercase letters and '-')"
	}
	for _, s := range seqs[1:] {
		if len(s.letters) != l {
			return &AlignmentError{Line: s.line, Sequence: s.name, Msg: fmt.Sprintf("ragged alignment: %d %s, want %d as sequence %q (line %d)", len(s.letters), what, l, seqs[0].name, seqs[0].line)}
		}
	}
	return nil
}

// encodeAlignment encodes the parsed sequences and applies the focus and the
// gap filters (steps 2 to 5 of ReadAlignment).
func encodeAlignment(seqs []rawSeq, format AlignmentFormat, cfg *alignConfig) (*Alignment, error) {
	alpha := cfg.alphabet
	var code [256]int16
	for x := range code {
		code[x] = -1
	}
	for x := 0; x < len(alpha); x++ {
		code[alpha[x]] = int16(x)
	}
	if alpha[0] == '-' && code['.'] < 0 {
		code['.'] = 0
	}
	for c := 'a'; c <= 'z'; c++ {
		if code[c] < 0 {
			code[c] = code[c-'a'+'A']
		}
	}
	n0, l0 := len(seqs), len(seqs[0].letters)
	rep := AlignmentReport{Format: format, SequencesRead: n0, ColumnsRead: l0, FocusFirstIndex: 1}
	if format == FormatA2M {
		for _, s := range seqs {
			rep.InsertsRemoved += len(s.raw) - len(s.letters)
		}
	}

	focus := -1
	if cfg.focusGiven {
		var err error
		if focus, err = findFocus(seqs, cfg.focus); err != nil {
			return nil, err
		}
		rep.Focus, rep.FocusLine = seqs[focus].name, seqs[focus].line
	}

	// Step 2: encode, counting unknown letters.
	codes := make([]uint8, n0*l0)
	keepSeq := make([]bool, n0)
	for s := range seqs {
		keepSeq[s] = true
		unknown := false
		row := codes[s*l0 : (s+1)*l0]
		for i, c := range seqs[s].letters {
			v := code[c]
			if v < 0 {
				if rep.Unknown == nil {
					rep.Unknown = make(map[string]int)
				}
				rep.Unknown[letterName(c)]++
				unknown = true
				v = 0
			}
			row[i] = uint8(v)
		}
		if unknown {
			rep.UnknownSeqs++
			if cfg.unknown == UnknownDropsSequence {
				if s == focus {
					return nil, &AlignmentError{Line: seqs[s].line, Sequence: seqs[s].name, Msg: "the focus sequence has letters outside the alphabet, and AlignUnknownLetters(UnknownDropsSequence) drops it"}
				}
				keepSeq[s] = false
				rep.DroppedUnknown++
			}
		}
	}

	// Step 3: the focus columns and their residue numbers.
	cols := make([]int, 0, l0)
	numbers := make([]int, 0, l0)
	if focus >= 0 {
		start := focusStart(seqs[focus].name, cfg.focus)
		rep.FocusFirstIndex = start
		nums := focusNumbers(seqs[focus], format, &code, start)
		for i, c := range seqs[focus].letters {
			if c >= 'a' && c <= 'z' || codes[focus*l0+i] == 0 {
				rep.DroppedFocus++
				continue
			}
			cols = append(cols, i)
			numbers = append(numbers, nums[i])
		}
		if len(cols) == 0 {
			return nil, &AlignmentError{Line: seqs[focus].line, Sequence: seqs[focus].name, Msg: "the focus sequence has no uppercase letter that is not a gap: no columns"}
		}
	} else {
		for i := 0; i < l0; i++ {
			cols = append(cols, i)
			numbers = append(numbers, i+1)
		}
	}

	// Step 4: gappy sequences.
	for s := range seqs {
		if !keepSeq[s] {
			continue
		}
		gaps := 0
		for _, i := range cols {
			if codes[s*l0+i] == 0 {
				gaps++
			}
		}
		if float64(gaps) > cfg.maxSeqGaps*float64(len(cols)) && s != focus {
			keepSeq[s] = false
			rep.DroppedSeqGaps++
		}
	}
	kept := 0
	for _, k := range keepSeq {
		if k {
			kept++
		}
	}
	if kept == 0 {
		return nil, &AlignmentError{Msg: fmt.Sprintf("no sequences left of %d: %d dropped for unknown letters, %d for gaps", n0, rep.DroppedUnknown, rep.DroppedSeqGaps)}
	}

	// Step 5: gappy columns, then columns with only gaps.
	gaps := make([]int, len(cols))
	for s := range seqs {
		if !keepSeq[s] {
			continue
		}
		row := codes[s*l0 : (s+1)*l0]
		for x, i := range cols {
			if row[i] == 0 {
				gaps[x]++
			}
		}
	}
	c2, n2 := cols[:0:0], numbers[:0:0]
	for x, i := range cols {
		if float64(gaps[x]) > cfg.maxColGaps*float64(kept) {
			rep.DroppedColGaps++
			continue
		}
		if gaps[x] == kept {
			return nil, &AlignmentError{Msg: fmt.Sprintf("column %d (input column %d) has only gaps in the %d sequences kept; drop it with AlignMaxColumnGaps below 1", numbers[x], i+1, kept)}
		}
		c2 = append(c2, i)
		n2 = append(n2, numbers[x])
	}
	if len(c2) == 0 {
		return nil, &AlignmentError{Msg: fmt.Sprintf("no columns left of %d after dropping %d with more than a fraction %v of gaps", len(cols), rep.DroppedColGaps, cfg.maxColGaps)}
	}

	a := &Alignment{alphabet: alpha, n: kept, l: len(c2), columns: n2, source: c2, focus: -1, report: rep}
	a.codes = make([]uint8, a.n*a.l)
	a.names = make([]string, 0, a.n)
	a.lines = make([]int, 0, a.n)
	for s, out := range seqs {
		if !keepSeq[s] {
			continue
		}
		if s == focus {
			a.focus = len(a.names)
		}
		row := codes[s*l0 : (s+1)*l0]
		dst := a.codes[len(a.names)*a.l : (len(a.names)+1)*a.l]
		for x, i := range c2 {
			dst[x] = row[i]
		}
		a.names = append(a.names, out.name)
		a.lines = append(a.lines, out.line)
	}
	return a, nil
}

// letterName is how the report names a letter.
func letterName(c byte) string {
	if c > ' ' && c < 0x7f {
		return string(rune(c))
	}
	return fmt.Sprintf("\\x%02X", c)
}

// seqID is the first word of a sequence name.
func seqID(name string) string {
	if x := strings.IndexAny(name, " \t"); x >= 0 {
		return name[:x]
	}
	return name
}

// findFocus returns the index of the sequence named focus.
func findFocus(seqs []rawSeq, focus string) (int, error) {
	prefix := -1
	for x, s := range seqs {
		id := seqID(s.name)
		if id == focus {
			return x, nil
		}
		if strings.HasPrefix(id, focus+"/") {
			if prefix >= 0 {
				return -1, &AlignmentError{Line: s.line, Sequence: s.name, Msg: fmt.Sprintf("focus %q is ambiguous: it also names sequence %q (line %d)", focus, seqs[prefix].name, seqs[prefix].line)}
			}
			prefix = x
		}
	}
	if prefix < 0 {
		return -1, &AlignmentError{Msg: fmt.Sprintf("no sequence is named %q or %q, the focus", focus, focus+"/...")}
	}
	return prefix, nil
}

// focusStart returns the residue number of the first residue of the focus
// sequence: start from a name "ID/start-end" or "ID/start", else 1.
func focusStart(name, focus string) int {
	id := seqID(name)
	slash := strings.LastIndexByte(id, '/')
	if slash < 0 {
		return 1
	}
	region := id[slash+1:]
	if dash := strings.IndexByte(region, '-'); dash >= 0 {
		region = region[:dash]
	}
	start, err := strconv.Atoi(region)
	if err != nil || start < 0 || start > math.MaxInt32 {
		return 1
	}
	return start
}

// focusNumbers returns, for every column of the (match-state) alignment,
// the residue number of the focus sequence in that column: start plus the
// residues of the focus before it, counting inserts removed from A2M/A3M
// and unknown letters as residues, and gaps ('-', '.', or the gap letter)
// as none.
func focusNumbers(f rawSeq, format AlignmentFormat, code *[256]int16, start int) []int {
	isResidue := func(c byte) bool { return c != '-' && c != '.' && code[c] != 0 }
	nums := make([]int, len(f.letters))
	n := start
	if format == FormatA2M {
		i := 0
		for _, c := range f.raw {
			if isInsert(c) {
				if c != '.' {
					n++
				}
				continue
			}
			nums[i] = n
			i++
			if isResidue(c) {
				n++
			}
		}
		return nums
	}
	for i, c := range f.letters {
		nums[i] = n
		if isResidue(c) {
			n++
		}
	}
	return nums
}
