package pairwise

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/internal/estimates"
	"github.com/mrfkit/pairwise/internal/selection"
	"github.com/mrfkit/pairwise/solve"
)

// partialFormat names the JSON layout of a Partial that MarshalJSON
// writes; a reader reads it, partialFormatDense and partialFormatSparse,
// and refuses others. /1 and /2 differ only in the node's estimates: /1
// wrote every block, /2 writes the blocks that differ from a fill
// (sparse). /3 is /2 with the sparse edge test's first pass
// (edgetest_sparse.go: "sparse_test" and each node's "sparse"), written
// by the parts that ran it, so that a reader of /2 refuses them by their
// format rather than by an unknown field; the others are still /2. /4 is
// /3 with the test's floor ("sparse_test"'s "stat_floor"), which rises with n
// (selection.SparseFloorAt); /3 parts were kept at selection.SparseFloor
// and are still read, and merged at that floor. /5 is /4 where every node
// with statistics also holds its n entries ("all_a", "all_se": the first
// pass kept them all, sparseKeepsAll), written by the parts that did, so
// that a reader of /4 refuses them by their format; the others are still
// /4.
const (
	partialFormat          = "pairwise-partial/2"
	partialFormatDense     = "pairwise-partial/1"
	partialFormatSparse    = "pairwise-partial/4"
	partialFormatSparseAll = "pairwise-partial/5"
	partialFormatSparseOld = "pairwise-partial/3"
)

// The JSON form of a Partial. Every float64 is written in its shortest form
// that reads back to the same bits (strconv's 'g', -1), -0 as "-0", and NaN,
// +Inf and -Inf as the strings "NaN", "+Inf" and "-Inf", which JSON numbers
// cannot hold. A node's debiased estimates and standard errors are
// written one block of k² numbers per other node; when every block has the
// form of the Ising path (the estimates [[a, -a], [-a, a]], the standard
// errors [[s, s], [s, s]], bit for bit), "form" gives the signs and one
// number a block is written. A node's estimates are written sparsely:
// "fill" is the block of every node not listed, "at" lists the others
// (increasing, the node itself excepted) and "v" their blocks, with "form"
// as above; "own" is the node's own block when it differs from the fill.
// Format /1 wrote the estimates like the debiased ones, without fill; /2
// still does for a node where that takes fewer numbers.
type partialJSON struct {
	Format    string       `json:"format"`
	Algorithm string       `json:"algorithm"`
	N         int          `json:"n"`
	K         int          `json:"k"`
	Shard     int          `json:"shard"`
	Of        int          `json:"of"`
	Data      string       `json:"data"`
	Names     []string     `json:"names,omitempty"`
	Total     shardFloat   `json:"samples"`
	Rows      int          `json:"rows"`
	Settings  settingsJSON `json:"settings"`
	// ScaleCheck is AutoScale's evidence (Result.ScaleCheck: the
	// association, its linear part and the part the ordinal scale needs)
	// when the data chose the scale of k > 2 states.
	ScaleCheck shardFloats `json:"scale_check,omitempty"`
	// SparseTest holds the settings of the sparse edge test's parts
	// (format /3 only).
	SparseTest *sparseTestJSON `json:"sparse_test,omitempty"`
	Nodes      []nodeJSON      `json:"nodes"`
}

// sparseTestJSON is a sparseSettings: the most spins of the full-model
// test, the engine's row split (the least rows split and the least rows a
// chunk) and the test's floor (format /4; absent in /3).
type sparseTestJSON struct {
	WaldDense  int         `json:"wald_dense"`
	SplitMin   int         `json:"split_min"`
	SplitChunk int         `json:"split_chunk"`
	Floor      *shardFloat `json:"stat_floor,omitempty"`
}

// sideJSON is a sparseSide, what the first pass of the sparse edge test
// kept of a node: the spins kept (increasing) with their estimates Â_ij
// and standard errors, the degrees of freedom (NaN for a node without
// statistics, zero), the node's solution (its nonzero coefficients, the
// bias among them, and where they are), the spins of its least standard
// errors with their lower bounds and the floor of the others (float32
// values, exact in a float64; the floor +Inf when every spin is listed),
// and, when the first pass kept them all (sparseKeepsAll: from 128
// distinct rows a spin; format /5), the node's n entries and standard
// errors ("all_a", "all_se"), so that the merge reads its partner entries
// instead of computing them over the rows: the same bits.
type sideJSON struct {
	Kept  []int32     `json:"kept"`
	A     shardFloats `json:"a"`
	SE    shardFloats `json:"se"`
	DF    shardFloat  `json:"df"`
	Zero  bool        `json:"zero,omitempty"`
	WAt   []int32     `json:"w_at"`
	W     shardFloats `json:"w"`
	LowAt []int32     `json:"low_at"`
	Low   shardFloats `json:"low_se"`
	Floor shardFloat  `json:"floor"`
	AllA  shardFloats `json:"all_a,omitempty"`
	AllSE shardFloats `json:"all_se,omitempty"`
}

