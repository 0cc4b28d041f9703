#!/usr/bin/env python3
"""gen_intercept.py - generate the exported-symbol surface of libtorchfl.so.

Run at build time by cmake/intercept.cmake (python3, standard library only):

    gen_intercept.py --out BUILD/intercept --symbols scripts/symbols \
        --include /usr/local/cuda/include --src src/intercept --cc gcc

Inputs
  scripts/symbols/<soname>.txt   every function the real library exports
                                 (made by scripts/gen_symbol_lists.sh)
  scripts/symbols/<soname>.types return types of the names whose prototypes
                                 are not in the CUDA 13 headers (NVML, and
                                 functions only the 12.x libraries export)
  scripts/symbols/<so12>.abi-differs  names whose 12.x ABI differs from
                                 13.x (from the 12.x vs 13.x headers)
  the CUDA 13 headers            return types, read by running the C
                                 preprocessor on them and parsing the
                                 declarations (plus a plain-text scan of a
                                 few headers the C preprocessor skips)
  src/intercept/**/*.c           hand-written implementations (see below)

Outputs (in --out)
  refusals_<lib>.c  a WEAK definition of every function of <lib>.  A
        hand-written strong definition anywhere in libtorchfl.so overrides
        it at link time, so implementing a function needs no bookkeeping.
        A refusal logs once and returns the library's "not supported"
        status (tfl_refuse, src/intercept/refuse.c).  Refusals are defined
        without parameters (`int cudaFoo(void)`): on x86-64 a callee that
        ignores its arguments is ABI-compatible with any caller, so only
        the return type matters.  Non-status returns: pointer -> NULL,
        integer/enum -> 0, floating -> 0.0, void -> nothing.  Names that no
        public header declares are private entry points between the
        vendor's own libraries (cuBLAS -> cuBLASLt, cuDNN back doors...),
        which nobody calls once torchfl replaces both; they are refused
        with the status type, after the log line that names them.
  abi12.S   the CUDA 12 ABI: for every name the 12.x library exports that
        13 also exports with the same ABI, a trampoline
        `tfl12_<name>: jmp <name>@PLT` exported as <name>@libcudart.so.12
        (likewise libcublas(Lt).so.12); and NCCL's pncclX profiling
        aliases, which jump to ncclX.  Names only 12.x exports, and those
        whose 12.x ABI differs (scripts/symbols/<so12>.abi-differs: another
        prototype, or a struct argument whose layout changed, e.g.
        cudaGetDeviceProperties), get a 12.x refusal instead, unless
        hand-written with TFL_CUDART12_OVERRIDE (src/intercept/abi12.h).
  classes.txt   the names that are not plain refusals (private entry
        points, hand-written ones), for reference.
  exports.map   the version script: nodes libcudart.so.12/.13,
        libcublas.so.12/.13, libcublasLt.so.12/.13 and libcudnn.so.9 (the
        real libraries' node names), TORCHFL_0 for the driver, NCCL, NVML
        (which the real libraries do not version) and torchfl_*; every
        other symbol is local.

Hand-written code is found by scanning src/intercept/**/*.c as text
(identifiers outside comments and strings; a macro that defines a function
counts when the name appears as its argument):
  * TFL_CUDART12_OVERRIDE(name, impl) (and the cuBLAS variants, see
    src/intercept/abi12.h) exports impl as name@<lib>.so.12; the generator
    then emits no trampoline or 12.x refusal for that name.
  * Functions that cannot be stubbed safely - they return a struct by
    value, so no status can say "refused" - are "must be hand-written".
    No weak refusal is emitted for them; instead the refusal file takes
    their address, so a missing implementation fails the link
    (-Wl,-z,defs) and, before that, the generator stops with a message
    naming them if no source file mentions the name.
Weak refusals are emitted for every other name whether or not a
hand-written definition exists: the linker resolves the choice, and a
mistaken scan can never drop a symbol.

Every generated file starts with a comment saying how to regenerate it.
"""
import argparse
import os
import re
import subprocess
import sys

