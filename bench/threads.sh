#!/usr/bin/env bash
# Thread scaling of `ddsmc check`: flooding (always-total) on ring:6..10 (or
# up to --max-ring) and leader election on ring:3, at each thread count,
# several repetitions. Writes OUTDIR/threads.csv (one row per run) and
# OUTDIR/threads.png (left: speedup = median wall seconds of the whole check
# at 1 thread / at T threads, per network; middle: median wall seconds,
# min..max over repetitions as error bars; right: peak RSS per state), and
# prints the medians (exploration and whole check, B/state, peak RSS). Exits 1, loudly, if states or transitions differ
# between runs of one network (the exploration is exact at every thread
# count); the CSV is written anyway.
#
# Usage: bench/threads.sh [--quick] [--reps N] [--threads 1,2] [--max-ring N] [--backend B] [BUILD_DIR [OUTDIR]]
#   BUILD_DIR  default build (runs BUILD_DIR/ddsmc)
#   OUTDIR     default BUILD_DIR/bench-threads
#   --quick    flooding ring:5..7 only, 1 repetition (well under a minute)
#   --reps N   repetitions per (network, threads), default 3
#   --threads  thread counts, comma-separated, default 1,2 (1 must be among them)
#   --max-ring largest flooding ring, default 10 (11 takes minutes per run)
#   --backend  check's --backend (auto, compiled, interpreted), default auto
# Besides flooding, leader election ring:3 and ring_broadcast ring:4 (fresh
# input data) run too.
# `seconds` is the exploration time ddsmc reports (stats.seconds),
# `wall_seconds` the whole check (load, exploration, analysis, report).
# Timing is wall clock: run it on an otherwise idle machine. The plot needs python3's
# matplotlib (Debian python3-matplotlib, installed by scripts/setup); without
# it the CSV is still written and the script says it skipped the plot.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
reps=3
threads=1,2
max_ring=10
backend=auto
positional=()
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 ;;
    --reps) reps=${2:?--reps takes a number}; shift ;;
    --reps=*) reps=${1#--reps=} ;;
    --threads) threads=${2:?--threads takes a list}; shift ;;
    --threads=*) threads=${1#--threads=} ;;
    --max-ring) max_ring=${2:?--max-ring takes a number}; shift ;;
    --max-ring=*) max_ring=${1#--max-ring=} ;;
    --backend) backend=${2:?--backend takes a name}; shift ;;
    --backend=*) backend=${1#--backend=} ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    -*) echo "threads.sh: unknown option $1" >&2; exit 2 ;;
    *) positional+=("$1") ;;
  esac
  shift
