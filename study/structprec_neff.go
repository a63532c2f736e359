package main

import (
	"fmt"
	"io"

	"github.com/mrfkit/pairwise/protein"
)

// runStructprecNeff is "structprec neff": the number of sequences, of
// columns and the effective number of sequences of an alignment, read and
// reweighted as `pairwise contacts` reads and reweights it by default
// (protein.ReadAlignment with its defaults, protein.Reweight at identity
// -theta), so that scripts/contacts_structure.sh can set a ridge that
// follows Neff without running the fit. It prints one line "N L Neff".
func runStructprecNeff(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("structprec neff", structprecUsage, stderr)
	theta := fs.Float64("theta", protein.DefaultIdentity, "identity threshold of the reweighting, in (0, 1]")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("want one ALIGNMENT, got %d arguments", fs.NArg())
	}
	a, err := protein.ReadAlignmentFile(fs.Arg(0))
	if err != nil {
		return err
	}
	w, err := protein.Reweight(a, protein.ReweightIdentity(*theta))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d %d %.1f\n", a.Len(), a.Vars(), w.Neff)
	return nil
}
