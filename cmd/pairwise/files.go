package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/internal/cli"
)

// stdin is the standard input of the commands; tests replace it.
var stdin io.Reader = os.Stdin

// input is an opened input file, or standard input for "-".
type input struct {
	name string // for errors: the path, or "standard input"
	r    io.Reader
	size int64 // bytes, or 0 when unknown (a pipe)
	f    *os.File
}

// openInput opens path for reading; "-" is standard input, read from stdin.
func openInput(path string, stdin io.Reader) (*input, error) {
	if path == "-" {
		return &input{name: "standard input", r: stdin}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, cleanPathError(err)
	}
	in := &input{name: path, r: f, f: f}
	if st, err := f.Stat(); err == nil {
		if st.IsDir() {
			f.Close()
			return nil, fmt.Errorf("%s: is a directory, want a file", path)
		}
		if st.Mode().IsRegular() {
			in.size = st.Size()
		}
	}
	return in, nil
}

// Close closes the file, if any.
func (in *input) Close() {
	if in.f != nil {
		in.f.Close()
	}
}

// countingReader reports the bytes read through it to a progress bar.
type countingReader struct {
	r io.Reader
	n int
	p *cli.Progress
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

// readSamples reads the samples of path ("-" for stdin) as o says, with a
// progress bar for the bytes read, and returns them with the input's name
// for messages. Unless quiet it writes the reader's notes on the alphabet
// (noteStates).
func readSamples(path string, o pairwise.CSVOptions, stderr io.Writer, quiet bool) (*pairwise.Samples, string, error) {
	in, err := openInput(path, stdin)
	if err != nil {
		return nil, "", err
	}
	defer in.Close()
	bar := cli.NewByteProgress(stderr, "reading", in.size, quiet)
	counted := &countingReader{r: in.r, p: bar}
	br := bufio.NewReaderSize(counted, 1<<16)
	var r io.Reader = br
	if in.size > 0 {
		// Tell the reader how much is left, so that it can allocate its
		// storage once (see pairwise.ReadCSV).
		r = &sizedReader{Reader: br, left: func() int64 { return in.size - int64(counted.n) + int64(br.Buffered()) }}
	}
	if !o.Histogram {
		if name := firstField(br); slices.Contains(countNames, strings.ToLower(name)) {
			return nil, "", fmt.Errorf("%s: line 1, column 1: the first column is named %q: if it holds counts, pass -histogram to read lines \"count,z_1,...,z_n\"; otherwise rename the column", in.name, name)
		}
	}
	s, err := pairwise.ReadCSVWith(r, o)
	bar.Finish()
	if err != nil {
		var pe *pairwise.ParseError
		if !o.Histogram && errors.As(err, &pe) && pe.Column == 1 && isCount(pe.Value) {
			return nil, "", fmt.Errorf("%w (if the first column holds counts, pass -histogram)", fileError(in.name, err))
		}
		return nil, "", fileError(in.name, err)
	}
	if !quiet {
		noteStates(stderr, in.name, s)
	}
	return s, in.name, nil
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

// noteStates writes the reader's notes on the alphabet (pairwise.StateNotes)
// as warnings, with what to do about them.
func noteStates(w io.Writer, name string, s *pairwise.Samples) {
	for _, n := range s.StateNotes() {
		if n.Count == 0 {
			fmt.Fprintf(w, "warning: %s: %s, yet k = %d counts it: if the file codes its values from 1 (or skips one), list them with -states so that the empty state does not change the graph\n", name, n, s.Alphabet())
			continue
		}
		fmt.Fprintf(w, "warning: %s: %s in %v values: a typo? It adds a state (k = %d); correct it, mark it missing, or state the alphabet with -k to make it an error\n", name, n, float64(s.Vars())*s.TotalWeight()-s.MissingCount(), s.Alphabet())
	}
}

// defaultNames returns x1..xn, the names of variables without a header.
func defaultNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("x%d", i+1)
	}
	return names
}

// cleanPathError turns an *os.PathError into "path: reason" (for example
// "data.csv: no such file or directory").
func cleanPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// fileError restates an error of a package reader for the command's user:
// "FILE: line 3, column 2: ..." in place of "pairwise: ReadCSV: line 3, ...".
// A *pairwise.ParseError is told the file's name and names the place
// itself; the reader's other errors (no samples, a read error) lose the
// package's prefix to the file's name.
func fileError(name string, err error) error {
	var pe *pairwise.ParseError
	if errors.As(err, &pe) {
		pe.File = name
		return pe
	}
	return fmt.Errorf("%s: %s", name, libPrefixes.ReplaceAllString(err.Error(), ""))
}

