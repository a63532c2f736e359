package pairwise

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/mrfkit/pairwise/internal/estimates"
)

// denseOf returns r's per-node estimates in the dense layout the Result
// held before they were stored sparsely: dense[i][j*k*k + a*k + b] =
// Ŵ_ij(a, b).
func denseOf(r *Result) [][]float64 {
	d := make([][]float64, r.n)
	for i, e := range r.est {
		if e != nil {
			d[i] = e.Dense(r.n)
		}
	}
	return d
}

// symmetriseDense is symmetrise as it was on the dense layout, every pair
// looked at with the same rule for a pair (symmetricBlock): the reference
// the sparse version's choice of pairs is checked against.
func symmetriseDense(n, k int, est [][]float64, fields []float64, eta float64, sym Symmetrization) (*Model, []Edge) {
	kk := k * k
	m, _ := NewModel(n, k)
	copy(m.theta, fields)
	var edges []Edge
	half := eta / 2
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			avg, weight, keep := symmetricBlock(est[i][j*kk:(j+1)*kk], est[j][i*kk:(i+1)*kk], k, half, sym)
			if keep {
				m.setCoupling(i, j, avg)
				edges = append(edges, Edge{I: i, J: j, Weight: weight})
			}
		}
	}
	return m, edges
}

// TestSymmetriseSparseMatchesDense checks that the Result built from the
// sparse estimates has, bit for bit, the edges and couplings that the
// dense symmetrisation gives on the same estimates, for the three rules,
// k = 2 and 3, η at which the rules disagree, and a constant variable
// (whose pairs the learners zero). A small width makes the supports
// sparse, so that some edges come from one node's estimate alone.
func TestSymmetriseSparseMatchesDense(t *testing.T) {
	oneSided := 0 // edges that node I's estimates do not list
	defer func() {
		if oneSided == 0 {
			t.Error("no edge came from node J's estimate alone: the check does not cover the pairs that node I does not list")
		}
	}()
	for _, k := range []int{2, 3} {
		s := shardSamples(t, k)
		rows := make([][]int, s.Len())
		for m := range rows {
			rows[m] = make([]int, s.Vars())
			for i := range rows[m] {
				rows[m][i] = s.At(m, i)
			}
			rows[m][1] = 0 // variable 1 is constant
		}
		withConstant, err := NewSamples(k, rows)
		if err != nil {
			t.Fatal(err)
		}
		for _, data := range []*Samples{s, withConstant} {
			for _, sym := range []Symmetrization{Average, And, Or} {
				for _, c := range []struct{ lambda, eta float64 }{{1.5, 0.1}, {1.5, 0.4}, {0.3, 0.02}, {0.3, 0.1}} {
					eta := c.eta
					res, err := Learn(data, WithWidth(c.lambda), WithMinEdgeWeight(eta), WithSymmetrization(sym))
					if err != nil {
						t.Fatal(err)
					}
					fields := make([]float64, 0, res.n*k)
					for i := 0; i < res.n; i++ {
						fields = append(fields, res.Model.theta[i*k:(i+1)*k]...)
					}
					m, edges := symmetriseDense(res.n, k, denseOf(res), fields, eta, sym)
					for _, e := range edges {
						if _, ok := res.est[e.I].Find(e.J); !ok {
							oneSided++
						}
					}
					if !reflect.DeepEqual(edges, res.Edges) {
						t.Fatalf("k=%d, %v, η = %v: edges %v, dense %v", k, sym, eta, res.Edges, edges)
					}
					if d := bitDiff(reflect.ValueOf(m), reflect.ValueOf(res.Model), "Model"); d != "" {
						t.Fatalf("k=%d, %v, η = %v: models differ at %s", k, sym, eta, d)
					}
					for i := 0; i < res.n; i++ {
						for j := 0; j < res.n; j++ {
							got := res.Estimate(i, j).RawMatrix().Data
							if want := denseOf(res)[i][j*k*k : (j+1)*k*k]; !estimates.SameBlock(got, want) {
								t.Fatalf("Estimate(%d, %d) = %v, want %v", i, j, got, want)
							}
						}
					}
				}
			}
		}
	}
}

