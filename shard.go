package pairwise

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/mrfkit/pairwise/internal/engine"
	"github.com/mrfkit/pairwise/internal/estimates"
	"github.com/mrfkit/pairwise/internal/selection"
)

// Sharded learning.
//
// Every node's regressions are independent of the other nodes': they read
// the samples and nothing else. A learner call therefore splits into a
// per-node stage, which can run on many machines, and the stages that look
// at all nodes (symmetrisation, the edge test), which run once:
//
//	LearnShard(s, 0, m) ─┐
//	LearnShard(s, 1, m) ─┼─ Partial ×m ─ MergePartials ─ Result
//	     ⋮               │
//	LearnShard(s, m-1, m)┘
//
// Each shard fits its nodes exactly as the one-process learner does (the
// width search of a Selection and the edge test's debiased estimates
// included) and returns them as a Partial, which encodes to JSON without
// loss: every float64 is written in its shortest exact form, and NaN, ±Inf
// and the sign of zero are kept. MergePartials puts the nodes back in
// order and runs the same global stages on them, so its Result is
// identical, bit for bit, to the one Learn returns with the same options,
// whatever the number of shards and however the nodes were spread over
// them (the test checks m = 1, 2 and 7, with λ and η given and without).
//
// The node-wise multinomial model (Learn's tuning-free default on the
// nominal scale, multinomial.go) is fitted in the shards too: each part
// carries its nodes' refits, and the merge, given the samples, runs the
// same edge test on them, with the same result bit for bit.
//
// The refit stage of the edge test (WithRefit, on by default for k = 2
// when η is not given) needs the first stage's statistics of every pair,
// so it cannot run inside a shard. The merge runs it, on the samples
// given to MergePartialsContext: it is one unconstrained fit per node on
// the spins that passed the first stage's screen, without the width search,
// and costs a small part of the shards' work (see BENCHMARKS.md,
// Sharding). A merge without samples reports an error when the refit is
// due; WithRefit(false) or WithMinEdgeWeight make the merge need nothing
// but the partials.
//
// On complete binary samples of more than selection.WaldDenseMax (256)
// spins, without η and with the default backend, the edge test is the
// sparse one (edgetest_sparse.go), in the shards as in one process: each
// shard runs the test's first pass for its nodes as they are fitted and
// its Partial carries what it kept (format pairwise-partial/4: a node's
// neighbours and the spins whose ratio reaches the floor by chance, about
// 12.5 of them from about 1,000 spins on, as selection.SparseFloorAt
// raises the floor with n, so a part grows as n·d/m; from 128 distinct
// rows a spin, every node's n entries too, sparseKeepsAll, format
// pairwise-partial/5, so that the merge computes none over the rows), and
// the
// merge, which needs the samples, rebuilds the engine's data from them
// and runs the global stage (the second pass over the samples for the
// partner entries no shard kept, the statistics, the cut, MinEdgeWeight's
// bound). Neither holds an n × n array, so neither is bounded by
// MaxLearnEntries, and the result is one process's bit for bit.

// Partial is the part of a learner's result that one shard computes: for
// each of its nodes, the estimates of the node's own regressions (before
// symmetrisation), its fields and NodeFit, the width λ_i and criterion
// path a Selection chose, and, when η is not given, the edge test's
// debiased estimates and standard errors. It also records the learner's
// settings and a fingerprint of the samples, so that MergePartials can
// refuse parts that do not belong together.
//
// A Partial encodes to JSON with encoding/json (MarshalJSON) and decodes
// back (UnmarshalJSON) without loss. A node's estimates are stored
// sparsely, its nonzero coefficients (two numbers each for k = 2: the
// neighbour and Â_ij; 1 + k² for k > 2), so with η given a part holds
// about the support of its nodes. Without η the dense edge test adds 2n
// numbers a node (k² times that for k > 2), its debiased estimates and
// standard errors; the sparse test (complete binary samples of more than
// 256 spins, the default backend) adds instead what its first pass kept:
// the entries whose ratio |Â_ij|/SE can reach its floor F (the
// neighbours, and by chance at large N about 12.5 other spins, 1.2% of
// them up to 1,000 spins, where F is 2.5, and as many at every n above,
// where selection.SparseFloorAt raises F: 2.87 at n = 3,000, 3.23 at
// 10,000), the bounds of the node's 32 least standard errors and a
// floor, and its solution's nonzero coefficients: about d + 45 numbers a
// node. Such a part is written as format pairwise-partial/4, with F (a
// reader of the format before refuses it by name); the others as
// pairwise-partial/2. ReadPartial also reads the dense files of
// pairwise-partial/1 and the sparse parts of pairwise-partial/3, written
// before F rose with n, which MergePartials merges at F = 2.5, as they
// were kept.
type Partial struct {
	algorithm string // "ising", "pairwise", "ordinal" (Learn's ordinal scale) or "multinomial" (its nominal default, multinomial.go)
	n, k      int
	shard, of int // of is 0 for LearnNodes
	data      string
	names     []string
	total     float64 // Samples.TotalWeight
	rows      int     // Samples.Len
	set       partialSettings
	nodes     []partialNode // sorted by node
	// check is AutoScale's evidence for the ordinal scale (Result.ScaleCheck),
	// nil when the scale was given.
	check *scaleCheck
}

