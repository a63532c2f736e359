package main

import (
	"context"
	"encoding/csv"
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
	"github.com/mrfkit/pairwise/models"
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
	// Figure 2 again with the paper's own solver: Algorithm 2 with its
	// regressions solved by Algorithm 4 under the paper's fixed schedule
	// (GroupMirror{Schedule: Paper, T}), on the first paperRuns runs of
	// the grid points listed in each learner (the same samples as the
	// other methods). See paperLearner.
	paper     []paperLearner
	paperRuns int
}

// paperLearner is Algorithm 2 with its l2,1-constrained regressions solved
// by the paper's Algorithm 4 as the paper writes it: T iterations of mirror
// descent with the fixed step γ = (1/(2W))·√(e ln n / T) from the constant
// start, returning the averaged iterate (pairwise.GroupMirror with Schedule
// pairwise.Paper). The paper does not say which T its experiments used; its
// Theorem 2 asks for T = O(λ²k³e^{12λ} ln n / ε⁴), which has no constant.
//
// T = 0 selects the rule of tRule: the T at which Lemma 4's bound on the
// optimisation error equals the statistical error of Lemma 9, so that
// stopping earlier costs as much as the sample size does and iterating
// longer buys nothing the proof can see. Any other T is used as given.
type paperLearner struct {
	t int           // fixed T, or 0 for the rule
	n map[int][]int // the N, per alphabet k, at which it runs
}

// name is the learner's method name in the CSV files and tables.
func (l paperLearner) name() string {
	if l.t == 0 {
		return "paper"
	}
	return fmt.Sprintf("paper T=%d", l.t)
}

// iterations is the T the learner uses for N samples of alphabet k.
func (l paperLearner) iterations(k, n int) int {
	if l.t > 0 {
		return l.t
	}
	return tRule(k, n)
}

// runsAt reports whether the learner runs at alphabet k and N samples.
func (l paperLearner) runsAt(k, n int) bool { return slices.Contains(l.n[k], n) }

