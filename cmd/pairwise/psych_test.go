package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mrfkit/pairwise"
)

// TestFont: the glyph table parses into distinct glyphs for the digits and
// letters, each inside its 5 columns, with pixels below the baseline only
// for the characters that descend, and text widths as the layout assumes.
func TestFont(t *testing.T) {
	const want = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz.,-_:()/%+=<>?!'\"#*[]|&@"
	seen := map[[glyphRows]uint8]rune{}
	for _, c := range want {
		glyphsOnce.Do(parseGlyphs)
		g, ok := glyphs[c]
		if !ok {
			t.Errorf("no glyph for %q", c)
			continue
		}
		if other, dup := seen[g]; dup {
			t.Errorf("%q and %q have the same glyph", c, other)
		}
		seen[g] = c
		set := 0
		for r, bits := range g {
			if bits >= 1<<glyphW {
				t.Errorf("%q: row %d is wider than %d pixels", c, r, glyphW)
			}
			if bits != 0 {
				set++
				if r >= glyphH && !strings.ContainsRune("gjpqy,", c) {
					t.Errorf("%q has pixels below the baseline (row %d)", c, r)
				}
			}
		}
		if set == 0 {
			t.Errorf("%q is blank", c)
		}
	}
	if g := glyph('é'); g != glyph('?') {
		t.Errorf("a character without a glyph is not drawn as '?'")
	}
	if g := glyph(' '); g != ([glyphRows]uint8{}) {
		t.Errorf("space is not blank")
	}
	if w := textWidth("q12", 2); w != (3*glyphAdvance-1)*2 {
		t.Errorf("textWidth(q12, 2) = %d", w)
	}
}

// testPicture is a network of three nodes on a known layout: a positive
// edge a-b along the top and a negative edge b-c down the right side.
func testPicture() networkPicture {
	return networkPicture{
		names:  []string{"a", "b", "c"},
		edges:  []pairwise.Edge{{I: 0, J: 1, Weight: 0.5}, {I: 1, J: 2, Weight: -0.25}},
		pos:    [][2]float64{{0, 0}, {1, 0}, {1, 1}},
		size:   300,
		colors: palettes["blue"],
	}
}

// TestNetworkPNG draws testPicture and reads pixels back: the image has
// the asked size, the middle of the positive edge has the positive colour
// and the middle of the negative edge the negative one (the weaker edge is
// lighter: drawn with opacity 0.35 + 0.65·|w|/max|w|), each node's label
// puts dark pixels inside its disc, and a spot away from everything is
// white.
func TestNetworkPNG(t *testing.T) {
	p := testPicture()
	var buf bytes.Buffer
	if err := writePNG(&buf, p.drawing()); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 300 || b.Dy() != 300 {
		t.Fatalf("size %v, want 300×300", b)
	}
	rgb := func(x, y float64) [3]int {
		r, g, b, _ := img.At(int(x), int(y)).RGBA()
		return [3]int{int(r >> 8), int(g >> 8), int(b >> 8)}
	}
	ax, ay := p.nodeAt(0)
	bx, by := p.nodeAt(1)
	cx, cy := p.nodeAt(2)
	// Full opacity: exactly the palette's colour.
	pos := rgb((ax+bx)/2, (ay+by)/2)
	if want := p.colors[0]; pos != [3]int{int(want.R), int(want.G), int(want.B)} {
		t.Errorf("middle of the positive edge: %v, want %v", pos, want)
	}
	// Opacity 0.35 + 0.65/2 over white: between the colour and white.
	neg := rgb((bx+cx)/2, (by+cy)/2)
	a := 0.35 + 0.65*0.5
	for ch, v := range []uint8{p.colors[1].R, p.colors[1].G, p.colors[1].B} {
		want := float64(v)*a + 255*(1-a)
		if math.Abs(float64(neg[ch])-want) > 1 {
			t.Errorf("middle of the negative edge: %v, channel %d want %.0f", neg, ch, want)
		}
	}
	if !(neg[0] > neg[2]+60) {
		t.Errorf("negative edge %v is not red", neg)
	}
	if w := rgb(ax+40, (ay+cy)/2+40); w != [3]int{255, 255, 255} {
		t.Errorf("empty spot: %v, want white", w)
	}
	rad := nodeRadius(3, 300)
	for i := range p.names {
		x, y := p.nodeAt(i)
		dark := 0
		for py := y - rad + 4; py < y+rad-4; py++ {
			for px := x - rad + 4; px < x+rad-4; px++ {
				if math.Hypot(px-x, py-y) < rad-4 && rgb(px, py)[0] < 60 {
					dark++
				}
			}
		}
		// A label at cap height 14 is drawn at scale 2: each set pixel of
		// the glyph a 2×2 block, 36 pixels for 'c' (9 set), the sparsest
		// of a, b, c; an empty white disc has none.
		if dark < 30 {
			t.Errorf("node %q: %d dark pixels inside its disc, want its label", p.names[i], dark)
		}
	}
}

