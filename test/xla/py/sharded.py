"""RMSNorm forward and backward split over 4 host devices by XLA's partitioner: the typed-FFI
custom calls carry sdy.sharding_rule, the num_batch_dims frontend attribute and the targets'
batch_dims attribute, and the targets are registered as batch partitionable. Reports whether the
compiled HLO gathers anything, the per-device shapes the custom calls see, and the errors
against a numpy reference."""
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax._src.interpreters import mlir as _mlir  # noqa: E402
from jax._src.lib.mlir import ir  # noqa: E402
from jax.extend.core import Primitive  # noqa: E402
from jax.interpreters import mlir  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

from tessera_xla import emit, read_input, register_cpu_targets  # noqa: E402


def batched_call(target, rule, n_results):
    """A primitive lowering to the FFI target with one batch dim (dim 0 of every buffer).
    In the sharding rule (factor names run i..z) i is the batch factor."""
    p = Primitive(target)
    p.multiple_results = True
    p.def_abstract_eval(lambda *args, eps, out_avals: list(out_avals))

    def lowering(ctx, *args, eps, out_avals):
        types = [_mlir.aval_to_ir_type(ctx.module_context, a) for a in ctx.avals_out]
        layout = lambda a: list(range(len(a.shape) - 1, -1, -1))  # noqa: E731
        op = _mlir.custom_call(target, result_types=types, operands=list(args), api_version=4,
                               backend_config={"eps": ir.FloatAttr.get(ir.F64Type.get(), eps),
                                               "batch_dims": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 1)},
                               operand_layouts=[layout(a) for a in ctx.avals_in],
                               result_layouts=[layout(a) for a in ctx.avals_out])
        op.operation.attributes["sdy.sharding_rule"] = ir.Attribute.parse(rule)
        op.operation.attributes["mhlo.frontend_attributes"] = ir.DictAttr.get({"num_batch_dims": ir.StringAttr.get("1")})
        return op.results

    mlir.register_lowering(p, lowering, platform="cpu")
    return p


def main():
    cfg = read_input()
    register_cpu_targets()
    for t in ("tessera_rms_norm_fwd_cpu", "tessera_rms_norm_bwd_cpu"):
        jax.ffi.register_ffi_target_as_batch_partitionable(t)
    B, S, E, part, eps = cfg["B"], cfg["S"], cfg["E"], cfg["part"], cfg["eps"]
    f32 = jnp.float32
    fwd = batched_call("tessera_rms_norm_fwd_cpu", f"#sdy.op_sharding_rule<([i, j, k], [i, k])->([i, j, k], [i, j]) {{i={B}, j={S}, k={E}}}>", 2)
    bwd = batched_call("tessera_rms_norm_bwd_cpu",
                       f"#sdy.op_sharding_rule<([i, j, k], [i, j], [i, j, k], [i, k])->([i, j, k], [i, k], [i, l, k]) {{i={B}, j={S}, k={E}, l={part}}}>", 3)

    def program(x, w, g):
        wb = jnp.broadcast_to(w, (B, E))  # the weight per batch element: the batch partitioner's contract
        out, iv = fwd.bind(x, wb, eps=eps, out_avals=(jax.core.ShapedArray((B, S, E), f32), jax.core.ShapedArray((B, S), f32)))
        gi, gwb, pg = bwd.bind(g, iv, x, wb, eps=eps, out_avals=(jax.core.ShapedArray((B, S, E), f32), jax.core.ShapedArray((B, E), f32),
                                                                 jax.core.ShapedArray((B, part, E), f32)))
        return out, iv, gi, gwb.sum(axis=0)

    mesh = Mesh(np.array(jax.devices()), ("d",))
    batch3, batch2, rep = NamedSharding(mesh, P("d", None, None)), NamedSharding(mesh, P("d", None)), NamedSharding(mesh, P())
    jitted = jax.jit(program, in_shardings=(batch3, rep, batch3), out_shardings=(batch3, batch2, batch3, rep))
    rng = np.random.default_rng(5)
    x = rng.standard_normal((B, S, E)).astype(np.float32)
    w = rng.standard_normal((E,)).astype(np.float32)
    g = rng.standard_normal((B, S, E)).astype(np.float32)
    hlo = jitted.lower(x, w, g).compile().as_text()
    calls = [line.strip() for line in hlo.split("\n") if "custom-call(" in line]
    out, iv, gi, gw = (np.asarray(a, np.float64) for a in jitted(x, w, g))

    xd, wd, gd = x.astype(np.float64), w.astype(np.float64), g.astype(np.float64)
    u = 1 / np.sqrt((xd * xd).mean(-1) + eps)
    s = (gd * wd * xd).sum(-1)
    want = {
        "out": wd * xd * u[..., None],
        "invvar": u,
        "grad_input": u[..., None] * gd * wd - (u ** 3 / E * s)[..., None] * xd,
        "grad_weight": (gd * xd * u[..., None]).sum((0, 1)),
    }
    got = {"out": out, "invvar": iv, "grad_input": gi, "grad_weight": gw}
    emit({
        "devices": len(jax.devices()),
        "all_gather": "all-gather" in hlo,
        "all_reduce": "all-reduce" in hlo,
        "custom_calls": calls,
        "errors": {k: float((np.abs(got[k] - want[k]) / (1 + np.abs(want[k]))).max()) for k in want},
    })


main()
