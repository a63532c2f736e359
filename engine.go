package pairwise

import (
	"context"
	"sync"

	"github.com/mrfkit/pairwise/solve"
)

// The per-node engine. Every constrained logistic regression the learners
// solve — a node of Algorithm 1, a value pair of Algorithm 2, each width of
// a Selection's path, each cross-validation fold — is a pathTask, and one
// driver, engine.fit, solves it:
//
//	samples ─ nodeData (rows merged, coded once) ─ pathTask (a node's design,
//	labels, weights) ─ engine.fit ─ ŵ and solve.Stats
//
// With the default backend (Accelerated) the driver runs the fast methods on
// the table kernels of codedDesign: a majorise–minimise start from the spins'
// moments for a cold Ising node (isingMM), Newton steps for small one-hot
// problems (newton), then accelerated projected gradient with Newton steps on
// the face of the ball (fista, faceNewton), stopped by the duality-gap
// certificate. With any other backend it hands the same problem, on the
// plain layouts of package solve and the rows in their order, to the
// backend's solve.Solver. The stages that look at all nodes (the width
// search, symmetrisation, the edge test) call the driver; the driver calls
// nothing above it.

// backend is the configured solver, resolved: the fast engine of the
// default Accelerated, or a solve.Solver for each layout.
type backend struct {
	fast   bool
	spins  solve.Solver[solve.Spins]
	oneHot solve.Solver[solve.OneHot]
}

// backend resolves WithSolver (and its shorthands WithSpinSolver and
// WithOneHotSolver).
func (c *config) backend() backend {
	b := c.solver
	if b == nil {
		b = Accelerated{}
	}
	_, fast := b.(Accelerated)
	r := backend{fast: fast, spins: c.spins, oneHot: c.oneHot}
	if r.spins == nil {
		r.spins = b.spinsSolver()
	} else {
		r.fast = false
	}
	if r.oneHot == nil {
		r.oneHot = b.oneHotSolver()
	} else {
		r.fast = false
	}
	return r
}

// nodeData is the samples as the engine fits them, prepared once per learner
// call and shared read-only by the workers: with the fast engine, identical
// rows merged into weights and the rows encoded as group codes; otherwise
// the rows as given, in their order, for the backend's plain layouts.
type nodeData struct {
	s    *Samples // the rows fitted
	into []int32  // row of s that each given row became; nil when not merged
	gc   *groupCodes
	// newton: the one-hot regressions take Newton steps first (useNewton).
	newton bool
	// spins is the ±1 matrix of the plain Spins layout (k = 2, no codes).
	spins []float64
	// cw, cov and mean are the normalised row weights and the spins'
	// second moment and means (spinMoments): the majorise–minimise start
	// of a cold Ising node. nil on the pairwise path.
	cw, cov, mean []float64
	// team splits every pass over the rows among the workers when there
	// are at least rowSplitMin rows (rowsplit.go); the nodes are then
	// solved one at a time. nil otherwise.
	team *rowTeam
}

// newNodeData prepares s for backend b; ising selects the Ising path's
// design (spins) over the one-hot one.
func newNodeData(s *Samples, b backend, ising bool, workers int) *nodeData {
	d := &nodeData{s: s}
	if b.fast && s.b8 != nil {
		d.s, d.into = mergeRows(s)
		d.gc = newGroupCodes(d.s, groupSize(d.s.n, d.s.k, maxGroupTable))
	}
	m := d.s
	switch {
	case d.gc == nil && ising:
		d.spins = encodeSpins(m).x
	case d.gc != nil && ising:
		d.cw = normalisedWeights(nil, m, nil)
		d.cov, d.mean = spinMoments(m, d.cw)
	case d.gc != nil:
		d.newton = useNewton(m.n, m.k, d.gc.groups)
	}
	if b.fast && m.rows >= rowSplitMin {
		d.team = newRowTeam(workers)
	}
	return d
}

// stop ends the row-splitting goroutines, if any.
func (d *nodeData) stop() {
	if d.team != nil {
		d.team.stop()
	}
}

// pathTask is one regression of a node: the Ising node's regression, or one
// value pair (α, β) of the pairwise path, on the rows of a nodeData.
type pathTask struct {
	x           linearDesign
	spins       *solve.Spins  // the plain layouts, for a backend's Solve
	oneHot      *solve.OneHot //
	y           []float64
	c           []float64 // the weights of the design rows; nil for 1
	rows        []int32   // the data's row of each design row; nil for all rows
	bias        int       // node i
	alpha, beta int       // the value pair; 0, 0 on the Ising path
}

