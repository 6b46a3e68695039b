#!/usr/bin/env bash
# Instructions per transition of the exploration, one thread, by part of
# the hot path: callgrind counts the instructions executed inside
# engine::explore (--toggle-collect), which are then grouped by function:
# step (rule evaluation and the step around it), encode/decode (state
# encodings, copies), store (tree store, visited set, hashing, compares),
# canonical (fresh-constant canonical form), graph (edge rows, labels,
# levels), malloc, compiled step (the generated object of the compiled
# back-end, check's default, and its wrapper), other. Instruction counts do
# not depend on the machine's load, unlike times. Add --backend interpreted
# to a CHECK to count the interpreter instead.
#
# Usage: bench/instructions.sh [BUILD_DIR [OUTDIR]] [-- CHECK ...]
#   BUILD_DIR  default build (runs BUILD_DIR/ddsmc, a Release build)
#   OUTDIR     default BUILD_DIR/bench-instructions: instructions.csv (one
#              row per check and part), instructions.txt (the table), and
#              the callgrind files
#   CHECK      "MODEL [ARGS]" strings, default: flooding ring:6 and ring:8,
#              leader_election (its ring:3), relay (fresh input values)
# Needs valgrind (Debian valgrind). ring:8 takes about two minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-$build/bench-instructions}
checks=("examples/flooding.d2c --network ring:6" "examples/flooding.d2c --network ring:8"
        "examples/leader_election.d2c" "examples/relay.d2c")
if [ "${3:-}" = "--" ]; then shift 3; checks=("$@"); fi
command -v valgrind >/dev/null || { echo "bench/instructions.sh: needs valgrind" >&2; exit 2; }
mkdir -p "$out"
rows=()
for c in "${checks[@]}"; do
  tag=$(echo "$c" | sed 's#examples/##; s#\.d2c##; s#[ :/-]\+#_#g')
  # shellcheck disable=SC2086
  valgrind --tool=callgrind --callgrind-out-file="$out/$tag.callgrind" --toggle-collect='ddsmc::engine::explore(*' \
    "$build/ddsmc" check $c --symmetry none --threads 1 --json "$out/$tag.json" >/dev/null 2>"$out/$tag.valgrind" || true
  callgrind_annotate --threshold=100 "$out/$tag.callgrind" >"$out/$tag.annotate" 2>/dev/null
  rows+=("$tag|$c")
done
python3 - "$out" "${rows[@]}" <<'PY'
import json, re, sys
out, rows = sys.argv[1], sys.argv[2:]
parts = [
    # the compiled step (--backend compiled or auto): the generated object's functions, the std::vector code inlined there, the wrapper
    ("compiled step", r"step-[0-9a-f]+\.so|CompiledStepEvaluator"),
    ("canonical", r"canonical|Canonical|refine|nauty|twins|individuali"),
    ("store", r"TreeStore|IdTable|StateStore|XXH3|memcmp|intern|find_or_claim"),
    ("encode/decode", r"encode|decode|sort_runs|materialize|memcpy|memmove|memset|vector<std::vector<unsigned int.*operator=|scratch_tree|GlobalState"),
    ("graph", r"EdgeStore|make_row|StateGraph|Slice::|KeyOrder::|LocalRouter::|labels_of|faulty|introsort|Candidate"),
    ("malloc", r"malloc|free|operator new|operator delete|_int_"),
    ("step", r"StepEvaluator|for_each_fact|Relation::|derive|transport|head_tuple|match_literal|InputEnumerator|send_messages|channel_|check_db_bound|check_channel_bound|SuccessorGenerator|Expander|Step"),
]
csv = ["check,part,instructions,per_transition"]
text = []
for row in rows:
    tag, check = row.split("|", 1)
    j = json.load(open(f"{out}/{tag}.json"))
    transitions = j["transitions"]
    totals, total = {}, 0
    for line in open(f"{out}/{tag}.annotate"):
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)", line)
        if not m or "PROGRAM TOTALS" in line:
            continue
        ir, fn = int(m.group(1).replace(",", "")), m.group(2)
        part = next((p for p, rx in parts if re.search(rx, fn)), "other")
        totals[part] = totals.get(part, 0) + ir
        total += ir
    text.append(f"{check}: {j['states']} states, {transitions} transitions, "
                f"{total / transitions:,.0f} instructions per transition")
    for p in [p for p, _ in parts] + ["other"]:
        v = totals.get(p, 0)
        csv.append(f"{tag},{p},{v},{v / transitions:.1f}")
        text.append(f"  {p:14s} {v / transitions:8,.0f}  {100 * v / max(total, 1):5.1f} %")
    csv.append(f"{tag},total,{total},{total / transitions:.1f}")
open(f"{out}/instructions.csv", "w").write("\n".join(csv) + "\n")
open(f"{out}/instructions.txt", "w").write("\n".join(text) + "\n")
print("\n".join(text))
PY
