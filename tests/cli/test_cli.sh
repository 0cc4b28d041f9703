#!/bin/sh
# test_cli.sh MODE TORCHFL LIBTORCHFL PLUGIN_DIR VERSION - checks of the
# torchfl command.  JSON is checked with python3's json module, not by
# pattern, so malformed output fails.
set -u
mode=$1 tfl=$2 lib=$3 plugdir=$4 version=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL ($mode): $*" >&2; exit 1; }
unset FL_BACKEND TORCHFL_PLUGIN_PATH TORCH_FL_STREAM_NUM TORCH_FL_MEM_POOL_SIZE \
      TORCH_FL_FALLBACK_MODE TORCH_FL_FALLBACK_DEVICE TORCH_FL_OP_BLACKLIST \
      TORCHFL_LOG TORCHFL_STATS FAKE_PROBE_FAIL
export FAKE_PRIORITY=1000000  # the test plugin outranks any real one

case $mode in
detect)
    "$tfl" detect >"$tmp/out" 2>"$tmp/err" || fail "exit status $?"
    grep -Eq '^host +ready ' "$tmp/out" || fail "no ready host row: $(cat "$tmp/out")"
    grep -q 'backend = auto -> host' "$tmp/out" || fail "host not selected"
    for b in nvidia rocm ascend cambricon musa opencl; do
        grep -Eq "^$b " "$tmp/out" || fail "no row for $b"
    done
    grep -q '^CPU: .*cores' "$tmp/out" || fail "no CPU line"
    [ -s "$tmp/err" ] && fail "unexpected stderr: $(cat "$tmp/err")"
    ;;
detect_json)
    "$tfl" detect --json >"$tmp/out" || fail "exit status $?"
    python3 -m json.tool "$tmp/out" >/dev/null || fail "not JSON: $(cat "$tmp/out")"
    python3 - "$tmp/out" "$version" <<'PY' || fail "JSON content"
import json, os, sys
d = json.load(open(sys.argv[1]))
assert d["torchfl_version"] == sys.argv[2], d["torchfl_version"]
assert d["selected"] == "host" and d["selected_error"] is None, d["selected"]
b = {x["name"]: x for x in d["backends"]}
h = b["host"]
assert h["status"] == "ready" and h["builtin"] and h["backend"], h
assert h["devices"] == 1 and len(h["chips"]) == 1, h
assert h["memory_bytes"] == os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"), h
for v in ("nvidia", "rocm", "ascend", "cambricon", "musa", "opencl"):
    assert b[v]["status"] in ("ready", "runtime found, no plugin", "not found",
                              "plugin not ready", "plugin unusable"), b[v]
assert d["cpu"]["cores"] == os.cpu_count(), d["cpu"]
assert d["cpu"]["blas"]["version"].startswith("OpenBLAS"), d["cpu"]["blas"]
# with PoCL installed and the plugin built (next to libtorchfl.so), the
# OpenCL backend is ready with PoCL's CPU device, and `auto` still picks
# the host over a CPU-only OpenCL device (negative priority)
if os.path.exists("/etc/OpenCL/vendors/pocl.icd"):
    o = b["opencl"]
    assert o["status"] == "ready" and o["backend"] and not o["builtin"], o
    assert o["library"].endswith("libtorchfl-opencl.so") and o["priority"] < 0, o
    assert o["devices"] == 1 and o["chips"][0]["name"].startswith("torchfl opencl ("), o
PY
    ;;
detect_plugins)
    TORCHFL_PLUGIN_PATH=$plugdir "$tfl" detect --json >"$tmp/out" || fail "exit $?"
    python3 - "$tmp/out" "$plugdir" <<'PY' || fail "JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["plugin_path"][0] == sys.argv[2], d["plugin_path"]
