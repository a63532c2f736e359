package selection

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/solve"
)

// Folds is the cross-validation split of the samples: the weight of every row
// in each fold's training set and held-out set (train[f][m] + held[f][m] is
// the weight of row m).
type Folds struct {
	k           int
	Train, Held [][]float64
}

// MakeFolds splits s into k folds as CrossValidation documents: row m in fold
// m mod k, or, when every weight is a whole number, observation t (counting
// through the rows' counts in order) in fold t mod k.
func MakeFolds(s *Data, k int) (*Folds, error) {
	f := &Folds{k: k, Train: make([][]float64, k), Held: make([][]float64, k)}
	for x := range f.Train {
		f.Train[x] = make([]float64, s.Count)
		f.Held[x] = make([]float64, s.Count)
	}
	counts := s.Weights != nil
	for _, c := range s.Weights {
		if c != math.Trunc(c) || c > 1<<52 {
			counts = false
			break
		}
	}
	observations := 0.0
	switch {
	case s.Weights == nil:
		observations = float64(s.Count)
		for m := 0; m < s.Count; m++ {
			for x := 0; x < k; x++ {
				f.Train[x][m] = 1
			}
			f.Train[m%k][m], f.Held[m%k][m] = 0, 1
		}
	case counts:
		t := 0 // observations before this row, mod k
		for m, c := range s.Weights {
			q, r := math.Floor(c/float64(k)), int(math.Mod(c, float64(k)))
			for x := 0; x < k; x++ {
				h := q
				if (x-t+k)%k < r {
					h++
				}
				f.Held[x][m], f.Train[x][m] = h, c-h
			}
			t = (t + r) % k
			observations += c
		}
	default:
		positive := 0
		for m, c := range s.Weights {
			for x := 0; x < k; x++ {
				f.Train[x][m] = c
			}
			f.Train[m%k][m], f.Held[m%k][m] = 0, c
			if c > 0 {
				positive++
			}
		}
		observations = float64(positive)
	}
	if observations < float64(k) {
		return nil, fmt.Errorf("%v observations, fewer than the %d folds", observations, k)
	}
	return f, nil
}

// Merge returns the folds of the merged rows: row m of the original samples
// became row into[m].
func (f *Folds) Merge(into []int32, rows int) *Folds {
	g := &Folds{k: f.k, Train: make([][]float64, f.k), Held: make([][]float64, f.k)}
	for x := range g.Train {
		g.Train[x] = make([]float64, rows)
		g.Held[x] = make([]float64, rows)
		for m, r := range into {
			g.Train[x][r] += f.Train[x][m]
			g.Held[x][r] += f.Held[x][m]
		}
	}
	return g
}

// foldWeights returns the training and held-out weights of the task's
// design rows in fold f. A row the task leaves out (zero weight in t.C, a
// node's missing value under AvailableCase) weighs 0 in both.
func foldWeights(t *engine.Task, fo *Folds, f int) (train, held []float64) {
	if t.Rows == nil {
		train, held = fo.Train[f], fo.Held[f]
		for m, c := range t.C {
			if c == 0 && (train[m] != 0 || held[m] != 0) {
				train, held = append([]float64(nil), train...), append([]float64(nil), held...)
				for m, c := range t.C {
					if c == 0 {
						train[m], held[m] = 0, 0
					}
				}
				break
			}
		}
		return train, held
	}
	train = make([]float64, len(t.Rows))
	held = make([]float64, len(t.Rows))
	for r, m := range t.Rows {
		train[r], held[r] = fo.Train[f][m], fo.Held[f][m]
	}
	return train, held
}

// pathResult is the outcome of a node's selection.
type pathResult struct {
	Lambda float64
	Curve  Curve
	Warm   [][]float64 // per task, the start of the final fit
	Iters  int
}

