#include "app/trace_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "app/report.hpp"

namespace ddsmc::app {
namespace {

// The trace file as JSON, or nullopt after printing why it cannot be read.
std::optional<nlohmann::json> read_trace_file(const std::string& path) {
  auto fail = [&](const std::string& why) {
    std::fprintf(stderr, "%s: error: %s\n", path.c_str(), why.c_str());
    return std::nullopt;
  };
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!f) return fail(fmt::format("cannot open the trace file: {}", std::strerror(errno)));
  // A directory opens, and fails on the first read (EISDIR).
  int first = std::fgetc(f.get());
  if (first == EOF)
    return fail(std::ferror(f.get()) ? fmt::format("cannot read the trace file: {}", std::strerror(errno))
                                     : "the trace file is empty");
  std::ungetc(first, f.get());
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(f.get());
  } catch (const nlohmann::json::parse_error& e) {
    if (std::ferror(f.get())) return fail(fmt::format("cannot read the trace file: {}", std::strerror(errno)));
    std::string what = e.what();  // "[json.exception.parse_error.101] parse error at line 2, column 1: ..."
    return fail("not valid JSON: " + what.substr(what.find(']') + 2));
  }
  return doc;
}

// Where the file's run came from, unless the command line says otherwise:
// the --network and bound options that `check` and `simulate` record.
model::Overrides recorded_overrides(const ModelOptions& opts, const nlohmann::json& doc) {
  model::Overrides overrides = opts.overrides;
  if (!doc.is_object()) return overrides;
  if (!overrides.network_spec && doc.contains("network_spec") && doc["network_spec"].is_string())
    overrides.network_spec = doc["network_spec"].get<std::string>();
  auto bound = [&](std::optional<uint32_t>& value, const char* key) {
    if (!value && doc.contains(key) && doc[key].is_number_unsigned() && doc[key].get<uint64_t>() <= UINT32_MAX)
      value = doc[key].get<uint32_t>();
  };
  bound(overrides.input_bound, "input_bound");
  bound(overrides.state_bound, "state_bound");
  bound(overrides.channel_bound, "channel_bound");
  return overrides;
}

}  // namespace

bool replay_trace(const engine::CompiledModel& cm, const ParsedTrace& t, std::FILE* to, engine::ConcreteRun* run) {
  engine::ReplayResult r = engine::replay(cm, t.steps, t.loop_start, t.initial ? &*t.initial : nullptr, t.claim, run);
  using F = engine::ReplayResult::Failure;
  std::string replays = fmt::format("{} steps replay", t.steps.size());
  if (t.loop_start && r.failure != F::Loop) replays += fmt::format(", and the loop closes at step {}", *t.loop_start);
  switch (r.failure) {
    case F::None:
      std::fprintf(to, "%s: %s%s\n", t.label.c_str(), replays.c_str(), r.claim.empty() ? "" : ("; " + r.claim).c_str());
      return true;
    case F::Initial: std::fprintf(to, "%s: %s\n", t.label.c_str(), r.problem.c_str()); break;
    case F::Step: std::fprintf(to, "%s: step %zu is wrong: %s\n", t.label.c_str(), r.steps_ok, r.problem.c_str()); break;
    case F::Loop: std::fprintf(to, "%s: %s, but %s\n", t.label.c_str(), replays.c_str(), r.problem.c_str()); break;
    case F::Claim:
      std::fprintf(to, "%s: %s, but the claim fails: %s\n", t.label.c_str(), replays.c_str(), r.problem.c_str());
      break;
  }
  if (r.computed) {
    std::string effect;
    for (const auto& f : facts_text(cm, r.computed->added)) effect += " +" + f;
    for (const auto& f : facts_text(cm, r.computed->removed)) effect += " -" + f;
    if (effect.empty()) effect = " no DB change";
    for (size_t k = 0; k < r.computed->sent.size(); k += 1 + cm.layout.fact_words(r.computed->sent[k + 1]))
      effect += fmt::format(" sends {}@{}", fact_text(cm, &r.computed->sent[k + 1]),
                            cm.model->network.name(r.computed->sent[k]));
    for (size_t k = 0; k < r.computed->dropped.size(); k += 1 + cm.layout.fact_words(r.computed->dropped[k + 1]))
      effect += fmt::format(" drops {}@{}", fact_text(cm, &r.computed->dropped[k + 1]),
                            constant_name(cm, r.computed->dropped[k]));
    std::fprintf(to, "  the program computes (one outcome):%s\n", effect.c_str());
  }
  return false;
}


int load_trace_file(const ModelOptions& opts, const std::string& path, TraceFile& out) {
  auto doc = read_trace_file(path);
  if (!doc) return kExitUsage;
  out.doc = std::move(*doc);
  model::Diagnostics diag(opts.path);
  auto m = model::load_model(opts.path, recorded_overrides(opts, out.doc), diag);
  std::fputs(diag.format_all().c_str(), stderr);
  if (!m) return kExitUsage;
  out.model = std::make_unique<model::Model>(std::move(*m));
  out.cm.emplace(engine::compile(*out.model));
  std::string error;
  if (!parse_traces(*out.cm, out.doc, out.traces, error)) {
    std::fprintf(stderr, "%s: error: %s\n", path.c_str(), error.c_str());
    return kExitUsage;
  }
  if (out.traces.empty()) {
    std::fprintf(stderr, "%s: error: the file holds no trace\n", path.c_str());
    return kExitUsage;
  }
  return 0;
}

}  // namespace ddsmc::app
