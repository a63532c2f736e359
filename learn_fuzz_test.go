package pairwise

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// FuzzLearn runs the learners on small data and options drawn from the
// fuzzer's bytes and checks that they never panic and return either an
// error that starts with "pairwise: " or a result without NaN or infinity
// (checkFiniteResult) in which constant variables have no edge.
//
// The bytes are read by fuzzLearnCase: a header of eight bytes (n, k, N,
// two bytes of option flags, the choices of λ and η, the learner), then
// the N·n values (taken mod k, zero when the bytes run out), then, when
// the flags ask for weights, N weight codes (fuzzWeights). The seed corpus
// holds every data set of degenerateCases under several option sets.
func FuzzLearn(f *testing.F) {
	for ci, c := range degenerateCases() {
		for oi, opt := range fuzzSeedOptions {
			if raceEnabled && (ci+oi)%4 != 0 {
				continue // see raceEnabled; fuzzing itself never runs under -race in CI
			}
			data, err := encodeFuzzCase(c, opt)
			if err != nil {
				f.Fatalf("%s: %v", c.name, err)
			}
			f.Add(data)
		}
	}
	for x, data := range fuzzMissingSeeds() {
		if raceEnabled && x%4 != 0 {
			continue // as above
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fc := fuzzLearnCase(data)
		var s *Samples
		var err error
		switch {
		case fc.missing:
			s, err = NewIncompleteSamples(fc.k, fc.rows, fc.weights)
		case fc.weights != nil:
			s, err = NewWeightedSamples(fc.k, fc.rows, fc.weights)
		default:
			s, err = NewSamples(fc.k, fc.rows)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "pairwise: ") {
				t.Fatalf("samples: error without the prefix: %v", err)
			}
			return // all weights zero
		}
		learn := LearnContext
		if fc.pairwise {
			learn = LearnPairwiseContext
		}
		var res *Result
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("%s: panic: %v", fc, p)
				}
			}()
			res, err = learn(context.Background(), s, fc.opts...)
		}()
		if err != nil {
			if !strings.HasPrefix(err.Error(), "pairwise: ") {
				t.Fatalf("%s: error without the prefix: %v", fc, err)
			}
			return
		}
		if err := checkFiniteResult(res, s); err != nil {
			t.Fatalf("%s: %v", fc, err)
		}
		constant := constantVars(s)
		if rep := res.Missing; rep != nil {
			// The variables constant in the data the rule learned from.
			switch rep.Rule {
			case ListwiseDeletion:
				c, _, _ := s.DropIncomplete()
				constant = constantVars(c)
			case AvailableCase:
				constant = constantObserved(s)
			}
		}
		for _, e := range res.Edges {
			if constant[e.I] || constant[e.J] {
				t.Fatalf("%s: edge %+v at a constant variable", fc, e)
			}
		}
		for i, nf := range res.Nodes {
			if nf.Constant != constant[i] {
				t.Fatalf("%s: node %d: Constant = %v, want %v", fc, i, nf.Constant, constant[i])
			}
		}
	})
}

// Bounds of FuzzLearn's data: small enough that one execution takes
// milliseconds, so that CI's -fuzztime 5000x stays short.
const (
	fuzzMaxVars     = 6
	fuzzMaxAlphabet = 5
	fuzzMaxRows     = 60
	fuzzMaxIter     = 200
)

// fuzzWidths and fuzzEdgeWeights are the λ and η the fuzzer chooses from:
// small, typical and far too large.
var (
	fuzzWidths      = []float64{0.05, 0.5, 1, 2.5, 30}
	fuzzEdgeWeights = []float64{1e-3, 0.1, 0.4, 2, 50}
	// fuzzWeights maps a weight code (mod 8) to a row weight: zero, small
	// counts, a fraction, and extremes whose sums stay finite.
	fuzzWeights = []float64{0, 1, 2, 3, 0.5, 1e-300, 1e300, 1e6}
)

// Option flags of FuzzLearn's first flag byte.
const (
	fuzzLambda    = 1 << 0 // WithWidth
	fuzzEta       = 1 << 1 // WithMinEdgeWeight
	fuzzSelShift  = 2      // 2 bits: EBIC default, CV{2}, CV default, EBIC{0}
	fuzzSymShift  = 4      // 2 bits: Average, And, Or, Average
	fuzzBackShift = 6      // 2 bits: default, EntropicMirror, GroupMirror, Sparsitron
)

