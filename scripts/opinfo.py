#!/usr/bin/env python3
"""opinfo.py - PyTorch's own op database (OpInfo) on `cuda` under torchfl,
compared with the same ops on the CPU.

    scripts/opinfo.py [--python PY] [--build DIR] [--dtype float32] [--ops a,b] [--shard K/N]
                      [--samples N] [--jobs J] [--out results.jsonl]
                      [--summary docs/coverage.md] [--expect FILE]

The driver (this script under any Python) lists the OpInfos of
`torch.testing._internal.common_methods_invocations.op_db` that support the
dtype on CUDA, and runs them in worker processes under `build/torchfl run`
with the venv's Python (--python; default: the newest release's venv made
by scripts/setup_venv.sh).  A worker that dies (an abort, a sticky CUDA
error) or hangs past --timeout costs only the op it was running: the driver
records that op as `crash` or `timeout` and starts a new worker on the rest.

Per op, for up to --samples of its sample inputs (made on cuda, as PyTorch's
own test_compare_cpu makes them: some samples keep a tensor on the CPU on
purpose; each run gets fresh copies, so in-place ops cannot leak):
  forward   op(cuda sample) vs op(cpu sample), both through the sample's
            output_process_fn_grad (which makes non-unique results such as
            SVD signs comparable), assert_close at atol = rtol = 1e-3 for
            float32 (PyTorch's per-dtype defaults scaled as test_compare_cpu
            does for lower precisions), NaN equal to NaN, integers exact;
  backward  when the op supports autograd: the gradients of the float
            outputs against the same random output gradients, compared the
            same way.
A sample whose CPU run raises is not counted (the CPU cannot be the
reference).  An op whose CPU output changes with the seed is random: only
its output shapes and dtypes are compared (status `random`).

Statuses: pass, fail (with the first difference or error), random, crash,
timeout, nosample (no sample the CPU could run), nocuda (PyTorch's
dispatcher has no CUDA kernel for the op: real CUDA raises the same
NotImplementedError).  Where PyTorch's CPU and CUDA code differ by design
(PYTORCH_DIFFERS below), only what both define is compared.  The pass rate is
pass / (pass + fail + crash + timeout); random and nosample ops are listed
apart.  --summary writes the Markdown table docs/coverage.md is made of.
--expect FILE (tests/pytorch/opinfo_expected.txt) makes it a test: it exits
1 if an op fails that the file does not list for the dtype, or if a listed
op passes now (remove it: the list only shrinks).
"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ------------------------------------------------------------------ worker

def op_key(op):
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


def tolerance(torch, dtype):
    """test_compare_cpu's 1e-3, loosened for half precision (PyTorch's own
    comparison precision of those types is 1e-3 (fp16) and 1.6e-2 (bf16)
    relative, before any reduction-order difference)."""
    if dtype == torch.float16:
        return dict(atol=1e-2, rtol=1e-2)
    if dtype == torch.bfloat16:
        return dict(atol=5e-2, rtol=5e-2)
    return dict(atol=1e-3, rtol=1e-3)


# Where PyTorch's own CPU and CUDA code differ by design (decided in ATen's
# C++, before any kernel runs, so real CUDA differs from the CPU the same
# way): the outputs compared are adjusted, and why is said here.
def drop_empty_cpu_stats(got, want):
    """native_batch_norm in eval mode: CUDA's ATen allocates save_mean and
    save_invstd of shape [C] (left unwritten), the CPU returns [0]."""
    if isinstance(want, tuple) and len(want) == 3 and want[1].numel() == 0:
        return got[:1], want[:1]
    return got, want


PYTORCH_DIFFERS = {
    "native_batch_norm": drop_empty_cpu_stats,
    "_native_batch_norm_legit": drop_empty_cpu_stats,
}


class Worker:
    def __init__(self, args):
        import torch
        from torch.testing._internal.common_methods_invocations import op_db
        from torch.utils import _pytree
        self.torch, self.pytree, self.args = torch, _pytree, args
        self.dtype = getattr(torch, args.dtype)
        self.tol = tolerance(torch, self.dtype)
        self.ops = {op_key(o): o for o in op_db}

    # -- moving samples
    def to_cpu(self, sample):
        t = self.torch

        def f(x):
            if isinstance(x, t.Tensor):
                y = x.detach().to("cpu")
                return y.requires_grad_(x.requires_grad)
            return x
        return sample.transform(f)

    def flat(self, out):
        leaves, _ = self.pytree.tree_flatten(out)
        return leaves

    def fresh(self, sample):
        """A copy of sample with new leaf tensors: in-place ops must not
        change the inputs of the next run."""
        t = self.torch

        def f(x):
            if isinstance(x, t.Tensor):
                return x.detach().clone().requires_grad_(x.requires_grad)
            return x
        return sample.transform(f)

    def run(self, op, sample, seed):
        """(the sample it ran on, its processed output)"""
        sample = self.fresh(sample)
        self.torch.manual_seed(seed)
        out = op(sample.input, *sample.args, **sample.kwargs)
        return sample, sample.output_process_fn_grad(out)

    # -- comparing
    def compare(self, got, want, what):
        t = self.torch
        g, w = self.flat(got), self.flat(want)
        if len(g) != len(w):
            raise AssertionError("%s: %d outputs, cpu %d" % (what, len(g), len(w)))
        for i, (a, b) in enumerate(zip(g, w)):
            if isinstance(b, t.Tensor):
                if not isinstance(a, t.Tensor):
                    raise AssertionError("%s[%d]: not a tensor" % (what, i))
                if a.layout != t.strided or b.layout != t.strided:
                    a, b = a.to_dense(), b.to_dense()
                t.testing.assert_close(a.detach().cpu(), b.detach(), equal_nan=True,
                                       check_stride=False, check_device=False,
                                       msg=lambda m, i=i: "%s[%d]: %s" % (what, i, m),
                                       **self.tol)
            elif a != b and not (a != a and b != b):
                raise AssertionError("%s[%d]: %r, cpu %r" % (what, i, a, b))

    def same_shapes(self, got, want):
        t = self.torch
        for a, b in zip(self.flat(got), self.flat(want)):
            if isinstance(b, t.Tensor):
                assert a.shape == b.shape and a.dtype == b.dtype, \
                    "shape/dtype %s %s, cpu %s %s" % (a.shape, a.dtype, b.shape, b.dtype)

    def is_random(self, op, sample, first):
        """Does the CPU output change with the seed?  Random OpInfos seed
        themselves (wrapper_set_seed calls torch.manual_seed(42)), so the
        second run maps every seeding to another seed."""
        t = self.torch
        real = t.manual_seed
        t.manual_seed = lambda s: real(12345 + int(s))
        try:
            _, again = self.run(op, sample, 1)
            self.compare(again, first, "seed")
            return False
        except AssertionError:
            return True
        except Exception:
            return False
        finally:
            t.manual_seed = real

    # -- backward
    def grads(self, sample, out, seed):
        t = self.torch
        ins = [x for x in self.flat((sample.input, sample.args, sample.kwargs))
               if isinstance(x, t.Tensor) and x.requires_grad]
        outs = [o for o in self.flat(out) if isinstance(o, t.Tensor) and o.requires_grad
                and (o.is_floating_point() or o.is_complex())]
        if not ins or not outs:
            return None
        gen = t.Generator().manual_seed(seed)
        gos = [t.randn(o.shape, generator=gen, dtype=o.dtype).to(o.device) for o in outs]
        gs = t.autograd.grad(outs, ins, gos, allow_unused=True)
        return [g if g is not None else t.zeros(()) for g in gs]

    def one_sample(self, op, sample, cpu, want, n, random):
        """Compare the cuda run of one sample with its cpu run."""
        cuda, got = self.run(op, sample, 0)
        self.torch.cuda.synchronize()
        if random:
            self.same_shapes(got, want)
            return
        adjust = PYTORCH_DIFFERS.get(op.name)
        self.compare(*(adjust(got, want) if adjust else (got, want)), "forward")
        if self.args.backward and op.supports_autograd:
            try:
                gw = self.grads(cpu, want, n)
            except Exception:
                return               # the CPU cannot differentiate this sample
            if gw is not None:
                gg = self.grads(cuda, got, n)
                self.torch.cuda.synchronize()
                self.compare(gg, gw, "backward")

    def samples(self, op):
        grad = self.args.backward and op.supports_autograd and \
            (self.dtype.is_floating_point or self.dtype.is_complex)
        it = op.sample_inputs("cuda", self.dtype, requires_grad=grad)
        for i, s in enumerate(it):
            if self.args.samples and i >= self.args.samples:
                return
            yield s

    def cpu_runs(self, op):
        """[(sample, cpu sample, cpu output)] of the samples the CPU runs."""
        runs = []
        for sample in self.samples(op):
            try:
                runs.append((sample,) + self.run(op, self.to_cpu(sample), 0))
            except Exception:
                pass                 # the CPU cannot be the reference here
        return runs

    def test_op(self, key):
        op = self.ops[key]
        # the samples are random tensors: seeded per op, as PyTorch's test
        # framework does, so every run (and every worker) sees the same ones
        self.torch.manual_seed(0)
        try:
            runs = self.cpu_runs(op)
            # an op is random if any sample's output depends on the seed
            random = any(self.is_random(op, self.to_cpu(s), want) for s, _, want in runs)
            for n, (sample, cpu, want) in enumerate(runs):
                self.one_sample(op, sample, cpu, want, n, random)
        except NotImplementedError as e:
            if "with arguments from the" in str(e):
                # the dispatcher has no CUDA kernel for it: real CUDA raises
                # the same, whatever runs the kernels
                return dict(status="nocuda", msg=" ".join(str(e).split())[:200])
            return dict(status="fail", msg="NotImplementedError: " + str(e)[:380])
        except Exception as e:
            msg = "%s: %s" % (type(e).__name__, " ".join(str(e).split()))
            return dict(status="fail", msg=msg[:400])
        if not runs:
            return dict(status="nosample")
        return dict(status="random" if random else "pass", samples=len(runs))

    def sticky(self):
        """True if the CUDA context is no longer usable (a sticky error)."""
        try:
            x = self.torch.ones(4, device="cuda")
            return float((x + x).sum().item()) != 8.0
        except Exception:
            return True


def worker_main(args):
    import warnings
    warnings.filterwarnings("ignore")
    w = Worker(args)
    keys = [k.strip() for k in open(args.worker_ops) if k.strip()]
    with open(args.out, "a", buffering=1) as out:
        for key in keys:
            out.write(json.dumps(dict(op=key, start=time.time())) + "\n")
            r = w.test_op(key)
            r["op"] = key
            out.write(json.dumps(r) + "\n")
            if w.sticky():
                return 3        # the driver starts a new worker
    return 0


# ------------------------------------------------------------------ driver

def list_ops(py, dtype):
    code = ("import torch,warnings;warnings.filterwarnings('ignore');"
            "from torch.testing._internal.common_methods_invocations import op_db;"
            "d=getattr(torch,%r);"
            "print('\\n'.join(o.name+('.'+o.variant_test_name if o.variant_test_name else '')"
            " for o in op_db if d in o.supported_dtypes('cuda')))" % dtype)
    r = subprocess.run([py, "-c", code], capture_output=True, text=True, check=True,
                       env=dict(os.environ, CUDA_VISIBLE_DEVICES=""))
    return [line for line in r.stdout.split("\n") if line]


def read_results(path):
    done, started = {}, None
    if not os.path.exists(path):
        return done, started
    for line in open(path):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if "start" in r:
            started = (r["op"], r["start"])
        else:
            done[r["op"]] = r
            started = None
    return done, started


def run_worker(args, keys, out):
    lst = out + ".todo"
    with open(lst, "w") as f:
        f.write("\n".join(keys) + "\n")
    cmd = [os.path.join(args.build, "torchfl"), "run", "--", args.python,
           os.path.abspath(__file__), "--worker-ops", lst, "--out", out,
           "--dtype", args.dtype, "--samples", str(args.samples)]
    if not args.backward:
        cmd.append("--no-backward")
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while p.poll() is None:
        time.sleep(0.5)
        done, started = read_results(out)
        if started and time.time() - started[1] > args.timeout:
            p.kill()
            p.wait()
            return dict(op=started[0], status="timeout",
                        msg="no result after %d s" % args.timeout)
    done, started = read_results(out)
    if started:
        return dict(op=started[0], status="crash",
                    msg="the worker died (exit %d)" % p.returncode)
    return None


def shard_driver(args, keys, out):
    """Run keys to completion in workers writing to out; return results."""
    if os.path.exists(out):
        os.remove(out)
    extra = {}
    while True:
        done, _ = read_results(out)
        done.update(extra)
        todo = [k for k in keys if k not in done]
        if not todo:
            return [done[k] for k in keys]
        bad = run_worker(args, todo, out)
        if bad:
            extra[bad["op"]] = bad
        elif [k for k in keys if k not in read_results(out)[0] and k not in extra] == todo:
            # the worker made no progress without a started op: give up on it
            for k in todo:
                extra[k] = dict(op=k, status="crash", msg="the worker did not start")


def summarize(results, args, elapsed):
    by = {}
    for r in results:
        by.setdefault(r["status"], []).append(r)
    counted = sum(len(by.get(s, [])) for s in ("pass", "fail", "crash", "timeout"))
    npass = len(by.get("pass", []))
    rate = 100.0 * npass / counted if counted else 0.0
    lines = ["torch %s, %s, %d ops: %d pass, %d fail, %d crash, %d timeout, "
             "%d random, %d without a usable sample, %d without a CUDA kernel in "
             "PyTorch; pass rate %.1f %% (%.0f s)"
             % (args.torch_version, args.dtype, len(results), npass,
                len(by.get("fail", [])), len(by.get("crash", [])),
                len(by.get("timeout", [])), len(by.get("random", [])),
                len(by.get("nosample", [])), len(by.get("nocuda", [])), rate, elapsed)]
    return lines, by, rate


def write_summary(path, results, args, head, by):
    rows = ["| op | status | reason |", "|---|---|---|"]
    for r in sorted(results, key=lambda r: r["op"]):
        if r["status"] in ("fail", "crash", "timeout", "random", "nosample", "nocuda"):
            msg = r.get("msg", {"random": "output depends on the seed: shapes and "
                                "dtypes compared", "nosample": "no sample runs on the CPU"}
                        .get(r["status"], "")).replace("|", "\\|")
            rows.append("| `%s` | %s | %s |" % (r["op"], r["status"], msg[:300]))
    text = ("<!-- written by scripts/opinfo.py --summary; rerun it to regenerate -->\n"
            "%s\n\n%s\n" % (head[0], "\n".join(rows)))
    with open(path, "w") as f:
        f.write(text)


def read_expected(path, dtype):
    """{op: reason} of the [dtype] section of an expected-failures file:
    lines `op  # reason`, sections `[float32]`, `#` comments."""
    out, section = {}, None
    for line in open(path):
        line = line.strip()
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
        elif line and not line.startswith("#") and section == dtype:
            op, _, why = line.partition("#")
            out[op.strip()] = why.strip()
    return out


def check_expected(results, expected):
    """Lines saying where the results and the expected failures disagree:
    an unlisted op that fails, or a listed op that no longer fails (so the
    list only shrinks as ops are fixed, and never hides a regression)."""
    bad = []
    for r in results:
        failed = r["status"] in ("fail", "crash", "timeout")
        if failed and r["op"] not in expected:
            bad.append("unexpected %s: %s: %s" % (r["status"], r["op"], r.get("msg", "")[:200]))
        elif not failed and r["op"] in expected:
            bad.append("now %s, remove it from the expected failures: %s" % (r["status"], r["op"]))
    return bad


def default_python():
    r = subprocess.run(["bash", os.path.join(ROOT, "scripts", "setup_venv.sh"), "newest"],
                       capture_output=True, text=True, check=True)
    return os.path.join(r.stdout.strip(), "bin", "python")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--python")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"),
                    help="the build directory whose torchfl runs the workers")
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--ops", help="comma-separated op keys (name or name.variant)")
    ap.add_argument("--shard", help="K/N: every N-th op from the K-th (0-based)")
    ap.add_argument("--samples", type=int, default=6, help="per op; 0: all")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=180, help="seconds per op")
    ap.add_argument("--no-backward", dest="backward", action="store_false")
    ap.add_argument("--out", default="opinfo-results.jsonl")
    ap.add_argument("--summary")
    ap.add_argument("--expect", help="expected-failures file: exit 1 on any difference")
    ap.add_argument("--worker-ops", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker_ops:
        return worker_main(args)

    args.python = args.python or default_python()
    args.torch_version = subprocess.run(
        [args.python, "-c", "from importlib import metadata;print(metadata.version('torch'))"],
        capture_output=True, text=True).stdout.strip()
    keys = list_ops(args.python, args.dtype)
    if args.ops:
        want = set(args.ops.split(","))
        keys = [k for k in keys if k in want or k.split(".")[0] in want]
    if args.shard:
        k, n = map(int, args.shard.split("/"))
        keys = keys[k::n]
    t0 = time.time()
    parts = [keys[i::args.jobs] for i in range(args.jobs)]
    import concurrent.futures as cf
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        futs = [ex.submit(shard_driver, args, p, "%s.%d" % (args.out, i))
                for i, p in enumerate(parts)]
        results = [r for f in futs for r in f.result()]
    for i in range(args.jobs):
        for suffix in ("", ".todo"):
            try:
                os.remove("%s.%d%s" % (args.out, i, suffix))
            except OSError:
                pass
    with open(args.out, "w") as f:
        for r in results:
            f.write(json.dumps(r) + "\n")
    head, by, _ = summarize(results, args, time.time() - t0)
    for s in ("fail", "crash", "timeout"):
        for r in by.get(s, []):
            print("%-8s %-40s %s" % (s, r["op"], r.get("msg", "")[:200]))
    print(head[0])
    if args.summary:
        write_summary(args.summary, results, args, head, by)
    if args.expect:
        bad = check_expected(results, read_expected(args.expect, args.dtype))
        for line in bad:
            print(line)
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
