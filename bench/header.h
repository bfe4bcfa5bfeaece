/* SPDX-License-Identifier: MIT */
/* The header every scenario prints, naming the host (header.c); sizes on the
 * command line; the dispatcher's bands. */
#ifndef CLEARBENCH_HEADER_H
#define CLEARBENCH_HEADER_H

#include <stddef.h>
#include <stdio.h>
#include "clearpages.h"
#include "opts.h"

void bench_header(const struct bench_opts *opts, const char *scenario);
/* The header as a JSON object (for table.c). */
void bench_header_json(FILE *f, const struct bench_opts *opts);
/* Text as HTML (&, <, > escaped). */
void bench_html_text(FILE *f, const char *s);
extern const char bench_emulated_warning[];
/* The header as HTML rows (report.c). */
void bench_header_html(FILE *f, const struct bench_opts *opts);
/* Where auto (cp_kernel_for) changes kernel, from one page to 1 GiB: band i
 * starts at from_pages[i] and uses kernel[i]. Returns the band count. */
#define BENCH_MAX_BANDS 16
size_t bench_auto_bands(size_t *from_pages, const struct cp_kernel **kernel, size_t max);
/* The same for any per-extent choice (bench_uncached_kernel: the uncached bands). */
size_t bench_bands_of(const struct cp_kernel *(*pick)(size_t npages), size_t *from_pages,
		      const struct cp_kernel **kernel, size_t max);
/* Size with an optional k/M/G suffix (powers of 1024); 0 or -1. */
int bench_parse_size(const char *s, size_t *out);
/* Under qemu-user the figures are the emulator's. */
int bench_emulated(void);

#endif
