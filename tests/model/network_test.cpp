// Tests of model/network: Network::build, the generators, command-line
// network specs and edge-list files (docs/reference.md §2.5, §5.3).
#include "model/network.hpp"

#include "model/ast.hpp"  // kMaxNameLength

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

using ddsmc::model::Arc;
using ddsmc::model::ArcId;
using ddsmc::model::generate_network;
using ddsmc::model::kMaxGeneratedNodes;
using ddsmc::model::Network;
using ddsmc::model::network_from_edge_list_text;
using ddsmc::model::network_from_file;
using ddsmc::model::network_from_spec;
using ddsmc::model::NodeId;

namespace {

using Edges = std::vector<std::pair<NodeId, NodeId>>;

Network spec_ok(const std::string& spec) {
  std::string error;
  auto net = network_from_spec(spec, &error);
  EXPECT_TRUE(net.has_value()) << spec << ": " << error;
  return net ? std::move(*net) : Network{};
}

// The error of a spec that must fail ("" and a test failure if it succeeds).
std::string spec_error(const std::string& spec) {
  std::string error;
  auto net = network_from_spec(spec, &error);
  EXPECT_FALSE(net.has_value()) << spec << " unexpectedly built a network";
  EXPECT_FALSE(error.empty()) << spec;
  return net ? "" : error;
}

std::string generate_error(const std::string& name, const std::vector<uint64_t>& args) {
  std::string error;
  auto net = generate_network(name, args, &error);
  EXPECT_FALSE(net.has_value()) << name;
  return net ? "" : error;
}

std::string build_error(std::vector<std::string> names, const Edges& edges) {
  std::string error;
  auto net = Network::build(std::move(names), edges, &error);
  EXPECT_FALSE(net.has_value());
  return net ? "" : error;
}

std::string text_error(const std::string& text, const std::string& file = "f.net") {
  std::string error;
  auto net = network_from_edge_list_text(text, file, &error);
  EXPECT_FALSE(net.has_value()) << text;
  return net ? "" : error;
}

Network text_ok(const std::string& text, const std::string& file = "f.net") {
  std::string error;
  auto net = network_from_edge_list_text(text, file, &error);
  EXPECT_TRUE(net.has_value()) << error;
  return net ? std::move(*net) : Network{};
}

// Undirected edges as (low, high) pairs, from the adjacency lists.
std::set<std::pair<NodeId, NodeId>> edge_set(const Network& net) {
  std::set<std::pair<NodeId, NodeId>> out;
  for (NodeId a = 0; a < net.num_nodes(); ++a)
    for (NodeId b : net.neighbors(a))
      if (a < b) out.emplace(a, b);
  return out;
}

bool connected(const Network& net) {
  if (net.num_nodes() == 0) return false;
  std::vector<char> seen(net.num_nodes(), 0);
  std::vector<NodeId> queue{0};
  seen[0] = 1;
  for (size_t i = 0; i < queue.size(); ++i)
    for (NodeId m : net.neighbors(queue[i]))
      if (!seen[m]) seen[m] = 1, queue.push_back(m);
  return queue.size() == net.num_nodes();
}

// Everything a well-formed Network must satisfy, whoever built it.
void check_invariants(const Network& net) {
  const size_t n = net.num_nodes();
  ASSERT_GT(n, 0u);
  EXPECT_EQ(net.names().size(), n);
  EXPECT_EQ(net.num_arcs(), n + 2 * net.num_edges());
  EXPECT_EQ(net.arcs().size(), net.num_arcs());
  EXPECT_TRUE(connected(net));

  size_t degree_sum = 0;
  for (NodeId a = 0; a < n; ++a) {
    const auto& adj = net.neighbors(a);
    degree_sum += adj.size();
    EXPECT_TRUE(std::is_sorted(adj.begin(), adj.end()));
    EXPECT_EQ(std::adjacent_find(adj.begin(), adj.end()), adj.end()) << "repeated neighbour of " << a;
    for (NodeId b : adj) {
      EXPECT_NE(a, b) << "self in neighbours";
      EXPECT_LT(b, n);
      EXPECT_TRUE(net.adjacent(b, a)) << "asymmetric " << a << " " << b;
    }
    EXPECT_FALSE(net.adjacent(a, a));
    EXPECT_EQ(net.find(net.name(a)), std::optional<NodeId>(a));
  }
  EXPECT_EQ(degree_sum, 2 * net.num_edges());

  // Arcs sorted by (src, dst), each a self-loop or an edge, ranges consistent.
  for (ArcId i = 0; i < net.num_arcs(); ++i) {
    const Arc& arc = net.arc(i);
    EXPECT_TRUE(arc.src == arc.dst || net.adjacent(arc.src, arc.dst));
    if (i > 0) {
      const Arc& prev = net.arc(i - 1);
      EXPECT_TRUE(std::pair(prev.src, prev.dst) < std::pair(arc.src, arc.dst));
    }
    EXPECT_EQ(net.arc_id(arc.src, arc.dst), std::optional<ArcId>(i));
  }
  for (NodeId s = 0; s < n; ++s) {
    const auto [first, last] = net.arcs_from(s);
    EXPECT_EQ(last - first, net.neighbors(s).size() + 1);
    for (ArcId i = first; i < last; ++i) EXPECT_EQ(net.arc(i).src, s);
  }
  EXPECT_EQ(net.arcs_from(0).first, 0u);
  EXPECT_EQ(net.arcs_from(static_cast<NodeId>(n - 1)).second, net.num_arcs());
  // Out-of-range queries answer "no" instead of crashing.
  EXPECT_EQ(net.arc_id(static_cast<NodeId>(n), 0), std::nullopt);
  EXPECT_EQ(net.arc_id(0, static_cast<NodeId>(n)), std::nullopt);
  EXPECT_FALSE(net.adjacent(static_cast<NodeId>(n), 0));
}

// For small networks: arc_id answers for every ordered pair.
void check_all_pairs(const Network& net) {
  for (NodeId s = 0; s < net.num_nodes(); ++s) {
    for (NodeId d = 0; d < net.num_nodes(); ++d) {
      const auto id = net.arc_id(s, d);
      if (s == d || net.adjacent(s, d)) {
        ASSERT_TRUE(id.has_value()) << s << "->" << d;
        EXPECT_EQ(net.arc(*id), (Arc{s, d}));
      } else {
        EXPECT_EQ(id, std::nullopt) << s << "->" << d;
      }
    }
  }
}

void expect_generated_names(const Network& net) {
  for (NodeId i = 0; i < net.num_nodes(); ++i) EXPECT_EQ(net.name(i), "n" + std::to_string(i));
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// A scratch directory removed when the test ends.
class TempDir {
 public:
  TempDir() {
    std::string templ = (std::filesystem::temp_directory_path() / "ddsmc-net-XXXXXX").string();
    if (mkdtemp(templ.data())) path_ = templ;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string write(const std::string& name, const std::string& content) const {
    const std::string file = path_ + "/" + name;
    std::ofstream(file, std::ios::binary) << content;
    return file;
  }

 private:
  std::string path_;
};

}  // namespace

// ---------------------------------------------------------------------------
// Generators

TEST(NetworkGenerators, Ring4) {
  const Network net = spec_ok("ring:4");
  EXPECT_EQ(net.num_nodes(), 4u);
  EXPECT_EQ(net.num_edges(), 4u);
  EXPECT_EQ(net.num_arcs(), 12u);
  EXPECT_EQ(net.description(), "ring:4");
  expect_generated_names(net);
  EXPECT_EQ(net.neighbors(0), (std::vector<NodeId>{1, 3}));
  EXPECT_TRUE(net.adjacent(0, 1));
  EXPECT_TRUE(net.adjacent(0, 3));
  EXPECT_FALSE(net.adjacent(0, 2));
  EXPECT_FALSE(net.adjacent(1, 3));
  check_invariants(net);
  check_all_pairs(net);
  // Arcs from n0 in destination order, the self-loop included.
  const auto [first, last] = net.arcs_from(0);
  std::vector<Arc> from0(net.arcs().begin() + first, net.arcs().begin() + last);
  EXPECT_EQ(from0, (std::vector<Arc>{{0, 0}, {0, 1}, {0, 3}}));
}

TEST(NetworkGenerators, RingSmallSizes) {
  const Network one = spec_ok("ring:1");
  EXPECT_EQ(one.num_nodes(), 1u);
  EXPECT_EQ(one.num_edges(), 0u);
  EXPECT_EQ(one.num_arcs(), 1u);
  EXPECT_EQ(one.arc(0), (Arc{0, 0}));
  check_invariants(one);

  const Network two = spec_ok("ring:2");  // one edge, not a doubled one
  EXPECT_EQ(two.num_edges(), 1u);
  EXPECT_EQ(two.num_arcs(), 4u);
  EXPECT_TRUE(two.adjacent(0, 1));
  check_invariants(two);

  const Network three = spec_ok("ring:3");
  EXPECT_EQ(three.num_edges(), 3u);
  check_invariants(three);
  check_all_pairs(three);

  for (uint64_t n = 3; n <= 40; ++n) {
    const Network net = spec_ok("ring:" + std::to_string(n));
    EXPECT_EQ(net.num_nodes(), n);
    EXPECT_EQ(net.num_edges(), n);
    for (NodeId i = 0; i < n; ++i) EXPECT_EQ(net.neighbors(i).size(), 2u);
    EXPECT_TRUE(net.adjacent(0, static_cast<NodeId>(n - 1)));
    check_invariants(net);
  }
}

TEST(NetworkGenerators, Line) {
  const Network net = spec_ok("line:5");
  EXPECT_EQ(net.num_nodes(), 5u);
  EXPECT_EQ(net.num_edges(), 4u);
  EXPECT_EQ(net.num_arcs(), 13u);
  EXPECT_EQ(net.description(), "line:5");
  expect_generated_names(net);
  EXPECT_EQ(net.neighbors(0), (std::vector<NodeId>{1}));
  EXPECT_EQ(net.neighbors(2), (std::vector<NodeId>{1, 3}));
  EXPECT_EQ(net.neighbors(4), (std::vector<NodeId>{3}));
  EXPECT_FALSE(net.adjacent(0, 4));
  check_invariants(net);
  check_all_pairs(net);

  const Network one = spec_ok("line:1");
  EXPECT_EQ(one.num_nodes(), 1u);
  EXPECT_EQ(one.num_edges(), 0u);
  check_invariants(one);
}

TEST(NetworkGenerators, Star) {
  const Network net = spec_ok("star:4");
  EXPECT_EQ(net.num_nodes(), 4u);
  EXPECT_EQ(net.num_edges(), 3u);
  EXPECT_EQ(net.num_arcs(), 10u);
  EXPECT_EQ(net.description(), "star:4");
  expect_generated_names(net);
  EXPECT_EQ(net.neighbors(0), (std::vector<NodeId>{1, 2, 3}));  // n0 is the centre
  for (NodeId leaf = 1; leaf < 4; ++leaf) EXPECT_EQ(net.neighbors(leaf), (std::vector<NodeId>{0}));
  EXPECT_FALSE(net.adjacent(1, 2));
  check_invariants(net);
  check_all_pairs(net);
  check_invariants(spec_ok("star:1"));
  EXPECT_EQ(spec_ok("star:2").num_edges(), 1u);
}

TEST(NetworkGenerators, Complete) {
  const Network net = spec_ok("complete:5");
  EXPECT_EQ(net.num_nodes(), 5u);
  EXPECT_EQ(net.num_edges(), 10u);
  EXPECT_EQ(net.num_arcs(), 25u);
  EXPECT_EQ(net.description(), "complete:5");
  expect_generated_names(net);
  for (NodeId a = 0; a < 5; ++a)
    for (NodeId b = 0; b < 5; ++b) EXPECT_EQ(net.adjacent(a, b), a != b);
  check_invariants(net);
  check_all_pairs(net);
  EXPECT_EQ(spec_ok("complete:1").num_edges(), 0u);
}

TEST(NetworkGenerators, Grid2x3) {
  // n0 n1 n2
  // n3 n4 n5
  const Network net = spec_ok("grid:2x3");
  EXPECT_EQ(net.num_nodes(), 6u);
  EXPECT_EQ(net.num_edges(), 7u);
  EXPECT_EQ(net.num_arcs(), 20u);
  EXPECT_EQ(net.description(), "grid:2x3");
  expect_generated_names(net);
  const std::vector<size_t> degrees = {2, 3, 2, 2, 3, 2};
  for (NodeId i = 0; i < 6; ++i) EXPECT_EQ(net.neighbors(i).size(), degrees[i]) << i;
  EXPECT_EQ(edge_set(net),
            (std::set<std::pair<NodeId, NodeId>>{{0, 1}, {1, 2}, {3, 4}, {4, 5}, {0, 3}, {1, 4}, {2, 5}}));
  EXPECT_FALSE(net.adjacent(2, 3));  // no wrap-around between rows
  check_invariants(net);
  check_all_pairs(net);
}

TEST(NetworkGenerators, GridShapes) {
  const Network single = spec_ok("grid:1x1");
  EXPECT_EQ(single.num_nodes(), 1u);
  EXPECT_EQ(single.num_edges(), 0u);
  const Network row = spec_ok("grid:1x5");  // a line
  EXPECT_EQ(row.num_edges(), 4u);
  EXPECT_EQ(edge_set(row), edge_set(spec_ok("line:5")));
  const Network column = spec_ok("grid:5x1");
  EXPECT_EQ(edge_set(column), edge_set(spec_ok("line:5")));
  for (uint64_t r = 1; r <= 6; ++r) {
    for (uint64_t c = 1; c <= 6; ++c) {
      const Network net = spec_ok("grid:" + std::to_string(r) + "x" + std::to_string(c));
      EXPECT_EQ(net.num_nodes(), r * c);
      EXPECT_EQ(net.num_edges(), r * (c - 1) + (r - 1) * c);
      check_invariants(net);
    }
  }
  // The same through the generator interface used by `network grid(R, C).`
  std::string error;
  auto net = generate_network("grid", {3, 4}, &error);
  ASSERT_TRUE(net) << error;
  EXPECT_EQ(net->num_nodes(), 12u);
  EXPECT_EQ(net->description(), "grid:3x4");
  EXPECT_TRUE(net->adjacent(5, 6));   // r1c1 - r1c2
  EXPECT_TRUE(net->adjacent(5, 9));   // r1c1 - r2c1
  EXPECT_FALSE(net->adjacent(3, 4));  // r0c3 and r1c0 are not neighbours
}

TEST(NetworkGenerators, Tree) {
  const Network net = spec_ok("tree:5");
  EXPECT_EQ(net.num_nodes(), 5u);
  EXPECT_EQ(net.num_edges(), 4u);
  EXPECT_EQ(net.num_arcs(), 13u);
  EXPECT_EQ(net.description(), "tree:5");
  expect_generated_names(net);
  EXPECT_EQ(edge_set(net), (std::set<std::pair<NodeId, NodeId>>{{0, 1}, {0, 2}, {1, 3}, {1, 4}}));
  check_invariants(net);
  check_all_pairs(net);

  const Network seven = spec_ok("tree:7");
  EXPECT_EQ(seven.neighbors(2), (std::vector<NodeId>{0, 5, 6}));
  for (uint64_t n = 1; n <= 64; ++n) {
    const Network t = spec_ok("tree:" + std::to_string(n));
    EXPECT_EQ(t.num_edges(), n - 1);
    for (NodeId i = 1; i < n; ++i) EXPECT_TRUE(t.adjacent(i, (i - 1) / 2));
    check_invariants(t);
  }
}

TEST(NetworkGenerators, RandomIsDeterministic) {
  const Network a = spec_ok("random:30:3:12345");
  const Network b = spec_ok("random:30:3:12345");
  EXPECT_EQ(edge_set(a), edge_set(b));
  EXPECT_EQ(a.arcs(), b.arcs());
  EXPECT_EQ(a.description(), "random:30:3:12345");
  expect_generated_names(a);

  // Different seeds give different graphs (for some seed, surely).
  bool differs = false;
  for (int seed = 1; seed < 10 && !differs; ++seed)
    differs = edge_set(spec_ok("random:30:3:" + std::to_string(seed))) != edge_set(a);
  EXPECT_TRUE(differs);

  // Pinned output: the PRNG is our own splitmix64, so this graph is the same
  // with every compiler and standard library. Changing it changes users'
  // random networks; update deliberately.
  const Network pinned = spec_ok("random:10:3:7");
  EXPECT_EQ(edge_set(pinned), (std::set<std::pair<NodeId, NodeId>>{{0, 1},
                                                                   {0, 2},
                                                                   {0, 3},
                                                                   {0, 4},
                                                                   {0, 6},
                                                                   {0, 7},
                                                                   {1, 7},
                                                                   {3, 4},
                                                                   {3, 5},
                                                                   {3, 6},
                                                                   {3, 9},
                                                                   {4, 5},
                                                                   {5, 7},
                                                                   {6, 8},
                                                                   {8, 9}}));
}

TEST(NetworkGenerators, RandomIsConnectedWithAboutDNeighbours) {
  for (uint64_t seed = 0; seed < 200; ++seed) {
    for (uint64_t n = 1; n <= 40; ++n) {
      for (uint64_t d : {0, 1, 3, 6}) {
        const std::string spec = "random:" + std::to_string(n) + ":" + std::to_string(d) + ":" + std::to_string(seed);
        std::string error;
        auto net = network_from_spec(spec, &error);
        ASSERT_TRUE(net) << spec << ": " << error;
        ASSERT_EQ(net->num_nodes(), n) << spec;
        ASSERT_TRUE(connected(*net)) << spec;
        ASSERT_EQ(net->num_arcs(), n + 2 * net->num_edges()) << spec;
        // Exactly round(N*D/2) edges, but at least the spanning tree and at
        // most the complete graph.
        const uint64_t target = std::min((n * d + 1) / 2, n * (n - 1) / 2);
        ASSERT_EQ(net->num_edges(), std::max(target, n - 1)) << spec;
      }
    }
  }
  // Full invariants on a sample (the loop above would be slow with them).
  for (uint64_t seed = 0; seed < 20; ++seed) check_invariants(spec_ok("random:25:4:" + std::to_string(seed)));
}

TEST(NetworkGenerators, RandomDegreeExtremes) {
  const Network tree = spec_ok("random:50:0:3");  // D = 0: just the spanning tree
  EXPECT_EQ(tree.num_edges(), 49u);
  check_invariants(tree);

  const Network big = spec_ok("random:1000:4:42");
  EXPECT_EQ(big.num_edges(), 2000u);
  check_invariants(big);

  // A degree of N or more asks for the complete graph, whatever its size.
  EXPECT_EQ(spec_ok("random:20:19:1").num_edges(), 190u);
  EXPECT_EQ(spec_ok("random:20:1000:1").num_edges(), 190u);
  EXPECT_EQ(spec_ok("random:20:18446744073709551615:1").num_edges(), 190u);
  EXPECT_EQ(spec_ok("random:1:5:0").num_nodes(), 1u);
  EXPECT_EQ(spec_ok("random:2:0:0").num_edges(), 1u);
  EXPECT_EQ(spec_ok("random:7:3:18446744073709551615").num_edges(), 11u);  // round(21/2)
}

TEST(NetworkGenerators, LargestSizes) {
  // A path of 2^20 nodes: connectivity must not recurse.
  const Network line = spec_ok("line:" + std::to_string(kMaxGeneratedNodes));
  EXPECT_EQ(line.num_nodes(), kMaxGeneratedNodes);
  EXPECT_EQ(line.num_edges(), kMaxGeneratedNodes - 1);
  EXPECT_EQ(line.num_arcs(), 3 * kMaxGeneratedNodes - 2);
  EXPECT_EQ(line.name(static_cast<NodeId>(kMaxGeneratedNodes - 1)), "n1048575");
  EXPECT_EQ(line.find("n1048575"), std::optional<NodeId>(kMaxGeneratedNodes - 1));
  const auto last = static_cast<NodeId>(kMaxGeneratedNodes - 1);
  EXPECT_TRUE(line.arc_id(last, last - 1).has_value());
  EXPECT_FALSE(line.arc_id(last, 0).has_value());

  const Network grid = spec_ok("grid:1024x1024");
  EXPECT_EQ(grid.num_nodes(), kMaxGeneratedNodes);
  EXPECT_EQ(grid.num_edges(), 2u * 1024 * 1023);
}

TEST(NetworkGenerators, ArcIdRoundTripsForEveryGenerator) {
  for (const char* spec : {"ring:7", "line:6", "star:6", "complete:6", "grid:3x4", "tree:9", "random:12:3:99"}) {
    SCOPED_TRACE(spec);
    const Network net = spec_ok(spec);
    check_invariants(net);
    check_all_pairs(net);
    for (ArcId i = 0; i < net.num_arcs(); ++i) EXPECT_EQ(net.arc_id(net.arc(i).src, net.arc(i).dst), i);
  }
}

// ---------------------------------------------------------------------------
// generate_network errors (the interface behind `network ring(4).`)

TEST(NetworkGeneratorErrors, UnknownNameListsKnownOnes) {
  const std::string error = generate_error("hexagon", {4});
  EXPECT_TRUE(contains(error, "unknown network generator 'hexagon'")) << error;
  for (const char* known : {"ring", "line", "star", "complete", "grid", "tree", "random"})
    EXPECT_TRUE(contains(error, known)) << error;
  EXPECT_FALSE(generate_error("", {}).empty());
  EXPECT_FALSE(generate_error("Ring", {4}).empty());  // names are case-sensitive
}

TEST(NetworkGeneratorErrors, WrongArgumentCount) {
  EXPECT_EQ(generate_error("grid", {3}), "grid takes 2 arguments (rows, columns), got 1");
  EXPECT_EQ(generate_error("ring", {}), "ring takes 1 argument (nodes), got 0");
  EXPECT_EQ(generate_error("ring", {3, 4}), "ring takes 1 argument (nodes), got 2");
  EXPECT_EQ(generate_error("random", {10, 3}), "random takes 3 arguments (nodes, degree, seed), got 2");
  for (const char* name : {"line", "star", "complete", "tree"}) {
    EXPECT_TRUE(contains(generate_error(name, {1, 2}), "takes 1 argument")) << name;
    std::string error;
    EXPECT_TRUE(generate_network(name, {3}, &error)) << name << ": " << error;
  }
  std::string error;
  EXPECT_TRUE(generate_network("random", {10, 3, 7}, &error)) << error;
}

TEST(NetworkGeneratorErrors, ZeroNodes) {
  for (const char* name : {"ring", "line", "star", "complete", "tree"})
    EXPECT_TRUE(contains(generate_error(name, {0}), "has no nodes")) << name;
  EXPECT_TRUE(contains(generate_error("grid", {0, 3}), "grid:0x3 has no nodes"));
  EXPECT_TRUE(contains(generate_error("grid", {3, 0}), "has no nodes"));
  EXPECT_TRUE(contains(generate_error("random", {0, 3, 1}), "random:0:3:1 has no nodes"));
}

TEST(NetworkGeneratorErrors, TooManyNodes) {
  const uint64_t too_many = kMaxGeneratedNodes + 1;
  for (const char* name : {"ring", "line", "star", "complete", "tree"}) {
    const std::string error = generate_error(name, {too_many});
    EXPECT_TRUE(contains(error, "more than the limit of 1048576")) << error;
  }
  EXPECT_TRUE(contains(generate_error("random", {too_many, 1, 1}), "more than the limit"));
  EXPECT_TRUE(contains(generate_error("grid", {1025, 1024}), "more than the limit"));
  EXPECT_TRUE(contains(generate_error("ring", {UINT64_MAX}), "more than the limit"));
  // Products that overflow 64 bits (2^32 * 2^32 wraps to 0) are still refused.
  EXPECT_TRUE(contains(generate_error("grid", {1ull << 32, 1ull << 32}), "more than the limit"));
  EXPECT_TRUE(contains(generate_error("grid", {UINT64_MAX, UINT64_MAX}), "more than the limit"));
  EXPECT_TRUE(contains(generate_error("grid", {UINT64_MAX, 2}), "more than the limit"));
}

TEST(NetworkGeneratorErrors, TooManyEdges) {
  // complete and dense random graphs of many nodes would exhaust memory.
  EXPECT_TRUE(contains(generate_error("complete", {100000}), "edges, more than the limit"));
  EXPECT_TRUE(contains(generate_error("complete", {kMaxGeneratedNodes}), "edges, more than the limit"));
  EXPECT_TRUE(contains(generate_error("random", {kMaxGeneratedNodes, UINT64_MAX, 1}), "edges, more than the limit"));
  std::string error;
  EXPECT_TRUE(generate_network("complete", {1000}, &error)) << error;
}

// ---------------------------------------------------------------------------
// Command-line specs

TEST(NetworkSpec, EveryFormParses) {
  EXPECT_EQ(spec_ok("ring:6").num_nodes(), 6u);
  EXPECT_EQ(spec_ok("line:6").num_edges(), 5u);
  EXPECT_EQ(spec_ok("star:6").neighbors(0).size(), 5u);
  EXPECT_EQ(spec_ok("complete:6").num_edges(), 15u);
  EXPECT_EQ(spec_ok("grid:2x2").num_edges(), 4u);
  EXPECT_EQ(spec_ok("tree:6").num_edges(), 5u);
  EXPECT_EQ(spec_ok("random:6:2:1").num_nodes(), 6u);
  const Network padded = spec_ok("ring:007");  // `007` is 7
  EXPECT_EQ(padded.num_nodes(), 7u);
  EXPECT_EQ(padded.description(), "ring:7");
}

TEST(NetworkSpec, BadNumbers) {
  EXPECT_EQ(spec_error("ring:abc"),
            "bad network spec 'ring:abc': 'abc' is not a number (expected digits only); use ring:N");
  EXPECT_EQ(spec_error("ring:"), "bad network spec 'ring:': missing number; use ring:N");
  EXPECT_TRUE(contains(spec_error("ring:-1"), "'-1' is not a number"));
  EXPECT_TRUE(contains(spec_error("ring:+1"), "'+1' is not a number"));
  EXPECT_TRUE(contains(spec_error("ring: 4"), "is not a number"));
  EXPECT_TRUE(contains(spec_error("ring:4 "), "is not a number"));
  EXPECT_TRUE(contains(spec_error("ring:0x10"), "is not a number"));
  EXPECT_TRUE(contains(spec_error("ring:4.0"), "is not a number"));
  EXPECT_TRUE(contains(spec_error("ring:99999999999999999999"), "number '99999999999999999999' is too large"));
  EXPECT_TRUE(contains(spec_error("ring:18446744073709551616"), "too large"));  // 2^64
  // 2^64 - 1 parses; it is then too many nodes.
  EXPECT_TRUE(contains(spec_error("ring:18446744073709551615"), "more than the limit"));
  EXPECT_TRUE(contains(spec_error("ring:0"), "has no nodes"));
  EXPECT_TRUE(contains(spec_error("ring:1048577"), "more than the limit of 1048576"));
  EXPECT_EQ(spec_ok("ring:1048576").num_nodes(), kMaxGeneratedNodes);
}

TEST(NetworkSpec, WrongShapes) {
  EXPECT_EQ(spec_error("grid:3"), "bad network spec 'grid:3': 2 numbers expected, found 1; use grid:RxC");
  EXPECT_TRUE(contains(spec_error("grid:3x"), "missing number; use grid:RxC"));
  EXPECT_TRUE(contains(spec_error("grid:x3"), "missing number"));
  EXPECT_TRUE(contains(spec_error("grid:x"), "missing number"));
  EXPECT_TRUE(contains(spec_error("grid:3x4x5"), "2 numbers expected, found 3"));
  EXPECT_TRUE(contains(spec_error("grid:3:4"), "use grid:RxC"));
  EXPECT_TRUE(contains(spec_error("grid:3X4"), "use grid:RxC"));
  EXPECT_TRUE(contains(spec_error("grid:0x4"), "has no nodes"));
  EXPECT_TRUE(contains(spec_error("grid:4294967296x4294967296"), "more than the limit"));
  EXPECT_TRUE(contains(spec_error("ring:4:5"), "1 number expected, found 2; use ring:N"));
  EXPECT_TRUE(contains(spec_error("tree:4:"), "1 number expected, found 2"));
  EXPECT_TRUE(contains(spec_error("random:10:3"), "3 numbers expected, found 2; use random:N:D:SEED"));
  EXPECT_TRUE(contains(spec_error("random:10:3:7:1"), "3 numbers expected, found 4"));
  EXPECT_TRUE(contains(spec_error("random:10::7"), "missing number"));
  EXPECT_TRUE(contains(spec_error("random:0:3:7"), "has no nodes"));
  EXPECT_TRUE(contains(spec_error("complete:5000"), "edges, more than the limit"));
  for (const char* name : {"line", "star", "complete", "tree"}) {
    EXPECT_TRUE(contains(spec_error(std::string(name) + ":x"), "is not a number")) << name;
    EXPECT_TRUE(contains(spec_error(std::string(name) + ":0"), "has no nodes")) << name;
  }
}

TEST(NetworkSpec, BareGeneratorNameWithoutFile) {
  // Run where no file called `ring` exists.
  TempDir dir;
  struct RestoreCwd {
    std::filesystem::path old = std::filesystem::current_path();
    ~RestoreCwd() { std::filesystem::current_path(old); }
  } restore;
  std::filesystem::current_path(dir.path());
  EXPECT_EQ(spec_error("ring"), "bad network spec 'ring': missing arguments; use ring:N");
  EXPECT_TRUE(contains(spec_error("grid"), "use grid:RxC"));
  // ... but a file of that name is read as an edge-list file.
  dir.write("ring", "x y\n");
  const Network net = spec_ok("ring");
  EXPECT_EQ(net.names(), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(net.description(), "ring");
}

TEST(NetworkSpec, UnknownSpecThatIsNoFile) {
  const std::string error = spec_error("/nonexistent/dir/net.txt");
  EXPECT_TRUE(contains(error, "unknown network spec '/nonexistent/dir/net.txt': not a generator (ring:N, line:N, "))
      << error;
  EXPECT_TRUE(contains(error, "random:N:D:SEED) and no such file")) << error;
  EXPECT_TRUE(contains(spec_error("hexagon:4"), "unknown network spec 'hexagon:4': not a generator"));
  EXPECT_TRUE(contains(spec_error("RING:4"), "not a generator"));
  EXPECT_TRUE(contains(spec_error(""), "unknown network spec ''"));
}

TEST(NetworkSpec, PathToEdgeListFile) {
  TempDir dir;
  const std::string path = dir.write("tri.net", "a b\nb c\nc a\n");
  const Network net = spec_ok(path);
  EXPECT_EQ(net.num_nodes(), 3u);
  EXPECT_EQ(net.num_edges(), 3u);
  EXPECT_EQ(net.description(), path);
  // A file name with a colon whose prefix is not a generator is still a path.
  const std::string colon = dir.write("my:net", "p q\n");
  EXPECT_EQ(spec_ok(colon).names(), (std::vector<std::string>{"p", "q"}));
  EXPECT_TRUE(contains(spec_error(dir.path()), "is a directory"));
}

// ---------------------------------------------------------------------------
// Network::build

TEST(NetworkBuild, Success) {
  std::string error;
  auto net = Network::build({"a", "b", "c"}, {{2, 0}, {0, 1}}, &error);
  ASSERT_TRUE(net) << error;
  EXPECT_EQ(net->num_edges(), 2u);
  EXPECT_EQ(net->neighbors(0), (std::vector<NodeId>{1, 2}));
  EXPECT_EQ(net->arcs(), (std::vector<Arc>{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {2, 0}, {2, 2}}));
  EXPECT_EQ(net->find("c"), std::optional<NodeId>(2));
  EXPECT_EQ(net->find("d"), std::nullopt);
  EXPECT_EQ(net->find(""), std::nullopt);
  EXPECT_EQ(net->description(), "");
  net->set_description("block");
  EXPECT_EQ(net->description(), "block");
  check_invariants(*net);
  check_all_pairs(*net);

  auto single = Network::build({"solo"}, {}, &error);
  ASSERT_TRUE(single) << error;
  EXPECT_EQ(single->num_arcs(), 1u);
  EXPECT_EQ(single->arc_id(0, 0), std::optional<ArcId>(0));
}

TEST(NetworkBuild, Errors) {
  EXPECT_EQ(build_error({}, {}), "network has no nodes");
  EXPECT_EQ(build_error({"a", "b"}, {{0, 1}, {1, 1}}), "self-edge 'b - b'");
  EXPECT_EQ(build_error({"a", "b"}, {{0, 1}, {1, 0}}), "edge 'a - b' is listed twice");
  EXPECT_EQ(build_error({"a", "b"}, {{0, 1}, {0, 1}}), "edge 'a - b' is listed twice");
  EXPECT_TRUE(contains(build_error({"a", "b"}, {{0, 2}}), "out of range"));
  EXPECT_TRUE(contains(build_error({"a", "b"}, {{UINT32_MAX, 0}}), "out of range"));
  EXPECT_EQ(build_error({"a", "b", "a"}, {{0, 1}, {1, 2}}), "duplicate node name 'a'");
  EXPECT_EQ(build_error({"n0", "n1", "n2", "n3"}, {{0, 1}, {1, 2}}), "network is not connected: n3 cannot reach n0");
  EXPECT_EQ(build_error({"a", "b", "c", "d"}, {{0, 1}, {2, 3}}), "network is not connected: c cannot reach a");
  EXPECT_EQ(build_error({"a", "b"}, {}), "network is not connected: b cannot reach a");
}

// ---------------------------------------------------------------------------
// Edge-list text and files

TEST(EdgeListText, CommentsBlankLinesAndNodes) {
  const Network net = text_ok(
      "# a triangle and a tail\n"
      "\n"
      "a b   # first edge\n"
      "\tb\tc\n"
      "c a\r\n"
      "   \n"
      "d#comment glued to a name\n"
      "c d\n"
      "a\n"  // re-declaring a node is fine
      "# trailing comment");
  EXPECT_EQ(net.names(), (std::vector<std::string>{"a", "b", "c", "d"}));  // order of first appearance
  EXPECT_EQ(net.num_edges(), 4u);
  EXPECT_EQ(net.neighbors(2), (std::vector<NodeId>{0, 1, 3}));
  EXPECT_EQ(net.description(), "f.net");
  check_invariants(net);
}

TEST(EdgeListText, NamesAreConstantsAsInANetworkBlock) {
  // Identifiers, integers in canonical form and strings (with spaces, '#'
  // and escapes inside); only '#' outside a string starts a comment.
  const Network net = text_ok("node_1 x9Y\nx9Y \"a b # c\"\n\"a b # c\" 007 # seven\n7 \"q\\\"\"\n");
  EXPECT_EQ(net.names(), (std::vector<std::string>{"node_1", "x9Y", "\"a b # c\"", "7", "\"q\\\"\""}));
  EXPECT_EQ(net.num_edges(), 4u);
  EXPECT_EQ(net.find("7"), std::optional<NodeId>(3));  // 007 and 7 are one node
  EXPECT_EQ(net.find("007"), std::nullopt);
  EXPECT_EQ(net.find("\"7\""), std::nullopt);  // "7" would be another constant
  check_invariants(net);
  const Network node_only = text_ok("lonely\n");
  EXPECT_EQ(node_only.num_nodes(), 1u);
  EXPECT_EQ(node_only.num_edges(), 0u);
  // Valid multi-byte UTF-8 in a string, and names of exactly the length limit.
  const std::string longest(ddsmc::model::kMaxNameLength, 'z');
  EXPECT_EQ(text_ok("\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8c\x8d\" " + longest + "\n").names(),
            (std::vector<std::string>{"\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8c\x8d\"", longest}));
}

TEST(EdgeListText, SelfEdgeAfterCanonicalisation) {
  EXPECT_EQ(text_error("a b\n007 7\n"), "f.net:2:1: self-edge '7 7' (every node already has a self-loop; list it "
                                          "alone to declare a node)");
  EXPECT_EQ(text_error("1 2\n02 001\n"), "f.net:2:1: edge '2 1' is listed twice (first at line 1)");
}

TEST(EdgeListText, BadNamesAreLocatedErrors) {
  EXPECT_EQ(text_error("x,y\n"), "f.net:1:2: unexpected character ',' after the node name 'x' (names are separated "
                                  "by spaces; a node name is an identifier [a-z][A-Za-z0-9_]*, an integer or a "
                                  "double-quoted string)");
  EXPECT_EQ(text_error("a b\n  X a\n"), "f.net:2:3: 'X' is not a node name: a node name is an identifier "
                                          "[a-z][A-Za-z0-9_]*, an integer or a double-quoted string");
  EXPECT_TRUE(contains(text_error("a _\n"), "f.net:1:3: '_' is not a node name"));
  EXPECT_TRUE(contains(text_error("_a b\n"), "f.net:1:1: '_a': a name cannot start with '_'"));
  EXPECT_TRUE(contains(text_error("a 1b\n"), "f.net:1:4: unexpected character 'b' after the node name '1'"));
  EXPECT_TRUE(contains(text_error("a\"b\"\n"), "f.net:1:2: unexpected character '\"' after the node name 'a'"));
  EXPECT_TRUE(contains(text_error("a - b\n"), "f.net:1:3: unexpected character '-'"));
  EXPECT_TRUE(contains(text_error("a b.\n"), "f.net:1:4: unexpected character '.' after the node name 'b'"));
  EXPECT_EQ(text_error("a init\n"), "f.net:1:3: 'init' is a reserved word and cannot name a node (the string "
                                     "\"init\" can)");
  EXPECT_TRUE(contains(text_error("if b\n"), "f.net:1:1: 'if' is a reserved word"));
  EXPECT_TRUE(contains(text_error("a \"open\n"), "f.net:1:3: unterminated string"));
  EXPECT_TRUE(contains(text_error("a \"open\rb c\n"), "f.net:1:3: unterminated string"));  // a CR ends it too
  EXPECT_TRUE(contains(text_error("a \"tab\there\"\n"), "f.net:1:7: control character '\\x09'"));
  EXPECT_TRUE(contains(text_error("a \"\\q\"\n"), "f.net:1:4: unknown escape '\\q'"));
  EXPECT_TRUE(contains(text_error("\xc3\xa9 b\n"), "f.net:1:1: unexpected character '\xc3\xa9' (U+00E9)"));
  // The 1024-character limit, and a 2 MB name, which is refused as quickly.
  EXPECT_TRUE(contains(text_error("a " + std::string(ddsmc::model::kMaxNameLength + 1, 'z') + "\n"),
                       "f.net:1:3: name of 1025 characters is longer than the limit of 1024"));
  EXPECT_TRUE(contains(text_error("a \"" + std::string(2 << 20, 'z') + "\"\n"),
                       "f.net:1:3: string of 2097152 characters is longer than the limit of 1024"));
  EXPECT_TRUE(contains(text_error("a " + std::string(2000, '9') + "\n"),
                       "f.net:1:3: integer of 2000 digits is longer than the limit of 1024"));
}

TEST(EdgeListText, InvalidUtf8InNamesIsALocatedError) {
  const std::pair<const char*, const char*> cases[] = {
      {"a \"x\xff\"\n", "f.net:1:5: invalid UTF-8 in a string: the bytes '\\xff'"},
      {"a \"\xc0\xaf\"\n", "f.net:1:4: invalid UTF-8 in a string: the bytes '\\xc0\\xaf'"},          // overlong '/'
      {"a \"\xe0\x80\xaf\"\n", "f.net:1:4: invalid UTF-8 in a string: the bytes '\\xe0\\x80\\xaf'"},  // overlong
      {"a \"\xed\xa0\x80\"\n", "f.net:1:4: invalid UTF-8 in a string: the bytes '\\xed\\xa0\\x80'"},  // surrogate
      {"a \"\xf4\x90\x80\x80\"\n", "f.net:1:4: invalid UTF-8 in a string"},                       // > U+10FFFF
      {"a \"\xe2\x82\"\n", "f.net:1:4: invalid UTF-8 in a string: the bytes '\\xe2\\x82'"},         // truncated
      {"a \"\x80\"\n", "f.net:1:4: invalid UTF-8 in a string: the bytes '\\x80'"},                   // lone trail
      {"a \xff\n", "f.net:1:3: unexpected character '\\xff' (not UTF-8 text)"},
  };
  for (const auto& [text, want] : cases) EXPECT_TRUE(contains(text_error(text), want)) << text_error(text);
}

TEST(EdgeListText, LineEndsAreLfCrAndCrLf) {
  // A lone CR ends a line (and a comment), as LF does; CRLF is one line end.
  const std::string cr = "# triangle\ra b\rb c # edge\rc a\r";
  const Network net = text_ok(cr);
  EXPECT_EQ(net.names(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(net.num_edges(), 3u);
  EXPECT_EQ(text_ok("a b\r\nb c\n\rc a").num_edges(), 3u);
  // Line numbers count each of them once.
  EXPECT_EQ(text_error("a b\rb c\rb c\r"), "f.net:3:1: edge 'b c' is listed twice (first at line 2)");
  EXPECT_EQ(text_error("a b\r\nb c\r\n\r\nb c\r\n"), "f.net:4:1: edge 'b c' is listed twice (first at line 2)");
  EXPECT_EQ(text_error("a b\n\rb c\n  b,c\n"), "f.net:4:4: unexpected character ',' after the node name 'b' "
                                                    "(names are separated by spaces; a node name is an identifier "
                                                    "[a-z][A-Za-z0-9_]*, an integer or a double-quoted string)");
  // A UTF-8 byte order mark at the start is skipped.
  EXPECT_EQ(text_ok("\xef\xbb\xbf" "a b\n").names(), (std::vector<std::string>{"a", "b"}));
}

TEST(EdgeListText, ErrorsCarryFileLineAndColumn) {
  EXPECT_EQ(text_error("a b\nb c d\n"), "f.net:2:5: expected 'a b' (an edge) or 'a' (a node), found 3 names");
  EXPECT_TRUE(contains(text_error("a b\n\nc c\n"), "f.net:3:1: self-edge 'c c'"));
  EXPECT_EQ(text_error("a b\nb c\n# x\nb a\n"), "f.net:4:1: edge 'b a' is listed twice (first at line 1)");
  EXPECT_TRUE(contains(text_error("x y\nu v\n  y x # again\n", "nets/t.net"),
                       "nets/t.net:3:3: edge 'y x' is listed twice (first at line 1)"));
  EXPECT_EQ(text_error("a b\nc\n"), "f.net: network is not connected: c cannot reach a");
  EXPECT_EQ(text_error(""), "f.net: network has no nodes");
  EXPECT_EQ(text_error("# only a comment\n\n   \n"), "f.net: network has no nodes");
}

TEST(EdgeListFile, ReadsATempFile) {
  TempDir dir;
  const std::string path = dir.write("square.net", "# square\nn0 n1\nn1 n2\nn2 n3\nn3 n0\n");
  std::string error;
  auto net = network_from_file(path, &error);
  ASSERT_TRUE(net) << error;
  EXPECT_EQ(net->num_nodes(), 4u);
  EXPECT_EQ(net->num_edges(), 4u);
  EXPECT_EQ(net->description(), path);
  EXPECT_EQ(edge_set(*net), edge_set(spec_ok("ring:4")));

  const std::string bad = dir.write("bad.net", "a b\na a\n");
  EXPECT_FALSE(network_from_file(bad, &error));
  EXPECT_EQ(error, bad + ":2:1: self-edge 'a a' (every node already has a self-loop; list it alone to declare a node)");
}

TEST(EdgeListFile, MissingDirectoryUnreadable) {
  TempDir dir;
  std::string error;
  EXPECT_FALSE(network_from_file(dir.path() + "/missing.net", &error));
  EXPECT_EQ(error, dir.path() + "/missing.net: no such file");
  EXPECT_FALSE(network_from_file(dir.path(), &error));
  EXPECT_EQ(error, dir.path() + ": is a directory, not an edge-list file");
  EXPECT_FALSE(network_from_file("", &error));
  EXPECT_FALSE(error.empty());

  const std::string locked = dir.write("locked.net", "a b\n");
  ASSERT_EQ(chmod(locked.c_str(), 0), 0);
  if (geteuid() != 0) {  // root reads it anyway
    EXPECT_FALSE(network_from_file(locked, &error));
    EXPECT_TRUE(contains(error, locked + ": cannot open")) << error;
  }
}

// ---------------------------------------------------------------------------
// Robustness: arbitrary input never crashes and always explains a failure.

TEST(NetworkRobustness, ArbitraryTextAndSpecs) {
  uint64_t state = 12345;
  const auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>(state >> 33);
  };
  static const char kAlphabet[] = "ab c\n#\t\r:x0123456789-\0";  // NUL included
  const std::string alphabet(kAlphabet, sizeof kAlphabet - 1);
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    const size_t len = next() % 40;
    for (size_t i = 0; i < len; ++i) text += alphabet[next() % alphabet.size()];
    std::string error;
    auto net = network_from_edge_list_text(text, "fuzz", &error);
    if (net) {
      check_invariants(*net);
    } else {
      EXPECT_FALSE(error.empty()) << text;
    }
    error.clear();
    const char* heads[] = {"ring:", "grid:", "random:", "tree:", "complete:", ""};
    const std::string spec = heads[next() % 6] + text.substr(0, 4);  // short: no huge networks
    auto from_spec = network_from_spec(spec, &error);
    if (!from_spec) {
      EXPECT_FALSE(error.empty()) << spec;
    }
  }
}
