package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mrfkit/pairwise"
)

// The missing-value study: exact recovery of the tuning-free learner
// against N when a share p of the values is removed at random (each value
// independently, missing completely at random), for the three rules of
// pairwise.WithMissing, against the complete data, on the tuning study's
// models and samples (run s at size N draws with rand.NewPCG(s+1, N), as
// there; the values to remove with rand.NewPCG(s+1, N^p-bits)).

// missingConditions are the data and rules compared: the complete data,
// and each share of missing values with each rule.
var missingConditions = []struct {
	name string
	p    float64
	rule pairwise.MissingRule
}{
	{"complete", 0, pairwise.MissingAsState},
	{"p10-state", 0.1, pairwise.MissingAsState},
	{"p10-listwise", 0.1, pairwise.ListwiseDeletion},
	{"p30-state", 0.3, pairwise.MissingAsState},
	{"p30-listwise", 0.3, pairwise.ListwiseDeletion},
	{"p10-avail", 0.1, pairwise.AvailableCase},
	{"p30-avail", 0.3, pairwise.AvailableCase},
}

// missingSizes are the sample sizes a model is run at: the tuning study's,
// with one grid step more at the top (the data with missing values need
// more).
var missingSizes = map[string][]int{
	"diamond": {500, 1000, 2000, 5000, 10000, 20000},
	"grid-k2": {500, 1000, 2000, 5000, 10000, 20000},
	"grid-k4": {2000, 5000, 10000, 20000, 40000, 80000},
	"grid7x7": {1000, 2000, 5000, 10000, 20000, 40000},
}

const missingUsage = `Usage: go run . missing [flags]

Measures exact recovery of the tuning-free learner (pairwise.Learn with no
λ and no η) against N on the tuning study's models, with a share of the
values removed at random, for the rules MissingAsState (missing as a state
of its own), ListwiseDeletion and AvailableCase (k = 2 only: each node on
the rows that observe it, a missing neighbour as the spin 0), against the
complete data. The conditions with the same share of missing values remove
the same values. Writes
missing.csv (one line a run) and missing.md (the table) to -out.

Flags:
`

