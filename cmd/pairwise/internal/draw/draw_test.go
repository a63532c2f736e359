package draw

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// testPicture is a network of three nodes on a known layout: a positive
// edge a-b along the top and a negative edge b-c down the right side.
func testPicture() NetworkPicture {
	return NetworkPicture{
		Names:  []string{"a", "b", "c"},
		Edges:  []Edge{{I: 0, J: 1, Weight: 0.5}, {I: 1, J: 2, Weight: -0.25}},
		Pos:    [][2]float64{{0, 0}, {1, 0}, {1, 1}},
		Size:   300,
		Colors: Palettes["blue"],
	}
}

// render writes d as format and decodes it when it is a PNG.
func render(t *testing.T, d Drawing, format string) ([]byte, image.Image) {
	t.Helper()
	var buf bytes.Buffer
	if err := WritePicture(&buf, d, format); err != nil {
		t.Fatal(err)
	}
	if format != "png" {
		return buf.Bytes(), nil
	}
	img, err := png.Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), img
}

// rgbAt returns the colour of img at (x, y) in 8 bits a channel.
func rgbAt(img image.Image, x, y float64) [3]int {
	r, g, b, _ := img.At(int(x), int(y)).RGBA()
	return [3]int{int(r >> 8), int(g >> 8), int(b >> 8)}
}

// near reports whether two colours differ by at most tol in every channel.
func near(a, b [3]int, tol int) bool {
	for i := range a {
		if d := a[i] - b[i]; d > tol || d < -tol {
			return false
		}
	}
	return true
}

// TestNetworkPNG draws testPicture and reads pixels back: the image has
// the asked size, the middle of the positive edge has the positive colour
// and the middle of the negative edge the negative one (the weaker edge is
// lighter: drawn with opacity 0.35 + 0.65·|w|/max|w|), each node's label
// puts dark pixels inside its disc, and a spot away from everything is
// white.
func TestNetworkPNG(t *testing.T) {
	p := testPicture()
	_, img := render(t, p.Drawing(), "png")
	if b := img.Bounds(); b.Dx() != 300 || b.Dy() != 300 {
		t.Fatalf("size %v, want 300×300", b)
	}
	ax, ay := p.nodeAt(0)
	bx, by := p.nodeAt(1)
	cx, cy := p.nodeAt(2)
	// Full opacity: the palette's colour.
	pos := rgbAt(img, (ax+bx)/2, (ay+by)/2)
	if want := p.Colors[0]; !near(pos, [3]int{int(want.R), int(want.G), int(want.B)}, 2) {
		t.Errorf("middle of the positive edge: %v, want %v", pos, want)
	}
	// Opacity 0.35 + 0.65/2 over white: between the colour and white.
	neg := rgbAt(img, (bx+cx)/2, (by+cy)/2)
	a := 0.35 + 0.65*0.5
	for ch, v := range []uint8{p.Colors[1].R, p.Colors[1].G, p.Colors[1].B} {
		want := float64(v)*a + 255*(1-a)
		if math.Abs(float64(neg[ch])-want) > 2 {
			t.Errorf("middle of the negative edge: %v, channel %d want %.0f", neg, ch, want)
		}
	}
	if !(neg[0] > neg[2]+60) {
		t.Errorf("negative edge %v is not red", neg)
	}
	if w := rgbAt(img, ax+40, (ay+cy)/2+40); w != [3]int{255, 255, 255} {
		t.Errorf("empty spot: %v, want white", w)
	}
	rad := nodeRadius(3, 300)
	for i := range p.Names {
		x, y := p.nodeAt(i)
		dark := 0
		for py := y - rad + 4; py < y+rad-4; py++ {
			for px := x - rad + 4; px < x+rad-4; px++ {
				if math.Hypot(px-x, py-y) < rad-4 && rgbAt(img, px, py)[0] < 100 {
					dark++
				}
			}
		}
		// A one-letter label in the node's type darkens a few dozen
		// pixels; an empty white disc has none.
		if dark < 15 {
			t.Errorf("node %q: %d dark pixels inside its disc, want its label", p.Names[i], dark)
		}
	}
}

