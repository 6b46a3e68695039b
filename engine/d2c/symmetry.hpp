// The symmetry group of a D2C system (issue 23): the automorphisms of the
// network that fix every node the program names and map the initial state
// to itself. Every node runs the same rules, the built-ins (my_name,
// neighbor) move with an automorphism, inputs range over every constant,
// and the bounds are per node and per channel alike, so such a permutation
// σ maps each step of s to a step of σ(s) (hashing/symmetry.hpp has the
// action on states).
//
// Computed with nauty on one vertex-coloured graph: a vertex per node
// (the nodes the rules name each in a cell of their own), the network's
// edges between them, and the initial facts other than the built-ins: a
// vertex per fact at each node, joined to that node, and through a vertex
// per argument position to each node its arguments name (the colours carry
// the predicate and the arguments that are not node names). A permutation
// of this graph fixing the colours is exactly an automorphism of the
// network that fixes the named nodes and the initial state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hashing/symmetry.hpp"
#include "model/model.hpp"

namespace ddsmc::engine {

// The largest group that is enumerated (hashing::SymmetryGroup); a larger
// one gives no symmetry, and says so.
inline constexpr size_t kMaxSymmetryOrder = 1u << 16;

struct SystemSymmetry {
  hashing::SymmetryGroup group;
  // |Aut| of the network alone, and of the system (nauty's group sizes;
  // doubles, since they may exceed any integer type: complete:30 has 30!).
  double network_order = 1;
  double system_order = 1;
  // Why the system's group is smaller than the network's (empty when it
  // is not): the named nodes, the initial facts; or that it was too large
  // to enumerate.
  std::string why_smaller;
  // The generators in cycle notation over node names.
  std::vector<std::string> generator_text;
};

hashing::NetworkShape network_shape(const model::Model& m);
SystemSymmetry system_symmetry(const model::Model& m, size_t max_order = kMaxSymmetryOrder);

}  // namespace ddsmc::engine
