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

// The AVX2 kernels (softmax_avx2_amd64.s): twenty classes in one pass
// over the row. Called only when useAVX2 is set.

//go:noescape
func gather20avx(dst, base, tab *float64, stride int, row []uint16)

//go:noescape
func scatter20avx(hist, r *float64, stride int, row []uint16)

// cpuid returns the CPUID registers of leaf and sub-leaf sub.
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

// xgetbv0 returns XCR0, the register states the OS saves (only to be
// called when CPUID reports OSXSAVE).
func xgetbv0() (eax, edx uint32)

// cpuHasAVX2 reports whether the CPU has AVX2 and the OS saves the YMM
// registers: CPUID leaf 1 ECX bits 27 (OSXSAVE) and 28 (AVX), XCR0 bits 1
// and 2 (XMM and YMM state), leaf 7 EBX bit 5 (AVX2).
func cpuHasAVX2() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, c1, _ := cpuid(1, 0)
	if c1&(1<<27) == 0 || c1&(1<<28) == 0 {
		return false
	}
	if xcr0, _ := xgetbv0(); xcr0&6 != 6 {
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<5) != 0
}

// useAVX2 selects the AVX2 kernels; tests clear it to run the SSE2 ones.
var useAVX2 = cpuHasAVX2()

// exp4blocks sets x[t] = math.Exp(x[t]) for the first 4·b numbers, b ≤
// blocks, and returns b: it stops at the first block of four with a
// number outside |x| ≤ 708 (softmax_exp_amd64.s). Called only when
// useExpAVX is set.
//
//go:noescape
func exp4blocks(x *float64, blocks int) int

// hasFMA reports CPUID leaf 1 ECX bit 12 (FMA3).
func hasFMA() bool {
	_, _, c1, _ := cpuid(1, 0)
	return c1&(1<<12) != 0
}

// useExpAVX selects the four-lane exponential: it needs AVX2 and FMA (the
// path of math.Exp it repeats) and must give math.Exp's bits on this
// machine (expKernelOK), else the scalar math.Exp is used.
var useExpAVX = useAVX2 && hasFMA() && expKernelOK()

// axpy32avx is axpy32 on 4·blocks numbers (softmax_avx2_amd64.s).
//
//go:noescape
func axpy32avx(a float64, x *float32, y *float64, blocks int)
