// An EagerContext that serves the RMSNorm targets' contract (legacy symbols, RMSNormDescriptor
// opaque bytes, buffers in target order) with the Tessera-language kernels on a runtime device:
// eager RMSNorm from Node today on sim or interpret, f32 only (the kernels' dtype). Other
// symbols and dtypes are refused by name.
import { unpackRMSNorm } from '../../descriptor/rms_norm.js';
import type { Device, DeviceKind } from '../../runtime/device.js';
import { emptyLike, type EagerArray, type EagerContext } from '../eager.js';
import { PrimitiveError } from '../errors.js';
import { rmsNormBwdKernel, rmsNormFwdKernel, rmsNormGradWeightKernel } from './kernels.js';
import { RMS_TARGETS } from './primitives.js';

const pow2 = (n: number): number => 2 ** Math.ceil(Math.log2(Math.max(n, 1)));

export function tesseraRmsNormContext(opts: { device?: DeviceKind | Device } = {}): EagerContext {
  const run = { ...(opts.device ? { device: opts.device } : {}) };
  return {
    async customCall(symbol, ins, outs, opaque) {
      const d = unpackRMSNorm(opaque);
      if (d.xType !== 'f32' || d.wType !== 'f32') throw new PrimitiveError('E_TYPE', symbol, `the Tessera RMSNorm kernels take f32 x and weight, got ${d.xType} and ${d.wType}`);
      const f = (a: EagerArray) => a.data as Float32Array;
      const BLOCK = pow2(d.n2);
      if (symbol === RMS_TARGETS.fwd.legacy.cuda) {
        const [out, invvar] = outs.map(emptyLike) as [EagerArray, EagerArray];
        if (d.n1 > 0) await rmsNormFwdKernel.run({ x: f(ins[0]!).slice(), w: f(ins[1]!).slice(), out: f(out), invvar: f(invvar), n2: d.n2, eps: d.eps, BLOCK }, { grid: d.n1, ...run });
        return [out, invvar];
      }
      if (symbol === RMS_TARGETS.bwd.legacy.cuda) {
        const [gi, gw, pg] = outs.map(emptyLike) as [EagerArray, EagerArray, EagerArray];
        const [g, iv, x, w] = ins.map((a) => f(a).slice()) as [Float32Array, Float32Array, Float32Array, Float32Array];
        const P = d.partGradSize;
        if (d.n1 > 0) await rmsNormBwdKernel.run({ g, invvar: iv, x, w, gradInput: f(gi), partGrad: f(pg), n2: d.n2, P, BLOCK }, { grid: d.n1, ...run });
        await rmsNormGradWeightKernel.run({ partGrad: f(pg), gradWeight: f(gw), n2: d.n2, P, BLOCK: Math.min(BLOCK, 64), PB: pow2(P) }, { grid: Math.ceil(d.n2 / Math.min(BLOCK, 64)), ...run });
        return [gi, gw, pg];
      }
      throw new PrimitiveError('E_UNAVAILABLE', symbol, `no Tessera kernel serves this target (only ${RMS_TARGETS.fwd.legacy.cuda}, ${RMS_TARGETS.bwd.legacy.cuda})`);
    },
  };
}
