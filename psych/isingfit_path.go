package psych

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/mrfkit/pairwise/solve"
)

// The penalised path of IsingFit's node regressions. IsingFit (0.4) fits
// each item's logistic regression on the other items with glmnet's
// defaults and keeps the penalty of lowest EBIC; this file does the same
// with its own coordinate descent, as a solve.Solver for the Ising path
// (pairwise.WithSpinSolver), so that the root's learner, symmetrisation
// and Result serve it unchanged. The settings below are glmnet's defaults
// (glmnet 4.1, glmnet.control), which IsingFit does not change.
const (
	// pathLength is glmnet's nlambda.
	pathLength = 100
	// pathRatioFew and pathRatioMany are glmnet's lambda.min.ratio: the
	// last penalty of the path as a fraction of the first, 0.01 when
	// there are fewer rows than predictors, 1e-4 otherwise.
	pathRatioFew, pathRatioMany = 0.01, 1e-4
	// pathMinPoints, pathDevStep and pathDevMax are glmnet's rule to
	// end the path early (mnlam, fdev, devmax): from the fifth penalty
	// on, the path stops after a penalty whose fraction of deviance
	// explained grew by less than pathDevStep over the previous one, or
	// exceeds pathDevMax.
	pathMinPoints = 5
	pathDevStep   = 1e-5
	pathDevMax    = 0.999
	// pathMinProb is glmnet's pmin: fitted probabilities are clamped to
	// [pathMinProb, 1 − pathMinProb] in the deviance of the stopping rule,
	// and a linear predictor beyond ±logit(1 − pathMinProb) counts as a
	// probability of exactly 0 or 1.
	pathMinProb = 1e-9
	// pathTol is glmnet's convergence threshold (thresh): coordinate
	// descent at one penalty stops when a sweep changes no coefficient by
	// more than pathTol times the null deviance, a change measured
	// weighted by its curvature (Σ_m v_m x̃_mj² (Δβ_j)², the intercept's
	// by Σ_m v_m), and the Newton steps stop when a whole step moved no
	// coefficient by more than that.
	pathTol = 1e-7
	// pathMaxSweeps caps the sweeps of coordinate descent at one penalty,
	// and pathMaxNewton its Newton (IRLS) steps.
	pathMaxSweeps = 10000
	pathMaxNewton = 100
)

// errIsingFitOneHot is returned for k > 2: IsingFit is for binary items.
var errIsingFitOneHot = errors.New("psych: IsingFit's rule is for binary items (k = 2); R's IsingFit refuses other data too")

// isingFitOneHot refuses the regressions of Algorithm 2 (k > 2).
func isingFitOneHot(context.Context, *solve.Problem[solve.OneHot], []float64) (solve.Stats, error) {
	return solve.Stats{}, errIsingFitOneHot
}

// isingFitPath is the Solver of node i's regression under IsingFit's rule
// with EBIC parameter gamma. It ignores the problem's radius and the
// starting point: it fits the node's penalised path and leaves in w the
// path's fit of lowest EBIC, on the spins' scale of the Ising path (w_j =
// β_j/2 for a neighbour j, the bias so that the linear predictor is the
// one on 0/1 answers).
type isingFitPath struct {
	gamma float64
}

