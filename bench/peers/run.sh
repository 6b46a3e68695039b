#!/usr/bin/env bash
# Runs ddsmc, SPIN and Rumur side by side on the flooding protocol
# (examples/flooding.d2c; bench/peers/flooding.pml and flooding.m are the
# same protocol for SPIN and Rumur) on ring:4 .. ring:MAX and prints a table:
# states, transitions, seconds, states/s, peak RSS, bytes per state, and the
# ratios ddsmc/SPIN and ddsmc/Rumur.
#
# Usage: bench/peers/run.sh [--quick] [--max-ring N] [--ddsmc-threads T] [--interpreted] [BUILD_DIR]
#   --quick       ring:4 and ring:5 only
#   --max-ring N  largest ring (default 8)
#   --ddsmc-threads T  also run ddsmc at T threads (row "ddsmc-T"), in the
#                 same run, against the peers' one thread
#   --interpreted also run ddsmc --backend interpreted on one thread (row
#                 "ddsmc-i"), against the compiled step (check's default)
#   BUILD_DIR     where ddsmc was built, relative to the repository root
#                 (default build)
#
# What is measured, the same way for every tool: wall-clock seconds and peak
# RSS (getrusage of the child) of the checking run alone.  SPIN's pan and
# Rumur's verifier are generated and compiled first, untimed in the table
# (their build time is the last column).  Every tool runs on one thread:
# ddsmc --threads 1, Rumur --threads 1, SPIN's pan is sequential. ddsmc's
# compiled step (check's default backend) is generated and compiled by an
# untimed run first (--max-states 1); its compile time is ddsmc's build
# column, as pan's and Rumur's are theirs.
#   ddsmc  check --property always-total: exploration plus the analysis of
#          one property (the peers only explore).
#   SPIN   spin -a -DN=n; pan compiled with -DSAFETY -DNOREDUCE (plain
#          exhaustive reachability, no partial-order reduction), hash table
#          (-w) sized to the state count, as pan's own hint would advise.
#          Two encodings: SPIN, flooding.pml (a process per node, a byte
#          per channel and per fact), and SPIN-p, flooding_packed.sh's
#          (one process, every channel and fact a bit of four N-bit
#          fields: the tightest we know, and the one ddsmc is measured
#          against, issue 22), with -w one larger (a table at most half
#          full: faster, as an expert would tune it for time).
#   Rumur  --deadlock-detection off (the final all-empty state has no
#          enabled rule), no symmetry (plain subrange indices), cc -O3.
# The "transitions" of the three tools mean different things (column kind):
#   edges  ddsmc: distinct (source, target, arc, stable) edges, including the
#          idle self-loop of the final all-empty state
#   s+m    SPIN: "transitions (= stored+matched)", i.e. every transition
#          explored plus one for the initial state
#   fired  Rumur: "rules fired", every transition explored
# On flooding every step serves a distinct arc, so edges = fired + 1 and
# s+m = fired + 1.  States must be equal for all three; a mismatch is flagged
# and makes the script exit 1.  A peer that is not installed is skipped.
# Peak RSS includes each program's fixed footprint, so bytes per state means
# something only for the larger rings.  Run it on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/../.."

quick=0
max_ring=8
ddsmc_threads=1
interpreted=0
build=build
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 ;;
    --max-ring) [ $# -ge 2 ] || { echo "run.sh: --max-ring needs a value" >&2; exit 2; }
                max_ring=$2; shift ;;
    --max-ring=*) max_ring=${1#--max-ring=} ;;
    --ddsmc-threads) [ $# -ge 2 ] || { echo "run.sh: --ddsmc-threads needs a value" >&2; exit 2; }
                     ddsmc_threads=$2; shift ;;
    --interpreted) interpreted=1 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) build=$1 ;;
  esac
  shift
