#include "engine/checkpoint_io.hpp"

#include <cerrno>
#include <cstring>

namespace ddsmc::engine::checkpoint_io {

HashedOut::HashedOut(const std::string& path)
    : out_(path, std::ios::binary | std::ios::trunc), state_(XXH3_createState()) {
  note_error();
  XXH3_64bits_reset(state_.get());
  buffer_.reserve(kBuffer);
}

void HashedOut::write_now(const uint8_t* p, size_t n) {
  XXH3_64bits_update(state_.get(), p, n);
  out_.write(reinterpret_cast<const char*>(p), static_cast<std::streamsize>(n));
  note_error();
}

void HashedOut::note_error() {
  if (!out_ && !error_) error_ = errno ? errno : EIO;
}

bool HashedOut::finish() {
  flush();
  const uint64_t digest = XXH3_64bits_digest(state_.get());
  out_.write(reinterpret_cast<const char*>(&digest), sizeof digest);
  out_.flush();
  note_error();
  return static_cast<bool>(out_);
}

CheckedIn::CheckedIn(const std::string& path) : in_(path, std::ios::binary | std::ios::ate) {
  if (!in_) throw CheckpointError("cannot open " + path);
  const auto size = static_cast<uint64_t>(in_.tellg());
  if (size < sizeof kMagic + 4 + 8 + 8) throw CheckpointError("the checkpoint is truncated");
  in_.seekg(0);
  char magic[sizeof kMagic];
  in_.read(magic, sizeof magic);
  if (std::memcmp(magic, kMagic, sizeof kMagic) != 0) throw CheckpointError(path + " is not a ddsmc checkpoint");
  in_.seekg(0);
  HashState state(XXH3_createState());
  XXH3_64bits_reset(state.get());
  buffer_.resize(kBuffer);
  for (uint64_t left = size - 8; left > 0;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(left, buffer_.size()));
    in_.read(reinterpret_cast<char*>(buffer_.data()), static_cast<std::streamsize>(n));
    if (static_cast<size_t>(in_.gcount()) != n) throw CheckpointError("the checkpoint is truncated");
    XXH3_64bits_update(state.get(), buffer_.data(), n);
    left -= n;
  }
  uint64_t stored = 0;
  in_.read(reinterpret_cast<char*>(&stored), sizeof stored);
  if (stored != XXH3_64bits_digest(state.get()))
    throw CheckpointError("the checkpoint is truncated or corrupted (its checksum does not match)");
  in_.clear();
  in_.seekg(0);
  left_ = size - 8;
  buffer_.clear();
  at_ = 0;
}

void CheckedIn::refill() {
  if (left_ == 0) throw CheckpointError("the checkpoint is corrupted (a length runs past its end)");
  const size_t n = static_cast<size_t>(std::min<uint64_t>(left_, kBuffer));
  buffer_.resize(n);
  in_.read(reinterpret_cast<char*>(buffer_.data()), static_cast<std::streamsize>(n));
  if (static_cast<size_t>(in_.gcount()) != n) throw CheckpointError("the checkpoint is truncated");
  left_ -= n;
  at_ = 0;
}

void CheckedIn::finish() const {
  if (at_ != buffer_.size() || left_ != 0) throw CheckpointError("the checkpoint has bytes after its end");
}

}  // namespace ddsmc::engine::checkpoint_io
