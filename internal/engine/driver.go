// Package engine is the per-node engine of package pairwise: every
// constrained logistic regression the learners solve — a node of Algorithm 1,
// a value pair of Algorithm 2, each width of a Selection's path, each
// cross-validation fold — is a Task, and one driver, Driver.Fit, solves it:
//
//	Rows (merged, weighted) ─ Data (coded once) ─ Task (a node's design,
//	labels, weights) ─ Driver.Fit ─ ŵ and solve.Stats
//
// With the fast backend (pairwise.Accelerated, the default) the driver runs
// the fast methods on the table kernels of codedDesign: a majorise–minimise
// start from the spins' moments for a cold Ising node (isingMM), Newton
// steps for small one-hot problems (newton), then accelerated projected
// gradient with Newton steps on the face of the ball (FISTA, faceNewton),
// stopped by the duality-gap certificate; an Ising node among many
// variables runs those methods on working sets of variables, certified on
// all of them (Data.SetScreen). With any other backend it hands
// the same problem, on the plain layouts of package solve and the rows in
// their order, to the backend's solve.Solver. The stages that look at all
// nodes (the width search, symmetrisation, the edge test) live in package
// pairwise and call the driver; nothing here calls up.
package engine

import (
	"context"
	"errors"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise/solve"
)

// Rows is the samples as the engine reads them: Count rows of N states in
// [0, K), K ≤ 256, one byte a state, row-major, with optional weights.
//
// On the Ising path K is 2, or 3 for binary data with missing values
// (available-case analysis): state 2 is a missing spin, which enters a
// design as 0, the value that says nothing on the ±1 scale, and a node's
// own regression leaves out (zero weight) the rows where it is missing.
//
// Binary rows (K = 2) may come as bits instead (Bits, States nil), in
// blocks of 64 rows: word x·N + j holds, in bit r, the state of variable j
// in row 64x + r, bits past the last row 0. The fast Ising path then never holds
// the states as bytes, and its screened fits hold the codes of all rows
// only after one has fallen back to the full problem, as bytes when there
// are eight spins a group (heldCodes), or never (NewData). Other paths
// unpack the bits into bytes once.
type Rows struct {
	N, K    int
	Count   int
	States  []uint8   // Count×N; nil when Bits holds the rows
	Bits    []uint64  // K = 2 only: ⌈Count/64⌉·N words, word x·N + j bit r the state of variable j in row 64x + r
	Weights []float64 // one a row; nil when every row weighs 1
}

// Weight returns the weight of row m.
func (r *Rows) Weight(m int) float64 {
	if r.Weights == nil {
		return 1
	}
	return r.Weights[m]
}

// Backend is the configured solver, resolved: Fast selects the engine's own
// methods on its coded rows; otherwise Spins and OneHot solve the plain
// layouts.
type Backend struct {
	Fast   bool
	Spins  solve.Solver[solve.Spins]
	OneHot solve.Solver[solve.OneHot]
}

// Split decides when the passes over the rows are split among the workers
// (Chunking, RunChunks): from Min rows on, in chunks of at least Chunk rows.
type Split struct {
	Min, Chunk int
}

// ErrWide is the error of a fit that the wide layout (more than 32,768
// spins, newWideLayout) cannot make: one that is not screened, as an
// unconstrained refit (an infinite radius) or a fit on a subset of the rows.
var ErrWide = errors.New("pairwise: past 32,768 binary variables only the constrained fits of Algorithm 1 on all rows are supported (λ or η given; no refit, no edge test)")

// DefaultSplit splits from 2^18 rows, in chunks of at least 2^15 rows: with
// N = 10⁶ rows one node's row buffers are 64 bytes a row on the Ising path,
// more than half the size of the samples of 100 binary variables, so
// holding one node's at a time rather than one set a worker pays.
var DefaultSplit = Split{Min: 1 << 18, Chunk: 1 << 15}

