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

// Splits `src` into tokens, reporting lexical errors to `diag` (each bad
// character once; lexing goes on after it). The last token is End.
std::vector<Token> lex(std::string_view src, Diagnostics& diag);

bool is_reserved_word(std::string_view word);
const char* token_name(Tok t);

}  // namespace ddsmc::model
