package main

import (
	"io"

	"github.com/mrfkit/pairwise/cmd/cli"
)

// progress is the terminal progress bar the commands share (cli.Progress).
type progress = cli.Progress

// newProgress returns a progress bar for total units of work written to w.
func newProgress(w io.Writer, label string, total int, quiet bool) *progress {
	return cli.NewProgress(w, label, total, quiet)
}
