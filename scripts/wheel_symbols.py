#!/usr/bin/env python3
"""Lists every CUDA-stack symbol the installed PyTorch wheel needs from torchfl.

Two categories, kept apart because they are resolved differently:

1. "imports": undefined dynamic symbols of the wheel's own libraries
   (`nm -D --undefined-only torch/lib/*.so`), bound by the dynamic loader.
   Each keeps its version tag (`cudaMalloc@libcudart.so.13`): a versioned
   reference only binds to a definition with that version node, so torchfl
   must define the symbol *with the same node*. Classified by the tag's
   library, else (unversioned: libcuda, NCCL, NVML export no versions) by
   name prefix.

2. "lookups": names fetched at run time, which `nm` cannot see:
   - libcuda.so.1 through dlopen+dlsym (libtorch_cuda.so: ATen's LazyNVRTC
     stubs and tensorpipe's CUDA IPC channel);
   - the driver through cudaGetDriverEntryPointByVersion (libc10_cuda.so:
     c10::cuda::DriverAPI);
   - libnvidia-ml.so.1 through dlopen+dlsym (libc10_cuda.so DriverAPI,
     libtorch_cuda.so tensorpipe);
   - libcuda.so.1 / libnvidia-ml.so.1 through Python ctypes
     (torch/cuda/_utils.py, torch/cuda/__init__.py).
   Names are read from the libraries' strings and the Python sources, and
   driver names are kept only if cuda.h declares them (strings also contain
   noise such as "cuPeYt"). A lookup resolves to whatever definition of the
   name is the default, so only the name matters.

Usage:
  python scripts/wheel_symbols.py [--torch-lib DIR] [--json OUT] [--text]
Only the standard library and binutils' nm are used.
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wheel_common as wc  # noqa: E402

# The libraries torchfl replaces, in report order.
TARGETS = ["cudart", "driver", "cublas", "cublasLt", "cudnn", "nccl", "nvml", "nvrtc"]

# Version tag (soname without the number) -> library.
TAG_LIBS = {
    "libcudart.so": "cudart", "libcuda.so": "driver", "libcublas.so": "cublas",
    "libcublasLt.so": "cublasLt", "libcudnn.so": "cudnn", "libnccl.so": "nccl",
    "libnvidia-ml.so": "nvml", "libnvrtc.so": "nvrtc",
}

# Unversioned names: prefix -> library, first match wins. Non-target CUDA
# libraries are named too so that they are reported as such, not as driver.
PREFIX_LIBS = [
    (r"__cuda|cuda[A-Z]", "cudart"),
    (r"cublasLt", "cublasLt"),
    (r"cublas", "cublas"),
    (r"cudnn", "cudnn"),
    (r"nccl", "nccl"),
    (r"nvml", "nvml"),
    (r"cuFile", "cufile"),
    (r"cusparseLt", "cusparseLt"),
    (r"cusparse", "cusparse"),
    (r"cufft", "cufft"),
    (r"curand", "curand"),
    (r"cusolver", "cusolver"),
    (r"cupti|CUPTI", "cupti"),
    (r"nvrtc", "nvrtc"),
    (r"nvshmem", "nvshmem"),
    (r"cu[A-Z]", "driver"),
]
PREFIX_RES = [(re.compile(p), lib) for p, lib in PREFIX_LIBS]

NVML_NAME = re.compile(r"nvml(Init|Shutdown|ErrorString|Device[A-Z]|System[A-Z]|Unit[A-Z]|"
                       r"Event[A-Z]|Gpu[A-Z]|Vgpu[A-Z]|Compute[A-Z])(?:[A-Za-z0-9_]*[A-Za-z0-9])?")


def classify(name, tag):
    if tag:
        base = re.sub(r"\.\d+(\.\d+)*$", "", tag)
        if base in TAG_LIBS:
            return TAG_LIBS[base]
        if base.startswith(("GLIBC", "GLIBCXX", "CXXABI", "GCC", "OMP", "GOMP")):
            return None
        return base  # another versioned CUDA library (libcusparse.so, libnvrtc.so, ...)
    for rx, lib in PREFIX_RES:
        if rx.match(name):
            return lib
    return None


def undefined_imports(libdir):
    """{library: {(name, tag): set(importing .so)}} for all classified imports."""
    out = {}
    for so in wc.torch_libraries(libdir):
        for line in wc.run(["nm", "-D", "--undefined-only", os.path.join(libdir, so)]).splitlines():
            parts = line.split()
            if len(parts) != 2 or parts[0] not in ("U", "w", "v"):
                continue
            sym = parts[1]
            name, _, tag = sym.partition("@")
            lib = classify(name, tag.lstrip("@"))
            if lib is None:
                continue
            out.setdefault(lib, {}).setdefault((name, tag.lstrip("@")), set()).add(so)
    return out


def driver_names_from_header(libdir):
    """All driver entry points cuda.h declares, including the `_vN` names
    its macros map plain names to. Looked for next to the wheel first."""
    site = os.path.dirname(os.path.dirname(libdir))
    for h in (os.path.join(site, "nvidia", "cu13", "include", "cuda.h"),
              os.path.join(site, "nvidia", "cuda_runtime", "include", "cuda.h"),
              "/usr/local/cuda/include/cuda.h"):
        if os.path.exists(h):
            text = open(h, errors="replace").read()
            names = set(re.findall(r"\bCUresult\s+CUDAAPI\s+(cu\w+)\s*\(", text))
            for plain, versioned in re.findall(r"#\s*define\s+(cu\w+)\s+(cu\w+_v\d+)\b", text):
                names.add(plain)
                names.add(versioned)
            return names, h
    sys.exit("wheel_symbols: cuda.h not found (needed to tell driver names from noise)")


def strings_of(path, min_len=6):
    """Printable NUL-terminated strings of a file (like `strings`), as a set."""
    data = open(path, "rb").read()
    return set(m.decode() for m in re.findall(rb"[\x20-\x7e]{%d,}" % min_len, data))


def lookups(libdir, driver_names, header):
    """[(library, name, via, where)] for names fetched at run time."""
    out = []

    def add(lib, names, via, where):
        for n in sorted(names):
            out.append({"library": lib, "name": n, "via": via, "where": where})

    def candidates(strs, prefix_rx):
        names = set()
        for s in strs:
            # "Can't get cuX" messages: the linker merges the bare "cuX" dlsym
            # string into the tail of the message, so only the message remains.
            m = re.fullmatch(r"(?:Can't get )?(" + prefix_rx + r")", s)
            if m:
                names.add(m.group(1))
        return names

    c10 = os.path.join(libdir, "libc10_cuda.so")
    tcuda = os.path.join(libdir, "libtorch_cuda.so")
    if os.path.exists(c10):
        s = strings_of(c10)
        add("driver", candidates(s, r"cu[A-Z]\w+") & driver_names,
            "cudaGetDriverEntryPointByVersion", "libc10_cuda.so (c10::cuda::DriverAPI)")
        add("nvml", {n for n in candidates(s, r"nvml\w+") if NVML_NAME.fullmatch(n)},
            "dlopen(libnvidia-ml.so.1)+dlsym", "libc10_cuda.so (c10::cuda::DriverAPI)")
    if os.path.exists(tcuda):
        s = strings_of(tcuda)
        add("driver", candidates(s, r"cu[A-Z]\w+") & driver_names,
            "dlopen(libcuda.so.1)+dlsym", "libtorch_cuda.so (ATen LazyNVRTC, tensorpipe CUDA IPC)")
        add("nvml", {n for n in candidates(s, r"nvml\w+") if NVML_NAME.fullmatch(n)},
            "dlopen(libnvidia-ml.so.1)+dlsym", "libtorch_cuda.so (tensorpipe CUDA IPC, allocator OOM report)")
    pkg = os.path.dirname(libdir)
    for rel, lib, rx in (("cuda/_utils.py", "driver", r"\blibcuda\.(cu[A-Z]\w+)"),
                         ("cuda/__init__.py", "nvml", r"\bnvml_h\.(nvml\w+)")):
        p = os.path.join(pkg, rel)
        if os.path.exists(p):
            names = set(re.findall(rx, open(p, errors="replace").read()))
            add(lib, names, "Python ctypes", "torch/" + rel)
    return out


def collect(libdir):
    imports = undefined_imports(libdir)
    driver_names, header = driver_names_from_header(libdir)
    look = lookups(libdir, driver_names, header)
    result = {"torch_lib": libdir, "cuda_h": header, "imports": {}, "other_imports": {},
              "lookups": look}
    for lib, syms in sorted(imports.items()):
        rows = [{"name": n, "version": t or None, "importers": sorted(sos)}
                for (n, t), sos in sorted(syms.items())]
        (result["imports"] if lib in TARGETS else result["other_imports"])[lib] = rows
    return result


def text_report(r):
    lines = [f"torch lib: {r['torch_lib']}", "", "1. imports (nm -D --undefined-only), per library:"]
    for lib in TARGETS:
        rows = r["imports"].get(lib, [])
        tags = sorted({x["version"] or "(unversioned)" for x in rows})
        lines.append(f"  {lib:9s} {len(rows):4d}  {', '.join(tags)}")
    for lib, rows in r["other_imports"].items():
        lines.append(f"  ({lib}) {len(rows)} (not replaced by torchfl)")
    lines.append("")
    lines.append("2. run-time lookups (not in nm), per library and mechanism:")
    groups = {}
    for x in r["lookups"]:
        groups.setdefault((x["library"], x["via"], x["where"]), []).append(x["name"])
    for (lib, via, where), names in sorted(groups.items()):
        lines.append(f"  {lib} via {via} in {where}: {len(names)}")
        lines.append("    " + " ".join(names))
    lines.append("")
    for lib in TARGETS:
        for x in r["imports"].get(lib, []):
            v = f"@{x['version']}" if x["version"] else ""
            lines.append(f"{lib}\t{x['name']}{v}\t{','.join(x['importers'])}")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--torch-lib", help="torch/lib directory (default: the importable torch)")
    ap.add_argument("--json", help="write JSON here ('-' for stdout)")
    ap.add_argument("--text", action="store_true", help="print the text report (default without --json)")
    args = ap.parse_args()
    r = collect(wc.torch_lib_dir(args.torch_lib))
    if args.json == "-":
        json.dump(r, sys.stdout, indent=1)
    elif args.json:
        with open(args.json, "w") as f:
            json.dump(r, f, indent=1)
    if args.text or not args.json:
        sys.stdout.write(text_report(r))


if __name__ == "__main__":
    main()
