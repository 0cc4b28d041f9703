#!/bin/sh
# test_stats.sh TORCHFL LOGREG - op statistics and the fallback policy, end
# to end on the CUDA example (examples/logreg_train.cu: 200 steps, three
# kernels launched once per step, none in the op table).
set -u
tfl=$1 prog=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

TORCHFL_STATS=$tmp/s.json "$tfl" run -- "$prog" >"$tmp/out" 2>"$tmp/err" ||
    fail "example failed: $(tail -3 "$tmp/err")"
python3 - "$tmp/s.json" <<'PY' || fail "statistics content"
import json, sys
d = json.load(open(sys.argv[1]))
ops = {o["name"]: o for o in d["ops"]}
assert d["backend"] == "host", d["backend"]
for k in ("_Z7forwardPKfS0_fPfii", "_Z8gradientPKfS0_S0_PfS1_ii", "_Z6updatePfS_PKffi"):
    o = ops[k]
    assert o["family"] == "unmapped", o
    assert o["calls"] == 200 and o["host_executor_calls"] == 200, o
    assert o["native_calls"] == 0 and o["refused_calls"] == 0, o
    assert o["time_ns"] == o["host_executor_ns"] > 0, o
assert d["fallback_share"] > 0.99, d["fallback_share"]
PY
"$tfl" stats "$tmp/s.json" >"$tmp/table" || fail "torchfl stats"
grep -q '_Z8gradientPKfS0_S0_PfS1_ii' "$tmp/table" || fail "table lists the kernels"
grep -q 'in the host executor' "$tmp/table" || fail "table header"

# warn (the default) warns once per kernel; strict refuses, naming it
grep -c 'not in the op table' "$tmp/err" | grep -qx 3 || fail "one warning per kernel"
TORCH_FL_FALLBACK_MODE=strict "$tfl" run -- "$prog" >"$tmp/out" 2>"$tmp/err" &&
    fail "strict mode must refuse unmapped kernels"
grep -q '_Z7forwardPKfS0_fPfii is not in the op table.*strict' "$tmp/err" ||
    fail "strict message: $(tail -2 "$tmp/err")"
TORCH_FL_FALLBACK_MODE=silent "$tfl" run -- "$prog" >"$tmp/out" 2>"$tmp/err" ||
    fail "silent mode run"
[ -s "$tmp/err" ] && fail "silent mode printed: $(head -2 "$tmp/err")"
echo ok