// Search settings.
const (
	// startWidth is where the search starts: the grid width closest to it
	// in ratio. Node widths of the paper's models are 0.2 to 3.2.
	startWidth = 0.4
	// bindingSlack: a solution with ‖w‖ ≥ (1 - bindingSlack)·R is on the
	// boundary of the constraint. Below it, the constraint does not bind,
	// larger radii give the same solution, and the search stops growing.
	bindingSlack = 1e-6
	// ascentStep is the number of grid steps between the widths the
	// upward search visits once the first step up (two grid steps) has
	// improved on the start. The last width visited upward is the one
	// that fails to improve, and it is the costliest fit of the path (the
	// widest ball, the most nonzeros); stepping one grid width makes it
	// the best width's upper neighbour, which the search visits anyway,
	// instead of a width twice the best. On the default grid that is √2
	// instead of 2 (issue 33: at n = 1,000 on a 4-regular model, widths
	// 2.26 and 3.2 were visited by 40% of the nodes and chosen by none,
	// and took 41% of the path's time).
	ascentStep = 1
)

// pathTolerance returns the duality-gap tolerance of the fits along the path
// when it is looser than WithTolerance, but never more than 100 times looser
// (the final fit at the chosen width always uses WithTolerance). For EBIC, a loss within ε of the optimum moves
// the criterion 2N·L by at most 2Nε; ε = 0.25/N keeps that below half a nat,
// far below the penalty of one coefficient, ln N + 2γ ln d ≥ ln N. For
// cross-validation, 1e-5 moves the held-out loss per sample by about
// |∇|·√(2ε/μ) ≲ 1e-4, below the differences between grid widths (see
// TestCrossValidationScore for the scale). Loosening from 1e-6 saves about a
// fifth of the path's iterations.
func pathTolerance(sp *Spec, total float64) float64 {
	if sp.EBIC {
		return 0.25 / total
	}
	return 1e-5
}