// TestNetworkSVG checks the SVG of testPicture: well-formed XML of the
// asked size, with the font embedded, the edges and the legend's
// swatches in the colours of their signs, and the labels as text.
func TestNetworkSVG(t *testing.T) {
	b, _ := render(t, testPicture().Drawing(), "svg")
	doc := readSVG(t, b)
	if doc.width != "300pt" || doc.height != "300pt" {
		t.Errorf("size %s×%s, want 300pt×300pt", doc.width, doc.height)
	}
	if !bytes.Contains(b, []byte("@font-face")) || !bytes.Contains(b, []byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")) {
		t.Errorf("no font embedded, or no fallback named")
	}
	// Two edges and the two legend swatches (a colour with opacity comes
	// out of vg within a unit of its own).
	var blue, red int
	for _, st := range doc.pathStyles {
		for _, kv := range strings.Split(st, ";") {
			var c [3]int
			if _, err := fmt.Sscanf(kv, "stroke:#%02x%02x%02x", &c[0], &c[1], &c[2]); err == nil {
				switch {
				case near(c, [3]int{0x1f, 0x4e, 0xb4}, 1):
					blue++
				case near(c, [3]int{0xc8, 0x1e, 0x1e}, 1):
					red++
				}
			}
		}
	}
	if blue != 2 || red != 2 {
		t.Errorf("%d blue and %d red lines, want two of each (edge, legend)", blue, red)
	}
	for _, name := range []string{"a", "b", "c", "positive", "negative"} {
		found := false
		for _, tx := range doc.texts {
			found = found || tx == name
		}
		if !found {
			t.Errorf("no text %q in %q", name, doc.texts)
		}
	}
}

// svgDoc is what the tests read of an SVG document.
type svgDoc struct {
	width, height string
	pathStyles    []string // the style of every path
	texts         []string // every text
}

// readSVG reads b as XML, failing the test if it is not, and collects its
// size, the styles of its paths and its texts, at any depth.
func readSVG(t *testing.T, b []byte) svgDoc {
	t.Helper()
	var doc svgDoc
	dec := xml.NewDecoder(bytes.NewReader(b))
	inText := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return doc
		}
		if err != nil {
			t.Fatalf("not XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			attr := func(name string) string {
				for _, a := range tok.Attr {
					if a.Name.Local == name {
						return a.Value
					}
				}
				return ""
			}
			switch tok.Name.Local {
			case "svg":
				doc.width, doc.height = attr("width"), attr("height")
			case "path":
				doc.pathStyles = append(doc.pathStyles, attr("style"))
			case "text":
				inText = true
				doc.texts = append(doc.texts, "")
			}
		case xml.CharData:
			if inText {
				doc.texts[len(doc.texts)-1] += string(tok)
			}
		case xml.EndElement:
			inText = inText && tok.Name.Local != "text"
		}
	}
}

// TestPictureFormats: the extension picks the format in any case, another
// one is an error naming the three; the PDF is a PDF of the asked size.
func TestPictureFormats(t *testing.T) {
	for path, want := range map[string]string{"a.png": "png", "b.SVG": "svg", "dir/c.Pdf": "pdf"} {
		if got, err := PictureFormat(path); err != nil || got != want {
			t.Errorf("PictureFormat(%q) = %q, %v, want %q", path, got, err, want)
		}
	}
	if _, err := PictureFormat("x.gif"); err == nil || !strings.Contains(err.Error(), ".png, .svg or .pdf") {
		t.Errorf("x.gif: err = %v", err)
	}
	if err := WritePicture(new(bytes.Buffer), testPicture().Drawing(), "gif"); err == nil {
		t.Errorf("format gif written")
	}
	if c := straightColor(withAlpha(Palettes["blue"][0], 0.5)); c.A != 128 {
		t.Errorf("withAlpha: %v", c)
	} else if r, _, _, a := c.RGBA(); r != 0x1f1f || a != 0x8080 {
		t.Errorf("straightColor.RGBA: r %#x a %#x, want the components as they are", r, a)
	}
	b, _ := render(t, testPicture().Drawing(), "pdf")
	if !bytes.HasPrefix(b, []byte("%PDF-")) || !bytes.Contains(b, []byte("/MediaBox [0 0 300.00 300.00]")) {
		t.Errorf("not a 300×300 PDF: %.200q", b)
	}
}

