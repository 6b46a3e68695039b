// Recursive-descent parser for .d2c files. It never recurses on input depth
// (the grammar is flat), recovers at the next `.` or `}` after an error, and
// reports every syntax error it finds.
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