// RunPath chooses a width from sp's grid for one node's tasks. Every
// candidate costs one fit per task and fold (EBIC: per task on all samples),
// warm-started from the solutions at the nearest smaller width already
// tried (projected onto the ball when the nearest is larger). The search
// starts at the grid width nearest startWidth and steps two grid widths up;
// while that improves, it goes on upward one grid width at a time
// (ascentStep) while the criterion improves and the constraint binds;
// if the first step up does not improve, it goes downward every other grid
// width while the criterion improves; then it visits the two neighbours of
// the best width.
//
// perWidth is the radius of a unit width (2 for l1, 2√k for l2,1);
// dfPerGroup and logD are EBIC's count per nonzero group and ln d; total is
// N, the total sample weight.
func RunPath(ctx context.Context, e *engine.Driver, sp *Spec, fo *Folds, tasks []engine.Task, perWidth, dfPerGroup, logD, total float64) (pathResult, error) {
	var res pathResult
	widths := sp.Widths
	saved, newton := e.Tol, e.NoNewton
	e.Tol = max(e.Tol, min(pathTolerance(sp, total), 100*e.Tol))
	e.NoNewton = true // see Driver.NoNewton; the final fits take them
	defer func() { e.Tol, e.NoNewton = saved, newton }()
	nf := 1
	if !sp.EBIC {
		nf = fo.k
	}
	train := make([][][]float64, nf)
	held := make([][][]float64, nf)
	for f := range train {
		train[f] = make([][]float64, len(tasks))
		held[f] = make([][]float64, len(tasks))
		for t := range tasks {
			if sp.EBIC {
				train[f][t] = tasks[t].C
			} else {
				train[f][t], held[f][t] = foldWeights(&tasks[t], fo, f)
			}
		}
	}
	type point struct {
		score   float64
		binding bool
		ws      [][][]float64 // [fold][task]
	}
	points := make(map[int]*point)
	byPair := map[[2]int]int{}
	for t := range tasks {
		byPair[[2]int{tasks[t].Alpha, tasks[t].Beta}] = t
	}
	for _, t := range tasks {
		for _, ab := range [][2]int{{0, t.Alpha}, {0, t.Beta}} {
			if _, ok := byPair[ab]; !ok {
				byPair[ab] = -1
			}
		}
	}
	var u []float64
	eval := func(g int) (*point, error) {
		if pt, ok := points[g]; ok {
			return pt, nil
		}
		// The warm start: the nearest smaller width tried, else the
		// nearest larger one; between two tried widths (the neighbours
		// of the best width, visited last), the chord of their
		// solutions (chord).
		from := -1
		for h := range points {
			if h < g {
				if from < 0 || from > g || h > from {
					from = h
				}
			} else if from < 0 || (from > g && h < from) {
				from = h
			}
		}
		above := -1
		for h := range points {
			if h > g && (above < 0 || h < above) {
				above = h
			}
		}
		if from > g {
			above = -1 // nothing tried below g
		}
		pt := &point{ws: make([][][]float64, nf)}
		for f := range pt.ws {
			pt.ws[f] = make([][]float64, len(tasks))
		}
		radius := widths[g] * perWidth
		df := 0.0
		// Task by task, each task's folds together: a value pair's coded
		// design is gathered once for its folds (Driver.Design keeps the
		// last one), not once a fold, which cost 3% of the instructions
		// of cross-validation on a Potts grid (BENCHMARKS.md). Every fit
		// has the same inputs in either order (its warm starts are the
		// folds' own solutions, of earlier widths or earlier tasks); the
		// held-out loss of each fold and task is summed over its rows,
		// and those sums in fold order.
		heldLoss := make([]float64, nf*len(tasks))
		for t := range tasks {
			task := &tasks[t]
			for f := 0; f < nf; f++ {
				w := make([]float64, e.Design(task).Dim())
				if above >= 0 {
					chord(w, points[from].ws[f][t], points[above].ws[f][t], widths[from], widths[g], widths[above])
				} else if from >= 0 {
					copy(w, points[from].ws[f][t])
				}
				// On the pairwise path, w^{0,β} − w^{0,α} at this width
				// is another start for (α, β) (log-odds subtract, as on
				// the learners' fast path); take the better of the two.
				if a, b := byPair[[2]int{0, task.Alpha}], byPair[[2]int{0, task.Beta}]; task.Alpha > 0 && a >= 0 && b >= 0 {
					alt := make([]float64, len(w))
					for x := range alt {
						alt[x] = pt.ws[f][b][x] - pt.ws[f][a][x]
					}
					if from < 0 || startLoss(e.Design(task), task, train[f][t], radius, alt, &u) < startLoss(e.Design(task), task, train[f][t], radius, w, &u) {
						w = alt
					}
				}
				st, err := e.Fit(ctx, task, train[f][t], radius, w)
				res.Iters += st.Iterations
				if err != nil {
					if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
						return nil, ctx.Err()
					}
					return nil, fmt.Errorf("width %g: %w", widths[g], err) // the learner names the node
				}
				pt.ws[f][t] = w
				gs := e.Design(task).GroupSize()
				if solve.Norm(w, gs) >= (1-bindingSlack)*radius {
					pt.binding = true
				}
				if sp.EBIC {
					pt.score += 2 * engine.WeightSum(train[f][t], len(task.Y)) * st.Loss
					for j := 0; j*gs < len(w); j++ {
						if j == task.Bias {
							continue
						}
						for _, v := range w[j*gs : (j+1)*gs] {
							if v != 0 {
								df += dfPerGroup
								break
							}
						}
					}
					continue
				}
				if cap(u) < len(task.Y) {
					u = make([]float64, len(task.Y))
				}
				u = u[:len(task.Y)]
				e.Design(task).Margins(u, w)
				s := 0.0 // pt.score's terms of this fold and task, in row order
				for m, h := range held[f][t] {
					if h != 0 {
						s += h * solve.Softplus(-task.Y[m]*u[m])
					}
				}
				heldLoss[f*len(tasks)+t] = s
			}
		}
		for _, s := range heldLoss { // zero for EBIC
			pt.score += s
		}
		if sp.EBIC {
			pt.score += df * (math.Log(total) + 2*sp.Gamma*logD)
		}
		pt.score /= total
		if math.IsNaN(pt.score) {
			return nil, fmt.Errorf("width %g: the selection criterion is NaN", widths[g])
		}
		points[g] = pt
		return pt, nil
	}
	better := func(a, b int) bool { // a's score beats b's; ties go to the smaller width
		pa, pb := points[a], points[b]
		return pa.score < pb.score || (pa.score == pb.score && a < b)
	}

	start := 0
	for g, w := range widths {
		if math.Abs(math.Log(w/startWidth)) < math.Abs(math.Log(widths[start]/startWidth)) {
			start = g
		}
	}
	pt, err := eval(start)
	if err != nil {
		return res, err
	}
	best := start
	flat := !pt.binding // the constraint does not bind at best: larger widths change nothing
	// Upward: two grid steps from the start, then one at a time while the
	// criterion improves (see ascentStep).
	for g, step := start+2, 2; g < len(widths) && !flat; g += step {
		pt, err := eval(g)
		if err != nil {
			return res, err
		}
		if !better(g, best) {
			break
		}
		best, flat, step = g, !pt.binding, ascentStep
	}
	if best == start {
		for g := start - 2; g >= 0; g -= 2 {
			if _, err := eval(g); err != nil {
				return res, err
			}
			if !better(g, best) {
				break
			}
			best = g
		}
	}
	for _, g := range []int{best - 1, best + 1} {
		if g < 0 || g >= len(widths) || (g > best && !points[best].binding) {
			continue
		}
		if _, err := eval(g); err != nil {
			return res, err
		}
	}
	tried := make([]int, 0, len(points))
	for g := range points {
		tried = append(tried, g)
	}
	sort.Ints(tried)
	for _, g := range tried {
		if better(g, best) {
			best = g
		}
		res.Curve.Widths = append(res.Curve.Widths, widths[g])
		res.Curve.Scores = append(res.Curve.Scores, points[g].score)
	}
	res.Lambda = widths[best]
	res.Warm = make([][]float64, len(tasks))
	for t := range tasks {
		wt := make([]float64, e.Design(&tasks[t]).Dim())
		for f := 0; f < nf; f++ {
			for x, v := range points[best].ws[f][t] {
				wt[x] += v / float64(nf)
			}
		}
		res.Warm[t] = wt
	}
	return res, nil
}

