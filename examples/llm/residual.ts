// LOCAL WORKAROUND (examples/llm): the residual add `x += y` of a decoder layer. tessera/ops has no
// elementwise add (nor a matmul epilogue that adds a residual), so the runner carries this one small
// kernel; it moves to src/ops when ops grows `add` (or matmul a `residual` option).
// f32 math, rounded once to the dtype: as torch adds two f16/bf16 tensors on the CPU.
import { arange, constexpr, kernel, load, programId, ptr, store, type DeviceArray, type DType, type Future, type Kernel } from '../../src/index.js';

const BLOCK = 256;
const kernels = new Map<DType, Kernel>();

function addKernel(dt: DType): Kernel {
  let k = kernels.get(dt);
  if (!k) {
    k = kernel({ name: `llm_residual_add_${dt}`, params: { x: ptr(dt), y: ptr(dt), n: 'i32', BLOCK: constexpr() } }, ({ x, y, n, BLOCK }) => {
      const offs = programId(0).mul(BLOCK).add(arange(0, BLOCK));
      const mask = offs.lt(n);
      const a = load(x.add(offs), { mask, other: 0 }).to('f32');
      const b = load(y.add(offs), { mask, other: 0 }).to('f32');
      store(x.add(offs), a.add(b).to(dt), { mask });
    });
    kernels.set(dt, k);
  }
  return k;
}

/** x += y in place (same dtype, shape and device; contiguous). */
export function addInPlace(x: DeviceArray, y: DeviceArray): Future<void> {
  if (x.dtype !== y.dtype || x.size !== y.size || x.device !== y.device) {
    throw new Error(`addInPlace: x ${x.dtype}[${x.shape.join(',')}] and y ${y.dtype}[${y.shape.join(',')}] differ`);
  }
  return addKernel(x.dtype).run({ x, y, n: x.size, BLOCK } as never, { grid: Math.ceil(x.size / BLOCK), device: x.device, numWarps: 2 });
}
