# Compiles the tensor-core comparison kernels with Triton 3.8 for sm_80 (no GPU needed) and prints
# their PTX as JSON (used by bench/tc_vs_triton.ts). stdin: {"kernels": [{"name", "src",
# "signature", "constexprs", "num_warps", "num_stages"}]}; stdout: {"version", "ptx": {name: text}, "shared": {name: bytes}}.
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
        path = os.path.join(tmp, f"{k['name']}.py")
        with open(path, "w") as f:
            f.write(k["src"])
        spec = importlib.util.spec_from_file_location(f"tessera_tc_{k['name']}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        fn = getattr(mod, k["name"])
        c = triton.compile(ASTSource(fn, k["signature"], k["constexprs"]), target=GPUTarget("cuda", 80, 32),
                           options={"num_warps": k["num_warps"], "num_stages": k["num_stages"]})
        out["ptx"][k["name"]] = c.asm["ptx"]
        out["shared"][k["name"]] = c.metadata.shared
json.dump(out, sys.stdout)