# ----------------------------------------------------------------- libraries
#
# key: short name used in file names; enum: TFL_LIB_* in refuse.h;
# so13/so12: the list files (and version nodes where versioned);
# node: version node of the 13.x (current) symbols; status: the status
# type; headers: (header, extra preprocessor flags) pairs whose
# declarations give return types; raw: headers read as plain text.
LIBS = [
    dict(key="cudart", enum="TFL_LIB_CUDART", so13="libcudart.so.13",
         so12="libcudart.so.12", node="libcudart.so.13",
         status="cudaError_t", macro="TFL_CUDART12_OVERRIDE",
         headers=[("cuda_runtime_api.h", []),
                  ("cuda_runtime_api.h", ["-DCUDA_API_PER_THREAD_DEFAULT_STREAM"]),
                  ("cuda_profiler_api.h", [])],
         # these need GL/EGL/VDPAU headers (or C++) to preprocess
         raw=["crt/host_runtime.h", "crt/device_functions.h",
              "cuda_gl_interop.h", "cuda_egl_interop.h",
              "cuda_vdpau_interop.h"]),
    dict(key="driver", enum="TFL_LIB_DRIVER", so13="libcuda.so.1",
         so12=None, node="TORCHFL_0", status="CUresult",
         headers=[("cuda.h", []),
                  ("cuda.h", ["-D__CUDA_API_VERSION_INTERNAL"]),
                  ("cuda.h", ["-DCUDA_API_PER_THREAD_DEFAULT_STREAM"]),
                  ("cudaProfiler.h", [])],
         raw=["cudaGL.h", "cudaEGL.h", "cudaVDPAU.h", "cudaD3D9.h",
              "cudaD3D10.h", "cudaD3D11.h"]),
    dict(key="cublas", enum="TFL_LIB_CUBLAS", so13="libcublas.so.13",
         so12="libcublas.so.12", node="libcublas.so.13",
         status="cublasStatus_t", macro="TFL_CUBLAS12_OVERRIDE",
         headers=[("cublas.h", []), ("cublasXt.h", [])],
         raw=["cublas_api.h"]),      # the __half functions are C++-only
    dict(key="cublasLt", enum="TFL_LIB_CUBLASLT", so13="libcublasLt.so.13",
         so12="libcublasLt.so.12", node="libcublasLt.so.13",
         status="cublasStatus_t", macro="TFL_CUBLASLT12_OVERRIDE",
         headers=[("cublasLt.h", [])], raw=[]),
    dict(key="cudnn", enum="TFL_LIB_CUDNN", so13="libcudnn.so.9",
         so12=None, node="libcudnn.so.9", status="cudnnStatus_t",
         headers=[("cudnn.h", [])], raw=[]),
    # libcusolver.so.12 ships with CUDA 13 (cuSOLVER 12.x); only its
    # cusolver* names are listed (the cublas*/pegasus* it also exports are
    # private helpers no caller links against).
    dict(key="cusolver", enum="TFL_LIB_CUSOLVER", so13="libcusolver.so.12",
         so12=None, node="libcusolver.so.12", status="cusolverStatus_t",
         headers=[("cusolverDn.h", []), ("cusolverSp.h", []),
                  ("cusolverRf.h", [])],
         raw=["cusolverSp_LOWLEVEL_PREVIEW.h"]),
    # cuFFT 12 and cuSPARSE 12 ship with CUDA 13 as well.
    dict(key="cufft", enum="TFL_LIB_CUFFT", so13="libcufft.so.12",
         so12=None, node="libcufft.so.12", status="cufftResult",
         headers=[("cufft.h", []), ("cufftXt.h", [])], raw=[]),
    dict(key="cusparse", enum="TFL_LIB_CUSPARSE", so13="libcusparse.so.12",
         so12=None, node="libcusparse.so.12", status="cusparseStatus_t",
         headers=[("cusparse.h", [])], raw=[]),
    dict(key="nccl", enum="TFL_LIB_NCCL", so13="libnccl.so.2", so12=None,
         node="TORCHFL_0", status="ncclResult_t",
         headers=[("nccl.h", [])],
         # the device API headers are C++
         raw=["nccl_device/core.h", "nccl_device/impl/core__funcs.h",
              "nccl_device/gin_barrier.h", "nccl_device/lsa_barrier.h",
              "nccl_device/ll_a2a.h"]),
    dict(key="nvml", enum="TFL_LIB_NVML", so13="libnvidia-ml.so.1",
         so12=None, node="TORCHFL_0", status="nvmlReturn_t", types_only=True,
         # no nvml.h in the toolkit: return types come from the .types file
         headers=[("nvml.h", ["-DNVML_NO_UNVERSIONED_FUNC_DEFS"]),
                  ("nvml.h", [])], raw=[]),
]
LIB_BY_KEY = {l["key"]: l for l in LIBS}
# The CUDA 12 compatibility nodes (their names export only via .symver).
COMPAT12_NODES = {l["so12"] for l in LIBS if l["so12"]}

