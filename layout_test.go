package pairwise

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const modulePath = "github.com/mrfkit/pairwise"

// TestLayout checks the layers of the module (issue 30): the root package,
// the paper's face, imports neither the packages of the user groups above
// it (psych, protein, models) nor anything else of the module but internal/
// and solve; the stages under internal/ never reach up to the root or to a
// package above it; and the root's files form no circle, where a file uses
// a file when it names a declaration of it (a function, type, variable,
// constant, method or field), as go/types resolves the names. It fails
// with the files of a circle and the names that close it.
func TestLayout(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("type-checks the root and its imports from source (about 10 s): a static check, run once without -race")
	}
	fset := token.NewFileSet()
	files := parseDir(t, fset, ".", 0)
	// The root imports only the packages below it (internal/ and solve),
	// and so, transitively, does every package it imports: nothing the
	// root stands on reaches back up. (internal/cli, the commands' own
	// helpers, stands above the root and is not imported by it.)
	below := func(p string) bool {
		return strings.HasPrefix(p, modulePath+"/internal/") || p == modulePath+"/solve"
	}
	imports := func(fs []*ast.File) map[string]token.Pos {
		m := map[string]token.Pos{}
		for _, f := range fs {
			for _, spec := range f.Imports {
				p, _ := strconv.Unquote(spec.Path.Value)
				if p == modulePath || strings.HasPrefix(p, modulePath+"/") {
					m[p] = spec.Pos()
				}
			}
		}
		return m
	}
	queue := []string{modulePath}
	seenPkg := map[string]bool{modulePath: true}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		fs := files
		if p != modulePath {
			fs = parseDir(t, fset, strings.TrimPrefix(p, modulePath+"/"), parser.ImportsOnly)
		}
		for q, pos := range imports(fs) {
			if !below(q) {
				t.Errorf("%s imports %s (%s): the root and what it stands on import only internal/ and solve", p, q, fset.Position(pos))
				continue
			}
			if !seenPkg[q] {
				seenPkg[q] = true
				queue = append(queue, q)
			}
		}
	}

	// The root's files: which file's declarations each file names.
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	if _, err := conf.Check(modulePath, fset, files, info); err != nil {
		t.Fatal(err)
	}
	defFile := map[types.Object]string{}
	for id, obj := range info.Defs {
		if obj != nil && obj.Pkg() != nil && obj.Pkg().Path() == modulePath && declared(obj) {
			defFile[obj] = filepath.Base(fset.Position(id.Pos()).Filename)
		}
	}
	uses := map[string]map[string][]string{}
	for id, obj := range info.Uses {
		def, ok := defFile[obj]
		use := filepath.Base(fset.Position(id.Pos()).Filename)
		if !ok || def == use {
			continue
		}
		if uses[use] == nil {
			uses[use] = map[string][]string{}
		}
		if !contains(uses[use][def], obj.Name()) {
			uses[use][def] = append(uses[use][def], obj.Name())
		}
	}
	for _, c := range circles(uses) {
		var why []string
		for _, a := range c {
			for _, b := range c {
				if names := uses[a][b]; names != nil {
					sort.Strings(names)
					why = append(why, fmt.Sprintf("%s uses %s's %s", a, b, strings.Join(names, ", ")))
				}
			}
		}
		t.Errorf("the root's files %v use each other:\n\t%s", c, strings.Join(why, "\n\t"))
	}
}

// parseDir parses the non-test Go files of dir.
func parseDir(t *testing.T, fset *token.FileSet, dir string, mode parser.Mode) []*ast.File {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, mode)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// declared reports whether obj is declared at the package level, or is a
// method or a struct field (which belong to the file of their declaration).
func declared(obj types.Object) bool {
	if obj.Parent() == obj.Pkg().Scope() {
		return true
	}
	switch x := obj.(type) {
	case *types.Func:
		return x.Type().(*types.Signature).Recv() != nil
	case *types.Var:
		return x.IsField()
	}
	return false
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// circles returns the strongly connected components of more than one file
// of the graph uses (Tarjan's algorithm), each sorted, in a stable order.
func circles(uses map[string]map[string][]string) [][]string {
	var nodes []string
	seen := map[string]bool{}
	for a, m := range uses {
		for _, v := range append([]string{a}, keys(m)...) {
			if !seen[v] {
				seen[v] = true
				nodes = append(nodes, v)
			}
		}
	}
	sort.Strings(nodes)
	index, low, on := map[string]int{}, map[string]int{}, map[string]bool{}
	var stack []string
	var out [][]string
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = len(index), len(index)
		stack = append(stack, v)
		on[v] = true
		for _, w := range keys(uses[v]) {
			if _, ok := index[w]; !ok {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var c []string
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				c = append(c, w)
				if w == v {
					break
				}
			}
			if len(c) > 1 {
				sort.Strings(c)
				out = append(out, c)
			}
		}
	}
	for _, v := range nodes {
		if _, ok := index[v]; !ok {
			visit(v)
		}
	}
	return out
}

func keys(m map[string][]string) []string {
	var k []string
	for x := range m {
		k = append(k, x)
	}
	sort.Strings(k)
	return k
}
