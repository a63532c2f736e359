package pairwise

import (
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"strings"
	"testing"
)

// Degenerate data are legal data: these tests run every learning path on
// them and check that the learners neither panic nor return a NaN or an
// infinity, and that what they return is what the documentation says
// (constant variables have no edges; one variable gives an empty graph).

// degenerateCase is a data set the learners must handle without a panic.
type degenerateCase struct {
	name    string
	k       int
	rows    [][]int
	weights []float64 // nil: unweighted
}

// samples builds the case's samples.
func (c degenerateCase) samples() (*Samples, error) {
	if c.weights != nil {
		return NewWeightedSamples(c.k, c.rows, c.weights)
	}
	return NewSamples(c.k, c.rows)
}

// pseudoRows returns N rows of n values in [0, k) from a fixed linear
// congruential sequence, so that the cases need no random source.
func pseudoRows(n, k, N int, seed uint64) [][]int {
	rows := make([][]int, N)
	x := seed*6364136223846793005 + 1442695040888963407
	for m := range rows {
		rows[m] = make([]int, n)
		for i := range rows[m] {
			x = x*6364136223846793005 + 1442695040888963407
			rows[m][i] = int((x >> 33) % uint64(k))
		}
	}
	return rows
}

// withColumn sets column i of every row to v.
func withColumn(rows [][]int, i, v int) [][]int {
	for _, r := range rows {
		r[i] = v
	}
	return rows
}

// degenerateCases are the data sets of issue 18's first part. They stay
// within FuzzLearn's bounds (n ≤ 6, k ≤ 5, N ≤ 60, weights it can encode),
// so that its seed corpus holds every one of them.
func degenerateCases() []degenerateCase {
	var cs []degenerateCase
	for _, k := range []int{2, 3, 5} {
		cs = append(cs,
			degenerateCase{fmt.Sprintf("constant column k=%d", k), k, withColumn(pseudoRows(4, k, 60, 1), 1, k-1), nil},
			degenerateCase{fmt.Sprintf("constant column 0 k=%d", k), k, withColumn(pseudoRows(4, k, 60, 2), 0, 0), nil},
			degenerateCase{fmt.Sprintf("two constant columns k=%d", k), k, withColumn(withColumn(pseudoRows(4, k, 60, 3), 0, 0), 3, k-1), nil},
			degenerateCase{fmt.Sprintf("all constant k=%d", k), k, withColumn(withColumn(withColumn(pseudoRows(3, k, 50, 4), 0, 0), 1, 1), 2, k-1), nil},
			degenerateCase{fmt.Sprintf("one variable k=%d", k), k, pseudoRows(1, k, 60, 5), nil},
			degenerateCase{fmt.Sprintf("one constant variable k=%d", k), k, withColumn(pseudoRows(1, k, 20, 5), 0, 1), nil},
			degenerateCase{fmt.Sprintf("two variables k=%d", k), k, pseudoRows(2, k, 60, 6), nil},
			degenerateCase{fmt.Sprintf("all rows identical k=%d", k), k, [][]int{{0, 1, k - 1}, {0, 1, k - 1}, {0, 1, k - 1}, {0, 1, k - 1}, {0, 1, k - 1}, {0, 1, k - 1}}, nil},
			degenerateCase{fmt.Sprintf("two identical rows k=%d", k), k, [][]int{{0, 1, 0, 1}, {0, 1, 0, 1}}, nil},
			degenerateCase{fmt.Sprintf("single row k=%d", k), k, [][]int{{0, 1, k - 1}}, nil},
			degenerateCase{fmt.Sprintf("single row one variable k=%d", k), k, [][]int{{k - 1}}, nil},
			degenerateCase{fmt.Sprintf("weights with zeros k=%d", k), k, pseudoRows(3, k, 40, 7), zeroEvery(40, 3)},
			degenerateCase{fmt.Sprintf("one positive weight k=%d", k), k, pseudoRows(3, k, 10, 8), onlyOne(10, 4)},
			degenerateCase{fmt.Sprintf("weights making a column constant k=%d", k), k, [][]int{{0, 0, 1}, {1, 0, 0}, {1, 1, 1}, {0, 1, 0}, {1, 0, 1}}, []float64{1, 0, 2, 0, 3}},
			degenerateCase{fmt.Sprintf("tiny weights k=%d", k), k, pseudoRows(3, k, 30, 9), constWeights(30, 1e-300)},
			degenerateCase{fmt.Sprintf("huge weights k=%d", k), k, pseudoRows(3, k, 30, 10), constWeights(30, 1e300)},
		)
	}
	// A value that occurs once, and value pairs with no rows.
	once := pseudoRows(4, 2, 60, 11)
	once[17][2] = 2
	cs = append(cs, degenerateCase{"a value that occurs once k=3", 3, once, nil})
	missing := pseudoRows(4, 2, 60, 12) // states 0, 1 only
	cs = append(cs, degenerateCase{"value pairs with no rows k=4", 4, missing, nil})
	gap := pseudoRows(3, 3, 60, 13)
	for _, r := range gap {
		if r[1] == 1 {
			r[1] = 0 // column 1 has states 0 and 2 only
		}
	}
	cs = append(cs, degenerateCase{"a state that never occurs in a column k=3", 3, gap, nil})
	// Perfectly dependent columns: separable regressions.
	dup := pseudoRows(3, 2, 60, 14)
	for _, r := range dup {
		r[2] = r[0]
	}
	cs = append(cs, degenerateCase{"duplicated column k=2", 2, dup, nil})
	dup3 := pseudoRows(3, 3, 60, 15)
	for _, r := range dup3 {
		r[2] = r[0]
	}
	cs = append(cs, degenerateCase{"duplicated column k=3", 3, dup3, nil})
	return cs
}