// Data is the rows as the driver fits them, prepared once per learner call
// and shared read-only by the workers: with the fast backend, encoded as
// group codes (the caller merges identical rows first); otherwise as given,
// in their order, for the backend's plain layouts.
type Data struct {
	Rows *Rows // the rows fitted
	gc   *groupCodes
	// newton: the one-hot regressions take Newton steps first (useNewton).
	newton bool
	// spins is the ±1 matrix of the plain Spins layout (k = 2, no codes).
	spins []float64
	// cov and mean are the spins' second moment and means under the
	// normalised row weights (spinMoments): the majorise–minimise start
	// of a cold Ising node. Computed on first use (moments), by the first
	// unscreened cold Ising fit; nil on the pairwise path.
	cov, mean   []float64
	momentsOnce sync.Once
	// ising: the data are fitted on the Ising path. screenMin: the least
	// number of variables from which its regressions are screened
	// (screen.go, SetScreen).
	ising bool
	// zero: Ising data with missing spins (Rows.K = 3, see Rows): the
	// state 2 enters the designs as 0, the node's rows where it is
	// missing weigh 0, and neither the screened fits nor the moments'
	// start (which read two states and all rows) are used.
	zero      bool
	screenMin int
	// byteCodesFrom: from this many rows on, the working sets' codes are bytes
	// (byteCodesRows; the tests lower it).
	byteCodesFrom int
	// blocks are the rows in the layout of Rows.Bits, packed from the
	// states on first use (bitBlocks) when the rows came as bytes;
	// unpacked are the states of rows that came as bits, unpacked on
	// first use (states); codesOnce guards the encoding of the codes of
	// all rows from the bits (spinCodes).
	blocks     []uint64
	blocksOnce sync.Once
	// sparse are the rows as the softmax kernels read them when every
	// group holds one variable (softmax.go, sparseRows), built on first use.
	sparse     *sparseRows
	sparseOnce sync.Once
	unpacked   []uint8
	statesOnce sync.Once
	codesOnce  sync.Once
	// scores are s_j(a) of the ordinal model (SetScores), n×k, or nil.
	scores []float64
	// team splits every pass over the rows among the workers when there
	// are at least split.Min rows (rowsplit.go); the nodes are then
	// solved one at a time. nil otherwise.
	team *rowTeam
}

// NewData prepares rows for backend b; ising selects the Ising path's design
// (spins, Algorithm 1) over the one-hot one (Algorithm 2). workers is the
// number of goroutines that split the rows when there are at least split.Min
// of them (Split reports whether they do); Stop ends them.
//
// Rows given as bits (Rows.Bits) stay bits on the fast Ising path: the
// codes of the screened fits' full design are streamed from them, and
// the codes of all rows are encoded from them only for unscreened fits
// (spinCodes). Any other path unpacks them into bytes here.
func NewData(rows *Rows, b Backend, ising bool, workers int, split Split) *Data {
	d := &Data{Rows: rows, ising: ising, zero: ising && rows.K == 3, screenMin: DefaultScreen, byteCodesFrom: byteCodesRows}
	if rows.States == nil && b.Fast && ising && rows.K == 2 {
		d.gc = newBitLayout(rows, groupSize(rows.N, 2, spinTableLimit(rows.Count)))
	}
	if d.gc == nil && b.Fast && ising && rows.K == 2 && groupSize(rows.N, 2, 2) == 0 {
		// Past 32,768 spins not even one a group fits the tables: the
		// rows stay bits (packed once from bytes), and every fit is
		// screened (newWideLayout).
		d.gc = newWideLayout(rows.N, rows.Count, d.bitBlocks())
	}
	if rows.States == nil && d.gc == nil {
		d.Rows = d.byteRows()
		rows = d.Rows
	}
	if b.Fast && d.gc == nil {
		limit := maxGroupTable
		if ising && rows.K == 2 {
			limit = spinTableLimit(rows.Count)
		}
		d.gc = newGroupCodes(rows, groupSize(rows.N, rows.K, limit))
	}
	switch {
	case d.gc == nil && ising:
		d.spins = encodeSpins(rows)
	case d.gc != nil && ising:
		// The moments wait for their first use (moments).
	case d.gc != nil:
		d.newton = useNewton(rows.N, rows.K, d.gc.groups)
	}
	if b.Fast && rows.Count >= split.Min {
		d.team = newRowTeam(workers, split.Chunk)
	}
	return d
}

// spinTableLimit is the bound on the cells of a group's table for the
// Ising path's codes on count rows: the largest power of two ≤ count/3,
// between 16 and maxGroupTable. Every pass over the rows costs about
// count·groups table reads and the tables about 2.5·2^v operations a group
// (built for the margins, folded for the gradient), so with few rows
// smaller groups cost less: on 25 spins, 4 groups of 8 cost about
// 4·(N + 640) and 5 groups of 5 about 5·(N + 80), less below N ≈ 1000 ...
// and 2^v ≈ N/3 is near the best at every N the rule gives. From 768 rows
// on it is the 256 cells measured at large N (BenchmarkKernels).
func spinTableLimit(count int) int {
	limit := 16
	for limit*2 <= count/3 && limit*2 <= maxGroupTable {
		limit *= 2
	}
	return limit
}

