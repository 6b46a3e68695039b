#!/usr/bin/env bash
# Steps and rules far larger than usual: one step deriving n*n facts from
# 2n init facts, and one rule with a k-literal body. Prints the exploration
# seconds ddsmc reports and the wall time of the whole `check`, for each
# binary given (side by side in one run; the default is build/ddsmc).
# Usage: bench/large_steps.sh [DDSMC_BINARY...]
set -euo pipefail
cd "$(dirname "$0")/.."
bins=("$@")
[ ${#bins[@]} -gt 0 ] || bins=(build/ddsmc)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

product() {  # n: state a/1, b/1 with n facts each; p(X, Y) for all pairs in one step
  python3 - "$1" > "$dir/product_$1.d2c" <<'PY'
import sys
n = int(sys.argv[1])
init = " ".join(f"a({i}). b({i})." for i in range(1, n + 1))
print(f"""state a/1, b/1, p/2.
transport go/0.
a(X) if prev a(X).
b(X) if prev b(X).
p(X, Y) if prev a(X), prev b(Y).
network {{ n. }}
init {{ {init} }}""")
PY
}
long_body() {  # k: one rule whose body is a chain of k literals
  python3 - "$1" > "$dir/body_$1.d2c" <<'PY'
import sys
k = int(sys.argv[1])
body = ", ".join(f"q(X{i}, X{i + 1})" for i in range(k))
print(f"""state q/2, r/1.
r(X0) if {body}.
q(X, Y) if prev q(X, Y).
network {{ n. }}""")
PY
}

run() {  # label model
  for bin in "${bins[@]}"; do
    local t0 t1 explore
    t0=$EPOCHREALTIME
    explore=$(timeout 900 "$bin" check "$2" --symmetry none --json - 2>/dev/null | python3 -c 'import json,sys; print("%.2f" % json.load(sys.stdin)["stats"]["seconds"])' || echo "timeout")
    t1=$EPOCHREALTIME
    printf '%-28s %-28s explore %8s s   check %8.2f s\n' "$1" "$bin" "$explore" "$(awk "BEGIN { print $t1 - $t0 }")"
  done
}

for n in 150 300 450; do product $n; run "derive $((n * n)) facts" "$dir/product_$n.d2c"; done
for k in 25000 50000 100000; do long_body $k; run "$k-literal body" "$dir/body_$k.d2c"; done
