package draw

import (
	"image"
	"image/color"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Colours of the contact map.
var (
	mapLow   = color.RGBA{255, 255, 255, 255} // the lowest score
	mapHigh  = color.RGBA{20, 40, 140, 255}   // the highest
	mapMarks = color.RGBA{220, 30, 30, 255}   // the marked pairs
)

// contactCell returns the side of a cell of the contact map of n columns,
// in points: max(1, 600/n).
func contactCell(n int) int { return max(1, 600/max(n, 1)) }

// ContactMap draws the score matrix s of 'pairwise contacts' as a heat
// map, one square cell of side max(1, 600/n) points a pair, white for the
// lowest score and dark blue (20, 40, 140) for the highest (scores below
// zero, possible after APC, NaN and ±Inf draw white), with the marked
// pairs (i, j) filled red in the upper triangle only, so that the lower
// triangle shows the scores unmarked; marks outside the matrix are
// skipped. The columns are named along the top and the left side at a
// round step by names (one a column; numbers from 1 when names is nil or
// short). The cells are an image, so that a map of many columns stays a
// small file in SVG and PDF too.
func ContactMap(names []string, s mat.Symmetric, marks [][2]int) Drawing {
	d, _, _ := contactMap(names, s, marks)
	return d
}

// contactMap returns ContactMap's drawing and the top left corner of its
// cells.
func contactMap(names []string, s mat.Symmetric, marks [][2]int) (d Drawing, left, top float64) {
	n := s.SymmetricDim()
	cell := contactCell(n)
	hi := 0.0
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if v := s.At(i, j); v > hi && !math.IsInf(v, 0) {
				hi = v
			}
		}
	}
	img := image.NewRGBA(image.Rect(0, 0, n*cell, n*cell))
	fill := func(i, j int, col color.RGBA) {
		for y := i * cell; y < (i+1)*cell; y++ {
			for x := j * cell; x < (j+1)*cell; x++ {
				img.SetRGBA(x, y, col)
			}
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			t := 0.0
			if v := s.At(i, j); i != j && hi > 0 && !math.IsNaN(v) && !math.IsInf(v, 0) {
				t = math.Max(0, math.Min(1, v/hi))
			}
			fill(i, j, color.RGBA{
				uint8(float64(mapLow.R) - t*(float64(mapLow.R)-float64(mapHigh.R))),
				uint8(float64(mapLow.G) - t*(float64(mapLow.G)-float64(mapHigh.G))),
				uint8(float64(mapLow.B) - t*(float64(mapLow.B)-float64(mapHigh.B))),
				255,
			})
		}
	}
	for _, m := range marks {
		i, j := min(m[0], m[1]), max(m[0], m[1])
		if i >= 0 && j < n && i != j {
			fill(i, j, mapMarks)
		}
	}
	name := func(i int) string {
		if i < len(names) {
			return names[i]
		}
		return tickLabel(float64(i + 1))
	}
	// Ticks at a round step of columns, about one a 60 points.
	var ticks []int
	if n > 0 {
		for _, t := range niceTicks(1, float64(n), max(1, n*cell/60)) {
			if i := int(t) - 1; i >= 0 && i < n && float64(i+1) == t {
				ticks = append(ticks, i)
			}
		}
	}
	widest := 0.0
	for _, i := range ticks {
		widest = math.Max(widest, textWidth(name(i), smallSize))
	}
	left, top = math.Ceil(widest)+14, 26.0
	right, bottom := math.Max(10, math.Ceil(widest/2)+2), 10.0
	width, height := left+float64(n*cell)+right, top+float64(n*cell)+bottom
	return Drawing{width: width, height: height, draw: func(c *canvas) {
		c.image(left, top, img)
		side := float64(n * cell)
		c.line(left, top, left+side, top, 0.5, grey)
		c.line(left, top+side, left+side, top+side, 0.5, grey)
		c.line(left, top, left, top+side, 0.5, grey)
		c.line(left+side, top, left+side, top+side, 0.5, grey)
		for _, i := range ticks {
			at := (float64(i) + 0.5) * float64(cell)
			c.line(left+at, top, left+at, top-4, 1, black)
			c.text(left+at, top-12, name(i), smallSize, anchorMiddle, black)
			c.line(left, top+at, left-4, top+at, 1, black)
			c.text(left-6, top+at, name(i), smallSize, anchorEnd, black)
		}
	}}, left, top
}
