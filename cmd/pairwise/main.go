// Command pairwise learns discrete pairwise graphical models from samples.
//
// Usage:
//
//	pairwise demo [flags]            learn the paper's 3x3 grid from exact samples
//	pairwise learn [flags] FILE      learn the graph from a CSV of samples (- for stdin);
//	                                 write edges (csv, json), Graphviz DOT or a model JSON
//	pairwise merge [flags] PART...   merge the partial results of learn -shard i/m
//	pairwise sample [flags] MODEL    draw exact or Gibbs samples of a model JSON file
//	pairwise reproduce [flags]       rerun the paper's Figures 1 and 2 (with Sparsitron)
//	pairwise tuning [flags]          measure the tuning-free learner against the oracle
//	pairwise compare DATA TRUTH      time one ../shared/bench data file, as the baselines do
//
// Without -lambda and -eta, learn chooses λ and η from the data (see the
// package's Selection). Errors name the file, line and column; a progress
// bar is drawn on standard error when it is a terminal. Run
// "pairwise COMMAND -h" for the flags and examples of a command.
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
	{"demo", "learn the paper's 3x3 grid from exact samples and report the result", runDemo},
	{"learn", "learn the graph and couplings from a CSV file of samples; write edges, DOT or a model", runLearn},
	{"merge", "merge the partial results of 'learn -shard i/m' into the result of one process", runMerge},
	{"sample", "draw samples of a model JSON file (exact, or Gibbs) and write them as CSV", runSample},
	{"reproduce", "rerun the paper's experiments (Figures 1 and 2, with Sparsitron) and draw the figures", runReproduce},
	{"tuning", "compare the tuning-free learner (no λ, no η) with the oracle and with CV baselines", runTuning},
	{"compare", "learn a ../shared/bench data file with its true λ, η; print a JSON line like the baselines'", runCompare},
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
			case err == nil:
				return 0
			case errors.Is(err, flag.ErrHelp):
				return 0
			default:
				fmt.Fprintf(stderr, "pairwise %s: %v\n", c.name, err)
				return 1
			}
		}
	}
	fmt.Fprintf(stderr, "pairwise: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "pairwise learns discrete pairwise graphical models (Ising and Potts) from samples.")
	fmt.Fprintln(w, "\nUsage: pairwise COMMAND [flags]\n\nCommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'pairwise COMMAND -h' for a command's flags.")
}
