//go:build !purego

#include "textflag.h"

// AVX2 kernels of softmax_kernels.go: twenty classes of a row's margins or
// residual (a protein family's K' with the gap left out) held in five YMM
// registers, four float64 a register, across the row's entries, so the
// row's entries are read once where the SSE2 blocks read them three times
// (8, 8, 4). Each class lane gets the same additions in the same order as
// the Go loops (VADDPD, no fused multiply-add), so the results are the same
// bits. Chosen at run time when the CPU and the OS support AVX2
// (cpuHasAVX2).

// func gather20avx(dst, base, tab *float64, stride int, row []uint16)
TEXT ·gather20avx(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ base+8(FP), SI
	MOVQ tab+16(FP), DX
	MOVQ stride+24(FP), R8
	MOVQ row_base+32(FP), BX
	MOVQ row_len+40(FP), CX
	VMOVUPD 0(SI), Y0
	VMOVUPD 32(SI), Y1
	VMOVUPD 64(SI), Y2
	VMOVUPD 96(SI), Y3
	VMOVUPD 128(SI), Y4
	TESTQ CX, CX
	JE g20done
g20loop:
	MOVWQZX (BX), AX
	IMULQ R8, AX
	VADDPD 0(DX)(AX*1), Y0, Y0
	VADDPD 32(DX)(AX*1), Y1, Y1
	VADDPD 64(DX)(AX*1), Y2, Y2
	VADDPD 96(DX)(AX*1), Y3, Y3
	VADDPD 128(DX)(AX*1), Y4, Y4
	ADDQ $2, BX
	DECQ CX
	JNE g20loop
g20done:
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VMOVUPD Y4, 128(DI)
	VZEROUPPER
	RET

// func scatter20avx(hist, r *float64, stride int, row []uint16)
TEXT ·scatter20avx(SB), NOSPLIT, $0-48
	MOVQ hist+0(FP), DX
	MOVQ r+8(FP), SI
	MOVQ stride+16(FP), R8
	MOVQ row_base+24(FP), BX
	MOVQ row_len+32(FP), CX
	VMOVUPD 0(SI), Y0
	VMOVUPD 32(SI), Y1
	VMOVUPD 64(SI), Y2
	VMOVUPD 96(SI), Y3
	VMOVUPD 128(SI), Y4
	TESTQ CX, CX
	JE s20done
s20loop:
	MOVWQZX (BX), AX
	IMULQ R8, AX
	// hist + r, the cell first as in the Go loop.
	VMOVUPD 0(DX)(AX*1), Y5
	VMOVUPD 32(DX)(AX*1), Y6
	VMOVUPD 64(DX)(AX*1), Y7
	VMOVUPD 96(DX)(AX*1), Y8
	VMOVUPD 128(DX)(AX*1), Y9
	VADDPD Y0, Y5, Y5
	VADDPD Y1, Y6, Y6
	VADDPD Y2, Y7, Y7
	VADDPD Y3, Y8, Y8
	VADDPD Y4, Y9, Y9
	VMOVUPD Y5, 0(DX)(AX*1)
	VMOVUPD Y6, 32(DX)(AX*1)
	VMOVUPD Y7, 64(DX)(AX*1)
	VMOVUPD Y8, 96(DX)(AX*1)
	VMOVUPD Y9, 128(DX)(AX*1)
	ADDQ $2, BX
	DECQ CX
	JNE s20loop
s20done:
	VZEROUPPER
	RET

// func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv0() (eax, edx uint32)
TEXT ·xgetbv0(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET

// func axpy32avx(a float64, x *float32, y *float64, blocks int)
// y[t] += a·float64(x[t]) for 4·blocks numbers: the product rounded, then
// the sum (no fused multiply-add), as axpy32's Go loop.
TEXT ·axpy32avx(SB), NOSPLIT, $0-32
	VBROADCASTSD a+0(FP), Y0
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DI
	MOVQ blocks+24(FP), CX
	TESTQ CX, CX
	JE adone
aloop:
	VCVTPS2PD (SI), Y1
	VMULPD Y1, Y0, Y1
	VADDPD (DI), Y1, Y1
	VMOVUPD Y1, (DI)
	ADDQ $16, SI
	ADDQ $32, DI
	DECQ CX
	JNE aloop
adone:
	VZEROUPPER
	RET
