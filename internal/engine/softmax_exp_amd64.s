//go:build !purego

#include "textflag.h"

// exp4blocks: math.Exp of four numbers at a time, for the softmax's
// conditionals (softmaxRow). It is the operation sequence of the standard
// library's amd64 Exp on its fused multiply-add path (the method of
// Shibata, ISC 2010: x = e·ln2 + r with ln2 in two parts, r/16, a degree-8
// Taylor polynomial, four squarings as (2 + t)·t, the scale 2^e), each
// scalar instruction replaced by its four-lane form, so every lane gives
// math.Exp's bits on a CPU where math.Exp takes that path (AVX and FMA).
// Only |x| ≤ 708, where math.Exp takes none of its special branches
// (non-finite, overflow, subnormal results), is computed here; the first
// block with another lane stops the loop and is left to the caller.
// expKernelOK checks the bits against math.Exp before the kernel is used.

// Each constant four times, for the 256-bit memory operands.
#define C4(off, val) \
	DATA expc<>+(off+0)(SB)/8, val \
	DATA expc<>+(off+8)(SB)/8, val \
	DATA expc<>+(off+16)(SB)/8, val \
	DATA expc<>+(off+24)(SB)/8, val

C4(0, $1.4426950408889634073599246810018920)   // log2(e)
C4(32, $0.69314718055966295651160180568695068359375) // ln 2, upper part
C4(64, $0.28235290563031577122588448175013436025525412068e-12) // ln 2, lower part
C4(96, $0.0625)
C4(128, $2.4801587301587301587e-5)  // 1/8!
C4(160, $1.9841269841269841270e-4)  // 1/7!
C4(192, $1.3888888888888888889e-3)  // 1/6!
C4(224, $8.3333333333333333333e-3)  // 1/5!
C4(256, $4.1666666666666666667e-2)  // 1/4!
C4(288, $1.6666666666666666667e-1)  // 1/3!
C4(320, $0.5)
C4(352, $1.0)
C4(384, $2.0)
C4(416, $708.0)
C4(448, $0x7fffffffffffffff)        // |x|
GLOBL expc<>(SB), RODATA|NOPTR, $480

DATA expbias<>+0(SB)/4, $0x3ff
DATA expbias<>+4(SB)/4, $0x3ff
DATA expbias<>+8(SB)/4, $0x3ff
DATA expbias<>+12(SB)/4, $0x3ff
GLOBL expbias<>(SB), RODATA|NOPTR, $16

// func exp4blocks(x *float64, blocks int) int
TEXT ·exp4blocks(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), DI
	MOVQ blocks+8(FP), CX
	XORQ AX, AX
	TESTQ CX, CX
	JE edone
eloop:
	VMOVUPD (DI), Y0
	// All four lanes in |x| ≤ 708 (NaN compares false)?
	VANDPD expc<>+448(SB), Y0, Y3
	VCMPPD $0x12, expc<>+416(SB), Y3, Y3 // LE_OQ
	VMOVMSKPD Y3, DX
	CMPQ DX, $15
	JNE edone
	// e = round(x·log2 e), as CVTSD2SL and CVTSL2SD.
	VMULPD expc<>+0(SB), Y0, Y1
	VCVTPD2DQY Y1, X5
	VCVTDQ2PD X5, Y1
	// r = x − e·ln2 (two fused steps), then r/16.
	VFNMADD231PD expc<>+32(SB), Y1, Y0
	VFNMADD231PD expc<>+64(SB), Y1, Y0
	VMULPD expc<>+96(SB), Y0, Y0
	// Taylor polynomial p(r), Horner's scheme with fused steps.
	VMOVUPD expc<>+128(SB), Y1
	VFMADD213PD expc<>+160(SB), Y0, Y1
	VFMADD213PD expc<>+192(SB), Y0, Y1
	VFMADD213PD expc<>+224(SB), Y0, Y1
	VFMADD213PD expc<>+256(SB), Y0, Y1
	VFMADD213PD expc<>+288(SB), Y0, Y1
	VFMADD213PD expc<>+320(SB), Y0, Y1
	VFMADD213PD expc<>+352(SB), Y0, Y1
	VMULPD Y1, Y0, Y0
	// Four squarings t ← (2 + t)·t, the last fused with the + 1.
	VADDPD expc<>+384(SB), Y0, Y1
	VMULPD Y1, Y0, Y0
	VADDPD expc<>+384(SB), Y0, Y1
	VMULPD Y1, Y0, Y0
	VADDPD expc<>+384(SB), Y0, Y1
	VMULPD Y1, Y0, Y0
	VADDPD expc<>+384(SB), Y0, Y1
	VFMADD213PD expc<>+352(SB), Y1, Y0
	// Times 2^e: (e + 1023) << 52 as a float64.
	VPADDD expbias<>(SB), X5, X5
	VPMOVSXDQ X5, Y6
	VPSLLQ $52, Y6, Y6
	VMULPD Y6, Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ $32, DI
	INCQ AX
	DECQ CX
	JNE eloop
edone:
	MOVQ AX, ret+16(FP)
	VZEROUPPER
	RET
