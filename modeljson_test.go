package pairwise

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/mrfkit/pairwise/internal/estimates"
	"gonum.org/v1/gonum/mat"
)

// checkSameModel fails t unless got equals want exactly: sizes, names,
// every coupling and every field, bit for bit.
func checkSameModel(t *testing.T, got, want *Model) {
	t.Helper()
	if got.Vars() != want.Vars() || got.Alphabet() != want.Alphabet() {
		t.Fatalf("n, k = %d, %d, want %d, %d", got.Vars(), got.Alphabet(), want.Vars(), want.Alphabet())
	}
	if !reflect.DeepEqual(got.Names(), want.Names()) {
		t.Errorf("Names() = %q, want %q", got.Names(), want.Names())
	}
	if !reflect.DeepEqual(got.Edges(), want.Edges()) {
		t.Errorf("Edges() = %v, want %v", got.Edges(), want.Edges())
	}
	n := want.Vars()
	for i := 0; i < n; i++ {
		if g, w := got.Field(i), want.Field(i); !estimates.SameBlock(g, w) {
			t.Errorf("Field(%d) = %v, want %v", i, g, w)
		}
		for j := 0; j < n; j++ {
			g, w := got.Coupling(i, j).RawMatrix().Data, want.Coupling(i, j).RawMatrix().Data
			if !estimates.SameBlock(g, w) {
				t.Errorf("Coupling(%d, %d) = %v, want %v", i, j, g, w)
			}
		}
	}
}

func TestModelJSONRoundTrip(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 1))
	named := gridIsing(3, 3, r, 0.2, 0.6)
	if err := named.SetNames([]string{"a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3"}); err != nil {
		t.Fatal(err)
	}
	withField := randomCouplingModel(4, 3, [][2]int{{0, 1}, {2, 3}, {1, 3}}, r, 1, 0.5)
	// Values that stress the number formatting: tiny, huge, negative zero,
	// and values with no short decimal form.
	awkward, _ := NewModel(2, 2)
	if err := awkward.SetCoupling(0, 1, mat.NewDense(2, 2, []float64{5e-324, -1e300, 1.0 / 3, math.Copysign(0, -1)})); err != nil {
		t.Fatal(err)
	}
	if err := awkward.SetField(1, []float64{math.Pi, -math.MaxFloat64}); err != nil {
		t.Fatal(err)
	}
	unicodeNames, _ := NewModel(2, 5)
	if err := unicodeNames.SetNames([]string{"température", `back\slash <tag> 'q'`}); err != nil {
		t.Fatal(err)
	}
	for _, test := range []struct {
		name string
		m    *Model
	}{
		{name: "Ising grid with names", m: named},
		{name: "k 3 with fields", m: withField},
		{name: "no couplings", m: unicodeNames},
		{name: "awkward numbers", m: awkward},
		{name: "Potts grid k 4", m: gridPotts(2, 3, 4, 0.2, r)},
	} {
		t.Run(test.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := test.m.WriteModel(&buf); err != nil {
				t.Fatal(err)
			}
			if !json.Valid(buf.Bytes()) {
				t.Fatalf("WriteModel wrote invalid JSON:\n%s", buf.String())
			}
			got, err := ReadModel(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatalf("ReadModel: %v\n%s", err, buf.String())
			}
			checkSameModel(t, got, test.m)

			// The same through encoding/json, as a member of a caller's document.
			type doc struct {
				Label string
				Model *Model
			}
			b, err := json.Marshal(doc{"x", test.m})
			if err != nil {
				t.Fatal(err)
			}
			var back doc
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatalf("json.Unmarshal: %v", err)
			}
			checkSameModel(t, back.Model, test.m)
		})
	}
}

