package selection

// Data is the samples as the stages after the fits read them: Count rows
// of N variables over the states 0..K-1, row-major, one byte a value. A
// missing value is stored as the state K, and Incomplete reports that
// some value is missing. Weights holds a weight a row (nil when every row
// weighs 1) and Total their sum.
type Data struct {
	N, K, Count int
	Weights     []float64
	Total       float64
	Incomplete  bool
	// States returns the Count×N states; bit samples are unpacked on the
	// first call (the caller's lazy unpacking), so stages that never read
	// the states never hold them as bytes.
	States func() []uint8
}

// Weight returns the weight of row m.
func (s *Data) Weight(m int) float64 {
	if s.Weights == nil {
		return 1
	}
	return s.Weights[m]
}
