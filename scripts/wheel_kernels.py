#!/usr/bin/env python3
"""Lists the GPU kernels compiled into the PyTorch wheel, with their parameter layout.

The wheel's device code lives in the `.nv_fatbin` section of libtorch_cuda.so
(and libtorch_cuda_linalg.so, libtorch_nvshmem.so): a sequence of fatbin
containers (magic 0xBA55ED50), each holding one ELF cubin per architecture.
torch 2.11.0+cu130 ships no PTX at all (every entry is kind 2 = ELF, see
docs/pytorch-wheel.md), so the kernel list and parameter layout are read from
the cubins: a kernel is a function that has a `.nv.info.<mangled name>` section,
whose EIATTR_KPARAM_INFO records give each parameter's ordinal, byte offset and
size, and EIATTR_CBANK_PARAM_SIZE the total parameter-buffer size. Payloads are
zstd- (or LZ4-) compressed; they are decompressed with the system libzstd/liblz4
through ctypes, so no CUDA tool (cuobjdump) is needed.

Output: JSON (all kernels of one architecture, default sm_80) and, with --doc,
the Markdown family table used for docs/kernel-families.md.

Usage:
  python scripts/wheel_kernels.py [--torch-lib DIR] [--arch 80] [--json OUT.json] [--doc OUT.md]
"""
import argparse
import collections
import ctypes
import ctypes.util
import json
import mmap
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wheel_common as wc  # noqa: E402

FATBIN_MAGIC = 0xBA55ED50
KIND_PTX, KIND_ELF = 1, 2
FLAG_LZ4 = 0x2000    # entry payload compressed with LZ4 (CUDA 11.x–12.x fatbinary -compress)
FLAG_ZSTD = 0x8000   # entry payload compressed with zstd (CUDA 12.8+/13 default)

# .nv.info attribute ids (EIATTR_*) we read; the format byte says how the
# value is stored: 1 none, 2 byte, 3 half-word, 4 sized blob.
EIATTR_PARAM_CBANK = 0x0A
EIATTR_KPARAM_INFO = 0x17
EIATTR_KPARAM_INFO_V2 = 0x45  # kernels with over 4 KB of parameters (CUDA 12.1+):
                              # the size is the low 16 bits of the last word
EIATTR_CBANK_PARAM_SIZE = 0x19
EIATTR_MAXNTID = 0x05
EIATTR_REQNTID = 0x10


class Decompressor:
    def __init__(self):
        self._zstd = self._lz4 = None

    def _lib(self, name):
        path = ctypes.util.find_library(name)
        if not path:
            sys.exit(f"wheel_kernels: lib{name} not found (install libzstd/liblz4)")
        return ctypes.CDLL(path)

    def zstd(self, src, out_size):
        if self._zstd is None:
            self._zstd = self._lib("zstd")
            self._zstd.ZSTD_decompress.restype = ctypes.c_size_t
            self._zstd.ZSTD_decompress.argtypes = [ctypes.c_void_p, ctypes.c_size_t,
                                                   ctypes.c_char_p, ctypes.c_size_t]
            self._zstd.ZSTD_isError.argtypes = [ctypes.c_size_t]
        dst = ctypes.create_string_buffer(out_size)
        n = self._zstd.ZSTD_decompress(dst, out_size, src, len(src))
        if self._zstd.ZSTD_isError(n):
            raise ValueError("zstd: corrupt fatbin entry")
        return dst.raw[:n]

    def lz4(self, src, out_size):
        if self._lz4 is None:
            self._lz4 = self._lib("lz4")
            self._lz4.LZ4_decompress_safe.argtypes = [ctypes.c_char_p, ctypes.c_void_p,
                                                      ctypes.c_int, ctypes.c_int]
        dst = ctypes.create_string_buffer(out_size)
        n = self._lz4.LZ4_decompress_safe(src, dst, len(src), out_size)
        if n < 0:
            raise ValueError("lz4: corrupt fatbin entry")
        return dst.raw[:n]