done
[[ $max_ring =~ ^[0-9]+$ ]] && [ "$max_ring" -ge 4 ] || { echo "run.sh: --max-ring must be a number >= 4" >&2; exit 2; }
[[ $ddsmc_threads =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --ddsmc-threads must be a number >= 1" >&2; exit 2; }
if [ $quick -eq 1 ]; then rings=(4 5); else rings=($(seq 4 "$max_ring")); fi

bin=$build/ddsmc
[ -x "$bin" ] || { echo "run.sh: no $bin: run scripts/build first" >&2; exit 2; }
root=$(pwd)
here=$root/bench/peers
model=examples/flooding.d2c

cc=${CC:-cc}
have_spin=0; have_rumur=0
if ! command -v "$cc" >/dev/null; then
  echo "run.sh: no C compiler ($cc): SPIN and Rumur skipped"
elif ! command -v spin >/dev/null; then
  echo "run.sh: spin is not installed (apt-get install spin, or scripts/setup): SPIN skipped"
else
  have_spin=1
fi
if command -v "$cc" >/dev/null; then
  if command -v rumur >/dev/null; then have_rumur=1
  else echo "run.sh: rumur is not installed (apt-get install rumur, or scripts/setup): Rumur skipped"; fi
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ddsmc-peers.XXXXXX")
trap 'rm -rf "$work"' EXIT
rows=$work/rows.tsv
: >"$rows"

# measure OUT CMD...: runs CMD with stdout+stderr to OUT; prints
# "exit seconds peak_rss_bytes".  Peak RSS is getrusage's ru_maxrss of the
# child, which starts at its parent's RSS at fork, so the launcher is a small
# C program (about 1 MiB) rather than python (about 10 MiB), where a C
# compiler exists.
cat >"$work/measure.c" <<'C'
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
int main(int argc, char** argv) {
  if (argc < 3) return 2;
  int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) { perror(argv[1]); return 2; }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pid_t pid = fork();
  if (pid < 0) { perror("fork"); return 2; }
  if (pid == 0) {
    dup2(fd, 1); dup2(fd, 2); close(fd);
    execvp(argv[2], argv + 2);
    perror(argv[2]);
    _exit(127);
  }
  int status; struct rusage ru;
  if (wait4(pid, &status, 0, &ru) < 0) { perror("wait4"); return 2; }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  printf("%d %.6f %lld\n", rc, (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
         (long long)ru.ru_maxrss * 1024);
  return 0;
}
C
if "$cc" -O2 -o "$work/measure" "$work/measure.c" 2>/dev/null; then
  measure() { "$work/measure" "$@"; }
else
  echo "run.sh: no C compiler: peak RSS measured through python (each value includes about 10 MiB of python)"
  measure() {
    python3 - "$@" <<'PY'
import os, subprocess, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
with open(out, "w") as f:
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT)
    _, status, ru = os.wait4(p.pid, 0)
    secs = time.perf_counter() - t0
print(os.waitstatus_to_exitcode(status), f"{secs:.6f}", ru.ru_maxrss * 1024)
PY
  }
fi

# row TOOL RING STATES TRANSITIONS KIND SECONDS RSS BUILD_SECONDS NOTE
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$rows"; }

now() { python3 -c 'import time; print(time.perf_counter())'; }
since() { python3 -c "import sys, time; print(f'{time.perf_counter() - float(sys.argv[1]):.2f}')" "$1"; }

run_ddsmc() {  # ring [threads [backend]]
  local n=$1 threads=${2:-1} backend=${3:-auto}
  local out=$work/ddsmc-$n-$threads-$backend.json tool=ddsmc built=-
  [ "$threads" -eq 1 ] || tool=ddsmc-$threads
  [ "$backend" = auto ] || tool=ddsmc-i
  if [ "$backend" = auto ] && [ "$threads" -eq 1 ]; then
    # Untimed: generates and compiles the step into the cache (or finds it there).
    local cache=$work/step-cache
    DDSMC_CACHE_DIR=$cache "$bin" check "$model" --network "ring:$n" --max-states 1 --json "$work/warm.json" \
      >/dev/null 2>&1 || true
    built=$(python3 -c 'import json, sys; print("%.2f" % json.load(open(sys.argv[1]))["stats"]["compile_seconds"])' \
              "$work/warm.json" 2>/dev/null || echo -)
  fi
  read -r rc secs rss < <(DDSMC_CACHE_DIR=$work/step-cache measure "$work/ddsmc-$n-$threads-$backend.log" "$bin" check \
                                  "$model" --network "ring:$n" --symmetry none --property always-total --threads "$threads" \
                                  --backend "$backend" --json "$out")
  local counts
  counts=$(python3 -c '
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    print(d["states"], d["transitions"], "complete" if d.get("complete", True) else "INCOMPLETE")
except Exception as e:
    print("? ? unreadable")' "$out")
  read -r states trans note <<<"$counts"
  [ "$rc" -eq 0 ] || note="exit $rc"
  [ "$note" = complete ] && note=""
  row "$tool" "$n" "$states" "$trans" edges "$secs" "$rss" "$built" "$note"
  [ "$threads" -ne 1 ] || ddsmc_states=$states
}

run_spin() {  # ring states_hint [packed]
  local n=$1 hint=$2 packed=${3:-} dir t w tool=SPIN
  [ -z "$packed" ] || tool=SPIN-p
  dir=$work/$tool-$n
  mkdir -p "$dir"
  t=$(now)
  if [ -n "$packed" ]; then
    "$here/flooding_packed.sh" "$n" >"$dir/flooding.pml"
  else
    cp "$here/flooding.pml" "$dir/flooding.pml"
  fi
  if ! (cd "$dir" && spin -DN="$n" -a flooding.pml >spin.log 2>&1 \
        && "$cc" -O2 -w -DSAFETY -DNOREDUCE -o pan pan.c >cc.log 2>&1); then
    row "$tool" "$n" ? ? s+m 0 0 - "build failed ($dir)"; cat "$dir"/*.log >&2; return
  fi
  local built; built=$(since "$t")
  # -w: log2 of the hash table's slots, at least the state count (pan's default is 19)
  w=19
  if [[ $hint =~ ^[0-9]+$ ]]; then while [ $((1 << w)) -lt "$hint" ]; do w=$((w + 1)); done; fi
  # SPIN-p tuned for time: a table at most half full (ring:10: 19.1 s and
  # 374 MiB at -w24 against 20.8 s and 310 MiB at -w23)
  [ -z "$packed" ] || w=$((w + 1))
  read -r rc secs rss < <(cd "$dir" && measure pan.out ./pan -m100000 -w"$w")
  local states trans errors note=""
  states=$(sed -n 's/^ *\([0-9]*\) states, stored.*/\1/p' "$dir/pan.out")
  trans=$(sed -n 's/^ *\([0-9]*\) transitions (= stored+matched).*/\1/p' "$dir/pan.out")
  errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$dir/pan.out")
  [ "$errors" = 0 ] || note="errors: ${errors:-?}"
  [ "$rc" -eq 0 ] || note="exit $rc $note"
  row "$tool" "$n" "${states:-?}" "${trans:-?}" s+m "$secs" "$rss" "$built" "$note"
}

run_rumur() {  # ring
  local n=$1 dir=$work/rumur-$1 t
  mkdir -p "$dir"
  t=$(now)
  sed "s/^const N: .*;/const N: $n;/" "$here/flooding.m" >"$dir/flooding.m"
  if ! (cd "$dir" && rumur --quiet --deadlock-detection off --threads 1 --output flooding.c flooding.m >rumur.log 2>&1 \
        && "$cc" -std=c11 -O3 -w -o flooding flooding.c -lpthread >cc.log 2>&1); then
    row Rumur "$n" ? ? fired 0 0 - "build failed ($dir)"; cat "$dir"/*.log >&2; return
  fi
  local built; built=$(since "$t")
  read -r rc secs rss < <(cd "$dir" && measure rumur.out ./flooding)
  local states trans note=""
  read -r states trans < <(sed -n 's/^[[:space:]]*\([0-9]*\) states, \([0-9]*\) rules fired.*/\1 \2/p' "$dir/rumur.out")
  grep -q "No error found" "$dir/rumur.out" || note="error reported"
  [ "$rc" -eq 0 ] || note="exit $rc $note"
  row Rumur "$n" "${states:-?}" "${trans:-?}" fired "$secs" "$rss" "$built" "$note"
}

for n in "${rings[@]}"; do
  echo "ring:$n ..." >&2
  ddsmc_states=?
  run_ddsmc "$n"
  if [ "$ddsmc_threads" -ne 1 ]; then run_ddsmc "$n" "$ddsmc_threads"; fi
  if [ $interpreted -eq 1 ]; then run_ddsmc "$n" 1 interpreted; fi
  if [ $have_spin -eq 1 ]; then run_spin "$n" "$ddsmc_states"; run_spin "$n" "$ddsmc_states" packed; fi
  if [ $have_rumur -eq 1 ]; then run_rumur "$n"; fi
done

python3 - "$rows" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
def num(s):
    try: return float(s)
    except ValueError: return None
def fmt_int(s):
    v = num(s)
    return f"{int(v):,}" if v is not None else s
print("flooding, one thread per tool (ddsmc-T: T threads); seconds and peak RSS of the checking run "
      "(build: generate + compile the peer's verifier)")
head = (f"{'ring':<5} {'tool':<8} {'states':>11} {'transitions':>12} {'kind':<5} {'seconds':>8} "
        f"{'states/s':>12} {'peak RSS MiB':>12} {'B/state':>9} {'build s':>7}  note")
print(head)
print("-" * len(head))
by = {}
bad = 0
for tool, ring, states, trans, kind, secs, rss, built, note in rows:
    s, t, r = num(states), num(secs), num(rss)
    by[(ring, tool)] = (s, t, r)
    rate = f"{s / t:,.0f}" if s and t else "?"
    bps = f"{r / s:,.1f}" if s and r else "?"
    print(f"{ring:<5} {tool:<8} {fmt_int(states):>11} {fmt_int(trans):>12} {kind:<5} {t or 0:8.3f} "
          f"{rate:>12} {(r or 0) / 2**20:12.1f} {bps:>9} {built:>7}  {note}")
rings = sorted({r for r, _ in by}, key=int)
peers = [p for p in ("SPIN", "SPIN-p", "Rumur") if any((r, p) in by for r in rings)]
if peers:
    print()
    print("ratios ddsmc/peer (> 1: ddsmc takes more): seconds, peak RSS; states equal?")
    ours = sorted({t for _, t in by if t.startswith("ddsmc")}, key=len)
    for ring in rings:
        for tool in ours:
            d = by.get((ring, tool))
            parts = []
            for p in peers:
                q = by.get((ring, p))
                if not d or not q:
                    continue
                same = d[0] is not None and d[0] == q[0]
                bad += not same
                ts = f"{d[1] / q[1]:6.2f}" if d[1] and q[1] else "     ?"
                rs = f"{d[2] / q[2]:6.2f}" if d[2] and q[2] else "     ?"
                parts.append(f"{tool}/{p}: seconds {ts}  RSS {rs}  states {'equal' if same else 'DIFFER'}")
            if parts:
                print(f"ring:{ring:<3} " + "   ".join(parts))
    if bad:
        print(f"\n{bad} state count(s) differ from ddsmc's")
sys.exit(1 if bad else 0)
PY
