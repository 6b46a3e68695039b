// The compiled step's cache and compiler under hostile conditions (issue 20):
// ddsmc never runs an object it did not build for this model's source, never
// trusts a directory another user can write, never follows a symlink when
// it writes, never evicts the object it is about to use, never waits on a
// hanging compiler, and names the real fault when compiling fails.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "engine/d2c/compiled_step.hpp"
#include "engine/d2c/step_cache.hpp"
#include "model/load.hpp"
#include "tests/engine/reference_support.hpp"
#include "tests/test_support.hpp"

using namespace ddsmc;
using namespace ddsmc::reftest;
namespace fs = std::filesystem;

namespace {

// A new, empty, private cache directory (made by ddsmc on first use).
std::string fresh_cache() {
  static int n = 0;
  return test::temp_dir() + "/cache" + std::to_string(n++);
}

engine::CompiledModel compiled(const char* example) {
  static std::vector<std::unique_ptr<model::Model>> models;  // outlive the CompiledModels
  model::Diagnostics diag;
  auto m = model::load_model(test::source_path(std::string("examples/") + example + ".d2c"), {}, diag);
  EXPECT_TRUE(m) << diag.format_all();
  models.push_back(std::make_unique<model::Model>(std::move(*m)));
  return engine::compile(*models.back());
}

engine::CompiledStepOptions in(const std::string& dir) {
  engine::CompiledStepOptions o;
  o.cache_dir = dir;
  return o;
}

std::string read_all(const std::string& path) { return test::read_text(path); }

void write_all(const std::string& path, const std::string& bytes) {
  fs::remove(path);
  std::ofstream(path, std::ios::binary) << bytes;
  ::chmod(path.c_str(), 0600);
}

// An executable shell script in the test's directory.
std::string script(const std::string& body) {
  const std::string path = test::temp_file("#!/bin/sh\n" + body, ".sh");
  ::chmod(path.c_str(), 0755);
  return path;
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& w : v) s += w + "\n";
  return s;
}

// Loads `cm` from `dir` and expects it to be rebuilt (not taken from the
// cache) with a warning that names the entry and contains `why`.
void expect_rebuilt(const engine::CompiledModel& cm, const std::string& dir, const std::string& why) {
  const auto again = engine::CompiledStepLibrary::load(cm, in(dir));
  ASSERT_TRUE(again.library) << again.error;
  EXPECT_FALSE(again.library->from_cache());
  EXPECT_TRUE(has(joined(again.warnings), "is not used: ")) << joined(again.warnings);
  EXPECT_TRUE(has(joined(again.warnings), why)) << joined(again.warnings);
  const auto hit = engine::CompiledStepLibrary::load(cm, in(dir));  // the rebuilt entry is sound
  ASSERT_TRUE(hit.library) << hit.error;
  EXPECT_TRUE(hit.library->from_cache());
  EXPECT_TRUE(hit.warnings.empty()) << joined(hit.warnings);
}

// Puts the bare object `object` sealed under the key of the cache entry
// `entry` in its place: what only someone who can write the cache could do.
void plant(const std::string& object, const std::string& entry) {
  const std::string key = entry.substr(entry.rfind("/step-") + 6, 32);
  std::string error;
  const auto sealed = engine::StepCache::seal(object, key, error);
  ASSERT_TRUE(sealed) << error;
  fs::rename(*sealed, entry);
}

