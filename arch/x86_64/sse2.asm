; cp_x86_64_sse2: aligned 16-byte `movdqa` stores, 128 bytes per iteration.
; Baseline x86_64 (SSE2 is architectural): twice the width of movq with no
; feature check. Temporal.
%include "cp_x86_64.inc"

%define dst	rdi
%define dstend	rsi

CP_FUNC cp_x86_64_sse2
	shl	rsi, 12
	add	dstend, dst
	pxor	xmm0, xmm0
.block:
	movdqa	[dst + 0], xmm0
	movdqa	[dst + 16], xmm0
	movdqa	[dst + 32], xmm0
	movdqa	[dst + 48], xmm0
	movdqa	[dst + 64], xmm0
	movdqa	[dst + 80], xmm0
	movdqa	[dst + 96], xmm0
	movdqa	[dst + 112], xmm0
	sub	dst, -128               ; imm8 form of add 128
	cmp	dst, dstend
	jb	.block
	ret
CP_ENDFUNC cp_x86_64_sse2
