// The compiled step's cache directory (compiled_step.hpp): what ddsmc trusts
// there, and how it writes there. docs/engine.md §4a says why.
//
// Trust. The cache is one user's:
// - the directory must belong to the user running ddsmc and be writable by
//   no one else; every directory above it must belong to that user or to
//   root and be writable by no one else, unless it is sticky (/tmp): so no
//   other user can put, replace or rename anything in it. A directory that
//   fails this is refused with a message that names it, never repaired;
// - an entry (step-KEY.so) is used only when it is a regular file (never a
//   symlink: opened with O_NOFOLLOW), belongs to the user, is writable by no
//   one else, ends with the seal ddsmc appended when it built it (XXH3-128
//   over KEY and the object's bytes, so that a file copied under another
//   key, truncated, bit-flipped or half-written is told apart), and is an
//   ELF shared object whose headers and segments lie inside the file (so
//   that mapping it cannot fault). An entry that fails is "damaged": the
//   caller says so and builds it anew.
// compiled_step.cpp adds the last check: the loaded object must export the
// fingerprint of the source this model generates now.
//
// Writing. Nothing in the cache is ever opened for writing. A compile works
// in a private build directory inside the cache (mkdtemp, 0700); its
// results are moved in by rename(2), which replaces whatever has the name
// (a symlink included) and never follows it, and is atomic for the
// processes (ranks, other checks) that share the cache.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace ddsmc::engine {

class StepCache {
 public:
  // The cache at `dir`, created (0700) when missing; null with `error` set
  // when the directory or one above it cannot be trusted or made.
  static std::unique_ptr<StepCache> open(const std::string& dir, std::string& error);
  // A cache for this process alone: a new private temporary directory,
  // removed with this object (what is loaded from it stays loaded).
  static std::unique_ptr<StepCache> open_temporary(std::string& error);
  ~StepCache();
  StepCache(const StepCache&) = delete;
  StepCache& operator=(const StepCache&) = delete;

  const std::string& dir() const { return dir_; }
  bool temporary() const { return temporary_; }
  std::string path(const std::string& key, const char* extension) const;  // dir/step-KEY.ext

  enum class Entry { Missing, Intact, Damaged };
  // Checks KEY's object as the header says (`why` says what is wrong when
  // Damaged) and, when intact, marks it recently used.
  Entry verify(const std::string& key, std::string& why) const;

  // A private build directory inside the cache (removed by the caller with
  // remove_build_dir), or nullopt with `error` set.
  std::optional<std::string> make_build_dir(std::string& error) const;
  static void remove_build_dir(const std::string& build_dir);
  // Writes, in the build directory, the compiler's object `built` followed
  // by KEY's seal into a new file, and returns its path (nullopt with
  // `error` when `built` is no well-formed shared object or cannot be read
  // or written).
  static std::optional<std::string> seal(const std::string& built, const std::string& key, std::string& error);
  // Moves `from` (a file of a build directory) to dir/`name`.
  bool move_in(const std::string& from, const std::string& name, std::string& error) const;

  // Keeps at most kKeepObjects objects, the most recently used, and never
  // KEY `keep`'s; removes the build directories and temporary files that
  // killed compiles left more than a day ago. Best effort.
  static constexpr size_t kKeepObjects = 256;
  void evict(const std::string& keep) const;

 private:
  StepCache(std::string dir, bool temporary) : dir_(std::move(dir)), temporary_(temporary) {}
  std::string dir_;
  bool temporary_;
};

// "" when `bytes` are a 64-bit ELF shared object of this machine whose
// program and section headers and loadable segments lie inside `bytes`;
// else what is wrong.
std::string elf_problem(std::string_view bytes);

}  // namespace ddsmc::engine
