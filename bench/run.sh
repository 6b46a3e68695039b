#!/usr/bin/env bash
# Benchmarks the scalable examples on growing rings: states, transitions,
# seconds, transitions/s and bytes per stored state, one line per run.
# Usage: bench/run.sh [BUILD_DIR] [MAX_SECONDS_PER_RUN]
# Timing is wall clock of one run: run it on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
limit=${2:-600}
bin=$build/ddsmc
[ -x "$bin" ] || { echo "no $bin: run scripts/build first" >&2; exit 2; }

run() {  # model network property
  local out
  out=$(timeout "$limit" "$bin" check "$1" --network "$2" --property "$3" --json - 2>/dev/null) || true
  [ -n "$out" ] || { printf '%-22s %-9s timed out after %ss\n' "$(basename "$1" .d2c)" "$2" "$limit"; return; }
  python3 - "$1" "$2" "$out" <<'PY'
import json, sys
model, net, out = sys.argv[1], sys.argv[2], sys.argv[3]
d = json.loads(out)
s = d["stats"]
rate = d["transitions"] / s["seconds"] if s["seconds"] > 0 else 0
print(f"{model.split('/')[-1][:-4]:<22} {net:<9} states {d['states']:>10,}  transitions {d['transitions']:>11,}  "
      f"{s['seconds']:8.2f} s  {rate:>11,.0f} trans/s  {s['bytes_per_state']:6.1f} B/state  "
      f"rss {s['peak_rss_bytes'] / 2**20:7.1f} MiB")
PY
}

for n in 4 5 6 7 8 9 10; do run examples/flooding.d2c "ring:$n" always-total; done
# Leader election is bounded as declared only on its own ring:3; on ring:4
# with larger bounds it has over 40 million states (not a quick benchmark).
run examples/leader_election.d2c ring:3 always-total
