#!/usr/bin/env python3
"""check_exports.py - libtorchfl.so exports every function of every list.

    check_exports.py LIBTORCHFL SYMBOLS_DIR [ALIAS.so ...]

Reads `readelf -W --dyn-syms` and checks, for every name of
scripts/symbols/<soname>.txt:
  * a 13.x (current) list: the name is defined with its default version,
    name@@<node> (libcudart.so.13, libcublas.so.13, libcublasLt.so.13,
    libcudnn.so.9, libcusolver.so.12, libcufft.so.12, libcusparse.so.12;
    TORCHFL_0 for libcuda.so.1, libnccl.so.2,
    libnvidia-ml.so.1; libnvrtc.so.13 for the NVRTC shim);
  * a 12.x list: the name is defined as name@libcudart.so.12 (and so on);
  * nothing else is exported: no torchfl-internal symbol (tfl_*, tfl12*),
    no name outside the lists except torchfl_* (torchfl's own API).
Each alias library given must carry the SONAME of its file name and depend
on libtorchfl.so.  Prints one line per problem and exits 1 if any.
"""
import os
import re
import subprocess
import sys

NODES13 = {
    "libcudart.so.13": "libcudart.so.13",
    "libcuda.so.1": "TORCHFL_0",
    "libcublas.so.13": "libcublas.so.13",
    "libcublasLt.so.13": "libcublasLt.so.13",
    "libcudnn.so.9": "libcudnn.so.9",
    "libnccl.so.2": "TORCHFL_0",
    "libnvidia-ml.so.1": "TORCHFL_0",
    "libnvrtc.so.13": "libnvrtc.so.13",  # the NVRTC shim (src/intercept/nvrtc);
                                         # torch >= 2.15 binds these by version
    "libcusolver.so.12": "libcusolver.so.12",   # cuSOLVER 12 ships with CUDA 13
    "libcufft.so.12": "libcufft.so.12",         # so do cuFFT 12
    "libcusparse.so.12": "libcusparse.so.12",   # and cuSPARSE 12
}
LISTS12 = ["libcudart.so.12", "libcublas.so.12", "libcublasLt.so.12"]


def read_list(path):
    with open(path) as f:
        return [l.strip() for l in f if l.strip() and not l.startswith("#")]


def dyn_syms(lib):
    """{(name, version, default)} of the defined functions of lib."""
    out = subprocess.run(["readelf", "-W", "--dyn-syms", lib], check=True,
                         capture_output=True, text=True).stdout
    defined = set()
    for line in out.splitlines():
        f = line.split()
        # Num: Value Size Type Bind Vis Ndx Name
        if len(f) < 8 or not f[0][:-1].isdigit() or f[6] in ("UND", "ABS"):
            continue                     # ABS: the version definitions
        m = re.match(r"([^@]+)(@@?)?(.*)$", f[7])
        name, at, ver = m.group(1), m.group(2) or "", m.group(3)
        defined.add((name, ver, at == "@@", f[3]))
    return defined


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    lib, symdir = sys.argv[1], sys.argv[2]
    syms = dyn_syms(lib)
    by_ver = {}
    for name, ver, default, typ in syms:
        by_ver.setdefault((name, ver), (default, typ))
    problems = []
    total = 0
    for so, node in NODES13.items():
        names = read_list(os.path.join(symdir, so + ".txt"))
        if not names:
            problems.append("%s: empty list" % so)
        for n in names:
            total += 1
            got = by_ver.get((n, node))
            if got is None:
                problems.append("%s: %s@@%s is not defined" % (so, n, node))
            elif not got[0]:
                problems.append("%s: %s@%s is not the default version" % (so, n, node))
            elif got[1] != "FUNC":
                problems.append("%s: %s is %s, not FUNC" % (so, n, got[1]))
    for so in LISTS12:
        for n in read_list(os.path.join(symdir, so + ".txt")):
            total += 1
            got = by_ver.get((n, so))
            if got is None:
                problems.append("%s: %s@%s is not defined" % (so, n, so))
            elif got[0]:
                problems.append("%s: %s@@%s must not be the default" % (so, n, so))
    listed = set()
    for so in list(NODES13) + LISTS12:
        listed.update(read_list(os.path.join(symdir, so + ".txt")))
    for name, ver, _, _ in syms:
        if name.startswith("tfl_") or name.startswith("tfl12"):
            problems.append("internal symbol exported: %s@%s" % (name, ver))
        elif name not in listed and not name.startswith("torchfl_"):
            problems.append("unlisted symbol exported: %s@%s" % (name, ver))
    for alias in sys.argv[3:]:
        dyn = subprocess.run(["readelf", "-d", alias], check=True,
                             capture_output=True, text=True).stdout
        want = os.path.basename(alias)
        if "Library soname: [%s]" % want not in dyn:
            problems.append("%s: SONAME is not %s" % (alias, want))
        if "Shared library: [%s]" % os.path.basename(lib) not in dyn:
            problems.append("%s: does not depend on %s" % (alias, os.path.basename(lib)))
    for p in problems[:200]:
        print(p)
    if len(problems) > 200:
        print("... and %d more" % (len(problems) - 200))
    print("%d names checked, %d problems" % (total, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
