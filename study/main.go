// Command study holds the research harnesses of github.com/mrfkit/pairwise:
// the reproduction of the paper's figures, the tuning-free study, the
// timings against the baselines of ../shared/bench and the scaling figure.
// It is a module of its own so that the library's module does not depend on
// gonum.org/v1/plot, and it sees only the library's exported API.
//
// Run it from this folder (study/ of the repository); its default output
// folders and the paths to ../shared/bench are relative to it:
//
//	cd study
//	go run . reproduce [flags]       rerun the paper's Figures 1 and 2 (with Sparsitron) into ../docs/reproduce
//	go run . tuning [flags]          measure the tuning-free learner against the oracle into ../docs/tuning
//	go run . compare DATA TRUTH      time one ../shared/bench data file, as the baselines do
//	go run . scaling [flags]         fit and draw the learners' scaling from go test -bench output
//
// Run "go run . COMMAND -h" for the flags and examples of a command.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// command is one subcommand: its name, a one-line summary and its entry point.
type command struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) error
}

var commands = []command{
	{"reproduce", "rerun the paper's experiments (Figures 1 and 2, with Sparsitron) and draw the figures", runReproduce},
	{"tuning", "compare the tuning-free learner (no λ, no η) with the oracle and with CV baselines", runTuning},
	{"compare", "learn a ../shared/bench data file with its true λ, η; print a JSON line like the baselines'", runCompare},
	{"missing", "exact recovery against N with values missing at random: missing as a state, listwise deletion, complete data", runMissing},
	{"scaling", "fit the exponents of time against N, n and k from go test -bench output and draw them", runScaling},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches to a subcommand and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			err := c.run(args[1:], stdout, stderr)
			switch {
			case err == nil, errors.Is(err, flag.ErrHelp):
				return 0
			default:
				fmt.Fprintf(stderr, "study %s: %v\n", c.name, err)
				return 1
			}
		}
	}
	fmt.Fprintf(stderr, "study: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "study runs the research harnesses of github.com/mrfkit/pairwise (run it from study/).")
	fmt.Fprintln(w, "\nUsage: go run . COMMAND [flags]\n\nCommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'go run . COMMAND -h' for a command's flags.")
}

// newFlagSet returns the flag set of subcommand name. It reports errors on
// stderr, and its usage message, printed for -h and after a flag error, is
// usage followed by the flags and their defaults.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage, "\nFlags:\n")
		fs.PrintDefaults()
	}
	return fs
}

// parseNoArgs parses the flags of a subcommand that takes no arguments.
func parseNoArgs(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return nil
}