// TestReadPartialFormat1 reads shard files in the dense format 1, written
// by the version before the estimates were stored sparsely
// (testdata/partial-v1: testdata/grid.csv and survey.csv in two shards,
// with λ and η given and, for the grid, without), and checks, bit for bit,
// that every node's estimates are the numbers of the file (read here on
// their own: one number a block with the sign form, the node's own block
// +0), that writing a part again (format 2) and reading it back changes
// nothing, and that the parts merge as those written again do. It does
// not compare with today's learner, whose numerics may have moved since
// the files were written.
func TestReadPartialFormat1(t *testing.T) {
	read := func(path string, hist bool) *Samples {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var s *Samples
		if hist {
			s, err = ReadHistogramCSV(f)
		} else {
			s, err = ReadCSV(f)
		}
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	grid := read("testdata/grid.csv", false)
	survey := read("testdata/survey.csv", true)
	for _, c := range []struct {
		name string
		s    *Samples
	}{
		{"grid-given", grid},
		{"grid-default", grid},
		{"survey-given", survey},
	} {
		var old, again []*Partial
		for sh := 0; sh < 2; sh++ {
			raw, err := os.ReadFile(fmt.Sprintf("testdata/partial-v1/%s.%d.json", c.name, sh))
			if err != nil {
				t.Fatal(err)
			}
			p, err := ReadPartial(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			var doc struct {
				Format string
				N, K   int
				Nodes  []struct {
					Node      int
					Estimates struct {
						Form []float64
						V    []json.Number
					}
				}
			}
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			if err := dec.Decode(&doc); err != nil {
				t.Fatal(err)
			}
			if doc.Format != "pairwise-partial/1" || len(doc.Nodes) != len(p.nodes) {
				t.Fatalf("%s: format %q with %d nodes, want format 1 with %d", c.name, doc.Format, len(doc.Nodes), len(p.nodes))
			}
			kk := doc.K * doc.K
			for x, nd := range doc.Nodes {
				want := make([]float64, doc.N*kk)
				for b, num := range nd.Estimates.V {
					v, err := strconv.ParseFloat(num.String(), 64)
					if err != nil {
						t.Fatal(err)
					}
					switch {
					case nd.Estimates.Form == nil:
						want[b] = v
					case b == nd.Node: // the node's own block: +0
					default:
						for y, f := range nd.Estimates.Form {
							want[b*kk+y] = f * v
						}
					}
				}
				if got := p.nodes[x].est.Dense(doc.N); p.nodes[x].node != nd.Node || !estimates.SameBlock(got, want) {
					t.Fatalf("%s: node %d: estimates %v, the file's %v", c.name, nd.Node, got, want)
				}
			}
			var buf bytes.Buffer
			if err := p.WritePartial(&buf, false); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(buf.String(), `"format":"pairwise-partial/2"`) {
				t.Fatalf("%s: written again as %.40s", c.name, buf.String())
			}
			q, err := ReadPartial(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if d := bitDiff(reflect.ValueOf(p), reflect.ValueOf(q), "Partial"); d != "" {
				t.Fatalf("%s: format 1 and 2 differ at %s", c.name, d)
			}
			old, again = append(old, p), append(again, q)
		}
		want, err := MergePartialsContext(context.Background(), c.s, 1, again...)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := MergePartialsContext(context.Background(), c.s, 1, old...)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		checkSameResult(t, want, got)
		if len(got.Edges) == 0 {
			t.Errorf("%s: no edge", c.name)
		}
	}
}

// TestReadPartialSparseErrors checks that malformed sparse estimates in a
// part's file are reported as errors, not panics or silent misreads.
func TestReadPartialSparseErrors(t *testing.T) {
	p, err := LearnShard(shardSamples(t, 2), 0, 2, WithWidth(0.3), WithMinEdgeWeight(0.1))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, est, want string
	}{
		{"fill too short", `{"fill":[0,0],"v":[]}`, "fill or own of 2 and 0 numbers, want 4"},
		{"own too long", `{"fill":[0,0,0,0],"own":[0,0,0,0,0],"v":[]}`, "fill or own of 4 and 5 numbers, want 4"},
		{"index out of range", `{"fill":[0,0,0,0],"at":[10],"v":[1,2,3,4]}`, "block 10 out of range or order"},
		{"index repeated", `{"fill":[0,0,0,0],"at":[3,3],"v":[1,2,3,4,1,2,3,4]}`, "block 3 out of range or order"},
		{"the node's own index", `{"fill":[0,0,0,0],"at":[0],"v":[1,2,3,4]}`, "block 0 out of range or order"},
		{"numbers missing", `{"fill":[0,0,0,0],"at":[3],"v":[1,2]}`, "2 numbers for 1 blocks"},
		{"bad form", `{"form":[1,2,-1,1],"fill":[0,0,0,0],"at":[3],"v":[1]}`, "form entry 2, want 1 or -1"},
		{"at without fill", `{"at":[3],"v":[1]}`, "at and own need a fill"},
	} {
		node := doc["nodes"].([]any)[0].(map[string]any)
		var est any
		if err := json.Unmarshal([]byte(c.est), &est); err != nil {
			t.Fatal(err)
		}
		node["estimates"] = est
		in, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		_, err = ReadPartial(bytes.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
}
