/* SPDX-License-Identifier: MIT */
// clearpages from C++11: every kernel this CPU can run, called through its
// struct cp_kernel and through cp_clear_huge_opts() with that kernel; where the
// dispatcher switches kernels as extents grow; and a 2 MiB huge page cleared
// around a hot page in the default order, counting kernel calls with between().
// Every clear is verified. Exit status 0 when every check held, 1 otherwise.
#include <clearpages.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace {

const unsigned char kFill = 0xa5;
int failures = 0;

// Page-aligned memory owned by one object, one canary page more than asked.
class PageBuffer {
public:
	explicit PageBuffer(std::size_t pages) : pages_(pages), mem_(nullptr)
	{
		if (posix_memalign(&mem_, CP_PAGE_SIZE, (pages + 1) * CP_PAGE_SIZE) != 0)
			throw std::runtime_error("posix_memalign failed");
	}
	~PageBuffer() { std::free(mem_); }
	PageBuffer(const PageBuffer &) = delete;
	PageBuffer &operator=(const PageBuffer &) = delete;

	unsigned char *data() const { return static_cast<unsigned char *>(mem_); }
	void fill() { std::memset(mem_, kFill, (pages_ + 1) * CP_PAGE_SIZE); }

	// The first `pages` are all zero and the page after them untouched.
	bool cleared(std::size_t pages) const
	{
		const unsigned char *begin = data(), *end = begin + pages * CP_PAGE_SIZE;
		return std::all_of(begin, end, [](unsigned char b) { return b == 0; }) &&
		       std::all_of(end, end + CP_PAGE_SIZE, [](unsigned char b) { return b == kFill; });
	}

private:
	std::size_t pages_;
	void *mem_;
};

// Counts a failed check; returns ok.
bool expect(bool ok, const char *what, const char *kernel)
{
	if (!ok) {
		std::fprintf(stderr, "kernel_tour: FAILED: %s (%s)\n", what, kernel);
		++failures;
	}
	return ok;
}
const char *kind(const cp_kernel *k)
{
	return (k->flags & CP_NONTEMPORAL) ? "non-temporal" : "temporal";
}

void tour_kernels(PageBuffer &buf, std::size_t pages)
{
	const cp_kernel *const *list = nullptr;
	std::size_t n = cp_kernels(&list);

	std::printf("%zu usable kernels, each clearing %zu pages twice:\n", n, pages);
	for (std::size_t i = 0; i < n; ++i) {
		const cp_kernel *k = list[i];
		buf.fill();
		k->clear(buf.data(), pages);
		bool ok = expect(buf.cleared(pages), "raw clear", k->name);

		cp_huge_opts opts = CP_HUGE_OPTS_INIT;
		opts.kernel = k;
		buf.fill();
		ok &= expect(cp_clear_huge_opts(buf.data(), pages, pages / 2, &opts) == 0 &&
			     buf.cleared(pages), "cp_clear_huge_opts with this kernel", k->name);
		std::printf("  %-10s %-12s %s\n", k->name, kind(k), ok ? "ok" : "FAILED");
	}
	expect(n > 0, "cp_kernels() is empty", "-");
}

// The dispatcher's pick per power-of-two extent, printed where it changes.
void dispatcher_steps()
{
	const cp_kernel *prev = nullptr;
	for (std::size_t pages = 1; pages <= (std::size_t(1) << 20); pages *= 2) {
		const cp_kernel *k = cp_kernel_for(pages);
		if (k != prev)
			std::printf("  from %7zu pages (%8zu KiB): %-10s %s\n", pages,
				    pages * CP_PAGE_SIZE / 1024, k->name, kind(k));
		prev = k;
	}
}

void count_call(void *ctx) { ++*static_cast<unsigned *>(ctx); }

}  // namespace

int main()
{
	const std::size_t huge_pages = 512;        // one 2 MiB huge page
	const std::size_t hot = 100;               // the faulting page

	try {
		PageBuffer buf(huge_pages);
		std::printf("clearpages %s\n", cp_version());
		tour_kernels(buf, 16);

		std::printf("dispatcher picks (cp_kernel_for):\n");
		dispatcher_steps();

		unsigned between_calls = 0;
		cp_huge_opts opts = CP_HUGE_OPTS_INIT;
		opts.between = count_call;
		opts.ctx = &between_calls;
		buf.fill();
		expect(cp_clear_huge_opts(buf.data(), huge_pages, hot, &opts) == 0 &&
		       buf.cleared(huge_pages), "cp_clear_huge_opts, default order", "dispatcher");
		// Neighbourhood-last, radius 2: right of the hot range, left of it, then
		// the hot range itself: three kernel calls, so two between() calls.
		expect(between_calls == 2, "between() count for three ranges", "dispatcher");
		std::printf("2 MiB around page %zu: %u between() calls, cp_kernel_for(%zu) = %s\n",
			    hot, between_calls, huge_pages, cp_kernel_for(huge_pages)->name);
	} catch (const std::exception &e) {
		std::fprintf(stderr, "kernel_tour: %s\n", e.what());
		return 1;
	}
	std::printf("%s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
