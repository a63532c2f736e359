package pairwise

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/mrfkit/pairwise/internal/selection"
)

// sparseShardSamples draws the samples of the sparse sharding tests: a
// random graph of the given average degree on n spins (sparseModel),
// rows Gibbs samples, seeds fixed.
func sparseShardSamples(t *testing.T, n, rows int, deg float64, seed uint64) *Samples {
	t.Helper()
	m := sparseModel(t, n, deg, 0.2, 0.6, rand.New(rand.NewPCG(seed, 7)))
	g, err := NewGibbsSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.Sample(rand.NewPCG(seed+100, 3), rows)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// learnSparseShards learns s in m shards with opts (each shard with its
// own worker count, so that the result cannot depend on it), sends every
// part through JSON, and returns the parts, in reverse order.
func learnSparseShards(t *testing.T, s *Samples, m int, opts []Option) []*Partial {
	t.Helper()
	parts := make([]*Partial, m)
	for i := range parts {
		p, err := LearnShard(s, i, m, append(opts, WithWorkers(1+i%2))...)
		if err != nil {
			t.Fatal(err)
		}
		if p.set.sparse == nil {
			t.Fatalf("shard %d of %d did not run the sparse edge test's first pass", i, m)
		}
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		// Parts whose nodes hold all their entries are format /5, the
		// others /4.
		format := partialFormatSparse
		if p.nodes[0].side.allA != nil {
			format = partialFormatSparseAll
		}
		if !strings.Contains(string(b[:100]), format) {
			t.Fatalf("shard %d: the part is not written as %s: %.100s", i, format, b)
		}
		q := new(Partial)
		if err := json.Unmarshal(b, q); err != nil {
			t.Fatal(err)
		}
		parts[m-1-i] = q
	}
	return parts
}

// TestShardedSparseIdentical holds the sharded pipeline of the
// tuning-free Ising default to one process bit for bit on the path of
// the sparse edge test (edgetest_sparse.go): the shards run the node fits
// and the test's first pass, their parts go through JSON, and the merge
// (with the samples) runs the second pass, the statistics, the mixture
// cut or the gap rule and the bound of MinEdgeWeight. The Result,
// Tuning's sparse store included, must equal Learn's in every bit for 2
// and 3 shards, on: 300 spins, more than selection.WaldDenseMax (the
// support model as the learners run it, no test knob); smaller models
// with the support model lowered to 4 spins (withWaldDense) under And and
// with the gap rule; nodes that keep one least standard error (withLowKeep),
// so that MinEdgeWeight's streamed pass over the open nodes decides the
// minimum; and rows split among the workers (withRowSplit). Each case
// also checks that the one-process run took the sparse test and that the
// merge's result is not the dense test's by accident (Tuning.sparse set).
//
// It then perturbs what a part stores and requires the merge to see it:
// raising every node's stored bounds of its least standard errors and its
// floor (a certificate that is wrong) must change MinEdgeWeight in the
// case where the streamed pass lowered it.
func TestShardedSparseIdentical(t *testing.T) {
	skipUnderRace(t)
	cases := []struct {
		name       string
		n, rows    int
		deg        float64
		opts       []Option
		shards     []int
		perturbLow bool
	}{
		{"n=300", 300, 800, 2, nil, []int{2}, false},
		{"n=60/and", 60, 1500, 2.5, []Option{withWaldDense(4), WithSymmetrization(And)}, []int{2, 3}, false},
		{"n=40/gap", 40, 2000, 3, []Option{withWaldDense(4), WithEdgeMixture(false)}, []int{3}, false},
		{"n=60/keep1", 60, 2000, 2.5, []Option{withWaldDense(4), withLowKeep(1)}, []int{2, 3}, true},
		{"n=40/rowsplit", 40, 3000, 3, []Option{withWaldDense(4), withRowSplit(1000, 250)}, []int{2}, false},
		// The floor as selection.SparseFloorAt raises it at n = 10,000:
		// the parts carry it (format /4) and the merge applies it.
		{"n=60/floor", 60, 2000, 2.5, []Option{withWaldDense(4), withSparseFloor(3.23)}, []int{2, 3}, false},
		// Every node's n entries kept (sparseKeepsAll, from 128 rows a
		// spin): the parts carry them and the merge reads them, with
		// the streamed pass and the fallback's arrays read too.
		{"n=60/all", 60, 2000, 2.5, []Option{withWaldDense(4), withSparseAll(1)}, []int{2, 3}, false},
		{"n=60/keep1/all", 60, 2000, 2.5, []Option{withWaldDense(4), withLowKeep(1), withSparseAll(1)}, []int{2}, true},
	}
	for x, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := sparseShardSamples(t, c.n, c.rows, c.deg, uint64(40+x))
			opts := append([]Option{WithWorkers(2)}, c.opts...)
			want, err := Learn(s, opts...)
			if err != nil {
				t.Fatal(err)
			}
			st, ok := want.Tuning.sparse.(*sparseStore)
			if !ok {
				t.Fatal("one process did not run the sparse edge test")
			}
			if len(want.Edges) == 0 {
				t.Fatal("no edge learned: the case tests nothing")
			}
			for _, m := range c.shards {
				parts := learnSparseShards(t, s, m, opts)
				got, err := MergePartialsContext(context.Background(), s, 2, parts...)
				if err != nil {
					t.Fatalf("m = %d: %v", m, err)
				}
				checkSameResult(t, want, got)
				// The parts are merged again, with another worker count:
				// the merge must not have changed them.
				again, err := MergePartialsContext(context.Background(), s, 1, parts...)
				if err != nil {
					t.Fatalf("m = %d, again: %v", m, err)
				}
				checkSameResult(t, want, again)
				if len(parts[0].nodes[0].side.allA) > 0 {
					// The merge reads the parts' entries: doubled, a pair's
					// entry that no side kept reads doubled through Tuning.
					i, j := unkeptPair(t, parts)
					before := got.Tuning.Debiased(i, j, 1, 1)
					for _, p := range parts {
						for _, pn := range p.nodes {
							for y := range pn.side.allA {
								pn.side.allA[y] *= 2
							}
						}
					}
					doubled, err := MergePartialsContext(context.Background(), s, 2, parts...)
					if err != nil {
						t.Fatalf("m = %d, doubled: %v", m, err)
					}
					if v := doubled.Tuning.Debiased(i, j, 1, 1); v != 2*before {
						t.Errorf("m = %d: Debiased(%d, %d) of a pair no side kept reads %v from parts that hold twice %v", m, i, j, v, before)
					}
					for _, p := range parts {
						for _, pn := range p.nodes {
							for y := range pn.side.allA {
								pn.side.allA[y] /= 2
							}
						}
					}
				}
				if !c.perturbLow {
					continue
				}
				if !st.stats.streamed {
					t.Fatalf("the streamed pass did not lower MinEdgeWeight (%+v): the perturbation cannot be seen", st.stats)
				}
				for _, p := range parts {
					for _, pn := range p.nodes {
						side := pn.side
						side.low = float32(math.Inf(1))
						for y := range side.lowB {
							side.lowB[y] = float32(math.Inf(1))
						}
					}
				}
				bad, err := MergePartialsContext(context.Background(), s, 2, parts...)
				if err != nil {
					t.Fatalf("m = %d, perturbed: %v", m, err)
				}
				if bad.MinEdgeWeight == want.MinEdgeWeight {
					t.Errorf("m = %d: with every stored bound raised to +Inf the merge still found MinEdgeWeight %v", m, want.MinEdgeWeight)
				}
				if d := bitDiff(reflect.ValueOf(want), reflect.ValueOf(bad), "Result"); d == "" {
					t.Errorf("m = %d: the perturbed parts merge to the same result", m)
				}
			}
			t.Logf("%d edges, threshold %.3f, MinEdgeWeight %.4g, mixture %v, %+v", len(want.Edges), want.Tuning.Threshold, want.MinEdgeWeight, want.Tuning.Mixture != nil, st.stats)
		})
	}
}