// partialSettings are the settings the global stages read, and a
// description of those the per-node fits read (fit), which the parts of
// one merge must share.
type partialSettings struct {
	width, eta, radius float64 // as the run's config; NaN when not given
	symmetric          Symmetrization
	test               WaldTest
	selection          Selection // nil when the width was given
	fit                string
	// sparse is set when the parts ran the sparse edge test's first pass
	// (edgetest_sparse.go): what the merge needs to rebuild the engine's
	// data for the second pass as the shards built it.
	sparse *sparseSettings
}

// sparseSettings are the settings of the sparse edge test's parts that
// the merge reads: the most spins of the full-model test (only tests
// change it; the sparse test runs above it), the engine's row split,
// which cuts the passes over the rows into chunks summed in order
// (engine.Split; only tests change it too), and the test's floor F
// (selection.SparseFloorAt; SparseFloor in parts of format /3, written
// before the floor rose with n), which the merge applies as the parts
// did.
type sparseSettings struct {
	waldDense int
	split     engine.Split
	floor     float64
}

// partialNode is one node's share of a Partial.
type partialNode struct {
	node   int
	est    *estimates.Node // as Result.est[node]
	fields []float64       // θ̂_node(a), a = 0..k-1
	fit    NodeFit
	sel    nodeSelection
	// mix is the node's refit in the multinomial model (algorithm
	// "multinomial"), which the merge's edge test reads; nil otherwise
	// and for a node without one (constant).
	mix *selection.MixedFit
	// side is what the sparse edge test's first pass kept of the node
	// (edgetest_sparse.go: its entries that can reach the floor, its
	// least standard errors' bounds and floor, its solution); nil when
	// the parts did not run it.
	side *sparseSide
}

// N returns the number of variables of the samples the Partial was learned
// from.
func (p *Partial) N() int { return p.n }

// K returns the alphabet size of the samples.
func (p *Partial) K() int { return p.k }

// Shard returns the shard's index and the number of shards (LearnShard's
// shard and of); of is 0 for a Partial made by LearnNodes.
func (p *Partial) Shard() (shard, of int) { return p.shard, p.of }

// Nodes returns the nodes the Partial holds, in increasing order.
func (p *Partial) Nodes() []int {
	nodes := make([]int, len(p.nodes))
	for x, pn := range p.nodes {
		nodes[x] = pn.node
	}
	return nodes
}

// TotalWeight returns the total weight of the samples (Samples.TotalWeight).
func (p *Partial) TotalWeight() float64 { return p.total }

// Len returns the number of stored rows of the samples (Samples.Len).
func (p *Partial) Len() int { return p.rows }

// Names returns the variable names of the samples (Samples.Names), or nil.
func (p *Partial) Names() []string { return slices.Clone(p.names) }

