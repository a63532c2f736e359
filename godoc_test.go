package pairwise_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// rootDocs returns the root package's documentation as go doc shows it:
// the doc comment of every exported name, by name ("Learn", "Solver",
// "Model.LogWeight").
func rootDocs(t *testing.T) map[string]string {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/mrfkit/pairwise")
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{"package": p.Doc}
	funcs := func(prefix string, fs []*doc.Func) {
		for _, f := range fs {
			docs[prefix+f.Name] = f.Doc
		}
	}
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			for _, name := range v.Names {
				docs[name] = v.Doc
			}
		}
	}
	funcs("", p.Funcs)
	values(p.Consts)
	values(p.Vars)
	for _, typ := range p.Types {
		docs[typ.Name] = typ.Doc
		funcs("", typ.Funcs)
		funcs(typ.Name+".", typ.Methods)
		values(typ.Consts)
		values(typ.Vars)
	}
	return docs
}

// TestSolverDocs: the learners' docs name the default backend, Accelerated,
// and the Solver doc lists every backend (a new user read "the default
// solver is EntropicMirror" in three places).
func TestSolverDocs(t *testing.T) {
	docs := rootDocs(t)
	for _, name := range []string{"Learn", "LearnContext", "LearnIsing", "LearnIsingContext", "LearnPairwise", "LearnPairwiseContext"} {
		d := docs[name]
		if !strings.Contains(d, "Accelerated") {
			t.Errorf("the doc of %s does not name the default solver, Accelerated", name)
		}
		for _, wrong := range []string{"default solver is EntropicMirror", "default solver is GroupMirror", "EntropicMirror for k = 2, GroupMirror for k > 2"} {
			if strings.Contains(strings.Join(strings.Fields(d), " "), wrong) {
				t.Errorf("the doc of %s says %q", name, wrong)
			}
		}
	}
	for _, backend := range []string{"Accelerated", "EntropicMirror", "GroupMirror", "Sparsitron", "Custom"} {
		if !strings.Contains(docs["Solver"], backend) {
			t.Errorf("the Solver doc does not list %s", backend)
		}
	}
}

// TestOptionDoc: the Option doc says what the learner does when an option
// is repeated with an invalid value first (an error, not "the last one
// wins") and which options override others whatever their order.
func TestOptionDoc(t *testing.T) {
	d := strings.Join(strings.Fields(rootDocs(t)["Option"]), " ")
	for _, want := range []string{
		"WithWidth(-1), WithWidth(1) is an error",
		"WithRadius overrides WithWidth",
		"Result.Width is NaN",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("the Option doc does not say %q:\n%s", want, d)
		}
	}
}
