#include "engine/state_store.hpp"

#include <algorithm>

namespace ddsmc::engine {

namespace {
using hashing::tree_detail::IdTable;
}

StateStore::StateStore(uint32_t parts, size_t initial) : tree_(parts, initial, initial) { cover(); }

// The reference array follows the tree: every root id the tree can return
// before its next growth has its directory entry (refs_ segments are
// allocated on first use, by whichever thread claims a root in them).
void StateStore::grow() {
  tree_.grow();
  cover();
}

void StateStore::reserve(size_t more_nodes, size_t more_leaves) {
  tree_.reserve(more_nodes, more_leaves);
  cover();
}

size_t StateStore::bytes_to_grow() const {
  // grow() doubles one table, usually the node table; the new slot array
  // is allocated while the old one still exists.
  return std::max(tree_.node_capacity(), tree_.leaf_capacity()) * 2 * sizeof(uint32_t);
}

size_t StateStore::bytes_to_reserve(size_t more_nodes, size_t more_leaves) const {
  size_t bytes = 0;
  const size_t nodes = IdTable::capacity_for(tree_.nodes() + more_nodes);
  if (nodes > tree_.node_capacity()) bytes += nodes * sizeof(uint32_t);
  const size_t leaves = IdTable::capacity_for(tree_.leaves() + more_leaves);
  if (leaves > tree_.leaf_capacity()) bytes += leaves * sizeof(uint32_t);
  return bytes;
}

}  // namespace ddsmc::engine