# Return-type classes.
STATUS, POINTER, INTEGER, FLOATING, VOID, STRUCT, UNKNOWN = (
    "status", "pointer", "integer", "floating", "void", "struct", "unknown")

INTEGER_WORDS = {"char", "short", "int", "long", "signed", "unsigned",
                 "size_t", "ssize_t", "_Bool", "bool", "int8_t", "int16_t",
                 "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t",
                 "uint64_t", "intptr_t", "uintptr_t", "ptrdiff_t"}
QUALIFIERS = {"const", "volatile", "extern", "static", "inline", "__inline",
              "__inline__", "restrict", "__restrict", "__restrict__",
              "__extension__", "register"}
API_MACROS = (r"(?<!\w)(?:CUDARTAPI|CUDAAPI|CUBLASWINAPI|CUBLASAPI|CUDNNWINAPI|"
              r"CUDNNAPI|DECLDIR|__host__|__device__|__cudart_builtin__|"
              r"__CUDA_DEPRECATED|NCCL_EXTERN_C|NCCL_HOST_DEVICE_INLINE|"
              r"__forceinline__|inline|static|extern|\"C\"|"
              r"__attribute__\s*\(\([^)]*\)\))(?!\w)")

REGEN = ("Generated by scripts/gen_intercept.py (run by cmake/intercept.cmake "
         "at build time); do not edit - rebuild to regenerate.")


def die(msg):
    sys.stderr.write("gen_intercept.py: error: %s\n" % msg)
    sys.exit(1)


# ------------------------------------------------------------ symbol lists

def read_list(path):
    """Names of a list file (one per line, '#' comments), in file order."""
    names = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                names.append(line)
    return names


def read_types(path):
    """name -> return type text from a .types file (absent file: empty)."""
    types = {}
    if not os.path.exists(path):
        return types
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, _, ret = line.rstrip("\n").partition("\t")
            types[name] = ret
    return types


# --------------------------------------------------------- header parsing

def strip_balanced(text, opener):
    """Remove every `opener(( ... ))`-style construct: the keyword followed
    by a parenthesised group (balanced)."""
    out = []
    i = 0
    pat = re.compile(opener + r"\s*\(")
    while True:
        m = pat.search(text, i)
        if not m:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i:m.start()])
        depth = 0
        j = m.end() - 1
        while j < len(text):
            if text[j] == "(":
                depth += 1
            elif text[j] == ")":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        i = j + 1


def strip_braces(text):
    """Remove every top-level { ... } body, keeping what surrounds it.  A
    function body (the text before it ends with ')') becomes ';' so the
    definition reads as a declaration; a struct/enum body just goes."""
    out = []
    depth = 0
    start = 0
    for i, c in enumerate(text):
        if c == "{":
            if depth == 0:
                out.append(text[start:i])
            depth += 1
        elif c == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                start = i + 1
                out.append(" ; " if out[-1].rstrip().endswith(")") else " ")
    if depth == 0:
        out.append(text[start:])
    return "".join(out)


def preprocess(cc, header, incdirs, flags):
    """The preprocessed text of `#include <header>` (C mode), or None if
    the header is missing or does not preprocess."""
    if not any(os.path.exists(os.path.join(d, header)) for d in incdirs):
        return None
    cmd = [cc, "-E", "-P", "-x", "c", "-"] + flags
    for d in incdirs:
        cmd += ["-I", d]
    try:
        r = subprocess.run(cmd, input="#include <%s>\n" % header,
                           capture_output=True, text=True, check=False)
    except OSError as e:
        die("cannot run %s: %s" % (cc, e))
    if r.returncode != 0:
        return None
    return r.stdout


def parse_declarations(text):
    """(prototypes, typedefs) from preprocessed C: name -> return-type text
    and alias -> target text."""
    text = strip_balanced(text, r"__attribute__")
    text = strip_balanced(text, r"__declspec")
    text = strip_balanced(text, r"__asm__")
    text = re.sub(r"\b__asm\s*\([^)]*\)", " ", text)
    text = strip_braces(text)
    protos, typedefs = {}, {}
    for stmt in text.split(";"):
        s = " ".join(stmt.split())
        if not s:
            continue
        if s.startswith("typedef "):
            body = s[len("typedef "):]
            if "(" in body:              # function or function-pointer type
                m = re.match(r"(.*?)\(\s*\*\s*(\w+)\s*\)", body)
                if m:
                    typedefs[m.group(2)] = "void *"
                continue
            parts = body.split(",")           # typedef T a, *b;
            m = re.match(r"(.*?)([\s\*]*)(\w+)\s*(\[[^\]]*\])?$", parts[0].strip())
            if not m:
                continue
            base = m.group(1)
            typedefs[m.group(3)] = base + m.group(2)
            for part in parts[1:]:
                m = re.match(r"([\s\*]*)(\w+)\s*(\[[^\]]*\])?$", part.strip())
                if m:
                    typedefs[m.group(2)] = base + m.group(1)
            continue
        m = re.match(r"(.*?)\b([A-Za-z_]\w*)\s*\((.*)\)\s*$", s)
        if not m or not m.group(1).strip():
            continue
        ret = " ".join(w for w in m.group(1).split() if w not in ("extern", "static"))
        protos.setdefault(m.group(2), ret)
    return protos, typedefs


