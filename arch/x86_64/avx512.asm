; cp_x86_64_avx512: aligned 64-byte `vmovdqa64` zmm stores, 128 bytes per iteration.
; One store per line: where the core has two full-width store ports (Intel
; Sapphire Rapids and later) that halves the stores of avx2. Needs AVX512F and
; the OS saving ZMM state (XCR0 bits 1, 2, 5, 6, 7); vzeroupper on exit.
%include "cp_x86_64.inc"

CP_FUNC cp_x86_64_avx512
	vpxord	zmm0, zmm0, zmm0
	CP_STORE_LOOP vmovdqa64, zmm0, 64
	vzeroupper
	ret
CP_ENDFUNC cp_x86_64_avx512
