package draw

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"

	"github.com/mrfkit/pairwise"
)

// Edge colours of the network picture: qgraph's two themes, "colorblind"
// (blue positive, red negative; the default here) and "classic" (green
// positive, red negative).
var Palettes = map[string][2]color.RGBA{
	"blue":  {{0x1f, 0x4e, 0xb4, 255}, {0xc8, 0x1e, 0x1e, 255}},
	"green": {{0x00, 0x99, 0x00, 255}, {0xbf, 0x00, 0x00, 255}},
}

// NetworkPicture is what the network drawing needs.
type NetworkPicture struct {
	Names []string
	Edges []pairwise.Edge // signed weights
	Pos   [][2]float64    // in [0, 1]², y down
	Size  int             // width and height in pixels
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
		top += 24
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
// opaque as their |weight| (the strongest drawn last, on top), nodes as
// white discs with their names inside (smaller type, or beside the node,
// when a name does not fit), and a legend.
func (p NetworkPicture) Drawing() Drawing {
	size := p.Size
	rad := nodeRadius(len(p.Names), size)
	px := p.nodeAt
	maxW := p.MaxWeight
	if maxW <= 0 {
		for _, e := range p.Edges {
			maxW = math.Max(maxW, math.Abs(e.Weight))
		}
	}
	edges := slices.Clone(p.Edges)
	slices.SortStableFunc(edges, func(a, b pairwise.Edge) int { return cmp.Compare(math.Abs(a.Weight), math.Abs(b.Weight)) })
	maxWidth := math.Max(3, rad*0.6)
	return Drawing{width: size, height: size, draw: func(c canvas) {
		if p.Title != "" {
			c.text(float64(size)/2, 18, p.Title, 14, anchorMiddle, black)
		}
		for _, e := range edges {
			if e.Weight == 0 {
				continue
			}
			rel := math.Min(math.Abs(e.Weight)/maxW, 1)
			col := p.Colors[0]
			if e.Weight < 0 {
				col = p.Colors[1]
			}
			x1, y1 := px(e.I)
			x2, y2 := px(e.J)
			c.line(x1, y1, x2, y2, 1+(maxWidth-1)*rel, withAlpha(col, 0.35+0.65*rel))
		}
		for i, name := range p.Names {
			x, y := px(i)
			c.circle(x, y, rad, white, black, 1.5)
			// The largest type up to a cap height of 14 pixels that fits
			// in the node, else 7 pixels below it.
			fit := false
			for _, sz := range []float64{14, 7} {
				if float64(textWidth(name, fontScale(sz))) <= 2*rad-6 && sz*fontScaleRatio(sz) <= 2*rad-4 {
					c.text(x, y, name, sz, anchorMiddle, black)
					fit = true
					break
				}
			}
			if !fit {
				c.text(x, y+rad+8, name, 7, anchorMiddle, black)
			}
		}
		// Legend, bottom left.
		ly := float64(size) - 14
		for s, label := range []string{"positive", "negative"} {
			x := 10 + float64(s)*110
			c.line(x, ly, x+28, ly, 4, p.Colors[s])
			c.text(x+34, ly, label, 7, anchorStart, black)
		}
		c.text(float64(size)-10, ly, fmt.Sprintf("widest: |w| = %.3g", maxW), 7, anchorEnd, grey)
	}}
}

// fontScaleRatio is the drawn cap height over the asked one (the bitmap
// font draws whole pixels).
func fontScaleRatio(size float64) float64 {
	return float64(fontScale(size)*glyphH) / size
}
