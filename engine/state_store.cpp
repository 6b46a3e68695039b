#include "engine/state_store.hpp"

#include <algorithm>

namespace ddsmc::engine {

namespace {
using hashing::tree_detail::IdTable;
}

StateStore::StateStore(const hashing::StateLayout& layout, size_t initial)
    : tree_(layout.num_nodes + layout.num_arcs, leaf_positions(layout), initial, initial) {
  cover();
}

std::vector<uint32_t> StateStore::leaf_positions(const hashing::StateLayout& layout) {
  const uint32_t nodes = layout.num_nodes, parts = layout.num_nodes + layout.num_arcs;
  if (layout.arc_from.size() != layout.num_arcs) return {};  // identity
  std::vector<std::vector<uint32_t>> out(nodes);
  for (uint32_t a = 0; a < layout.num_arcs; ++a) {
    if (layout.arc_from[a] >= nodes) return {};
    out[layout.arc_from[a]].push_back(nodes + a);
  }
  std::vector<uint32_t> position(parts);
  uint32_t next = 0;
  for (uint32_t n = 0; n < nodes; ++n) {
    position[n] = next++;
    for (uint32_t part : out[n]) position[part] = next++;
  }
  return position;
}

bool StateStore::bind_loaded(uint32_t root, uint32_t ref) {
  if (!exploring_ || root >= refs_.covered() || ref >= kPending) return false;
  uint32_t& r = refs_.slot(root);
  if (r != kNoRef) return false;
  r = ref;
  return true;
}

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

void StateStore::end_exploration() {
  tree_.drop_index();
  refs_.release();
  exploring_ = false;
}

size_t StateStore::bytes_to_grow() const {
  // grow() doubles one table, usually the node table; the old slot array
  // is freed before the new one is allocated (IdTable::rebuild), so it
  // costs the difference.
  return std::max(tree_.node_capacity(), tree_.leaf_capacity()) * sizeof(uint32_t);
}

size_t StateStore::bytes_to_reserve(size_t more_nodes, size_t more_leaves) const {
  size_t bytes = 0;
  const size_t nodes = IdTable::capacity_for(tree_.nodes() + more_nodes);
  if (nodes > tree_.node_capacity()) bytes += (nodes - tree_.node_capacity()) * sizeof(uint32_t);
  const size_t leaves = IdTable::capacity_for(tree_.leaves() + more_leaves);
  if (leaves > tree_.leaf_capacity()) bytes += (leaves - tree_.leaf_capacity()) * sizeof(uint32_t);
  return bytes;
}

}  // namespace ddsmc::engine
