#include "engine/state_graph.hpp"

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace ddsmc::engine {

StateGraph::StateGraph(const hashing::StateLayout& layout)
    : num_nodes_(layout.num_nodes),
      num_arcs_(layout.num_arcs),
      fault_words_((layout.num_nodes + 63) / 64),
      empty_words_((layout.num_arcs + 63) / 64),
      edges_(layout.num_arcs) {}

StateId StateGraph::add_state(std::string_view bytes, const hashing::GlobalState& s, StateId parent,
                              const System& system) {
  // All or nothing: an allocation failure (the exploration then stops with
  // the graph so far) leaves the graph as it was.
  std::vector<uint64_t> labels(label_words());
  labels_of(s, system, labels.data());
  const auto size = static_cast<uint32_t>(bytes.size());
  const StateId id = add_states({&size, 1});
  fill_state(id, bytes, parent, labels.data());
  return id;
}

StateId StateGraph::add_states(std::span<const uint32_t> sizes) {
  const StateId first = num_states_;
  const size_t n = sizes.size(), arena = arena_.end();
  try {
    byte_begin_.resize(first + n);
    byte_size_.resize(first + n);
    parent_.resize(first + n);
    faulty_.resize((first + n) * size_t{fault_words_});
    empty_.resize((first + n) * size_t{empty_words_});
    for (size_t i = 0; i < n; ++i) {
      byte_begin_[first + i] = arena_.append(sizes[i]);
      byte_size_[first + i] = sizes[i];
    }
  } catch (...) {
    arena_.truncate(arena);
    byte_begin_.resize(first);
    byte_size_.resize(first);
    parent_.resize(first);
    faulty_.resize(first * size_t{fault_words_});
    empty_.resize(first * size_t{empty_words_});
    throw;
  }
  num_states_ = first + static_cast<StateId>(n);
  return first;
}

void StateGraph::labels_of(const hashing::GlobalState& s, const System& system, uint64_t* out) const {
  std::fill(out, out + label_words(), 0);
  for (uint32_t n = 0; n < num_nodes_; ++n)
    if (system.faulty(s, n)) out[n / 64] |= uint64_t{1} << (n % 64);
  uint64_t* e = out + fault_words_;
  for (uint32_t a = 0; a < num_arcs_; ++a)
    if (s.channels[a].empty()) e[a / 64] |= uint64_t{1} << (a % 64);
}

void StateGraph::fill_state(StateId id, std::string_view bytes, StateId parent, const uint64_t* labels) {
  if (!bytes.empty()) std::copy(bytes.begin(), bytes.end(), arena_.at(byte_begin_[id]));
  parent_[id] = parent;
  for (uint32_t w = 0; w < fault_words_; ++w) faulty_[size_t(id) * fault_words_ + w] = labels[w];
  for (uint32_t w = 0; w < empty_words_; ++w) empty_[size_t(id) * empty_words_ + w] = labels[fault_words_ + w];
}

void StateGraph::add_edges(StateId first, std::span<const uint32_t> counts, std::span<const uint32_t> sizes) {
  if (counts.size() != sizes.size()) throw std::logic_error("add_edges: one count and one size per state");
  edges_.add(first, sizes);  // all or nothing
  for (uint32_t c : counts) num_edges_ += c;
}

void StateGraph::set_edges(StateId s, std::span<const Edge> edges) {
  std::vector<Edge> sorted(edges.begin(), edges.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const Edge& x, const Edge& y) { return std::tie(x.target, x.label) < std::tie(y.target, y.label); });
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  const auto count = static_cast<uint32_t>(sorted.size());
  const uint32_t size = edge_bytes(s, sorted);
  add_edges(s, {&count, 1}, {&size, 1});
  write_edges(s, sorted);
}

std::string_view StateGraph::bytes(StateId s) const {
  if (byte_size_[s] == 0) return {};
  return {arena_.at(byte_begin_[s]), byte_size_[s]};
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
  return arena_.memory_bytes() + byte_begin_.memory_bytes() + byte_size_.memory_bytes() + parent_.memory_bytes() +
         faulty_.memory_bytes() + empty_.memory_bytes() + edges_.memory_bytes();
}

}  // namespace ddsmc::engine