// Solve fits the path of node p.X.Bias. Rows of zero weight are left out;
// any other entry of the design than ±1 (a missing answer) is an error, as
// IsingFit refuses missing data. Stats.Iterations counts the sweeps of
// coordinate descent, Stats.Loss is the problem's loss L(w) at the chosen
// fit, and Stats.Gap is NaN: the fit is the penalised one IsingFit
// chooses, not the constrained minimiser, so there is no certificate;
// Stats.Converged says that every penalty of the path converged.
func (f isingFitPath) Solve(ctx context.Context, p *solve.Problem[solve.Spins], w []float64) (solve.Stats, error) {
	if !(f.gamma >= 0) || math.IsInf(f.gamma, 1) {
		return solve.Stats{}, fmt.Errorf("psych: IsingFit: γ = %v: want a finite γ ≥ 0", f.gamma)
	}
	x := p.X
	n, rows, node := x.Cols, x.Len(), x.Bias
	if node < 0 || node >= n || len(w) != n || len(p.Y) != rows {
		return solve.Stats{}, errors.New("psych: IsingFit: the problem is not a node of the Ising path")
	}
	weight := func(m int) float64 {
		if p.C == nil {
			return 1
		}
		return p.C[m]
	}
	// The rows that count, and each variable's count of ones (spin +1).
	var use []int
	total := 0.0
	ones := make([]float64, n)
	for m := 0; m < rows; m++ {
		c := weight(m)
		if c == 0 {
			continue
		}
		use = append(use, m)
		total += c
		for j := 0; j < n; j++ {
			v := x.X[m*n+j]
			if j == node {
				v = p.Y[m]
			}
			switch v {
			case 1:
				ones[j] += c
			case -1:
			default:
				return solve.Stats{}, fmt.Errorf("psych: IsingFit: variable %d has a missing answer (IsingFit needs complete rows: drop the incomplete ones, pairwise.ListwiseDeletion)", j)
			}
		}
	}
	clear(w)
	if total == 0 {
		return solve.Stats{Converged: true, Gap: math.NaN()}, nil
	}
	// IsingFit leaves out the items whose rarer answer has at most one
	// row: they are not predictors of the others, and have no
	// regression of their own.
	kept := func(j int) bool { return math.Min(ones[j], total-ones[j]) > 1 }
	var cols []int
	for j := 0; j < n; j++ {
		if j != node && kept(j) {
			cols = append(cols, j)
		}
	}
	q0 := ones[node] / total
	if !kept(node) || len(cols) == 0 {
		w[node] = logit(q0)
		return solve.Stats{Converged: true, Loss: spinLoss(p, w), Gap: math.NaN()}, nil
	}
	fit := newNodePath(x.X, n, p.Y, use, weight, total, cols)
	best, st, err := fit.run(ctx, f.gamma)
	if err != nil {
		return st, err
	}
	// From the standardised coefficients to 0/1 answers (β_j = β̃_j/s_j,
	// intercept b0 − Σ β_j μ_j), then to spins (x_j = (s_j + 1)/2).
	b0 := best.b0
	for c, j := range cols {
		beta := best.beta[c] / fit.sd[c]
		b0 -= beta * fit.mean[c]
		w[j] = beta / 2
	}
	bias := b0
	for _, j := range cols {
		bias += w[j]
	}
	w[node] = bias
	st.Loss = spinLoss(p, w)
	st.Gap = math.NaN()
	return st, nil
}

// logit returns log(q/(1−q)) with q clamped as glmnet clamps probabilities.
func logit(q float64) float64 {
	q = math.Min(math.Max(q, pathMinProb), 1-pathMinProb)
	return math.Log(q / (1 - q))
}

// spinLoss returns the problem's loss L(w) = Σ c_m ln(1 + exp(−y_m⟨w, x_m⟩)) / Σ c_m.
func spinLoss(p *solve.Problem[solve.Spins], w []float64) float64 {
	mg := make([]float64, len(p.Y))
	p.X.Margins(mg, w)
	s, t := 0.0, 0.0
	for m, y := range p.Y {
		c := 1.0
		if p.C != nil {
			c = p.C[m]
		}
		if c == 0 {
			continue
		}
		z := -y * mg[m]
		s += c * softplus(z)
		t += c
	}
	return s / t
}

// softplus returns ln(1 + e^z) without overflow.
func softplus(z float64) float64 {
	if z > 0 {
		return z + math.Log1p(math.Exp(-z))
	}
	return math.Log1p(math.Exp(z))
}

// nodePath is one node's penalised logistic regression on the
// standardised 0/1 answers of its predictors, as glmnet sets it up: row
// weights normalised to sum to one, each predictor centred and scaled to
// unit weighted variance (population variance, divisor Σ weights), the
// intercept unpenalised, the penalty λ Σ_j |β̃_j| on the standardised
// coefficients.
type nodePath struct {
	rows, p    int
	x          []float64 // p×rows, column-major: x[c*rows + m] is x̃_m,cols[c]
	y, wt      []float64 // the 0/1 answers of the node and the normalised weights
	mean, sd   []float64 // of each predictor's 0/1 answers
	total      float64   // Σ weights: IsingFit's N (the number of rows)
	nullDev    float64   // −Σ wt (y log q0 + (1−y) log(1−q0))
	q0, lamMax float64

	// The state of the descent, warm-started along the path.
	beta      []float64
	b0        float64
	eta, v, r []float64 // linear predictor, IRLS weights, weighted residuals
	vx        []float64 // p×rows like x: v_m x̃_mj at the Newton step
	xv        []float64 // Σ_m v_m x̃_mj²
	active    []bool
	sweeps    int
	converged bool
}

