package draw

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
)

// Edge colours of the network picture: qgraph's two themes, "colorblind"
// (blue positive, red negative; the default here) and "classic" (green
// positive, red negative).
var Palettes = map[string][2]color.RGBA{
	"blue":  {{0x1f, 0x4e, 0xb4, 255}, {0xc8, 0x1e, 0x1e, 255}},
	"green": {{0x00, 0x99, 0x00, 255}, {0xbf, 0x00, 0x00, 255}},
}

// NetworkPicture is what the network drawing needs: the names of the
// nodes, the edges with signed weights, a position of every node in
// [0, 1]² (y down, as SpringLayout and ReadLayout give; one a name), the
// width and height in points (pixels in a PNG), a title ("" for none),
// the |w| drawn widest and the colours of positive and negative edges.
type NetworkPicture struct {
	Names []string
	Edges []Edge
	Pos   [][2]float64
	Size  int
	Title string
	// maxWeight scales the edge widths and opacities: |w| = maxWeight is
	// the widest, most opaque edge. 0 means the largest |w| of edges; give
	// the same value to two pictures to compare their weights.
	MaxWeight float64
	Colors    [2]color.RGBA // of positive and negative edges
}

// nodeAt returns the centre of node i in pixels: the layout's [0, 1]²
// within margins that keep the nodes, the title and the legend apart.
func (p NetworkPicture) nodeAt(i int) (x, y float64) {
	margin := nodeRadius(len(p.Names), p.Size) + 12
	top := margin
	if p.Title != "" {
		top += 28
	}
	bottom := margin + 22 // room for the legend
	size := float64(p.Size)
	return margin + p.Pos[i][0]*(size-2*margin), top + p.Pos[i][1]*(size-top-bottom)
}

// nodeRadius is the radius of the nodes of a picture of n nodes on size
// pixels: a fifth of the spacing of n nodes on a grid, within 8 and 30.
func nodeRadius(n, size int) float64 {
	return math.Max(8, math.Min(30, float64(size)/math.Sqrt(float64(max(n, 1)))/5))
}

// Drawing returns the picture: edges coloured by sign, as wide and as
// opaque as their |weight| (the strongest drawn last, on top; NaN and 0
// weights and nodes outside the names are not drawn), nodes as white discs
// with their names inside (in the largest of three sizes in which all
// fit; a name too wide for the smallest is written below its node), and a
// legend.
func (p NetworkPicture) Drawing() Drawing {
	size := p.Size
	rad := nodeRadius(len(p.Names), size)
	px := p.nodeAt
	maxW := p.MaxWeight
	if maxW <= 0 {
		for _, e := range p.Edges {
			if !math.IsNaN(e.Weight) {
				maxW = math.Max(maxW, math.Abs(e.Weight))
			}
		}
	}
	n := len(p.Names)
	edges := slices.DeleteFunc(slices.Clone(p.Edges), func(e Edge) bool {
		return e.Weight == 0 || math.IsNaN(e.Weight) || e.I < 0 || e.I >= n || e.J < 0 || e.J >= n
	})
	slices.SortStableFunc(edges, func(a, b Edge) int { return cmp.Compare(math.Abs(a.Weight), math.Abs(b.Weight)) })
	maxWidth := math.Max(3, rad*0.6)
	return Drawing{width: float64(size), height: float64(size), draw: func(c *canvas) {
		if p.Title != "" {
			c.text(float64(size)/2, 22, p.Title, titleSize, anchorMiddle, black)
		}
		for _, e := range edges {
			rel := math.Min(math.Abs(e.Weight)/maxW, 1)
			col := p.Colors[0]
			if e.Weight < 0 {
				col = p.Colors[1]
			}
			x1, y1 := px(e.I)
			x2, y2 := px(e.J)
			c.line(x1, y1, x2, y2, 1+(maxWidth-1)*rel, withAlpha(col, 0.35+0.65*rel))
		}
		// The names in one size, the largest in which they all fit in
		// their nodes, else the smallest; a name that does not fit even
		// then is written below its node.
		fits := func(name string, sz float64) bool {
			return textWidth(name, sz) <= 2*rad-6 && capHeight(sz) <= 2*rad-4
		}
		sz := labelSizes[len(labelSizes)-1]
		for _, s := range labelSizes {
			if !slices.ContainsFunc(p.Names, func(name string) bool { return !fits(name, s) }) {
				sz = s
				break
			}
		}
		for i, name := range p.Names {
			x, y := px(i)
			c.circle(x, y, rad, white, black, 1.5)
			if fits(name, sz) {
				c.text(x, y, name, sz, anchorMiddle, black)
			} else {
				c.text(x, y+rad+3+capHeight(smallSize)/2, name, smallSize, anchorMiddle, black)
			}
		}
		// Legend, bottom left, in type that grows with the picture.
		ly, ls := float64(size)-14, math.Max(smallSize, math.Round(float64(size)/65))
		x := 10.0
		for s, label := range []string{"positive", "negative"} {
			c.line(x, ly, x+28, ly, 4, p.Colors[s])
			x += 34
			c.text(x, ly, label, ls, anchorStart, black)
			x += textWidth(label, ls) + 20
		}
		c.text(float64(size)-16, ly, fmt.Sprintf("widest: |w| = %.3g", maxW), ls, anchorEnd, grey)
	}}
}

// Type sizes of the pictures, in points: titles, node labels (the largest
// that fits in the node) and everything else.
const (
	titleSize = 16
	smallSize = 10
)

var labelSizes = []float64{18, 14, 11}