// packSide writes s.
func packSide(s *sparseSide) *sideJSON {
	low := make([]float64, len(s.lowB))
	for x, v := range s.lowB {
		low[x] = float64(v)
	}
	return &sideJSON{Kept: s.js, A: s.a, SE: s.sd, DF: shardFloat(s.dof), Zero: s.zero,
		WAt: s.wIdx, W: s.wVal, LowAt: s.lowJs, Low: low, Floor: shardFloat(s.low),
		AllA: s.allA, AllSE: s.allSd}
}

// unpack returns node i's side among n spins that j stands for, or an
// error when it does not fit: spins out of range, order or repeated,
// lengths that differ, bounds that are not float32 values at least 0.
func (j *sideJSON) unpack(i, n int) (*sparseSide, error) {
	spins := func(what string, js []int32, self bool) error {
		for x, v := range js {
			if v < 0 || int(v) >= n || (x > 0 && v <= js[x-1]) || (!self && int(v) == i) {
				return fmt.Errorf("%s: spin %d out of range or order", what, v)
			}
		}
		return nil
	}
	bound := func(v float64) (float32, bool) {
		f := float32(v)
		return f, float64(f) == v && v >= 0
	}
	switch {
	case len(j.A) != len(j.Kept) || len(j.SE) != len(j.Kept):
		return nil, fmt.Errorf("%d spins kept with %d estimates and %d standard errors", len(j.Kept), len(j.A), len(j.SE))
	case len(j.W) != len(j.WAt):
		return nil, fmt.Errorf("%d coefficients at %d places", len(j.W), len(j.WAt))
	case len(j.Low) != len(j.LowAt):
		return nil, fmt.Errorf("%d bounds for %d spins", len(j.Low), len(j.LowAt))
	case (j.AllA != nil || j.AllSE != nil) && (len(j.AllA) != n || len(j.AllSE) != n):
		return nil, fmt.Errorf("%d entries and %d standard errors of all spins, want %d each", len(j.AllA), len(j.AllSE), n)
	}
	for x := range j.AllA {
		// The first pass drops an overflow to 0: finite entries, standard
		// errors at least 0.
		if a, se := float64(j.AllA[x]), float64(j.AllSE[x]); math.IsNaN(a) || math.IsInf(a, 0) || !(se >= 0) || math.IsInf(se, 1) {
			return nil, fmt.Errorf("entry %v with standard error %v of spin %d: want finite, the standard error at least 0", a, se, x)
		}
	}
	for _, e := range []error{spins("kept", j.Kept, false), spins("w_at", j.WAt, true), spins("low_at", j.LowAt, false)} {
		if e != nil {
			return nil, e
		}
	}
	s := &sparseSide{js: j.Kept, a: j.A, sd: j.SE, dof: float64(j.DF), zero: j.Zero, wIdx: j.WAt, wVal: j.W, lowJs: j.LowAt,
		lowB: make([]float32, len(j.Low)), allA: j.AllA, allSd: j.AllSE}
	for x, v := range j.Low {
		f, ok := bound(v)
		if !ok {
			return nil, fmt.Errorf("bound %v of spin %d is not a float32 at least 0", v, j.LowAt[x])
		}
		s.lowB[x] = f
	}
	f, ok := bound(float64(j.Floor))
	if !ok {
		return nil, fmt.Errorf("floor %v is not a float32 at least 0", float64(j.Floor))
	}
	s.low = f
	return s, nil
}

type settingsJSON struct {
	Width          shardFloat     `json:"width"`
	MinEdgeWeight  shardFloat     `json:"min_edge_weight"`
	Radius         shardFloat     `json:"radius"`
	Symmetrization int            `json:"symmetrization"`
	EdgeTest       edgeTestJSON   `json:"edge_test"`
	Selection      *selectionJSON `json:"selection,omitempty"`
	Fit            string         `json:"fit"`
}

type edgeTestJSON struct {
	FalseEdgeRate shardFloat `json:"false_edge_rate"`
	NoRefit       bool       `json:"no_refit,omitempty"`
	NoMixture     bool       `json:"no_mixture,omitempty"`
	NoGap         bool       `json:"no_gap,omitempty"`
	NoEBICGraph   bool       `json:"no_ebic_graph,omitempty"`
}

type selectionJSON struct {
	Rule   string      `json:"rule"` // "EBIC" or "CrossValidation"
	Gamma  shardFloat  `json:"gamma"`
	Folds  int         `json:"folds"`
	Widths shardFloats `json:"widths"` // null for the default grid
}

