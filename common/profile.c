/* Tuned profiles (the self-tuning issue). Not yet: CLEARPAGES_PROFILE is
 * reported and ignored; cp_set_profile(NULL) restores the defaults. */
#include <errno.h>
#include "internal.h"

void cp__profile_load_at_init(const char *path)
{
	cp__msg("CLEARPAGES_PROFILE: '%s' ignored: profiles are not supported yet", path);
}

int cp_set_profile(const char *path)
{
	const struct cp__state *s = cp__state();
	if (path)
		return -ENOENT;
	cp__policy_set(&s->defaults);
	return 0;
}
