package pairwise

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/mrfkit/pairwise/internal/estimates"
)

// bitDiff reports the first difference between a and b, walking every
// field, exported or not, and comparing float64s by their bits (so NaN
// equals NaN and 0 differs from -0); "" when there is none. A nil and an
// empty slice count as equal.
func bitDiff(a, b reflect.Value, path string) string {
	if a.Kind() != b.Kind() {
		return path + ": kinds differ"
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return path + ": one is nil"
			}
			return ""
		}
		if a.Kind() == reflect.Interface && a.Elem().Type() != b.Elem().Type() {
			return path + ": types differ"
		}
		return bitDiff(a.Elem(), b.Elem(), path)
	case reflect.Struct:
		for f := 0; f < a.NumField(); f++ {
			if d := bitDiff(a.Field(f), b.Field(f), path+"."+a.Type().Field(f).Name); d != "" {
				return d
			}
		}
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: lengths %d and %d", path, a.Len(), b.Len())
		}
		for x := 0; x < a.Len(); x++ {
			if d := bitDiff(a.Index(x), b.Index(x), fmt.Sprintf("%s[%d]", path, x)); d != "" {
				return d
			}
		}
	case reflect.Float64, reflect.Float32:
		if math.Float64bits(a.Float()) != math.Float64bits(b.Float()) {
			return fmt.Sprintf("%s: %v and %v", path, a.Float(), b.Float())
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if a.Int() != b.Int() {
			return fmt.Sprintf("%s: %d and %d", path, a.Int(), b.Int())
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if a.Uint() != b.Uint() {
			return fmt.Sprintf("%s: %d and %d", path, a.Uint(), b.Uint())
		}
	case reflect.Bool:
		if a.Bool() != b.Bool() {
			return path + ": bools differ"
		}
	case reflect.String:
		if a.String() != b.String() {
			return fmt.Sprintf("%s: %q and %q", path, a.String(), b.String())
		}
	case reflect.Func:
		// Behaviour, not data: the sparse edge test's store computes
		// entries on demand (edgetest_sparse.go); its data are compared.
		if a.IsNil() != b.IsNil() {
			return path + ": one func is nil"
		}
	case reflect.Map:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: maps of %d and %d entries", path, a.Len(), b.Len())
		}
		for _, k := range a.MapKeys() {
			if !b.MapIndex(k).IsValid() {
				return fmt.Sprintf("%s: key %v in one map only", path, k)
			}
			if d := bitDiff(a.MapIndex(k), b.MapIndex(k), fmt.Sprintf("%s[%v]", path, k)); d != "" {
				return d
			}
		}
	default:
		return path + ": cannot compare kind " + a.Kind().String()
	}
	return ""
}

// checkSameResult fails the test when got differs from want in any bit.
func checkSameResult(t *testing.T, want, got *Result) {
	t.Helper()
	if d := bitDiff(reflect.ValueOf(want), reflect.ValueOf(got), "Result"); d != "" {
		t.Fatalf("merged result differs from the one-process result at %s", d)
	}
}

// shardSamples returns the small models' samples of the sharding tests:
// an Ising model on 10 spins (k = 2) and a Potts model on 6 variables
// (k = 3), random sparse couplings, drawn exactly with fixed seeds.
func shardSamples(t *testing.T, k int) *Samples {
	t.Helper()
	if k > 2 {
		return shardSamplesRows(t, k, 2000)
	}
	return shardSamplesRows(t, k, 1500)
}

// multinomialRows is the rows of shardSamplesRows that put k = 3 (six
// variables, 22 parameters a node law) within the multinomial default's
// rule (2 to 20 rows a parameter).
const multinomialRows = 400

