package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// runCmd runs the command in-process with args and returns the exit code,
// standard output and standard error.
func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// runOK runs the command in-process with args, fails the test unless it
// exits 0, and returns its standard output.
func runOK(t *testing.T, args ...string) (stdout string) {
	t.Helper()
	code, stdout, stderr := runCmd(t, args...)
	if code != 0 {
		t.Fatalf("pairwise %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, stdout, stderr)
	}
	return stdout
}

// writeFile writes content to name in dir and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A valid model file for the sample errors.
const smallModel = `{"n": 2, "k": 2, "names": ["a", "b"], "couplings": [{"i": 0, "j": 1, "w": [[0.5, -0.5], [-0.5, 0.5]]}], "fields": [[0, 0], [0, 0]]}`

// TestCommandErrors runs every malformed input of issue 7 and the command
// line mistakes we could think of through the command: each must exit with
// a nonzero code, print one message that names the file and, for a problem
// inside a file, the line and column, and never a stack trace.
func TestCommandErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := func(name, content string) string { return writeFile(t, dir, name, content) }
	ragged := file("ragged.csv", "a,b,c\n0,1,0\n1,1\n")
	letter := file("letter.csv", "a,b\n0,1\n1,x\n")
	outOfRange := file("range.csv", "0,1\n1,70000\n")
	negative := file("negative.csv", "0,1\n-2,1\n")
	empty := file("empty.csv", "")
	headerOnly := file("header.csv", "a,b,c\n")
	negCount := file("negcount.csv", "count,a,b\n3,0,1\n-1,1,1\n")
	fracCount := file("fraccount.csv", "2,0,1\n0.5,1,1\n")
	good := file("good.csv", "a,b\n0,1\n1,0\n1,1\n")
	model := file("model.json", smallModel)
	missing := file("missing.json", `{"n": 2, "k": 2, "couplings": []}`)
	wrongSize := file("wrongsize.json", "{\"n\": 2, \"k\": 2,\n \"couplings\": [{\"i\": 0, \"j\": 1, \"w\": [[0.5, -0.5, 1], [-0.5, 0.5]]}],\n \"fields\": [[0, 0], [0, 0]]}")
	syntax := file("syntax.json", "{\"n\": 2,\n \"k\": 2 \"couplings\": []}")
	// The complete graph on 40 variables has tables far beyond the exact
	// sampler's limit.
	var dense strings.Builder
	dense.WriteString(`{"n": 40, "k": 2, "couplings": [`)
	for i := 0; i < 40; i++ {
		for j := i + 1; j < 40; j++ {
			if i+j > 1 {
				dense.WriteString(",")
			}
			dense.WriteString(`{"i": ` + strconv.Itoa(i) + `, "j": ` + strconv.Itoa(j) + `, "w": [[0.1, 0], [0, 0.1]]}`)
		}
	}
	dense.WriteString(`], "fields": [` + strings.TrimSuffix(strings.Repeat("[0, 0],", 40), ",") + `]}`)
	wide := file("dense.json", dense.String())

	for _, test := range []struct {
		name string
		args []string
		want []string // substrings of standard error
	}{
		{"ragged rows", []string{"learn", "-lambda", "1", "-eta", "0.2", ragged}, []string{"pairwise learn: " + ragged + ": line 3 has 2 fields, want 3"}},
		{"letter in a number field", []string{"learn", letter}, []string{letter + `: line 3, column 2: "x" is not an integer`}},
		{"value out of range", []string{"learn", outOfRange}, []string{outOfRange + `: line 2, column 2: "70000" exceeds the largest state 255: the learners take k ≤ 256 states`}},
		{"negative value", []string{"learn", negative}, []string{negative + `: line 2, column 1: "-2" is negative`}},
		{"empty file", []string{"learn", empty}, []string{empty + ": no samples in input"}},
		{"header only", []string{"learn", headerOnly}, []string{headerOnly + ": no samples in input, only a header line"}},
		{"histogram with a negative count", []string{"learn", "-histogram", negCount}, []string{negCount + `: line 3, column 1: count "-1" is negative`}},
		{"histogram without -histogram", []string{"learn", negCount}, []string{negCount + `: line 1, column 1: the first column is named "count"`, "-histogram"}},
		{"counts without -histogram", []string{"learn", "-merge=false", fracCount}, []string{fracCount + `: line 2, column 1: "0.5" is not an integer`, "pass -histogram"}},
		{"no such file", []string{"learn", filepath.Join(dir, "nope.csv")}, []string{filepath.Join(dir, "nope.csv") + ": no such file or directory"}},
		{"directory", []string{"learn", dir}, []string{dir + ": is a directory"}},
		{"no file argument", []string{"learn"}, []string{"missing the input FILE"}},
		{"two file arguments", []string{"learn", good, good}, []string{"want one input FILE, got 2 arguments"}},
		{"bad format", []string{"learn", "-format", "xml", good}, []string{`-format "xml": want one of csv, json, dot, model`}},
		{"bad solver", []string{"learn", "-solver", "newton", good}, []string{`-solver "newton"`}},
		{"bad symmetrisation", []string{"learn", "-sym", "max", good}, []string{`-sym "max"`}},
		{"zero workers", []string{"learn", "-workers", "0", good}, []string{"-workers 0: want at least 1"}},
		{"negative lambda", []string{"learn", "-lambda", "-1", "-eta", "0.1", good}, []string{"pairwise learn: -lambda -1: the width bound λ must be a finite positive number"}},
		{"zero eta", []string{"learn", "-lambda", "1", "-eta", "0", good}, []string{"pairwise learn: -eta 0: the edge weight bound η must be a finite positive number"}},
		{"negative radius", []string{"learn", "-radius", "-2", "-eta", "0.1", good}, []string{"pairwise learn: -radius -2: the radius must be a finite positive number"}},
		{"zero tolerance", []string{"learn", "-tol", "0", good}, []string{"pairwise learn: -tol 0: want a finite positive tolerance"}},
		{"zero iterations", []string{"learn", "-max-iter", "0", good}, []string{"pairwise learn: -max-iter 0: want at least 1 iteration"}},
		{"two bad options", []string{"learn", "-lambda", "-1", "-eta", "0", good}, []string{"pairwise learn: -lambda -1: the width bound", "\n-eta 0: the edge weight bound"}},
		{"bad selection rule", []string{"learn", "-select", "aic", good}, []string{`-select "aic": want cv or ebic`}},
		{"one fold", []string{"learn", "-select", "cv", "-folds", "1", good}, []string{"-folds 1: want at least 2"}},
		{"negative gamma", []string{"learn", "-select", "ebic", "-gamma", "-1", good}, []string{"-gamma -1: want γ ≥ 0"}},
		{"selection with lambda", []string{"learn", "-lambda", "1", "-select", "ebic", good}, []string{"-select chooses λ from the data; it has no effect with -lambda"}},
		{"alpha with eta", []string{"learn", "-eta", "0.2", "-alpha", "0.1", good}, []string{"-alpha sets the edge test used without -eta"}},
		{"alpha out of range", []string{"learn", "-alpha", "2", good}, []string{"-alpha 2: want α in (0, 1)"}},
		{"gap with eta", []string{"learn", "-eta", "0.2", "-gap=false", good}, []string{"-gap sets the edge test used without -eta"}},
		{"refit with eta", []string{"learn", "-eta", "0.2", "-refit=false", good}, []string{"-refit sets the edge test used without -eta"}},
		{"mixture with eta", []string{"learn", "-eta", "0.2", "-mixture=false", good}, []string{"-mixture sets the edge test used without -eta"}},
		{"folds without a rule", []string{"learn", "-folds", "3", good}, []string{"-folds: say which rule it is for with -select"}},
		{"bad flag value", []string{"learn", "-lambda", "abc", good}, []string{`invalid value "abc" for flag -lambda`}},
		{"unknown flag", []string{"learn", "-lamda", "1", good}, []string{"flag provided but not defined: -lamda"}},
		{"output directory missing", []string{"learn", "-lambda", "1", "-eta", "0.2", "-o", filepath.Join(dir, "no", "out.csv"), good}, []string{filepath.Join(dir, "no", "out.csv") + ": no such file or directory"}},
		// The output is checked before the input is even read: the
		// unreadable input would otherwise be the error.
		{"output checked first", []string{"learn", "-o", filepath.Join(dir, "no", "out.csv"), ragged}, []string{filepath.Join(dir, "no", "out.csv") + ": no such file or directory"}},
		{"model output checked first", []string{"learn", "-model-out", dir, ragged}, []string{dir + ": is a directory"}},
		{"typo with -k", []string{"learn", "-k", "2", file("typo.csv", "0,1\n1,0\n0,2\n")}, []string{`line 3, column 2: "2" is outside the alphabet 0..1`}},
		{"state not listed", []string{"learn", "-states", "1,2", file("seven.csv", "1,2\n7,1\n")}, []string{`line 2, column 1: "7" is not one of the 2 states listed`}},
		{"-k and -states", []string{"learn", "-k", "3", "-states", "a,b", good}, []string{"give -k or -states, not both"}},
		{"-k too large", []string{"learn", "-k", "300", good}, []string{"-k 300: want 2 to 256 states"}},
		{"bad -missing", []string{"learn", "-missing", "drop", good}, []string{`-missing "drop": want avail, state or listwise`}},
		{"NA with -na none", []string{"learn", "-na", "none", file("na.csv", "0,1\nNA,1\n")}, []string{`line 2, column 1: "NA" is not an integer (no missing-value marker is set)`}},
		{"model with a missing field", []string{"sample", missing}, []string{"pairwise sample: " + missing + `: line 1, column 1: missing member "fields"`}},
		{"model with a wrong-sized matrix", []string{"sample", wrongSize}, []string{wrongSize + ": line 2, column 16: couplings[0].w[0]: 3 entries, want k = 2"}},
		{"model with a syntax error", []string{"sample", syntax}, []string{syntax + ": line 2, column 9: malformed JSON: invalid character"}},
		{"model too wide to sample exactly", []string{"sample", wide}, []string{wide + ":", "use -gibbs"}},
		{"no model argument", []string{"sample"}, []string{"missing the MODEL file"}},
		{"zero samples", []string{"sample", "-n", "0", model}, []string{"-n 0: want at least one sample"}},
		{"Gibbs flag without -gibbs", []string{"sample", "-thin", "3", model}, []string{"-thin applies to the Gibbs sampler: add -gibbs"}},
		{"negative burn-in", []string{"sample", "-gibbs", "-burnin", "-1", model}, []string{"pairwise sample: -burnin -1: want at least 0 sweeps"}},
		{"spins for k 3", []string{"sample", "-spins", writeFile(t, dir, "k3.json", `{"n": 1, "k": 3, "couplings": [], "fields": [[0, 0, 0]]}`)}, []string{"-spins: the model has k = 3 states"}},
		{"learn reads a model", []string{"learn", model}, []string{model + ": line 1, column 1: ", "double quote"}},
		{"unknown command", []string{"lern", good}, []string{`pairwise: unknown command "lern"`}},
	} {
		t.Run(test.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, test.args...)
			if code == 0 {
				t.Fatalf("exit code 0, want nonzero; stdout:\n%s", stdout)
			}
			for _, w := range test.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("standard error\n\t%s\ndoes not contain\n\t%s", stderr, w)
				}
			}
			for _, bad := range []string{"panic", "goroutine ", ".go:"} {
				if strings.Contains(stderr, bad) {
					t.Errorf("standard error looks like a stack trace (%q):\n%s", bad, stderr)
				}
			}
			if stdout != "" {
				t.Errorf("standard output %q, want nothing on error", stdout)
			}
		})
	}
}