// work is the scratch of one worker, pooled between nodes so that a worker
// reuses its row buffers.
type work struct {
	ws   fistaWork
	nt   newtonWork
	act  []uint16
	cw   []float64 // the fit's normalised weights
	y    []float64 // the Ising node's labels
	f    []float64 // the table kernels' scratch
	full *[maxCodedTables]float64
	hist []*[maxCodedTables]float64 // the chunks' histograms (rowsplit.go)
}

// engine is one worker's driver over a nodeData.
type engine struct {
	b       backend
	d       *nodeData
	tol     float64
	maxIter int
	work    *work
}

// design returns the coded design of node i over codes on the worker's
// scratch, split over the rows when the data have a team.
func (e *engine) design(codes []uint16, i int, spins bool) *codedDesign {
	w := e.work
	cd := newCodedDesign(e.d.gc, codes, i, spins, w.f, w.full)
	w.f, w.full = cd.f, cd.full
	if e.d.team != nil {
		cd.split(e.d.team, &w.hist)
	}
	return cd
}

// spinTask returns node i's regression of Algorithm 1 (equation (3)): the
// spin z_i on [z_-i, 1]. Its labels live in the worker's scratch.
func (e *engine) spinTask(i int) pathTask {
	s := e.d.s
	n := s.n
	y := e.work.y[:0]
	for m := 0; m < s.rows; m++ {
		y = append(y, float64(2*int(s.b8[m*n+i])-1))
	}
	e.work.y = y
	t := pathTask{bias: i, c: s.weights, y: y}
	if e.d.gc != nil {
		t.x = e.design(e.d.gc.codes, i, true)
	} else {
		t.spins = &solve.Spins{X: e.d.spins, Cols: n, Bias: i}
		t.x = *t.spins
	}
	return t
}

// pairTasks returns node i's regressions of Algorithm 2 (equation (8)), one
// for every value pair α < β of z_i with rows of both values, and counts
// the pairs without rows (empty) and with rows of one value only (oneLabel
// lists them, α*k+β, with the sign of the label they have).
func (e *engine) pairTasks(i int) (tasks []pathTask, empty int, oneLabel [][2]int) {
	s := e.d.s
	n, k := s.n, s.k
	byValue := make([][]int32, k) // the rows with z_i = a
	for m := 0; m < s.rows; m++ {
		if s.weights != nil && s.weights[m] == 0 {
			continue
		}
		a := s.b8[m*n+i]
		byValue[a] = append(byValue[a], int32(m))
	}
	for alpha := 0; alpha < k; alpha++ {
		for beta := alpha + 1; beta < k; beta++ {
			na, nb := len(byValue[alpha]), len(byValue[beta])
			switch {
			case na+nb == 0:
				empty++
				continue
			case na == 0:
				oneLabel = append(oneLabel, [2]int{alpha*k + beta, -1})
				continue
			case nb == 0:
				oneLabel = append(oneLabel, [2]int{alpha*k + beta, 1})
				continue
			}
			t := pathTask{bias: i, alpha: alpha, beta: beta}
			var z []uint8
			z, t.y, t.c, t.rows = gatherRows(s, byValue[alpha], byValue[beta], e.d.gc == nil)
			if e.d.gc != nil {
				// Each task keeps its own codes; the kernels' scratch is
				// the worker's, as the tasks are solved one at a time.
				cd := newCodedDesign(e.d.gc, e.d.gc.gatherRows(nil, t.rows), i, false, e.work.f, e.work.full)
				e.work.f, e.work.full = cd.f, cd.full
				if e.d.team != nil {
					cd.split(e.d.team, &e.work.hist)
				}
				t.x = cd
			} else {
				t.oneHot = &solve.OneHot{Z: z, Groups: n, K: k, Bias: i}
				t.x = *t.oneHot
			}
			tasks = append(tasks, t)
		}
	}
	return tasks, empty, oneLabel
}

