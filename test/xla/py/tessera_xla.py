"""Registers libtessera_xla.so's CPU targets with jax (ctypes + PyCapsule), as docs/xla.md shows,
and small helpers the test scripts share. Input arrives as JSON on stdin; results leave as JSON."""
import ctypes
import json
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax._src.interpreters import mlir as _mlir
from jax.extend.core import Primitive
from jax.interpreters import mlir

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
LIB_PATH = os.path.join(ROOT, "build", "lib", "libtessera_xla.so")
lib = ctypes.CDLL(LIB_PATH)

_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype = ctypes.py_object
_new_capsule.argtypes = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)


def capsule(name):
    """A PyCapsule holding the exported function `name` (what jax's registry takes)."""
    fn = getattr(lib, name)
    return _new_capsule(ctypes.cast(fn, ctypes.c_void_p).value, b"xla._CUSTOM_CALL_TARGET", None)


class Target(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("platform", ctypes.c_char_p), ("api_version", ctypes.c_int)]


def targets():
    lib.tessera_xla_targets.restype = ctypes.POINTER(Target)
    n = ctypes.c_size_t()
    t = lib.tessera_xla_targets(ctypes.byref(n))
    return [(t[i].name.decode(), t[i].platform.decode(), t[i].api_version) for i in range(n.value)]


def register_cpu_targets():
    """Every Host target of the table: typed FFI (api_version 1 in jax's registry) or legacy (0)."""
    for name, platform, api in targets():
        if platform == "Host":
            jax.ffi.register_ffi_target(name, capsule(name), platform="cpu", api_version=1 if api == 4 else 0)


def legacy_call(target, opaque, operands, result_avals, api_version=3, aliases=None):
    """A jax op lowering to stablehlo.custom_call of a legacy target with `opaque` as backend_config."""
    p = Primitive(f"{target}_{len(opaque)}")
    p.multiple_results = True
    p.def_abstract_eval(lambda *args: list(result_avals))

    def lowering(ctx, *args):
        types = [_mlir.aval_to_ir_type(ctx.module_context, a) for a in ctx.avals_out]
        return _mlir.custom_call(target, result_types=types, operands=list(args), backend_config=opaque,
                                 api_version=api_version, operand_output_aliases=aliases).results

    mlir.register_lowering(p, lowering, platform="cpu")
    return p.bind(*operands)


def read_input():
    return json.load(sys.stdin)


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")


DTYPES = {"bf16": jnp.bfloat16, "f16": jnp.float16, "f32": jnp.float32, "f64": jnp.float64}
