/* SPDX-License-Identifier: MIT */
/* The hosted library's decisions on this CPU (report.h), to compare with
 * what clearpages-freestanding.o decides on the same CPU. */
#include <unistd.h>
#include "report.h"

static void write_out(const char *s, size_t n)
{
	while (n) {
		ssize_t r = write(1, s, n);
		if (r <= 0)
			return;
		s += r, n -= (size_t)r;
	}
}

int main(void)
{
	static struct out o = { write_out, { 0 }, 0 };
	report(&o);
	return 0;
}