func runMissing(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("missing", missingUsage, stderr)
	models := fs.String("models", "diamond,grid-k2,grid-k4,grid7x7", "comma-separated `models` of the tuning study")
	conds := fs.String("conditions", "complete,p10-state,p10-listwise,p30-state,p30-listwise", "comma-separated `conditions`")
	seeds := fs.Int("seeds", 20, "seeded runs per sample size")
	sizes := fs.String("N", "", "sample sizes for every model, comma-separated (default: per model)")
	maxN := fs.Int("max-N", 0, "skip sample sizes above `N` (0: none)")
	out := fs.String("out", filepath.Join("..", "docs", "missing"), "output `directory`")
	workers := fs.Int("workers", 1, "goroutines per learner")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	var ns []int
	if *sizes != "" {
		for _, f := range strings.Split(*sizes, ",") {
			v, err := strconv.Atoi(f)
			if err != nil || v < 1 {
				return fmt.Errorf("-N: bad sample size %q", f)
			}
			ns = append(ns, v)
		}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(*out, "missing.csv"))
	if err != nil {
		return err
	}
	defer f.Close()
	cw := csv.NewWriter(f)
	cw.Write([]string{"model", "n", "k", "N", "seed", "condition", "exact", "fp", "fn", "seconds", "missing", "dropped_rows"})
	var md strings.Builder
	fmt.Fprintf(&md, "# Missing values: recovery against N\n\nMade by `cd study && go run . missing %s` on a shared, busy two-core machine (times are indicative only).\n\n", strings.Join(args, " "))
	md.WriteString("Each cell: exact recoveries of the graph by the tuning-free learner (`pairwise.Learn` with no λ and no η) / runs, and the mean false positives and negatives. " +
		"The samples are the tuning study's (exact samples, run s at size N drawn with `rand.NewPCG(s+1, N)`); a share p of the values is then removed, each value independently (missing completely at random). " +
		"Conditions: **complete** (no value removed), **p10/p30-state** (10% / 30% removed, `WithMissing(MissingAsState)`, the default for k > 2), **p10/p30-listwise** (`WithMissing(ListwiseDeletion)`, only the complete rows; the mean share of rows kept is in the last line), **p10/p30-avail** (`WithMissing(AvailableCase)`, the default for k = 2, k = 2 only: node i's regression on the rows that observe z_i, a missing neighbour entering as the spin 0). Conditions with the same p remove the same values.\n\n")
	for _, name := range strings.Split(*models, ",") {
		var tm *tuningModel
		for x := range tuningModels {
			if tuningModels[x].name == name {
				tm = &tuningModels[x]
			}
		}
		if tm == nil {
			return fmt.Errorf("unknown model %q", name)
		}
		m, err := tm.build()
		if err != nil {
			return err
		}
		sampler, err := pairwise.NewExactSampler(m)
		if err != nil {
			return err
		}
		truth := map[[2]int]bool{}
		for _, e := range m.Edges() {
			truth[[2]int{e.I, e.J}] = true
		}
		grid := missingSizes[name]
		if grid == nil {
			grid = tm.ns
		}
		if ns != nil {
			grid = ns
		}
		fmt.Fprintf(stdout, "%s: %s; n = %d, k = %d, %d edges\n", name, tm.about, m.Vars(), m.Alphabet(), len(truth))
		fmt.Fprintf(&md, "## %s: %s\n\nn = %d, k = %d, %d edges.\n\n| N |", name, tm.about, m.Vars(), m.Alphabet(), len(truth))
		cl := strings.Split(*conds, ",")
		for _, c := range cl {
			fmt.Fprintf(&md, " %s |", c)
		}
		md.WriteString("\n|---|" + strings.Repeat("---|", len(cl)) + "\n")
		for _, N := range grid {
			if *maxN > 0 && N > *maxN {
				continue
			}
			fmt.Fprintf(&md, "| %d |", N)
			line := fmt.Sprintf("  N = %6d:", N)
			for _, cname := range cl {
				ci := -1
				for x, c := range missingConditions {
					if c.name == cname {
						ci = x
					}
				}
				if ci < 0 {
					return fmt.Errorf("unknown condition %q", cname)
				}
				c := missingConditions[ci]
				exact, fp, fn, kept := 0, 0, 0, 0.0
				secs := 0.0
				for seed := 0; seed < *seeds; seed++ {
					s, err := sampler.Sample(rand.NewPCG(uint64(seed)+1, uint64(N)), N)
					if err != nil {
						return err
					}
					if c.p > 0 {
						s, err = removeValues(s, c.p, rand.NewPCG(uint64(seed)+1, uint64(N)^uint64(c.p*1000)<<32))
						if err != nil {
							return err
						}
					}
					t0 := time.Now()
					res, err := pairwise.Learn(s, pairwise.WithMissing(c.rule), pairwise.WithWorkers(*workers))
					if errors.Is(err, pairwise.ErrNoSamples) && c.rule == pairwise.ListwiseDeletion {
						// No complete row: nothing learned, every edge missed.
						res, err = &pairwise.Result{Missing: &pairwise.MissingReport{Dropped: float64(N)}}, nil
					}
					if err != nil {
						return fmt.Errorf("%s N=%d seed %d %s: %v", name, N, seed, cname, err)
					}
					el := time.Since(t0).Seconds()
					secs += el
					a, b := tuningErrors(truth, res.Edges)
					fp, fn = fp+a, fn+b
					if a == 0 && b == 0 {
						exact++
					}
					missing, dropped := 0.0, 0.0
					if r := res.Missing; r != nil {
						missing, dropped = r.Values, r.Dropped
					}
					kept += (float64(N) - dropped) / float64(N)
					cw.Write([]string{name, strconv.Itoa(m.Vars()), strconv.Itoa(m.Alphabet()), strconv.Itoa(N), strconv.Itoa(seed), cname,
						strconv.FormatBool(a == 0 && b == 0), strconv.Itoa(a), strconv.Itoa(b), strconv.FormatFloat(el, 'g', 4, 64),
						strconv.FormatFloat(missing, 'f', -1, 64), strconv.FormatFloat(dropped, 'f', -1, 64)})
				}
				cw.Flush()
				r := float64(*seeds)
				cell := fmt.Sprintf("%d/%d (FP %.2f, FN %.2f)", exact, *seeds, float64(fp)/r, float64(fn)/r)
				if c.rule == pairwise.ListwiseDeletion && c.p > 0 {
					cell += fmt.Sprintf(", rows kept %.1f%%", 100*kept/r)
				}
				fmt.Fprintf(&md, " %s |", cell)
				line += fmt.Sprintf("  %s %d/%d (%.2gs)", cname, exact, *seeds, secs/r)
			}
			md.WriteString("\n")
			fmt.Fprintln(stdout, line)
		}
		md.WriteString("\n")
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(*out, "missing.md"), []byte(md.String()), 0o644)
}

// removeValues returns s (unweighted, as the samplers give) with each value
// missing, independently, with probability p.
func removeValues(s *pairwise.Samples, p float64, src rand.Source) (*pairwise.Samples, error) {
	rng := rand.New(src)
	rows := s.Rows()
	for _, row := range rows {
		for i := range row {
			if rng.Float64() < p {
				row[i] = pairwise.Missing
			}
		}
	}
	return pairwise.NewIncompleteSamples(s.Alphabet(), rows, nil)
}