type nodeJSON struct {
	Node     int         `json:"node"`
	Fields   shardFloats `json:"fields"`
	Est      blocksJSON  `json:"estimates"`
	Fit      fitJSON     `json:"fit"`
	Width    shardFloat  `json:"width"`
	Path     *pathJSON   `json:"path,omitempty"`
	Debiased *blocksJSON `json:"debiased,omitempty"`
	StdErr   *blocksJSON `json:"std_err,omitempty"`
	// DF are the degrees of freedom of the node's statistics, one a value
	// of z_i (the small-sample rule of the edge test).
	DF shardFloats `json:"df,omitempty"`
	// Cov are the covariances of the node's blocks for the grouped
	// statistic of the k-ary edge test, n·(k−1)⁴ numbers
	// (selection.WaldOneHot); absent where it is not computed.
	Cov shardFloats `json:"cov,omitempty"`
	// Mixed is the node's refit in the multinomial model (algorithm
	// "multinomial", selection.MixedFit), which the merge's edge test
	// reads; absent for a node without one.
	Mixed *mixedFitJSON `json:"mixed,omitempty"`
	// Sparse is what the sparse edge test's first pass kept of the node
	// (format /3 only, where every node has it).
	Sparse *sideJSON `json:"sparse,omitempty"`
}

// mixedFitJSON is a selection.MixedFit: its neighbours and their first
// columns, the columns in all, the rows of its couplings and the values
// node i takes, its parameters, the upper triangle of the inverse of its
// information row by row, the rows' weight, degrees of freedom, mean
// log-likelihood and ridge.
type mixedFitJSON struct {
	Cols   []int       `json:"cols"`
	Off    []int       `json:"off"`
	P      int         `json:"p"`
	RDim   int         `json:"rdim"`
	NA     int         `json:"values"`
	Par    shardFloats `json:"par"`
	Inv    shardFloats `json:"inv"`
	Total  shardFloat  `json:"total"`
	DF     shardFloat  `json:"df"`
	MeanLL shardFloat  `json:"mean_ll"`
	Ridge  shardFloat  `json:"ridge"`
}

// packMixed writes f (nil for none).
func packMixed(f *selection.MixedFit) *mixedFitJSON {
	if f == nil {
		return nil
	}
	d := f.Inv.SymmetricDim()
	inv := make([]float64, 0, d*(d+1)/2)
	for x := 0; x < d; x++ {
		for y := x; y < d; y++ {
			inv = append(inv, f.Inv.At(x, y))
		}
	}
	return &mixedFitJSON{Cols: f.Cols, Off: f.Off, P: f.P, RDim: f.RDim, NA: f.NA, Par: f.Par, Inv: inv,
		Total: shardFloat(f.Total), DF: shardFloat(f.DF), MeanLL: shardFloat(f.MeanLL), Ridge: shardFloat(f.Ridge)}
}

// unpack returns node i's refit that m stands for; MergePartials checks
// it against the samples (checkMixedFit).
func (m *mixedFitJSON) unpack(i int) (*selection.MixedFit, error) {
	d := len(m.Par)
	if len(m.Inv) != d*(d+1)/2 {
		return nil, fmt.Errorf("%d entries of the inverse information for %d parameters, want %d", len(m.Inv), d, d*(d+1)/2)
	}
	if d == 0 {
		return nil, fmt.Errorf("no parameter")
	}
	inv := mat.NewSymDense(d, nil)
	x := 0
	for a := 0; a < d; a++ {
		for b := a; b < d; b++ {
			inv.SetSym(a, b, m.Inv[x])
			x++
		}
	}
	return &selection.MixedFit{Node: i, Cols: m.Cols, Off: m.Off, P: m.P, RDim: m.RDim, NA: m.NA, Par: m.Par, Inv: inv,
		Total: float64(m.Total), DF: float64(m.DF), MeanLL: float64(m.MeanLL), Ridge: float64(m.Ridge)}, nil
}

type fitJSON struct {
	Regressions   int        `json:"regressions"`
	Iterations    int        `json:"iterations"`
	Loss          shardFloat `json:"loss"`
	Gap           shardFloat `json:"gap"`
	Converged     bool       `json:"converged"`
	Width         shardFloat `json:"width"`
	EmptyPairs    int        `json:"empty_pairs,omitempty"`
	OneLabelPairs int        `json:"one_label_pairs,omitempty"`
	Constant      bool       `json:"constant,omitempty"`
	Status        int        `json:"status"` // a solve.Status
}

type pathJSON struct {
	Widths shardFloats `json:"widths"`
	Scores shardFloats `json:"criterion"`
}