// A process that no longer runs (gone, or a zombie nobody reaped yet).
bool ended(pid_t pid) {
  for (int i = 0; i < 500; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_text, name, state;
    if (!(stat >> pid_text >> name >> state) || state == "Z") return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

}  // namespace

TEST(StepCache, AnotherModelsObjectUnderTheKeyIsRebuiltNotRun) {
  const std::string dir = fresh_cache();
  const auto echo = compiled("echo"), pp = compiled("ping_pong");
  const auto a = engine::CompiledStepLibrary::load(echo, in(dir));
  const auto b = engine::CompiledStepLibrary::load(pp, in(dir));
  ASSERT_TRUE(a.library && b.library) << a.error << b.error;
  write_all(b.library->object_path(), read_all(a.library->object_path()));  // sealed, but for echo's key
  expect_rebuilt(pp, dir, "made for another model");
}

TEST(StepCache, TruncatedAndBitFlippedObjectsAreRebuilt) {
  const std::string dir = fresh_cache();
  const auto cm = compiled("flooding");
  const auto first = engine::CompiledStepLibrary::load(cm, in(dir));
  ASSERT_TRUE(first.library) << first.error;
  const std::string path = first.library->object_path(), good = read_all(path);
  for (size_t size : {size_t{1000}, size_t{20000}, good.size() - 1}) {
    SCOPED_TRACE("truncated to " + std::to_string(size));
    write_all(path, good.substr(0, size));
    expect_rebuilt(cm, dir, "seal");
  }
  for (size_t at : {size_t{64}, good.size() / 3, good.size() / 2, good.size() - 20}) {
    SCOPED_TRACE("bit flipped at " + std::to_string(at));
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] ^ 0x10);
    write_all(path, bad);
    expect_rebuilt(cm, dir, "seal");
  }
  write_all(path, good.substr(0, good.size() - 32));  // the bare object, as a compiler leaves it
  expect_rebuilt(cm, dir, "no seal");
}

TEST(StepCache, AnObjectSealedForTheKeyButBuiltFromAnotherSourceIsRefusedAfterLoading) {
  const std::string dir = fresh_cache();
  const auto echo = compiled("echo"), pp = compiled("ping_pong");
  const auto a = engine::CompiledStepLibrary::load(echo, in(dir));
  const auto b = engine::CompiledStepLibrary::load(pp, in(dir));
  ASSERT_TRUE(a.library && b.library);
  // echo's object, resealed under ping_pong's key: only the exported source
  // fingerprint can tell.
  const std::string bare = test::temp_dir() + "/bare.so", path = b.library->object_path();
  const std::string echo_bytes = read_all(a.library->object_path());
  write_all(bare, echo_bytes.substr(0, echo_bytes.size() - 32));
  plant(bare, path);
  expect_rebuilt(pp, dir, "built from another source");
}

TEST(StepCache, ADirectoryOthersCanWriteIsRefusedAndNothingInItRuns) {
  const std::string dir = fresh_cache();
  const auto cm = compiled("flooding");
  const auto first = engine::CompiledStepLibrary::load(cm, in(dir));
  ASSERT_TRUE(first.library) << first.error;
  // A planted object with a constructor, sealed under the key.
  const std::string marker = test::temp_dir() + "/planted-ran";
  const std::string src = test::temp_file(
      "#include <cstdio>\n__attribute__((constructor)) static void planted() { std::fopen(\"" + marker +
          "\", \"w\"); }\n",
      ".cxx");  // (not .cpp: other tests count the .cpp files of the temporary directory)
  const std::string obj = test::temp_dir() + "/planted.so";
  ASSERT_EQ(std::system(("c++ -shared -fPIC -o " + obj + " " + src).c_str()), 0);
  plant(obj, first.library->object_path());
  ::chmod(dir.c_str(), 0777);
  const auto refused = engine::CompiledStepLibrary::load(cm, in(dir));
  EXPECT_FALSE(refused.library);
  EXPECT_TRUE(has(refused.error, "cannot be trusted")) << refused.error;
  EXPECT_TRUE(has(refused.error, "writable by others (mode 0777)")) << refused.error;
  EXPECT_FALSE(fs::exists(marker));
  // Below a directory others can write (not sticky), too.
  const std::string open_parent = fresh_cache();
  fs::create_directories(open_parent);
  ::chmod(open_parent.c_str(), 0777);
  const auto below = engine::CompiledStepLibrary::load(cm, in(open_parent + "/cache"));
  EXPECT_FALSE(below.library);
  EXPECT_TRUE(has(below.error, open_parent + " is writable by others")) << below.error;
}