// Option flags of FuzzLearn's second flag byte.
const (
	fuzzWeighted  = 1 << 0
	fuzzNoRefit   = 1 << 1
	fuzzNoMixture = 1 << 2
	fuzzNoGap     = 1 << 3
	fuzzRadius    = 1 << 4 // WithRadius(2λ) in place of WithWidth
	fuzzPaper     = 1 << 5 // the backend's Paper schedule, T = 50
	fuzzMissing   = 1 << 6 // a value byte ≥ fuzzMissingByte is Missing
)

// fuzzMissingByte is the least value byte read as Missing when the flag
// fuzzMissing is set: about one value in sixteen of random bytes.
const fuzzMissingByte = 0xf0

// The missing-value rule, bits 1 and 2 of the learner byte: the default,
// or WithMissing of fuzzMissingRules[bits-1].
var fuzzMissingRules = []MissingRule{MissingAsState, ListwiseDeletion, AvailableCase}

// fuzzCase is what FuzzLearn decoded from its bytes.
type fuzzCase struct {
	n, k     int
	rows     [][]int
	weights  []float64
	opts     []Option
	pairwise bool // LearnPairwise rather than Learn
	missing  bool // some value is Missing
	desc     string
}

func (c fuzzCase) String() string { return c.desc }

// fuzzLearnCase decodes FuzzLearn's bytes.
func fuzzLearnCase(data []byte) fuzzCase {
	at := func(x int) byte {
		if x < len(data) {
			return data[x]
		}
		return 0
	}
	fc := fuzzCase{
		n: 1 + int(at(0))%fuzzMaxVars,
		k: 2 + int(at(1))%(fuzzMaxAlphabet-1),
	}
	N := 1 + int(at(2))%fuzzMaxRows
	f1, f2 := at(3), at(4)
	lambda := fuzzWidths[int(at(5))%len(fuzzWidths)]
	eta := fuzzEdgeWeights[int(at(6))%len(fuzzEdgeWeights)]
	fc.pairwise = at(7)&1 == 1
	x := 8
	fc.rows = make([][]int, N)
	for m := range fc.rows {
		fc.rows[m] = make([]int, fc.n)
		for i := range fc.rows[m] {
			fc.rows[m][i] = int(at(x)) % fc.k
			if f2&fuzzMissing != 0 && at(x) >= fuzzMissingByte {
				fc.rows[m][i] = Missing
			}
			x++
		}
	}
	for _, row := range fc.rows {
		for _, v := range row {
			fc.missing = fc.missing || v == Missing
		}
	}
	if f2&fuzzWeighted != 0 {
		fc.weights = make([]float64, N)
		for m := range fc.weights {
			fc.weights[m] = fuzzWeights[int(at(x))%len(fuzzWeights)]
			x++
		}
	}
	var desc []string
	add := func(o Option, d string) {
		fc.opts = append(fc.opts, o)
		desc = append(desc, d)
	}
	fc.opts = []Option{WithMaxIterations(fuzzMaxIter), WithWorkers(1)}
	if f1&fuzzLambda != 0 {
		if f2&fuzzRadius != 0 {
			add(WithRadius(2*lambda), fmt.Sprintf("radius %v", 2*lambda))
		} else {
			add(WithWidth(lambda), fmt.Sprintf("λ %v", lambda))
		}
	}
	if f1&fuzzEta != 0 {
		add(WithMinEdgeWeight(eta), fmt.Sprintf("η %v", eta))
	}
	switch f1 >> fuzzSelShift & 3 {
	case 1:
		add(WithSelection(CrossValidation{Folds: 2}), "CV{2}")
	case 2:
		add(WithSelection(CrossValidation{}), "CV")
	case 3:
		add(WithSelection(EBIC{}), "EBIC{0}")
	}
	switch f1 >> fuzzSymShift & 3 {
	case 1:
		add(WithSymmetrization(And), "And")
	case 2:
		add(WithSymmetrization(Or), "Or")
	}
	schedule := Adaptive
	if f2&fuzzPaper != 0 {
		schedule = Paper
	}
	switch f1 >> fuzzBackShift & 3 {
	case 1:
		add(WithSolver(EntropicMirror{Schedule: schedule, T: 50}), "EntropicMirror")
	case 2:
		add(WithSolver(GroupMirror{Schedule: schedule, T: 50}), "GroupMirror")
	case 3:
		add(WithSolver(Sparsitron{}), "Sparsitron")
	}
	if f2&fuzzNoRefit != 0 {
		add(WithRefit(false), "no refit")
	}
	if f2&fuzzNoMixture != 0 {
		add(WithEdgeMixture(false), "no mixture")
	}
	if f2&fuzzNoGap != 0 {
		add(WithEdgeGap(false), "no gap")
	}
	if r := int(at(7)) >> 1 & 3; r > 0 {
		add(WithMissing(fuzzMissingRules[r-1]), fuzzMissingRules[r-1].String())
	}
	// Bits 3 and 4 of byte 7: the scale of k > 2 (none: AutoScale), 3
	// the mixed model: variable 0 declared nominal on the ordinal scale.
	switch at(7) >> 3 & 3 {
	case 1:
		add(WithScale(Ordinal), "ordinal")
	case 2:
		add(WithScale(Nominal), "nominal")
	case 3:
		add(WithScale(Ordinal), "ordinal")
		add(WithNominalVariables(0), "nominal 0")
	}
	learner := "Learn"
	if fc.pairwise {
		learner = "LearnPairwise"
	}
	fc.desc = fmt.Sprintf("%s n=%d k=%d N=%d weighted=%v [%s]", learner, fc.n, fc.k, N, fc.weights != nil, strings.Join(desc, ", "))
	return fc
}

