package selection

import (
	"context"
	"math"
	"math/bits"

	"gonum.org/v1/gonum/mat"
)

// A certificate for step 4 of the EBIC graph (ebic_graph.go) that needs no
// refit on G_U's neighbourhoods.
//
// Step 4 keeps G_W unless BIC(G_U) < BIC(G_W), that is unless the nodes'
// deviance reductions, devW_i − devU_i ≥ 0, add up to more than the
// penalty of G_U's extra pairs, 2·|G_U \ G_W|·ln N. The reductions come
// from unconstrained refits on G_U's neighbourhoods, and at large N the
// EBIC fits keep many weak couplings (on a 4-regular model at N = 10⁶,
// about 40 neighbours a node in G_U, against 4 in G_W): each refit is a
// Newton method whose every pass sums a Fisher information over all rows,
// more than the fits themselves cost. Yet the extra pairs carry no more
// evidence than chance, and a bound on each reduction from one cheap pass
// at the refit on G_W suffices to show that G_W stands. When it cannot,
// the refits run as before; when it can, the refits would have kept G_W
// too, so the learned graph is the same either way.
//
// The bound. Let L be node i's loss on G_U's neighbourhood (the mean of
// ln(1 + e^{−y u}) over the rows, u = w·x, x = (1, x_nbU)), w0 the refit on
// G_W extended by zeros, g and H the gradient and Hessian of L at w0. The
// logistic loss's curvature changes slowly: σ'(u + s) ≥ σ'(u)·e^{−|s|},
// so along any step v that moves no row's margin by more than δ,
//
//	L(w0 + v) ≥ L(w0) + gᵀv + β(δ)·vᵀHv,   β(δ) = (e^{−δ} + δ − 1)/δ²
//
// (β(0) = 1/2, and β falls as δ grows). A step of ‖v‖_H = ρ moves a row's
// margin by at most ρ·κ, κ² any bound on xᵀH⁻¹x over the rows: here the
// smaller of Σ_jl |(H⁻¹)_jl| (every x a vector of ±1) and (p)/λ_min(H), p
// the dimension. With γ = ‖g‖_{H⁻¹} and t = ρκ, on the sphere ‖v‖_H = ρ
// the bound above is at least ρ·(ρβ(t) − γ) > 0 as soon as t·β(t) > γκ;
// t·β(t) rises from 0 towards 1, so such a t exists when γκ < 1, and the
// smallest is found by bisection. L being convex and larger on that sphere
// than at its centre, its minimum lies inside, where L ≥ L(w0) −
// γ²/(4β(t)). Hence, N the total weight and devW = 2N·L(w0),
//
//	devW − devU ≤ N·γ²/(2β(t)),
//
// N·γ² being the score statistic of the extra spins. At large N, γ is of
// order √(d/N) and the bound a small multiple of the score statistic, far
// below ln N a coefficient.
//
// The pass. g and H need the rows' weights σ(u)σ(−u) and residuals at w0,
// which depend on each row's spins of G_W only, and then sums of them over
// the rows where a spin (or the product of two) is +1 or −1. On bit samples
// (Data.Bits) these are read 64 rows at a time: each weight and residual
// goes into tables of their sums over every subset of 8 rows, and a spin's
// (or a product's, an XOR of two words) sum over 64 rows is eight lookups.
// One pass costs about 4·d² lookups a block of 64 rows, d = |nbU|, where
// one Newton pass of the refit costs d²/2 products a row.

// reductionBound returns an upper bound on devW − devU, the deviance
// reduction of node i's unconstrained refit when its spins nbW (the
// neighbours in G_W) grow to nbU ⊇ nbW (in G_U), both increasing, from one
// pass over the bit samples of s at the refit on nbW (see above). ok is
// false when s has no bit samples or has missing values, when the refit on
// nbW has no estimate, when H is singular or when γκ ≥ 1: the caller then
// refits. Once ctx is done it returns ok false.
func reductionBound(ctx context.Context, s *Data, i int, nbW, nbU []int) (float64, bool) {
	if !s.bitsOnly() || s.Incomplete || len(nbW) >= len(nbU) || !(s.Total > 0) {
		return 0, false
	}
	wW, _, ok := refitMLE(ctx, s, i, nbW, nbW)
	if !ok {
		return 0, false
	}
	// w0 in G_U's coordinates: the intercept, then nbU in order.
	p := len(nbU) + 1
	w0 := make([]float64, p)
	w0[0] = wW[0]
	a := 0
	for b, j := range nbU {
		if a < len(nbW) && nbW[a] == j {
			w0[b+1] = wW[a+1]
			a++
		}
	}
	if a != len(nbW) {
		return 0, false // nbW ⊄ nbU
	}
	g, h, ok := bitDerivatives(ctx, s, i, nbU, w0)
	if !ok {
		return 0, false
	}
	gamma2, kappa2, ok := scoreNorms(g, h)
	if !ok {
		return 0, false
	}
	t, ok := curvatureRadius(math.Sqrt(gamma2 * kappa2))
	if !ok {
		return 0, false
	}
	return s.Total * gamma2 / (2 * curvatureFactor(t)), true
}

// curvatureFactor returns β(t) = (e^{−t} + t − 1)/t², the least factor of
// the quadratic term over a step that moves no margin by more than t.
func curvatureFactor(t float64) float64 {
	if t < 1e-4 {
		return 0.5 - t/6 + t*t/24
	}
	return (math.Expm1(-t) + t) / (t * t)
}