// unkeptPair returns a pair (i, j) whose entry of node i no side of the
// parts kept and is not 0 among the n entries the part holds.
func unkeptPair(t *testing.T, parts []*Partial) (int, int) {
	t.Helper()
	for _, p := range parts {
		for _, pn := range p.nodes {
			for j, a := range pn.side.allA {
				if _, ok := pn.side.find(j); !ok && j != pn.node && a != 0 {
					return pn.node, j
				}
			}
		}
	}
	t.Fatal("no part holds an entry that its side did not keep")
	return 0, 0
}

// TestSparseKeepsAllRule checks when the first pass keeps every node's n
// entries by itself (sparseKeepsAll): from 128 distinct rows a spin, not
// below. The learner counts identical rows once, so the rule is checked
// at its edge by itself and on the learner with 30 spins at 3,000 rows
// (below 3,840 whatever the repeats) and 6,000 (more than 3,840 distinct).
func TestSparseKeepsAllRule(t *testing.T) {
	if sparseKeepsAll(30, 3839) || !sparseKeepsAll(30, 3840) {
		t.Errorf("sparseKeepsAll(30, 3839), (30, 3840) = %v, %v; want false, true", sparseKeepsAll(30, 3839), sparseKeepsAll(30, 3840))
	}
	for _, c := range []struct {
		rows int
		all  bool
	}{{3000, false}, {6000, true}} {
		s := sparseShardSamples(t, 30, c.rows, 2, 5)
		res, err := Learn(s, withWaldDense(4), WithWorkers(2))
		if err != nil {
			t.Fatal(err)
		}
		st, ok := res.Tuning.sparse.(*sparseStore)
		if !ok {
			t.Fatalf("N = %d: the sparse test's store is not kept (fallback?)", c.rows)
		}
		for i, side := range st.sides {
			if !side.zero && (side.allA != nil) != c.all {
				t.Errorf("N = %d, 30 spins: node %d keeps its n entries %v, want %v", c.rows, i, side.allA != nil, c.all)
			}
		}
	}
}

