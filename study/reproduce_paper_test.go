package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestTRule checks the rule's T against its definition: the smallest T at
// which Lemma 4's optimisation bound 2W·√(e ln n / T) is at most Lemma 9's
// statistical error 2W·√(6 ln n / N') with N' = 2N/k (W and n cancel; any
// values do).
func TestTRule(t *testing.T) {
	const w, groups = 3.0, 9.0
	opt := func(T int) float64 { return 2 * w * math.Sqrt(math.E*math.Log(groups)/float64(T)) }
	for _, c := range []struct{ k, n int }{{2, 1000}, {4, 10000}, {6, 20000}, {4, 7}, {3, 12345}} {
		stat := 2 * w * math.Sqrt(6*math.Log(groups)/(2*float64(c.n)/float64(c.k)))
		T := tRule(c.k, c.n)
		if opt(T) > stat*(1+1e-12) || (T > 1 && opt(T-1) <= stat*(1-1e-12)) {
			t.Errorf("k = %d, N = %d: tRule = %d, bound there %v and at T−1 %v; statistical error %v", c.k, c.n, T, opt(T), opt(T-1), stat)
		}
	}
	if got := tRule(4, 10000); got != 2266 { // ⌈e·10000/12⌉, the value the docs quote
		t.Errorf("tRule(4, 10000) = %d, want 2266", got)
	}
}

// TestWilson checks the Wilson score interval against values worked out by
// hand from its formula (and found in tables): 9 of 10 at 95% is
// [0.5958, 0.9821], 0 of 10 is [0, 0.2775], 10 of 10 is [0.7225, 1].
func TestWilson(t *testing.T) {
	for _, c := range []struct {
		rec, runs int
		lo, hi    float64
	}{{9, 10, 0.5958, 0.9821}, {0, 10, 0, 0.2775}, {10, 10, 0.7225, 1}} {
		lo, hi := wilson(c.rec, c.runs, 1.96)
		if math.Abs(lo-c.lo) > 1e-4 || math.Abs(hi-c.hi) > 1e-4 {
			t.Errorf("wilson(%d, %d) = [%.4f, %.4f], want [%.4f, %.4f]", c.rec, c.runs, lo, hi, c.lo, c.hi)
		}
	}
	// The band of a curve: 5 of 10 at N = 100, 10 of 10 at N = 10000. The
	// fraction crosses 0.9 at 10^3.6; the upper bound (0.813 at 100, 1 at
	// 10000) crosses earlier, the lower bound (0.72 at 10000) never.
	s := []*reproPoint{{n: 100, runs: 10, rec: 5}, {n: 10000, runs: 10, rec: 10}}
	early, _, okE, okL := crossingBand(s)
	_, c, _ := threshold(s)
	if !okE || okL || !(early < c) {
		t.Errorf("crossingBand = %v, %v, %v; want an early crossing below %v and no late one", early, okE, okL, c)
	}
}

// TestPaperSpec checks the -paper flag's parser.
func TestPaperSpec(t *testing.T) {
	ls, err := parsePaperSpec("rule@4:5000,1e4@6:20000; 300@2:1000")
	if err != nil || len(ls) != 2 || ls[0].t != 0 || ls[1].t != 300 ||
		len(ls[0].n[4]) != 2 || ls[0].n[4][1] != 10000 || ls[0].n[6][0] != 20000 || ls[1].n[2][0] != 1000 {
		t.Errorf("parsePaperSpec = %+v, %v", ls, err)
	}
	if ls[0].name() != "paper" || ls[1].name() != "paper T=300" || ls[0].iterations(4, 10000) != 2266 || ls[1].iterations(4, 10000) != 300 {
		t.Errorf("names and T: %q %q %d %d", ls[0].name(), ls[1].name(), ls[0].iterations(4, 10000), ls[1].iterations(4, 10000))
	}
	if ls, err := parsePaperSpec("none"); err != nil || ls != nil {
		t.Errorf("none: %v, %v", ls, err)
	}
	for _, bad := range []string{"rule", "0@4:100", "x@4:100", "rule@1:100", "rule@4:", "rule@4:1.5"} {
		if _, err := parsePaperSpec(bad); err == nil {
			t.Errorf("parsePaperSpec(%q): no error", bad)
		}
	}
}

