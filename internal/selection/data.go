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
	// Bits holds bit samples as the engine reads them (engine.Rows.Bits:
	// 64-row blocks of N words, bit r of word x·N + j the state of
	// variable j in row 64x + r), nil otherwise. RowBits returns them
	// row-major (row m at words [m·W, (m+1)·W), W = ⌈N/64⌉, variable j
	// at bit j%64 of word m·W + j/64), made on its first call: the room
	// of the bits, an eighth of Unpack's. The stages of the Ising edge
	// test past WaldDenseMax spins (SupportMargins, SupportSubset, Row)
	// read these, so that on bit samples they never unpack the Count×N
	// bytes (issue 33: a gigabyte at 10⁶ rows of 1,000 spins).
	Bits    []uint64
	RowBits func() []uint64
}

// bitsOnly reports whether s holds bit samples without their bytes: the
// stages that can read bits then read Bits (Row, At, the refit's rows) or
// RowBits (the support model's passes) and never call Unpack.
func (s *Data) bitsOnly() bool { return s.Bytes == nil && s.Bits != nil }

// eachBitBlock calls f for every block of 64 rows of the bit samples of s
// (Bits), in the order of the rows: m0 the block's first row, rows the
// number of its 64 bits that are rows (fewer in the last block), words[a]
// the block's word of spin nb[a] (bit r the state of row m0 + r) and y
// that of spin i. words must hold len(nb) words; f reads them until it
// returns. It stops and returns false as soon as f does.
func (s *Data) eachBitBlock(i int, nb []int, words []uint64, f func(m0, rows int, y uint64) bool) bool {
	n := s.N
	for m0 := 0; m0 < s.Count; m0 += 64 {
		blk := s.Bits[(m0/64)*n : (m0/64+1)*n]
		for a, j := range nb {
			words[a] = blk[j]
		}
		if !f(m0, min(64, s.Count-m0), blk[i]) {
			return false
		}
	}
	return true
}

// Row returns the states of row m, one byte a value: a slice of Bytes,
// or for bit samples the row unpacked into dst (of length N), without
// unpacking the others.
func (s *Data) Row(dst []uint8, m int) []uint8 {
	n := s.N
	if s.bitsOnly() {
		blk, sh := s.Bits[(m/64)*n:(m/64+1)*n], uint(m%64)
		for j, w := range blk {
			dst[j] = uint8(w >> sh & 1)
		}
		return dst[:n]
	}
	return s.States()[m*n : (m+1)*n]
}

// At returns the state of variable j in row m: a byte of Bytes, or for
// bit samples a bit of Bits, without unpacking the rows.
func (s *Data) At(m, j int) uint8 {
	if s.bitsOnly() {
		return uint8(s.Bits[(m/64)*s.N+j] >> uint(m%64) & 1)
	}
	return s.States()[m*s.N+j]
}

// spinRows reads the rows of complete Ising samples (every state 0 or
// 1): the bytes, or for bit samples their row-major bits (Data.RowBits).
type spinRows struct {
	n, w  int
	bytes []uint8
	rb    []uint64
}

// spinRows returns s's rows for the support model's passes.
func (s *Data) spinRows() spinRows {
	if s.bitsOnly() && s.RowBits != nil {
		return spinRows{n: s.N, w: (s.N + 63) / 64, rb: s.RowBits()}
	}
	return spinRows{n: s.N, bytes: s.States()}
}

// at returns the state (0 or 1) of variable j in row m.
func (r *spinRows) at(m, j int) int {
	if r.rb != nil {
		return int(r.rb[m*r.w+j>>6] >> uint(j&63) & 1)
	}
	return int(r.bytes[m*r.n+j] & 1)
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
