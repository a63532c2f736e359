package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/cmd/cli"
)

// compareUsage is the help of "compare".
const compareUsage = `Usage: go run . compare [flags] DATA.csv TRUTH.json   (from study/)

Learns DATA.csv (one sample a line: spins ±1, or states 0..k-1) with the λ and η of
TRUTH.json (the format of gen.py in ../shared/bench, next to the repository) and prints one JSON line like the
baselines': wall_s (the learning alone, without reading files), exact_recovery,
fp and fn under our default rule (average), the same under the baselines' rules
(thr_and, thr_or: each node's own estimate against η/2), and max_abs_weight_error,
the largest |Ŵ_ij(a,b) − W_ij(a,b)| over i ≠ j from node i's own regressions (|Â_ij − A_ij|
for Ising data). Ising data (k = 2) are learned by LearnIsing, others by LearnPairwise.

Example (scripts/compare.sh builds this command and runs it on every file):
  go run . compare -workers 2 /tmp/bench/data/ising_grid10x10_N10000_seed0.csv /tmp/bench/data/ising_grid10x10.truth.json
`

// runCompare learns one data file of ../shared/bench with the truth's λ and
// η and prints one JSON line in the shape of the baseline scripts there
// (sk_ising.py, glmnet_ising.R, ...), so that scripts/compare.sh can put
// our numbers next to theirs.
func runCompare(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("compare", compareUsage, stderr)
	workers := fs.Int("workers", 1, "goroutines (WithWorkers)")
	repeat := fs.Int("repeat", 1, "learn this many times and report the fastest wall time")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return fmt.Errorf("want DATA.csv and TRUTH.json, got %d arguments", fs.NArg())
	}
	if *workers < 1 || *repeat < 1 {
		return fmt.Errorf("-workers %d -repeat %d: want both at least 1", *workers, *repeat)
	}
	truth, err := readTruth(fs.Arg(1))
	if err != nil {
		return err
	}
	samples, err := readBenchCSV(fs.Arg(0), truth.K)
	if err != nil {
		return err
	}
	if samples.Vars() != truth.N {
		return fmt.Errorf("%s: %d columns, %s says n = %d", fs.Arg(0), samples.Vars(), fs.Arg(1), truth.N)
	}
	opts := []pairwise.Option{
		pairwise.WithWidth(truth.Lambda),
		pairwise.WithMinEdgeWeight(truth.Eta),
		pairwise.WithWorkers(*workers),
	}
	learn := pairwise.LearnPairwise
	if truth.K == 2 {
		learn = pairwise.LearnIsing
	}
	var res *pairwise.Result
	best := math.Inf(1)
	for range *repeat {
		t0 := time.Now()
		r, err := learn(samples, opts...)
		wall := time.Since(t0).Seconds()
		if err != nil {
			return err
		}
		res, best = r, math.Min(best, wall)
	}
	out := compareResult(truth, res)
	out.Method = "pairwise"
	out.Data = filepath.Base(fs.Arg(0))
	out.Model = truth.Name
	out.N = truth.N
	out.K = truth.K
	out.Samples = int(samples.TotalWeight())
	out.Wall = math.Round(best*1e4) / 1e4
	out.Threads = *workers
	out.Lambda, out.Eta = truth.Lambda, truth.Eta
	iters := 0
	for _, f := range res.Nodes {
		iters += f.Iterations
	}
	out.Iterations = iters
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, string(b))
	return err
}

// benchTruth is the part of a ../shared/bench truth file that compare
// reads: the model's size, its edges, its parameters (A for Ising, W for
// pairwise data) and the paper's λ and η.
type benchTruth struct {
	Name   string      `json:"name"`
	Kind   string      `json:"kind"`
	N      int         `json:"n"`
	K      int         `json:"k"`
	Edges  [][2]int    `json:"edges"`
	Lambda float64     `json:"lambda"`
	Eta    float64     `json:"eta"`
	A      [][]float64 `json:"A"`
	W      []struct {
		I int         `json:"i"`
		J int         `json:"j"`
		W [][]float64 `json:"W"`
	} `json:"W"`
}

func readTruth(path string) (*benchTruth, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var t benchTruth
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	switch {
	case t.N < 1 || t.K < 2:
		return nil, fmt.Errorf("%s: n = %d, k = %d: want n ≥ 1 and k ≥ 2", path, t.N, t.K)
	case !(t.Lambda > 0) || !(t.Eta > 0):
		return nil, fmt.Errorf("%s: lambda = %v, eta = %v: want both positive", path, t.Lambda, t.Eta)
	case t.K == 2 && len(t.A) != t.N:
		return nil, fmt.Errorf("%s: Ising truth with %d rows of A, want n = %d", path, len(t.A), t.N)
	}
	for _, e := range t.Edges {
		if e[0] < 0 || e[1] < 0 || e[0] >= t.N || e[1] >= t.N || e[0] == e[1] {
			return nil, fmt.Errorf("%s: edge %v out of range for n = %d", path, e, t.N)
		}
	}
	for x, w := range t.W {
		if w.I < 0 || w.J < 0 || w.I >= t.N || w.J >= t.N || len(w.W) != t.K {
			return nil, fmt.Errorf("%s: W[%d] (i = %d, j = %d) is not a k×k block of a pair in range", path, x, w.I, w.J)
		}
		for _, row := range w.W {
			if len(row) != t.K {
				return nil, fmt.Errorf("%s: W[%d] has a row of length %d, want k = %d", path, x, len(row), t.K)
			}
		}
	}
	return &t, nil
}

