package pairwise

import (
	"bytes"
	"hash/maphash"
	"math"
	"slices"
	"sort"
)

// Compact returns weighted samples with one row per distinct observation of
// s: identical rows are merged into the first of them, in order of first
// appearance, with their weights summed (each row of unweighted samples
// counts 1, so the weights become histogram counts). Rows of weight zero are
// merged like the others and kept. The alphabet size and names of s are kept;
// TotalWeight may differ from that of s by rounding when the weights are not
// integers. s is not modified. The result is always weighted, even when no two
// rows are equal, and WriteCSV writes it in the ReadHistogramCSV format.
//
// Compact needs the distinct rows, their weights and a hash index of 8 to 16
// bytes a distinct row besides s. Samples that are already compact (returned
// by Compact, ReadCSVCompact or ReadHistogramCSVCompact) are returned as
// they are, without a copy. ReadCSVCompact and ReadHistogramCSVCompact
// merge while reading, without ever holding the uncompacted rows.
func (s *Samples) Compact() *Samples {
	if s.merged {
		return s
	}
	c := &Samples{n: s.n, k: s.k, names: s.names, incomplete: s.incomplete, notes: s.notes, hasNotes: s.hasNotes}
	var index rowIndex
	for m := 0; m < s.rows; m++ {
		off := m * s.n
		if s.b16 == nil {
			c.b8 = s.appendRow8(c.b8, m)
		} else {
			c.b16 = append(c.b16, s.b16[off:off+s.n]...)
		}
		w := s.Weight(m)
		if r, dup := index.add(c, c.rows); dup {
			c.weights[r] += w
			if c.b16 != nil {
				c.b16 = c.b16[:c.rows*c.n]
			} else {
				c.b8 = c.b8[:c.rows*c.n]
			}
			continue
		}
		c.rows++
		c.weights = append(c.weights, w)
	}
	for _, w := range c.weights {
		c.total += w
	}
	c.merged = index.complete
	return c
}

// rowKey returns row m as bytes: the row itself for one-byte storage, or
// its values encoded into *buf (grown as needed) for two-byte storage.
func (s *Samples) rowKey(m int, buf *[]byte) []byte {
	if s.bits != nil {
		*buf = s.appendRow8((*buf)[:0], m)
		return *buf
	}
	if s.k <= 256 {
		return s.b8[m*s.n : (m+1)*s.n]
	}
	*buf = appendWide((*buf)[:0], s.b16[m*s.n:(m+1)*s.n])
	return *buf
}

func appendWide(dst []byte, row []uint16) []byte {
	for _, v := range row {
		dst = append(dst, byte(v), byte(v>>8))
	}
	return dst
}

// rowSource gives the rows a rowIndex indexes, as bytes (see
// Samples.rowKey).
type rowSource interface {
	rowKey(m int, buf *[]byte) []byte
}

// rowIndex is a hash set of the rows of a rowSource, used to merge identical
// rows as they arrive. It keeps no copy of a row: a slot holds the row's
// index + 1 (0 marks an empty slot), four bytes, and the table is kept at
// most half full, so the index costs 8 to 16 bytes a distinct row. The zero
// value is an empty index.
//
// The hash seed is random (hash/maphash), which changes only where rows sit
// in the table, never which rows are merged or in what order: results do
// not depend on it.
type rowIndex struct {
	seed       maphash.Seed
	slots      []uint32
	count      int
	bufA, bufB []byte // scratch for two-byte rows
	// complete is false once a row could not be indexed (beyond
	// maxIndexedRows), so that duplicates may remain.
	complete bool
	started  bool
}

// maxIndexedRows is the number of rows the four-byte slots can name; later
// rows are not merged (they are kept as distinct rows, which is still
// correct, only less compact).
const maxIndexedRows = math.MaxUint32 - 1

// add looks up row m of src among the rows already indexed. If an equal row
// r is there it returns (r, true) and leaves the index unchanged; otherwise
// it indexes m and returns (m, false).
func (x *rowIndex) add(src rowSource, m int) (int, bool) {
	if !x.started {
		x.started, x.complete = true, true
		x.seed = maphash.MakeSeed()
		x.slots = make([]uint32, 1<<10)
	}
	if m >= maxIndexedRows {
		x.complete = false
		return m, false
	}
	key := src.rowKey(m, &x.bufA)
	mask := len(x.slots) - 1
	for p := int(maphash.Bytes(x.seed, key)) & mask; ; p = (p + 1) & mask {
		r := int(x.slots[p]) - 1
		if r < 0 {
			x.slots[p] = uint32(m + 1)
			x.count++
			if 2*x.count > len(x.slots) {
				x.rehash(src, 2*len(x.slots))
			}
			return m, false
		}
		if other := src.rowKey(r, &x.bufB); bytes.Equal(key, other) {
			return r, true
		}
	}
}

