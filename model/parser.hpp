// Recursive-descent parser for .d2c files. It never recurses on input depth
// (the grammar is flat), pulls tokens from the lexer as it goes (memory is
// the syntax tree, not a token array), recovers after an error at the next
// `.`, past a `{ ... }` block, or before a declaration or block keyword that
// starts a line, and reports every syntax error it finds (up to a limit).
#pragma once

#include <string>
#include <string_view>

#include "model/ast.hpp"
#include "model/diagnostics.hpp"

namespace ddsmc::model {

// Parses `src`; errors go to `diag`. The program is complete only when
// `diag` has no errors.
Program parse_program(std::string_view src, Diagnostics& diag);

}  // namespace ddsmc::model
