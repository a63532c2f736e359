package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// readCSV reads a CSV file written by the reproduce command.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

// TestReproduceSmoke runs the reproduce command end to end on a tiny
// setting (2 runs a point, N = 200 and 400 for every experiment, figures at
// 40 dpi) and checks that every output exists and parses: the PNG figures
// decode, the CSV files have their columns and one row a point, and
// summary.md has its sections and says what the error bars are. It also
// checks that the numbers do not depend on the number of workers. The
// -quick setting itself is not run here but by CI: .ci/run runs
// (cd study && go run . reproduce -quick -q -out "$(mktemp -d)").
func TestReproduceSmoke(t *testing.T) {
	dir := t.TempDir()
	args := []string{"reproduce", "-runs", "2", "-n", "200,400", "-q", "-workers", "2", "-dpi", "40", "-out", dir}
	stdout := runOK(t, args...)
	if !strings.Contains(stdout, "wrote") {
		t.Errorf("stdout %q does not report the files", stdout)
	}
	for _, name := range []string{"fig1_incoherence.png", "fig1_recovery.png", "fig2_recovery.png", "figA_grid.png"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b := img.Bounds(); b.Dx() < 200 || b.Dy() < 100 {
			t.Errorf("%s is %v, too small to read", name, b)
		}
	}
	// Columns and points of every CSV: incoherence for n = 3..30 and six a;
	// the diamond for three n and two N; the grid for three k, two N and
	// two methods; runs.csv one line a run and method.
	checks := []struct {
		name    string
		columns []string
		rows    int
	}{
		{"fig1_incoherence.csv", []string{"n", "a", "incoherence"}, 28 * 6},
		{"fig1_recovery.csv", []string{"n", "a", "lambda", "N", "runs", "recovered", "fraction", "mean_error"}, 3 * 2},
		{"fig2_grid.csv", []string{"k", "N", "method", "runs", "recovered", "fraction", "mean_error", "se_error"}, 3 * 2 * 2},
		{"runs.csv", []string{"experiment", "param", "N", "run", "method", "recovered", "error"}, 3*2*2 + 3*2*2*2},
	}
	for _, c := range checks {
		rows := readCSV(t, filepath.Join(dir, c.name))
		if len(rows) != c.rows+1 {
			t.Errorf("%s: %d rows, want a header and %d", c.name, len(rows), c.rows)
			continue
		}
		for x, col := range c.columns {
			if rows[0][x] != col {
				t.Errorf("%s: column %d is %q, want %q", c.name, x, rows[0][x], col)
			}
		}
		for _, row := range rows[1:] {
			for x, v := range row {
				if name := rows[0][x]; name == "method" || name == "experiment" || name == "recovered" {
					continue
				}
				if f, err := strconv.ParseFloat(v, 64); err != nil || math.IsNaN(f) {
					t.Fatalf("%s: %s = %q is not a number", c.name, rows[0][x], v)
				}
			}
		}
	}
	for _, row := range readCSV(t, filepath.Join(dir, "fig2_grid.csv"))[1:] {
		if f, _ := strconv.ParseFloat(row[5], 64); f < 0 || f > 1 || row[3] != "2" {
			t.Errorf("fig2_grid.csv row %v: want 2 runs and a fraction in [0, 1]", row)
		}
	}
	summary, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Figure 1", "## Figure 2", "## Agreement with the paper", "| k | ours | Sparsitron |", "fig2_recovery.png", "-runs 2",
		"standard error of a binomial proportion", "standard error of the mean over the R = 2 runs", "beta.^grad"} {
		if !bytes.Contains(summary, []byte(want)) {
			t.Errorf("summary.md lacks %q", want)
		}
	}

	// One worker gives the same numbers (Figure 2 only, to keep it short).
	one := t.TempDir()
	two := t.TempDir()
	for _, c := range []struct{ dir, workers string }{{one, "1"}, {two, "2"}} {
		runOK(t, "reproduce", "-figures", "2", "-runs", "1", "-n", "300", "-q", "-dpi", "20", "-workers", c.workers, "-out", c.dir)
	}
	for _, name := range []string{"fig2_grid.csv", "runs.csv"} {
		a, errA := os.ReadFile(filepath.Join(one, name))
		b, errB := os.ReadFile(filepath.Join(two, name))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between 1 and 2 workers", name)
		}
	}
}

// TestReproduceFlags checks the command-line errors of reproduce.
func TestReproduceFlags(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args   []string
		substr string
	}{
		{[]string{"-runs", "-1"}, "-runs -1"},
		{[]string{"-n", "100,abc"}, `"abc"`},
		{[]string{"-n", "2.5"}, `"2.5"`},
		{[]string{"-figures", "3"}, "-figures"},
		{[]string{"-workers", "0"}, "-workers 0"},
		{[]string{"-dpi", "5"}, "-dpi 5"},
		{[]string{"extra"}, "unexpected argument"},
	}
	for _, c := range cases {
		code, _, stderr := runCmd(t, append(append([]string{"reproduce"}, c.args...), "-out", dir)...)
		if code == 0 || !strings.Contains(stderr, c.substr) {
			t.Errorf("reproduce %v: exit %d, stderr %q; want an error naming %q", c.args, code, stderr, c.substr)
		}
	}
	sizes, err := parseSizes("1e4, 300,300, 2000")
	if err != nil || len(sizes) != 3 || sizes[0] != 300 || sizes[2] != 10000 {
		t.Errorf("parseSizes: %v, %v; want [300 2000 10000]", sizes, err)
	}
}