done
[ ${#positional[@]} -le 2 ] || { echo "threads.sh: at most BUILD_DIR and OUTDIR" >&2; exit 2; }
build=${positional[0]:-build}
out=${positional[1]:-$build/bench-threads}
bin=$build/ddsmc
[ -x "$bin" ] || { echo "threads.sh: no $bin: run scripts/build first" >&2; exit 2; }
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "threads.sh: --reps takes a positive number" >&2; exit 2; }
[[ $max_ring =~ ^[1-9][0-9]*$ ]] || { echo "threads.sh: --max-ring takes a positive number" >&2; exit 2; }
IFS=, read -r -a thread_list <<< "$threads"
for t in "${thread_list[@]}"; do
  [[ $t =~ ^[1-9][0-9]*$ ]] || { echo "threads.sh: bad thread count '$t'" >&2; exit 2; }
done
[[ ",$threads," == *",1,"* ]] || { echo "threads.sh: --threads must include 1 (the speedup's base)" >&2; exit 2; }

# model|network|property
runs=()
if [ "$quick" = 1 ]; then
  reps=1
  for n in 5 6 7; do runs+=("examples/flooding.d2c|ring:$n|always-total"); done
else
  for n in $(seq 6 "$max_ring"); do runs+=("examples/flooding.d2c|ring:$n|always-total"); done
  runs+=("examples/leader_election.d2c|ring:3|always-total")
  runs+=("examples/ring_broadcast.d2c|ring:4|always-total")
fi

mkdir -p "$out"
csv=$out/threads.csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "model,network,threads,rep,states,transitions,seconds,wall_seconds,bytes_per_state,peak_rss_mib" > "$csv"

for spec in "${runs[@]}"; do
  IFS='|' read -r model net prop <<< "$spec"
  name=$(basename "$model" .d2c)
  # Repetitions outermost, thread counts alternating: a load change on the
  # machine then hits every thread count alike.
  for rep in $(seq 1 "$reps"); do
    for t in "${thread_list[@]}"; do
      json=$tmp/run.json
      rm -f "$json"
      t0=$(date +%s.%N)
      "$bin" check "$model" --network "$net" --symmetry none --property "$prop" --threads "$t" --backend "$backend" --json "$json" \
        > "$tmp/stdout" 2> "$tmp/stderr" || true  # the exit code carries the verdict
      t1=$(date +%s.%N)
      if [ ! -s "$json" ]; then
        echo "threads.sh: $name $net --threads $t wrote no JSON; its stderr:" >&2
        cat "$tmp/stderr" >&2
        exit 1
      fi
      python3 - "$json" "$name" "$net" "$t" "$rep" "$t0" "$t1" >> "$csv" <<'PY'
import json, sys
path, name, net, t, rep, t0, t1 = sys.argv[1:]
wall = float(t1) - float(t0)
d = json.load(open(path))
s = d["stats"]
if not d.get("complete", True):
    sys.exit(f"threads.sh: {name} {net} --threads {t}: exploration incomplete ({d.get('incomplete_reason')})")
if s["threads"] != int(t):
    sys.exit(f"threads.sh: {name} {net}: asked for {t} threads, the report says {s['threads']}")
print(f"{name},{net},{t},{rep},{d['states']},{d['transitions']},{s['seconds']:.4f},{wall:.4f},"
      f"{s['bytes_per_state']:.2f},{s['peak_rss_bytes'] / 2**20:.1f}")
PY
      tail -n 1 "$csv" | awk -F, '{printf "%-16s %-8s threads %-3s rep %-2s states %10s  transitions %11s  %8.2f s explore  %8.2f s all  %6.1f B/state  rss %7.1f MiB\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10}'
    done
  done
done

# Same states and transitions at every thread count, then medians and the
# plot, by the first python3 that has matplotlib: scripts/setup installs
# Debian's, which only /usr/bin/python3 sees when another python3 (pyenv,
# a venv) comes first in PATH.
py=$(scripts/plot_python)
"$py" - "$csv" "$out/threads.png" <<'PY'
import csv, statistics, sys
from collections import defaultdict

path, png = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(path)))
networks = []  # (model, network) in run order
explore = defaultdict(list)  # (model, network, threads) -> exploration seconds
wall = defaultdict(list)     # (model, network, threads) -> whole-check seconds
rss = defaultdict(list)      # (model, network, threads) -> peak RSS bytes per state
accounted = defaultdict(list)  # (model, network, threads) -> bytes_per_state of the report
counts = defaultdict(lambda: defaultdict(set))  # (model, network) -> (states, transitions) -> {threads}
for r in rows:
    key = (r["model"], r["network"])
    if key not in networks:
        networks.append(key)
    k = key + (int(r["threads"]),)
    explore[k].append(float(r["seconds"]))
    wall[k].append(float(r["wall_seconds"]))
    rss[k].append(float(r["peak_rss_mib"]) * 2**20 / int(r["states"]))
    accounted[k].append(float(r["bytes_per_state"]))
    counts[key][(int(r["states"]), int(r["transitions"]))].add(int(r["threads"]))
thread_counts = sorted({int(r["threads"]) for r in rows})

bad = {k: v for k, v in counts.items() if len(v) > 1}
if bad:
    print("\n" + "!" * 72, file=sys.stderr)
    for (model, net), v in bad.items():
        seen = "; ".join(f"{s} states {t} transitions at threads {','.join(map(str, sorted(th)))}"
                         for (s, t), th in sorted(v.items()))
        print(f"!!! MISMATCH: {model} {net}: {seen}", file=sys.stderr)
    print("!!! the exploration must give the same graph at every thread count", file=sys.stderr)
    print(f"!!! (the runs are in {path})", file=sys.stderr)
    print("!" * 72, file=sys.stderr)
    sys.exit(1)

