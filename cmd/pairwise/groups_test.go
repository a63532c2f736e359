package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/psych"
)

// groupCSV draws n exact samples of the Ising model on the items q1..q4
// with the couplings a (upper triangle, row by row: 12 13 14 23 24 34) and
// returns them as CSV with a header.
func groupCSV(t *testing.T, a [6]float64, n int, seed uint64) string {
	t.Helper()
	sym := mat.NewSymDense(4, nil)
	for p, ij := range [][2]int{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}} {
		sym.SetSym(ij[0], ij[1], a[p])
	}
	m, err := pairwise.NewIsing(sym, nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := pairwise.NewExactSampler(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.Sample(rand.NewPCG(seed, 11), n)
	if err != nil {
		t.Fatal(err)
	}
	if s, err = s.WithNames([]string{"q1", "q2", "q3", "q4"}); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := s.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// withGroup returns the CSV text with a first column "group" holding
// label on every line but the header.
func withGroup(text, label string) string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for l := range lines {
		if l == 0 {
			lines[l] = "group," + lines[l]
		} else {
			lines[l] = label + "," + lines[l]
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// comparisonCSV parses compare-groups' CSV into its rows by statistic (and
// pair, "edge q1 q2").
func comparisonCSV(t *testing.T, out string) map[string][]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(rows) < 3 || strings.Join(rows[0], ",") != "statistic,node1,node2,value_a,value_b,difference,p,p_adjusted" {
		t.Fatalf("CSV %v:\n%s", err, out)
	}
	m := map[string][]string{}
	for _, r := range rows[1:] {
		m[strings.TrimSpace(strings.Join(r[:3], " "))] = r
	}
	return m
}

func parseFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The chain q1 - q2 - q3 - q4 of the groups, and the same with the pair
// q1-q3 coupled in the second group.
var (
	chain   = [6]float64{0.5, 0, 0, 0.5, 0, 0.5}
	changed = [6]float64{0.5, 0.6, 0, 0.5, 0, 0.5}
)

// TestCompareGroupsCommand runs compare-groups on groups whose networks are
// the same and on groups that differ in one pair.
//
// The same file twice gives identical networks: every observed statistic is
// 0, which every permutation reaches, so every p-value is exactly 1.
//
// One file of 1000 people from one model, split by a group column into two
// halves, is the null hypothesis: with a fixed seed the test is
// deterministic, and a p-value of the largest difference above 0.01 and no
// pair at Holm-corrected p ≤ 0.05 are what the nominal levels give in 99%
// and 95% of such runs.
//
// Two files of 600 people whose models differ by A_13 = 0.6 (a log odds
// ratio of 2.4 between q1 and q3, which 600 people estimate with a standard
// error near 0.1): the pair must be the largest difference, reached by no
// permutation (p = 1/200), and the only pair below Holm-corrected 0.05
// (199 permutations are the least that let one of 6 pairs get there).
func TestCompareGroupsCommand(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.csv", groupCSV(t, chain, 600, 1))
	b := writeFile(t, dir, "b.csv", groupCSV(t, changed, 600, 2))
	args := []string{"compare-groups", "-quiet", "-permutations", "199", "-workers", "2"}

	same := comparisonCSV(t, runOK(t, append(args, a, a)...))
	for key, r := range same {
		if parseFloat(t, r[5]) != 0 || parseFloat(t, r[6]) != 1 {
			t.Errorf("the same file twice: %s: difference %s, p %s, want 0 and 1", key, r[5], r[6])
		}
	}

	split := writeFile(t, dir, "split.csv", withGroup(groupCSV(t, chain, 500, 3), "x")+strings.SplitN(withGroup(groupCSV(t, chain, 500, 4), "y"), "\n", 2)[1])
	code, out, stderr := runCmd(t, "compare-groups", "-permutations", "199", "-workers", "2", "-group", "group", split)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{"A: " + split + " (group = x), 500 people; B: " + split + " (group = y), 500 people; 4 items; 199 permutations", "pairs that differ at p ≤ 0.05 (-correction holm): none"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("summary lacks %q:\n%s", w, stderr)
		}
	}
	null := comparisonCSV(t, out)
	if p := parseFloat(t, null["max_difference"][6]); p <= 0.01 {
		t.Errorf("one model split in two: p = %v for the largest difference", p)
	}

	code, out, stderr = runCmd(t, "compare-groups", "-permutations", "199", "-workers", "2", "-format", "json", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var c struct {
		Names          []string
		Groups         []string
		Observations   []int
		MaxDifference  float64 `json:"max_difference"`
		MaxDifferenceP float64 `json:"max_difference_p"`
		Edges          []psych.EdgeDifference
		PermutedMax    []float64 `json:"permuted_max"`
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Names, ",") != "q1,q2,q3,q4" || c.Groups[0] != a || c.Groups[1] != b || c.Observations[1] != 600 || len(c.PermutedMax) != 199 || len(c.Edges) != 6 {
		t.Fatalf("names %v, groups %v, observations %v, %d permutations, %d pairs", c.Names, c.Groups, c.Observations, len(c.PermutedMax), len(c.Edges))
	}
	if c.MaxDifferenceP != 1.0/200 {
		t.Errorf("largest difference %v: p = %v, want 1/200", c.MaxDifference, c.MaxDifferenceP)
	}
	for _, e := range c.Edges {
		if differs := e.I == 0 && e.J == 2; differs != (e.Adjusted <= 0.05) || differs != (e.Difference == c.MaxDifference) {
			t.Errorf("pair q%d-q%d: difference %v (largest %v), Holm-corrected p %v", e.I+1, e.J+1, e.Difference, c.MaxDifference, e.Adjusted)
		}
	}
	if !strings.Contains(stderr, "q1–q3") {
		t.Errorf("summary does not name q1–q3:\n%s", stderr)
	}
}

// TestCompareGroupsErrors: files that cannot be compared, a group column
// that does not split the rows in two, and bad flags are reported with the
// file, line, column and value, exit status 1 and no output.
func TestCompareGroupsErrors(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string { return writeFile(t, dir, name, content) }
	good := file("good.csv", "q1,q2,q3\n0,1,0\n1,1,0\n0,0,1\n")
	three := file("three.csv", "q1,q2\n0,1\n1,1\n")
	renamed := file("renamed.csv", "q1,q9,q3\n0,1,0\n1,1,1\n")
	bare := file("bare.csv", "0,1,0\n1,1,1\n")
	one := file("one.csv", "q1,q2,q3\n0,1,1\n")
	na := file("na.csv", "q1,q2,q3\n0,NA,1\n1,1,0\n")
	third := file("third.csv", "q1,g,q2\n0,m,1\n1,f,1\n0,x,0\n")
	noGroup := file("nogroup.csv", "q1,g,q2\n0,m,1\n1,NA,1\n")
	lonely := file("lonely.csv", "q1,g,q2\n0,m,1\n1,m,1\n")
	ragged := file("ragged.csv", "q1,g,q2\n0,m,1\n1,f\n")
	letter := file("letter.csv", "q1,g,q2\n0,m,1\n1,f,y\n")
	headless := file("headless.csv", "1,0,1\n0,1,1\n1,1,0\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{good, three}, good + " has 3 items, " + three + " has 2: the groups must answer the same items"},
		{[]string{good, renamed}, renamed + `: column 2 is "q9", but column 2 of ` + good + ` is "q2"`},
		{[]string{good, bare}, good + " has a header line and " + bare + " has none"},
		{[]string{good, one}, one + ": 1 people, want at least 2 in each group"},
		{[]string{good, na}, na + ": 1 missing values, which resampling cannot take: -missing listwise"},
		{[]string{"-missing", "listwise", good, na}, na + ": 1 people, want at least 2"},
		{[]string{"-group", "g", third}, third + `: line 4, column 2: "x" is a third group (-group g has "m" and "f")`},
		{[]string{"-group", "g", noGroup}, noGroup + ": line 3, column 2: the group (-group g) is missing"},
		{[]string{"-group", "g", lonely}, lonely + `: -group g: the rows are in 1 group(s) ["m"], want two`},
		{[]string{"-group", "g", ragged}, ragged + ": line 3 has 2 fields, want 3"},
		{[]string{"-group", "g", letter}, letter + `: line 3, column 3: "y" is not an integer`},
		{[]string{"-group", "h", letter}, letter + `: line 1: no column is named "h"`},
		{[]string{"-group", "1", headless}, headless + `: line 1 is not a header: -group needs one that names the column "1"`},
		{[]string{"-group", "g", good, good}, "want two files FILE_A FILE_B, or one FILE with -group COLUMN, got 2 arguments"},
		{[]string{good}, "want two files FILE_A FILE_B, or one FILE with -group COLUMN, got 1 arguments"},
		{[]string{"-correction", "bonferroni", good, good}, `-correction "bonferroni": want holm, bh or none`},
		{[]string{"-permutations", "0", good, good}, "-permutations 0: want at least 1"},
		{[]string{"-format", "xml", good, good}, `-format "xml": want one of csv, json`},
		{[]string{"-isingfit", "-eta", "0.1", good, good}, "-eta sets the edge test or η"},
		{[]string{good, filepath.Join(dir, "nope.csv")}, filepath.Join(dir, "nope.csv") + ": no such file or directory"},
	} {
		code, stdout, stderr := runCmd(t, append([]string{"compare-groups", "-quiet", "-permutations", "9"}, tc.args...)...)
		if code != 1 || !strings.Contains(stderr, tc.want) || stdout != "" || strings.Contains(stderr, "goroutine") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 1 and an error with %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	// The notes on a suspicious state name the file's own column, the group
	// column counted.
	rare := "g,q1,q2\n" + strings.Repeat("m,0,1\nf,1,0\nm,1,1\nf,0,0\n", 30) + "m,2,1\n"
	_, _, stderr := runCmd(t, "compare-groups", "-permutations", "9", "-group", "g", file("rare.csv", rare))
	if want := fmt.Sprintf(`state 2 ("2") occurs once: line %d, column 2`, 122); !strings.Contains(stderr, want) {
		t.Errorf("note on the rare state: %q, want %q", stderr, want)
	}
}
