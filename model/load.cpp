#include "model/load.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/parser.hpp"

namespace ddsmc::model {
namespace {

// Reads a whole file, or reports why it cannot be a model file.
std::optional<std::string> read_model_file(const std::string& path, Diagnostics& diag) {
  namespace fs = std::filesystem;
  std::error_code ec;
  auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    diag.error({}, "cannot open model file: no such file");
    return std::nullopt;
  }
  if (fs::is_directory(status)) {
    diag.error({}, "cannot read model file: it is a directory");
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diag.error({}, fmt::format("cannot open model file: {}", std::strerror(errno)));
    return std::nullopt;
  }
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxModelFileBytes) {
      diag.error({}, fmt::format("model file is larger than the limit of {} MiB", kMaxModelFileBytes >> 20));
      return std::nullopt;
    }
  }
  if (in.bad()) {
    diag.error({}, "error while reading the model file");
    return std::nullopt;
  }
  return text;
}

}  // namespace

std::optional<Program> parse_file(const std::string& path, Diagnostics& diag) {
  diag.set_file(path);
  auto text = read_model_file(path, diag);
  if (!text) return std::nullopt;
  Program prog = parse_program(*text, diag);
  prog.file = path;
  if (diag.has_errors()) return std::nullopt;
  return prog;
}

std::optional<Model> load_model(const std::string& path, const Overrides& overrides, Diagnostics& diag,
                                std::string* source) {
  diag.set_file(path);
  auto text = read_model_file(path, diag);
  if (!text) return std::nullopt;
  auto m = load_model_text(*text, path, overrides, diag);
  if (m && source) *source = std::move(*text);
  return m;
}

std::optional<Model> load_model_text(const std::string& text, const std::string& file, const Overrides& overrides,
                                     Diagnostics& diag) {
  diag.set_file(file);
  Program prog = parse_program(text, diag);
  prog.file = file;
  if (diag.has_errors()) return std::nullopt;
  return resolve(prog, overrides, diag);
}

}  // namespace ddsmc::model