// The documented example of the format reads as the model it describes.
func TestReadModelExample(t *testing.T) {
	t.Parallel()
	const in = `{
  "n": 3,
  "k": 2,
  "names": ["smoker", "cough", "fever"],
  "couplings": [
    {"i": 0, "j": 1, "w": [[0.5, -0.5], [-0.5, 0.5]]},
    {"i": 2, "j": 1, "w": [[-0.25, 0.25], [0.25, -0.25]]},
    {"i": 0, "j": 2, "w": [[0, 0], [0, 0]]}
  ],
  "fields": [[-0.1, 0.1], [0, 0], [0, 0]]
}`
	got, err := ReadModel(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := NewModel(3, 2)
	for _, err := range []error{
		want.SetCoupling(0, 1, mat.NewDense(2, 2, []float64{0.5, -0.5, -0.5, 0.5})),
		want.SetCoupling(1, 2, mat.NewDense(2, 2, []float64{-0.25, 0.25, 0.25, -0.25})), // the transpose of W_21, which is symmetric
		want.SetField(0, []float64{-0.1, 0.1}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := want.SetNames([]string{"smoker", "cough", "fever"}); err != nil {
		t.Fatal(err)
	}
	checkSameModel(t, got, want)
}

func TestReadModelErrors(t *testing.T) {
	t.Parallel()
	const ok2 = `"couplings": [], "fields": [[0, 0], [0, 0]]`
	for _, test := range []struct {
		name string
		in   string
		want string // a substring of the error, after the prefix "pairwise: ReadModel: "
	}{
		{name: "empty", in: "", want: "line 1, column 1: unexpected end of input"},
		{name: "not an object", in: "[1, 2]", want: "line 1, column 1: the model must be a JSON object"},
		{name: "syntax", in: "{\n  \"n\": 2,\n  \"k\" 2\n}", want: "line 3, column 7: k: malformed JSON: invalid character '2' after object key"},
		{name: "truncated", in: `{"n": 2, "k": 2, "couplings": [`, want: "unexpected end of input"},
		{name: "trailing data", in: `{"n": 1, "k": 2, "couplings": [], "fields": [[0, 0]]} {}`, want: "line 1, column 55: unexpected data after the model object"},
		{name: "missing n", in: `{"k": 2, "couplings": [], "fields": []}`, want: `line 1, column 1: missing member "n"`},
		{name: "missing fields", in: `{"n": 2, "k": 2, "couplings": []}`, want: `missing member "fields"`},
		{name: "missing couplings", in: `{"n": 1, "k": 2, "fields": [[0, 0]]}`, want: `missing member "couplings"`},
		{name: "unknown member", in: `{"n": 2, "k": 2, "coupling": []}`, want: `line 1, column 18: unknown member "coupling"`},
		{name: "repeated member", in: `{"n": 2, "n": 2}`, want: `line 1, column 10: member "n" appears twice`},
		{name: "n not an integer", in: `{"n": 2.5, "k": 2}`, want: "line 1, column 7: n: 2.5 is not an integer"},
		{name: "n a string", in: `{"n": "2", "k": 2}`, want: `n: want an integer, found the string "2"`},
		{name: "n zero", in: `{"n": 0, "k": 2, "couplings": [], "fields": []}`, want: "line 1, column 7: n: n = 0 variables, want at least 1"},
		{name: "k one", in: `{"n": 2, "k": 1, ` + ok2 + `}`, want: "line 1, column 15: k: alphabet size k = 1, want 2 to 65536"},
		{name: "k huge", in: `{"n": 1, "k": 99999999, "couplings": [], "fields": [[0]]}`, want: "k: alphabet size k = 99999999"},
		{name: "too few fields", in: `{"n": 3, "k": 2, ` + ok2 + `}`, want: "line 1, column 45: fields: 2 fields, want n = 3"},
		{name: "short field", in: "{\"n\": 2, \"k\": 2, \"couplings\": [],\n \"fields\": [[0, 0], [0]]}", want: "line 2, column 21: fields[1]: 1 entries, want k = 2"},
		{name: "field of strings", in: `{"n": 1, "k": 2, "couplings": [], "fields": [["a", 0]]}`, want: "fields[0]: found a string, want a number that fits a float64"},
		{name: "null field", in: `{"n": 1, "k": 2, "couplings": [], "fields": [null]}`, want: "fields[0]: want an array of k numbers, found null"},
		{name: "field too large", in: `{"n": 1, "k": 2, "couplings": [], "fields": [[1e999, 0]]}`, want: "fields[0]: found the number 1e999, want a number that fits a float64"},
		{name: "NaN", in: `{"n": 1, "k": 2, "couplings": [], "fields": [[NaN, 0]]}`, want: "malformed JSON: invalid character 'N'"},
		{name: "couplings not an array", in: `{"n": 2, "k": 2, "couplings": {}}`, want: "couplings: want an array, found an object"},
		{name: "coupling missing w", in: `{"n": 2, "k": 2, "couplings": [{"i": 0, "j": 1}], "fields": [[0, 0], [0, 0]]}`, want: `line 1, column 32: couplings[0]: missing member "w"`},
		{name: "coupling missing i", in: `{"n": 2, "k": 2, "couplings": [{"j": 1, "w": [[0, 0], [0, 0]]}], "fields": [[0, 0], [0, 0]]}`, want: `couplings[0]: missing member "i"`},
		{name: "coupling unknown member", in: `{"n": 2, "k": 2, "couplings": [{"i": 0, "j": 1, "v": 1}]}`, want: `couplings[0]: unknown field "v"`},
		{name: "i equals j", in: `{"n": 2, "k": 2, "couplings": [{"i": 1, "j": 1, "w": [[0, 0], [0, 0]]}], "fields": [[0, 0], [0, 0]]}`, want: "couplings[0]: i = j = 1"},
		{name: "index out of range", in: `{"n": 2, "k": 2, "couplings": [{"i": 0, "j": 2, "w": [[0, 0], [0, 0]]}], "fields": [[0, 0], [0, 0]]}`, want: `couplings[0]: "j" = 2 is outside 0..1 (n = 2)`},
		{name: "negative index", in: `{"n": 2, "k": 2, "couplings": [{"i": -1, "j": 1, "w": [[0, 0], [0, 0]]}], "fields": [[0, 0], [0, 0]]}`, want: `couplings[0]: "i" = -1 is outside 0..1`},
		{name: "fractional index", in: `{"n": 2, "k": 2, "couplings": [{"i": 0.5, "j": 1, "w": [[0, 0], [0, 0]]}], "fields": [[0, 0], [0, 0]]}`, want: `couplings[0]: "i" = 0.5 is not an integer`},
		{name: "wrong-sized matrix", in: "{\"n\": 2, \"k\": 2, \"couplings\": [\n  {\"i\": 0, \"j\": 1, \"w\": [[0, 0, 1], [0, 0]]}\n], \"fields\": [[0, 0], [0, 0]]}", want: "line 2, column 3: couplings[0].w[0]: 3 entries, want k = 2"},
		{name: "matrix with too few rows", in: `{"n": 2, "k": 2, "couplings": [{"i": 0, "j": 1, "w": [[0, 0]]}], "fields": [[0, 0], [0, 0]]}`, want: "couplings[0].w: 1 rows, want k = 2"},
		{name: "matrix not an array", in: `{"n": 2, "k": 2, "couplings": [{"i": 0, "j": 1, "w": 3}]}`, want: "couplings[0].w: found a number, want an array of arrays of numbers"},
		{name: "duplicate pair", in: `{"n": 2, "k": 2, "couplings": [{"i": 0, "j": 1, "w": [[1, 0], [0, 0]]}, {"i": 1, "j": 0, "w": [[1, 0], [0, 0]]}], "fields": [[0, 0], [0, 0]]}`, want: "couplings[1]: the pair (0, 1) repeats couplings[0]"},
		{name: "wrong number of names", in: `{"n": 2, "k": 2, "names": ["a"], ` + ok2 + `}`, want: "line 1, column 27: names: 1 names, want n = 2"},
		{name: "repeated name", in: `{"n": 2, "k": 2, "names": ["a", "a"], ` + ok2 + `}`, want: `line 1, column 33: names[1]: "a" repeats names[0]`},
		{name: "integer name", in: `{"n": 2, "k": 2, "names": ["a", "7"], ` + ok2 + `}`, want: `names[1]: name "7" is an integer`},
		{name: "name with comma", in: `{"n": 2, "k": 2, "names": ["a,b", "c"], ` + ok2 + `}`, want: `names[0]: name "a,b" contains a comma`},
		{name: "name not a string", in: `{"n": 2, "k": 2, "names": [1, "c"], ` + ok2 + `}`, want: "names[0]: found a number, want a string"},
	} {
		t.Run(test.name, func(t *testing.T) {
			m, err := ReadModel(strings.NewReader(test.in))
			if err == nil {
				t.Fatalf("ReadModel(%s) = %d variables, want an error", test.in, m.Vars())
			}
			const prefix = "pairwise: ReadModel: "
			if !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("error %q lacks the prefix %q", err, prefix)
			}
			if !strings.Contains(err.Error(), test.want) {
				t.Errorf("error\n\t%s\ndoes not contain\n\t%s", err, test.want)
			}
			// UnmarshalJSON reports the same problem and leaves the model as it was.
			before, _ := NewModel(1, 3)
			um := before.Clone()
			if err := um.UnmarshalJSON([]byte(test.in)); err == nil || !strings.HasPrefix(err.Error(), "pairwise: Model.UnmarshalJSON: ") {
				t.Errorf("UnmarshalJSON: error %v, want one with the prefix pairwise: Model.UnmarshalJSON: ", err)
			}
			checkSameModel(t, um, before)
		})
	}
}

func TestModelNames(t *testing.T) {
	t.Parallel()
	m, _ := NewModel(3, 2)
	if m.Names() != nil {
		t.Errorf("Names() = %q for a new model, want nil", m.Names())
	}
	for _, test := range []struct {
		name  string
		names []string
		want  string // "" for success
	}{
		{name: "ok", names: []string{"a", "b b", "ç"}},
		{name: "too few", names: []string{"a", "b"}, want: "pairwise: SetNames: 2 names for 3 variables"},
		{name: "duplicate", names: []string{"a", "b", "a"}, want: `pairwise: SetNames: variables 0 and 2 have the same name "a"`},
		{name: "empty", names: []string{"a", "", "c"}, want: "pairwise: SetNames: variable 1: empty name"},
		{name: "integer", names: []string{"a", "-3", "c"}, want: `variable 1: name "-3" is an integer`},
		{name: "quote", names: []string{"a", `b"`, "c"}, want: "variable 1: name \"b\\\"\" contains a comma, a double quote or a line break"},
		{name: "newline", names: []string{"a", "b\nc", "d"}, want: "a line break"},
		{name: "space", names: []string{"a", " b", "c"}, want: `name " b" begins or ends with white space`},
	} {
		t.Run(test.name, func(t *testing.T) {
			c := m.Clone()
			err := c.SetNames(test.names)
			if test.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(c.Names(), test.names) {
					t.Errorf("Names() = %q, want %q", c.Names(), test.names)
				}
				c.Names()[0] = "changed"
				test.names[0] = "changed too"
				if c.Names()[0] != "a" {
					t.Errorf("Names()[0] = %q after changing copies, want a", c.Names()[0])
				}
				if cc := c.Centered(); !reflect.DeepEqual(cc.Names(), c.Names()) {
					t.Errorf("Centered().Names() = %q, want %q", cc.Names(), c.Names())
				}
				if err := c.SetNames(nil); err != nil || c.Names() != nil {
					t.Errorf("SetNames(nil) = %v, Names() = %q, want no names", err, c.Names())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), test.want) {
				t.Errorf("SetNames(%q) = %v, want an error containing %q", test.names, err, test.want)
			}
			if c.Names() != nil {
				t.Errorf("Names() = %q after a failed SetNames, want nil", c.Names())
			}
		})
	}
}

// modelSeeds are fuzzing seeds for ReadModel: valid models and near misses.
var modelSeeds = []string{
	`{"n": 1, "k": 2, "couplings": [], "fields": [[0, 0]]}`,
	`{"n": 2, "k": 2, "names": ["a", "b"], "couplings": [{"i": 0, "j": 1, "w": [[1, -1], [-1, 1]]}], "fields": [[0, 0], [-0.5, 0.5]]}`,
	`{"n": 3, "k": 3, "couplings": [{"i": 2, "j": 0, "w": [[1, 2, 3], [4, 5, 6], [7, 8, 9]]}], "fields": [[0, 0, 0], [0, 1e-300, 0], [1e300, 0, -0]]}`,
	`{"n": 2, "k": 2, "couplings": [{"i": 0, "j": 1, "w": [[0, 0], [0, 0]]}], "fields": [[0, 0], [0, 0]]}`,
	`{"n": 2, "k": 2, "couplings": [{"i": 0, "j": 0, "w": [[0, 0], [0, 0]]}], "fields": [[0, 0], [0, 0]]}`,
	`{"n": 2, "k": 2, "names": ["1", "b"], "couplings": [], "fields": [[0, 0], [0, 0]]}`,
	`{"n": 2, "k": 2, "couplings": [], "fields": [[0, 0], [0]]}`,
	`{"n": 2, "k": 2}`,
	`{"n": 1e9, "k": 2, "couplings": [], "fields": []}`,
	`[]`,
	``,
}

func FuzzReadModel(f *testing.F) {
	for _, s := range modelSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadModel(bytes.NewReader(data))
		if err != nil {
			if m != nil {
				t.Fatalf("non-nil model with error %v", err)
			}
			if !strings.HasPrefix(err.Error(), "pairwise: ReadModel: line ") {
				t.Fatalf("error %q does not start with the prefix and a line", err)
			}
			return
		}
		if m.Vars() < 1 || m.Alphabet() < 2 {
			t.Fatalf("n, k = %d, %d", m.Vars(), m.Alphabet())
		}
		var buf bytes.Buffer
		if err := m.WriteModel(&buf); err != nil {
			t.Fatal(err)
		}
		got, err := ReadModel(&buf)
		if err != nil {
			t.Fatalf("reading back what WriteModel wrote: %v\n%s", err, buf.String())
		}
		checkSameModel(t, got, m)
	})
}
