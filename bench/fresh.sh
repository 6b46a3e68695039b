#!/usr/bin/env bash
# Fresh data against plain data, per transition (issue 22's target: fresh
# data at most 2x plain data's cost): rumour gossip (bench/models/
# rumour.d2c, fresh rumours from the environment, ring:3, state bound 3,
# --on-bound prune) and flooding ring:9 (examples/flooding.d2c), one
# thread, --property always-total, alternating runs; prints each run's
# exploration seconds, transitions and transitions per second, then the
# medians and the ratio flooding/rumour of transitions per second.
# Instruction counts, which do not depend on the machine's load, come from
# bench/instructions.sh (same checks: see docs/engine.md §4a).
#
# Usage: bench/fresh.sh [--reps N] [BUILD_DIR]   (default 3 runs each, build)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=3
if [ "${1:-}" = "--reps" ]; then reps=$2; shift 2; fi
build=${1:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {  # NAME ARGS...: prints "NAME seconds transitions"
  local name=$1; shift
  "$build/ddsmc" check "$@" --symmetry none --threads 1 --property always-total --json "$out/r.json" >/dev/null 2>&1 || true
  python3 -c "import json,sys; j=json.load(open('$out/r.json')); print(sys.argv[1], j['stats']['seconds'], j['transitions'])" "$name"
}
"$build/ddsmc" check bench/models/rumour.d2c --on-bound prune --max-states 1 >/dev/null 2>&1 || true  # (compile both steps first)
"$build/ddsmc" check examples/flooding.d2c --network ring:9 --backend compiled --max-states 1 >/dev/null 2>&1 || true
for _ in $(seq "$reps"); do
  run rumour bench/models/rumour.d2c --on-bound prune --backend compiled
  run flooding examples/flooding.d2c --network ring:9 --backend compiled
done | tee "$out/runs.txt"
python3 - "$out/runs.txt" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
rate = {}
for name in ("rumour", "flooding"):
    r = [float(t) / float(s) for n, s, t in rows if n == name]
    rate[name] = statistics.median(r)
    print(f"{name:9s} median {rate[name]:,.0f} transitions/s over {len(r)} runs")
print(f"flooding/rumour: {rate['flooding'] / rate['rumour']:.2f}x per transition (target: at most 2x)")
PY
