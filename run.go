package pairwise

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/internal/estimates"
	"github.com/mrfkit/pairwise/internal/selection"
	"github.com/mrfkit/pairwise/solve"
)

// prepare validates the common inputs and applies the options.
func prepare(fn string, s *Samples, opts []Option) (config, error) {
	cfg := defaultConfig()
	if s == nil {
		return cfg, fmt.Errorf("pairwise: %s: nil samples", fn)
	}
	if s.rows == 0 || s.total <= 0 {
		return cfg, errorOf(ErrNoSamples, "pairwise: %s: no samples", fn)
	}
	for x, o := range opts {
		if o == nil {
			return cfg, fmt.Errorf("pairwise: %s: option %d is nil", fn, x)
		}
		o.apply(&cfg)
	}
	if len(cfg.errs) > 0 {
		return cfg, errors.Join(cfg.errs...)
	}
	if v := cfg.nominalVars; len(v) > 0 && v[len(v)-1] >= s.n {
		return cfg, &OptionError{Func: fn, Option: "WithNominalVariables", Value: v, Reason: fmt.Sprintf("variable %d out of range for %d variables", v[len(v)-1], s.n)}
	}
	if math.IsNaN(cfg.eta) && (s.k != 2 || s.incomplete) {
		// Without η the edge test holds dense n×n arrays; with it the
		// estimates are sparse (internal/estimates), and n is bounded by the
		// samples' own limits. Complete binary samples are checked by the
		// run (checkDenseTest), which knows whether the sparse test runs.
		if err := checkLearnSize(fn, s.n, s.k, ""); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// learnRun is one learner call: the options resolved against the samples, the
// engine's data, and what the stages around the fits learn node by node.
type learnRun struct {
	cfg config
	s   *Samples // as given
	b   engine.Backend
	// fitted is s as the engine fits it (identical rows merged with the
	// fast backend), d its engine data.
	fitted *Samples
	d      *engine.Data
	// spec is the width search of the Selection rule, and folds its
	// cross-validation split of d's rows; spec is nil when λ (or the
	// radius) was given.
	spec    *selection.Spec
	rule    Selection
	folds   *selection.Folds
	wantEta bool // the edge test chooses the graph (η not given)
	// widths holds λ_i for each node when WithNodeWidths gave them.
	widths []float64
	nodes  []nodeSelection
	pool   engine.Pool
	// only lists the nodes to fit when a shard learns a subset of them
	// (shard.go); nil fits every node.
	only []int
	// testDone reports the edge test's stage finished to WithProgress's
	// function (see progressStages); nil when nothing is to report.
	testDone func()
	// solutions holds each node's regression solutions (WithKeepSolutions);
	// nil when they are not kept.
	solutions [][]taskSolution
	// scores are s_j(a) of the ordinal model (WithScale), n×k; nil on
	// the other paths.
	scores []float64
	// mixed describes the mixed model's variables and mixFits holds each
	// node's refit (WithNominalVariables, ordinal.go); nil otherwise.
	mixed   *selection.MixedVars
	mixFits []*selection.MixedFit
	// ridged lists the nodes whose mixed refit needed the ridge.
	ridged []int
	// sparseState is the sparse edge test's (edgetest_sparse.go), nil
	// when the dense test runs.
	sparseState *sparseRun
	// coefs, when the Ising edge test is made in the nodes' support
	// models (selection.SupportWald), is each node's number of
	// coefficients there (its support, the bias and the spin tested),
	// which sets the events rule of its statistics and so of the
	// SmallSample warning; nil otherwise (n coefficients a node).
	coefs []float64
}

// progressStages makes the progress that WithProgress reports cover the
// stage after the fits when the edge test chooses the graph (η not
// given): the total is n nodes plus ⌈n/4⌉ units for the edge test and its
// refit, which take about a fifth of a run, and those units are reported
// done when the test ends. Without the test the total is n.
func (r *learnRun) progressStages() {
	f, n := r.cfg.progress, r.s.n
	if f == nil || !r.wantEta {
		return
	}
	stage := (n + 3) / 4
	r.cfg.progress = func(done, total int) { f(done, total+stage) }
	r.testDone = func() { f(n+stage, n+stage) }
}

// nodeSelection is what the stages around the fits learned about node i.
// Only the worker fitting node i writes it.
type nodeSelection struct {
	lambda float64
	curve  selection.Curve
	// d and se hold the debiased Ŵ_ij(a, b) and its standard error, laid
	// out like Result.est, and df the degrees of freedom of each value a
	// of z_i; nil when η was given. cov holds the covariances of the
	// blocks for the grouped statistic of the k-ary edge test
	// (selection.WaldOneHot), nil where it is not computed.
	d, se, df, cov []float64
}

// newRun validates the inputs, resolves the options and prepares the
// engine's data. When λ or η is missing it sets up their choice from the
// data: a Selection's width search, the edge test, or both. With both
// given the learners run the paper's algorithms unchanged.
func newRun(fn string, s *Samples, opts []Option, ising bool) (*learnRun, error) {
	cfg, err := prepare(fn, s, opts)
	if err != nil {
		return nil, err
	}
	switch {
	case ising && s.k != 2:
		return nil, &AlphabetError{Func: fn, K: s.k, Min: 2, Max: 2}
	case s.k > MaxLearnAlphabet:
		return nil, &AlphabetError{Func: fn, K: s.k, Min: 2, Max: MaxLearnAlphabet}
	case cfg.scale == Ordinal && fn != "Learn" && fn != "LearnShard" && fn != "LearnNodes":
		// Learn's shards (LearnShard, LearnNodes) fit its ordinal scale too.
		return nil, &OptionError{Func: fn, Option: "WithScale", Value: Ordinal, Reason: "the ordinal model is fitted by Learn; " + fn + " runs the paper's Algorithm " + map[bool]string{true: "1", false: "2"}[ising] + " unchanged"}
	case !ising && cfg.oneHot == nil && isEntropic(cfg.solver):
		// Refused before any fit, not at the first regression.
		reason := "EntropicMirror (Algorithm 3) solves the l1 problems of the Ising path, not the l2,1 problems of the pairwise path: use GroupMirror (Algorithm 4) or the default, Accelerated"
		if s.k == 2 {
			reason += ", or learn k = 2 with Learn or LearnIsing"
		}
		return nil, &OptionError{Func: fn, Option: "WithSolver", Value: cfg.solver, Reason: reason}
	}
	r := &learnRun{s: s, b: cfg.backend(), wantEta: math.IsNaN(cfg.eta), nodes: make([]nodeSelection, s.n)}
	if cfg.keep {
		r.solutions = make([][]taskSolution, s.n) // one slot a node, written by its worker
	}
	if cfg.ridge > 0 && !r.b.Fast {
		return nil, fmt.Errorf("pairwise: %s: WithRidge needs the Accelerated backend (the default)", fn)
	}
	if r.wantEta && s.k > 2 && !cfg.ordinal {
		if b := waldOneHotBytes(s.n, s.k); b > maxWaldBytes {
			return nil, errorOf(ErrEdgeTestTooLarge, "pairwise: %s: the edge test that chooses the edges when η is not given needs about %.1f GB a worker at n = %d, k = %d (the inverse Hessians of a node's %d value pairs), more than the %.0f GB it may use: give the minimum edge weight with WithMinEdgeWeight",
				fn, b/1e9, s.n, s.k, s.k*(s.k-1)/2, maxWaldBytes/1e9)
		}
	}
	if !math.IsNaN(cfg.radius) {
		// WithRadius overrides the width, whatever the order: no
		// regression uses λ, so Result.Width reports NaN, not a λ given
		// beside it.
		cfg.lambda = math.NaN()
	}
	if cfg.widths != nil && math.IsNaN(cfg.radius) {
		if len(cfg.widths) != s.n {
			return nil, fmt.Errorf("pairwise: %s: WithNodeWidths: %d widths for %d variables", fn, len(cfg.widths), s.n)
		}
		r.widths = cfg.widths
		cfg.lambda = placeholderWidth
	}
	var f *selection.Folds
	if r.widths == nil && math.IsNaN(cfg.lambda) && math.IsNaN(cfg.radius) {
		rule := cfg.selection
		if rule == nil {
			rule = EBIC{Gamma: DefaultGamma}
		}
		sp, err := rule.spec()
		if err != nil {
			return nil, err
		}
		r.spec, r.rule = &sp, rule
		if !sp.EBIC {
			if f, err = selection.MakeFolds(s.stages(), sp.Folds); err != nil {
				return nil, fmt.Errorf("pairwise: %s: %v: %w", fn, rule, err)
			}
		}
		cfg.lambda = placeholderWidth
	}
	r.cfg = cfg
	r.progressStages()
	var into []int32
	r.fitted = s
	if r.b.Fast {
		r.fitted, into = mergeRows(s)
	}
	if f != nil && into != nil {
		f = f.Merge(into, r.fitted.rows)
	}
	r.folds = f
	fs := r.fitted
	rows := &engine.Rows{N: fs.n, K: fs.k, Count: fs.rows, Weights: fs.weights}
	if fs.bits != nil && ising && r.b.Fast {
		// Bit samples stay bits on the fast Ising path (engine.Rows).
		rows.Bits = fs.bits
	} else {
		rows.States = fs.states8()
	}
	if ising && fs.incomplete {
		// Available cases (AvailableCase): the missing state 2 is a
		// spin 0 to the engine (engine.Rows).
		rows.K = 3
	}
	r.d = engine.NewData(rows, r.b, ising, cfg.workers, cfg.split)
	r.d.SetScreen(cfg.screen)
	if !ising {
		if err := r.checkDenseTest(fn, false); err != nil {
			r.stop()
			return nil, err
		}
	}
	return r, nil
}

// useSparse reports whether the learner call r runs the sparse edge test
// (edgetest_sparse.go): the tuning-free Ising path, rows split among the
// workers or not, complete samples of more than selection.WaldDenseMax
// spins (the support-model test), and not turned off (withDenseTest). A
// shard (r.only set) runs its first pass when it fits with the default
// backend, whose data the merge rebuilds from the samples for the second
// (shard.go); with another backend it keeps the dense test.
func (r *learnRun) useSparse() bool {
	return r.wantEta && (r.only == nil || r.b.Fast) && !r.cfg.denseTest && r.scores == nil &&
		selection.SupportWald(r.fitted.stages(), r.cfg.waldDense)
}

// checkDenseTest is checkLearnSize for complete binary samples, which
// prepare leaves to the run: without η a run that takes the dense edge
// test (any but the Ising path's useSparse) needs its n·n·k² arrays, and
// the error says why this run takes it.
func (r *learnRun) checkDenseTest(fn string, ising bool) error {
	if !r.wantEta || r.s.k != 2 || r.s.incomplete || ising && r.useSparse() {
		return nil
	}
	why := ""
	switch {
	case !ising:
		why = "; the test that follows the graph runs on the Ising path (Learn, LearnIsing) in one process"
	case r.only != nil:
		why = "; a shard keeps the dense test when it fits with a backend other than the default (Accelerated), whose data its merge could not rebuild: learn with the default backend, or give η"
	}
	return checkLearnSize(fn, r.s.n, r.s.k, why)
}

// stop releases the run's goroutines.
func (r *learnRun) stop() { r.d.Stop() }

// eachNode runs fit for every node with a driver of its own, on the
// workers, or one node at a time when the data split their rows among the
// workers instead (rowsplit.go).
func (r *learnRun) eachNode(ctx context.Context, fit func(ctx context.Context, e *engine.Driver, i int) error) error {
	sched := r.cfg
	if r.d.Split() {
		sched.workers = 1
	}
	count := r.s.n
	if r.only != nil {
		count = len(r.only)
	}
	return forEachNode(ctx, &sched, count, func(ctx context.Context, i int) error {
		if r.only != nil {
			i = r.only[i]
		}
		wk := r.pool.Get()
		defer r.pool.Put(wk)
		e := &engine.Driver{Backend: r.b, Data: r.d, Settings: solve.Settings{Tol: r.cfg.tol, MaxIter: r.cfg.maxIter}, Work: wk, Ridge: r.cfg.ridge}
		return fit(ctx, e, i)
	})
}

// fitNode solves node i's regressions, the tasks: at the given radius when
// the width was given, else at the width λ_i that the Selection picks along
// its path (selection.RunPath; perWidth is the radius of a unit width, dfPerGroup and
// logD EBIC's count per nonzero group and ln d), the final fits starting
// from the path's solutions. A value pair (α, β) with α ≥ 1 that has no
// such start begins at w^{0,β} − w^{0,α}: the log-odds of α against β is
// the difference of those of 0 against β and 0 against α, so this is the
// population solution whenever the constraint is not active, and a close
// start otherwise. When η is to be chosen, it prepares node i's edge test.
// It returns the solutions and adds their Stats to fit.
func (r *learnRun) fitNode(ctx context.Context, e *engine.Driver, i int, tasks []engine.Task, radius float64, widthRadius func(float64) float64, dfPerGroup, logD float64, fit *NodeFit) ([][]float64, error) {
	ns := &r.nodes[i]
	warm := make([][]float64, len(tasks))
	iters := 0
	if r.widths != nil {
		ns.lambda = r.widths[i]
		radius = widthRadius(ns.lambda)
	}
	total := r.fitted.total
	if r.fitted.incomplete && len(tasks) > 0 {
		// Available cases: node i's rows are those that observe it.
		total = engine.WeightSum(tasks[0].C, len(tasks[0].Y))
	}
	if r.spec != nil && len(tasks) > 0 && total > 0 {
		res, err := selection.RunPath(ctx, e, r.spec, r.folds, tasks, widthRadius(1), dfPerGroup, logD, total)
		if err != nil {
			return nil, err
		}
		ns.lambda, ns.curve, iters, warm = res.Lambda, res.Curve, res.Iters, res.Warm
		radius = widthRadius(res.Lambda)
	} else if r.spec != nil {
		ns.lambda = placeholderWidth
	}
	ws := make([][]float64, len(tasks))
	from := make(map[[2]int]int, len(tasks)) // the task of each value pair
	for t := range tasks {
		task := &tasks[t]
		from[[2]int{task.Alpha, task.Beta}] = t
		w := make([]float64, e.Design(task).Dim())
		if warm[t] != nil {
			copy(w, warm[t])
		} else if v := r.warmStart(i, task, len(w)); v != nil {
			copy(w, v)
		} else if a, ok := from[[2]int{0, task.Alpha}]; ok && task.Alpha > 0 {
			if b, ok := from[[2]int{0, task.Beta}]; ok {
				for x := range w {
					w[x] = ws[b][x] - ws[a][x]
				}
			}
		}
		st, err := e.Fit(ctx, task, task.C, radius, w)
		if t == 0 {
			st.Iterations += iters
		}
		if err != nil {
			if task.Beta > 0 { // a value pair of Algorithm 2
				return nil, fmt.Errorf("values (%d, %d): %w", task.Alpha, task.Beta, err)
			}
			return nil, err
		}
		fit.noteStats(st)
		ws[t] = w
	}
	if r.solutions != nil {
		sol := make([]taskSolution, len(tasks))
		for t := range tasks {
			sol[t] = taskSolution{alpha: tasks[t].Alpha, beta: tasks[t].Beta, w: slices.Clone(ws[t])}
		}
		r.solutions[i] = sol
	}
	if r.wantEta && len(tasks) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		data := r.fitted.stages() // built once for the node's statistics
		if r.sparseState != nil {
			// The sparse edge test (edgetest_sparse.go): the node keeps the
			// entries that can matter.
			r.sparseState.first(data, e, i, &tasks[0], ws[0])
		} else if tasks[0].Beta == 0 && selection.SupportWald(data, r.cfg.waldDense) {
			// Many variables: the test in node i's support model
			// (internal/selection, wald_support.go).
			ns.d, ns.se, ns.df = selection.WaldSpinsSupport(data, &tasks[0], ws[0], e.Work.RowScratch(len(tasks[0].Y)))
		} else if tasks[0].Beta == 0 { // the node of Algorithm 1
			ns.d, ns.se, ns.df = selection.WaldSpins(data, &tasks[0], ws[0], e.Work.RowScratch(len(tasks[0].Y)))
		} else if r.scores != nil { // the ordinal model (ordinal.go)
			// The test's estimate is node i's conditional law refitted
			// without constraint on all rows (internal/selection,
			// ordinal_refit.go); where its maximum likelihood estimate
			// does not exist, the value pairs' debiased estimates.
			if w, se, _, df, ok := selection.OrdinalRefit(data, i, r.scores); ok {
				ns.d = estimates.OrdinalLayout(i, r.s.n, r.s.k, w, r.scores, false)
				ns.se = estimates.OrdinalLayout(i, r.s.n, r.s.k, se, r.scores, true)
				ns.df = slices.Repeat([]float64{df}, r.s.k)
			} else {
				ns.d, ns.se, ns.df = selection.WaldScores(data, i, tasks, ws, e.Design, r.scores)
			}
		} else {
			ns.d, ns.se, ns.df, ns.cov = selection.WaldOneHot(data, i, tasks, ws, e.Design, selection.BlockOK(r.s.n, r.s.k))
		}
		selection.DropOverflow(ns.d, ns.se)
	}
	return ws, nil
}

// warmStart returns the solution of WithWarmStart for node i's task of
// dimension dim, or nil: none given, none of that value pair and length,
// or the widths searched.
func (r *learnRun) warmStart(i int, task *engine.Task, dim int) []float64 {
	if r.cfg.warm == nil || r.spec != nil || i >= len(r.cfg.warm) {
		return nil
	}
	for _, sol := range r.cfg.warm[i] {
		if sol.alpha == task.Alpha && sol.beta == task.Beta && len(sol.w) == dim {
			return sol.w
		}
	}
	return nil
}

// assemble is the stage after the fits: it symmetrises the per-node
// estimates into the Result, records the chosen widths, and picks the
// graph: the pairs whose weight reaches η/2 when η was given, else those
// the edge test keeps. radius is the regressions' radius when the width was
// given. fields[i*k+a] holds θ̂_i(a). It reads the samples r.s only in the
// edge test's refit stage, so that MergePartials can run it without them.
func (r *learnRun) assemble(ctx context.Context, k int, est []*estimates.Node, fields []float64, nodes []NodeFit, radius float64) (*Result, error) {
	n := len(r.nodes)
	lambda, eta, sym := r.cfg.lambda, r.cfg.eta, r.cfg.symmetric
	var tun *Tuning
	if r.spec != nil || r.wantEta {
		// The nominal scale's multinomial default is the mixed model with
		// no ordered variable: Mixed, not Ordinal.
		tun = &Tuning{n: n, k: k, Ordinal: r.scores != nil && !r.cfg.multinomial}
		if r.mixed != nil {
			tun.Mixed, tun.mixed = true, &mixedTest{v: r.mixed, fits: r.mixFits}
		}
	}
	if r.spec != nil || r.widths != nil {
		lambda = 0
		for i := range nodes {
			nodes[i].Width = r.nodes[i].lambda
			lambda = math.Max(lambda, r.nodes[i].lambda)
		}
		radius = math.NaN() // every node used its own 2λ_i or 2λ_i√k
	}
	if r.spec != nil {
		tun.Selection = r.rule
		tun.curves = make([]selection.Curve, n)
		for i := range nodes {
			tun.curves[i] = r.nodes[i].curve
		}
	}
	if r.wantEta {
		// Keep every pair with a nonzero estimate; the edge test drops
		// those that fail it.
		eta, sym = math.SmallestNonzeroFloat64, Average
	}
	res := symmetrise(n, k, est, fields, nodes, eta, sym)
	res.Width, res.Radius, res.Tuning = lambda, radius, tun
	res.solutions = r.solutions
	if r.s != nil { // a merge of partials may come without the samples
		res.Model.names = r.s.names                                                    // the samples' names, for WriteModel
		res.Warnings = sampleWarnings(r.s, nodes, r.wantEta, r.scores != nil, r.coefs) // warnings.go
		res.Warnings = append(res.Warnings, ridgeWarning(r.ridged)...)
	}
	if w, ok := convergenceWarning(nodes, r.cfg.tol, r.cfg.solver); ok {
		res.Warnings = append(res.Warnings, w)
	}
	if r.wantEta {
		debias, stdErrs, dfs, covs := make([][]float64, n), make([][]float64, n), make([][]float64, n), make([][]float64, n)
		for i, ns := range r.nodes {
			debias[i], stdErrs[i], dfs[i], covs[i] = ns.d, ns.se, ns.df, ns.cov
		}
		test := waldRun{WaldTest: r.cfg.test, sym: r.cfg.symmetric, dense: r.cfg.waldDense, floor: r.cfg.floorAt(n)}
		if r.sparseState != nil {
			if err := test.runSparse(ctx, r.sparseState, res, tun); err != nil {
				return nil, err
			}
		} else if err := test.run(ctx, r.s, res, tun, debias, stdErrs, dfs, covs, r.scores, r.cfg.workers); err != nil {
			return nil, err
		}
		if r.testDone != nil {
			r.testDone()
		}
	}
	return res, nil
}

// forEachNode runs fit(i) for every node on cfg.workers goroutines, reports
// progress, and stops early on the first error or when ctx is done. fit must
// write its results only to slots owned by node i, so the outcome does not
// depend on the number of workers.
func forEachNode(parent context.Context, cfg *config, n int, fit func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	var (
		mu    sync.Mutex
		done  int
		first error
		next  int
	)
	if cfg.progress != nil {
		cfg.progress(0, n)
	}
	workers := min(cfg.workers, n)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if first != nil || next >= n {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				err := ctx.Err()
				if err == nil {
					err = fit(ctx, i)
				}
				mu.Lock()
				if err != nil {
					if first == nil {
						first = err
						cancel()
					}
				} else {
					done++
					if cfg.progress != nil {
						cfg.progress(done, n)
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := parent.Err(); err != nil {
		// Report the caller's cancellation as such, not a solver's
		// wrapped view of it.
		return err
	}
	return first
}

// fitted is what a learner's per-node stage leaves for the global stages:
// the run, the per-node estimates laid out like Result.est (nil for the
// nodes not fitted), the fields (θ̂_i(a) at i*k+a) and fits of the nodes,
// and the regressions' radius when the width was given.
type fitted struct {
	r      *learnRun
	k      int
	est    []*estimates.Node
	fields []float64
	nodes  []NodeFit
	radius float64
}

// checkLearnSize returns an error when n variables with k states exceed
// MaxLearnEntries (called when η is not given and the dense edge test
// would run), matching ErrEdgeTestTooLarge and saying that η lifts the
// limit; why, when not empty, says why the dense test runs and what else
// would lift it.
func checkLearnSize(fn string, n, k int, why string) error {
	if e := float64(n) * float64(n) * float64(k) * float64(k); e > MaxLearnEntries {
		return errorOf(ErrEdgeTestTooLarge, "pairwise: %s: n = %d variables with k = %d states need %.3g estimates Ŵ_ij(a, b) (8 bytes each), more than MaxLearnEntries = %d, the limit of the dense arrays of the edge test that chooses the graph when η is not given%s; with η the estimates are sparse and the limit does not apply: give the minimum edge weight with WithMinEdgeWeight", fn, n, k, e, MaxLearnEntries, why)
	}
	return nil
}
