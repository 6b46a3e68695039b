// The shared lexical rules (model/lexical) and the .d2c lexer on them: line
// ends (LF, CR, CRLF), comments, strings, UTF-8.
#include "model/lexical.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "model/lexer.hpp"

using namespace ddsmc::model;

namespace {

// The location of every token of `src` but End; the lexing must be clean.
std::vector<std::pair<std::string, Loc>> token_locs(const std::string& src) {
  Diagnostics diag("t.d2c");
  std::vector<std::pair<std::string, Loc>> out;
  for (const Token& t : lex(src, diag))
    if (t.kind != Tok::End) out.emplace_back(t.text, t.loc);
  EXPECT_FALSE(diag.has_errors()) << diag.format_all();
  return out;
}

std::string lex_errors(const std::string& src) {
  Diagnostics diag("t.d2c");
  lex(src, diag);
  EXPECT_TRUE(diag.has_errors()) << "expected a lexical error in: " << src;
  return diag.format_all();
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace

TEST(Scanner, LfCrAndCrLfEachEndOneLine) {
  for (const char* eol : {"\n", "\r", "\r\n"}) {
    SCOPED_TRACE(testing::PrintToString(std::string(eol)));
    const std::string e(eol);
    auto toks = token_locs("a" + e + "  bb" + e + e + "c d" + e);
    ASSERT_EQ(toks.size(), 4u);
    EXPECT_EQ(toks[0].second, (Loc{1, 1}));
    EXPECT_EQ(toks[1].second, (Loc{2, 3}));
    EXPECT_EQ(toks[2].second, (Loc{4, 1}));
    EXPECT_EQ(toks[3].second, (Loc{4, 3}));
  }
  // LF CR is two line ends; CR CR LF is two (a CR, then a CRLF).
  EXPECT_EQ(token_locs("a\n\rb")[1].second, (Loc{3, 1}));
  EXPECT_EQ(token_locs("a\r\r\nb")[1].second, (Loc{3, 1}));
}

TEST(Scanner, SkipLineEndTakesACrLfWhole) {
  Scanner s("ab\r\ncd\rx\n\ry");
  s.skip_to_line_end();
  EXPECT_EQ(s.here(), (Loc{1, 3}));
  s.skip_line_end();
  EXPECT_EQ(s.here(), (Loc{2, 1}));
  EXPECT_EQ(s.peek(), 'c');
  s.skip_to_line_end();
  s.skip_line_end();
  EXPECT_EQ(s.here(), (Loc{3, 1}));
  EXPECT_EQ(s.peek(), 'x');
  s.advance();
  s.skip_line_end();
  s.skip_line_end();
  EXPECT_EQ(s.here(), (Loc{5, 1}));
  EXPECT_EQ(s.peek(), 'y');
}

TEST(Scanner, ByteOrderMarkIsSkipped) {
  auto toks = token_locs("\xef\xbb\xbfp.\n");
  ASSERT_EQ(toks.size(), 2u);
  EXPECT_EQ(toks[0], (std::pair<std::string, Loc>{"p", Loc{1, 1}}));
  // Only at the start: elsewhere it is an unexpected character.
  EXPECT_TRUE(contains(lex_errors("p.\xef\xbb\xbf"), "t.d2c:1:3: error: unexpected character '\xef\xbb\xbf' (U+FEFF)"));
}

TEST(Lexer, CommentsEndAtCrAsAtLf) {
  // The bug this guards against: a CR-only file read as one comment line.
  for (const char* eol : {"\n", "\r", "\r\n"}) {
    SCOPED_TRACE(testing::PrintToString(std::string(eol)));
    const std::string e(eol);
    auto toks = token_locs("% comment" + e + "p. // another" + e + "q.");
    ASSERT_EQ(toks.size(), 4u);
    EXPECT_EQ(toks[0].second, (Loc{2, 1}));
    EXPECT_EQ(toks[2].second, (Loc{3, 1}));
  }
}

TEST(Lexer, ErrorLocationsInCrAndCrLfFiles) {
  for (const char* eol : {"\n", "\r", "\r\n"}) {
    SCOPED_TRACE(testing::PrintToString(std::string(eol)));
    const std::string e(eol);
    EXPECT_TRUE(contains(lex_errors("% c" + e + "p." + e + "q(a) # r." + e), "t.d2c:3:6: error: unexpected character '#'"));
  }
}

TEST(Lexer, StringsDoNotSpanALineEnd) {
  for (const char* eol : {"\n", "\r", "\r\n"}) {
    SCOPED_TRACE(testing::PrintToString(std::string(eol)));
    std::string errs = lex_errors("p(\"ab" + std::string(eol) + "c\").");
    EXPECT_TRUE(contains(errs, "t.d2c:1:3: error: unterminated string")) << errs;
    // An escape cannot hide the line end either.
    errs = lex_errors("p(\"ab\\" + std::string(eol) + "c\").");
    EXPECT_TRUE(contains(errs, "t.d2c:1:3: error: unterminated string")) << errs;
  }
}

TEST(Lexer, ValidUtf8StringsAreAccepted) {
  const std::string strings[] = {"\"caf\xc3\xa9\"", "\"\xe2\x82\xac 5\"", "\"\xf0\x9f\x8c\x8d\"",
                                 "\"\xf4\x8f\xbf\xbf\"",  // U+10FFFF, the last code point
                                 "\"\xed\x9f\xbf\xee\x80\x80\""};  // U+D7FF and U+E000, around the surrogates
  for (const std::string& s : strings) {
    auto toks = token_locs("p(" + s + ").");
    ASSERT_EQ(toks.size(), 5u) << s;
    EXPECT_EQ(toks[2].first, s);
  }
}

TEST(Lexer, InvalidUtf8InAStringIsALocatedError) {
  const std::pair<std::string, std::string> cases[] = {
      {"\xff", "the bytes '\\xff'"},
      {"\xfe", "the bytes '\\xfe'"},
      {"\x80", "the bytes '\\x80'"},                     // a continuation byte alone
      {"\xc0\xaf", "the bytes '\\xc0\\xaf'"},             // overlong '/'
      {"\xc1\xbf", "the bytes '\\xc1\\xbf'"},             // overlong
      {"\xe0\x80\xaf", "the bytes '\\xe0\\x80\\xaf'"},     // overlong, 3 bytes
      {"\xf0\x80\x80\xaf", "the bytes '\\xf0\\x80\\x80\\xaf'"},  // overlong, 4 bytes
      {"\xed\xa0\x80", "the bytes '\\xed\\xa0\\x80'"},     // surrogate U+D800
      {"\xed\xbf\xbf", "the bytes '\\xed\\xbf\\xbf'"},     // surrogate U+DFFF
      {"\xf4\x90\x80\x80", "the bytes '\\xf4\\x90\\x80\\x80'"},  // U+110000
      {"\xf5\x80\x80\x80", "the bytes '\\xf5\\x80\\x80\\x80'"},
      {"\xe2\x82", "the bytes '\\xe2\\x82'"},             // truncated before the closing quote
      {"\xf0\x9f\x8c", "the bytes '\\xf0\\x9f\\x8c'"},
  };
  for (const auto& [bytes, what] : cases) {
    // `init { p("ab<bytes>"). }` on line 2: the error is at the first bad byte.
    std::string errs = lex_errors("state p/1.\ninit { p(\"ab" + bytes + "\"). }\n");
    EXPECT_TRUE(contains(errs, "t.d2c:2:13: error: invalid UTF-8 in a string: " + what)) << errs;
  }
  // Truncated at the end of the file: unterminated, and no read past the end.
  EXPECT_TRUE(contains(lex_errors("p(\"\xe2\x82"), "t.d2c:1:3: error: unterminated string"));
  // One error per string, however many bad bytes it holds.
  Diagnostics diag("t.d2c");
  lex("p(\"" + std::string(500, '\xff') + "\").", diag);
  EXPECT_EQ(diag.error_count(), 1u) << diag.format_all();
}

TEST(Lexer, NonAsciiOutsideStringsIsOneErrorPerCharacter) {
  Diagnostics diag("t.d2c");
  lex("p(caf\xc3\xa9).\nq(\xff).", diag);
  ASSERT_EQ(diag.error_count(), 2u) << diag.format_all();
  EXPECT_EQ(diag.all()[0].format(), "t.d2c:1:6: error: unexpected character '\xc3\xa9' (U+00E9)");
  EXPECT_EQ(diag.all()[1].format(), "t.d2c:2:3: error: unexpected character '\\xff' (not UTF-8 text)");
}

TEST(Utf8, CharLengthAndValidity) {
  EXPECT_EQ(utf8_char_length("a"), 1u);
  EXPECT_EQ(utf8_char_length("\xc3\xa9x"), 2u);
  EXPECT_EQ(utf8_char_length("\xe2\x82\xac"), 3u);
  EXPECT_EQ(utf8_char_length("\xf0\x9f\x8c\x8d"), 4u);
  EXPECT_EQ(utf8_char_length(""), 0u);
  EXPECT_EQ(utf8_char_length("\xe2\x82"), 0u);  // truncated
  EXPECT_EQ(utf8_char_length("\xc0\x80"), 0u);  // overlong NUL
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("plain \xc3\xa9\xe2\x82\xac\xf0\x9f\x8c\x8d"));
  EXPECT_FALSE(is_valid_utf8("ok\xff"));
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));
}
