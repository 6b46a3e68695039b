// The largest sizes a check reports (ExploreResult::sizes, issue 24: the
// largest DB, constants per DB and channel occupancy met) against a brute
// force over the finished graph: every state decoded, its facts, distinct
// constants and messages counted with std::set, no StateSizes code used.
// On every example, with bounds stopping or pruning, at one and two
// threads, and under network symmetry.
#include <gtest/gtest.h>

#include <set>

#include "engine/d2c/symmetry.hpp"
#include "engine/d2c/system.hpp"
#include "model/load.hpp"
#include "tests/test_support.hpp"

using namespace ddsmc;

namespace {

hashing::StateSizes brute_force(const engine::StateGraph& g, const hashing::StateLayout& layout) {
  hashing::StateSizes out;
  for (engine::StateId s = 0; s < g.num_states(); ++s) {
    hashing::GlobalState st;
    EXPECT_TRUE(hashing::decode(g.bytes(s), layout, st));
    for (const auto& db : st.dbs) {
      std::set<hashing::Word> constants;
      uint32_t facts = 0;
      for (size_t i = 0; i < db.size(); i += layout.fact_words(db[i]), ++facts)
        constants.insert(db.begin() + static_cast<std::ptrdiff_t>(i + 1),
                         db.begin() + static_cast<std::ptrdiff_t>(i + layout.fact_words(db[i])));
      out.db_facts = std::max(out.db_facts, facts);
      out.db_constants = std::max(out.db_constants, static_cast<uint32_t>(constants.size()));
    }
    for (const auto& ch : st.channels) {
      uint32_t messages = 0;
      for (size_t i = 0; i < ch.size(); i += layout.fact_words(ch[i]) + 1) messages += ch[i + layout.fact_words(ch[i])];
      out.channel_messages = std::max(out.channel_messages, messages);
    }
  }
  return out;
}

std::string text(const hashing::StateSizes& z) {
  return std::to_string(z.db_facts) + " facts, " + std::to_string(z.db_constants) + " constants, " +
         std::to_string(z.channel_messages) + " messages";
}

TEST(StateSizes, TheLargestSizesAreThoseOfTheGraphsStates) {
  size_t compared = 0;
  for (const std::string& path : test::example_files()) {
    for (const char* network : {"", "ring:3"}) {
      if (*network && test::built_with_address_sanitizer()) continue;  // (the examples' own networks suffice there)
      model::Diagnostics diag;
      model::Overrides ov;
      if (*network) ov.network_spec = network;
      auto m = model::load_model(path, ov, diag);
      ASSERT_TRUE(m) << diag.format_all();
      const engine::CompiledModel cm = engine::compile(*m);
      const engine::SystemSymmetry sym = engine::system_symmetry(*m);
      for (const bool symmetric : {false, true}) {
        if (symmetric && sym.group.trivial()) continue;
        engine::D2cSystem system(cm);
        if (symmetric) system.set_symmetry(std::make_shared<const hashing::SymmetryGroup>(sym.group));
        for (const auto on_bound : {engine::OnBound::Stop, engine::OnBound::Prune}) {
          hashing::StateSizes one;
          for (const size_t threads : {1, 2}) {
            SCOPED_TRACE(path + " " + network + (symmetric ? " symmetric" : "") +
                         (on_bound == engine::OnBound::Prune ? " prune" : " stop") + " threads " +
                         std::to_string(threads));
            engine::ExploreOptions opts;
            opts.threads = threads;
            opts.on_bound = on_bound;
            opts.max_states = 50000;
            const engine::ExploreResult res = engine::explore(system, opts);
            if (!res.complete) continue;  // (a bound stop: the violating state is in the graph, not in the sizes)
            EXPECT_EQ(text(res.sizes), text(brute_force(res.graph, cm.layout)));
            if (threads == 1) one = res.sizes;
            else EXPECT_EQ(text(res.sizes), text(one));
            ++compared;
          }
        }
      }
    }
  }
  EXPECT_GE(compared, 40u);
}

}  // namespace
