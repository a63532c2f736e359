package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mrfkit/pairwise"
)

// The reproduction of the paper's experiments (Section 7 and Appendix "More
// experimental results"): Figure 1, the diamond graph that violates the
// incoherence condition, and Figure 2 with its appendix version, the 3×3
// grid learned by Algorithm 2 and by Sparsitron from the same samples.

// reproSettings are the experiments' parameters: the paper's, or the quick
// smoke test's.
type reproSettings struct {
	runs int

	// Figure 1, middle: the incoherence value at node 1 (a hub) of the
	// diamond for n in incN and every a in incA.
	incN []int
	incA []float64
	// Figure 1, right: exact recovery of the diamond with a = diamondA for
	// n in diamondSizes, against N in diamondN.
	diamondA     float64
	diamondSizes []int
	diamondN     []int
	// Figure 2 and the appendix: the 3×3 grid with θ = gridTheta for k in
	// gridK, against N in gridN[k].
	gridTheta float64
	gridK     []int
	gridN     map[int][]int
}

// paperSettings are the full experiment: 100 runs a point, as the paper.
func paperSettings() reproSettings {
	return reproSettings{
		runs:         100,
		incN:         intRange(3, 30),
		incA:         []float64{0.05, 0.1, 0.15, 0.2, 0.25, 0.3},
		diamondA:     0.2,
		diamondSizes: []int{10, 14, 18},
		diamondN:     []int{200, 300, 500, 700, 1000, 1500, 2000, 3000, 5000, 7000, 10000},
		gridTheta:    0.2,
		gridK:        []int{2, 4, 6},
		gridN: map[int][]int{
			2: {200, 300, 500, 700, 1000, 1500, 2000, 3000, 5000, 7000, 10000, 15000, 20000},
			4: {2000, 3000, 5000, 7000, 10000, 12000, 15000, 20000, 30000},
			6: {5000, 7000, 10000, 15000, 20000, 25000, 30000, 40000, 50000, 70000},
		},
	}
}

// quickSettings are the smoke test: every experiment and both learners, on
// a coarse grid with few runs.
func quickSettings() reproSettings {
	s := paperSettings()
	s.runs = 3
	s.diamondSizes = []int{10, 14}
	s.diamondN = []int{500, 2000}
	s.gridN = map[int][]int{2: {1000, 5000}, 4: {2000, 5000}, 6: {2000, 5000}}
	return s
}

func intRange(lo, hi int) []int {
	var r []int
	for v := lo; v <= hi; v++ {
		r = append(r, v)
	}
	return r
}

// reproduceUsage is the help of "reproduce".
const reproduceUsage = `Usage: go run . reproduce [flags]   (from study/)

Reruns the experiments of Wu, Sanghavi and Dimakis (NeurIPS 2019) from exact samples with
fixed seeds, and writes the figures (PNG), the numbers behind every point (CSV) and a
Markdown summary:
  Figure 1  the diamond graph: incoherence value at a hub against n and a (exact), and the
            fraction of runs in which LearnIsing recovers the graph against N (a = 0.2)
  Figure 2  the 3x3 grid, k = 2, 4, 6 (θ = 0.2): estimation error and exact recovery against
            N, LearnPairwise against Sparsitron on the same samples

Examples:
  go run . reproduce                 the full run into ../docs/reproduce
  go run . reproduce -quick -out /tmp/r
`

