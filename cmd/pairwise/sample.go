package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/cmd/cli"
)

// sampleChunk is the number of exact samples drawn and written at a time,
// so that memory stays small however many samples are asked for.
const sampleChunk = 1 << 13

// newSeedSource returns the random source of -seed seed.
func newSeedSource(seed uint64) rand.Source {
	return rand.NewPCG(seed, 0x9e3779b97f4a7c15)
}

// sampleUsage is the help of "pairwise sample".
const sampleUsage = `Usage: pairwise sample [flags] MODEL

Reads a model in the model JSON format from MODEL ("-" for standard input),
as written by 'pairwise learn -format model' or -model-out, and writes samples
of it as CSV: a header line of the model's variable names (if it has names),
then one sample a line of states 0..k-1 (or spins with -spins). Samples are
exact and independent (variable elimination) unless -gibbs is given; a model
too wide for exact sampling is an error that suggests -gibbs.

Examples:
  pairwise sample -n 5000 -seed 7 testdata/grid.model.json > samples.csv
  pairwise learn -lambda 2 -eta 0.3 -format model testdata/grid.csv | pairwise sample -n 100 -
  pairwise sample -gibbs -burnin 2000 -thin 20 -n 10000 -o big.csv big.model.json
`

// runSample reads a model in the model JSON format and writes samples of it
// as CSV.
func runSample(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("sample", sampleUsage, stderr)
	count := fs.Int("n", 1000, "number of `samples`")
	seed := fs.Uint64("seed", 1, "random `seed`; the same seed and flags give the same samples")
	gibbs := fs.Bool("gibbs", false, "use a Gibbs sampler (for models too large to sample exactly)")
	burnIn := fs.Int("burnin", pairwise.DefaultGibbsBurnIn, "with -gibbs: `sweeps` every chain runs before its first sample")
	thin := fs.Int("thin", pairwise.DefaultGibbsThin, "with -gibbs: `sweeps` between two kept samples of a chain")
	chains := fs.Int("chains", pairwise.DefaultGibbsChains, "with -gibbs: independent `chains`")
	spins := fs.Bool("spins", false, "for k = 2, write spins -1/+1 instead of states 0/1")
	out := fs.String("o", "", "write the samples to `FILE` (default standard output)")
	quiet := fs.Bool("quiet", false, "no progress bar on standard error")
	set, err := cli.ParseOneFile(fs, args, "pairwise sample", "MODEL file")
	if err != nil {
		return err
	}
	if *count < 1 {
		return fmt.Errorf("-n %d: want at least one sample", *count)
	}
	if !*gibbs {
		for _, name := range []string{"burnin", "thin", "chains"} {
			if set[name] {
				return fmt.Errorf("-%s applies to the Gibbs sampler: add -gibbs", name)
			}
		}
	}

	m, name, err := readModel(fs.Arg(0))
	if err != nil {
		return err
	}
	if *spins && m.Alphabet() != 2 {
		return fmt.Errorf("-spins: the model has k = %d states, spins need k = 2", m.Alphabet())
	}
	src := newSeedSource(*seed)

	var sampler pairwise.Sampler
	chunk := *count
	if *gibbs {
		g, err := pairwise.NewGibbsSampler(m, pairwise.GibbsBurnIn(*burnIn), pairwise.GibbsThin(*thin), pairwise.GibbsChains(*chains))
		if err != nil {
			return cli.FlagHint(err)
		}
		sampler = g
	} else {
		e, err := pairwise.NewExactSampler(m)
		if err != nil {
			return fmt.Errorf("%v; use -gibbs for a Gibbs sampler", cli.FileError(name, err))
		}
		// An exact sampler draws rows one after another from src, so
		// drawing in chunks gives the same rows as one large draw.
		sampler, chunk = e, sampleChunk
	}

	bar := cli.NewProgress(stderr, "sampling", *count, *quiet)
	defer bar.Finish()
	return cli.WriteFile(*out, stdout, func(w io.Writer) error {
		if names := m.Names(); names != nil {
			if _, err := io.WriteString(w, strings.Join(names, ",")+"\n"); err != nil {
				return err
			}
		}
		for done := 0; done < *count; {
			c := min(chunk, *count-done)
			s, err := sampler.Sample(src, c)
			if err != nil {
				return cli.FlagHint(err)
			}
			if err := cli.WriteRows(w, s, *spins); err != nil {
				return err
			}
			done += c
			bar.Set(done)
		}
		return nil
	})
}