// TestReproducePaperLearner runs Figure 2 with Algorithm 4 under the
// paper's schedule beside the other methods (k = 4, N = 300, one run of the
// rule's T and of a fixed T = 5), then renders it again from runs.csv with
// -replay: the new learners have their rows, their T and the new columns,
// the summary its section and the shrinkage figure exists.
func TestReproducePaperLearner(t *testing.T) {
	dir, again := t.TempDir(), t.TempDir()
	flags := []string{"-figures", "2", "-k", "4", "-runs", "2", "-n", "300", "-paper", "rule@4:300;5@4:300", "-paper-runs", "1", "-q", "-dpi", "20"}
	runOK(t, append(append([]string{"reproduce"}, flags...), "-out", dir)...)
	runOK(t, append(append([]string{"reproduce"}, flags...), "-replay", filepath.Join(dir, "runs.csv"), "-out", again)...)
	for _, d := range []string{dir, again} {
		rows := readCSV(t, filepath.Join(d, "fig2_grid.csv"))
		col := map[string]int{}
		for x, name := range rows[0] {
			col[name] = x
		}
		for _, name := range []string{"mean_edge_norm_ratio", "mean_nonedge_norm", "max_gap", "T"} {
			if _, ok := col[name]; !ok {
				t.Fatalf("%s/fig2_grid.csv lacks column %q", d, name)
			}
		}
		want := map[string][2]string{ // method: runs, T
			"ours": {"2", "0"}, "sparsitron": {"2", "0"},
			"paper": {"1", strconv.Itoa(tRule(4, 300))}, "paper T=5": {"1", "5"},
		}
		for _, row := range rows[1:] {
			w, ok := want[row[col["method"]]]
			if !ok {
				t.Errorf("%s: unexpected method %q", d, row[col["method"]])
				continue
			}
			delete(want, row[col["method"]])
			if row[col["runs"]] != w[0] || row[col["T"]] != w[1] {
				t.Errorf("%s: %s has runs %s and T %s, want %s and %s", d, row[col["method"]], row[col["runs"]], row[col["T"]], w[0], w[1])
			}
			// Five iterations of Algorithm 4 cannot certify anything: its
			// gap must be large, the exact solve's tiny.
			gap, _ := strconv.ParseFloat(row[col["max_gap"]], 64)
			if m := row[col["method"]]; (m == "paper T=5" && !(gap > 1e-2)) || (m == "ours" && !(gap < 1e-5)) {
				t.Errorf("%s: %s has gap %v", d, m, gap)
			}
		}
		if len(want) > 0 {
			t.Errorf("%s: no rows for %v", d, want)
		}
		summary, err := os.ReadFile(filepath.Join(d, "summary.md"))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"## Figure 2 with the paper's solver", "Algorithm 4, rule | " + strconv.Itoa(tRule(4, 300)), "Algorithm 4, fixed T | 5 |", "fig2_shrinkage.png", "paper-schedule.md"} {
			if !strings.Contains(string(summary), s) {
				t.Errorf("%s/summary.md lacks %q", d, s)
			}
		}
		if _, err := os.Stat(filepath.Join(d, "fig2_shrinkage.png")); err != nil {
			t.Error(err)
		}
	}
	if code, _, stderr := runCmd(t, "reproduce", "-paper", "rule@4", "-out", dir); code == 0 || !strings.Contains(stderr, "-paper") {
		t.Errorf("a bad -paper: exit %d, %q", code, stderr)
	}
}

// TestQuickHasPaperLearners checks that -quick, which CI runs, exercises the
// paper's schedule: its learners run on points of the quick grid.
func TestQuickHasPaperLearners(t *testing.T) {
	set := quickSettings()
	names := set.paperNames()
	if len(names) != 2 || names[0] != "paper" || names[1] != "paper T=30" || set.paperRuns < 1 {
		t.Errorf("quick paper learners %v, %d runs; want [paper paper T=30] on at least one run", names, set.paperRuns)
	}
	if ms := set.methodsAt(2, 1000, 0); len(ms) != 3 || ms[2] != "paper" {
		t.Errorf("methods at k = 2, N = 1000: %v", ms)
	}
	if ms := set.methodsAt(2, 1000, set.paperRuns); len(ms) != 2 {
		t.Errorf("methods at k = 2, N = 1000 after the paper runs: %v", ms)
	}
}