// runReproduce is the reproduce subcommand.
func runReproduce(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("reproduce", reproduceUsage, stderr)
	quick := fs.Bool("quick", false, "smoke test: 3 runs a point on a coarse grid of N (under a minute)")
	runs := fs.Int("runs", 0, "runs (fresh samples, and fresh signs for the grid) a point; 0 for 100, or 3 with -quick")
	nList := fs.String("n", "", "comma-separated sample sizes N to use for every experiment instead of the built-in grids")
	out := fs.String("out", "", "output folder for the figures, CSV and summary.md (default ../docs/reproduce, the repository's docs/ seen from study/, or a temporary folder with -quick)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "goroutines; results do not depend on it")
	seed := fs.Uint64("seed", 1, "random seed of the models' signs and of the samples")
	figures := fs.String("figures", "1,2", "which figures to make: 1 (diamond), 2 (grid), or both")
	quiet := fs.Bool("q", false, "no progress bar on standard error")
	dpi := fs.Int("dpi", 150, "resolution of the PNG figures, in dots per inch")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	set := paperSettings()
	if *quick {
		set = quickSettings()
	}
	if *runs < 0 {
		return fmt.Errorf("-runs %d: want at least 1 run a point", *runs)
	}
	if *runs > 0 {
		set.runs = *runs
	}
	if *dpi < 10 || *dpi > 1200 {
		return fmt.Errorf("-dpi %d: want 10 to 1200", *dpi)
	}
	if *workers < 1 {
		return fmt.Errorf("-workers %d: want at least 1", *workers)
	}
	if *nList != "" {
		grid, err := parseSizes(*nList)
		if err != nil {
			return fmt.Errorf("-n %q: %v", *nList, err)
		}
		set.diamondN = grid
		for _, k := range set.gridK {
			set.gridN[k] = grid
		}
	}
	fig1, fig2 := false, false
	for _, f := range strings.Split(*figures, ",") {
		switch strings.TrimSpace(f) {
		case "1":
			fig1 = true
		case "2":
			fig2 = true
		default:
			return fmt.Errorf("-figures %q: want a comma-separated list of 1 and 2", *figures)
		}
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("..", "docs", "reproduce")
		if *quick {
			dir = filepath.Join(os.TempDir(), "pairwise-reproduce-quick")
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	rep := &reproReport{settings: set, quick: *quick, args: args, workers: *workers, seed: *seed, dpi: *dpi}
	if fig1 {
		rep.incoherence = incoherenceTable(set)
	}
	tasks := reproTasks(set, fig1, fig2)
	bar := newProgress(stderr, "reproduce", len(tasks), *quiet)
	results, err := runTasks(ctx, tasks, *seed, set, *workers, bar)
	bar.Finish()
	if err != nil {
		return err
	}
	rep.aggregate(tasks, results)
	rep.elapsed = time.Since(start)
	files, err := rep.write(dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "reproduce: %d learning runs in %v with %d workers; wrote %s to %s\n",
		rep.learnRuns, rep.elapsed.Round(time.Second), *workers, strings.Join(files, ", "), dir)
	return nil
}

// parseSizes reads a comma-separated list of sample sizes (integers, or
// numbers such as 1e4), returning them sorted and without repeats.
func parseSizes(list string) ([]int, error) {
	var grid []int
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || v != math.Trunc(v) || v < 1 || v > 1e9 {
			return nil, fmt.Errorf("%q is not a sample size (a whole number from 1 to 1e9)", f)
		}
		grid = append(grid, int(v))
	}
	slices.Sort(grid)
	return slices.Compact(grid), nil
}

// Experiments and methods of a task.
const (
	expDiamond = iota // Figure 1: LearnIsing on the diamond
	expGrid           // Figure 2: LearnPairwise and Sparsitron on the grid
)

// Methods compared on the grid, in the order of reproTask.outcomes.
var gridMethods = []string{"ours", "sparsitron"}

// reproTask is one learning run: one model and one set of N exact samples,
// learned by every method of its experiment.
type reproTask struct {
	exp   int
	param int // n for the diamond, k for the grid
	n     int // N, the number of samples
	run   int
}

// outcome is what one method made of one task's samples.
type outcome struct {
	recovered bool    // the learned graph is the true graph
	err       float64 // max_{i≠j} max_ab |W_ij(a,b) − Ŵ_ij(a,b)|, per-node estimates
	missed    int     // true edges not learned
	extra     int     // learned edges that are not in the graph
	minEdge   float64 // smallest symmetrised weight of a true edge
	maxNon    float64 // largest symmetrised weight of a non-edge
	took      time.Duration
}

// cost is a rough relative cost of a task, to start the expensive ones
// first.
func (t reproTask) cost() float64 {
	if t.exp == expDiamond {
		return float64(t.n) * float64(t.param*t.param) / 80
	}
	return float64(t.n) * float64(t.param-1)
}

func reproTasks(set reproSettings, fig1, fig2 bool) []reproTask {
	var tasks []reproTask
	if fig1 {
		for _, n := range set.diamondSizes {
			for _, size := range set.diamondN {
				for r := 0; r < set.runs; r++ {
					tasks = append(tasks, reproTask{exp: expDiamond, param: n, n: size, run: r})
				}
			}
		}
	}
	if fig2 {
		for _, k := range set.gridK {
			for _, size := range set.gridN[k] {
				for r := 0; r < set.runs; r++ {
					tasks = append(tasks, reproTask{exp: expGrid, param: k, n: size, run: r})
				}
			}
		}
	}
	return tasks
}

// seedOf derives the second word of a PCG seed from a tuple of small
// integers (splitmix64 steps), so that every model and sample set has its
// own stream whatever the order in which tasks run.
func seedOf(parts ...int) uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	for _, p := range parts {
		h ^= uint64(p)
		h += 0x9e3779b97f4a7c15
		z := h
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		h = z ^ (z >> 31)
	}
	return h
}

// runTasks runs the tasks on workers goroutines, the expensive ones first,
// and returns their outcomes in task order. Each task's randomness comes from
// its own seeds, so the outcomes do not depend on workers or scheduling.
func runTasks(parent context.Context, tasks []reproTask, seed uint64, set reproSettings, workers int, bar *progress) ([][]outcome, error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	order := make([]int, len(tasks))
	for x := range order {
		order[x] = x
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ca, cb := tasks[a].cost(), tasks[b].cost()
		switch {
		case ca > cb:
			return -1
		case ca < cb:
			return 1
		}
		return 0
	})
	results := make([][]outcome, len(tasks))
	samplers := newSamplerCache()
	var (
		mu    sync.Mutex
		next  int
		first error
		done  int
		wg    sync.WaitGroup
	)
	for range min(workers, len(tasks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next == len(order) || first != nil {
					mu.Unlock()
					return
				}
				x := order[next]
				next++
				mu.Unlock()
				out, err := runTask(ctx, tasks[x], seed, set, samplers)
				mu.Lock()
				if err != nil && first == nil {
					first = err
					cancel()
				}
				results[x] = out
				done++
				bar.Set(done)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := parent.Err(); err != nil {
		return nil, err
	}
	return results, first
}

// samplerCache shares one exact sampler per diamond size between tasks
// (ExactSampler.Sample is safe for concurrent use).
type samplerCache struct {
	mu sync.Mutex
	m  map[int]*diamondEntry
}

type diamondEntry struct {
	once    sync.Once
	model   *pairwise.Model
	sampler *pairwise.ExactSampler
	err     error
}

func newSamplerCache() *samplerCache { return &samplerCache{m: map[int]*diamondEntry{}} }

func (c *samplerCache) diamond(n int, a float64) (*pairwise.Model, *pairwise.ExactSampler, error) {
	c.mu.Lock()
	e, ok := c.m[n]
	if !ok {
		e = &diamondEntry{}
		c.m[n] = e
	}
	c.mu.Unlock()
	e.once.Do(func() {
		e.model, e.err = pairwise.NewDiamond(n, a)
		if e.err == nil {
			e.sampler, e.err = pairwise.NewExactSampler(e.model)
		}
	})
	return e.model, e.sampler, e.err
}

// runTask draws the task's model and samples and learns them with every
// method of its experiment.
func runTask(ctx context.Context, t reproTask, seed uint64, set reproSettings, cache *samplerCache) ([]outcome, error) {
	switch t.exp {
	case expDiamond:
		model, sampler, err := cache.diamond(t.param, set.diamondA)
		if err != nil {
			return nil, err
		}
		s, err := sampler.Sample(rand.NewPCG(seed, seedOf(expDiamond, t.param, t.n, t.run)), t.n)
		if err != nil {
			return nil, err
		}
		lambda := float64(t.param-2) * set.diamondA // the width (n−2)a, as in the paper
		start := time.Now()
		res, err := pairwise.LearnIsingContext(ctx, s, pairwise.WithWidth(lambda), pairwise.WithMinEdgeWeight(set.diamondA))
		if err != nil {
			return nil, fmt.Errorf("diamond n = %d, N = %d, run %d: %w", t.param, t.n, t.run, err)
		}
		o := judge(model, res)
		o.took = time.Since(start)
		return []outcome{o}, nil
	case expGrid:
		// The model's signs depend on the run only, so that every N of
		// a run learns the same model; the samples on (k, N, run).
		model, err := pairwise.NewGridPotts(3, 3, t.param, set.gridTheta, rand.NewPCG(seed, seedOf(expGrid, t.param, t.run)))
		if err != nil {
			return nil, err
		}
		sampler, err := pairwise.NewExactSampler(model)
		if err != nil {
			return nil, err
		}
		s, err := sampler.Sample(rand.NewPCG(seed, seedOf(expGrid, t.param, t.n, t.run)), t.n)
		if err != nil {
			return nil, err
		}
		opts := []pairwise.Option{pairwise.WithWidth(model.Width()), pairwise.WithMinEdgeWeight(model.MinEdgeWeight())}
		outs := make([]outcome, len(gridMethods))
		for x, method := range gridMethods {
			o := opts
			if method == "sparsitron" {
				o = append(o[:len(o):len(o)], pairwise.WithSolver(pairwise.Sparsitron{}))
			}
			start := time.Now()
			res, err := pairwise.LearnPairwiseContext(ctx, s, o...)
			if err != nil {
				return nil, fmt.Errorf("grid k = %d, N = %d, run %d, %s: %w", t.param, t.n, t.run, method, err)
			}
			outs[x] = judge(model, res)
			outs[x].took = time.Since(start)
		}
		return outs, nil
	}
	return nil, errors.New("unknown experiment")
}

// judge compares a learned result with the true model.
func judge(model *pairwise.Model, res *pairwise.Result) outcome {
	n, k := model.Vars(), model.Alphabet()
	truth := map[[2]int]bool{}
	for _, e := range model.Edges() {
		truth[[2]int{e.I, e.J}] = true
	}
	o := outcome{minEdge: math.Inf(1)}
	learned := map[[2]int]bool{}
	for _, e := range res.Edges {
		learned[[2]int{e.I, e.J}] = true
		if !truth[[2]int{e.I, e.J}] {
			o.extra++
		}
	}
	for e := range truth {
		if !learned[e] {
			o.missed++
		}
	}
	o.recovered = o.missed == 0 && o.extra == 0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i == j {
				continue
			}
			w, est := model.Coupling(i, j), res.Estimate(i, j)
			back := res.Estimate(j, i)
			sym := 0.0 // the symmetrised weight that Average thresholds
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					o.err = math.Max(o.err, math.Abs(w.At(a, b)-est.At(a, b)))
					sym = math.Max(sym, math.Abs(est.At(a, b)+back.At(b, a))/2)
				}
			}
			if i < j {
				if truth[[2]int{i, j}] {
					o.minEdge = math.Min(o.minEdge, sym)
				} else {
					o.maxNon = math.Max(o.maxNon, sym)
				}
			}
		}
	}
	return o
}