RAW_PROTO = re.compile(   # ret CALLCONV name(   (CUDA, cuBLAS, cuDNN, NVML)
    r"((?:[A-Za-z_]\w*[\s\*]+)+?)\s*(?:CUDARTAPI|CUDAAPI|CUBLASWINAPI|CUDNNWINAPI|DECLDIR)\s+\**\s*([A-Za-z_]\w*)\s*\(")
RAW_PROTO_NCCL = re.compile(  # NCCL_EXTERN_C __host__ ret name(
    r"(?:NCCL_EXTERN_C\s+__host__|NCCL_HOST_DEVICE_INLINE)\s+((?:[A-Za-z_]\w*[\s\*]+)+?)\s*\b([A-Za-z_]\w*)\s*\(")
RAW_STRUCT = re.compile(r"\bstruct\s+(?:__\w+\s+)*([A-Za-z_]\w*)\s*\{")
RAW_TYPEDEF = re.compile(r"\btypedef\s+((?:struct|enum|union)\s+\w+[\s\*]*)\b(\w+)\s*;")


def parse_raw(path):
    """(prototypes, typedefs) from a header read as plain text, for headers
    the C preprocessor cannot read in C mode (C++, or needing GL/EGL)."""
    protos, typedefs = {}, {}
    try:
        with open(path, errors="replace") as f:
            text = f.read()
    except OSError:
        return protos, typedefs
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"(?m)^\s*#.*$", " ", text)
    for rx in (RAW_PROTO, RAW_PROTO_NCCL):
        for m in rx.finditer(text):
            ret = re.sub(API_MACROS, " ", m.group(1))
            ret = " ".join(ret.split())
            # pointer stars between the calling convention and the name
            star = text[m.end(1):m.start(2)].count("*")
            if ret:
                protos.setdefault(m.group(2), ret + " *" * star)
    for m in RAW_STRUCT.finditer(text):
        typedefs.setdefault(m.group(1), "struct " + m.group(1))
    for m in RAW_TYPEDEF.finditer(text):
        typedefs.setdefault(m.group(2), m.group(1))
    return protos, typedefs


class TypeInfo:
    """Return types of one library, from its headers."""

    def __init__(self, lib, cc, incdirs):
        self.protos, self.typedefs = {}, {}
        found = False
        for header, flags in lib["headers"]:
            text = preprocess(cc, header, incdirs, flags)
            if text is None:
                continue
            found = True
            p, t = parse_declarations(text)
            for k, v in p.items():
                self.protos.setdefault(k, v)
            for k, v in t.items():
                self.typedefs.setdefault(k, v)
        for header in lib["raw"]:
            for d in incdirs:
                p, t = parse_raw(os.path.join(d, header))
                for k, v in p.items():
                    self.protos.setdefault(k, v)
                for k, v in t.items():
                    self.typedefs.setdefault(k, v)
        if not found and not lib.get("types_only"):
            die("cannot preprocess %s (in %s) for the %s return types"
                % (lib["headers"][0][0], ", ".join(incdirs), lib["key"]))
        self.status = lib["status"]
        self.status_target = self.resolve_words(self.status)

    def resolve_words(self, text, depth=0):
        """The type text with typedef names expanded down to base types."""
        words = re.findall(r"[A-Za-z_]\w*|\*", text)
        out = []
        for w in words:
            if w in QUALIFIERS:
                continue
            if w in self.typedefs and depth < 20:
                out.extend(self.resolve_words(self.typedefs[w], depth + 1))
            else:
                out.append(w)
        return out

    def classify(self, ret):
        """Return-type class of a return-type text."""
        words = [w for w in re.findall(r"[A-Za-z_]\w*|\*", ret)
                 if w not in QUALIFIERS]
        if words == [self.status]:
            return STATUS
        res = self.resolve_words(ret)
        if res == self.status_target and len(res) > 1:   # e.g. enum cudaError
            return STATUS
        if "*" in res:
            return POINTER
        if res == ["void"]:
            return VOID
        if res and res[0] == "enum":
            return INTEGER
        if res and res[0] in ("struct", "union"):
            return STRUCT
        if res and all(w in INTEGER_WORDS for w in res):
            return INTEGER
        if res in (["float"], ["double"]):
            return FLOATING
        return UNKNOWN

    def lookup(self, name):
        """Return-type text of name, trying the versioned spelling's bases
        (cuMemAlloc_v2 -> cuMemAlloc, cudaMemcpy_ptds -> cudaMemcpy)."""
        cand = name
        for _ in range(4):
            if cand in self.protos:
                return self.protos[cand]
            base = re.sub(r"(_ptds|_ptsz|_v\d+|_64)$", "", cand)
            if base == cand:
                break
            cand = base
        return None


