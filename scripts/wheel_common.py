"""Locating the installed PyTorch wheel and reading its ELF files.

Shared by wheel_symbols.py and wheel_kernels.py. Only the standard library is
used (plus binutils' nm/readelf/c++filt on PATH), so the scripts run in any
Python 3.8+ and do not import torch (importing it loads the CUDA libraries and
takes seconds).
"""
import importlib.util
import os
import struct
import subprocess
import sys


def torch_lib_dir(explicit=None):
    """Directory holding libtorch_cuda.so & co. of the wheel.

    Order: the explicit argument, $TORCHFL_TORCH_LIB, then the `torch` package
    that this interpreter would import.
    """
    for cand in (explicit, os.environ.get("TORCHFL_TORCH_LIB")):
        if cand:
            if not os.path.isdir(cand):
                sys.exit(f"wheel: {cand} is not a directory")
            return cand
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("wheel: no `torch` package for this interpreter; "
                 "run with the venv from scripts/setup_venv.sh or pass --torch-lib")
    d = os.path.join(list(spec.submodule_search_locations)[0], "lib")
    if not os.path.isdir(d):
        sys.exit(f"wheel: {d} does not exist")
    return d


def torch_libraries(libdir):
    """The wheel's own shared objects (not the bundled libgomp)."""
    return sorted(f for f in os.listdir(libdir)
                  if f.endswith(".so") and f.startswith(("libtorch", "libc10", "libcaffe2", "libshm")))


def run(cmd, stdin=None):
    try:
        return subprocess.run(cmd, input=stdin, check=True, capture_output=True,
                              text=True).stdout
    except FileNotFoundError:
        sys.exit(f"wheel: {cmd[0]} not found (binutils is needed)")
    except subprocess.CalledProcessError as e:
        sys.exit(f"wheel: {' '.join(cmd)} failed: {e.stderr.strip()}")


def demangle(names):
    """Demangles a list of names with one c++filt process; order is kept."""
    if not names:
        return []
    out = run(["c++filt"], stdin="\n".join(names) + "\n").split("\n")
    return out[:len(names)]


class Elf64:
    """Minimal little-endian ELF64 reader: section headers and names only."""

    def __init__(self, data, what="ELF"):
        if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
            raise ValueError(f"{what}: not a little-endian ELF64 file")
        self.data = data
        shoff = struct.unpack_from("<Q", data, 0x28)[0]
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
        raw = []
        for i in range(shnum):
            raw.append(struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize))
        stroff = raw[shstrndx][4]
        self.sections = []
        for (name, typ, _flags, _addr, off, size, link, info, _al, entsize) in raw:
            end = data.find(b"\0", stroff + name)
            self.sections.append({
                "name": data[stroff + name:end].decode("utf-8", "replace"),
                "type": typ, "offset": off, "size": size, "link": link,
                "info": info, "entsize": entsize,
            })

    def section(self, name):
        for s in self.sections:
            if s["name"] == name:
                return s
        return None

    def contents(self, sec):
        return self.data[sec["offset"]:sec["offset"] + sec["size"]]
