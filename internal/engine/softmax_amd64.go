//go:build !purego

package engine

// The block kernels of gatherRow and scatterRow in assembly
// (softmax_amd64.s). dst, base, tab, hist and r point at the block's first
// class; stride is K'·8, the bytes of a table row; the caller has checked
// that every entry's block is inside the table (checkRow).

//go:noescape
func gather8(dst, base, tab *float64, stride int, row []uint16)

//go:noescape
func gather4(dst, base, tab *float64, stride int, row []uint16)

//go:noescape
func scatter8(hist, r *float64, stride int, row []uint16)

//go:noescape
func scatter4(hist, r *float64, stride int, row []uint16)