// blocksJSON is one node's estimates, k² numbers a block: with Form, one
// number v a block stands for the block Form[x]·v (a sign flip, exact).
// With Fill the blocks are sparse (see estimates.Node): V holds those of the
// nodes in At, Own the node's own block when it is not Fill, and every
// other block is Fill.
type blocksJSON struct {
	Form []int8      `json:"form,omitempty"`
	Fill shardFloats `json:"fill,omitempty"`
	At   []int32     `json:"at,omitempty"`
	Own  shardFloats `json:"own,omitempty"`
	V    shardFloats `json:"v"`
}

// packEst writes the estimates e of node own sparsely, the listed blocks
// other than own's with form when every one of them has it bit for bit.
func packEst(e *estimates.Node, form []int8, own int) blocksJSON {
	kk := e.K * e.K
	b := blocksJSON{Fill: shardFloats(e.Fill), At: make([]int32, 0, len(e.At)), V: make([]float64, 0, len(e.V))}
	var buf [4]float64
	for _, j := range e.At {
		blk := e.BlockTo(buf[:0], int(j))
		if int(j) == own {
			b.Own = slices.Clone(blk)
			continue
		}
		b.At = append(b.At, j)
		b.V = append(b.V, blk...)
	}
	if form != nil && len(form) == kk && hasForm(b.V, form, -1) {
		one := make([]float64, len(b.V)/kk)
		for x := range one {
			one[x] = b.V[x*kk]
		}
		b.Form, b.V = form, one
	}
	return b
}

// packEstimates writes the estimates e of node own among n nodes sparsely
// (packEst) or, when that would take more bytes (a node with many nonzero
// coefficients), in full as format /1 did: the full form writes "0," (or
// "-0,") for every unlisted number where the sparse one writes the index
// of every listed block.
func packEstimates(e *estimates.Node, form []int8, own, n int) blocksJSON {
	sp := packEst(e, form, own)
	per := e.K * e.K
	if sp.Form != nil {
		per = 1
	}
	index := 0 // bytes of "at"
	for _, j := range sp.At {
		index += len(strconv.Itoa(int(j))) + 1
	}
	if 3*per*(n-len(sp.At)) > index {
		return sp
	}
	if d := packBlocks(e.Dense(n), form, own); d.Form != nil || sp.Form == nil {
		return d
	}
	return sp
}

// unpackEst returns the estimates of node own among n that b stands for:
// sparse when b has a fill, else dense (format /1), then listed against
// fill.
func (b blocksJSON) unpackEst(own, n, k int, fill []float64) (*estimates.Node, error) {
	kk := k * k
	if b.Fill == nil {
		if b.At != nil || b.Own != nil {
			return nil, fmt.Errorf("at and own need a fill")
		}
		v, err := b.unpack(own)
		if err != nil {
			return nil, err
		}
		if len(v) != n*kk {
			return nil, fmt.Errorf("%d numbers, want %d", len(v), n*kk)
		}
		return estimates.Sparse(k, v, fill), nil
	}
	if len(b.Fill) != kk || (b.Own != nil && len(b.Own) != kk) {
		return nil, fmt.Errorf("fill or own of %d and %d numbers, want %d", len(b.Fill), len(b.Own), kk)
	}
	per := kk
	if b.Form != nil {
		if len(b.Form) != kk {
			return nil, fmt.Errorf("form of %d signs, want %d", len(b.Form), kk)
		}
		per = 1
	}
	if len(b.V) != len(b.At)*per {
		return nil, fmt.Errorf("%d numbers for %d blocks", len(b.V), len(b.At))
	}
	e := estimates.New(k, []float64(b.Fill))
	blk := make([]float64, kk)
	ownDone := b.Own == nil
	for x, j := range b.At {
		switch {
		case j < 0 || int(j) >= n || int(j) == own || (x > 0 && j <= b.At[x-1]):
			return nil, fmt.Errorf("block %d out of range or order", j)
		case !ownDone && int(j) > own:
			e.Push(own, b.Own)
			ownDone = true
		}
		if b.Form == nil {
			copy(blk, b.V[x*kk:(x+1)*kk])
		} else {
			for y, f := range b.Form {
				switch f {
				case 1:
					blk[y] = b.V[x]
				case -1:
					blk[y] = -b.V[x]
				default:
					return nil, fmt.Errorf("form entry %d, want 1 or -1", f)
				}
			}
		}
		e.Push(int(j), blk)
	}
	if !ownDone {
		e.Push(own, b.Own)
	}
	return e, nil
}

// seForm is the form of the standard error of a block of the Ising form
// (estimates.IsingForm).
var seForm = []int8{1, 1, 1, 1}

