#include "model/edge_list.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unordered_map>
#include <vector>

#include "model/lexical.hpp"

namespace ddsmc::model {
namespace {

constexpr std::string_view kNameRule =
    "a node name is an identifier [a-z][A-Za-z0-9_]*, an integer or a double-quoted string";

struct NodeName {
  std::string name;  // canonical spelling
  Loc loc;
};

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }

class EdgeListReader {
 public:
  EdgeListReader(const std::string& text, const std::string& file, std::string* error)
      : scan_(text), file_(file), error_(error) {}

  std::optional<Network> run() {
    std::vector<NodeName> line;
    while (!scan_.at_end()) {
      line.clear();
      if (!read_line(line)) return std::nullopt;
      if (line.size() > 2) {
        report(line[2].loc, fmt::format("expected 'a b' (an edge) or 'a' (a node), found {} names", line.size()));
        return std::nullopt;
      }
      if (line.size() == 1) node(line[0].name);
      if (line.size() == 2 && !edge(line[0], line[1])) return std::nullopt;
      scan_.skip_line_end();
    }
    std::string build_error;
    auto net = Network::build(std::move(names_), edges_, &build_error);
    if (!net) {
      *error_ = file_ + ": " + build_error;
      return std::nullopt;
    }
    net->set_description(file_);
    return net;
  }

 private:
  // Sets the error; returns false, for `return report(...)` in the readers.
  bool report(Loc loc, const std::string& message) {
    *error_ = fmt::format("{}:{}:{}: {}", file_, loc.line, loc.col, message);
    return false;
  }

  // The names of one line, up to (not past) its line end; false on an error.
  bool read_line(std::vector<NodeName>& names) {
    while (!scan_.at_end() && !scan_.at_line_end()) {
      const char c = scan_.peek();
      if (is_blank(c)) {
        scan_.advance();
      } else if (c == '#') {
        scan_.skip_to_line_end();
      } else if (!starts_name(c)) {
        size_t length = 0;
        return report(scan_.here(), fmt::format("unexpected character {} ({}; '#' starts a comment)",
                                            describe_char(scan_, &length), kNameRule));
      } else {
        auto name = read_name();
        if (!name) return false;
        names.push_back(std::move(*name));
      }
    }
    return true;
  }

  std::optional<NodeName> read_name() {
    LexError lex_error;
    Token t = lex_name(scan_, &lex_error);
    if (t.kind == Tok::Bad) return fail_name(lex_error.loc, lex_error.message);
    if (t.kind == Tok::Keyword || t.kind == Tok::If)
      return fail_name(t.loc, fmt::format("'{}' is a reserved word and cannot name a node (the string \"{}\" can)",
                                          t.text, t.text));
    if (t.kind != Tok::Ident && t.kind != Tok::Int && t.kind != Tok::String)
      return fail_name(t.loc, fmt::format("'{}' is not a node name: {}", t.text, kNameRule));
    // `x,y` or `1a` must not pass for two names (or a name and garbage).
    if (!scan_.at_end() && !scan_.at_line_end() && !is_blank(scan_.peek()) && scan_.peek() != '#') {
      size_t length = 0;
      return fail_name(scan_.here(), fmt::format("unexpected character {} after the node name '{}' (names are "
                                                 "separated by spaces; {})",
                                                 describe_char(scan_, &length), t.text, kNameRule));
    }
    return NodeName{std::move(t.text), t.loc};
  }

  std::optional<NodeName> fail_name(Loc loc, const std::string& message) {
    report(loc, message);
    return std::nullopt;
  }

  NodeId node(const std::string& name) {
    auto [it, fresh] = ids_.try_emplace(name, static_cast<NodeId>(names_.size()));
    if (fresh) names_.push_back(name);
    return it->second;
  }

  bool edge(const NodeName& a, const NodeName& b) {
    if (a.name == b.name) {
      return report(a.loc, fmt::format("self-edge '{} {}' (every node already has a self-loop; list it alone to "
                                       "declare a node)",
                                       a.name, b.name));
    }
    const NodeId x = node(a.name), y = node(b.name);
    auto [it, fresh] = edge_line_.try_emplace(undirected_edge_key(x, y), a.loc.line);
    if (!fresh) {
      return report(a.loc, fmt::format("edge '{} {}' is listed twice (first at line {})", a.name, b.name, it->second));
    }
    edges_.emplace_back(x, y);
    return true;
  }

  Scanner scan_;
  const std::string& file_;
  std::string* error_;
  std::vector<std::string> names_;  // in order of first appearance
  std::unordered_map<std::string, NodeId> ids_;
  std::vector<std::pair<NodeId, NodeId>> edges_;
  std::unordered_map<uint64_t, uint32_t> edge_line_;  // edge -> line of its first listing
};

}  // namespace

std::optional<Network> read_edge_list(const std::string& text, const std::string& file, std::string* error) {
  return EdgeListReader(text, file, error).run();
}

std::optional<Network> read_edge_list_file(const std::string& path, std::string* error) {
  namespace fs = std::filesystem;
  auto fail = [&](const std::string& message) -> std::optional<Network> {
    *error = path + ": " + message;
    return std::nullopt;
  };
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found) return fail("no such file");
  if (status.type() == fs::file_type::directory) return fail("is a directory, not an edge-list file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(std::string("cannot open: ") + std::strerror(errno));
  std::string text;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxEdgeListBytes)
      return fail("larger than the limit of " + std::to_string(kMaxEdgeListBytes >> 20) + " MiB");
  }
  if (in.bad()) return fail("read error");
  return read_edge_list(text, path, error);
}

}  // namespace ddsmc::model
