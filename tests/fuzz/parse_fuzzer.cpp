// libFuzzer target for the model front end: lexer, parser, printer and
// resolver on arbitrary bytes. Built by tests/fuzz/CMakeLists.txt when
// DDSMC_FUZZ=ON (clang only); run it with scripts/fuzz.
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "tests/fuzz/front_end_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string failure = ddsmc::fuzz::check_front_end(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!failure.empty()) {
    std::fprintf(stderr, "front-end invariant violated: %s\n", failure.c_str());
    __builtin_trap();
  }
  return 0;
}
