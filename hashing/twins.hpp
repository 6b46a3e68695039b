// Internal to hashing/: interchangeable ("twin") fresh constants. x and y
// are twins when they never occur in one fact and their facts coincide once
// x and y are blanked out. Swapping two twins then maps the state onto
// itself, so the search may individualise a whole twin class at once, in
// any order: that turns n! leaves for n interchangeable data items into one.
// The relation is defined by the structure alone, so it is the same on
// every state of an isomorphism class.
#pragma once

#include <cstdint>
#include <vector>

#include "hashing/refine.hpp"

namespace ddsmc::hashing::detail {

class TwinFinder {
 public:
  // cls[x] = the least index in x's twin class (x itself when it has none).
  void classes(const FactTable& t, std::vector<uint32_t>& cls);

 private:
  std::vector<Word> sig_;  // per constant: its facts with it blanked, sorted
  std::vector<uint32_t> sig_start_, occ_order_, xorder_;
};

}  // namespace ddsmc::hashing::detail