// ShardNodes returns the nodes that shard shard of of learns among n
// variables: shard, shard+of, shard+2·of, ... Taking every of-th node
// rather than a block spreads nodes of similar cost (neighbours in a
// lattice, columns of one region of an alignment) over the shards. A shard
// may get no node when of > n. It returns an error unless 0 ≤ shard < of
// and n ≥ 0.
func ShardNodes(n, shard, of int) ([]int, error) {
	if of < 1 || shard < 0 || shard >= of {
		return nil, fmt.Errorf("pairwise: ShardNodes: shard %d of %d, want 0 ≤ shard < of", shard, of)
	}
	if n < 0 {
		return nil, fmt.Errorf("pairwise: ShardNodes: n = %d, want n ≥ 0", n)
	}
	nodes := make([]int, 0, (n-shard+of-1)/of)
	for i := shard; i < n; i += of {
		nodes = append(nodes, i)
	}
	return nodes, nil
}

// LearnShard learns the nodes of shard shard of of (ShardNodes) as Learn
// would with the same options, and returns them as a Partial for
// MergePartials: Algorithm 1 for k = 2, for k > 2 Algorithm 2, the
// node-wise multinomial model (the nominal scale's tuning-free default
// within its size rule, see WithScale) or the ordinal model, whichever
// Learn would fit (under AutoScale every shard makes the same choice on
// all the samples; the merge of ordinal and multinomial parts needs the
// samples, and a multinomial part carries each node's refit: its
// parameters and the inverse of their information, (d² + d)/2 numbers
// for d parameters). The options
// must be the same in every shard of one merge (WithWorkers and
// WithProgress excepted; progress counts the shard's nodes).
func LearnShard(s *Samples, shard, of int, opts ...Option) (*Partial, error) {
	return LearnShardContext(context.Background(), s, shard, of, opts...)
}

// LearnShardContext is LearnShard with cancellation: it returns ctx.Err()
// promptly once ctx is done. A nil ctx is an error.
func LearnShardContext(ctx context.Context, s *Samples, shard, of int, opts ...Option) (*Partial, error) {
	if ctx == nil {
		return nil, nilContext("LearnShardContext")
	}
	if s == nil {
		return nil, errors.New("pairwise: LearnShard: nil samples")
	}
	nodes, err := ShardNodes(s.n, shard, of)
	if err != nil {
		return nil, fmt.Errorf("pairwise: LearnShard: shard %d of %d, want 0 ≤ shard < of", shard, of)
	}
	p, err := learnNodes(ctx, "LearnShard", s, nodes, opts)
	if err != nil {
		return nil, err
	}
	p.shard, p.of = shard, of
	return p, nil
}

// LearnNodes learns the given nodes as Learn would with the same options
// and returns them as a Partial for MergePartials; every node of the
// samples must be in exactly one of the Partials merged. nodes must be in
// [0, n) and distinct; their order does not matter. An empty list gives a
// Partial with no node.
func LearnNodes(s *Samples, nodes []int, opts ...Option) (*Partial, error) {
	return LearnNodesContext(context.Background(), s, nodes, opts...)
}

// LearnNodesContext is LearnNodes with cancellation: it returns ctx.Err()
// promptly once ctx is done. A nil ctx is an error.
func LearnNodesContext(ctx context.Context, s *Samples, nodes []int, opts ...Option) (*Partial, error) {
	if ctx == nil {
		return nil, nilContext("LearnNodesContext")
	}
	if s == nil {
		return nil, errors.New("pairwise: LearnNodes: nil samples")
	}
	sorted := append([]int{}, nodes...) // not nil: nil would mean every node
	slices.Sort(sorted)
	for x, i := range sorted {
		if i < 0 || i >= s.n {
			return nil, fmt.Errorf("pairwise: LearnNodes: node %d out of range [0, %d)", i, s.n)
		}
		if x > 0 && sorted[x-1] == i {
			return nil, fmt.Errorf("pairwise: LearnNodes: node %d listed twice", i)
		}
	}
	return learnNodes(ctx, "LearnNodes", s, sorted, opts)
}