func zeroEvery(N, p int) []float64 {
	w := make([]float64, N)
	for m := range w {
		if m%p != 0 {
			w[m] = float64(1 + m%3)
		}
	}
	return w
}

func onlyOne(N, m int) []float64 {
	w := make([]float64, N)
	w[m] = 2
	return w
}

func constWeights(N int, c float64) []float64 {
	w := make([]float64, N)
	for m := range w {
		w[m] = c
	}
	return w
}

// learnVariant is one way of calling the learners.
type learnVariant struct {
	name string
	opts []Option
}

// learnVariants are the paths of issue 18: λ and η given or not, the
// selection rules, the symmetrisations and the backends. The iteration cap
// keeps the runs short; it does not change which code runs.
func learnVariants() []learnVariant {
	base := []Option{WithMaxIterations(300), WithWorkers(2)}
	with := func(o ...Option) []Option { return append(append([]Option(nil), base...), o...) }
	return []learnVariant{
		{"lambda+eta", with(WithWidth(1), WithMinEdgeWeight(0.3))},
		{"lambda", with(WithWidth(1))},
		{"eta", with(WithMinEdgeWeight(0.3))},
		{"neither", with()},
		{"radius", with(WithRadius(1.5))},
		{"cv", with(WithSelection(CrossValidation{Folds: 2}))},
		{"cv default folds", with(WithSelection(CrossValidation{}))},
		{"ebic gamma 0", with(WithSelection(EBIC{}))},
		{"and", with(WithSymmetrization(And))},
		{"or", with(WithSymmetrization(Or))},
		{"lambda+eta and", with(WithWidth(1), WithMinEdgeWeight(0.3), WithSymmetrization(And))},
		{"no refit no mixture no gap", with(WithRefit(false), WithEdgeMixture(false), WithEdgeGap(false))},
		{"entropic", with(WithSolver(EntropicMirror{}))},
		{"entropic lambda+eta", with(WithSolver(EntropicMirror{}), WithWidth(1), WithMinEdgeWeight(0.3))},
		{"group", with(WithSolver(GroupMirror{}))},
		{"group lambda+eta", with(WithSolver(GroupMirror{}), WithWidth(1), WithMinEdgeWeight(0.3))},
		{"group paper", with(WithSolver(GroupMirror{Schedule: Paper, T: 50}), WithWidth(1), WithMinEdgeWeight(0.3))},
		{"sparsitron", with(WithSolver(Sparsitron{}))},
		{"sparsitron lambda+eta", with(WithSolver(Sparsitron{}), WithWidth(1), WithMinEdgeWeight(0.3))},
		{"sparsitron cv", with(WithSolver(Sparsitron{}), WithSelection(CrossValidation{Folds: 2}))},
	}
}