# --------------------------------------------------------- source scanning

OVERRIDE_RE = re.compile(r"\b(TFL_CUDART12_OVERRIDE|TFL_CUBLAS12_OVERRIDE|"
                         r"TFL_CUBLASLT12_OVERRIDE)\s*\(\s*(\w+)\s*,")


def scan_sources(srcdir):
    """(identifiers mentioned, {macro: set of overridden names}) over
    src/intercept/**/*.c."""
    idents, overrides = set(), {}
    for root, _, files in os.walk(srcdir):
        for fn in files:
            if not fn.endswith(".c"):
                continue
            with open(os.path.join(root, fn), errors="replace") as f:
                text = f.read()
            code = re.sub(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\])*\"", " ", text,
                          flags=re.S)     # comments and strings do not count
            idents.update(re.findall(r"[A-Za-z_]\w*", code))
            for m in OVERRIDE_RE.finditer(text):
                overrides.setdefault(m.group(1), set()).add(m.group(2))
    return idents, overrides


# --------------------------------------------------------------- emitters

def c_header(what):
    return ("/*\n * %s\n *\n * %s\n */\n" % (what, REGEN))


def refusal(lib, name, kind, cname=None, weak=True):
    """C text of one refusal.  cname: the C symbol (name by default)."""
    cname = cname or name
    attr = "TFL_WEAK " if weak else ""
    call = 'tfl_refuse(%s, "%s")' % (lib["enum"], name)
    if kind == STATUS:
        return "%sint %s(void) { return %s; }\n" % (attr, cname, call)
    if kind == POINTER:
        return "%svoid *%s(void) { %s; return 0; }\n" % (attr, cname, call)
    if kind == INTEGER:
        return ("%sunsigned long long %s(void) { %s; return 0; }\n"
                % (attr, cname, call))
    if kind == FLOATING:
        return "%sdouble %s(void) { %s; return 0.0; }\n" % (attr, cname, call)
    if kind == VOID:
        return "%svoid %s(void) { %s; }\n" % (attr, cname, call)
    raise AssertionError(kind)


