package pairwise_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// rootDocs returns the root package's documentation as go doc shows it:
// the doc comment of every exported name, by name ("Learn", "Solver",
// "Model.LogWeight"), with the comments inside its declaration (a
// constant's in a group, an exported field's) under "Name (inner)".
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
	inner := func(name string, decl ast.Node) {
		var b strings.Builder
		ast.Inspect(decl, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				if n.Doc != nil {
					b.WriteString(n.Doc.Text())
				}
			case *ast.Field:
				if len(n.Names) > 0 && n.Names[0].IsExported() && n.Doc != nil {
					b.WriteString(n.Doc.Text())
				}
			}
			return true
		})
		docs[name+" (inner)"] = b.String()
	}
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			for _, name := range v.Names {
				docs[name] = v.Doc
			}
			inner(strings.Join(v.Names, ", "), v.Decl)
		}
	}
	funcs("", p.Funcs)
	values(p.Consts)
	values(p.Vars)
	for _, typ := range p.Types {
		docs[typ.Name] = typ.Doc
		inner(typ.Name, typ.Decl)
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

// TestDocsShowTheirReferences: no doc comment that go doc shows sends the
// reader to a source file ("see the comment at the top of modeljson.go")
// or to an unexported name, which go doc cannot show (issue 30).
func TestDocsShowTheirReferences(t *testing.T) {
	file := regexp.MustCompile(`\b[A-Za-z0-9_]+\.go\b`)
	source := regexp.MustCompile(`in the source|the comment at the top|\(see [a-z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*\)`)
	for name, d := range rootDocs(t) {
		for _, re := range []*regexp.Regexp{file, source} {
			if m := re.FindString(d); m != "" {
				t.Errorf("the doc of %s refers to %q, which go doc cannot show", name, m)
			}
		}
	}
}
