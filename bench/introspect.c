/* SPDX-License-Identifier: MIT */
/*
 * The library internals clearbench reads or changes (see introspect.h); every
 * other bench file keeps to include/clearpages.h.
 */
#include <stdio.h>
#include <string.h>
#include "introspect.h"
#include "testhooks.h"

/* Feature tokens as CLEARPAGES_DISABLE spells them, this build's arch only. */
static void feature_list(unsigned mask, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < cp__feature_tokens_len; i++) {
		const struct cp__feature_token *t = &cp__feature_tokens[i];
		if (!(mask & t->feature) || strcmp(t->arch, CP_ARCH_NAME))
			continue;
		size_t l = strlen(buf);
		snprintf(buf + l, len - l, "%s%s", l ? " " : "", t->token);
	}
	if (!buf[0])
		snprintf(buf, len, "(none)");
}

void bench_host_get(struct bench_host *h)
{
	const struct cp__state *s = cp__state();
	memset(h, 0, sizeof(*h));
	snprintf(h->vendor, sizeof(h->vendor), "%s", s->cpu.vendor);
	snprintf(h->model, sizeof(h->model), "%s", s->cpu.model);
	snprintf(h->uarch, sizeof(h->uarch), "%s", s->cpu.uarch);
	h->family = s->cpu.family;
	h->model_id = s->cpu.model_id;
	feature_list(s->features, h->features, sizeof(h->features));
	feature_list(s->cpu.features, h->detected, sizeof(h->detected));
	h->l2_bytes = s->cpu.l2_bytes;
	h->llc_bytes = s->cpu.llc_bytes;
	h->forced = s->forced != NULL;
	if (h->uarch[0]) {
		snprintf(h->host_id, sizeof(h->host_id), "%s", h->uarch);
	} else {
		/* no name known: vendor, then family and model (x86) or MIDR (arm64) */
		const char *v = !strcmp(h->vendor, "GenuineIntel") ? "intel"
			      : !strcmp(h->vendor, "AuthenticAMD") ? "amd" : h->vendor;
		if (s->cpu.midr_part)
			snprintf(h->host_id, sizeof(h->host_id), "%s-%02x-%03x", v,
				 s->cpu.midr_implementer, s->cpu.midr_part);
		else
			snprintf(h->host_id, sizeof(h->host_id), "%s-family%u-model%u", v,
				 h->family, h->model_id);
		for (char *p = h->host_id; *p; p++)
			*p = (*p >= 'A' && *p <= 'Z') ? (char)(*p - 'A' + 'a') : *p;
	}
}

const struct cp_kernel *bench_hot_kernel(size_t npages)
{
	return cp__pick_hot(npages);
}

static struct cp__policy saved_policy;
static const char *saved_source;
static int policy_saved;

void bench_policy_nt_from(size_t pages)
{
	if (!policy_saved) {
		saved_policy = cp__state()->policy;
		saved_source = cp_policy_source();
		policy_saved = 1;
	}
	/* two bands: the hot kernel below `pages`, the cold one from there */
	struct cp__policy low = saved_policy;
	const struct cp__band rows[] = {
		{ 0, cp__bands_pick(&saved_policy.hot, pages - 1) },
		{ pages, cp__bands_pick(&saved_policy.cold, pages) } };
	cp__bands_set(&low.any, rows, 2);
	low.uncached = low.any;    /* the split as given, wherever the memory is */
	cp__policy_publish(&low, "clearbench fault: mixed");
}

void bench_policy_restore(void)
{
	if (policy_saved)
		cp__policy_publish(&saved_policy, saved_source);
	policy_saved = 0;
}

size_t bench_parallel_min_share_pages(void)
{
	return cp__state()->policy.parallel_min_share_pages;
}

int bench_clear_parallel_min(void *addr, size_t npages, unsigned nthreads, size_t min_share)
{
	return cp__clear_pages_parallel_min(addr, npages, nthreads, min_share);
}
