# Times Triton's compile of the benchmark kernels for sm_80 without a GPU (used by bench/compile.ts).
# stdin: {"runs": N, "kernels": [{"name", "src", "signature", "constexprs", "num_warps"?, "num_stages"?,
#         "divisible"?: [params specialized as divisible by 16, as the launcher would]}]}
# stdout: one JSON object: per kernel, warm medians and the first (cold) compile, in milliseconds,
# split as Triton's compile listener reports them: AST->TTIR, TTIR+TTGIR passes, LLIR+PTX, cubin.
import importlib.util
import json
import os
import statistics
import sys
import tempfile
import time

t_import = time.perf_counter()
import triton  # noqa: E402
from triton import knobs  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402
import_ms = (time.perf_counter() - t_import) * 1000

req = json.load(sys.stdin)
knobs.compilation.always_compile = True  # every call compiles (no cache hits)
target = GPUTarget("cuda", 80, 32)
last = {}


def listener(src, metadata, metadata_group, times, cache_hit):
    stages = dict(times.lowering_stages)
    last["init"] = times.ir_initialization / 1000
    last["passes"] = (stages.get("ttir", 0) + stages.get("ttgir", 0)) / 1000
    last["ptx"] = (stages.get("llir", 0) + stages.get("ptx", 0)) / 1000
    last["ptxas"] = stages.get("cubin", 0) / 1000


knobs.compilation.listener = listener


def load(name, src, tmp):
    path = os.path.join(tmp, f"{name}.py")
    with open(path, "w") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location(f"tessera_bench_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


def one(fn, k):
    attrs = {(fn.arg_names.index(n),): [["tt.divisibility", 16]] for n in k.get("divisible", [])}
    options = {"num_warps": k.get("num_warps", 4), "num_stages": k.get("num_stages", 3)}
    t0 = time.perf_counter()
    triton.compile(ASTSource(fn, k["signature"], k["constexprs"], attrs), target=target, options=options)
    total = (time.perf_counter() - t0) * 1000
    return dict(last, total=total)


out = {"version": triton.__version__, "import_ms": import_ms, "kernels": {}}
with tempfile.TemporaryDirectory() as tmp:
    os.environ["TRITON_CACHE_DIR"] = tmp
    for i, k in enumerate(req["kernels"]):
        fn = load(k["name"], k["src"], tmp)
        first = one(fn, k)
        samples = [one(fn, k) for _ in range(req["runs"])]
        warm = {key: statistics.median(s[key] for s in samples) for key in first}
        out["kernels"][k["name"]] = {"warm": warm, "first": first, "first_in_process": i == 0}
json.dump(out, sys.stdout)