// learnNodes runs the per-node stage of the learner for s (LearnIsing's
// for k = 2, LearnPairwise's otherwise) on nodes, sorted and distinct, and
// packs what it learned into a Partial.
func learnNodes(ctx context.Context, fn string, s *Samples, nodes []int, opts []Option) (*Partial, error) {
	var (
		f   *fitted
		err error
	)
	if s.incomplete {
		// Shards learn incomplete samples by AvailableCase only: the
		// other rules change the samples (a missing state, dropped rows)
		// before the nodes are fitted.
		cfg, err := prepare(fn, s, opts)
		if err != nil {
			return nil, err
		}
		rule := cfg.missingRule(false, s.k)
		if s.k != 2 || rule != AvailableCase {
			return nil, fmt.Errorf("pairwise: %s: the samples have %v missing values; shards take them on binary data with AvailableCase only (here k = %d, %v): drop the incomplete rows first (DropIncomplete)", fn, s.MissingCount(), s.k, rule)
		}
	}
	scale, check := Nominal, (*scaleCheck)(nil)
	multinomial := false
	if s.k > 2 {
		// Learn's choice of scale, made by every shard on all the samples.
		if scale, check = resolveScale(s, opts, false); scale == Ordinal {
			opts = append(slices.Clip(opts), ordinalChosen())
		} else if cfg := applied(opts); len(cfg.errs) == 0 && multinomialDefault(s, &cfg) {
			// and its model on the nominal scale (multinomial.go).
			opts, multinomial = append(slices.Clip(opts), multinomialChosen()), true
		}
	}
	algorithm := "ising"
	switch {
	case s.k == 2:
		f, err = fitIsing(ctx, fn, s, opts, nodes)
	case multinomial:
		algorithm = "multinomial"
		f, err = fitOrdinal(ctx, fn, s, opts, nodes)
	case scale == Ordinal:
		algorithm = "ordinal"
		f, err = fitOrdinal(ctx, fn, s, opts, nodes)
	default:
		algorithm = "pairwise"
		f, err = fitPairwise(ctx, fn, s, opts, nodes)
	}
	if err != nil {
		return nil, err
	}
	r := f.r
	p := &Partial{
		algorithm: algorithm,
		n:         s.n,
		k:         s.k,
		data:      fingerprint(s),
		names:     slices.Clone(s.names),
		total:     s.total,
		rows:      s.rows,
		set:       settingsOf(r, f.radius),
		nodes:     make([]partialNode, len(nodes)),
		check:     check,
	}
	for x, i := range nodes {
		p.nodes[x] = partialNode{
			node:   i,
			est:    f.est[i],
			fields: f.fields[i*s.k : (i+1)*s.k],
			fit:    f.nodes[i],
			sel:    r.nodes[i],
		}
		if r.mixFits != nil {
			p.nodes[x].mix = r.mixFits[i]
		}
		if r.sparseState != nil {
			p.nodes[x].side = r.sparseState.sides[i].clone()
		}
	}
	if r.sparseState != nil {
		p.set.sparse = &sparseSettings{waldDense: r.cfg.waldDense, split: r.cfg.split, floor: r.sparseState.floor}
	}
	return p, nil
}

// settingsOf returns the settings of run r that the global stages and the
// check of a merge read; radius is the regressions' radius.
func settingsOf(r *learnRun, radius float64) partialSettings {
	c := &r.cfg
	set := partialSettings{
		width:     c.lambda,
		eta:       c.eta,
		radius:    radius,
		symmetric: c.symmetric,
		test:      c.test,
		fit:       fmt.Sprintf("tolerance %v, max iterations %d, solver %v, spins %T, one-hot %T", c.tol, c.maxIter, c.solver, c.spins, c.oneHot),
	}
	if r.spec != nil {
		set.selection = r.rule
		set.width = math.NaN() // the placeholder the run put there
	}
	return set
}

