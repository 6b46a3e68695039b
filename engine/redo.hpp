// The redo-when-full loop, once for every caller that interns on several
// workers at once (engine/slice.hpp's rounds, dist/'s offers, the restore
// of a checkpoint, engine/checkpoint.cpp) and for one sequential intern
// (engine/state_store.hpp's intern_growing): the tree store cannot grow while
// workers intern into it, so a parallel round that fills it
// (hashing::TreeStoreFull, thrown before anything but the store changed)
// ends, the caller puts back what must be redone, the store grows with no
// worker inside, and the round runs again. A round must be one that can be
// run again after undo(): what it interned stays in the store, and is
// found again.
#pragma once

#include "hashing/tree_store.hpp"

namespace ddsmc::engine {

// Runs round() until it ends without TreeStoreFull; after each one that
// filled the store: undo(), then grow() (which grows the store, maybe
// checking memory first, and may throw to give up).
template <class Round, class Undo, class Grow>
void redo_when_full(Round&& round, Undo&& undo, Grow&& grow) {
  for (;;) {
    try {
      round();
      return;
    } catch (const hashing::TreeStoreFull&) {
      undo();
      grow();
    }
  }
}

}  // namespace ddsmc::engine