// tRule returns the number of iterations of Algorithm 4 at which the
// optimisation error it guarantees equals the statistical error, for N
// samples of alphabet k on a model with uniform marginals.
//
// Algorithm 4's step γ = (1/(2W))·√(e ln n / T) is the step that minimises
// the mirror-descent bound D/(γT) + γG²/2 (Bubeck 2015, Theorem 4.2) for a
// gradient bound G = 2W (the paper's, after Lemma 4) and D = (e ln n)/2; at
// that step the bound is G·√(2D/T) = 2W·√(e ln n / T), the explicit form of
// Lemma 4's O(1)·W·√(ln n / T). The statistical error that the proof of
// Theorem 2 tolerates in the same place (inequality (a) of (w_bar_diff),
// from Lemma 9 with a 1-Lipschitz loss and ‖x‖_{2,∞} = 1) is
// 2W·√(6 ln n / N'), with N' = N^{α,β} the rows of the regression. The two
// are equal at
//
//	T = (e/6)·N',
//
// whatever W and n. A regression of value pair (α, β) has N' ≈ 2N/k rows
// when the marginals are uniform (the grid's are, with zero field and
// centred couplings), so T = ⌈e·N/(3k)⌉: 2,266 at k = 4, N = 10,000. The
// rule ignores the confidence terms of Lemma 9 (the same on both sides up to
// constants) and counts Lemma 4's bound as tight, which it is not: the
// certified gaps the runs report are smaller.
func tRule(k, n int) int {
	return int(math.Ceil(math.E / 6 * 2 * float64(n) / float64(k)))
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
		// Algorithm 4 costs T full passes over a regression's rows, so it
		// runs on fewer points and runs than the exact solves: the rule's
		// T around the k = 4 crossings and at the k = 6 crossing of
		// Sparsitron, and fixed T an order of magnitude either side at one
		// point (see docs/reproduce/paper-schedule.md).
		paper: []paperLearner{
			{t: 0, n: map[int][]int{4: {5000, 10000}, 6: {20000}}},
			{t: 1000, n: map[int][]int{4: {10000}}},
			{t: 10000, n: map[int][]int{4: {10000}}},
		},
		paperRuns: 10,
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
	// The paper's schedule at its cheapest: the rule's T (454) at k = 2,
	// and a fixed T = 30 at k = 4.
	s.paper = []paperLearner{
		{t: 0, n: map[int][]int{2: {1000}}},
		{t: 30, n: map[int][]int{4: {2000}}},
	}
	s.paperRuns = 3
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
            N, LearnPairwise against Sparsitron on the same samples; and at some points (see
            -paper) Algorithm 2 solved by the paper's Algorithm 4 with its fixed schedule,
            GroupMirror{Schedule: Paper, T}, on the first -paper-runs runs
            (../docs/reproduce/paper-schedule.md)

Ctrl-C stops the learning and writes what the finished runs say; -replay renders the figures
and summary again from the runs.csv of a run.

Examples:
  go run . reproduce                 the full run into ../docs/reproduce
  go run . reproduce -quick -out /tmp/r
  go run . reproduce -figures 2 -k 4,6 -runs 30 -workers 2 -out ../docs/reproduce/paper-schedule
                                     the run of paper-schedule.md
  go run . reproduce -figures 2 -k 4 -paper 'rule@4:10000,20000;5000@4:10000' -paper-runs 20
                                     Algorithm 4 with the rule's T at two points, T = 5000 at one
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
	ks := fs.String("k", "", "comma-separated alphabets k of Figure 2 (default 2,4,6)")
	paperSpec := fs.String("paper", "", "where Algorithm 2 also runs with the paper's Algorithm 4 (fixed schedule): learners separated by ';', each T@k:N,N,...[@k:N,...], T a number or 'rule' (T = ⌈e·N/(3k)⌉); 'none' for none (default: see paper-schedule.md)")
	replay := fs.String("replay", "", "render the figures and summary again from a `runs.csv` of an earlier run (give the same -figures, -k, -runs and -paper flags) instead of learning")
	paperRuns := fs.Int("paper-runs", -1, "runs a point of the paper-schedule learners (the first ones of each point); -1 for 10, or 3 with -quick")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	set := paperSettings()
	if *quick {
		set = quickSettings()
	}
	if *ks != "" {
		list, err := parseSizes(*ks)
		if err != nil || slices.ContainsFunc(list, func(k int) bool { return k < 2 || k > 10 }) {
			return fmt.Errorf("-k %q: want a comma-separated list of alphabets from 2 to 10", *ks)
		}
		for _, k := range list {
			if _, ok := set.gridN[k]; !ok {
				set.gridN[k] = set.gridN[6]
			}
		}
		set.gridK = list
	}
	if *paperSpec != "" {
		learners, err := parsePaperSpec(*paperSpec)
		if err != nil {
			return fmt.Errorf("-paper %q: %v", *paperSpec, err)
		}
		set.paper = learners
	}
	if *paperRuns < -1 {
		return fmt.Errorf("-paper-runs %d: want 0 or more runs a point (-1 for the default)", *paperRuns)
	}
	if *paperRuns >= 0 {
		set.paperRuns = *paperRuns
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
	var (
		tasks   []reproTask
		results [][]outcome
		err     error
	)
	if *replay != "" {
		tasks, results, err = readRuns(*replay)
		if err != nil {
			return fmt.Errorf("-replay: %v", err)
		}
		rep.replayed = *replay
		if all := len(reproTasks(set, fig1, fig2)); len(tasks) < all {
			rep.interrupted, rep.done = all, len(tasks) // the run was stopped early
		}
	} else {
		tasks = reproTasks(set, fig1, fig2)
		bar := newProgress(stderr, "reproduce", len(tasks), *quiet)
		results, err = runTasks(ctx, tasks, *seed, set, *workers, bar)
		bar.Finish()
	}
	if errors.Is(err, errInterrupted) {
		// Write what the finished tasks say: runTasks starts every
		// point's run r before any point's run r + 1, so the points
		// have (nearly) equal numbers of runs.
		for _, o := range results {
			if o != nil {
				rep.done++
			}
		}
		if rep.done == 0 {
			return err
		}
		rep.interrupted = len(tasks)
		fmt.Fprintf(stderr, "reproduce: interrupted; writing the %d of %d tasks that finished\n", rep.done, len(tasks))
	} else if err != nil {
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

// readRuns reads a runs.csv written by reproduce back into its tasks and
// their outcomes, in the file's order. The file has no timings (it is the
// same on every run), so the replayed outcomes have none.
func readRuns(path string) ([]reproTask, [][]outcome, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, nil, err
	}
	if len(rows) < 2 || len(rows[0]) < 15 || rows[0][0] != "experiment" || rows[0][14] != "T" {
		return nil, nil, fmt.Errorf("%s: not a runs.csv of this version of reproduce (want the 15 columns from \"experiment\" to \"T\")", path)
	}
	var tasks []reproTask
	var results [][]outcome
	index := map[reproTask]int{}
	for line, row := range rows[1:] {
		bad := func(col int) error {
			return fmt.Errorf("%s:%d: column %s = %q", path, line+2, rows[0][col], row[col])
		}
		ints := make([]int, 16)
		floats := make([]float64, 16)
		for _, c := range []int{1, 2, 3, 7, 8, 14} {
			if ints[c], err = strconv.Atoi(row[c]); err != nil {
				return nil, nil, bad(c)
			}
		}
		for _, c := range []int{6, 9, 10, 11, 12, 13} {
			if floats[c], err = strconv.ParseFloat(row[c], 64); err != nil {
				return nil, nil, bad(c)
			}
		}
		t := reproTask{exp: expGrid, param: ints[1], n: ints[2], run: ints[3]}
		switch row[0] {
		case "diamond":
			t.exp = expDiamond
		case "grid":
		default:
			return nil, nil, bad(0)
		}
		o := outcome{method: row[4], recovered: row[5] == "true", err: floats[6], missed: ints[7], extra: ints[8],
			minEdge: floats[9], maxNon: floats[10], edgeNorm: floats[11], nonNorm: floats[12], gap: floats[13], iters: ints[14]}
		x, ok := index[t]
		if !ok {
			x = len(tasks)
			index[t] = x
			tasks = append(tasks, t)
			results = append(results, nil)
		}
		results[x] = append(results[x], o)
	}
	return tasks, results, nil
}

// parsePaperSpec reads the -paper flag: learners separated by ';', each
// "T@k:N,N,...", with more "@k:N,..." for more alphabets, T a positive
// number of iterations or "rule"; "none" for no learner.
func parsePaperSpec(spec string) ([]paperLearner, error) {
	if strings.TrimSpace(spec) == "none" {
		return nil, nil
	}
	var ls []paperLearner
	for _, part := range strings.Split(spec, ";") {
		fields := strings.Split(strings.TrimSpace(part), "@")
		if len(fields) < 2 {
			return nil, fmt.Errorf("%q: want T@k:N,N,... (T, then each alphabet k with its sample sizes N)", part)
		}
		l := paperLearner{n: map[int][]int{}}
		if t := strings.TrimSpace(fields[0]); t != "rule" {
			v, err := strconv.Atoi(t)
			if err != nil || v < 1 {
				return nil, fmt.Errorf("%q: T = %q, want a positive integer or rule", part, t)
			}
			l.t = v
		}
		for _, f := range fields[1:] {
			kn := strings.SplitN(f, ":", 2)
			k, err := strconv.Atoi(strings.TrimSpace(kn[0]))
			if len(kn) != 2 || err != nil || k < 2 {
				return nil, fmt.Errorf("%q: %q, want k:N,N,... with k ≥ 2", part, f)
			}
			sizes, err := parseSizes(kn[1])
			if err != nil {
				return nil, fmt.Errorf("%q: %v", part, err)
			}
			l.n[k] = sizes
		}
		ls = append(ls, l)
	}
	return ls, nil
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

// Methods compared on the grid in every run; the paper-schedule learners
// (reproSettings.paper) follow them where they run.
var gridMethods = []string{"ours", "sparsitron"}

// methodsAt returns the grid methods that learn run r of alphabet k with N
// samples, in the order of runTask's outcomes.
func (set reproSettings) methodsAt(k, n, r int) []string {
	ms := slices.Clone(gridMethods)
	if r < set.paperRuns {
		for _, l := range set.paper {
			if l.runsAt(k, n) {
				ms = append(ms, l.name())
			}
		}
	}
	return ms
}

// paperNames returns the names of the paper-schedule learners that run
// somewhere in the grid, in the order of set.paper.
func (set reproSettings) paperNames() []string {
	var names []string
	if set.paperRuns == 0 {
		return nil
	}
	for _, l := range set.paper {
		for _, k := range set.gridK {
			if slices.ContainsFunc(l.n[k], func(n int) bool { return slices.Contains(set.gridN[k], n) }) {
				names = append(names, l.name())
				break
			}
		}
	}
	return names
}

// learner returns the paper-schedule learner of a method name.
func (set reproSettings) learner(name string) (paperLearner, bool) {
	for _, l := range set.paper {
		if l.name() == name {
			return l, true
		}
	}
	return paperLearner{}, false
}

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
	method    string
	recovered bool    // the learned graph is the true graph
	err       float64 // max_{i≠j} max_ab |W_ij(a,b) − Ŵ_ij(a,b)|, per-node estimates
	missed    int     // true edges not learned
	extra     int     // learned edges that are not in the graph
	minEdge   float64 // smallest symmetrised weight of a true edge
	maxNon    float64 // largest symmetrised weight of a non-edge
	// The size of the estimates (shrinkage): Σ over true edges of the
	// per-node ‖Ŵ_ij‖_F over the same sum for W, and the mean of ‖Ŵ_ij‖_F
	// over the ordered non-edge pairs (0 for the truth).
	edgeNorm, nonNorm float64
	gap               float64 // largest certified L(ŵ) − L* over the nodes (NodeFit.Gap)
	iters             int     // T of a paper-schedule learner, 0 otherwise
	took              time.Duration
}

// cost is a rough relative cost of a task, to start the expensive ones
// first.
func (t reproTask) cost(set reproSettings) float64 {
	if t.exp == expDiamond {
		return float64(t.n) * float64(t.param*t.param) / 80
	}
	c := float64(t.n) * float64(t.param-1)
	for _, l := range set.paper {
		if t.run < set.paperRuns && l.runsAt(t.param, t.n) {
			// A pass of Algorithm 4 costs about a tenth of an exact solve.
			c += float64(t.n) * float64(t.param-1) * float64(l.iterations(t.param, t.n)) / 10
		}
	}
	return c
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

// errInterrupted reports that the caller's context ended before every task
// finished; runTasks then returns the outcomes of the finished tasks (nil
// for the others).
var errInterrupted = errors.New("interrupted")

// runTasks runs the tasks on workers goroutines and returns their outcomes
// in task order. Runs go in order of their number, every point's run r
// before any point's run r + 1, so that an interrupted study has about as
// many runs at every point; within a run number the expensive tasks go
// first. Each task's randomness comes from its own seeds, so the outcomes do
// not depend on workers or scheduling.
func runTasks(parent context.Context, tasks []reproTask, seed uint64, set reproSettings, workers int, bar *progress) ([][]outcome, error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	order := make([]int, len(tasks))
	for x := range order {
		order[x] = x
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if ra, rb := tasks[a].run, tasks[b].run; ra != rb {
			return ra - rb
		}
		ca, cb := tasks[a].cost(set), tasks[b].cost(set)
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
				if err != nil && parent.Err() != nil {
					mu.Unlock()
					return // interrupted: the task did not finish
				}
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
	if parent.Err() != nil {
		return results, errInterrupted
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
		e.model, e.err = models.NewDiamond(n, a)
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
		o.method = "ours"
		o.took = time.Since(start)
		return []outcome{o}, nil
	case expGrid:
		// The model's signs depend on the run only, so that every N of
		// a run learns the same model; the samples on (k, N, run).
		model, err := models.NewGridPotts(3, 3, t.param, set.gridTheta, rand.NewPCG(seed, seedOf(expGrid, t.param, t.run)))
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
		methods := set.methodsAt(t.param, t.n, t.run)
		outs := make([]outcome, len(methods))
		for x, method := range methods {
			o := opts
			iters := 0
			if method == "sparsitron" {
				o = append(o[:len(o):len(o)], pairwise.WithSolver(pairwise.Sparsitron{}))
			} else if l, ok := set.learner(method); ok {
				iters = l.iterations(t.param, t.n)
				o = append(o[:len(o):len(o)], pairwise.WithSolver(pairwise.GroupMirror{Schedule: pairwise.Paper, T: iters}))
			}
			start := time.Now()
			res, err := pairwise.LearnPairwiseContext(ctx, s, o...)
			if err != nil {
				return nil, fmt.Errorf("grid k = %d, N = %d, run %d, %s: %w", t.param, t.n, t.run, method, err)
			}
			outs[x] = judge(model, res)
			outs[x].method, outs[x].iters = method, iters
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
	for _, nf := range res.Nodes {
		o.gap = math.Max(o.gap, nf.Gap)
	}
	var edgeEst, edgeTrue float64
	nonPairs := 0
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
			var fEst, fTrue float64
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					o.err = math.Max(o.err, math.Abs(w.At(a, b)-est.At(a, b)))
					sym = math.Max(sym, math.Abs(est.At(a, b)+back.At(b, a))/2)
					fEst += est.At(a, b) * est.At(a, b)
					fTrue += w.At(a, b) * w.At(a, b)
				}
			}
			if truth[[2]int{min(i, j), max(i, j)}] {
				edgeEst += math.Sqrt(fEst)
				edgeTrue += math.Sqrt(fTrue)
			} else {
				o.nonNorm += math.Sqrt(fEst)
				nonPairs++
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
	if edgeTrue > 0 {
		o.edgeNorm = edgeEst / edgeTrue
	}
	if nonPairs > 0 {
		o.nonNorm /= float64(nonPairs)
	}
	return o
}
