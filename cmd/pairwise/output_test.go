package main

import "gonum.org/v1/gonum/mat"

// positiveColor is the colour that pairwise.Result.WriteDOT gives an edge
// of positive Ising coupling, which the tests read back.
const positiveColor = "#2166ac"

// isingCoupling returns A_ij of a k = 2 coupling matrix W_ij in the closed
// form (W00 - W01 - W10 + W11)/4, written out here so that the tests do
// not check the command's output with the function that produced it.
func isingCoupling(w mat.Matrix) float64 {
	return (w.At(0, 0) - w.At(0, 1) - w.At(1, 0) + w.At(1, 1)) / 4
}