// rehash rebuilds the table with size slots from the rows it indexes; it
// also serves after the rows change representation (one to two bytes).
func (x *rowIndex) rehash(src rowSource, size int) {
	if !x.started {
		return
	}
	old := x.slots
	x.slots = make([]uint32, size)
	mask := size - 1
	for _, v := range old {
		if v == 0 {
			continue
		}
		key := src.rowKey(int(v)-1, &x.bufA)
		p := int(maphash.Bytes(x.seed, key)) & mask
		for x.slots[p] != 0 {
			p = (p + 1) & mask
		}
		x.slots[p] = v
	}
}

// rowStore accumulates the rows of a reader in chunks, so that reading never
// copies the rows read so far into a larger slice (which, repeated as a
// slice grows, leaves several times the data as garbage for the collector).
// When the size of the input is known, the first chunk is followed by one
// chunk sized for the whole input, estimated from the bytes per row so far,
// into which the first is moved: the rows then end up in one slice without
// a final copy. Otherwise chunks grow geometrically and are joined at the
// end, which needs the data twice for a moment.
type rowStore struct {
	n      int
	wide   bool // values are stored in two bytes
	full8  [][]uint8
	full16 [][]uint16
	starts []int // first row of each chunk in full8/full16
	cur8   []uint8
	cur16  []uint16
	first  int // first row of the current chunk
	rows   int // complete rows stored

	remaining func() int64 // bytes of input left, or nil when unknown
	bytesRead int64        // bytes of the lines read so far
	estimated bool         // the input size was used to size a chunk

	// bits: the rows are stored as bits while every value is 0 or 1, in
	// b64 (the layout of Samples.bits), one slice sized like the byte
	// chunks (from the input size when known, else grown); col is the
	// column of the next value of the row being read. The first other
	// value turns them into bytes (unbit).
	bits bool
	b64  []uint64
	col  int
}

// firstChunkValues is the capacity, in values, of the first chunk.
const firstChunkValues = 1 << 16

// maxChunkValues caps the chunks grown without a size estimate.
const maxChunkValues = 1 << 26

// beginRow makes room in the current chunk for one more row.
func (st *rowStore) beginRow() {
	if st.bits {
		st.beginBitRow()
		return
	}
	l, c := len(st.cur8), cap(st.cur8)
	if st.wide {
		l, c = len(st.cur16), cap(st.cur16)
	}
	if l+st.n <= c {
		return
	}
	capRows := max(firstChunkValues/st.n, 1)
	if st.remaining != nil && l == 0 && st.rows == 0 {
		// Every value takes at least two bytes ("0,"): a small input
		// gets a small first chunk.
		capRows = int(min(int64(capRows), st.remaining()/int64(2*st.n)+1))
	}
	if l > 0 {
		capRows = min(max(2*(l/st.n), 1), max(maxChunkValues/st.n, 1))
	}
	if st.remaining != nil && !st.estimated && st.rows > 0 {
		// Size the next chunk for the rest of the input, with a margin;
		// untouched capacity costs address space, not memory.
		st.estimated = true
		perRow := float64(st.bytesRead) / float64(st.rows)
		rest := float64(st.remaining()) / perRow
		total := st.rows + int(1.1*rest) + 16
		if total*st.n > 0 && total < math.MaxInt/(2*st.n) {
			st.moveInto(total)
			return
		}
	}
	if l > 0 {
		st.starts = append(st.starts, st.first)
		if st.wide {
			st.full16 = append(st.full16, st.cur16)
		} else {
			st.full8 = append(st.full8, st.cur8)
		}
		st.first = st.rows
	}
	if st.wide {
		st.cur16 = make([]uint16, 0, capRows*st.n)
	} else {
		st.cur8 = make([]uint8, 0, capRows*st.n)
	}
}

