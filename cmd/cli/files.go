package cli

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mrfkit/pairwise"
)

// Input is an opened input file, or standard input for "-".
type Input struct {
	Name string // for errors: the path, or "standard input"
	R    io.Reader
	Size int64 // bytes, or 0 when unknown (a pipe)
	f    *os.File
}

// Open opens path for reading; "-" is standard input, read from stdin.
// A gzip-compressed input (its first two bytes 0x1f 0x8b, whatever its
// name) reads as its decompressed bytes, and its Size is then unknown.
func Open(path string, stdin io.Reader) (*Input, error) {
	if path == "-" {
		return (&Input{Name: "standard input", R: stdin}).gunzip()
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, CleanPathError(err)
	}
	in := &Input{Name: path, R: f, f: f}
	if st, err := f.Stat(); err == nil {
		if st.IsDir() {
			f.Close()
			return nil, fmt.Errorf("%s: is a directory, want a file", path)
		}
		if st.Mode().IsRegular() {
			in.Size = st.Size()
		}
	}
	return in.gunzip()
}

// gunzip makes in read its decompressed bytes when it starts as gzip
// does (0x1f 0x8b); other inputs read as they are, through a buffer.
func (in *Input) gunzip() (*Input, error) {
	br := bufio.NewReaderSize(in.R, 1<<16)
	in.R = br
	if b, _ := br.Peek(2); len(b) == 2 && b[0] == 0x1f && b[1] == 0x8b {
		z, err := gzip.NewReader(br)
		if err != nil {
			in.Close()
			return nil, fmt.Errorf("%s: reading it as gzip: %w", in.Name, err)
		}
		in.R, in.Size = z, 0
	}
	return in, nil
}

// Close closes the file, if any.
func (in *Input) Close() {
	if in.f != nil {
		in.f.Close()
	}
}

// countingReader reports the bytes read through it to a progress bar.
type countingReader struct {
	r io.Reader
	n int
	p *Progress
}

// Read reads from the underlying reader and moves the bar.
func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += n
	c.p.Set(c.n)
	return n, err
}

// sizedReader is a reader that can say how many bytes it has left, which
// the package's CSV readers use to size their storage.
type sizedReader struct {
	io.Reader
	left func() int64
}

// Len returns the number of bytes left to read.
func (r *sizedReader) Len() int { return int(max(r.left(), 0)) }

// countNames are header names of a first column that holds counts.
var countNames = []string{"count", "counts", "n", "freq", "frequency", "weight", "weights"}

// ReadSamples reads the samples of path ("-" for stdin) as o says, with a
// progress bar for the bytes read, and returns them with the input's name
// for messages. It writes the reader's notes on the alphabet (NoteStates)
// even when quiet: an empty or a rare state changes the graph, and quiet
// silences the progress and the summary, never a warning.
//
// Without a stated alphabet (o.Alphabet and o.States unset), a value that
// extends the alphabet and occurs in fewer than five places (StateNotes:
// "a typo?") is read as missing instead, from a second read of the file,
// and said so: one stray "2" in a file of 0s and 1s would otherwise make
// every variable 3-state and cost the edge test the power to find the
// typo's edges. Stating the alphabet (-k, -states) keeps such a value as
// a state; from standard input, which cannot be read twice, it is kept
// and the warning says how to mend it.
func ReadSamples(path string, stdin io.Reader, o pairwise.CSVOptions, stderr io.Writer, quiet bool) (*pairwise.Samples, string, error) {
	s, name, err := readSamples(path, stdin, o, stderr, quiet)
	if err != nil || path == "-" || o.Alphabet != 0 || o.States != nil {
		if err == nil {
			NoteStates(stderr, name, s, 0)
		}
		return s, name, err
	}
	rare := rareTop(s)
	if len(rare) == 0 {
		NoteStates(stderr, name, s, 0)
		return s, name, nil
	}
	ro := o
	ro.Missing = slices.Clone(o.Missing)
	if ro.Missing == nil {
		ro.Missing = slices.Clone(pairwise.DefaultMissing)
	}
	for _, n := range rare {
		ro.Missing = append(ro.Missing, n.Value)
	}
	r, _, err := readSamples(path, stdin, ro, io.Discard, true)
	if err != nil || r.Alphabet() != s.Alphabet()-len(rare) {
		// Another spelling of the value, or a marker clash: keep the
		// first reading and its warnings.
		NoteStates(stderr, name, s, 0)
		return s, name, nil
	}
	for _, n := range rare {
		fmt.Fprintf(stderr, "warning: %s: %s (of %v values): read as missing, as a typo; k = %d (state the alphabet with -k %d or -states to keep it as a state)\n", name, n, float64(s.Vars())*s.TotalWeight()-s.MissingCount(), r.Alphabet(), s.Alphabet())
	}
	NoteStates(stderr, name, r, 0)
	return r, name, nil
}

// rareTop returns the notes on the rare states at the top of s's alphabet
// (StateNotes with a count: seen in fewer than five places), the states
// that a reading as missing removes from the alphabet; none when the
// alphabet would fall below two states.
func rareTop(s *pairwise.Samples) []pairwise.StateNote {
	rare := map[int]pairwise.StateNote{}
	for _, n := range s.StateNotes() {
		if n.Count > 0 && n.Value != "" {
			rare[n.State] = n
		}
	}
	var top []pairwise.StateNote
	for v := s.Alphabet() - 1; v >= 2; v-- {
		n, ok := rare[v]
		if !ok {
			break
		}
		top = append(top, n)
	}
	slices.Reverse(top)
	return top
}