// TestHelp checks that -h on every subcommand exits 0 and shows an example.
func TestHelp(t *testing.T) {
	t.Parallel()
	for _, c := range commands {
		t.Run(c.Name, func(t *testing.T) {
			code, _, stderr := runCmd(t, c.Name, "-h")
			if code != 0 {
				t.Errorf("exit code %d, want 0", code)
			}
			if !strings.Contains(stderr, "Usage: pairwise "+c.Name) || !strings.Contains(stderr, "Example") {
				t.Errorf("help of %s lacks a usage line or an example:\n%s", c.Name, stderr)
			}
		})
	}
}

// TestSolverHelp: -solver's help names the default backend, Accelerated
// (it said entropic for k = 2 and group for k > 2).
func TestSolverHelp(t *testing.T) {
	_, _, stderr := runCmd(t, "learn", "-h")
	if !strings.Contains(stderr, "Accelerated") || strings.Contains(stderr, "default: entropic") {
		t.Errorf("the help of -solver does not name the default, Accelerated:\n%s", stderr)
	}
}

// TestNotConvergedCommand: a fit that stopped before its certificate is
// reported once, with or without -quiet (it is not the estimator asked
// for), and not for the Sparsitron, which has no stopping rule; a fit that
// converges is quiet.
func TestNotConvergedCommand(t *testing.T) {
	data := filepath.Join(testdataDir, "grid.csv")
	const warn = "warning: not converged: the regressions of "
	for _, c := range []struct {
		name string
		args []string
		want int
	}{
		{"converged", []string{"-lambda", "2.5", "-eta", "0.4"}, 0},
		{"max-iter", []string{"-lambda", "2.5", "-eta", "0.4", "-max-iter", "2"}, 1},
		{"max-iter quiet", []string{"-quiet", "-lambda", "2.5", "-eta", "0.4", "-max-iter", "2"}, 1},
		{"max-iter data-driven", []string{"-max-iter", "2"}, 1},
		{"sparsitron", []string{"-quiet", "-lambda", "2.5", "-eta", "0.4", "-solver", "sparsitron"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCmd(t, append(append([]string{"learn"}, c.args...), data)...)
			if code != 0 {
				t.Fatalf("exit code %d: %s", code, stderr)
			}
			if got := strings.Count(stderr, warn); got != c.want {
				t.Errorf("%d warnings %q, want %d:\n%s", got, warn, c.want, stderr)
			}
		})
	}
}