// startLoss scales w into the ball of the radius (as the solvers do with a
// warm start) and returns the task's loss there with row weights c.
func startLoss(x engine.Design, t *engine.Task, c []float64, radius float64, w []float64, u *[]float64) float64 {
	gs := x.GroupSize()
	if nrm := solve.Norm(w, gs); nrm > radius {
		for x := range w {
			w[x] *= radius / nrm
		}
		engine.ProjectBall(w, gs, radius, nil)
	}
	if cap(*u) < len(t.Y) {
		*u = make([]float64, len(t.Y))
	}
	m := (*u)[:len(t.Y)]
	x.Margins(m, w)
	loss, total := 0.0, 0.0
	for r, v := range m {
		cr := 1.0
		if c != nil {
			cr = c[r]
		}
		loss += cr * solve.Softplus(-t.Y[r]*v)
		total += cr
	}
	if total == 0 {
		return 0
	}
	return loss / total
}

// chord sets w to the point of the chord between the solutions wlo and whi
// of the widths lo < hi at width mid, lo < mid < hi:
//
//	w = wlo + s (whi − wlo),   s = (mid − lo)/(hi − lo).
//
// By the convexity of the norm, ‖w‖ ≤ (1 − s)‖wlo‖ + s‖whi‖ ≤ radius(mid):
// w is feasible at mid. Where the solution path is linear in the radius
// between lo and hi (on a fixed support, to first order) it is the solution
// at mid; it starts a neighbour of the best width closer than either end:
// on the psych study's held-out files at N = 2500 (cd study && go run .
// psych), the neighbours' iterations fell from 349 to 226 and the path's
// from 923 to 800 (file of seed 101; 835 to 711 and 851 to 736 on seeds
// 102 and 103).
func chord(w, wlo, whi []float64, lo, mid, hi float64) {
	s := (mid - lo) / (hi - lo)
	for x := range w {
		w[x] = wlo[x] + s*(whi[x]-wlo[x])
	}
}

// Spec is a validated Selection.
type Spec struct {
	Folds  int // K for cross-validation
	EBIC   bool
	Gamma  float64
	Widths []float64 // sorted increasing
}

// Curve is one node's selection path: the widths tried and the criterion.
type Curve struct {
	Widths, Scores []float64
}