// learnSafely runs Learn and turns a panic into an error that carries the
// stack, so that a test reports it instead of dying.
func learnSafely(s *Samples, opts ...Option) (res *Result, err error, panicked error) {
	defer func() {
		if p := recover(); p != nil {
			panicked = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	res, err = Learn(s, opts...)
	return res, err, nil
}

// checkFiniteResult returns an error naming the first NaN or infinity in
// what r reports, or an inconsistency between r and the samples' shape.
// Result.Radius is NaN by design when the widths were chosen, and
// Result.Width when WithRadius replaced λ; the accessors of Tuning return NaN
// by design when the edge test did not run.
func checkFiniteResult(r *Result, s *Samples) error {
	if r == nil {
		return errors.New("nil result without an error")
	}
	n, k := s.Vars(), s.Alphabet()
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
	if r.Model == nil || r.Model.Vars() != n || r.Model.Alphabet() != k {
		return fmt.Errorf("model of the wrong shape: %v", r.Model)
	}
	if len(r.Nodes) != n {
		return fmt.Errorf("%d node fits, want %d", len(r.Nodes), n)
	}
	for _, e := range r.Edges {
		if bad(e.Weight) || e.Weight <= 0 || e.I < 0 || e.I >= e.J || e.J >= n {
			return fmt.Errorf("bad edge %+v", e)
		}
	}
	if got, want := len(r.Model.Edges()), len(r.Edges); got != want {
		return fmt.Errorf("model has %d edges, result %d", got, want)
	}
	for i := 0; i < n; i++ {
		for _, v := range r.Model.Field(i) {
			if bad(v) {
				return fmt.Errorf("field %d: %v", i, r.Model.Field(i))
			}
		}
		for j := 0; j < n; j++ {
			for _, v := range r.Model.Coupling(i, j).RawMatrix().Data {
				if bad(v) {
					return fmt.Errorf("coupling (%d, %d): %v", i, j, v)
				}
			}
			for _, v := range r.Estimate(i, j).RawMatrix().Data {
				if bad(v) {
					return fmt.Errorf("estimate (%d, %d): %v", i, j, v)
				}
			}
		}
		f := r.Nodes[i]
		if f.Node != i || bad(f.Loss) || bad(f.Gap) || bad(f.Width) || f.Loss < 0 || f.Gap < 0 || f.Width < 0 {
			return fmt.Errorf("node fit %d: %+v", i, f)
		}
	}
	if bad(r.MinEdgeWeight) || r.MinEdgeWeight < 0 {
		return fmt.Errorf("MinEdgeWeight %v", r.MinEdgeWeight)
	}
	if bad(r.Width) && !math.IsNaN(r.Width) {
		return fmt.Errorf("Width %v", r.Width)
	}
	if bad(r.Radius) && !math.IsNaN(r.Radius) {
		return fmt.Errorf("Radius %v", r.Radius)
	}
	t := r.Tuning
	if t == nil {
		return nil
	}
	for _, v := range []float64{t.FalseEdgeRate, t.Critical, t.Threshold, t.Lowest, t.Screen} {
		if bad(v) {
			return fmt.Errorf("tuning %+v", *t)
		}
	}
	if t.Mixture != nil {
		m := t.Mixture
		if bad(m.EdgeShare) || bad(m.LogMean) || bad(m.LogSD) {
			return fmt.Errorf("mixture %+v", *m)
		}
	}
	tested := t.Critical > 0
	for i := 0; i < n; i++ {
		widths, crit := t.Path(i)
		if len(widths) != len(crit) {
			return fmt.Errorf("node %d: path of %d widths and %d values", i, len(widths), len(crit))
		}
		for x := range widths {
			if bad(widths[x]) || bad(crit[x]) {
				return fmt.Errorf("node %d: path %v %v", i, widths, crit)
			}
		}
		if !tested {
			continue
		}
		for j := 0; j < n; j++ {
			if j == i {
				continue
			}
			if z := t.Score(i, j); bad(z) || z < 0 {
				return fmt.Errorf("score (%d, %d) = %v", i, j, z)
			}
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					if v := t.Debiased(i, j, a, b); bad(v) {
						return fmt.Errorf("debiased (%d, %d, %d, %d) = %v", i, j, a, b, v)
					}
					if v := t.StdErr(i, j, a, b); bad(v) || v < 0 {
						return fmt.Errorf("standard error (%d, %d, %d, %d) = %v", i, j, a, b, v)
					}
				}
			}
		}
	}
	return nil
}

// constantVars returns the variables whose value is the same in every row
// of positive weight.
func constantVars(s *Samples) []bool {
	n := s.Vars()
	first := -1
	c := make([]bool, n)
	for m := 0; m < s.Len(); m++ {
		if s.Weight(m) == 0 {
			continue
		}
		if first < 0 {
			first = m
			for i := range c {
				c[i] = true
			}
			continue
		}
		for i := range c {
			if s.At(m, i) != s.At(first, i) {
				c[i] = false
			}
		}
	}
	return c
}

// TestLearnDegenerate runs every variant on every degenerate case: no panic,
// and either an error that starts with "pairwise: " or a finite result in
// which a constant variable has no edge.
func TestLearnDegenerate(t *testing.T) {
	for _, c := range degenerateCases() {
		s, err := c.samples()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		constant := constantVars(s)
		for _, v := range learnVariants() {
			res, err, p := learnSafely(s, v.opts...)
			if p != nil {
				t.Errorf("%s, %s: %v", c.name, v.name, p)
				continue
			}
			if err != nil {
				if !strings.HasPrefix(err.Error(), "pairwise: ") {
					t.Errorf("%s, %s: error without the prefix: %v", c.name, v.name, err)
				}
				t.Logf("%s, %s: %v", c.name, v.name, err)
				continue
			}
			if err := checkFiniteResult(res, s); err != nil {
				t.Errorf("%s, %s: %v", c.name, v.name, err)
				continue
			}
			for _, e := range res.Edges {
				if constant[e.I] || constant[e.J] {
					t.Errorf("%s, %s: edge %+v at a constant variable", c.name, v.name, e)
				}
			}
		}
	}
}