// moments returns the spins' second moment and means (spinMoments under
// the normalised row weights), computed on the first call: O(N·n²) time
// and n² memory, which the screened fits (screen.go) do without.
func (d *Data) moments() (cov, mean []float64) {
	d.momentsOnce.Do(func() {
		d.cov, d.mean = spinMoments(d.byteRows(), normalisedWeights(nil, d.Rows, nil))
	})
	return d.cov, d.mean
}

// SetScores makes the value pairs' designs scored: the row of value pair
// (α, β) of node i is x_j = scores[j·k + z_j] for j ≠ i and 1 for the bias,
// one coefficient a variable (the ordinal model, W_ij(a, b) = w_ij·s_i(a)·
// s_j(b): the pair's log-odds is θ_i(α) − θ_i(β) + (s_i(α) − s_i(β))·Σ_j
// w_ij·s_j(z_j)). scores (n×k, |s| ≤ 1 so that a row's squared norm stays
// at most n, as the step sizes assume) is kept, not copied; call it before
// any fit. The fast backend only: without codes it returns an error.
func (d *Data) SetScores(scores []float64) error {
	if d.gc == nil {
		return errors.New("pairwise: the ordinal model needs the Accelerated backend (the default)")
	}
	d.scores = scores
	return nil
}

// Split reports whether the passes over the rows are split among the
// workers; the caller then solves the nodes one at a time.
func (d *Data) Split() bool { return d.team != nil }

// Stop ends the row-splitting goroutines, if any.
func (d *Data) Stop() {
	if d.team != nil {
		d.team.stop()
	}
}

// Task is one regression of a node: the Ising node's regression, or one
// value pair (α, β) of the pairwise path, on the rows of a Data.
type Task struct {
	X           Design        // the design: coded, or a plain layout; nil for a value pair on coded rows (see Driver.Design)
	Spins       *solve.Spins  // the plain layouts, for a backend's Solve
	OneHot      *solve.OneHot //
	Y           []float64     // the labels ±1
	C           []float64     // the weights of the design rows; nil for 1
	Rows        []int32       // the data's row of each design row; nil for all rows
	Bias        int           // node i
	Alpha, Beta int           // the value pair; 0, 0 on the Ising path
	// Each, when set, reads the design row by row as dense vectors: the
	// small designs of the unconstrained refits (InverseFisher), which Fit
	// solves with radius +Inf by Newton's method whatever the backend.
	Each RowEach
	// Patterns, when set with Each, says that Each's rows are sign
	// patterns: its m-th call passes x = (1, s(Patterns[m])), with
	// s_a = +1 when bit a is set and −1 otherwise, for at most 16 bits
	// (the refits' tables). fisherLoss then sums the Hessian through
	// histograms of the patterns' bytes (fisherPatterns).
	Patterns []uint32
}

// Work is the scratch of one worker, to be reused from node to node (Pool);
// the zero value is ready to use.
type Work struct {
	ws    FistaWork
	nt    newtonWork
	act   []uint16
	cw    []float64 // the fit's normalised weights
	y     []float64 // the Ising node's labels
	c     []float64 // the Ising node's weights, when spins are missing
	f     []float64 // the table kernels' scratch
	full  *[maxCodedTables]float64
	hist  []*[maxCodedTables]float64 // the chunks' histograms (rowsplit.go)
	sbuf  [][]uint16                 // the chunks' codes of a streamed design (bits.go)
	bsums [][]float64                // the chunks' bit sums of a design with bits (bitRows)
	// codes holds the gathered codes of the value pair whose design was
	// built last (Design), last that task and its design.
	codes      []uint16
	last       *Task
	lastDesign *codedDesign
	scr        screenWork   // the screened fits' scratch (screen.go)
	sm         *softmaxWork // the softmax fits' scratch (softmax.go)
}

// RowScratch returns a buffer of length rows that the next Fit will
// overwrite.
func (w *Work) RowScratch(rows int) []float64 { return w.ws.rows(rows)[0] }

