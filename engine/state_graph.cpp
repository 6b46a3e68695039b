#include "engine/state_graph.hpp"

#include "model/model.hpp"

namespace ddsmc::engine {
namespace {

bool has_error_fact(const std::vector<hashing::Word>& db, const hashing::StateLayout& layout) {
  for (size_t i = 0; i < db.size(); i += layout.fact_words(db[i]))
    if (db[i] == model::kError) return true;
  return false;
}

}  // namespace

StateGraph::StateGraph(const hashing::StateLayout& layout)
    : layout_(&layout),
      num_nodes_(layout.num_nodes),
      num_arcs_(layout.num_arcs),
      fault_words_((layout.num_nodes + 63) / 64),
      empty_words_((layout.num_arcs + 63) / 64) {}

StateId StateGraph::add_state(std::string_view bytes, const hashing::GlobalState& s, StateId parent) {
  auto id = static_cast<StateId>(offsets_.size());
  // All or nothing: an allocation failure (the exploration then stops with
  // the graph so far) leaves the graph as it was.
  size_t arena = arena_.size(), faulty = faulty_.size(), empty = empty_.size();
  try {
    arena_.insert(arena_.end(), bytes.begin(), bytes.end());
    faulty_.resize(faulty + fault_words_, 0);
    empty_.resize(empty + empty_words_, 0);
    parent_.push_back(parent);
    offsets_.push_back(arena);  // last: it defines num_states()
  } catch (...) {
    arena_.resize(arena);
    faulty_.resize(faulty);
    empty_.resize(empty);
    parent_.resize(id);
    throw;
  }
  uint64_t* f = faulty_.data() + size_t(id) * fault_words_;
  for (uint32_t n = 0; n < num_nodes_; ++n)
    if (has_error_fact(s.dbs[n], *layout_)) f[n / 64] |= uint64_t{1} << (n % 64);
  uint64_t* e = empty_.data() + size_t(id) * empty_words_;
  for (uint32_t a = 0; a < num_arcs_; ++a)
    if (s.channels[a].empty()) e[a / 64] |= uint64_t{1} << (a % 64);
  return id;
}

void StateGraph::set_edges(StateId s, std::span<const Edge> edges) {
  // States are expanded in id order; unexpanded ones in between get no edges.
  // All or nothing, like add_state.
  size_t begins = edge_begin_.size(), count = edges_.size();
  try {
    while (edge_begin_.size() <= s) edge_begin_.push_back(edges_.size());
    edges_.insert(edges_.end(), edges.begin(), edges.end());
    edge_begin_.push_back(edges_.size());
  } catch (...) {
    edge_begin_.resize(begins);
    edges_.resize(count);
    throw;
  }
}

std::span<const Edge> StateGraph::edges(StateId s) const {
  if (s + 1 >= edge_begin_.size()) return {};
  return {edges_.data() + edge_begin_[s], edges_.data() + edge_begin_[s + 1]};
}

std::string_view StateGraph::bytes(StateId s) const {
  uint64_t begin = offsets_[s];
  uint64_t end = s + 1 < offsets_.size() ? offsets_[s + 1] : arena_.size();
  return {arena_.data() + begin, end - begin};
}

bool StateGraph::any_faulty(StateId s) const {
  for (uint32_t w = 0; w < fault_words_; ++w)
    if (faulty_[size_t(s) * fault_words_ + w]) return true;
  return false;
}

bool StateGraph::all_faulty(StateId s) const {
  for (uint32_t n = 0; n < num_nodes_; ++n)
    if (!faulty(s, n)) return false;
  return true;
}

uint64_t StateGraph::memory_bytes() const {
  return arena_.capacity() + offsets_.capacity() * 8 + parent_.capacity() * 4 + (faulty_.capacity() + empty_.capacity()) * 8 +
         edge_begin_.capacity() * 8 + edges_.capacity() * sizeof(Edge);
}

}  // namespace ddsmc::engine
