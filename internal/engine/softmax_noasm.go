//go:build !amd64 || purego

package engine

import "unsafe"

// The block kernels of gatherRow and scatterRow in Go, for architectures
// without the assembly (and the purego tag): the same arguments as
// softmax_amd64.go's, the caller having checked the bounds.

func gather8(dst, base, tab *float64, stride int, row []uint16) {
	b := unsafe.Slice(base, 8)
	a0, a1, a2, a3 := b[0], b[1], b[2], b[3]
	a4, a5, a6, a7 := b[4], b[5], b[6], b[7]
	for _, e := range row {
		t := (*[8]float64)(unsafe.Add(unsafe.Pointer(tab), int(e)*stride))
		a0 += t[0]
		a1 += t[1]
		a2 += t[2]
		a3 += t[3]
		a4 += t[4]
		a5 += t[5]
		a6 += t[6]
		a7 += t[7]
	}
	d := unsafe.Slice(dst, 8)
	d[0], d[1], d[2], d[3] = a0, a1, a2, a3
	d[4], d[5], d[6], d[7] = a4, a5, a6, a7
}

func gather4(dst, base, tab *float64, stride int, row []uint16) {
	b := unsafe.Slice(base, 4)
	a0, a1, a2, a3 := b[0], b[1], b[2], b[3]
	for _, e := range row {
		t := (*[4]float64)(unsafe.Add(unsafe.Pointer(tab), int(e)*stride))
		a0 += t[0]
		a1 += t[1]
		a2 += t[2]
		a3 += t[3]
	}
	d := unsafe.Slice(dst, 4)
	d[0], d[1], d[2], d[3] = a0, a1, a2, a3
}

func scatter8(hist, r *float64, stride int, row []uint16) {
	v := unsafe.Slice(r, 8)
	r0, r1, r2, r3 := v[0], v[1], v[2], v[3]
	r4, r5, r6, r7 := v[4], v[5], v[6], v[7]
	for _, e := range row {
		h := (*[8]float64)(unsafe.Add(unsafe.Pointer(hist), int(e)*stride))
		h[0] += r0
		h[1] += r1
		h[2] += r2
		h[3] += r3
		h[4] += r4
		h[5] += r5
		h[6] += r6
		h[7] += r7
	}
}

func scatter4(hist, r *float64, stride int, row []uint16) {
	v := unsafe.Slice(r, 4)
	r0, r1, r2, r3 := v[0], v[1], v[2], v[3]
	for _, e := range row {
		h := (*[4]float64)(unsafe.Add(unsafe.Pointer(hist), int(e)*stride))
		h[0] += r0
		h[1] += r1
		h[2] += r2
		h[3] += r3
	}
}

// useAVX2 is never set without the assembly; gather20avx and scatter20avx
// are the blocks of eight and four, for the dispatch to compile.
var useAVX2 = false

func gather20avx(dst, base, tab *float64, stride int, row []uint16) {
	gather8(dst, base, tab, stride, row)
	gather8((*float64)(unsafe.Add(unsafe.Pointer(dst), 64)), (*float64)(unsafe.Add(unsafe.Pointer(base), 64)), (*float64)(unsafe.Add(unsafe.Pointer(tab), 64)), stride, row)
	gather4((*float64)(unsafe.Add(unsafe.Pointer(dst), 128)), (*float64)(unsafe.Add(unsafe.Pointer(base), 128)), (*float64)(unsafe.Add(unsafe.Pointer(tab), 128)), stride, row)
}

func scatter20avx(hist, r *float64, stride int, row []uint16) {
	scatter8(hist, r, stride, row)
	scatter8((*float64)(unsafe.Add(unsafe.Pointer(hist), 64)), (*float64)(unsafe.Add(unsafe.Pointer(r), 64)), stride, row)
	scatter4((*float64)(unsafe.Add(unsafe.Pointer(hist), 128)), (*float64)(unsafe.Add(unsafe.Pointer(r), 128)), stride, row)
}

// useExpAVX is never set without the assembly; exp4blocks does no block.
var useExpAVX = false

func exp4blocks(x *float64, blocks int) int { return 0 }

func hasFMA() bool { return false }

func axpy32avx(a float64, x *float32, y *float64, blocks int) {}