// fit is the driver: it solves task t with row weights c (nil for 1; t.c
// for the task's own weights, a fold's training weights otherwise) at the
// radius, from the warm start w, into w, and returns how the solve ended.
// Every regression of the learners runs here.
func (e *engine) fit(ctx context.Context, t *pathTask, c []float64, radius float64, w []float64) (solve.Stats, error) {
	if !e.b.fast {
		if t.spins != nil {
			return e.b.spins.Solve(ctx, &solve.Problem[solve.Spins]{X: *t.spins, Y: t.y, C: c, Radius: radius, Tol: e.tol, MaxIter: e.maxIter}, w)
		}
		return e.b.oneHot.Solve(ctx, &solve.Problem[solve.OneHot]{X: *t.oneHot, Y: t.y, C: c, Radius: radius, Tol: e.tol, MaxIter: e.maxIter}, w)
	}
	if err := ctx.Err(); err != nil {
		return solve.Stats{}, err
	}
	total := weightSum(c, len(t.y))
	if total == 0 {
		// No data: L ≡ 0, and 0 is the natural solution.
		clear(w)
		return solve.Stats{Converged: true}, nil
	}
	wk := e.work
	cw := wk.cw[:0]
	for m := range t.y {
		v := 1.0
		if c != nil {
			v = c[m]
		}
		cw = append(cw, v/total)
	}
	wk.cw = cw
	n := e.d.s.n
	p := &regression{x: t.x, y: t.y, cw: cw, radius: radius, tol: e.tol, maxIter: e.maxIter, trace: float64(n)}
	var pre solve.Stats
	cd, coded := t.x.(*codedDesign)
	switch {
	case coded && cd.spins && e.d.cov != nil && sameSlice(c, t.c) && isZero(w):
		// A cold Ising node on its own weights: the moments describe its
		// design, and majorise–minimise steps in their metric start it.
		p.cov, p.mean, p.covN, p.bias = e.d.cov, e.d.mean, n, t.bias
		pre.Iterations = isingMM(ctx, p, cd, w, wk)
	case coded && !cd.spins && e.d.newton:
		// The coordinates each row selects, in increasing order: (j, z_j)
		// for j ≠ i and (i, 0) for the bias.
		k := e.d.s.k
		act := wk.act[:0]
		s := e.d.s
		for _, m := range t.rows {
			for j, a := range s.b8[int(m)*n : int(m+1)*n] {
				if j == t.bias {
					a = 0
				}
				act = append(act, uint16(j*k+int(a)))
			}
		}
		wk.act = act
		st, done, err := newton(ctx, p, act, n, w, &wk.nt, &wk.ws)
		if err != nil || done {
			return st, err
		}
		pre = st
	}
	p.maxIter -= pre.Iterations // the start's steps count against WithMaxIterations
	st, err := fista(ctx, p, w, &wk.ws)
	st.Iterations += pre.Iterations
	return st, err
}

// gatherRows builds the design of the value pair whose rows are rowsA
// (label +1) and rowsB (label -1), in sample order: the states (when
// withStates), the labels, the weights (nil for unweighted samples) and the
// sample row of each design row.
func gatherRows(s *Samples, rowsA, rowsB []int32, withStates bool) (z []uint8, y, c []float64, rows []int32) {
	n := s.n
	total := len(rowsA) + len(rowsB)
	if withStates {
		z = make([]uint8, 0, total*n)
	}
	y = make([]float64, 0, total)
	rows = make([]int32, 0, total)
	if s.weights != nil {
		c = make([]float64, 0, total)
	}
	a, b := 0, 0
	for a < len(rowsA) || b < len(rowsB) {
		var m int32
		label := 1.0
		if b == len(rowsB) || (a < len(rowsA) && rowsA[a] < rowsB[b]) {
			m = rowsA[a]
			a++
		} else {
			m, label = rowsB[b], -1
			b++
		}
		if withStates {
			z = append(z, s.b8[int(m)*n:int(m+1)*n]...)
		}
		y = append(y, label)
		rows = append(rows, m)
		if c != nil {
			c = append(c, s.weights[m])
		}
	}
	return z, y, c, rows
}

// workPool hands out worker scratch.
type workPool struct{ p sync.Pool }

func (wp *workPool) get() *work {
	if w, ok := wp.p.Get().(*work); ok {
		return w
	}
	return new(work)
}

func (wp *workPool) put(w *work) { wp.p.Put(w) }

// sameSlice reports whether a and b are the same slice (both nil, or the
// same first element and length).
func sameSlice(a, b []float64) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b) && (a == nil) == (b == nil)
	}
	return len(a) == len(b) && &a[0] == &b[0]
}

// isZero reports whether every entry of w is zero.
func isZero(w []float64) bool {
	for _, v := range w {
		if v != 0 {
			return false
		}
	}
	return true
}