TEST(StepCache, AnotherUsersDirectoryIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a directory away";
  const std::string dir = fresh_cache();
  fs::create_directories(dir);
  ASSERT_EQ(::chown(dir.c_str(), 65534, 65534), 0);
  const auto refused = engine::CompiledStepLibrary::load(compiled("echo"), in(dir));
  EXPECT_FALSE(refused.library);
  EXPECT_TRUE(has(refused.error, "belongs to user id 65534")) << refused.error;
}

TEST(StepCache, SymlinksAtTheCacheNamesAreReplacedNeverFollowed) {
  const std::string dir = fresh_cache();
  const auto cm = compiled("flooding");
  engine::CompiledStepOptions o = in(dir);
  o.compiler = test::failing_compiler();
  const auto failed = engine::CompiledStepLibrary::load(cm, o);  // to learn the key of this compiler
  ASSERT_FALSE(failed.library);
  const size_t at = failed.error.find(dir + "/step-");
  ASSERT_NE(at, std::string::npos) << failed.error;
  const std::string stem = failed.error.substr(at, dir.size() + 6 + 32);
  std::vector<std::string> victims;
  for (const char* ext : {".cpp", ".log", ".so", ".cpp.log"}) {
    victims.push_back(test::temp_file("precious", ".txt"));
    fs::remove(stem + ext);
    fs::create_symlink(victims.back(), stem + ext);
  }
  const auto again = engine::CompiledStepLibrary::load(cm, o);
  EXPECT_FALSE(again.library);
  for (const auto& v : victims) EXPECT_EQ(read_all(v), "precious") << v;
  for (const char* ext : {".cpp", ".log"}) EXPECT_FALSE(fs::is_symlink(stem + ext)) << ext;
  // With the real compiler, the object's name too.
  const auto built = engine::CompiledStepLibrary::load(cm, in(dir));
  ASSERT_TRUE(built.library) << built.error;
  const std::string so = built.library->object_path();
  const std::string victim = test::temp_file("precious", ".txt");
  fs::remove(so);
  fs::create_symlink(victim, so);
  const auto rebuilt = engine::CompiledStepLibrary::load(cm, in(dir));
  ASSERT_TRUE(rebuilt.library) << rebuilt.error;
  EXPECT_TRUE(has(joined(rebuilt.warnings), "symbolic link")) << joined(rebuilt.warnings);
  EXPECT_EQ(read_all(victim), "precious");
  EXPECT_FALSE(fs::is_symlink(so));
}

TEST(StepCache, AFutureDatedCacheNeverEvictsTheObjectJustBuilt) {
  const std::string dir = fresh_cache();
  fs::create_directories(dir);
  ::chmod(dir.c_str(), 0700);
  const auto future = fs::file_time_type::clock::now() + std::chrono::hours(24 * 365);
  for (int i = 0; i < 300; ++i) {
    const std::string name = dir + "/step-" + std::to_string(1000 + i) + ".so";
    std::ofstream(name) << "skewed";
    fs::last_write_time(name, future);
  }
  const auto loaded = engine::CompiledStepLibrary::load(compiled("echo"), in(dir));
  ASSERT_TRUE(loaded.library) << loaded.error;
  EXPECT_TRUE(fs::exists(loaded.library->object_path()));
  size_t objects = 0;
  for (const auto& e : fs::directory_iterator(dir)) objects += e.path().extension() == ".so";
  EXPECT_EQ(objects, engine::StepCache::kKeepObjects);
}

TEST(StepCache, AHangingCompilerIsStoppedWithItsChildren) {
  const std::string pid_file = test::temp_dir() + "/hanging-child";
  const std::string cc = script("[ \"$1\" = --version ] && { echo hang-cc; exit 0; }\nsleep 1000 &\necho $! > " +
                                pid_file + "\nwait\n");
  engine::CompiledStepOptions o = in(fresh_cache());
  o.compiler = cc;
  o.timeout_s = 1;
  const auto t0 = std::chrono::steady_clock::now();
  const auto loaded = engine::CompiledStepLibrary::load(compiled("echo"), o);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 30.0);
  EXPECT_FALSE(loaded.library);
  EXPECT_TRUE(has(loaded.error, "took longer than 1 s")) << loaded.error;
  EXPECT_FALSE(has(loaded.error, "ddsmc bug")) << loaded.error;
  const pid_t child = std::stoi(read_all(pid_file));
  EXPECT_TRUE(ended(child)) << "the compiler's child " << child << " still runs";
}