// readBenchCSV reads a data file with the alphabet 0..k-1 of its truth
// (cli.ReadSamples: a value outside it is an error at its line and
// column), so that states that never occur still count.
func readBenchCSV(path string, k int) (*pairwise.Samples, error) {
	s, _, err := cli.ReadSamples(path, nil, pairwise.CSVOptions{Alphabet: k}, io.Discard, true)
	return s, err
}

// compareLine is one JSON line, with the field names of the baselines'.
type compareLine struct {
	Method     string                 `json:"method"`
	Data       string                 `json:"data"`
	Model      string                 `json:"model"`
	N          int                    `json:"n"`
	K          int                    `json:"k"`
	Samples    int                    `json:"N"`
	Wall       float64                `json:"wall_s"`
	Threads    int                    `json:"threads"`
	Exact      bool                   `json:"exact_recovery"`
	FP         int                    `json:"fp"`
	FN         int                    `json:"fn"`
	MaxErr     float64                `json:"max_abs_weight_error"`
	Rule       string                 `json:"rule"`
	Rules      map[string]ruleOutcome `json:"rules"`
	Lambda     float64                `json:"lambda"`
	Eta        float64                `json:"eta"`
	Iterations int                    `json:"iterations"`
	Impl       string                 `json:"impl"`
}

type ruleOutcome struct {
	Exact bool `json:"exact"`
	FP    int  `json:"fp"`
	FN    int  `json:"fn"`
}

// compareResult scores a result against the truth: the learned graph
// (our default rule, "average"), the baselines' thr_and and thr_or rules on
// the per-node estimates, and the largest per-node weight error.
func compareResult(t *benchTruth, res *pairwise.Result) compareLine {
	n, k := t.N, t.K
	edge := make(map[[2]int]bool, len(t.Edges))
	for _, e := range t.Edges {
		edge[[2]int{min(e[0], e[1]), max(e[0], e[1])}] = true
	}
	truthW := func(i, j, a, b int) float64 {
		if k == 2 {
			v := t.A[i][j] // W_ij = [[A, −A], [−A, A]]
			if a != b {
				return -v
			}
			return v
		}
		return 0
	}
	var blocks map[[2]int][][]float64
	if k > 2 {
		blocks = make(map[[2]int][][]float64, 2*len(t.W))
		for _, w := range t.W {
			blocks[[2]int{w.I, w.J}] = w.W
			wt := make([][]float64, k)
			for a := range wt {
				wt[a] = make([]float64, k)
				for b := range wt[a] {
					wt[a][b] = w.W[b][a]
				}
			}
			blocks[[2]int{w.J, w.I}] = wt
		}
		truthW = func(i, j, a, b int) float64 {
			if w, ok := blocks[[2]int{i, j}]; ok {
				return w[a][b]
			}
			return 0
		}
	}
	// score[i][j]: the weight of node i's own estimate of W_ij.
	score := make([][]float64, n)
	maxErr := 0.0
	for i := 0; i < n; i++ {
		score[i] = make([]float64, n)
		for j := 0; j < n; j++ {
			if i == j {
				continue
			}
			e := res.Estimate(i, j)
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					v := e.At(a, b)
					score[i][j] = math.Max(score[i][j], math.Abs(v))
					maxErr = math.Max(maxErr, math.Abs(v-truthW(i, j, a, b)))
				}
			}
		}
	}
	count := func(keep func(i, j int) bool) ruleOutcome {
		var o ruleOutcome
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				got, want := keep(i, j), edge[[2]int{i, j}]
				if got && !want {
					o.FP++
				}
				if !got && want {
					o.FN++
				}
			}
		}
		o.Exact = o.FP == 0 && o.FN == 0
		return o
	}
	learned := make(map[[2]int]bool, len(res.Edges))
	for _, e := range res.Edges {
		learned[[2]int{e.I, e.J}] = true
	}
	half := t.Eta / 2
	rules := map[string]ruleOutcome{
		"average": count(func(i, j int) bool { return learned[[2]int{i, j}] }),
		"thr_and": count(func(i, j int) bool { return score[i][j] >= half && score[j][i] >= half }),
		"thr_or":  count(func(i, j int) bool { return score[i][j] >= half || score[j][i] >= half }),
	}
	def := rules["average"]
	return compareLine{
		Exact:  def.Exact,
		FP:     def.FP,
		FN:     def.FN,
		MaxErr: math.Round(maxErr*1e5) / 1e5,
		Rule:   "average",
		Rules:  rules,
		Impl:   "github.com/mrfkit/pairwise (Go)",
	}
}