// packBlocks writes v (blocks of len(form) numbers) with form when every
// block has it bit for bit, in full otherwise. The block of the node
// itself (own) is never written by the learners and is zero: with form it
// must be +0 throughout and is read back so.
func packBlocks(v []float64, form []int8, own int) blocksJSON {
	if form != nil && len(v)%len(form) == 0 && hasForm(v, form, own) {
		one := make([]float64, len(v)/len(form))
		for b := range one {
			one[b] = v[b*len(form)]
		}
		return blocksJSON{Form: form, V: one}
	}
	return blocksJSON{V: v}
}

// hasForm reports whether every block of v is form·v_b bit for bit, block
// own excepted, which must be +0 (own < 0: none).
func hasForm(v []float64, form []int8, own int) bool {
	const sign = 1 << 63
	for b := 0; b < len(v); b += len(form) {
		first := math.Float64bits(v[b])
		for x, f := range form {
			want := first
			switch {
			case b == own*len(form):
				want = 0
			case f < 0:
				want ^= sign
			}
			if math.Float64bits(v[b+x]) != want {
				return false
			}
		}
	}
	return true
}

// unpack returns the numbers b stands for; own is the node's own block.
func (b blocksJSON) unpack(own int) ([]float64, error) {
	if b.Form == nil {
		return b.V, nil
	}
	v := make([]float64, len(b.V)*len(b.Form))
	for x, a := range b.V {
		if x == own {
			continue // +0
		}
		for y, f := range b.Form {
			switch f {
			case 1:
				v[x*len(b.Form)+y] = a
			case -1:
				v[x*len(b.Form)+y] = -a
			default:
				return nil, fmt.Errorf("form entry %d, want 1 or -1", f)
			}
		}
	}
	return v, nil
}

// MarshalJSON encodes the Partial (see the package's sharded learning).
func (p *Partial) MarshalJSON() ([]byte, error) {
	var estForm, seF []int8
	if p.algorithm == "ising" {
		estForm, seF = estimates.IsingForm, seForm
	}
	set := p.set
	w := partialJSON{
		Format:    partialFormat,
		Algorithm: p.algorithm,
		N:         p.n,
		K:         p.k,
		Shard:     p.shard,
		Of:        p.of,
		Data:      p.data,
		Names:     p.names,
		Total:     shardFloat(p.total),
		Rows:      p.rows,
		Settings: settingsJSON{
			Width:          shardFloat(set.width),
			MinEdgeWeight:  shardFloat(set.eta),
			Radius:         shardFloat(set.radius),
			Symmetrization: int(set.symmetric),
			EdgeTest: edgeTestJSON{
				FalseEdgeRate: shardFloat(set.test.FalseEdgeRate),
				NoRefit:       set.test.NoRefit,
				NoMixture:     set.test.NoMixture,
				NoGap:         set.test.NoGap,
				NoEBICGraph:   set.test.NoEBICGraph,
			},
			Fit: set.fit,
		},
		Nodes: make([]nodeJSON, len(p.nodes)),
	}
	switch sel := set.selection.(type) {
	case nil:
	case EBIC:
		w.Settings.Selection = &selectionJSON{Rule: "EBIC", Gamma: shardFloat(sel.Gamma), Widths: sel.Widths}
	case CrossValidation:
		w.Settings.Selection = &selectionJSON{Rule: "CrossValidation", Folds: sel.Folds, Widths: sel.Widths}
	default:
		return nil, fmt.Errorf("pairwise: Partial: unknown selection %v", sel)
	}
	for x, pn := range p.nodes {
		f := pn.fit
		nj := nodeJSON{
			Node:   pn.node,
			Fields: pn.fields,
			Est:    packEstimates(pn.est, estForm, pn.node, p.n),
			Fit: fitJSON{
				Regressions: f.Regressions, Iterations: f.Iterations,
				Loss: shardFloat(f.Loss), Gap: shardFloat(f.Gap), Converged: f.Converged,
				Width: shardFloat(f.Width), EmptyPairs: f.EmptyPairs, OneLabelPairs: f.OneLabelPairs,
				Constant: f.Constant, Status: int(f.Status),
			},
			Width: shardFloat(pn.sel.lambda),
		}
		if c := pn.sel.curve; c.Widths != nil || c.Scores != nil {
			nj.Path = &pathJSON{Widths: c.Widths, Scores: c.Scores}
		}
		if pn.sel.d != nil {
			d, se := packBlocks(pn.sel.d, estForm, pn.node), packBlocks(pn.sel.se, seF, pn.node)
			nj.Debiased, nj.StdErr = &d, &se
			nj.DF = pn.sel.df
			nj.Cov = pn.sel.cov
		}
		nj.Mixed = packMixed(pn.mix)
		if pn.side != nil {
			nj.Sparse = packSide(pn.side)
		}
		w.Nodes[x] = nj
	}
	if sp := set.sparse; sp != nil {
		w.Format = partialFormatSparse
		for _, pn := range p.nodes {
			if pn.side != nil && pn.side.allA != nil {
				w.Format = partialFormatSparseAll
			}
		}
		floor := shardFloat(sp.floor)
		w.SparseTest = &sparseTestJSON{WaldDense: sp.waldDense, SplitMin: sp.split.Min, SplitChunk: sp.split.Chunk, Floor: &floor}
	}
	if c := p.check; c != nil {
		w.ScaleCheck = shardFloats{c.association, c.linear, c.needed}
	}
	return json.Marshal(w)
}

