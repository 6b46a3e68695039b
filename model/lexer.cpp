#include "model/lexer.hpp"

#include <fmt/format.h>

namespace ddsmc::model {

Token Lexer::next() {
  if (done_) return Token{Tok::End, "", end_loc_};
  skip_space_and_comments();
  const bool full = diag_.phase_full(Phase::Lex);
  if (!scan_.at_end() && full)
    diag_.stop(Phase::Lex, scan_.here(), "too many lexical errors; giving up (is this a .d2c file?)");
  if (scan_.at_end() || full) {
    done_ = true;
    end_loc_ = scan_.here();
    return Token{Tok::End, "", end_loc_};
  }
  return token();
}

void Lexer::skip_space_and_comments() {
  while (!scan_.at_end()) {
    char c = scan_.peek();
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') {
      scan_.advance();
    } else if (c == '%' || (c == '/' && scan_.peek(1) == '/')) {
      scan_.skip_to_line_end();  // a comment ends at LF, CR or CRLF
    } else {
      break;
    }
  }
}

Token Lexer::token() {
  Loc start = scan_.here();
  char c = scan_.peek();
  if (starts_name(c)) {
    LexError error;
    Token t = lex_name(scan_, &error);
    if (t.kind == Tok::Bad) diag_.error(Phase::Lex, error.loc, std::move(error.message));
    return t;
  }
  auto simple = [&](Tok kind, size_t len) {
    Token t{kind, std::string(scan_.rest().substr(0, len)), start};
    scan_.advance(len);
    return t;
  };
  switch (c) {
    case '.': return simple(Tok::Dot, 1);
    case ',': return simple(Tok::Comma, 1);
    case '(': return simple(Tok::LParen, 1);
    case ')': return simple(Tok::RParen, 1);
    case '{': return simple(Tok::LBrace, 1);
    case '}': return simple(Tok::RBrace, 1);
    case '@': return simple(Tok::At, 1);
    case '=': return simple(Tok::Eq, 1);
    case '-': return simple(Tok::Minus, 1);
    case '/': return simple(Tok::Slash, 1);
    case '!':
      if (scan_.peek(1) == '=') return simple(Tok::Neq, 2);
      break;
    case ':':
      if (scan_.peek(1) == '-') return simple(Tok::If, 2);
      break;
    default: break;
  }
  size_t length = 0;
  std::string what = describe_char(scan_, &length);
  diag_.error(Phase::Lex, start, fmt::format("unexpected character {}", what));
  scan_.advance(length);
  return Token{Tok::Bad, what, start};
}

const char* token_name(Tok t) {
  switch (t) {
    case Tok::End: return "end of file";
    case Tok::Ident: return "a name";
    case Tok::Var: return "a variable";
    case Tok::Anon: return "'_'";
    case Tok::Int: return "an integer";
    case Tok::String: return "a string";
    case Tok::Keyword: return "a reserved word";
    case Tok::Dot: return "'.'";
    case Tok::Comma: return "','";
    case Tok::LParen: return "'('";
    case Tok::RParen: return "')'";
    case Tok::LBrace: return "'{'";
    case Tok::RBrace: return "'}'";
    case Tok::At: return "'@'";
    case Tok::Eq: return "'='";
    case Tok::Neq: return "'!='";
    case Tok::Minus: return "'-'";
    case Tok::Slash: return "'/'";
    case Tok::If: return "'if'";
    case Tok::Bad: return "an invalid token";
  }
  return "?";
}

std::vector<Token> lex(std::string_view src, Diagnostics& diag) {
  Lexer lexer(src, diag);
  std::vector<Token> out;
  do {
    out.push_back(lexer.next());
  } while (out.back().kind != Tok::End);
  return out;
}

}  // namespace ddsmc::model
