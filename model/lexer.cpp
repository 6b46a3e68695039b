#include "model/lexer.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>

namespace ddsmc::model {
namespace {

constexpr std::array<std::string_view, 11> kReserved = {"if",        "not",  "prev", "choice",  "input", "state",
                                                        "transport", "init", "at",   "network", "bounds"};
constexpr size_t kMaxLexErrors = 100;

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string printable(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string(1, c);
  return fmt::format("\\x{:02x}", u);
}

}  // namespace

Token Lexer::next() {
  if (done_) return Token{Tok::End, "", end_loc_};
  skip_space_and_comments();
  if (pos_ < src_.size() && errors_ >= kMaxLexErrors)
    diag_.error(here(), "too many lexical errors; giving up (is this a .d2c file?)");
  if (pos_ >= src_.size() || errors_ >= kMaxLexErrors) {
    done_ = true;
    end_loc_ = here();
    return Token{Tok::End, "", end_loc_};
  }
  return token();
}

void Lexer::advance() {
  if (src_[pos_] == '\n') {
    ++line_;
    col_ = 1;
  } else {
    ++col_;
  }
  ++pos_;
}

void Lexer::error(Loc loc, std::string msg) {
  ++errors_;
  diag_.error(loc, std::move(msg));
}

void Lexer::skip_space_and_comments() {
  while (pos_ < src_.size()) {
    char c = peek();
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') {
      advance();
    } else if (c == '%' || (c == '/' && peek(1) == '/')) {
      while (pos_ < src_.size() && peek() != '\n') advance();
    } else {
      break;
    }
  }
}

// A word of [A-Za-z0-9_]; returns its text and checks the length limit.
std::string Lexer::word(Loc start) {
  size_t begin = pos_;
  while (pos_ < src_.size() && is_ident_char(peek())) advance();
  std::string text(src_.substr(begin, pos_ - begin));
  if (text.size() > kMaxNameLength) {
    error(start, fmt::format("name of {} characters is longer than the limit of {}", text.size(), kMaxNameLength));
    text.resize(16);
    text += "...";
  }
  return text;
}

Token Lexer::token() {
  Loc start = here();
  char c = peek();
  auto simple = [&](Tok kind, size_t len) {
    Token t{kind, std::string(src_.substr(pos_, len)), start};
    for (size_t i = 0; i < len; ++i) advance();
    return t;
  };
  if (std::islower(static_cast<unsigned char>(c))) {
    size_t before = errors_;
    std::string text = word(start);
    if (errors_ != before) return Token{Tok::Bad, text, start};
    if (text == "if") return Token{Tok::If, text, start};
    if (is_reserved_word(text)) return Token{Tok::Keyword, text, start};
    return Token{Tok::Ident, text, start};
  }
  if (std::isupper(static_cast<unsigned char>(c))) {
    size_t before = errors_;
    std::string text = word(start);
    return Token{errors_ != before ? Tok::Bad : Tok::Var, text, start};
  }
  if (c == '_') {
    if (is_ident_char(peek(1))) {
      std::string text = word(start);
      error(start, fmt::format("'{}': a name cannot start with '_' (variables start with a capital letter; "
                               "'_' alone is the anonymous variable)",
                               text));
      return Token{Tok::Bad, text, start};
    }
    return simple(Tok::Anon, 1);
  }
  if (std::isdigit(static_cast<unsigned char>(c))) return integer(start);
  if (c == '"') return string_literal(start);
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
      if (peek(1) == '=') return simple(Tok::Neq, 2);
      break;
    case ':':
      if (peek(1) == '-') return simple(Tok::If, 2);
      break;
    default: break;
  }
  error(start, fmt::format("unexpected character '{}'", printable(c)));
  advance();
  return Token{Tok::Bad, printable(c), start};
}

Token Lexer::integer(Loc start) {
  size_t begin = pos_;
  while (pos_ < src_.size() && std::isdigit(static_cast<unsigned char>(peek()))) advance();
  std::string_view digits = src_.substr(begin, pos_ - begin);
  if (digits.size() > kMaxNameLength) {
    error(start, fmt::format("integer of {} digits is longer than the limit of {}", digits.size(), kMaxNameLength));
    return Token{Tok::Bad, "0", start};
  }
  size_t nz = digits.find_first_not_of('0');
  std::string canon = nz == std::string_view::npos ? "0" : std::string(digits.substr(nz));
  return Token{Tok::Int, canon, start};
}

// The canonical spelling of a string is its source text: quotes included,
// escapes (\" \\ \n \t) as written. Raw control characters (tab
// included) are rejected: they would be invisible in the file and would
// reach the terminal unescaped whenever a message or a trace names the
// constant. A string with any error comes back as a Bad token.
Token Lexer::string_literal(Loc start) {
  size_t begin = pos_;
  size_t errors_before = errors_;
  // One error per string: a long string of bad bytes must not flood the output.
  auto string_error = [&](Loc loc, std::string msg) {
    if (errors_ == errors_before) error(loc, std::move(msg));
  };
  advance();  // opening quote
  while (true) {
    if (pos_ >= src_.size() || peek() == '\n') {
      error(start, "unterminated string (a string must close with '\"' on the same line)");
      return Token{Tok::Bad, "\"", start};
    }
    char c = peek();
    if (c == '"') {
      advance();
      break;
    }
    if (auto u = static_cast<unsigned char>(c); u < 0x20 || u == 0x7f) {
      string_error(here(), fmt::format("control character '{}' in a string (write \\t for a tab, \\n for a "
                                       "newline)",
                                       printable(c)));
      advance();
      continue;
    }
    if (c == '\\') {
      Loc esc = here();
      advance();
      char e = peek();
      if (e != '"' && e != '\\' && e != 'n' && e != 't') {
        string_error(esc, fmt::format("unknown escape '\\{}' in string (use \\\" \\\\ \\n or \\t)",
                                      pos_ < src_.size() ? printable(e) : std::string()));
        if (pos_ >= src_.size() || e == '\n') continue;
      }
      advance();
      continue;
    }
    advance();
  }
  if (errors_ != errors_before) return Token{Tok::Bad, "\"\"", start};
  std::string text(src_.substr(begin, pos_ - begin));
  if (text.size() > kMaxNameLength + 2) {
    error(start, fmt::format("string of {} characters is longer than the limit of {}", text.size() - 2,
                             kMaxNameLength));
    return Token{Tok::Bad, "\"\"", start};
  }
  return Token{Tok::String, text, start};
}

bool is_reserved_word(std::string_view word) {
  for (auto w : kReserved)
    if (w == word) return true;
  return false;
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
