#include "engine/state_graph.hpp"

#include <algorithm>

namespace ddsmc::engine {

StateGraph::StateGraph(const hashing::StateLayout& layout)
    : num_nodes_(layout.num_nodes),
      num_arcs_(layout.num_arcs),
      fault_words_((layout.num_nodes + 63) / 64),
      empty_words_((layout.num_arcs + 63) / 64) {}

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

void StateGraph::add_edges(StateId first, std::span<const uint32_t> counts) {
  // States between the last one with edges and `first` were not expanded.
  const size_t had = edge_begin_.size(), arena = edges_.end();
  const size_t total = first + counts.size();
  try {
    edge_begin_.resize(total);
    edge_count_.resize(total);
    for (size_t s = had; s < first; ++s) {
      edge_begin_[s] = arena;
      edge_count_[s] = 0;
    }
    for (size_t i = 0; i < counts.size(); ++i) {
      edge_begin_[first + i] = edges_.append(counts[i]);
      edge_count_[first + i] = counts[i];
    }
  } catch (...) {
    edges_.truncate(arena);
    edge_begin_.resize(had);
    edge_count_.resize(had);
    throw;
  }
  for (uint32_t c : counts) num_edges_ += c;
}

void StateGraph::set_edges(StateId s, std::span<const Edge> edges) {
  const auto count = static_cast<uint32_t>(edges.size());
  add_edges(s, {&count, 1});
  std::copy(edges.begin(), edges.end(), mutable_edges(s).begin());
}

std::span<const Edge> StateGraph::edges(StateId s) const {
  if (s >= edge_begin_.size() || edge_count_[s] == 0) return {};  // an empty run may point past the chunks
  return {edges_.at(edge_begin_[s]), edge_count_[s]};
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
         faulty_.memory_bytes() + empty_.memory_bytes() + edges_.memory_bytes() + edge_begin_.memory_bytes() +
         edge_count_.memory_bytes();
}

}  // namespace ddsmc::engine