assert d["selected"] == "fake", d["selected"]  # highest priority
b = {x["name"]: x for x in d["backends"]}
f = b["fake"]
assert f["status"] == "ready" and f["devices"] == 2 and f["ops"] == 1, f
assert [c["name"] for c in f["chips"]] == ["Fake Accelerator 0", "Fake Accelerator 1"], f
assert f["memory_bytes"] == 2 << 30, f
assert b["fakeabi"]["status"] == "plugin unusable" and "ABI 2" in b["fakeabi"]["reason"]
assert b["noentry"]["status"] == "plugin unusable"
PY
    # a named backend that does not exist: detect still works, says why
    FL_BACKEND=nonexistent TORCHFL_PLUGIN_PATH=$plugdir "$tfl" detect >"$tmp/out" \
        || fail "exit $?"
    grep -q 'note: no usable backend: backend "nonexistent" not found' "$tmp/out" \
        || fail "no reason for nonexistent: $(cat "$tmp/out")"
    grep -q "$plugdir" "$tmp/out" || fail "search path not shown"
    ;;
run)
    out=$("$tfl" run -- sh -c 'echo $LD_PRELOAD') || fail "exit $?"
    [ "$out" = "$(realpath "$lib")" ] || fail "LD_PRELOAD=$out, want $lib"
    case $out in *libtorchfl.so) ;; *) fail "no libtorchfl.so in $out" ;; esac
    out=$(LD_PRELOAD=libc.so.6 "$tfl" run --backend host --config /dev/null \
          sh -c 'echo "$LD_PRELOAD|$FL_BACKEND|$TORCHFL_CONFIG"') || fail "exit $?"
    [ "$out" = "$(realpath "$lib"):libc.so.6|host|/dev/null" ] || fail "got $out"
    "$tfl" run -- sh -c 'exit 7'; rc=$?
    [ $rc -eq 7 ] || fail "exit status not passed through: $rc"
    "$tfl" run -- /nonexistent/cmd 2>"$tmp/err"; rc=$?
    [ $rc -eq 127 ] && grep -q 'cannot execute' "$tmp/err" || fail "missing cmd: $rc"
    "$tfl" run --config /nonexistent.conf -- true 2>"$tmp/err"; rc=$?
    [ $rc -eq 2 ] && grep -q 'cannot read config' "$tmp/err" || fail "bad config: $rc"
    "$tfl" run 2>/dev/null && fail "run without a command must fail"
    ;;
config)
    printf 'stream.num = 6\nfoo = 1\n[mem]\npool_size = 1.5G\n' >"$tmp/t.conf"
    TORCHFL_CONFIG=$tmp/t.conf TORCH_FL_FALLBACK_MODE=strict "$tfl" config \
        >"$tmp/out" 2>"$tmp/err" || fail "exit $?"
    grep -qx "torchfl: error: $tmp/t.conf:2: unknown key \"foo\"" "$tmp/err" \
        || fail "stderr: $(cat "$tmp/err")"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "logged more than once"
    grep -qx 'stream.num = 6' "$tmp/out" || fail "stream.num"
    grep -qx 'mem.pool_size = 1610612736' "$tmp/out" || fail "pool"
    grep -qx 'fallback.mode = strict' "$tmp/out" || fail "env override"
    # the printed config reads back to the same config, with no errors
    sed 1d "$tmp/out" >"$tmp/back.conf"
    TORCHFL_CONFIG=$tmp/back.conf "$tfl" config >"$tmp/out2" 2>"$tmp/err2"
    [ -s "$tmp/err2" ] && fail "re-read: $(cat "$tmp/err2")"
    sed 1d "$tmp/out2" | diff - "$tmp/back.conf" >/dev/null || fail "round trip"
    ;;
usage)
    [ "$("$tfl" --version)" = "torchfl $version" ] || fail "--version"
    "$tfl" --help | grep -q 'detect' || fail "--help"
    "$tfl" >/dev/null 2>&1 && fail "no command must fail"
    "$tfl" frobnicate 2>"$tmp/err" && fail "unknown command must fail"
    grep -q 'unknown command "frobnicate"' "$tmp/err" || fail "unknown command msg"
    "$tfl" stats "$tmp/none.json" 2>"$tmp/err"; rc=$?
    [ $rc -eq 1 ] && grep -q 'cannot read' "$tmp/err" || fail "stats of a missing file"
    echo '{"ops": 3}' >"$tmp/bad.json"
    "$tfl" stats "$tmp/bad.json" 2>"$tmp/err"; rc=$?
    [ $rc -eq 1 ] && grep -q 'not a torchfl statistics file' "$tmp/err" || fail "stats of a bad file"
    ;;
*)
    fail "unknown mode"
    ;;
esac
echo "ok ($mode)"
