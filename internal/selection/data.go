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
	// Bytes holds the Count×N states when the samples are bytes; nil for
	// bit samples, which Unpack turns into bytes on its first call (the
	// caller's lazy unpacking), so that stages that never read the states
	// never hold them as bytes.
	Bytes  []uint8
	Unpack func() []uint8
}

// States returns the Count×N states, row-major. It is a field read for
// byte samples, so that the stages' loops over the rows may call it.
func (s *Data) States() []uint8 {
	if s.Bytes != nil {
		return s.Bytes
	}
	return s.Unpack()
}

// Weight returns the weight of row m.
func (s *Data) Weight(m int) float64 {
	if s.Weights == nil {
		return 1
	}
	return s.Weights[m]
}
