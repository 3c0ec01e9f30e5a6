# Regenerates triton_random.json: Triton's own tl.randint4x / tl.rand / tl.randn streams, taken
# from Triton's interpreter mode (TRITON_INTERPRET=1 runs triton.language.random on the CPU with
# numpy; no GPU and no torch needed: the kernel has no pointer args and prints its results).
#   .venv/bin/python test/e2e/golden/triton_random.py > test/e2e/golden/triton_random.json
import json, os, re, sys, io, contextlib
os.environ["TRITON_INTERPRET"] = "1"
import numpy as np
import triton
import triton.language as tl

N = 32

@triton.jit
def streams(seed, base, N: tl.constexpr):
    offs = tl.arange(0, N) + base
    a, b, c, d = tl.randint4x(seed, offs)
    tl.device_print("r0", a)
    tl.device_print("r1", b)
    tl.device_print("r2", c)
    tl.device_print("r3", d)
    tl.device_print("ri", tl.randint(seed, offs))
    tl.device_print("u", tl.rand(seed, offs).to(tl.uint32, bitcast=True))
    tl.device_print("n", tl.randn(seed, offs).to(tl.uint32, bitcast=True))

# (seed, base): i32 seeds (negative ones sign-extend into the key's high word), a u32 seed, i64
# seeds; i32 offsets crossing zero, i64 offsets crossing 2^32 and negative ones.
CASES = [(0, 0), (42, -16), (-7, 1000), (3000000000, 5), (2**40 + 123, 2**33 - 16), (-(2**35) - 1, -(2**32) - 16), (123456789, 2**31 - 16)]

out = []
for seed, base in CASES:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        streams[(1,)](seed, base, N)
    got = {}
    for name, body in re.findall(r"\)\s+(\w+):\s+\[([^\]]*)\]", buf.getvalue()):
        got[name] = [int(v) for v in body.split()]
    assert all(len(v) == N for v in got.values()) and len(got) == 7, buf.getvalue()
    out.append({"seed": str(seed), "base": str(base), **got})
# one case a line
print('{"triton": "%s", "n": %d, "cases": [\n%s\n]}' % (triton.__version__, N, ",\n".join(json.dumps(c, separators=(",", ":")) for c in out)))
