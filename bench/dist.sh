#!/usr/bin/env bash
# MPI scaling of `ddsmc check` on this machine: flooding (all four
# properties) on ring:N, as one process and under mpirun, with repetitions
# taken in turn (one configuration after the other, again and again) so that
# the machine's noise falls on all of them alike. Configurations:
#   single-1t  ddsmc --threads 1 (no MPI)
#   single-2t  ddsmc --threads 2 (no MPI)
#   np1-1t     mpirun -np 1 ddsmc --threads 1 (the distributed engine)
#   np2-1t     mpirun -np 2 ddsmc --threads 1
#   np4-1t     mpirun -np 4 ddsmc --threads 1 (with --np4; oversubscribed on
#              a 2-core machine: 4 ranks share 2 cores)
#   np2-1t:RULE, np4-1t:RULE  the same with --partition-key RULE (with
#              --also-key RULE, to set another partition beside the default)
# Writes OUTDIR/dist.csv (one row per run: wall seconds, CPU seconds of all
# processes together, exploration and analysis seconds, rank 0's peak RSS
# and the largest process's over the whole run, bytes sent, states, transitions, successors and
# those that crossed ranks, rank 0's successors, crossing successors and
# offers processed, rank 0's time by part) and prints the medians: wall,
# CPU, crossing fraction, bytes sent per transition, per-rank peak RSS,
# rank 0's microseconds per successor it expanded (expand time over its
# successors) and per offer it processed as owner (offers time over
# them), the speedups, and the largest process's peak by part (the graph
# of the rank that owns the most states, by part; its global ids; the
# rest). Exits 1 if states or transitions differ.
#
# Usage: bench/dist.sh [--reps N] [--ring N] [--np4] [--also-key RULE] [BUILD_DIR [OUTDIR]]
#   --reps N  repetitions per configuration, default 3
#   --ring N  flooding ring size, default 9 (10 takes about a minute per run)
#   --np4     also run 4 ranks (oversubscribed here)
#   --also-key RULE  also run the ranks with --partition-key RULE (all: the
#             partition by every part, as before 2026-12-06)
set -euo pipefail
cd "$(dirname "$0")/.."

reps=3
ring=9
np4=0
also_key=""
positional=()
while [ $# -gt 0 ]; do
  case $1 in
    --reps) reps=${2:?--reps takes a number}; shift ;;
    --ring) ring=${2:?--ring takes a number}; shift ;;
    --np4) np4=1 ;;
    --also-key) also_key=${2:?--also-key takes a partition key}; shift ;;
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
echo "config,rep,wall_seconds,cpu_seconds,seconds,analysis_seconds,peak_rss_bytes,max_rank_peak_rss_bytes,bytes_sent,states,transitions,successors,crossing,rank0_successors,rank0_crossing,rank0_offers,rank0_seconds,largest_rank_states,largest_rank_graph" > "$csv"

run() {  # config rep
  local cfg=$1 rep=$2 json=$out/run.json cmd key=()
  case $cfg in *:*) key=(--partition-key "${cfg#*:}") ;; esac
  case ${cfg%%:*} in
    single-1t) cmd=("$bin" check "$model" --network "ring:$ring" --symmetry none --threads 1) ;;
    single-2t) cmd=("$bin" check "$model" --network "ring:$ring" --symmetry none --threads 2) ;;
    np1-1t) cmd=("${mpi[@]}" -np 1 "$bin" check "$model" --network "ring:$ring" --symmetry none --threads 1) ;;
    np2-1t) cmd=("${mpi[@]}" -np 2 "$bin" check "$model" --network "ring:$ring" --symmetry none --threads 1) ;;
    np4-1t) cmd=("${mpi[@]}" -np 4 "$bin" check "$model" --network "ring:$ring" --symmetry none --threads 1) ;;
  esac
  cmd+=("${key[@]}")
  # (CPU seconds and the largest peak RSS: the children's, which covers
  # mpirun's ranks: they are its children, waited for; ru_maxrss is the
  # largest one process reached over the whole run, analysis included)
  python3 - "$cfg" "$rep" "$json" "${cmd[@]}" >> "$csv" <<'PY'
