package draw

import (
	"image/color"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/mrfkit/pairwise"
)

// ContactMap draws the score matrix s of 'pairwise contacts' as a heat
// map, one square cell of side max(1, 600/n) pixels a pair, white for the
// lowest score and dark blue (20, 40, 140) for the highest (scores below
// zero, possible after APC, and NaN draw white), with the pairs of marks
// filled red in the upper triangle only, so that the lower triangle shows
// the scores unmarked.
func ContactMap(s mat.Symmetric, marks []pairwise.Contact) Drawing {
	n := s.SymmetricDim()
	cell := max(1, 600/max(n, 1))
	hi := 0.0
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if v := s.At(i, j); v > hi && !math.IsInf(v, 0) {
				hi = v
			}
		}
	}
	return Drawing{width: n * cell, height: n * cell, draw: func(c canvas) {
		fill := func(i, j int, col color.RGBA) {
			c.rect(float64(j*cell), float64(i*cell), float64(cell), float64(cell), col)
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				t := 0.0
				if i != j && hi > 0 {
					t = math.Max(0, math.Min(1, s.At(i, j)/hi))
				}
				fill(i, j, color.RGBA{uint8(255 - t*235), uint8(255 - t*215), uint8(255 - t*115), 255})
			}
		}
		for _, m := range marks {
			fill(m.I, m.J, color.RGBA{220, 30, 30, 255})
		}
	}}
}