TEST(StepCache, ACompilerThatDoesNotSayItsVersionIsNoCompiler) {
  engine::CompiledStepOptions o = in(fresh_cache());
  o.compiler = script("exec sleep 1000\n");
  o.timeout_s = 1;
  const auto loaded = engine::CompiledStepLibrary::load(compiled("echo"), o);
  EXPECT_FALSE(loaded.library);
  EXPECT_TRUE(loaded.no_compiler);
  EXPECT_TRUE(has(loaded.error, "--version did not answer within 1 s")) << loaded.error;
}

TEST(StepCache, AStopRequestStopsTheCompiler) {
  std::atomic<unsigned> stop{0};
  engine::CompiledStepOptions o = in(fresh_cache());
  o.compiler = script("[ \"$1\" = --version ] && { echo slow-cc; exit 0; }\nexec sleep 1000\n");
  o.stop = &stop;
  std::thread signal([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop = 1;
  });
  const auto loaded = engine::CompiledStepLibrary::load(compiled("echo"), o);
  signal.join();
  EXPECT_FALSE(loaded.library);
  EXPECT_TRUE(has(loaded.error, "interrupted")) << loaded.error;
}

TEST(StepCache, WhatACompilerLeavesIsCheckedBeforeItIsCached) {
  const std::string out_arg = "while [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done\n";
  const std::string garbage = script("[ \"$1\" = --version ] && { echo garbage-cc; exit 0; }\n" + out_arg +
                                     "head -c 30000 /dev/urandom > \"$out\"\n");
  const std::string cut = script("[ \"$1\" = --version ] && { echo cut-cc; exit 0; }\nc++ \"$@\" || exit 1\n" +
                                 out_arg + "truncate -s 20000 \"$out\"\n");
  for (const std::string& cc : {garbage, cut}) {
    engine::CompiledStepOptions o = in(fresh_cache());
    o.compiler = cc;
    const auto loaded = engine::CompiledStepLibrary::load(compiled("flooding"), o);
    EXPECT_FALSE(loaded.library);
    EXPECT_TRUE(has(loaded.error, "is no usable shared object")) << loaded.error;
    size_t objects = 0;
    for (const auto& e : fs::directory_iterator(o.cache_dir)) objects += e.path().extension() == ".so";
    EXPECT_EQ(objects, 0u) << "nothing is cached";
  }
}

TEST(StepCache, TheMachinesFaultsAreNotCalledDdsmcBugs) {
  const struct {
    const char* says;
    const char* expected;
  } faults[] = {
      {"c++: fatal error: cannot execute 'as': execvp: No such file or directory", "toolchain is incomplete"},
      {"/usr/bin/ld: final link failed: No space left on device", "could not write its output"},
      {"cc1plus: out of memory allocating 65536 bytes", "ran out of memory"},
      {"step.cpp:900:1: fatal error: bracket nesting level exceeded maximum of 256", "beyond a limit of the compiler"},
  };
  for (const auto& f : faults) {
    engine::CompiledStepOptions o = in(fresh_cache());
    o.compiler = script(std::string("[ \"$1\" = --version ] && { echo env-cc; exit 0; }\necho '") + f.says +
                        "' >&2\nexit 1\n");
    const auto loaded = engine::CompiledStepLibrary::load(compiled("echo"), o);
    EXPECT_FALSE(loaded.library);
    EXPECT_TRUE(has(loaded.error, f.expected)) << loaded.error;
    EXPECT_FALSE(has(loaded.error, "ddsmc bug")) << loaded.error;
  }
}