// shardSamplesRows is shardSamples with the number of rows given.
func shardSamplesRows(t *testing.T, k, rows int) *Samples {
	t.Helper()
	n := 10
	if k > 2 {
		n = 6
	}
	r := rand.New(rand.NewPCG(21, uint64(k)))
	m := randomModel(t, n, k, 0.3, 0.6, r)
	es, err := NewExactSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := es.Sample(rand.NewPCG(7, uint64(k)), rows)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// roundTrip encodes p to JSON and decodes it.
func roundTrip(t *testing.T, p *Partial) *Partial {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	q := new(Partial)
	if err := json.Unmarshal(b, q); err != nil {
		t.Fatal(err)
	}
	return q
}

// TestShardedIdentical checks the promise of LearnShard and MergePartials:
// for m = 1, 2 and 7 shards, every part sent through JSON, the merged
// Result equals Learn's bit for bit, with λ and η given and tuning-free
// (EBIC widths and the edge test, its refit stage run by the merge), for
// k = 2 and k = 3. Seven shards of the six variables of k = 3 leave one
// shard without a node.
func TestShardedIdentical(t *testing.T) {
	cases := []struct {
		name string
		k    int
		opts []Option
		rows int // 0: shardSamples's
	}{
		{"k=2/given", 2, []Option{WithWidth(1.5), WithMinEdgeWeight(0.3)}, 0},
		// A small radius binds: most estimates are exact zeros, whose
		// signs must survive the round trip.
		{"k=2/binding", 2, []Option{WithWidth(0.2), WithMinEdgeWeight(0.05)}, 0},
		{"k=2/tuning-free", 2, nil, 0},
		{"k=2/cv,and", 2, []Option{WithSelection(CrossValidation{Folds: 3}), WithSymmetrization(And), WithMinEdgeWeight(0.3)}, 0},
		{"k=3/given", 3, []Option{WithWidth(1.5), WithMinEdgeWeight(0.3)}, 0},
		// The nominal default: the node-wise multinomial model, whose
		// refits travel with the parts (multinomial.go).
		{"k=3/multinomial", 3, []Option{WithScale(Nominal)}, multinomialRows},
		// With 91 rows a parameter, Algorithm 2 tuning-free.
		{"k=3/tuning-free", 3, []Option{WithScale(Nominal)}, 0},
		// Algorithm 2 tuning-free (a Selection given keeps it): its
		// widths and its block test.
		{"k=3/value-pairs", 3, []Option{WithScale(Nominal), WithSelection(EBIC{Gamma: DefaultGamma})}, 0},
		// The data choose the scale (nominal here: a Potts model), and
		// the merge reports the same evidence (Result.ScaleCheck).
		{"k=3/autoscale", 3, nil, 0},
		// The ordinal model, tuning-free (its refit, its test and its
		// EBIC graph stage) and with λ and η given.
		{"k=3/ordinal", 3, []Option{WithScale(Ordinal)}, 0},
		{"k=3/ordinal,given", 3, []Option{WithScale(Ordinal), WithWidth(1.5), WithMinEdgeWeight(0.1)}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := shardSamples(t, c.k)
			if c.rows > 0 {
				s = shardSamplesRows(t, c.k, c.rows)
			}
			opts := append([]Option{WithWorkers(2)}, c.opts...)
			want, err := Learn(s, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if c.name == "k=3/value-pairs" && !want.Tuning.Block {
				// The blocks' covariances must travel with the parts.
				t.Fatal("the k = 3 edge test did not use the grouped statistic")
			}
			if strings.HasSuffix(c.name, "multinomial") && !want.Tuning.Mixed {
				t.Fatalf("the nominal default did not fit the multinomial model (scale %v)", want.Scale)
			}
			if (c.name == "k=3/tuning-free" || c.name == "k=3/autoscale") && !want.Tuning.Block {
				t.Fatal("the nominal default at 91 rows a parameter did not fit Algorithm 2's blocks")
			}
			for _, m := range []int{1, 2, 7} {
				parts := make([]*Partial, m)
				for i := range parts {
					// The shards run with other worker counts than the
					// one-process learner: the result must not depend
					// on them.
					p, err := LearnShard(s, i, m, append(opts, WithWorkers(1+i%3))...)
					if err != nil {
						t.Fatal(err)
					}
					parts[i] = roundTrip(t, p)
				}
				// The merge's order of parts must not matter either.
				parts[0], parts[m-1] = parts[m-1], parts[0]
				got, err := MergePartialsContext(context.Background(), s, 1, parts...)
				if err != nil {
					t.Fatalf("m = %d: %v", m, err)
				}
				checkSameResult(t, want, got)
				if len(want.Edges) == 0 {
					t.Fatalf("m = %d: no edge learned: the model tests nothing", m)
				}
			}
		})
	}
}

// TestMergeWithoutSamples checks that a merge needs the samples only for
// the refit stage: without it the partials suffice and the result is
// Learn's; with it a merge without samples is an error.
func TestMergeWithoutSamples(t *testing.T) {
	s := shardSamples(t, 2)
	for _, refit := range []bool{false, true} {
		opts := []Option{WithRefit(refit)}
		want, err := Learn(s, opts...)
		if err != nil {
			t.Fatal(err)
		}
		var parts []*Partial
		for i := 0; i < 3; i++ {
			p, err := LearnShard(s, i, 3, opts...)
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, p)
		}
		_, err = MergePartials(parts...)
		if err == nil || !strings.Contains(err.Error(), "needs the samples") {
			// The edge test reads the samples whatever its refit stage
			// (the small-sample rule counts their values).
			t.Fatalf("refit %v without samples: error %v, want one saying the test needs them", refit, err)
		}
		got, err := MergePartialsContext(context.Background(), s, 2, parts...)
		if err != nil {
			t.Fatal(err)
		}
		checkSameResult(t, want, got)
	}
}