// The summary names a suspicious state and where it is, and says how the
// missing values were handled (issue 18).
func TestLearnWarnings(t *testing.T) {
	dir := t.TempDir()
	var typo, likert, na strings.Builder
	rng := rand.New(rand.NewPCG(18, 2))
	for m := 1; m <= 3000; m++ {
		a, b, c := rng.IntN(2), rng.IntN(2), rng.IntN(2)
		if m == 1234 {
			c = 2
		}
		fmt.Fprintf(&typo, "%d,%d,%d\n", a, b, c)
		fmt.Fprintf(&likert, "%d,%d,%d\n", 1+rng.IntN(3), 1+rng.IntN(3), 1+rng.IntN(3))
		if m%10 == 0 {
			fmt.Fprintf(&na, "NA,%d,%d\n", b, c%2)
		} else {
			fmt.Fprintf(&na, "%d,%d,%d\n", a, b, c%2)
		}
	}
	for _, test := range []struct {
		name, data string
		args       []string
		want       []string
	}{
		{"typo", typo.String(), nil, []string{`warning: `, `typo.csv: state 2 ("2") occurs once: line 1234, column 3`, "-k"}},
		{"empty state", likert.String(), nil, []string{"state 0 never occurs", "-states"}},
		{"states listed", likert.String(), []string{"-states", "1,2,3"}, []string{"k = 3"}},
		{"available cases", na.String(), nil, []string{"missing values: 300 in 300 rows; each variable learned from the rows that observe it, a missing neighbour as the spin 0 (-missing avail"}},
		{"missing as a state", na.String(), []string{"-missing", "state"}, []string{"missing values: 300 in 300 rows, learned as a state of their own"}},
		{"listwise", na.String(), []string{"-missing", "listwise"}, []string{"missing values: 300 in 300 rows; those rows were dropped (-missing listwise), 2700 rows learned"}},
	} {
		t.Run(test.name, func(t *testing.T) {
			path := writeFile(t, dir, strings.ReplaceAll(test.name, " ", "")+".csv", test.data)
			if test.name == "typo" {
				path = writeFile(t, dir, "typo.csv", test.data)
			}
			args := append(append([]string{"learn"}, test.args...), path)
			code, _, stderr := runCmd(t, args...)
			if code != 0 {
				t.Fatalf("exit code %d: %s", code, stderr)
			}
			for _, w := range test.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("standard error\n\t%s\ndoes not contain\n\t%s", stderr, w)
				}
			}
			if test.name == "states listed" && strings.Contains(stderr, "warning") {
				t.Errorf("warning with the states listed:\n%s", stderr)
			}
		})
	}
}

