#include "model/lexical.hpp"

#include <fmt/format.h>

#include <array>
#include <boost/locale/utf.hpp>

namespace ddsmc::model {
namespace {

constexpr std::array<std::string_view, 11> kReserved = {"if",        "not",  "prev", "choice",  "input", "state",
                                                        "transport", "init", "at",   "network", "bounds"};

// ASCII only, whatever the C locale says.
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_char(char c) { return is_lower(c) || is_upper(c) || is_digit(c) || c == '_'; }

std::string escaped_byte(char c) { return fmt::format("\\x{:02x}", static_cast<unsigned char>(c)); }

// A byte for a message: printable ASCII as itself, anything else escaped.
std::string printable(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string(1, c);
  return escaped_byte(c);
}

// The bytes of a malformed UTF-8 sequence, escaped: the first byte and the
// continuation bytes (0x80-0xbf) after it, at most four in all.
std::string bad_utf8_bytes(std::string_view bytes) {
  std::string out = escaped_byte(bytes[0]);
  for (size_t i = 1; i < bytes.size() && i < 4 && (static_cast<unsigned char>(bytes[i]) & 0xc0) == 0x80; ++i)
    out += escaped_byte(bytes[i]);
  return out;
}

// A word of [A-Za-z0-9_] at s; *error when it is longer than kMaxNameLength.
std::string word(Scanner& s, Loc start, LexError* error) {
  size_t begin = s.pos();
  while (!s.at_end() && is_ident_char(s.peek())) s.advance();
  std::string text(s.since(begin));
  if (text.size() > kMaxNameLength) {
    *error = {start, fmt::format("name of {} characters is longer than the limit of {}", text.size(), kMaxNameLength)};
    text.resize(16);
    text += "...";
  }
  return text;
}

Token integer(Scanner& s, Loc start, LexError* error) {
  size_t begin = s.pos();
  while (!s.at_end() && is_digit(s.peek())) s.advance();
  std::string_view digits = s.since(begin);
  if (digits.size() > kMaxNameLength) {
    *error = {start, fmt::format("integer of {} digits is longer than the limit of {}", digits.size(), kMaxNameLength)};
    return Token{Tok::Bad, "0", start};
  }
  size_t nz = digits.find_first_not_of('0');
  std::string canon = nz == std::string_view::npos ? "0" : std::string(digits.substr(nz));
  return Token{Tok::Int, canon, start};
}

// The canonical spelling of a string is its source text: quotes included,
// escapes (\" \\ \n \t) as written. Raw control characters (tab included)
// are rejected: they would be invisible in the file and would reach the
// terminal unescaped whenever a message or a trace names the constant. So is
// text that is not UTF-8: it could not be written to a JSON report or trace.
// Only the first error of a string is reported (a long string of bad bytes
// must not flood the output); the scanner goes on to the closing quote.
Token string_literal(Scanner& s, Loc start, LexError* error) {
  size_t begin = s.pos();
  bool bad = false;
  auto string_error = [&](Loc loc, std::string msg) {
    if (!bad) *error = {loc, std::move(msg)};
    bad = true;
  };
  s.advance();  // opening quote
  while (true) {
    if (s.at_end() || s.at_line_end()) {
      *error = {start, "unterminated string (a string must close with '\"' on the same line)"};
      return Token{Tok::Bad, "\"", start};
    }
    char c = s.peek();
    auto u = static_cast<unsigned char>(c);
    if (c == '"') {
      s.advance();
      break;
    }
    if (u < 0x20 || u == 0x7f) {
      string_error(s.here(), fmt::format("control character '{}' in a string (write \\t for a tab, \\n for a "
                                         "newline)",
                                         printable(c)));
      s.advance();
    } else if (c == '\\') {
      Loc esc = s.here();
      s.advance();
      char e = s.peek();
      if (e == '"' || e == '\\' || e == 'n' || e == 't') {
        s.advance();
      } else {
        string_error(esc, fmt::format("unknown escape '\\{}' in string (use \\\" \\\\ \\n or \\t)",
                                      s.at_end() || s.at_line_end() ? std::string() : printable(e)));
        if (!s.at_end() && !s.at_line_end()) s.advance();
      }
    } else if (u >= 0x80) {
      size_t len = utf8_char_length(s.rest());
      if (len == 0) {
        string_error(s.here(), fmt::format("invalid UTF-8 in a string: the bytes '{}' do not encode a character "
                                           "(a string must be UTF-8 text)",
                                           bad_utf8_bytes(s.rest())));
        len = 1;
      }
      s.advance(len);
    } else {
      s.advance();
    }
  }
  if (bad) return Token{Tok::Bad, "\"\"", start};
  std::string text(s.since(begin));
  if (text.size() > kMaxNameLength + 2) {
    *error = {start, fmt::format("string of {} characters is longer than the limit of {}", text.size() - 2,
                                 kMaxNameLength)};
    return Token{Tok::Bad, "\"\"", start};
  }
  return Token{Tok::String, text, start};
}

}  // namespace

Scanner::Scanner(std::string_view src) : src_(src) {
  if (src_.substr(0, 3) == "\xef\xbb\xbf") pos_ = 3;
}

void Scanner::advance() {
  const char c = src_[pos_++];
  if (c == '\n' || (c == '\r' && peek() != '\n')) {  // the CR of a CRLF is not a line end of its own
    ++line_;
    col_ = 1;
  } else {
    ++col_;
  }
}

void Scanner::skip_to_line_end() {
  while (!at_end() && !at_line_end()) advance();
}

void Scanner::skip_line_end() {
  if (peek() == '\r') {
    advance();
    if (peek() == '\n') advance();  // CRLF
  } else if (peek() == '\n') {
    advance();
  }
}

bool starts_name(char c) { return is_lower(c) || is_upper(c) || is_digit(c) || c == '_' || c == '"'; }

Token lex_name(Scanner& s, LexError* error) {
  const Loc start = s.here();
  const char c = s.peek();
  if (is_lower(c) || is_upper(c)) {
    LexError e;
    std::string text = word(s, start, &e);
    if (!e.message.empty()) {
      *error = std::move(e);
      return Token{Tok::Bad, text, start};
    }
    if (is_upper(c)) return Token{Tok::Var, text, start};
    if (text == "if") return Token{Tok::If, text, start};
    if (is_reserved_word(text)) return Token{Tok::Keyword, text, start};
    return Token{Tok::Ident, text, start};
  }
  if (c == '_') {
    if (!is_ident_char(s.peek(1))) {
      s.advance();
      return Token{Tok::Anon, "_", start};
    }
    LexError ignored;  // the message below says more than a length error would
    std::string text = word(s, start, &ignored);
    *error = {start, fmt::format("'{}': a name cannot start with '_' (variables start with a capital letter; "
                                 "'_' alone is the anonymous variable)",
                                 text)};
    return Token{Tok::Bad, text, start};
  }
  if (is_digit(c)) return integer(s, start, error);
  return string_literal(s, start, error);
}

std::string describe_char(const Scanner& s, size_t* length) {
  if (s.at_end()) {
    *length = 0;
    return "end of file";
  }
  const char c = s.peek();
  *length = 1;
  if (static_cast<unsigned char>(c) < 0x80) return fmt::format("'{}'", printable(c));
  const std::string_view rest = s.rest();
  const size_t len = utf8_char_length(rest);
  if (len == 0) return fmt::format("'{}' (not UTF-8 text)", bad_utf8_bytes(rest));
  *length = len;
  auto it = rest.begin();
  const auto code = boost::locale::utf::utf_traits<char>::decode(it, rest.end());
  return fmt::format("'{}' (U+{:04X})", rest.substr(0, len), code);
}

size_t utf8_char_length(std::string_view bytes) {
  auto it = bytes.begin();
  const auto code = boost::locale::utf::utf_traits<char>::decode(it, bytes.end());
  if (code == boost::locale::utf::illegal || code == boost::locale::utf::incomplete) return 0;
  return static_cast<size_t>(it - bytes.begin());
}

bool is_valid_utf8(std::string_view text) {
  while (!text.empty()) {
    size_t len = static_cast<unsigned char>(text[0]) < 0x80 ? 1 : utf8_char_length(text);
    if (len == 0) return false;
    text.remove_prefix(len);
  }
  return true;
}

bool is_reserved_word(std::string_view word) {
  for (auto w : kReserved)
    if (w == word) return true;
  return false;
}

}  // namespace ddsmc::model
