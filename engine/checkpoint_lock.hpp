// The lock of a checkpoint directory (docs/engine.md §14): one check at a
// time writes its checkpoints into a directory, so that two checks never
// remove each other's parts or overwrite each other's manifest.
//
// The lock is flock(LOCK_EX) on DIR/ddsmc.lock, taken without waiting and
// held by the open file until the process ends (or the lock object goes);
// the file holds "pid N on HOST" of its holder, for the message of a
// check refused. The file is never removed (removing a lock file races
// with whoever opens it). Under MPI only rank 0 takes it (the ranks of one
// job must not lock each other out; the ranks agree on the outcome). On a
// shared filesystem this protects across machines as far as its flock
// does: NFS (Linux emulates flock with POSIX locks) and Lustre mounted
// with `flock` do; Lustre with `localflock` locks per machine only. A
// filesystem without locks (flock fails with ENOLCK, EOPNOTSUPP, ENOSYS
// or EINVAL) gives a warning, and the check goes on unlocked.
#pragma once

#include <string>

namespace ddsmc::engine {

class CheckpointLock {
 public:
  CheckpointLock() = default;
  CheckpointLock(const CheckpointLock&) = delete;
  CheckpointLock& operator=(const CheckpointLock&) = delete;
  ~CheckpointLock();

  // Creates `dir` (and its parents) if missing and locks it. Returns ""
  // when locked (or when the filesystem has no locks: then `warning` says
  // so), else why not, a sentence without the directory's name.
  std::string acquire(const std::string& dir, std::string& warning);

 private:
  int fd_ = -1;
};

// The lock file's path in a checkpoint directory.
std::string checkpoint_lock_file(const std::string& dir);

}  // namespace ddsmc::engine