// testBootstrap is a bootstrap of three nodes: two edges with intervals,
// a pair never selected (not drawn), and one whose resamples gave NaN; and
// two statistics dropped at two levels, one correlation NaN.
func testBootstrap() (Intervals, Stability) {
	nan := math.NaN()
	iv := Intervals{
		Names:     []string{"q1", "q2", "q3"},
		Resamples: 10,
		Level:     0.95,
		Pairs: []Interval{
			{I: 0, J: 1, Weight: 0.5, Mean: 0.45, Lower: 0.3, Upper: 0.6, Selected: 1},
			{I: 0, J: 2, Selected: 0},
			{I: 1, J: 2, Weight: -0.2, Mean: nan, Lower: nan, Upper: nan, Selected: 0.5},
		},
	}
	st := Stability{
		Statistics:     []string{"edge", "expectedInfluence"},
		CS:             []float64{0.5, 0.25},
		MinCorrelation: 0.7,
		Drops:          []float64{0.1, 0.5},
		Resamples: []StabilityResample{
			{Drop: 0.1, Correlations: []float64{0.99, 0.9}},
			{Drop: 0.1, Correlations: []float64{0.98, nan}},
			{Drop: 0.5, Correlations: []float64{0.9, 0.6}},
		},
	}
	return iv, st
}

// TestBootstrapPlots draws both plots in every format: the interval plot
// names the drawn pairs and only them, the stability plot is 640×440 and
// names each statistic with its CS.
func TestBootstrapPlots(t *testing.T) {
	iv, st := testBootstrap()
	for _, format := range []string{"png", "svg", "pdf"} {
		render(t, IntervalPlot(iv), format)
		render(t, StabilityPlot(st), format)
	}
	svg, _ := render(t, IntervalPlot(iv), "svg")
	if !bytes.Contains(svg, []byte(">q1-q2<")) || !bytes.Contains(svg, []byte(">q2-q3<")) || bytes.Contains(svg, []byte(">q1-q3<")) {
		t.Errorf("interval plot: want rows q1-q2 and q2-q3 only")
	}
	svg, _ = render(t, StabilityPlot(st), "svg")
	for _, s := range []string{">edge CS 0.50<", ">exp.infl. CS 0.25<"} {
		if !bytes.Contains(svg, []byte(s)) {
			t.Errorf("stability plot: no %s", s)
		}
	}
	if _, img := render(t, StabilityPlot(st), "png"); img.Bounds() != image.Rect(0, 0, 640, 440) {
		t.Errorf("stability plot %v, want 640×440", img.Bounds())
	}
}

