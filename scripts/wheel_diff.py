#!/usr/bin/env python3
"""What changed between two PyTorch wheels, as far as torchfl is concerned.

For each wheel (given by the Python of its venv): torch and CUDA version,
cuDNN/NCCL it was built against, CUDA arch list, the CUDA-library symbols
it imports and looks up (scripts/wheel_symbols.py), and its sm_80 kernels as
the op table sees them (`build/torchfl wheel --list --unclaimed`: claimed,
validated, per family).  Then the differences: imports added/removed per
library, kernel names in common, and per family the kernels claimed in
each.  This is step 1 of taking on a new release (docs/op-table.md).

Usage:
  python3 scripts/wheel_diff.py OLD_PYTHON NEW_PYTHON [--torchfl build/torchfl]
  python3 scripts/wheel_diff.py --table PY...     one Markdown row per wheel
"""
import argparse
import collections
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

PROBE = r"""
import json, os, importlib.util, torch
lib = os.path.join(os.path.dirname(torch.__file__), "lib")
nccl = torch.cuda.nccl.version() if hasattr(torch.cuda, "nccl") else None
print(json.dumps({"torch": torch.__version__, "cuda": torch.version.cuda,
                  "cudnn": list(torch._C._cudnn.getCompileVersion()),
                  "nccl": list(nccl) if nccl else None,
                  "arch": torch._C._cuda_getArchFlags(), "lib": lib}))
"""


def wheel_info(python, torchfl):
    info = json.loads(subprocess.run([python, "-c", PROBE], check=True, capture_output=True,
                                     text=True).stdout.strip().splitlines()[-1])
    syms = json.loads(subprocess.run(
        [python, os.path.join(HERE, "wheel_symbols.py"), "--torch-lib", info["lib"],
         "--json", "-"], check=True, capture_output=True, text=True).stdout)
    info["imports"] = {lib: sorted(f"{x['name']}@{x['version']}" if x["version"] else x["name"]
                                   for x in rows) for lib, rows in syms["imports"].items()}
    info["lookups"] = sorted({f"{x['library']}:{x['name']}" for x in syms["lookups"]})
    p = subprocess.run([torchfl, "wheel", "--torch-lib", info["lib"], "--list", "--unclaimed"],
                       capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit(f"wheel_diff: torchfl wheel failed: {p.stderr}")
    rows = [l.split("\t") for l in p.stdout.splitlines() if l]
    info["kernels"] = {r[3]: (r[0], r[1], r[2]) for r in rows}
    return info


def counts(info):
    c = collections.Counter()
    for st, fam, _ in info["kernels"].values():
        if st != "unclaimed":
            c[(fam, st)] += 1
    return c


def table(infos):
    print("| torch | CUDA | cuDNN | NCCL | archs | sm_80 kernels | claimed | validated |")
    print("|---|---|---|---|---|---|---|---|")
    for i in infos:
        k = i["kernels"].values()
        claimed = sum(1 for st, _, _ in k if st != "unclaimed")
        ok = sum(1 for st, _, _ in k if st == "ok")
        arch = i["arch"] if isinstance(i["arch"], str) else " ".join(i["arch"])
        print(f"| {i['torch']} | {i['cuda']} | {'.'.join(map(str, i['cudnn']))} | "
              f"{'.'.join(map(str, i['nccl'] or []))} | {arch} | {len(i['kernels'])} "
              f"| {claimed} | {ok} |")


def diff(old, new):
    print(f"# torch {old['torch']} -> {new['torch']}")
    for key in ("cuda", "cudnn", "nccl", "arch"):
        if old[key] != new[key]:
            print(f"{key}: {old[key]} -> {new[key]}")
    print("\n## imports")
    for lib in sorted(set(old["imports"]) | set(new["imports"])):
        a, b = set(old["imports"].get(lib, [])), set(new["imports"].get(lib, []))
        if a != b:
            print(f"{lib}: +{len(b - a)} -{len(a - b)}")
            for n in sorted(b - a):
                print(f"  + {n}")
            for n in sorted(a - b):
                print(f"  - {n}")
    a, b = set(old["lookups"]), set(new["lookups"])
    for n in sorted(b - a):
        print(f"lookup + {n}")
    for n in sorted(a - b):
        print(f"lookup - {n}")
    ko, kn = set(old["kernels"]), set(new["kernels"])
    print(f"\n## kernels (sm_80)\n{len(ko)} -> {len(kn)}, {len(ko & kn)} names in both")
    co, cn = counts(old), counts(new)
    fams = sorted({f for f, _ in co} | {f for f, _ in cn})
    print(f"{'family':12s} {'claimed':>15s} {'validated':>15s} {'not validated':>15s}")
    for f in fams:
        def pair(st_set):
            return (sum(co[(f, s)] for s in st_set), sum(cn[(f, s)] for s in st_set))
        cl = pair(("ok", "mismatch", "nolayout"))
        ok = pair(("ok",))
        bad = pair(("mismatch", "nolayout"))
        print(f"{f:12s} {cl[0]:>7d}->{cl[1]:<7d} {ok[0]:>7d}->{ok[1]:<7d} {bad[0]:>7d}->{bad[1]:<7d}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("python", nargs="+")
    ap.add_argument("--torchfl", default=os.path.join(REPO, "build", "torchfl"))
    ap.add_argument("--table", action="store_true")
    a = ap.parse_args()
    infos = [wheel_info(p, a.torchfl) for p in a.python]
    if a.table:
        table(infos)
    elif len(infos) == 2:
        diff(*infos)
    else:
        sys.exit("wheel_diff: give two Pythons, or --table")


if __name__ == "__main__":
    main()
