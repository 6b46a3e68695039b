/*
 * flooding.pml -- examples/flooding.d2c as a Promela model for SPIN, with
 * ddsmc's semantics (docs/semantics.md sections 1-2), for bench/peers/run.sh.
 *
 * Network ring:N (N >= 3, set with spin -DN=...): nodes 0..N-1, node i
 * adjacent to i-1 and i+1 (mod N), plus a self-loop channel per node.
 * Channels are multisets of one payload type each, so a count per arc is
 * the whole channel:
 *   start[_pid]  the self-loop (i, i) still holds its `start`  (0 or 1)
 *   cw[_pid]     tokens on the arc (i, i+1)
 *   ccw[_pid]    tokens on the arc (i, i-1)
 * A node's DB is `have` (plus `initiator` at node 0, which never changes
 * and so is not stored).
 *
 * One step = one d_step: a node takes one message from one of its three
 * non-empty incoming channels and evaluates the rules:
 *   - `start` at node 0 (the initiator) gives `have`; at any other node it
 *     is consumed without effect;
 *   - a `token` gives `have`;
 *   - if the node gets `have` now and did not have it before, it sends one
 *     token to each of its two neighbours (none to itself).
 * Node i is process i (_pid), one that stays at its loop head, so the stored
 * states are exactly the global states above; with -DNOREDUCE and
 * -DSAFETY the "states, stored" count is ddsmc's `states`.  When every
 * channel is empty all processes block at `end`: a valid end state, not a
 * new one (ddsmc's idle self-loop has no counterpart here).
 */
#ifndef N
#define N 4
#endif

bit  have[N];
bit  start[N] = 1;   /* every self-loop starts with its `start` */
byte cw[N];
byte ccw[N];

/* the running node gets `have`; the first time, it floods both neighbours */
inline receive() {
  if
  :: !have[_pid] -> have[_pid] = 1; cw[_pid]++; ccw[_pid]++
  :: else -> skip
  fi
}

active [N] proctype node() {
end:
  do
  :: d_step { start[_pid] -> start[_pid] = 0; if :: _pid == 0 -> receive() :: else -> skip fi }
  :: d_step { cw[(_pid + N - 1) % N] > 0 -> cw[(_pid + N - 1) % N]--; receive() }
  :: d_step { ccw[(_pid + 1) % N] > 0 -> ccw[(_pid + 1) % N]--; receive() }
  od
}