// checkOutput returns an error when path (an output file; "" or "-" is
// standard output) cannot be created: its directory is missing or not a
// directory, or path is a directory. It creates nothing.
func checkOutput(path string) error {
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

// writeOutput writes what write produces to path, or to stdout for "" or
// "-". The commands call it only once the result is computed, so a failed
// run leaves no output file; a file whose writing fails is removed.
func writeOutput(path string, stdout io.Writer, write func(w io.Writer) error) error {
	out, name := stdout, "standard output"
	var f *os.File
	if path != "" && path != "-" {
		var err error
		if f, err = os.Create(path); err != nil {
			return cleanPathError(err)
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
		return fmt.Errorf("%s: %v", name, cleanPathError(err))
	}
	return nil
}

// parseOneFile parses the flags of subcommand cmd, which takes exactly one
// input file (what names it in errors, for example "input FILE"), and
// returns the names of the flags given on the command line.
func parseOneFile(fs *flag.FlagSet, args []string, cmd, what string) (map[string]bool, error) {
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if fs.NArg() != 1 {
		if fs.NArg() == 0 {
			return nil, fmt.Errorf("missing the %s (use - for standard input); see 'pairwise %s -h'", what, cmd)
		}
		return nil, fmt.Errorf("want one %s, got %d arguments: %q", what, fs.NArg(), fs.Args())
	}
	return set, nil
}

// checkFormat returns the error of a -format value that is not one of
// formats.
func checkFormat(format string, formats ...string) error {
	if slices.Contains(formats, format) {
		return nil
	}
	return fmt.Errorf("-format %q: want one of %s", format, strings.Join(formats, ", "))
}

// during runs work with a context that Ctrl-C cancels and a progress bar
// on stderr (none when quiet) for total units labelled label, "edge test"
// beyond them (the learner's second stage), and restates its error for the
// command line (interrupted).
func during(stderr io.Writer, label string, total int, quiet bool, work func(ctx context.Context, progress func(done, total int)) error) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	bar := cli.NewProgress(stderr, label, total, quiet)
	bar.Stage = total
	err := work(ctx, bar.Func())
	bar.Finish()
	return interrupted(err)
}

// interrupted restates an error of a run: "interrupted" for one cancelled
// by Ctrl-C, else flagHint's restatement; nil stays nil.
func interrupted(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) {
		return errors.New("interrupted")
	}
	return flagHint(err)
}

// optionFlags maps the options of the library to the flags that set them:
// the learner's, which learn passes, and the Gibbs sampler's, which sample
// passes.
var optionFlags = map[string]string{
	"WithWidth":         "-lambda",
	"WithMinEdgeWeight": "-eta",
	"WithRadius":        "-radius",
	"WithTolerance":     "-tol",
	"WithMaxIterations": "-max-iter",
	"WithWorkers":       "-workers",
	"WithFalseEdgeRate": "-alpha",
	"WithSelection":     "-select",
	"GibbsBurnIn":       "-burnin",
	"GibbsThin":         "-thin",
	"GibbsChains":       "-chains",
}

// flagHint restates an error of the library for the command line: an
// invalid option (a *pairwise.OptionError) is named by its flag, "-lambda
// -1: the width bound λ must be ...", the error of an edge test too large
// to run names the flag that avoids it, and the package's prefix goes from
// the other messages. Several errors joined by errors.Join are restated
// one a line.
func flagHint(err error) error {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var lines []string
		for _, e := range joined.Unwrap() {
			lines = append(lines, flagHint(e).Error())
		}
		return errors.New(strings.Join(lines, "\n"))
	}
	var oe *pairwise.OptionError
	if errors.As(err, &oe) {
		if flag, ok := optionFlags[oe.Option]; ok {
			return fmt.Errorf("%s %v: %s", flag, oe.Value, oe.Reason)
		}
		return fmt.Errorf("%s(%v): %s", oe.Option, oe.Value, oe.Reason)
	}
	msg := libPrefixes.ReplaceAllString(err.Error(), "")
	if errors.Is(err, pairwise.ErrEdgeTestTooLarge) {
		msg += " (flag " + optionFlags["WithMinEdgeWeight"] + ")"
	}
	return errors.New(msg)
}

// libPrefixes matches "pairwise: " and "pairwise: Function: " at the start
// of every line of a (joined) error.
var libPrefixes = regexp.MustCompile(`(?m)^pairwise: ([A-Za-z.]+: )?`)
