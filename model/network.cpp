// Networks (docs/reference.md §2.5, §3.1, §5.3): validation and the arc table in
// Network::build, the generators and the command-line spec parser (edge-list
// files are read by model/edge_list). Nothing here throws to the caller and
// nothing recurses on the input size: networks may have up to
// kMaxGeneratedNodes nodes.
#include "model/network.hpp"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <limits>
#include <new>
#include <string_view>
#include <unordered_set>

#include "model/edge_list.hpp"

namespace ddsmc::model {
namespace {

// Generated edge lists are materialised several times over (edge list,
// adjacency, arcs), so `complete:100000` must be refused rather than run the
// machine out of memory. Still far beyond anything a model checker explores.
constexpr uint64_t kMaxGeneratedEdges = 1u << 22;

constexpr std::string_view kGeneratorForms = "ring:N, line:N, star:N, complete:N, grid:RxC, tree:N, random:N:D:SEED";

// Runs `body`, turning any exception (in practice std::bad_alloc) into an
// error, so that callers only ever see nullopt plus a message.
template <class F>
std::optional<Network> guarded(std::string* error, F&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    *error = "out of memory while building the network";
  } catch (const std::exception& e) {
    *error = std::string("internal error while building the network: ") + e.what();
  }
  return std::nullopt;
}

std::optional<Network> fail(std::string* error, std::string message) {
  *error = std::move(message);
  return std::nullopt;
}

std::string in_quotes(std::string_view s) { return "'" + std::string(s) + "'"; }

// splitmix64 (Steele, Lea, Flood 2014): tiny and fully specified, so a seed
// gives the same graph with every compiler and standard library.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, bound), bound > 0. Rejects the low values that would make
  // `% bound` biased; the threshold is 2^64 mod bound.
  uint64_t below(uint64_t bound) {
    const uint64_t threshold = (0 - bound) % bound;
    for (;;) {
      const uint64_t r = next();
      if (r >= threshold) return r % bound;
    }
  }

 private:
  uint64_t state_;
};

using EdgeList = std::vector<std::pair<NodeId, NodeId>>;

std::vector<std::string> generated_names(uint64_t n) {
  std::vector<std::string> names;
  names.reserve(n);
  for (uint64_t i = 0; i < n; ++i) names.push_back("n" + std::to_string(i));
  return names;
}

EdgeList complete_edges(NodeId n) {
  EdgeList edges;
  edges.reserve(uint64_t{n} * (n - 1) / 2);
  for (NodeId a = 0; a < n; ++a)
    for (NodeId b = a + 1; b < n; ++b) edges.emplace_back(a, b);
  return edges;
}

// random(N, D, SEED): a random spanning tree (node i > 0 attaches to a
// uniform j < i) keeps the graph connected; then distinct random non-edges
// are added until there are round(N*D/2) edges, i.e. about D neighbours each.
EdgeList random_edges(NodeId n, uint64_t target, uint64_t seed) {
  const uint64_t max_edges = uint64_t{n} * (n - 1) / 2;
  if (target >= max_edges) return complete_edges(n);  // what sampling would reach, without the wait
  SplitMix64 rng(seed);
  EdgeList edges;
  edges.reserve(std::max<uint64_t>(target, n - 1));
  std::unordered_set<uint64_t> present;
  present.reserve(edges.capacity());
  for (NodeId i = 1; i < n; ++i) {
    const auto j = static_cast<NodeId>(rng.below(i));
    edges.emplace_back(j, i);
    present.insert(undirected_edge_key(j, i));
  }
  while (edges.size() < target) {
    const auto a = static_cast<NodeId>(rng.below(n));
    const auto b = static_cast<NodeId>(rng.below(n));
    if (a == b || !present.insert(undirected_edge_key(a, b)).second) continue;
    edges.emplace_back(std::min(a, b), std::max(a, b));
  }
  return edges;
}

struct GeneratorInfo {
  std::string_view name;
  size_t arity;
  std::string_view arg_names;  // for "takes N arguments (...)"
  std::string_view spec_form;  // the command-line form
};

constexpr GeneratorInfo kGenerators[] = {
    {"ring", 1, "nodes", "ring:N"},
    {"line", 1, "nodes", "line:N"},
    {"star", 1, "nodes", "star:N"},
    {"complete", 1, "nodes", "complete:N"},
    {"grid", 2, "rows, columns", "grid:RxC"},
    {"tree", 1, "nodes", "tree:N"},
    {"random", 3, "nodes, degree, seed", "random:N:D:SEED"},
};