// fuzzSeedOption is an option set of FuzzLearn's seed corpus: the two
// flag bytes and the choices of λ and η.
type fuzzSeedOption struct {
	f1, f2, lambda, eta, learner byte
}

// fuzzSeedOptions are the paths every degenerate case is seeded with: λ and
// η given or not, the selection rules, the symmetrisations and the backends.
var fuzzSeedOptions = []fuzzSeedOption{
	{f1: 0}, // neither: EBIC and the edge test
	{f1: fuzzLambda | fuzzEta, lambda: 2, eta: 2}, // the paper's algorithm
	{f1: fuzzLambda, lambda: 2},                   // λ only
	{f1: fuzzEta, eta: 2},                         // η only
	{f1: 1 << fuzzSelShift},                       // CrossValidation{Folds: 2}
	{f1: 2<<fuzzSelShift | 1<<fuzzSymShift},       // CrossValidation, And
	{f1: 2 << fuzzSymShift},                       // Or
	{f1: 1 << fuzzBackShift},                      // EntropicMirror
	{f1: 2 << fuzzBackShift, learner: 1},          // GroupMirror, LearnPairwise
	{f1: 3 << fuzzBackShift},                      // Sparsitron
	{f1: fuzzLambda | fuzzEta | 3<<fuzzBackShift, lambda: 2, eta: 2},
	{f1: fuzzLambda, f2: fuzzRadius | fuzzNoRefit | fuzzNoMixture | fuzzNoGap, lambda: 1},
	{learner: 1 << 3}, // WithScale(Ordinal), the edge test
	{f1: fuzzLambda | fuzzEta, lambda: 2, eta: 2, learner: 1 << 3}, // WithScale(Ordinal), λ and η
	{learner: 3 << 3}, // the mixed model: variable 0 nominal
}

// encodeFuzzCase returns the bytes from which FuzzLearn decodes the case
// with the options o.
func encodeFuzzCase(c degenerateCase, o fuzzSeedOption) ([]byte, error) {
	N, n := len(c.rows), len(c.rows[0])
	if n > fuzzMaxVars || c.k > fuzzMaxAlphabet || N > fuzzMaxRows {
		return nil, fmt.Errorf("n = %d, k = %d, N = %d outside FuzzLearn's bounds", n, c.k, N)
	}
	f2 := o.f2
	if c.weights != nil {
		f2 |= fuzzWeighted
	}
	data := []byte{byte(n - 1), byte(c.k - 2), byte(N - 1), o.f1, f2, o.lambda, o.eta, o.learner}
	for _, r := range c.rows {
		for _, v := range r {
			data = append(data, byte(v))
		}
	}
	for _, w := range c.weights {
		code := -1
		for x, v := range fuzzWeights {
			if v == w {
				code = x
			}
		}
		if code < 0 {
			return nil, fmt.Errorf("weight %v has no code", w)
		}
		data = append(data, byte(code))
	}
	return data, nil
}