// WritePartial writes p to w as one line of JSON (MarshalJSON), and
// gzip-compressed when compress is true: the file a shard hands to the
// machine that merges, which ReadPartial reads back. It returns the first
// write error of w as w returned it, and MarshalJSON's error for a
// Partial that did not come from LearnShard or ReadPartial.
func (p *Partial) WritePartial(w io.Writer, compress bool) error {
	if !compress {
		return json.NewEncoder(w).Encode(p)
	}
	zw := gzip.NewWriter(w)
	if err := json.NewEncoder(zw).Encode(p); err != nil {
		return err
	}
	return zw.Close()
}

// ReadPartial reads one Partial from r as WritePartial writes it, plain or
// gzip-compressed (recognised by gzip's magic number, whatever the file is
// called). It reads the first JSON value of r and ignores what follows. It
// returns UnmarshalJSON's errors for a document that is not a Partial,
// and an error for empty input ("EOF"), malformed or truncated JSON and a
// corrupt gzip stream, and for a nil r.
func ReadPartial(r io.Reader) (*Partial, error) {
	if r == nil {
		return nil, errors.New("pairwise: ReadPartial: nil reader")
	}
	br := bufio.NewReaderSize(r, 1<<16)
	var in io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("pairwise: ReadPartial: %w", err)
		}
		in = zr
	}
	var raw json.RawMessage
	if err := json.NewDecoder(in).Decode(&raw); err != nil {
		return nil, fmt.Errorf("pairwise: ReadPartial: %w", err)
	}
	p := new(Partial)
	if err := p.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	return p, nil
}

