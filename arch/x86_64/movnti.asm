; cp_x86_64_movnti - clear pages with 8-byte movnti stores, then sfence
; SPDX-License-Identifier: MIT
;
; Assumptions:
; x86_64, SysV ABI; addr 4096-aligned; npages == 0 does nothing.
; SSE2 only (architectural on x86_64): no feature check.
; Non-temporal: the lines end up out of the cache.
;
; Write-combining stores skip the read-for-ownership: they win past the LLC
; and lose when the caller reads the memory soon.

%include "cp_x86_64.inc"

; void cp_x86_64_movnti(void *addr, size_t npages)
CP_STORE_KERNEL cp_x86_64_movnti, movnti, 8, rax, nt
