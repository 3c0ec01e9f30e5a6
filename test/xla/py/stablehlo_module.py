"""Compiles StableHLO module text (as src/primitive emits it) with jaxlib's CPU client, with
libtessera_xla.so's CPU targets registered, and runs it. With `partitions` > 1 the inputs are
placed on that many host devices (XLA_FLAGS=--xla_force_host_platform_device_count) split along
the dim each names, and the compiled (partitioned) HLO text comes back for inspection."""
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
import numpy as np  # noqa: E402
from jax.extend import backend  # noqa: E402
from jax._src.lib import xla_client as xc  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec  # noqa: E402

from tessera_xla import DTYPES, emit, read_input, register_cpu_targets  # noqa: E402


def spec(rank, dim):
    return PartitionSpec(*[("x" if d == dim else None) for d in range(rank)])


def run(m):
    for name in m.get("batchPartitionable", []):
        # XLA's batch partitioner splits this target along its num_batch_dims leading dims.
        jax.ffi.register_ffi_target_as_batch_partitionable(name)
    client = backend.get_backend("cpu")
    n = m.get("partitions", 1)
    devices = client.local_devices()[:n]
    if len(devices) < n:
        raise SystemExit(f"{n} partitions need {n} host devices, jax has {len(devices)}")
    opts = xc.CompileOptions()
    opts.num_partitions = n
    opts.executable_build_options.num_partitions = n
    opts.executable_build_options.use_spmd_partitioning = n > 1
    opts.executable_build_options.use_shardy_partitioner = True  # the module carries sdy.* shardings
    opts.device_assignment = xc.DeviceAssignment.create(np.arange(n).reshape(1, n))
    exe = client.compile_and_load(m["text"], xc.DeviceList(tuple(devices)), opts)
    mesh = Mesh(np.array(devices), ("x",))
    args = []
    for a in m["inputs"]:
        host = np.asarray(a["data"], np.float64).reshape(a["shape"]).astype(DTYPES[a["dtype"]])
        args.append(jax.device_put(host, NamedSharding(mesh, spec(len(a["shape"]), a.get("split")))))
    per_output = exe.execute_sharded(args).disassemble_into_single_device_arrays()
    outs = []
    for i, shards in enumerate(per_output):
        split = (m.get("outSplits") or [None] * len(per_output))[i]
        parts = [np.asarray(s, np.float64) for s in shards]
        whole = np.concatenate(parts, axis=split) if split is not None else parts[0]
        outs.append({"shape": list(whole.shape), "data": whole.reshape(-1).tolist(),
                     "shardShapes": [list(p.shape) for p in parts]})
    return {"outputs": outs, "hlo": exe.hlo_modules()[0].to_string()}


def main():
    cfg = read_input()
    register_cpu_targets()
    emit({"modules": [run(m) for m in cfg["modules"]]})


main()
