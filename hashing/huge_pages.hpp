// Memory for the state store's large tables (the tree's slot tables, its
// pairs, the visited set), asked to be backed by transparent huge pages.
//
// A lookup in the tree probes a slot and reads a pair at random places of
// tables that reach gigabytes; with 4 KiB pages nearly every such access
// also misses the TLB (its few thousand entries cover a few MiB) and walks
// the page tables. Linux's default THP mode on Debian is "madvise": only
// memory marked MADV_HUGEPAGE gets 2 MiB pages. So these arrays are
// allocated 2 MiB-aligned in whole huge pages and marked before their
// first touch. Where the kernel has no THP (or "never"), madvise fails
// and the memory is ordinary pages: the same contents, only slower.
// Measured: docs/engine.md §8, "The tree's tables in memory".
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>

namespace ddsmc::hashing {

inline constexpr size_t kHugePage = size_t{2} << 20;

// n bytes, uninitialized; from kHugePage bytes on, aligned to a huge page,
// rounded up to whole ones and marked MADV_HUGEPAGE. std::bad_alloc when
// they cannot be had. Freed with std::free.
void* allocate_huge(size_t n);

struct FreeHuge {
  void operator()(void* p) const { std::free(p); }
};
template <class T>
using HugeArray = std::unique_ptr<T[], FreeHuge>;

// n elements of a trivially destructible T, each value-initialized from
// `value` (written once: the first touch, after the marking).
template <class T, class V>
HugeArray<T> make_huge_array(size_t n, V value) {
  static_assert(std::is_trivially_destructible_v<T>);
  if (n > static_cast<size_t>(-1) / sizeof(T)) throw std::bad_alloc();
  T* p = static_cast<T*>(allocate_huge(n * sizeof(T)));
  for (size_t i = 0; i < n; ++i) new (p + i) T(value);
  return HugeArray<T>(p);
}

}  // namespace ddsmc::hashing