// UnmarshalJSON decodes a Partial written by MarshalJSON. It returns an
// error for another format, for sizes that do not fit n and k, and for
// nodes out of range, repeated or out of order.
func (p *Partial) UnmarshalJSON(data []byte) error {
	var w partialJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return fmt.Errorf("pairwise: Partial: %w", err)
	}
	switch w.Format {
	case partialFormat, partialFormatDense, partialFormatSparse, partialFormatSparseAll, partialFormatSparseOld:
	default:
		return fmt.Errorf("pairwise: Partial: format %q, want %q, or %q or %q for a part of the sparse edge test", w.Format, partialFormat, partialFormatSparse, partialFormatSparseAll)
	}
	sparseTest := w.Format == partialFormatSparse || w.Format == partialFormatSparseAll || w.Format == partialFormatSparseOld
	floored := w.Format == partialFormatSparse || w.Format == partialFormatSparseAll
	if sparseTest != (w.SparseTest != nil) {
		return fmt.Errorf("pairwise: Partial: sparse_test in format %q", w.Format)
	}
	if sparseTest {
		st := w.SparseTest
		if w.Algorithm != "ising" || w.K != 2 || !math.IsNaN(float64(w.Settings.MinEdgeWeight)) {
			return fmt.Errorf("pairwise: Partial: the sparse edge test in a part of algorithm %s, k = %d, η %v, want ising, k = 2, η not given", w.Algorithm, w.K, float64(w.Settings.MinEdgeWeight))
		}
		if st.WaldDense < 0 || st.SplitMin < 1 || st.SplitChunk < 1 {
			return fmt.Errorf("pairwise: Partial: sparse_test %+v out of range", *st)
		}
		switch {
		case w.Format == partialFormatSparseOld && st.Floor != nil:
			return fmt.Errorf("pairwise: Partial: a floor in format %q", w.Format)
		case floored && st.Floor == nil:
			return fmt.Errorf("pairwise: Partial: no floor in sparse_test of format %q", w.Format)
		case floored && (!(float64(*st.Floor) >= selection.SparseFloor) || math.IsInf(float64(*st.Floor), 1)):
			return fmt.Errorf("pairwise: Partial: the sparse edge test's floor %v, want a finite number from %v", float64(*st.Floor), selection.SparseFloor)
		}
	}
	if w.Algorithm != "ising" && w.Algorithm != "pairwise" && w.Algorithm != "ordinal" && w.Algorithm != "multinomial" {
		return fmt.Errorf("pairwise: Partial: algorithm %q, want ising, pairwise, ordinal or multinomial", w.Algorithm)
	}
	// A sparse part with η is bounded as a model is (its merge keeps the
	// estimates sparse); without η, or dense, as the learners bound n.
	// The sparse edge test's parts (/3) are too: their merge keeps no
	// n × n array either.
	sparse := (w.Format == partialFormat && float64(w.Settings.MinEdgeWeight) > 0) || sparseTest
	if w.N < 1 || w.K < 2 || w.K > 256 || float64(w.N)*float64(w.K) > MaxModelEntries ||
		(!sparse && float64(w.N)*float64(w.N)*float64(w.K*w.K) > MaxLearnEntries) {
		return fmt.Errorf("pairwise: Partial: n = %d, k = %d out of range", w.N, w.K)
	}
	n, k := w.N, w.K
	kk := k * k
	sj := w.Settings
	q := Partial{
		algorithm: w.Algorithm, n: n, k: k, shard: w.Shard, of: w.Of, data: w.Data, names: w.Names, total: float64(w.Total), rows: w.Rows,
		set: partialSettings{
			width: float64(sj.Width), eta: float64(sj.MinEdgeWeight), radius: float64(sj.Radius),
			symmetric: Symmetrization(sj.Symmetrization),
			test: WaldTest{
				FalseEdgeRate: float64(sj.EdgeTest.FalseEdgeRate),
				NoRefit:       sj.EdgeTest.NoRefit, NoMixture: sj.EdgeTest.NoMixture, NoGap: sj.EdgeTest.NoGap,
				NoEBICGraph: sj.EdgeTest.NoEBICGraph,
			},
			fit: sj.Fit,
		},
		nodes: make([]partialNode, len(w.Nodes)),
	}
	if st := w.SparseTest; st != nil {
		floor := selection.SparseFloor // format /3
		if st.Floor != nil {
			floor = float64(*st.Floor)
		}
		q.set.sparse = &sparseSettings{waldDense: st.WaldDense, split: engine.Split{Min: st.SplitMin, Chunk: st.SplitChunk}, floor: floor}
	}
	switch len(w.ScaleCheck) {
	case 0:
	case 3:
		if k == 2 {
			return fmt.Errorf("pairwise: Partial: a scale check for k = 2")
		}
		q.check = &scaleCheck{association: w.ScaleCheck[0], linear: w.ScaleCheck[1], needed: w.ScaleCheck[2]}
	default:
		return fmt.Errorf("pairwise: Partial: scale_check has %d numbers, want 3", len(w.ScaleCheck))
	}
	if (w.Algorithm == "ordinal" || w.Algorithm == "multinomial") && k == 2 {
		return fmt.Errorf("pairwise: Partial: the %s model needs k > 2, not k = 2", w.Algorithm)
	}
	if sel := sj.Selection; sel != nil {
		switch sel.Rule {
		case "EBIC":
			q.set.selection = EBIC{Gamma: float64(sel.Gamma), Widths: sel.Widths}
		case "CrossValidation":
			q.set.selection = CrossValidation{Folds: sel.Folds, Widths: sel.Widths}
		default:
			return fmt.Errorf("pairwise: Partial: selection rule %q, want EBIC or CrossValidation", sel.Rule)
		}
	}
	for x, nj := range w.Nodes {
		i := nj.Node
		if i < 0 || i >= n || (x > 0 && i <= w.Nodes[x-1].Node) {
			return fmt.Errorf("pairwise: Partial: node %d out of range or order", i)
		}
		blocks := func(what string, b *blocksJSON) ([]float64, error) {
			v, err := b.unpack(i)
			if err == nil && len(v) != n*kk {
				err = fmt.Errorf("%d numbers, want %d", len(v), n*kk)
			}
			if err != nil {
				return nil, fmt.Errorf("pairwise: Partial: node %d: %s: %v", i, what, err)
			}
			return v, nil
		}
		fill := estimates.ZeroBlock(k)
		if w.Algorithm == "ising" && k == 2 {
			fill = estimates.IsingFill
		}
		est, err := nj.Est.unpackEst(i, n, k, fill)
		if err != nil {
			return fmt.Errorf("pairwise: Partial: node %d: estimates: %v", i, err)
		}
		if len(nj.Fields) != k {
			return fmt.Errorf("pairwise: Partial: node %d: %d fields, want %d", i, len(nj.Fields), k)
		}
		f := nj.Fit
		pn := partialNode{
			node:   i,
			est:    est,
			fields: nj.Fields,
			fit: NodeFit{
				Node: i, Regressions: f.Regressions, Iterations: f.Iterations,
				Loss: float64(f.Loss), Gap: float64(f.Gap), Converged: f.Converged,
				Width: float64(f.Width), EmptyPairs: f.EmptyPairs, OneLabelPairs: f.OneLabelPairs,
				Constant: f.Constant, Status: solve.Status(f.Status),
			},
			sel: nodeSelection{lambda: float64(nj.Width)},
		}
		if nj.Path != nil {
			pn.sel.curve = selection.Curve{Widths: nj.Path.Widths, Scores: nj.Path.Scores}
		}
		if (nj.Debiased == nil) != (nj.StdErr == nil) {
			return fmt.Errorf("pairwise: Partial: node %d: debiased estimates and standard errors go together", i)
		}
		if nj.Debiased != nil {
			if pn.sel.d, err = blocks("debiased", nj.Debiased); err != nil {
				return err
			}
			if pn.sel.se, err = blocks("std_err", nj.StdErr); err != nil {
				return err
			}
			pn.sel.df = nj.DF
			if nj.Cov != nil {
				if r := (q.k - 1) * (q.k - 1); len(nj.Cov) != q.n*r*r {
					return fmt.Errorf("pairwise: Partial: node %d: %d covariances, want %d", i, len(nj.Cov), q.n*r*r)
				}
				pn.sel.cov = nj.Cov
			}
		} else if nj.Cov != nil {
			return fmt.Errorf("pairwise: Partial: node %d: covariances without debiased estimates", i)
		}
		if sparseTest != (nj.Sparse != nil) {
			return fmt.Errorf("pairwise: Partial: node %d: the sparse edge test's first pass goes with format %q and every node of it", i, partialFormatSparse)
		}
		if nj.Sparse != nil {
			if nj.Debiased != nil {
				return fmt.Errorf("pairwise: Partial: node %d: the dense and the sparse edge tests' entries together", i)
			}
			if pn.side, err = nj.Sparse.unpack(i, n); err != nil {
				return fmt.Errorf("pairwise: Partial: node %d: sparse: %v", i, err)
			}
			if all := w.Format == partialFormatSparseAll; !pn.side.zero && (pn.side.allA != nil) != all {
				return fmt.Errorf("pairwise: Partial: node %d: the entries of all spins go with format %q and every node of it with statistics", i, partialFormatSparseAll)
			}
		}
		if nj.Mixed != nil {
			if w.Algorithm != "multinomial" {
				return fmt.Errorf("pairwise: Partial: node %d: a multinomial refit in a part of algorithm %s", i, w.Algorithm)
			}
			if pn.mix, err = nj.Mixed.unpack(i); err != nil {
				return fmt.Errorf("pairwise: Partial: node %d: mixed: %v", i, err)
			}
		}
		q.nodes[x] = pn
	}
	*p = q
	return nil
}

