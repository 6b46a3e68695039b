#include "engine/checkpoint_body.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>

#include "engine/parallel.hpp"
#include "hashing/state.hpp"

namespace ddsmc::engine::checkpoint_body {
namespace {

using checkpoint_io::CheckedIn;
using checkpoint_io::HashedOut;

[[noreturn]] void corrupted(const char* what) {
  throw CheckpointError(std::string("the checkpoint is corrupted (") + what + ")");
}

// A state's labels on disk: the graph's label bits, a byte at a time.
uint32_t label_bits(const StateGraph& g) { return g.num_nodes() + g.num_arcs(); }
uint32_t label_bytes(const StateGraph& g) { return (label_bits(g) + 7) / 8; }

void write_gids(HashedOut& out, const StateGraph& g, const std::vector<StateId>* gids) {
  StateId previous = 0;
  for (StateId s = 0; s < g.num_states(); ++s) {
    const StateId gid = gids ? (*gids)[s] : s;
    out.varint(gid - previous);  // ascending: deltas
    previous = gid;
  }
}

void write_states(HashedOut& out, const StateGraph& g) {
  out.varint(g.store().tree().parts());
  g.store().tree().save(out);
  std::vector<uint64_t> words(g.label_words());
  std::vector<uint8_t> bytes(label_bytes(g));
  for (StateId s = 0; s < g.num_states(); ++s) {
    out.varint(g.root(s));
    g.labels(s, words.data());
    for (size_t b = 0; b < bytes.size(); ++b) bytes[b] = static_cast<uint8_t>(words[b / 8] >> (8 * (b % 8)));
    out.bytes(bytes.data(), bytes.size());
  }
}

void write_rows(HashedOut& out, const StateGraph& g) {
  std::vector<Edge> row;
  for (StateId s = 0; s < g.num_expanded(); ++s) {
    row.assign(g.edges(s).begin(), g.edges(s).end());
    out.varint(row.size());
    StateId previous = 0;  // rows are sorted by target: deltas
    for (const Edge& e : row) {
      out.varint(e.target - previous);
      out.varint(e.label);
      previous = e.target;
    }
  }
}

void read_gids(CheckedIn& in, const Counts& c, std::vector<StateId>& gids) {
  if (c.states > kMaxLocalStates) corrupted("more states in one part than one process holds");
  gids.clear();
  gids.reserve(c.states);
  uint64_t gid = 0;
  for (uint64_t i = 0; i < c.states; ++i) {
    const uint64_t delta = in.varint();
    gid += delta;
    if ((i > 0 && delta == 0) || delta >= c.all_states || gid >= c.all_states || (c.identity_ids && gid != i))
      corrupted("state ids out of order");
    gids.push_back(static_cast<StateId>(gid));
  }
}

// The tree, into the graph's (empty) store.
void read_tree(CheckedIn& in, StateGraph& g) {
  if (in.varint() != g.store().tree().parts()) corrupted("its store has another shape");
  try {
    g.store().load(in);
  } catch (const CheckpointError&) {
    throw;
  } catch (const std::runtime_error& e) {
    corrupted(e.what());
  }
}

// Every state's root, then its labels (label_bytes() each, one after the
// other), as they are on disk.
void read_roots(CheckedIn& in, const Counts& c, const StateGraph& g, std::vector<uint32_t>& roots,
                std::vector<uint8_t>& labels) {
  const uint32_t bytes = label_bytes(g), spare = bytes * 8 - label_bits(g);
  roots.resize(c.states);
  labels.resize(c.states * bytes);
  for (uint64_t s = 0; s < c.states; ++s) {
    const uint64_t root = in.varint();
    if (root > 0xffffffffu) corrupted("a state's root");
    roots[s] = static_cast<uint32_t>(root);
    uint8_t* l = labels.data() + s * bytes;
    in.bytes(l, bytes);
    if (spare && (l[bytes - 1] >> (8 - spare)) != 0) corrupted("a state's labels");
  }
}

// The states' roots and labels into the graph, on the caller's task
// arena's workers (fill_state() takes distinct states from any thread).
void fill_states(StateGraph& g, const std::vector<uint32_t>& roots, const std::vector<uint8_t>& labels) {
  const StateId n = static_cast<StateId>(roots.size());
  const uint32_t bytes = label_bytes(g);
  g.add_states(n);
  parallel_for(StateId{0}, n, 4096, [&](const tbb::blocked_range<StateId>& r) {
    std::vector<uint64_t> words(g.label_words());
    for (StateId s = r.begin(); s < r.end(); ++s) {
      std::fill(words.begin(), words.end(), 0);
      const uint8_t* l = labels.data() + uint64_t{s} * bytes;
      for (uint32_t b = 0; b < bytes; ++b) words[b / 8] |= uint64_t{l[b]} << (8 * (b % 8));
      g.fill_state(s, roots[s], words.data());
    }
  });
}

// Every state's root and labels, the trees checked, the visited set bound.
void read_states(CheckedIn& in, const Counts& c, const System& system, StateGraph& g) {
  read_tree(in, g);
  std::vector<uint32_t> roots;
  std::vector<uint8_t> labels;
  read_roots(in, c, g, roots, labels);
  fill_states(g, roots, labels);
  const hashing::StateLayout& layout = system.layout();
  std::vector<hashing::Word> part_words;
  const auto decodes = [&](uint32_t part, std::string_view leaf) {
    return hashing::decode_part(leaf, layout, part, part_words);
  };
  if (!g.store().tree().check_trees(roots.size(), [&](size_t s) { return roots[s]; }, decodes))
    corrupted("a state's tree is damaged");
  for (StateId s = 0; s < c.states; ++s)
    if (!g.store().bind_loaded(roots[s], s)) corrupted("two states with one encoding");
}

// One state's row, checked (targets ascending, arcs of the graph).
void read_row(CheckedIn& in, const Counts& c, const StateGraph& g, std::vector<Edge>& row) {
  const uint64_t n = in.varint();
  if (n > c.transitions) corrupted("too many edges");
  uint64_t previous = 0;
  for (uint64_t k = 0; k < n; ++k) {
    const uint64_t delta = in.varint(), label = in.varint();
    const uint64_t target = previous + delta;
    if (target < delta || target / c.ranks >= c.all_states || label > 0xffffffffu) corrupted("an edge to no state");
    previous = target;
    Edge e;
    e.target = static_cast<StateId>(target);
    e.label = static_cast<uint32_t>(label);
    if (e.arc() != kIdleArc && e.arc() >= g.edge_arcs()) corrupted("an edge on no arc");
    if (!row.empty() && !(row.back().target < e.target || (row.back().target == e.target && row.back().label < e.label)))
      corrupted("edges out of order");
    row.push_back(e);
  }
}

void read_rows(CheckedIn& in, const Counts& c, StateGraph& g) {
  constexpr StateId kBatch = 4096;
  std::vector<std::vector<Edge>> rows;
  std::vector<uint32_t> counts, sizes;
  for (StateId first = 0; first < c.expanded;) {
    const StateId end = static_cast<StateId>(std::min<uint64_t>(c.expanded, uint64_t{first} + kBatch));
    rows.assign(end - first, {});
    counts.clear();
    sizes.clear();
    for (StateId s = first; s < end; ++s) {
      auto& row = rows[s - first];
      read_row(in, c, g, row);
      counts.push_back(static_cast<uint32_t>(row.size()));
      sizes.push_back(g.edge_bytes(s, row));
    }
    g.add_edges(first, counts, sizes);
    for (StateId s = first; s < end; ++s) g.write_edges(s, rows[s - first]);
    first = end;
  }
  if (g.num_edges() != c.transitions) corrupted("edge count");
}

}  // namespace

void write(HashedOut& out, const StateGraph& g, const std::vector<StateId>* gids) {
  write_gids(out, g, gids);
  write_states(out, g);
  write_rows(out, g);
}

void read(CheckedIn& in, const Counts& c, const System& system, StateGraph& g, std::vector<StateId>& gids) {
  if (g.num_states() != 0) throw std::logic_error("checkpoint_body::read: the graph is not fresh");
  if (c.expanded > c.states || c.states > c.all_states) corrupted("inconsistent counts");
  read_gids(in, c, gids);
  read_states(in, c, system, g);
  read_rows(in, c, g);
}

}  // namespace ddsmc::engine::checkpoint_body