const GeneratorInfo* find_generator(std::string_view name) {
  for (const auto& g : kGenerators)
    if (g.name == name) return &g;
  return nullptr;
}

std::optional<Network> generate_unguarded(const std::string& name, const std::vector<uint64_t>& args,
                                          std::string* error) {
  const GeneratorInfo* gen = find_generator(name);
  if (!gen) {
    std::string known;
    for (const auto& g : kGenerators) known += (known.empty() ? "" : ", ") + std::string(g.name);
    return fail(error, "unknown network generator " + in_quotes(name) + " (known: " + known + ")");
  }
  if (args.size() != gen->arity) {
    return fail(error, std::string(gen->name) + " takes " + std::to_string(gen->arity) +
                           (gen->arity == 1 ? " argument (" : " arguments (") + std::string(gen->arg_names) +
                           "), got " + std::to_string(args.size()));
  }

  // Node count first, checked before any multiplication can overflow.
  uint64_t n = args[0];
  std::string description = name + ":" + std::to_string(args[0]);
  if (name == "grid") {
    const uint64_t rows = args[0], cols = args[1];
    description = "grid:" + std::to_string(rows) + "x" + std::to_string(cols);
    if (rows == 0 || cols == 0) return fail(error, description + " has no nodes (rows and columns must be at least 1)");
    if (cols > kMaxGeneratedNodes / rows) {
      return fail(error, description + " has more than the limit of " + std::to_string(kMaxGeneratedNodes) + " nodes");
    }
    n = rows * cols;
  } else if (name == "random") {
    description += ":" + std::to_string(args[1]) + ":" + std::to_string(args[2]);
  }
  if (n == 0) return fail(error, description + " has no nodes (N must be at least 1)");
  if (n > kMaxGeneratedNodes) {
    return fail(error, description + " has " + std::to_string(n) + " nodes, more than the limit of " +
                           std::to_string(kMaxGeneratedNodes));
  }
  const auto nodes = static_cast<NodeId>(n);

  // Edge count before building, so oversized graphs are refused up front.
  const uint64_t max_edges = n * (n - 1) / 2;  // n <= 2^20: no overflow
  uint64_t edge_count = 0;
  uint64_t random_target = 0;
  if (name == "ring") {
    edge_count = n == 1 ? 0 : n == 2 ? 1 : n;
  } else if (name == "complete") {
    edge_count = max_edges;
  } else if (name == "grid") {
    edge_count = args[0] * (args[1] - 1) + (args[0] - 1) * args[1];
  } else if (name == "random") {
    // round(N*D/2), at most complete; D >= N is complete anyway and must
    // not reach the multiplication, which could overflow.
    const uint64_t degree = args[1];
    random_target = degree >= n ? max_edges : std::min(max_edges, (n * degree + 1) / 2);
    edge_count = std::max(random_target, n - 1);
  } else {  // line, star, tree: trees
    edge_count = n - 1;
  }
  if (edge_count > kMaxGeneratedEdges) {
    return fail(error, description + " has " + std::to_string(edge_count) + " edges, more than the limit of " +
                           std::to_string(kMaxGeneratedEdges));
  }

  EdgeList edges;
  edges.reserve(edge_count);
  if (name == "ring") {
    if (n == 2) edges.emplace_back(0, 1);
    if (n >= 3)
      for (NodeId i = 0; i < nodes; ++i) edges.emplace_back(i, (i + 1) % nodes);
  } else if (name == "line") {
    for (NodeId i = 0; i + 1 < nodes; ++i) edges.emplace_back(i, i + 1);
  } else if (name == "star") {
    for (NodeId i = 1; i < nodes; ++i) edges.emplace_back(0, i);
  } else if (name == "complete") {
    edges = complete_edges(nodes);
  } else if (name == "grid") {
    const auto rows = static_cast<NodeId>(args[0]), cols = static_cast<NodeId>(args[1]);
    for (NodeId r = 0; r < rows; ++r) {
      for (NodeId c = 0; c < cols; ++c) {
        const NodeId v = r * cols + c;
        if (c + 1 < cols) edges.emplace_back(v, v + 1);
        if (r + 1 < rows) edges.emplace_back(v, v + cols);
      }
    }
  } else if (name == "tree") {
    // Binary heap order: the children of i are 2i+1 and 2i+2.
    for (NodeId i = 1; i < nodes; ++i) edges.emplace_back((i - 1) / 2, i);
  } else {
    edges = random_edges(nodes, random_target, args[2]);
  }

  auto net = Network::build(generated_names(n), edges, error);
  if (net) net->set_description(description);
  return net;
}

