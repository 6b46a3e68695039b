-- flooding.m -- examples/flooding.d2c as a Murphi model for Rumur, with
-- ddsmc's semantics (docs/semantics.md sections 1-2), for bench/peers/run.sh.
--
-- Network ring:N (N >= 3; run.sh rewrites the `const N` line): nodes
-- 0..N-1, node i adjacent to i-1 and i+1 (mod N), plus a self-loop channel
-- per node.  Channels are multisets of one payload type each, so a count
-- per arc is the whole channel:
--   start[i]  the self-loop (i, i) still holds its `start`
--   cw[i]     tokens on the arc (i, i+1)
--   ccw[i]    tokens on the arc (i, i-1)
-- A node's DB is `have` (plus `initiator` at node 0, which never changes
-- and so is not stored).  Each node sends at most once, so an arc never
-- holds more than one token: the 0..1 ranges are tight, and Rumur would
-- report an error if a step exceeded them.
--
-- One step = one rule firing: node i takes one message from one of its
-- three non-empty incoming channels and evaluates the rules:
--   - `start` at node 0 (the initiator) gives `have`; at any other node it
--     is consumed without effect;
--   - a `token` gives `have`;
--   - if the node gets `have` now and did not have it before, it sends one
--     token to each of its two neighbours (none to itself).
-- Node indices are a plain subrange, not a scalarset: no symmetry
-- reduction, so Rumur's state count is ddsmc's `states`.  Run the verifier
-- with deadlock detection off: the all-empty final state has no enabled
-- rule (ddsmc's idle self-loop), which is not an error here.

const N: 4;

type
  node: 0 .. N - 1;

var
  have:  array [node] of boolean;
  start: array [node] of boolean;
  cw:    array [node] of 0 .. 1;
  ccw:   array [node] of 0 .. 1;

function left(i: node): node;
begin
  return (i + N - 1) % N;
end;

function right(i: node): node;
begin
  return (i + 1) % N;
end;

-- node i gets `have`; the first time, it floods both neighbours
procedure receive(i: node);
begin
  if !have[i] then
    have[i] := true;
    cw[i] := cw[i] + 1;
    ccw[i] := ccw[i] + 1;
  end;
end;

startstate "init"
begin
  for i: node do
    have[i] := false;
    start[i] := true;
    cw[i] := 0;
    ccw[i] := 0;
  end;
end;

ruleset i: node do
  rule "start" start[i] ==>
  begin
    start[i] := false;
    if i = 0 then
      receive(i);
    end;
  end;

  rule "token from left" cw[left(i)] > 0 ==>
  begin
    cw[left(i)] := cw[left(i)] - 1;
    receive(i);
  end;

  rule "token from right" ccw[right(i)] > 0 ==>
  begin
    ccw[right(i)] := ccw[right(i)] - 1;
    receive(i);
  end;
end;