// shardFloat is a float64 that encodes exactly, NaN and ±Inf as strings.
type shardFloat float64

func appendFloat(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, `"NaN"`...)
	case math.IsInf(v, 1):
		return append(b, `"+Inf"`...)
	case math.IsInf(v, -1):
		return append(b, `"-Inf"`...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

func parseFloat(b []byte) (float64, error) {
	switch string(b) {
	case `"NaN"`:
		return math.NaN(), nil
	case `"+Inf"`:
		return math.Inf(1), nil
	case `"-Inf"`:
		return math.Inf(-1), nil
	}
	return strconv.ParseFloat(string(b), 64)
}

func (f shardFloat) MarshalJSON() ([]byte, error) { return appendFloat(nil, float64(f)), nil }

func (f *shardFloat) UnmarshalJSON(b []byte) error {
	v, err := parseFloat(b)
	*f = shardFloat(v)
	return err
}

// shardFloats is a []float64 that encodes exactly (see shardFloat); nil
// encodes as null.
type shardFloats []float64

func (fs shardFloats) MarshalJSON() ([]byte, error) {
	if fs == nil {
		return []byte("null"), nil
	}
	b := make([]byte, 0, 2+len(fs)*8)
	b = append(b, '[')
	for x, v := range fs {
		if x > 0 {
			b = append(b, ',')
		}
		b = appendFloat(b, v)
	}
	return append(b, ']'), nil
}

func (fs *shardFloats) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		*fs = nil
		return nil
	}
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' {
		return fmt.Errorf("want an array of numbers")
	}
	body := bytes.TrimSpace(b[1 : len(b)-1])
	out := make([]float64, 0, bytes.Count(body, []byte{','})+1)
	if len(body) == 0 {
		*fs = out
		return nil
	}
	for len(body) > 0 {
		end := bytes.IndexByte(body, ',')
		if end < 0 {
			end = len(body)
		}
		v, err := parseFloat(bytes.TrimSpace(body[:end]))
		if err != nil {
			return err
		}
		out = append(out, v)
		if end == len(body) {
			break
		}
		body = body[end+1:]
		if len(bytes.TrimSpace(body)) == 0 {
			return fmt.Errorf("trailing comma")
		}
	}
	*fs = out
	return nil
}
