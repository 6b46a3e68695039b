// A fixed connected network (docs/reference.md §2.5, §3.1): named nodes, undirected
// edges, and the arcs (ordered pairs s->d with s == d or s, d adjacent), each
// of which carries one channel. Built from a generator, an edge-list file, or
// a `network { }` block; every builder checks connectivity.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ddsmc::model {

using NodeId = uint32_t;
using ArcId = uint32_t;

struct Arc {
  NodeId src;
  NodeId dst;
  friend bool operator==(const Arc&, const Arc&) = default;
};

class Network {
 public:
  // Builds from names and undirected edges (node indices). Returns the error
  // message (no location) in `error` and an empty optional when the graph is
  // empty, has a self-edge or a duplicate edge, or is not connected.
  static std::optional<Network> build(std::vector<std::string> names,
                                      const std::vector<std::pair<NodeId, NodeId>>& edges, std::string* error);

  size_t num_nodes() const { return names_.size(); }
  size_t num_edges() const { return num_edges_; }
  size_t num_arcs() const { return arcs_.size(); }
  const std::string& name(NodeId n) const { return names_[n]; }
  const std::vector<std::string>& names() const { return names_; }
  std::optional<NodeId> find(const std::string& name) const;
  // Neighbours of n, ascending, not including n itself.
  const std::vector<NodeId>& neighbors(NodeId n) const { return adj_[n]; }
  bool adjacent(NodeId a, NodeId b) const;
  // Arcs ordered by (src, dst); the self-loop of every node included.
  const std::vector<Arc>& arcs() const { return arcs_; }
  const Arc& arc(ArcId a) const { return arcs_[a]; }
  // The arc s->d, or nullopt when s != d and they are not adjacent.
  std::optional<ArcId> arc_id(NodeId src, NodeId dst) const;
  // Arcs leaving n, in ascending order of destination.
  std::pair<ArcId, ArcId> arcs_from(NodeId n) const { return {arc_begin_[n], arc_begin_[n + 1]}; }
  // A short description, e.g. "ring:4" or "file.net"; set by whoever built it.
  const std::string& description() const { return description_; }
  void set_description(std::string d) { description_ = std::move(d); }

 private:
  std::vector<std::string> names_;
  std::vector<std::vector<NodeId>> adj_;
  std::vector<Arc> arcs_;
  std::vector<ArcId> arc_begin_;  // per node, plus one sentinel
  std::vector<NodeId> by_name_;   // node ids sorted by name, for find()
  size_t num_edges_ = 0;
  std::string description_;
};

// Generators of docs/reference.md §2.5, nodes named n0 .. n(N-1). `args` are the
// generator's numbers in order (ring: {N}, grid: {R, C}, random: {N, D, SEED}).
// Errors (unknown name, wrong number of arguments, zero nodes, sizes beyond
// kMaxGeneratedNodes) are returned in `error`.
std::optional<Network> generate_network(const std::string& name, const std::vector<uint64_t>& args,
                                        std::string* error);

// A command-line spec (docs/reference.md §5.3): `ring:N`, `line:N`, `star:N`, `complete:N`, `grid:RxC`,
// `tree:N`, `random:N:D:SEED`, or else a path to an edge-list file.
std::optional<Network> network_from_spec(const std::string& spec, std::string* error);

// An edge-list file (model/edge_list.hpp): `a b` per line (an edge), `a`
// alone (a node), `#` comments; node names are constants as in a `network`
// block. Errors carry "FILE:LINE:COL: " prefixes.
std::optional<Network> network_from_file(const std::string& path, std::string* error);
std::optional<Network> network_from_edge_list_text(const std::string& text, const std::string& file_for_messages,
                                                   std::string* error);

inline constexpr uint64_t kMaxGeneratedNodes = 1u << 20;

// Key of an undirected edge, the same for a-b and b-a.
inline uint64_t undirected_edge_key(NodeId a, NodeId b) {
  return a < b ? (uint64_t{a} << 32) | b : (uint64_t{b} << 32) | a;
}

}  // namespace ddsmc::model
