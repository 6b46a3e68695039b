// Tokens of the D2C language (SPEC section 1, "Lexical").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/ast.hpp"
#include "model/diagnostics.hpp"

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

// Produces the tokens of `src` one at a time, reporting lexical errors to
// `diag` (each bad character once; lexing goes on after it, up to a limit).
// The parser pulls tokens from it, so a big file is never held as a token
// vector (a token costs ~48 bytes, so 60 MB of "a," would need 3 GB).
// After the last token, next() returns End forever.
class Lexer {
 public:
  Lexer(std::string_view src, Diagnostics& diag) : src_(src), diag_(diag) {}
  Token next();

 private:
  Loc here() const { return Loc{line_, col_}; }
  char peek(size_t ahead = 0) const { return pos_ + ahead < src_.size() ? src_[pos_ + ahead] : '\0'; }
  void advance();
  void error(Loc loc, std::string msg);
  void skip_space_and_comments();
  std::string word(Loc start);
  Token token();
  Token integer(Loc start);
  Token string_literal(Loc start);

  std::string_view src_;
  Diagnostics& diag_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  uint32_t col_ = 1;
  size_t errors_ = 0;
  bool done_ = false;
  Loc end_loc_;
};

// All the tokens of `src` (the last one is End); errors go to `diag`.
std::vector<Token> lex(std::string_view src, Diagnostics& diag);

bool is_reserved_word(std::string_view word);
const char* token_name(Tok t);

}  // namespace ddsmc::model