// readSamples is ReadSamples without the notes on the alphabet and the
// rule for rare states.
func readSamples(path string, stdin io.Reader, o pairwise.CSVOptions, stderr io.Writer, quiet bool) (*pairwise.Samples, string, error) {
	in, err := Open(path, stdin)
	if err != nil {
		return nil, "", err
	}
	defer in.Close()
	bar := NewByteProgress(stderr, "reading", in.Size, quiet)
	counted := &countingReader{r: in.R, p: bar}
	br := bufio.NewReaderSize(counted, 1<<16)
	var r io.Reader = br
	if in.Size > 0 {
		// Tell the reader how much is left, so that it can allocate its
		// storage once (see pairwise.ReadCSV).
		r = &sizedReader{Reader: br, left: func() int64 { return in.Size - int64(counted.n) + int64(br.Buffered()) }}
	}
	if !o.Histogram {
		if name := firstField(br); slices.Contains(countNames, strings.ToLower(name)) {
			return nil, "", fmt.Errorf("%s: line 1, column 1: the first column is named %q: if it holds counts, pass -histogram to read lines \"count,z_1,...,z_n\"; otherwise rename the column", in.Name, name)
		}
	}
	s, err := pairwise.ReadCSVWith(r, o)
	bar.Finish()
	if err != nil {
		var pe *pairwise.ParseError
		if !o.Histogram && errors.As(err, &pe) && pe.Column == 1 && isCount(pe.Value) {
			return nil, "", fmt.Errorf("%w (if the first column holds counts, pass -histogram)", FileError(in.Name, err))
		}
		return nil, "", FileError(in.Name, err)
	}
	return s, in.Name, nil
}

// isCount reports whether a field that is not a state could be a count of
// a histogram: a number, but not an integer state.
func isCount(field string) bool {
	_, err := strconv.ParseFloat(field, 64)
	return err == nil
}

// firstField returns the first field of the first line that r holds in its
// buffer, without quotes and surrounding spaces, without consuming it.
func firstField(r *bufio.Reader) string {
	b, _ := r.Peek(r.Size()) // a short read is fine: we only need the start
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	if i := bytes.IndexAny(b, ",\r\n"); i >= 0 {
		b = b[:i]
	}
	return strings.Trim(strings.TrimSpace(string(b)), `"`)
}

// NoteStates writes the reader's notes on the alphabet (pairwise.StateNotes)
// as warnings, with what to do about them. removed is the column (from 1)
// taken out of the file before reading, which the places count; 0 for
// none.
func NoteStates(w io.Writer, name string, s *pairwise.Samples, removed int) {
	for _, n := range s.StateNotes() {
		n.Places = slices.Clone(n.Places)
		for p := range n.Places {
			if removed > 0 && n.Places[p].Column >= removed {
				n.Places[p].Column++
			}
		}
		if n.Count == 0 {
			fmt.Fprintf(w, "warning: %s: %s, yet k = %d counts it: if the file codes its values from 1 (or skips one), list them with -states so that the empty state does not change the graph\n", name, n, s.Alphabet())
			continue
		}
		fmt.Fprintf(w, "warning: %s: %s in %v values: a typo? It adds a state (k = %d); correct it, mark it missing, or state the alphabet with -k to make it an error\n", name, n, float64(s.Vars())*s.TotalWeight()-s.MissingCount(), s.Alphabet())
	}
}

// CleanPathError turns an *os.PathError into "path: reason" (for example
// "data.csv: no such file or directory").
func CleanPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// FileError restates an error of a package reader for the command's user:
// "FILE: line 3, column 2: ..." in place of "pairwise: ReadCSV: line 3, ...".
// A *pairwise.ParseError is told the file's name and names the place
// itself; the reader's other errors (no samples, a read error) lose the
// package's prefix to the file's name.
func FileError(name string, err error) error {
	var pe *pairwise.ParseError
	if errors.As(err, &pe) {
		pe.File = name
		return pe
	}
	return fmt.Errorf("%s: %s", name, StripPrefixes(err.Error()))
}

// CheckOutput returns an error when path (an output file; "" or "-" is
// standard output) cannot be created: its directory is missing or not a
// directory, or path is a directory. It creates nothing.
func CheckOutput(path string) error {
	if path == "" || path == "-" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s: is a directory", path)
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return fmt.Errorf("%s: %v", path, pe.Err)
		}
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: not a directory", dir)
	}
	return nil
}

// WriteFile writes what write produces to path, or to stdout for "" or
// "-". The commands call it only once the result is computed, so a failed
// run leaves no output file; a file whose writing fails is removed.
func WriteFile(path string, stdout io.Writer, write func(w io.Writer) error) error {
	out, name := stdout, "standard output"
	var f *os.File
	if path != "" && path != "-" {
		var err error
		if f, err = os.Create(path); err != nil {
			return CleanPathError(err)
		}
		out, name = f, path
	}
	bw := bufio.NewWriter(out)
	err := write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %v", name, CleanPathError(err))
	}
	return nil
}

// libPrefixes matches "pairwise: " and "pairwise: Function: " (or
// "protein: ...") at the start of every line of a (joined) error.
var libPrefixes = regexp.MustCompile(`(?m)^(pairwise|protein): ([A-Za-z.]+: )?`)

// StripPrefixes returns an error message of the library without the
// "pairwise: " and "pairwise: Function: " (or "protein: ...") at the start
// of its lines.
func StripPrefixes(msg string) string { return libPrefixes.ReplaceAllString(msg, "") }