// TestThreshold checks the summary's N for 90% recovery: the grid point from
// which on every fraction is at least 0.9, and the log-linear crossing.
func TestThreshold(t *testing.T) {
	pts := func(ns []int, rec []int) []*reproPoint {
		var s []*reproPoint
		for x, n := range ns {
			s = append(s, &reproPoint{n: n, runs: 10, rec: rec[x]})
		}
		return s
	}
	cases := []struct {
		name     string
		s        []*reproPoint
		gridN    int
		crossing float64
		ok       bool
	}{
		{"never", pts([]int{100, 1000}, []int{0, 8}), 0, 0, false},
		{"from the start", pts([]int{100, 1000}, []int{9, 10}), 100, 100, true},
		// 0.5 at 100, 1.0 at 10000: 0.9 is 4/5 of the way in log N.
		{"interpolated", pts([]int{100, 10000}, []int{5, 10}), 10000, math.Pow(10, 2+0.8*2), true},
		// A dip below 0.9 after a first crossing moves the answer on.
		{"dip", pts([]int{100, 1000, 10000}, []int{9, 8, 10}), 10000, 1000 * math.Pow(10, 0.5), true},
	}
	for _, c := range cases {
		g, cr, ok := threshold(c.s)
		if g != c.gridN || ok != c.ok || math.Abs(cr-c.crossing) > 1e-9*c.crossing {
			t.Errorf("%s: threshold = %d, %v, %v; want %d, %v, %v", c.name, g, cr, ok, c.gridN, c.crossing, c.ok)
		}
	}
}

// TestFigureHeaders checks that the headers above the figures' panels fit
// their figures at the paper's setting (100 runs a point): every text line,
// and every row of the legend, which wraps onto more rows when needed.
func TestFigureHeaders(t *testing.T) {
	set := paperSettings()
	series := func(names ...string) []legendItem {
		p := plot.New()
		var items []legendItem
		for x, name := range names {
			item, err := addSeries(p, name, styleOf(x), []float64{1, 2}, []float64{0, 1}, []float64{0.1, 0.1})
			if err != nil {
				t.Fatal(err)
			}
			items = append(items, item)
		}
		return append(items, fractionAxis(p))
	}
	var sizes []string
	for _, n := range set.diamondSizes {
		sizes = append(sizes, fmt.Sprintf("n = %d (λ = %.1f)", n, float64(n-2)*set.diamondA))
	}
	diamond := diamondHeader(set)
	diamond.legend = series(sizes...)
	grid, appendix := gridHeader(set), appendixHeader(set)
	grid.legend = series(methodLabel("ours"), methodLabel("sparsitron"), methodLabel("paper"), methodLabel("paper T=1000"), methodLabel("paper T=10000"))
	appendix.legend = grid.legend
	shrink := shrinkageHeader(set)
	shrink.legend = grid.legend
	for _, c := range []struct {
		name  string
		head  *figureHeader
		width vg.Length
	}{
		{"fig1_recovery", diamond, figure1Width},
		{"fig2_recovery", grid, 2 * panelWidth}, // k = 4 and 6
		{"figA_grid", appendix, vg.Length(len(set.gridK)) * panelWidth},
		{"fig2_shrinkage", shrink, 2 * panelWidth}, // k = 4 and 6 in docs/reproduce/paper-schedule
	} {
		room := c.width - 2*headerPad
		ts, ss := c.head.lines()
		if len(ts) != 2 {
			t.Errorf("%s: %d header lines, want a title and a caption", c.name, len(ts))
		}
		for x, line := range ts {
			if w := ss[x].Width(line); w > room {
				t.Errorf("%s: header line %q is %v wide, more than the figure's %v", c.name, line, w, room)
			}
		}
		rows, widths := c.head.legendRows(room)
		cells := 0
		for r, row := range rows {
			total := legendGap * vg.Length(len(row)-1)
			for _, w := range widths[r] {
				total += w
			}
			if total > room && len(row) > 1 {
				t.Errorf("%s: legend row %d is %v wide, more than the figure's %v", c.name, r, total, room)
			}
			cells += len(row)
		}
		if cells != len(c.head.legend) {
			t.Errorf("%s: %d legend cells laid out, want %d", c.name, cells, len(c.head.legend))
		}
		if c.head.height(c.width) <= 0 {
			t.Errorf("%s: header height %v", c.name, c.head.height(c.width))
		}
	}
	var none *figureHeader
	if h := none.height(figure1Width); h != 0 {
		t.Errorf("no header: height %v, want 0", h)
	}
}
