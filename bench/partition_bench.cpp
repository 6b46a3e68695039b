// How a placement rule (engine/placement.hpp, `check --partition-key`)
// would split a model's state space among R ranks, measured in one process
// without MPI: per rule and rank count, the fraction of transitions whose
// target another rank owns than its source's (each costs an offer on the
// wire) and the largest rank's states over the mean (its memory and time
// over its share). The same partition as dist/partition.hpp: the owner of
// a state is hashing::owner_of_key of its placement key.
//
// Usage: bench_partition MODEL.d2c [--network SPEC] [--ranks 2,4,16,256]
//                        [--rules all,nodes+arcs/2,nodes+arcs/3,nodes]
//        (build/bench/bench_partition; figures in docs/dist.md)
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <vector>

#include "engine/d2c/compile.hpp"
#include "engine/d2c/system.hpp"
#include "engine/explore.hpp"
#include "engine/placement.hpp"
#include "hashing/fingerprint.hpp"
#include "model/load.hpp"

using namespace ddsmc;

namespace {

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream ss(list);
  for (std::string t; std::getline(ss, t, ',');) out.push_back(t);
  return out;
}

// Per state of the graph, its placement key under `in_key`.
std::vector<uint64_t> keys_of(const engine::StateGraph& g, const hashing::StateLayout& layout,
                              const std::vector<uint8_t>& in_key) {
  std::vector<uint64_t> keys(g.num_states());
  hashing::GlobalState s;
  hashing::SegmentedEncoding enc;
  for (engine::StateId id = 0; id < g.num_states(); ++id) {
    if (!hashing::decode(g.bytes(id), layout, s)) throw std::logic_error("a stored state does not decode");
    hashing::encode_segmented(s, layout, enc);
    keys[id] = engine::placement_key(enc, in_key);
  }
  return keys;
}

struct Split {
  double crossing = 0, imbalance = 0;
};

Split split_of(const engine::StateGraph& g, const std::vector<uint64_t>& keys, uint32_t ranks) {
  std::vector<uint64_t> owned(ranks, 0);
  for (uint64_t k : keys) ++owned[hashing::owner_of_key(k, ranks)];
  uint64_t edges = 0, crossing = 0;
  for (engine::StateId s = 0; s < g.num_expanded(); ++s) {
    const uint32_t from = hashing::owner_of_key(keys[s], ranks);
    engine::EdgeCursor c;
    engine::Edge e;
    while (g.next_edge(s, c, e)) {
      ++edges;
      crossing += hashing::owner_of_key(keys[e.target], ranks) != from;
    }
  }
  const double mean = double(keys.size()) / ranks;
  return {edges ? double(crossing) / double(edges) : 0.0,
          double(*std::max_element(owned.begin(), owned.end())) / mean};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("ddsmc partition benchmark: crossing transitions and balance per placement rule");
  std::string path, network, ranks_list = "2,4,16,256", rules_list = "all,nodes+arcs/2,nodes+arcs/3,nodes";
  app.add_option("model", path)->required();
  app.add_option("--network", network);
  app.add_option("--ranks", ranks_list);
  app.add_option("--rules", rules_list);
  CLI11_PARSE(app, argc, argv);
  std::vector<uint32_t> ranks;
  for (const auto& r : split(ranks_list)) ranks.push_back(static_cast<uint32_t>(std::stoul(r)));
  std::vector<engine::PlacementRule> rules;
  for (const auto& r : split(rules_list)) {
    auto rule = engine::PlacementRule::parse(r);
    if (!rule) {
      fmt::print(stderr, "not a partition key: {}\n", r);
      return 2;
    }
    rules.push_back(*rule);
  }

  model::Diagnostics diag(path);
  model::Overrides ov;
  if (!network.empty()) ov.network_spec = network;
  auto m = model::load_model(path, ov, diag);
  if (!m) {
    fmt::print(stderr, "{}", diag.format_all());
    return 2;
  }
  engine::CompiledModel cm = engine::compile(*m);
  engine::ExploreOptions eo;
  eo.threads = 0;
  engine::ExploreResult res = engine::explore(cm, eo);
  const auto& g = res.graph;
  fmt::print("{} on {}: {} states, {} transitions, {} nodes, {} channels\n", path,
             network.empty() ? "its network" : network, g.num_states(), g.num_edges(), g.num_nodes(), g.num_arcs());
  fmt::print("{:<16}", "rule");
  for (uint32_t r : ranks) fmt::print("  {:>5} ranks: crossing  max/mean", r);
  fmt::print("\n");
  for (const auto& rule : rules) {
    const auto keys = keys_of(g, cm.layout, engine::key_parts(rule, g.num_nodes(), g.num_arcs()));
    fmt::print("{:<16}", rule.text());
    for (uint32_t r : ranks) {
      const Split s = split_of(g, keys, r);
      fmt::print("  {:>5}        {:6.1f} %  {:7.2f}x", "", 100 * s.crossing, s.imbalance);
    }
    fmt::print("\n");
  }
  return 0;
}
