// Differential tests of the compiled step back-end (engine/d2c/codegen,
// compiled_step; issue 9 prototype) against the interpreter
// (engine::StepEvaluator): for every bundled example and many random
// programs, every reachable state (explored by the interpreter, one
// thread), every message in it and every input DB, both evaluators must
// deliver the same StepResults in the same order, outcome by outcome.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "engine/d2c/codegen.hpp"
#include "engine/d2c/compiled_step.hpp"
#include "engine/d2c/inputs.hpp"
#include "engine/d2c/system.hpp"
#include "hashing/state.hpp"
#include "model/load.hpp"
#include "tests/engine/graph_compare.hpp"
#include "tests/engine/reference_support.hpp"
#include "tests/test_support.hpp"

using namespace ddsmc;
using namespace ddsmc::reftest;

namespace {

engine::CompiledStepOptions cache_options() {
  engine::CompiledStepOptions o;
  // Kept between runs: objects are keyed by a hash of their source.
  o.cache_dir = (std::filesystem::temp_directory_path() / ("ddsmc-test-step-cache-" + std::to_string(getuid()))).string();
  return o;
}

struct Counts {
  uint64_t models = 0, states = 0, steps = 0, outcomes = 0;
};

std::string words(const std::vector<Word>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? " " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string result_string(const engine::StepResult& r) {
  return "db " + words(r.db) + " sent " + words(r.sent) + " dropped " + words(r.dropped);
}

// "" when the interpreter's outcomes `a` and the compiled step's `b` are the
// same, in the same order; else the first difference.
std::string outcome_difference(const std::vector<engine::StepResult>& a, const std::vector<engine::StepResult>& b) {
  if (a.size() != b.size())
    return std::to_string(a.size()) + " outcomes interpreted, " + std::to_string(b.size()) + " compiled";
  for (size_t k = 0; k < a.size(); ++k)
    if (a[k].db != b[k].db || a[k].sent != b[k].sent || a[k].dropped != b[k].dropped)
      return "outcome " + std::to_string(k) + ": interpreted " + result_string(a[k]) + ", compiled " +
             result_string(b[k]);
  return "";
}

// Explores the model with the interpreter and compares both evaluators on
// every step of every stored state. Returns "" when they agree, the
// generator's refusal as "refused: ..." or the first difference.
std::string compare_model(const model::Model& m, uint64_t max_states, Counts& counts) {
  const engine::CompiledModel cm = engine::compile(m);
  auto loaded = engine::CompiledStepLibrary::load(cm, cache_options());
  if (!loaded.library) {
    if (loaded.error.rfind("unsupported:", 0) == 0) return "refused: " + loaded.error;
    return "load failed: " + loaded.error;
  }
  engine::ExploreOptions eo;
  eo.threads = 1;
  eo.max_states = max_states;
  eo.on_bound = engine::OnBound::Prune;
  const engine::ExploreResult ex = engine::explore(cm, eo);
  const auto& g = ex.graph;
  engine::StepEvaluator interp(cm);
  engine::CompiledStepEvaluator compiled(loaded.library);
  engine::InputEnumerator inputs(cm);
  const auto& layout = cm.layout;
  std::vector<engine::StepResult> a, b;
  std::vector<Word> fresh;
  hashing::GlobalState s;
  ++counts.models;
  for (uint32_t id = 0; id < g.num_states(); ++id) {
    if (!hashing::decode(g.bytes(id), layout, s)) return "state " + std::to_string(id) + " does not decode";
    ++counts.states;
    if (cm.may_have_fresh) hashing::fresh_constants(s, layout, fresh); else fresh.clear();
    std::string problem;
    for (uint32_t arc = 0; arc < layout.num_arcs && problem.empty(); ++arc) {
      const auto& ch = s.channels[arc];
      const model::Arc ends = m.network.arc(arc);
      for (size_t i = 0; i < ch.size() && problem.empty();) {
        const size_t len = layout.fact_words(ch[i]);
        std::vector<Word> payload(ch.begin() + i, ch.begin() + i + len);
        i += len + 1;
        inputs.for_each(fresh, [&](const std::vector<Word>& input) {
          if (!problem.empty()) return;
          engine::StepInput in{ends.dst, &s.dbs[ends.dst], ends.src, payload.data(), &input};
          a.clear();
          b.clear();
          interp.evaluate(in, [&](const engine::StepResult& r) { a.push_back(r); });
          compiled.evaluate(in, [&](const engine::StepResult& r) { b.push_back(r); });
          ++counts.steps;
          counts.outcomes += a.size();
          problem = outcome_difference(a, b);
          if (!problem.empty())
            problem += "\n  at state " + std::to_string(id) + ", arc " + std::to_string(arc) + ", payload " +
                       words(payload) + ", input " + words(input) + ", db " + words(s.dbs[ends.dst]) +
                       "\n  generated: " + loaded.library->source_path();
        });
      }
    }
    if (!problem.empty()) return problem;
  }
  return "";
}

std::optional<model::Model> load_file(const std::string& path) {
  model::Diagnostics diag;
  auto m = model::load_model(path, model::Overrides{}, diag);
  EXPECT_TRUE(m.has_value()) << diag.format_all();
  return m;
}

}  // namespace

// The literal is generated from the header at build time (engine/CMakeLists.txt):
// this checks that generation (delimiters, nothing lost or added).
TEST(CompiledStep, AbiTextMatchesHeader) {
  EXPECT_EQ(engine::codegen_abi_text(), test::read_text(test::source_path("engine/d2c/codegen_abi.hpp")));
}

TEST(CompiledStep, EveryExampleAgreesWithTheInterpreter) {
  Counts total;
  std::vector<std::string> refused;
  for (const std::string& path : test::example_files()) {
    auto m = load_file(path);
    if (!m) continue;
    Counts c;
    const std::string diff = compare_model(*m, 60000, c);
    if (diff.rfind("refused: ", 0) == 0) {
      refused.push_back(path + ": " + diff);
      continue;
    }
    EXPECT_EQ(diff, "") << path;
    std::cout << "  " << std::filesystem::path(path).filename().string() << ": " << c.states << " states, "
              << c.steps << " steps, " << c.outcomes << " outcomes\n";
    total.models += c.models, total.states += c.states, total.steps += c.steps, total.outcomes += c.outcomes;
  }
  for (const auto& r : refused) std::cout << "  " << r << "\n";
  std::cout << "examples compared: " << total.models << " models, " << total.states << " states, " << total.steps
            << " steps, " << total.outcomes << " outcomes; refused " << refused.size() << "\n";
  EXPECT_TRUE(refused.empty());
}

// Random programs as the explorer's differential tests draw them
// (random_checks.hpp: with input and fresh constants, or without), plus
// the richer ones of the reference step tests (arity 2, more choice).
TEST(CompiledStep, RandomProgramsAgreeWithTheInterpreter) {
  Rng rng(20261203);
  GenOptions with_input, plain, rich;
  with_input.min_input = with_input.max_input = 1;
  plain.min_input = plain.max_input = 0;
  for (GenOptions* o : {&with_input, &plain}) {
    o->max_input_arity = 1;
    o->max_state = 2;
    o->max_transport_arity = 1;
    o->min_rules = 3;
    o->max_rules = 6;
  }
  rich.choice_rate = 0.4;
  ProgramGenerator gen_input(rng, with_input), gen_plain(rng, plain), gen_rich(rng, rich);
  const std::vector<std::string> networks{"line:2", "ring:3", "line:3", "star:3", "ring:4"};
  const int kPrograms = std::getenv("DDSMC_COMPILED_PROGRAMS") ? std::atoi(std::getenv("DDSMC_COMPILED_PROGRAMS")) : 45;
  Counts total;
  int loaded = 0, refused = 0, drawn = 0;
  std::map<std::string, int> reasons;
  while (loaded < kPrograms && drawn < 20 * kPrograms) {
    ++drawn;
    const int kind = drawn % 3;
    const std::string text = kind == 0 ? gen_input.generate_explore() : kind == 1 ? gen_plain.generate() : gen_rich.generate();
    model::Overrides ov;
    ov.network_spec = pick(rng, networks);
    ov.state_bound = uni(rng, 1, 2);
    ov.channel_bound = uni(rng, 1, 2);
    if (kind == 0) ov.input_bound = 1;
    auto m = load_text(text, ov);
    if (!m) continue;
    ++loaded;
    Counts c;
    const std::string diff = compare_model(*m, 400, c);
    if (diff.rfind("refused: ", 0) == 0) {
      ++refused;
      ++reasons[diff];
      continue;
    }
    EXPECT_EQ(diff, "") << "network " << *ov.network_spec << ", program:\n" << text;
    total.models += c.models, total.states += c.states, total.steps += c.steps, total.outcomes += c.outcomes;
  }
  for (const auto& [r, n] : reasons) std::cout << "  " << n << "x " << r << "\n";
  std::cout << "random programs compared: " << total.models << " programs (" << drawn << " drawn, " << loaded
            << " loaded, " << refused << " refused), " << total.states << " states, " << total.steps << " steps, "
            << total.outcomes << " outcomes\n";
  EXPECT_EQ(refused, 0);
}

namespace {

// Both evaluators on random inputs of one program; "" when they agree.
std::string compare_random_inputs(Rng& rng, const model::Model& m, uint32_t cases, Counts& counts, uint64_t& multi) {
  const engine::CompiledModel cm = engine::compile(m);
  auto loaded = engine::CompiledStepLibrary::load(cm, cache_options());
  if (!loaded.library) return (loaded.error.rfind("unsupported:", 0) == 0 ? "refused: " : "load failed: ") + loaded.error;
  engine::StepEvaluator interp(cm);
  engine::CompiledStepEvaluator compiled(loaded.library);
  std::vector<engine::StepResult> a, b;
  ++counts.models;
  for (uint32_t c = 0; c < cases; ++c) {
    const RefStepInput ri = random_step_input(rng, m);
    std::vector<Word> db = to_words(ri.db), input = to_words(ri.input), msg = to_words(ri.msg);
    engine::StepInput in{ri.node, &db, ri.msg_src, msg.data(), &input};
    a.clear();
    b.clear();
    interp.evaluate(in, [&](const engine::StepResult& r) { a.push_back(r); });
    compiled.evaluate(in, [&](const engine::StepResult& r) { b.push_back(r); });
    ++counts.steps;
    counts.outcomes += a.size();
    multi += a.size() > 1;
    const std::string problem = outcome_difference(a, b);
    if (!problem.empty())
      return problem + "\n  input: " + step_input_string(m, ri) + "\n  generated: " + loaded.library->source_path();
  }
  return "";
}

}  // namespace

// Random programs (choice-heavy, and the recursive pool of the reference
// step tests) on random step inputs: DBs that no exploration reaches,
// several choice groups at once, closures, negation on them.
TEST(CompiledStep, RandomStepInputsAgreeWithTheInterpreter) {
  Rng rng(4711);
  GenOptions choice_heavy;
  choice_heavy.choice_rate = 0.6;
  choice_heavy.min_rules = 3;
  ProgramGenerator gen(rng, choice_heavy);
  const std::vector<std::string> networks{"line:2", "ring:3", "star:4", "ring:4"};
  const std::vector<std::string> pool{
      "r(X, Y) if prev e(X, Y).",
      "r(X, Z) if r(X, Y), prev e(Y, Z).",
      "r(X, Z) if r(X, Y), r(Y, Z).",
      "r(X, Y) if r(Y, X).",
      "e(X, Y) if prev e(X, Y), not r(Y, X).",
      "e(X, Y) if prev e(X, Y).",
      "u(X) if r(X, _), not r(_, X).",
      "u(X) if neighbor(X), not r(X, X).",
      "c(X) if prev e(X, _), not u(X), choice((), (X)).",
      "c(X) if r(X, Y), X != Y, choice((Y), (X)).",
      "t(X)@N if c(X), neighbor(N).",
      "t(X)@X if u(X).",
      "t(Y)@M if t(Y)@_, my_name(M), not r(Y, Y).",
      "t(X)@N if u(X), neighbor(N), choice((X), (N)).",
      "e(X, Y) if t(X)@Y.",
      "error if r(X, X), not u(X).",
  };
  const int kPrograms = std::getenv("DDSMC_COMPILED_PROGRAMS") ? std::atoi(std::getenv("DDSMC_COMPILED_PROGRAMS")) : 45;
  Counts total;
  uint64_t multi = 0;
  int refused = 0, loaded = 0, drawn = 0;
  std::map<std::string, int> reasons;
  while (loaded < kPrograms && drawn < 20 * kPrograms) {
    ++drawn;
    std::string text;
    if (drawn % 2) {
      text = gen.generate();
    } else {
      text = "state e/2, r/2, u/1, c/1.\ntransport t/1.\n";
      for (const auto& r : pool)
        if (coin(rng, 0.5)) text += r + "\n";
    }
    auto m = load_text(text, network_override(pick(rng, networks)));
    if (!m) continue;
    ++loaded;
    const std::string diff = compare_random_inputs(rng, *m, 300, total, multi);
    if (diff.rfind("refused: ", 0) == 0) {
      ++refused;
      ++reasons[diff];
      continue;
    }
    EXPECT_EQ(diff, "") << "program:\n" << text;
  }
  for (const auto& [r, n] : reasons) std::cout << "  " << n << "x " << r << "\n";
  std::cout << "random step inputs compared: " << total.models << " programs (" << drawn << " drawn, " << loaded
            << " loaded, " << refused << " refused), " << total.steps << " steps, " << total.outcomes << " outcomes, "
            << multi << " steps with several outcomes\n";
  EXPECT_EQ(refused, 0);
  EXPECT_GT(multi, 1000u);
}

// The whole exploration through SuccessorGenerator's compiled path (the
// constructor flag, via D2cSystem): the same graph as the interpreter's,
// field by field, at one and two threads.
TEST(CompiledStep, ExplorationsThroughTheCompiledStepAreIdentical) {
  for (const std::string& path : test::example_files()) {
    auto m = load_file(path);
    if (!m) continue;
    const engine::CompiledModel cm = engine::compile(*m);
    auto loaded = engine::CompiledStepLibrary::load(cm, cache_options());
    ASSERT_TRUE(loaded.library) << path << ": " << loaded.error;
    engine::ExploreOptions eo;
    eo.max_states = 60000;
    eo.threads = 1;
    const engine::ExploreResult interp = engine::explore(engine::D2cSystem(cm, nullptr), eo);
    for (size_t threads : {1, 2}) {
      eo.threads = threads;
      const engine::ExploreResult comp = engine::explore(engine::D2cSystem(cm, loaded.library), eo);
      EXPECT_EQ(test::result_difference(interp, comp), "") << path << ", " << threads << " threads";
    }
  }
}

// `--backend auto`'s switch: an exploration that starts on the interpreter
// and takes the compiled step between two rounds (ExploreOptions::
// generators_changed, at its 1st, 3rd or 10th poll) gives the same graph,
// field by field, as the interpreter's alone, at one and two threads.
TEST(CompiledStep, SwitchingToTheCompiledStepMidExplorationChangesNothing) {
  for (const auto& [name, network] : std::vector<std::pair<std::string, std::string>>{
           {"flooding", "ring:5"}, {"ring_broadcast", "ring:3"}, {"leader_election", "ring:3"}}) {
    model::Diagnostics diag;
    model::Overrides ov;
    ov.network_spec = network;
    auto m = model::load_model(test::source_path("examples/" + name + ".d2c"), ov, diag);
    ASSERT_TRUE(m) << name;
    const engine::CompiledModel cm = engine::compile(*m);
    auto loaded = engine::CompiledStepLibrary::load(cm, cache_options());
    ASSERT_TRUE(loaded.library) << name << ": " << loaded.error;
    engine::ExploreOptions eo;
    eo.max_states = 60000;
    const engine::ExploreResult interp = engine::explore(engine::D2cSystem(cm, nullptr), eo);
    for (size_t threads : {1, 2})
      for (int switch_at : {1, 3, 10}) {
        engine::D2cSystem system(cm, nullptr);
        int polls = 0;
        uint64_t switched_with = 0;
        eo.threads = threads;
        eo.generators_changed = [&](uint64_t states) {
          if (++polls != switch_at) return false;
          system.use_step(loaded.library);
          switched_with = states;
          return true;
        };
        const engine::ExploreResult both = engine::explore(system, eo);
        EXPECT_GE(polls, switch_at) << name;
        EXPECT_GT(switched_with, 0u) << name;
        EXPECT_EQ(test::result_difference(interp, both), "") << name << ", " << threads << " threads, switch "
                                                             << switch_at;
      }
    eo.generators_changed = nullptr;
    eo.threads = 1;
  }
}

// cached_only loads an intact object and never compiles: a miss says so.
TEST(CompiledStep, CachedOnlyNeverCompiles) {
  auto m = load_file(test::source_path("examples/echo.d2c"));
  ASSERT_TRUE(m);
  const engine::CompiledModel cm = engine::compile(*m);
  engine::CompiledStepOptions o;
  o.cache_dir = test::temp_dir() + "/cached-only";
  o.cached_only = true;
  const auto miss = engine::CompiledStepLibrary::load(cm, o);
  EXPECT_FALSE(miss.library);
  EXPECT_TRUE(miss.not_cached);
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(o.cache_dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 0u);  // nothing generated or compiled
  o.cached_only = false;
  const auto built = engine::CompiledStepLibrary::load(cm, o);
  ASSERT_TRUE(built.library) << built.error;
  o.cached_only = true;
  const auto hit = engine::CompiledStepLibrary::load(cm, o);
  ASSERT_TRUE(hit.library) << hit.error;
  EXPECT_TRUE(hit.library->from_cache());
  EXPECT_FALSE(hit.not_cached);
}

// A plan the generator cannot mirror exactly is refused with a reason,
// never translated approximately.
TEST(CompiledStep, RefusesAPlanThatReadsAnUnboundVariable) {
  auto m = load_file(test::source_path("examples/flooding.d2c"));
  ASSERT_TRUE(m);
  engine::CompiledModel cm = engine::compile(*m);
  ASSERT_TRUE(engine::generate_step_source(cm).ok);
  for (auto& r : cm.rules)
    if (r.transport_head) r.head_at = {engine::ArgOp::Kind::Check, r.num_vars++};  // a variable nothing binds
  const auto g = engine::generate_step_source(cm);
  EXPECT_FALSE(g.ok);
  EXPECT_EQ(g.reason.rfind("unsupported: ", 0), 0u) << g.reason;
  const auto loaded = engine::CompiledStepLibrary::load(cm, cache_options());
  EXPECT_FALSE(loaded.library);
  EXPECT_EQ(loaded.error, g.reason);
}

// A compiler error is a ddsmc bug: the message says so and names the file.
TEST(CompiledStep, ACompilerErrorNamesTheGeneratedFile) {
  auto m = load_file(test::source_path("examples/flooding.d2c"));
  ASSERT_TRUE(m);
  const engine::CompiledModel cm = engine::compile(*m);
  engine::CompiledStepOptions o;
  o.cache_dir = test::temp_dir();
  o.compiler = "/bin/false";  // cannot even say its version: no compiler
  const auto none = engine::CompiledStepLibrary::load(cm, o);
  ASSERT_FALSE(none.library);
  EXPECT_TRUE(none.no_compiler);
  EXPECT_EQ(none.error.rfind("no compiler: /bin/false", 0), 0u) << none.error;
  o.compiler = test::failing_compiler();
  const auto loaded = engine::CompiledStepLibrary::load(cm, o);
  EXPECT_FALSE(loaded.no_compiler);
  ASSERT_FALSE(loaded.library);
  EXPECT_NE(loaded.error.find("ddsmc bug"), std::string::npos) << loaded.error;
  EXPECT_NE(loaded.error.find(o.cache_dir + "/step-"), std::string::npos) << loaded.error;
  EXPECT_TRUE(std::filesystem::exists(loaded.error.substr(loaded.error.find(o.cache_dir),
                                                          loaded.error.find(".cpp") + 4 - loaded.error.find(o.cache_dir))))
      << loaded.error;
  // The compiler's own words are kept in the log the message names.
  const size_t log_at = loaded.error.find(o.cache_dir, loaded.error.find("output is in"));
  ASSERT_NE(log_at, std::string::npos) << loaded.error;
  const std::string log = loaded.error.substr(log_at, loaded.error.find(".log", log_at) + 4 - log_at);
  EXPECT_NE(test::read_text(log).find("broken-cc: cannot compile"), std::string::npos) << log;
}

// The cache keeps the 256 most recently used objects: a compile into a
// full cache removes the oldest ones with their sources, never the one a
// cache hit has just refreshed, and leaves the new object loadable.
TEST(CompiledStep, TheCacheKeepsTheMostRecentlyUsedObjects) {
  namespace fs = std::filesystem;
  engine::CompiledStepOptions o;
  o.cache_dir = test::temp_dir() + "/lru-cache";
  auto echo = load_file(test::source_path("examples/echo.d2c"));
  auto flooding = load_file(test::source_path("examples/flooding.d2c"));
  ASSERT_TRUE(echo && flooding);
  const engine::CompiledModel echo_cm = engine::compile(*echo), flooding_cm = engine::compile(*flooding);
  const auto kept = engine::CompiledStepLibrary::load(echo_cm, o);
  ASSERT_TRUE(kept.library) << kept.error;
  const auto old = fs::file_time_type::clock::now() - std::chrono::hours(48);
  for (int i = 0; i < 300; ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "/step-%016x", i);
    for (const char* ext : {".so", ".cpp"}) {
      std::ofstream(o.cache_dir + name + ext) << "stale";
      fs::last_write_time(o.cache_dir + name + ext, old + std::chrono::minutes(i));
    }
  }
  fs::last_write_time(kept.library->object_path(), old);  // older than all of them...
  const auto hit = engine::CompiledStepLibrary::load(echo_cm, o);  // ...until this hit refreshes it
  ASSERT_TRUE(hit.library && hit.library->from_cache()) << hit.error;
  const auto fresh = engine::CompiledStepLibrary::load(flooding_cm, o);  // a compile: evicts
  ASSERT_TRUE(fresh.library && !fresh.library->from_cache()) << fresh.error;
  size_t objects = 0, sources = 0;
  for (const auto& e : fs::directory_iterator(o.cache_dir)) {
    objects += e.path().extension() == ".so";
    sources += e.path().extension() == ".cpp";
  }
  EXPECT_EQ(objects, 256u);
  EXPECT_EQ(sources, 256u);
  EXPECT_TRUE(fs::exists(kept.library->object_path()));
  EXPECT_TRUE(fs::exists(fresh.library->object_path()));
  EXPECT_FALSE(fs::exists(o.cache_dir + "/step-0000000000000000.so"));  // the oldest went
  EXPECT_TRUE(fs::exists(o.cache_dir + "/step-000000000000012b.so"));   // the newest stayed
}