// Driver is one worker's driver over a Data.
type Driver struct {
	Backend Backend
	Data    *Data
	// Settings are every fit's stopping rule: the certificate's target
	// L(ŵ) − L* ≤ Tol and the iteration cap.
	solve.Settings
	Work *Work
	// NoNewton keeps the one-hot fits to first-order steps (with face
	// steps): a search along a path of widths, whose warm starts sit near
	// a binding constraint, wastes Newton's Hessians on steps that leave
	// the ball.
	NoNewton bool
	// Ridge is ρ ≥ 0 of a ridge term (ρ/2)·‖w‖² on every coefficient but
	// the bias, in the units of the row weights: Fit minimises
	// Σ_m c_m ℓ_m(w)/Σ c + (ρ/Σ c)/2·‖w‖² (Regression.Ridge = ρ/Σ c), so
	// that the penalty weighs as much against a value pair with few rows
	// as against one with many, as a prior does. The fast backend only.
	Ridge float64
	// fisher is the Hessian at the estimate fisherW of the last
	// unconstrained fit (mle), or at its last iterate (see mleReuse), for
	// InverseFisher.
	fisher  *mat.SymDense
	fisherW []float64
}

// design returns the coded design of node i over codes on the worker's
// scratch, split over the rows when the data have a team.
func (e *Driver) design(codes []uint16, i int, spins bool) *codedDesign {
	w := e.Work
	var cd *codedDesign
	if codes == nil && e.Data.gc.blocks != nil {
		cd = newStreamedDesign(e.Data.gc, i, spins, w.f, w.full, &w.sbuf)
	} else {
		cd = newCodedDesign(e.Data.gc, codes, i, spins, w.f, w.full)
	}
	w.f, w.full = cd.f, cd.full
	cd.bsums = &w.bsums
	if e.Data.team != nil {
		cd.split(e.Data.team, &w.hist)
	}
	return cd
}

// SpinTask returns node i's regression of Algorithm 1 (equation (3)): the
// spin z_i on [z_-i, 1]. Its labels live in the worker's scratch; so do its
// weights when some spins are missing (Rows): the rows' weights, 0 where
// z_i is missing.
func (e *Driver) SpinTask(i int) Task {
	s := e.Data.Rows
	n := s.N
	y := e.Work.y[:0]
	if e.Data.screens() || s.States == nil {
		// The screened fits read the bits (screen.go): variable i's are
		// N/8 bytes, one word a block, where the states are N bytes n
		// apart.
		blocks := e.Data.bitBlocks()
		for m := 0; m < s.Count; m++ {
			y = append(y, float64(2*int(blocks[(m/64)*n+i]>>(m%64)&1)-1))
		}
	} else {
		for m := 0; m < s.Count; m++ {
			y = append(y, spinLabel(s.States[m*n+i]))
		}
	}
	e.Work.y = y
	t := Task{Bias: i, C: s.Weights, Y: y}
	if e.Data.zero {
		// Available cases: the rows where z_i is missing weigh 0 (their
		// label, +1, then counts for nothing).
		c := e.Work.c[:0]
		for m := 0; m < s.Count; m++ {
			v := 0.0
			if s.States[m*n+i] < 2 {
				v = s.Weight(m)
			}
			c = append(c, v)
		}
		e.Work.c = c
		t.C = c
	}
	if e.Data.gc != nil {
		t.X = e.design(e.Data.spinCodes(), i, true)
	} else {
		t.Spins = &solve.Spins{X: e.Data.spins, Cols: n, Bias: i}
		t.X = *t.Spins
	}
	return t
}

// PairPlan is node i's value pairs of Algorithm 2, planned without their
// designs: the rows of each value of z_i, and the pairs α < β to fit
// (both values have rows), without rows (Empty) and with rows of one value
// only (OneLabel, α*k+β with the sign of the label they have). Task builds
// one pair's design when it is fitted, so that a worker holds the gathered
// codes of one value pair at a time: at k = 21 all of a node's pairs hold
// (k−1)·N·groups codes, about 2 GB at N = 10⁵ rows and 1000 variables.
type PairPlan struct {
	Node     int
	Pairs    [][2]int // the value pairs (α, β) with rows of both values
	Empty    int
	OneLabel [][2]int
	// Ref is the reference value of PlanReferencePairs, −1 otherwise.
	Ref     int
	byValue [][]int32 // the rows with z_i = a
}

