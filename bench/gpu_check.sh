#!/usr/bin/env bash
# gpu_check.sh - the OpenCL backend on a real NVIDIA GPU against native
# PyTorch CUDA on the same GPU, in one run.
#
#   bench/gpu_check.sh [PYTHON]        (default: the newest validated torch's
#                                       venv, scripts/setup_venv.sh)
#
# For a machine with an NVIDIA GPU and its driver (the device tool, when a
# session is lent one).  Needs a built torchfl in build/ with
# libtorchfl-opencl.so.  If the image has no OpenCL ICD file for NVIDIA's
# driver, this writes /etc/OpenCL/vendors/nvidia.icd naming
# libnvidia-opencl.so.1 (root needed).  Then, per example (mlp, gpt, cnn):
#   1. the script on native PyTorch CUDA (no preload): losses and step time;
#   2. the same script on cuda under torchfl with FL_BACKEND=opencl on the
#      GPU (TORCHFL_OPENCL_DEVICE_TYPE=gpu): losses, step time, and the share
#      of op calls that ran natively (TORCHFL_STATS);
# checks that every step's loss agrees within 1e-3 relative (two different
# GEMM libraries on the same fp32 data) and prints the step-time ratio
# torchfl-opencl / native.  Exit 0 when all agree, 1 otherwise, 2 when the
# machine has no NVIDIA OpenCL device.  Record what it printed in
# docs/backend-opencl.md.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${1:-$(bash scripts/setup_venv.sh newest 2>/dev/null)/bin/python}
[ -x "$PY" ] || { echo "gpu_check: no python at $PY" >&2; exit 2; }
[ -f build/libtorchfl-opencl.so ] || { echo "gpu_check: build/libtorchfl-opencl.so missing" >&2; exit 2; }

if [ ! -e /etc/OpenCL/vendors/nvidia.icd ] && ldconfig -p 2>/dev/null | grep -q libnvidia-opencl.so.1; then
    mkdir -p /etc/OpenCL/vendors && echo libnvidia-opencl.so.1 >/etc/OpenCL/vendors/nvidia.icd ||
        echo "gpu_check: cannot write /etc/OpenCL/vendors/nvidia.icd" >&2
fi
export TORCHFL_OPENCL_DEVICE_TYPE=gpu TORCHFL_OPENCL_PLATFORM=NVIDIA
if ! build/torchfl detect 2>/dev/null | grep -Eq '^opencl +ready'; then
    echo "gpu_check: no NVIDIA OpenCL device (torchfl detect):" >&2
    build/torchfl detect 2>&1 | grep -i opencl >&2
    exit 2
fi
build/torchfl detect | grep -i 'opencl'

STEPS=${STEPS:-30}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for ex in mlp_classifier gpt_tiny cnn_classifier; do
    args=(examples/$ex.py --device cuda --steps "$STEPS" --seed 0 --log-every 1)
    "$PY" "${args[@]}" >"$tmp/native.txt" 2>&1 || { echo "$ex: native run failed"; tail -5 "$tmp/native.txt"; status=1; continue; }
    FL_BACKEND=opencl TORCH_FL_FALLBACK_MODE=silent TORCHFL_STATS="$tmp/stats.json" \
        build/torchfl run -- "$PY" "${args[@]}" >"$tmp/ocl.txt" 2>&1 ||
        { echo "$ex: torchfl opencl run failed"; tail -5 "$tmp/ocl.txt"; status=1; continue; }
    "$PY" - "$ex" "$tmp/native.txt" "$tmp/ocl.txt" "$tmp/stats.json" <<'PY' || status=1
import json, re, sys
ex, nat, ocl, stats = sys.argv[1:]
step = re.compile(r"^step\s+(\d+)\s+loss\s+(\S+)$", re.M)
total = re.compile(r"\((\d+) steps on \S+, ([0-9.]+) s\)")
def read(p):
    t = open(p).read()
    losses = {int(s): float(v) for s, v in step.findall(t)}
    m = total.search(t)
    return losses, (float(m.group(2)) / int(m.group(1)) if m else float("nan"))
a, ta = read(nat)
b, tb = read(ocl)
bad = [s for s in a if s not in b or abs(a[s] - b[s]) > 1e-3 * abs(a[s])]
d = json.load(open(stats))
calls = sum(o["calls"] for o in d["ops"])
native = sum(o["native_calls"] for o in d["ops"])
print(f"{ex:<16} steps {len(a):>3}  loss agree: {'yes' if not bad else 'NO at steps ' + str(bad[:5])}"
      f"  step native {ta * 1e3:8.2f} ms  opencl {tb * 1e3:8.2f} ms  ratio {tb / ta:6.2f}"
      f"  native op calls {100 * native / max(calls, 1):5.1f}%")
sys.exit(1 if bad else 0)
PY
done
exit $status