def fatbin_entries(buf, off, size, counter=None):
    """Yields (kind, arch, flags, payload_bytes_as_stored, uncompressed_size).

    counter["containers"] is incremented per fatbin container when given."""
    pos, end = off, off + size
    while pos + 16 <= end:
        magic, _ver, hsize, fsize = struct.unpack_from("<IHHQ", buf, pos)
        if magic != FATBIN_MAGIC:
            pos += 8  # containers are 8-aligned; skip padding
            continue
        if counter is not None:
            counter["containers"] += 1
        e, cend = pos + hsize, pos + hsize + fsize
        while e < cend:
            kind, _u, ehs, esz = struct.unpack_from("<HHIQ", buf, e)
            csize = struct.unpack_from("<I", buf, e + 16)[0]
            arch = struct.unpack_from("<I", buf, e + 28)[0]
            flags = struct.unpack_from("<Q", buf, e + 40)[0]
            usize = struct.unpack_from("<Q", buf, e + 56)[0] if ehs >= 64 else 0
            body = e + ehs
            stored = csize if (flags & (FLAG_ZSTD | FLAG_LZ4)) and csize else esz
            yield kind, arch, flags, buf[body:body + stored], usize
            e = body + esz
        pos = cend


def nv_info_records(blob):
    p = 0
    while p + 4 <= len(blob):
        fmt, attr = blob[p], blob[p + 1]
        if fmt == 4:
            sz = struct.unpack_from("<H", blob, p + 2)[0]
            yield attr, blob[p + 4:p + 4 + sz]
            p += 4 + sz
        else:
            yield attr, struct.unpack_from("<H", blob, p + 2)[0]
            p += 4


STO_CUDA_ENTRY = 0x10  # st_other bit that marks a kernel (.entry) in a cubin's symtab
STT_FUNC = 2


