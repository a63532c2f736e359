package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/psych"
)

// TestNetworkCommand runs "pairwise network" on the survey: the centrality
// table names every item, the picture is a PNG of the asked size, the
// layout file written by one run fixes the picture of another (the same
// bytes), and -format json holds signed edges whose centrality agrees with
// the library's.
func TestNetworkCommand(t *testing.T) {
	dir := t.TempDir()
	pic, lay := filepath.Join(dir, "net.png"), filepath.Join(dir, "layout.json")
	code, out, stderr := runCmd(t, "network", "-quiet", "-histogram", "-size", "400", "-picture", pic, "-layout-out", lay, surveyFile)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, q := range []string{"q1", "q2", "q3", "q4", "q5", "q6", "strength", "betweenness"} {
		if !strings.Contains(out, q) {
			t.Errorf("table lacks %q:\n%s", q, out)
		}
	}
	first, err := os.ReadFile(pic)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(first))
	if err != nil || cfg.Width != 400 || cfg.Height != 400 {
		t.Fatalf("picture: %v, %+v", err, cfg)
	}
	pic2 := filepath.Join(dir, "again.png")
	if code, _, stderr := runCmd(t, "network", "-quiet", "-histogram", "-size", "400", "-seed", "99", "-picture", pic2, "-layout", lay, surveyFile); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	second, _ := os.ReadFile(pic2)
	if !bytes.Equal(first, second) {
		t.Errorf("the same layout file gave another picture")
	}

	code, out, stderr = runCmd(t, "network", "-quiet", "-histogram", "-format", "json", surveyFile)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Names []string `json:"names"`
		Edges []struct {
			Source, Target string
			Weight         float64
		} `json:"edges"`
		Centrality struct {
			Strength []float64 `json:"strength"`
		} `json:"centrality"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	s, err := pairwise.ReadHistogramCSV(mustOpen(t, surveyFile))
	if err != nil {
		t.Fatal(err)
	}
	res, err := pairwise.Learn(s)
	if err != nil {
		t.Fatal(err)
	}
	c, err := psych.CentralityOf(res)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Edges) != len(res.Edges) || len(got.Edges) == 0 {
		t.Fatalf("%d edges, the library learns %d", len(got.Edges), len(res.Edges))
	}
	neg := 0
	for i, v := range c.Strength {
		if math.Abs(got.Centrality.Strength[i]-v) > 1e-12 {
			t.Errorf("strength of %s: %v, library %v", got.Names[i], got.Centrality.Strength[i], v)
		}
	}
	for _, e := range got.Edges {
		if e.Weight < 0 {
			neg++
		}
	}
	// The survey's model has three agreeing and three disagreeing pairs.
	if neg != 3 {
		t.Errorf("%d negative edges, want 3", neg)
	}
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestBootstrapCommand runs a small bootstrap of the survey: JSON with the
// asked resample counts, all ten drop levels and a CS per statistic; the
// same result with one worker and with two (the seed decides, not the
// schedule); CSV output; the two plots as SVG and PNG.
func TestBootstrapCommand(t *testing.T) {
	dir := t.TempDir()
	out1, out2 := filepath.Join(dir, "w1.json"), filepath.Join(dir, "w2.json")
	ints, stab := filepath.Join(dir, "intervals.svg"), filepath.Join(dir, "stability.png")
	args := []string{"bootstrap", "-quiet", "-histogram", "-fix", "-n", "10", "-drop", "10", "-seed", "5"}
	if code, _, stderr := runCmd(t, append(args, "-workers", "1", "-o", out1, "-intervals", ints, "-stability", stab, surveyFile)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCmd(t, append(args, "-workers", "2", "-o", out2, surveyFile)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	a, _ := os.ReadFile(out1)
	b, _ := os.ReadFile(out2)
	if !bytes.Equal(a, b) {
		t.Errorf("-workers 1 and 2 give different results")
	}
	var res struct {
		Resamples int `json:"resamples"`
		Edges     []struct {
			Selected *float64 `json:"selected"`
		} `json:"edges"`
		CaseDrop struct {
			CS        []float64 `json:"cs"`
			Levels    []any     `json:"levels"`
			Resamples []any     `json:"resamples"`
		} `json:"case_drop"`
	}
	if err := json.Unmarshal(a, &res); err != nil {
		t.Fatal(err)
	}
	if res.Resamples != 10 || len(res.CaseDrop.Resamples) != 10 || len(res.CaseDrop.Levels) != 10 || len(res.CaseDrop.CS) != 5 {
		t.Errorf("resamples %d, case-drop resamples %d, levels %d, CS %v", res.Resamples, len(res.CaseDrop.Resamples), len(res.CaseDrop.Levels), res.CaseDrop.CS)
	}
	if len(res.Edges) != 15 {
		t.Errorf("%d pairs, want 15 of 6 items", len(res.Edges))
	}
	svg, _ := os.ReadFile(ints)
	if err := xml.Unmarshal(svg, new(struct{})); err != nil || !bytes.Contains(svg, []byte(">q1-q2<")) {
		t.Errorf("intervals SVG: %v, labelled q1-q2: %v", err, bytes.Contains(svg, []byte(">q1-q2<")))
	}
	f := mustOpen(t, stab)
	if img, err := png.Decode(f); err != nil || img.Bounds() != image.Rect(0, 0, 640, 440) {
		t.Errorf("stability PNG: %v", err)
	}

	code, out, stderr := runCmd(t, "bootstrap", "-quiet", "-histogram", "-fix", "-n", "5", "-drop", "0", "-format", "csv", surveyFile)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(out, "section,statistic,node1,node2,") || !strings.Contains(out, "edge,edge,q1,q2,") || strings.Contains(out, "casedrop") {
		t.Errorf("CSV without case dropping:\n%s", out)
	}
}

// TestPsychCommandErrors: mistakes on the command line are reported, not
// run (TestInterrupted in internal/cli: a run stopped by Ctrl-C says so).
func TestPsychCommandErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bootstrap", "-n", "0", "-drop", "0", surveyFile}, "nothing to resample"},
		{[]string{"bootstrap", "-drop", "0", "-stability", "x.png", surveyFile}, "-stability needs"},
		{[]string{"bootstrap", "-intervals", "x.gif", surveyFile}, ".png, .svg or .pdf"},
		{[]string{"bootstrap", "-isingfit", "-alpha", "0.05", surveyFile}, "-alpha"},
		{[]string{"network", "-isingfit", "-lambda", "1", surveyFile}, "-lambda sets the constrained fits"},
		{[]string{"network", "-isingfit", "-solver", "entropic", surveyFile}, "-solver sets the constrained fits"},
		{[]string{"network", "-picture", "x.jpg", surveyFile}, ".png, .svg or .pdf"},
		{[]string{"network", "-palette", "pink", surveyFile}, "-palette"},
		{[]string{"network", "-model", "-lambda", "1", surveyFile}, "nothing is learned"},
		{[]string{"network", "-histogram", "-layout", "/nonexistent/layout.json", surveyFile}, "layout.json"},
	} {
		code, _, stderr := runCmd(t, tc.args...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want an error with %q", tc.args, code, stderr, tc.want)
		}
	}
}

const surveyFile = "../../testdata/survey.csv"
