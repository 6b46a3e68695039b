// Part of the state graph on disk (docs/engine.md §8, "Edges on disk"):
// an unnamed file in a scratch directory, written at chosen offsets and
// mapped back read-only.
//
// - The file is created and unlinked at once, so it goes with the process
//   however the process ends; `df` shows its blocks meanwhile.
// - write() reserves the blocks before writing, so that a full disk or a
//   file-size limit (`ulimit -f`: SIGXFSZ is ignored from the first file
//   on, so the call fails instead of killing the process) shows as a
//   SpillError from that call, never as a page lost later.
// - map() gives a read-only shared mapping of bytes already written; it
//   stays valid until the SpillFile goes. The pages a reader touches are
//   the kernel's page cache: release_all() takes every spill file's mapped
//   pages out of the process's resident set (madvise DONTNEED; they come
//   back from the cache, or the disk, on the next read). A watch thread
//   calls it when the process's file-backed resident set grows
//   (app/memory_limit.hpp), so that reading the graph back does not count
//   as memory in use.
// Thread safety: write() and map() from one thread at a time (the graph's
// sequential commit); release_all(), bytes() and any_mapped() from any.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ddsmc::engine {

// The scratch directory could not be used: "DIR: reason".
class SpillError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a scratch directory is on, for the report and for the choice of
// whether spilling there saves memory at all.
struct ScratchInfo {
  std::string dir;
  std::string filesystem;  // "ext4", "xfs", "tmpfs", ... or "type 0x..."
  uint64_t free_bytes = 0;  // for an unprivileged user
  bool in_memory = false;   // tmpfs or ramfs: its pages are RAM
};
// SpillError when `dir` is not a directory that can be examined.
ScratchInfo describe_scratch(const std::string& dir);

class SpillFile {
 public:
  // An unnamed file in `dir`; SpillError when it cannot be made there.
  explicit SpillFile(const std::string& dir);
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  const std::string& dir() const { return dir_; }
  // Room for n bytes at the end of the file: the offset (page-aligned) to
  // write() and map() them at. Several arrays share one file this way.
  uint64_t extent(uint64_t n);
  // Writes n bytes at `offset`; SpillError ("DIR: No space left on
  // device", ...) and nothing else changes when it cannot.
  void write(uint64_t offset, const void* data, size_t n);
  // The bytes [offset, offset + n) read-only (offset a multiple of the page
  // size); bytes past those written read as zeros. SpillError when the
  // mapping cannot be made.
  const uint8_t* map(uint64_t offset, size_t n);
  // Bytes written so far (the disk used, holes aside).
  uint64_t bytes() const { return bytes_.load(std::memory_order_relaxed); }

  // Every spill file's mapped pages out of the resident set.
  static void release_all();
  // Whether any spill file has a mapping (a watch polls faster then).
  static bool any_mapped();

 private:
  std::string dir_;
  int fd_ = -1;
  uint64_t size_ = 0;  // the file's length (its mappings never pass it)
  uint64_t end_ = 0;   // where the next extent begins
  std::vector<std::pair<void*, size_t>> maps_;  // under the registry's lock
  std::atomic<uint64_t> bytes_{0};
};

// Moves the chunks of one array of the graph to a SpillFile as they become
// complete: `Chunks` is a ChunkedVector or a ChunkedArena (engine/
// chunked.hpp: chunks(), used(c), rebase(c, p), kChunk), whose chunk slots
// are a whole number of pages. Chunks [0, done()) are on disk.
class ChunkSpiller {
 public:
  static constexpr uint64_t kBatchBytes = uint64_t{4} << 20;  // moved at a time: one mapping each
  size_t done() const { return done_; }
  // Moves chunks [done(), upto), which the caller knows complete (never
  // written again), once they make kBatchBytes, or all of them with
  // `force`. Nothing when `file` is null or `error` already set; a failure
  // to write or map sets `error` and moves nothing.
  template <class Chunks>
  void move(SpillFile* file, Chunks& chunks, size_t upto, bool force, std::string& error) {
    using T = typename Chunks::value_type;
    constexpr uint64_t stride = uint64_t{Chunks::kChunk} * sizeof(T);
    if (!file || !error.empty() || upto <= done_ || (!force && (upto - done_) * stride < kBatchBytes)) return;
    try {
      const uint64_t at = file->extent((upto - done_) * stride);
      for (size_t c = done_; c < upto; ++c)
        if (const auto [p, n] = chunks.used(c); p) file->write(at + (c - done_) * stride, p, n * sizeof(T));
      const uint8_t* mapped = file->map(at, (upto - done_) * stride);
      for (size_t c = done_; c < upto; ++c)
        chunks.rebase(c, reinterpret_cast<const T*>(mapped + (c - done_) * stride));
      done_ = upto;
    } catch (const SpillError& e) {
      error = e.what();
    }
  }

 private:
  size_t done_ = 0;
};

}  // namespace ddsmc::engine