// A long step polls its Cancellation inside the generated code too, and
// Cancelled unwinds through it; the evaluator then still works.
TEST(CompiledStep, ALongStepIsCancelledInsideTheGeneratedCode) {
  const std::string text =
      "state e/2, r/2.\ntransport t/0.\nr(X, Y) if prev e(X, Y).\nr(X, Z) if r(X, Y), r(Y, Z).\ne(X, Y) if r(X, Y).\n";
  auto m = load_text(text, network_override("line:2"));
  ASSERT_TRUE(m);
  const engine::CompiledModel cm = engine::compile(*m);
  auto loaded = engine::CompiledStepLibrary::load(cm, cache_options());
  ASSERT_TRUE(loaded.library) << loaded.error;
  engine::CompiledStepEvaluator compiled(loaded.library);
  engine::StepEvaluator interp(cm);
  // A chain of 60 fresh constants: its closure has 60 * 59 / 2 = 1,770 facts.
  std::vector<Word> db;
  const auto e = *m->find_pred("e");
  const Word base = static_cast<Word>(m->constants.size());
  for (Word k = 0; k + 1 < 60; ++k) db.insert(db.end(), {e, base + k, base + k + 1});
  hashing::normalize_db(db, cm.layout);
  const std::vector<Word> input, msg{model::kStart};
  engine::StepInput in{0, &db, 0, msg.data(), &input};
  std::atomic<unsigned> requests{engine::Cancellation::kInterrupt};
  engine::Cancellation stop(requests);
  compiled.set_cancellation(&stop);
  EXPECT_THROW(compiled.evaluate(in, [](const engine::StepResult&) {}), engine::Cancelled);
  compiled.set_cancellation(&engine::Cancellation::none());
  std::vector<engine::StepResult> a, b;
  interp.evaluate(in, [&](const engine::StepResult& r) { a.push_back(r); });
  compiled.evaluate(in, [&](const engine::StepResult& r) { b.push_back(r); });
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(a[0].db, b[0].db);
  EXPECT_EQ(a[0].db.size(), 2u * 3u * 1770u);
}
