"""Runs libtessera_xla.so's CUDA RMSNorm targets (rms_forward_affine_mixed_dtype, rms_backward_affine:
nvcc's PTX for the CUDA C++ kernels) on the sim driver: device buffers from the driver API through
ctypes, descriptors packed by the TypeScript side. f32 data; prints every output."""
import ctypes
import os

import numpy as np

from tessera_xla import emit, lib, read_input

sim = ctypes.CDLL(os.environ["TESSERA_SIM_LIB"], mode=ctypes.RTLD_GLOBAL)


def cu(name, *args):
    r = getattr(sim, name)(*args)
    if r != 0:
        raise SystemExit(f"{name} failed with CUresult {r}")


def main():
    cfg = read_input()
    n1, n2, part = cfg["n1"], cfg["n2"], cfg["part"]
    cu("cuInit", 0)
    dev, ctx = ctypes.c_int(), ctypes.c_void_p()
    cu("cuDeviceGet", ctypes.byref(dev), 0)
    cu("cuDevicePrimaryCtxRetain", ctypes.byref(ctx), dev)
    cu("cuCtxSetCurrent", ctx)
    held = []

    def buf(host):
        p = ctypes.c_uint64()
        cu("cuMemAlloc_v2", ctypes.byref(p), ctypes.c_size_t(max(host.nbytes, 1)))
        cu("cuMemcpyHtoD_v2", p, host.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(host.nbytes))
        held.append((p, host))
        return p.value

    def read(i):
        p, host = held[i]
        cu("cuMemcpyDtoH_v2", host.ctypes.data_as(ctypes.c_void_p), p, ctypes.c_size_t(host.nbytes))
        return host.reshape(-1).astype(np.float64).tolist()

    f32 = lambda k: np.asarray(cfg[k], np.float32)  # noqa: E731
    bufs = [buf(f32("x")), buf(f32("w")), buf(np.zeros(n1 * n2, np.float32)), buf(np.zeros(n1, np.float32)),
            buf(f32("g")), buf(np.zeros(n1 * n2, np.float32)), buf(np.zeros(n2, np.float32)), buf(np.zeros(part * n2, np.float32))]
    call = lambda fn, ptrs, desc: fn(None, (ctypes.c_void_p * len(ptrs))(*ptrs), desc, ctypes.c_size_t(len(desc)), None)  # noqa: E731
    lib.tessera_xla_last_error.restype = ctypes.c_char_p
    call(lib.rms_forward_affine_mixed_dtype, [bufs[0], bufs[1], bufs[2], bufs[3]], bytes.fromhex(cfg["fwd"]))
    if lib.tessera_xla_last_error():
        raise SystemExit(lib.tessera_xla_last_error().decode())
    call(lib.rms_backward_affine, [bufs[4], bufs[3], bufs[0], bufs[1], bufs[5], bufs[6], bufs[7]], bytes.fromhex(cfg["bwd"]))
    if lib.tessera_xla_last_error():
        raise SystemExit(lib.tessera_xla_last_error().decode())
    cu("cuCtxSynchronize")
    emit({"out": read(2), "invvar": read(3), "gradInput": read(5), "gradWeight": read(6), "partGrad": read(7)})


main()
