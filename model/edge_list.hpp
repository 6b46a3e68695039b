// Edge-list network files (docs/reference.md §2.5): `a b` per line is an edge, `a`
// alone a node, `#` outside a string starts a comment. Node names follow the
// lexical rules of constants (model/lexical): identifiers, integers in
// canonical form (`007` is the node `7`) and double-quoted strings, exactly as
// in a `network { }` block. Lines end at LF, CR or CRLF.
#pragma once

#include <optional>
#include <string>

#include "model/network.hpp"

namespace ddsmc::model {

// Errors are "FILE:LINE:COL: message" (or "FILE: message" for the graph as a
// whole). These may throw std::bad_alloc; the public entry points in
// model/network.hpp turn that into an error.
std::optional<Network> read_edge_list(const std::string& text, const std::string& file, std::string* error);
std::optional<Network> read_edge_list_file(const std::string& path, std::string* error);

// Edge-list files are read whole; this keeps /dev/zero or a stray huge file
// from exhausting memory.
inline constexpr uint64_t kMaxEdgeListBytes = 256u << 20;

}  // namespace ddsmc::model
