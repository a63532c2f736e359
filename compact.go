package pairwise

// Compact returns weighted samples with one row per distinct observation of
// s: identical rows are merged into the first of them, in order of first
// appearance, with their weights summed (each row of unweighted samples
// counts 1, so the weights become histogram counts). Rows of weight zero are
// merged like the others and kept. The alphabet size and names of s are kept;
// TotalWeight may differ from that of s by rounding when the weights are not
// integers. s is not modified. The result is always weighted, even when no two
// rows are equal, and WriteCSV writes it in the ReadHistogramCSV format.
func (s *Samples) Compact() *Samples {
	c := &Samples{n: s.n, k: s.k, names: s.names}
	index := make(map[string]int)
	key := make([]byte, 0, 2*s.n)
	for m := 0; m < s.rows; m++ {
		off := m * s.n
		key = key[:0]
		if s.b8 != nil {
			key = append(key, s.b8[off:off+s.n]...)
		} else {
			for _, v := range s.b16[off : off+s.n] {
				key = append(key, byte(v), byte(v>>8))
			}
		}
		w := s.Weight(m)
		if r, ok := index[string(key)]; ok {
			c.weights[r] += w
			continue
		}
		index[string(key)] = c.rows
		c.rows++
		c.weights = append(c.weights, w)
		if s.b8 != nil {
			c.b8 = append(c.b8, s.b8[off:off+s.n]...)
		} else {
			c.b16 = append(c.b16, s.b16[off:off+s.n]...)
		}
	}
	for _, w := range c.weights {
		c.total += w
	}
	return c
}