def generate(args):
    symdir = args.symbols
    incdirs = [args.include]
    idents, overrides = scan_sources(args.src)
    os.makedirs(args.out, exist_ok=True)

    owner = {}                 # name -> lib key (every exported name once)
    must_write = {}            # lib key -> [(name, reason)]
    node_names = {}            # node -> [names]
    asm = []                   # abi12.S bodies
    report = []                # lines of classes.txt
    for lib in LIBS:
        names13 = read_list(os.path.join(symdir, lib["so13"] + ".txt"))
        names12 = (read_list(os.path.join(symdir, lib["so12"] + ".txt"))
                   if lib["so12"] else [])
        info = TypeInfo(lib, args.cc, incdirs)
        sidecar = read_types(os.path.join(symdir, lib["so13"] + ".types"))
        if lib["so12"]:
            sidecar.update(read_types(os.path.join(symdir, lib["so12"] + ".types")))
        for n in names13:
            if n in owner:
                die("%s is listed for both %s and %s" % (n, owner[n], lib["key"]))
            owner[n] = lib["key"]

        def kind_of(n):
            ret = info.lookup(n)
            if ret is None and n in sidecar:
                ret = sidecar[n]
            if ret is None:
                return UNKNOWN, None
            return info.classify(ret), ret

        set13 = set(names13)
        aliases = {}
        if lib["key"] == "nccl":   # pncclX: NCCL's profiling alias of ncclX
            aliases = {n: n[1:] for n in names13
                       if n.startswith("pnccl") and n[1:] in set13}
        out = [c_header("refusals_%s.c - weak refusals for every %s function"
                        % (lib["key"], lib["so13"])),
               '#include "refuse.h"\n\n',
               "#define TFL_WEAK __attribute__((weak))\n\n"]
        missing = []
        private = []
        exported = []
        for n in names13:
            if n in aliases:
                asm.append(trampoline(n, aliases[n], None))
                exported.append(n)
                continue
            kind, ret = kind_of(n)
            exported.append(n)
            if kind == STRUCT:
                missing.append((n, "returns %s by value" % ret))
                continue
            if kind == UNKNOWN:
                private.append(n)
                kind = STATUS
            out.append(refusal(lib, n, kind))
        node_names[lib["node"]] = node_names.get(lib["node"], []) + exported

        # ---- 12.x ABI
        if lib["so12"]:
            macro = lib["macro"]
            overridden = overrides.get(macro, set())
            out.append("\n/* %s: names only the 12.x library exports */\n"
                       % lib["so12"])
            differs = read_types(os.path.join(symdir, lib["so12"] + ".abi-differs"))
            for n in names12:
                if n in overridden:
                    continue
                if n in set13 and n not in differs:
                    asm.append(trampoline("tfl12_" + n, n, lib["so12"]))
                    continue
                kind, ret = kind_of(n)
                if n in differs:
                    # same name, other ABI: refuse rather than run 13.x code
                    out.append("/* %s: %s */\n" % (n, differs[n]))
                    out.append(refusal(lib, n + "@" + lib["so12"], kind,
                                       cname="tfl12_" + n, weak=False))
                    out.append('__asm__(".symver tfl12_%s, %s@%s");\n'
                               % (n, n, lib["so12"]))
                    continue
                if kind == STRUCT:
                    missing.append((n + "@" + lib["so12"], "returns %s by value "
                                    "(use %s)" % (ret, macro)))
                    continue
                if kind == UNKNOWN:
                    private.append(n + "@" + lib["so12"])
                    kind = STATUS
                out.append(refusal(lib, n, kind, cname="tfl12_" + n, weak=False))
                out.append('__asm__(".symver tfl12_%s, %s@%s");\n'
                           % (n, n, lib["so12"]))
            stray = overridden - set(names12)
            if stray:
                die("%s names functions libcudart/cublas 12 does not export: %s"
                    % (macro, ", ".join(sorted(stray))))
        if private:
            report.extend("%s\tprivate\t%s\n" % (lib["key"], n) for n in private)
        # ---- must be hand-written: take their addresses so the link fails
        if missing:
            must_write[lib["key"]] = missing
            out.append("\n/* Must be hand-written (cannot be stubbed safely); "
                       "referenced so a missing one fails the link. */\n")
            plain = [n for n, _ in missing if "@" not in n]
            for n in plain:
                out.append("extern char %s[];\n" % n)
            if plain:
                out.append("__attribute__((used)) static const void *const "
                           "tfl_must_be_hand_written[] = {\n")
                out.extend("    %s,\n" % n for n in plain)
                out.append("};\n")
        write(os.path.join(args.out, "refusals_%s.c" % lib["key"]), "".join(out))
        if lib["so12"]:
            node_names.setdefault(lib["so12"], [])

    # unimplemented must-be-hand-written names: stop with a clear message
    absent = []
    for key, items in must_write.items():
        for n, why in items:
            base = n.split("@")[0]
            if "@" in n:
                macro = LIB_BY_KEY[key]["macro"]
                if base not in overrides.get(macro, set()):
                    absent.append("%s (%s)" % (n, why))
            elif base not in idents:
                absent.append("%s (%s)" % (n, why))
    if absent:
        die("these functions must be hand-written in src/intercept/ "
            "(they cannot be stubbed safely) but no source mentions them:\n  "
            + "\n  ".join(absent))

    # NVRTC: no refusals; the shim (src/intercept/nvrtc) forwards every
    # name to the real library, at the libnvrtc.so.13 node (torch >= 2.15
    # links NVRTC with versioned references).
    nvrtc = read_list(os.path.join(symdir, "libnvrtc.so.13.txt"))
    absent = [n for n in nvrtc if n not in idents]
    if absent:
        die("these NVRTC functions must be forwarded in src/intercept/nvrtc/ but no "
            "source mentions them:\n  " + "\n  ".join(absent))
    node_names["libnvrtc.so.13"] = nvrtc

    write(os.path.join(args.out, "abi12.S"),
          "/*\n * abi12.S - CUDA 12 ABI trampolines and NCCL pncclX aliases.\n"
          " *\n * %s\n */\n\t.text\n" % REGEN + "".join(asm)
          + '\t.section .note.GNU-stack,"",@progbits\n')
    write(os.path.join(args.out, "exports.map"), version_script(node_names))
    write(os.path.join(args.out, "classes.txt"),
          "# %s\n# lib<TAB>class<TAB>name[<TAB>why]: the names that are "
          "not plain refusals.\n" % REGEN + "".join(report) + "".join(
              "%s\thand-written\t%s\t%s\n" % (k, n, why)
              for k, items in must_write.items() for n, why in items))