// pathPoint is the fit at one penalty.
type pathPoint struct {
	lambda float64
	b0     float64
	beta   []float64
}

func newNodePath(spins []float64, n int, y []float64, use []int, weight func(int) float64, total float64, cols []int) *nodePath {
	rows, p := len(use), len(cols)
	f := &nodePath{rows: rows, p: p, total: total, converged: true,
		x: make([]float64, p*rows), y: make([]float64, rows), wt: make([]float64, rows),
		mean: make([]float64, p), sd: make([]float64, p),
		beta: make([]float64, p), eta: make([]float64, rows), v: make([]float64, rows),
		r: make([]float64, rows), vx: make([]float64, p*rows), xv: make([]float64, p), active: make([]bool, p)}
	for k, m := range use {
		f.wt[k] = weight(m) / total
		f.y[k] = (y[m] + 1) / 2
	}
	for c, j := range cols {
		col := f.x[c*rows : (c+1)*rows]
		mu := 0.0
		for k, m := range use {
			col[k] = (spins[m*n+j] + 1) / 2
			mu += f.wt[k] * col[k]
		}
		s2 := 0.0
		for k := range col {
			d := col[k] - mu
			s2 += f.wt[k] * d * d
		}
		sd := math.Sqrt(s2)
		for k := range col {
			col[k] = (col[k] - mu) / sd
		}
		f.mean[c], f.sd[c] = mu, sd
	}
	for k := range f.y {
		f.q0 += f.wt[k] * f.y[k]
	}
	f.b0 = math.Log(f.q0 / (1 - f.q0))
	f.nullDev = -(f.q0*math.Log(f.q0) + (1-f.q0)*math.Log(1-f.q0))
	// λ_max: the smallest penalty with every coefficient zero, the
	// largest |∂/∂β̃_j| of the loss at the intercept-only fit.
	for c := 0; c < p; c++ {
		g := 0.0
		col := f.x[c*rows : (c+1)*rows]
		for k := range col {
			g += f.wt[k] * (f.y[k] - f.q0) * col[k]
		}
		f.lamMax = math.Max(f.lamMax, math.Abs(g))
	}
	f.predict()
	return f
}

// run fits the path and returns its point of lowest EBIC (the first on a
// tie, as R's which.min), with the sweeps and convergence in the Stats.
func (f *nodePath) run(ctx context.Context, gamma float64) (pathPoint, solve.Stats, error) {
	ratio := pathRatioMany
	if f.total < float64(f.p) {
		ratio = pathRatioFew
	}
	step := math.Pow(ratio, 1/float64(pathLength-1))
	// EBIC = −2 log-likelihood + J log N + 2γ J log(p), with p the number
	// of predictors (IsingFit's nvar − 1) and N the rows.
	perEdge := math.Log(f.total) + 2*gamma*math.Log(float64(f.p))
	var best pathPoint
	bestEBIC := math.Inf(1)
	prevRatio := 0.0
	lambda := f.lamMax
	for m := 0; m < pathLength; m++ {
		if err := ctx.Err(); err != nil {
			return best, solve.Stats{Iterations: f.sweeps}, err
		}
		if m > 0 {
			// The first point is the intercept-only fit, as glmnet's
			// (fitted at a huge penalty, reported at λ_max); solving
			// at λ_max itself could let a coefficient through by
			// rounding.
			lambda *= step
			f.solve(lambda)
		}
		ll, dev, nz := f.logLik()
		if ebic := -2*ll + float64(nz)*perEdge; ebic < bestEBIC {
			bestEBIC = ebic
			best = pathPoint{lambda: lambda, b0: f.b0, beta: append(best.beta[:0], f.beta...)}
		}
		devRatio := (f.nullDev - dev) / f.nullDev
		if m+1 >= pathMinPoints && (devRatio-prevRatio < pathDevStep || devRatio > pathDevMax) {
			break
		}
		prevRatio = devRatio
	}
	return best, solve.Stats{Iterations: f.sweeps, Converged: f.converged}, nil
}