import json, resource, subprocess, sys, time
cfg, rep, path, cmd = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
t0 = time.time()
subprocess.run(cmd + ["--json", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
wall = time.time() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
j = json.load(open(path))
s = j["stats"]
parts = ";".join(f"{k}={v:.3f}" for k, v in sorted(s.get("rank0_seconds", {}).items()))
g = lambda k: s.get(k, 0)
# the rank that owns the most states, and its graph's bytes by part
owned = s.get("rank_states", [j["states"]])
big = max(range(len(owned)), key=lambda r: owned[r])
graph = s.get("rank_memory", [s["memory"]])[big]
graph = ";".join(f"{k}={v}" for k, v in sorted(graph.items()))
print(f"{cfg},{rep},{wall:.3f},{ru.ru_utime + ru.ru_stime:.3f},{s['seconds']:.3f},{s['analysis_seconds']:.3f},"
      f"{s['peak_rss_bytes']},{ru.ru_maxrss * 1024},{g('bytes_sent')},{j['states']},{j['transitions']},"
      f"{g('successors')},{g('crossing_successors')},{g('rank0_successors')},{g('rank0_crossing_successors')},"
      f"{g('rank0_offers_processed')},{parts},{owned[big]},{graph}")
PY
}

configs=(single-1t np1-1t np2-1t single-2t)
[ "$np4" = 1 ] && configs+=(np4-1t)
if [ -n "$also_key" ]; then
  configs+=("np2-1t:$also_key")
  [ "$np4" = 1 ] && configs+=("np4-1t:$also_key")
fi
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
print(f"{'config':14} {'wall s':>7} {'CPU s':>7} {'explore s':>9} {'analysis s':>10} {'rank0 RSS MiB':>13} "
      f"{'max rank MiB':>12} {'crossing':>8} {'sent B/trans':>12} {'us/succ r0':>10} {'us/offer r0':>11}")
def parts_of(r):
    return dict(p.split("=") for p in r["rank0_seconds"].split(";") if p)
def per(c, part, count):  # rank 0's microseconds per counted item, median over the runs
    v = [float(parts_of(r).get(part, 0)) * 1e6 / float(r[count]) for r in by[c] if float(r[count]) > 0]
    return statistics.median(v) if v else float("nan")
for c in by:
    succ = med(c, 'successors')
    crossing = med(c, 'crossing') / succ if succ else float("nan")
    print(f"{c:14} {med(c,'wall_seconds'):7.2f} {med(c,'cpu_seconds'):7.2f} {med(c,'seconds'):9.2f} "
          f"{med(c,'analysis_seconds'):10.2f} {med(c,'peak_rss_bytes')/2**20:13.0f} "
          f"{med(c,'max_rank_peak_rss_bytes')/2**20:12.0f} {crossing:8.3f} "
          f"{med(c,'bytes_sent')/float(r0['transitions']):12.1f} {per(c,'expand','rank0_successors'):10.3f} "
          f"{per(c,'offers','rank0_offers'):11.3f}")
print(f"np2-1t vs np1-1t: {med('np1-1t','wall_seconds')/med('np2-1t','wall_seconds'):.2f}x wall, "
      f"{med('np1-1t','seconds')/med('np2-1t','seconds'):.2f}x exploration")
print(f"np2-1t vs single-2t: {med('np2-1t','wall_seconds')/med('single-2t','wall_seconds'):.2f}x the wall of two threads")
print(f"np2-1t vs single-1t: {med('single-1t','wall_seconds')/med('np2-1t','wall_seconds'):.2f}x wall; "
      f"single-2t vs single-1t: {med('single-1t','wall_seconds')/med('single-2t','wall_seconds'):.2f}x wall")
for c in [c for c in by if c.startswith("np2-1t:")]:
    print(f"{c} vs np1-1t: {med('np1-1t','wall_seconds')/med(c,'wall_seconds'):.2f}x wall")
for c in [c for c in by if c.startswith("np4-1t")]:
    print(f"{c} (oversubscribed): largest rank's peak RSS {med(c,'max_rank_peak_rss_bytes')/med('single-1t','peak_rss_bytes'):.2f} of one process's")
# The largest process's peak by part: the graph of the rank that owns the
# most states (stats.rank_memory), its 8-byte global ids, and the rest (the
# process and MPI, and the exploration's per-slice buffers).
for c in by:
    graphs = [dict(p.split("=") for p in r["largest_rank_graph"].split(";")) for r in by[c]]
    mib = lambda k: statistics.median(float(g[k]) for g in graphs) / 2**20
    ids = 0 if c.startswith("single") else med(c, "largest_rank_states") * 8 / 2**20
    rest = med(c, "max_rank_peak_rss_bytes") / 2**20 - mib("total") - ids
    print(f"{c} largest peak {med(c,'max_rank_peak_rss_bytes')/2**20:.0f} MiB: graph {mib('total'):.0f} (edges "
          f"{mib('edge_rows') + mib('edge_index'):.0f}, tree {mib('tree_nodes') + mib('tree_leaves'):.0f}, visited/roots/labels "
          f"{mib('visited') + mib('roots') + mib('labels'):.0f}), global ids {ids:.0f}, the rest {rest:.0f} "
          f"({med(c,'largest_rank_states'):.0f} states)")
for c in [c for c in by if c.startswith("np")]:
    parts = [parts_of(r) for r in by[c]]
    keys = sorted(parts[0]) if parts and parts[0] else []
    print(f"{c} rank 0 by part (median s): " + ", ".join(f"{k} {statistics.median(float(p[k]) for p in parts):.2f}" for k in keys))
PY