def trampoline(sym, target, node):
    """An exported jump: sym -> target (through the PLT, so interposition
    and the hand-written/weak choice are honoured)."""
    s = ("\t.globl %s\n\t.type %s, @function\n\t.p2align 4\n%s:\n"
         "\tjmp %s@PLT\n\t.size %s, .-%s\n" % (sym, sym, sym, target, sym, sym))
    if node:
        s += "\t.symver %s, %s@%s\n" % (sym, target, node)
    return s


def version_script(node_names):
    """exports.map text.  The 12.x nodes export only through .symver (their
    tfl12_* stand-ins stay local); the 13.x nodes inherit from them."""
    out = ["/*\n * exports.map - version script of libtorchfl.so.\n *\n"
           " * %s\n */\n" % REGEN]
    order = ["libcudart.so.12", "libcudart.so.13", "libcublas.so.12",
             "libcublas.so.13", "libcublasLt.so.12", "libcublasLt.so.13",
             "libcudnn.so.9", "libcusolver.so.12", "libcufft.so.12",
             "libcusparse.so.12", "libnvrtc.so.13", "TORCHFL_0"]
    for node in order:
        names = sorted(set(node_names.get(node, [])))
        parent = {"libcudart.so.13": "libcudart.so.12",
                  "libcublas.so.13": "libcublas.so.12",
                  "libcublasLt.so.13": "libcublasLt.so.12"}.get(node)
        body = ""
        if node in COMPAT12_NODES:     # libcusolver.so.12 is a current node
            body = "  local: tfl12*;\n"
        else:
            body = "  global:\n" + "".join("    %s;\n" % n for n in names)
            if node == "TORCHFL_0":
                body += "    torchfl_*;\n  local: *;\n"
        out.append("%s {\n%s}%s;\n" % (node, body, " " + parent if parent else ""))
    return "".join(out)


def write(path, text):
    """Write only when the content changed (keeps rebuilds incremental)."""
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


# ------------------------------------------------------- --abi-diff mode

def struct_bodies(text):
    """tag or typedef name -> normalised body of every struct/union
    defined in preprocessed text (anonymous typedef'd ones by alias)."""
    text = strip_balanced(text, r"__attribute__")
    bodies = {}
    for m in re.finditer(r"\b(?:struct|union)\s+(\w+)?\s*\{", text):
        depth, j = 0, m.end() - 1
        while j < len(text):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            if depth == 0:
                break
            j += 1
        body = " ".join(text[m.end():j].split())
        name = m.group(1)
        if not name:                       # typedef struct { ... } Name;
            after = re.match(r"\s*(\w+)\s*;", text[j + 1:])
            name = after.group(1) if after else None
        if name:
            bodies.setdefault(name, body)
    return bodies


def abi_signatures(text):
    """name -> normalised "ret(params)" of the functions in text."""
    t = strip_braces(strip_balanced(text, r"__attribute__"))
    sigs = {}
    for stmt in t.split(";"):
        st = " ".join(stmt.split())
        m = re.match(r"(.*?)\b([A-Za-z_]\w*)\s*\((.*)\)\s*$", st)
        if not m or st.startswith("typedef"):
            continue
        ret = " ".join(w for w in m.group(1).split() if w not in ("extern",))
        sigs.setdefault(m.group(2), (ret, m.group(3)))
    return sigs


