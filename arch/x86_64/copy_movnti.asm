; cp_x86_64_copy_movnti - copy pages with mov loads and movnti stores
; SPDX-License-Identifier: MIT
;
; Assumptions:
; x86_64, SysV ABI; dst and src 4096-aligned, not overlapping; npages == 0
; does nothing.
; SSE2 only (architectural on x86_64): no feature check.
; Non-temporal: the destination lines end up out of the cache.
;
; Write-combining stores from general-purpose registers (r8-r11, four at a
; time): no read-for-ownership, and no vector state touched.

%include "cp_x86_64.inc"

; void cp_x86_64_copy_movnti(void *dst, const void *src, size_t npages)
CP_COPY_KERNEL cp_x86_64_copy_movnti, mov, movnti, 8, r, nt