def entry_symbols(elf):
    sec = elf.section(".symtab")
    if sec is None:
        return set()
    strs = elf.sections[sec["link"]]
    d, names = elf.data, set()
    for i in range(sec["size"] // 24):
        st_name, st_info, st_other = struct.unpack_from("<IBB", d, sec["offset"] + i * 24)
        if (st_info & 0xF) == STT_FUNC and (st_other & STO_CUDA_ENTRY):
            o = strs["offset"] + st_name
            names.add(d[o:d.find(b"\0", o)].decode("utf-8", "replace"))
    return names


def cubin_kernels(cubin):
    """{mangled: {"param_bytes": n, "params": [[ordinal, offset, size], ...]}}"""
    elf = wc.Elf64(cubin, "cubin")
    entries = entry_symbols(elf)
    out = {}
    for s in elf.sections:
        if not s["name"].startswith(".nv.info."):
            continue
        name = s["name"][len(".nv.info."):]
        if name not in entries:  # a device function with an ABI (e.g. __cuda_sm20_div_u64)
            continue
        params, total, reqntid, maxntid = [], None, None, None
        for attr, val in nv_info_records(elf.contents(s)):
            if attr == EIATTR_KPARAM_INFO:
                _idx, ordinal, offset, bits = struct.unpack_from("<IHHI", val)
                params.append([ordinal, offset, bits >> 18])
            elif attr == EIATTR_KPARAM_INFO_V2:
                _idx, ordinal, offset, bits = struct.unpack_from("<IHHI", val)
                params.append([ordinal, offset, bits & 0xFFFF])
            elif attr == EIATTR_CBANK_PARAM_SIZE:
                total = val
            elif attr == EIATTR_REQNTID and isinstance(val, bytes):
                reqntid = list(struct.unpack_from("<3I", val))
            elif attr == EIATTR_MAXNTID and isinstance(val, bytes):
                maxntid = list(struct.unpack_from("<3I", val))
        params.sort()
        k = {"param_bytes": total if total is not None else
             (max((o + z for _, o, z in params), default=0)), "params": params}
        if reqntid:
            k["reqntid"] = reqntid
        if maxntid:
            k["maxntid"] = maxntid
        out[name] = k
    return out


def scan_library(path, arch, dec, stats):
    """Kernels of one architecture in one library, plus whole-file statistics."""
    with open(path, "rb") as f:
        buf = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        elf = wc.Elf64(buf, path)
        sec = elf.section(".nv_fatbin")
        kernels = {}
        if sec is None:
            return kernels
        st = stats.setdefault(os.path.basename(path), {
            "containers": 0, "elf": collections.Counter(), "ptx": collections.Counter(),
            "compression": collections.Counter()})
        for kind, a, flags, stored, usize in fatbin_entries(buf, sec["offset"], sec["size"], st):
            st["ptx" if kind == KIND_PTX else "elf"][a] += 1
            comp = "zstd" if flags & FLAG_ZSTD else "lz4" if flags & FLAG_LZ4 else "none"
            st["compression"][comp] += 1
            if kind != KIND_ELF or a != arch:
                continue
            if comp == "zstd":
                cubin = dec.zstd(bytes(stored), usize)
            elif comp == "lz4":
                cubin = dec.lz4(bytes(stored), usize)
            else:
                cubin = bytes(stored)
            kernels.update(cubin_kernels(cubin))
        return kernels
    finally:
        buf.close()


# Families for the semantic op table: (family, pattern). The pattern must
# match the whole last component of the kernel's qualified name (template
# arguments and parameters removed, see base_name); order matters (attention
# before dropout: the fmha backward kernels have "dropout" in their names).
FAMILIES = [
    ("elementwise/vectorized", r"vectorized_elementwise_kernel"),
    ("elementwise/unrolled", r"unrolled_elementwise_kernel(_for_multi_outputs)?"),
    ("elementwise/strided (legacy)", r"elementwise_kernel(_manual_unroll|_for_multi_outputs)?"),
    ("elementwise/with index (arange, linspace)", r"elementwise_kernel_with_index"),
    ("elementwise/pointwise apply (TensorInfo)", r"kernelPointwiseApply\d"),
    ("reduce", r"reduce_kernel"),
    ("softmax", r"softmax_warp_(forward|backward)|cunn_(Spatial)?SoftMax\w*"),
    ("nll / cross-entropy", r"nll_loss\w*|cross_entropy\w*"),
    ("embedding", r"embedding\w*|krn_partial\w*|compute_grad_weight\w*|sum_and_scatter|"
                  r"compute_num_of_partial_segments|segment_offsets\w*|renorm_kernel"),
    ("layer norm", r"\w*LayerNorm\w*|\w*layer_norm\w*|RowwiseMoments\w*|"
                   r"ComputeInternalGradients\w*|ComputeGradientFusedParams\w*|GammaBeta\w*"),
    ("attention (SDPA)", r"fmha\w*|\w*flash\w*|\w*[Aa]ttention\w*|attention_kernel\w*"),
    ("dropout / philox RNG", r"fused_dropout_kernel\w*|distribution_elementwise_grid_stride_kernel\w*|"
                             r"distribution_nullary_kernel\w*|\w*philox\w*|\w*dropout\w*"),
    ("index / gather / scatter", r"index_elementwise_kernel|indexSelect\w*|indexFunc\w*|indexCopy\w*|"
                                 r"_scatter_gather_elementwise_kernel|index_put\w*|indexing_backward\w*|"
                                 r"masked_scatter\w*|take_kernel\w*|put_kernel\w*|\w*gather\w*|\w*scatter\w*"),
    ("multi_tensor_apply (foreach optimizers)", r"multi_tensor_apply_kernel"),
    ("cat / copy", r"CatArrayBatchedCopy\w*|\w*copy\w*|\w*Copy\w*"),
    ("sort / scan / cub", r"\w*[Ss]ort\w*|\w*[Ss]can\w*|\w*Histogram\w*|Device\w+Kernel|\w*topk\w*"),
]
FAMILY_RES = [(n, re.compile(p)) for n, p in FAMILIES]


def base_name(demangled):
    """`ns::f<...>(args)` -> `ns::f` (template args and parameters removed)."""
    s = demangled
    # Strip "void " return type prefix that c++filt prints for templates.
    if s.startswith("void "):
        s = s[5:]
    out, depth = [], 0
    i = 0
    while i < len(s):
        c = s[i]
        if c == "(" and depth == 0 and not s.startswith("(anonymous namespace)", i):
            break
        if s.startswith("(anonymous namespace)", i):
            if depth == 0:
                out.append("(anonymous namespace)")
            i += len("(anonymous namespace)")
            continue
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif depth == 0:
            out.append(c)
        i += 1
    return "".join(out).strip()


def family_of(demangled):
    b = base_name(demangled)
    if len(b) > 300:  # not a plain qualified name (operator, lambda); don't guess
        return "other"
    last = b.rsplit("::", 1)[-1]
    for name, rx in FAMILY_RES:
        if rx.fullmatch(last):
            return name
    return "other"


def collect(libdir, arch):
    dec, stats, kernels = Decompressor(), {}, {}
    for lib in ("libtorch_cuda.so", "libtorch_cuda_linalg.so", "libtorch_nvshmem.so"):
        path = os.path.join(libdir, lib)
        if not os.path.exists(path):
            continue
        for name, k in scan_library(path, arch, dec, stats).items():
            k = dict(k, library=lib)
            kernels[name] = k
    names = sorted(kernels)
    for name, dem in zip(names, wc.demangle(names)):
        kernels[name]["demangled"] = dem
        kernels[name]["family"] = family_of(dem)
    stats = {lib: {"fatbin_containers": s["containers"],
                   "elf_by_arch": {f"sm_{a}": n for a, n in sorted(s["elf"].items())},
                   "ptx_by_arch": {f"sm_{a}": n for a, n in sorted(s["ptx"].items())},
                   "compression": dict(s["compression"])}
             for lib, s in stats.items()}
    return {"arch": f"sm_{arch}", "libraries": stats,
            "kernels": {n: kernels[n] for n in names}}


# What an fp32 MLP classifier / small GPT training step plausibly launches
# (examples/mlp_classifier.py, examples/gpt_tiny.py): Linear (cuBLAS/Lt, no
# kernel here) + bias/ReLU/GELU, LayerNorm, embedding lookup and its backward,
# causal SDPA (fp32 -> memory-efficient attention), log_softmax + nll_loss,
# argmax/eq/mean for accuracy, Adam/AdamW foreach updates, fills, copies and
# casts. The list is a superset chosen by keyword, not a trace: a GPU run with
# the profiler is what will pin it down.
LIKELY = {
    "elementwise/vectorized": r"FillFunctor|direct_copy_kernel|CUDAFunctor_add|AddFunctor|MulFunctor|DivFunctor|"
                              r"CompareEqFunctor|threshold_kernel|clamp|launch_clamp|Gelu|tanh_kernel|sigmoid|"
                              r"neg_kernel|exp_kernel|sqrt_kernel|rsqrt|pow_tensor_scalar|where_kernel|"
                              r"masked_fill|lerp|reciprocal|sub_kernel|abs_kernel",
    "elementwise/unrolled": None,  # same keywords as vectorized
    "elementwise/strided (legacy)": None,
    "elementwise/with index (arange, linspace)": r"arange|linspace",
    "reduce": r"sum_functor|SumFunctor|MeanOps|ArgMaxOps|ArgMinOps|MaxOps|MaxNanFunctor|NormTwoOps|WelfordOps|func_wrapper_t<float, at::native::sum",
    "softmax": r"",
    "nll / cross-entropy": r"",
    "embedding": r"",
    "layer norm": r"",
    "attention (SDPA)": r"_f32_.*sm80|_f32_.*Sm80",
    "dropout / philox RNG": r"fused_dropout|uniform|normal",
    "index / gather / scatter": r"indexSelect(Small|Large)Index<float, long|"
                                 r"indexing_backward_kernel\w*<float, ",
    "multi_tensor_apply (foreach optimizers)": r"Lerp|PointwiseOpScalar|PointwiseOpScalarList|PointwiseOpListFunctor|"
                                               r"BinaryOpScalar|BinaryOpList|UnaryOpFunctor<float, 2, 1, 1>, at::native::Sqrt|"
                                               r"ZeroFunctor|FusedAdam|Copy<float, float>",
    "cat / copy": r"CatArrayBatchedCopy\w*<OpaqueType<4u>",
    "sort / scan / cub": r"policy_hub<long, (long|at::cuda::cub::detail::OpaqueType<8>)[,>]",
}
NOT_FP32 = re.compile(r"\b(double|c10::Half|c10::BFloat16|c10::complex|__half|__nv_bfloat16|"
                      r"Float8|c10::Float4|signed char|short|unsigned short)\b")


def short_name(demangled):
    """Demangled kernel name without `void`, the parameter list and the
    noisiest namespaces (kernels are identified by name + template args)."""
    s = demangled[5:] if demangled.startswith("void ") else demangled
    # Cut the parameter list: the last top-level "(...)" group.
    depth, cut = 0, len(s)
    for i in range(len(s) - 1, -1, -1):
        c = s[i]
        if c == ")":
            depth += 1
        elif c == "(":
            depth -= 1
            if depth == 0:
                cut = i
                break
    s = s[:cut] if s.endswith(")") else s
    for noise in ("at::native::(anonymous namespace)::", "at::native::", "(anonymous namespace)::",
                  "torch::headeronly::detail::", "torch::headeronly::", "at::cuda::detail::"):
        s = s.replace(noise, "")
    return s


def params_text(k):
    return ", ".join(f"{o}:{z}" for _, o, z in k["params"])


def render_doc(data):
    ks = data["kernels"]
    fams = collections.OrderedDict((n, []) for n, _ in FAMILIES)
    fams["other"] = []
    for m, k in ks.items():
        fams[k["family"]].append((m, k))
    kw_elem = LIKELY["elementwise/vectorized"]
    out = []
    w = out.append
    w("# Kernel families in the torch 2.11.0+cu130 wheel (for the semantic op table)")
    w("")
    w("Generated by `python scripts/wheel_kernels.py --doc docs/kernel-families.md` "
      "(see that script for how); do not edit by hand. "
      "`--json FILE` writes every kernel (all families, all dtypes) with its parameter layout.")
    w("")
    w("**There is no PTX in the wheel.** Every fatbin entry is an ELF cubin (SASS); "
      "names and parameter layouts below are read from the " + data["arch"] + " cubins' "
      "symbol names and `.nv.info.<kernel>` sections (EIATTR_KPARAM_INFO: ordinal, offset, size; "
      "EIATTR_CBANK_PARAM_SIZE: total). The kernel set is the same for every architecture "
      "except a few arch-specific extras (sm_90a/sm_100a/sm_103a cutlass/flash kernels).")
    w("")
    w("Fatbin contents per library:")
    w("")
    w("| library | fatbin containers | ELF cubins by arch | PTX entries | compression |")
    w("|---|---|---|---|---|")
    for lib, st in data["libraries"].items():
        elf = ", ".join(f"{a}: {n}" for a, n in st["elf_by_arch"].items())
        ptx = sum(st["ptx_by_arch"].values())
        comp = ", ".join(f"{c}: {n}" for c, n in st["compression"].items())
        w(f"| {lib} | {st['fatbin_containers']} | {elf} | {ptx} | {comp} |")
    w("")
    w(f"Distinct kernels ({data['arch']}): {len(ks)}. Largest parameter buffer of any kernel: "
      f"{max(k['param_bytes'] for k in ks.values())} bytes.")
    w("")
    w("| family | kernels | fp32-only instances | listed below (likely in an fp32 MLP/GPT step) |")
    w("|---|---|---|---|")
    listed = collections.OrderedDict()
    for fam, items in fams.items():
        fp32 = [(m, k) for m, k in items
                if not NOT_FP32.search(k["demangled"]) and ("float" in k["demangled"] or fam in (
                    "sort / scan / cub", "cat / copy"))]
        pat = LIKELY.get(fam, "__none__")
        if pat is None:
            pat = kw_elem
        if pat == "__none__":
            sel = []
        elif pat == "":
            sel = fp32
        else:
            rx = re.compile(pat)
            sel = [(m, k) for m, k in fp32 if rx.search(short_name(k["demangled"]))]
        listed[fam] = sel
        w(f"| {fam} | {len(items)} | {len(fp32)} | {len(sel)} |")
    w("")
    w("Format of each entry: shortened demangled name (no `void`, no parameter list, "
      "`at::native::`, `(anonymous namespace)::` and `torch::headeronly::detail::` removed), then "
      "`params N B: off:size, ...` = total parameter-buffer bytes and each parameter's byte offset "
      "and size in ordinal order (from the cubin, so it is what `cudaLaunchKernel`'s `args[i]` "
      "point to). The mangled name (what `__cudaRegisterFunction` receives) is in the JSON output.")
    w("")
    w("Selection: fp32 instances (no double/half/bf16/complex/8-16-bit types in the name) whose "
      "name matches the family's keywords in `LIKELY` (scripts/wheel_kernels.py); families with an "
      "empty keyword list are listed whole. It is a superset chosen by keyword, not a trace.")
    for fam, sel in listed.items():
        if not sel:
            continue
        w("")
        w(f"## {fam} ({len(sel)} listed of {len(fams[fam])})")
        w("")
        w("```")
        for m, k in sorted(sel, key=lambda mk: short_name(mk[1]["demangled"])):
            w(short_name(k["demangled"]))
            w(f"    params {k['param_bytes']} B: {params_text(k)}")
        w("```")
    w("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--torch-lib", help="torch/lib directory (default: the importable torch)")
    ap.add_argument("--arch", type=int, default=80, help="SM architecture to read (default 80)")
    ap.add_argument("--json", help="write the full kernel list (JSON) here")
    ap.add_argument("--doc", help="write the Markdown family summary here")
    args = ap.parse_args()
    data = collect(wc.torch_lib_dir(args.torch_lib), args.arch)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(data, f, indent=1)
    if args.doc:
        with open(args.doc, "w") as f:
            f.write(render_doc(data))
    if not args.json and not args.doc:
        json.dump(data, sys.stdout, indent=1)
    c = collections.Counter(k["family"] for k in data["kernels"].values())
    print(f"wheel_kernels: {len(data['kernels'])} kernels for {data['arch']}", file=sys.stderr)
    for fam, n in c.most_common():
        print(f"  {n:6d}  {fam}", file=sys.stderr)


if __name__ == "__main__":
    main()
