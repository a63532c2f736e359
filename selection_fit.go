package pairwise

import (
	"context"
	"fmt"
	"math"

	"github.com/mrfkit/pairwise/solve"
)

// The selecting solvers. When λ or η is missing, prepare routes the
// learners' regressions through them (selector.selectDefaults): the learners
// keep building the estimates from the solutions, while the selection, the
// fits on merged rows and the edge test run here, node by node, on the
// learners' worker goroutines.

// selectingSpins is the Ising path's solver while a selector runs: node i's
// regression is fitted at the selected width and its edge test prepared.
type selectingSpins struct {
	sel   *selector
	inner solve.Solver[solve.Spins]
}

// Solve implements solve.Solver. It reads only the node (p.X.Bias), the
// radius, the tolerance and the iteration cap of p: the data are the
// selector's.
func (s selectingSpins) Solve(ctx context.Context, p *solve.Problem[solve.Spins], w []float64) (solve.Stats, error) {
	sel := s.sel
	n := sel.s.n
	i := p.X.Bias
	if i < 0 || i >= n || p.X.Cols != n || len(w) != n {
		return solve.Stats{}, fmt.Errorf("pairwise: selecting solver: problem for node %d with %d columns, want a node of %d", i, p.X.Cols, n)
	}
	d := sel.data(sel.fastSpins)
	work := sel.getWork()
	defer sel.work.Put(work)
	e := &engine{fast: sel.fastSpins, spins: s.inner, tol: p.Tol, maxIter: p.MaxIter, vars: n, work: work}
	task := spinTask(d, i, work, sel.team)
	ns := &sel.nodes[i]
	radius := p.Radius
	iters := 0
	if sel.spec != nil {
		res, err := runPath(ctx, e, sel.spec, d.folds, []pathTask{task}, 2, 1, math.Log(float64(max(n-1, 1))), d.s.total)
		if err != nil {
			return solve.Stats{}, err
		}
		ns.lambda, ns.curve, iters = res.lambda, res.curve, res.iters
		radius = 2 * res.lambda
		copy(w, res.warm[0])
	}
	st, err := e.fit(ctx, &task, task.c, radius, w)
	st.Iterations += iters
	if err != nil {
		return st, err
	}
	if sel.wantEta {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		ns.d, ns.se = waldSpins(d.s, &task, w, work.ws.rows(len(task.y))[0])
	}
	return st, nil
}

// spinTask returns node i's regression of Algorithm 1 on the selector's
// samples, with its labels and table scratch in work and, when team is
// not nil, its passes over the rows split on team.
func spinTask(d *selData, i int, work *selWork, team *rowTeam) pathTask {
	s := d.s
	n := s.n
	y := work.y[:0]
	for m := 0; m < s.rows; m++ {
		y = append(y, float64(2*int(s.b8[m*n+i])-1))
	}
	work.y = y
	t := pathTask{bias: i, c: s.weights, y: y}
	if d.gc != nil {
		cd := newCodedDesign(d.gc, d.gc.codes, i, true, work.f, work.full)
		work.f, work.full = cd.f, cd.full
		if team != nil {
			cd.split(team, &work.hist)
		}
		t.x = cd
	} else {
		t.spins = &solve.Spins{X: d.spins, Cols: n, Bias: i}
		t.x = *t.spins
	}
	return t
}

// selectingOneHot is the pairwise path's solver while a selector runs. The
// first call for node i fits all of node i's value pairs together (the
// width is chosen for the node, and the edge test needs every pair); every
// call then returns its pair's solution.
type selectingOneHot struct {
	sel   *selector
	inner solve.Solver[solve.OneHot]
}

