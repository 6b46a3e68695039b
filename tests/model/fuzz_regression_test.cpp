// Replays the fuzzer's seeds (tests/fuzz/seeds/) and the saved reproducers of
// bugs it found (tests/fuzz/regressions/) through the same front-end checks
// the fuzzer applies, in the ordinary (and the sanitizer) test builds.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/fuzz/front_end_check.hpp"
#include "tests/test_support.hpp"

namespace fs = std::filesystem;

namespace {

void replay_folder(const std::string& relative) {
  fs::path dir = ddsmc::test::source_path(relative);
  ASSERT_TRUE(fs::is_directory(dir)) << dir;
  size_t n = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    ++n;
    std::string text = ddsmc::test::read_text(entry.path().string());
    EXPECT_EQ(ddsmc::fuzz::check_front_end(text), "") << entry.path();
  }
  EXPECT_GT(n, 0u) << "no inputs in " << dir;
}

}  // namespace

TEST(FuzzRegression, Seeds) { replay_folder("tests/fuzz/seeds"); }
TEST(FuzzRegression, Reproducers) { replay_folder("tests/fuzz/regressions"); }