// TestNetworkSVG checks the SVG of testPicture: well-formed XML of the
// asked size, one line a sign in its colour, and the labels as text.
func TestNetworkSVG(t *testing.T) {
	var buf bytes.Buffer
	if err := writeSVG(&buf, testPicture().drawing()); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Width  string `xml:"width,attr"`
		Height string `xml:"height,attr"`
		Lines  []struct {
			Stroke string `xml:"stroke,attr"`
			Width  string `xml:"stroke-width,attr"`
		} `xml:"line"`
		Texts []string `xml:"text"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, buf.String())
	}
	if doc.Width != "300" || doc.Height != "300" {
		t.Errorf("size %s×%s, want 300×300", doc.Width, doc.Height)
	}
	strokes := map[string]int{}
	for _, l := range doc.Lines {
		strokes[l.Stroke]++
	}
	// Two edges and the two legend swatches.
	if strokes["#1f4eb4"] != 2 || strokes["#c81e1e"] != 2 {
		t.Errorf("line colours %v, want two blue (edge, legend) and two red", strokes)
	}
	for _, name := range []string{"a", "b", "c", "positive", "negative"} {
		found := false
		for _, tx := range doc.Texts {
			found = found || tx == name
		}
		if !found {
			t.Errorf("no text %q in %q", name, doc.Texts)
		}
	}
}

// TestSpringLayout: the same seed gives the same positions to the last
// bit, another seed others; positions fill [0, 1]²; and on two cliques
// joined by one weak edge, nodes of a clique lie closer together than
// nodes of different cliques.
func TestSpringLayout(t *testing.T) {
	var edges []pairwise.Edge
	for c := 0; c < 2; c++ {
		for i := 0; i < 5; i++ {
			for j := i + 1; j < 5; j++ {
				edges = append(edges, pairwise.Edge{I: 5*c + i, J: 5*c + j, Weight: 1})
			}
		}
	}
	edges = append(edges, pairwise.Edge{I: 0, J: 5, Weight: -0.1})
	a := springLayout(10, edges, 7)
	b := springLayout(10, edges, 7)
	c := springLayout(10, edges, 8)
	same := true
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("node %d: %v then %v with the same seed", i, a[i], b[i])
		}
		same = same && a[i] == c[i]
		for _, v := range a[i] {
			if !(v >= 0 && v <= 1) {
				t.Errorf("node %d at %v, outside [0, 1]²", i, a[i])
			}
		}
	}
	if same {
		t.Errorf("seeds 7 and 8 give the same layout")
	}
	var within, between []float64
	for i := 0; i < 10; i++ {
		for j := i + 1; j < 10; j++ {
			d := math.Hypot(a[i][0]-a[j][0], a[i][1]-a[j][1])
			if i/5 == j/5 {
				within = append(within, d)
			} else {
				between = append(between, d)
			}
		}
	}
	if mw, mb := maxOf(within), minOf(between); !(mw < mb) {
		t.Errorf("largest distance within a clique %.3f ≥ smallest between cliques %.3f", mw, mb)
	}
	if one := springLayout(1, nil, 1); one[0] != [2]float64{0.5, 0.5} {
		t.Errorf("one node at %v, want the middle", one[0])
	}
}

func maxOf(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	return m
}

func minOf(x []float64) float64 {
	m := math.Inf(1)
	for _, v := range x {
		m = math.Min(m, v)
	}
	return m
}

// TestLayoutFile: positions written are read back by name, in another
// order and for fewer nodes; a missing node and bad JSON are errors.
func TestLayoutFile(t *testing.T) {
	var buf bytes.Buffer
	if err := writeLayout(&buf, []string{"x", "y", "z"}, [][2]float64{{0.1, 0.2}, {0.3, 0.4}, {0.5, 0.6}}); err != nil {
		t.Fatal(err)
	}
	pos, err := readLayout(bytes.NewReader(buf.Bytes()), []string{"z", "x"})
	if err != nil {
		t.Fatal(err)
	}
	if pos[0] != [2]float64{0.5, 0.6} || pos[1] != [2]float64{0.1, 0.2} {
		t.Errorf("read %v", pos)
	}
	if _, err := readLayout(bytes.NewReader(buf.Bytes()), []string{"x", "w"}); err == nil || !strings.Contains(err.Error(), `"w"`) {
		t.Errorf("missing node: err = %v", err)
	}
	if _, err := readLayout(strings.NewReader(`{"nodes": [{"name": "x", "x": 1}], "extra": 1}`), []string{"x"}); err == nil {
		t.Errorf("unknown field accepted")
	}
}

const surveyFile = "../../testdata/survey.csv"

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
	c, err := res.Centrality()
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
// run, and a run stopped by Ctrl-C (its context cancelled) says so.
func TestPsychCommandErrors(t *testing.T) {
	if err := interrupted(fmt.Errorf("pairwise: Bootstrap: %w", context.Canceled)); err.Error() != "interrupted" {
		t.Errorf("cancelled run: %q, want \"interrupted\"", err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bootstrap", "-n", "0", "-drop", "0", surveyFile}, "nothing to resample"},
		{[]string{"bootstrap", "-drop", "0", "-stability", "x.png", surveyFile}, "-stability needs"},
		{[]string{"bootstrap", "-intervals", "x.gif", surveyFile}, ".png or .svg"},
		{[]string{"bootstrap", "-isingfit", "-alpha", "0.05", surveyFile}, "-alpha"},
		{[]string{"network", "-picture", "x.jpg", surveyFile}, ".png or .svg"},
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
