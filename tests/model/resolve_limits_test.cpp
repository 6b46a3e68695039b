// The resolver's checks of sizes computed from user numbers: an input bound
// whose fresh constants cannot be numbered below kMaxConstantIds is refused
// (it used to wrap around in the engine and make every property hold).
#include <gtest/gtest.h>

#include <string>

#include "model/load.hpp"

using namespace ddsmc::model;

namespace {

struct Loaded {
  std::optional<Model> model;
  Diagnostics diag{"t.d2c"};
};

Loaded load(const std::string& src, const Overrides& ov = Overrides{}) {
  Loaded r;
  r.model = load_model_text(src, "t.d2c", ov, r.diag);
  return r;
}

// ring:3 gives 3 fixed constants (n0, n1, n2) and the program adds none.
const char* const kArity2 =
    "input in/2, small/1.\n"
    "state s/2.\n"
    "network ring(3).\n"
    "s(X, Y) if in(X, Y).\n"
    "s(X, X) if small(X).\n";

Overrides input_bound(uint32_t b) {
  Overrides ov;
  ov.input_bound = b;
  return ov;
}

}  // namespace

TEST(ResolveLimits, InputBoundFromTheCommandLineTooLarge) {
  Loaded r = load(kArity2, input_bound(2147483648u));
  ASSERT_FALSE(r.model.has_value());
  ASSERT_EQ(r.diag.error_count(), 1u) << r.diag.format_all();
  const Diagnostic& d = r.diag.all()[0];
  EXPECT_EQ(d.loc, Loc{});  // --input-bound has no place in the file
  EXPECT_EQ(d.message,
            "input bound 2147483648 is too large: input DBs of 2147483648 facts of 'in' (arity 2) may hold "
            "4294967296 fresh constants; with 3 fixed constants that exceeds the limit of 2147483648 constant ids");
  // The largest arity counts, whichever predicate has it; 2^32 - 1 is no problem for the arithmetic.
  Loaded max = load(kArity2, input_bound(4294967295u));
  ASSERT_FALSE(max.model.has_value());
  EXPECT_NE(max.diag.all()[0].message.find("may hold 8589934590 fresh constants"), std::string::npos);
}

TEST(ResolveLimits, InputBoundFromTheFileIsLocated) {
  std::string src = std::string(kArity2) + "bounds { state 4. input 3000000000. }\n";
  Loaded r = load(src);
  ASSERT_FALSE(r.model.has_value());
  ASSERT_EQ(r.diag.error_count(), 1u) << r.diag.format_all();
  EXPECT_EQ(r.diag.all()[0].loc, (Loc{6, 19}));
  EXPECT_NE(r.diag.all()[0].message.find("input bound 3000000000 is too large"), std::string::npos);
  // The command line overrides the file, and then the error has no location.
  Loaded cli = load(src, input_bound(2000000000u));
  ASSERT_FALSE(cli.model.has_value());
  EXPECT_EQ(cli.diag.all()[0].loc, Loc{});
  EXPECT_NE(cli.diag.all()[0].message.find("input bound 2000000000 is too large"), std::string::npos);
  // ... and a small override makes the file's bound harmless.
  EXPECT_TRUE(load(src, input_bound(2)).model.has_value());
}

TEST(ResolveLimits, InputBoundAtTheLimitIsAccepted) {
  // 2 x 1073741822 + 3 = 2^31 - 1 ids; one more fact per DB is 2^31 + 1.
  Loaded at = load(kArity2, input_bound(1073741822u));
  ASSERT_TRUE(at.model.has_value()) << at.diag.format_all();
  EXPECT_EQ(at.model->bounds.input, 1073741822u);
  EXPECT_FALSE(load(kArity2, input_bound(1073741823u)).model.has_value());
  // Fixed constants count too: with 4 nodes the same bound needs exactly 2^31
  // ids (0 .. 2^31 - 1), the most there are; with 5 nodes one too many.
  auto on_ring = [](int nodes) {
    std::string src = kArity2;
    return src.replace(src.find("ring(3)"), 7, "ring(" + std::to_string(nodes) + ")");
  };
  EXPECT_TRUE(load(on_ring(4), input_bound(1073741822u)).model.has_value());
  EXPECT_FALSE(load(on_ring(5), input_bound(1073741822u)).model.has_value());
  EXPECT_TRUE(load(on_ring(5), input_bound(1073741821u)).model.has_value());
}

TEST(ResolveLimits, ArityZeroInputsNeedNoFreshConstants) {
  Loaded r = load("input go/0.\nstate s/0.\nnetwork ring(3).\ns if go.\n", input_bound(4294967295u));
  EXPECT_TRUE(r.model.has_value()) << r.diag.format_all();
  Loaded none = load("state s/0.\nnetwork ring(3).\ns if prev s.\n", input_bound(4294967295u));
  EXPECT_TRUE(none.model.has_value()) << none.diag.format_all();
}
