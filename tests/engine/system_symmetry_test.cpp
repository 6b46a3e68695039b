// engine/d2c/symmetry: the group of a D2C system is the network's
// automorphisms that fix every node the rules name and the initial state;
// it comes out trivial, or exactly that stabiliser, when something breaks
// the symmetry, and says why.
#include <gtest/gtest.h>

#include <string>

#include "engine/d2c/symmetry.hpp"
#include "hashing/symmetry.hpp"
#include "model/load.hpp"

using namespace ddsmc;

namespace {

model::Model load(const std::string& text, const std::string& network) {
  model::Diagnostics diag("test.d2c");
  model::Overrides o;
  if (!network.empty()) o.network_spec = network;
  auto m = model::load_model_text(text, "test.d2c", o, diag);
  EXPECT_TRUE(m) << diag.format_all();
  return std::move(*m);
}

// Flooding without a distinguished node: every node starts the same.
const char* kUniform = R"(
state have/0.
transport token/0.
have if start@_.
have if token@_.
have if prev have.
token@N if have, not prev have, neighbor(N).
)";

std::string with(const std::string& extra) { return std::string(kUniform) + extra; }

// Whether the group fixes node n (by name).
bool fixes(const engine::SystemSymmetry& s, const model::Model& m, const std::string& name) {
  const uint32_t n = *m.network.find(name);
  for (uint32_t i = 0; i < s.group.order(); ++i)
    if (s.group.element(i).node[n] != n) return false;
  return true;
}

}  // namespace

TEST(SystemSymmetry, UniformSystemsHaveTheNetworksWholeGroup) {
  const std::pair<const char*, size_t> cases[] = {
      {"ring:3", 6}, {"ring:5", 10}, {"ring:8", 16}, {"complete:4", 24}, {"complete:5", 120},
      {"star:4", 6}, {"line:4", 2},  {"grid:2x3", 4}, {"grid:3x3", 8},
  };
  for (auto [net, order] : cases) {
    const model::Model m = load(kUniform, net);
    const engine::SystemSymmetry s = engine::system_symmetry(m);
    EXPECT_EQ(s.group.order(), order) << net;
    EXPECT_EQ(s.network_order, static_cast<double>(order)) << net;
    EXPECT_EQ(s.system_order, static_cast<double>(order)) << net;
    EXPECT_TRUE(s.why_smaller.empty()) << net << ": " << s.why_smaller;
  }
}

TEST(SystemSymmetry, InitialFactsAtOneNodeLeaveItsStabiliser) {
  const model::Model m = load(with("state initiator/0.\ninit at n0 { initiator. }\n"), "ring:4");
  const engine::SystemSymmetry s = engine::system_symmetry(m);
  EXPECT_EQ(s.network_order, 8.0);
  EXPECT_EQ(s.group.order(), 2u);
  EXPECT_TRUE(fixes(s, m, "n0"));
  EXPECT_TRUE(fixes(s, m, "n2"));
  ASSERT_EQ(s.generator_text.size(), 1u);
  EXPECT_EQ(s.generator_text[0], "(n1 n3)");
  EXPECT_NE(s.why_smaller.find("n0 has `initiator`"), std::string::npos) << s.why_smaller;
}

TEST(SystemSymmetry, RulesNamingANodeFixIt) {
  const model::Model m = load(with("have if token@n1.\n"), "complete:4");
  const engine::SystemSymmetry s = engine::system_symmetry(m);
  EXPECT_EQ(s.group.order(), 6u);  // S3 on n0, n2, n3
  EXPECT_TRUE(fixes(s, m, "n1"));
  EXPECT_NE(s.why_smaller.find("the rules name n1"), std::string::npos) << s.why_smaller;
  // A constraint names a node too.
  const model::Model c = load(with("state leader/0.\nleader if my_name(X), X = n2.\n"), "ring:4");
  const engine::SystemSymmetry sc = engine::system_symmetry(c);
  EXPECT_EQ(sc.group.order(), 2u);
  EXPECT_TRUE(fixes(sc, c, "n2"));
}

TEST(SystemSymmetry, InitialFactsNamingNodesAreMovedWithThem) {
  // Every node believes n1 is the root: only permutations fixing n1 keep that.
  const model::Model m = load(with("state root/1.\ninit { root(n1). }\n"), "ring:4");
  const engine::SystemSymmetry s = engine::system_symmetry(m);
  EXPECT_EQ(s.group.order(), 2u);
  EXPECT_TRUE(fixes(s, m, "n1"));
  EXPECT_FALSE(s.why_smaller.empty());
  // Each node points at its clockwise successor: the rotations stay, the reflections go.
  const model::Model r =
      load(with("state next/1.\ninit at n0 { next(n1). }\ninit at n1 { next(n2). }\n"
                "init at n2 { next(n3). }\ninit at n3 { next(n0). }\n"),
           "ring:4");
  const engine::SystemSymmetry sr = engine::system_symmetry(r);
  EXPECT_EQ(sr.group.order(), 4u);
  for (uint32_t i = 0; i < sr.group.order(); ++i) {
    const auto& p = sr.group.element(i).node;
    EXPECT_EQ(p[1], (p[0] + 1) % 4);  // a rotation
  }
}

TEST(SystemSymmetry, EdgeListsAsymmetricNetworksAndGroupsTooLargeToEnumerate) {
  // A hand-made network: two triangles sharing n0 (order 8: swap within each, swap the two).
  const model::Model bow = load(with("network { n0 - a. n0 - b. a - b. n0 - c. n0 - d. c - d. }\n"), "");
  EXPECT_EQ(engine::system_symmetry(bow).group.order(), 8u);
  // The smallest asymmetric tree: legs of lengths 1, 2 and 3 from a centre.
  const model::Model tree = load(with("network { o - a. o - b1. b1 - b2. o - d1. d1 - d2. d2 - d3. }\n"), "");
  const engine::SystemSymmetry st = engine::system_symmetry(tree);
  EXPECT_TRUE(st.group.trivial());
  EXPECT_EQ(st.network_order, 1.0);
  // complete:9 has 9! = 362,880 automorphisms: beyond the cap, no symmetry, and why.
  const model::Model big = load(kUniform, "complete:9");
  const engine::SystemSymmetry sb = engine::system_symmetry(big, 1000);
  EXPECT_TRUE(sb.group.trivial());
  EXPECT_EQ(sb.system_order, 362880.0);
  EXPECT_NE(sb.why_smaller.find("more than the 1000"), std::string::npos) << sb.why_smaller;
}
