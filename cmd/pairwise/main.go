// Command pairwise learns discrete pairwise graphical models from samples.
//
// Usage:
//
//	pairwise demo [flags]            learn the paper's 3x3 grid from exact samples
//	pairwise learn [flags] FILE      learn the graph from a CSV of samples (- for stdin);
//	                                 write edges (csv, json), Graphviz DOT or a model JSON
//	pairwise merge [flags] PART...   merge the partial results of learn -shard i/m
//	pairwise sample [flags] MODEL    draw exact or Gibbs samples of a model JSON file
//	pairwise contacts [flags] ALIGNMENT
//	                                 rank the column pairs of an alignment by coupling score
//	pairwise network [flags] FILE    learn a network, print its centrality, draw it
//	pairwise bootstrap [flags] FILE  edge intervals and case-dropping stability (bootnet)
//	pairwise compare-groups [flags] FILE_A FILE_B
//	pairwise compare-groups [flags] -group COLUMN FILE
//	                                 test whether two groups have the same network
//	                                 (NetworkComparisonTest)
//
// Without -lambda and -eta, learn chooses λ and η from the data (see the
// package's Selection). Errors name the file, line and column; a progress
// bar is drawn on standard error when it is a terminal. Run
// "pairwise COMMAND -h" for the flags and examples of a command.
//
// The research harnesses (the paper's figures, the tuning-free study, the
// timings against the baselines of ../shared/bench, the scaling figure)
// live in the separate module study/ of the repository: run
// "cd study && go run . COMMAND -h".
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/mrfkit/pairwise/cmd/cli"
)

// command is one subcommand: its name, a one-line summary and its entry point.
type command = cli.Command

// commands are the subcommands, in the order of the usage message.
var commands = []command{
	{Name: "demo", Summary: "learn the paper's 3x3 grid from exact samples and report the result", Run: runDemo},
	{Name: "learn", Summary: "learn the graph and couplings from a CSV file of samples; write edges, DOT or a model", Run: runLearn},
	{Name: "merge", Summary: "merge the partial results of 'learn -shard i/m' into the result of one process", Run: runMerge},
	{Name: "sample", Summary: "draw samples of a model JSON file (exact, or Gibbs) and write them as CSV", Run: runSample},
	{Name: "contacts", Summary: "rank the column pairs of a sequence alignment by coupling score (contact prediction)", Run: runContacts},
	{Name: "network", Summary: "learn a network, print its centrality indices and draw it (PNG, SVG, PDF)", Run: runNetwork},
	{Name: "bootstrap", Summary: "bootnet's bootstrap: edge intervals, case-dropping stability (CS), plots", Run: runBootstrap},
	{Name: "compare-groups", Summary: "NetworkComparisonTest: do two groups of people have the same network? (permutation test)", Run: runCompareGroups},
}

// main runs the command line and exits with run's code.
func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches to a subcommand and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	return cli.Main("pairwise", commands, usage, args, stdout, stderr)
}

// usage writes the list of subcommands to w.
func usage(w io.Writer) {
	fmt.Fprintln(w, "pairwise learns discrete pairwise graphical models (Ising and Potts) from samples.")
	fmt.Fprintln(w, "\nUsage: pairwise COMMAND [flags]\n\nCommands:")
	cli.Usage(w, commands)
	fmt.Fprintln(w, "\nRun 'pairwise COMMAND -h' for a command's flags.")
}