// moveInto replaces the chunks by one chunk of capacity for rows rows that
// holds everything stored so far.
func (st *rowStore) moveInto(rows int) {
	if st.wide {
		c := make([]uint16, 0, rows*st.n)
		for _, f := range st.full16 {
			c = append(c, f...)
		}
		st.cur16, st.full16 = append(c, st.cur16...), nil
	} else {
		c := make([]uint8, 0, rows*st.n)
		for _, f := range st.full8 {
			c = append(c, f...)
		}
		st.cur8, st.full8 = append(c, st.cur8...), nil
	}
	st.starts, st.first = nil, 0
}

// beginBitRow makes room in b64 for one more row: a block of n words
// every 64 rows.
func (st *rowStore) beginBitRow() {
	st.col = 0
	need := (st.rows/64 + 1) * st.n
	if len(st.b64) >= need {
		return
	}
	if cap(st.b64) < need {
		words := max(2*cap(st.b64), need)
		if st.estimated {
			// Past the estimate, grow by an eighth: the store is most of
			// a large input's memory, and a doubling would leave up to
			// half of it unused.
			words = max(cap(st.b64)+cap(st.b64)/8, need)
		}
		if st.remaining != nil && !st.estimated && st.rows > 0 {
			// Sized for the rest of the input with a small margin
			// (the rows so far may be shorter than the rest). At
			// n = 5,000, N = 10^5 the 1.1 of the byte chunks held
			// 6 MB unused that the collector counted in its goal.
			st.estimated = true
			perRow := float64(st.bytesRead) / float64(st.rows)
			rest := float64(st.remaining()) / perRow
			if total := st.rows + int(1.03*rest) + 64; total > 0 && total < math.MaxInt/st.n {
				words = max(blockWords(total)*st.n, need)
			}
		}
		b := make([]uint64, len(st.b64), words)
		copy(b, st.b64)
		st.b64 = b
	}
	l := len(st.b64)
	st.b64 = st.b64[:need]
	clear(st.b64[l:])
}

// blockWords returns the number of 64-row blocks of rows rows.
func blockWords(rows int) int { return (rows + 63) / 64 }

// unbit turns the rows stored as bits, and the values of the row being
// read, into bytes, and the store into a byte store.
func (st *rowStore) unbit() {
	n := st.n
	cur := make([]uint8, st.rows*n+st.col, (st.rows+1)*n)
	for m := 0; m <= st.rows && m*n < len(cur); m++ {
		blk, sh := st.b64[(m/64)*n:(m/64+1)*n], uint(m%64)
		row := cur[m*n : min((m+1)*n, len(cur))]
		for j := range row {
			row[j] = uint8(blk[j] >> sh & 1)
		}
	}
	st.bits, st.b64 = false, nil
	st.cur8, st.full8, st.starts, st.first = cur, nil, nil, 0
	st.estimated = false // the byte chunks may size themselves
}

// joinBits returns the rows of a bit store: b64 trimmed to the blocks of
// the rows, or a copy when that is less than half of it (see join).
func (st *rowStore) joinBits() []uint64 {
	words := blockWords(st.rows) * st.n
	if 2*words < cap(st.b64) {
		return slices.Clone(st.b64[:words])
	}
	return st.b64[:words:words]
}

// push appends one value to the current row.
func (st *rowStore) push(v int) {
	if st.bits {
		if v > 1 {
			st.unbit()
		} else {
			if v == 1 {
				st.b64[(st.rows/64)*st.n+st.col] |= 1 << (st.rows % 64)
			}
			st.col++
			return
		}
	}
	if !st.wide && v > math.MaxUint8 {
		st.widen()
	}
	if st.wide {
		st.cur16 = append(st.cur16, uint16(v))
	} else {
		st.cur8 = append(st.cur8, uint8(v))
	}
}

// widen converts every chunk to two bytes a value.
func (st *rowStore) widen() {
	st.wide = true
	for _, f := range st.full8 {
		st.full16 = append(st.full16, widen16(f, len(f)))
	}
	st.full8 = nil
	st.cur16 = widen16(st.cur8, cap(st.cur8))
	st.cur8 = nil
}

func widen16(b []uint8, capacity int) []uint16 {
	w := make([]uint16, len(b), capacity)
	for x, u := range b {
		w[x] = uint16(u)
	}
	return w
}

// endRow records the row just pushed; dropRow removes it instead.
func (st *rowStore) endRow() { st.rows++; st.col = 0 }

