package draw

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

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
func testPicture() NetworkPicture {
	return NetworkPicture{
		Names:  []string{"a", "b", "c"},
		Edges:  []pairwise.Edge{{I: 0, J: 1, Weight: 0.5}, {I: 1, J: 2, Weight: -0.25}},
		Pos:    [][2]float64{{0, 0}, {1, 0}, {1, 1}},
		Size:   300,
		Colors: Palettes["blue"],
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
	if err := writePNG(&buf, p.Drawing()); err != nil {
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
	if want := p.Colors[0]; pos != [3]int{int(want.R), int(want.G), int(want.B)} {
		t.Errorf("middle of the positive edge: %v, want %v", pos, want)
	}
	// Opacity 0.35 + 0.65/2 over white: between the colour and white.
	neg := rgb((bx+cx)/2, (by+cy)/2)
	a := 0.35 + 0.65*0.5
	for ch, v := range []uint8{p.Colors[1].R, p.Colors[1].G, p.Colors[1].B} {
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
	for i := range p.Names {
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
			t.Errorf("node %q: %d dark pixels inside its disc, want its label", p.Names[i], dark)
		}
	}
}

// TestNetworkSVG checks the SVG of testPicture: well-formed XML of the
// asked size, one line a sign in its colour, and the labels as text.
func TestNetworkSVG(t *testing.T) {
	var buf bytes.Buffer
	if err := writeSVG(&buf, testPicture().Drawing()); err != nil {
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

// TestContactMap rasterises a 3×3 score matrix: the cells are 200 pixels
// wide, the diagonal and a negative score white, the largest score dark
// blue, half of it half way, and a marked pair red above the diagonal only.
func TestContactMap(t *testing.T) {
	s := mat.NewSymDense(3, []float64{
		0, 2, 1,
		2, 0, -1,
		1, -1, 0,
	})
	var b bytes.Buffer
	if err := WritePicture(&b, ContactMap(s, []pairwise.Contact{{I: 0, J: 2}}), "png"); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil || img.Bounds().Dx() != 600 || img.Bounds().Dy() != 600 {
		t.Fatalf("%v, bounds %v", err, img.Bounds())
	}
	for _, c := range []struct {
		i, j    int
		r, g, b uint32
	}{
		{0, 0, 255, 255, 255}, {1, 2, 255, 255, 255}, // diagonal, negative score
		{0, 1, 20, 40, 140}, {1, 0, 20, 40, 140}, // the largest score
		{2, 0, 137, 147, 197}, // half of it: 255 - 235/2 = 137.5, truncated
		{0, 2, 220, 30, 30},   // marked
	} {
		r, g, bl, _ := img.At(c.j*200+100, c.i*200+100).RGBA()
		if r>>8 != c.r || g>>8 != c.g || bl>>8 != c.b {
			t.Errorf("cell (%d, %d): %d, %d, %d, want %d, %d, %d", c.i, c.j, r>>8, g>>8, bl>>8, c.r, c.g, c.b)
		}
	}
}
