#!/usr/bin/env bash
# MPI scaling of `ddsmc check` on this machine: flooding (all four
# properties) on ring:N, as one process and under mpirun, with repetitions
# taken in turn (one configuration after the other, again and again) so that
# the machine's noise falls on all of them alike. Configurations:
#   single-1t  ddsmc --threads 1 (no MPI)
#   single-2t  ddsmc --threads 2 (no MPI)
#   np1-1t     mpirun -np 1 ddsmc --threads 1 (the distributed engine)
#   np2-1t     mpirun -np 2 ddsmc --threads 1
# Writes OUTDIR/dist.csv (one row per run: wall seconds, exploration
# seconds, analysis seconds, peak RSS of rank 0, bytes sent, states,
# transitions, rank 0's time by part) and prints the medians and the
# speedups. Exits 1 if states or transitions differ between runs.
#
# Usage: bench/dist.sh [--reps N] [--ring N] [BUILD_DIR [OUTDIR]]
#   --reps N  repetitions per configuration, default 3
#   --ring N  flooding ring size, default 9 (10 takes about a minute per run)
set -euo pipefail
cd "$(dirname "$0")/.."

reps=3
ring=9
positional=()
while [ $# -gt 0 ]; do
  case $1 in
    --reps) reps=${2:?--reps takes a number}; shift ;;
    --ring) ring=${2:?--ring takes a number}; shift ;;
    *) positional+=("$1") ;;
  esac
  shift
done
build=${positional[0]:-build}
out=${positional[1]:-$build/bench-dist}
mkdir -p "$out"
bin=$(realpath "$build/ddsmc")
model=$(realpath examples/flooding.d2c)
mpi=(mpirun --oversubscribe --allow-run-as-root)
csv=$out/dist.csv
echo "config,rep,wall_seconds,seconds,analysis_seconds,peak_rss_bytes,bytes_sent,states,transitions,rank0_seconds" > "$csv"

run() {  # config rep
  local cfg=$1 rep=$2 json=$out/run.json cmd
  case $cfg in
    single-1t) cmd=("$bin" check "$model" --network "ring:$ring" --threads 1) ;;
    single-2t) cmd=("$bin" check "$model" --network "ring:$ring" --threads 2) ;;
    np1-1t) cmd=("${mpi[@]}" -np 1 "$bin" check "$model" --network "ring:$ring" --threads 1) ;;
    np2-1t) cmd=("${mpi[@]}" -np 2 "$bin" check "$model" --network "ring:$ring" --threads 1) ;;
  esac
  local t0 t1
  t0=$(date +%s.%N)
  "${cmd[@]}" --json "$json" > /dev/null 2>&1 || true
  t1=$(date +%s.%N)
  python3 - "$cfg" "$rep" "$t0" "$t1" "$json" >> "$csv" <<'PY'
import json, sys
cfg, rep, t0, t1, path = sys.argv[1:]
j = json.load(open(path))
s = j["stats"]
parts = ";".join(f"{k}={v:.3f}" for k, v in sorted(s.get("rank0_seconds", {}).items()))
print(f"{cfg},{rep},{float(t1)-float(t0):.3f},{s['seconds']:.3f},{s['analysis_seconds']:.3f},{s['peak_rss_bytes']},"
      f"{s.get('bytes_sent', 0)},{j['states']},{j['transitions']},{parts}")
PY
}

configs=(single-1t np1-1t np2-1t single-2t)
for rep in $(seq 1 "$reps"); do
  for cfg in "${configs[@]}"; do
    echo "flooding ring:$ring $cfg, repetition $rep/$reps" >&2
    run "$cfg" "$rep"
  done
done

python3 - "$csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
if len({(r["states"], r["transitions"]) for r in rows}) != 1:
    print("states or transitions differ between runs:", {(r["config"], r["states"], r["transitions"]) for r in rows})
    sys.exit(1)
by = {}
for r in rows:
    by.setdefault(r["config"], []).append(r)
med = lambda c, k: statistics.median(float(r[k]) for r in by[c])
r0 = rows[0]
print(f"states {r0['states']}, transitions {r0['transitions']}; medians over {len(by['np1-1t'])} runs")
print(f"{'config':10} {'wall s':>8} {'explore s':>10} {'analysis s':>11} {'rank0 RSS MiB':>14} {'sent B/trans':>13}")
for c in by:
    print(f"{c:10} {med(c,'wall_seconds'):8.2f} {med(c,'seconds'):10.2f} {med(c,'analysis_seconds'):11.2f} "
          f"{med(c,'peak_rss_bytes')/2**20:14.0f} {med(c,'bytes_sent')/float(r0['transitions']):13.1f}")
print(f"np2-1t vs np1-1t: {med('np1-1t','wall_seconds')/med('np2-1t','wall_seconds'):.2f}x wall, "
      f"{med('np1-1t','seconds')/med('np2-1t','seconds'):.2f}x exploration")
print(f"np2-1t vs single-1t: {med('single-1t','wall_seconds')/med('np2-1t','wall_seconds'):.2f}x wall; "
      f"single-2t vs single-1t: {med('single-1t','wall_seconds')/med('single-2t','wall_seconds'):.2f}x wall")
for c in ("np1-1t", "np2-1t"):
    parts = [dict(p.split("=") for p in r["rank0_seconds"].split(";") if p) for r in by[c]]
    keys = sorted(parts[0]) if parts and parts[0] else []
    print(f"{c} rank 0 by part (median s): " + ", ".join(f"{k} {statistics.median(float(p[k]) for p in parts):.2f}" for k in keys))
PY