// Solve implements solve.Solver. It reads the node (p.X.Bias), the value
// pair (the states of z_i in the rows labelled +1 and -1), the radius, the
// tolerance and the iteration cap of p: the data are the selector's.
func (s selectingOneHot) Solve(ctx context.Context, p *solve.Problem[solve.OneHot], w []float64) (solve.Stats, error) {
	sel := s.sel
	n, k := sel.s.n, sel.s.k
	i := p.X.Bias
	if i < 0 || i >= n || p.X.Groups != n || p.X.K != k || len(w) != n*k {
		return solve.Stats{}, fmt.Errorf("pairwise: selecting solver: problem for node %d with %d groups of %d, want a node of %d groups of %d", i, p.X.Groups, p.X.K, n, k)
	}
	ns := &sel.nodes[i]
	sel.once[i].Do(func() {
		work := sel.getWork()
		defer sel.work.Put(work)
		e := &engine{fast: sel.fastOneHot, oneHot: s.inner, tol: p.Tol, maxIter: p.MaxIter, vars: n, work: work}
		ns.err = sel.fitOneHotNode(ctx, e, i, p.Radius)
	})
	if ns.err != nil {
		return solve.Stats{}, ns.err
	}
	alpha, beta := -1, -1
	for m, y := range p.Y {
		v := int(p.X.Z[m*n+i])
		if y > 0 && alpha < 0 {
			alpha = v
		} else if y < 0 && beta < 0 {
			beta = v
		}
		if alpha >= 0 && beta >= 0 {
			break
		}
	}
	ps, ok := ns.pairs[alpha*k+beta]
	if alpha < 0 || beta < 0 || !ok {
		return solve.Stats{}, fmt.Errorf("pairwise: selecting solver: node %d: no value pair (%d, %d) with both labels", i, alpha, beta)
	}
	copy(w, ps.w)
	return ps.st, nil
}

// fitOneHotNode fits every value pair of node i with both labels, at the
// selected width (or the given radius) and, when η is to be selected,
// prepares the edge test.
func (sel *selector) fitOneHotNode(ctx context.Context, e *engine, i int, radius float64) error {
	d := sel.data(e.fast)
	s := d.s
	n, k := s.n, s.k
	ns := &sel.nodes[i]
	byValue := make([][]int32, k)
	for m := 0; m < s.rows; m++ {
		if s.weights != nil && s.weights[m] == 0 {
			continue
		}
		a := s.b8[m*n+i]
		byValue[a] = append(byValue[a], int32(m))
	}
	var f []float64 // the table kernels' scratch, shared by the pairs
	var full *[maxCodedTables]float64
	var tasks []pathTask
	for alpha := 0; alpha < k; alpha++ {
		for beta := alpha + 1; beta < k; beta++ {
			if len(byValue[alpha]) == 0 || len(byValue[beta]) == 0 {
				continue
			}
			t := pathTask{bias: i, alpha: alpha, beta: beta}
			var z []uint8
			z, t.y, t.c, t.rows = gatherRows(s, byValue[alpha], byValue[beta], d.gc == nil)
			if d.gc != nil {
				cd := newCodedDesign(d.gc, d.gc.gatherRows(nil, t.rows), i, false, f, full)
				f, full = cd.f, cd.full
				t.x = cd
			} else {
				t.oneHot = &solve.OneHot{Z: z, Groups: n, K: k, Bias: i}
				t.x = *t.oneHot
			}
			tasks = append(tasks, t)
		}
	}
	warm := make([][]float64, len(tasks))
	iters := 0
	if sel.spec != nil && len(tasks) > 0 {
		dim := float64(max(n-1, 1) * (k - 1))
		res, err := runPath(ctx, e, sel.spec, d.folds, tasks, 2*math.Sqrt(float64(k)), float64(k-1), math.Log(dim), s.total)
		if err != nil {
			return err
		}
		ns.lambda, ns.curve, iters, warm = res.lambda, res.curve, res.iters, res.warm
		radius = 2 * res.lambda * math.Sqrt(float64(k))
	} else if sel.spec != nil {
		ns.lambda = placeholderWidth
	}
	ns.pairs = make(map[int]pairSolution, len(tasks))
	ws := make([][]float64, len(tasks))
	for t := range tasks {
		w := make([]float64, n*k)
		if warm[t] != nil {
			copy(w, warm[t])
		}
		st, err := e.fit(ctx, &tasks[t], tasks[t].c, radius, w)
		if t == 0 {
			st.Iterations += iters
		}
		if err != nil {
			return fmt.Errorf("pairwise: node %d, values (%d, %d): %w", i, tasks[t].alpha, tasks[t].beta, err)
		}
		ns.pairs[tasks[t].alpha*k+tasks[t].beta] = pairSolution{w: w, st: st}
		ws[t] = w
	}
	if sel.wantEta {
		if err := ctx.Err(); err != nil {
			return err
		}
		ns.d, ns.se = waldOneHot(s, i, tasks, ws)
	}
	return nil
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
