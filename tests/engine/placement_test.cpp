// The placement key (engine/placement.hpp): the rule's text both ways, the
// parts it marks, and the key the expander finds for a successor from the
// parts its step changed, against the key of the successor's whole
// canonical encoding, for every rule, with and without fresh constants.
#include <gtest/gtest.h>

#include <deque>
#include <set>
#include <string>
#include <vector>

#include "engine/d2c/compile.hpp"
#include "engine/d2c/system.hpp"
#include "engine/expander.hpp"
#include "engine/placement.hpp"
#include "engine/state_store.hpp"
#include "hashing/canonical.hpp"
#include "model/load.hpp"
#include "tests/test_support.hpp"

using namespace ddsmc;
using engine::PlacementRule;

TEST(PlacementRule, ReadsWhatItWrites) {
  for (const char* text : {"all", "nodes", "nodes+arcs/2", "nodes+arcs/3", "nodes+arcs/1048576"}) {
    auto r = PlacementRule::parse(text);
    ASSERT_TRUE(r) << text;
    EXPECT_EQ(r->text(), text);
  }
  EXPECT_EQ(PlacementRule::parse("nodes+arcs/1"), PlacementRule::parse("all"));
  EXPECT_EQ(PlacementRule::parse("nodes+arcs/1")->text(), "all");
  EXPECT_EQ(PlacementRule{}.text(), "nodes+arcs/3");  // the default
}

TEST(PlacementRule, RefusesAnythingElse) {
  for (const char* text : {"", "All", "node", "nodes+", "nodes+arcs", "nodes+arcs/", "nodes+arcs/0", "nodes+arcs/-1",
                           "nodes+arcs/+2", "nodes+arcs/3x", "nodes+arcs/ 3", "nodes+arcs/1048577",
                           "nodes+arcs/99999999999999999999", "arcs/3", " all"})
    EXPECT_FALSE(PlacementRule::parse(text)) << "'" << text << "'";
}

TEST(PlacementRule, MarksEveryNodeAndEveryKthArc) {
  using V = std::vector<uint8_t>;
  EXPECT_EQ(engine::key_parts(PlacementRule{1}, 2, 3), (V{1, 1, 1, 1, 1}));
  EXPECT_EQ(engine::key_parts(PlacementRule{0}, 2, 3), (V{1, 1, 0, 0, 0}));
  EXPECT_EQ(engine::key_parts(PlacementRule{2}, 2, 5), (V{1, 1, 1, 0, 1, 0, 1}));
  EXPECT_EQ(engine::key_parts(PlacementRule{3}, 1, 7), (V{1, 1, 0, 0, 1, 0, 0, 1}));
  EXPECT_EQ(engine::key_parts(PlacementRule{9}, 3, 0), (V{1, 1, 1}));
}

TEST(PlacementKey, CountsTheMarkedPartsOnly) {
  hashing::SegmentedEncoding a{"abcdef", {0, 2, 4, 6}}, b{"abcdxy", {0, 2, 4, 6}};
  const std::vector<uint8_t> first_two{1, 1, 0}, all{1, 1, 1};
  EXPECT_EQ(engine::placement_key(a, first_two), engine::placement_key(b, first_two));
  EXPECT_NE(engine::placement_key(a, all), engine::placement_key(b, all));
  EXPECT_EQ(engine::placement_key(a, std::vector<uint8_t>{0, 0, 0}), 0u);
}

namespace {

// Breadth-first over up to `limit` states of an example, each expanded by
// expand_split under `rule` (a successor is "here" when its key is even):
// every successor's key must be its whole canonical encoding's, and it is
// interned here exactly when here() accepts that key. Returns the
// successors seen and how many were here.
std::pair<size_t, size_t> check_split(const std::string& name, const std::string& network, const PlacementRule& rule,
                                      size_t limit) {
  model::Diagnostics diag;
  model::Overrides ov;
  ov.network_spec = network;
  auto m = model::load_model(test::source_path("examples/" + name + ".d2c"), ov, diag);
  EXPECT_TRUE(m) << name;
  if (!m) return {};
  const engine::CompiledModel cm = engine::compile(*m);
  const engine::D2cSystem system(cm);
  const auto& layout = system.layout();
  const std::vector<uint8_t> in_key = engine::key_parts(rule, layout.num_nodes, layout.num_arcs);
  engine::StateStore store(layout, size_t{1} << 16);
  engine::Expander expander(system, engine::OnBound::Stop, store.tree());
  hashing::SegmentedEncoding enc;
  std::deque<hashing::GlobalState> queue{system.initial_state()};
  std::set<std::string> seen;
  size_t successors = 0, here = 0;
  while (!queue.empty() && seen.size() < limit) {
    const uint32_t root = expander.intern(queue.front());
    queue.pop_front();
    expander.expand_split(
        root, in_key, [](uint64_t key) { return key % 2 == 0; },
        [&](const engine::Candidate& c) {
          hashing::encode_segmented(*c.state, layout, enc);
          const uint64_t key = engine::placement_key(enc, in_key);
          EXPECT_EQ(c.place, key) << name << " " << rule.text();
          EXPECT_EQ(c.here, key % 2 == 0) << name << " " << rule.text();
          ++successors;
          here += c.here;
          if (seen.insert(enc.bytes).second) queue.push_back(*c.state);
        });
  }
  return {successors, here};
}

}  // namespace

TEST(PlacementKey, ExpanderFindsTheWholeEncodingsKeyFromTheChangedParts) {
  for (const char* rule : {"all", "nodes", "nodes+arcs/2", "nodes+arcs/3"})
    for (const auto& [name, network] : std::vector<std::pair<std::string, std::string>>{
             {"flooding", "ring:4"}, {"ring_broadcast", "ring:3"}, {"token_ring", "ring:4"}}) {
      const auto [successors, here] = check_split(name, network, *PlacementRule::parse(rule), 300);
      EXPECT_GT(successors, 100u) << name << " " << rule;
      EXPECT_GT(here, 0u) << name << " " << rule;
      EXPECT_LT(here, successors) << name << " " << rule;
    }
}