// fingerprint returns a digest of the samples' content (sizes, states and
// weights; not the names), which the parts of one merge must share.
func fingerprint(s *Samples) string {
	h := sha256.New()
	var buf [8]byte
	for _, v := range []int{s.n, s.k, s.rows} {
		binary.LittleEndian.PutUint64(buf[:], uint64(v))
		h.Write(buf[:])
	}
	if s.bits != nil {
		// The bytes of b8, a row at a time.
		row := make([]uint8, s.n)
		for m := 0; m < s.rows; m++ {
			s.bitRow(row, m)
			h.Write(row)
		}
	} else if s.b8 != nil {
		h.Write(s.b8[:s.rows*s.n])
	} else {
		for _, v := range s.b16[:s.rows*s.n] {
			binary.LittleEndian.PutUint16(buf[:2], v)
			h.Write(buf[:2])
		}
	}
	if s.weights != nil {
		h.Write([]byte{1})
		for _, w := range s.weights {
			binary.LittleEndian.PutUint64(buf[:], math.Float64bits(w))
			h.Write(buf[:])
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ErrRefitNeedsSamples is the error MergePartials wraps when the edge
// test is due (η not given) and no samples were given.
var ErrRefitNeedsSamples = errors.New("the edge test needs the samples (its refit stage and its small-sample rule read them): merge with MergePartialsContext and the samples, or learn with WithMinEdgeWeight")

// MergePartials assembles the Partials of every node into the Result that
// Learn returns with the options the shards were given: the per-node
// estimates are symmetrised and, when η was not given, the edge test
// chooses the graph. It returns an error when the parts were learned from
// different samples or with different options, when a node is missing or
// held twice, and, wrapping ErrRefitNeedsSamples, when the edge test's
// refit stage is due (k = 2, η not given, WithRefit not turned off), which
// needs the samples: use MergePartialsContext then.
func MergePartials(parts ...*Partial) (*Result, error) {
	return MergePartialsContext(context.Background(), nil, 0, parts...)
}

// MergePartialsContext is MergePartials with cancellation, the samples the
// parts were learned from (nil when the refit stage is not due; checked
// against the parts' fingerprint when given) and the goroutines of the
// refit stage (0 means GOMAXPROCS; the result does not depend on it). For
// parts of the sparse edge test (see Partial) it rebuilds the engine's
// data from the samples as the shards did and runs the test's global
// stage on them, a second pass over the samples for the entries that no
// part kept; it returns an error when such parts are mixed with parts of
// the dense test. It returns ctx.Err() promptly once ctx is done. A nil
// ctx is an error.
func MergePartialsContext(ctx context.Context, s *Samples, workers int, parts ...*Partial) (*Result, error) {
	const fn = "MergePartials"
	if ctx == nil {
		return nil, nilContext("MergePartialsContext")
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("pairwise: %s: no partial to merge", fn)
	}
	for x, p := range parts {
		if p == nil {
			return nil, fmt.Errorf("pairwise: %s: partial %d is nil", fn, x)
		}
	}
	first := parts[0]
	for x, p := range parts[1:] {
		switch {
		case p.data != first.data || p.n != first.n || p.k != first.k:
			return nil, fmt.Errorf("pairwise: %s: partial %d was learned from other samples than partial 0", fn, x+1)
		case p.algorithm != first.algorithm:
			return nil, fmt.Errorf("pairwise: %s: partial %d ran %s, partial 0 %s", fn, x+1, p.algorithm, first.algorithm)
		case !sameSettings(p.set, first.set):
			return nil, fmt.Errorf("pairwise: %s: partial %d was learned with other options than partial 0", fn, x+1)
		}
	}
	n, k := first.n, first.k
	owner := make([]int, n)
	for i := range owner {
		owner[i] = -1
	}
	est := make([]*estimates.Node, n)
	fields := make([]float64, n*k)
	nodes := make([]NodeFit, n)
	r := &learnRun{nodes: make([]nodeSelection, n)}
	for x, p := range parts {
		for _, pn := range p.nodes {
			i := pn.node
			if owner[i] >= 0 {
				return nil, fmt.Errorf("pairwise: %s: node %d is in partials %d and %d", fn, i, owner[i], x)
			}
			owner[i] = x
			if pn.est == nil || pn.est.K != k || !pn.est.WellFormed(n) || len(pn.fields) != k {
				return nil, fmt.Errorf("pairwise: %s: partial %d: node %d: estimates or fields do not fit n = %d, k = %d", fn, x, i, n, k)
			}
			if first.set.sparse != nil && pn.side == nil {
				return nil, fmt.Errorf("pairwise: %s: partial %d: node %d has no first pass of the sparse edge test", fn, x, i)
			}
			est[i] = pn.est
			copy(fields[i*k:], pn.fields)
			nodes[i] = pn.fit
			r.nodes[i] = pn.sel
		}
	}
	var missing []int
	for i, o := range owner {
		if o < 0 {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("pairwise: %s: %d of %d nodes are in no partial, the first %d", fn, len(missing), n, missing[0])
	}
	set := first.set
	r.wantEta = math.IsNaN(set.eta)
	if r.wantEta && s == nil {
		// The edge test reads the samples: the Ising refit refits on
		// them, and the small-sample rule counts their values.
		if set.sparse != nil {
			return nil, fmt.Errorf("pairwise: %s: the sparse edge test's second pass computes the entries no part kept from the samples: %w", fn, ErrRefitNeedsSamples)
		}
		return nil, fmt.Errorf("pairwise: %s: %w", fn, ErrRefitNeedsSamples)
	}
	if s != nil && fingerprint(s) != first.data {
		return nil, fmt.Errorf("pairwise: %s: the samples given are not those the partials were learned from", fn)
	}
	for i := range nodes {
		if r.wantEta && first.set.sparse == nil && !nodes[i].Constant && !nodes[i].emptyFits() && r.nodes[i].d == nil {
			return nil, fmt.Errorf("pairwise: %s: node %d has no debiased estimates for the edge test", fn, i)
		}
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	r.s = s
	if first.algorithm == "ordinal" || first.algorithm == "multinomial" {
		if s == nil {
			return nil, fmt.Errorf("pairwise: %s: the %s model's merge needs the samples (its scores and its edge test read them): merge with MergePartialsContext and the samples", fn, first.algorithm)
		}
		r.scores = ordinalScores(s)
	}
	// waldDense is the learners' default: only tests change it.
	r.cfg = config{lambda: set.width, eta: set.eta, radius: math.NaN(), symmetric: set.symmetric, test: set.test, workers: workers, waldDense: selection.WaldDenseMax}
	if first.algorithm == "multinomial" {
		if err := r.mergeMultinomial(parts); err != nil {
			return nil, fmt.Errorf("pairwise: %s: %w", fn, err)
		}
	}
	if set.sparse != nil {
		if err := r.mergeSparse(fn, parts, set.sparse); err != nil {
			return nil, err
		}
	}
	if set.selection != nil {
		r.spec, r.rule = &selection.Spec{}, set.selection
	}
	res, err := r.assemble(ctx, k, est, fields, nodes, set.radius)
	if err == nil && s != nil && s.incomplete {
		res.Missing = missingReport(s, AvailableCase)
	}
	if err == nil && k > 2 {
		// The scale Learn reports: the parts' algorithm, and AutoScale's
		// evidence when the data chose it.
		res.Scale, res.scaleCheck = Nominal, first.check
		if first.algorithm == "ordinal" {
			res.Scale = Ordinal
		}
	}
	return res, err
}

// mergeSparse prepares MergePartials' edge test for parts that ran the
// sparse test's first pass (edgetest_sparse.go): the engine's data of the
// samples r.s rebuilt as the shards built them (the default backend,
// identical rows merged, the same row split), so that the second pass,
// the bound of MinEdgeWeight and Tuning's accessors compute the entries
// the parts did not keep to the same bits, and each node's side from its
// part. assemble then runs the global stage as one process does
// (WaldTest.runSparse). The first pass leaves no request across parts
// (sparseRun.elsewhere): the second pass fetches those entries, so the
// result does not depend on the sharding.
func (r *learnRun) mergeSparse(fn string, parts []*Partial, set *sparseSettings) error {
	s := r.s
	knobs := optionFunc(func(c *config) { c.waldDense, c.split, c.sparseFloor = set.waldDense, set.split, set.floor })
	run, err := newRun(fn, s, []Option{WithWorkers(r.cfg.workers), knobs}, true)
	if err != nil {
		return err
	}
	// The fits are over: the passes that follow run their row chunks in
	// order on each caller, as after the fits of one process.
	run.stop()
	r.b, r.fitted, r.d = run.b, run.fitted, run.d
	r.cfg.waldDense, r.cfg.split, r.cfg.sparseFloor = set.waldDense, set.split, set.floor
	data := r.fitted.stages()
	if !selection.SupportWald(data, set.waldDense) {
		return fmt.Errorf("pairwise: %s: the partials ran the sparse edge test, which samples of %d spins do not take", fn, s.n)
	}
	n := s.n
	sr := newSparseRun(n, sparseEnv{
		s: s, data: data, workers: r.cfg.workers, each: r.eachNodeQuiet, floor: set.floor,
		driver: func() (*engine.Driver, func()) {
			wk := r.pool.Get()
			return r.driver(wk), func() { r.pool.Put(wk) }
		},
	})
	r.coefs = make([]float64, n)
	for _, p := range parts {
		for _, pn := range p.nodes {
			// The part's arrays are shared, not copied: the second pass
			// adds to a side in new arrays (sparseSide.add), so the part
			// is unchanged and may be merged again.
			sr.sides[pn.node] = *pn.side
			// The node's coefficients in its support model, which set the
			// events rule of the SmallSample warning (fitIsing).
			r.coefs[pn.node] = selection.SupportCoefficientsAt(pn.side.wIdx, pn.node)
		}
	}
	r.sparseState = sr
	return nil
}

// emptyFits reports whether a node solved no regression (every value pair
// without rows of both values), so that it has no debiased estimate.
func (f *NodeFit) emptyFits() bool { return f.Regressions == 0 }

// sameSettings reports whether two parts' settings agree, NaN matching NaN.
func sameSettings(a, b partialSettings) bool {
	same := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }
	sel := (a.selection == nil) == (b.selection == nil)
	if sel && a.selection != nil {
		sel = a.selection.String() == b.selection.String()
	}
	sparse := (a.sparse == nil) == (b.sparse == nil) && (a.sparse == nil || *a.sparse == *b.sparse)
	return same(a.width, b.width) && same(a.eta, b.eta) && same(a.radius, b.radius) &&
		a.symmetric == b.symmetric && a.test == b.test && a.fit == b.fit && sel && sparse
}

// mergeMultinomial prepares MergePartials' stages for parts of the
// multinomial model: the model's variables from the samples r.s, as Learn
// reads them, and each node's refit from its part, checked against them
// (a part that does not fit is an error, not a panic in the edge test).
func (r *learnRun) mergeMultinomial(parts []*Partial) error {
	n := r.s.n
	r.cfg.ordinal, r.cfg.multinomial = true, true
	v := selection.NewMixedVars(r.s.stages(), r.scores, slices.Repeat([]bool{true}, n))
	r.mixed, r.mixFits = v, make([]*selection.MixedFit, n)
	for _, p := range parts {
		for _, pn := range p.nodes {
			if pn.mix == nil {
				continue
			}
			if err := checkMixedFit(pn.mix, pn.node, v); err != nil {
				return fmt.Errorf("node %d's refit does not fit the samples: %v", pn.node, err)
			}
			r.mixFits[pn.node] = pn.mix
		}
	}
	for i, f := range r.mixFits {
		if f != nil && f.Ridge > 0 {
			r.ridged = append(r.ridged, i)
		}
	}
	return nil
}

// checkMixedFit reports whether f has the shape of node i's refit under
// the variables v: its neighbours distinct, increasing and other than i,
// their columns laid out by v, and as many parameters and entries of the
// inverse information as those columns and node i's values make.
func checkMixedFit(f *selection.MixedFit, i int, v *selection.MixedVars) error {
	if f.Node != i || f.RDim != v.RDim(i) || f.NA != len(v.Values[i]) {
		return fmt.Errorf("node %d with %d rows and %d values, want node %d with %d and %d", f.Node, f.RDim, f.NA, i, v.RDim(i), len(v.Values[i]))
	}
	if len(f.Off) != len(f.Cols) {
		return fmt.Errorf("%d offsets for %d neighbours", len(f.Off), len(f.Cols))
	}
	p := 0
	for t, j := range f.Cols {
		if j < 0 || j >= v.N || j == i || (t > 0 && j <= f.Cols[t-1]) || f.Off[t] != p {
			return fmt.Errorf("neighbour %d (at %d) out of range, order or layout", j, t)
		}
		p += v.XDim(j)
	}
	dim := f.NA - 1 + f.RDim*p
	if f.P != p || len(f.Par) != dim || f.Inv == nil || f.Inv.SymmetricDim() != dim {
		return fmt.Errorf("%d parameters, want %d", len(f.Par), dim)
	}
	return nil
}
