; cp_x86_64_avx512_nt: 64-byte non-temporal `vmovntdq` zmm stores, then `sfence`.
; One store fills a whole write-combining line. Needs AVX512F and the OS saving
; ZMM state; vzeroupper on exit.
%include "cp_x86_64.inc"

CP_FUNC cp_x86_64_avx512_nt
	vpxord	zmm0, zmm0, zmm0
	CP_STORE_LOOP vmovntdq, zmm0, 64
	sfence
	vzeroupper
	ret
CP_ENDFUNC cp_x86_64_avx512_nt