// TestMergePartialsErrors checks that parts that do not make one result
// are refused with an error that says why.
func TestMergePartialsErrors(t *testing.T) {
	s := shardSamples(t, 2)
	opts := []Option{WithWidth(1.5), WithMinEdgeWeight(0.3)}
	shard := func(i, m int, o ...Option) *Partial {
		p, err := LearnShard(s, i, m, o...)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p0, p1 := shard(0, 2, opts...), shard(1, 2, opts...)
	otherData := func() *Partial {
		rows := make([][]int, 50)
		for m := range rows {
			rows[m] = make([]int, 10)
			for i := range rows[m] {
				rows[m][i] = (m*7 + i*3) % 2
			}
		}
		s2, err := NewSamples(2, rows)
		if err != nil {
			t.Fatal(err)
		}
		p, err := LearnShard(s2, 1, 2, opts...)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}()
	cases := []struct {
		name  string
		parts []*Partial
		want  string
	}{
		{"none", nil, "no partial"},
		{"nil", []*Partial{p0, nil}, "nil"},
		{"missing", []*Partial{p0}, "in no partial"},
		{"twice", []*Partial{p0, p1, p1}, "is in partials"},
		{"other options", []*Partial{p0, shard(1, 2, WithWidth(1), WithMinEdgeWeight(0.3))}, "other options"},
		{"other samples", []*Partial{p0, otherData}, "other samples"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := MergePartials(c.parts...)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "pairwise: ") {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	if _, err := LearnShard(s, 2, 2, opts...); err == nil {
		t.Fatal("shard 2 of 2: no error")
	}
	if _, err := LearnNodes(s, []int{3, 3}, opts...); err == nil {
		t.Fatal("node listed twice: no error")
	}
	if p, err := LearnNodes(s, nil, opts...); err != nil || len(p.Nodes()) != 0 {
		t.Fatalf("no node: %v nodes, error %v", p.Nodes(), err)
	}
	if _, err := LearnNodes(s, []int{10}, opts...); err == nil {
		t.Fatal("node out of range: no error")
	}
	s2 := shardSamples(t, 2)
	tf := []Option{WithRefit(true)}
	q0, err := LearnShard(s2, 0, 1, tf...)
	if err != nil {
		t.Fatal(err)
	}
	rows := [][]int{{0, 1, 0, 1, 0, 1, 0, 1, 0, 1}, {1, 1, 0, 0, 1, 1, 0, 0, 1, 1}}
	wrong, _ := NewSamples(2, rows)
	if _, err := MergePartialsContext(context.Background(), wrong, 1, q0); err == nil || !strings.Contains(err.Error(), "not those") {
		t.Fatalf("merge with other samples: error %v", err)
	}
}

// TestPartialJSONExact checks that the JSON form keeps what encoding/json
// alone would lose or change: NaN, ±Inf, -0 and the shortest forms of
// awkward numbers, and the compact form of the Ising blocks only when it
// is exact.
func TestPartialJSONExact(t *testing.T) {
	vals := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, 0.1, 1e-320, math.MaxFloat64, -1.0 / 3}
	b, err := json.Marshal(shardFloats(vals))
	if err != nil {
		t.Fatal(err)
	}
	var got shardFloats
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if d := bitDiff(reflect.ValueOf(vals), reflect.ValueOf([]float64(got)), "v"); d != "" {
		t.Fatalf("%s: %s", b, d)
	}
	neg := math.Copysign(0, -1)
	for _, c := range []struct {
		v       []float64
		compact bool
	}{
		{[]float64{0.5, -0.5, -0.5, 0.5, 0, neg, neg, 0, 0, 0, 0, 0}, true}, // block 2 is the node's own
		{[]float64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, false},              // a cleared block: -0 would come back
		{[]float64{0.5, -0.5, -0.5, 0.25, 0, 0, 0, 0, 0, 0, 0, 0}, false},
		{[]float64{0.5, -0.5, -0.5, 0.5, 0, 0, 0, 0, 0, neg, neg, 0}, false}, // the own block must be +0
	} {
		p := packBlocks(c.v, estimates.IsingForm, 2)
		if (p.Form != nil) != c.compact {
			t.Errorf("%v: compact %v, want %v", c.v, p.Form != nil, c.compact)
		}
		u, err := p.unpack(2)
		if err != nil {
			t.Fatal(err)
		}
		if d := bitDiff(reflect.ValueOf(c.v), reflect.ValueOf(u), "v"); d != "" {
			t.Errorf("%v: %s", c.v, d)
		}
	}
	for _, bad := range []string{`[1,]`, `[1 2]`, `{"a":1}`, `["nan"]`} {
		var fs shardFloats
		if err := json.Unmarshal([]byte(bad), &fs); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestPartialFiles checks WritePartial and ReadPartial: plain and gzip
// files read back to partials that merge to Learn's result bit for bit,
// whatever follows the JSON value, and a truncated, corrupt or foreign
// file is an error that says so.
func TestPartialFiles(t *testing.T) {
	s := shardSamples(t, 2)
	opts := []Option{WithWidth(1.5), WithMinEdgeWeight(0.3), WithWorkers(1)}
	want, err := Learn(s, opts...)
	if err != nil {
		t.Fatal(err)
	}
	var files [2][]byte
	parts := make([]*Partial, 2)
	for i := range parts {
		p, err := LearnShard(s, i, 2, opts...)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := p.WritePartial(&b, i == 1); err != nil {
			t.Fatal(err)
		}
		files[i] = b.Bytes()
		if gz := len(files[i]) > 1 && files[i][0] == 0x1f && files[i][1] == 0x8b; gz != (i == 1) {
			t.Fatalf("shard %d: gzip %v, want %v", i, gz, i == 1)
		}
		// A second value after the first is not read.
		if parts[i], err = ReadPartial(bytes.NewReader(append(bytes.Clone(files[i]), "{}"...))); err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
	}
	got, err := MergePartials(parts...)
	if err != nil {
		t.Fatal(err)
	}
	checkSameResult(t, want, got)
	for _, c := range []struct {
		name, in, want string
	}{
		{"empty", "", "pairwise: ReadPartial: EOF"},
		{"truncated", string(files[0][:len(files[0])/2]), "pairwise: ReadPartial: unexpected EOF"},
		{"truncated gzip", string(files[1][:len(files[1])/2]), "pairwise: ReadPartial: unexpected EOF"},
		{"gzip header only", "\x1f\x8bxx", "pairwise: ReadPartial: unexpected EOF"},
		{"not JSON", "garbage", "pairwise: ReadPartial: invalid character 'g' looking for beginning of value"},
		{"another format", `{"format": "x"}`, `pairwise: Partial: format "x", want "pairwise-partial/2", or "pairwise-partial/4" or "pairwise-partial/5" for a part of the sparse edge test`},
	} {
		if _, err := ReadPartial(strings.NewReader(c.in)); err == nil || err.Error() != c.want {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	if err := parts[0].WritePartial(failWriter{}, false); err == nil || err.Error() != "disk full" {
		t.Errorf("failing writer: %v, want its error", err)
	}
}

// TestShardOrdinalNeedsSamples checks that a merge of ordinal parts
// without the samples is an error that says so: the ordinal scores and
// the edge test read them.
func TestShardOrdinalNeedsSamples(t *testing.T) {
	s := shardSamples(t, 3)
	p, err := LearnShard(s, 0, 1, WithScale(Ordinal), WithWidth(1.5), WithMinEdgeWeight(0.1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := MergePartials(roundTrip(t, p)); err == nil || !strings.Contains(err.Error(), "needs the samples") {
		t.Errorf("merge of ordinal parts without samples: %v, want an error naming the samples", err)
	}
}

// TestShardMultinomial checks the parts of the nominal default (the
// multinomial model): a merge without the samples is an error that says
// so; parts of other samples of the same shape, whose refits do not fit
// the samples given (a value variable 0 never takes), are refused with
// an error, not a panic; and a part whose refit was tampered with in its
// JSON (a parameter dropped) does not decode.
func TestShardMultinomial(t *testing.T) {
	s := shardSamplesRows(t, 3, multinomialRows)
	p, err := LearnShard(s, 0, 1, WithScale(Nominal))
	if err != nil {
		t.Fatal(err)
	}
	if p.algorithm != "multinomial" {
		t.Fatalf("algorithm %q, want multinomial", p.algorithm)
	}
	if _, err := MergePartials(roundTrip(t, p)); err == nil || !strings.Contains(err.Error(), "needs the samples") {
		t.Errorf("merge of multinomial parts without samples: %v, want an error naming the samples", err)
	}
	// The same rows with variable 0's value 2 made 1: node 0 takes two
	// values, not three.
	rows := make([][]int, s.Len())
	for m := range rows {
		rows[m] = make([]int, s.Vars())
		for j := range rows[m] {
			rows[m][j] = s.At(m, j)
		}
		if rows[m][0] == 2 {
			rows[m][0] = 1
		}
	}
	other, err := NewSamples(3, rows)
	if err != nil {
		t.Fatal(err)
	}
	q := roundTrip(t, p)
	q.data = fingerprint(other) // as if learned from other
	if _, err := MergePartialsContext(context.Background(), other, 1, q); err == nil || !strings.Contains(err.Error(), "does not fit") {
		t.Errorf("refits of other samples: %v, want an error saying they do not fit", err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	mixed := raw["nodes"].([]any)[0].(map[string]any)["mixed"].(map[string]any)
	mixed["par"] = mixed["par"].([]any)[1:]
	b, err = json.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := new(Partial).UnmarshalJSON(b); err == nil {
		t.Error("a refit with a parameter dropped decoded without error")
	}
}