// TestFuzzLearnDecode checks that the seed corpus decodes to the cases it
// encodes, so that the seeds are the degenerate cases and not others.
func TestFuzzLearnDecode(t *testing.T) {
	for _, c := range degenerateCases() {
		data, err := encodeFuzzCase(c, fuzzSeedOptions[1])
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		fc := fuzzLearnCase(data)
		if fc.k != c.k || fmt.Sprint(fc.rows) != fmt.Sprint(c.rows) || fmt.Sprint(fc.weights) != fmt.Sprint(c.weights) {
			t.Errorf("%s: decoded k=%d rows %v weights %v", c.name, fc.k, fc.rows, fc.weights)
		}
	}
}

// fuzzMissingSeeds are FuzzLearn's seeds with missing values: a column
// never observed, a column observed once, a column whose observed values
// are one value, every value missing, rows of zero weight whose values are
// the only observed ones, and random data with one value in eight missing;
// each under the default rule and the three rules, tuning-free and with λ
// and η, on binary data and (for the rules that take it) k = 3.
func fuzzMissingSeeds() [][]byte {
	const na = Missing
	type seed struct {
		k       int
		rows    [][]int
		weights []byte // codes of fuzzWeights; nil for none
	}
	rng := rand.New(rand.NewPCG(18, 1))
	random := func(n, N, k int) [][]int {
		rows := make([][]int, N)
		for m := range rows {
			rows[m] = make([]int, n)
			for i := range rows[m] {
				rows[m][i] = rng.IntN(k)
				if rng.IntN(8) == 0 {
					rows[m][i] = na
				}
			}
		}
		return rows
	}
	counts := func(N int) []byte { // weight codes of 1, 2, 3 and 0.5
		w := make([]byte, N)
		for m := range w {
			w[m] = byte(1 + rng.IntN(4))
		}
		return w
	}
	seeds := []seed{
		{k: 2, rows: [][]int{{0, na, 1}, {1, na, 0}, {1, na, 1}, {0, na, 0}, {1, na, 1}}},
		{k: 2, rows: [][]int{{0, 1, 1}, {1, na, 0}, {1, na, 1}, {0, na, 0}, {na, na, 1}}},
		{k: 2, rows: [][]int{{0, 1, 1}, {1, 1, 0}, {1, na, 1}, {0, 1, 0}, {na, 1, 1}}},
		{k: 2, rows: [][]int{{na, na}, {na, na}}},
		{k: 2, rows: [][]int{{0, 1}, {1, 0}, {na, 1}, {1, na}}, weights: []byte{1, 2, 0, 0}},
		{k: 2, rows: random(5, 40, 2)},
		{k: 2, rows: random(6, 60, 2), weights: counts(60)},
		{k: 3, rows: random(4, 40, 3)},
	}
	var out [][]byte
	for _, sd := range seeds {
		n := len(sd.rows[0])
		for _, opt := range []fuzzSeedOption{{f1: 0}, {f1: fuzzLambda | fuzzEta, lambda: 2, eta: 2}, {f1: 1 << fuzzSelShift}} {
			for rule := byte(0); rule < 4; rule++ {
				f2 := opt.f2 | fuzzMissing
				if sd.weights != nil {
					f2 |= fuzzWeighted
				}
				data := []byte{byte(n - 1), byte(sd.k - 2), byte(len(sd.rows) - 1), opt.f1, f2, opt.lambda, opt.eta, rule << 1}
				for _, r := range sd.rows {
					for _, v := range r {
						if v == na {
							data = append(data, fuzzMissingByte)
						} else {
							data = append(data, byte(v))
						}
					}
				}
				data = append(data, sd.weights...)
				out = append(out, data)
			}
		}
	}
	return out
}
