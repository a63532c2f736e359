package engine

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/mrfkit/pairwise/solve"
)

// The fast path of the learners. With the default backend (Accelerated)
// the learners
//
//   - merge identical rows into weights once, before any regression
//     (Samples.Compact), when that saves rows;
//   - encode the samples once as group codes (groupCodes) and run every
//     regression on the table kernels of codedDesign;
//   - solve with fista, the Adaptive schedule with buffers reused across the
//     regressions of a worker, so that nothing is allocated per iteration;
//   - on the pairwise path, start the regression of a value pair (α, β),
//     α ≥ 1, from w^{0,β} − w^{0,α}: the log-odds of α against β is the
//     difference of those of 0 against β and 0 against α, so this is the
//     population solution whenever the constraint is not active, and a
//     close start otherwise;
//   - on the pairwise path with few variables, take Newton steps first
//     (newton): the optimum is usually inside the l2,1 ball there;
//   - near the optimum, let fista take Newton steps on the face of the
//     constraint ball (faceNewton), which close the duality gap in one or
//     two steps where first-order steps need tens; on the Ising path their
//     conjugate gradients are preconditioned by the spins' second moment,
//     computed once for all nodes through gonum's blas64 (spinMoments).
//
// The certificate is the same: every regression stops when the duality gap
// proves L(ŵ) − L* ≤ WithTolerance. Results do not depend on WithWorkers.
// With any other backend (the Paper or AdaptiveMirror schedules, or a
// caller's solver) the learners use the plain layouts of package solve on
// the rows as given, in their order.

// normalisedWeights returns ĉ_m = c_m / Σc for the listed rows (all rows
// when rows is nil), into dst.
func normalisedWeights(dst []float64, s *Rows, rows []int32) []float64 {
	dst = dst[:0]
	if rows == nil {
		if s.Weights == nil {
			for range s.Count {
				dst = append(dst, 1)
			}
		} else {
			dst = append(dst, s.Weights...)
		}
	} else {
		for _, m := range rows {
			if s.Weights == nil {
				dst = append(dst, 1)
			} else {
				dst = append(dst, s.Weights[m])
			}
		}
	}
	total := 0.0
	for _, c := range dst {
		total += c
	}
	for m := range dst {
		dst[m] /= total
	}
	return dst
}

// spinMoments returns the second moment Σ_m ĉ_m z_m z_mᵀ (n×n, row-major,
// both triangles) and the means Σ_m ĉ_m z_m of the spins z = 2s − 1, the
// preconditioner data of the face steps. The second moment is a rank-k
// update, computed through gonum's blas64 (Dsyrk) on blocks of rows scaled by
// √ĉ_m, so a caller who installs a faster BLAS with blas64.Use gets its
// speed here.
func spinMoments(s *Rows, cw []float64) (cov, mean []float64) {
	n := s.N
	const block = 512
	buf := make([]float64, block*n)
	c := blas64.Symmetric{N: n, Stride: n, Data: make([]float64, n*n), Uplo: blas.Upper}
	mean = make([]float64, n)
	for lo := 0; lo < s.Count; lo += block {
		hi := min(lo+block, s.Count)
		for m := lo; m < hi; m++ {
			sc := math.Sqrt(cw[m])
			row := buf[(m-lo)*n : (m-lo+1)*n]
			for j, v := range s.States[m*n : (m+1)*n] {
				z := float64(2*int(v) - 1)
				row[j] = sc * z
				mean[j] += cw[m] * z
			}
		}
		a := blas64.General{Rows: hi - lo, Cols: n, Stride: n, Data: buf[:(hi-lo)*n]}
		blas64.Syrk(blas.Trans, 1, a, 1, c)
	}
	for j := 0; j < n; j++ {
		for k := 0; k < j; k++ {
			c.Data[j*n+k] = c.Data[k*n+j]
		}
	}
	return c.Data, mean
}

// momentQP solves, approximately, the n-dimensional problem of a
// majorise–minimise step of node i,
//
//	z = argmin_{‖z‖₁ ≤ R} ⟨g, z − x⟩ + (c/2) (z − x)ᵀ C_i (z − x),
//
// with C_i = Σ ĉ_m x_m x_mᵀ the second moment of node i's design, from the
// shared moments (cov, mean; row and column i of C_i are the means, as the
// bias column is 1), by accelerated projected gradient from x, O(n²) a
// step, to a relative change of 3e-2 or for 40 steps at most: the step
// only has to be good, and the sufficient-decrease test of isingMM keeps
// whatever it gives honest (measured on the 10×10 grid, tighter solves cost
// more in these products than they save in passes over the rows);
// lmax ≥ λ_max(C_i) (momentMax).
// It returns the quadratic form
// (z − x)ᵀ C_i (z − x). ws provides scratch.
func momentQP(z, x, g []float64, c, lmax float64, cov, mean []float64, n, i int, radius float64, ws *FistaWork) float64 {
	need := 5 * n
	if cap(ws.qp) < need {
		ws.qp = make([]float64, need)
	}
	buf := ws.qp[:need]
	zp, yv, hy, tmp, dz := buf[:n], buf[n:2*n], buf[2*n:3*n], buf[3*n:4*n], buf[4*n:5*n]
	mul := func(dst, v []float64) { momentMul(dst, v, cov, mean, n, i) }
	copy(z, x)
	if lmax == 0 {
		return 0
	}
	step := 1 / (c * lmax)
	copy(zp, z)
	t := 1.0
	for range 40 {
		tn := (1 + math.Sqrt(1+4*t*t)) / 2
		beta := (t - 1) / tn
		for j := range yv {
			yv[j] = z[j] + beta*(z[j]-zp[j])
			dz[j] = yv[j] - x[j]
		}
		mul(hy, dz)
		copy(zp, z)
		for j := range z {
			z[j] = yv[j] - step*(g[j]+c*hy[j])
		}
		ProjectBall(z, 1, radius, tmp)
		change, size := 0.0, 0.0
		for j := range z {
			change = max(change, math.Abs(z[j]-zp[j]))
			size = max(size, math.Abs(z[j]-x[j]))
		}
		t = tn
		if change <= 3e-2*size {
			break
		}
	}
	for j := range dz {
		dz[j] = z[j] - x[j]
	}
	mul(hy, dz)
	return Dot(dz, hy)
}

