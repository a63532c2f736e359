package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/internal/cli"
)

// stdin is the standard input of the commands; tests replace it.
var stdin io.Reader = os.Stdin

// defaultNames returns x1..xn, the names of variables without a header.
func defaultNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("x%d", i+1)
	}
	return names
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

// parseFlags parses the flags of a subcommand and returns the names of
// those given on the command line.
func parseFlags(fs *flag.FlagSet, args []string) (map[string]bool, error) {
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set, nil
}

// parseOneFile parses the flags of subcommand cmd, which takes exactly one
// input file (what names it in errors, for example "input FILE"), and
// returns the names of the flags given on the command line.
func parseOneFile(fs *flag.FlagSet, args []string, cmd, what string) (map[string]bool, error) {
	set, err := parseFlags(fs, args)
	switch {
	case err != nil:
		return nil, err
	case fs.NArg() == 0:
		return nil, fmt.Errorf("missing the %s (use - for standard input); see 'pairwise %s -h'", what, cmd)
	case fs.NArg() > 1:
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
	msg := cli.StripPrefixes(err.Error())
	if errors.Is(err, pairwise.ErrEdgeTestTooLarge) {
		msg += " (flag " + optionFlags["WithMinEdgeWeight"] + ")"
	}
	return errors.New(msg)
}
