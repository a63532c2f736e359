package main

import (
	"image"
	"image/color"
	"image/png"
	"io"
	"math"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/internal/cli"
	"gonum.org/v1/gonum/mat"
)

// writeContactPNG draws the score matrix s as a heat map, one cell of
// side max(1, 600/n) pixels a pair, white for the lowest score and dark
// blue for the highest (scores below zero, possible after APC, draw white),
// with the pairs of marks outlined in red in the upper triangle only, so
// that the lower triangle shows the scores unmarked.
func writeContactPNG(path string, s mat.Symmetric, marks []pairwise.Contact) error {
	n := s.SymmetricDim()
	cell := max(1, 600/max(n, 1))
	img := image.NewRGBA(image.Rect(0, 0, n*cell, n*cell))
	hi := 0.0
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if v := s.At(i, j); v > hi && !math.IsInf(v, 0) {
				hi = v
			}
		}
	}
	fill := func(i, j int, c color.RGBA) {
		for y := i * cell; y < (i+1)*cell; y++ {
			for x := j * cell; x < (j+1)*cell; x++ {
				img.SetRGBA(x, y, c)
			}
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			t := 0.0
			if i != j && hi > 0 {
				t = math.Max(0, math.Min(1, s.At(i, j)/hi))
			}
			// From white to dark blue (20, 40, 140).
			c := color.RGBA{uint8(255 - t*235), uint8(255 - t*215), uint8(255 - t*115), 255}
			fill(i, j, c)
		}
	}
	for _, m := range marks {
		fill(m.I, m.J, color.RGBA{220, 30, 30, 255})
	}
	return cli.WriteFile(path, io.Discard, func(w io.Writer) error { return png.Encode(w, img) })
}
