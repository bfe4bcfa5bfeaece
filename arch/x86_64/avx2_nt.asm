; cp_x86_64_avx2_nt: 32-byte non-temporal `vmovntdq` stores, then `sfence`.
; Full lines leave the write-combining buffers in one go: the fastest way past
; the LLC without clzero. Lines end up out of cache. Needs AVX2 + OS YMM state;
; vzeroupper on exit.
%include "cp_x86_64.inc"

CP_FUNC cp_x86_64_avx2_nt
	vpxor	xmm0, xmm0, xmm0
	CP_STORE_LOOP vmovntdq, ymm0, 32
	sfence
	vzeroupper
	ret
CP_ENDFUNC cp_x86_64_avx2_nt
