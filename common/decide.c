/* SPDX-License-Identifier: MIT */
/*
 * A whole state from its inputs, into the caller's private object: the one
 * function the hosted init, the freestanding init and the tests share, so
 * the tests decide exactly as the library does. Pure: no globals, no I/O.
 *
 * CLEARPAGES_DISABLE masks the features selection reads, not only the kernel
 * list: with erms,fsrm masked, no rep stosb band is kept on the strength of
 * the bits the caller asked to ignore.
 */
#include <string.h>
#include "select.h"
#include "state.h"
#include "str.h"

/* The CPU as selection must see it: the detected one less the masked bits. */
static void select_cpu(const struct cp__state *s, struct cp__cpu *out)
{
	*out = s->cpu;
	out->features = s->features;
}

static struct cp__select_in select_in(const struct cp__state *s, const struct cp__cpu *cpu,
				      const struct cp__profile *profile)
{
	struct cp__select_in in = {
		.cpu = cpu, .usable = &s->kernels, .profile = profile,
		.copy_usable = &s->copy_kernels,
		.has_nt_threshold = s->has_nt_threshold,
		.nt_threshold_pages = s->nt_threshold_pages, .forced = s->forced,
	};
	return in;
}

int cp__state_decide(const struct cp__decide_in *in, struct cp__state *out)
{
	memset(out, 0, sizeof(*out));
	out->cpu = *in->cpu;
	out->features = in->cpu->features & ~in->disable;
	out->quiet = in->quiet;
	out->has_nt_threshold = in->has_nt_threshold;
	out->nt_threshold_pages = in->nt_threshold_pages;
	cp__registry_build(out->features, &out->kernels);
	cp__copy_registry_build(out->features, &out->copy_kernels);
	out->forced = cp__list_find(&out->kernels, in->forced_name);

	struct cp__cpu cpu;
	select_cpu(out, &cpu);
	struct cp__select_in sel = select_in(out, &cpu, NULL);
	const struct cp__builtin *b = cp__select(&sel, &out->defaults);
	char *src = out->default_source;
	cp__strlcpy(src, b ? "builtin:" : "generic", sizeof(out->default_source));
	if (b) {
		size_t used = cp__strlen(src);
		cp__strlcpy(src + used, b->uarch, sizeof(out->default_source) - used);
	}
	out->policy = out->defaults;
	out->source = out->default_source;
	return in->forced_name && !out->forced;
}

void cp__policy_with_profile(const struct cp__state *base, const struct cp__profile *pr,
			     struct cp__policy *out)
{
	struct cp__cpu cpu;
	select_cpu(base, &cpu);
	struct cp__select_in sel = select_in(base, &cpu, pr);
	cp__select(&sel, out);
}