// momentMax returns an upper bound on λ_max(C_i) (see momentQP): 1.5
// times the estimate of 15 steps of power iteration, which approaches
// λ_max from below within a few percent for these matrices.
func momentMax(cov, mean []float64, n, i int, tmp, hy []float64) float64 {
	for j := range tmp {
		tmp[j] = 1
	}
	lmax := 0.0
	for range 15 {
		momentMul(hy, tmp, cov, mean, n, i)
		nrm := math.Sqrt(Dot(hy, hy))
		if nrm == 0 {
			return 0
		}
		lmax = nrm / math.Sqrt(Dot(tmp, tmp))
		for j := range tmp {
			tmp[j] = hy[j] / nrm
		}
	}
	return 1.5 * lmax
}

// momentMul sets dst = C_i v (see momentQP).
func momentMul(dst, v, cov, mean []float64, n, i int) {
	for j := 0; j < n; j++ {
		s := 0.0
		if j != i {
			row := cov[j*n : (j+1)*n]
			for k, vk := range v {
				s += row[k] * vk
			}
			s += (mean[j] - row[i]) * v[i]
		} else {
			for k, vk := range v {
				s += mean[k] * vk
			}
			s += (1 - mean[i]) * v[i]
		}
		dst[j] = s
	}
}

// Tuning of isingMM.
const (
	// mmGap hands the problem over to fista (and its face steps) once the
	// certificate is below it.
	mmGap = 1e-4
	// mmSteps caps the majorise–minimise steps.
	mmSteps = 12
)

// isingMM runs majorise–minimise steps on node i's problem p from w = 0
// until the duality gap is below mmGap: each minimises over the ball the
// quadratic model ⟨∇L(x), z − x⟩ + (c/2)(z − x)ᵀ C_i (z − x) (momentQP)
// and keeps z when the sufficient-decrease test L(z) ≤ L(x) + ⟨∇L(x), z − x⟩
// + (c/2)(z − x)ᵀ C_i (z − x) holds, which it does for c = 1/4 (Böhning's
// bound: σ′ ≤ 1/4, so the model majorises L). The first step, from 0,
// needs no pass over the rows: every σ′ is 1/4 there, ∇L(0) = −½ Σ ĉ y x
// comes from the moments, and the step is Newton's. Later steps try a
// smaller c, the curvature the data have, as the backtracking of fista
// does; with the metric C_i the steps follow the correlations of the
// spins, which first-order steps must find out one iteration at a time.
// It returns the steps taken; w is feasible and no worse than 0.
func isingMM(ctx context.Context, p *Regression, d *codedDesign, w []float64, nw *Work) int {
	n, i := p.covN, p.bias
	rows := len(p.Y)
	nw.nt.grow(n, rows, &nw.ws)
	g, z := nw.nt.g, nw.nt.wt
	u, uz, res, sig := nw.nt.u, nw.nt.un, nw.nt.res, nw.nt.sig
	for j := 0; j < n; j++ { // ∇L(0)
		if j == i {
			g[j] = -0.5 * p.mean[i]
		} else {
			g[j] = -0.5 * p.cov[i*n+j]
		}
	}
	lmax := momentMax(p.cov, p.mean, n, i, z, w) // z and w as scratch
	clear(w)
	q := momentQP(z, w, g, 0.25, lmax, p.cov, p.mean, n, i, p.Radius, &nw.ws)
	if !(Dot(g, z)+q/8 < 0) { // no decrease of the majoriser: stay at 0
		return 0
	}
	copy(w, z)
	d.Margins(u, w)
	c := 0.25
	steps := 1
	for ; steps < min(mmSteps, p.MaxIter) && ctx.Err() == nil; steps++ {
		d.residualGradient(g, res, sig, u, p.Y, p.CW)
		if solve.Gap(g, w, 1, p.Radius) <= mmGap {
			break
		}
		c = max(c*0.5, 1e-3)
		for {
			q := momentQP(z, w, g, c, lmax, p.cov, p.mean, n, i, p.Radius, &nw.ws)
			thr := 0.5 * c * q
			// The model's decrease; the approximate QP may miss it, and
			// then fista carries on from w.
			model := thr
			for j := range z {
				model += g[j] * (z[j] - w[j])
			}
			if !(model < 0) {
				return steps
			}
			hi, ratio := d.marginsBound(uz, z, u, sig, p.Y, p.CW)
			if c >= 0.25 || hi <= thr || (hi <= thr*ratio && d.bregman(uz, u, sig, p.Y, p.CW) <= thr) {
				break
			}
			c = min(2*c, 0.25)
		}
		copy(w, z)
		u, uz = uz, u
	}
	return steps
}
