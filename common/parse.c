/* SPDX-License-Identifier: MIT */
/* Size values of the environment and of profiles: digits, optional k/M/G. */
#include <stdint.h>
#include "parse.h"
#include "str.h"

int cp__parse_size_n(const char *s, size_t len, size_t *out)
{
	size_t i = 0, v = 0;
	if (len == 0 || s[0] < '0' || s[0] > '9')
		return -1;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (SIZE_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	unsigned shift = 0;
	if (i < len) {
		switch (s[i]) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		default: return -1;
		}
		i++;
	}
	if (i != len || (shift && v > (SIZE_MAX >> shift)))
		return -1;
	*out = v << shift;
	return 0;
}

int cp__parse_size(const char *s, size_t *out)
{
	return s ? cp__parse_size_n(s, cp__strlen(s), out) : -1;
}