// PlanPairs returns node i's plan. Values in skip (nil for none) are left
// out of every pair, as if they had no rows (they are not counted in Empty
// or OneLabel).
func (e *Driver) PlanPairs(i int, skip []bool) *PairPlan {
	e.Work.last, e.Work.lastDesign = nil, nil // a new node's tasks may reuse old addresses
	s := e.Data.Rows
	n, k := s.N, s.K
	pl := &PairPlan{Node: i, Ref: -1, byValue: make([][]int32, k)}
	for m := 0; m < s.Count; m++ {
		if s.Weights != nil && s.Weights[m] == 0 {
			continue
		}
		a := s.States[m*n+i]
		pl.byValue[a] = append(pl.byValue[a], int32(m))
	}
	for alpha := 0; alpha < k; alpha++ {
		for beta := alpha + 1; beta < k; beta++ {
			if skip != nil && (skip[alpha] || skip[beta]) {
				continue
			}
			na, nb := len(pl.byValue[alpha]), len(pl.byValue[beta])
			switch {
			case na+nb == 0:
				pl.Empty++
			case na == 0:
				pl.OneLabel = append(pl.OneLabel, [2]int{alpha*k + beta, -1})
			case nb == 0:
				pl.OneLabel = append(pl.OneLabel, [2]int{alpha*k + beta, 1})
			default:
				pl.Pairs = append(pl.Pairs, [2]int{alpha, beta})
			}
		}
	}
	return pl
}

// PlanReferencePairs returns node i's plan with only the value pairs that
// hold its reference value r, the value (of those not in skip) with the
// largest total row weight (the smallest such value on a tie): the k'−1
// pairs (min(r, β), max(r, β)) for every other value β with rows, in
// increasing β, where PlanPairs has k'(k'−1)/2 pairs. Each log-odds
// between two values α, β is then the difference of their log-odds against
// r. Empty and OneLabel count as in PlanPairs over those pairs; Ref is r
// (−1 when no value has rows).
func (e *Driver) PlanReferencePairs(i int, skip []bool) *PairPlan {
	pl := e.PlanPairs(i, skip)
	s := e.Data.Rows
	k := s.K
	ref, best := -1, 0.0
	for a := 0; a < k; a++ {
		if skip != nil && skip[a] || len(pl.byValue[a]) == 0 {
			continue
		}
		w := 0.0
		for _, m := range pl.byValue[a] {
			w += s.Weight(int(m))
		}
		if ref < 0 || w > best {
			ref, best = a, w
		}
	}
	pl.Ref = ref
	pl.Pairs, pl.Empty, pl.OneLabel = pl.Pairs[:0], 0, nil
	if ref < 0 {
		return pl
	}
	for b := 0; b < k; b++ {
		if b == ref || skip != nil && skip[b] {
			continue
		}
		if len(pl.byValue[b]) == 0 {
			// The reference has rows: the pair has one label, that of r.
			lo, hi, sign := min(ref, b), max(ref, b), 1
			if ref > b {
				sign = -1
			}
			pl.OneLabel = append(pl.OneLabel, [2]int{lo*k + hi, sign})
			continue
		}
		pl.Pairs = append(pl.Pairs, [2]int{min(ref, b), max(ref, b)})
	}
	return pl
}

// Task builds the regression of the plan's value pair p: its labels,
// weights, rows and design (gathered codes with the fast backend).
func (e *Driver) Task(pl *PairPlan, p int) Task {
	s := e.Data.Rows
	i, alpha, beta := pl.Node, pl.Pairs[p][0], pl.Pairs[p][1]
	t := Task{Bias: i, Alpha: alpha, Beta: beta}
	var z []uint8
	z, t.Y, t.C, t.Rows = gatherRows(s, pl.byValue[alpha], pl.byValue[beta], e.Data.gc == nil)
	if e.Data.gc == nil {
		t.OneHot = &solve.OneHot{Z: z, Groups: s.N, K: s.K, Bias: i}
		t.X = *t.OneHot
	}
	// With codes, the design is gathered when the pair is fitted (Design),
	// on the worker's scratch.
	return t
}