def abi_diff(args):
    """Used by scripts/gen_symbol_lists.sh: the names both the 12.x and the
    13.x library export whose 12.x ABI differs - another prototype, or a
    struct/union argument (directly or through typedefs and members) whose
    layout changed.  Their @<lib>.so.12 versions must not jump to the 13.x
    code; gen_intercept.py refuses them unless a hand-written override
    exists."""
    lib = LIB_BY_KEY[args.lib]
    header = {"cudart": "cuda_runtime_api.h", "cublas": "cublas_v2.h",
              "cublasLt": "cublasLt.h"}[args.lib]
    texts = []
    for incs in (args.I, [args.include]):
        t = ""
        for flags in ([], ["-DCUDA_API_PER_THREAD_DEFAULT_STREAM"]):
            pt = preprocess(args.cc, header, incs, flags)
            if pt is None:
                die("cannot preprocess %s with %s" % (header, incs))
            t += pt + "\n"
        texts.append(t)
    sig12, sig13 = abi_signatures(texts[0]), abi_signatures(texts[1])
    b12, b13 = struct_bodies(texts[0]), struct_bodies(texts[1])
    _, td12 = parse_declarations(texts[0])
    def tag(w):
        """A typedef name resolved to the struct/union it names."""
        for _ in range(20):
            if w in b12 or w not in td12:
                return w
            words = re.findall(r"[A-Za-z_]\w*", td12[w])
            if not words or words[-1] == w:
                return w
            w = words[-1]
        return w

    # a struct whose body changed, or that holds (or points to) one that did
    changed = {n for n in b12 if n in b13 and b12[n] != b13[n]}
    grew = True
    while grew:
        grew = False
        for n in b12:
            if n not in changed and n in b13 and any(
                    tag(w) in changed for w in re.findall(r"[A-Za-z_]\w*", b12[n])):
                changed.add(n)
                grew = True

    def mentions_changed(params):
        for w in re.findall(r"[A-Za-z_]\w*", params):
            if tag(w) in changed:
                return tag(w)
        return None

    names12 = read_list(args.names)
    names13 = set(read_list(args.exclude))
    print("# %s\n# Generated by scripts/gen_symbol_lists.sh; read by "
          "scripts/gen_intercept.py.\n# name<TAB>why" % args.comment)
    for n in names12:
        if n not in names13:
            continue
        if n not in sig13:
            continue        # not in cuda_runtime_api.h (registration, interop)
        if n not in sig12:
            # The 12.x header renames it (cudaGetDeviceProperties ->
            # cudaGetDeviceProperties_v2), so the exported name is a legacy
            # entry point kept for older binaries: a rename means its ABI
            # changed, and it cannot be compared - count it as different.
            why = mentions_changed(sig13[n][1])
            print("%s\tlegacy 12.x entry point (the 12.x header renames it)%s"
                  % (n, "; layout of %s changed" % why if why else ""))
            continue
        r12, p12 = sig12[n]
        r13, p13 = sig13[n]
        norm = lambda p: re.sub(r"\b\w+\s*(?=,|$)", "", p).replace(" ", "")
        if r12 != r13 or norm(p12) != norm(p13):
            print("%s\tprototype changed: 12.x (%s) -> 13.x (%s)" % (n, p12, p13))
            continue
        why = mentions_changed(p12)
        if why:
            print("%s\tlayout of %s changed" % (n, why))


# ------------------------------------------------------- --dump-types mode

def dump_types(args):
    """Used by scripts/gen_symbol_lists.sh: print the return types (or
    just the names) of the functions the library's headers declare."""
    lib = LIB_BY_KEY[args.lib]
    info = TypeInfo(lib, args.cc, args.I)
    if args.names_only:
        prefix = {"nvml": "nvml"}.get(args.lib, "")
        for n in sorted(info.protos):
            if n.startswith(prefix):
                print(n)
        return
    names = read_list(args.names)
    skip = set(read_list(args.exclude)) if args.exclude else set()
    print("# %s\n# Generated by scripts/gen_symbol_lists.sh; read by "
          "scripts/gen_intercept.py.\n# name<TAB>return type" % args.comment)
    for n in names:
        if n in skip:
            continue
        ret = info.lookup(n)
        if ret is None:
            sys.stderr.write("gen_intercept.py: no prototype for %s\n" % n)
            continue
        print("%s\t%s" % (n, " ".join(ret.split())))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out")
    ap.add_argument("--symbols")
    ap.add_argument("--include")
    ap.add_argument("--src")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--dump-types", action="store_true")
    ap.add_argument("--abi-diff", action="store_true")
    ap.add_argument("--lib")
    ap.add_argument("-I", action="append", default=[])
    ap.add_argument("--names")
    ap.add_argument("--exclude")
    ap.add_argument("--names-only", action="store_true")
    ap.add_argument("--comment", default="")
    args = ap.parse_args()
    if args.dump_types:
        dump_types(args)
    elif args.abi_diff:
        abi_diff(args)
    else:
        for a in ("out", "symbols", "include", "src"):
            if not getattr(args, a):
                die("--%s is required" % a)
        generate(args)


if __name__ == "__main__":
    main()
