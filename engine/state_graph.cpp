#include "engine/state_graph.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <stdexcept>
#include <string>
#include <tuple>

namespace ddsmc::engine {

StateGraph::StateGraph(const hashing::StateLayout& layout, size_t initial_store, uint32_t edge_arcs)
    : num_nodes_(layout.num_nodes),
      num_arcs_(layout.num_arcs),
      label_words_((layout.num_nodes + layout.num_arcs + 63) / 64),
      label_bits_(layout.num_nodes + layout.num_arcs),
      store_(std::make_unique<StateStore>(layout, initial_store)),
      edges_(edge_arcs ? edge_arcs : layout.num_arcs) {}

StateId StateGraph::add_state(std::string_view bytes, const hashing::GlobalState& s, const System& system) {
  // All or nothing: an allocation failure (the exploration then stops with
  // the graph so far) leaves the graph as it was. Sequential: the tree
  // grows here as needed.
  const hashing::StateLayout& layout = system.layout();
  hashing::SegmentedEncoding enc;
  if (bytes.empty()) {
    hashing::encode_segmented(s, layout, enc);
  } else {
    hashing::GlobalState decoded;
    if (!hashing::decode(bytes, layout, decoded)) throw std::invalid_argument("StateGraph::add_state: bad encoding");
    hashing::encode_segmented(decoded, layout, enc);
  }
  const uint32_t root = intern_growing([&] { return store_->tree().intern(enc); }, [&] { store_->grow(); });
  std::vector<uint64_t> labels(label_words());
  labels_of(s, system, labels.data());
  const StateId id = add_states(1);
  fill_state(id, root, labels.data());
  return id;
}

void StateGraph::spill_to(std::shared_ptr<SpillFile> file) {
  spill_ = file;
  edges_.spill_to(std::move(file));
}

void StateGraph::end_exploration() {
  store_->end_exploration();
  edges_.spill_rest();
  roots_spilled_.move(spill_.get(), root_, root_.chunks(), true, error_);
  labels_spilled_.move(spill_.get(), labels_, labels_.chunks(), true, error_);
}

StateId StateGraph::add_states(size_t n) {
  const StateId first = num_states_;
  if (uint64_t{first} + n >= kNoState - 1) throw std::length_error("more than 2^32 - 2 states");
  // Every state so far is filled (fill_state before the next add_states):
  // the chunks wholly before state `first`'s root and first label bit are
  // complete. To disk, all or nothing.
  const uint64_t first_bit = uint64_t{first} * label_bits_;
  if (first / root_.kChunk < roots_spilled_.done() || first_bit / 64 / labels_.kChunk < labels_spilled_.done())
    throw std::logic_error("states added after end_exploration()");
  roots_spilled_.move(spill_.get(), root_, first / root_.kChunk, false, error_);
  labels_spilled_.move(spill_.get(), labels_, first_bit / 64 / labels_.kChunk, false, error_);
  try {
    root_.resize(first + n);
    labels_.resize(words_for(first + n));
  } catch (...) {
    root_.resize(first);
    labels_.resize(words_for(first));
    throw;
  }
  // Bits past the last state are zero: every word is zeroed when a state
  // first reaches it, and fill_state sets only bits of added states.
  for (size_t w = words_for(first); w < words_for(first + n); ++w) labels_[w] = 0;
  num_states_ = first + static_cast<StateId>(n);
  return first;
}

void StateGraph::labels_of(const hashing::GlobalState& s, const System& system, uint64_t* out) const {
  std::fill(out, out + label_words(), 0);
  for (uint32_t n = 0; n < num_nodes_; ++n)
    if (system.faulty(s, n)) out[n / 64] |= uint64_t{1} << (n % 64);
  for (uint32_t a = 0; a < num_arcs_; ++a)
    if (s.channels[a].empty()) out[(num_nodes_ + a) / 64] |= uint64_t{1} << ((num_nodes_ + a) % 64);
}

void StateGraph::labels(StateId s, uint64_t* out) const {
  std::fill(out, out + label_words(), 0);
  for (uint32_t i = 0; i < label_bits_; ++i)
    if (bit(s, i)) out[i / 64] |= uint64_t{1} << (i % 64);
}

void StateGraph::fill_state(StateId id, uint32_t root, const uint64_t* labels) {
  root_[id] = root;
  // Bits of neighbouring states share words, and states are filled from
  // several threads: set bits by atomic or (add_states zeroed the words).
  // A label word lands in at most two words of labels_: one atomic or each.
  const uint64_t base = uint64_t{id} * label_bits_;
  for (uint32_t w = 0; w < label_words_; ++w) {
    const uint64_t bits = labels[w];
    if (!bits) continue;
    const uint64_t pos = base + uint64_t{w} * 64;
    const unsigned shift = pos & 63;
    std::atomic_ref<uint64_t>(labels_[pos >> 6]).fetch_or(bits << shift, std::memory_order_relaxed);
    if (shift && (bits >> (64 - shift)))
      std::atomic_ref<uint64_t>(labels_[(pos >> 6) + 1]).fetch_or(bits >> (64 - shift), std::memory_order_relaxed);
  }
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

std::string StateGraph::bytes(StateId s) const {
  std::string out;
  store_->tree().materialize(root_[s], out);
  return out;
}

bool StateGraph::any_faulty(StateId s) const {
  // The fault bits: bits [0, num_nodes_) of the state's packed labels.
  const uint64_t begin = uint64_t{s} * label_bits_, end = begin + num_nodes_;
  for (uint64_t pos = begin; pos < end;) {
    const uint64_t word = labels_[pos >> 6] >> (pos & 63);
    const uint64_t bits = std::min<uint64_t>(64 - (pos & 63), end - pos);
    if (word & (bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1)) return true;
    pos += bits;
  }
  return false;
}

bool StateGraph::all_faulty(StateId s) const {
  for (uint32_t n = 0; n < num_nodes_; ++n)
    if (!faulty(s, n)) return false;
  return true;
}

StateGraph::Memory StateGraph::memory() const {
  const hashing::TreeStore::Memory tree = store_->tree().memory();
  Memory m;
  m.tree_nodes = tree.node_slots + tree.node_pairs;
  m.tree_leaves = tree.leaf_slots + tree.leaf_offsets + tree.leaf_arena;
  m.visited = store_->memory_bytes() - tree.total();
  m.roots = root_.memory_bytes();
  m.labels = labels_.memory_bytes();
  m.edge_rows = edges_.row_bytes();
  m.edge_index = edges_.index_bytes();
  m.disk = edges_.disk_bytes() + edges_.index_disk_bytes() + root_.rebased_bytes() + labels_.rebased_bytes();
  return m;
}

}  // namespace ddsmc::engine