// PairTasks returns node i's regressions of Algorithm 2 (equation (8)), one
// for every value pair α < β of z_i with rows of both values, all built at
// once (the width search needs them together; PlanPairs and Task build them
// one at a time), and counts the pairs without rows (empty) and with rows
// of one value only (oneLabel lists them, α*k+β, with the sign of the
// label they have).
func (e *Driver) PairTasks(i int) (tasks []Task, empty int, oneLabel [][2]int) {
	pl := e.PlanPairs(i, nil)
	for p := range pl.Pairs {
		tasks = append(tasks, e.Task(pl, p))
	}
	return tasks, pl.Empty, pl.OneLabel
}

// Design returns the design of task t: t.X, or, for a value pair on coded
// rows, the coded design gathered on the worker's scratch. It stays valid
// until Design is called for another task, or PairTasks for another node.
func (e *Driver) Design(t *Task) Design {
	if t.X != nil {
		return t.X
	}
	w := e.Work
	if w.last == t {
		return w.lastDesign
	}
	w.codes = e.Data.gc.gatherRows(w.codes[:0], t.Rows)
	cd := newCodedDesign(e.Data.gc, w.codes, t.Bias, false, w.f, w.full)
	cd.scores = e.Data.scores
	w.f, w.full = cd.f, cd.full
	cd.bsums = &w.bsums
	if e.Data.team != nil {
		cd.split(e.Data.team, &w.hist)
	}
	w.last, w.lastDesign = t, cd
	return cd
}

// Fit is the driver: it solves task t with row weights c (nil for 1; t.C
// for the task's own weights, a fold's training weights otherwise) at the
// radius, from the warm start w, into w, and returns how the solve ended.
// Every regression of the learners runs here: the constrained problems of
// the paper on the backend, and the unconstrained refits (t.Each, radius
// +Inf) by Newton's method.
func (e *Driver) Fit(ctx context.Context, t *Task, c []float64, radius float64, w []float64) (solve.Stats, error) {
	st, err := e.fit(ctx, t, c, radius, w)
	return solve.Ended(ctx, st, err), err
}

