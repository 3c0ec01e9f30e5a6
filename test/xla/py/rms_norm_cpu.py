"""RMSNorm through the library's CPU targets inside jitted XLA programs: the legacy targets with
descriptors packed by src/descriptor (TypeScript), and the typed-FFI targets with eps as an
attribute; every result compared with a float64 numpy reference."""
import jax

jax.config.update("jax_enable_x64", True)
import numpy as np  # noqa: E402

from tessera_xla import DTYPES, emit, legacy_call, read_input, register_cpu_targets, targets  # noqa: E402

TOL = {"bf16": 2e-2, "f16": 4e-3, "f32": 2e-5, "f64": 1e-12}


def reference(x, w, g, eps, part):
    x, w, g = (np.asarray(a, np.float64) for a in (x, w, g))
    n2 = w.size
    xr, gr, wr = x.reshape(-1, n2), g.reshape(-1, n2), w.reshape(-1)
    u = 1 / np.sqrt((xr * xr).mean(axis=1) + eps)
    out = wr * xr * u[:, None]
    s = (gr * wr * xr).sum(axis=1)
    gi = u[:, None] * gr * wr - (u ** 3 / n2 * s)[:, None] * xr
    contrib = gr * xr * u[:, None]
    pg = np.zeros((part, n2))
    for i in range(xr.shape[0]):
        pg[i % part] += contrib[i]
    return out.reshape(x.shape), u, gi.reshape(x.shape), contrib.sum(axis=0).reshape(w.shape), pg


def err(got, want, dts):
    got = np.asarray(got, np.float64)
    rel = np.abs(got - want) / (1 + np.abs(want))
    tol = max(TOL[d] for d in dts)
    return float(rel.max()) if rel.size else 0.0, tol


def main():
    cfg = read_input()
    register_cpu_targets()
    results = {"targets": targets(), "cases": []}
    for c in cfg["cases"]:
        xd, wd = DTYPES[c["x"]], DTYPES[c["w"]]
        ivd = np.float64 if c["x"] == "f64" else np.float32
        rng = np.random.default_rng(c["seed"])
        shape, wshape, part, eps = tuple(c["shape"]), tuple(c["wshape"]), c["part"], c["eps"]
        x = jax.numpy.asarray(rng.standard_normal(shape) * 2, xd)
        w = jax.numpy.asarray(rng.standard_normal(wshape), wd)
        g = jax.numpy.asarray(rng.standard_normal(shape), wd)
        n1 = int(np.prod(shape) // np.prod(wshape))
        avals = [jax.core.ShapedArray(shape, wd), jax.core.ShapedArray((n1,), ivd)]
        bavals = [jax.core.ShapedArray(shape, xd), jax.core.ShapedArray(wshape, wd), jax.core.ShapedArray((part, int(np.prod(wshape))), ivd)]
        if c["api"] == "legacy":
            fwd_opaque, bwd_opaque = bytes.fromhex(c["fwd"]), bytes.fromhex(c["bwd"])

            def f(x, w, g):
                out, iv = legacy_call("rms_forward_affine_mixed_dtype_cpu", fwd_opaque, [x, w], avals)
                gi, gw, pg = legacy_call("rms_backward_affine_cpu", bwd_opaque, [g, iv, x, w], bavals)
                return out, iv, gi, gw, pg
        else:
            def f(x, w, g):
                out, iv = jax.ffi.ffi_call("tessera_rms_norm_fwd_cpu", [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in avals])(x, w, eps=np.float64(eps))
                gi, gw, pg = jax.ffi.ffi_call("tessera_rms_norm_bwd_cpu", [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in bavals])(g, iv, x, w, eps=np.float64(eps))
                return out, iv, gi, gw, pg
        got = jax.jit(f)(x, w, g)
        want = reference(x, w, g, eps, part)
        names = ["out", "invvar", "grad_input", "grad_weight", "part_grad"]
        acc = "f64" if c["x"] == "f64" else "f32"
        storage = [c["w"], acc, c["x"], c["w"], acc]
        errs = {n: err(gv, wv, [s, acc]) for n, gv, wv, s in zip(names, got, want, storage)}
        dtypes = [str(a.dtype) for a in got]
        results["cases"].append({"case": c, "errors": errs, "dtypes": dtypes})
    # A typed-FFI failure reaches jax as an exception carrying the target's message.
    x = jax.numpy.ones((2, 8), jax.numpy.float32)
    w = jax.numpy.ones((8,), jax.numpy.float32)
    try:
        jax.jit(lambda x, w: jax.ffi.ffi_call("tessera_rms_norm_fwd_cpu", [jax.ShapeDtypeStruct((2, 8), np.float32), jax.ShapeDtypeStruct((3,), np.float32)])(x, w, eps=1e-5))(x, w)
        results["ffi_error"] = None
    except Exception as e:  # jaxlib's XlaRuntimeError
        results["ffi_error"] = str(e)
    emit(results)


main()
