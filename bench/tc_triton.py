# Compiles the tensor-core comparison kernels with Triton 3.8 for cc 80 (sm_80) or cc 90 (sm_90a)
# (no GPU needed) and prints their PTX as JSON (used by bench/tc_vs_triton.ts).
# stdin: {"cc": 80 | 90 (default 80), "kernels": [{"key", "name", "src", "signature", "constexprs", "num_warps", "num_stages",
#         "divisible": [param names specialized as divisible by 16, as Triton's launcher would],
#         "num_ctas": CTAs per cluster (optional, default 1)}]}
# stdout: {"version", "ptx": {key: text}, "shared": {key: bytes}}; with TC_TTGIR=1 in the environment
# also "ttgir": {key: text} (Triton's layouts: mma warpsPerCTA, shared swizzles), for reading by hand.
import importlib.util
import json
import os
import sys
import tempfile

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

req = json.load(sys.stdin)
out = {"version": triton.__version__, "ptx": {}, "shared": {}}
with tempfile.TemporaryDirectory() as tmp:
    os.environ["TRITON_CACHE_DIR"] = tmp
    for k in req["kernels"]:
        path = os.path.join(tmp, f"{k['key']}.py")
        with open(path, "w") as f:
            f.write(k["src"])
        spec = importlib.util.spec_from_file_location(f"tessera_tc_{k['key']}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        fn = getattr(mod, k["name"])
        # the launcher's "D" specialization (tt.divisibility 16), keyed by argument index
        attrs = {(fn.arg_names.index(n),): [["tt.divisibility", 16]] for n in k.get("divisible", [])}
        # "gluon": a Gluon kernel (triton.experimental.gluon); "num_ctas": CTAs per cluster (2: a CTA pair)
        if k.get("gluon"):
            from triton.experimental.gluon._runtime import GluonASTSource as source
        else:
            source = ASTSource
        c = triton.compile(source(fn, k["signature"], k["constexprs"], attrs), target=GPUTarget("cuda", req.get("cc", 80), 32),
                           options={"num_warps": k["num_warps"], "num_stages": k["num_stages"], "num_ctas": k.get("num_ctas", 1)})
        out["ptx"][k["key"]] = c.asm["ptx"]
        if os.environ.get("TC_TTGIR"): out.setdefault("ttgir", {})[k["key"]] = c.asm["ttgir"]
        out["shared"][k["key"]] = c.metadata.shared
json.dump(out, sys.stdout)
