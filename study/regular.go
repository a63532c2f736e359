package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"

	"github.com/mrfkit/pairwise"
)

// regularUsage is the help of "regular".
const regularUsage = `Usage: go run . regular [flags]   (from study/)

Writes Gibbs samples of a zero-field Ising model on a random d-regular graph
(the pairing model, redrawn until simple; |A_ij| ~ U[lo, hi) with random
signs) as OUT.csv, one sample a line of spins -1/+1 without a header, and
the model as OUT.truth.json in the layout of ../shared/bench/gen.py (n, k,
edges, A, theta, lambda = max_i Σ_j |A_ij|, eta = min |A_ij|), so that
../shared/bench/glmnet_ising.R and "pairwise learn" read the same file: the
data of the scaling study of BENCHMARKS.md (issue 21). The samples come
from pairwise's GibbsSampler with its default burn-in and thinning.

With -hubs H, H variables drawn at random are each joined to between
-hub-lo and -hub-hi (20 and 50) more variables: heavy-tailed degrees.

Example (n = 1000, N = 1e4; then time both on it):
  go run . regular -n 1000 -N 10000 -out /tmp/reg1000
  pairwise learn -lambda LAMBDA -eta ETA -workers 2 /tmp/reg1000.csv
  Rscript ../shared/bench/glmnet_ising.R /tmp/reg1000.csv /tmp/reg1000.truth.json --methods fixed --jobs 2
`

// runRegular is the regular subcommand.
func runRegular(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("regular", regularUsage, stderr)
	n := fs.Int("n", 1000, "variables")
	d := fs.Int("d", 4, "degree of every variable")
	count := fs.Int("N", 10000, "samples")
	lo := fs.Float64("lo", 0.2, "least coupling magnitude")
	hi := fs.Float64("hi", 0.5, "coupling magnitudes are below it")
	seed := fs.Uint64("seed", 1, "seed of the graph, couplings and samples")
	hubs := fs.Int("hubs", 0, "hubs added to the d-regular graph, each joined to -hub-lo to -hub-hi other variables (heavy-tailed degrees)")
	hubLo := fs.Int("hub-lo", 20, "least number of a hub's added neighbours")
	hubHi := fs.Int("hub-hi", 50, "most number of a hub's added neighbours")
	out := fs.String("out", "", "output prefix: writes OUT.csv and OUT.truth.json (required)")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("regular: -out is required")
	}
	m, err := tuningRegularIsing(*n, *d, *lo, *hi, *seed)
	if *hubs > 0 {
		m, err = hubIsing(*n, *d, *hubs, *hubLo, *hubHi, *lo, *hi, *seed)
	}
	if err != nil {
		return err
	}
	g, err := pairwise.NewGibbsSampler(m, pairwise.GibbsWorkers(runtime.GOMAXPROCS(0)))
	if err != nil {
		return err
	}
	s, err := g.Sample(rand.NewPCG(*seed, 4), *count)
	if err != nil {
		return err
	}
	if err := writeSpins(*out+".csv", s); err != nil {
		return err
	}
	// The Ising parameters as m.Ising gives them, without its dense A:
	// from the centred model, A_ij = W_ij(1, 1) on the edges and
	// θ_i = θ_i(1); the dense A only up to denseTruthMax variables (the R
	// scripts read it).
	c := m.Centered()
	theta := make([]float64, *n)
	for i := range theta {
		theta[i] = c.Field(i)[1]
	}
	var edges [][2]int
	var couplings [][3]float64
	eta := math.Inf(1)
	for _, e := range m.Edges() {
		v := c.Coupling(e.I, e.J).At(1, 1)
		edges = append(edges, [2]int{e.I, e.J})
		couplings = append(couplings, [3]float64{float64(e.I), float64(e.J), v})
		eta = math.Min(eta, math.Abs(v))
	}
	truth := map[string]any{
		"name": fmt.Sprintf("ising_regular%d_n%d", *d, *n), "kind": "ising", "n": *n, "k": 2,
		"indexing": "0-based", "edges": edges, "couplings": couplings, "lambda": m.Width(), "eta": eta,
		"sampler": "pairwise GibbsSampler, default burn-in and thinning", "values": []int{-1, 1},
		"theta": theta, "model_seed": *seed,
		"definition": "p(z) ~ exp(sum_{i<j} A_ij z_i z_j + sum_i theta_i z_i), z in {-1,1}^n; couplings: [i, j, A_ij] for i < j",
	}
	if *n <= denseTruthMax {
		A := make([][]float64, *n)
		for i := range A {
			A[i] = make([]float64, *n)
		}
		for _, c := range couplings {
			i, j := int(c[0]), int(c[1])
			A[i][j], A[j][i] = c[2], c[2]
		}
		truth["A"] = A
	}
	b, err := json.Marshal(truth)
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out+".truth.json", b, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s.csv: n = %d, %d edges, N = %d; lambda = %.6g, eta = %.6g\n", *out, *n, len(edges), s.Len(), m.Width(), eta)
	return nil
}

// denseTruthMax is the most variables for which regular writes the dense A
// into the truth (n² numbers: 50 MB of JSON at n = 5,000).
const denseTruthMax = 5000

// hubIsing returns the zero-field Ising model of a random d-regular graph
// on n nodes with hubs nodes (drawn at random) each joined to between lo
// and hi other nodes more (uniform, not already its neighbours): a few
// variables of 20 to 50 neighbours among many of d, the heavy-tailed
// degrees of issue 33. Every coupling has |A_ij| ~ U[clo, chi) and a
// random sign, as in tuningIsing.
func hubIsing(n, d, hubs, lo, hi int, clo, chi float64, seed uint64) (*pairwise.Model, error) {
	if hubs > n || lo > hi || hi >= n-d {
		return nil, fmt.Errorf("regular: %d hubs of %d to %d more neighbours on %d nodes", hubs, lo, hi, n)
	}
	r := rand.New(rand.NewPCG(seed, 3))
	edges, err := regularEdges(n, d, r)
	if err != nil {
		return nil, err
	}
	seen := map[[2]int]bool{}
	for _, e := range edges {
		seen[e] = true
	}
	for _, h := range r.Perm(n)[:hubs] {
		want := lo + r.IntN(hi-lo+1)
		for added := 0; added < want; {
			v := r.IntN(n)
			e := [2]int{min(h, v), max(h, v)}
			if v == h || seen[e] {
				continue
			}
			seen[e] = true
			edges = append(edges, e)
			added++
		}
	}
	sortPairs(edges)
	return tuningIsing(n, edges, clo, chi, r)
}

// writeSpins writes the samples as spins -1/+1, one a line, no header.
func writeSpins(path string, s *pairwise.Samples) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	row := make([]int, s.Vars())
	for m := 0; m < s.Len(); m++ {
		row = s.Row(row, m)
		for j, v := range row {
			if j > 0 {
				w.WriteByte(',')
			}
			if v == 1 {
				w.WriteString("1")
			} else {
				w.WriteString("-1")
			}
		}
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