TEST(StepCache, TheCompilerIsBoundByTheMemoryLimit) {
  engine::CompiledStepOptions o = in(fresh_cache());
  o.memory_bytes = uint64_t{24} << 20;  // not enough for cc1plus
  const auto loaded = engine::CompiledStepLibrary::load(compiled("echo"), o);
  EXPECT_FALSE(loaded.library);
  EXPECT_TRUE(has(loaded.error, "memory")) << loaded.error;
  EXPECT_FALSE(has(loaded.error, "ddsmc bug")) << loaded.error;
}

TEST(StepCache, AutoDoesNotCompileWhatIsNotWorthIt) {
  std::string body;
  for (size_t i = 0; i <= engine::kMaxProfitableDepth; ++i) body += (i ? ", " : "") + std::string("prev p(X") + std::to_string(i) + ")";
  auto m = load_text("state p/1, q/0.\ntransport t/0.\nq if " + body + ".\n", network_override("line:2"));
  ASSERT_TRUE(m);
  const engine::CompiledModel cm = engine::compile(*m);
  engine::CompiledStepOptions o = in(fresh_cache());
  o.only_if_profitable = true;
  const auto refused = engine::CompiledStepLibrary::load(cm, o);
  EXPECT_FALSE(refused.library);
  EXPECT_TRUE(refused.unprofitable);
  EXPECT_TRUE(has(refused.error, "unprofitable: a rule has")) << refused.error;
  // Thousands of rules: a generated file larger than it is worth.
  std::string rules = "state p/1, q/0.\ntransport t/0.\n";
  for (int i = 0; i < 6000; ++i) rules += "q if prev p(c" + std::to_string(i) + "), prev p(X), X != c" + std::to_string(i) + ".\n";
  auto big = load_text(rules, network_override("line:2"));
  ASSERT_TRUE(big);
  const engine::CompiledModel big_cm = engine::compile(*big);
  const auto large = engine::CompiledStepLibrary::load(big_cm, o);
  EXPECT_FALSE(large.library);
  EXPECT_TRUE(large.unprofitable);
  EXPECT_TRUE(has(large.error, "unprofitable: the generated step has")) << large.error;
}

namespace {

// A small tmpfs mounted at a new directory with `options`, unmounted at the
// end of the scope; empty() when this process may not mount (not root, or
// no CAP_SYS_ADMIN in its container).
struct TinyMount {
  std::string dir;
  TinyMount(unsigned long flags, const std::string& options) {
    const std::string d = fresh_cache() + "-mount";
    fs::create_directories(d);
    if (::mount("tmpfs", d.c_str(), "tmpfs", flags, options.c_str()) == 0) dir = d;
  }
  ~TinyMount() {
    if (!dir.empty()) ::umount2(dir.c_str(), MNT_DETACH);
  }
  bool empty() const { return dir.empty(); }
};

}  // namespace

// The machine's faults, for real: a cache on a noexec file system, and one
// on a full disk, each named as such and never as a ddsmc bug.
TEST(StepCache, ANoexecOrFullCacheFileSystemIsNamed) {
  {
    TinyMount noexec(MS_NOEXEC, "mode=0700,size=16m");
    if (noexec.empty()) GTEST_SKIP() << "cannot mount a tmpfs here";
    const auto loaded = engine::CompiledStepLibrary::load(compiled("echo"), in(noexec.dir + "/cache"));
    EXPECT_FALSE(loaded.library);
    EXPECT_TRUE(has(loaded.error, "mounted noexec")) << loaded.error;
    EXPECT_FALSE(has(loaded.error, "ddsmc bug")) << loaded.error;
  }
  TinyMount full(0, "mode=0700,size=24k");
  ASSERT_FALSE(full.empty());
  const auto loaded = engine::CompiledStepLibrary::load(compiled("flooding"), in(full.dir + "/cache"));
  EXPECT_FALSE(loaded.library);
  EXPECT_TRUE(has(loaded.error, "No space left on device")) << loaded.error;
  EXPECT_FALSE(has(loaded.error, "ddsmc bug")) << loaded.error;
}
