#include "hashing/huge_pages.hpp"

#include <sys/mman.h>

namespace ddsmc::hashing {

void* allocate_huge(size_t n) {
  if (n < kHugePage) {
    void* p = std::malloc(n ? n : 1);
    if (!p) throw std::bad_alloc();
    return p;
  }
  if (n > static_cast<size_t>(-1) - kHugePage) throw std::bad_alloc();
  const size_t bytes = (n + kHugePage - 1) / kHugePage * kHugePage;
  void* p = std::aligned_alloc(kHugePage, bytes);
  if (!p) throw std::bad_alloc();
  ::madvise(p, bytes, MADV_HUGEPAGE);  // (a kernel without THP refuses: ordinary pages)
  return p;
}

}  // namespace ddsmc::hashing
