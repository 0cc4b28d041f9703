"""Does libtorchfl.so define every CUDA-stack symbol the real torch 2.11.0 wheel needs?

The wheel side comes from scripts/wheel_symbols.py, run against the installed
wheel (the venv from scripts/setup_venv.sh). Two kinds of need are checked:

- imports bound by the dynamic loader: a versioned reference
  (cudaMalloc@libcudart.so.13) binds only to a definition with that version
  node, so the node must match; an unversioned one (driver, NCCL) binds to an
  unversioned or default (@@) definition;
- names looked up at run time (dlsym on libcuda.so.1 / libnvidia-ml.so.1,
  cudaGetDriverEntryPointByVersion, Python ctypes): dlsym returns the default
  definition, so an unversioned or @@ definition must exist.

These fail until the symbol work of the intercept layer lands; the failure
message lists exactly what is missing. The first tests check the wheel
analysis itself, so that an empty analysis cannot make the rest pass.
"""
import os
import re
import subprocess

import pytest

from conftest import torchfl_lib

wheel_symbols = pytest.importorskip("wheel_symbols")


@pytest.fixture(scope="module")
def wheel():
    import wheel_common
    return wheel_symbols.collect(wheel_common.torch_lib_dir())


@pytest.fixture(scope="module")
def defined():
    """{name: set of version strings ('' unversioned, '@@v' default, '@v' hidden)}."""
    lib = torchfl_lib()
    if not os.path.exists(lib):
        pytest.fail(f"{lib} does not exist: build torchfl first "
                    "(cmake -S . -B build && cmake --build build) or set TORCHFL_LIB")
    out = subprocess.run(["readelf", "--dyn-syms", "-W", lib], check=True,
                         capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        f = line.split()
        # Num: Value Size Type Bind Vis Ndx Name
        if len(f) < 8 or not f[0].rstrip(":").isdigit() or f[6] in ("UND", "ABS"):
            continue
        if f[3] not in ("FUNC", "OBJECT", "IFUNC", "NOTYPE"):
            continue
        m = re.match(r"([^@]+)(@@?.*)?$", f[7])
        syms.setdefault(m.group(1), set()).add(m.group(2) or "")
    return syms


# --- the wheel analysis (passes without torchfl) ---------------------------

def test_wheel_imports_found(wheel):
    imp = wheel["imports"]
    names = {(x["name"], x["version"]) for x in imp.get("cudart", [])}
    for must in (("cudaLaunchKernel", "libcudart.so.13"), ("__cudaRegisterFatBinary", "libcudart.so.13"),
                 ("cudaGetDeviceCount", "libcudart.so.13"), ("cudaMalloc", "libcudart.so.13")):
        assert must in names, f"wheel analysis lost {must}"
    assert any(x["name"] == "cublasSgemm_v2" for x in imp.get("cublas", []))
    assert any(x["name"] == "cublasLtMatmul" for x in imp.get("cublasLt", []))
    assert any(x["name"] == "cudnnGetVersion" for x in imp.get("cudnn", []))
    assert any(x["name"] == "ncclAllReduce" and x["version"] is None for x in imp.get("nccl", []))
    assert any(x["name"] == "cuLaunchKernel" for x in imp.get("driver", []))


def test_wheel_lookups_found(wheel):
    look = {(x["library"], x["name"], x["via"]) for x in wheel["lookups"]}
    assert ("driver", "cuDevicePrimaryCtxGetState", "dlopen(libcuda.so.1)+dlsym") in look
    assert ("driver", "cuMemCreate", "cudaGetDriverEntryPointByVersion") in look
    assert ("nvml", "nvmlInit_v2", "dlopen(libnvidia-ml.so.1)+dlsym") in look
    assert ("nvml", "nvmlDeviceGetCount_v2", "Python ctypes") in look


# --- torchfl against the wheel ---------------------------------------------

# NVML is never linked by the wheel (only dlopen/ctypes), so it has lookups, no imports.
@pytest.mark.parametrize("library", [t for t in wheel_symbols.TARGETS if t != "nvml"])
def test_imports_defined(wheel, defined, library):
    missing = []
    for x in wheel["imports"].get(library, []):
        have = defined.get(x["name"], set())
        if x["version"]:
            ok = ("@@" + x["version"]) in have or ("@" + x["version"]) in have
        else:
            ok = "" in have or any(v.startswith("@@") for v in have)
        if not ok:
            got = ",".join(sorted(v or "(unversioned)" for v in have)) or "not defined"
            want = "@" + x["version"] if x["version"] else " (any default version)"
            missing.append(f"{x['name']}{want}  [{got}; imported by {','.join(x['importers'])}]")
    assert not missing, (f"{len(missing)} {library} import(s) of the torch wheel not defined "
                         f"by {torchfl_lib()}:\n  " + "\n  ".join(missing))


@pytest.mark.parametrize("library", ["driver", "nvml"])
def test_lookups_defined(wheel, defined, library):
    missing = sorted({f"{x['name']}  [{x['via']} in {x['where']}]"
                      for x in wheel["lookups"] if x["library"] == library
                      and not ("" in defined.get(x["name"], set())
                               or any(v.startswith("@@") for v in defined.get(x["name"], set())))})
    assert not missing, (f"{len(missing)} {library} name(s) looked up at run time by the torch "
                         f"wheel not defined (default version) by {torchfl_lib()}:\n  "
                         + "\n  ".join(missing))
