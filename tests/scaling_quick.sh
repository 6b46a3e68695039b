#!/usr/bin/env bash
# CTest ScalingQuick: `scripts/scaling --quick` on the built ddsmc must exit 0
# (every run ok, the same states and transitions at every configuration),
# write one CSV row per run, every row "ok", and non-empty plots.
# Usage: tests/scaling_quick.sh DDSMC_BINARY OUTDIR
set -euo pipefail
bin=${1:?usage: scaling_quick.sh DDSMC_BINARY OUTDIR}
out=${2:?usage: scaling_quick.sh DDSMC_BINARY OUTDIR}
root=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "ScalingQuick: FAIL: $*" >&2; exit 1; }

rm -rf "$out"
bash "$root/scripts/scaling" --quick --bin "$bin" "$out" || fail "scripts/scaling --quick exited $?"

csv=$out/scaling.csv
[ -s "$csv" ] || fail "no $csv"
# --quick: strong 1x1 1x2 2x1 and weak 1 and 2 ranks, one repetition each.
rows=$(($(wc -l < "$csv") - 1))
[ "$rows" -eq 5 ] || fail "$csv has $rows runs, not 5"
header=$(head -n 1 "$csv")
[[ $header == mode,model,network,ranks,threads,* ]] || fail "unexpected header: $header"
status_col=$(tr , '\n' <<< "$header" | grep -nx status | cut -d: -f1)
bad=$(tail -n +2 "$csv" | cut -d, -f"$status_col" | grep -cvx ok || true)
[ "$bad" -eq 0 ] || fail "$bad runs not ok in $csv"
for mode in strong weak; do
  [ "$(grep -c "^$mode," "$csv")" -gt 0 ] || fail "no $mode rows in $csv"
  png=$out/scaling-$mode.png
  [ -s "$png" ] || fail "no plot $png (is python3-matplotlib installed?)"
  [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$png is not a PNG"
done
echo "ScalingQuick: ok ($rows runs, plots in $out)"
