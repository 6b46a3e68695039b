// Reading a model file end to end: read, lex, parse, resolve.
#pragma once

#include <optional>
#include <string>

#include "model/diagnostics.hpp"
#include "model/model.hpp"
#include "model/resolve.hpp"

namespace ddsmc::model {

// Reads the file (errors for a missing file, a directory, unreadable or
// oversized input) and parses it. nullopt when any error was reported.
std::optional<Program> parse_file(const std::string& path, Diagnostics& diag);
// `source`, when given, gets the model file's bytes exactly as they were
// read and parsed: what identifies the model (app/check_identity.hpp),
// since reading the path again may give other bytes (a pipe, /dev/stdin,
// <(...), a file changed meanwhile).
std::optional<Model> load_model(const std::string& path, const Overrides& overrides, Diagnostics& diag,
                                std::string* source = nullptr);
// The same from text already in memory (tests, fuzzing).
std::optional<Model> load_model_text(const std::string& text, const std::string& file, const Overrides& overrides,
                                     Diagnostics& diag);

inline constexpr size_t kMaxModelFileBytes = 64u << 20;

}  // namespace ddsmc::model
