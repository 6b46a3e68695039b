#!/usr/bin/env bash
# Network symmetry (check --symmetry auto) against full exploration: states,
# transitions, time and peak RSS of each check both ways, the reduction
# (states without / states with), and the verdicts, which must be equal.
# Checks: uniform flooding (bench/models/uniform_flooding.d2c: every node
# starts alike, so the group is the network's whole automorphism group) on
# ring:4 .. ring:MAX, where the reduction approaches 2n; flood_consensus
# (fresh input values) on complete:3 and complete:4 (24 automorphisms);
# leader election on ring:3 and ring:4 (--on-bound prune).
# Writes OUTDIR/symmetry.csv and OUTDIR/symmetry.png (the reduction on
# ring:n against 2n; needs python3's matplotlib, Debian python3-matplotlib),
# prints the table; exits 1 if a verdict differs.
#
# Usage: bench/symmetry.sh [--max-ring N] [--quick] [BUILD_DIR [OUTDIR]]
#   --max-ring N  largest ring of uniform flooding, default 8 (about a minute without symmetry)
#   --quick       ring:4..6 and complete:3 only (seconds)
set -euo pipefail
cd "$(dirname "$0")/.."
max_ring=8
quick=0
while [ $# -gt 0 ]; do
  case "$1" in
    --max-ring) max_ring=$2; shift 2 ;;
    --quick) quick=1; max_ring=6; shift ;;
    *) break ;;
  esac
done
build=${1:-build}
out=${2:-$build/bench-symmetry}
mkdir -p "$out"
csv="$out/symmetry.csv"
echo "model,network,symmetry,states,transitions,seconds,wall_seconds,peak_rss_mib,verdicts" > "$csv"

run() {  # MODEL NETWORK SYMMETRY [ARGS...]
  local model=$1 net=$2 sym=$3
  shift 3
  local json="$out/run.json"
  local t0 t1
  t0=$(date +%s.%N)
  "$build/ddsmc" check "$model" --network "$net" --symmetry "$sym" --threads 1 --json "$json" "$@" \
    > /dev/null 2> "$out/run.err" || true
  t1=$(date +%s.%N)
  python3 - "$json" "$model" "$net" "$sym" "$t0" "$t1" >> "$csv" <<'PY'
import json, os, sys
j = json.load(open(sys.argv[1]))
model, net, sym, t0, t1 = sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]), float(sys.argv[6])
verdicts = "".join("-" if v["holds"] is None else "T" if v["holds"] else "F"
                   for _, v in sorted(j["properties"].items()))
s = j["stats"]
print(f"{os.path.basename(model)},{net},{sym},{j['states']},{j['transitions']},{s['seconds']:.3f},"
      f"{t1 - t0:.3f},{s['peak_rss_bytes'] / 2**20:.1f},{verdicts}")
PY
  echo "  $(tail -1 "$csv")" >&2
}

both() {  # MODEL NETWORK [ARGS...]
  local model=$1 net=$2
  shift 2
  run "$model" "$net" none "$@"
  run "$model" "$net" auto "$@"
}

for n in $(seq 4 "$max_ring"); do both bench/models/uniform_flooding.d2c "ring:$n"; done
both bench/models/flood_consensus.d2c complete:3
[ "$quick" = 1 ] || both bench/models/flood_consensus.d2c complete:4
both examples/leader_election.d2c ring:3 --on-bound prune
[ "$quick" = 1 ] || both examples/leader_election.d2c ring:4 --on-bound prune

py=$(scripts/plot_python)
"$py" - "$csv" "$out/symmetry.png" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
for r in rows:
    by.setdefault((r["model"], r["network"]), {})[r["symmetry"]] = r
bad = False
print(f"\n{'model':<22} {'network':<11} {'states':>10} {'with sym':>9} {'reduction':>9} "
      f"{'seconds':>8} {'with sym':>8} {'RSS MiB':>8} {'with sym':>8}  verdicts")
ring = []
for (model, net), d in by.items():
    a, b = d["none"], d["auto"]
    red = int(a["states"]) / int(b["states"])
    same = a["verdicts"] == b["verdicts"]
    bad |= not same
    print(f"{model:<22} {net:<11} {int(a['states']):>10,} {int(b['states']):>9,} {red:>9.2f} "
          f"{float(a['wall_seconds']):>8.2f} {float(b['wall_seconds']):>8.2f} {float(a['peak_rss_mib']):>8.1f} "
          f"{float(b['peak_rss_mib']):>8.1f}  {a['verdicts']}{'' if same else ' != ' + b['verdicts']}")
    if model == "uniform_flooding.d2c" and net.startswith("ring:"):
        ring.append((int(net.split(":")[1]), red))
if bad:
    print("!!! MISMATCH: a verdict differs with --symmetry auto", file=sys.stderr)
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ns = [n for n, _ in ring]
    plt.figure(figsize=(5, 3.5))
    plt.plot(ns, [r for _, r in ring], "o-", label="states without / with symmetry")
    plt.plot(ns, [2 * n for n in ns], "k--", label="2n (the group's order)")
    plt.xlabel("ring size n (uniform flooding)")
    plt.ylabel("reduction")
    plt.legend()
    plt.tight_layout()
    plt.savefig(sys.argv[2], dpi=120)
    print(f"plot: {sys.argv[2]}")
except ImportError:
    print("(no matplotlib: plot skipped)")
sys.exit(1 if bad else 0)
PY
