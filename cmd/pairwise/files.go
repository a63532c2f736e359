package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/internal/cli"
)

// stdinName is how errors name standard input.
const stdinName = "standard input"

// input is an opened input file, or standard input for "-".
type input struct {
	name string // for errors: the path, or stdinName
	r    io.Reader
	size int64 // bytes, or 0 when unknown (a pipe)
	f    *os.File
}

// openInput opens path for reading; "-" is standard input, read from stdin.
func openInput(path string, stdin io.Reader) (*input, error) {
	if path == "-" {
		return &input{name: stdinName, r: stdin}, nil
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
	p *progress
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += n
	c.p.Set(c.n)
	return n, err
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

// libPrefix matches the "pairwise: Function: " prefix of the package's errors.
var libPrefix = regexp.MustCompile(`^pairwise: [A-Za-z.]+: `)

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
	return fmt.Errorf("%s: %s", name, libPrefix.ReplaceAllString(err.Error(), ""))
}

// writeOutput writes what write produces to path, or to stdout for "" or
// "-". The commands call it only once the result is computed, so a failed
// run leaves no output file; a file whose writing fails is removed.
func writeOutput(path string, stdout io.Writer, write func(w io.Writer) error) error {
	if path == "" || path == "-" {
		bw := bufio.NewWriter(stdout)
		err := write(bw)
		if err == nil {
			err = bw.Flush()
		}
		if err != nil {
			return fmt.Errorf("standard output: %v", err)
		}
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return cleanPathError(err)
	}
	bw := bufio.NewWriter(f)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("%s: %v", path, cleanPathError(err))
	}
	return nil
}

// usageError is an error in the command line itself (a flag value, a
// missing argument); run reports it like any other error.
func usageError(format string, args ...any) error {
	return fmt.Errorf(format, args...)
}

// newFlagSet returns the flag set of subcommand name (cli.NewFlagSet).
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	return cli.NewFlagSet(name, usage, stderr)
}

// parseNoArgs parses the flags of a subcommand that takes no arguments.
func parseNoArgs(fs *flag.FlagSet, args []string) error {
	return cli.ParseNoArgs(fs, args, usageError)
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
			return nil, usageError("missing the %s (use - for standard input); see 'pairwise %s -h'", what, cmd)
		}
		return nil, usageError("want one %s, got %d arguments: %q", what, fs.NArg(), fs.Args())
	}
	return set, nil
}

// sizedReader is a reader that can say how many bytes it has left, which
// the package's CSV readers use to size their storage.
type sizedReader struct {
	io.Reader
	left func() int64
}

// Len returns the number of bytes left to read.
func (r *sizedReader) Len() int { return int(max(r.left(), 0)) }