// TestSpringLayout: the same seed gives the same positions to the last
// bit, another seed others; positions fill [0, 1]²; and on two cliques
// joined by one weak edge, nodes of a clique lie closer together than
// nodes of different cliques.
func TestSpringLayout(t *testing.T) {
	var edges []Edge
	for c := 0; c < 2; c++ {
		for i := 0; i < 5; i++ {
			for j := i + 1; j < 5; j++ {
				edges = append(edges, Edge{I: 5*c + i, J: 5*c + j, Weight: 1})
			}
		}
	}
	edges = append(edges, Edge{I: 0, J: 5, Weight: -0.1})
	a := SpringLayout(10, edges, 7)
	b := SpringLayout(10, edges, 7)
	c := SpringLayout(10, edges, 8)
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
	if one := SpringLayout(1, nil, 1); one[0] != [2]float64{0.5, 0.5} {
		t.Errorf("one node at %v, want the middle", one[0])
	}
	if none := SpringLayout(0, nil, 1); none != nil {
		t.Errorf("no nodes at %v", none)
	}
	// Edges that cannot be drawn are left out: the layout is that of the
	// network without them; nodes without edges stay in [0, 1]².
	bad := append(slices.Clone(edges), Edge{I: 0, J: 10, Weight: 1}, Edge{I: -1, J: 2, Weight: 1},
		Edge{I: 3, J: 3, Weight: 1}, Edge{I: 1, J: 6, Weight: math.NaN()}, Edge{I: 2, J: 7, Weight: math.Inf(1)}, Edge{I: 2, J: 8})
	if d := SpringLayout(10, bad, 7); !slices.Equal(d, a) {
		t.Errorf("edges outside the network changed the layout")
	}
	for i, p := range SpringLayout(13, edges, 7) {
		if !(p[0] >= 0 && p[0] <= 1 && p[1] >= 0 && p[1] <= 1) {
			t.Errorf("13 nodes: node %d at %v, outside [0, 1]²", i, p)
		}
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
	if err := WriteLayout(&buf, []string{"x", "y", "z"}, [][2]float64{{0.1, 0.2}, {0.3, 0.4}, {0.5, 0.6}}); err != nil {
		t.Fatal(err)
	}
	pos, err := ReadLayout(bytes.NewReader(buf.Bytes()), []string{"z", "x"})
	if err != nil {
		t.Fatal(err)
	}
	if pos[0] != [2]float64{0.5, 0.6} || pos[1] != [2]float64{0.1, 0.2} {
		t.Errorf("read %v", pos)
	}
	if _, err := ReadLayout(bytes.NewReader(buf.Bytes()), []string{"x", "w"}); err == nil || !strings.Contains(err.Error(), `"w"`) {
		t.Errorf("missing node: err = %v", err)
	}
	if _, err := ReadLayout(strings.NewReader(`{"nodes": [{"name": "x", "x": 1}], "extra": 1}`), []string{"x"}); err == nil {
		t.Errorf("unknown field accepted")
	}
}

// TestContactMap rasterises a 3×3 score matrix: the cells are 200 points
// wide, the diagonal and a negative score white, the largest score dark
// blue, half of it half way, and a marked pair red above the diagonal only
// (given either way round); the columns are named beside the map.
func TestContactMap(t *testing.T) {
	s := mat.NewSymDense(3, []float64{
		0, 2, 1,
		2, 0, -1,
		1, -1, 0,
	})
	names := []string{"M1", "K2", "L3"}
	d, left, top := contactMap(names, s, [][2]int{{2, 0}, {5, 1}})
	_, img := render(t, d, "png")
	w, h := d.Size()
	if b := img.Bounds(); b.Dx() != int(w) || b.Dy() != int(h) || w < left+600 || h < top+600 {
		t.Fatalf("bounds %v, size %v×%v, cells from (%v, %v)", b, w, h, left, top)
	}
	for _, c := range []struct {
		i, j    int
		r, g, b int
	}{
		{0, 0, 255, 255, 255}, {1, 2, 255, 255, 255}, // diagonal, negative score
		{0, 1, 20, 40, 140}, {1, 0, 20, 40, 140}, // the largest score
		{2, 0, 137, 147, 197}, // half of it: 255 - 235/2 = 137.5, truncated
		{0, 2, 220, 30, 30},   // marked
	} {
		got := rgbAt(img, left+float64(c.j*200+100), top+float64(c.i*200+100))
		if !near(got, [3]int{c.r, c.g, c.b}, 1) {
			t.Errorf("cell (%d, %d): %v, want %d, %d, %d", c.i, c.j, got, c.r, c.g, c.b)
		}
	}
	svg, _ := render(t, d, "svg")
	for _, nm := range names {
		if !bytes.Contains(svg, []byte(">"+nm+"<")) {
			t.Errorf("no column name %s", nm)
		}
	}
}
