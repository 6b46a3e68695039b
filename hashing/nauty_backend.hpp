// Internal to hashing/: canonical ordering of fresh constants by nauty, for
// the states that colour refinement and a small search cannot settle.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "hashing/refine.hpp"

namespace ddsmc::hashing::detail {

class NautyBackend {
 public:
  NautyBackend();
  ~NautyBackend();
  NautyBackend(const NautyBackend&) = delete;
  NautyBackend& operator=(const NautyBackend&) = delete;

  // `col` is a stable colouring of t's constants and `fact_col` the fact
  // colours of that refinement. Sets rank[x] to the canonical position of
  // constant x: a permutation of 0..k-1.
  void order(const FactTable& t, const std::vector<uint32_t>& col, const std::vector<uint32_t>& fact_col,
             std::vector<uint32_t>& rank);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ddsmc::hashing::detail