// Strict unsigned decimal: digits only, at least one, no overflow.
bool parse_number(std::string_view text, uint64_t* out, std::string* problem) {
  if (text.empty()) {
    *problem = "missing number";
    return false;
  }
  uint64_t value = 0;
  for (char ch : text) {
    if (ch < '0' || ch > '9') {
      *problem = in_quotes(text) + " is not a number (expected digits only)";
      return false;
    }
    const uint64_t digit = static_cast<uint64_t>(ch - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) {
      *problem = "number " + in_quotes(text) + " is too large";
      return false;
    }
    value = value * 10 + digit;
  }
  *out = value;
  return true;
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  for (;;) {
    const size_t at = text.find(sep);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

std::optional<Network> spec_unguarded(const std::string& spec, std::string* error) {
  const size_t colon = spec.find(':');
  const std::string head = spec.substr(0, colon);
  const GeneratorInfo* gen = find_generator(head);
  // Only "not found" counts as absent: an unreadable path is opened and
  // reported as such.
  std::error_code ec;
  const bool file_exists = std::filesystem::status(spec, ec).type() != std::filesystem::file_type::not_found;
  // A generator name with a colon is a generator; a bare `ring` is one only
  // when no file of that name exists (write ./ring:4 for a file with a colon).
  if (!gen || (colon == std::string::npos && file_exists)) {
    if (!file_exists) {
      return fail(error, "unknown network spec " + in_quotes(spec) + ": not a generator (" +
                             std::string(kGeneratorForms) + ") and no such file");
    }
    return read_edge_list_file(spec, error);
  }

  const std::string bad = "bad network spec " + in_quotes(spec) + ": ";
  const std::string use = "; use " + std::string(gen->spec_form);
  if (colon == std::string::npos) return fail(error, bad + "missing arguments" + use);
  const std::string_view rest = std::string_view(spec).substr(colon + 1);
  const auto parts = split(rest, head == "grid" ? 'x' : ':');
  if (parts.size() != gen->arity) {
    return fail(error, bad + std::to_string(gen->arity) + (gen->arity == 1 ? " number" : " numbers") +
                           " expected, found " + std::to_string(parts.size()) + use);
  }
  std::vector<uint64_t> args(parts.size());
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string problem;
    if (!parse_number(parts[i], &args[i], &problem)) return fail(error, bad + problem + use);
  }
  std::string gen_error;
  auto net = generate_unguarded(head, args, &gen_error);
  if (!net) return fail(error, bad + gen_error);
  return net;
}

}  // namespace