// TestShardedSparseParts checks the parts of the sparse edge test: a
// part's storage a node is O(d) (the spins kept and bounds listed, not
// n), a part of the format before (/2, the dense test's) of the same
// samples cannot be merged with them, and malformed first passes are
// refused when a part is read.
func TestShardedSparseParts(t *testing.T) {
	skipUnderRace(t)
	s := sparseShardSamples(t, 300, 400, 2, 9)
	p, err := LearnShard(s, 0, 3, WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	most := 0
	for _, pn := range p.nodes {
		if pn.side == nil {
			t.Fatalf("node %d has no first pass", pn.node)
		}
		most = max(most, len(pn.side.js), len(pn.side.lowJs))
	}
	// 32 bounds a node, and the spins kept: about 1.2% of 300 reach a
	// ratio of 2.5 by chance, besides the neighbours; 100 would be a
	// third of the spins.
	if most > 100 {
		t.Errorf("a node stores %d entries of %d spins", most, s.n)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"debiased"`) {
		t.Error("a part of the sparse test writes the dense test's debiased estimates")
	}
	// A dense part of the same samples (the dense test forced) does not
	// go with sparse ones.
	dense, err := LearnShard(s, 1, 3, WithWorkers(2), withDenseTest())
	if err != nil {
		t.Fatal(err)
	}
	last, err := LearnShard(s, 2, 3, WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := MergePartialsContext(context.Background(), s, 1, p, dense, last); err == nil || !strings.Contains(err.Error(), "other options") {
		t.Errorf("a dense part merged with sparse ones: %v", err)
	}
	if _, err := MergePartials(p, last); err == nil {
		t.Error("a merge of sparse parts without the samples succeeded")
	}
	for _, c := range []struct {
		repl []string // from, to, ...: each replaced once
		want string
	}{
		{[]string{`"format":"pairwise-partial/4"`, `"format":"pairwise-partial/2"`}, "sparse_test in format"},
		{[]string{`"format":"pairwise-partial/4"`, `"format":"pairwise-partial/9"`}, "pairwise-partial/4"},
		{[]string{`"format":"pairwise-partial/4"`, `"format":"pairwise-partial/3"`}, "a floor in format"},
		{[]string{`,"stat_floor":2.5`, ``}, "no floor in sparse_test"},
		{[]string{`"stat_floor":2.5`, `"stat_floor":2`}, "want a finite number from 2.5"},
		{[]string{`"stat_floor":2.5`, `"stat_floor":"+Inf"`}, "want a finite number from 2.5"},
		{[]string{`"wald_dense":256`, `"wald_dense":-1`}, "out of range"},
		{[]string{`"kept":[`, `"kept":[400,`}, "spins kept with"},
		{[]string{`"kept":[`, `"kept":[400,`, `"a":[`, `"a":[0,`, `"se":[`, `"se":[0,`}, "kept: spin 400 out of range or order"},
		{[]string{`"low_at":[`, `"low_at":[-1,`, `"low_se":[`, `"low_se":[0,`}, "low_at: spin -1 out of range"},
		{[]string{`"low_se":[`, `"low_se":[0.1,`}, "bounds for"},
		{[]string{`"w_at":[`, `"w_at":[300,`}, "coefficients at"},
		{[]string{`"floor":`, `"floor":-1,"x":`}, ""},
	} {
		bad := string(b)
		for r := 0; r < len(c.repl); r += 2 {
			if !strings.Contains(bad, c.repl[r]) {
				t.Fatalf("the part has no %s", c.repl[r])
			}
			bad = strings.Replace(bad, c.repl[r], c.repl[r+1], 1)
		}
		var q Partial
		err := json.Unmarshal([]byte(bad), &q)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.repl, err, c.want)
		}
	}
	// A part of format /3, written before the floor rose with n, has no
	// floor and is merged at selection.SparseFloor, the floor it was
	// kept at.
	old := strings.Replace(strings.Replace(string(b), `"format":"pairwise-partial/4"`, `"format":"pairwise-partial/3"`, 1), `,"stat_floor":2.5`, ``, 1)
	var q Partial
	if err := json.Unmarshal([]byte(old), &q); err != nil {
		t.Errorf("a part of format /3: %v", err)
	} else if q.set.sparse == nil || q.set.sparse.floor != selection.SparseFloor {
		t.Errorf("a part of format /3 reads with sparse settings %+v, want the floor %v", q.set.sparse, selection.SparseFloor)
	}
	// A part whose nodes hold all their entries is format /5, and the
	// entries go with it: refused in /4, and /5 without them refused.
	pa, err := LearnShard(s, 0, 3, WithWorkers(2), withSparseAll(1))
	if err != nil {
		t.Fatal(err)
	}
	ba, err := json.Marshal(pa)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ba[:100]), `"format":"pairwise-partial/5"`) || !strings.Contains(string(ba), `"all_a":[`) {
		t.Errorf("a part with every node's entries is not format /5 with all_a: %.100s", ba)
	}
	var qa Partial
	if err := json.Unmarshal(ba, &qa); err != nil {
		t.Errorf("a part of format /5: %v", err)
	}
	for _, c := range []struct {
		from    string
		to, old string
	}{
		{string(ba), `"format":"pairwise-partial/4"`, `"format":"pairwise-partial/5"`},
		{string(b), `"format":"pairwise-partial/5"`, `"format":"pairwise-partial/4"`},
	} {
		var q Partial
		err := json.Unmarshal([]byte(strings.Replace(c.from, c.old, c.to, 1)), &q)
		if err == nil || !strings.Contains(err.Error(), "the entries of all spins go with format") {
			t.Errorf("%s: %v, want the entries of all spins refused", c.to, err)
		}
	}
	// The n entries of all spins, when a part holds them: n of each,
	// finite, standard errors at least 0.
	all := func(a, se float64, m int) sideJSON {
		j := sideJSON{AllA: make(shardFloats, m), AllSE: make(shardFloats, 300)}
		j.AllA[m-1], j.AllSE[len(j.AllSE)-1] = a, se
		return j
	}
	for _, c := range []struct {
		side sideJSON
		want string
	}{
		{all(0, 0, 299), "want 300 each"},
		{sideJSON{AllA: make(shardFloats, 300)}, "want 300 each"},
		{all(math.NaN(), 0, 300), "want finite"},
		{all(math.Inf(1), 0, 300), "want finite"},
		{all(0, -1, 300), "want finite"},
		{all(0, math.Inf(1), 300), "want finite"},
	} {
		if _, err := c.side.unpack(0, 300); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%d entries and %d standard errors: %v, want an error with %q", len(c.side.AllA), len(c.side.AllSE), err, c.want)
		}
	}
	good := all(0.5, 0.25, 300)
	if _, err := good.unpack(0, 300); err != nil {
		t.Errorf("n good entries of all spins refused: %v", err)
	}
	// The bounds are float32 values at least 0, the floor too (+Inf
	// allowed).
	for _, c := range []sideJSON{
		{LowAt: []int32{1}, Low: shardFloats{0.1}, Floor: 1},
		{LowAt: []int32{1}, Low: shardFloats{-0.5}, Floor: 1},
		{LowAt: []int32{1}, Low: shardFloats{0.5}, Floor: shardFloat(math.NaN())},
		{LowAt: []int32{1}, Low: shardFloats{0.5}, Floor: -1},
	} {
		if _, err := c.unpack(0, 300); err == nil || !strings.Contains(err.Error(), "not a float32 at least 0") {
			t.Errorf("%+v: %v, want a bound refused", c, err)
		}
	}
	if _, err := (&sideJSON{LowAt: []int32{1}, Low: shardFloats{0.5}, Floor: shardFloat(math.Inf(1))}).unpack(0, 300); err != nil {
		t.Errorf("a floor of +Inf: %v", err)
	}
}
