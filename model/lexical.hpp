// The lexical rules of docs/reference.md §1 that more than one reader applies:
// lines and columns (Scanner), and names, variables and constants
// (lex_name). The .d2c lexer (model/lexer) and the edge-list reader
// (model/edge_list) both call these, so a node name is the same constant in
// an edge-list file as in a `network { }` block.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/ast.hpp"

namespace ddsmc::model {

enum class Tok : uint8_t {
  End,
  Ident,     // [a-z][A-Za-z0-9_]*, not a reserved word
  Var,       // [A-Z][A-Za-z0-9_]*
  Anon,      // _
  Int,       // [0-9]+ ; text holds the canonical spelling (no leading zeros)
  String,    // "..." ; text holds the canonical spelling, quotes included
  Keyword,   // reserved word; text holds it
  Dot, Comma, LParen, RParen, LBrace, RBrace, At, Eq, Neq, Minus, Slash, If,  // If is `if` or `:-`
  Bad,       // a lexical error already reported
};

struct Token {
  Tok kind = Tok::End;
  std::string text;
  Loc loc;
};

// A position in a text with its line and column. LF, CR and CRLF each end a
// line (CRLF is one line end); columns count bytes from 1. A UTF-8 byte
// order mark at the very start is skipped.
class Scanner {
 public:
  explicit Scanner(std::string_view src);
  bool at_end() const { return pos_ >= src_.size(); }
  char peek(size_t ahead = 0) const { return pos_ + ahead < src_.size() ? src_[pos_ + ahead] : '\0'; }
  bool at_line_end() const { return !at_end() && (src_[pos_] == '\n' || src_[pos_] == '\r'); }
  Loc here() const { return Loc{line_, col_}; }
  size_t pos() const { return pos_; }
  std::string_view since(size_t begin) const { return src_.substr(begin, pos_ - begin); }
  std::string_view rest() const { return src_.substr(pos_); }
  // Moves past one byte (past a whole CRLF when at its CR).
  void advance();
  void advance(size_t bytes) {
    for (size_t i = 0; i < bytes && !at_end(); ++i) advance();
  }
  // Moves to the end of the line (before its line end) or of the text.
  void skip_to_line_end();
  // Moves past the line end (LF, CR or CRLF) at the scanner, if any.
  void skip_line_end();

 private:
  std::string_view src_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  uint32_t col_ = 1;
};

struct LexError {
  Loc loc;
  std::string message;
};

// Whether a name, variable, `_` or constant starts with this character.
bool starts_name(char c);

// The name, variable, `_`, integer or string at `s` (starts_name(s.peek())
// must hold): Ident, Keyword, If, Var, Anon, Int or String with its canonical
// spelling. A lexical error (a name over kMaxNameLength, `_x`, a bad string)
// gives a Bad token and *error; the scanner is then past the bad token.
Token lex_name(Scanner& s, LexError* error);

// The character at `s` for a message ('x', '\x07', 'é' (U+00E9), or a byte
// that is not UTF-8) and its length in bytes (at least 1 unless at the end).
std::string describe_char(const Scanner& s, size_t* length);

// Length of the valid UTF-8 encoding of one character at the start of
// `bytes`, or 0 when it does not start with one (invalid or truncated bytes,
// overlong forms, surrogates, code points above U+10FFFF).
size_t utf8_char_length(std::string_view bytes);
bool is_valid_utf8(std::string_view text);

bool is_reserved_word(std::string_view word);

}  // namespace ddsmc::model