std::optional<Network> Network::build(std::vector<std::string> names,
                                      const std::vector<std::pair<NodeId, NodeId>>& edges, std::string* error) {
  return guarded(error, [&]() -> std::optional<Network> {
    const size_t n = names.size();
    if (n == 0) return fail(error, "network has no nodes");
    // Every arc id, and the sentinel arc_begin_[n], must fit in an ArcId.
    constexpr uint64_t kMaxId = std::numeric_limits<ArcId>::max();
    if (n > kMaxId || edges.size() > kMaxId || n + 2 * uint64_t{edges.size()} > kMaxId) {
      return fail(error,
                  "network too large: " + std::to_string(n) + " nodes and " + std::to_string(edges.size()) + " edges");
    }

    Network net;
    net.by_name_.resize(n);
    for (size_t i = 0; i < n; ++i) net.by_name_[i] = static_cast<NodeId>(i);
    std::stable_sort(net.by_name_.begin(), net.by_name_.end(), [&](NodeId a, NodeId b) { return names[a] < names[b]; });
    for (size_t i = 1; i < n; ++i) {
      if (names[net.by_name_[i - 1]] == names[net.by_name_[i]])
        return fail(error, "duplicate node name " + in_quotes(names[net.by_name_[i]]));
    }

    net.adj_.resize(n);
    for (size_t i = 0; i < edges.size(); ++i) {
      const auto [a, b] = edges[i];
      if (a >= n || b >= n) {
        return fail(error, "edge " + std::to_string(i) + " (" + std::to_string(a) + " - " + std::to_string(b) +
                               ") names a node index out of range (" + std::to_string(n) + " nodes)");
      }
      if (a == b) return fail(error, "self-edge " + in_quotes(names[a] + " - " + names[a]));
      net.adj_[a].push_back(b);
      net.adj_[b].push_back(a);
    }
    // Sorting each list puts a repeated edge (a-b twice, or a-b and b-a) side by side.
    for (size_t a = 0; a < n; ++a) {
      auto& list = net.adj_[a];
      std::sort(list.begin(), list.end());
      const auto dup = std::adjacent_find(list.begin(), list.end());
      if (dup != list.end())
        return fail(error, "edge " + in_quotes(names[a] + " - " + names[*dup]) + " is listed twice");
    }

    // Breadth-first from node 0, with an explicit queue: no recursion depth.
    std::vector<char> seen(n, 0);
    std::vector<NodeId> queue{0};
    seen[0] = 1;
    for (size_t head = 0; head < queue.size(); ++head) {
      for (NodeId m : net.adj_[queue[head]]) {
        if (!seen[m]) {
          seen[m] = 1;
          queue.push_back(m);
        }
      }
    }
    if (queue.size() != n) {
      const size_t lost = static_cast<size_t>(std::find(seen.begin(), seen.end(), 0) - seen.begin());
      return fail(error, "network is not connected: " + names[lost] + " cannot reach " + names[0]);
    }

    // Arcs by (src, dst): the self-loop slots into the sorted neighbour list.
    net.arcs_.reserve(n + 2 * edges.size());
    net.arc_begin_.reserve(n + 1);
    for (NodeId s = 0; s < n; ++s) {
      net.arc_begin_.push_back(static_cast<ArcId>(net.arcs_.size()));
      const auto& list = net.adj_[s];
      const auto mid = std::lower_bound(list.begin(), list.end(), s);
      for (auto it = list.begin(); it != mid; ++it) net.arcs_.push_back({s, *it});
      net.arcs_.push_back({s, s});
      for (auto it = mid; it != list.end(); ++it) net.arcs_.push_back({s, *it});
    }
    net.arc_begin_.push_back(static_cast<ArcId>(net.arcs_.size()));

    net.num_edges_ = edges.size();
    net.names_ = std::move(names);
    return net;
  });
}

std::optional<NodeId> Network::find(const std::string& name) const {
  const auto it = std::lower_bound(by_name_.begin(), by_name_.end(), name,
                                   [&](NodeId id, const std::string& key) { return names_[id] < key; });
  if (it == by_name_.end() || names_[*it] != name) return std::nullopt;
  return *it;
}

bool Network::adjacent(NodeId a, NodeId b) const {
  if (a >= adj_.size()) return false;
  return std::binary_search(adj_[a].begin(), adj_[a].end(), b);
}

std::optional<ArcId> Network::arc_id(NodeId src, NodeId dst) const {
  if (src >= num_nodes()) return std::nullopt;
  const auto first = arcs_.begin() + arc_begin_[src], last = arcs_.begin() + arc_begin_[src + 1];
  const auto it = std::lower_bound(first, last, dst, [](const Arc& arc, NodeId d) { return arc.dst < d; });
  if (it == last || it->dst != dst) return std::nullopt;
  return static_cast<ArcId>(it - arcs_.begin());
}

std::optional<Network> generate_network(const std::string& name, const std::vector<uint64_t>& args,
                                        std::string* error) {
  return guarded(error, [&] { return generate_unguarded(name, args, error); });
}

std::optional<Network> network_from_spec(const std::string& spec, std::string* error) {
  return guarded(error, [&] { return spec_unguarded(spec, error); });
}

std::optional<Network> network_from_file(const std::string& path, std::string* error) {
  return guarded(error, [&] { return read_edge_list_file(path, error); });
}

std::optional<Network> network_from_edge_list_text(const std::string& text, const std::string& file_for_messages,
                                                   std::string* error) {
  return guarded(error, [&] { return read_edge_list(text, file_for_messages, error); });
}

}  // namespace ddsmc::model
