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
//	go run . structprec prep|score   contact precision against a solved structure (docs/contacts)
//	go run . meanfield ALIGNMENT      mean-field DCA contact scores, as pairwise contacts -o writes them
//	go run . entropic ALIGNMENT RAW   the entropic correction of pairwise contacts -apc=false's scores, in place of APC
//	go run . psych [flags]           the default against the IsingFit preset on questionnaire-shaped networks
//	go run . likert gen|learn|table  Likert questionnaires: truths, our learner, the table (docs/psych/likert.md)
//	go run . regular [flags]         write samples of a random d-regular Ising model for the scaling study
//
// Run "go run . COMMAND -h" for the flags and examples of a command.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mrfkit/pairwise/cmd/cli"
)

// command is one subcommand: its name, a one-line summary and its entry point.
type command = cli.Command

var commands = []command{
	{Name: "reproduce", Summary: "rerun the paper's experiments (Figures 1 and 2, with Sparsitron) and draw the figures", Run: runReproduce},
	{Name: "tuning", Summary: "compare the tuning-free learner (no λ, no η) with the oracle and with CV baselines", Run: runTuning},
	{Name: "compare", Summary: "learn a ../shared/bench data file with its true λ, η; print a JSON line like the baselines'", Run: runCompare},
	{Name: "missing", Summary: "exact recovery against N with values missing at random: missing as a state, listwise deletion, complete data", Run: runMissing},
	{Name: "scaling", Summary: "fit the exponents of time against N, n and k from go test -bench output and draw them", Run: runScaling},
	{Name: "regular", Summary: "write Gibbs samples of a random d-regular Ising model and its truth, for glmnet and pairwise learn", Run: runRegular},
	{Name: "structprec", Summary: "contact precision of score files against a solved structure (PDB) or a distance map; prepares focus alignments", Run: runStructprec},
	{Name: "meanfield", Summary: "mean-field (Gaussian) DCA contact scores of an alignment, pairwise contacts' CSV (issue 32's second estimator)", Run: runMeanfield},
	{Name: "entropic", Summary: "the entropic correction F_ij - α√(s_i s_j) of pairwise contacts -apc=false's scores, in place of APC (issue 32)", Run: runEntropic},
	{Name: "psych", Summary: "the default against the IsingFit preset on questionnaire-shaped networks, N = 100 to 2500", Run: runPsych},
	{Name: "likert", Summary: "structure recovery on Likert answers: truths from real questionnaires, our configurations, a table with the peers'", Run: runLikert},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches to a subcommand and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	return cli.Main("study", commands, usage, args, stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "study runs the research harnesses of github.com/mrfkit/pairwise (run it from study/).")
	fmt.Fprintln(w, "\nUsage: go run . COMMAND [flags]\n\nCommands:")
	cli.Usage(w, commands)
	fmt.Fprintln(w, "\nRun 'go run . COMMAND -h' for a command's flags.")
}

// newFlagSet returns the flag set of subcommand name (cli.NewFlagSet).
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	return cli.NewFlagSet(name, usage, stderr)
}

// parseNoArgs parses the flags of a subcommand that takes no arguments.
func parseNoArgs(fs *flag.FlagSet, args []string) error {
	return cli.ParseNoArgs(fs, args, fmt.Errorf)
}
