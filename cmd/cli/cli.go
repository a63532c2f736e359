// Package cli holds what the repository's commands share: the dispatch of
// subcommands, their flag sets and checks, a terminal progress bar, the
// running of long work under Ctrl-C with the library's errors restated by
// flag (During, FlagHint), and the reading of samples and the writing of
// output files with errors that name the file, its line and column. It is internal
// to github.com/mrfkit/pairwise: the command cmd/pairwise and the research
// harnesses of study/ use it; the library does not.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/mrfkit/pairwise"
)

// Command is one subcommand: its name, a one-line summary and its entry
// point, which returns flag.ErrHelp after printing help and any other error
// to be reported.
type Command struct {
	Name, Summary string
	Run           func(args []string, stdout, stderr io.Writer) error
}

// Main dispatches args to the command they name and returns the process's
// exit code: 0 on success or help, 1 when the command failed (its error
// printed as "prog command: error"), 2 for no or an unknown command (after
// usage) and for help on an unknown topic, as Go's flag package exits on
// an unknown flag. "help COMMAND" prints the command's help.
func Main(prog string, cmds []Command, usage func(io.Writer), args []string, stdout, stderr io.Writer) int {
	if len(args) > 1 && args[0] == "help" {
		if len(args) > 2 {
			fmt.Fprintf(stderr, "%s help: one topic at most, not %q\n", prog, args[1:])
			return 2
		}
		for _, c := range cmds {
			if c.Name == args[1] {
				if err := c.Run([]string{"-h"}, stdout, stderr); err != nil && !errors.Is(err, flag.ErrHelp) {
					fmt.Fprintf(stderr, "%s %s: %v\n", prog, c.Name, err)
					return 1
				}
				return 0
			}
		}
		fmt.Fprintf(stderr, "%s help: unknown help topic %q; the topics are the commands:\n\n", prog, args[1])
		usage(stderr)
		return 2
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range cmds {
		if c.Name == args[0] {
			err := c.Run(args[1:], stdout, stderr)
			switch {
			case err == nil, errors.Is(err, flag.ErrHelp):
				return 0
			default:
				fmt.Fprintf(stderr, "%s %s: %v\n", prog, c.Name, err)
				return 1
			}
		}
	}
	fmt.Fprintf(stderr, "%s: unknown command %q\n\n", prog, args[0])
	usage(stderr)
	return 2
}

// Usage writes the list of commands, one a line with its summary, the
// summaries aligned in a column at least 10 wide.
func Usage(w io.Writer, cmds []Command) {
	width := 10
	for _, c := range cmds {
		width = max(width, len(c.Name))
	}
	for _, c := range cmds {
		fmt.Fprintf(w, "  %-*s %s\n", width, c.Name, c.Summary)
	}
}

// NewFlagSet returns the flag set of subcommand name. It reports errors on
// stderr, and its usage message, printed for -h and after a flag error, is
// usage followed by the flags and their defaults.
func NewFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage, "\nFlags:\n")
		fs.PrintDefaults()
	}
	return fs
}

// ParseNoArgs parses the flags of a subcommand that takes no arguments;
// an argument left over is the error usage returns for it.
func ParseNoArgs(fs *flag.FlagSet, args []string, usage func(format string, args ...any) error) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usage("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// WriteRows writes the rows of s to w as CSV lines, one write a line,
// without a header: states 0..k-1, or spins -1/+1 (2z-1) when spins is
// true.
func WriteRows(w io.Writer, s *pairwise.Samples, spins bool) error {
	var line []byte
	var row []int
	for r := 0; r < s.Len(); r++ {
		row = s.Row(row, r)
		line = line[:0]
		for i, v := range row {
			if i > 0 {
				line = append(line, ',')
			}
			if spins {
				v = 2*v - 1
			}
			line = strconv.AppendInt(line, int64(v), 10)
		}
		if _, err := w.Write(append(line, '\n')); err != nil {
			return err
		}
	}
	return nil
}