// TestQuietKeepsWarnings: -quiet silences the progress and the summary but
// never a warning that changes what the result means (issue 31): a typo
// that adds a state, pairs the edge test could not use, and rows dropped
// by -missing listwise reach standard error all the same.
func TestQuietKeepsWarnings(t *testing.T) {
	dir := t.TempDir()
	var typo, na strings.Builder
	rng := rand.New(rand.NewPCG(31, 1))
	for m := 1; m <= 2000; m++ {
		a, b, c := rng.IntN(2), rng.IntN(2), rng.IntN(2)
		if m == 777 {
			c = 2
		}
		fmt.Fprintf(&typo, "%d,%d,%d\n", a, b, c)
		if m%10 == 0 {
			fmt.Fprintf(&na, "NA,%d,%d\n", b, c%2)
		} else {
			fmt.Fprintf(&na, "%d,%d,%d\n", a, b, c%2)
		}
	}
	for _, test := range []struct {
		name string
		args []string
		want string
	}{
		{"typo", []string{"learn", "-quiet", writeFile(t, dir, "typo.csv", typo.String())}, `typo.csv: state 2 ("2") occurs once: line 777, column 3`},
		{"small sample", []string{"learn", "-quiet", filepath.Join(testdataDir, "spins.csv")}, "warning: small sample"},
		{"listwise", []string{"bootstrap", "-quiet", "-n", "2", "-drop", "0", "-missing", "listwise", "-o", filepath.Join(dir, "b.json"), writeFile(t, dir, "na.csv", na.String())}, "200 rows with missing values dropped"},
	} {
		t.Run(test.name, func(t *testing.T) {
			code, _, stderr := runCmd(t, test.args...)
			if code != 0 {
				t.Fatalf("exit code %d: %s", code, stderr)
			}
			if !strings.Contains(stderr, test.want) {
				t.Errorf("standard error under -quiet\n\t%s\ndoes not contain\n\t%s", stderr, test.want)
			}
		})
	}
}
