; cp_x86_64_movnti: 8-byte non-temporal `movnti` stores, then `sfence`.
; Needs only SSE2. Write-combining stores skip the read-for-ownership and
; leave the lines out of cache: wins past the LLC, loses when the caller
; reads the memory soon. sfence orders them before later stores.
%include "cp_x86_64.inc"

CP_FUNC cp_x86_64_movnti
	xor	eax, eax
	CP_STORE_LOOP movnti, rax, 8
	sfence
	ret
CP_ENDFUNC cp_x86_64_movnti