// curvatureRadius returns the least t (within 1e-12 relative, rounded up)
// with t·β(t) > q, false when q ≥ 1 (t·β(t) < 1 for every t) or q is not
// finite.
func curvatureRadius(q float64) (float64, bool) {
	if !(q >= 0 && q < 1) {
		return 0, false
	}
	if q == 0 {
		return 0, true // g = 0: L(w0) is the minimum
	}
	above := func(t float64) bool { return t*curvatureFactor(t) > q }
	hi := 1.0
	for !above(hi) {
		hi *= 2
		if hi > 1e15 {
			return 0, false
		}
	}
	lo := 0.0
	for it := 0; it < 200 && hi-lo > 1e-12*hi; it++ {
		mid := (lo + hi) / 2
		if above(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, true
}

// scoreNorms returns γ² = gᵀH⁻¹g and κ², a bound on xᵀH⁻¹x over every x of
// ±1 entries: the smaller of Σ_jl |(H⁻¹)_jl| and p/λ_min(H). ok is false
// when H is not positive definite.
func scoreNorms(g []float64, h *mat.SymDense) (gamma2, kappa2 float64, ok bool) {
	p := len(g)
	var chol mat.Cholesky
	if !chol.Factorize(h) {
		return 0, 0, false
	}
	var inv mat.SymDense
	if err := chol.InverseTo(&inv); err != nil {
		return 0, 0, false
	}
	gv := mat.NewVecDense(p, g)
	gamma2 = mat.Inner(gv, &inv, gv)
	sum := 0.0
	for r := 0; r < p; r++ {
		for c := 0; c < p; c++ {
			sum += math.Abs(inv.At(r, c))
		}
	}
	kappa2 = sum
	var eig mat.EigenSym
	if eig.Factorize(h, false) {
		if lmin := eig.Values(nil)[0]; lmin > 0 {
			kappa2 = min(kappa2, float64(p)/lmin)
		}
	}
	if !(gamma2 >= 0) || !(kappa2 > 0) || math.IsInf(kappa2, 1) {
		return 0, 0, false
	}
	return gamma2, kappa2, true
}

// bitDerivatives returns the gradient g and the Hessian h (upper triangle
// set) at w of node i's loss on the spins nb, per unit of weight, in the
// coordinates (1, x_nb): g = Σ ĉ r x, r = −y σ(−y u), and H = Σ ĉ σ(u)σ(−u)
// x xᵀ, ĉ = c/N, read from the bit samples of s 64 rows at a time through
// tables of subset sums (see above). Only the spins where w is nonzero (and
// the intercept) enter u. ok is false once ctx is done.
func bitDerivatives(ctx context.Context, s *Data, i int, nb []int, w []float64) (g []float64, h *mat.SymDense, ok bool) {
	p := len(nb) + 1
	var act []int // the coordinates of nb with w ≠ 0
	for b := range nb {
		if w[b+1] != 0 {
			act = append(act, b)
		}
	}
	g = make([]float64, p)
	h = mat.NewSymDense(p, nil)
	hs := h.RawSymmetric().Data // the upper triangle, stride p
	words := make([]uint64, len(nb))
	var av, rv [64]float64
	var at, rt [8][256]float64
	sum := func(t *[8][256]float64, x uint64) float64 {
		return t[0][x&255] + t[1][x>>8&255] + t[2][x>>16&255] + t[3][x>>24&255] +
			t[4][x>>32&255] + t[5][x>>40&255] + t[6][x>>48&255] + t[7][x>>56]
	}
	total := s.Total
	ok = s.eachBitBlock(i, nb, words, func(m0, rows int, y uint64) bool {
		if m0%(1<<16) == 0 && ctx.Err() != nil {
			return false
		}
		atot, rtot := 0.0, 0.0
		av, rv = [64]float64{}, [64]float64{} // 0 past the last row
		for r := range rows {
			c := 1.0
			if s.Weights != nil {
				c = s.Weights[m0+r]
			}
			if c == 0 {
				continue
			}
			u := w[0]
			for _, b := range act {
				if words[b]>>r&1 == 1 {
					u += w[b+1]
				} else {
					u -= w[b+1]
				}
			}
			// σ(u) and σ(−u) from one exponential of −|u|.
			e := math.Exp(-math.Abs(u))
			sp, sm := 1/(1+e), e/(1+e)
			if u < 0 {
				sp, sm = sm, sp
			}
			cw := c / total
			av[r] = cw * sp * sm
			if y>>r&1 == 1 {
				rv[r] = -cw * sm
			} else {
				rv[r] = cw * sp
			}
			atot += av[r]
			rtot += rv[r]
		}
		for k := 0; k < 8; k++ {
			ak, rk := &at[k], &rt[k]
			for v := 1; v < 256; v++ {
				low := 8*k + bits.TrailingZeros8(uint8(v))
				ak[v] = ak[v&(v-1)] + av[low]
				rk[v] = rk[v&(v-1)] + rv[low]
			}
		}
		g[0] += rtot
		hs[0] += atot
		for b, wb := range words {
			// Σ over x_b = +1 minus Σ over x_b = −1: 2·Σ_{+1} − Σ.
			g[b+1] += 2*sum(&rt, wb) - rtot
			hs[b+1] += 2*sum(&at, wb) - atot
			row := hs[(b+1)*p:]
			row[b+1] += atot
			for c := b + 1; c < len(words); c++ {
				// x_b·x_c = −1 where the bits differ.
				row[c+1] += atot - 2*sum(&at, wb^words[c])
			}
		}
		return true
	})
	if !ok {
		return nil, nil, false
	}
	return g, h, true
}
