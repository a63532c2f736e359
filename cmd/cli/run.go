package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"

	"github.com/mrfkit/pairwise"
)

// ParseFlags parses the flags of a subcommand and returns the names of
// those given on the command line.
func ParseFlags(fs *flag.FlagSet, args []string) (map[string]bool, error) {
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set, nil
}

// ParseOneFile parses the flags of the subcommand cmd (as it is typed,
// "pairwise learn"), which takes exactly one input file (what names it in
// errors, for example "input FILE"), and returns the names of the flags
// given on the command line.
func ParseOneFile(fs *flag.FlagSet, args []string, cmd, what string) (map[string]bool, error) {
	set, err := ParseFlags(fs, args)
	switch {
	case err != nil:
		return nil, err
	case fs.NArg() == 0:
		return nil, fmt.Errorf("missing the %s (use - for standard input); see '%s -h'", what, cmd)
	case fs.NArg() > 1:
		return nil, fmt.Errorf("want one %s, got %d arguments: %q", what, fs.NArg(), fs.Args())
	}
	return set, nil
}

// CheckFormat returns the error of a -format value that is not one of
// formats.
func CheckFormat(format string, formats ...string) error {
	if slices.Contains(formats, format) {
		return nil
	}
	return fmt.Errorf("-format %q: want one of %s", format, strings.Join(formats, ", "))
}

// WriteJSON writes v as indented JSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// During runs work with a context that Ctrl-C cancels and a progress bar
// on stderr (none when quiet) for total units labelled label, "edge test"
// beyond them (the learner's second stage), and restates its error for the
// command line (Interrupted).
func During(stderr io.Writer, label string, total int, quiet bool, work func(ctx context.Context, progress func(done, total int)) error) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	bar := NewProgress(stderr, label, total, quiet)
	bar.Stage = total
	err := work(ctx, bar.Func())
	bar.Finish()
	return Interrupted(err)
}

// Interrupted restates an error of a run: "interrupted" for one cancelled
// by Ctrl-C, else FlagHint's restatement; nil stays nil.
func Interrupted(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) {
		return errors.New("interrupted")
	}
	return FlagHint(err)
}

// OptionFlags maps the options of the library to the flags that set them:
// the learner's, which the learning subcommands pass, and the Gibbs
// sampler's, which sample passes.
var OptionFlags = map[string]string{
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

// FlagHint restates an error of the library for the command line: an
// invalid option (a *pairwise.OptionError) is named by its flag, "-lambda
// -1: the width bound λ must be ...", the error of an edge test too large
// to run names the flag that avoids it, and the package's prefix goes from
// the other messages. Several errors joined by errors.Join are restated
// one a line.
func FlagHint(err error) error {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var lines []string
		for _, e := range joined.Unwrap() {
			lines = append(lines, FlagHint(e).Error())
		}
		return errors.New(strings.Join(lines, "\n"))
	}
	var oe *pairwise.OptionError
	if errors.As(err, &oe) {
		if flag, ok := OptionFlags[oe.Option]; ok {
			return fmt.Errorf("%s %v: %s", flag, oe.Value, oe.Reason)
		}
		return fmt.Errorf("%s(%v): %s", oe.Option, oe.Value, oe.Reason)
	}
	msg := StripPrefixes(err.Error())
	if errors.Is(err, pairwise.ErrEdgeTestTooLarge) {
		msg += " (flag " + OptionFlags["WithMinEdgeWeight"] + ")"
	}
	return errors.New(msg)
}