// logLik returns the log-likelihood of the current fit summed over the
// rows (IsingFit's sum of log P over the N rows, here Σ weights·N), its
// deviance on glmnet's scale with probabilities clamped (for the stopping
// rule), and the number of nonzero coefficients.
func (f *nodePath) logLik() (ll, dev float64, nonzero int) {
	for k := 0; k < f.rows; k++ {
		e := f.eta[k]
		ll += f.wt[k] * (f.y[k]*e - softplus(e))
		q := math.Min(math.Max(1/(1+math.Exp(-e)), pathMinProb), 1-pathMinProb)
		dev -= f.wt[k] * (f.y[k]*math.Log(q) + (1-f.y[k])*math.Log(1-q))
	}
	for _, b := range f.beta {
		if b != 0 {
			nonzero++
		}
	}
	return ll * f.total, dev, nonzero
}

// solve minimises Σ wt·(log-loss) + λ Σ|β̃_j| from the current state by
// Newton (IRLS) steps, each solved by coordinate descent: sweeps over all
// coordinates, and between them over the active ones, until a sweep over
// all changes no coordinate by more than the threshold (pathTol times the
// null deviance, curvature-weighted), then a new Newton step until the
// step itself is that small.
func (f *nodePath) solve(lambda float64) {
	thr := pathTol * f.nullDev
	f.predict()
	for it := 0; it < pathMaxNewton; it++ {
		f.irlsWeights()
		vsum := floats.Sum(f.v)
		if vsum <= (1+pathMinProb)*pathMinProb*(1-pathMinProb) {
			return // glmnet's stop: the fit is (numerically) saturated
		}
		for c := 0; c < f.p; c++ {
			col, vx := f.col(c), f.vx[c*f.rows:(c+1)*f.rows]
			floats.MulTo(vx, f.v, col)
			f.xv[c] = floats.Dot(vx, col)
		}
		moved := 0.0 // the Newton step's size, curvature-weighted
		for sweep := 0; ; sweep++ {
			if sweep >= pathMaxSweeps {
				f.converged = false
				break
			}
			full := f.sweep(lambda, false, vsum)
			moved = math.Max(moved, full)
			if full < thr {
				break
			}
			for inner := 0; inner < pathMaxSweeps; inner++ {
				d := f.sweep(lambda, true, vsum)
				moved = math.Max(moved, d)
				if d < thr {
					break
				}
			}
		}
		f.predict()
		if moved < thr {
			return
		}
	}
	f.converged = false
}

// col returns predictor c's standardised column.
func (f *nodePath) col(c int) []float64 { return f.x[c*f.rows : (c+1)*f.rows] }

// sweep updates every coordinate (or only the active ones) once, then the
// intercept, keeping the weighted residuals r of the quadratic model up to
// date, and returns the largest curvature-weighted squared change.
func (f *nodePath) sweep(lambda float64, activeOnly bool, vsum float64) float64 {
	f.sweeps++
	dlx := 0.0
	for c := 0; c < f.p; c++ {
		if activeOnly && !f.active[c] {
			continue
		}
		old := f.beta[c]
		g := floats.Dot(f.r, f.col(c)) + f.xv[c]*old
		nb := 0.0
		if g > lambda {
			nb = (g - lambda) / f.xv[c]
		} else if g < -lambda {
			nb = (g + lambda) / f.xv[c]
		}
		if nb == old {
			continue
		}
		d := nb - old
		f.beta[c] = nb
		if nb != 0 {
			f.active[c] = true
		}
		floats.AddScaled(f.r, -d, f.vx[c*f.rows:(c+1)*f.rows])
		dlx = math.Max(dlx, f.xv[c]*d*d)
	}
	d := floats.Sum(f.r) / vsum
	f.b0 += d
	floats.AddScaled(f.r, -d, f.v)
	return math.Max(dlx, vsum*d*d)
}

// predict sets the linear predictor from the coefficients.
func (f *nodePath) predict() {
	for k := range f.eta {
		f.eta[k] = f.b0
	}
	for c, b := range f.beta {
		if b != 0 {
			floats.AddScaled(f.eta, b, f.col(c))
		}
	}
}

// irlsWeights sets the Newton step's weights v = wt·q(1−q) and weighted
// residuals r = wt·(y − q) at the current linear predictor, with glmnet's
// clamping of extreme predictors to probabilities 0 and 1.
func (f *nodePath) irlsWeights() {
	lim := math.Log(1/pathMinProb - 1)
	for k, e := range f.eta {
		var q float64
		switch {
		case e < -lim:
			q = 0
		case e > lim:
			q = 1
		default:
			q = 1 / (1 + math.Exp(-e))
		}
		f.v[k] = f.wt[k] * q * (1 - q)
		f.r[k] = f.wt[k] * (f.y[k] - q)
	}
}
