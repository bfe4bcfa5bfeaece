; cp_x86_64_avx2_nt: 32-byte non-temporal `vmovntdq` stores, then `sfence`.
; Full lines leave the write-combining buffers in one go: the fastest way past
; the LLC without clzero. Lines end up out of cache. Needs AVX2 + OS YMM state;
; vzeroupper on exit.
%include "cp_x86_64.inc"

%define dst	rdi
%define dstend	rsi

CP_FUNC cp_x86_64_avx2_nt
	shl	rsi, 12
	add	dstend, dst
	vpxor	xmm0, xmm0, xmm0
.block:
	vmovntdq [dst + 0], ymm0
	vmovntdq [dst + 32], ymm0
	vmovntdq [dst + 64], ymm0
	vmovntdq [dst + 96], ymm0
	sub	dst, -128
	cmp	dst, dstend
	jb	.block
	sfence
	vzeroupper
	ret
CP_ENDFUNC cp_x86_64_avx2_nt
