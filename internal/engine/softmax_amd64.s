//go:build !purego

#include "textflag.h"

// SSE2 (in every amd64) kernels of softmax_kernels.go: eight or four
// classes of a row's margins or residual held in XMM registers, two
// float64 a register, across the row's entries. The sums are the same
// additions in the same order as the Go loops, so the results are the
// same bits.

// func gather8(dst, base, tab *float64, stride int, row []uint16)
TEXT ·gather8(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ base+8(FP), SI
	MOVQ tab+16(FP), DX
	MOVQ stride+24(FP), R8
	MOVQ row_base+32(FP), BX
	MOVQ row_len+40(FP), CX
	MOVUPD 0(SI), X0
	MOVUPD 16(SI), X1
	MOVUPD 32(SI), X2
	MOVUPD 48(SI), X3
	TESTQ CX, CX
	JE g8done
g8loop:
	MOVWQZX (BX), AX
	IMULQ R8, AX
	MOVUPD 0(DX)(AX*1), X4
	MOVUPD 16(DX)(AX*1), X5
	MOVUPD 32(DX)(AX*1), X6
	MOVUPD 48(DX)(AX*1), X7
	ADDPD X4, X0
	ADDPD X5, X1
	ADDPD X6, X2
	ADDPD X7, X3
	ADDQ $2, BX
	DECQ CX
	JNE g8loop
g8done:
	MOVUPD X0, 0(DI)
	MOVUPD X1, 16(DI)
	MOVUPD X2, 32(DI)
	MOVUPD X3, 48(DI)
	RET

// func gather4(dst, base, tab *float64, stride int, row []uint16)
TEXT ·gather4(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ base+8(FP), SI
	MOVQ tab+16(FP), DX
	MOVQ stride+24(FP), R8
	MOVQ row_base+32(FP), BX
	MOVQ row_len+40(FP), CX
	MOVUPD 0(SI), X0
	MOVUPD 16(SI), X1
	TESTQ CX, CX
	JE g4done
g4loop:
	MOVWQZX (BX), AX
	IMULQ R8, AX
	MOVUPD 0(DX)(AX*1), X4
	MOVUPD 16(DX)(AX*1), X5
	ADDPD X4, X0
	ADDPD X5, X1
	ADDQ $2, BX
	DECQ CX
	JNE g4loop
g4done:
	MOVUPD X0, 0(DI)
	MOVUPD X1, 16(DI)
	RET

// func scatter8(hist, r *float64, stride int, row []uint16)
TEXT ·scatter8(SB), NOSPLIT, $0-48
	MOVQ hist+0(FP), DX
	MOVQ r+8(FP), SI
	MOVQ stride+16(FP), R8
	MOVQ row_base+24(FP), BX
	MOVQ row_len+32(FP), CX
	MOVUPD 0(SI), X0
	MOVUPD 16(SI), X1
	MOVUPD 32(SI), X2
	MOVUPD 48(SI), X3
	TESTQ CX, CX
	JE s8done
s8loop:
	MOVWQZX (BX), AX
	IMULQ R8, AX
	MOVUPD 0(DX)(AX*1), X4
	MOVUPD 16(DX)(AX*1), X5
	MOVUPD 32(DX)(AX*1), X6
	MOVUPD 48(DX)(AX*1), X7
	ADDPD X0, X4
	ADDPD X1, X5
	ADDPD X2, X6
	ADDPD X3, X7
	MOVUPD X4, 0(DX)(AX*1)
	MOVUPD X5, 16(DX)(AX*1)
	MOVUPD X6, 32(DX)(AX*1)
	MOVUPD X7, 48(DX)(AX*1)
	ADDQ $2, BX
	DECQ CX
	JNE s8loop
s8done:
	RET

// func scatter4(hist, r *float64, stride int, row []uint16)
TEXT ·scatter4(SB), NOSPLIT, $0-48
	MOVQ hist+0(FP), DX
	MOVQ r+8(FP), SI
	MOVQ stride+16(FP), R8
	MOVQ row_base+24(FP), BX
	MOVQ row_len+32(FP), CX
	MOVUPD 0(SI), X0
	MOVUPD 16(SI), X1
	TESTQ CX, CX
	JE s4done
s4loop:
	MOVWQZX (BX), AX
	IMULQ R8, AX
	MOVUPD 0(DX)(AX*1), X4
	MOVUPD 16(DX)(AX*1), X5
	ADDPD X0, X4
	ADDPD X1, X5
	MOVUPD X4, 0(DX)(AX*1)
	MOVUPD X5, 16(DX)(AX*1)
	ADDQ $2, BX
	DECQ CX
	JNE s4loop
s4done:
	RET
