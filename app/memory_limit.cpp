#include "app/memory_limit.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "app/runtime.hpp"
#include "engine/cancel.hpp"
#include "engine/spill_file.hpp"

namespace ddsmc::app {
namespace {

uint64_t cgroup_limit() {
  std::ifstream v2("/sys/fs/cgroup/memory.max");
  std::string text;
  if (v2 >> text) {
    if (text == "max") return 0;
    try {
      return std::stoull(text);
    } catch (...) {
      return 0;
    }
  }
  std::ifstream v1("/sys/fs/cgroup/memory/memory.limit_in_bytes");
  uint64_t bytes = 0;
  if (v1 >> bytes && bytes < (uint64_t{1} << 60)) return bytes;  // v1 says "no limit" with a huge number
  return 0;
}

}  // namespace

std::optional<uint64_t> parse_memory_size(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  if (i == 0 || std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(i), '.') > 1) return std::nullopt;
  double number = 0;
  try {
    number = std::stod(text.substr(0, i));
  } catch (...) {
    return std::nullopt;
  }
  std::string unit = text.substr(i);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.size() >= 2 && unit.substr(unit.size() - 2) == "IB") unit.resize(unit.size() - 2);
  else if (unit.size() >= 2 && unit.back() == 'B') unit.pop_back();
  double scale = 1;
  if (unit == "K") scale = 1024.0;
  else if (unit == "M") scale = 1024.0 * 1024;
  else if (unit == "G") scale = 1024.0 * 1024 * 1024;
  else if (unit == "T") scale = 1024.0 * 1024 * 1024 * 1024;
  else if (!unit.empty() && unit != "B") return std::nullopt;
  const double bytes = std::floor(number * scale);
  if (!(bytes >= 1) || bytes >= 18446744073709551615.0) return std::nullopt;
  return static_cast<uint64_t>(bytes);
}

uint64_t available_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  uint64_t physical = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
  const uint64_t cgroup = cgroup_limit();
  if (cgroup && (!physical || cgroup < physical)) physical = cgroup;
  return physical;
}

uint64_t default_memory_limit() { return available_memory() / 100 * 85; }

std::string format_bytes(uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (b >= 1024.0 * 1024 * 1024) return fmt::format("{:.1f} GiB", b / (1024.0 * 1024 * 1024));
  if (b >= 1024.0 * 1024) return fmt::format("{:.1f} MiB", b / (1024.0 * 1024));
  if (b >= 1024.0) return fmt::format("{:.1f} KiB", b / 1024.0);
  return fmt::format("{} B", bytes);
}

MemoryWatch::MemoryWatch(uint64_t limit) {
  try {
    thread_ = std::thread([this, limit] { run(limit); });
  } catch (const std::exception&) {
    // No thread (resources exhausted at start): the exploration's own check
    // before growing the visited set still applies.
  }
}

MemoryWatch::~MemoryWatch() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void MemoryWatch::run(uint64_t limit) {
  uint64_t baseline = resident_bytes().file;  // the program's own files: not the graph's
  while (!stop_.load()) {
    const Resident r = resident_bytes();
    if (limit && r.total > limit) {
      fired_.store(true);
      request_stop(engine::Cancellation::kMemoryLimit);
      return;
    }
    const bool mapped = engine::SpillFile::any_mapped();
    if (mapped && r.file > baseline + kMappedSlack) {
      engine::SpillFile::release_all();
      baseline = std::max(baseline, resident_bytes().file);  // what is left is not the graph's to drop
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(mapped ? 4 : 20));
  }
}

}  // namespace ddsmc::app