func (st *rowStore) dropRow() {
	if st.bits {
		blk, bit := st.b64[(st.rows/64)*st.n:(st.rows/64+1)*st.n], uint64(1)<<(st.rows%64)
		for j := range blk {
			blk[j] &^= bit
		}
		st.col = 0
		return
	}
	if st.wide {
		st.cur16 = st.cur16[:len(st.cur16)-st.n]
	} else {
		st.cur8 = st.cur8[:len(st.cur8)-st.n]
	}
}

// rowKey implements rowSource for the complete rows and the row being read
// (row index rows).
func (st *rowStore) rowKey(m int, buf *[]byte) []byte {
	if st.bits {
		// The row as bytes, the key of a byte store.
		blk, sh := st.b64[(m/64)*st.n:(m/64+1)*st.n], uint(m%64)
		b := (*buf)[:0]
		for _, w := range blk {
			b = append(b, byte(w>>sh&1))
		}
		*buf = b
		return b
	}
	c, off := -1, m-st.first
	if m < st.first {
		c = sort.SearchInts(st.starts, m+1) - 1
		off = m - st.starts[c]
	}
	n := st.n
	if st.wide {
		chunk := st.cur16
		if c >= 0 {
			chunk = st.full16[c]
		}
		*buf = appendWide((*buf)[:0], chunk[off*n:(off+1)*n])
		return *buf
	}
	chunk := st.cur8
	if c >= 0 {
		chunk = st.full8[c]
	}
	return chunk[off*n : (off+1)*n]
}

// join returns all rows in one slice: the current chunk itself when it is
// the only one and at least half full, else a copy of exactly the rows. (A
// chunk sized from the input size is mostly empty when a merging reader
// merged many rows; its untouched capacity is address space, not memory,
// but it would hold on to that address space as long as the samples live.)
func (st *rowStore) join() ([]uint8, []uint16) {
	if st.wide {
		if len(st.full16) == 0 {
			if 2*len(st.cur16) < cap(st.cur16) {
				return nil, slices.Clone(st.cur16)
			}
			return nil, st.cur16[:len(st.cur16):len(st.cur16)]
		}
		all := make([]uint16, 0, st.rows*st.n)
		for _, f := range st.full16 {
			all = append(all, f...)
		}
		st.full16 = nil
		return nil, append(all, st.cur16...)
	}
	if len(st.full8) == 0 {
		if 2*len(st.cur8) < cap(st.cur8) {
			return slices.Clone(st.cur8), nil
		}
		return st.cur8[:len(st.cur8):len(st.cur8)], nil
	}
	all := make([]uint8, 0, st.rows*st.n)
	for _, f := range st.full8 {
		all = append(all, f...)
	}
	st.full8 = nil
	return append(all, st.cur8...), nil
}

// mergeRows returns s with identical rows merged into one weighted row, in
// order of first appearance (as Samples.Compact), and the merged row of every
// original row. When s is already merged, or merging would remove fewer
// than one row in 20 (as the learners' mergedRows decides), it returns s
// itself and into = nil, without a copy: a file of distinct rows costs only
// the index, 8 to 16 bytes a row, while it is scanned.
func mergeRows(s *Samples) (*Samples, []int32) {
	if s.merged {
		return s, nil
	}
	var index rowIndex
	into := make([]int32, s.rows)
	distinct := 0
	for m := 0; m < s.rows; m++ {
		r, dup := index.add(s, m)
		if dup {
			into[m] = into[r]
			continue
		}
		into[m] = int32(distinct)
		distinct++
	}
	index = rowIndex{}
	if 20*(s.rows-distinct) < s.rows {
		return s, nil
	}
	c := &Samples{n: s.n, k: s.k, rows: distinct, weights: make([]float64, distinct), incomplete: s.incomplete}
	if s.b16 == nil {
		c.b8 = make([]uint8, 0, distinct*s.n)
	} else {
		c.b16 = make([]uint16, 0, distinct*s.n)
	}
	next := int32(0)
	for m := 0; m < s.rows; m++ {
		r := into[m]
		if r == next { // first appearance
			if s.b16 == nil {
				c.b8 = s.appendRow8(c.b8, m)
			} else {
				c.b16 = append(c.b16, s.b16[m*s.n:(m+1)*s.n]...)
			}
			next++
		}
		c.weights[r] += s.Weight(m)
	}
	for _, w := range c.weights {
		c.total += w
	}
	return c, into
}