// fit is Fit without the Status.
func (e *Driver) fit(ctx context.Context, t *Task, c []float64, radius float64, w []float64) (solve.Stats, error) {
	if e.Data.wide() && (math.IsInf(radius, 1) || t.Rows != nil || !e.Backend.Fast) {
		return solve.Stats{}, ErrWide
	}
	if t.Each != nil && math.IsInf(radius, 1) {
		return e.mle(ctx, t, w)
	}
	if !e.Backend.Fast {
		if e.Ridge != 0 {
			return solve.Stats{}, errors.New("pairwise: a ridge term needs the Accelerated backend")
		}
		if t.Spins != nil {
			return e.Backend.Spins.Solve(ctx, &solve.Problem[solve.Spins]{X: *t.Spins, Y: t.Y, C: c, Radius: radius, Settings: e.Settings}, w)
		}
		return e.Backend.OneHot.Solve(ctx, &solve.Problem[solve.OneHot]{X: *t.OneHot, Y: t.Y, C: c, Radius: radius, Settings: e.Settings}, w)
	}
	if err := ctx.Err(); err != nil {
		return solve.Stats{}, err
	}
	total := WeightSum(c, len(t.Y))
	if total == 0 {
		// No data: L ≡ 0, and 0 is the natural solution.
		clear(w)
		return solve.Stats{Converged: true}, nil
	}
	wk := e.Work
	cw := wk.cw[:0]
	for m := range t.Y {
		v := 1.0
		if c != nil {
			v = c[m]
		}
		cw = append(cw, v/total)
	}
	wk.cw = cw
	n := e.Data.Rows.N
	x := e.Design(t)
	p := &Regression{X: x, Y: t.Y, CW: cw, Radius: radius, Tol: e.Tol, MaxIter: e.MaxIter, Trace: float64(n),
		Ridge: e.Ridge / total, Free: t.Bias}
	var pre solve.Stats
	cd, coded := x.(*codedDesign)
	switch {
	case coded && cd.spins && e.Data.screens() && t.Rows == nil && !math.IsInf(radius, 1):
		// An Ising node among many variables: solved on working sets,
		// certified on all of them (screen.go).
		return e.fitScreened(ctx, t, cd, p, w)
	case coded && cd.spins && e.Data.ising && !e.Data.zero && sameSlice(c, t.C) && e.Ridge == 0:
		// An Ising node on its own weights: the moments describe its
		// design. They precondition the conjugate gradients of the face
		// steps (faceNewton) of warm starts too, which without them ran
		// up to faceMaxCG products (the default fit of the psych files,
		// N = 1000 and 2500: 7.9% fewer instructions); from a cold
		// start, majorise–minimise steps in their metric start it.
		p.cov, p.mean = e.Data.moments()
		p.covN, p.bias = n, t.Bias
		if isZero(w) {
			pre.Iterations = isingMM(ctx, p, cd, w, wk)
		}
	case coded && !cd.spins && cd.scores == nil && e.Data.newton && !e.NoNewton:
		// The coordinates each row selects, in increasing order: (j, z_j)
		// for j ≠ i and (i, 0) for the bias.
		k := e.Data.Rows.K
		act := wk.act[:0]
		s := e.Data.Rows
		for _, m := range t.Rows {
			for j, a := range s.States[int(m)*n : int(m+1)*n] {
				if j == t.Bias {
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
	p.MaxIter -= pre.Iterations // the start's steps count against WithMaxIterations
	st, err := FISTA(ctx, p, w, &wk.ws)
	st.Iterations += pre.Iterations
	return st, err
}

// gatherRows builds the design of the value pair whose rows are rowsA
// (label +1) and rowsB (label -1), in sample order: the states (when
// withStates), the labels, the weights (nil for unweighted samples) and the
// sample row of each design row.
func gatherRows(s *Rows, rowsA, rowsB []int32, withStates bool) (z []uint8, y, c []float64, rows []int32) {
	total := len(rowsA) + len(rowsB)
	var cb []float64
	if s.Weights != nil {
		cb = make([]float64, 0, total)
	}
	return gatherRowsInto(s, rowsA, rowsB, withStates, make([]float64, 0, total), cb, make([]int32, 0, total))
}

// gatherRowsInto is gatherRows appending the labels, weights and rows to
// yb, cb and rb (cb nil for unweighted samples), and returning the
// appended parts, capped so that later appends to the buffers leave them
// alone: a node's value pairs share three allocations.
func gatherRowsInto(s *Rows, rowsA, rowsB []int32, withStates bool, yb, cb []float64, rb []int32) (z []uint8, y, c []float64, rows []int32) {
	n := s.N
	if withStates {
		z = make([]uint8, 0, (len(rowsA)+len(rowsB))*n)
	}
	y0, c0, r0 := len(yb), len(cb), len(rb)
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
			z = append(z, s.States[int(m)*n:int(m+1)*n]...)
		}
		yb = append(yb, label)
		rb = append(rb, m)
		if cb != nil {
			cb = append(cb, s.Weights[m])
		}
	}
	y, rows = yb[y0:len(yb):len(yb)], rb[r0:len(rb):len(rb)]
	if cb != nil {
		c = cb[c0:len(cb):len(cb)]
	}
	return z, y, c, rows
}

// Pool hands out worker scratch; its zero value is ready to use.
type Pool struct{ p sync.Pool }

// Get returns a worker's scratch, reused when one is free.
func (wp *Pool) Get() *Work {
	if w, ok := wp.p.Get().(*Work); ok {
		return w
	}
	return new(Work)
}

// Put returns w for reuse by a later Get.
func (wp *Pool) Put(w *Work) { wp.p.Put(w) }

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

// WeightSum returns Σ c (rows when c is nil).
func WeightSum(c []float64, rows int) float64 {
	if c == nil {
		return float64(rows)
	}
	s := 0.0
	for _, v := range c {
		s += v
	}
	return s
}

// encodeSpins returns the ±1 matrix of the rows (k = 2): the plain Spins
// layout of the Ising path; a missing spin (state 2, Rows) is 0.
func encodeSpins(r *Rows) []float64 {
	x := make([]float64, r.Count*r.N)
	for m, v := range r.States[:r.Count*r.N] {
		x[m] = SpinValue(v)
	}
	return x
}

// SpinValue returns the spin of a stored binary state v: −1 for state 0,
// +1 for state 1, and 0 for a missing spin (state 2, AvailableCase).
func SpinValue(v uint8) float64 {
	switch v {
	case 0:
		return -1
	case 1:
		return 1
	}
	return 0
}

// spinLabel returns the label of state v: its spin, and +1 for a missing
// spin, whose row weighs 0 in the node's regression.
func spinLabel(v uint8) float64 {
	if v == 0 {
		return -1
	}
	return 1
}