med = lambda d: {k: statistics.median(v) for k, v in d.items()}
mexp, mwall, mrss, macc = med(explore), med(wall), med(rss), med(accounted)
print(f"\n{'model':<16} {'network':<8} {'states':>10} " +
      " ".join(f"{f'{t}t explore':>11} {f'{t}t all':>8} {'speedup':>7} {'B/state':>7} {'RSS/st':>6}"
               for t in thread_counts))
for model, net in networks:
    states = next(iter(counts[(model, net)]))[0]
    base = mwall[(model, net, 1)]
    cells = []
    for t in thread_counts:
        k = (model, net, t)
        sp = base / mwall[k] if mwall[k] > 0 else float("nan")
        cells.append(f"{mexp[k]:11.2f} {mwall[k]:8.2f} {sp:7.2f} {macc[k]:7.1f} {mrss[k]:6.0f}")
    print(f"{model:<16} {net:<8} {states:>10} " + " ".join(cells))
print("speedup: whole check at 1 thread / at T; B/state: the report's accounted bytes; "
      "RSS/st: peak RSS / states (includes the fixed ~10 MiB of the process)")
print(f"states and transitions identical across thread counts for all {len(networks)} networks")

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print(f"matplotlib is missing: skipped the plot {png} (install python3-matplotlib, "
          "e.g. by scripts/setup); the CSV is written")
    sys.exit(0)

labels = [f"{model}\n{net}" for model, net in networks]
x = list(range(len(networks)))
fig, (left, mid, right) = plt.subplots(1, 3, figsize=(17, 4.5))
others = [t for t in thread_counts if t != 1]
width = 0.8 / max(1, len(others))
for i, t in enumerate(others):
    sp = [mwall[(m, n, 1)] / mwall[(m, n, t)] if mwall[(m, n, t)] > 0 else 0 for m, n in networks]
    bars = left.bar([xi + (i - (len(others) - 1) / 2) * width for xi in x], sp, width, label=f"{t} threads")
    left.bar_label(bars, fmt="%.2f", fontsize=8)
    left.axhline(t, color=bars.patches[0].get_facecolor(), linestyle=":", linewidth=1)
left.axhline(1, color="gray", linewidth=0.8)
left.set_xticks(x, labels, fontsize=8)
left.set_ylabel("speedup (median s at 1 thread / at T)")
left.set_title("speedup of the whole check (dotted: ideal)")
if others:
    left.legend(fontsize=8)
width = 0.8 / len(thread_counts)

def grouped_bars(ax, value, fmt, ylabel, title, spread=None):
    # One bar per (network, thread count), grouped by network, log scale;
    # spread(m, n, t, median) gives (below, above) error bars, if any.
    for i, t in enumerate(thread_counts):
        vals = [value(m, n, t) for m, n in networks]
        err = None
        if spread:
            pairs = [spread(m, n, t, v) for v, (m, n) in zip(vals, networks)]
            err = [[p[0] for p in pairs], [p[1] for p in pairs]]
        bars = ax.bar([xi + (i - (len(thread_counts) - 1) / 2) * width for xi in x], vals, width,
                      yerr=err, capsize=2 if err else 0, label=f"{t} thread{'s' if t > 1 else ''}")
        ax.bar_label(bars, fmt=fmt, fontsize=7, padding=2)
    ax.set_yscale("log")
    ax.set_xticks(x, labels, fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)

grouped_bars(mid, lambda m, n, t: mwall[(m, n, t)], "%.3g", "seconds of the whole check (median, min..max)",
             "seconds", lambda m, n, t, md: (md - min(wall[(m, n, t)]), max(wall[(m, n, t)]) - md))
grouped_bars(right, lambda m, n, t: mrss[(m, n, t)], "%.0f", "peak RSS / states (bytes)",
             "memory per state (small models: the process's fixed size)")
reps = max(len(v) for v in wall.values())
fig.suptitle(f"ddsmc check --threads T, {reps} repetition{'s' if reps > 1 else ''} each")
fig.tight_layout()
fig.savefig(png, dpi=120)
print(f"wrote {png}")
PY
echo "wrote $csv"
