# SPDX-License-Identifier: MIT
# The cp_kernels() list a CPU with the given features must show, derived from
# the arch's kernel list (arch/<arch>/kernels.def) by the registry's rule --
# or, given arch/<arch>/copy_kernels.def, the cp_copy_kernels() list -- for
# both CPU-model matrices (tests/models/x86_64.sh, tests/models/arm64.sh):
#   - a kernel whose `needs` names a feature the CPU lacks is not listed;
#   - temporal kernels first, then non-temporal ones, each in list order;
#   - within a class, a kernel with a `ranked_by` of which the CPU has none
#     drops to the end of its class (rep_stosb without ERMS or FSRS);
#   - a kernel whose regs are SIMD also needs the pseudo-feature SIMD, which
#     detection always sets: only masking `simd` removes it.
# Features are CLEARPAGES_DISABLE tokens (common/features.def maps the F(ID)
# of kernels.def to them); masked ones count as absent.
#
#   awk -v have="erms avx2" [-v masked="avx2"] -f tests/models/expect.awk \
#       common/features.def arch/x86_64/kernels.def
# prints the list, comma-separated.

function present(id) {
	return (id in token) && index(" " have " ", " " token[id] " ") > 0 &&
	       index(" " masked " ", " " token[id] " ") == 0
}

# expr is "0" or "F(A) | F(B) ...": 1 when the CPU has all (want_all) or
# any (!want_all) of them; "0" is always 1.
function holds(expr, want_all,   n, i, t, id, ok) {
	if (expr == "0")
		return 1
	n = split(expr, t, "|")
	ok = want_all
	for (i = 1; i <= n; i++) {
		id = t[i]
		gsub(/^[ \t]*F\([ \t]*|[ \t]*\)[ \t]*$/, "", id)
		if (!(id in token)) {
			printf "expect.awk: unknown feature %s in %s\n", id, FILENAME > "/dev/stderr"
			exit 2
		}
		if (want_all && !present(id)) ok = 0
		if (!want_all && present(id)) ok = 1
	}
	return ok
}

BEGIN { gsub(/,/, " ", have); gsub(/,/, " ", masked); have = have " simd" }

# CP_FEATURE(id, token, arch, bit)
/^CP_FEATURE\(/ {
	line = $0
	sub(/^CP_FEATURE\(/, "", line); sub(/\).*/, "", line); gsub(/[ \t]/, "", line)
	split(line, f, ",")
	token[f[1]] = f[2]
	next
}

# CP_KERNEL(name, class, regs, needs, ranked_by, "what"), CP_COPY_KERNEL(the same)
/^CP_(COPY_)?KERNEL\(/ {
	line = $0
	sub(/^CP_(COPY_)?KERNEL\(/, "", line); sub(/,[ \t]*".*/, "", line)
	n = split(line, f, ",")
	if (n != 5) {
		printf "expect.awk: cannot read %s line %d\n", FILENAME, FNR > "/dev/stderr"
		exit 2
	}
	for (i = 1; i <= 5; i++) gsub(/^[ \t]+|[ \t]+$/, "", f[i])
	nk++
	name[nk] = f[1]; nt[nk] = (f[2] == "NONTEMPORAL")
	needs[nk] = f[4]; ranked[nk] = f[5]
	if (f[3] == "SIMD")
		needs[nk] = needs[nk] == "0" ? "F(SIMD)" : needs[nk] " | F(SIMD)"
}

END {
	if (!nk) {
		print "expect.awk: no CP_KERNEL or CP_COPY_KERNEL rows read" > "/dev/stderr"
		exit 2
	}
	out = ""
	for (c = 0; c <= 1; c++)
		for (d = 0; d <= 1; d++)
			for (i = 1; i <= nk; i++) {
				demoted = ranked[i] != "0" && !holds(ranked[i], 0)
				if (nt[i] == c && demoted == d && holds(needs[i], 1))
					out = out (out == "" ? "" : ",") name[i]
			}
	print out
}
