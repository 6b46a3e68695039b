// Tokens of the D2C language (docs/reference.md §1). Names, variables
// and constants follow the shared rules of model/lexical; this adds
// whitespace, comments and punctuation.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/ast.hpp"
#include "model/diagnostics.hpp"
#include "model/lexical.hpp"

namespace ddsmc::model {

// Produces the tokens of `src` one at a time, reporting lexical errors to
// `diag` (phase Lex; each bad character once; lexing stops when the phase has
// reported as many errors as Diagnostics shows).
// The parser pulls tokens from it, so a big file is never held as a token
// vector (a token costs ~48 bytes, so 60 MB of "a," would need 3 GB).
// After the last token, next() returns End forever.
class Lexer {
 public:
  Lexer(std::string_view src, Diagnostics& diag) : scan_(src), diag_(diag) {}
  Token next();

 private:
  void skip_space_and_comments();
  Token token();

  Scanner scan_;
  Diagnostics& diag_;
  bool done_ = false;
  Loc end_loc_;
};

// All the tokens of `src` (the last one is End); errors go to `diag`.
std::vector<Token> lex(std::string_view src, Diagnostics& diag);

const char* token_name(Tok t);

}  // namespace ddsmc::model
